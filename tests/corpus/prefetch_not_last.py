"""Segmentation pipeline where prefetch ended up in the middle."""
import tensorflow as tf
import tensorflow_datasets as tfds

AUTOTUNE = tf.data.AUTOTUNE
BATCH = 16


def load_image(datapoint):
    image = tf.image.resize(datapoint["image"], (128, 128))
    mask = tf.image.resize(datapoint["segmentation_mask"], (128, 128), method="nearest")
    image = tf.cast(image, tf.float32) / 255.0
    return image, mask - 1


class Augment(tf.keras.layers.Layer):
    def __init__(self, seed=42):
        super().__init__()
        self.augment_inputs = tf.keras.layers.RandomFlip(mode="horizontal", seed=seed)
        self.augment_labels = tf.keras.layers.RandomFlip(mode="horizontal", seed=seed)

    def call(self, inputs, labels):
        return self.augment_inputs(inputs), self.augment_labels(labels)


dataset, info = tfds.load("oxford_iiit_pet", with_info=True)
train_images = dataset["train"].map(load_image, num_parallel_calls=AUTOTUNE)
test_images = dataset["test"].map(load_image, num_parallel_calls=AUTOTUNE)

train_batches = (
    train_images.cache()
    .shuffle(1000)
    .prefetch(buffer_size=AUTOTUNE)
    .batch(BATCH)  # expect: PL104
    .repeat()
    .map(Augment(), num_parallel_calls=AUTOTUNE)
)
test_batches = test_images.prefetch(AUTOTUNE).batch(BATCH)  # expect: PL104

model = tf.keras.applications.MobileNetV2(input_shape=[128, 128, 3], include_top=False)
model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
steps = info.splits["train"].num_examples // BATCH
model.fit(train_batches, epochs=20, steps_per_epoch=steps, validation_data=test_batches)
