"""An in-house record pipeline whose method names mirror tf.data (no tf.data objects here)."""
import random

import tensorflow as tf


class RecordPipeline:
    def __init__(self, records):
        self.records = list(records)

    @classmethod
    def from_files(cls, paths):
        return cls(line for p in paths for line in open(p))

    def map(self, fn):
        return RecordPipeline(fn(r) for r in self.records)

    def shuffle(self, buffer_size):
        items = list(self.records)
        random.shuffle(items)
        return RecordPipeline(items)

    def batch(self, n):
        return RecordPipeline(self.records[i : i + n] for i in range(0, len(self.records), n))

    def unbatch(self):
        return RecordPipeline(x for b in self.records for x in b)

    def cache(self):
        return self

    def take(self, n):
        return RecordPipeline(self.records[:n])

    def skip(self, n):
        return RecordPipeline(self.records[n:])

    def repeat(self, n=2):
        return RecordPipeline(self.records * n)

    def prefetch(self, n):
        return self

    def __iter__(self):
        return iter(self.records)


pipe = RecordPipeline.from_files(["a.txt", "b.txt"])
pipe = pipe.map(str.strip).shuffle(10).cache().batch(32).unbatch()
pipe = pipe.repeat().shuffle(5)
held_out = pipe.take(100)
rest = pipe.skip(100)
for record in rest.map(len).prefetch(2).batch(8):
    print(record)

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit([[len(r)] for r in held_out], [0.0] * 100, epochs=1)
