"""The flake8 plugin, run by real flake8: same codes, lines, columns and messages as `pipelint check`."""
from __future__ import annotations

import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("flake8", reason="flake8 is in the test extra: pip install -e '.[test]'")

REPO = Path(__file__).resolve().parent.parent
_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<code>[A-Z]+\d+) (?P<message>.*)$")


def _flake8(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8", "--isolated", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def _flake8_findings(stdout: str) -> set[tuple[str, int, int, str, str]]:
    found = set()
    for line in stdout.splitlines():
        match = _LINE.match(line)
        assert match, line
        found.add((Path(match["path"]).as_posix(), int(match["line"]), int(match["column"]),
                   match["code"], match["message"]))
    return found


def _pipelint_findings(args: list[str], cwd: Path) -> set[tuple[str, int, int, str, str]]:
    process = subprocess.run([sys.executable, "-m", "pipelint", "check", "--output-format", "json", *args],
                             cwd=cwd, capture_output=True, text=True, timeout=600)
    assert process.returncode in (0, 1), process.stderr
    return {(d["path"], d["line"], d["column"], d["code"], d["message"]) for d in json.loads(process.stdout)}


def test_registered_under_flake8_extension():
    points = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="flake8.extension")}
    assert points.get("PL") == "pipelint.flake8:Checker", (
        "pipelint's flake8 entry point is missing: reinstall pipelint (pip install -e .)")
    version = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True)
    assert "pipelint" in version.stdout


def test_plugin_module_imports_nothing_of_flake8_or_libcst():
    script = "import sys, pipelint.flake8; print(sorted(m for m in sys.modules if m.split('.')[0] in ('flake8', 'libcst')))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_same_findings_as_pipelint_check(tmp_path):
    corpus = tmp_path / "corpus"
    # flake8 reads Python files only: the corpus's notebooks stay behind.
    shutil.copytree(REPO / "tests" / "corpus", corpus, ignore=shutil.ignore_patterns("*.ipynb"))
    shutil.copytree(REPO / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("*.ipynb"))
    expected = _pipelint_findings(["corpus", "examples"], tmp_path)
    assert len(expected) > 20 and len({code for *_, code, _ in expected}) > 8
    process = _flake8(["--select", "PL", "corpus", "examples"], tmp_path)
    assert process.returncode == 1, process.stderr
    assert _flake8_findings(process.stdout) == expected


def test_reads_pipelint_config_for_each_file(tmp_path):
    source = ("import tensorflow as tf\n\nds = tf.data.Dataset.range(10000)\n"
              "ds = ds.map(lambda x: tf.image.random_flip_left_right(x))\nds = ds.shuffle(8).batch(2)\n")
    (tmp_path / "pyproject.toml").write_text(
        "[tool.pipelint.rules.PL205]\nmin-buffer-size = 4\n"
        '[tool.pipelint.per-file-ignores]\n"tests/*.py" = ["PL101"]\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "train.py").write_text(source)
    (tmp_path / "tests" / "test_train.py").write_text(source)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "pipelint.toml").write_text('ignore = ["PL1"]\n')
    (tmp_path / "other" / "train.py").write_text(source.replace("shuffle(8)", "shuffle(2)"))
    process = _flake8(["--select", "PL", "."], tmp_path)
    found = {(path, code) for path, _, _, code, _ in _flake8_findings(process.stdout)}
    # min-buffer-size = 4 silences PL205 for shuffle(8) but not for shuffle(2);
    # per-file-ignores drop PL101 in tests/; other/pipelint.toml ignores PL1 there.
    assert found == {("train.py", "PL101"), ("other/train.py", "PL205")}
    assert found == {(p, c) for p, _, _, c, _ in _pipelint_findings(["."], tmp_path)}


def test_flake8_select_and_noqa_filter_as_for_any_plugin(tmp_path):
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\n\nds = tf.data.Dataset.range(10)\n"
        "ds = ds.map(lambda x: tf.image.random_flip_left_right(x))  # noqa: PL101\nds = ds.shuffle(8).batch(2)\n")
    found = {code for *_, code, _ in _flake8_findings(_flake8(["--select", "PL"], tmp_path).stdout)}
    assert found == {"PL205"}
    found = {code for *_, code, _ in _flake8_findings(_flake8(["--select", "PL1", "."], tmp_path).stdout)}
    assert found == set()
    found = {code for *_, code, _ in _flake8_findings(_flake8(["--extend-select", "PL", "--ignore", "PL205", "."], tmp_path).stdout)}
    assert found == set()
