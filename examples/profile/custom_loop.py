"""A custom training loop profiled in code with pipelint.profiler.probe (no CLI needed).

The map is serial and costly (a Python function): expected input-bound, PL106.
Run: python examples/profile/custom_loop.py [STEPS]   (the report prints at exit)
"""
import numpy as np
import tensorflow as tf

import pipelint.profiler
from _common import busy, small_model, steps

FEATURES, BATCH = 32, 8


def decode(index):
    busy(1.0)  # Python CPU work: it holds the GIL
    return np.full(FEATURES, float(index), np.float32)


n = steps()
ds = tf.data.Dataset.range(n * BATCH)
ds = ds.map(lambda i: tf.ensure_shape(tf.numpy_function(decode, [i], tf.float32), [FEATURES]))
ds = ds.batch(BATCH).prefetch(tf.data.AUTOTUNE)
ds = pipelint.profiler.probe(ds)

model = small_model(FEATURES)
optimizer = model.optimizer


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x)))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for batch in ds:
    train_step(batch)
print("trained", n, "steps")
