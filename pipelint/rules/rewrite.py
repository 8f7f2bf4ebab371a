"""Tree rewrites shared by the rules' fixes. Each returns a `NodeFix` that keeps the user's
formatting and comments: only the nodes named are replaced, with text derived from the originals."""
from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Applicability
from pipelint.rules.base import NodeFix


def add_keyword(call: cst.Call, keyword: str, value_code: str, applicability: Applicability,
                module: cst.Module) -> NodeFix | None:
    """`f(a)` -> `f(a, keyword=value)`, keeping a trailing comma and comments where they were."""
    positional_or_kw = [a for a in call.args]
    if not positional_or_kw:
        return NodeFix(applicability, ((call, module.code_for_node(call.with_changes(
            args=[cst.Arg(cst.parse_expression(value_code), keyword=cst.Name(keyword),
                          equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))]))),))
    last = call.args[-1]
    if last.star:  # `f(*args)` then a keyword is fine, `f(**kw)` then keyword is fine too
        pass
    text = module.code_for_node(last.value) + f", {keyword}={value_code}"
    return NodeFix(applicability, ((last.value, text),))


def append_call(expr: cst.BaseExpression, method_code: str, applicability: Applicability,
                module: cst.Module) -> NodeFix:
    """`expr` -> `expr.method_code`; `expr` is a call or a name, so no parentheses are needed."""
    return NodeFix(applicability, ((expr, module.code_for_node(expr) + "." + method_code),))


def swap_adjacent(outer: cst.Call, applicability: Applicability, module: cst.Module) -> NodeFix | None:
    """`x.a(A).b(B)` (outer is the `.b` call) -> `x.b(B).a(A)`; None when not one chain."""
    if not isinstance(outer.func, cst.Attribute):
        return None
    inner = outer.func.value
    if not (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute)):
        return None
    moved_first = outer.with_changes(func=outer.func.with_changes(value=inner.func.value))
    swapped = inner.with_changes(func=inner.func.with_changes(value=moved_first))
    return NodeFix(applicability, ((outer, module.code_for_node(swapped)),))


def remove_call(call: cst.Call, applicability: Applicability, module: cst.Module) -> NodeFix | None:
    """`x.a(A)` -> `x`."""
    if not isinstance(call.func, cst.Attribute):
        return None
    return NodeFix(applicability, ((call, module.code_for_node(call.func.value)),))


def rename_attribute(name: cst.Name, new_name: str, applicability: Applicability) -> NodeFix:
    return NodeFix(applicability, ((name, new_name),))
