from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Severity
from pipelint.pipeline import CompileSite, ObjectValue, PipelineModel, find_arg
from pipelint.rules.base import Invalid, Rule, RuleContext

_OPTIMIZER_PREFIXES = ("keras.optimizers.", "tensorflow.optimizers.")
# Keras 2 legacy optimizers keep per-variable slots in a dict and accept new variables; schedules
# are not optimizers at all.
_NOT_REUSE_SENSITIVE = (".legacy.", ".schedules.", "keras.optimizers.deserialize",
                        "keras.optimizers.serialize")


def _is_optimizer_kind(name: str | None) -> bool:
    return (name is not None and name.startswith(_OPTIMIZER_PREFIXES)
            and not any(part in name for part in _NOT_REUSE_SENSITIVE))


class _Returns(cst.CSTVisitor):
    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested function's returns are not the factory's

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.values.append(node.value)


def _is_stateful_optimizer(value: ObjectValue, model: PipelineModel) -> bool:
    """A Keras (2.11+/3) optimizer instance: built for one model's variables on first use."""
    if _is_optimizer_kind(value.kind):
        return True
    node = value.node
    if value.kind is None and isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        # `opt = make_optimizer()`: a local factory whose every return builds a Keras optimizer.
        factory = model.functions.get(node.func.value)
        if factory is None:
            return False
        returns = _Returns()
        factory.body.visit(returns)
        return bool(returns.values) and all(
            isinstance(v, cst.Call) and _is_optimizer_kind(model.qualified_name(v.func))
            for v in returns.values
        )
    return False


class OptimizerReuse(Rule):
    code = "PL401"
    name = "optimizer-reuse"
    severity = Severity.ERROR
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
        ("import keras\nopt = keras.optimizers.Adam()\nmodel = keras.Sequential([keras.layers.Dense(1)])\n"
        "model.compile(optimizer=opt, loss='mse')\nmodel.compile(optimizer=opt, loss='mae')\n"),
        # optimizer strings and fresh instances
        ("import keras\na = keras.Sequential([keras.layers.Dense(1)])\nb = keras.Sequential([keras.layers.Dense(1)])\n"
        "a.compile(optimizer='adam', loss='mse')\nb.compile(optimizer='adam', loss='mse')\n"),
        ("import keras\nopt = 'adam'\na = keras.Sequential([keras.layers.Dense(1)])\nb = keras.Sequential([keras.layers.Dense(1)])\n"
        "a.compile(opt, loss='mse')\nb.compile(opt, loss='mse')\n"),
        ("from tensorflow import keras\nfor lr in (1e-3, 1e-4):\n    model = keras.Sequential([keras.layers.Dense(1)])\n"
        "    model.compile(optimizer=keras.optimizers.Adam(lr), loss='mse')\n"),
        # optimizer created inside the loop, per model
        ("import keras\nfor fold in range(3):\n    opt = keras.optimizers.SGD(0.1)\n    model = keras.Sequential([keras.layers.Dense(1)])\n"
        "    model.compile(opt, loss='mse')\n"),
        # model created outside the loop: one model, recompiled
        ("import keras\nopt = keras.optimizers.Adam()\nmodel = keras.Sequential([keras.layers.Dense(1)])\n"
        "for loss in ('mse', 'mae'):\n    model.compile(optimizer=opt, loss=loss)\n"),
        # two models in exclusive branches: only one is ever built
        ("import keras\nopt = keras.optimizers.Adam()\nif big:\n    model = keras.Sequential([keras.layers.Dense(64)])\n"
        "    model.compile(optimizer=opt, loss='mse')\nelse:\n    model = keras.Sequential([keras.layers.Dense(8)])\n"
        "    model.compile(optimizer=opt, loss='mse')\n"),
        # Keras 2 legacy optimizers accept new variables
        ("import tensorflow as tf\nopt = tf.keras.optimizers.legacy.Adam()\na = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "b = tf.keras.Sequential([tf.keras.layers.Dense(1)])\na.compile(opt)\nb.compile(opt)\n"),
        # re.compile and friends are not Keras
        "import re\nimport tensorflow as tf\npattern = 'a+'\nx = re.compile(pattern)\ny = re.compile(pattern)\n",
    )
    INVALID = (
        Invalid(
            "import keras\nopt = keras.optimizers.Adam(1e-3)\n"
            "generator = keras.Sequential([keras.layers.Dense(8)])\n"
            "discriminator = keras.Sequential([keras.layers.Dense(1)])\n"
            "generator.compile(optimizer=opt, loss='mse')\ndiscriminator.compile(optimizer=opt, loss='bce')\n"
        ),
        Invalid(
            "from tensorflow import keras\n\ndef build_model():\n    return keras.Sequential([keras.layers.Dense(1)])\n\n"
            "optimizer = keras.optimizers.Adam()\nfor fold in range(5):\n    model = build_model()\n"
            "    model.compile(optimizer=optimizer, loss='mse')\n    model.fit(x[fold], y[fold])\n"
        ),
        Invalid(
            "import tensorflow as tf\n\ndef make_optimizer():\n    return tf.keras.optimizers.SGD(0.01, momentum=0.9)\n\n"
            "opt = make_optimizer()\nteacher = tf.keras.models.load_model('teacher.keras')\n"
            "student = tf.keras.Sequential([tf.keras.layers.Dense(10)])\n"
            "teacher.compile(opt, loss='mse')\nstudent.compile(opt, loss='mse')\n"
        ),
        Invalid(
            "import keras\n\ndef compile_one(opt):\n    model = keras.Sequential([keras.layers.Dense(1)])\n"
            "    model.compile(optimizer=opt, loss='mse')\n    return model\n\n"
            "shared = keras.optimizers.RMSprop()\nfirst = compile_one(shared)\nsecond = compile_one(shared)\n"
        ),
        Invalid(
            "import keras\nopt = keras.optimizers.AdamW()\nfor units in (16, 32, 64):\n"
            "    model = keras.Sequential([keras.layers.Dense(units)])\n    model.compile(optimizer=opt)\n"
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        sites = [s for s in model.compiles
                 if s.model is not None and s.optimizer is not None
                 and _is_stateful_optimizer(s.optimizer, model)]
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
