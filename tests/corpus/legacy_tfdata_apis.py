"""Input function from a TF 1.x codebase, partly migrated to TF 2."""
import tensorflow as tf

_NUM_PARALLEL = 16


def _parse(record):
    keys_to_features = {
        "image": tf.io.FixedLenFeature([], tf.string),
        "label": tf.io.FixedLenFeature([], tf.int64),
    }
    parsed = tf.io.parse_single_example(record, keys_to_features)
    image = tf.image.decode_png(parsed["image"], channels=1)
    image = tf.image.resize(image, [64, 64])
    return image, parsed["label"]


def input_fn(file_pattern, batch_size, is_training):
    files = tf.data.Dataset.list_files(file_pattern, shuffle=is_training)
    dataset = files.apply(
        tf.data.experimental.parallel_interleave(  # expect: PL501
            tf.data.TFRecordDataset, cycle_length=_NUM_PARALLEL, sloppy=is_training
        )
    )
    if is_training:
        dataset = dataset.apply(tf.data.experimental.shuffle_and_repeat(buffer_size=8192))  # expect: PL501
    dataset = dataset.apply(
        tf.data.experimental.map_and_batch(  # expect: PL501
            _parse, batch_size=batch_size, num_parallel_calls=_NUM_PARALLEL, drop_remainder=True
        )
    )
    dataset = dataset.prefetch(tf.data.experimental.AUTOTUNE)
    return dataset


def serving_input_fn(paths, batch_size):
    dataset = tf.data.TFRecordDataset(paths)
    dataset = dataset.map(_parse, num_parallel_calls=tf.data.experimental.AUTOTUNE)
    dataset = dataset.batch(batch_size)
    options = tf.data.Options()
    options.experimental_deterministic = True  # expect: PL501
    return dataset.with_options(options).prefetch(1)


def main():
    model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(input_fn("train-*", 128, True), steps_per_epoch=500, epochs=4)
    model.evaluate(serving_input_fn(["eval.tfrecord"], 128))


if __name__ == "__main__":
    main()
