from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Applicability
from pipelint.model.values import ObjectValue
from pipelint.rules.base import At, Invalid, Rule, RuleContext, fails_from
from pipelint.rules.rewrite import rename_attribute

_RENAMES = {
    "fit_generator": "fit",
    "evaluate_generator": "evaluate",
    "predict_generator": "predict",
}
# The old methods' first parameter; `fit`/`evaluate`/`predict` call it `x`.
_OLD_FIRST_KEYWORD = "generator"
# `fit`/`evaluate`/`predict` take generators from this release (when the old methods were deprecated).
_FIT_TAKES_GENERATORS_FROM = (2, 1)



# Keywords of Keras' `fit_generator`/`evaluate_generator`/`predict_generator`.
_KERAS_KEYWORDS = frozenset({"steps_per_epoch", "steps", "epochs", "validation_data", "validation_steps",
                             "callbacks", "workers", "use_multiprocessing", "max_queue_size", "verbose"})


def _project_method(model, site, func: cst.Attribute) -> bool:
    """Does this call reach the project's own method of that name (a trainer wrapper's
    `fit_generator(lr, train_gen, val_gen)`) rather than a Keras model's? Through `self`/`super()`
    in a class of this module that defines it, or on an instance of a class (here or in another
    project module) that defines it."""
    name = func.attr.value
    receiver = func.value
    if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls") or (
            isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super"):
        return site.in_class is not None and any(name in methods for methods in model.methods.values())
    value = site.receiver
    if not isinstance(value, ObjectValue):
        return False
    if value.cls is not None and name in model.methods.get(value.cls, {}):
        return True
    made = [value.node]
    if isinstance(value.node, cst.Call) and isinstance(value.node.func, cst.Name):
        # `ctc_model = build_model(...)`, a function of this module that returns `CtcModel(...)`
        function = model.functions.get(value.node.func.value)
        made += model.returns.get(function, []) if function is not None else []
    return value.project_class is not None and _defines(model, value.project_class, name) or any(
        isinstance(node, cst.Call) and _defines(model, model.qualified_name(node.func), name) for node in made)


def _defines(model, qualified: str | None, method: str) -> bool:
    """Does the project class `qualified` (imported from another module) define `method`?"""
    return qualified is not None and model.project is not None and model.project.class_defines(qualified, method)

class FitGeneratorDeprecated(Rule):
    code = "PL402"
    summary = "`fit_generator`/`evaluate_generator`/`predict_generator` were removed in Keras 3."
    fixable = Applicability.UNSAFE
    triggers = ("fit_generator", "evaluate_generator", "predict_generator")
    docs = """\
## What it does
Flags calls to `model.fit_generator(...)`, `model.evaluate_generator(...)` and
`model.predict_generator(...)`.

## Why is this bad?
These methods were deprecated in TensorFlow 2.1, when `fit`, `evaluate` and `predict` learned to
take generators, `keras.utils.Sequence`/`PyDataset` objects and `tf.data.Dataset`s directly. Keras 3
(the `tf.keras` of TensorFlow 2.16 and later) removed them: the call fails with
`AttributeError: 'Sequential' object has no attribute 'fit_generator'`.

## Example
```python
model.fit_generator(train_gen, steps_per_epoch=100, epochs=10)
```

## Use instead
```python
model.fit(train_gen, steps_per_epoch=100, epochs=10)
```

Its impact follows the file's target (see `target-version`): correctness where the target is
Keras 3 (the call fails there), breaks-on-upgrade where it is Keras 2 (it works until the upgrade;
shown with `--show-migrations`).

## Fix safety
Unsafe: the rename keeps the arguments as written. It is offered only where the target's `fit`
takes generators: Keras 3, or a TensorFlow declared 2.1 or later (code written for Keras 2 with no
release declared gets the advice without the fix). It is offered only when at most one argument
is positional (the old methods' second positional parameter is `fit`'s `y`/`predict`'s
`batch_size`) and the data is not passed as `generator=`. Keyword arguments that Keras 3 moved
elsewhere (`workers`, `use_multiprocessing`, `max_queue_size`; see PL406) still need moving.

## References
- https://keras.io/api/models/model_training_apis/#fit-method
- https://www.tensorflow.org/api_docs/python/tf/keras/Model#fit
- https://github.com/tensorflow/tensorflow/releases/tag/v2.1.0
"""
    VALID = (
        """
        import keras
        model = keras.Sequential([keras.layers.Dense(1)])
        model.fit(train_gen, epochs=3)
        """,
        # a user's own function named like the old method
        """
        import tensorflow as tf

        def fit_generator(gen):
            return gen

        fit_generator(iter([]))
        """,
        # no TensorFlow or Keras import: someone else's API
        """
        import mylib  # tf helpers
        mylib.Trainer().fit_generator(batches)
        """,
        # the module's own trainer class defines the method
        """
        import tensorflow as tf

        class Trainer:
            def fit_generator(self, batches):
                return batches

        Trainer().fit_generator(data)
        """,
        # a Keras data generator factory is not the training method
        """
        import tensorflow as tf
        gen = tf.keras.preprocessing.image.ImageDataGenerator()
        batches = gen.flow_from_directory('data/')
        model.fit(batches)
        """,
    )
    INVALID = (
        Invalid(
            """
            import keras
            model = keras.Sequential([keras.layers.Dense(1)])
            model.fit_generator(train_gen, steps_per_epoch=100, epochs=10)
            """,
            line=3, column=7, end_column=20,
            message="`fit_generator` was removed in Keras 3: the call raises AttributeError on Keras 3",
            fixed="""
            import keras
            model = keras.Sequential([keras.layers.Dense(1)])
            model.fit(train_gen, steps_per_epoch=100, epochs=10)
            """,
            target="2.21",
        ),
        # Keras 2 on TensorFlow 2.0: the current API there, and `fit` takes no generator yet: no fix
        Invalid(
            """
            import tensorflow as tf
            model.fit_generator(train_gen, steps_per_epoch=100, epochs=10)
            """,
            line=2, column=7, end_column=20,
            message="`fit_generator` was removed in Keras 3; on TensorFlow 2.0 (target-version) it is the API",
            target="2.0",
        ),
        Invalid(
            """
            from tensorflow import keras

            def score(model, gen):
                loss = model.evaluate_generator(gen, steps=10)
                preds = model.predict_generator(
                    gen,  # same batches
                    steps=10,
                )
                return loss, preds
            """,
            line=4, column=18, end_column=36,
            message="`evaluate_generator` was removed in Keras 3 and is deprecated since TF 2.1: it works on Keras 2",
            target="2.10",
            also=(
                At(line=5, column=19, end_column=36,
                   message="`predict_generator` was removed in Keras 3"),
            ),
            fixed="""
            from tensorflow import keras

            def score(model, gen):
                loss = model.evaluate(gen, steps=10)
                preds = model.predict(
                    gen,  # same batches
                    steps=10,
                )
                return loss, preds
            """,
        ),
        # positional steps_per_epoch: reported, but not renamed (fit's 2nd parameter is y)
        Invalid(
            """
            import tensorflow as tf
            model = tf.keras.models.load_model('m.h5')
            model.fit_generator(batches, 100, 5)
            """,
            line=3, column=7, end_column=20,
            message="`fit_generator` was removed in Keras 3",
        ),
        Invalid(
            """
            import tensorflow as tf
            history = model.fit_generator(generator=datagen.flow(x, y), epochs=3)
            """,
            line=2, column=17, end_column=30,
            message="`fit_generator` was removed in Keras 3",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        keras_module = model.imports.imports_any("tensorflow", "keras", "tf_keras")
        for site in model.calls:
            func = site.call.func
            if site.qualified_name is not None or not isinstance(func, cst.Attribute):
                continue
            new = _RENAMES.get(func.attr.value)
            if new is None or _project_method(model, site, func):
                continue
            if not keras_module and not any(a.keyword is not None and a.keyword.value in _KERAS_KEYWORDS
                                            for a in site.call.args):
                continue  # (a module that imports neither: Keras' own keywords say it is its model)
            target = model.target
            fails = target.keras_major == 3
            old = func.attr.value
            if fails:
                message = (f"`{old}` was removed in Keras 3: the call raises AttributeError on "
                           f"{target.describe_keras()}; call `{new}`, which takes generators, `PyDataset`s and datasets")
            elif target.is_before(_FIT_TAKES_GENERATORS_FROM):
                message = (f"`{old}` was removed in Keras 3; on {target.describe_tensorflow()} it is the API to "
                           f"use (`{new}` takes generators from TensorFlow 2.1): rename it to `{new}` when upgrading")
            else:
                message = (f"`{old}` was removed in Keras 3 and is deprecated since TF 2.1: it works on "
                           f"{target.describe_keras()} and raises AttributeError after an upgrade to TensorFlow "
                           f"2.16 or later; `{new}` takes generators, `PyDataset`s and datasets: call `{new}`")
            fix = self._fix(site.call, func.attr, new) if fails or target.is_from(_FIT_TAKES_GENERATORS_FROM) else None
            ctx.report(func.attr, message, fix, impact=fails_from(fails))

    @staticmethod
    def _fix(call: cst.Call, attr: cst.Name, new: str):
        if any(a.star for a in call.args):
            return None
        if sum(1 for a in call.args if a.keyword is None) > 1:
            return None
        if any(a.keyword is not None and a.keyword.value == _OLD_FIRST_KEYWORD for a in call.args):
            return None
        return rename_attribute(attr, new, Applicability.UNSAFE)
