"""Classic bottleneck: a Python "decode" step wrapped in tf.numpy_function inside map.

tf.data cannot run it in parallel (it holds the GIL) and map_parallelization leaves it serial.
Expected: input-bound, top suggestion PL106 (py-function-in-map).
Run: pipelint profile examples/profile/numpy_function_map.py [STEPS]
"""
import numpy as np
import tensorflow as tf

from _common import busy, small_model, steps

FEATURES, BATCH = 32, 8


def decode(index):
    busy(2.0, offer_gil_every_ms=2.0)  # stands for decoding one record in pure Python: it holds the GIL throughout
    rng = np.random.default_rng(int(index))
    return rng.random(FEATURES, dtype=np.float32), np.float32(index % 2)


def parse(index):
    x, y = tf.numpy_function(decode, [index], (tf.float32, tf.float32))
    x.set_shape([FEATURES])
    y.set_shape([])
    return x, y


n = steps()
ds = tf.data.Dataset.range(n * BATCH).map(parse).batch(BATCH).prefetch(tf.data.AUTOTUNE)
model = small_model(FEATURES)
model.fit(ds, epochs=1, verbose=0)
print("trained", n, "steps")
