"""A job where the pipeline is not the problem: in-memory data, heavy model.

Expected: model-bound, no input-pipeline suggestion.
Run: pipelint profile examples/profile/model_bound.py [STEPS]
"""
import numpy as np
import tensorflow as tf

from _common import small_model, steps

FEATURES, BATCH = 256, 64

n = steps(100)
rng = np.random.default_rng(0)
x = rng.random((n * BATCH, FEATURES), dtype=np.float32)
y = rng.random((n * BATCH, 1), dtype=np.float32)
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH).prefetch(tf.data.AUTOTUNE)
model = small_model(FEATURES, width=2048, depth=4)  # ~100 ms steps: a starved input thread weighs little
model.fit(ds, epochs=1, verbose=0)
print("trained", n, "steps")
