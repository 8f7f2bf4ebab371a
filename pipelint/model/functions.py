"""Facts about the function given to `map`/`interleave`/`filter`: does it call `py_function`,
draw randomness, or only do cheap element-wise work?

Part of the `Interpreter` (see `frames`). `CallCollector` is the model's one collector of the
calls inside a function body.
"""
from __future__ import annotations

import libcst as cst

from pipelint.model.catalogue import CHEAP_CALLS, PY_FUNCTION_NAMES, is_random_name
from pipelint.model.frames import Frame, InterpreterState
from pipelint.model.syntax import block_body
from pipelint.model.values import FunctionFacts, ObjectValue


class MappedFunctions(InterpreterState):
    def _function_facts(self, fn: cst.BaseExpression, frame: Frame, depth: int = 0) -> FunctionFacts:
        body: cst.CSTNode | None = None
        if isinstance(fn, cst.Lambda):
            body = fn.body
        elif isinstance(fn, cst.Name):
            body = frame.locals_defs.get(fn.value) or self.functions.get(fn.value)
        elif isinstance(fn, cst.Call) and self.qualified_name(fn.func) == "functools.partial" and fn.args:
            return self._function_facts(fn.args[0].value, frame, depth)
        elif (isinstance(fn, cst.Attribute) and isinstance(fn.value, cst.Name)
              and fn.value.value == "self" and frame.cls is not None):
            body = self.methods.get(frame.cls, {}).get(fn.attr.value)
        if body is None:
            return FunctionFacts()
        collector = CallCollector()
        body.visit(collector)
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
        cheap = is_simple_function(body) and all(
            (self.qualified_name(c.func) or "") in CHEAP_CALLS for c in collector.calls
        )
        return FunctionFacts(True, py_function, randomness, cheap)


class CallCollector(cst.CSTVisitor):
    """Every call in a body, and every bare name passed as an argument."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.names: list[cst.Name] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Arg(self, node: cst.Arg) -> None:
        if isinstance(node.value, cst.Name):
            self.names.append(node.value)


def is_simple_function(body: cst.CSTNode) -> bool:
    """A lambda, or a def of a few assignments and a return: no loops, branches or nested defs."""
    if isinstance(body, cst.FunctionDef):
        statements = block_body(body.body)
        return 0 < len(statements) <= 4 and all(
            isinstance(stmt, cst.SimpleStatementLine)
            and all(isinstance(small, (cst.Return, cst.Assign, cst.Expr)) for small in stmt.body)
            for stmt in statements
        )
    return True  # a lambda body (an expression)
