"""The server's re-parse of an edited document (`pipelint.reparse`) must give exactly the module a
whole parse gives: random edits of real files, each checked against `cst.parse_module`."""
from __future__ import annotations

import random
from pathlib import Path

import libcst as cst
import pytest

from pipelint.reparse import Reparser

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted([*ROOT.glob("examples/*.py"), *ROOT.glob("tests/corpus/*.py")])[:12]
# Insertions that join, split, indent, dedent, open or close what is around them.
EDITS = ["1", "x", "\n", "    ", ")", "(", "#", ":", "\n\n", "", "  y = 2\n", "\n# c\n", "if a:\n    pass\n", "'"]


def test_every_edit_parses_as_a_whole_parse_would():
    spliced = 0
    for path in FILES:
        spliced += _edit_at_random(path)
    assert spliced > 100  # (most edits were re-parsed in part, not whole)


def _edit_at_random(path: Path) -> int:
    rng = random.Random(path.name)
    text = path.read_text()
    reparser = Reparser()
    reparser.parse(text)
    spliced = 0
    for _ in range(60):
        start = rng.randrange(len(text) + 1)
        end = min(len(text), start + rng.choice([0, 0, 1, 2, 5, 20]))
        new = text[:start] + rng.choice(EDITS) + text[end:]
        try:
            whole = cst.parse_module(new)
        except cst.ParserSyntaxError:
            with pytest.raises(cst.ParserSyntaxError):
                reparser.parse(new)
            continue
        kept = reparser._module
        got = reparser.parse(new)
        assert got.deep_equals(whole) and got.code == new
        spliced += got is not kept and any(a is b for a, b in zip(got.body, kept.body))
        text = new
    return spliced


def test_an_edit_keeps_the_untouched_statements_as_they_were():
    text = ("import tensorflow as tf\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n\n\n"
            "def h():\n    return 3\n\n\nx = g()\n")
    reparser = Reparser()
    before = reparser.parse(text)
    after = reparser.parse(text.replace("return 3", "return 4"))
    assert after.code == text.replace("return 3", "return 4")
    assert [a is b for a, b in zip(after.body, before.body)] == [True, True, False, False, True]
