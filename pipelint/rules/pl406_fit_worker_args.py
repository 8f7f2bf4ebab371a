from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Severity
from pipelint.pipeline import PipelineModel
from pipelint.rules.base import Invalid, Rule, RuleContext

_METHODS = frozenset({"fit", "evaluate", "predict"})
_WORKER_ARGS = ("workers", "use_multiprocessing", "max_queue_size")


class FitWorkerArgs(Rule):
    code = "PL406"
    name = "fit-worker-args"
    severity = Severity.ERROR
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

Modules that import the Keras 2 package `tf_keras` (or set `TF_USE_LEGACY_KERAS`) are skipped.

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
        "import keras\nmodel.fit(Batches(paths, workers=4), epochs=5)\n",
        # sklearn's fit has no such arguments, and a module without TF/Keras is not checked
        "import numpy as np\nfrom sklearn.svm import SVC\nSVC().fit(x, y, workers=2)  # tf-free module\n",
        # Keras 2 via tf_keras still takes them
        "import tf_keras as keras\nmodel = keras.Sequential()\nmodel.fit(seq, workers=4, use_multiprocessing=True)\n",
        "import os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\nimport tensorflow as tf\nmodel.fit(seq, workers=4)\n",
        # other keyword arguments named alike on other calls
        "import tensorflow as tf\nloader = make_loader(workers=4)\nmodel.fit(loader)\n",
        # the module's own trainer takes `workers`
        ("import keras\n\nclass Trainer:\n    def fit(self, data, workers=1):\n        self.workers = workers\n\n"
        "Trainer().fit(batches, workers=4)\n"),
    )
    INVALID = (
        Invalid("import keras\nmodel = keras.Sequential([keras.layers.Dense(1)])\n"
                "model.fit(train_seq, epochs=5, workers=4, use_multiprocessing=True)\n"),
        Invalid("from tensorflow import keras\n\ndef evaluate(model, seq):\n"
                "    return model.evaluate(seq, max_queue_size=20)\n"),
        Invalid("import tensorflow as tf\nds = tf.data.Dataset.range(10).batch(2)\n"
                "if training:\n    model.fit(ds, workers=8)\nelse:\n    preds = model.predict(ds, workers=8)\n"),
        Invalid("import tensorflow as tf\nhistory = self.model.fit(\n    gen,\n    workers=cfg.workers,\n)\n"),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        if not model.uses_keras3():
            return
        own = self._own_methods(model)
        for site in model.calls:
            func = site.call.func
            if site.qualified_name is not None or not isinstance(func, cst.Attribute) \
                    or func.attr.value not in _METHODS:
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
            ctx.report(passed[0].keyword,
                       f"Keras 3 `{method}` has no {names}: the call raises; pass them to your "
                       f"`keras.utils.PyDataset`'s `super().__init__(...)` (a tf.data pipeline uses "
                       f"`num_parallel_calls` instead)")

    @staticmethod
    def _own_methods(model: PipelineModel) -> set[str]:
        """Names in `_METHODS` that the module defines itself with a worker parameter or `**kwargs`."""
        defs = list(model.functions.values())
        for methods in model.methods.values():
            defs.extend(methods.values())
        own = set()
        for func in defs:
            if func.name.value not in _METHODS:
                continue
            params = func.params
            names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
            if names & set(_WORKER_ARGS) or isinstance(params.star_kwarg, cst.Param):
                own.add(func.name.value)
        return own
