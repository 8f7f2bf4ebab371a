"""`pipelint` from the command line: exit codes, formats, fixes, config errors, bad paths."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipelint.cli import main

SERIAL_MAP = "import tensorflow as tf\nds = tf.data.Dataset.range(4).map(lambda x: load(x))\n"
CLEAN = "import tensorflow as tf\nds = tf.data.Dataset.range(4).map(lambda x: load(x), num_parallel_calls=tf.data.AUTOTUNE)\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "train.py").write_text(SERIAL_MAP)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_exit_codes(project):
    assert run("check", "train.py", "--select", "PL101").exit_code == 1
    assert run("check", "clean.py", "--select", "PL101").exit_code == 0
    assert run("check", "train.py", "--select", "PL101", "--exit-zero").exit_code == 0


def test_json_output_has_exactly_the_documented_keys(project):
    result = run("check", ".", "--select", "PL101", "--output-format", "json")
    (item,) = json.loads(result.output)
    assert list(item) == ["path", "cell", "line", "column", "end_line", "end_column", "code", "name",
                          "message", "severity", "impact", "fix"]
    assert item["path"] == "train.py" and item["code"] == "PL101"
    assert set(item["fix"]) == {"applicability", "edits"}


def test_sarif_and_github_formats(project):
    sarif = json.loads(run("check", ".", "--select", "PL101", "--output-format", "sarif").output)
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"][0]["ruleId"] == "PL101"
    github = run("check", ".", "--select", "PL101", "--output-format", "github").output
    assert github.startswith("::warning file=train.py,line=2,col=31")


def test_output_file_and_statistics(project):
    assert run("check", ".", "--select", "PL101", "-o", "report.json", "--output-format", "json").exit_code == 1
    assert json.loads(Path("report.json").read_text())[0]["code"] == "PL101"
    stats = run("check", ".", "--select", "PL101", "--statistics").output
    assert "PL101" in stats and "map-without-parallelism" in stats


def test_fix_writes_and_diff_does_not(project):
    diff = run("check", "train.py", "--select", "PL101", "--diff")
    assert diff.exit_code == 1 and "+ds = tf.data.Dataset.range(4).map(lambda x: load(x), num_parallel_calls" in diff.output
    assert Path("train.py").read_text() == SERIAL_MAP
    fixed = run("check", "train.py", "--select", "PL101", "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert Path("train.py").read_text() == CLEAN
    assert run("check", "train.py", "--select", "PL101", "--fix").exit_code == 0  # idempotent


def test_missing_path_reports_and_still_checks_the_rest(project):
    result = CliRunner().invoke(main, ["check", "nope.py", "train.py", "--select", "PL101"])
    assert result.exit_code == 2
    assert "nope.py" in result.output and "PL101" in result.output


@pytest.mark.parametrize("config,needle", [
    ("[tool.pipelint]\nselct = ['PL101']\n", "selct"),
    ("[tool.pipelint]\nselect = 'PL101'\n", "select"),
    ("[tool.pipelint]\nselect = ['PL999']\n", "PL999"),
    ("[tool.pipelint\n", "TOML"),
])
def test_bad_config_is_one_line_and_exit_2(project, config, needle):
    Path("pyproject.toml").write_text(config)
    result = CliRunner().invoke(main, ["check", "."])
    assert result.exit_code == 2
    assert needle in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_unknown_select_code_is_usage_error(project):
    result = CliRunner().invoke(main, ["check", ".", "--select", "PL999"])
    assert result.exit_code == 2 and "PL999" in result.output


def test_config_select_and_per_file_ignores(project):
    Path("pyproject.toml").write_text('[tool.pipelint]\nselect = ["PL101"]\n[tool.pipelint.per-file-ignores]\n"train.py" = ["PL101"]\n')
    assert run("check", ".").exit_code == 0


def test_rules_and_rule_commands():
    listing = run("rules").output
    assert "PL101" in listing and "map-without-parallelism" in listing
    docs = run("rule", "PL101").output
    for section in ("What it does", "Why is this bad?", "Example", "Use instead"):
        assert section in docs
    assert run("rule", "map-without-parallelism").exit_code == 0
    bad = CliRunner().invoke(main, ["rule", "PL999"])
    assert bad.exit_code == 2 and "unknown rule code" in bad.output


def test_no_color_when_not_a_tty(project, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run("check", ".", "--select", "PL101").output


def test_python_dash_m_and_console_script(project):
    result = subprocess.run([sys.executable, "-m", "pipelint", "check", "train.py", "--select", "PL101",
                             "--output-format", "concise"], capture_output=True, text=True)
    assert result.returncode == 1 and "train.py:2:31: PL101" in result.stdout


def test_rules_page_is_up_to_date():
    from pipelint.docs import render_rules_page

    page = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
    assert page.read_text() == render_rules_page(), "run: python -m pipelint.docs > docs/rules.md"


def test_select_PL001_alone_reports_parse_errors(project):
    (project / "broken.py").write_text("import tensorflow as tf\nds = tf.data.Dataset.range(3).map(lambda x: x\n")
    result = run("check", "broken.py", "--select", "PL001", "--output-format", "concise", "--no-cache")
    assert result.exit_code == 1
    assert result.output.startswith("broken.py:2:")
    assert "PL001 SyntaxError: '(' was never closed" in result.output
    assert run("check", "train.py", "--select", "PL001", "--no-cache").exit_code == 0  # valid: clean


def test_a_warm_run_loads_only_what_it_needs(project):
    """Answered from the cache: no engine, no rule, no libcst, no probe, no server, no shell completion."""
    script = ("import sys\nfrom pipelint.cli import main\n"
              "try:\n    main(['check', '.', '-q'])\nexcept SystemExit:\n    pass\n"
              "print(' '.join(sorted(sys.modules)))\n")

    def loaded() -> set[str]:
        done = subprocess.run([sys.executable, "-c", script], cwd=project, capture_output=True, text=True,
                              timeout=300, check=True)
        return set(done.stdout.splitlines()[-1].split())

    assert "libcst" in loaded()  # cold: the files are checked
    warm = loaded()
    unwanted = {"libcst", "pipelint.engine", "pipelint.rules", "pipelint.model", "pipelint.profiler",
                "pipelint.profiler.run.cli", "pipelint.server", "pygls", "click.shell_completion", "tensorflow"}
    assert warm.isdisjoint(unwanted), warm & unwanted
