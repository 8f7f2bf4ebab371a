from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Applicability, Impact
from pipelint.model import BATCH_METHODS, DatasetPath, Op
from pipelint.model.syntax import literal_int
from pipelint.rules.base import Invalid, Rule, RuleContext
from pipelint.rules.rewrite import swap_adjacent



def _pending_batch(path: DatasetPath) -> Op | None:
    """The batch this path's elements are in at its end, unless they were shuffled before it.

    A written batch of examples that a written or implicit shuffle already mixed is a deliberate
    batch-level shuffle (the usual way to mix length buckets), so it does not count; the implicit
    batch of a Keras directory helper always does: a shuffle written after the helper is meant to
    shuffle examples and cannot.
    """
    pending: Op | None = None
    shuffled = False
    for op in path.all_ops():
        if op.name in BATCH_METHODS:
            pending = op if (op.implicit or not shuffled) else None
        elif op.name == "unbatch":
            pending = None
        elif op.name == "shuffle":
            shuffled = True
        elif op.name == "cache":
            shuffled = False  # a cache freezes the order of the first pass
    return pending


def _cached_after(path: DatasetPath, batch: Op) -> bool:
    ops = path.all_ops()
    return batch in ops and any(op.name == "cache" for op in ops[ops.index(batch) + 1:])



def _batches_of_one(batch: Op, prefixes: list[DatasetPath]) -> bool:
    """Is `batch` written `batch(1)`, or, for a Keras helper's own batching, its call given
    `batch_size=1`?"""
    if not batch.implicit:
        arg = batch.arg("batch_size", 0)
        return arg is not None and literal_int(arg.value) == 1
    calls = [p.origin.node for p in prefixes if batch in p.origin.implicit_ops]
    return bool(calls) and all(isinstance(call, cst.Call) and literal_int(next(
        (a.value for a in call.args if a.keyword is not None and a.keyword.value == "batch_size"), None)) == 1
        for call in calls)


class ShuffleAfterBatch(Rule):
    code = "PL203"
    summary = "`shuffle()` after `batch()` reorders whole batches, never the examples in them."
    fixable = Applicability.UNSAFE
    docs = """\
## What it does
Flags a `shuffle()` applied to batched elements: after a `batch`/`padded_batch` with no `unbatch`
in between, including the batch that Keras `*_dataset_from_directory` helpers apply themselves.
A batch of examples that were already shuffled before batching (with no `cache()` freezing that
order) is left alone: shuffling such batches again is a deliberate, cheap extra mix (as with
length-bucketed batches). So are batches of one example (`batch(1)`, a helper's `batch_size=1`):
reordering them reorders the examples. A shuffle of a Keras helper's batches that the helper
itself reshuffles every epoch, with no `cache()` between and no `take`/`skip` split after it, is
minor correctness (shown with `--show-minor-correctness`): it changes nothing the model learns, and the
message says to remove it.

A dataset whose every known use is validation (`validation_data`), `evaluate`, `predict`, a
look (`next(iter(ds))`, a loop over `ds.take(n)` with a small `n`, `element_spec`,
`cardinality()`), `list(ds)` or `layer.adapt(ds)` is left alone: example order only matters
to training. A dataset with no known use (returned, stored) is still checked.

## Why is this bad?
After `batch`, each element is a whole batch: `shuffle` then permutes batches, and the same
examples stay together in the same batch every epoch. Its buffer also counts batches, so it holds
`buffer_size * batch_size` examples in memory. Shuffle examples before batching. A dataset from
`image_dataset_from_directory` is already batched (and shuffled per epoch unless `shuffle=False`),
so a `shuffle` written after it only reorders batches.

## Example
```python
ds = tf.data.TFRecordDataset(files).map(parse).batch(32).shuffle(1000)
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).map(parse).shuffle(1000).batch(32)
```

## Fix safety
Unsafe: when written as `x.batch(n).shuffle(b)` in one chain the fix swaps the two calls; the
buffer then counts examples instead of batches, and batch composition changes every epoch.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#shuffle
- https://www.tensorflow.org/guide/data#randomly_shuffling_input_data
- https://www.tensorflow.org/api_docs/python/tf/keras/utils/image_dataset_from_directory
"""
    VALID = (
        # the first batch builds the examples (character sequences); the training batch comes after
        """
        import tensorflow as tf
        chars = tf.data.Dataset.from_tensor_slices(text_as_int)
        sequences = chars.batch(101, drop_remainder=True).map(split_input_target)
        dataset = sequences.shuffle(10000).batch(64, drop_remainder=True)
        model.fit(dataset, epochs=10)
        """,
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').shuffle(1000).batch(32)
        """,
        # unbatched again before the shuffle
        """
        import tensorflow as tf
        from tensorflow import keras
        ds = keras.utils.image_dataset_from_directory('photos')
        ds = ds.unbatch().shuffle(1000).batch(32)
        """,
        # examples already shuffled: a deliberate batch-level shuffle of length buckets
        """
        import tensorflow as tf
        ds = tf.data.TextLineDataset('a.txt').shuffle(10000).padded_batch(32).shuffle(64)
        """,
        # a user's own Batcher, random.shuffle: not tf.data
        """
        import random
        import tensorflow as tf
        class Batcher:
            def batch(self, n):
                return self
            def shuffle(self, n):
                return self
        b = Batcher().batch(4).shuffle(2)
        random.shuffle([1, 2])
        """,
        # only evaluated: batch order does not matter to evaluate
        """
        import tensorflow as tf
        test = tf.data.TFRecordDataset(['test']).batch(64).shuffle(8)
        model.evaluate(test)
        """,
        # batches of one example: reordering them reorders the examples
        """
        import tensorflow as tf
        ds = tf.keras.utils.image_dataset_from_directory('photos', batch_size=1)
        model.fit(ds.shuffle(1000), epochs=5)
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a').map(parse).batch(32).shuffle(1000)
            """,
            line=2, column=56, end_column=63,
            message="`shuffle()` after `batch()` reorders whole batches, not examples",
            fixed="""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a').map(parse).shuffle(1000).batch(32)
            """,
        ),
        Invalid(
            """
            from tensorflow import keras
            train = keras.utils.image_dataset_from_directory('photos', image_size=(180, 180))
            train = train.shuffle(1000)
            """,
            line=3, column=15, end_column=22,
            message="`shuffle()` after `image_dataset_from_directory`",
        ),
        Invalid(
            """
            import tensorflow as tf

            def make(files, training):
                ds = tf.data.TFRecordDataset(files).batch(64)
                if training:
                    ds = ds.shuffle(100)
                return ds
            """,
            line=6, column=17, end_column=24,
            message="`shuffle()` after `batch()` reorders whole batches, not examples",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            ds = tfds.load('imdb_reviews', split='train')
            ds = ds.padded_batch(32)
            ds = ds.shuffle(512)
            """,
            line=4, column=9, end_column=16,
            message="`shuffle()` after `padded_batch()` reorders whole batches",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        for site in model.ops("shuffle"):
            shuffle = site.op
            if model.never_trained_on(shuffle):
                continue  # validation, evaluation, prediction or a look: example order does not matter
            batches = [b for b in (_pending_batch(path) for path in site.prefixes) if b is not None]
            if not batches:
                continue
            batch = batches[0]
            if _batches_of_one(batch, site.prefixes):
                continue  # (`batch_size=1`: reordering the batches reorders the examples)
            if not batch.implicit and any(
                    later.name in BATCH_METHODS for tail in model.continuations(shuffle) for later in tail):
                continue  # batched again after the shuffle: the first batch built the examples (sequences)
            if model.named_held_out(shuffle):
                continue  # (`test_ds = test_ds.cache().shuffle(1000)`, used out of sight: order does not matter)
            impact = None
            if batch.implicit:
                # (the helper's kind, not its call's name: the call may be in another module)
                kind = next((p.origin.kind for p in site.prefixes if batch in p.origin.implicit_ops), None)
                name = kind or model.qualified_name(batch.call.func)
                helper = f"`{name.rsplit('.', 1)[-1]}`" if name else "the Keras helper"
                helper_shuffles = any(
                    op.name == "shuffle" and op.implicit for path in site.prefixes for op in path.all_ops())
                if any(_cached_after(path, batch) for path in site.prefixes):
                    hint = ("the `cache()` freezes the helper's batches, so the same examples stay "
                            "together every epoch; `unbatch()` before shuffling to mix examples")
                elif helper_shuffles:
                    hint = "the helper already shuffles examples every epoch: remove this shuffle"
                    # (the helper's own per-epoch shuffle mixes the examples: reordering its batches
                    # changes nothing the model learns, a cleanup; unless a `take`/`skip` split
                    # follows, which this shuffle's per-epoch reordering also makes leak)
                    if not any(later.name in ("take", "skip") for tail in model.continuations(shuffle)
                               for later in tail):
                        impact = Impact.MINOR_CORRECTNESS
                elif name and name.startswith("tensorflow_datasets."):
                    # tfds shuffles only its files (`shuffle_files`): examples mix when shuffled unbatched.
                    hint = ("load it without `batch_size`, then `shuffle(...)` before `batch(...)`; "
                            "`shuffle_files=True` mixes only the files")
                else:
                    hint = "pass `shuffle=True` to the helper instead"
                message = (
                    f"`shuffle()` after {helper}, which returns batches: this reorders whole "
                    f"batches, not examples; {hint}"
                )
            else:
                message = (
                    f"`shuffle()` after `{batch.name}()` reorders whole batches, not examples, and "
                    f"buffers `buffer_size` batches; shuffle before `{batch.name}()`"
                )
            fix = None
            if (not batch.implicit and shuffle.receiver is batch.call
                    and all(path.ops and path.ops[-1] is batch for path in site.prefixes)):
                fix = swap_adjacent(shuffle.call, Applicability.UNSAFE, model.module)
            ctx.report(shuffle.name_node, message, fix, impact=impact)
