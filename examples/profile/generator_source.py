"""Classic bottleneck: examples produced one by one by a slow Python generator (from_generator).

Expected: input-bound, top suggestion PL107 (from-generator).
Run: pipelint profile examples/profile/generator_source.py [STEPS]
"""
import time

import numpy as np
import tensorflow as tf

from _common import small_model, steps

FEATURES, BATCH = 32, 8


def examples(count):
    rng = np.random.default_rng(0)
    for i in range(count):
        time.sleep(0.002)  # stands for parsing a line of a CSV file in Python
        yield rng.random(FEATURES, dtype=np.float32), np.float32(i % 2)


n = steps()
ds = tf.data.Dataset.from_generator(
    lambda: examples(n * BATCH),
    output_signature=(tf.TensorSpec((FEATURES,), tf.float32), tf.TensorSpec((), tf.float32)),
).batch(BATCH).prefetch(tf.data.AUTOTUNE)
model = small_model(FEATURES)
model.fit(ds, epochs=1, verbose=0)
print("trained", n, "steps")
