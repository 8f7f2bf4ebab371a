"""The real-code corpus: its manifest and labels are consistent, extraction checks hashes, and the
benchmark scores extracted files against the labels. The third-party files themselves are not in
the repository; set PIPELINT_REALCODE to a directory made by benchmarks/realcode/extract.py to
also check the real-code targets."""
from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from benchmarks import precision_recall
from benchmarks.realcode import extract
from pipelint.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent
REALCODE = ROOT / "benchmarks" / "realcode"


def _benchmark():
    return precision_recall


def _extract():
    return extract


def test_manifest_pins_every_file():
    files = json.loads((REALCODE / "manifest.json").read_text())["files"]
    assert 40 <= len(files) <= 200
    assert len({f["repository"] for f in files}) >= 5
    seen = set()
    for entry in files:
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]), entry
        assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]), entry
        assert entry["kind"] == ("notebook" if entry["path"].endswith(".ipynb") else "python"), entry
        key = (entry["repository"], entry["path"])
        assert key not in seen, key
        seen.add(key)


def test_labels_refer_to_manifest_files_and_known_rules():
    files = json.loads((REALCODE / "manifest.json").read_text())["files"]
    paths = {f["repository"].replace("/", "__") + "/" + f["path"] for f in files}
    codes = set(all_rules())
    with (REALCODE / "labels.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) >= 60
    keys = set()
    for row in rows:
        assert row["path"] in paths, row
        assert row["code"] in codes, row
        assert row["label"] in ("positive", "negative"), row
        assert row["reason"].strip(), row
        pattern = r"\d+:\d+" if row["path"].endswith(".ipynb") else r"\d+"
        assert re.fullmatch(pattern, row["line"]), row
        key = (row["path"], row["line"], row["code"])
        assert key not in keys, f"labelled twice: {key}"
        keys.add(key)
    positives = {r["code"] for r in rows if r["label"] == "positive"}
    assert {"PL106", "PL202", "PL401"} <= positives


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}).stdout.strip()


def _mirror(tmp_path: Path, files: dict[str, str]) -> tuple[Path, str]:
    repo = tmp_path / "mirrors" / "someone+project"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q")
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "x")
    return tmp_path / "mirrors", _git(repo, "rev-parse", "HEAD")


def _manifest(tmp_path: Path, commit: str, files: dict[str, str], wrong: str = "") -> Path:
    entries = [{"repository": "someone/project", "commit": commit, "path": name,
                "sha256": hashlib.sha256((text + wrong).encode()).hexdigest(),
                "kind": "notebook" if name.endswith(".ipynb") else "python"}
               for name, text in files.items()]
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"files": entries}))
    return path


PIPELINE = ("import tensorflow as tf\n"
            "ds = tf.data.TFRecordDataset(['a']).map(parse)\n"
            "ds = ds.batch(32).shuffle(8)\n"
            "model.fit(ds)\n")


def test_extract_copies_from_a_mirror_and_checks_hashes(tmp_path):
    extract = _extract()
    files = {"train.py": PIPELINE}
    mirrors, commit = _mirror(tmp_path, files)
    good = _manifest(tmp_path, commit, files)
    assert extract.extract(tmp_path / "out", mirrors, offline=True, manifest=good) == []
    assert (tmp_path / "out" / "someone__project" / "train.py").read_text() == PIPELINE
    bad = _manifest(tmp_path, commit, files, wrong="#")
    problems = extract.extract(tmp_path / "out2", mirrors, offline=True, manifest=bad)
    assert len(problems) == 1 and "sha256" in problems[0]
    assert not (tmp_path / "out2" / "someone__project" / "train.py").exists()
    missing = extract.extract(tmp_path / "out3", tmp_path / "nowhere", offline=True, manifest=good)
    assert len(missing) == 1 and "not in any mirror" in missing[0]


def test_unlabelled_extraction_leaves_out_tests_libraries_and_jupyter_copies(tmp_path):
    files = {"train.py": PIPELINE, "data.py": PIPELINE, "other.py": PIPELINE, "tests/test_data.py": PIPELINE,
             ".ipynb_checkpoints/other-checkpoint.py": PIPELINE, "notes.py": "x = 1\n"}
    mirrors, commit = _mirror(tmp_path, files)
    manifest = _manifest(tmp_path, commit, {"train.py": PIPELINE})
    assert _extract().extract_unlabelled(tmp_path / "out", mirrors, manifest=manifest) == 2
    written = sorted(p.name for p in (tmp_path / "out" / "someone__project").rglob("*.py"))
    assert written == ["data.py", "other.py"]


def test_sample_repositories_are_extracted_whole_with_their_root_marker(tmp_path):
    files = {"train.py": PIPELINE, "pkg/data.py": PIPELINE, "notes.py": "x = 1\n", "test_train.py": PIPELINE,
             "src/lib.py": PIPELINE, "venv/lib/python3.8/site-packages/sklearn/_data.py": PIPELINE,
             "13_데이터/13.1_API.py": PIPELINE}
    mirrors, commit = _mirror(tmp_path, files)
    listing = tmp_path / "sample_repos.json"
    listing.write_text(json.dumps({"description": "x", "repositories": [
        {"repository": "someone/project", "commit": commit},
        {"repository": "nobody/unmirrored", "commit": commit}]}))
    written, missing = _extract().extract_sample_repos(tmp_path / "out", mirrors, sample_repos=listing)
    root = tmp_path / "out" / "someone__project"
    assert written == 3 and missing == ["nobody/unmirrored"]
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")) == \
        ["13_데이터/13.1_API.py", "pkg/data.py", "train.py"]
    assert (root / ".git").is_dir()
    assert not (tmp_path / "out" / "nobody__unmirrored").exists()


def test_a_file_whose_blob_the_mirror_lacks_is_skipped(tmp_path):
    mirrors, commit = _mirror(tmp_path, {"train.py": PIPELINE, "big.ipynb": PIPELINE + "# big\n"})
    repo = mirrors / "someone+project"
    blob = _git(repo, "rev-parse", f"{commit}:big.ipynb")
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # a snapshot that lists the file but lacks it
    listing = tmp_path / "sample_repos.json"
    listing.write_text(json.dumps({"repositories": [{"repository": "someone/project", "commit": commit}]}))
    assert _extract().extract_sample_repos(tmp_path / "out", mirrors, sample_repos=listing) == (1, [])


def test_the_sample_repositories_are_pinned_and_not_in_the_manifest():
    manifest = {f["repository"] for f in json.loads((REALCODE / "manifest.json").read_text())["files"]}
    entries = _extract().load_sample_repos()
    assert len(entries) >= 20
    assert len({e["repository"] for e in entries}) == len(entries)
    for entry in entries:
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]), entry
        assert entry["repository"] not in manifest, entry
        assert isinstance(entry.get("set"), int) and entry["set"] >= 1, entry
    assert len(_extract().load_sample_repos(sample_set=2)) >= 20  # the second fresh sample


def test_only_sample_repos_needs_unlabelled(tmp_path, capsys):
    with pytest.raises(SystemExit):
        _extract().main([str(tmp_path / "out"), "--only-sample-repos"])
    with pytest.raises(SystemExit):
        _extract().main([str(tmp_path / "out"), "--unlabelled", "--sample-set", "2"])


def test_a_sample_set_extracts_only_its_own_repositories(tmp_path):
    mirrors, commit = _mirror(tmp_path, {"train.py": PIPELINE})
    other = mirrors / "someone+other"
    other.mkdir()
    _git(other, "init", "-q")
    (other / "data.py").write_text(PIPELINE)
    _git(other, "add", ".")
    _git(other, "commit", "-qm", "x")
    listing = tmp_path / "sample_repos.json"
    listing.write_text(json.dumps({"repositories": [
        {"repository": "someone/project", "commit": commit, "set": 1},
        {"repository": "someone/other", "commit": _git(other, "rev-parse", "HEAD"), "set": 2},
        {"repository": "nobody/unmirrored", "commit": commit, "set": 1}]}))
    extract = _extract()
    assert [e["repository"] for e in extract.load_sample_repos(listing, sample_set=2)] == ["someone/other"]
    assert extract.extract_sample_repos(tmp_path / "out", mirrors, sample_repos=listing, sample_set=2) == (1, [])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["someone__other"]
    assert (tmp_path / "out" / "someone__other" / "data.py").read_text() == PIPELINE
    assert extract.extract_sample_repos(tmp_path / "all", mirrors, sample_repos=listing) == \
        (2, ["nobody/unmirrored"])


def test_benchmark_scores_real_code_against_labels(tmp_path):
    bench = _benchmark()
    files = {"train.py": PIPELINE}
    mirrors, commit = _mirror(tmp_path, files)
    manifest = _manifest(tmp_path, commit, files)
    _extract().extract(tmp_path / "out", mirrors, offline=True, manifest=manifest)
    labels = tmp_path / "labels.csv"
    labels.write_text("path,line,code,label,reason\n"
                      "someone__project/train.py,3,PL203,positive,shuffles batches\n"
                      "someone__project/train.py,2,PL106,positive,invented miss\n"
                      "someone__project/train.py,2,PL101,negative,pretend the map is fine\n")
    result = bench.compare_realcode(tmp_path / "out", manifest, labels)
    assert result.files == 1
    assert ("someone__project/train.py", 3, "PL203") in result.tp
    assert ("someone__project/train.py", 2, "PL106") in result.fn
    assert ("someone__project/train.py", 2, "PL101") in result.fp
    assert result.precision == pytest.approx(0.5) and result.recall == pytest.approx(0.5)


def test_missing_files_are_skipped_not_scored(tmp_path):
    bench = _benchmark()
    result = bench.compare_realcode(tmp_path)
    assert result.files == 0 and result.expected == set()
    assert result.skipped and all("not extracted" in s for s in result.skipped)


@pytest.mark.skipif(not os.environ.get("PIPELINT_REALCODE"),
                    reason="set PIPELINT_REALCODE to an extracted real-code corpus")
def test_real_code_targets():
    bench = _benchmark()
    result = bench.compare_realcode(Path(os.environ["PIPELINT_REALCODE"]))
    assert not result.engine_errors, result.engine_errors
    assert result.precision >= bench.REAL_MIN_PRECISION, sorted(result.fp, key=str)
    assert result.recall >= bench.REAL_MIN_RECALL, sorted(result.fn, key=str)
