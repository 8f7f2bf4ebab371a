"""Quick experiments on a subset: caching in the wrong places."""
import tensorflow as tf
import tensorflow_datasets as tfds

AUTOTUNE = tf.data.AUTOTUNE


def preprocess(example):
    image = tf.image.resize(example["image"], (64, 64))
    return image, example["label"]


def load_debug_split(split, n):
    ds = tfds.load("food101", split=split)
    ds = ds.map(preprocess, num_parallel_calls=AUTOTUNE)
    ds = ds.cache()
    # Only n examples are ever read, so the cache never completes and is discarded every epoch.
    return ds.take(n)  # expect: PL208


def load_split(split):
    ds = tfds.load("food101", split=split)
    return ds.map(preprocess, num_parallel_calls=AUTOTUNE).cache()


debug_ds = load_debug_split("train", 2000)
debug_ds = debug_ds.shuffle(2000).batch(32).prefetch(AUTOTUNE)

train_ds = load_split("train")
train_ds = train_ds.cache()  # expect: PL209
train_ds = train_ds.shuffle(10000).batch(32).prefetch(AUTOTUNE)

val_ds = tfds.load("food101", split="validation").map(preprocess, num_parallel_calls=AUTOTUNE)
val_ds = val_ds.batch(64)
val_ds = val_ds.cache()
val_ds = val_ds.prefetch(AUTOTUNE)
val_ds = val_ds.cache()  # expect: PL104, PL209

small_val = tfds.load("food101", split="validation").cache().take(500)  # expect: PL208
small_val = small_val.map(preprocess, num_parallel_calls=AUTOTUNE).batch(64).prefetch(AUTOTUNE)

# take before cache is the right order.
subset = tfds.load("food101", split="train").take(5000).cache()
subset = subset.map(preprocess, num_parallel_calls=AUTOTUNE).shuffle(5000).batch(32).prefetch(AUTOTUNE)

model = tf.keras.applications.MobileNetV3Small(input_shape=(64, 64, 3), weights=None, classes=101)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(debug_ds, validation_data=small_val, epochs=3)
model.fit(train_ds, validation_data=val_ds, epochs=3)
model.fit(subset, epochs=3)
