"""Who consumes a dataset decides which order rules matter: validation, evaluation, prediction,
peeks and vocabulary adaptation do not care about training randomness."""
import tensorflow as tf
from tensorflow import keras

AUTOTUNE = tf.data.AUTOTUNE

train_ds = keras.utils.image_dataset_from_directory("flowers/", subset="training", validation_split=0.2, seed=1)
val_ds = keras.utils.image_dataset_from_directory("flowers/", subset="validation", validation_split=0.2, seed=1)

train_ds = train_ds.cache("/tmp/train").shuffle(1000).prefetch(AUTOTUNE)  # expect: PL201, PL203
val_ds = val_ds.cache("/tmp/val").prefetch(AUTOTUNE)

normalized = train_ds.map(lambda x, y: (x / 255.0, y))
images, labels = next(iter(normalized))
print(normalized.element_spec)

model.fit(train_ds, validation_data=val_ds, epochs=10)

test_ds = tf.data.TFRecordDataset(["test.tfrecord"]).map(parse, num_parallel_calls=AUTOTUNE)
test_ds = test_ds.batch(64).shuffle(8).prefetch(AUTOTUNE)
model.evaluate(test_ds)

texts = tf.data.TextLineDataset(["corpus.txt"]).batch(256).repeat(2).shuffle(16)
vectorizer = keras.layers.TextVectorization(max_tokens=20000)
vectorizer.adapt(texts)

stream = tf.data.TFRecordDataset(["train.tfrecord"]).repeat().shuffle(64)  # expect: PL204, PL205
stream = stream.map(parse, num_parallel_calls=AUTOTUNE).batch(32).prefetch(AUTOTUNE)
for sample in stream.take(1):
    print(sample)
model.fit(stream, steps_per_epoch=100, epochs=3)

buffered = (
    tf.data.TFRecordDataset(["train.tfrecord"])
    .map(parse, num_parallel_calls=AUTOTUNE)
    .prefetch(64)
    .batch(32)
    .map(augment_batch, num_parallel_calls=AUTOTUNE)
    .prefetch(AUTOTUNE)
)
model.fit(buffered, epochs=2)
