"""The public Python API (pipelint/api.py): `pipelint.check_paths` (check_source: test_engine.py)."""
from __future__ import annotations

from pathlib import Path

import pipelint
from pipelint.diagnostics import Diagnostic

SERIAL_MAP = "import tensorflow as tf\nds = tf.data.Dataset.range(4).map(lambda x: load(x))\n"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_check_paths_reports_every_file_sorted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "src" / "b.py", SERIAL_MAP)
    _write(tmp_path / "src" / "a.py", "x = 1\n" + SERIAL_MAP)
    _write(tmp_path / "src" / "notes.txt", SERIAL_MAP)
    found = pipelint.check_paths(["src"], select=["PL101"])
    assert all(isinstance(d, Diagnostic) for d in found)
    assert [(d.path, d.line, d.code) for d in found] == [("src/a.py", 3, "PL101"), ("src/b.py", 2, "PL101")]


def test_check_paths_uses_the_closest_config_and_select_replaces_its_select(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "pyproject.toml", '[tool.pipelint]\nselect = ["PL2"]\nextend-exclude = ["skipped"]\n')
    _write(tmp_path / "a.py", SERIAL_MAP)
    _write(tmp_path / "skipped" / "b.py", SERIAL_MAP)
    assert pipelint.check_paths(["."]) == []  # the config selects PL2 only
    assert [(d.path, d.code) for d in pipelint.check_paths(["."], select=["PL101"])] == [("a.py", "PL101")]


def test_check_paths_in_worker_processes_matches_one_process(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for index in range(20):  # enough files for the engine to start a pool
        _write(tmp_path / f"m{index:02}.py", SERIAL_MAP)
    assert pipelint.check_paths(["."], jobs=2) == pipelint.check_paths(["."], jobs=1)
    assert len(pipelint.check_paths(["."], jobs=1, select=["PL101"])) == 20
