"""A pipeline that follows the tf.data performance guide: pipelint reports nothing here."""
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
BATCH_SIZE = 128
FEATURES = {
    "image": tf.io.FixedLenFeature([], tf.string),
    "label": tf.io.FixedLenFeature([], tf.int64),
}


def parse(record):
    example = tf.io.parse_single_example(record, FEATURES)
    image = tf.io.decode_jpeg(example["image"], channels=3)
    return tf.image.resize(image, (96, 96)), example["label"]


def augment(images, labels):
    images = tf.image.random_flip_left_right(images)
    return tf.image.random_brightness(images, 0.1), labels


def make_dataset(pattern, training):
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=8, num_parallel_calls=AUTOTUNE)
    ds = ds.map(parse, num_parallel_calls=AUTOTUNE)
    ds = ds.cache("/tmp/tf_cache_" + ("train" if training else "val"))  # on disk, before any randomness
    if training:
        ds = ds.shuffle(10000)
    ds = ds.batch(BATCH_SIZE, drop_remainder=training)
    if training:
        ds = ds.map(augment, num_parallel_calls=AUTOTUNE)  # vectorized, after batch
    return ds.prefetch(AUTOTUNE)


def make_model():
    return tf.keras.Sequential(
        [
            tf.keras.Input(shape=(96, 96, 3)),
            tf.keras.layers.Rescaling(1.0 / 255),
            tf.keras.layers.Conv2D(32, 3, activation="relu"),
            tf.keras.layers.GlobalAveragePooling2D(),
            tf.keras.layers.Dense(10),
        ]
    )


if __name__ == "__main__":
    train_ds = make_dataset("data/train-*.tfrecord", training=True)
    val_ds = make_dataset("data/val-*.tfrecord", training=False)
    model = make_model()
    model.compile(
        optimizer=tf.keras.optimizers.Adam(1e-3),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(train_ds, validation_data=val_ds, epochs=10)
