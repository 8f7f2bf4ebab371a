"""Random search with a model factory; each trial gets its own optimizer (clean)."""
import random

import tensorflow as tf
from tensorflow import keras

AUTOTUNE = tf.data.AUTOTUNE
STEPS = 200

(x, y), (x_test, y_test) = keras.datasets.boston_housing.load_data()
train_ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x)).repeat().batch(32).prefetch(AUTOTUNE)
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(32).prefetch(AUTOTUNE)

OPTIMIZERS = {
    "adam": lambda lr: keras.optimizers.Adam(lr),
    "sgd": lambda lr: keras.optimizers.SGD(lr, momentum=0.9),
}


def build_model(hp):
    model = keras.Sequential([keras.layers.Normalization(axis=-1)])
    for _ in range(hp["layers"]):
        model.add(keras.layers.Dense(hp["units"], activation="relu"))
    model.add(keras.layers.Dense(1))
    model.compile(optimizer=OPTIMIZERS[hp["optimizer"]](hp["lr"]), loss="mse")
    return model


best = None
for trial in range(20):
    hp = {
        "layers": random.randint(1, 4),
        "units": random.choice([16, 32, 64]),
        "optimizer": random.choice(list(OPTIMIZERS)),
        "lr": 10 ** random.uniform(-4, -2),
    }
    model = build_model(hp)
    model.fit(train_ds, epochs=10, steps_per_epoch=STEPS, verbose=0)
    score = model.evaluate(test_ds, verbose=0)
    if best is None or score < best[0]:
        best = (score, hp)
print(best)
