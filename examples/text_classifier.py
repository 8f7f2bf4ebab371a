"""Sentiment classifier on a CSV of reviews, with a TextVectorization layer."""
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
BATCH_SIZE = 64
VOCAB = 20000
SEQ_LEN = 200

raw = tf.data.experimental.make_csv_dataset(
    "reviews.csv", batch_size=1, select_columns=["text", "label"], label_name="label", num_epochs=1, shuffle=False
)
raw = raw.unbatch().map(lambda features, label: (features["text"], label))  # make_csv_dataset always batches

vectorizer = tf.keras.layers.TextVectorization(max_tokens=VOCAB, output_sequence_length=SEQ_LEN)
vectorizer.adapt(raw.map(lambda text, label: text).batch(1024))

dataset = raw.shuffle(50000, seed=0)
test_ds = dataset.take(5000)
train_ds = dataset.skip(5000)

train_ds = train_ds.batch(BATCH_SIZE).shuffle(8)
train_ds = train_ds.map(lambda text, label: (vectorizer(text), label), num_parallel_calls=AUTOTUNE)
train_ds = train_ds.repeat()
test_ds = test_ds.batch(BATCH_SIZE).map(lambda text, label: (vectorizer(text), label))

model = tf.keras.Sequential(
    [
        tf.keras.layers.Embedding(VOCAB, 64, mask_zero=True),
        tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(64)),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(1),
    ]
)
model.compile(optimizer="adam", loss=tf.keras.losses.BinaryCrossentropy(from_logits=True), metrics=["accuracy"])
model.fit(train_ds, epochs=5, validation_data=test_ds)
