"""Project utilities: memoization, file shuffling, a tiny batching helper (plus TF logging)."""
import functools
import itertools
import random

import tensorflow as tf


@functools.cache
def vocab(path):
    with open(path) as f:
        return {w.strip(): i for i, w in enumerate(f)}


@functools.lru_cache(maxsize=None)
def label_for(name):
    return name.split("_")[0]


def batch(iterable, n):
    it = iter(iterable)
    while chunk := list(itertools.islice(it, n)):
        yield chunk


class Batcher:
    def __init__(self, items):
        self.items = list(items)

    def shuffle(self, seed=None):
        random.Random(seed).shuffle(self.items)
        return self

    def batch(self, size):
        return [self.items[i : i + size] for i in range(0, len(self.items), size)]

    def map(self, fn):
        return Batcher(map(fn, self.items))

    def cache(self):
        return self

    def repeat(self, n):
        return Batcher(self.items * n)


files = [f"shard-{i}.txt" for i in range(100)]
random.shuffle(files)
lengths = list(map(len, files))
upper = list(map(str.upper, files))
groups = Batcher(files).map(str.lower).cache().repeat(2).shuffle(1).batch(4)
for chunk in batch(files, 8):
    print(chunk)

writer = tf.summary.create_file_writer("logs")
with writer.as_default():
    for step, n in enumerate(lengths):
        tf.summary.scalar("name_length", n, step=step)
