from __future__ import annotations

import libcst as cst

from pipelint.model import TRAINING_METHODS, PipelineModel
from pipelint.rules.base import At, Invalid, Rule, RuleContext

_WORKER_ARGS = ("workers", "use_multiprocessing", "max_queue_size")


class FitWorkerArgs(Rule):
    code = "PL406"
    summary = "`workers`/`use_multiprocessing`/`max_queue_size` passed to `fit`; Keras 3 moved them to `PyDataset`."
    fixable = None
    triggers = _WORKER_ARGS
    docs = """\
## What it does
Flags `workers=`, `use_multiprocessing=` and `max_queue_size=` passed to `model.fit`,
`model.evaluate` or `model.predict` in a module that uses TensorFlow or Keras.

## Why is this bad?
Keras 3 (the `tf.keras` of TensorFlow 2.16 and later) removed these arguments from the training
methods: `fit` and `predict` raise `TypeError: ... got an unexpected keyword argument 'workers'` and
`evaluate` raises `ValueError: Arguments not recognized`. They now belong to the data:
`keras.utils.PyDataset.__init__(workers=1, use_multiprocessing=False, max_queue_size=10)`. They
never applied to a `tf.data.Dataset`, which parallelizes with `num_parallel_calls` instead.

Only files whose target is Keras 3 are checked: the `target-version` setting, else the closest
declaring file above the file (`tensorflow>=2.16` or `keras>=3` in requirements.txt, setup.py,
a Dockerfile...). A project pinned to an older TensorFlow or to Keras 2, or written for Keras 2
with no version declared (the module calls `fit_generator`, or passes `workers=` to `fit`), calls
these methods correctly; modules that import the Keras 2 package `tf_keras` (or set
`TF_USE_LEGACY_KERAS`) are skipped too. The message names the Keras version and where it was
declared.

## Example
```python
class Batches(keras.utils.Sequence):
    ...

model.fit(Batches(paths), epochs=5, workers=4, use_multiprocessing=True)
```

## Use instead
```python
class Batches(keras.utils.PyDataset):
    def __init__(self, paths, **kwargs):
        super().__init__(**kwargs)
        ...

model.fit(Batches(paths, workers=4, use_multiprocessing=True), epochs=5)
```

## Fix safety
No automatic fix.

## References
- https://keras.io/api/models/model_training_apis/#fit-method
- https://keras.io/api/utils/python_utils/#pydataset-class
- https://keras.io/guides/migrating_to_keras_3/
"""
    VALID = (
        """
        import keras
        model.fit(Batches(paths, workers=4), epochs=5)
        """,
        # written for Keras 2, no version declared: the call is right there
        """
        import keras
        model.fit(train_seq, epochs=5, workers=4, use_multiprocessing=True)
        """,
        # sklearn's fit has no such arguments, and a module without TF/Keras is not checked
        """
        import numpy as np
        from sklearn.svm import SVC
        SVC().fit(x, y, workers=2)  # tf-free module
        """,
        # Keras 2 via tf_keras still takes them
        """
        import tf_keras as keras
        model = keras.Sequential()
        model.fit(seq, workers=4, use_multiprocessing=True)
        """,
        """
        import os
        os.environ['TF_USE_LEGACY_KERAS'] = '1'
        import tensorflow as tf
        model.fit(seq, workers=4)
        """,
        # other keyword arguments named alike on other calls
        """
        import tensorflow as tf
        loader = make_loader(workers=4)
        model.fit(loader)
        """,
        # the module's own trainer takes `workers`
        """
        import keras

        class Trainer:
            def fit(self, data, workers=1):
                self.workers = workers

        Trainer().fit(batches, workers=4)
        """,
    )
    INVALID = (
        Invalid(
            """
            import keras
            model = keras.Sequential([keras.layers.Dense(1)])
            model.fit(train_seq, epochs=5, workers=4, use_multiprocessing=True)
            """,
            line=3, column=32, end_column=39,
            message="Keras 3 `fit` has no `workers`, `use_multiprocessing`",
            target="2.21",
        ),
        Invalid(
            """
            from tensorflow import keras

            def evaluate(model, seq):
                return model.evaluate(seq, max_queue_size=20)
            """,
            line=4, column=32, end_column=46,
            message="Keras 3 `evaluate` has no `max_queue_size`",
            target="2.21",
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.range(10).batch(2)
            if training:
                model.fit(ds, workers=8)
            else:
                preds = model.predict(ds, workers=8)
            """,
            line=4, column=19, end_column=26,
            message="Keras 3 `fit` has no `workers`",
            target="2.21",
            also=(
                At(line=6, column=31, end_column=38,
                   message="Keras 3 `predict` has no `workers`"),
            ),
        ),
        Invalid(
            """
            import tensorflow as tf
            history = self.model.fit(
                gen,
                workers=cfg.workers,
            )
            """,
            line=4, column=5, end_column=12,
            message="Keras 3 `fit` has no `workers`",
            target="2.21",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        if not model.uses_keras3():
            return
        own = self._own_methods(model)
        for site in model.calls:
            func = site.call.func
            if site.qualified_name is not None or not isinstance(func, cst.Attribute) \
                    or func.attr.value not in TRAINING_METHODS:
                continue
            passed = [a for a in site.call.args
                      if a.keyword is not None and a.keyword.value in _WORKER_ARGS]
            if not passed:
                continue
            receiver = model.node_code(func.value).lower()
            if func.attr.value in own and "model" not in receiver:
                continue  # most likely the module's own wrapper that takes these arguments
            names = ", ".join(f"`{a.keyword.value}`" for a in passed)
            method = func.attr.value
            target = model.target
            version = (f"{target.describe_keras()} (the current release: the project declares no version)"
                       if not target.known else target.describe_keras())
            ctx.report(passed[0].keyword,
                       f"Keras 3 `{method}` has no {names}: the call raises on {version}; pass them to your "
                       f"`keras.utils.PyDataset`'s `super().__init__(...)` (a tf.data pipeline uses "
                       f"`num_parallel_calls` instead)")

    @staticmethod
    def _own_methods(model: PipelineModel) -> set[str]:
        """Names in `TRAINING_METHODS` that the module defines itself with a worker parameter or `**kwargs`."""
        defs = list(model.functions.values())
        for methods in model.methods.values():
            defs.extend(methods.values())
        own = set()
        for func in defs:
            if func.name.value not in TRAINING_METHODS:
                continue
            params = func.params
            names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
            if names & set(_WORKER_ARGS) or isinstance(params.star_kwarg, cst.Param):
                own.add(func.name.value)
        return own
