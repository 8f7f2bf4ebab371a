"""Every rule's VALID and INVALID examples (Fixit style: they live beside the rule) run as tests."""
from __future__ import annotations

import inspect
import re
from dataclasses import replace

import libcst as cst
import libcst.matchers as m
import pytest

from pipelint.engine import FixMode, lint_and_fix, lint_source
from pipelint.rules import EngineCode, all_rules
from rule_options import settings_with

CHECK_RULES = [rule for rule in all_rules().values() if not issubclass(rule, EngineCode)]
DOC_SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety", "## References")


def _cases(kind: str):
    for rule in CHECK_RULES:
        for index, example in enumerate(getattr(rule, kind)):
            yield pytest.param(rule, example, id=f"{rule.code}-{kind.lower()}-{index}")


@pytest.mark.parametrize("rule,source", list(_cases("VALID")))
def test_valid_examples_stay_silent(rule, source):
    found = lint_source(source, "example.py", frozenset({rule.code}), None)
    assert [d for d in found if d.code == rule.code] == [], f"{rule.code} fired on:\n{source}"
    assert not [d for d in found if d.code.startswith("PL0")]


@pytest.mark.parametrize("rule,example", list(_cases("INVALID")))
def test_invalid_examples_fire(rule, example):
    # Every finding, whatever its impact: the example pins what the rule reports and fixes.
    settings = replace(settings_with({rule.code: example.options or {}}, example.target),
                       show_migrations=True, show_housekeeping=True, show_minor_speed=True) \
        if example.options or example.target else None
    found = lint_source(example.code, "example.py", frozenset({rule.code}), settings)
    assert any(d.code == rule.code for d in found), f"{rule.code} did not fire on:\n{example.code}"
    assert not [d for d in found if d.code.startswith("PL0")]
    mine = [d for d in found if d.code == rule.code]
    expected = example.findings()
    assert [(d.line, d.column, d.end_line, d.end_column) for d in mine] == [at.span() for at in expected], \
        f"{rule.code} fired elsewhere than pinned on:\n{example.code}"
    for diagnostic, at in zip(mine, expected):
        if at.message is not None:
            assert diagnostic.message.startswith(at.message), f"{rule.code} says: {diagnostic.message}"
    for diagnostic in found:
        assert diagnostic.name == rule.name and diagnostic.severity == rule.severity
    _, fixed, count = lint_and_fix(example.code, "example.py", frozenset({rule.code}), settings,
                                   FixMode(enabled=True, include_unsafe=True))
    if example.fixed is None:
        # Wherever a fix applies, the example pins its result.
        assert (fixed, count) == (example.code, 0), f"{rule.code} fixed this example; pin it:\n{fixed}"
    else:
        assert count >= 1
        assert fixed == example.fixed
        cst.parse_module(fixed)
        # Idempotent: a second run changes nothing.
        _, again, more = lint_and_fix(fixed, "example.py", frozenset({rule.code}), settings,
                                      FixMode(enabled=True, include_unsafe=True))
        assert (again, more) == (fixed, 0)


@pytest.mark.parametrize("rule", CHECK_RULES, ids=lambda r: r.code)
def test_rule_metadata_and_docs(rule):
    assert re.fullmatch(r"PL[1-9]\d\d", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)
    assert rule.summary and "\n" not in rule.summary
    for section in DOC_SECTIONS:
        assert section in rule.docs, f"{rule.code} docs lack {section!r}"
    assert len(rule.VALID) >= 3 and len(rule.INVALID) >= 3
    if rule.fixable is not None:
        assert any(example.fixed is not None for example in rule.INVALID), "a fixable rule shows its fix"


@pytest.mark.parametrize("rule", CHECK_RULES, ids=lambda r: r.code)
def test_examples_are_written_as_code(rule):
    """Examples read like the code they stand for: indented triple-quoted blocks, not escaped one-liners."""
    module = cst.parse_module(inspect.getsource(inspect.getmodule(rule)))
    sources: list[cst.BaseExpression] = []
    for block in m.findall(module, m.Assign(targets=[m.AssignTarget(m.Name("VALID"))], value=m.Tuple())):
        sources += [element.value for element in block.value.elements]
    for call in m.findall(module, m.Call(func=m.Name("Invalid"))):
        sources += [arg.value for arg in call.args if arg.keyword is None or arg.keyword.value == "fixed"]
    assert len(sources) == len(rule.VALID) + len(rule.INVALID) + sum(e.fixed is not None for e in rule.INVALID)
    for literal in sources:
        assert isinstance(literal, cst.SimpleString) and literal.prefix == "" and literal.quote in ('"""', "'''") \
            and literal.value[3] == "\n", f"{rule.code}: an example is not an indented triple-quoted block"


def test_codes_and_names_are_unique():
    names = [rule.name for rule in all_rules().values()]
    assert len(names) == len(set(names))
