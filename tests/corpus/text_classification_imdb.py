"""Sentiment analysis on IMDB reviews, after the TensorFlow text classification tutorial."""
import re
import string

import tensorflow as tf
from tensorflow.keras import layers, losses

AUTOTUNE = tf.data.AUTOTUNE
batch_size = 32
seed = 42
max_features = 10000
sequence_length = 250

raw_train_ds = tf.keras.utils.text_dataset_from_directory(
    "aclImdb/train",
    batch_size=batch_size,
    validation_split=0.2,
    subset="training",
    seed=seed,
)
raw_val_ds = tf.keras.utils.text_dataset_from_directory(
    "aclImdb/train",
    batch_size=batch_size,
    validation_split=0.2,
    subset="validation",
    seed=seed,
    shuffle=False,
)
raw_test_ds = tf.keras.utils.text_dataset_from_directory("aclImdb/test", batch_size=batch_size, shuffle=False)


def custom_standardization(input_data):
    lowercase = tf.strings.lower(input_data)
    stripped_html = tf.strings.regex_replace(lowercase, "<br />", " ")
    return tf.strings.regex_replace(stripped_html, "[%s]" % re.escape(string.punctuation), "")


vectorize_layer = layers.TextVectorization(
    standardize=custom_standardization,
    max_tokens=max_features,
    output_mode="int",
    output_sequence_length=sequence_length,
)

train_text = raw_train_ds.map(lambda x, y: x)
vectorize_layer.adapt(train_text)


def vectorize_text(text, label):
    text = tf.expand_dims(text, -1)
    return vectorize_layer(text), label


train_ds = raw_train_ds.map(vectorize_text, num_parallel_calls=AUTOTUNE)
val_ds = raw_val_ds.map(vectorize_text, num_parallel_calls=AUTOTUNE)
test_ds = raw_test_ds.map(vectorize_text)  # expect: PL101

train_ds = train_ds.cache().prefetch(buffer_size=AUTOTUNE)  # expect: PL201, PL301
val_ds = val_ds.cache().prefetch(buffer_size=AUTOTUNE)  # expect: PL301
test_ds = test_ds.cache().prefetch(buffer_size=AUTOTUNE)  # expect: PL301

model = tf.keras.Sequential(
    [
        layers.Embedding(max_features, 16),
        layers.Dropout(0.2),
        layers.GlobalAveragePooling1D(),
        layers.Dropout(0.2),
        layers.Dense(1, activation="sigmoid"),
    ]
)
model.compile(loss=losses.BinaryCrossentropy(), optimizer="adam", metrics=["accuracy"])
model.fit(train_ds, validation_data=val_ds, epochs=10)
loss, accuracy = model.evaluate(test_ds)
