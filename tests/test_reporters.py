"""The output formats. Diagnostics are built by hand: no test depends on a particular rule existing."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Impact, Severity
from pipelint.reporters import FORMATS, render, render_statistics
from pipelint.reporters import sarif as sarif_module
from pipelint.reporters.github import escape_data, escape_property

ANSI = re.compile(r"\x1b\[")
NASTY = 'line one\nline two, with: colons 100% <&> "quotes" \'single\'\r\nend'
TO_DICT_KEYS = {
    "path", "cell", "line", "column", "end_line", "end_column", "code", "name", "message", "severity", "impact", "fix",
}

SOURCE = (
    "import tensorflow as tf\n"
    "ds = tf.data.Dataset.range(10)\n"
    "ds = ds.map(lambda x:\n"
    "    x + 1,\n"
    ")\n"
    "\tds = ds.batch(32)  # '日本'\n"
)


def diag(path, line=1, column=1, end_line=None, end_column=None, code="PL901", name="fake-rule",
         message="something is slow", severity=Severity.WARNING, fix=None, impact=Impact.SPEED) -> Diagnostic:
    return Diagnostic(
        path=str(path), line=line, column=column,
        end_line=line if end_line is None else end_line,
        end_column=column + 1 if end_column is None else end_column,
        code=code, name=name, message=message, severity=severity, impact=impact, fix=fix,
    )


SAFE_FIX = Fix(Applicability.SAFE, (Edit(2, 1, 2, 3, "xx"),))
UNSAFE_FIX = Fix(Applicability.UNSAFE, (Edit(2, 1, 2, 3, "yy"),))


@pytest.fixture
def src(tmp_path, monkeypatch) -> Path:
    """A source file, addressed by a path relative to the (temporary) working directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    path = tmp_path / "pkg" / "data.py"
    path.write_text(SOURCE, encoding="utf-8")
    return Path("pkg") / "data.py"


@pytest.fixture
def sample(src) -> list[Diagnostic]:
    return [
        diag(src, 2, 6, 2, 31, code="PL901", name="fake-rule", message="map is slow", fix=SAFE_FIX),
        diag(src, 3, 6, 5, 2, code="PL902", name="other-rule", message=NASTY,
             severity=Severity.ERROR),
        diag(src, 6, 2, 6, 18, code="PL903", name="info-rule", message="batch it", severity=Severity.INFO,
             fix=UNSAFE_FIX),
    ]


# --------------------------------------------------------------------------- dispatch / common


def test_formats_tuple():
    assert FORMATS == ("full", "concise", "json", "json-lines", "sarif", "github", "junit")


def test_unknown_format_raises():
    with pytest.raises(ValueError, match="unknown output format"):
        render([], "xml")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_handles_empty_input(fmt, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = render([], fmt)
    assert isinstance(out, str)
    assert not ANSI.search(out)


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_ansi_without_color(fmt, sample):
    out = render(sample, fmt, color=False, files_checked=2)
    assert not ANSI.search(out)
    assert "\x1b" not in out


@pytest.mark.parametrize("fmt", ["full", "concise"])
def test_color_only_when_asked(fmt, sample):
    assert ANSI.search(render(sample, fmt, color=True))
    assert not ANSI.search(render(sample, fmt, color=False))


@pytest.mark.parametrize("fmt", ["json", "json-lines", "sarif", "github", "junit"])
def test_machine_formats_never_coloured(fmt, sample):
    assert render(sample, fmt, color=True) == render(sample, fmt, color=False)


@pytest.mark.parametrize("fmt", FORMATS)
def test_output_is_deterministic(fmt, sample):
    assert render(sample, fmt) == render(sample, fmt)


@pytest.mark.parametrize("fmt", ["full", "concise"])
def test_control_characters_in_messages_do_not_reach_the_terminal(fmt, src):
    d = diag(src, message="evil \x1b[31mred\x1b[0m \x07bell")
    out = render([d], fmt)
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[31mred" in out


# --------------------------------------------------------------------------- concise


def test_concise_lines_and_summary(sample, src):
    out = render(sample, "concise")
    lines = out.splitlines()
    assert len(lines) == 4  # one per finding (newlines in messages folded) + summary
    assert lines[0] == f"{src}:2:6: PL901 [*] map is slow"
    assert lines[1].startswith(f"{src}:3:6: PL902 line one")
    assert "[*]" not in lines[1]
    assert "line two, with: colons 100% <&> \"quotes\" 'single' end" in lines[1]
    assert lines[2].startswith(f"{src}:6:2: PL903 [*] batch it")
    assert lines[3] == "Found 3 findings (3 speed; 2 fixable with --fix)."
    assert out.endswith("\n")


def test_concise_empty():
    assert render([], "concise") == "All checks passed!\n"


def test_concise_singular_summary(src):
    assert render([diag(src)], "concise").splitlines()[-1] == "Found 1 finding (1 speed; 0 fixable with --fix)."


# --------------------------------------------------------------------------- full


def test_full_snippet_and_caret(sample, src):
    out = render(sample, "full")
    assert out.startswith(f"{src}:2:6: PL901 [*] map is slow\n")
    lines = out.splitlines()
    source_row = lines.index("2 | ds = tf.data.Dataset.range(10)")
    caret_row = lines[source_row + 1]
    assert caret_row == "  |      " + "^" * 25 + " PL901"
    # the caret starts under column 6 ('t' of tf)
    assert caret_row.index("^") - len("  | ") == 5
    assert "help: Safe fix available" in out
    assert "Unsafe fix available" in out
    assert out.rstrip("\n").endswith("Found 3 findings (3 speed; 2 fixable with --fix).")


def test_full_multiline_range(sample):
    out = render(sample, "full")
    assert "3 | ds = ds.map(lambda x:" in out
    assert "4 |     x + 1," in out
    assert "5 | )" in out
    assert "  | ^ PL902" in out  # the last line of the range carries the code label


def test_full_expands_tabs_and_wide_characters(src):
    # line 6 is "\tds = ds.batch(32)  # '日本'"; underline "'日本'" (cols 23..27)
    line = SOURCE.splitlines()[5]
    start = line.index("'") + 1
    d = diag(src, 6, start, 6, start + 4, code="PL904")
    lines = render([d], "full").splitlines()
    row = next(i for i, text in enumerate(lines) if text.startswith("6 | "))
    shown, carets = lines[row], lines[row + 1]
    assert "\t" not in shown
    assert shown == "6 |     ds = ds.batch(32)  # '日本'"
    # the quote sits 4 (tab) + 21 cells in; two wide characters take 2 cells each
    assert carets == "  | " + " " * 25 + "^" * 6 + " PL904"


def test_full_help_links_docs_without_fix(src):
    d = diag(src, code="PL905", name="no-fix")
    out = render([d], "full")
    assert f"help: see {d.url}" in out


def test_full_unreadable_file_omits_snippet(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = diag("does/not/exist.py", 3, 1, code="PL001", name="parse-error")
    out = render([d], "full")
    assert out.startswith("does/not/exist.py:3:1: PL001 something is slow\n")
    assert " | " not in out
    assert "help:" in out


def test_full_position_past_end_of_file(src):
    out = render([diag(src, 99, 1)], "full")
    assert "99 |" not in out
    assert "help:" in out


def test_full_empty():
    assert render([], "full") == "All checks passed!\n"


def test_full_reads_invalid_utf8(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("bad.py").write_bytes(b"x = '\xff\xfe'\n")
    out = render([diag("bad.py", 1, 1, 1, 2)], "full")
    assert "1 | x = '" in out


# --------------------------------------------------------------------------- json / json-lines


def test_json_is_exactly_to_dict(sample):
    data = json.loads(render(sample, "json"))
    assert data == [d.to_dict() for d in sample]
    for obj in data:
        assert set(obj) == TO_DICT_KEYS
    assert data[0]["fix"]["applicability"] == "safe"
    assert data[1]["fix"] is None
    assert data[1]["message"] == NASTY


def test_json_empty():
    assert json.loads(render([], "json")) == []


def test_json_lines_one_object_per_line(sample):
    out = render(sample, "json-lines")
    lines = out.splitlines()
    assert len(lines) == len(sample)
    assert [json.loads(line) for line in lines] == [d.to_dict() for d in sample]
    assert all(set(json.loads(line)) == TO_DICT_KEYS for line in lines)


def test_json_lines_empty():
    assert render([], "json-lines") == ""


# --------------------------------------------------------------------------- github


def test_github_escaping_functions():
    assert escape_data("a%b\r\nc: d, e") == "a%25b%0D%0Ac: d, e"
    assert escape_property("a%b\r\nc: d, e") == "a%25b%0D%0Ac%3A d%2C e"


def test_github_commands(sample, src):
    lines = render(sample, "github").splitlines()
    assert len(lines) == 3
    assert lines[0] == (
        f"::warning file={src.as_posix()},line=2,col=6,endLine=2,endColumn=31,"
        f"title=PL901 (fake-rule)::map is slow"
    )
    assert lines[1].startswith("::error ")
    assert lines[2].startswith("::notice ")
    # the message data: %, CR and LF escaped; commas and colons kept
    assert lines[1].endswith(
        "::line one%0Aline two, with: colons 100%25 <&> \"quotes\" 'single'%0D%0Aend"
    )


def test_github_property_escaping(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = diag("dir,x/a:b%.py", code="PL906", name="n,a:m", message="m")
    line = render([d], "github").rstrip("\n")
    assert "file=dir%2Cx/a%3Ab%25.py," in line
    assert "title=PL906 (n%2Ca%3Am)::m" in line
    # exactly one unescaped '::' separator after the command name
    assert line.count("::") == 2


def test_github_empty():
    assert render([], "github") == ""


# --------------------------------------------------------------------------- sarif


class _FakeRule:
    code = "PL950"
    name = "fake-registered"
    severity = Severity.ERROR
    summary = "A fake rule's one-line summary."
    docs = "## What it does\nFakes things.\n"
    fixable = Applicability.SAFE


@pytest.fixture
def fake_registry(monkeypatch):
    monkeypatch.setattr(sarif_module, "all_rules", lambda: {"PL950": _FakeRule})


def _sarif(diagnostics) -> dict:
    return json.loads(render(diagnostics, "sarif"))


def test_sarif_required_structure(sample, fake_registry):
    log = _sarif(sample)
    assert log["version"] == "2.1.0"
    assert "sarif" in log["$schema"]
    assert len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "pipelint"
    assert driver["informationUri"].startswith("https://")
    assert isinstance(driver["version"], str) and driver["version"]
    assert "%SRCROOT%" in run["originalUriBaseIds"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file://")
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == sorted(set(ids))
    assert len(run["results"]) == len(sample)
    for result, d in zip(run["results"], sample, strict=True):
        assert result["ruleId"] == d.code
        assert driver["rules"][result["ruleIndex"]]["id"] == d.code
        assert result["message"]["text"] == d.message
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"] == {"uri": "pkg/data.py", "uriBaseId": "%SRCROOT%"}
        assert loc["region"] == {
            "startLine": d.line, "startColumn": d.column,
            "endLine": d.end_line, "endColumn": d.end_column,
        }
        assert re.fullmatch(r"[0-9a-f]{16}:\d+", result["partialFingerprints"]["primaryLocationLineHash"])


def test_sarif_levels(sample, fake_registry):
    levels = [r["level"] for r in _sarif(sample)["runs"][0]["results"]]
    assert levels == ["warning", "error", "note"]


def test_sarif_registered_rule_metadata(src, fake_registry):
    log = _sarif([diag(src, code="PL950", name="fake-registered")])
    driver = log["runs"][0]["tool"]["driver"]
    (rule,) = [r for r in driver["rules"] if r["id"] == "PL950"]
    assert rule["name"] == "fake-registered"
    assert rule["shortDescription"]["text"] == _FakeRule.summary
    assert rule["fullDescription"]["text"] == _FakeRule.docs
    assert rule["help"]["markdown"] == _FakeRule.docs
    assert rule["help"]["text"] == _FakeRule.docs
    assert rule["helpUri"].startswith("https://") and "pl950-fake-registered" in rule["helpUri"]
    assert rule["defaultConfiguration"]["level"] == "error"
    assert log["runs"][0]["results"][0]["ruleIndex"] == driver["rules"].index(rule)


def test_sarif_registered_rules_listed_even_without_findings(fake_registry, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    log = _sarif([])
    assert [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]] == ["PL950"]
    assert log["runs"][0]["results"] == []


def test_sarif_unregistered_code_falls_back(src, fake_registry):
    log = _sarif([diag(src, code="PL999", name="mystery", severity=Severity.INFO)])
    (rule,) = [r for r in log["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "PL999"]
    assert rule["name"] == "mystery"
    assert rule["shortDescription"]["text"]
    assert rule["fullDescription"]["text"]
    assert rule["defaultConfiguration"]["level"] == "note"


def test_sarif_with_the_real_registry(sample):
    log = _sarif(sample)  # whatever rules exist right now must render
    driver = log["runs"][0]["tool"]["driver"]
    assert {d.code for d in sample} <= {r["id"] for r in driver["rules"]}
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")


def _hashes(log: dict) -> list[str]:
    return [r["partialFingerprints"]["primaryLocationLineHash"] for r in log["runs"][0]["results"]]


def test_sarif_fingerprints_stable_and_distinct(src, fake_registry):
    same_line = [
        diag(src, 2, 1, code="PL901", name="a"),
        diag(src, 2, 1, code="PL902", name="b"),
    ]
    first = _hashes(_sarif(same_line))
    second = _hashes(_sarif(same_line))
    assert first == second
    assert first[0] != first[1]


def test_sarif_fingerprint_survives_line_moves(tmp_path, monkeypatch, fake_registry):
    monkeypatch.chdir(tmp_path)
    Path("m.py").write_text("ds = ds.map(f)\n", encoding="utf-8")
    before = _sarif([diag("m.py", 1, 6)])["runs"][0]["results"][0]["partialFingerprints"]
    Path("m.py").write_text("import os\n\nds = ds.map(f)\n", encoding="utf-8")
    after = _sarif([diag("m.py", 3, 6)])["runs"][0]["results"][0]["partialFingerprints"]
    assert before == after


def test_sarif_fingerprint_occurrence_index(tmp_path, monkeypatch, fake_registry):
    monkeypatch.chdir(tmp_path)
    Path("m.py").write_text("ds = ds.map(f)\nds = ds.map(f)\n", encoding="utf-8")
    results = _sarif([diag("m.py", 1, 6), diag("m.py", 2, 6)])["runs"][0]["results"]
    hashes = [r["partialFingerprints"]["primaryLocationLineHash"] for r in results]
    assert hashes[0].split(":")[0] == hashes[1].split(":")[0]
    assert [h.split(":")[1] for h in hashes] == ["1", "2"]


def test_sarif_uri_encoding(tmp_path, monkeypatch, fake_registry):
    monkeypatch.chdir(tmp_path)
    paths = ["sub dir/my file%.py", "./a/b.py", "a\\win.py", str(tmp_path / "abs" / "x.py"), "ü.py"]
    results = _sarif([diag(p) for p in paths])["runs"][0]["results"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in results]
    assert uris[0] == {"uri": "sub%20dir/my%20file%25.py", "uriBaseId": "%SRCROOT%"}
    assert uris[1] == {"uri": "a/b.py", "uriBaseId": "%SRCROOT%"}
    assert uris[2]["uri"] == "a/win.py"
    assert uris[3] == {"uri": "abs/x.py", "uriBaseId": "%SRCROOT%"}
    assert uris[4]["uri"] == "%C3%BC.py"


def test_sarif_absolute_path_outside_root(tmp_path, monkeypatch, fake_registry):
    (tmp_path / "root").mkdir()
    monkeypatch.chdir(tmp_path / "root")
    outside = tmp_path / "elsewhere.py"
    loc = _sarif([diag(str(outside))])["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == outside.as_uri()
    assert "uriBaseId" not in loc["artifactLocation"]


# --------------------------------------------------------------------------- junit


def test_junit_structure_and_escaping(sample, src):
    out = render(sample, "junit", files_checked=5)
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    root = ET.fromstring(out.encode("utf-8"))
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "pipelint"
    assert suite.get("tests") == "5"
    assert suite.get("failures") == "1"
    (case,) = suite.findall("testcase")
    assert case.get("name") == str(src)
    failures = case.findall("failure")
    assert [f.get("type") for f in failures] == ["PL901", "PL902", "PL903"]
    assert failures[1].get("message") == NASTY  # CR/LF survive as character references
    assert "line 3, col 6" in failures[1].text
    assert '<&> "quotes"' in failures[1].text


def test_junit_one_testcase_per_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ds = [diag("a.py"), diag("a.py", 2), diag("b<&>.py")]
    root = ET.fromstring(render(ds, "junit"))
    cases = root.find("testsuite").findall("testcase")
    assert [c.get("name") for c in cases] == ["a.py", "b<&>.py"]
    assert [len(c.findall("failure")) for c in cases] == [2, 1]
    assert root.find("testsuite").get("tests") == "2"


def test_junit_strips_characters_xml_cannot_carry(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = ET.fromstring(render([diag("a.py", message="bad \x00\x01\x1b char")], "junit"))
    failure = root.find("testsuite/testcase/failure")
    assert "\x00" not in failure.get("message") and "char" in failure.get("message")


def test_junit_empty():
    root = ET.fromstring(render([], "junit", files_checked=3))
    suite = root.find("testsuite")
    assert suite.get("failures") == "0"
    assert suite.get("tests") == "3"
    assert suite.findall("testcase/failure") == []


# --------------------------------------------------------------------------- statistics


def test_statistics_sorted_by_count_then_code(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ds = [
        diag("a.py", code="PL902", name="second"),
        diag("a.py", code="PL901", name="first", fix=SAFE_FIX),
        diag("a.py", code="PL903", name="third"),
        diag("b.py", code="PL903", name="third"),
        diag("b.py", code="PL901", name="first"),
        diag("c.py", code="PL910", name="tenth"),
    ]
    rows = [line.split("\t") for line in render_statistics(ds).splitlines()]
    assert [(r[0].strip(), r[1].strip()) for r in rows] == [
        ("2", "PL901"), ("2", "PL903"), ("1", "PL902"), ("1", "PL910"),
    ]
    assert rows[0][2] == "[*] first"
    assert rows[1][2] == "    third"
    assert not ANSI.search(render_statistics(ds))
    assert ANSI.search(render_statistics(ds, color=True))


def test_statistics_empty():
    assert render_statistics([]) == ""
