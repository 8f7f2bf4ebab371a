"""The result cache: what it replays, what makes a miss, where it lives, and that it stays sound."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clirunner import separate_streams_runner
from pipelint import cache as cache_module
from pipelint.cli import main

SERIAL_MAP = """\
import tensorflow as tf

ds = tf.data.Dataset.range(10)
ds = ds.map(lambda x: load(x))
ds = ds.shuffle(8).batch(2)
"""


def _run(*args: str):
    result = separate_streams_runner().invoke(main, ["check", *args], catch_exceptions=False)
    return result


def _concise(*args: str) -> tuple[int, str]:
    result = _run("--output-format", "concise", "--jobs", "1", *args)
    return result.exit_code, result.stdout


def _shards(directory: Path) -> list[Path]:
    return sorted(directory.glob("*/*.json"))


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PIPELINT_CACHE_DIR", str(tmp_path / "cache"))
    for i in range(20):
        (tmp_path / f"m{i:02}.py").write_text(SERIAL_MAP.replace("range(10)", f"range({i + 10})"))
    return tmp_path


@pytest.fixture
def parses(monkeypatch):
    """How many times libcst parsed a file (the engine parses each checked file once)."""
    import libcst

    from pipelint import engine

    calls: list[int] = []
    real = libcst.parse_module

    def counting(source, *args, **kwargs):
        calls.append(1)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(engine.cst, "parse_module", counting)
    return calls


def test_warm_run_replays_the_cold_run_exactly(project):
    cold = _concise(".")
    assert cold[0] == 1 and "PL101" in cold[1] and "PL205" in cold[1]
    assert _shards(project / "cache"), "the cold run wrote the cache"
    assert _concise(".") == cold
    for fmt in ("json", "full", "sarif"):
        assert _run("--output-format", fmt, ".").stdout == _run("--output-format", fmt, "--no-cache", ".").stdout


def test_editing_one_file_rechecks_only_that_file(project, parses):
    cold = _concise(".")
    assert len(parses) == 20
    parses.clear()
    assert _concise(".") == cold
    assert parses == []  # every file a hit
    edited = project / "m07.py"
    edited.write_text(edited.read_text().replace("lambda x: load(x)", "lambda x: load(x) + 2"))
    assert _concise(".") == cold  # same findings, same places
    assert len(parses) == 1
    parses.clear()
    edited.write_text(edited.read_text() + "ds = ds.map(load)\n")
    code, out = _concise(".")
    assert len(parses) == 1
    assert out.count("m07.py:6:") == 1 and out.count("PL101") == cold[1].count("PL101") + 1


def test_changed_settings_are_a_miss_and_give_their_own_findings(project, parses):
    _concise(".")
    parses.clear()
    only_shuffle = _concise("--select", "PL205", ".")
    assert len(parses) == 20 and "PL101" not in only_shuffle[1] and "PL205" in only_shuffle[1]
    (project / "pyproject.toml").write_text("[tool.pipelint.rules.PL205]\nmin-buffer-size = 4\n")
    parses.clear()
    code, out = _concise(".")
    assert len(parses) == 20 and "PL205" not in out and "PL101" in out
    parses.clear()
    assert _concise(".") == (code, out) and parses == []


def test_per_file_ignores_apply_to_cached_files(project):
    (project / "pyproject.toml").write_text('[tool.pipelint.per-file-ignores]\n"m0*.py" = ["PL101"]\n')
    first = _concise(".")[1]
    assert "m05.py:4" not in first and "m15.py:4" in first
    assert _concise(".")[1] == first
    (project / "m05.py").rename(project / "m25.py")  # now outside the glob: a miss
    moved = _concise(".")[1]
    assert "m25.py:4:9: PL101" in moved


def test_no_cache_neither_reads_nor_writes(project, parses):
    _concise("--no-cache", ".")
    assert not (project / "cache").exists()
    _concise(".")
    parses.clear()
    _concise("--no-cache", ".")
    assert len(parses) == 20


def test_default_location_is_the_project_root(tmp_path, monkeypatch):
    monkeypatch.delenv("PIPELINT_CACHE_DIR", raising=False)
    (tmp_path / "pyproject.toml").write_text("[tool.pipelint]\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(SERIAL_MAP)
    monkeypatch.chdir(tmp_path / "src")
    _concise("train.py")
    directory = tmp_path / ".pipelint_cache"
    assert (directory / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (directory / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert _shards(directory) and not (tmp_path / "src" / ".pipelint_cache").exists()


def test_cache_dir_in_config_and_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("PIPELINT_CACHE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.pipelint]\ncache-dir = "build/lint-cache"\n')
    (tmp_path / "train.py").write_text(SERIAL_MAP)
    _concise("train.py")
    assert _shards(tmp_path / "build" / "lint-cache")
    monkeypatch.setenv("PIPELINT_CACHE_DIR", "elsewhere")
    _concise("train.py")
    assert _shards(tmp_path / "elsewhere")
    assert not (tmp_path / ".pipelint_cache").exists()


def test_bad_cache_dir_value_is_a_config_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.pipelint]\ncache-dir = 3\n")
    (tmp_path / "train.py").write_text(SERIAL_MAP)
    result = _run("train.py")
    assert result.exit_code == 2 and "'cache-dir' must be a non-empty string" in result.stderr


def test_unwritable_cache_warns_and_still_reports(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("not a directory")
    monkeypatch.setenv("PIPELINT_CACHE_DIR", str(tmp_path / "a-file" / "cache"))
    (tmp_path / "train.py").write_text(SERIAL_MAP)
    result = _run("--output-format", "concise", "train.py")
    assert result.exit_code == 1 and "train.py:4:9: PL101" in result.stdout
    assert "pipelint: warning: cannot write the cache" in result.stderr


def test_corrupt_and_foreign_entries_are_ignored_and_rewritten(project, parses):
    cold = _concise(".")
    (shard,) = _shards(project / "cache")
    shard.write_bytes(b"\x00{not json")
    parses.clear()
    assert _concise(".") == cold and len(parses) == 20
    data = json.loads(shard.read_text())
    assert len(data["files"]) == 20
    # An entry whose key does not match (another pipelint, settings or content) is never used.
    entry = data["files"]["m03.py"]
    entry[0] = "0" * len(entry[0])
    entry[2] = []
    # ...nor one of the wrong shape.
    data["files"]["m04.py"] = {"findings": "nonsense"}
    shard.write_text(json.dumps(data))
    parses.clear()
    assert _concise(".") == cold and len(parses) == 2
    rewritten = json.loads(shard.read_text())["files"]
    assert rewritten["m03.py"][2] and isinstance(rewritten["m04.py"], list)
    # A shard written for another generation (pipelint version) is ignored as a whole.
    data = json.loads(shard.read_text())
    data["generation"] = "0.0.1-deadbeef"
    shard.write_text(json.dumps(data))
    parses.clear()
    assert _concise(".") == cold and len(parses) == 20


def test_fix_never_uses_cached_fixes(project):
    target = project / "m01.py"
    _concise(str(target.name))
    (shard,) = _shards(project / "cache")
    data = json.loads(shard.read_text())
    (finding,) = [d for d in data["files"]["m01.py"][2] if d["code"] == "PL101"]
    assert finding["fix"]["applicability"] == "safe"
    finding["fix"]["edits"][0][4] = "SABOTAGE"  # a stale or tampered fix must never be applied
    shard.write_text(json.dumps(data))
    result = _run("--fix", "--output-format", "concise", target.name)
    fixed = target.read_text()
    assert "SABOTAGE" not in fixed and "num_parallel_calls=tf.data.AUTOTUNE" in fixed
    assert "PL101" not in result.stdout
    # The fixed file has new bytes: the next run checks it afresh and agrees.
    assert "PL101" not in _concise(target.name)[1]


def test_fix_takes_hits_without_applicable_fixes(project, parses):
    (project / "pyproject.toml").write_text('[tool.pipelint]\nselect = ["PL205"]\n')
    _concise(".")
    parses.clear()
    code, out = _concise("--fix", ".")
    assert parses == [] and "PL205" in out and code == 1


def test_old_generations_and_unseen_entries_are_pruned(project, monkeypatch):
    directory = project / "cache"
    directory.mkdir()
    for i in range(6):
        old = directory / f"0.0.{i}-{i:016x}"
        old.mkdir()
        (old / "x.json").write_text("{}")
        os.utime(old, (time.time() - 1000 * (10 - i),) * 2)
    _concise(".")
    kept = sorted(p.name for p in directory.iterdir() if p.is_dir())
    assert len(kept) == cache_module._KEEP_GENERATIONS
    assert "0.0.5-0000000000000005" in kept and "0.0.0-0000000000000000" not in kept
    (shard,) = (directory / cache_module._generation()).glob("*.json")
    data = json.loads(shard.read_text())
    long_ago = data["files"]["m00.py"][1] - cache_module._FORGET_AFTER_DAYS - 1
    data["files"]["deleted-long-ago.py"] = ["0" * 40, long_ago, []]
    shard.write_text(json.dumps(data))
    (project / "m00.py").write_text(SERIAL_MAP + "\n")  # a miss, so the shard is written again
    _concise(".")
    assert "deleted-long-ago.py" not in json.loads(shard.read_text())["files"]


def test_generation_depends_on_python_and_pipelint_code(monkeypatch):
    first = cache_module._generation()
    assert first == cache_module._generation()
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    assert cache_module._generation() != first


def test_concurrent_runs_never_corrupt_the_cache(project):
    cold = _concise("--no-cache", ".")
    env = dict(os.environ)
    commands = [[sys.executable, "-m", "pipelint", "check", "--jobs", "1", "--exit-zero", "-q",
                 *[f"m{i:02}.py" for i in range(start, 20, 3)]] for start in range(3)]
    for _ in range(2):
        running = [subprocess.Popen(c, cwd=project, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE) for c in commands * 2]
        for process in running:
            assert process.wait(timeout=300) == 0, process.stderr.read()
        for shard in _shards(project / "cache"):
            json.loads(shard.read_text())  # complete JSON, never a torn write
    assert _concise(".") == cold
    assert not list((project / "cache").glob("**/*.tmp"))


def test_clean_removes_the_cache(project, monkeypatch):
    _concise(".")
    nested = project / "sub" / ".pipelint_cache"
    nested.mkdir(parents=True)
    (nested / "CACHEDIR.TAG").write_text(cache_module._TAG)
    result = separate_streams_runner().invoke(main, ["clean"])
    assert result.exit_code == 0
    assert not (project / "cache").exists() and not nested.exists()
    assert "Removed cache at" in result.stdout
    # A directory pipelint did not make is never removed, whatever PIPELINT_CACHE_DIR says.
    precious = project / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("...")
    monkeypatch.setenv("PIPELINT_CACHE_DIR", str(precious))
    result = separate_streams_runner().invoke(main, ["clean"])
    assert result.exit_code == 0 and (precious / "thesis.tex").exists()
    assert "No cache to remove." in result.stdout


def test_a_run_of_hits_never_imports_libcst(project):
    script = ("import sys\nfrom pipelint.cli import main\n"
              "try:\n    main(['check', '.', '--jobs', '1', '-q'])\nexcept SystemExit:\n    pass\n"
              "print('libcst' in sys.modules, 'pipelint.engine' in sys.modules)\n")

    def imported() -> str:
        return subprocess.run([sys.executable, "-c", script], cwd=project, capture_output=True,
                              text=True, timeout=300, check=True).stdout.splitlines()[-1]

    assert imported() == "True True"  # cold: checks every file
    assert imported() == "False False"  # warm: every file a hit
    (project / "m03.py").write_text(SERIAL_MAP + "# edited\n")
    assert imported() == "True True"


def test_notebooks_are_cached_by_their_bytes(project, parses):
    import shutil

    corpus = Path(__file__).resolve().parent / "corpus" / "notebooks"
    for notebook in sorted(corpus.glob("*.ipynb")):
        shutil.copy(notebook, project / notebook.name)
    cold = _run("--output-format", "json", "--jobs", "1", ".").stdout
    assert '"cell":' in cold and '.ipynb"' in cold
    parses.clear()
    assert _run("--output-format", "json", "--jobs", "1", ".").stdout == cold
    assert parses == []


def test_a_run_over_unmoved_files_reads_none_and_builds_no_index(project, monkeypatch):
    cold = _concise(".")
    assert _concise(".") == cold
    real_build = cache_module.ProjectIndex.build

    def refuse(*args, **kwargs):
        raise AssertionError("the project index was built")

    monkeypatch.setattr(cache_module.ProjectIndex, "build", refuse)
    monkeypatch.setattr(cache_module, "_read_regular", refuse)
    assert _concise(".") == cold  # stats, settings and declarations unmoved: the keys of the last run
    monkeypatch.setattr(cache_module.ProjectIndex, "build", real_build)
    # A declaration beside the code changes every file's target without touching a file's stat.
    (project / "requirements.txt").write_text("tensorflow==2.4.1\n")
    with pytest.raises(AssertionError, match="was built"):
        monkeypatch.setattr(cache_module.ProjectIndex, "build", refuse)
        _concise(".")
    monkeypatch.undo()
    monkeypatch.chdir(project)
    monkeypatch.setenv("PIPELINT_CACHE_DIR", str(project / "cache"))
    assert _concise(".") == _concise("--no-cache", ".") != cold


def test_a_file_rewritten_to_the_same_size_and_time_is_read_again(project):
    cold = _concise(".")
    assert _concise(".") == cold
    edited = project / "m03.py"
    before = edited.stat()
    edited.write_text(edited.read_text().replace("shuffle(8)", "shuffle(9)"))
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))  # (the change time still moves)
    assert _concise(".") == _concise("--no-cache", ".")
    assert "buffer of 9" in _concise(".")[1]
