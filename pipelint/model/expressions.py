"""Expressions and calls: what each expression evaluates to, and what each call means.

Part of the `Interpreter` (see `frames`). A method chain is only a dataset when its root is one
or the chain carries tf.data-only evidence; calls to local helpers are inlined.
"""
from __future__ import annotations

import re

from contextlib import contextmanager
from typing import Iterator

import libcst as cst

from pipelint.model.catalogue import (
    DATASET_METHODS, ITERATES_DATASET, OPTIMIZER_PREFIXES, PEEKING_CALLS, TFDATA_ONLY_METHODS, TRAINING_METHODS,
)
from pipelint.model.frames import Frame, InterpreterState
from pipelint.model.syntax import all_params, dotted, find_arg, literal_int
from pipelint.model.values import (
    LITERALS, CallSite, ClassRef, Collection, Constant, DatasetPath, DatasetValue, Keywords, ObjectValue,
    TfdsBuilder,
    datasets_in, merge_values,
)


#: TF 1.x iterators over a dataset: made by a method of it, or by a function given it.
_TF1_ITERATOR_METHODS = frozenset({"make_one_shot_iterator", "make_initializable_iterator"})
_TF1_ITERATOR_FUNCTIONS = frozenset({
    f"tensorflow.{prefix}data.{name}" for prefix in ("", "compat.v1.")
    for name in ("make_one_shot_iterator", "make_initializable_iterator")})
# What a TF 1.x training graph is built with.
_TF1_TRAINING = re.compile(r"\.minimize\s*\(|\bgradients\s*\(|apply_gradients\s*\(|\w*[Oo]ptimizer\w*\s*\(|"
                           r"\btrain_op\b|GradientTape")
# A loop that may run many times: any `while`, any `for` but one over `range(<one digit>)`.
_TF1_MANY_READS = re.compile(r"\bwhile\b|\bfor\b(?!\s+\w+\s+in\s+range\(\s*\d\s*\))")

# Builtins that read what a dataset says of itself, not its elements.
DESCRIBING_BUILTINS = frozenset({"print", "type", "repr", "str", "len", "id", "isinstance"})


class Expressions(InterpreterState):

    def _tf1_iteration_kind(self, frame: Frame) -> str:
        """A TF 1.x iterator (`ds.make_one_shot_iterator()`) made in a function, or module, that
        trains (`optimizer.minimize(loss)`, `tf.gradients`, a train op): its `get_next()` feeds the
        steps, as a loop over the dataset would ("iter"); elsewhere it reads the data ("pass":
        a benchmark of iterators, a conversion), or, where no loop may run it more than a few
        times, looks at a few elements ("peek": `print(sess.run(next_element))`)."""
        function = frame.function
        key = id(function)
        known = self._tf1_iteration_kinds.get(key)
        if known is None:
            home = self._where
            text = self.module.code_for_node(function) if function is not None \
                else self.model.source if home is None else getattr(home, "text", "")
            known = self._tf1_iteration_kinds[key] = "iter" if _TF1_TRAINING.search(text) is not None \
                else "pass" if _TF1_MANY_READS.search(text) is not None else "peek"
        return known

    def _eval(self, expr: cst.BaseExpression, frame: Frame) -> object:
        value = self._eval_expression(expr, frame)
        if expr in self._evidence_roots and not isinstance(value, DatasetValue):
            # A user's own class with tf.data-like method names is not a dataset.
            local = (isinstance(value, ObjectValue) and value.local_class) or self._is_local_instance(expr)
            if not local:
                value = DatasetValue((DatasetPath(self._origin(expr, "unknown", parameter_of=self._parameter_owner(expr)), ()),))
        return value

    def _parameter_owner(self, expr: cst.BaseExpression) -> str | None:
        """The function whose parameter `expr` is, in that function's own (not inlined) run."""
        frame = self._frame
        if (isinstance(expr, cst.Name) and frame is not None and not frame.inlined
                and frame.function is not None
                and any(p.name.value == expr.value for p in all_params(frame.function.params))):
            return frame.function.name.value
        return None

    def _is_local_instance(self, expr: cst.BaseExpression) -> bool:
        """`MyPipeline(...)` or `MyPipeline.from_files(...)`: made by a class of this module."""
        if not isinstance(expr, cst.Call):
            return False
        root = expr.func
        while isinstance(root, cst.Attribute):
            root = root.value
        return isinstance(root, cst.Name) and root.value in self._local_class_names

    def _eval_expression(self, expr: cst.BaseExpression, frame: Frame) -> object:
        if isinstance(expr, cst.Name):
            if expr.value in LITERALS and expr.value not in frame.env:
                return LITERALS[expr.value]
            if expr.value in frame.env:
                return frame.env[expr.value]
            return self._imported_dataset(expr) or self._class_ref(expr)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            inner = self._eval(expr.expression, frame)
            return Constant(not inner.value) if isinstance(inner, Constant) else None
        if isinstance(expr, cst.Call):
            return self._eval_call(expr, frame)
        if isinstance(expr, cst.Attribute):
            key = dotted(expr)
            if key is not None and key in frame.env:
                return frame.env[key]
            if frame.cls is not None and isinstance(expr.value, cst.Name) and expr.value.value == "self":
                stored = self._self_attributes.get((frame.cls, expr.attr.value))
                if stored is not None:  # set by another method of the class
                    return stored
            base = self._eval(expr.value, frame)
            if isinstance(base, DatasetValue) and expr.attr.value == "element_spec":
                self._consume("inspect", expr, base, expr.value)
                return None
            if expr.attr.value == "optimizer" and isinstance(base, ObjectValue) and base.kind is not None \
                    and not base.kind.startswith(OPTIMIZER_PREFIXES):
                return self._optimizer_of(base, frame)
            return self._imported_dataset(expr) or self._class_ref(expr)
        if isinstance(expr, cst.Subscript):
            base = self._eval(expr.value, frame)
            for element in expr.slice:
                if isinstance(element.slice, cst.Index):
                    self._eval(element.slice.value, frame)
            if isinstance(base, Keywords) and len(expr.slice) == 1 \
                    and isinstance(expr.slice[0].slice, cst.Index) \
                    and isinstance(expr.slice[0].slice.value, cst.SimpleString):
                return base.get(expr.slice[0].slice.value.evaluated_value)
            if isinstance(base, Collection):
                if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice):
                    return base  # `parts[1:]`: some of the same items, still a list
                if base.is_mapping:
                    return base.items[0] if base.items else None
                index = (literal_int(expr.slice[0].slice.value)
                         if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
                         else None)
                if index is not None and -len(base.items) <= index < len(base.items):
                    return base.items[index]
            return None
        if isinstance(expr, (cst.Tuple, cst.List)):
            return Collection(tuple(self._eval(e.value, frame) for e in expr.elements))
        if isinstance(expr, (cst.Lambda, cst.SimpleString, cst.Integer, cst.Float)):
            return None
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            # Comprehensions have their own scope; only record the calls they make, and a full
            # pass over a dataset they iterate (`[x.numpy() for x in ds]`).
            for dataset in datasets_in(self._eval(expr.for_in.iter, frame)):
                self._consume("pass", expr, dataset, expr.for_in.iter)
            self._eval_children(expr, frame)
            return None
        if isinstance(expr, cst.IfExp):
            self._eval(expr.test, frame)
            body = self._eval(expr.body, frame)
            orelse = self._eval(expr.orelse, frame)
            if isinstance(body, DatasetValue) and isinstance(orelse, DatasetValue):
                return body.merged(orelse)
            return body if isinstance(body, DatasetValue) else orelse
        if isinstance(expr, cst.Dict):
            entries = []
            for element in expr.elements:
                if isinstance(element, cst.DictElement):
                    self._eval(element.key, frame)
                    value = self._eval(element.value, frame)
                    if isinstance(element.key, cst.SimpleString):
                        entries.append((element.key.evaluated_value, value))
                else:
                    self._eval(element.value, frame)
            return Keywords(tuple(entries))
        if isinstance(expr, cst.NamedExpr):
            value = self._eval(expr.value, frame)
            self._bind(expr.target, value, frame, expr.value)
            return value
        self._eval_children(expr, frame)
        return None

    def _imported_dataset(self, expr: cst.Name | cst.Attribute) -> DatasetValue | None:
        """A dataset that another project module's top level binds, named here by an import
        (`from data import train_ds`; `import data` then `data.train_ds`)."""
        if self.project is None:
            return None
        qualified = self.qualified_name(expr)
        found = self.project.definition(qualified, dataset=True) if qualified is not None else None
        if found is None:
            return None
        home, name = found
        value = self._foreign_globals(home).get(name)
        return value if isinstance(value, DatasetValue) else None

    def _eval_children(self, node: cst.CSTNode, frame: Frame) -> None:
        # Fast paths for the common compound expressions; `children` is slow and generic.
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            self._eval(node.left, frame)
            self._eval(node.right, frame)
            return
        if isinstance(node, cst.Comparison):
            self._eval(node.left, frame)
            for target in node.comparisons:
                self._eval(target.comparator, frame)
            return
        if isinstance(node, cst.UnaryOperation):
            self._eval(node.expression, frame)
            return
        if isinstance(node, (cst.Set, cst.Dict)):
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    self._eval(element.key, frame)
                if hasattr(element, "value"):
                    self._eval(element.value, frame)
            return
        if isinstance(node, cst.FormattedString):
            for part in node.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    self._eval(part.expression, frame)
            return
        if isinstance(node, cst.ConcatenatedString):
            self._eval(node.left, frame)
            self._eval(node.right, frame)
            return
        if isinstance(node, (cst.SimpleString, cst.Ellipsis, cst.Imaginary)):
            return
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self._eval(child, frame)
            elif not isinstance(child, (cst.BaseStatement, cst.BaseSmallStatement)):
                self._eval_children(child, frame)

    def _project_receiver(self, qualified: str, cls: cst.ClassDef, home: object) -> tuple[cst.ClassDef, object]:
        """The class of another project module that an instance was made of (`loader.JpegLoader`),
        with its module: `cls`, the class defining the method called, may be one of its bases."""
        found = self.project.definition(qualified) if self.project is not None else None
        made = found[0].find(found[1]) if found is not None else None
        return (made, found[0]) if isinstance(made, cst.ClassDef) else (cls, home)

    def _eval_call(self, call: cst.Call, frame: Frame) -> object:
        func = call.func
        qualified = self.qualified_name(func)
        site = None
        if not frame.inlined:
            site = CallSite(call, qualified, frame.cls, frame.function)
            self.calls.append(site)
            self._locate(call, func, *call.args)
            if isinstance(func, cst.Attribute):
                self._locate(func.attr)
            for arg in call.args:
                self._locate(arg.value)
                if arg.keyword is not None:
                    self._locate(arg.keyword)
        # Method call on something we can evaluate.
        receiver_value: object = None
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if qualified is not None and method in DATASET_METHODS and self._imported_dataset(func.value) is not None:
            qualified = None  # `train_ds.cache()`, `train_ds` imported from a project module: its method
        if isinstance(func, cst.Attribute) and qualified is None:
            if method in DATASET_METHODS and call not in self._scanned_chain_calls:
                self._scan_chain_for_evidence(call)
            receiver_value = self._eval(func.value, frame)
            if site is not None:
                site.receiver = receiver_value
        arg_values = [self._eval(arg.value, frame) for arg in call.args]

        if self._exported_to is not None:
            own = self._exported_call(func)
            if own is not None and own in self._returned:
                self._importers_called.add(own)
                return self._returned[own]
        if arg_values and isinstance(arg_values[0], DatasetValue) and (qualified in ITERATES_DATASET or (
                qualified is None and isinstance(func, cst.Name) and func.value == "tqdm"
                and "tqdm" not in frame.env and "tqdm" not in frame.locals_defs)):
            return arg_values[0]  # `for x in tqdm(ds)` iterates `ds` (a star import may bring tqdm)
        if qualified in PEEKING_CALLS and arg_values:
            for dataset in datasets_in(arg_values[0]):
                self._consume("peek", call, dataset, call.args[0].value)
        if qualified in _TF1_ITERATOR_FUNCTIONS and arg_values:
            for dataset in datasets_in(arg_values[0]):
                self._consume(self._tf1_iteration_kind(frame), call, dataset, call.args[0].value)
            return None
        if qualified is not None:
            origin_value = self._constructor_value(call, qualified, frame, arg_values)
            if origin_value is not None:
                return origin_value
            if self.project is not None:
                target = self.project.lookup(qualified, any(datasets_in(v) for v in arg_values))
                if target is not None:
                    return self._call_foreign(target, call, arg_values, frame)
                if self.project.is_class(qualified):
                    return ObjectValue(call, None, frame.loops, project_class=qualified)
        if isinstance(func, cst.Name):
            name = func.value
            self._called_names.add(name)
            if name == "dict" and name not in frame.env:
                return Keywords(tuple((a.keyword.value, v) for a, v in zip(call.args, arg_values)
                                      if a.keyword is not None))
            bound_class = frame.env.get(name)
            if isinstance(bound_class, ClassRef):
                # `optimizer_class(lr)` with `optimizer_class = tf.keras.optimizers.Adam`
                return self._constructor_value(call, bound_class.kind, frame, arg_values)
            if name in DESCRIBING_BUILTINS and name not in frame.env:
                # `print(ds)`, `len(ds)`: the dataset's description or size, no element read
                for arg, value in zip(call.args, arg_values):
                    for dataset in datasets_in(value):
                        self._consume("inspect", call, dataset, arg.value)
            if name in ("iter", "enumerate", "zip", "list", "next") and name not in frame.env:
                if name == "iter":
                    for value in arg_values:
                        for dataset in datasets_in(value):
                            self._consume("iter", call, dataset, call.args[0].value)
                elif name == "next" and call.args:
                    # `next(iter(ds))`: one element, a look at the data, not a loop over it.
                    for consumer in self.consumers:
                        if consumer.kind == "iter" and consumer.node is call.args[0].value:
                            consumer.kind = "peek"
                elif name == "list" and arg_values:
                    for dataset in datasets_in(arg_values[0]):
                        self._consume("pass", call, dataset, call.args[0].value)
                if name == "enumerate" and arg_values and isinstance(arg_values[0], DatasetValue):
                    return arg_values[0]
                if name == "zip" and arg_values and all(isinstance(v, DatasetValue) for v in arg_values):
                    # Python's zip of datasets iterates each of them.
                    merged = arg_values[0]
                    for value in arg_values[1:]:
                        merged = merged.merged(value)
                    return merged
                return None
            helper = frame.locals_defs.get(name) or self.functions.get(name)
            if helper is not None and name not in frame.env:
                return self._inline(helper, call, arg_values, frame, frame.cls)
            if name in self._local_class_names and name not in frame.env:
                return self._instantiate(name, call, arg_values, frame)
            return None
        if method is None:
            return None
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value == "self" and frame.cls is not None):
            self._called_names.add(method)
            receiver = frame.receiver
            if receiver is not None and receiver[0] is not frame.cls:
                # A base class's method calling `self.method()`: the subclass's override runs.
                owner, home = receiver
                override = (home.methods if home is not None else self.methods).get(owner, {}).get(method)
                if override is not None:
                    with self._in_module(home):
                        return self._inline(override, call, arg_values, frame, owner, bound=True, receiver=receiver)
            helper = self.methods.get(frame.cls, {}).get(method)
            if helper is not None:
                return self._inline(helper, call, arg_values, frame, frame.cls, bound=True, receiver=receiver)
            return None
        if isinstance(receiver_value, DatasetValue) and method == "as_numpy_iterator":
            return receiver_value  # iterating it iterates the dataset
        if isinstance(receiver_value, DatasetValue) and method in _TF1_ITERATOR_METHODS:
            for dataset in datasets_in(receiver_value):
                self._consume(self._tf1_iteration_kind(frame), call, dataset, func.value)
            return None
        if method == "make_initializer" and arg_values:
            # `iterator.make_initializer(train_ds)`: a reinitializable TF 1.x iterator over it
            for dataset in datasets_in(arg_values[0]):
                self._consume(self._tf1_iteration_kind(frame), call, dataset, call.args[0].value)
        if isinstance(receiver_value, DatasetValue) and method in DATASET_METHODS:
            if method == "apply" and call.args:
                applied = self._apply_function(call.args[0].value, receiver_value, call, frame)
                if isinstance(applied, DatasetValue):
                    self._apply_op(receiver_value, method, call, frame)
                    return applied
            if method == "concatenate" and arg_values:
                # `a.concatenate(b)`: both inputs' paths go on through the concatenation.
                for dataset in datasets_in(arg_values[0]):
                    receiver_value = receiver_value.merged(dataset)
            return self._apply_op(receiver_value, method, call, frame)
        if isinstance(receiver_value, Collection) and method in ("append", "extend", "insert") \
                and arg_values and dotted(func.value) is not None:
            # `parts.append(ds)`: the list now holds that dataset too (one merged item).
            added = datasets_in(arg_values[-1]) if method == "extend" else [arg_values[-1]]
            merged = None
            for item in (*receiver_value.items, *added):
                merged = merge_values(merged, item)
            frame.env[dotted(func.value)] = Collection((merged,), is_mapping=True)
            return None
        if isinstance(receiver_value, ObjectValue) and receiver_value.project_class is not None:
            found = self.project.method(f"{receiver_value.project_class}.{method}",
                                        any(datasets_in(v) for v in arg_values))
            if found is not None:
                home, cls, helper = found
                self._class_homes[cls] = home
                with self._in_module(home):
                    result = self._inline(helper, call, arg_values, frame, cls, bound=True,
                                          receiver=self._project_receiver(receiver_value.project_class, cls, home))
                if result is not None:
                    return result
        if isinstance(receiver_value, ObjectValue) and receiver_value.cls is not None:
            # `trainer.train(ds)`: a method of the instance's class (of this module or another
            # project module), run with the call's values.
            home = self._class_homes.get(receiver_value.cls)
            methods = home.methods if home is not None else self.methods
            helper = methods.get(receiver_value.cls, {}).get(method)
            if helper is not None:
                self._called_names.add(method)
                with self._in_module(home):
                    result = self._inline(helper, call, arg_values, frame, receiver_value.cls, bound=True,
                                          receiver=(receiver_value.cls, home))
                if result is not None:
                    return result
        if isinstance(receiver_value, TfdsBuilder) and method == "as_dataset":
            return self._tfds_result(call, self._origin(call, "tensorflow_datasets.builder.as_dataset"))
        if isinstance(receiver_value, DatasetValue) and method == "cardinality":
            self._consume("inspect", call, receiver_value, func.value)
        elif method == "adapt" and arg_values:
            # `layer.adapt(ds)`: one pass to build a vocabulary or statistics.
            arg = find_arg(call, "data", 0)
            if arg is not None:
                for dataset in datasets_in(arg_values[call.args.index(arg)]):
                    self._consume("adapt", call, dataset, arg.value)
        if method in TRAINING_METHODS:
            self._record_training_call(call, method, arg_values)
        elif method == "compile":
            self._record_compile(call, receiver_value, arg_values, frame)
        elif method == "experimental_distribute_dataset" and arg_values:
            for dataset in datasets_in(arg_values[0]):
                self._consume("distribute", call, dataset, call.args[0].value)
            return arg_values[0] if isinstance(arg_values[0], DatasetValue) else None
        else:
            self._called_names.add(method)
        if (isinstance(receiver_value, ObjectValue) and receiver_value.local_class) \
                or self._is_local_instance(call):
            # What a user's own class returns stays the user's own, however tf.data-like.
            return ObjectValue(call, None, frame.loops, local_class=True)
        return None

    def _call_foreign(self, target: tuple, call: cst.Call, arg_values: list[object], frame: Frame,
                      positional_values: list[object] | None = None) -> object:
        """A call into another project module: its function runs here, in its own module's names;
        the ops it applies keep that module (`Op.where`) so that findings name it."""
        home, node = target
        with self._in_module(home):
            if isinstance(node, cst.ClassDef):
                self._class_homes[node] = home
                return self._instantiate_class(node, call, arg_values, frame)
            return self._inline(node, call, arg_values, frame, None, positional_values=positional_values)

    def _apply_function(self, fn: cst.BaseExpression, receiver: DatasetValue, call: cst.Call,
                        frame: Frame) -> object:
        """`ds.apply(prepare)`: `prepare(ds)`, when `prepare` is a function of the project."""
        if isinstance(fn, cst.Name) and fn.value not in frame.env:
            helper = frame.locals_defs.get(fn.value) or self.functions.get(fn.value)
            if helper is not None:
                self._called_names.add(fn.value)
                return self._inline(helper, call, [], frame, frame.cls, positional_values=[receiver])
        qualified = self.qualified_name(fn)
        target = self.project.lookup(qualified) if self.project is not None and qualified else None
        if target is not None and isinstance(target[1], cst.FunctionDef):
            return self._call_foreign(target, call, [], frame, positional_values=[receiver])
        return None

    @contextmanager
    def _in_module(self, home: object | None) -> Iterator[None]:
        """Run code of another project module (`home`; None or the current one: no change)."""
        if home is None or home is self._where:
            yield
            return
        saved = (self.imports, self.qualified_name, self.functions, self.methods, self.classes,
                 self._local_class_names, self._module_frame, self._where)
        self.imports, self.qualified_name = home.imports, home.imports.resolve
        self.functions, self.methods, self.classes = home.functions, home.methods, home.classes
        self._local_class_names, self._where = home.local_class_names, home
        self._module_frame = Frame(env={}, function=None, cls=None, locals_defs=dict(home.functions), where=home)
        try:
            yield
        finally:
            (self.imports, self.qualified_name, self.functions, self.methods, self.classes,
             self._local_class_names, self._module_frame, self._where) = saved

    def _class_ref(self, expr: cst.BaseExpression) -> ClassRef | None:
        """An optimizer class named, not called: kept so that calling the name later builds one."""
        qualified = self.qualified_name(expr)
        if qualified is not None and qualified.startswith(OPTIMIZER_PREFIXES) \
                and qualified.rsplit(".", 1)[-1][:1].isupper():
            return ClassRef(qualified)
        return None

    def _instantiate(self, name: str, call: cst.Call, arg_values: list[object], frame: Frame) -> object:
        """`MyClass(...)` for a class of this module. A subclass of `tf.data.Dataset` that builds
        itself in `__new__` (`return tf.data.Dataset.from_generator(...)`) is that dataset. A
        dataset handed to the constructor runs `__init__`, which may keep it on `self`."""
        cls = next((c for c in self.classes if c.name.value == name), None)
        return self._instantiate_class(cls, call, arg_values, frame)

    def _instantiate_class(self, cls: cst.ClassDef | None, call: cst.Call, arg_values: list[object],
                           frame: Frame) -> object:
        if cls is not None and any(datasets_in(value) for value in arg_values):
            init = self.methods.get(cls, {}).get("__init__")
            if init is not None:
                self._called_names.add("__init__")
                self._inline(init, call, arg_values, frame, cls, bound=True)
        if cls is not None:
            new = self.methods.get(cls, {}).get("__new__")
            if new is not None and any(self.qualified_name(base.value) == "tensorflow.data.Dataset"
                                       for base in cls.bases):
                self._called_names.add("__new__")
                value = self._inline(new, call, arg_values, frame, cls, bound=True)
                if isinstance(value, DatasetValue):
                    return value
        return ObjectValue(call, None, frame.loops, local_class=True, cls=cls)

    def _scan_chain_for_evidence(self, call: cst.Call) -> None:
        """Mark the root of a method chain as a dataset when the chain is unmistakably tf.data.

        Called on the outermost call of a chain, before its receivers are evaluated, so that the
        ops written before the tell-tale one (`x.map(f).prefetch(AUTOTUNE)`) are recorded too.
        """
        chain: list[cst.Call] = []
        node: cst.BaseExpression = call
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            chain.append(node)
            self._scanned_chain_calls.add(node)
            node = node.func.value
        if any(self._is_tfdata_evidence(c) for c in chain):
            self._evidence_roots.add(node)

    def _is_tfdata_evidence(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in TFDATA_ONLY_METHODS:
            return True
        for arg in call.args:
            if self.qualified_name(arg.value) == "tensorflow.data.AUTOTUNE":
                return True
            if isinstance(arg.value, cst.Name) and arg.value.value in ("AUTOTUNE", "AUTO"):
                return True
        return False

    def _eval_quiet(self, expr: cst.BaseExpression, frame: Frame) -> object:
        key = dotted(expr)
        return frame.env.get(key) if key else None
