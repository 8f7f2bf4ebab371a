from __future__ import annotations

import libcst as cst

from pipelint.model import CompileSite, PipelineModel, find_arg
from pipelint.rules.base import Invalid, Rule, RuleContext


class OptimizerReuse(Rule):
    code = "PL401"
    summary = "One optimizer instance is compiled into two different Keras models."
    fixable = None
    triggers = ("optimizers",)  # an optimizer object must be built for one to be reused
    required = ("compile(",)
    docs = """\
## What it does
Flags `model.compile(optimizer=opt)` when the same optimizer object `opt` was already compiled into
a different model, or when an optimizer created outside a loop is compiled, inside that loop, into
a model that the loop creates anew on each iteration (cross-validation folds, hyper-parameter
sweeps).

## Why is this bad?
A Keras 3 optimizer (and the "new" optimizer of TF 2.11+) builds its slot variables (momentum,
Adam moments, iteration counter) for the variables of the first model it trains and keeps them.
Training a second model with it fails at `fit`:
`ValueError: Unknown variable: ... This optimizer can only be called for the variables it was
originally built with. When working with a new set of variables, you should recreate a new
optimizer instance.` Even where it did not raise (legacy optimizers), the second model silently
inherited the first one's iteration count and learning-rate schedule position.

Recompiling the same model with the same optimizer is fine, and so are optimizer strings
(`optimizer="adam"`) and a fresh instance per `compile`; those stay silent.

## Example
```python
opt = keras.optimizers.Adam(1e-3)
for fold in range(5):
    model = build_model()
    model.compile(optimizer=opt, loss="mse")
    model.fit(train[fold])
```

## Use instead
```python
for fold in range(5):
    model = build_model()
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse")
    model.fit(train[fold])
```

## Fix safety
No automatic fix.

## References
- https://keras.io/api/optimizers/
- https://keras.io/api/models/model_training_apis/#compile-method
- https://www.tensorflow.org/api_docs/python/tf/keras/optimizers/Optimizer
"""
    VALID = (
        # the same model recompiled with the same optimizer
        """
        import keras
        opt = keras.optimizers.Adam()
        model = keras.Sequential([keras.layers.Dense(1)])
        model.compile(optimizer=opt, loss='mse')
        model.compile(optimizer=opt, loss='mae')
        """,
        # optimizer strings and fresh instances
        """
        import keras
        a = keras.Sequential([keras.layers.Dense(1)])
        b = keras.Sequential([keras.layers.Dense(1)])
        a.compile(optimizer='adam', loss='mse')
        b.compile(optimizer='adam', loss='mse')
        """,
        """
        import keras
        opt = 'adam'
        a = keras.Sequential([keras.layers.Dense(1)])
        b = keras.Sequential([keras.layers.Dense(1)])
        a.compile(opt, loss='mse')
        b.compile(opt, loss='mse')
        """,
        """
        from tensorflow import keras
        for lr in (1e-3, 1e-4):
            model = keras.Sequential([keras.layers.Dense(1)])
            model.compile(optimizer=keras.optimizers.Adam(lr), loss='mse')
        """,
        # optimizer created inside the loop, per model
        """
        import keras
        for fold in range(3):
            opt = keras.optimizers.SGD(0.1)
            model = keras.Sequential([keras.layers.Dense(1)])
            model.compile(opt, loss='mse')
        """,
        # model created outside the loop: one model, recompiled
        """
        import keras
        opt = keras.optimizers.Adam()
        model = keras.Sequential([keras.layers.Dense(1)])
        for loss in ('mse', 'mae'):
            model.compile(optimizer=opt, loss=loss)
        """,
        # two models in exclusive branches: only one is ever built
        """
        import keras
        opt = keras.optimizers.Adam()
        if big:
            model = keras.Sequential([keras.layers.Dense(64)])
            model.compile(optimizer=opt, loss='mse')
        else:
            model = keras.Sequential([keras.layers.Dense(8)])
            model.compile(optimizer=opt, loss='mse')
        """,
        # Keras 2 legacy optimizers accept new variables
        """
        import tensorflow as tf
        opt = tf.keras.optimizers.legacy.Adam()
        a = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        b = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        a.compile(opt)
        b.compile(opt)
        """,
        # re.compile and friends are not Keras
        """
        import re
        import tensorflow as tf
        pattern = 'a+'
        x = re.compile(pattern)
        y = re.compile(pattern)
        """,
    )
    INVALID = (
        Invalid(
            """
            import keras
            opt = keras.optimizers.Adam(1e-3)
            generator = keras.Sequential([keras.layers.Dense(8)])
            discriminator = keras.Sequential([keras.layers.Dense(1)])
            generator.compile(optimizer=opt, loss='mse')
            discriminator.compile(optimizer=opt, loss='bce')
            """,
            line=6, column=33, end_column=36,
            message="optimizer `opt` was already compiled into `generator`",
        ),
        Invalid(
            """
            from tensorflow import keras

            def build_model():
                return keras.Sequential([keras.layers.Dense(1)])

            optimizer = keras.optimizers.Adam()
            for fold in range(5):
                model = build_model()
                model.compile(optimizer=optimizer, loss='mse')
                model.fit(x[fold], y[fold])
            """,
            line=9, column=29, end_column=38,
            message="optimizer `optimizer` is created outside this loop but compiled",
        ),
        Invalid(
            """
            import tensorflow as tf

            def make_optimizer():
                return tf.keras.optimizers.SGD(0.01, momentum=0.9)

            opt = make_optimizer()
            teacher = tf.keras.models.load_model('teacher.keras')
            student = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            teacher.compile(opt, loss='mse')
            student.compile(opt, loss='mse')
            """,
            line=10, column=17, end_column=20,
            message="optimizer `opt` was already compiled into `teacher`",
        ),
        Invalid(
            """
            import keras

            def compile_one(opt):
                model = keras.Sequential([keras.layers.Dense(1)])
                model.compile(optimizer=opt, loss='mse')
                return model

            shared = keras.optimizers.RMSprop()
            first = compile_one(shared)
            second = compile_one(shared)
            """,
            line=5, column=29, end_column=32,
            message="optimizer `opt` was already compiled into `model`",
        ),
        Invalid(
            """
            import keras
            opt = keras.optimizers.AdamW()
            for units in (16, 32, 64):
                model = keras.Sequential([keras.layers.Dense(units)])
                model.compile(optimizer=opt)
            """,
            line=5, column=29, end_column=32,
            message="optimizer `opt` is created outside this loop but compiled",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        sites = [s for s in model.compiles
                 if s.model is not None and s.optimizer is not None
                 and model.is_model_bound_optimizer(s.optimizer)]
        if not sites:
            return
        reported: set[cst.Call] = set()

        for index, site in enumerate(sites):
            if site.call in reported:
                continue
            message = self._shared_with_other_model(site, sites[:index], model)
            if message is None:
                message = self._loop_reuse(site, model)
            if message is None:
                continue
            reported.add(site.call)
            arg = find_arg(site.call, "optimizer", 0)
            ctx.report(arg.value if arg is not None else site.call, message)

    @staticmethod
    def _shared_with_other_model(site: CompileSite, earlier: list[CompileSite],
                                 model: PipelineModel) -> str | None:
        for other in earlier:
            if other.optimizer is not site.optimizer or other.model is site.model:
                continue
            if other.call is not site.call and other.exclusive_with(site):
                continue
            opt = _name_of(site, model)
            first = _receiver(other, model)
            return (f"optimizer `{opt}` was already compiled into `{first}`: a Keras optimizer is built "
                    f"for one model's variables and `fit` raises \"Unknown variable\"; create a new "
                    f"optimizer instance for each model")
        return None

    @staticmethod
    def _loop_reuse(site: CompileSite, model: PipelineModel) -> str | None:
        optimizer, compiled = site.optimizer, site.model
        for loop in site.loops:
            if loop in compiled.loops and loop not in optimizer.loops:
                opt = _name_of(site, model)
                return (f"optimizer `{opt}` is created outside this loop but compiled into a new model on "
                        f"every iteration: from the second iteration `fit` raises \"Unknown variable\"; "
                        f"create the optimizer inside the loop")
        return None


def _name_of(site: CompileSite, model: PipelineModel) -> str:
    arg = find_arg(site.call, "optimizer", 0)
    text = model.node_code(arg.value) if arg is not None else "optimizer"
    return text if len(text) <= 40 else text[:37] + "..."


def _receiver(site: CompileSite, model: PipelineModel) -> str:
    func = site.call.func
    text = model.node_code(func.value) if isinstance(func, cst.Attribute) else "another model"
    return text if len(text) <= 40 else text[:37] + "..."
