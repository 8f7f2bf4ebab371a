"""ResNet-style input pipeline over sharded TFRecords."""
import argparse

import tensorflow as tf

IMAGE_SIZE = 224
NUM_TRAIN_IMAGES = 1281167


def parse_example(serialized):
    features = {
        "image/encoded": tf.io.FixedLenFeature([], tf.string),
        "image/class/label": tf.io.FixedLenFeature([], tf.int64),
    }
    parsed = tf.io.parse_single_example(serialized, features)
    image = tf.io.decode_jpeg(parsed["image/encoded"], channels=3)
    image = tf.image.resize(image, [IMAGE_SIZE, IMAGE_SIZE])
    label = tf.cast(parsed["image/class/label"], tf.int32) - 1
    return image, label


def make_dataset(file_pattern, batch_size, training):
    files = tf.data.Dataset.list_files(file_pattern, shuffle=training)
    ds = files.interleave(  # expect: PL102
        tf.data.TFRecordDataset,
        cycle_length=8,
        block_length=1,
    )
    if training:
        ds = ds.shuffle(buffer_size=10000)
        ds = ds.repeat()
    ds = ds.map(parse_example)  # stateless: tf.data parallelizes this map itself
    ds = ds.batch(batch_size, drop_remainder=training)  # expect: PL103
    return ds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", default="gs://bucket/train-*")
    parser.add_argument("--val", default="gs://bucket/validation-*")
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args()

    model = tf.keras.applications.ResNet50(weights=None, classes=1000)
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.1, momentum=0.9),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    train_ds = make_dataset(args.train, args.batch_size, training=True)
    val_ds = make_dataset(args.val, args.batch_size, training=False)
    model.fit(
        train_ds,
        epochs=90,
        steps_per_epoch=NUM_TRAIN_IMAGES // args.batch_size,
        validation_data=val_ds,
    )


if __name__ == "__main__":
    main()
