"""A TF 2.4-era training script, half migrated to the current APIs."""
import numpy as np
import tensorflow.compat.v2 as tf

tf.enable_v2_behavior()
AUTOTUNE = tf.data.experimental.AUTOTUNE

x = np.random.rand(20000, 30).astype("float32")
y = (x.sum(axis=1) > 15).astype("int32")


def batch_generator(features, labels, batch_size):
    while True:
        idx = np.random.randint(0, len(features), batch_size)
        yield features[idx], labels[idx]


class RowSequence(tf.keras.utils.Sequence):
    def __init__(self, features, labels, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.features, self.labels, self.batch_size = features, labels, batch_size

    def __len__(self):
        return len(self.features) // self.batch_size

    def __getitem__(self, i):
        s = slice(i * self.batch_size, (i + 1) * self.batch_size)
        return self.features[s], self.labels[s]


model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer=tf.keras.optimizers.Adam(), loss="binary_crossentropy", metrics=["accuracy"])

model.fit_generator(batch_generator(x, y, 64), steps_per_epoch=300, epochs=3)  # expect: PL402
model.fit(RowSequence(x, y, 64, workers=4), epochs=3, max_queue_size=32)  # expect: PL406

features_ds = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2.0 - 1.0, num_parallel_calls=AUTOTUNE)  # expect: PL105
features_ds = features_ds.batch(64).prefetch(AUTOTUNE)
model.fit(features_ds, y, epochs=3)  # expect: PL405

paired = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(20000).batch(64).prefetch(AUTOTUNE)
model.fit(paired, epochs=3)
model.evaluate(x, y, batch_size=512)
