"""Tabular churn model: the dataset is repeated forever and handed to fit."""
import pandas as pd
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE

df = pd.read_csv("churn.csv")
target = df.pop("churned").values
features = {name: df[name].values for name in ["tenure", "monthly_charges", "total_charges"]}

train_ds = tf.data.Dataset.from_tensor_slices((features, target))
train_ds = train_ds.repeat()
train_ds = train_ds.shuffle(buffer_size=5000)  # expect: PL204
train_ds = train_ds.batch(256).prefetch(AUTOTUNE)

inputs = {name: tf.keras.Input(shape=(1,), name=name) for name in features}
x = tf.keras.layers.Concatenate()(list(inputs.values()))
x = tf.keras.layers.Dense(32, activation="relu")(x)
model = tf.keras.Model(inputs, tf.keras.layers.Dense(1, activation="sigmoid")(x))
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["AUC"])
model.fit(train_ds, epochs=20)  # expect: PL207


def make_input(frame, labels, training=True):
    ds = tf.data.Dataset.from_tensor_slices((dict(frame), labels))
    if training:
        ds = ds.repeat().shuffle(10000)  # expect: PL204
    return ds.batch(128).prefetch(AUTOTUNE)


model.fit(make_input(df, target), epochs=5)  # expect: PL207
model.fit(make_input(df, target), epochs=5, steps_per_epoch=len(df) // 128)
model.evaluate(make_input(df, target, training=False))

# Finite repeat after shuffle: epochs stay separate and fit terminates.
ok_ds = tf.data.Dataset.from_tensor_slices((features, target)).shuffle(5000).repeat(3).batch(256).prefetch(AUTOTUNE)
model.fit(ok_ds, epochs=1)
