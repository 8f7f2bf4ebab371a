"""`pipelint check --stdin-filename PATH -`: the buffer an editor holds, checked as PATH would be."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from clirunner import separate_streams_runner
from pipelint.cli import main

SOURCE = """\
import tensorflow as tf

ds = tf.data.Dataset.range(10)
ds = ds.map(lambda x: load(x))
ds = ds.shuffle(8).batch(2)
"""


def _check(args, source: str | bytes = SOURCE):
    data = source.encode() if isinstance(source, str) else source
    return separate_streams_runner().invoke(main, ["check", *args], input=data, catch_exceptions=False)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pipelint]\nextend-exclude = ["generated"]\n'
        '[tool.pipelint.per-file-ignores]\n"tests/*.py" = ["PL101"]\n'
        "[tool.pipelint.rules.PL205]\nmin-buffer-size = 4\n")
    return tmp_path


def _codes(stdout: str) -> list[tuple[str, int, int, str]]:
    return [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(stdout)]


def test_stdin_is_checked_as_the_named_file(project):
    result = _check(["--stdin-filename", "src/train.py", "--output-format", "json", "-"])
    assert result.exit_code == 1
    # PL205 is silent: the config's min-buffer-size applies; the file need not exist on disk.
    assert _codes(result.stdout) == [("src/train.py", 4, 9, "PL101")]
    ignored = _check(["--stdin-filename", "tests/test_train.py", "--output-format", "json", "-"])
    assert ignored.exit_code == 0 and _codes(ignored.stdout) == []


def test_same_findings_as_the_file_on_disk(project):
    (project / "src").mkdir()
    (project / "src" / "train.py").write_text(SOURCE)
    from_disk = separate_streams_runner().invoke(main, ["check", "--output-format", "json", "src/train.py"])
    from_stdin = _check(["--output-format", "json", "--stdin-filename", "src/train.py"])
    assert from_stdin.stdout == from_disk.stdout
    # The snippet shows the buffer, not what is on disk.
    (project / "src" / "train.py").write_text("# an older version\n" * 10)
    full = _check(["--stdin-filename", "src/train.py", "-"])
    assert "ds = ds.map(lambda x: load(x))" in full.stdout


def test_fix_writes_the_fixed_source_to_stdout(project):
    result = _check(["--stdin-filename", "src/train.py", "--fix", "-"])
    (project / "copy.py").write_text(SOURCE)
    separate_streams_runner().invoke(main, ["check", "--fix", "copy.py"])
    assert result.stdout == (project / "copy.py").read_text()
    assert "num_parallel_calls=tf.data.AUTOTUNE" in result.stdout
    assert result.exit_code == 0  # nothing left after the fix
    assert "Fixed 1 finding" in result.stderr  # the report goes to stderr, the code to stdout


def test_fix_with_findings_left_and_nothing_to_fix(project):
    unfixable = SOURCE.replace("shuffle(8)", "shuffle(2)").replace("lambda x: load(x)", "f, num_parallel_calls=2")
    result = _check(["--stdin-filename", "src/train.py", "--fix", "--output-format", "concise", "-"], unfixable)
    assert result.stdout == unfixable and result.exit_code == 1
    assert "src/train.py:5:9: PL205" in result.stderr


def test_fix_keeps_the_encoding_of_the_input(project):
    latin = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + SOURCE).encode("latin-1")
    result = _check(["--stdin-filename", "src/train.py", "--fix", "-"], latin)
    assert result.stdout_bytes.startswith(b"# -*- coding: latin-1 -*-\n# caf\xe9\n")
    assert b"num_parallel_calls" in result.stdout_bytes


def test_diff_from_stdin(project):
    result = _check(["--stdin-filename", "src/train.py", "--diff", "-"])
    assert result.exit_code == 1
    assert "--- a/src/train.py" in result.stdout and "+ds = ds.map(lambda x: load(x), num_parallel_calls" in result.stdout


def test_dash_without_a_name(project):
    result = _check(["--output-format", "concise", "-"])
    assert result.exit_code == 1 and result.stdout.startswith("-:4:9: PL101")


def test_force_exclude_skips_an_excluded_name(project):
    result = _check(["--stdin-filename", "generated/train.py", "--force-exclude", "--fix", "-"])
    assert result.exit_code == 0 and result.stdout == SOURCE
    plain = _check(["--stdin-filename", "generated/train.py", "--output-format", "concise", "-"])
    assert "PL101" in plain.stdout  # without --force-exclude a named file is always checked


def test_bad_input_on_stdin(project):
    result = _check(["--stdin-filename", "x.py", "--output-format", "concise", "-"], b"\x00\x01binary")
    assert result.exit_code == 1 and "PL002" in result.stdout
    broken = _check(["--stdin-filename", "x.py", "--output-format", "concise", "-"], "import tensorflow as tf\nds = tf.data.Dataset.range(3).map(\n")
    assert broken.exit_code == 1 and "PL001" in broken.stdout


def test_stdin_with_other_paths_is_a_usage_error(project):
    result = _check(["--stdin-filename", "x.py", "other.py"])
    assert result.exit_code == 2 and "stdin" in result.stderr
    result = _check(["-", "other.py"])
    assert result.exit_code == 2


def test_real_stdin_in_a_subprocess(project):
    process = subprocess.run([sys.executable, "-m", "pipelint", "check", "--stdin-filename", "src/train.py",
                              "--fix", "-"], input=SOURCE.encode(), capture_output=True, cwd=project, timeout=300)
    assert process.returncode == 0
    assert b"num_parallel_calls=tf.data.AUTOTUNE" in process.stdout and b"Fixed 1 finding" in process.stderr
