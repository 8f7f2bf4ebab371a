"""Two-member ensemble trained on a TFRecord dataset; both members share one optimizer object."""
import tensorflow as tf
from tensorflow import keras

AUTOTUNE = tf.data.AUTOTUNE
FEATURES = {
    "x": tf.io.FixedLenFeature([32], tf.float32),
    "y": tf.io.FixedLenFeature([], tf.int64),
}


def parse(record):
    ex = tf.io.parse_single_example(record, FEATURES)
    return ex["x"], ex["y"]


files = tf.io.gfile.glob("data/tabular-*.tfrecord")
dataset = (
    tf.data.TFRecordDataset(files, num_parallel_reads=AUTOTUNE)
    .map(parse, num_parallel_calls=AUTOTUNE)
    .shuffle(20000)
    .batch(512)
    .prefetch(AUTOTUNE)
)


def make_member(width):
    inputs = keras.Input(shape=(32,))
    h = keras.layers.Dense(width, activation="relu")(inputs)
    h = keras.layers.Dense(width, activation="relu")(h)
    return keras.Model(inputs, keras.layers.Dense(2)(h))


shared_opt = keras.optimizers.RMSprop(learning_rate=3e-4)
member_a = make_member(64)
member_b = make_member(256)
member_a.compile(optimizer=shared_opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
member_b.compile(optimizer=shared_opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # expect: PL401
member_a.fit(dataset, epochs=10)
member_b.fit(dataset, epochs=10)
member_a.evaluate(dataset)
