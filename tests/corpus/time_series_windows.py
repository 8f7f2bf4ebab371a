"""Forecasting with windowed datasets (tf.data window + Keras timeseries helper)."""
import numpy as np
import tensorflow as tf
from tensorflow import keras

window_size = 20
batch_size = 32
shuffle_buffer = 1000


def windowed_dataset(series, window_size, batch_size, shuffle_buffer):
    ds = tf.data.Dataset.from_tensor_slices(series)
    ds = ds.window(window_size + 1, shift=1, drop_remainder=True)
    ds = ds.flat_map(lambda w: w.batch(window_size + 1))
    ds = ds.shuffle(shuffle_buffer)
    ds = ds.map(lambda w: (w[:-1], w[-1]))  # stateless: tf.data parallelizes this map itself
    ds = ds.batch(batch_size).prefetch(1)
    return ds


time = np.arange(4 * 365 + 1, dtype="float32")
series = 10 + 0.05 * time + np.sin(time / 10.0) + np.random.randn(len(time)) * 2
split_time = 1000
x_train = series[:split_time]
x_valid = series[split_time:]

train_set = windowed_dataset(x_train, window_size, batch_size, shuffle_buffer)

model = keras.models.Sequential(
    [
        keras.layers.Dense(10, input_shape=[window_size], activation="relu"),
        keras.layers.Dense(10, activation="relu"),
        keras.layers.Dense(1),
    ]
)
model.compile(loss="mse", optimizer=keras.optimizers.SGD(learning_rate=1e-6, momentum=0.9))
model.fit(train_set, epochs=100, verbose=0)

# The same data through the Keras helper, which returns batches of 256 windows.
features = np.stack([series, np.cos(time)], axis=-1)
targets = series[window_size:]
train_windows = keras.utils.timeseries_dataset_from_array(
    features[:-window_size],
    targets,
    sequence_length=window_size,
    batch_size=256,
)
train_windows = train_windows.shuffle(1000)  # expect: PL203
train_windows = train_windows.prefetch(tf.data.AUTOTUNE)
lstm = keras.Sequential([keras.layers.LSTM(32), keras.layers.Dense(1)])
lstm.compile(optimizer="adam", loss="mae")
lstm.fit(train_windows, epochs=20)

forecast = []
for t in range(len(series) - window_size):
    forecast.append(model.predict(series[t : t + window_size][np.newaxis], verbose=0))
