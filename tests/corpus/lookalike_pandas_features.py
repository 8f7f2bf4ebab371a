"""Feature engineering in pandas, then a Keras model on NumPy arrays (no tf.data anywhere)."""
import numpy as np
import pandas as pd
import tensorflow as tf

df = pd.read_csv("listings.csv")
df["neighbourhood"] = df["neighbourhood"].map({"north": 0, "south": 1, "east": 2, "west": 3})
df["price"] = df["price"].apply(lambda s: float(str(s).replace("$", "").replace(",", "")))
df["log_price"] = df["price"].map(np.log1p)
df = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
df = df.groupby("host_id").filter(lambda g: len(g) > 1)
small = df.head(1000).copy()
buckets = df["reviews"].map(lambda r: min(r // 10, 9)).value_counts()

train = df.sample(frac=0.8, random_state=1)
test = df.drop(train.index)
x_train = train.drop(columns=["log_price"]).to_numpy(dtype="float32")
y_train = train["log_price"].to_numpy(dtype="float32")
x_test = test.drop(columns=["log_price"]).to_numpy(dtype="float32")
y_test = test["log_price"].to_numpy(dtype="float32")

chunks = np.array_split(x_train, 8)
shuffled = np.random.permutation(len(x_train))
x_train, y_train = x_train[shuffled], y_train[shuffled]

model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
# NumPy inputs: y and batch_size are exactly what fit wants here.
model.fit(x_train, y_train, batch_size=64, epochs=20, validation_split=0.1, shuffle=True)
model.evaluate(x_test, y_test, batch_size=256)
preds = pd.Series(model.predict(x_test).ravel()).map(np.expm1)
