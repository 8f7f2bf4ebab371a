"""Facts about the function given to `map`/`interleave`/`filter`: does it call `py_function`,
draw randomness (also inside the Python function a `py_function` wraps), or only do cheap
element-wise work that does not depend on the element's shape?

Part of the `Interpreter` (see `frames`). `CallCollector` is the model's one collector of the
calls inside a function body.
"""
from __future__ import annotations

import libcst as cst

from pipelint.model.catalogue import ELEMENTWISE_CALLS, PY_FUNCTION_NAMES, SHAPE_BOUND_NAMES, is_random_name
from pipelint.model.frames import Frame, InterpreterState
from pipelint.model.syntax import find_arg
from pipelint.model.values import FunctionFacts, ObjectValue


class MappedFunctions(InterpreterState):
    def _function_facts(self, fn: cst.BaseExpression, frame: Frame, depth: int = 0,
                        partial: bool = False) -> FunctionFacts:
        body: cst.CSTNode | None = None
        if isinstance(fn, cst.Lambda):
            body = fn.body
        elif isinstance(fn, cst.Name):
            body = frame.locals_defs.get(fn.value) or self.functions.get(fn.value)
        elif isinstance(fn, cst.Call) and self.qualified_name(fn.func) == "functools.partial" and fn.args:
            return self._function_facts(fn.args[0].value, frame, depth, partial=True)
        elif (isinstance(fn, cst.Attribute) and isinstance(fn.value, cst.Name)
              and fn.value.value == "self" and frame.cls is not None):
            body = self.methods.get(frame.cls, {}).get(fn.attr.value)
        if body is None:
            return FunctionFacts()
        collector = CallCollector.of(body)
        py_function = None
        randomness: cst.CSTNode | None = None
        for call in collector.calls:
            name = self.qualified_name(call.func)
            if name in PY_FUNCTION_NAMES and py_function is None:
                py_function = call
            elif name is not None and is_random_name(name) and randomness is None:
                randomness = call
            elif name is None and isinstance(call.func, cst.Name):
                bound = frame.env.get(call.func.value)
                if isinstance(bound, ObjectValue) and bound.random and randomness is None:
                    randomness = call
                elif depth < 2 and call.func.value in self.functions and bound is None:
                    inner = self._function_facts(call.func, frame, depth + 1)
                    py_function = py_function or inner.py_function
                    randomness = randomness or inner.randomness
            elif name is None and isinstance(call.func, cst.Attribute):
                bound = self._eval_quiet(call.func.value, frame)
                if isinstance(bound, ObjectValue) and bound.random and randomness is None:
                    randomness = call
        for name_node in collector.names:
            bound = frame.env.get(name_node.value)
            if isinstance(bound, ObjectValue) and bound.random and randomness is None:
                randomness = name_node
        wrapped_randomness = self._wrapped_randomness(py_function) if depth == 0 else None
        # Only what is written at the call: a partial's bound arguments change what it returns.
        returned = returned_expression(fn, self.functions) if depth == 0 and not partial else None
        elementwise = shape_bound = False
        if returned is not None:
            inner_calls = collector if returned is body else CallCollector.of(returned)
            elementwise = all(self.qualified_name(c.func) in ELEMENTWISE_CALLS for c in inner_calls.calls)
            shape_bound = self._shape_bound(inner_calls)
        return FunctionFacts(True, py_function, randomness, wrapped_randomness, returned,
                             elementwise, shape_bound)

    def _wrapped_randomness(self, wrapper: cst.Call | None) -> cst.CSTNode | None:
        """Randomness in the module-level function a `py_function`/`numpy_function` wraps (one
        level: the model's facts otherwise stop at the wrapper)."""
        if wrapper is None:
            return None
        arg = find_arg(wrapper, "func", 0)
        if arg is None or not isinstance(arg.value, cst.Name):
            return None
        body = self.functions.get(arg.value.value)
        if body is None:
            return None
        for call in CallCollector.of(body).calls:
            name = self.qualified_name(call.func)
            if name is not None and is_random_name(name):
                return call
        return None

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
    """Every call in a body, every bare name passed as an argument, and every subscript."""

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
