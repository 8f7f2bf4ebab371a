from __future__ import annotations


from pipelint.diagnostics import Applicability
from pipelint.model import DatasetPath, Op
from pipelint.rules.base import Invalid, Rule, RuleContext
from pipelint.rules.rewrite import swap_adjacent

# One element in, one element out: a `take` after them still stops the cache early.
_ONE_TO_ONE = frozenset({"map", "prefetch", "with_options", "enumerate"})
# Consumers that read a dataset to its end.
_READ_TO_THE_END = frozenset({"fit", "validation", "evaluate", "predict", "for", "eval-loop", "pass"})
# Consumers that read a dataset more than once (or hand it to code that may).
_REPEATED_CONSUMERS = frozenset({"fit", "validation", "distribute", "return"})


def _cache_before(path: DatasetPath) -> Op | None:
    """The `cache` this path ends in, looking through one-to-one ops."""
    for op in reversed(path.ops):
        if op.name == "cache":
            return op
        if op.name not in _ONE_TO_ONE:
            return None
    return None


class CacheThenTake(Rule):
    code = "PL208"
    summary = "`cache()` followed by `take(k)`: the cache is never completed and is discarded every epoch."
    fixable = Applicability.UNSAFE
    docs = """\
## What it does
Flags `cache()` followed by `take(k)` (directly, or through one-to-one ops such as `map` and
`prefetch`) when the result is read more than once: repeated, passed to Keras `fit` or as
`validation_data`, distributed, returned to a caller, iterated inside a loop, or used where the
linter cannot see. A one-off peek such as `for x in ds.take(1):` is left alone.

When another use of the same `cache()` reads it to the end (`val = ds.take(k)` beside
`train = ds.skip(k)` given to `fit`), that pass completes the cache and the rule stays quiet.

## Why is this bad?
A cache is kept only when its input has been read to the end. `take(k)` stops reading after `k`
elements, so the partial cache is thrown away at the end of every pass and each epoch recomputes
the whole upstream pipeline: the `cache()` costs memory and buys nothing. TensorFlow warns at run
time ("The calling iterator did not fully read the dataset being cached ... use
`dataset.take(k).cache().repeat()` instead").

## Example
```python
ds = tf.data.TFRecordDataset(files).map(parse).cache().take(1000).repeat()
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).map(parse).take(1000).cache().repeat()
```

## Fix safety
Unsafe: when written as `x.cache().take(k)` in one chain the fix swaps the two calls. The same
elements come out, but a file-backed cache then holds only `k` elements and must be rebuilt.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#cache
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#take
- https://www.tensorflow.org/guide/data_performance#caching
"""
    VALID = (
        # the skip side is read to the end every epoch: it completes the shared cache
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').map(parse).cache()
        val = ds.take(1000).batch(32)
        train = ds.skip(1000).batch(32)
        model.fit(train, validation_data=val, epochs=5)
        """,
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').take(1000).cache().repeat()
        """,
        # a one-off peek at the cached dataset
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').map(parse).cache()
        for image, label in ds.take(1):
            print(image.shape)
        model.fit(ds, epochs=3)
        """,
        # a one-off look at the first elements
        """
        import tensorflow as tf
        sample = next(iter(tf.data.Dataset.range(10).cache().take(2)))
        """,
        # Spark's cache, pandas' take, functools.cache: not tf.data
        """
        import functools
        import pandas as pd
        import tensorflow as tf
        rows = spark.table('t').cache().take(5)
        first = pd.DataFrame({'a': [1, 2]}).take([0])
        @functools.cache
        def f():
            return 1
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a').map(parse).cache().take(1000).repeat()
            """,
            line=2, column=54, end_column=58,
            message="`take()` after `cache()` stops before the cache is complete",
            fixed="""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a').map(parse).take(1000).cache().repeat()
            """,
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow import keras

            def make(files, small):
                ds = tf.data.TFRecordDataset(files).cache()
                if small:
                    ds = ds.take(100)
                return ds.batch(32)

            model = keras.Sequential([keras.layers.Dense(1)])
            model.fit(make('t', True), epochs=5)
            """,
            line=7, column=17, end_column=21,
            message="`take()` after `cache()` stops before the cache is complete",
        ),
        Invalid(
            """
            import keras
            train = keras.utils.image_dataset_from_directory('photos')
            train = train.cache()
            subset = train.take(20)
            for epoch in range(10):
                for x, y in subset:
                    step(x, y)
            """,
            line=4, column=16, end_column=20,
            message="`take()` after `cache()` stops before the cache is complete",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            ds = tfds.load('mnist', split='train')
            ds = ds.cache().take(5000)
            """,
            line=3, column=17, end_column=21,
            message="`take()` after `cache()` stops before the cache is complete",
            fixed="""
            import tensorflow_datasets as tfds
            ds = tfds.load('mnist', split='train')
            ds = ds.take(5000).cache()
            """,
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        candidates: list[tuple[Op, Op, list[DatasetPath]]] = []
        for site in model.ops("take"):
            caches = [(path, _cache_before(path)) for path in site.prefixes]
            cache = next((c for _, c in caches if c is not None), None)
            if cache is not None:
                candidates.append((site.op, cache, [p for p, c in caches if c is cache]))
        if not candidates:
            return
        for take, cache, paths in candidates:
            if self._completed_elsewhere(model, cache, take):
                continue  # `cache().skip(k)` read to the end fills the cache both sides share
            if not self._read_repeatedly(model, take):
                consumers = self._consumers_of(model, take)
                if consumers and all(not c.loops for c in consumers):
                    continue  # a one-off read (a peek, one evaluation): the partial cache is harmless
            fix = None
            if take.receiver is cache.call and len(paths) == len(model.op_sites[take.call].prefixes):
                fix = swap_adjacent(take.call, Applicability.UNSAFE, model.module)
            ctx.report(
                take.name_node,
                "`take()` after `cache()` stops before the cache is complete, so the cache is "
                "discarded and rebuilt every epoch; use `.take(k).cache()`",
                fix,
            )

    @staticmethod
    def _completed_elsewhere(model, cache: Op, take: Op) -> bool:
        """Does another use read the cached dataset to the end (`val = ds.take(k)` beside
        `train = ds.skip(k)` fed to `fit`)? The first pass that reaches the end completes the
        cache, and every reader of the same `cache()` shares it."""
        for consumer in model.consumers:
            if consumer.kind not in _READ_TO_THE_END or any(take in path.ops for path in consumer.value.paths):
                continue  # (the other branch of the same use: only one of them runs)
            for path in consumer.value.paths:
                if cache in path.ops and take not in path.ops and not any(
                        op.name in ("take", "take_while") for op in path.ops[path.ops.index(cache) + 1:]):
                    return True
        return False

    @staticmethod
    def _consumers_of(model, take: Op) -> list:
        return [c for c in model.consumers if any(take in path.ops for path in c.value.paths)]

    def _read_repeatedly(self, model, take: Op) -> bool:
        if any(op.name == "repeat" for tail in model.continuations(take) for op in tail):
            return True
        return any(c.kind in _REPEATED_CONSUMERS for c in self._consumers_of(model, take))
