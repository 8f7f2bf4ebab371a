from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Applicability, Impact
from pipelint.model import find_arg, is_none
from pipelint.rules.base import Invalid, NodeFix, Rule, RuleContext

# Positions of `y` and `batch_size` among the positional parameters (after `x`).
_Y_POSITION = {"fit": 1, "evaluate": 1, "predict": None}
_BATCH_SIZE_POSITION = {"fit": 2, "evaluate": 2, "predict": 1}


def _without_arg(call: cst.Call, arg: cst.Arg) -> NodeFix | None:
    """Delete one argument and the comma that separates it, leaving every other byte as written.

    Not last: `f(a, b=1, c=2)` deletes `b=1, ` (with a comment on its line). Last: deletes from the
    previous argument's comma to the end of the value, so `f(a, b=1)` -> `f(a)` and a trailing
    comma and the line break before `)` stay where they were (as ruff does).
    """
    args = list(call.args)
    index = args.index(arg)
    removed: list[cst.CSTNode] = [arg]
    if index < len(args) - 1:
        if not isinstance(arg.comma, cst.Comma):
            return None
        removed += [arg.comma.whitespace_before, arg.comma, arg.comma.whitespace_after]
    else:
        if index == 0:
            return None
        previous = args[index - 1]
        if not isinstance(previous.comma, cst.Comma):
            return None
        removed += [previous.comma.whitespace_before, previous.comma, previous.comma.whitespace_after]
    replacements = tuple((node, "") for node in removed
                         if not isinstance(node, cst.SimpleWhitespace) or node.value)
    return NodeFix(Applicability.SAFE, replacements)


def _label(arg: cst.Arg) -> cst.CSTNode:
    return arg.keyword if arg.keyword is not None else arg.value


class DatasetWithYOrBatchSize(Rule):
    code = "PL405"
    summary = "`fit`/`evaluate`/`predict` on a `tf.data.Dataset` given `y`, `sample_weight` or `batch_size`."
    fixable = Applicability.SAFE
    docs = """\
## What it does
Flags `model.fit(ds, y=...)`, `model.fit(ds, sample_weight=...)` and
`model.fit(ds, batch_size=...)` (likewise `evaluate`, and `predict` with `batch_size`) when `ds` is
a `tf.data.Dataset`.

## Why is this bad?
A dataset carries its own targets, sample weights and batching. Keras raises for `y`
("When providing `x` as a tf.data.Dataset, `y` should not be passed. Instead, the targets should be
included as part of the tf.data.Dataset.") and for `sample_weight`. `batch_size` is silently
ignored: the batches are whatever the dataset yields (`*_dataset_from_directory` batches by 32 by
default; an unbatched dataset feeds one example per step), so the batch size the call asks for is
not the one used for training.

Impact: correctness for `y` and `sample_weight` (the call fails); an ignored `batch_size` is
housekeeping (shown with `--show-housekeeping`): the training that ran used the dataset's batches,
and dropping the argument changes nothing.

## Example
```python
ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(64)
model.fit(ds, batch_size=32, epochs=5)
```

## Use instead
```python
ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(32)
model.fit(ds, epochs=5)
```

## Fix safety
Safe: removing `batch_size=` changes nothing at run time, Keras ignores it for datasets. The fix
is offered only for a keyword `batch_size` when neither `y` nor `sample_weight` is passed; those
need the targets moved into the dataset by hand.

## References
- https://keras.io/api/models/model_training_apis/#fit-method
- https://www.tensorflow.org/api_docs/python/tf/keras/Model#fit
- https://www.tensorflow.org/guide/keras/training_with_built_in_methods#training_evaluation_from_tfdata_datasets
"""
    VALID = (
        """
        import tensorflow as tf
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)
        model.fit(ds, epochs=3)
        """,
        # NumPy inputs take y and batch_size
        """
        import tensorflow as tf
        model.fit(x_train, y_train, batch_size=32, epochs=3)
        """,
        # sklearn's fit is not Keras
        """
        import tensorflow as tf
        from sklearn.linear_model import LogisticRegression
        LogisticRegression().fit(features, labels)
        """,
        # explicit None is what Keras expects
        """
        import keras
        ds = keras.utils.image_dataset_from_directory('data/')
        model.fit(ds, y=None, batch_size=None)
        """,
        # batch_size for validation data is a different argument
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).batch(4)
        model.fit(ds, validation_batch_size=4)
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(64)
            model.fit(ds, batch_size=32, epochs=5)
            """,
            line=3, column=15, end_column=25,
            message="`batch_size` is ignored by `fit` when `x` is a tf.data.Dataset",
            fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(64)
            model.fit(ds, epochs=5)
            """,
        ),
        Invalid(
            """
            from tensorflow import keras

            def train(model):
                ds = keras.utils.image_dataset_from_directory('data/train')
                model.fit(
                    ds,
                    batch_size=32,  # per replica
                    epochs=10,
                )
            """,
            line=7, column=9, end_column=19,
            message="`batch_size` is ignored by `fit` when `x` is a tf.data.Dataset",
            fixed="""
            from tensorflow import keras

            def train(model):
                ds = keras.utils.image_dataset_from_directory('data/train')
                model.fit(
                    ds,
                    epochs=10,
                )
            """,
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).map(parse).batch(8)
            model.predict(ds, batch_size=8)
            """,
            line=3, column=19, end_column=29,
            message="`batch_size` is ignored by `predict` when `x` is a tf.data.Dataset",
            fixed="""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).map(parse).batch(8)
            model.predict(ds)
            """,
        ),
        # y with a dataset raises: no fix
        Invalid(
            """
            import tensorflow as tf
            images = tf.data.Dataset.from_tensor_slices(x).batch(32)
            model.fit(images, y_train, epochs=3)
            """,
            line=3, column=19, end_column=26,
            message="`y` passed to `fit` with a tf.data.Dataset",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='test', as_supervised=True)
            if training:
                ds = ds.shuffle(1000)
            ds = ds.batch(128)
            model.evaluate(ds, sample_weight=weights)
            """,
            line=7, column=20, end_column=33,
            message="`sample_weight` passed to `evaluate` with a tf.data.Dataset",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        seen: set[cst.Call] = set()
        for consumer in ctx.model.consumers:
            if consumer.kind not in _BATCH_SIZE_POSITION or not isinstance(consumer.node, cst.Call):
                continue
            call = consumer.node
            if call in seen:
                continue
            seen.add(call)
            kind = consumer.kind
            # After `*args` positions are unknown: look at keywords only.
            positional = not any(a.star == "*" for a in call.args)
            y_position = _Y_POSITION[kind] if positional else None
            y = find_arg(call, "y", y_position) if kind != "predict" else None
            weights = find_arg(call, "sample_weight") if kind != "predict" else None
            batch_size = find_arg(call, "batch_size", _BATCH_SIZE_POSITION[kind] if positional else None)
            y, weights, batch_size = (a if a is not None and not is_none(a.value) else None
                                      for a in (y, weights, batch_size))
            if y is not None or weights is not None:
                arg = y or weights
                what = "`y`" if arg is y else "`sample_weight`"
                ctx.report(_label(arg),
                           f"{what} passed to `{kind}` with a tf.data.Dataset: Keras raises ValueError; "
                           f"put the targets/weights in the dataset's elements `(x, y[, w])`")
            elif batch_size is not None:
                fix = (_without_arg(call, batch_size)
                       if batch_size.keyword is not None else None)
                ctx.report(_label(batch_size),
                           f"`batch_size` is ignored by `{kind}` when `x` is a tf.data.Dataset: the dataset's "
                           f"own batching applies; set it with `.batch()` and drop the argument", fix,
                           impact=Impact.HOUSEKEEPING)  # (what ran is the dataset's batching either way)
