"""Streaming samples from a Python generator (HDF5 file) into tf.data."""
import h5py
import numpy as np
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def h5_batches(path, batch_size=256):
    with h5py.File(path, "r") as f:
        x, y = f["x"], f["y"]
        for start in range(0, len(x), batch_size):
            yield x[start : start + batch_size], y[start : start + batch_size]


def h5_rows(path):
    with h5py.File(path, "r") as f:
        for row, target in zip(f["x"], f["y"]):
            yield row, target


# The generator already yields batches of 256; unbatching them here is not batch-then-unbatch.
train_ds = tf.data.Dataset.from_generator(  # expect: PL107
    lambda: h5_batches("train.h5"),
    output_types=(tf.float32, tf.int64),  # deprecated: named in the finding above
    output_shapes=((None, 128), (None,)),
)
train_ds = train_ds.unbatch().shuffle(10000).batch(64).prefetch(AUTOTUNE)

val_ds = tf.data.Dataset.from_generator(  # expect: PL107
    h5_rows,
    args=("val.h5",),
    output_signature=(
        tf.TensorSpec(shape=(128,), dtype=tf.float32),
        tf.TensorSpec(shape=(), dtype=tf.int64),
    ),
)
val_ds = val_ds.batch(64).prefetch(AUTOTUNE)

model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train_ds, validation_data=val_ds, epochs=5)

# In-memory arrays: from_tensor_slices, no generator needed.
x = np.random.rand(1000, 128).astype("float32")
y = np.random.randint(0, 10, size=1000)
small_ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(64).prefetch(AUTOTUNE)
model.evaluate(small_ds)
