from __future__ import annotations

import libcst as cst

from pipelint.model import (
    Consumer, find_arg, is_none,
)
from pipelint.rules.base import Invalid, Rule, RuleContext

# The argument that bounds each consumer, by consumer kind.
_STEPS = {"fit": "steps_per_epoch", "validation": "validation_steps", "evaluate": "steps",
          "predict": "steps"}


def _has_steps(call: cst.Call, keyword: str) -> bool:
    if any(arg.star == "**" for arg in call.args):
        return True  # may well be in there
    arg = find_arg(call, keyword)
    return arg is not None and not is_none(arg.value)


class InfiniteRepeatWithoutSteps(Rule):
    code = "PL207"
    summary = "An endlessly repeating dataset passed to Keras without `steps_per_epoch`/`validation_steps`/`steps`."
    fixable = None
    docs = """\
## What it does
Flags a dataset that never ends (`repeat()` with no count, `None` or `-1`, not followed by a
`take`; `Dataset.counter()`/`Dataset.random()`; `make_csv_dataset` without `num_epochs`) passed
to Keras `fit` without `steps_per_epoch`, as `validation_data` without `validation_steps`, or to
`evaluate`/`predict` without `steps`. For evaluation data that repeats only on some branches
(a shared `make_dataset(training)` helper that repeats `if training:`), it stays silent.

## Why is this bad?
Without a step count, Keras ends an epoch (or an evaluation) when the dataset is exhausted, and an
endlessly repeating dataset is never exhausted: the first epoch never finishes, so epoch-level
callbacks, checkpoints and validation never run (older `tf.keras` raised "When passing an
infinitely repeating dataset, you must specify the `steps_per_epoch` argument"). Either give the
step count, or drop the `repeat()` and let Keras restart the dataset each epoch.

## Example
```python
train = tf.data.TFRecordDataset(files).map(parse).batch(32).repeat()
model.fit(train, epochs=10)
```

## Use instead
```python
train = tf.data.TFRecordDataset(files).map(parse).batch(32)
model.fit(train, epochs=10)
```

## Fix safety
No automatic fix.

## References
- https://www.tensorflow.org/api_docs/python/tf/keras/Model#fit
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#repeat
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/make_csv_dataset
"""
    VALID = (
        """
        import tensorflow as tf
        train = tf.data.TFRecordDataset('a').batch(32).repeat()
        model.fit(train, epochs=5, steps_per_epoch=100)
        """,
        """
        import tensorflow as tf
        train = tf.data.TFRecordDataset('a').batch(32).repeat().take(100)
        model.fit(train, epochs=5)
        """,
        """
        import tensorflow as tf
        train = tf.data.TFRecordDataset('a').batch(32).repeat(3)
        model.fit(train, epochs=1)
        """,
        # validation_steps given; **kwargs may carry the steps
        """
        import tensorflow as tf
        val = tf.data.TFRecordDataset('v').batch(32).repeat()
        model.fit(train, validation_data=val, validation_steps=10)
        model.evaluate(val, **kw)
        """,
        # sklearn's fit and NumPy's repeat are not Keras/tf.data
        # a shared helper that repeats only for training, evaluated on its non-training branch
        """
        import tensorflow as tf

        def make(files, training):
            ds = tf.data.TFRecordDataset(files).batch(32)
            if training:
                ds = ds.repeat()
            return ds

        model.fit(make('t', True), steps_per_epoch=100, validation_data=make('v', False))
        model.evaluate(make('e', False))
        """,
        """
        import numpy as np
        import tensorflow as tf
        from sklearn.linear_model import LinearRegression
        x = np.ones((4, 1)).repeat(2, axis=0)
        LinearRegression().fit(x, x.ravel())
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            train = tf.data.TFRecordDataset('a').map(parse).batch(32).repeat()
            model.fit(train, epochs=10)
            """,
            line=3, column=7, end_column=10,
            message="`fit` without `steps_per_epoch` on a dataset that never ends",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow import keras

            def make(files, training):
                ds = tf.data.TFRecordDataset(files).batch(64)
                if training:
                    ds = ds.repeat()
                return ds

            model = keras.Sequential([keras.layers.Dense(1)])
            model.fit(make('t', True), validation_data=make('v', False).repeat(), steps_per_epoch=100, epochs=3)
            """,
            line=11, column=44, end_column=69,
            message="`validation_data` without `validation_steps` on a dataset",
        ),
        Invalid(
            """
            import keras
            import tensorflow as tf
            train = keras.utils.image_dataset_from_directory('photos')
            train = train.repeat(-1).prefetch(tf.data.AUTOTUNE)
            model.fit(x=train, epochs=3)
            """,
            line=5, column=7, end_column=10,
            message="`fit` without `steps_per_epoch` on a dataset that never ends",
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.experimental.make_csv_dataset('train.csv', batch_size=32, label_name='y')
            model.fit(ds, epochs=5)
            """,
            line=3, column=7, end_column=10,
            message="`fit` without `steps_per_epoch` on a dataset that never ends",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            test = tfds.load('mnist', split='test').batch(128).repeat()
            model.evaluate(test)
            """,
            line=3, column=7, end_column=15,
            message="`evaluate` without `steps` on a dataset that never ends",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        for consumer in ctx.model.consumers:
            keyword = _STEPS.get(consumer.kind)
            if keyword is None or not isinstance(consumer.node, cst.Call):
                continue
            call = consumer.node
            if _has_steps(call, keyword):
                continue
            reasons = [path.endless_reason() for path in consumer.value.paths]
            reason = next((r for r in reasons if r), None)
            if reason is None:
                continue
            if consumer.kind != "fit" and not all(reasons) and all(
                    op.conditional for path in consumer.value.paths for op in path.ops
                    if op.name == "repeat"):
                # Evaluation data from a helper that repeats only `if training:`: the model merges
                # both branches, and evaluation is almost always the non-training call.
                continue
            ctx.report(self._anchor(consumer), self._message(consumer, keyword, reason))

    @staticmethod
    def _anchor(consumer: Consumer) -> cst.CSTNode:
        call = consumer.node
        if consumer.kind == "validation" and consumer.argument is not None:
            return consumer.argument
        return call.func.attr if isinstance(call.func, cst.Attribute) else call

    @staticmethod
    def _message(consumer: Consumer, keyword: str, reason: tuple[str, str]) -> str:
        cause, remedy = reason
        if consumer.kind == "validation":
            what, effect = "`validation_data`", "the first validation pass never finishes"
        elif consumer.kind == "fit":
            what, effect = "`fit`", "the first epoch never finishes"
        else:
            what, effect = f"`{consumer.kind}`", "it never returns"
        return (f"{what} without `{keyword}` on a dataset that never ends ({cause}): {effect}; "
                f"pass `{keyword}` or {remedy}")
