"""Text edits shared by the rules' fixes. Each splices text between node anchors and copies the
untouched source verbatim, so multi-line chains keep their indentation, parentheses and comments."""
from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Applicability
from pipelint.rules.base import AnchoredEdit, NodeFix, SourceSlice


def _insert_after(node: cst.CSTNode, text: str) -> AnchoredEdit:
    return AnchoredEdit((node, "end"), (node, "end"), (text,))


def add_keyword(call: cst.Call, keyword: str, value_code: str, applicability: Applicability,
                module: cst.Module | None = None) -> NodeFix | None:
    """`f(a)` -> `f(a, keyword=value)`, keeping a trailing comma and comments where they were."""
    if not call.args:
        return None
    return NodeFix(applicability, edits=(_insert_after(call.args[-1].value, f", {keyword}={value_code}"),))


def append_call(expr: cst.BaseExpression, method_code: str, applicability: Applicability,
                module: cst.Module | None = None) -> NodeFix:
    """`expr` -> `expr.method_code`; inside any parentheses around `expr`."""
    return NodeFix(applicability, edits=(_insert_after(expr, "." + method_code),))


def swap_adjacent(outer: cst.Call, applicability: Applicability,
                  module: cst.Module | None = None) -> NodeFix | None:
    """`x.a(A).b(B)` (outer is the `.b` call) -> `x.b(B).a(A)`; None when not one chain."""
    if not isinstance(outer.func, cst.Attribute):
        return None
    inner = outer.func.value
    if not (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute)) or inner.lpar:
        return None
    # Swap `.a(A)` and `.b(B)` (dot to closing parenthesis) and keep what lies between them (line
    # breaks, comments) in place, so a comment stays on the line it annotated.
    first = SourceSlice((inner.func.dot, "start"), (inner, "end"))
    between = SourceSlice((inner, "end"), (outer.func.dot, "start"))
    second = SourceSlice((outer.func.dot, "start"), (outer, "end"))
    return NodeFix(applicability, edits=(
        AnchoredEdit((inner.func.dot, "start"), (outer, "end"), (second, between, first)),))


def remove_call(call: cst.Call, applicability: Applicability,
                module: cst.Module | None = None) -> NodeFix | None:
    """`x.a(A)` -> `x`."""
    if not isinstance(call.func, cst.Attribute):
        return None
    return NodeFix(applicability, edits=(AnchoredEdit((call.func.value, "end"), (call, "end"), ("",)),))


def rename_attribute(name: cst.Name, new_name: str, applicability: Applicability) -> NodeFix:
    return NodeFix(applicability, replacements=((name, new_name),))
