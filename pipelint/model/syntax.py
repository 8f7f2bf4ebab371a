"""Small questions about libcst nodes that the model and the rules share (no interpretation)."""
from __future__ import annotations

import dataclasses
from typing import Iterable, Sequence

import libcst as cst


def find_arg(call: cst.Call, keyword: str | None, position: int | None = None) -> cst.Arg | None:
    for arg in call.args:
        if keyword is not None and arg.keyword is not None and arg.keyword.value == keyword:
            return arg
    if position is not None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) > position:
            return positional[position]
    return None


def literal_int(expr: cst.BaseExpression | None) -> int | None:
    if isinstance(expr, cst.Integer):
        try:
            return int(expr.value.replace("_", ""), 0)
        except ValueError:
            return None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = literal_int(expr.expression)
        return -inner if inner is not None else None
    return None


def is_false(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


def is_none(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def dotted(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted(expr.value)
        return f"{base}.{expr.attr.value}" if base else None
    return None


def block_body(block: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    if isinstance(block, cst.IndentedBlock):
        return block.body
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=block.body)]
    return ()


def blocks_of(stmt: cst.If | cst.Try) -> Iterable[Sequence[cst.CSTNode]]:
    if isinstance(stmt, cst.If):
        yield block_body(stmt.body)
        orelse = stmt.orelse
        while orelse is not None:
            yield block_body(orelse.body)
            orelse = orelse.orelse if isinstance(orelse, cst.If) else None
    else:
        yield block_body(stmt.body)
        for handler in stmt.handlers:
            yield block_body(handler.body)


def all_params(params: cst.Parameters) -> list[cst.Param]:
    return list(params.posonly_params) + list(params.params) + list(params.kwonly_params)


def unquote(expr: cst.BaseExpression) -> cst.BaseExpression:
    """A string annotation (`"tf.data.Dataset"`) as the expression it spells."""
    if isinstance(expr, cst.SimpleString):
        try:
            return cst.parse_expression(expr.evaluated_value)
        except Exception:
            return expr
    return expr


class _Ancestors(cst.CSTVisitor):
    """The nodes around one node, outermost first (the node itself last)."""

    def __init__(self, target: cst.CSTNode) -> None:
        self.target = target
        self.stack: list[cst.CSTNode] = []
        self.found: list[cst.CSTNode] | None = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.found is not None:
            return False
        self.stack.append(node)
        if node is self.target:
            self.found = list(self.stack)
            return False
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()


def ancestors(tree: cst.CSTNode, node: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes of `tree` around `node`, outermost first (`tree` first, `node` itself last);
    None when `node` is not in `tree`."""
    finder = _Ancestors(node)
    tree.visit(finder)
    return finder.found


# Fields that hold only whitespace, comments or punctuation (`nodes_of` skips them).
_LAYOUT_FIELDS = frozenset({"lpar", "rpar", "comma", "semicolon", "newline", "trailing_whitespace", "header",
                            "footer", "leading_lines", "lines_after_decorators"})
_CODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _code_fields(kind: type) -> tuple[str, ...]:
    names = _CODE_FIELDS.get(kind)
    if names is None:
        names = _CODE_FIELDS[kind] = tuple(
            spec.name for spec in dataclasses.fields(kind)
            if spec.name not in _LAYOUT_FIELDS and not spec.name.startswith("whitespace"))
    return names


def nodes_of(tree: cst.CSTNode, kind: type, prune: type | None = None) -> list:
    """Every node of type `kind` (code, not layout) in `tree`, `tree` included, in no particular
    order, without looking inside nodes of type `prune`. Walks the fields itself: libcst's
    visitor rebuilds every node it passes, which costs ~11x more on a whole module."""
    found = []
    stack = [tree]
    while stack:
        node = stack.pop()
        node_kind = type(node)
        if node_kind is prune:
            continue
        if node_kind is kind:
            found.append(node)
        for name in _code_fields(node_kind):
            child = getattr(node, name)
            if isinstance(child, cst.CSTNode):
                stack.append(child)
            elif isinstance(child, (list, tuple)):
                stack.extend(item for item in child if isinstance(item, cst.CSTNode))
    return found
