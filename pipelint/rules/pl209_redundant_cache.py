from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Applicability
from pipelint.model import DatasetPath
from pipelint.rules.base import Invalid, Rule, RuleContext
from pipelint.rules.rewrite import remove_call

# Ops that leave the elements as they are: a cache after them holds what the first cache holds.
_PASS_THROUGH = frozenset({"prefetch", "with_options"})


def _earlier_cache(path: DatasetPath) -> int | None:
    """The position of the last `cache` on this path, if any."""
    return next((i for i in range(len(path.ops) - 1, -1, -1) if path.ops[i].name == "cache"), None)


class RedundantCache(Rule):
    code = "PL209"
    summary = "A second `cache()` on a dataset path that is already cached."
    fixable = Applicability.SAFE
    docs = """\
## What it does
Flags a `cache()` on a dataset that already went through a `cache()` on every path that reaches
it (a cache applied only on some `if` branch does not count).

A `repeat()` between the two caches is another matter (the earlier cache is read on every
repetition) and is not reported.

## Why is this bad?
Each `cache()` materializes the whole dataset. With two on one path the data is held twice; and
once the later cache is complete it serves every element, so the earlier one is read only during
the first epoch and then just occupies memory (or disk). Keep one cache, placed after the
expensive deterministic work and before random augmentation and `shuffle`.

## Example
```python
ds = tf.data.TFRecordDataset(files).map(parse).cache().prefetch(tf.data.AUTOTUNE).cache()
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).map(parse).cache().prefetch(tf.data.AUTOTUNE)
```

## Fix safety
Safe, and offered only when nothing between the two caches changes the elements (only `prefetch`
or `with_options`) and the later cache is a method call in a chain: the fix removes the later
`.cache()`, and the same elements come out in the same order. When a transformation sits between
them, no fix is offered: decide which of the two to keep.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#cache
- https://www.tensorflow.org/guide/data_performance#caching
"""
    VALID = (
        # a repeat between the two caches: the earlier one is read on every repetition
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(['a']).map(parse, num_parallel_calls=tf.data.AUTOTUNE).cache().repeat()
        ds = ds.cache()
        model.fit(ds, steps_per_epoch=10)
        """,
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').map(parse).cache().shuffle(100)
        """,
        # cached only on one branch before: the second cache is needed on the other
        """
        import tensorflow as tf

        def make(files, warm):
            ds = tf.data.TFRecordDataset(files)
            if warm:
                ds = ds.cache('/tmp/warm')
            ds = ds.map(parse)
            return ds.cache()
        """,
        # two separate datasets, each cached once
        """
        import tensorflow as tf
        train = tf.data.TFRecordDataset('t').cache()
        val = tf.data.TFRecordDataset('v').cache()
        """,
        # Spark and functools caches are not tf.data
        """
        import functools
        import tensorflow as tf
        df = spark.table('t').cache().filter('a > 1').cache()
        @functools.cache
        def f():
            return 1
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a').map(parse).cache().prefetch(tf.data.AUTOTUNE).cache()
            """,
            line=2, column=81, end_column=86,
            message="`cache()` of a dataset that was just cached stores the same elements",
            fixed="""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a').map(parse).cache().prefetch(tf.data.AUTOTUNE)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf

            def load(files):
                return tf.data.TFRecordDataset(files).cache()

            def make(files):
                ds = load(files)
                ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE)
                return ds.cache()
            """,
            line=9, column=15, end_column=20,
            message="second `cache()` on an already cached dataset",
        ),
        Invalid(
            """
            from tensorflow import keras
            train = keras.utils.image_dataset_from_directory('photos').cache()
            train = train.cache()
            """,
            line=3, column=15, end_column=20,
            message="`cache()` of a dataset that was just cached stores the same elements",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            ds = tfds.load('mnist', split='train')
            ds = ds.cache()
            if use_disk_cache:
                ds = ds.cache('/tmp/mnist')
            """,
            line=5, column=13, end_column=18,
            message="`cache()` of a dataset that was just cached stores the same elements",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        for site in model.ops("cache"):
            cache = site.op
            earlier = [_earlier_cache(path) for path in site.prefixes]
            if not earlier or any(index is None for index in earlier):
                continue
            if any(op.name == "repeat" for path, index in zip(site.prefixes, earlier) for op in path.ops[index + 1:]):
                continue  # the later cache sits on repetitions of the earlier one: another matter
            between_clean = all(
                all(op.name in _PASS_THROUGH for op in path.ops[index + 1:])
                for path, index in zip(site.prefixes, earlier)
            )
            fix = None
            if between_clean:
                if isinstance(cache.receiver, cst.Call):  # `x.a().cache()` -> `x.a()`
                    fix = remove_call(cache.call, Applicability.SAFE, model.module)
                message = ("`cache()` of a dataset that was just cached stores the same elements "
                           "twice; remove this one")
            else:
                message = ("second `cache()` on an already cached dataset: once it is complete the "
                           "earlier cache is never read again and only holds memory; keep one cache")
            ctx.report(cache.name_node, message, fix)
