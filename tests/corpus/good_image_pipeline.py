"""Transfer learning from a directory of images (clean)."""
import keras
import tensorflow as tf
from keras import layers

AUTOTUNE = tf.data.AUTOTUNE
IMG_SIZE = (160, 160)

train_ds = keras.utils.image_dataset_from_directory(
    "cats_and_dogs/train", image_size=IMG_SIZE, batch_size=32, shuffle=True, seed=1
)
val_ds = keras.utils.image_dataset_from_directory(
    "cats_and_dogs/validation", image_size=IMG_SIZE, batch_size=32, shuffle=False
)

augmentation = keras.Sequential([layers.RandomFlip("horizontal"), layers.RandomRotation(0.2)])
preprocess = keras.applications.mobilenet_v2.preprocess_input

# Random augmentation after batching, in parallel, and no cache after it.
train_ds = train_ds.map(lambda x, y: (augmentation(x, training=True), y), num_parallel_calls=AUTOTUNE)
train_ds = train_ds.prefetch(AUTOTUNE)

base = keras.applications.MobileNetV2(input_shape=IMG_SIZE + (3,), include_top=False, weights="imagenet")
base.trainable = False
inputs = keras.Input(shape=IMG_SIZE + (3,))
x = preprocess(inputs)
x = base(x, training=False)
x = layers.GlobalAveragePooling2D()(x)
outputs = layers.Dense(1)(x)
model = keras.Model(inputs, outputs)
model.compile(
    optimizer=keras.optimizers.Adam(learning_rate=1e-4),
    loss=keras.losses.BinaryCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
model.fit(train_ds, epochs=10, validation_data=val_ds)

# Fine-tuning: recompiling the SAME model with a new optimizer is fine.
base.trainable = True
model.compile(
    optimizer=keras.optimizers.RMSprop(learning_rate=1e-5),
    loss=keras.losses.BinaryCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
model.fit(train_ds, epochs=20, initial_epoch=10, validation_data=val_ds)
