"""benchmarks/differential.py: the same tree twice says identical, with the right counts; a changed
message is a difference."""
import json
import shutil

import pipelint
from benchmarks import differential

ROOT = differential.ROOT


def test_same_tree_twice_is_identical(tmp_path, capsys):
    corpus = tmp_path / "tiny"
    corpus.mkdir()
    shutil.copy(ROOT / "examples" / "custom_loop.py", corpus / "custom_loop.py")
    (corpus / "clean.py").write_text("def add(a, b):\n    return a + b\n")
    expected = len(pipelint.check_paths([corpus], select=["ALL"]))
    assert expected > 0  # something to compare

    status = differential.main(["--base", "HEAD", "--corpus", str(corpus), "--jobs", "1"])

    printed = capsys.readouterr().out
    assert status == 0, printed
    assert f"tiny: identical: 2 files, {expected} findings [wall base " in printed
    assert f"total: identical (1/1 corpora identical): 2 files, {expected} findings" in printed
    assert "base: HEAD (" in printed and "load average after" in printed


def _finding(message: str, **changes) -> dict:
    finding = {"path": "a.py", "cell": None, "line": 3, "column": 1, "end_line": 3, "end_column": 9,
               "code": "PL205", "name": "tiny-shuffle-buffer", "message": message, "severity": "warning",
               "impact": "correctness", "fix": None}
    return {**finding, **changes}


def _run(*findings: dict, stderr: bytes = b"", returncode: int = 0) -> differential.Run:
    return differential.Run(json.dumps(list(findings)).encode(), stderr, returncode, files=1)


def test_a_changed_message_is_a_difference():
    same = _finding("the same", line=1)
    base = _run(same, _finding("shuffle buffer of 50 elements barely mixes the data"))
    new = _run(_finding("shuffle buffer of 50 elements hardly mixes the data"), same)

    comparison = differential.compare(base, new)

    assert not comparison.identical
    assert comparison.findings == 2 and not comparison.same_bytes
    assert [f[7] for f in comparison.only_base] == ["shuffle buffer of 50 elements barely mixes the data"]
    assert [f[7] for f in comparison.only_new] == ["shuffle buffer of 50 elements hardly mixes the data"]
    lines = differential.report("tiny", comparison, base, new)
    assert lines[0].startswith("tiny: DIFFERENT: 1 finding only in base, 1 only in new")
    assert lines[1] == "  - base: a.py:3:1-3:9 PL205 shuffle buffer of 50 elements barely mixes the data"
    assert lines[2] == "  + new : a.py:3:1-3:9 PL205 shuffle buffer of 50 elements hardly mixes the data"


def test_order_alone_is_no_difference_but_a_repeat_stderr_or_exit_code_is():
    one, two = _finding("one"), _finding("two", line=4)
    reordered = differential.compare(_run(one, two), _run(two, one))
    assert reordered.identical and not reordered.same_bytes

    assert differential.compare(_run(one), _run(one, one)).only_new == [differential.findings(
        json.dumps([one]).encode()).most_common(1)[0][0]]
    assert not differential.compare(_run(one), _run(one, stderr=b"boom")).identical
    assert not differential.compare(_run(one), _run(one, returncode=2)).identical
    fixed = _finding("one", fix={"applicability": "safe", "edits": []})
    assert not differential.compare(_run(one), _run(fixed)).identical
