"""The code table (pipelint/codes.py) and the rule modules agree, and the table stays a leaf."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import pipelint.rules
from pipelint.codes import CODES, ENGINE_CODES, CodeInfo
from pipelint.diagnostics import Severity
from pipelint.rules import EngineCode, Rule, all_rules

RULES_DIR = Path(pipelint.rules.__file__).parent


def test_every_code_has_a_rule_class_and_every_rule_class_a_code():
    assert list(all_rules()) == sorted(CODES)


def test_every_code_has_its_rule_module_and_every_rule_module_its_codes():
    modules = {path.stem for path in RULES_DIR.glob("pl*.py")}
    expected = {f"pl{code[2:]}_{info.name.replace('-', '_')}" for code, info in CODES.items()
                if code not in ENGINE_CODES}
    expected.add("pl000_engine_codes")
    assert modules == expected
    for code, rule in all_rules().items():
        if code in ENGINE_CODES:
            assert issubclass(rule, EngineCode) and rule.__module__ == "pipelint.rules.pl000_engine_codes"
        else:
            assert rule.__module__ == f"pipelint.rules.pl{code[2:]}_{CODES[code].name.replace('-', '_')}"


def test_rule_classes_take_name_severity_and_default_from_the_table():
    for code, rule in all_rules().items():
        info = CODES[code]
        assert (rule.name, rule.severity, rule.default_enabled) == (info.name, info.severity, info.default_enabled)


def test_a_rule_may_not_restate_a_fact_of_the_table():
    with pytest.raises(TypeError, match="come from pipelint/codes.py"):
        type("Restated", (Rule,), {"code": "PL101", "name": "map-without-parallelism"})
    with pytest.raises(TypeError, match="not in pipelint/codes.py"):
        type("Unknown", (Rule,), {"code": "PL999"})


def test_table_entries_are_well_formed():
    for code, info in CODES.items():
        assert isinstance(info, CodeInfo) and info.code == code
        assert isinstance(info.severity, Severity)
    assert ENGINE_CODES == ("PL000", "PL001", "PL002", "PL003")
    assert len({info.name for info in CODES.values()}) == len(CODES)


def _modules_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_code_table_imports_neither_rules_nor_libcst():
    loaded = _modules_after("import pipelint.codes")
    assert "libcst" not in loaded
    assert not any(name.startswith("pipelint.rules") for name in loaded)


def test_checking_selectors_imports_neither_rules_nor_libcst():
    loaded = _modules_after(
        "from pathlib import Path\n"
        "from pipelint.config import CliOverrides, ConfigError, load_settings\n"
        "settings = load_settings(None, CliOverrides(select=('PL1',), ignore=('PL105',)), Path.cwd())\n"
        "assert 'PL101' in settings.enabled_codes(Path('a.py'))\n"
        "try:\n"
        "    load_settings(None, CliOverrides(select=('PL999',)), Path.cwd())\n"
        "except ConfigError:\n"
        "    pass\n"
        "else:\n"
        "    raise SystemExit('PL999 accepted')\n")
    assert "libcst" not in loaded
    assert not any(name.startswith("pipelint.rules") for name in loaded)
