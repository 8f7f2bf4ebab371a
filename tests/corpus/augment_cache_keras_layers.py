"""Satellite tiles: augmentation with Keras preprocessing layers inside tf.data."""
import keras
import numpy as np
import tensorflow as tf
from keras import layers

AUTOTUNE = tf.data.AUTOTUNE

tiles = np.load("tiles.npy")
masks = np.load("labels.npy")

augmenter = keras.Sequential(
    [
        layers.RandomFlip("horizontal_and_vertical"),
        layers.RandomRotation(0.25),
        layers.RandomContrast(0.2),
    ]
)


def resize(image, label):
    return tf.image.resize(image, (128, 128)), label


train = tf.data.Dataset.from_tensor_slices((tiles, masks))
train = train.map(resize, num_parallel_calls=AUTOTUNE)
train = train.map(lambda x, y: (augmenter(x, training=True), y), num_parallel_calls=AUTOTUNE)
train = train.cache()  # expect: PL202
train = train.shuffle(4096).batch(64).prefetch(AUTOTUNE)

# Shuffled first, then cached: every epoch replays the first epoch's order.
ordered = tf.data.Dataset.from_tensor_slices((tiles, masks)).shuffle(len(tiles))
ordered = ordered.map(resize, num_parallel_calls=AUTOTUNE)
ordered = ordered.cache("/tmp/tiles.cache")  # expect: PL201
ordered = ordered.batch(64).prefetch(AUTOTUNE)

# NumPy randomness inside the mapped function is frozen by the cache as well.
def jitter(image, label):
    noise = tf.numpy_function(lambda: np.random.normal(0, 0.05, (128, 128, 3)).astype("float32"), [], tf.float32)  # expect: PL106
    return image + noise, label


noisy = (
    tf.data.Dataset.from_tensor_slices((tiles, masks))
    .map(resize, num_parallel_calls=AUTOTUNE)
    .map(jitter, num_parallel_calls=AUTOTUNE)
    .cache()  # expect: PL202
    .shuffle(1)  # expect: PL205
    .batch(64)
    .prefetch(AUTOTUNE)
)

# Stateless random ops are reproducible per seed: caching their output changes nothing.
def stateless_flip(image, label, seed):
    return tf.image.stateless_random_flip_up_down(image, seed), label


seeds = tf.data.Dataset.random(seed=4).batch(2)
stable = tf.data.Dataset.zip((tf.data.Dataset.from_tensor_slices((tiles, masks)), seeds))
stable = stable.map(lambda pair, seed: stateless_flip(*pair, seed), num_parallel_calls=AUTOTUNE)
stable = stable.map(resize, num_parallel_calls=AUTOTUNE).cache().shuffle(4096).batch(64).prefetch(AUTOTUNE)

model = keras.applications.ResNet50(input_shape=(128, 128, 3), weights=None, classes=8)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(train, epochs=30, batch_size=64)  # expect: PL405
model.fit(ordered, epochs=1)
model.fit(noisy, epochs=1)
model.fit(stable, epochs=1)
