"""PL101 and PL103 agree with what tf.data's default rewrites do to each pipeline as it runs
(benchmarks/default_rewrites.py reads the running pipeline from TensorFlow's autotuning model)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_case_agrees_with_the_running_pipeline():
    pytest.importorskip("tensorflow")
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "default_rewrites.py")],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    verdict = re.search(r"(\d+)/(\d+) agree", done.stdout)
    assert verdict is not None, done.stdout + done.stderr
    disagreements = [line for line in done.stdout.splitlines() if line.startswith("NO ")]
    assert done.returncode == 0 and not disagreements, "\n".join(disagreements)
    assert int(verdict.group(2)) >= 20
