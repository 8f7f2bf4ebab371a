"""Facts about the function given to `map`/`interleave`/`filter`: does it call `py_function`,
draw randomness (also inside the Python function a `py_function` wraps), or only do cheap
element-wise work that does not depend on the element's shape?

Part of the `Interpreter` (see `frames`). `CallCollector` is the model's one collector of the
calls inside a function body.
"""
from __future__ import annotations

import re

from dataclasses import replace

import libcst as cst

from pipelint.model.catalogue import (
    DTYPE_AND_SHAPE_CALLS, ELEMENTWISE_CALLS, PY_FUNCTION_NAMES, SHAPE_BOUND_NAMES, STATELESS_TENSOR_METHODS,
    TENSOR_ARRAY_METHODS, TRACE_TIME_METHODS,
    TRACE_TIME_BUILTINS, WAITING_CALLS, is_costly_name, is_random_name, is_stateless_name,
    is_trace_time_random_name,
)
from pipelint.model.frames import Frame, InterpreterState
from pipelint.model.syntax import all_params, block_body, find_arg, is_bool, nodes_of, unquote
from pipelint.model.values import Collection, FunctionFacts, ObjectValue


class MappedFunctions(InterpreterState):
    def _function_facts(self, fn: cst.BaseExpression, frame: Frame, depth: int = 0,
                        partial: bool = False, call_site: cst.Call | None = None) -> FunctionFacts:
        body: cst.CSTNode | None = None
        instance: tuple[cst.ClassDef, cst.Call] | None = None
        if isinstance(fn, cst.Lambda):
            body = fn.body
        elif isinstance(fn, cst.Name):
            body = frame.locals_defs.get(fn.value) or self.functions.get(fn.value)
            if body is None and frame.env.get(fn.value) is None:
                bound_lambda = self.model.bound_once(fn.value)  # `drop = lambda x, y: x`
                if isinstance(bound_lambda, cst.Lambda):
                    return self._function_facts(bound_lambda, frame, depth, partial)

            # (the text first: the module's assignments are collected only where a factory of this
            # module or class may make it)
            made_by = self.model.bound_once(fn.value) if body is None and self._maybe_made(fn.value, frame) else None
            if isinstance(made_by, cst.Call) and not partial and depth < 2 \
                    and self._factory_of(made_by, frame) is not None:
                # `transform_map = self._get_transform_map(t)`, then `ds.map(transform_map)`
                return self._function_facts(made_by, frame, depth, partial)
            bound = frame.env.get(fn.value)
            if body is None and isinstance(bound, ObjectValue) and bound.cls is not None \
                    and isinstance(bound.node, cst.Call):
                instance = (bound.cls, bound.node)  # `preprocess = Preprocess(train=True)`
        elif isinstance(fn, cst.Call) and self.qualified_name(fn.func) == "functools.partial" and fn.args:
            return self._function_facts(fn.args[0].value, frame, depth, partial=True)
        elif isinstance(fn, cst.Call) and not partial and depth < 2 and self._factory_of(fn, frame) is not None:
            # `ds.map(parse_fn(224))`: the factory returns an inner function; judge that one's body
            factory = self._factory_of(fn, frame)
            made, nested = _made_function(factory)
            inner = Frame(env=dict(frame.env), function=factory, cls=frame.cls,
                          locals_defs={**frame.locals_defs, **nested}, where=frame.where)
            return self._function_facts(made, inner, depth, partial)
        elif isinstance(fn, cst.Call) and isinstance(fn.func, cst.Name) and fn.func.value in self._local_class_names:
            cls = next((c for c in self.classes if c.name.value == fn.func.value), None)
            if cls is not None:
                instance = (cls, fn)  # `ds.map(Preprocess(train=True))`
        elif (isinstance(fn, cst.Attribute) and isinstance(fn.value, cst.Name)
              and fn.value.value == "self" and frame.cls is not None):
            body = self.methods.get(frame.cls, {}).get(fn.attr.value)
            if body is None:
                inherited = self._inherited_method(frame.cls, fn.attr.value)
                if inherited is not None:
                    home, cls, method = inherited
                    return self._facts_elsewhere(home, method, cls, depth, partial)
        off: set[cst.CSTNode] = set()
        if instance is not None:
            # A callable object: its `__call__` is the mapped function; a branch on an attribute
            # the constructor call sets to a literal (`train=False`) is followed as that literal.
            body = self.methods.get(instance[0], {}).get("__call__")
            if body is not None:
                off = _switched_off(body, self.methods.get(instance[0], {}).get("__init__"), instance[1])
        if body is None:
            return self._project_facts(fn, depth, partial) or self._named_function_facts(fn, frame)
        if call_site is not None and isinstance(body, cst.FunctionDef):
            off |= switched_off_by_arguments(body, call_site)
        collector = self._collector(body)
        py_function = None
        randomness: cst.CSTNode | None = None
        stateful_call: cst.CSTNode | None = None
        trace_time_randomness: cst.CSTNode | None = None
        costly: cst.CSTNode | None = None
        traced = self._traced.get(body)
        if traced is None:
            traced = self._traced[body] = _TracedCalls.of(body, self.qualified_name)
        where, function = None, None

        def absorb(inner: FunctionFacts, call: cst.CSTNode) -> None:
            nonlocal py_function, randomness, stateful_call, trace_time_randomness, where, function, costly
            costly = costly or (call if inner.costly is not None else None)
            if where is None and inner.where is not None and (
                    (inner.py_function and not py_function) or (inner.randomness and not randomness)
                    or (inner.trace_time_randomness and not trace_time_randomness)
                    or (not inner.stateless and not stateful_call)):
                where, function = inner.where, inner.function  # its nodes are that module's
            py_function = py_function or inner.py_function
            randomness = randomness or inner.randomness
            trace_time_randomness = trace_time_randomness or inner.trace_time_randomness
            if not inner.stateless:
                stateful_call = stateful_call or inner.stateful_call or call

        if isinstance(body, cst.FunctionDef) and depth < 2:
            for decorator in body.decorators:
                # A decorator of this module (`@map_decorator`) wraps every call of the function.
                target = decorator.decorator
                if isinstance(target, cst.Name) and (target.value in self.functions
                                                     or target.value in frame.locals_defs):
                    absorb(self._function_facts(target, frame, depth + 1), decorator)
        for call in collector.calls:
            if call in off:
                continue
            name = self.qualified_name(call.func)
            proven = False  # does this call put only stateless ops into the graph?
            if costly is None and name is not None and is_costly_name(name):
                costly = call
            if name in PY_FUNCTION_NAMES and py_function is None:
                py_function = call
            elif name is not None and is_trace_time_random_name(name) and call in traced.calls:
                # Python runs once while tf.data traces the function: a constant in the graph.
                proven = True
                if trace_time_randomness is None and call not in traced.seeds:
                    trace_time_randomness = call
            elif name is not None and is_random_name(name) and randomness is None:
                randomness = call
            elif name is not None:
                proven = is_stateless_name(name)
                if not proven and depth < 2:
                    # `aug.augment(x)`: a function or a layer of another project module.
                    inner = self._project_facts(call.func, depth + 1)
                    if inner is not None:
                        absorb(inner, call)
                        proven = True  # (absorbed)
            elif isinstance(call.func, cst.Name):
                bound = frame.env.get(call.func.value)
                local = call.func.value in self.functions or call.func.value in frame.locals_defs
                if isinstance(bound, ObjectValue) and (bound.random or bound.kind is not None
                                                       and is_costly_name(bound.kind)):
                    costly = costly or call  # (an augmentation layer or model applied to the image)
                if isinstance(bound, ObjectValue) and bound.random and randomness is None:
                    randomness = call
                elif isinstance(bound, ObjectValue):
                    proven = bound.kind is not None and (is_stateless_name(bound.kind)  # a layer
                                                         or self._stateless_sequential(bound, frame))
                elif depth < 2 and bound is None and local:
                    absorb(self._function_facts(call.func, frame, depth + 1, call_site=call), call)
                    proven = True  # (absorbed)
                else:
                    proven = bound is None and not local and call.func.value in TRACE_TIME_BUILTINS
            elif isinstance(call.func, cst.Attribute):
                bound = self._eval_quiet(call.func.value, frame)
                if isinstance(bound, ObjectValue) and bound.random and randomness is None:
                    randomness = call
                elif (depth < 2 and isinstance(call.func.value, cst.Name) and call.func.value.value == "self"
                      and frame.cls is not None and (call.func.attr.value in self.methods.get(frame.cls, {})
                                                     or self._inherited_method(frame.cls, call.func.attr.value))):
                    absorb(self._function_facts(call.func, frame, depth + 1), call)
                    proven = True
                elif depth < 2 and isinstance(call.func.value, cst.Name) and (
                        method := self._annotated_method(call.func.value.value, call.func.attr.value, body, frame)):
                    # `anchors.generate_targets(...)` with `anchors: Anchors` a parameter: that class's method
                    home, cls, function = method
                    absorb(self._facts_elsewhere(home, function, cls, depth + 1, False), call)
                    proven = True
                elif depth < 2 and frame.cls is not None and isinstance(call.func.value, cst.Attribute) \
                        and isinstance(call.func.value.value, cst.Name) and call.func.value.value.value == "self" \
                        and (method := self._attribute_method(frame.cls, call.func.value.attr.value, call.func.attr.value)):
                    # `self.augmentations.normalize(...)` with `self.augmentations = Augmentation(...)`
                    home, cls, function = method
                    absorb(self._facts_elsewhere(home, function, cls, depth + 1, False), call)
                    proven = True
                else:
                    proven = (call.func.attr.value in TRACE_TIME_METHODS or call.func.attr.value in STATELESS_TENSOR_METHODS
                              or call.func.attr.value in TENSOR_ARRAY_METHODS
                              and isinstance(call.func.value, cst.Name)
                              and call.func.value.value in self._tensor_arrays(body, collector))
            if not proven and stateful_call is None:
                stateful_call = call
        for name_node in collector.names:
            bound = frame.env.get(name_node.value)
            if randomness is None and (
                    (isinstance(bound, ObjectValue) and bound.random)
                    or (isinstance(bound, Collection)
                        and any(isinstance(item, ObjectValue) and item.random for item in bound.items))):
                randomness = name_node
        wrapped_randomness = self._wrapped_randomness(py_function) if depth == 0 else None
        # Only what is written at the call: a partial's bound arguments change what it returns.
        returned = returned_expression(fn, self.functions) if depth == 0 and not partial else None
        elementwise = shape_bound = trivial = False
        if returned is not None:
            inner_calls = self._collector(returned)
            elementwise = all(self.qualified_name(c.func) in ELEMENTWISE_CALLS for c in inner_calls.calls)
            shape_bound = self._shape_bound(inner_calls)
            trivial = self._picks_or_casts(returned)
        elif depth == 0 and not partial and isinstance(body, cst.FunctionDef) and all(
                isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod")
                for d in body.decorators):
            trivial = self._only_picks_or_casts(body)
        if stateful_call is None and randomness is not None:
            stateful_call = randomness  # a random object's name handed to a call
        return FunctionFacts(True, py_function, randomness, wrapped_randomness, returned,
                             elementwise, shape_bound, trivial, stateful_call is None, stateful_call,
                             trace_time_randomness, self._wrapped_only_waits(py_function), where, function,
                             costly)

    def _collector(self, node: cst.CSTNode) -> "CallCollector":
        """`CallCollector.of(node)`, read once per node and build."""
        collector = self._collected.get(node)
        if collector is None:
            collector = self._collected[node] = CallCollector.of(node)
        return collector

    def _annotated_method(self, name: str, method: str, body: cst.CSTNode, frame: Frame
                          ) -> tuple[object | None, cst.ClassDef, cst.FunctionDef] | None:
        """Method `method` of the class that parameter `name` of the mapped function, or of the
        function that maps it, is annotated with (a class of this module or of the project):
        its module (None: this one), the class and the method."""
        functions = [f for f in (body, frame.function) if isinstance(f, cst.FunctionDef)]
        annotation = next((unquote(p.annotation.annotation) for f in functions for p in all_params(f.params)
                           if p.name.value == name and p.annotation is not None), None)
        return self._method_of_class(annotation, method) if annotation is not None else None

    def _method_of_class(self, cls_expr: cst.BaseExpression, method: str
                         ) -> tuple[object | None, cst.ClassDef, cst.FunctionDef] | None:
        """Method `method` of the class `cls_expr` names (one of this module's, or of the project's):
        its module (None: this one), the class and the method."""
        if isinstance(cls_expr, cst.Name) and cls_expr.value in self._local_class_names:
            cls = next(c for c in self.classes if c.name.value == cls_expr.value)
            found = self.methods.get(cls, {}).get(method)
            return (None, cls, found) if found is not None else None
        qualified = self.qualified_name(cls_expr) if self.project is not None else None
        found = self.project.definition(f"{qualified}.{method}") if qualified is not None else None
        if found is None:
            return None
        home, defined = found
        node, cls = home.find(defined), home.find(defined.partition(".")[0])
        if isinstance(node, cst.FunctionDef) and isinstance(cls, cst.ClassDef):
            return home, cls, node
        return None

    def _attribute_method(self, owner: cst.ClassDef, attribute: str, method: str
                          ) -> tuple[object | None, cst.ClassDef, cst.FunctionDef] | None:
        """Method `method` of the class whose instance `owner`'s methods store as `self.attribute`
        (`self.augmentations = Augmentation(...)`: one such assignment, a class of this module or
        of the project): its module (None: this one), the class and the method."""
        made = {id(assign.value): assign.value for assign in nodes_of(owner, cst.Assign)
                for target in assign.targets
                if isinstance(target.target, cst.Attribute) and isinstance(target.target.value, cst.Name)
                and target.target.value.value == "self" and target.target.attr.value == attribute}
        if len(made) != 1:
            return None  # (never stored, or stored more than once: which class is not sure)
        (value,) = made.values()
        return self._method_of_class(value.func, method) if isinstance(value, cst.Call) else None

    def _tensor_arrays(self, body: cst.CSTNode, collector: "CallCollector") -> frozenset[str]:
        """The names `body` binds to a `tf.TensorArray(...)` (its loop functions take the same name);
        read once per body."""
        known = self._tensor_array_names.get(body)
        if known is not None:
            return known
        if not any(self.qualified_name(call.func) == "tensorflow.TensorArray" for call in collector.calls):
            known = frozenset()
        else:
            known = frozenset(
                target.target.value for assign in nodes_of(body, cst.Assign) for target in assign.targets
                if isinstance(target.target, cst.Name) and isinstance(assign.value, cst.Call)
                and self.qualified_name(assign.value.func) == "tensorflow.TensorArray")
        self._tensor_array_names[body] = known
        return known

    def _maybe_made(self, name: str, frame: Frame) -> bool:
        """Does the text bind `name` to a call of a factory here (`name = self._get_map(...)`)?"""
        for found in re.finditer(rf"\b{re.escape(name)}\s*=\s*(self\.)?(\w+)\s*\(", self.model.source):
            callee = found.group(2)
            factory = (self.methods.get(frame.cls, {}).get(callee) if found.group(1) and frame.cls is not None
                       else frame.locals_defs.get(callee) or self.functions.get(callee))
            if factory is not None and _made_function(factory)[0] is not None:
                return True
        return False

    def _factory_of(self, call: cst.Call, frame: Frame) -> cst.FunctionDef | None:
        """The function of this module that `call` calls when it returns a function it defines
        (an inner `def` or a `lambda`): a map-function factory."""
        func = call.func
        if isinstance(func, cst.Name):
            factory = frame.locals_defs.get(func.value) or self.functions.get(func.value)
        elif (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
              and frame.cls is not None):
            factory = self.methods.get(frame.cls, {}).get(func.attr.value)  # `self._get_transform_map(t)`
        else:
            factory = None
        return factory if factory is not None and _made_function(factory)[0] is not None else None

    def _project_facts(self, fn: cst.BaseExpression, depth: int, partial: bool = False) -> FunctionFacts | None:
        """`fn` names a function or a layer of another project module (`from aug import augment`,
        `aug.augment`): the facts of its body, run in that module's names, or of what that
        module's top level binds the name to (`augment = keras.Sequential([RandomFlip()])`)."""
        called = fn.func if isinstance(fn, cst.Call) else None  # a factory of that module: `parse_fn(224)`
        qualified = self.qualified_name(called or fn) if self.project is not None else None
        found = self.project.definition(qualified) if qualified is not None else None
        if found is None:
            return None
        home, name = found
        node = home.find(name)
        if called is not None:
            made, nested = _made_function(node) if isinstance(node, cst.FunctionDef) and depth < 2 else (None, {})
            return self._made_elsewhere(home, node, made, nested, depth) if made is not None else None
        owner, _, method = name.partition(".")
        if isinstance(node, cst.FunctionDef):
            # `Record.split`: a method of the class itself, judged as a method (`cls`, `self`)
            cls = home.find(owner) if method else None
            return self._facts_elsewhere(home, node, cls if isinstance(cls, cst.ClassDef) else None, depth, partial)
        cls = home.find(owner) if node is None and method and "." not in method else None
        if isinstance(cls, cst.ClassDef):
            # `Record.split` with `split` a (class) method of a base class, there or further off
            with self._in_module(home):
                inherited = self._inherited_method(cls, method)
            if inherited is None:
                return None
            base_home, base, body = inherited
            return self._facts_elsewhere(base_home or home, body, base, depth, partial)
        if node is not None or not home.assigns(name):
            return None  # a class (what its instances do is not in sight here), or a name it imports
        layer = self._foreign_globals(home).get(name)
        if isinstance(layer, ObjectValue) and layer.random:
            return FunctionFacts(True, randomness=fn, stateful_call=fn, costly=fn)
        if isinstance(layer, ObjectValue) and layer.kind is not None and is_stateless_name(layer.kind):
            return FunctionFacts(True, stateless=True, costly=fn if is_costly_name(layer.kind) else None)
        return None

    def _made_elsewhere(self, home: object, factory: cst.FunctionDef, made: cst.BaseExpression,
                        nested: dict[str, cst.FunctionDef], depth: int) -> FunctionFacts:
        """The facts of the function that `factory`, a function of module `home`, makes."""
        with self._in_module(home):
            frame = Frame(env=dict(self._foreign_globals(home)), function=factory, cls=None,
                          locals_defs={**self.functions, **nested}, where=home)
            facts = self._function_facts(made, frame, depth)
        if facts.where is not None:
            return facts
        return replace(facts, where=home, function=nested.get(made.value, factory) if isinstance(made, cst.Name) else factory)

    def _facts_elsewhere(self, home: object | None, function: cst.FunctionDef,
                         cls: cst.ClassDef | None, depth: int, partial: bool) -> FunctionFacts:
        """The facts of `function` (of class `cls`), a function or method of module `home` (None:
        this one), judged by its body exactly as a function of this module is."""
        if home is not None:
            env = self._foreign_globals(home)
        else:
            env = self._module_frame.env if self._module_frame is not None else {}
        with self._in_module(home):
            frame = Frame(env=dict(env), function=None, cls=cls, locals_defs=dict(self.functions), where=home)
            facts = self._function_facts(
                cst.Attribute(cst.Name("self"), cst.Name(function.name.value)) if cls is not None
                else cst.Name(function.name.value), frame, depth, partial)
        if home is None or facts.where is not None:
            return facts
        return replace(facts, where=home, function=function)

    def _inherited_method(self, cls: cst.ClassDef, name: str, depth: int = 0
                          ) -> tuple[object | None, cst.ClassDef, cst.FunctionDef] | None:
        """Method `name` of a base class of `cls`, of this module or another project module (its
        module, None for this one; the class; the method)."""
        for base in cls.bases:
            base_name = base.value.value if isinstance(base.value, cst.Name) else None
            local = next((c for c in self.classes if c.name.value == base_name), None) \
                if base_name in self._local_class_names else None
            home = None
            if local is None and self.project is not None:
                qualified = self.qualified_name(base.value)
                found = self.project.definition(qualified) if qualified is not None else None
                if found is not None and isinstance(found[0].find(found[1]), cst.ClassDef):
                    home, local = found[0], found[0].find(found[1])
            if local is None:
                continue
            methods = home.methods if home is not None else self.methods
            method = methods.get(local, {}).get(name)
            if method is not None:
                return home, local, method
            if depth < 2:
                with self._in_module(home):
                    deeper = self._inherited_method(local, name, depth + 1)
                if deeper is not None:
                    return (deeper[0] or home, *deeper[1:])
        return None

    def _named_function_facts(self, fn: cst.BaseExpression, frame: Frame) -> FunctionFacts:
        """A function given by name whose body is not here: a library function (`map(tf.io.decode_png)`)
        or a layer object (`map(rescale)`); stateless when the catalogue says so."""
        bound = frame.env.get(fn.value) if isinstance(fn, cst.Name) else None
        if isinstance(bound, ObjectValue) and bound.random:
            return FunctionFacts(True, randomness=fn, stateful_call=fn, costly=fn)
        if isinstance(bound, ObjectValue):
            name = bound.kind
        elif isinstance(fn, (cst.Name, cst.Attribute)) and bound is None:
            name = self.qualified_name(fn)
        else:
            name = None
        if name is not None and is_random_name(name):
            return FunctionFacts(True, randomness=fn, stateful_call=fn,
                                 costly=fn if isinstance(bound, ObjectValue) or is_costly_name(name) else None)
        if name is not None and is_stateless_name(name):
            return FunctionFacts(True, stateless=True, costly=fn if is_costly_name(name) else None)
        # Not known: neither stateless nor deterministic (`known` stays False for the probe's
        # determinism question), only named in PL101's message.
        return FunctionFacts(stateful_call=fn if name is not None or isinstance(bound, ObjectValue) else None)

    def _only_picks_or_casts(self, func: cst.FunctionDef) -> bool:
        """A def whose statements only name such expressions and return one
        (`image = tf.cast(image, tf.float32) / 255.0; return image, label`)."""
        statements = block_body(func.body)
        if statements and isinstance(statements[0], cst.SimpleStatementLine) and \
                isinstance(statements[0].body[0], cst.Expr) and \
                isinstance(statements[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            statements = statements[1:]  # docstring
        if not statements or not isinstance(statements[-1], cst.SimpleStatementLine):
            return False
        *steps, last = [small for small in statements[-1].body]
        return (isinstance(last, cst.Return) and last.value is not None and self._picks_or_casts(last.value)
                and all(self._only_picks(stmt) for stmt in statements[:-1])
                and all(self._picking_step(step, ()) for step in steps))

    def _only_picks(self, statement: cst.BaseStatement, loop_names: tuple[str, ...] = ()) -> bool:
        """A statement that only binds picks: `x = d["a"]`, `out[key] = d[key]` in a `for key in
        FIELDS:` loop (a dict projection written as a loop), `if key in SKIP: continue`."""
        if isinstance(statement, cst.SimpleStatementLine):
            return all(self._picking_step(small, loop_names) for small in statement.body)
        if isinstance(statement, cst.For) and isinstance(statement.target, cst.Name) and statement.orelse is None \
                and self._picks_or_casts(statement.iter) and not statement.asynchronous:
            names = (*loop_names, statement.target.value)
            return all(self._only_picks(inner, names) for inner in block_body(statement.body))
        if isinstance(statement, cst.If) and statement.orelse is None and loop_names:
            return all(isinstance(inner, cst.SimpleStatementLine)
                       and all(isinstance(small, cst.Continue) for small in inner.body)
                       for inner in block_body(statement.body))
        return False

    def _picking_step(self, step: cst.BaseSmallStatement, loop_names: tuple[str, ...]) -> bool:
        if isinstance(step, cst.Continue):
            return bool(loop_names)
        if not isinstance(step, cst.Assign):
            return False

        def picked(expr: cst.BaseExpression) -> bool:
            if isinstance(expr, cst.Subscript) and loop_names and len(expr.slice) == 1 \
                    and isinstance(expr.slice[0].slice, cst.Index) \
                    and isinstance(expr.slice[0].slice.value, cst.Name) \
                    and expr.slice[0].slice.value.value in loop_names:
                return self._picks_or_casts(expr.value)  # `data[key]`, the loop's key
            return self._picks_or_casts(expr)

        def target_ok(target: cst.BaseExpression) -> bool:
            if isinstance(target, cst.Name):
                return True
            if isinstance(target, cst.Tuple):
                return all(isinstance(e.value, cst.Name) for e in target.elements)
            return isinstance(target, cst.Subscript) and picked(target)

        return all(target_ok(t.target) for t in step.targets) and picked(step.value)

    def _picks_or_casts(self, expr: cst.BaseExpression) -> bool:
        """Is `expr` made only of names, their items/attributes, tuples, dicts, casts, and a division
        (or a product) by a number?"""
        if isinstance(expr, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
            return True
        if isinstance(expr, (cst.Tuple, cst.List)):
            return all(not isinstance(e, cst.StarredElement) and self._picks_or_casts(e.value)
                       for e in expr.elements)
        if isinstance(expr, cst.Dict):
            return all(isinstance(e, cst.DictElement) and self._picks_or_casts(e.value) for e in expr.elements)
        if isinstance(expr, cst.Subscript):
            return self._picks_or_casts(expr.value) and all(
                isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.SimpleString, cst.Integer))
                for e in expr.slice)
        if isinstance(expr, cst.Attribute):
            return self._picks_or_casts(expr.value)
        if isinstance(expr, cst.BinaryOperation):  # normalizing: `/ 255`, `* 0.5`
            return ((isinstance(expr.operator, cst.Divide) and isinstance(expr.right, (cst.Integer, cst.Float))
                     or isinstance(expr.operator, cst.Multiply) and isinstance(expr.right, cst.Float))
                    and self._picks_or_casts(expr.left))
        if isinstance(expr, cst.Call):
            return (self.qualified_name(expr.func) in DTYPE_AND_SHAPE_CALLS and bool(expr.args)
                    and self._picks_or_casts(expr.args[0].value))
        return False

    def _stateless_sequential(self, bound: ObjectValue, frame: Frame) -> bool:
        """`keras.Sequential([Resizing(...), Rescaling(...)])`: a model made only of stateless
        layers adds only stateless ops."""
        if bound.kind not in ("keras.Sequential", "keras.models.Sequential") or not isinstance(bound.node, cst.Call):
            return False
        layers = find_arg(bound.node, "layers", 0)
        elements = getattr(layers.value, "elements", None) if layers is not None else None
        if not elements:
            return False
        for element in elements:
            value = element.value
            if isinstance(value, cst.Call):
                name = self.qualified_name(value.func)
                if name is None or not is_stateless_name(name):
                    return False
                continue
            layer = frame.env.get(value.value) if isinstance(value, cst.Name) else None
            if not (isinstance(layer, ObjectValue) and layer.kind is not None and is_stateless_name(layer.kind)):
                return False
        return True

    def _wrapped_function(self, wrapper: cst.Call | None) -> cst.Lambda | cst.FunctionDef | None:
        """The Python function a `py_function`/`numpy_function` wraps, when it is in sight: a
        lambda, or a module-level function of this module."""
        arg = find_arg(wrapper, "func", 0) if wrapper is not None else None
        if arg is None:
            return None
        if isinstance(arg.value, cst.Lambda):
            return arg.value
        return self.functions.get(arg.value.value) if isinstance(arg.value, cst.Name) else None

    def _wrapped_randomness(self, wrapper: cst.Call | None) -> cst.CSTNode | None:
        """Randomness in the module-level function a `py_function`/`numpy_function` wraps (one
        level: the model's facts otherwise stop at the wrapper; a lambda's calls are the
        function's own)."""
        body = self._wrapped_function(wrapper)
        if body is None or isinstance(body, cst.Lambda):
            return None
        for call in CallCollector.of(body).calls:
            name = self.qualified_name(call.func)
            if name is not None and is_random_name(name):
                return call
        return None

    def _wrapped_only_waits(self, wrapper: cst.Call | None) -> bool:
        """Does the Python function a `py_function`/`numpy_function` wraps only call `time.sleep`?
        (Standing in for I/O: it does not hold the GIL.)"""
        body = self._wrapped_function(wrapper)
        calls = CallCollector.of(body).calls if body is not None else []
        return bool(calls) and all(self.qualified_name(call.func) in WAITING_CALLS for call in calls)

    def _shape_bound(self, collected: "CallCollector") -> bool:
        for call in collected.calls:
            func = call.func
            name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
            if name in SHAPE_BOUND_NAMES:
                return True
        # `x[0]` / `x[:3]` index the element itself; on a batch they would pick examples.
        for subscript in collected.subscripts:
            for element in subscript.slice:
                inner = element.slice
                if isinstance(inner, cst.Slice) or (
                        isinstance(inner, cst.Index) and not isinstance(inner.value, cst.SimpleString)):
                    return True
        return False


class CallCollector(cst.CSTVisitor):
    """Every call in a body, every bare name passed as an argument or looped over, and every
    subscript."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.names: list[cst.Name] = []
        self.subscripts: list[cst.Subscript] = []

    @classmethod
    def of(cls, node: cst.CSTNode) -> "CallCollector":
        collector = cls()
        node.visit(collector)
        return collector

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Arg(self, node: cst.Arg) -> None:
        if isinstance(node.value, cst.Name):
            self.names.append(node.value)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.subscripts.append(node)

    def visit_For(self, node: cst.For) -> None:
        if isinstance(node.iter, cst.Name):  # `for layer in augmentation_layers: x = layer(x)`
            self.names.append(node.iter)

    def visit_Raise(self, node: cst.Raise) -> bool:
        # `raise NotImplementedError(...)`: Python that stops tracing, not an op in the graph
        return False



def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    """`CallCollector.of(node).calls`, in another order, at a fraction of the cost (`nodes_of`)."""
    return nodes_of(node, cst.Call, prune=cst.Raise)  # (not in `raise`: `CallCollector.visit_Raise`)

def _drawn_for_one_seed(root: cst.CSTNode) -> set[cst.Call]:
    """`seed = np.random.randint(2020)` in `root`, the name read once, as the `seed=` of one
    stateful op (`tf.image.random_crop(image, size, seed=seed)`), which draws per element anyway:
    a deliberate trace-time choice like an inline seed. (Read by two ops, it pairs them; given to a
    `stateless_` op, one constant seed freezes it: neither is only a seed.)"""
    if not isinstance(root, (cst.FunctionDef, cst.Lambda)) or isinstance(root, cst.Lambda):
        return set()
    chosen: set[cst.Call] = set()
    keywords = {id(arg.keyword) for arg in nodes_of(root.body, cst.Arg) if arg.keyword is not None}
    for assign in nodes_of(root.body, cst.Assign, prune=cst.FunctionDef):
        if not (isinstance(assign.value, cst.Call) and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)):
            continue
        name = assign.targets[0].target.value
        reads = [node for node in nodes_of(root.body, cst.Name) if node.value == name and id(node) not in keywords]
        seeding = [(call, arg) for call in nodes_of(root.body, cst.Call) for arg in call.args
                   if arg.keyword is not None and arg.keyword.value == "seed"
                   and isinstance(arg.value, cst.Name) and arg.value.value == name]
        if len(reads) == 2 and len(seeding) == 1 and "stateless" not in _callee_text(seeding[0][0].func):
            chosen.add(assign.value)
    return chosen


def _callee_text(func: cst.BaseExpression) -> str:
    parts = []
    while isinstance(func, cst.Attribute):
        parts.append(func.attr.value)
        func = func.value
    if isinstance(func, cst.Name):
        parts.append(func.value)
    return ".".join(reversed(parts))


class _TracedCalls(cst.CSTVisitor):
    """The calls a traced function makes while tf.data traces it: not those in the Python
    functions it hands to `py_function`/`numpy_function` (they run for every element), nor in
    nested functions (which may be handed anywhere); `seeds` are those that only pick a seed
    (`seed=np.random.randint(1000)`), a deliberate trace-time choice."""

    def __init__(self, root: cst.CSTNode, qualified_name) -> None:
        self.calls: set[cst.Call] = set()
        self.seeds: set[cst.Call] = set()
        self._root = root
        self._qualified_name = qualified_name
        self._seed_depth = 0

    @classmethod
    def of(cls, root: cst.CSTNode, qualified_name) -> "_TracedCalls":
        visitor = cls(root, qualified_name)
        root.visit(visitor)
        visitor.seeds |= _drawn_for_one_seed(root)
        return visitor

    def visit_Call(self, node: cst.Call) -> bool:
        self.calls.add(node)
        if self._seed_depth:
            self.seeds.add(node)
        return self._qualified_name(node.func) not in PY_FUNCTION_NAMES

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        # `@tf.py_function(Tout=...)` on the root: its body is Python run for every element.
        return node is self._root and not any(
            self._qualified_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
            in PY_FUNCTION_NAMES for d in node.decorators)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return node is self._root

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None and node.keyword.value == "seed":
            self._seed_depth += 1

    def leave_Arg(self, original_node: cst.Arg) -> None:
        if original_node.keyword is not None and original_node.keyword.value == "seed":
            self._seed_depth -= 1


def _switched_off(call_method: cst.FunctionDef, init: cst.FunctionDef | None,
                  construction: cst.Call) -> set[cst.CSTNode]:
    """Calls inside `if self.flag:` (or `if not self.flag:`) blocks of `__call__` that never run
    for this instance: `__init__` stores a parameter as `self.flag` and the constructor call passes
    a literal True/False for it (or leaves a literal default)."""
    if init is None:
        return set()
    params = all_params(init.params)[1:]
    flags: dict[str, bool] = {}
    for stmt in block_body(init.body):
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.value, cst.Name)):
                continue
            target = small.targets[0].target
            if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                    and target.value.value == "self"):
                continue
            index = next((i for i, p in enumerate(params) if p.name.value == small.value.value), None)
            if index is None:
                continue
            arg = find_arg(construction, small.value.value, index)
            value = arg.value if arg is not None else params[index].default
            if is_bool(value):
                flags[target.attr.value] = value.value == "True"
    return _calls_switched_off(call_method, flags, on_self=True)


def switched_off_by_arguments(function: cst.FunctionDef, call: cst.Call) -> set[cst.CSTNode]:
    """Calls inside `if flag:` (or `if not flag:`) blocks of `function` that never run for this
    call: it passes a literal True/False for the parameter `flag` (or leaves a literal default),
    as in `load_image(path, augment=False)`."""
    if any(arg.star for arg in call.args):
        return set()  # (`**options`: what it holds is not in sight)
    params = all_params(function.params)
    offset = 1 if params and params[0].name.value in ("self", "cls") else 0
    flags: dict[str, bool] = {}
    for index, param in enumerate(params[offset:]):
        arg = find_arg(call, param.name.value, index)
        value = arg.value if arg is not None else param.default
        if is_bool(value):
            flags[param.name.value] = value.value == "True"
    return _calls_switched_off(function, flags, on_self=False)


def _calls_switched_off(function: cst.FunctionDef, flags: dict[str, bool], on_self: bool) -> set[cst.CSTNode]:
    """The calls in the `if` blocks of `function` whose test is false for these literal `flags`
    (`flag`, `self.flag` when `on_self`, negated, compared with True/False, joined by and/or:
    `if evaluate == True and predict == False:`)."""
    off: set[cst.CSTNode] = set()
    if not flags:
        return off
    for kind in (cst.If, cst.IfExp):
        for node in nodes_of(function.body, kind):
            truth = _truth(node.test, flags, on_self)
            if truth is False:
                off.update(nodes_of(node.body, cst.Call))
            elif truth is True and node.orelse is not None:
                # (`else:`, `elif ...:`, or `x if flag else ImageDataGenerator(...)`: never taken)
                off.update(nodes_of(node.orelse, cst.Call))
    return off


def _truth(test: cst.BaseExpression, flags: dict[str, bool], on_self: bool) -> bool | None:
    """The value of `test` given the literal `flags`; None when it depends on anything else."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _truth(test.expression, flags, on_self)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left, right = _truth(test.left, flags, on_self), _truth(test.right, flags, on_self)
        if isinstance(test.operator, cst.And):
            return False if False in (left, right) else (True if left and right else None)
        return True if True in (left, right) else (False if left is False and right is False else None)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        value = _truth(test.left, flags, on_self)
        literal = target.comparator.value if isinstance(target.comparator, cst.Name) else None
        if value is None or literal not in ("True", "False"):
            return None
        same = value == (literal == "True")
        if isinstance(target.operator, (cst.Equal, cst.Is)):
            return same
        if isinstance(target.operator, (cst.NotEqual, cst.IsNot)):
            return not same
        return None
    if on_self and isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name) and test.value.value == "self":
        return flags.get(test.attr.value)
    if not on_self and isinstance(test, cst.Name):
        return flags.get(test.value)
    return None


def _made_function(factory: cst.FunctionDef) -> tuple[cst.BaseExpression | None, dict[str, cst.FunctionDef]]:
    """What a factory returns when every `return` of its own body gives the same inner `def` (by
    name) or a `lambda`, with the factory's inner defs; (None, {}) otherwise."""
    nested = {stmt.name.value: stmt for stmt in block_body(factory.body) if isinstance(stmt, cst.FunctionDef)}
    returned: list[cst.BaseExpression] = []
    for stmt in block_body(factory.body):
        if isinstance(stmt, cst.SimpleStatementLine):
            returned.extend(small.value for small in stmt.body if isinstance(small, cst.Return) and small.value)
    if len(returned) != 1:
        return None, {}
    made = returned[0]
    if isinstance(made, cst.Lambda) or (isinstance(made, cst.Name) and made.value in nested):
        return made, nested
    return None, {}


def returned_expression(fn: cst.BaseExpression,
                        functions: dict[str, cst.FunctionDef]) -> cst.BaseExpression | None:
    """The body of a lambda, or the returned expression of a module-level `def` that only returns."""
    if isinstance(fn, cst.Lambda):
        return fn.body
    if not isinstance(fn, cst.Name):
        return None
    func = functions.get(fn.value)
    if func is None or not isinstance(func.body, cst.IndentedBlock) or func.decorators:
        return None
    statements = list(func.body.body)
    if statements and isinstance(statements[0], cst.SimpleStatementLine) and \
            isinstance(statements[0].body[0], cst.Expr) and \
            isinstance(statements[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        statements = statements[1:]  # docstring
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    small = statements[0].body
    if len(small) != 1 or not isinstance(small[0], cst.Return) or small[0].value is None:
        return None
    return small[0].value
