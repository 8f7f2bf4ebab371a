from __future__ import annotations

from pipelint.model import Op
from pipelint.rules.base import Invalid, Rule, RuleContext

# Ops between the map and `batch` that never look at element values: the map can move past them.
# Not `cache`: a map before it runs only in the first epoch, after it in every epoch.
_AGNOSTIC = frozenset({"shuffle", "prefetch", "repeat", "take", "skip", "shard", "with_options"})


def _vectorizable(op: Op) -> bool:
    """Cheap element-wise work that does not depend on the element's shape."""
    return not op.implicit and op.facts.elementwise and not op.facts.shape_bound


class MapBeforeBatch(Rule):
    code = "PL105"
    summary = "A cheap element-wise `map` before `batch` could run once per batch instead."
    docs = """\
## What it does
Flags a `map` whose function (a lambda, or a local `def` that only returns an expression) is
cheap element-wise arithmetic (casts, `+ - * /`, `tf.one_hot`...) and that comes before `batch`
on the same pipeline, with at most value-agnostic ops (`shuffle`, `repeat`, `take`...) in
between. A `cache` in between stops it: there the map runs once, in the first epoch only. Functions that depend on the element's
shape (`tf.reshape`, `tf.squeeze`, `tf.expand_dims`, indexing) are left alone. Off by default:
it is advice, not a defect.

## Why is this bad?
Invoking the mapped function has a fixed scheduling cost per call. For a function this cheap the
overhead dominates: applying it after `batch` calls it once per batch on a whole tensor instead
of once per element, which the TensorFlow guide calls vectorized mapping.

## Example
```python
ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y)).batch(64)
```

## Use instead
```python
ds = ds.batch(64).map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y))
```

## Fix safety
No automatic fix: whether the function gives the same result on a batch has to be checked by
the author.

## References
- https://www.tensorflow.org/guide/data_performance#vectorizing_mapping
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#batch
"""
    VALID = (
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).batch(4).map(lambda x: tf.cast(x, tf.float32) / 255.0)
        """,
        # a shape-dependent function does not carry over to batches
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: tf.reshape(x, [1])).batch(4)
        """,
        # mapped once before the cache, not every epoch
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: tf.cast(x, tf.float32) / 255.0)
        ds = ds.cache().shuffle(8).batch(4)
        """,
        # a filter in between sees the mapped element
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: x * 2).filter(lambda x: x > 2).batch(4)
        """,
        # pandas and Python's map, and a user's Batcher
        """
        import pandas as pd
        import tensorflow as tf
        s = pd.Series([1, 2]).map(lambda v: v * 2)
        values = list(map(abs, [1, -2]))
        """,
        """
        import tensorflow as tf
        class Batcher:
            def map(self, f):
                return self
            def batch(self, n):
                return self
        Batcher().map(lambda x: x * 2).batch(4)
        """,
    )
    INVALID = (
        Invalid(
            '''
            import tensorflow as tf

            def normalize(image, label):
                """uint8 -> float32."""
                return tf.cast(image, tf.float32) / 255.0, label

            ds = tf.data.TFRecordDataset(files).map(parse).map(normalize).shuffle(1000).batch(32)
            ''',
            line=7, column=48, end_column=51,
            message="cheap element-wise `map` before `batch` calls its function",
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices((x, y))
            ds = ds.map(lambda img, label: (tf.cast(img, tf.float32) / 255.0, label)).batch(64)
            """,
            line=3, column=9, end_column=12,
            message="cheap element-wise `map` before `batch` calls its function",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='train', as_supervised=True)
            ds = ds.map(lambda x, y: (x, tf.one_hot(y, 10)), num_parallel_calls=tf.data.AUTOTUNE)
            ds = ds.batch(32)
            """,
            line=4, column=9, end_column=12,
            message="cheap element-wise `map` before `batch` calls its function",
        ),
        Invalid(
            """
            import tensorflow as tf

            def make(training):
                ds = tf.data.Dataset.range(100)
                if training:
                    ds = ds.shuffle(100)
                return ds.map(lambda v: v * 2 + 1).batch(8)
            """,
            line=7, column=15, end_column=18,
            message="cheap element-wise `map` before `batch` calls its function",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        reported: set[int] = set()
        for site in ctx.model.ops("batch"):
            for prefix in site.prefixes:
                ops = prefix.all_ops()
                while ops and ops[-1].name in _AGNOSTIC:
                    ops = ops[:-1]
                if not ops or ops[-1].name != "map":
                    continue
                previous = ops[-1]
                if id(previous) in reported or not _vectorizable(previous):
                    continue
                reported.add(id(previous))
                ctx.report(
                    previous.name_node,
                    "cheap element-wise `map` before `batch` calls its function once per element; "
                    "map after `batch` to run it once per batch",
                )
