"""Training from sharded TFRecord files whose images need a custom (NumPy) decoder."""
import io

import numpy as np
import tensorflow as tf
from PIL import Image

FEATURES = {
    "image/encoded": tf.io.FixedLenFeature([], tf.string),
    "image/label": tf.io.FixedLenFeature([], tf.int64),
}


def _decode_with_pil(data):
    image = Image.open(io.BytesIO(data)).convert("RGB").resize((128, 128))
    return np.asarray(image, dtype=np.float32) / 255.0


def parse(record):
    example = tf.io.parse_single_example(record, FEATURES)
    image = tf.numpy_function(_decode_with_pil, [example["image/encoded"]], tf.float32)
    image.set_shape([128, 128, 3])
    return image, example["image/label"]


def make_dataset(pattern, batch_size, training=True):
    files = tf.io.gfile.glob(pattern)
    ds = tf.data.TFRecordDataset(files)
    ds = ds.map(parse)
    ds = ds.cache()
    if training:
        ds = ds.shuffle(10000)
    ds = ds.batch(batch_size)
    return ds


model = tf.keras.Sequential(
    [
        tf.keras.Input(shape=(128, 128, 3)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Conv2D(64, 3, activation="relu"),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(20),
    ]
)
model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
model.fit(
    make_dataset("data/train-*.tfrecord", 64),
    validation_data=make_dataset("data/val-*.tfrecord", 64, training=False),
    epochs=20,
)
