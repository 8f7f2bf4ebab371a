"""Positions for findings: line and column of the nodes rules report, computed beside the engine.

libcst computes positions by regenerating code, which costs about as much as parsing. The model's
one traversal records, for each node a rule may report, the top-level statement that holds it
(`StatementIndex`); only those statements are regenerated, each alone, and shifted to the line
CPython's `ast` says it starts on.
"""
from __future__ import annotations

import ast
from typing import Sequence

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from pipelint.model.syntax import aligned, ancestors, block_body

#: Node -> the top-level statement of the module that holds it; filled by `PipelineModel.build`.
StatementIndex = dict[cst.CSTNode, cst.CSTNode]


def statement_start_lines(module: cst.Module, tree: ast.Module) -> list[int] | None:
    """The first line of each top-level libcst statement, read off CPython's (fast) ast: a
    decorated definition starts at its first decorator. None when the two trees do not line up."""
    pairs = aligned(module.body, tree.body)
    if pairs is None:
        return None
    starts = []
    for _, (node, *_) in pairs:
        decorators = getattr(node, "decorator_list", None)
        starts.append(decorators[0].lineno if decorators else node.lineno)
    return starts


def node_positions(module: cst.Module, tree: ast.Module, nodes: set[cst.CSTNode],
                   statement_of: StatementIndex) -> dict[cst.CSTNode, CodeRange]:
    """Positions of `nodes` (those of `module`; others get none). Computing them means
    regenerating code, which costs about as much as parsing; so only the statements holding the
    nodes are regenerated, each as a module of its own, and shifted to where CPython's ast says
    it starts: the innermost simple statement line (`ds = ds.map(f)`), else the top-level
    statement."""
    starts = statement_start_lines(module, tree)
    if starts is None:
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    index_of = {id(stmt): i for i, stmt in enumerate(module.body)}
    groups: dict[int, tuple[cst.BaseStatement, int, str, list[cst.CSTNode]]] = {}
    for node in nodes:
        around = ancestors(module, node)  # (code nodes: a comma a fix removes has none)
        place = _line_of(around, tree, module.default_indent) if around is not None else None
        if place is None:
            top = around[1] if around is not None and len(around) > 1 else statement_of.get(node)
            if top is None:
                # not code of this module's statements as the model saw them: a node of another
                # module's code, reached through a call into it, or one only libcst's own walk finds
                return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
            place = (top, starts[index_of[id(top)]], "")
        statement, line, column = place
        groups.setdefault(id(statement), (statement, line, column, []))[3].append(node)
    found: dict[cst.CSTNode, CodeRange] = {}
    for statement, line, indent, wanted in groups.values():
        alone = statement.with_changes(leading_lines=())
        if indent:
            # Regenerated at its own indentation, under a header line: libcst writes a block's
            # indentation into the statement's later lines too (inside brackets).
            alone = cst.If(test=cst.Name("_"), body=cst.IndentedBlock(body=[alone], indent=indent))
        spans = MetadataWrapper(cst.Module(body=[alone], default_indent=module.default_indent,
                                           default_newline=module.default_newline),
                                unsafe_skip_copy=True).resolve(PositionProvider)
        shift = line - (2 if indent else 1)
        for node in wanted:
            span = spans.get(node)
            if span is not None:
                found[node] = CodeRange(CodePosition(span.start.line + shift, span.start.column),
                                        CodePosition(span.end.line + shift, span.end.column))
    return found


def _line_of(around: list[cst.CSTNode], tree: ast.Module, default_indent: str
             ) -> tuple[cst.SimpleStatementLine, int, str] | None:
    """The innermost simple statement line in `around` (a node's ancestors, the module first),
    with the line CPython's ast gives it and its indentation; None when there is none, or when
    a block on the way does not line up with ast's."""
    statements = [n for n in around if isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement))]
    if not statements or not isinstance(statements[-1], cst.SimpleStatementLine):
        return None
    blocks: list[tuple[Sequence[cst.BaseStatement], list[ast.stmt]]] = [(around[0].body, tree.body)]
    for statement in statements:
        pairs = None
        for cst_block, ast_block in blocks:
            if any(s is statement for s in cst_block):
                pairs = aligned(cst_block, ast_block)
                break
        if pairs is None:
            return None
        ast_statement = next(nodes[0] for cst_statement, nodes in pairs if cst_statement is statement)
        if isinstance(statement, cst.SimpleStatementLine):
            indent = "".join(default_indent if block.indent is None else block.indent
                             for block in around if isinstance(block, cst.IndentedBlock))
            return statement, ast_statement.lineno, indent
        blocks = _inner_blocks(statement, ast_statement)
    return None


def _inner_blocks(statement: cst.BaseCompoundStatement, node: ast.stmt
                  ) -> list[tuple[Sequence[cst.BaseStatement], list[ast.stmt]]]:
    """The blocks of a compound statement, each beside ast's list of the same statements."""
    blocks = []
    if not isinstance(statement, cst.Match) and hasattr(node, "body"):
        blocks.append((block_body(statement.body), node.body))
    orelse = getattr(statement, "orelse", None)
    if isinstance(orelse, cst.If):
        blocks.append(([orelse], node.orelse))  # `elif`
    elif isinstance(orelse, cst.Else):
        blocks.append((block_body(orelse.body), node.orelse))
    if isinstance(statement, (cst.Try, cst.TryStar)):
        blocks += [(block_body(handler.body), handler_node.body)
                   for handler, handler_node in zip(statement.handlers, node.handlers)]
        if statement.finalbody is not None:
            blocks.append((block_body(statement.finalbody.body), node.finalbody))
    return blocks
