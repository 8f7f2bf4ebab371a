"""Helpers and branches that end up correct on every path (clean)."""
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def decode(path, label):
    image = tf.io.decode_png(tf.io.read_file(path), channels=1)
    return tf.image.resize(image, (64, 64)), label


def batched(paths, labels, batch_size, training):
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    if training:
        ds = ds.shuffle(len(paths), reshuffle_each_iteration=True)
    ds = ds.map(decode, num_parallel_calls=AUTOTUNE)
    return ds.batch(batch_size)


def pipeline(paths, labels, batch_size=64, training=False):
    # The helper's batches get prefetched here, so nothing is missing.
    return batched(paths, labels, batch_size, training).prefetch(AUTOTUNE)


def eval_pipeline(paths, labels):
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    if len(paths) > 100_000:
        ds = ds.map(decode, num_parallel_calls=AUTOTUNE).batch(256, num_parallel_calls=AUTOTUNE)
    else:
        ds = ds.map(decode, num_parallel_calls=AUTOTUNE).batch(64).prefetch(2)
    return ds


paths = tf.io.gfile.glob("digits/*/*.png")
labels = [int(p.split("/")[-2]) for p in paths]

model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(pipeline(paths, labels, training=True), epochs=5)
model.evaluate(eval_pipeline(paths, labels))
print(len(paths), "images")
