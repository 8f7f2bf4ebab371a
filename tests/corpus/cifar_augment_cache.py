"""CIFAR-10 with on-the-fly augmentation (the cache is in the wrong place)."""
import tensorflow as tf
import tensorflow_datasets as tfds

BATCH_SIZE = 128
AUTOTUNE = tf.data.AUTOTUNE


def augment(image, label):
    image = tf.cast(image, tf.float32) / 255.0
    image = tf.image.resize_with_crop_or_pad(image, 40, 40)
    image = tf.image.random_crop(image, size=[32, 32, 3])
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, max_delta=0.2)
    return image, label


def to_float(image, label):
    return tf.cast(image, tf.float32) / 255.0, label


train, test = tfds.load("cifar10", split=["train", "test"], as_supervised=True)

train_ds = (
    train.map(augment, num_parallel_calls=AUTOTUNE)
    .cache()  # expect: PL202
    .shuffle(64)  # expect: PL205
    .batch(BATCH_SIZE)
    .prefetch(AUTOTUNE)
)
test_ds = test.map(to_float, num_parallel_calls=AUTOTUNE).batch(BATCH_SIZE).prefetch(AUTOTUNE)  # expect: PL105

model = tf.keras.applications.MobileNetV2(input_shape=(32, 32, 3), weights=None, classes=10)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(train_ds, epochs=30, validation_data=test_ds)
