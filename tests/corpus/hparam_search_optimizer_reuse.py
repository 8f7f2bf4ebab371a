"""Grid search over layer widths and dropout; one optimizer instance shared by every trial."""
import itertools

import numpy as np
import tensorflow as tf
from tensorflow import keras

(x_train, y_train), (x_val, y_val) = keras.datasets.mnist.load_data()
x_train = x_train.reshape(-1, 784).astype("float32") / 255.0
x_val = x_val.reshape(-1, 784).astype("float32") / 255.0


def build_model(units, dropout):
    return keras.Sequential(
        [
            keras.Input(shape=(784,)),
            keras.layers.Dense(units, activation="relu"),
            keras.layers.Dropout(dropout),
            keras.layers.Dense(10, activation="softmax"),
        ]
    )


optimizer = keras.optimizers.Adam(learning_rate=1e-3)
results = {}
for units, dropout in itertools.product([64, 128, 256], [0.0, 0.2, 0.5]):
    model = build_model(units, dropout)
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])  # expect: PL401
    history = model.fit(x_train, y_train, batch_size=128, epochs=5, validation_data=(x_val, y_val), verbose=0)
    results[(units, dropout)] = max(history.history["val_accuracy"])

best = max(results, key=results.get)
print("best", best, results[best])

# Second sweep over the learning rate: a fresh optimizer per trial is fine.
for lr in np.logspace(-4, -2, 5):
    model = build_model(*best)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=float(lr)), loss="sparse_categorical_crossentropy")
    model.fit(x_train, y_train, batch_size=128, epochs=3, verbose=0)
