from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Applicability
from pipelint.model import KERAS_DATASET_HELPERS, DatasetPath, Op, turned_off_by
from pipelint.rules.base import Invalid, NodeFix, Rule, RuleContext
from pipelint.rules.rewrite import add_keyword


def _shared_reshuffle(a: DatasetPath, b: DatasetPath) -> Op | None:
    """The last reshuffling shuffle both paths went through from the same origin, if any.

    Comparing whole prefixes (not just the op) keeps a helper that shuffles two different
    datasets (`prep(train_src).take(n)`, `prep(val_src).skip(n)`) from counting as one dataset.
    """
    if a.origin is not b.origin:
        return None
    common: list[Op] = list(a.origin.implicit_ops)
    for x, y in zip(a.ops, b.ops):
        if x is not y:
            break
        common.append(x)
    shuffles = [op for op in common if op.name == "shuffle" and op.reshuffles_every_epoch]
    return shuffles[-1] if shuffles else None


class ShuffleSplitLeak(Rule):
    code = "PL206"
    summary = "`take`/`skip` split of a dataset reshuffled every epoch: train and validation exchange examples."
    fixable = Applicability.UNSAFE
    docs = """\
## What it does
Flags a `take(n)` and a `skip(n)` applied to the same shuffled dataset (one split is not derived
from the other) when that shuffle reshuffles on every iteration: `reshuffle_each_iteration` is
left at its default or set to `True`, or the shuffle is the implicit one of a Keras
`*_dataset_from_directory` helper, of `Dataset.list_files` (which shuffles its file names unless
`shuffle=False`), of `make_csv_dataset` or of `tfds.load(..., shuffle_files=True)`.

The finding sits on the shuffle (or the helper call) that reshuffles, where the fix goes, once
however many splits cut it. A split nothing reads leaks into nothing and is not reported: one
bound to a name never read, or stored on `self` (`self.val = ds.skip(n)`) where no method reads
that attribute, or read only to be counted (`cardinality(test_ds)`). (Validation and test cut
from one reshuffled set do leak: validation picks the checkpoint the test then scores.)

## Why is this bad?
`shuffle` draws a new order every time the dataset is iterated, and `take`/`skip` cut that order
afresh each time. The "training" split of epoch 2 therefore contains examples that were in the
"validation" split of epoch 1: validation metrics are measured on data the model trained on
and look better than they are (tensorflow/tensorflow#59279). Fix the order once with
`reshuffle_each_iteration=False` before splitting (and shuffle the training split separately),
or split before shuffling.

## Example
```python
ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x))
train = ds.take(800)
val = ds.skip(800)
```

## Use instead
```python
ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x), reshuffle_each_iteration=False)
train = ds.take(800).shuffle(800)
val = ds.skip(800)
```

## Fix safety
Unsafe: the fix adds `reshuffle_each_iteration=False` to the shuffle (or turns an explicit
`True` into `False`). The splits become disjoint, but the training split is then served in the
same order every epoch unless it is shuffled again; the fix is not offered for the implicit
shuffle of a Keras helper (use its `validation_split`/`subset` arguments instead).

## References
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#shuffle
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#take
- https://github.com/tensorflow/tensorflow/issues/59279
- https://www.tensorflow.org/api_docs/python/tf/keras/utils/image_dataset_from_directory
"""
    VALID = (
        """
        import tensorflow as tf
        files = tf.data.Dataset.list_files('shards/*.tfrecord', shuffle=False)
        val_files = files.take(2)
        train_files = files.skip(2).shuffle(64)
        """,
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).shuffle(100, reshuffle_each_iteration=False)
        train = ds.take(80)
        val = ds.skip(80)
        """,
        # split first, then shuffle the training part
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100)
        train = ds.take(80).shuffle(80)
        val = ds.skip(80)
        """,
        # skip then take on one chain is not a split
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').shuffle(1000).skip(10).take(5)
        """,
        # one helper shuffling two different datasets
        """
        import tensorflow as tf

        def prep(ds):
            return ds.shuffle(1000)

        train = prep(tf.data.TFRecordDataset('t')).take(100)
        val = prep(tf.data.TFRecordDataset('v')).skip(100)
        """,
        # pandas/NumPy `take`, itertools: not tf.data
        """
        import numpy as np
        import pandas as pd
        import tensorflow as tf
        df = pd.DataFrame({'a': [1]}).sample(frac=1)
        train = df.take([0])
        rest = np.arange(5).take([1, 2])
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000)
            train = ds.take(800)
            val = ds.skip(800)
            """,
            line=2, column=49, end_column=56,
            message="`take`/`skip` split after `shuffle()`, which reshuffles every epoch",
            fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000, reshuffle_each_iteration=False)
            train = ds.take(800)
            val = ds.skip(800)
            """,
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            ds = tfds.load('mnist', split='train', as_supervised=True)
            ds = ds.shuffle(60000, reshuffle_each_iteration=True)
            val = ds.take(10000)
            train = ds.skip(10000)
            """,
            line=3, column=9, end_column=16,
            message="`take`/`skip` split after `shuffle()`, which reshuffles every epoch",
            fixed="""
            import tensorflow_datasets as tfds
            ds = tfds.load('mnist', split='train', as_supervised=True)
            ds = ds.shuffle(60000, reshuffle_each_iteration=False)
            val = ds.take(10000)
            train = ds.skip(10000)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf

            def split(ds: tf.data.Dataset, n):
                ds = ds.shuffle(10_000)
                test = ds.take(n)
                rest = ds.skip(n)
                val = rest.take(n)
                train = rest.skip(n)
                return train, val, test
            """,
            line=4, column=13, end_column=20,
            message="`take`/`skip` split after `shuffle()`, which reshuffles every epoch",
            fixed="""
            import tensorflow as tf

            def split(ds: tf.data.Dataset, n):
                ds = ds.shuffle(10_000, reshuffle_each_iteration=False)
                test = ds.take(n)
                rest = ds.skip(n)
                val = rest.take(n)
                train = rest.skip(n)
                return train, val, test
            """,
        ),
        Invalid(
            """
            from tensorflow import keras
            full = keras.utils.image_dataset_from_directory('photos')
            val = full.take(10)
            train = full.skip(10)
            """,
            line=2, column=20, end_column=48,
            message="`take`/`skip` split of `image_dataset_from_directory` output",
        ),
        # list_files shuffles its names every epoch unless told not to
        Invalid(
            """
            import tensorflow as tf
            files = tf.data.Dataset.list_files('shards/*.tfrecord')
            val_files = files.take(2)
            train_files = files.skip(2)
            """,
            line=2, column=25, end_column=35,
            message="`take`/`skip` split of `list_files` output, which reshuffles every epoch: the "
                    "splits exchange elements between epochs (what one split holds out leaks into the other); pass "
                    "`shuffle=False` to `list_files`",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        # The split may be another module's (`split(ds)` there), the shuffle that leaks this one's.
        skips = list(model.ops("skip", elsewhere=True))
        reported: set[int] = set()
        for take_site in model.ops("take", elsewhere=True):
            take = take_site.op
            leak: Op | None = None
            if take.where is None and model.dropped(take):
                continue  # (a split nothing reads leaks into nothing)
            for skip_site in skips:
                skip = skip_site.op
                if skip.where is None and model.dropped(skip):
                    continue
                for take_path in take_site.prefixes:
                    if skip in take_path.ops:
                        continue  # `ds.skip(a).take(b)`: one slice, not a split
                    for skip_path in skip_site.prefixes:
                        if take in skip_path.ops:
                            continue
                        leak = _shared_reshuffle(take_path, skip_path)
                        if leak is not None:
                            break
                    if leak is not None:
                        break
                if leak is not None:
                    break
            if leak is None or id(leak) in reported:
                continue
            if take.where is None and skip.where is None and (model.unconsumed(take) or model.unconsumed(skip)):
                # (a split only counted, `cardinality(test_ds)`, holds out nothing anything reads;
                # validation and test both read do exchange: validation picks the model the test scores)
                continue
            reported.add(id(leak))
            if leak.implicit:
                kind = next(p.origin.kind for p in take_site.prefixes if leak in p.origin.implicit_ops)
                helper = kind.rsplit(".", 1)[-1]
                if kind in KERAS_DATASET_HELPERS:
                    # Keras 3 shuffles the file paths in a window of 8 batches before batching
                    # (keras/src/utils/image_dataset_utils.py, 3.15): the examples near the cut move.
                    what, remedy = ("the examples near the cut (the helper reshuffles within a window of 8 batches)",
                                    "use the helper's `validation_split=` with `subset=` and a `seed`")
                else:
                    what, remedy = "elements", (f"pass `{turned_off_by(kind, 'shuffle')}=False` to `{helper}` "
                                                "and shuffle after splitting")
                call = leak.call
                ctx.report(
                    call.func.attr if isinstance(call.func, cst.Attribute) else call.func,
                    f"`take`/`skip` split of `{helper}` output, which reshuffles every epoch: the "
                    f"splits exchange {what} between epochs (what one split holds out leaks into the other); {remedy}",
                )
                continue
            ctx.report(
                leak.name_node,
                "`take`/`skip` split after `shuffle()`, which reshuffles every epoch: the splits "
                "exchange examples between epochs (what one split holds out leaks into the other); set "
                "`reshuffle_each_iteration=False` before splitting or split before shuffling",
                self._fix(leak, model.module),
            )

    @staticmethod
    def _fix(shuffle: Op, module: cst.Module) -> NodeFix | None:
        call = shuffle.call
        if any(arg.star for arg in call.args) or not call.args:
            return None
        arg = shuffle.arg("reshuffle_each_iteration", 2)
        if arg is not None:
            return NodeFix(Applicability.UNSAFE, ((arg.value, "False"),))
        return add_keyword(call, "reshuffle_each_iteration", "False", Applicability.UNSAFE, module)
