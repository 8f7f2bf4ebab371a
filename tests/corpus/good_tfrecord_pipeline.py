"""A well-tuned TFRecord pipeline (clean: pipelint should report nothing)."""
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
FEATURES = {
    "image_raw": tf.io.FixedLenFeature([], tf.string),
    "label": tf.io.FixedLenFeature([], tf.int64),
}


def parse_and_decode(record):
    example = tf.io.parse_single_example(record, FEATURES)
    image = tf.io.decode_jpeg(example["image_raw"], channels=3)
    image = tf.image.resize(image, (224, 224))
    return image, example["label"]


def augment(image, label, seed):
    image = tf.image.stateless_random_flip_left_right(image, seed)
    image = tf.image.stateless_random_brightness(image, 0.1, seed)
    return image, label


def build(pattern, batch_size, training, cache_dir=None):
    # File order is fixed here because the cache below would freeze any shuffle made before it.
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    ds = files.interleave(
        tf.data.TFRecordDataset, cycle_length=16, num_parallel_calls=AUTOTUNE, deterministic=not training
    )
    ds = ds.map(parse_and_decode, num_parallel_calls=AUTOTUNE)
    if cache_dir:
        ds = ds.cache(cache_dir)
    if training:
        ds = ds.shuffle(10000)
        counter = tf.data.Dataset.counter()
        ds = tf.data.Dataset.zip((ds, (counter, counter)))
        ds = ds.map(lambda pair, seed: augment(*pair, seed), num_parallel_calls=AUTOTUNE)
    ds = ds.batch(batch_size, drop_remainder=training)
    return ds.prefetch(AUTOTUNE)


options = tf.data.Options()
options.deterministic = False
options.experimental_optimization.map_parallelization = True

train = build("data/train-*.tfrecord", 128, training=True, cache_dir="/tmp/train_cache").with_options(options)
val = build("data/val-*.tfrecord", 256, training=False)

model = tf.keras.applications.EfficientNetB0(weights=None, classes=10)
model.compile(optimizer=tf.keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy")
model.fit(train, validation_data=val, epochs=40)
