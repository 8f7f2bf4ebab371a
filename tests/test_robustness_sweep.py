"""A fixed slice of the robustness sweep (benchmarks/robustness.py) for CI.

300 files chosen deterministically (sorted paths, every k-th) from the installed `keras`,
`tensorflow/python/data` and `numpy` packages -- real code full of tf.data and Keras calls -- go
through `check_file` with ALL rules on two workers. No file may produce `PL000`, no exception may
escape, and every `PL001` must be on a file CPython also refuses to compile. Files over 40 kB are
left to the full sweep so that this stays well under a minute on two cores.
"""
from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from benchmarks import robustness

SAMPLE_SIZE = 300
MAX_BYTES = 40_000
PACKAGES = ("keras", "tensorflow/python/data", "numpy")


def _roots() -> list[Path]:
    purelib = Path(sysconfig.get_paths()["purelib"])
    roots = [purelib / package for package in PACKAGES if (purelib / package).is_dir()]
    if not roots:
        pytest.skip("none of keras, tensorflow, numpy is installed")
    return roots


def test_sample_is_deterministic_and_spread():
    files = list(range(1000))
    assert robustness.sample(files, 300) == robustness.sample(files, 300)
    picked = robustness.sample(files, 300)
    assert len(picked) == 300 and picked[0] == 0 and picked[-1] >= 990
    assert robustness.sample(files, None) == files and robustness.sample(files, 5000) == files


def test_cpython_error_tells_invalid_from_valid():
    assert robustness.cpython_error(b"x = 1\n", "f.py") is None
    assert robustness.cpython_error(b"print 'py2'\n", "f.py").startswith("SyntaxError")
    assert robustness.cpython_error(b"x = 1\x00\n", "f.py") is not None
    assert robustness.cpython_error(b"x = '\xff'\n", "f.py") is not None


def test_sweep_sample_of_installed_packages():
    files = [(path, display) for path, display in robustness.collect(_roots())
             if path.stat().st_size <= MAX_BYTES]
    chosen = robustness.sample(files, SAMPLE_SIZE)
    assert len(chosen) == min(SAMPLE_SIZE, len(files))
    report = robustness.sweep(chosen, jobs=2)
    assert report.files == len(chosen)
    details = robustness.format_report(report, limit=20)
    assert not report.crashes, details
    assert not report.pl000, details
    assert not report.pl001_bugs, details
    assert report.ok, details
