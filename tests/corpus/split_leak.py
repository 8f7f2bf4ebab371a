"""Train/validation split of a labelled image folder with take/skip."""
import glob
import os

import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
BATCH = 64

paths = sorted(glob.glob("images/*/*.jpg"))
class_names = sorted(os.listdir("images"))
labels = [class_names.index(os.path.basename(os.path.dirname(p))) for p in paths]
n_val = len(paths) // 5


def load_image(path, label):
    image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    return tf.image.resize(image, [128, 128]) / 255.0, label


full_ds = tf.data.Dataset.from_tensor_slices((paths, labels))
full_ds = full_ds.shuffle(len(paths))  # expect: PL206
val_ds = full_ds.take(n_val)
train_ds = full_ds.skip(n_val)

train_ds = train_ds.map(load_image, num_parallel_calls=AUTOTUNE).batch(BATCH).prefetch(AUTOTUNE)
val_ds = val_ds.map(load_image, num_parallel_calls=AUTOTUNE).batch(BATCH).prefetch(AUTOTUNE)


def split_dataset(ds, val_fraction, size):
    """Generic helper from a utilities module."""
    ds = ds.shuffle(size, seed=7)  # expect: PL206
    n = int(size * val_fraction)
    return ds.skip(n), ds.take(n)


features = tf.random.normal([5000, 16])
targets = tf.cast(tf.reduce_sum(features, axis=1) > 0, tf.int32)
tab_train, tab_val = split_dataset(tf.data.Dataset.from_tensor_slices((features, targets)), 0.2, 5000)

# A fixed permutation split is fine.
fixed = tf.data.Dataset.from_tensor_slices((paths, labels)).shuffle(len(paths), reshuffle_each_iteration=False)
fixed_val = fixed.take(n_val)
fixed_train = fixed.skip(n_val)

model = tf.keras.applications.EfficientNetB0(weights=None, classes=len(class_names), input_shape=(128, 128, 3))
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(train_ds, validation_data=val_ds, epochs=10)

clf = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(2)])
clf.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
clf.fit(tab_train.batch(256).prefetch(AUTOTUNE), validation_data=tab_val.batch(256).prefetch(AUTOTUNE), epochs=5)
