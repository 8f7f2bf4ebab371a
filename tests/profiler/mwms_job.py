"""A tiny MultiWorkerMirroredStrategy job (run once per worker with TF_CONFIG) for the merge test.

Each worker iterates its own pipeline in a custom loop and runs a synchronous step
(`strategy.run`, gradients all-reduced across the workers). Worker 1's pipeline does more work
per element, so it waits more for input."""
import json
import os
import sys

import tensorflow as tf

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
index = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
work = 1 + 8 * index


def features(i):
    x = tf.random.stateless_normal([32, 32], seed=tf.stack([i, 0]))
    for _ in range(work):
        x = tf.tanh(tf.matmul(x, x) * 0.05)
    return tf.reduce_mean(x, axis=0), i % 4


ds = tf.data.Dataset.range(1 << 20).map(features).batch(16).prefetch(2)
with strategy.scope():
    weights = tf.Variable(tf.zeros([32, 4]))


@tf.function
def train_step(x, y):
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, x @ weights))
        grads = tape.gradient(loss, [weights])
        grads = tf.distribute.get_replica_context().all_reduce("mean", grads)
        weights.assign_sub(0.1 * grads[0])
        return loss
    return strategy.run(step, args=(x, y))


for n, (x, y) in enumerate(ds):
    if n == steps:
        break
    train_step(x, y)
