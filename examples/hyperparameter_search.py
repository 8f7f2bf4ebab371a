"""Grid search over model depth and width on Fashion-MNIST."""
import itertools
import json

import keras
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
(x_train, y_train), (x_val, y_val) = keras.datasets.fashion_mnist.load_data()

train_ds = (
    tf.data.Dataset.from_tensor_slices((x_train, y_train))
    .shuffle(60000)
    .batch(128)
    .map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y), num_parallel_calls=AUTOTUNE)
    .prefetch(AUTOTUNE)
)
val_ds = (
    tf.data.Dataset.from_tensor_slices((x_val, y_val))
    .batch(256)
    .map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y), num_parallel_calls=AUTOTUNE)
    .prefetch(AUTOTUNE)
)


def build_model(depth, width):
    model = keras.Sequential([keras.Input(shape=(28, 28)), keras.layers.Flatten()])
    for _ in range(depth):
        model.add(keras.layers.Dense(width, activation="relu"))
    model.add(keras.layers.Dense(10))
    return model


# One optimizer for every trial: its slot variables belong to the first model it was built with.
optimizer = keras.optimizers.Adam(learning_rate=1e-3)
scores = {}
for depth, width in itertools.product([1, 2, 3], [64, 256]):
    model = build_model(depth, width)
    model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(train_ds, validation_data=val_ds, epochs=5, batch_size=128, verbose=2)
    scores[f"{depth}x{width}"] = max(history.history["val_accuracy"])

print(json.dumps(scores, indent=2))
