"""Small questions about libcst nodes that the model and the rules share (no interpretation)."""
from __future__ import annotations

import ast
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


def aligned(cst_block: Sequence[cst.CSTNode], ast_block: list[ast.stmt]
            ) -> list[tuple[cst.CSTNode, list[ast.stmt]]] | None:
    """Each libcst statement of a block with the CPython ast statements it holds (a
    `SimpleStatementLine` holds one per small statement); None when the two do not line up."""
    pairs = []
    index = 0
    for statement in cst_block:
        size = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        if index + size > len(ast_block):
            return None
        pairs.append((statement, ast_block[index:index + size]))
        index += size
    return pairs if index == len(ast_block) else None


def is_bool(value: cst.BaseExpression | None) -> bool:
    """A literal `True` or `False`."""
    return isinstance(value, cst.Name) and value.value in ("True", "False")


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


def ancestors(tree: cst.CSTNode, node: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes of `tree` around `node` (code, not layout: `nodes_of`), outermost first (`tree`
    first, `node` itself last); None when `node` is not in `tree`."""
    parents = _parents_in(tree)
    if node is not tree and id(node) not in parents:
        return None
    around = [node]
    while around[-1] is not tree:
        around.append(parents[id(around[-1])])
    around.reverse()
    return around


def innermost(tree: cst.CSTNode, node: cst.CSTNode, kind: type | tuple[type, ...],
              default: cst.CSTNode | None = None) -> cst.CSTNode | None:
    """The closest node of `kind` around `node` in `tree` (`node` itself included), else `default`
    (the function whose code holds a call: `innermost(module, call, cst.FunctionDef, module)`)."""
    return next((around for around in reversed(ancestors(tree, node) or ()) if isinstance(around, kind)), default)


#: The last trees asked about, each with its nodes' parents (by id: the tree, held here, keeps
#: its nodes alive). One check asks about the same module many times; a walk of the module per
#: question made a 1,000-line module's check take seconds.
_PARENT_MAPS: list[tuple[cst.CSTNode, dict[int, cst.CSTNode]]] = []


def _parents_in(tree: cst.CSTNode) -> dict[int, cst.CSTNode]:
    for known, parents in _PARENT_MAPS:
        if known is tree:
            return parents
    parents = {}
    stack = [tree]
    while stack:
        parent = stack.pop()
        for name in _code_fields(type(parent)):
            child = getattr(parent, name)
            for item in child if isinstance(child, (list, tuple)) else (child,):
                if isinstance(item, cst.CSTNode):
                    parents[id(item)] = parent
                    stack.append(item)
    _PARENT_MAPS.insert(0, (tree, parents))
    del _PARENT_MAPS[4:]
    return parents


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


def statements_in_order(tree: cst.CSTNode, kind: type) -> list:
    """Every statement of type `kind` in `tree`, in source order (a compound statement's fields
    come in the order its parts are written: an `if`'s test, body, `else`)."""
    found = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if type(node) is kind:
            found.append(node)
        children = []
        for name in _code_fields(type(node)):
            child = getattr(node, name)
            if isinstance(child, cst.CSTNode):
                children.append(child)
            elif isinstance(child, (list, tuple)):
                children.extend(item for item in child if isinstance(item, cst.CSTNode))
        stack.extend(reversed(children))
    return found


def runs_once(loop: cst.For) -> bool:
    """Does the loop's body end in a `break` that nothing in the body can skip (no `continue`)?
    Then it reads one element."""
    statements = block_body(loop.body)
    last = statements[-1] if statements else None
    if not (isinstance(last, cst.SimpleStatementLine) and any(isinstance(small, cst.Break) for small in last.body)):
        return False
    return not any(isinstance(node, cst.Continue) for stmt in statements for node in nodes_of(stmt, cst.Continue))
