"""Issue 30: `pipelint profile-diff BEFORE.json AFTER.json` on a before/after pair of real reports.

The pair: one job as written (a serial map whose Python waits 3 ms per element, 4 per batch, a 2 ms
loop step) and the same job with `num_parallel_calls=4` on that map's line, each profiled in its own
process. The change is large (the map is the job's pace), so the ratio is far from 1 on a loaded machine.
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipelint.cli import main
from pipelint.profiler.output import diff as d
from pipelint.profiler.run.verify import _diff_of_median_round

ROOT = Path(__file__).resolve().parents[2]

JOB = """
import time
import tensorflow as tf

def slow(x):
    time.sleep(0.003)
    return x

def load(i):
    return tf.py_function(slow, [i], tf.int64)

ds = tf.data.Dataset.range(100000).map(load{npc})
ds = ds.batch(4).prefetch(2)
for batch in ds:
    time.sleep(0.002)
"""


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    pytest.importorskip("tensorflow")
    tmp = tmp_path_factory.mktemp("diff")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "2"}
    procs = {}
    for name, npc in (("before", ""), ("after", ", num_parallel_calls=4")):
        (tmp / f"{name}.py").write_text(textwrap.dedent(JOB.format(npc=npc)))
        procs[name] = subprocess.Popen(
            [sys.executable, "-m", "pipelint.profiler", "--report", str(tmp / f"{name}.json"), "--every", "0",
             "--quiet", "--no-live-warnings", "--max-steps", "80", str(tmp / f"{name}.py")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp)
    for proc in procs.values():  # both at once: their TensorFlow imports overlap
        try:
            assert proc.wait(timeout=150) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
    return tmp / "before.json", tmp / "after.json"


def _cli(*args):
    return CliRunner().invoke(main, ["profile-diff", *map(str, args)])


def test_profile_diff_shows_the_step_ratio_the_runs_measured_and_the_stage_that_changed(pair):
    before, after = (json.loads(p.read_text()) for p in pair)
    out = _cli(*pair)
    assert out.exit_code == 0, out.output
    ratio = before["step_time_ms"] / after["step_time_ms"]
    assert ratio > 1.3  # the parallel map: the job's pace
    assert f"{before['step_time_ms']:.2f}" in out.output and f"{after['step_time_ms']:.2f}" in out.output
    data = json.loads(_cli(*pair, "--format", "json").output)
    assert data["step_time_ms"]["speedup"] == pytest.approx(ratio, abs=0.001)
    # (the text shows the JSON's ratio, rounded once more: 2.085 is "2.09" there, 2.0849 would be "2.08")
    assert f"{data['step_time_ms']['speedup']:.2f}x faster" in out.output
    assert data["verdict"] == {"before": before["verdict"], "after": after["verdict"]}
    assert "map(load)" in data["most_changed_stage"] and "most changed: map(load)" in out.output
    stage = next(s for s in data["stages"] if s["stage"] == data["most_changed_stage"])
    assert stage["before"]["ms_per_element"] == next(
        s["time_per_element_ms"] for s in before["stages"] if s["name"] == stage["stage"])
    # The changed line of the pipeline, before and after.
    (line,) = [c for c in data["changed_lines"] if "map(load)" in c["stage"]]
    assert line["before"]["code"].endswith(".map(load)") and "num_parallel_calls=4" in line["after"]["code"]
    assert "- before.py:12: ds = tf.data.Dataset.range(100000).map(load)" in out.output
    assert "+ after.py:12: " in out.output
    md = _cli(*pair, "--format", "markdown").output
    assert md.startswith("**pipelint profile-diff**") and "| step (median ms) |" in md and "```diff" in md


def test_profile_diff_refuses_bad_input_in_one_line(tmp_path):
    not_report = tmp_path / "x.json"
    not_report.write_text('{"a": 1}')
    broken = tmp_path / "y.json"
    broken.write_text("{")
    for args in ((tmp_path / "missing.json", not_report), (not_report, not_report), (broken, not_report)):
        res = subprocess.run([sys.executable, "-m", "pipelint", "profile-diff", *map(str, args)],
                             capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
        assert res.returncode == 2 and "Traceback" not in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("pipelint profile-diff: ")


def test_verify_writes_each_comparison_in_the_same_form():
    def rep(step, ms):
        return {"verdict": "input-bound", "step_time_ms": step, "input_wait_ms": step / 2, "steps": 60,
                "input_bound_fraction": 0.5, "stages": [{"name": "map(f)", "time_per_element_ms": ms,
                                                         "time_per_batch_ms": ms * 4, "parallelism": 1}]}
    times = {0: [10.0, 11.0, 12.0], 1: [5.0, 7.0, 6.0]}
    reports = {0: [rep(t, 2.0) for t in times[0]], 1: [rep(t, 1.0) for t in times[1]]}
    out = _diff_of_median_round(times, reports, 1, "PL101 parallelize")
    # The round whose fix run gave the median step (6.0, round 3) against that round's baseline (12.0).
    assert out["step_time_ms"] == {"before": 12.0, "after": 6.0, "speedup": 2.0}
    assert out["after"]["report"] == "PL101 parallelize (round 3)" and out["most_changed_stage"] == "map(f)"
    assert set(out) == set(d.diff(rep(1.0, 1.0), rep(1.0, 1.0)))  # the same keys as profile-diff's JSON
    assert "most changed: map(f)" in d.render_text(out, brief=True)
