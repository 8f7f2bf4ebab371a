"""Mapped functions that reach Python or randomness through decorators and helper calls."""
import numpy as np
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


@tf.py_function(Tout=tf.float32)  # expect: PL106
def load_audio(path):
    return np.load(path.numpy().decode())


def read_label(path):
    return tf.numpy_function(lambda p: np.int64(len(p)), [path], tf.int64)


def decode(path):
    return load_audio(path), read_label(path)


def features(path):
    return decode(path)


def map_decorator(func):
    def wrapper(*args):
        return tf.py_function(func, inp=args, Tout=(tf.float32,))  # expect: PL106
    return wrapper


@map_decorator
def slow_map(x):
    return x * 2


files = tf.data.Dataset.list_files("audio/*.npy")
audio = files.map(load_audio)
pairs = files.map(features, num_parallel_calls=AUTOTUNE)
timed = tf.data.Dataset.range(100).map(slow_map)


def jitter(image):
    return tf.image.random_crop(image, [224, 224, 3])


def train_transform(image, label):
    return jitter(image), label


class Preprocess:
    def __init__(self, train):
        self._train = train

    def __call__(self, image, label):
        image = tf.cast(image, tf.float32)
        if self._train:
            image = tf.image.random_flip_left_right(image)
        return image, label


augmentation_layers = [tf.keras.layers.RandomFlip("horizontal"), tf.keras.layers.RandomRotation(0.1)]


def augment(x):
    for layer in augmentation_layers:
        x = layer(x)
    return x


images = tf.data.Dataset.from_tensor_slices((x_train, y_train))
a = images.map(train_transform, num_parallel_calls=AUTOTUNE).cache()  # expect: PL202
b = images.map(Preprocess(train=True), num_parallel_calls=AUTOTUNE).cache()  # expect: PL202
c = images.map(Preprocess(train=False), num_parallel_calls=AUTOTUNE).cache()
d = images.map(lambda x, y: (augment(x), y), num_parallel_calls=AUTOTUNE).cache()  # expect: PL202
