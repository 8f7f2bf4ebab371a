"""Keras facts: training calls (`fit`/`evaluate`/`predict` consumers), compile sites and the
objects they use, whether a layer or model draws randomness (`KerasFacts`, part of the
`Interpreter`, see `frames`); optimizers bound to one model, optimizer factories and `PyDataset`
classes (`KerasQueries`, part of `PipelineModel`).
"""
from __future__ import annotations

from typing import Callable

import libcst as cst

from pipelint.model.catalogue import LOADING_CALLS, is_model_bound_optimizer, is_pydataset_base, is_random_name
from pipelint.model.frames import Frame, InterpreterState
from pipelint.model.functions import CallCollector
from pipelint.model.syntax import find_arg
from pipelint.model.values import CallSite, Collection, CompileSite, DatasetValue, Keywords, ObjectValue


# What a `__getitem__` that only slices arrays in memory calls (`PipelineModel.only_slices`).
_CHEAP_BUILTINS = frozenset({"len", "range", "int", "float", "min", "max", "list", "tuple", "zip", "enumerate",
                             "slice", "sorted", "sum", "abs", "round", "divmod"})
_ARRAY_METHODS = frozenset({"astype", "reshape", "copy", "append", "extend", "tolist", "flatten", "squeeze",
                            "transpose"})


class KerasFacts(InterpreterState):
    def _builds_random(self, call: cst.Call, qualified: str, frame: Frame) -> bool:
        if is_random_name(qualified):
            return True
        if qualified in ("keras.Sequential", "keras.models.Sequential"):
            for arg in call.args:
                for element in getattr(arg.value, "elements", ()):
                    value = element.value
                    if isinstance(value, cst.Call):
                        name = self.qualified_name(value.func)
                        if name and is_random_name(name):
                            return True
                    bound = frame.env.get(value.value) if isinstance(value, cst.Name) else None
                    if isinstance(bound, ObjectValue) and bound.random:
                        return True
        return False

    def _record_training_call(self, call: cst.Call, method: str, arg_values: list[object]) -> None:
        for arg, value in zip(call.args, arg_values):
            keyword = arg.keyword.value if arg.keyword else None
            if keyword in (None, "x") and isinstance(value, DatasetValue):
                if keyword is None and arg is not next((a for a in call.args if a.keyword is None), None):
                    continue
                self._consume(method, call, value, arg.value)
            elif keyword == "validation_data" and isinstance(value, DatasetValue):
                self._consume("validation", call, value, arg.value)

    def _record_compile(self, call: cst.Call, receiver: object, arg_values: list[object],
                        frame: Frame) -> None:
        value: object = None
        arg = find_arg(call, "optimizer", 0)
        if arg is not None:
            value = arg_values[call.args.index(arg)]
        else:
            for candidate, candidate_value in zip(call.args, arg_values):
                if candidate.star == "**" and isinstance(candidate_value, Keywords):
                    value = candidate_value.get("optimizer")  # `compile(**train_config)`
        items = value.items if isinstance(value, Collection) and not value.is_mapping else (value,)
        optimizers = tuple(item for item in items if isinstance(item, ObjectValue))
        model = receiver if isinstance(receiver, ObjectValue) else None
        optimizer = optimizers[0] if optimizers else None
        if model is not None and optimizer is not None:
            self._model_optimizers.setdefault(model, optimizer)
        via = self._inline_calls[0] if self._inline_calls else None
        self.compiles.append(CompileSite(call, model, optimizer, frame.loops, frame.arms, optimizers, via))

    def _optimizer_of(self, model: ObjectValue, frame: Frame) -> ObjectValue:
        """`model.optimizer`: the object compiled into `model` here, else the one it came with."""
        known = self._model_optimizers.get(model)
        if known is None:
            known = self._model_optimizers[model] = ObjectValue(
                model.node, "keras.optimizers.Optimizer", model.loops, owner=model)
        return known


class KerasQueries:
    """The Keras questions rules ask of a built `PipelineModel` (mixed into it)."""

    functions: dict[str, cst.FunctionDef]
    methods: dict[cst.ClassDef, dict[str, cst.FunctionDef]]
    classes: list[cst.ClassDef]
    calls: list[CallSite]
    returns: dict[cst.FunctionDef, list[cst.BaseExpression]]
    assigned_attributes: dict[cst.FunctionDef, list[cst.Attribute]]
    qualified_name: Callable[[cst.BaseExpression], str | None]

    def is_model_bound_optimizer(self, value: ObjectValue) -> bool:
        """A Keras (2.11+/3) optimizer instance, built for one model's variables on first use:
        made by an optimizer class, or by a local factory whose every return makes one."""
        if is_model_bound_optimizer(value.kind):
            return True
        node = value.node
        if value.kind is None and isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            factory = self.functions.get(node.func.value)
            returned = self.returns.get(factory, []) if factory is not None else []
            return bool(returned) and all(
                isinstance(v, cst.Call) and is_model_bound_optimizer(self.qualified_name(v.func))
                for v in returned
            )
        return False

    def sequence_class_of(self, expr: cst.BaseExpression) -> tuple[str, cst.ClassDef, object | None] | None:
        """The `PyDataset`/`Sequence` class that `expr` instantiates (`Batches(paths)`, or a name
        bound once to that call): its name, its definition and, for a class of another project
        module (`from generators import DataGenerator`), that module (None for this one's)."""
        if isinstance(expr, cst.Name):
            expr = self.bound_once(expr.value)  # `train = Batches(...)`, then `fit(train)`
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        if isinstance(func, cst.Name):
            local = next((cls for cls in self.pydataset_classes() if cls.name.value == func.value), None)
            if local is not None:
                return func.value, local, None
        project = getattr(self, "project", None)
        qualified = self.qualified_name(func) if project is not None else None
        found = project.definition(qualified) if qualified is not None else None
        if found is None:
            return None
        home, name = found
        cls = home.find(name)
        if isinstance(cls, cst.ClassDef) and any(is_pydataset_base(home.imports.resolve(b.value)) for b in cls.bases):
            return name, cls, home
        return None

    def only_slices(self, cls: cst.ClassDef, home: object | None = None) -> bool:
        """Does `cls.__getitem__` (with the methods of `cls` it calls) only slice and stack arrays
        already in memory (builtins, NumPy, array methods)? Then a batch costs microseconds and
        more workers save little."""
        methods = (home.methods if home is not None else self.methods).get(cls, {})
        pending = [methods.get("__getitem__")]
        seen: set[str] = set()
        while pending:
            method = pending.pop()
            if method is None or method.name.value in seen:
                continue
            seen.add(method.name.value)
            for call in CallCollector.of(method.body).calls:
                func = call.func
                if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                    if func.attr.value not in methods:
                        return False  # (an attribute holding a function or a transform: not in sight)
                    pending.append(methods.get(func.attr.value))
                elif isinstance(func, cst.Name):
                    if func.value not in _CHEAP_BUILTINS:
                        return False
                elif isinstance(func, cst.Attribute):
                    root = func
                    while isinstance(root, cst.Attribute):
                        root = root.value
                    numpy = isinstance(root, cst.Name) and root.value in ("np", "numpy") and func.attr.value != "load"
                    if not (numpy or func.attr.value in _ARRAY_METHODS):
                        return False
                else:
                    return False
        return bool(seen)

    def loading_call(self, cls: cst.ClassDef, home: object | None = None) -> str | None:
        """The first call in `cls.__getitem__` (or a method of `cls` it calls) that reads or decodes
        data (`cv2.imread`, `Image.open`, `np.load`, `tf.io.read_file`...): what makes loading a batch
        cost more than slicing an array. `home`: the module of a class of another project module."""
        methods = (home.methods if home is not None else self.methods).get(cls, {})
        pending = [methods.get("__getitem__")]
        seen: set[str] = set()
        while pending:
            method = pending.pop()
            if method is None or method.name.value in seen or len(seen) > 4:
                continue
            seen.add(method.name.value)
            for call in CallCollector.of(method.body).calls:
                func = call.func
                last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
                if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                    pending.append(methods.get(last))
                    continue
                if last in LOADING_CALLS:
                    return " ".join(cst.Module([]).code_for_node(func).split())
        return None

    def pydataset_classes(self) -> list[cst.ClassDef]:
        """Classes of this module that subclass `keras.utils.PyDataset` (or `Sequence`)."""
        return [cls for cls in self.classes
                if any(is_pydataset_base(self.qualified_name(b.value)) for b in cls.bases)]

    def base_init_calls(self, cls: cst.ClassDef) -> list[cst.Call] | None:
        """The calls `cls.__init__` makes to a base class's `__init__` (`super().__init__(...)`, or
        `Base.__init__(self, ...)` shown without its `self`); None when `cls` has no `__init__`."""
        init = self.methods.get(cls, {}).get("__init__")
        if init is None:
            return None
        bases = set()
        for base in cls.bases:
            if isinstance(base.value, cst.Name):
                bases.add(base.value.value)
            elif isinstance(base.value, cst.Attribute):
                bases.add(base.value.attr.value)
        found = []
        for site in self.calls:
            node, func = site.call, site.call.func
            if site.function is not init or not isinstance(func, cst.Attribute) \
                    or func.attr.value != "__init__":
                continue
            receiver = func.value
            if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) \
                    and receiver.func.value == "super":
                found.append(node)
            elif isinstance(receiver, (cst.Name, cst.Attribute)):
                text = receiver.value if isinstance(receiver, cst.Name) else receiver.attr.value
                if text in bases and node.args:
                    found.append(node.with_changes(args=node.args[1:]))
        return found

    def sets_self_attribute(self, function: cst.FunctionDef, *names: str) -> bool:
        """Does `function`'s own body assign `self.<name>` for one of `names`?"""
        return any(
            target.attr.value in names and isinstance(target.value, cst.Name) and target.value.value == "self"
            for target in self.assigned_attributes.get(function, ())
        )
