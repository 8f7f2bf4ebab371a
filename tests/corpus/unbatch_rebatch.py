"""Re-batching for a different per-replica batch size."""
import tensorflow as tf
from tensorflow import keras

AUTOTUNE = tf.data.AUTOTUNE


def parse_row(line):
    fields = tf.io.decode_csv(line, record_defaults=[[0.0]] * 9)
    return tf.stack(fields[:-1]), fields[-1]


def base_dataset(path, batch_size):
    ds = tf.data.TextLineDataset(path).skip(1)
    ds = ds.map(parse_row, num_parallel_calls=AUTOTUNE)
    ds = ds.batch(batch_size)
    return ds


# Someone else's helper batched at 32; we need 1024 for the big model.
big = base_dataset("housing.csv", 32)
big = big.unbatch()  # expect: PL108
big = big.batch(1024).prefetch(AUTOTUNE)

# The directory helper returns batches; pass batch_size=None instead of unbatching.
images = keras.utils.image_dataset_from_directory("scans", image_size=(256, 256), batch_size=32)
images = images.unbatch().batch(8).prefetch(AUTOTUNE)  # expect: PL108

# Vectorized map between batch and unbatch is the documented idiom: not flagged.
scaled = (
    tf.data.TextLineDataset("housing.csv")
    .skip(1)
    .batch(4096)
    .map(lambda lines: tf.io.decode_csv(lines, record_defaults=[[0.0]] * 9), num_parallel_calls=AUTOTUNE)
    .unbatch()
    .shuffle(20000)
    .batch(256)
    .prefetch(AUTOTUNE)
)

model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(big, epochs=10)
