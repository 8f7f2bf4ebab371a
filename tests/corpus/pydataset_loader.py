"""Keras 3 PyDataset loaders for a folder of .npy volumes."""
import math

import keras
import numpy as np


class VolumeDataset(keras.utils.PyDataset):
    def __init__(self, paths, labels, batch_size=8, **kwargs):
        super().__init__(**kwargs)
        self.paths = paths
        self.labels = labels
        self.batch_size = batch_size

    def __len__(self):
        return math.ceil(len(self.paths) / self.batch_size)

    def __getitem__(self, idx):
        lo = idx * self.batch_size
        hi = min(lo + self.batch_size, len(self.paths))
        x = np.stack([np.load(p) for p in self.paths[lo:hi]])
        return x, np.asarray(self.labels[lo:hi])


class SliceSequence(keras.utils.Sequence):  # expect: PL407
    """Older code: a Sequence that never forwards worker settings."""

    def __init__(self, paths, batch_size):
        super().__init__()
        self.paths = paths
        self.batch_size = batch_size

    def __len__(self):
        return math.ceil(len(self.paths) / self.batch_size)

    def __getitem__(self, idx):
        batch = self.paths[idx * self.batch_size : (idx + 1) * self.batch_size]
        x = np.stack([np.load(p)[..., 0] for p in batch])
        return x, x


train_paths = sorted(str(i) + ".npy" for i in range(1000))
train_labels = np.random.randint(0, 2, size=len(train_paths))

model = keras.Sequential(
    [
        keras.Input(shape=(64, 64, 64, 1)),
        keras.layers.Conv3D(8, 3, activation="relu"),
        keras.layers.GlobalAveragePooling3D(),
        keras.layers.Dense(1, activation="sigmoid"),
    ]
)
model.compile(optimizer="adam", loss="binary_crossentropy")

# Loads every .npy on the training thread, one batch at a time.
train_data = VolumeDataset(train_paths, train_labels, batch_size=8)  # expect: PL407
model.fit(train_data, epochs=10)

# Parallel loading: this one is fine.
fast_data = VolumeDataset(train_paths, train_labels, batch_size=8, workers=8, use_multiprocessing=True)
model.fit(fast_data, epochs=10)

autoencoder = keras.Sequential([keras.Input(shape=(64, 64, 64)), keras.layers.Dense(64)])
autoencoder.compile(optimizer="adam", loss="mse")
autoencoder.fit(SliceSequence(train_paths, 16), epochs=3)
