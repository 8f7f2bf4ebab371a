from __future__ import annotations

import libcst as cst

from pipelint.model import PipelineModel
from pipelint.rules.base import At, Invalid, Rule, RuleContext, fails_from

# Private methods of the Keras 2 `OptimizerV2`, what Keras 3 offers instead, and whether that works
# on the Keras 2 optimizer too (the public attribute does; `build`/`update_step` are the new API's).
_PRIVATE = {
    "_create_all_weights": ("`optimizer.build(model.trainable_variables)`", False),
    "_create_slots": ("`build()` with `add_variable_from_reference`", False),
    "_resource_apply_dense": ("`update_step(gradient, variable, learning_rate)`", False),
    "_resource_apply_sparse": ("`update_step(gradient, variable, learning_rate)`", False),
    "_distributed_apply": ("`apply_gradients`", True),
    "_get_hyper": ("the public attribute (`optimizer.learning_rate`)", True),
    "_set_hyper": ("assignment to the public attribute (`optimizer.learning_rate = ...`)", True),
    # (In Keras 2 `learning_rate` is the schedule itself, not its current value.)
    "_decayed_lr": ("`optimizer.learning_rate` (the current, scheduled value)", False),
    "_prepare_local": ("`build()`/`update_step`", False),
}
#: The optimizer rewrite that dropped them: `tf.keras.optimizers` from TensorFlow 2.11, and Keras 3.
_REMOVED_FROM = (2, 11)


def _is_self_or_super(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Name) and expr.value in ("self", "cls"):
        return True
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name)
            and expr.func.value == "super")


def _defines_optimizer(cls: cst.ClassDef, model: PipelineModel) -> bool:
    """A class that subclasses an optimizer or implements the private optimizer protocol itself."""
    for base in cls.bases:
        name = model.qualified_name(base.value) or ""
        last = name.rsplit(".", 1)[-1] if name else getattr(base.value, "value", "")
        if "optimizer" in name.lower() or (isinstance(last, str) and last.endswith("Optimizer")):
            return True
    return any(method in _PRIVATE for method in model.methods.get(cls, {}))


class PrivateOptimizerApi(Rule):
    code = "PL404"
    summary = "Calls a private Keras 2 optimizer method that Keras 3 removed or changed."
    fixable = None
    triggers = tuple(_PRIVATE)
    docs = """\
## What it does
Flags calls to private methods of the Keras 2 optimizer (`OptimizerV2`) from outside an optimizer
class: `_decayed_lr`, `_get_hyper`, `_set_hyper`, `_create_all_weights`, `_create_slots`,
`_resource_apply_dense`, `_resource_apply_sparse`, `_distributed_apply`, `_prepare_local`. Calls on
`self` or `super()` inside a class that defines its own optimizer stay silent.

## Why is this bad?
These were never public API, and the optimizer rewrite of TF 2.11 and Keras 3 removed or changed
them all: training scripts that log `model.optimizer._decayed_lr(tf.float32)` or poke
`_set_hyper` fail with `AttributeError` once TensorFlow is upgraded. Keras 3 exposes the same
things publicly: `optimizer.learning_rate` (the scheduled value), `optimizer.build(variables)`,
`optimizer.iterations`, and custom optimizers override `build` and `update_step`.

## Example
```python
lr = model.optimizer._decayed_lr(tf.float32)
model.optimizer._set_hyper("learning_rate", 1e-4)
```

## Use instead
```python
lr = model.optimizer.learning_rate
model.optimizer.learning_rate = 1e-4
```

Its impact follows the file's target (see `target-version`): correctness from TensorFlow 2.11
and on Keras 3 (the call fails there), breaks-on-upgrade before (shown with `--show-migrations`),
where the message names the replacement as the API after the upgrade when the Keras 2 optimizer
lacks it (`build`, `update_step`).

## Fix safety
No automatic fix.

## References
- https://keras.io/api/optimizers/#the-optimizer-class
- https://www.tensorflow.org/api_docs/python/tf/keras/optimizers/Optimizer
- https://github.com/keras-team/keras/blob/master/keras/src/optimizers/base_optimizer.py
"""
    VALID = (
        """
        import keras
        lr = model.optimizer.learning_rate
        model.optimizer.learning_rate = 1e-4
        """,
        # a custom legacy optimizer using its own private API
        """
        import tensorflow as tf

        class MyAdam(tf.keras.optimizers.legacy.Optimizer):
            def _create_slots(self, var_list):
                super()._create_slots(var_list)
            def _resource_apply_dense(self, grad, var, apply_state=None):
                lr = self._decayed_lr(var.dtype)
                return var.assign_sub(lr * grad)
        """,
        # a wrapper that implements the protocol by delegation
        """
        import tensorflow as tf

        class Wrapped:
            def _resource_apply_dense(self, grad, var):
                return self.inner._resource_apply_dense(grad, var)
        """,
        # no TensorFlow/Keras import: someone else's `_get_hyper`
        """
        import torch  # not tf
        value = sched._get_hyper('lr')
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf

            class LRLogger(tf.keras.callbacks.Callback):
                def on_epoch_end(self, epoch, logs=None):
                    logs['lr'] = self.model.optimizer._decayed_lr(tf.float32)
            """,
            line=5, column=43, end_column=54,
            message="`_decayed_lr` is private optimizer API that Keras 3",
        ),
        Invalid(
            """
            from tensorflow import keras
            opt = keras.optimizers.Adam()
            opt._set_hyper('learning_rate', 1e-4)
            print(f"beta_1={opt._get_hyper('beta_1')}")
            """,
            line=3, column=5, end_column=15,
            message="`_set_hyper` is private optimizer API that Keras 3",
            also=(
                At(line=4, column=21, end_column=31,
                   message="`_get_hyper` is private optimizer API that Keras 3"),
            ),
        ),
        Invalid(
            """
            import keras

            def warm_start(model):
                model.optimizer._create_all_weights(model.trainable_variables)
            """,
            line=4, column=21, end_column=40,
            message="`_create_all_weights` is private optimizer API that Keras 3",
        ),
        Invalid(
            """
            import tensorflow as tf
            if restore:
                opt = tf.keras.optimizers.SGD()
                opt._create_slots(model.trainable_variables)
            """,
            line=4, column=9, end_column=22,
            message="`_create_slots` is private optimizer API that Keras 3",
        ),
        # TensorFlow 2.4: it works until the upgrade, and Keras 2's `learning_rate` is the schedule
        Invalid(
            """
            import tensorflow as tf
            lr = model.optimizer._decayed_lr(tf.float32)
            """,
            line=2, column=22, end_column=33,
            message="`_decayed_lr` is private optimizer API that Keras 3 (and the TF 2.11 optimizer) removed: it "
                    "works on TensorFlow 2.4 (target-version) and raises AttributeError after an upgrade to "
                    "TensorFlow 2.11 or later; there, use `optimizer.learning_rate`",
            target="2.4",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        if not model.imports.imports_any("tensorflow", "keras", "tf_keras"):
            return
        calls = [(site.call, site.in_class) for site in model.calls if site.qualified_name is None]
        seen: set[cst.Call] = set()
        for call, in_class in calls:
            func = call.func
            if call in seen or not isinstance(func, cst.Attribute):
                continue
            seen.add(call)
            replacement = _PRIVATE.get(func.attr.value)
            if replacement is None or _is_self_or_super(func.value):
                continue
            if in_class is not None and _defines_optimizer(in_class, model):
                continue
            public, works_on_keras2 = replacement
            target = model.target
            fails = target.keras_major == 3 or target.is_from(_REMOVED_FROM)
            removed = f"`{func.attr.value}` is private optimizer API that Keras 3 (and the TF 2.11 optimizer) removed"
            if fails:
                message = f"{removed}: it raises AttributeError on {target.describe_tensorflow()}; use {public}"
            else:
                advice = f"use {public}" if works_on_keras2 else f"there, use {public}"
                message = (f"{removed}: it works on {target.describe_tensorflow()} and raises AttributeError after "
                           f"an upgrade to TensorFlow 2.11 or later; {advice}")
            ctx.report(func.attr, message, impact=fails_from(fails))
