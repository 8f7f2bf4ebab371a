"""Datasets handed to methods of local classes and to local helpers, transformed and consumed there."""
import tensorflow as tf
import tensorflow_datasets as tfds

AUTOTUNE = tf.data.AUTOTUNE


def random_jitter(image):
    image = tf.image.resize(image, [286, 286])
    return tf.image.random_crop(image, size=[256, 256, 3])


def load_train(image, label):
    return random_jitter(image), label


class Pipeline:
    def __init__(self, batch_size):
        self.batch_size = batch_size

    def preprocess(self, ds, training):
        ds = ds.map(load_train, num_parallel_calls=AUTOTUNE)
        if training:
            ds = ds.cache()  # expect: PL202
            ds = ds.shuffle(10000)
        return ds.batch(self.batch_size).prefetch(AUTOTUNE)


class GAN:
    def __init__(self, epochs):
        self.epochs = epochs

    def train(self, dataset):
        for epoch in range(self.epochs):
            for image, _ in dataset:
                self.train_step(image)

    def train_step(self, image):
        pass


def create_dataset(batch_size):
    ds = tfds.load("mnist", split="train", as_supervised=True)
    ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y), num_parallel_calls=AUTOTUNE)  # expect: PL105
    return ds.shuffle(10000).batch(batch_size)  # expect: PL103


def main():
    raw = tfds.load("cifar10", split="train", as_supervised=True)
    pipeline = Pipeline(64)
    model.fit(pipeline.preprocess(raw, training=True), epochs=10)

    gan = GAN(epochs=5)
    gan.train(create_dataset(128))


main()
