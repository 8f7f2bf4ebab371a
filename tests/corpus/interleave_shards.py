"""Reading many CSV and TFRecord shards from cloud storage."""
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
CSV_COLUMNS = ["f%d" % i for i in range(20)] + ["label"]


def csv_shard(filename):
    return tf.data.experimental.CsvDataset(filename, [tf.float32] * 21, header=True)


def pack(*row):
    return tf.stack(row[:-1]), row[-1]


def build_csv_dataset(pattern, batch_size):
    shards = tf.data.Dataset.list_files(pattern)
    ds = shards.interleave(csv_shard, cycle_length=16)  # expect: PL102
    ds = ds.map(pack, num_parallel_calls=AUTOTUNE)
    ds = ds.shuffle(50000).batch(batch_size).prefetch(AUTOTUNE)
    return ds


def build_record_dataset(pattern, batch_size, parse_fn):
    return (
        tf.data.Dataset.list_files(pattern, shuffle=True)
        .interleave(
            lambda f: tf.data.TFRecordDataset(f, compression_type="GZIP"),
            cycle_length=8,
            num_parallel_calls=AUTOTUNE,
            deterministic=False,
        )
        .map(parse_fn, num_parallel_calls=AUTOTUNE)
        .batch(batch_size)
        .prefetch(AUTOTUNE)
    )


def build_nested(pattern):
    # Nested interleave: the outer one has no parallelism.
    dirs = tf.data.Dataset.list_files(pattern + "/*", shuffle=False)
    return dirs.interleave(  # expect: PL102
        lambda d: tf.data.Dataset.list_files(d + "/*.tfrecord").interleave(
            tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE
        ),
        cycle_length=4,
    ).prefetch(AUTOTUNE)


model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(build_csv_dataset("gs://bucket/csv/*.csv", 512), epochs=3)
model.evaluate(build_nested("gs://bucket/nested"))
