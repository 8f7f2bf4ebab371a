"""Bad input, end to end: every broken file, path or config gets a diagnostic or a one-line message
and the documented exit code, never a traceback, and the rest of the run still completes.

Each test puts a valid file with a known finding (`good.py`: PL101 at line 2) beside the bad input
and checks that finding is still reported.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clirunner import separate_streams_runner

import pipelint.discovery
from pipelint.cli import main
from pipelint.config import CliOverrides, load_settings
from pipelint.engine import check_file

KNOWN = "import tensorflow as tf\nds = tf.data.Dataset.range(4).map(lambda x: load(x))\n"
KNOWN_FIXED = ("import tensorflow as tf\n"
               "ds = tf.data.Dataset.range(4).map(lambda x: load(x), num_parallel_calls=tf.data.AUTOTUNE)\n")
KNOWN_FINDING = ("good.py", 2, 31, "PL101")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "good.py").write_text(KNOWN)
    return tmp_path


class Run:
    def __init__(self, result):
        self.result = result
        self.exit_code = result.exit_code
        self.stdout = result.stdout
        self.stderr = result.stderr

    @property
    def findings(self) -> list[dict]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def keys(self) -> set[tuple[str, int, int, str]]:
        return {(f["path"], f["line"], f["column"], f["code"]) for f in self.findings}

    def codes_for(self, path: str) -> list[str]:
        return [f["code"] for f in self.findings if f["path"] == path]

    def only(self, path: str) -> dict:
        (finding,) = [f for f in self.findings if f["path"] == path]
        return finding


def run(*args: str, fmt: str | None = "json-lines") -> Run:
    """`pipelint check ARGS --select ALL` in-process; asserts nothing escaped as a traceback."""
    argv = ["check", *args]
    if "--select" not in args:
        argv += ["--select", "ALL"]
    if fmt is not None:
        argv += ["--output-format", fmt]
    result = separate_streams_runner().invoke(main, argv)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"exception escaped pipelint: {result.exception!r}\n{result.stderr}") from result.exception
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exit_code in (0, 1, 2)
    return Run(result)


def assert_known_finding(outcome: Run) -> None:
    assert KNOWN_FINDING in outcome.keys(), outcome.stdout + outcome.stderr


def assert_one_line_error(outcome: Run, *needles: str) -> None:
    lines = outcome.stderr.strip().splitlines()
    assert len(lines) == 1, outcome.stderr
    assert lines[0].startswith("pipelint: error: ")
    for needle in needles:
        assert needle in lines[0], lines[0]


# ---------------------------------------------------------------------------------- content


def test_syntax_error_is_pl001_and_the_rest_is_checked(project):
    Path("bad.py").write_text("import tensorflow as tf\nds = (\n")
    Path("py2.py").write_text('import tensorflow as tf\nprint "hello"\n')
    # pipelint parses only files some rule could fire on: these name tf.data
    Path("bad.py").write_text("import tensorflow as tf\nds = (tf.data.Dataset.range(3)\n")
    Path("py2.py").write_text('import tensorflow as tf\nds = tf.data.Dataset.range(3)\nprint "hello"\n')
    outcome = run(".")
    assert outcome.exit_code == 1
    bad = outcome.only("bad.py")
    assert bad["code"] == "PL001" and bad["line"] == 2 and "\n" not in bad["message"]
    assert outcome.only("py2.py")["code"] == "PL001"
    # a file no rule can fire on is not parsed at all, like one that never names TensorFlow
    Path("plain.py").write_text("import tensorflow as tf\nprint 'hi'\n")
    assert run(".").codes_for("plain.py") == []
    assert_known_finding(outcome)


def test_nul_bytes_are_pl002(project):
    Path("nul.py").write_bytes(b"import tensorflow as tf\nx = 1\x00\n")
    outcome = run(".")
    assert outcome.exit_code == 1
    finding = outcome.only("nul.py")
    assert finding["code"] == "PL002" and "NUL" in finding["message"]
    assert_known_finding(outcome)


def test_binary_content_is_pl002(project):
    Path("blob.py").write_bytes(bytes(range(256)) * 16)
    outcome = run(".")
    assert outcome.codes_for("blob.py") == ["PL002"]
    assert_known_finding(outcome)


def test_non_utf8_without_coding_line_is_pl002(project):
    Path("latin.py").write_bytes("import tensorflow as tf\nname = 'caf\xe9'\n".encode("latin-1"))
    outcome = run(".")
    assert outcome.exit_code == 1
    finding = outcome.only("latin.py")
    assert finding["code"] == "PL002" and "utf-8" in finding["message"]
    assert_known_finding(outcome)


def test_coding_line_that_lies_is_pl002(project):
    Path("liar.py").write_bytes(
        "# -*- coding: utf-8 -*-\nimport tensorflow as tf\nname = 'caf\xe9'\n".encode("latin-1"))
    outcome = run(".")
    assert outcome.codes_for("liar.py") == ["PL002"]
    assert_known_finding(outcome)


def test_unknown_codec_is_pl002(project):
    Path("codec.py").write_bytes(b"# coding: klingon\nimport tensorflow as tf\n")
    outcome = run(".")
    assert outcome.codes_for("codec.py") == ["PL002"]
    assert_known_finding(outcome)


def test_declared_latin1_is_decoded_and_linted_at_the_right_line(project):
    Path("latin.py").write_bytes(
        ("# -*- coding: latin-1 -*-\nimport tensorflow as tf\nname = 'caf\xe9'\n"
         "ds = tf.data.Dataset.range(4).map(lambda x: load(x))\n").encode("latin-1"))
    outcome = run(".")
    assert ("latin.py", 4, 31, "PL101") in outcome.keys()
    assert "PL002" not in outcome.codes_for("latin.py")
    assert_known_finding(outcome)


def test_fix_keeps_the_declared_encoding(project):
    original = ("# -*- coding: latin-1 -*-\nimport tensorflow as tf\nname = 'caf\xe9'\n"
                "ds = tf.data.Dataset.range(4).map(lambda x: load(x))\n")
    Path("latin.py").write_bytes(original.encode("latin-1"))
    run("latin.py", "--fix", "--select", "PL101")
    data = Path("latin.py").read_bytes()
    assert b"num_parallel_calls" in data
    assert data.decode("latin-1").count("caf\xe9") == 1  # still valid latin-1 with the same text


def test_bom_is_skipped_and_positions_are_unchanged(project):
    Path("bom.py").write_bytes(b"\xef\xbb\xbf" + KNOWN.encode())
    outcome = run(".")
    assert ("bom.py", 2, 31, "PL101") in outcome.keys()
    assert_known_finding(outcome)


def test_fix_keeps_the_bom(project):
    Path("bom.py").write_bytes(b"\xef\xbb\xbf" + KNOWN.encode())
    run("bom.py", "--fix", "--select", "PL101")
    assert Path("bom.py").read_bytes() == b"\xef\xbb\xbf" + KNOWN_FIXED.encode()


def test_crlf_findings_at_the_right_line_and_fix_keeps_crlf(project):
    source = "import tensorflow as tf\r\n\r\nds = tf.data.Dataset.range(4).map(lambda x: load(x))\r\n"
    Path("crlf.py").write_bytes(source.encode())
    outcome = run(".")
    assert ("crlf.py", 3, 31, "PL101") in outcome.keys()
    assert_known_finding(outcome)

    fixed = run("crlf.py", "good.py", "--fix", "--select", "PL101")
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
    data = Path("crlf.py").read_bytes()
    assert data == source.replace("lambda x: load(x))", "lambda x: load(x), num_parallel_calls=tf.data.AUTOTUNE)").encode()
    assert data.count(b"\r\n") == 3 and data.replace(b"\r\n", b"").count(b"\n") == 0
    assert Path("good.py").read_text() == KNOWN_FIXED


def test_mixed_line_endings_findings_at_the_right_line_and_fix_keeps_them(project):
    # \n, \r\n and a lone \r (which CPython also counts as a line break)
    source = "import tensorflow as tf\n\r\nx = 1\rds = tf.data.Dataset.range(4).map(lambda x: load(x))\r\ny = 2\n"
    Path("mixed.py").write_bytes(source.encode())
    outcome = run(".")
    assert ("mixed.py", 4, 31, "PL101") in outcome.keys()
    assert_known_finding(outcome)

    run("mixed.py", "--fix", "--select", "PL101")
    expected = source.replace("lambda x: load(x))", "lambda x: load(x), num_parallel_calls=tf.data.AUTOTUNE)")
    assert Path("mixed.py").read_bytes() == expected.encode()


def test_tabs_count_as_one_column(project):
    Path("tabs.py").write_text(
        "import tensorflow as tf\nif True:\n\tds = tf.data.Dataset.range(4).map(lambda x: load(x))\n")
    Path("taberror.py").write_text(
        "import tensorflow as tf\nif True:\n\tx = 1\n        y = tf.data.Dataset.range(4)\n")
    outcome = run(".")
    assert ("tabs.py", 3, 32, "PL101") in outcome.keys()
    # inconsistent tabs and spaces: CPython raises TabError, so it must not pass silently
    assert outcome.codes_for("taberror.py") == ["PL001"]
    assert_known_finding(outcome)

    run("tabs.py", "--fix", "--select", "PL101")
    assert Path("tabs.py").read_text().startswith("import tensorflow as tf\nif True:\n\tds = ")


def test_five_megabyte_file_completes(project):
    # A generated module: a pipeline, then 5 MB of data in comments and a string literal.
    blob_line = "x" * 99 + "\n"
    source = (KNOWN + "# generated\n" + ("# " + blob_line[2:]) * 25_000
              + 'BLOB = """\n' + blob_line * 25_000 + '"""\n'
              + "ds2 = tf.data.Dataset.range(4).map(lambda x: load(x))\n")
    assert len(source) > 5_000_000
    Path("big.py").write_text(source)
    last_line = source.count("\n")
    # and 5 MB that never mentions TensorFlow (skipped before parsing)
    Path("plain.py").write_text("VALUES = [\n" + "    123456789,\n" * 350_000 + "]\n")
    start = time.process_time()
    outcome = run(".")
    cpu = time.process_time() - start
    assert ("big.py", 2, 31, "PL101") in outcome.keys()
    assert ("big.py", last_line, 32, "PL101") in outcome.keys()
    assert outcome.codes_for("plain.py") == []
    assert_known_finding(outcome)
    assert cpu < 60, f"{cpu:.1f} s of CPU for 10 MB"


# ---------------------------------------------------------------------------------- paths


def test_file_deleted_between_discovery_and_check_is_pl002(project, monkeypatch):
    Path("gone.py").write_text(KNOWN)
    real_discover = pipelint.discovery.discover

    def discover_then_delete(*args, **kwargs):
        found = real_discover(*args, **kwargs)
        assert Path("gone.py") in found.files
        Path("gone.py").unlink()
        return found

    monkeypatch.setattr(pipelint.discovery, "discover", discover_then_delete)
    outcome = run(".")
    finding = outcome.only("gone.py")
    assert finding["code"] == "PL002" and "No such file" in finding["message"]
    assert_known_finding(outcome)
    assert outcome.exit_code == 1


def _deny_reading(monkeypatch, name: str) -> None:
    real_read_bytes = Path.read_bytes

    def read_bytes(self):
        if self.name == name:
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)


def test_unreadable_file_is_pl002_simulated(project, monkeypatch):
    Path("secret.py").write_text(KNOWN)
    _deny_reading(monkeypatch, "secret.py")
    outcome = run(".", "--jobs", "1")
    finding = outcome.only("secret.py")
    assert finding["code"] == "PL002" and "Permission denied" in finding["message"]
    assert_known_finding(outcome)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root reads files whatever their mode")
def test_unreadable_file_is_pl002_chmod(project):
    secret = Path("secret.py")
    secret.write_text(KNOWN)
    secret.chmod(0)
    try:
        outcome = run(".")
    finally:
        secret.chmod(0o644)
    assert outcome.codes_for("secret.py") == ["PL002"]
    assert_known_finding(outcome)


def test_unreadable_directory_is_a_one_line_error_and_the_rest_is_checked(project, monkeypatch):
    (project / "locked").mkdir()
    (project / "locked" / "x.py").write_text(KNOWN)
    real_scandir = os.scandir

    def scandir(path="."):
        if os.path.basename(os.fspath(path)) == "locked":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(pipelint.discovery.os, "scandir", scandir)
    outcome = run(".")
    assert outcome.exit_code == 2
    assert_one_line_error(outcome, "locked", "Permission denied")
    assert_known_finding(outcome)


def test_symlink_loops(project):
    loop = project / "loop"
    loop.mkdir()
    (loop / "self").symlink_to("..", target_is_directory=True)
    (loop / "here").symlink_to(".", target_is_directory=True)
    (loop / "inner.py").write_text(KNOWN)
    (project / "a.py").symlink_to("b.py")
    (project / "b.py").symlink_to("a.py")
    (project / "dangling.py").symlink_to("nowhere.py")
    outcome = run(".")
    # every real file once, the loops are neither followed forever nor reported as findings
    assert outcome.keys() == {KNOWN_FINDING, ("loop/inner.py", 2, 31, "PL101")}
    assert outcome.exit_code == 1

    explicit = run("a.py", "dangling.py", "good.py")
    assert explicit.exit_code == 2
    assert "a.py" in explicit.stderr and "dangling.py" in explicit.stderr
    assert len(explicit.stderr.strip().splitlines()) == 2
    assert_known_finding(explicit)


def test_paths_with_spaces_and_non_ascii(project):
    weird = project / "dir with space" / "trâin é 数据.py"
    weird.parent.mkdir()
    weird.write_text(KNOWN)
    outcome = run(".")
    assert ("dir with space/trâin é 数据.py", 2, 31, "PL101") in outcome.keys()
    assert_known_finding(outcome)
    concise = run("dir with space", "good.py", fmt="concise")
    assert "dir with space/trâin é 数据.py:2:31: PL101" in concise.stdout
    sarif = json.loads(run(".", fmt="sarif").stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert "dir%20with%20space/tr%C3%A2in%20%C3%A9%20%E6%95%B0%E6%8D%AE.py" in uris


def _undecodable_name(project: Path) -> Path:
    if sys.platform in ("darwin", "win32"):
        pytest.skip("the filesystem only stores valid Unicode names")
    path = Path(os.fsdecode(os.fsencode(str(project)) + b"/bad\xffname.py"))
    try:
        path.write_text(KNOWN)
    except (OSError, UnicodeEncodeError):
        pytest.skip("the filesystem refuses a non-UTF-8 file name")
    return path


def test_non_utf8_file_name_json(project):
    _undecodable_name(project)
    outcome = run(".")
    assert len([f for f in outcome.findings if f["code"] == "PL101"]) == 2
    assert_known_finding(outcome)


def test_non_utf8_file_name_sarif(project):
    _undecodable_name(project)
    outcome = run(".", fmt="sarif")
    assert len(json.loads(outcome.stdout)["runs"][0]["results"]) == 2


def test_non_utf8_file_name_output_file(project):
    _undecodable_name(project)
    outcome = run(".", "-o", "report.txt", fmt="concise")
    assert outcome.exit_code == 1
    assert "good.py:2:31: PL101" in Path("report.txt").read_text(encoding="utf-8", errors="replace")


def test_empty_directory(project):
    (project / "empty").mkdir()
    alone = run("empty", fmt=None)
    assert alone.exit_code == 0
    assert alone.stdout.strip() in ("", "All checks passed!")
    assert run("empty").stdout.strip() == ""  # json-lines: nothing
    assert json.loads(run("empty", fmt="json").stdout) == []
    with_good = run("empty", "good.py")
    assert with_good.exit_code == 1
    assert_known_finding(with_good)


def test_directory_named_like_a_python_file(project):
    (project / "pkg.py").mkdir()
    (project / "pkg.py" / "inner.py").write_text(KNOWN)
    outcome = run(".")
    assert ("pkg.py/inner.py", 2, 31, "PL101") in outcome.keys()
    assert_known_finding(outcome)


# ---------------------------------------------------------------------------------- config


@pytest.mark.parametrize("filename,content,needles", [
    ("pipelint.toml", "select = [\n", ("pipelint.toml", "invalid TOML")),
    ("pyproject.toml", "[tool.pipelint]\nselect = ['PL101'\n", ("pyproject.toml", "invalid TOML")),
    ("pyproject.toml", b"[tool.pipelint]\nselect = ['PL101']\nx = '\xff'\n", ("pyproject.toml", "UTF-8")),
    ("pyproject.toml", "[tool]\npipelint = 5\n", ("pyproject.toml", "tool.pipelint")),
    ("pyproject.toml", "[tool.pipelint]\nrespect-gitignore = 'yes'\n", ("respect-gitignore", "boolean")),
    ("pyproject.toml", "[tool.pipelint]\nforce-exclude = 1\n", ("force-exclude", "boolean")),
    ("pyproject.toml", "[tool.pipelint]\nselect = [1, 2]\n", ("'select'", "list of strings")),
    ("pyproject.toml", "[tool.pipelint]\nexclude = 'build'\n", ("'exclude'", "list of strings")),
    ("pyproject.toml", "[tool.pipelint]\nper-file-ignores = ['a']\n", ("per-file-ignores",)),
    ("pyproject.toml", "[tool.pipelint.per-file-ignores]\n'a.py' = 'PL101'\n", ("per-file-ignores", "a.py")),
    ("pyproject.toml", "[tool.pipelint.rules]\nPL205 = 3\n", ("PL205", "table")),
    ("pyproject.toml", "[tool.pipelint.rules.PL205]\nmin-buffer-size = 'big'\n", ("min-buffer-size", "int")),
    ("pyproject.toml", "[tool.pipelint.rules.PL205]\nmin-buffer-size = true\n", ("min-buffer-size", "int")),
    ("pyproject.toml", "[tool.pipelint.rules.PL205]\nno-such-option = 1\n", ("no-such-option",)),
    ("pyproject.toml", "[tool.pipelint.rules.PL999]\nx = 1\n", ("PL999",)),
    ("pyproject.toml", "[tool.pipelint]\nignore = ['NOPE']\n", ("NOPE",)),
])
def test_bad_config_is_one_line_and_exit_2(project, filename, content, needles):
    path = project / filename
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    outcome = run(".")
    assert outcome.exit_code == 2
    assert_one_line_error(outcome, *needles)


def test_bad_config_in_a_subdirectory_is_one_line_and_exit_2(project):
    (project / "sub").mkdir()
    (project / "sub" / "pyproject.toml").write_text("[tool.pipelint\n")
    (project / "sub" / "x.py").write_text(KNOWN)
    outcome = run(".")
    assert outcome.exit_code == 2
    assert_one_line_error(outcome, "pyproject.toml", "invalid TOML")


def test_config_option_that_is_a_directory(project):
    (project / "conf").mkdir()
    outcome = run(".", "--config", "conf")
    assert outcome.exit_code == 2
    assert_one_line_error(outcome, "conf")


@pytest.mark.parametrize("option,value", [
    ("--select", "PL1,NOPE"),
    ("--select", "PL9"),
    ("--extend-select", "X1"),
    ("--ignore", "PL101x"),
    ("--select", "PL10 1"),
])
def test_unknown_rule_code_on_the_command_line(project, option, value):
    argv = [".", option, value] + ([] if option == "--select" else ["--select", "ALL"])
    outcome = run(*argv)
    assert outcome.exit_code == 2
    assert_one_line_error(outcome)
    assert value.split(",")[-1].strip().upper() in outcome.stderr.upper()


def test_lowercase_and_spaced_selectors_are_accepted(project):
    outcome = run(".", "--select", " pl101 , PL2")
    assert outcome.exit_code == 1
    assert_known_finding(outcome)


def test_unknown_code_in_noqa_is_pl003_next_to_a_finding(project):
    Path("noqa.py").write_text(KNOWN.rstrip("\n") + "  # noqa: PL999, pl101x\n")
    outcome = run(".")
    codes = outcome.codes_for("noqa.py")
    assert codes.count("PL003") == 2 and "PL101" in codes
    messages = [f["message"] for f in outcome.findings if f["code"] == "PL003"]
    assert any("PL999" in m for m in messages) and any("pl101x" in m for m in messages)
    assert_known_finding(outcome)


def test_unknown_code_in_noqa_is_pl003_in_a_clean_file(project):
    Path("noqa.py").write_text("import tensorflow as tf\nx = 1  # noqa: PL999\n")
    outcome = run(".")
    assert outcome.codes_for("noqa.py") == ["PL003"]
    assert_known_finding(outcome)


@pytest.mark.parametrize("comment", [
    "# noqa:", "# noqa: ,,", "# noqa: PL101,,PL203", "# NOQA:PL101", "# noqa: \u2603",
    "# pipelint: ignore[]", "# pipelint: ignore[PL101", "# pipelint: ignore[\x0c]",
])
def test_odd_suppression_comments_never_crash(project, comment):
    Path("odd.py").write_text(KNOWN.rstrip("\n") + "  " + comment + "\n")
    outcome = run(".")
    assert outcome.exit_code == 1
    assert all(f["code"] in ("PL101", "PL003") for f in outcome.findings if f["path"] == "odd.py")
    assert_known_finding(outcome)


# ---------------------------------------------------------------------------------- check_file


def test_check_file_on_a_directory_is_pl002(tmp_path):
    settings = load_settings(None, CliOverrides(select=("ALL",)), tmp_path)
    result = check_file(tmp_path, "dir", settings)
    assert [d.code for d in result.diagnostics] == ["PL002"]


# ---------------------------------------------------------------------------------- deep nesting
#
# Generated and vendored code nests deeper than hand-written code: long implicit string
# concatenations (embedded blobs), long `+`/`or` chains, long attribute or call chains. libcst
# represents each as a right- or left-nested tree, so every recursive walk over it (the pipeline
# model, rules that visit the module, position metadata, `module.code`) recurses once per term.

_NEST_BAD = "recursive walks over libcst's nested tree exceed the recursion limit: valid code gets PL000 " \
            "(pipelint/model/expressions.py Expressions._eval/_eval_expression) and the file's real findings are lost"


def _deep_valid(kind: str, n: int) -> str:
    return {
        "implicit-string-concatenation": "BLOB = (\n" + '    "ab"\n' * n + ")\n",
        "binary-operation-chain": "X = " + " + ".join(["1"] * n) + "\n",
        "boolean-operation-chain": "X = " + " or ".join(["a"] * n) + "\n",
        "method-call-chain": "Y = obj" + ".foo()" * n + "\n",
        "dataset-method-chain": "Z = tf.data.Dataset.range(3)" + ".map(f, num_parallel_calls=tf.data.AUTOTUNE)" * n + "\n",
        "attribute-chain": "V = a" + ".b" * n + "\n",
        "subscript-chain": "V = a" + "[0]" * n + "\n",
        "unary-chain": "V = " + "-" * n + "1\n",
        "elif-chain": "def f(x):\n    if x == 0:\n        return 0\n"
                      + "".join(f"    elif x == {i}:\n        return {i}\n" for i in range(1, n)),
        "lambda-chain": "V = " + "lambda: " * n + "1\n",
        "dataset-reassignments": "d = tf.data.Dataset.range(3)\n" + "d = d.map(f, num_parallel_calls=tf.data.AUTOTUNE)\n" * n,
    }[kind]


@pytest.mark.parametrize("kind", [
    "implicit-string-concatenation",
    "binary-operation-chain",
    "boolean-operation-chain",
    "method-call-chain",
    "dataset-method-chain",
    "attribute-chain",
    "subscript-chain",
    "unary-chain",
    "elif-chain",
    "lambda-chain",
    "dataset-reassignments",
])
def test_deeply_nested_valid_code_is_linted(project, kind):
    source = KNOWN + _deep_valid(kind, 1000)
    assert compile(source, "deep.py", "exec") is not None  # CPython accepts it
    Path("deep.py").write_text(source)
    outcome = run(".")
    assert "PL000" not in outcome.codes_for("deep.py"), outcome.stdout
    assert "PL001" not in outcome.codes_for("deep.py"), outcome.stdout
    assert ("deep.py", 2, 31, "PL101") in outcome.keys()
    assert_known_finding(outcome)


@pytest.mark.xfail(strict=True, reason="libcst's parser gives up on ~3000+ implicitly concatenated "
                   "strings ('expected one of STRING'), and engine.lint_source reports that as PL001 "
                   "although CPython compiles the file")
def test_very_long_implicit_concatenation_is_not_a_parse_error(project):
    source = KNOWN + _deep_valid("implicit-string-concatenation", 5000)
    compile(source, "blob.py", "exec")
    Path("blob.py").write_text(source)
    outcome = run(".")
    assert "PL001" not in outcome.codes_for("blob.py")


@pytest.mark.parametrize("depth", [400, 1000])
def test_too_deeply_nested_brackets_are_pl001(project, depth):
    source = KNOWN + "W = " + "[" * depth + "1" + "]" * depth + "\n"
    with pytest.raises(SyntaxError):
        compile(source, "nested.py", "exec")
    Path("nested.py").write_text(source)
    outcome = run(".")
    assert outcome.codes_for("nested.py") == ["PL001"]
    assert_known_finding(outcome)


@pytest.mark.parametrize("kind,content", [
    ("valid", "import tensorflow as tf\nds = tf.data.Dataset.range(4)\nX = " + " or ".join(["a"] * 12_000) + "\n"),
    ("invalid", "import tensorflow as tf\nds = tf.data.Dataset.range(4)\nW = " + "(" * 3000 + "1" + ")" * 3000 + "\n"),
])
def test_input_that_crashes_libcst_does_not_kill_the_run(project, kind, content):
    Path("crash.py").write_text(content)
    result = subprocess.run(
        [sys.executable, "-m", "pipelint", "check", "crash.py", "good.py", "--select", "ALL",
         "--output-format", "json-lines"], capture_output=True, text=True, timeout=300)
    assert result.returncode in (1, 2), (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    found = {(f["path"], f["line"], f["code"]) for f in map(json.loads, result.stdout.splitlines())}
    assert ("good.py", 2, "PL101") in found
    crash_codes = {code for path, _, code in found if path == "crash.py"}
    # valid code is linted like any other (it has no finding); invalid code is a PL001
    assert crash_codes == (set() if kind == "valid" else {"PL001"})
