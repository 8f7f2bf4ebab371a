"""Classic bottleneck: a keras.utils.PyDataset whose __getitem__ is slow and runs with workers=1.

Expected: input-bound, top suggestion PL407 (pydataset-without-workers).
Run: pipelint profile examples/profile/pydataset_no_workers.py [STEPS]
"""
import time

import keras
import numpy as np

from _common import small_model, steps

FEATURES, BATCH = 32, 16


class Batches(keras.utils.PyDataset):
    def __init__(self, count, **kwargs):
        super().__init__(**kwargs)
        self.count = count

    def __len__(self):
        return self.count

    def __getitem__(self, idx):
        time.sleep(0.025)  # stands for loading BATCH images from disk
        rng = np.random.default_rng(idx)
        return rng.random((BATCH, FEATURES), dtype=np.float32), rng.random((BATCH, 1), dtype=np.float32)


n = steps()
model = small_model(FEATURES)
model.fit(Batches(n), epochs=1, verbose=0)
print("trained", n, "steps")
