"""Positions for findings: line and column of the nodes rules report, computed beside the engine.

libcst computes positions by regenerating code, which costs about as much as parsing. The model's
one traversal records, for each node a rule may report, the top-level statement that holds it
(`StatementIndex`); only those statements are regenerated, each alone, and shifted to the line
CPython's `ast` says it starts on.
"""
from __future__ import annotations

import ast

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

#: Node -> the top-level statement of the module that holds it; filled by `PipelineModel.build`.
StatementIndex = dict[cst.CSTNode, cst.CSTNode]


def statement_start_lines(module: cst.Module, tree: ast.Module) -> list[int] | None:
    """The first line of each top-level libcst statement, read off CPython's (fast) ast.

    A libcst `SimpleStatementLine` holds one ast statement per small statement; a decorated
    definition starts at its first decorator. None when the two trees do not line up.
    """
    body = tree.body
    starts = []
    index = 0
    for stmt in module.body:
        if index >= len(body):
            return None
        node = body[index]
        decorators = getattr(node, "decorator_list", None)
        starts.append(decorators[0].lineno if decorators else node.lineno)
        index += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
    return starts if index == len(body) else None


def node_positions(module: cst.Module, tree: ast.Module, nodes: set[cst.CSTNode],
                   statement_of: StatementIndex) -> dict[cst.CSTNode, CodeRange]:
    """Positions of `nodes`. Computing them means regenerating code, which costs about as much
    as parsing; so only the top-level statements holding the nodes are regenerated, each as a
    module of its own, and shifted to the line where it starts."""
    tops = {statement_of.get(node) for node in nodes}
    starts = None if None in tops else statement_start_lines(module, tree)
    if starts is None:
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    index_of = {id(stmt): i for i, stmt in enumerate(module.body)}
    found: dict[cst.CSTNode, CodeRange] = {}
    for top in tops:
        alone = cst.Module(body=[top.with_changes(leading_lines=())],
                           default_indent=module.default_indent,
                           default_newline=module.default_newline)
        shift = starts[index_of[id(top)]] - 1
        for node, span in MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider).items():
            if node in nodes:
                found[node] = CodeRange(CodePosition(span.start.line + shift, span.start.column),
                                            CodePosition(span.end.line + shift, span.end.column))
    return found
