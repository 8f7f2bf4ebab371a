"""Datasets combined with zip, concatenate and sample_from_datasets keep what their inputs did;
a concatenation built in a loop too."""
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def decode(path):
    return tf.image.decode_png(tf.io.read_file(path))


def augment(image):
    return tf.image.random_flip_left_right(image)


paths = tf.data.Dataset.list_files("images/*.png", shuffle=False)
images = paths.map(decode, num_parallel_calls=AUTOTUNE).map(augment, num_parallel_calls=AUTOTUNE)
labels = tf.data.Dataset.from_tensor_slices(label_array)
pairs = tf.data.Dataset.zip((images, labels))
pairs = pairs.cache()  # expect: PL202, PL301
pairs = pairs.shuffle(1000).batch(32)  # expect: PL103
model.fit(pairs, epochs=5)

english = tf.data.TFRecordDataset(["en.tfrecord"]).map(parse_en)  # expect: PL101
german = tf.data.TFRecordDataset(["de.tfrecord"]).map(parse_de, num_parallel_calls=AUTOTUNE)
mixed = tf.data.Dataset.sample_from_datasets([english, german], weights=[0.5, 0.5])
mixed = mixed.batch(64)  # expect: PL103
model.fit(mixed, epochs=2)

shards = None
for name in ["a.tfrecord", "b.tfrecord", "c.tfrecord"]:
    part = tf.data.TFRecordDataset(name).map(parse_en, num_parallel_calls=AUTOTUNE)
    part = part.batch(32)
    shards = part if shards is None else shards.concatenate(part)
shards = shards.shuffle(100)  # expect: PL203
model.fit(shards.prefetch(AUTOTUNE), epochs=1)

left = tf.data.Dataset.range(10).prefetch(2)
right = tf.data.Dataset.range(10).prefetch(2)
both = tf.data.Dataset.zip((left, right)).batch(2).prefetch(AUTOTUNE)
model.fit(both)
