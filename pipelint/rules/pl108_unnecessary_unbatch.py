from __future__ import annotations



from pipelint.model import is_false, turned_off_by
from pipelint.rules.base import Invalid, Rule, RuleContext

_SKIPPED = frozenset({"prefetch", "with_options"})


class UnnecessaryUnbatch(Rule):
    code = "PL108"
    summary = "`batch` immediately followed by `unbatch` does nothing but cost time."
    docs = """\
## What it does
Flags `unbatch()` applied right after `batch(n)` on the same pipeline (a `prefetch` or
`with_options` in between does not count), including the batching done inside the Keras
`*_dataset_from_directory` helpers. `batch(n, drop_remainder=True)` is left alone: it also drops
the last partial batch. So is a batched dataset that is also used as batches (fed to `fit`,
mapped, or batched on further): removing both calls would change that other use. So is the
`batch` of another module's helper (`make_dataset(...).unbatch()` for a TFLite calibration set):
the helper's other callers train on its batches.

## Why is this bad?
`unbatch` splits each batch back into the elements `batch` just stacked: the pair gives the same
elements in the same order, after copying each one twice. For a Keras directory helper, pass
`batch_size=None` to get unbatched elements directly.

## Example
```python
ds = tf.data.Dataset.from_tensor_slices(x).batch(32).unbatch().map(f)
```

## Use instead
```python
ds = tf.data.Dataset.from_tensor_slices(x).map(f)
```

## Fix safety
No automatic fix.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#unbatch
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#batch
- https://keras.io/api/data_loading/image/
"""
    VALID = (
        # a vectorized map between batch and unbatch is the point of the pair
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(64).batch(16).map(lambda b: b * 2).unbatch()
        """,
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(10).batch(4, drop_remainder=True).unbatch()
        """,
        # the helper's batches also feed training: batch_size=None would change that use
        """
        import keras
        train = keras.utils.image_dataset_from_directory('photos')
        labels = [y for _, y in train.unbatch()]
        model.fit(train, epochs=3)
        """,
        # make_csv_dataset always batches: unbatch is the only way to get rows
        """
        import tensorflow as tf
        rows = tf.data.experimental.make_csv_dataset('a.csv', batch_size=1024, num_epochs=1).unbatch()
        """,
        # a helper returning unbatched elements, and a user's Batcher
        """
        from tensorflow import keras
        ds = keras.utils.image_dataset_from_directory('images/', batch_size=None)
        """,
        """
        import tensorflow as tf
        class Batcher:
            def batch(self, n):
                return self
            def unbatch(self):
                return self
        Batcher().batch(4).unbatch()
        """,
        # the batched dataset is used as batches too: removing both calls would change that use
        """
        import tensorflow as tf
        batched = tf.data.Dataset.range(100).batch(10)
        model.fit(batched)
        examples = batched.unbatch()
        """,
        """
        import tensorflow as tf
        batched = tf.data.Dataset.range(100).batch(10)
        sums = batched.map(tf.reduce_sum)
        examples = batched.unbatch()
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices(x).batch(32).unbatch()
            """,
            line=2, column=54, end_column=61,
            message="`unbatch` right after `batch` gives back the same elements",
        ),
        Invalid(
            """
            import tensorflow as tf

            def load(files):
                ds = tf.data.TFRecordDataset(files).batch(128)
                ds = ds.prefetch(tf.data.AUTOTUNE)
                return ds.unbatch()
            """,
            line=6, column=15, end_column=22,
            message="`unbatch` right after `batch` gives back the same elements",
        ),
        Invalid(
            """
            import keras
            train = keras.utils.image_dataset_from_directory('images/')
            train = train.unbatch()
            """,
            line=3, column=15, end_column=22,
            message="`unbatch` undoes the batching done by `image_dataset_from_directory`",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='train')
            if shuffle:
                ds = ds.shuffle(100)
            ds = ds.batch(10).unbatch()
            """,
            line=6, column=19, end_column=26,
            message="`unbatch` right after `batch` gives back the same elements",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        reported: set[int] = set()
        for site in ctx.model.ops("unbatch"):
            if site.op.implicit or id(site.op) in reported:
                continue
            for prefix in site.prefixes:
                ops = prefix.all_ops()
                while ops and ops[-1].name in _SKIPPED:
                    ops = ops[:-1]
                if not ops or ops[-1].name != "batch":
                    continue
                batch = ops[-1]
                if _drops_remainder(batch) or _used_batched_elsewhere(ctx.model, batch, site.op):
                    continue
                if batch.implicit:
                    argument = turned_off_by(prefix.origin.kind, "batch")
                    if argument is None:
                        continue  # `make_csv_dataset` always batches: `unbatch()` is the only way
                    helper = prefix.origin.kind.rsplit(".", 1)[-1]
                    message = (f"`unbatch` undoes the batching done by `{helper}`; pass "
                               f"`{argument}=None` to the helper instead")
                else:
                    message = ("`unbatch` right after `batch` gives back the same elements after copying "
                               "them twice; remove both calls")
                reported.add(id(site.op))
                ctx.report(site.op.name_node, message)
                break


def _used_batched_elsewhere(model, batch, unbatch) -> bool:
    """Is what `batch` builds also used as batches (another consumer or another op after it)?
    Then removing both calls (or `batch_size=None` for a helper) would change that other use."""
    if batch.where is not None and not batch.implicit:
        # Batched by another module's helper (`make_dataset(...).unbatch()`): its other callers
        # (training) take its batches, and removing its `batch` is no change for this call alone.
        return True
    if batch.implicit:
        # The helper's batches: every other op or use of the helper's output sees them.
        def built_by_helper(path) -> bool:
            return batch in path.origin.implicit_ops
        tails = [prefix.ops + (site.op,) for site in model.ops() for prefix in site.prefixes
                 if built_by_helper(prefix)]
        used = any(built_by_helper(path) and unbatch not in path.ops
                   for consumer in model.consumers for path in consumer.value.paths)
    else:
        tails = model.continuations(batch)
        used = any(batch in path.ops and unbatch not in path.ops
                   for consumer in model.consumers_of(batch) for path in consumer.value.paths)
    for tail in tails:
        following = [op for op in tail if op.name not in _SKIPPED]
        if following and following[0] is not unbatch:
            return True
    return used


def _drops_remainder(batch) -> bool:
    if batch.implicit:
        return False
    arg = batch.arg("drop_remainder", 1)
    return arg is not None and not is_false(arg.value)
