"""Image classifier trained from a folder of JPEGs (one sub-folder per class).

Run `pipelint check examples/image_classifier.py` to see what is wrong with its input pipeline.
"""
import argparse

import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

AUTOTUNE = tf.data.AUTOTUNE
IMG_SIZE = (224, 224)


def augment(image, label):
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, max_delta=0.1)
    image = tf.image.random_contrast(image, 0.9, 1.1)
    return image, label


def build_datasets(data_dir, batch_size):
    train_ds = keras.utils.image_dataset_from_directory(
        data_dir, validation_split=0.2, subset="training", seed=1337,
        image_size=IMG_SIZE, batch_size=batch_size,
    )
    val_ds = keras.utils.image_dataset_from_directory(
        data_dir, validation_split=0.2, subset="validation", seed=1337,
        image_size=IMG_SIZE, batch_size=batch_size, shuffle=False,
    )
    class_names = train_ds.class_names
    # Shuffles whole batches (the helper already batched), and caches the random augmentation,
    # so every epoch sees exactly the same flipped and brightened images.
    train_ds = train_ds.shuffle(1000)
    train_ds = train_ds.map(augment, num_parallel_calls=AUTOTUNE)
    train_ds = train_ds.cache()
    train_ds = train_ds.prefetch(AUTOTUNE)
    val_ds = val_ds.prefetch(AUTOTUNE)
    return train_ds, val_ds, class_names


def build_model(num_classes):
    base = keras.applications.EfficientNetB0(include_top=False, weights="imagenet", input_shape=IMG_SIZE + (3,))
    base.trainable = False
    inputs = keras.Input(shape=IMG_SIZE + (3,))
    x = base(inputs, training=False)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    outputs = layers.Dense(num_classes, activation="softmax")(x)
    return keras.Model(inputs, outputs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()

    train_ds, val_ds, class_names = build_datasets(args.data_dir, args.batch_size)
    model = build_model(len(class_names))
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(train_ds, validation_data=val_ds, epochs=args.epochs)
    model.save("image_classifier.keras")


if __name__ == "__main__":
    main()
