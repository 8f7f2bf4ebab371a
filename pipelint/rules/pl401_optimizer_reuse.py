from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Impact
from pipelint.model import CompileSite, ObjectValue, PipelineModel, find_arg, literal_int
from pipelint.rules.base import Invalid, Rule, RuleContext


# Legacy optimizers (`keras.optimizers.legacy.*`) make their slots per variable, so one instance can
# train several models; only those whose update depends on the step count are changed by sharing.
_STEP_CORRECTED = frozenset({"Adam", "Adamax", "Nadam", "AdamW"})


def _legacy_class(kind: str | None) -> str | None:
    """The class name of a legacy Keras optimizer, else None."""
    if kind is None or ".optimizers.legacy." not in f".{kind}":
        return None
    return kind.rsplit(".", 1)[-1]



def _scheduled(optimizer: ObjectValue, model: PipelineModel) -> bool:
    """May the optimizer's learning rate follow its step count: a `decay=` (Keras 2's per-step
    decay), or a learning rate that is not a plain number (a schedule object; a name the module
    binds once to a number is one)?"""
    made = optimizer.node
    if not isinstance(made, cst.Call):
        return True
    decay = find_arg(made, "decay")
    if decay is not None and _number(decay.value, model) != 0:
        return True
    rate = find_arg(made, "learning_rate", 0) or find_arg(made, "lr")
    return rate is not None and _number(rate.value, model) is None


def _number(value: cst.BaseExpression, model: PipelineModel) -> float | None:
    if isinstance(value, cst.Name):
        value = model.bound_once(value.value)
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        inner = _number(value.expression, model)
        return -inner if inner is not None else None
    if isinstance(value, (cst.Integer, cst.Float)):
        try:
            return float(value.value.replace("_", ""))
        except ValueError:
            return None
    return None


def _callee(via: cst.CSTNode | None) -> str | None:
    """The name a helper call calls (`build_models` for `g, d = build_models()`)."""
    if isinstance(via, cst.Call):
        func = via.func
        return func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return None

class OptimizerReuse(Rule):
    code = "PL401"
    summary = "One optimizer instance is compiled into two different Keras models."
    fixable = None
    # An optimizer object must be built (`optimizers.`), or read off a model and passed on
    # (`base.optimizer,`), to be reused.
    triggers = ("optimizers", ".optimizer,", ".optimizer)", ".optimizer ")
    required = ("compile(",)
    docs = """\
## What it does
Flags `model.compile(optimizer=opt)` when the same optimizer object `opt` was already compiled into
a different model, or when an optimizer created outside a loop is compiled, inside that loop, into
a model that the loop creates anew on each iteration (cross-validation folds, hyper-parameter
sweeps, ensembles), or when one object appears twice in `optimizer=[opt, opt]`.

The optimizer object is followed the way projects pass it around: a local factory that returns a
constructor call (one object per call), any optimizer namespace (`keras.optimizers.*`,
`keras.optimizers.legacy.*`, `tf.compat.v1.keras.optimizers.*`, `...experimental.*`), a class
bound to a name and called later (`optimizer_class(0.01)`), a config dict passed as
`compile(**config)`, and another model's `.optimizer` (`clone.compile(optimizer=base.optimizer)`
after `keras.models.clone_model(base)`).

## Why is this bad?
A Keras 3 optimizer (and the "new" optimizer of TF 2.11+) builds its slot variables (momentum,
Adam moments, iteration counter) for the variables of the first model it trains and keeps them.
Training a second model with it fails at `fit`:
`ValueError: Unknown variable: ... This optimizer can only be called for the variables it was
originally built with. When working with a new set of variables, you should recreate a new
optimizer instance.` Even where it did not raise (legacy optimizers), the second model silently
inherited the first one's iteration count and learning-rate schedule position.

When the compiling code is a helper called twice with one optimizer, the finding sits on the second
call, where the reuse happens.

Recompiling the same model with the same optimizer is fine, and so are optimizer strings
(`optimizer="adam"`) and a fresh instance per `compile`; those stay silent.

A legacy optimizer (`keras.optimizers.legacy.*`) makes its slots per variable and runs shared: it
is reported only where its update depends on the step count (Adam, Adamax, Nadam, AdamW), which
every model it trains advances.

Impact: correctness where the target refuses the second model (TensorFlow 2.11 and later, Keras 3)
or where a learning-rate schedule or Keras 2's `decay=` follows the shared step count. Code written
for Keras 2 before 2.11 that shares a plain `Adam(0.0002, 0.5)` (the GAN pattern: a discriminator
and the combined model) runs: the shared step count only hurries the bias correction of the first
thousand-odd steps, and what remains is that an upgrade breaks it, a breaks-on-upgrade finding
(shown with `--show-migrations`).

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
        # a legacy SGD keeps its state per variable: one instance trains both models as it should
        """
        import tensorflow as tf
        opt = tf.keras.optimizers.legacy.SGD(0.01)
        wide = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        deep = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        wide.compile(opt)
        deep.compile(opt)
        """,
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
        # `keras.optimizers.get` and a factory called per model give fresh instances
        """
        import keras

        def make_opt():
            return keras.optimizers.Ftrl(learning_rate=0.05)

        for rate in (1e-3, 1e-4):
            a = keras.Sequential([keras.layers.Dense(1)])
            a.compile(optimizer=keras.optimizers.get('adam'), loss='mse')
            b = keras.Sequential([keras.layers.Dense(1)])
            b.compile(optimizer=make_opt(), loss='mse')
        """,
        # a model recompiled with its own optimizer
        """
        import keras
        model = keras.models.load_model('model.keras')
        model.compile(optimizer=model.optimizer, loss='mae')
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
            line=10, column=10, end_column=29,
            message="optimizer `opt` was already compiled into the model of the first `compile_one(...)` call",
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
        # a legacy Adam runs shared, but the second model moves its step count (bias correction)
        Invalid(
            """
            import tensorflow as tf
            opt = tf.keras.optimizers.legacy.Adam()
            a = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            b = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            a.compile(opt)
            b.compile(opt)
            """,
            line=6, column=11, end_column=14,
            message="legacy optimizer `opt` is shared by several models: it runs",
        ),
        # a clone compiled with the original's optimizer (the original was trained with it)
        Invalid(
            """
            import keras
            base = keras.models.load_model('base.keras')
            clone = keras.models.clone_model(base)
            clone.compile(optimizer=base.optimizer, loss='mse')
            """,
            line=4, column=25, end_column=39,
            message="`base.optimizer` is the optimizer of another model",
        ),
        # one object for both towers, a class bound to a name, a config dict in a loop
        Invalid(
            """
            import keras
            opt = keras.optimizers.Adam()
            model = keras.Sequential([keras.layers.Dense(1)])
            model.compile(optimizer=[opt, opt], loss='mse')
            """,
            line=4, column=25, end_column=35,
            message="one optimizer object is passed twice",
        ),
        Invalid(
            """
            import tensorflow as tf
            optimizer_class = tf.compat.v1.keras.optimizers.Adagrad
            config = dict(loss='mse', optimizer=optimizer_class(0.01))
            for units in (16, 32):
                member = tf.keras.Sequential([tf.keras.layers.Dense(units)])
                member.compile(**config)
            """,
            line=6, column=5, end_column=29,
            message="optimizer `optimizer` is created outside this loop",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        sites = [s for s in model.compiles
                 if s.model is not None and s.optimizer is not None
                 and model.is_model_bound_optimizer(s.optimizer)]
        # A helper that compiles is run on its own too; where its calls are in sight, they are the
        # models it makes (its own run is none of them: it would make the first call a reuse).
        called = {s.call for s in sites if s.via is not None}
        sites = [s for s in sites if s.via is not None or s.call not in called]
        if not sites:
            return
        # (One helper that compiles, called once per model: each call after the first is a reuse.)
        reported: set[tuple[cst.Call, cst.CSTNode | None]] = set()

        for index, site in enumerate(sites):
            if (site.call, site.via) in reported:
                continue
            message = (self._twice_in_one_compile(site, model)
                       or self._taken_from_other_model(site, model)
                       or self._shared_with_other_model(site, sites[:index], model)
                       or self._loop_reuse(site, model))
            if message is None:
                continue
            if model.in_dead_function(site.call if site.via is None else site.via):
                continue  # compiled in a function that never runs: C1, nothing trains there
            legacy = _legacy_class(site.optimizer.kind)
            what, runs = "legacy optimizer", "it runs"
            target = model.target
            if legacy is None and site.optimizer.kind and (
                    target.tensorflow_version < (2, 11) or target.tensorflow is None and target.keras == 2):
                # Before TensorFlow 2.11 every Keras optimizer was what is now the legacy one; code
                # written for Keras 2 whose release is not named (`keras.layers.advanced_activations`,
                # `fit_generator`) is read as of that era.
                legacy = site.optimizer.kind.rsplit(".", 1)[-1]
                era = model.target.describe_tensorflow() if target.tensorflow is not None else \
                    f"the Keras 2 of TensorFlow before 2.11 ({target.source})"
                what, runs = "optimizer", f"on {era} it runs"
            impact = None
            if legacy is not None:
                if legacy not in _STEP_CORRECTED:
                    continue  # a legacy optimizer keeps its slots per variable: sharing it runs fine
                if what == "optimizer" and not _scheduled(site.optimizer, model):
                    # Keras 2 runs it; the shared step count only hurries the bias correction
                    # of the first thousand-odd steps: what remains is that TensorFlow 2.11 and
                    # Keras 3 refuse a second model's variables.
                    impact = Impact.BREAKS_ON_UPGRADE
                    message = (f"optimizer `{_name_of(site, model)}` is shared by several models: {runs} "
                               f"(slots are made per variable; the shared step count only hurries "
                               f"{legacy}'s bias correction over the first steps), and raises \"Unknown "
                               f"variable\" from TensorFlow 2.11 and on Keras 3; create one instance per model")
                else:
                    message = (f"{what} `{_name_of(site, model)}` is shared by several models: {runs} "
                               f"(slots are made per variable), but its step count advances for every model "
                               f"it trains, which shifts {legacy}'s bias correction and any learning-rate "
                               f"schedule; create one instance per model")
            reported.add((site.call, site.via))
            if site.via is not None and any(other.call is site.call and other.via is not site.via
                                            for other in sites[:index]):
                # One helper that compiles, called twice: the second call is the reuse. (Reached
                # through two different functions, `main()` that calls `build_models()`, it is
                # one run seen twice, and the compile's own finding says it.)
                if not any(other.call is site.call and other.via is not site.via
                           and _callee(other.via) == _callee(site.via) for other in sites[:index]):
                    continue
                ctx.report(site.via, message, impact=impact)
                continue
            arg = find_arg(site.call, "optimizer", 0)
            ctx.report(arg.value if arg is not None else site.call, message, impact=impact)

    @staticmethod
    def _twice_in_one_compile(site: CompileSite, model: PipelineModel) -> str | None:
        seen: list[ObjectValue] = []
        for optimizer in site.optimizers:
            if any(optimizer is other for other in seen) and model.is_model_bound_optimizer(optimizer):
                return (f"one optimizer object is passed twice in `{_name_of(site, model)}`: each "
                        f"output's variables need their own optimizer; create one instance per entry")
            seen.append(optimizer)
        return None

    @staticmethod
    def _taken_from_other_model(site: CompileSite, model: PipelineModel) -> str | None:
        owner = site.optimizer.owner
        if owner is None or owner is site.model:
            return None
        return (f"`{_name_of(site, model)}` is the optimizer of another model, built for that model's "
                f"variables: `fit` raises \"Unknown variable\"; compile this model with a new "
                f"optimizer instance (e.g. `type(opt).from_config(opt.get_config())`)")

    @staticmethod
    def _shared_with_other_model(site: CompileSite, earlier: list[CompileSite],
                                 model: PipelineModel) -> str | None:
        if any(other.optimizer is site.optimizer and other.model is site.model for other in earlier):
            return None  # the optimizer's own model, recompiled: a later compile elsewhere is the reuse
        for other in earlier:
            if other.optimizer is not site.optimizer or other.model is site.model:
                continue
            if other.call is not site.call and other.exclusive_with(site):
                continue
            opt = _name_of(site, model)
            if other.call is site.call and other.via is not None:
                first = f"the model of the first `{model.node_code(other.via.func)}(...)` call"
            else:
                first = f"`{_receiver(other, model)}`"
            return (f"optimizer `{opt}` was already compiled into {first}: a Keras optimizer is built "
                    f"for one model's variables and `fit` raises \"Unknown variable\"; create a new "
                    f"optimizer instance for each model")
        return None

    @staticmethod
    def _loop_reuse(site: CompileSite, model: PipelineModel) -> str | None:
        optimizer, compiled = site.optimizer, site.model
        for loop in site.loops:
            if loop in compiled.loops and loop not in optimizer.loops and not _runs_once(loop, model):
                opt = _name_of(site, model)
                return (f"optimizer `{opt}` is created outside this loop but compiled into a new model on "
                        f"every iteration: from the second iteration `fit` raises \"Unknown variable\"; "
                        f"create the optimizer inside the loop")
        return None


def _runs_once(loop: cst.CSTNode, model: PipelineModel) -> bool:
    """`for name in ["densenet"]:`, over a name bound once to such a list, or `range(1)`: one
    iteration, one model."""
    if not isinstance(loop, cst.For):
        return False
    over = loop.iter
    if isinstance(over, cst.Name):
        over = model.bound_once(over.value)
    if isinstance(over, (cst.List, cst.Tuple)):
        return len(over.elements) == 1 and not isinstance(over.elements[0], cst.StarredElement)
    if isinstance(over, cst.Call) and isinstance(over.func, cst.Name) and over.func.value == "range":
        bounds = [literal_int(arg.value) for arg in over.args]
        return None not in bounds and len(bounds) in (1, 2) and bounds[-1] - (bounds[0] if len(bounds) == 2 else 0) == 1
    return False


def _name_of(site: CompileSite, model: PipelineModel) -> str:
    arg = find_arg(site.call, "optimizer", 0)
    text = model.node_code(arg.value) if arg is not None else "optimizer"
    return text if len(text) <= 40 else text[:37] + "..."


def _receiver(site: CompileSite, model: PipelineModel) -> str:
    func = site.call.func
    text = model.node_code(func.value) if isinstance(func, cst.Attribute) else "another model"
    return text if len(text) <= 40 else text[:37] + "..."
