"""Rules only query the model: no rule module walks the syntax tree itself."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = sorted((Path(__file__).resolve().parent.parent / "pipelint" / "rules").glob("pl*.py"))
# What a tree walk needs: a visitor or transformer class, or visiting / listing children.
_WALKING_ATTRIBUTES = {"visit", "children", "deep_replace", "deep_remove", "deep_clone"}


def tree_walks(source: str) -> list[str]:
    """Where `source` walks a libcst tree itself."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and any(
                ast.unparse(base).endswith(("Visitor", "Transformer")) for base in node.bases):
            found.append(f"line {node.lineno}: class {node.name}")
        if isinstance(node, ast.Attribute) and node.attr in _WALKING_ATTRIBUTES:
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


@pytest.mark.parametrize("module", RULES, ids=lambda p: p.stem)
def test_rule_module_has_no_tree_walk(module):
    assert tree_walks(module.read_text()) == [], "ask the model (pipelint/model/) instead"


def test_a_visitor_is_found():
    source = ("import libcst as cst\n\nclass _Calls(cst.CSTVisitor):\n    pass\n\n"
              "def check(body):\n    body.visit(_Calls())\n")
    assert tree_walks(source) == ["line 3: class _Calls", "line 7: .visit"]
