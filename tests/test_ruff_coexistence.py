"""pipelint next to real ruff: the configuration the docs give keeps each tool to its own codes.

ruff owns the prefix PL for its Pylint rules (PLC/PLE/PLR/PLW + 4 digits); pipelint's codes are
PL + 3 digits. Without configuration ruff's RUF102 calls `# noqa: PL101` an invalid code, and
`ruff check --fix` deletes it; `lint.external` lists pipelint's families so ruff keeps them.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
pytestmark = pytest.mark.skipif(RUFF is None, reason="ruff is in the test extra: pip install -e '.[test]'")

# The configuration docs/integrations.md documents (kept in one place here, checked against that page).
PYPROJECT = """\
[tool.ruff.lint]
select = ["E", "F", "PL", "RUF100", "RUF102"]
# pipelint's codes (PL0xx-PL5xx): ruff keeps `# noqa: PL101` instead of calling it invalid.
external = ["PL0", "PL1", "PL2", "PL3", "PL4", "PL5"]

[tool.pipelint]
select = ["PL"]
"""

SOURCE = """\
import tensorflow as tf


def build(a, b, c, d, e, f):  # noqa: PLR0913, PLR0917
    ds = tf.data.Dataset.range(a + b + c + d + e + f)
    ds = ds.map(lambda x: tf.image.random_flip_left_right(x) + 1)  # noqa: PL101
    return ds.shuffle(8).batch(2).prefetch(tf.data.AUTOTUNE)  # noqa: PL205
"""


def _ruff(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([RUFF, "check", "--no-cache", "--output-format", "concise", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def _pipelint(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipelint", "check", "--output-format", "concise", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "train.py").write_text(SOURCE)
    return tmp_path


def test_the_docs_document_this_configuration():
    readme = (Path(__file__).resolve().parent.parent / "docs" / "integrations.md").read_text()
    assert 'external = ["PL0", "PL1", "PL2", "PL3", "PL4", "PL5"]' in readme


def test_both_tools_pass_with_the_documented_config(project):
    ruff = _ruff([], project)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    pipelint = _pipelint([], project)
    assert pipelint.returncode == 0, pipelint.stdout + pipelint.stderr
    # Each tool's suppression works for it, and ruff's code is no "unknown code" to pipelint.
    assert "PL003" not in pipelint.stdout


def test_without_external_ruff_rejects_and_fix_deletes_pipelint_noqa(project):
    (project / "pyproject.toml").write_text(PYPROJECT.replace("external", "# external"))
    ruff = _ruff([], project)
    assert ruff.returncode == 1 and "RUF102" in ruff.stdout and "PL101" in ruff.stdout
    _ruff(["--fix"], project)
    assert "# noqa: PL101" not in (project / "train.py").read_text()
    # ...after which pipelint reports what the comment silenced.
    assert "PL101" in _pipelint([], project).stdout


def test_fix_keeps_pipelint_noqa_with_external(project):
    _ruff(["--fix"], project)
    assert (project / "train.py").read_text() == SOURCE


def test_external_pl_would_hide_ruffs_own_unused_noqa(project):
    # Why the docs list PL0-PL5 and not "PL": "PL" also covers ruff's PLR/PLC/PLE/PLW codes.
    (project / "train.py").write_text("X = 1  # noqa: PLR0913\n")
    assert "RUF100" in _ruff([], project).stdout
    (project / "pyproject.toml").write_text(PYPROJECT.replace('["PL0", "PL1", "PL2", "PL3", "PL4", "PL5"]', '["PL"]'))
    assert _ruff([], project).returncode == 0


def test_select_pl_means_different_rules_in_each_tool(project):
    (project / "train.py").write_text(SOURCE.replace("  # noqa: PLR0913, PLR0917", "").replace("  # noqa: PL101", ""))
    ruff_codes = {line.split()[1] for line in _ruff(["--select", "PL"], project).stdout.splitlines() if ": PL" in line}
    pipelint_codes = {line.split()[1] for line in _pipelint(["--select", "PL"], project).stdout.splitlines()
                      if ": PL" in line}
    assert ruff_codes and all(re.fullmatch(r"PL[CERW]\d{4}", code) for code in ruff_codes)
    assert pipelint_codes == {"PL101"}
    # Neither accepts the other's codes as selectors.
    assert _ruff(["--select", "PL101"], project).returncode == 2
    wrong = _pipelint(["--select", "PLR"], project)
    assert wrong.returncode == 2 and "unknown rule code 'PLR'" in wrong.stderr
