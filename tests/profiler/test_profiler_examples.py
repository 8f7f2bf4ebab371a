"""The example scripts under `pipelint profile`: verdict and top suggestion, plus exit behaviour."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")

from pipelint.profiler.run.runner import profile_script  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "profile"


@pytest.mark.parametrize("script, steps, verdict, top", [
    ("numpy_function_map.py", "150", "input-bound", "PL106"),  # the prefetched first batches weigh little
    ("generator_source.py", "60", "input-bound", "PL107"),
    ("pydataset_no_workers.py", "60", "input-bound", "PL407"),
    ("model_bound.py", "30", "model-bound", None),
])
def test_example_verdict_and_top_suggestion(script, steps, verdict, top, capsys):
    outcome = profile_script(str(EXAMPLES / script), [steps], sample_every=10, warn_every=10)
    r = outcome.report
    assert outcome.exit_code == 0
    assert r["verdict"] == verdict, capsys.readouterr().err
    codes = [s["code"] for s in r["suggestions"] if s["expected_speedup"]]
    if top is None:
        assert codes == []
    else:
        assert codes[0] == top
        src = r["suggestions"][0]["source"]
        assert src["path"].endswith(script) and src["line"] > 0
        assert r["bottleneck"]["source"]["path"].endswith(script)
    assert r["steps"] + r["warmup_steps_excluded"] > 20 and set(r) >= {"verdict", "input_bound_fraction", "step_time_ms", "input_wait_ms",
                                          "stages", "bottleneck", "suggestions", "environment"}
    assert "pipelint profile" in capsys.readouterr().err


def test_live_warning_names_stage_and_rule(caplog):
    with caplog.at_level("WARNING", logger="pipelint"):
        profile_script(str(EXAMPLES / "numpy_function_map.py"), ["60"], sample_every=10, warn_every=20,
                       quiet=True)
    msgs = [r.getMessage() for r in caplog.records if r.name == "pipelint"]
    assert msgs and all(m.startswith("input-bound (") for m in msgs)
    assert "numpy_function_map.py:" in msgs[0] and "(PL106)" in msgs[0]
    assert len(msgs) <= 3  # at most once per 20 steps


def test_script_exception_is_reported_like_python(tmp_path, capsys):
    script = tmp_path / "boom.py"
    script.write_text("import tensorflow as tf\nds = tf.data.Dataset.range(3)\nfor _ in ds: pass\n"
                      "def f():\n    raise ValueError('bad data')\nf()\n")
    outcome = profile_script(str(script))
    err = capsys.readouterr().err
    assert outcome.exit_code == 1
    assert "Traceback (most recent call last)" in err and "ValueError: bad data" in err
    assert 'boom.py", line 6' in err and "runpy" not in err and "runner.py" not in err
    assert "pipelint profile" in err  # the report still comes out


def test_cli_exit_code_no_hang_and_report_files(tmp_path):
    # An un-exhausted iterator over a py_function map is alive at exit: TF may hang there.
    script = tmp_path / "leave.py"
    script.write_text(textwrap.dedent("""
        import sys, numpy as np, tensorflow as tf
        ds = tf.data.Dataset.range(10**6).map(lambda i: tf.numpy_function(lambda v: v * 2, [i], tf.int64))
        it = iter(ds.batch(2).prefetch(4))
        for _ in range(30):
            next(it)
        print("argv", sys.argv[1:])
        sys.exit(3)
    """))
    rj, rh = tmp_path / "r.json", tmp_path / "r.html"
    cmd = [sys.executable, "-m", "pipelint.profiler", "--report", str(rj), "--html", str(rh), str(script),
           "--epochs", "2"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "argv ['--epochs', '2']" in proc.stdout
    assert "pipelint profile" in proc.stderr
    r = json.loads(rj.read_text())
    assert r["exit_code"] == 3 and r["steps"] > 0 and r["stages"]
    assert rh.read_text().startswith("<!DOCTYPE html>")


def test_verify_runs_the_job_with_the_fix_and_reports_measured_vs_predicted(tmp_path):
    # A waiting PyDataset: the fix (more workers) is a setting the probe applies at run time.
    rj = tmp_path / "v.json"
    cmd = [sys.executable, "-m", "pipelint.profiler", "--verify", "--verify-steps", "12", "--verify-rounds", "1",
           "--report", str(rj), str(ROOT / "benchmarks" / "probe_jobs.py"), "pydataset", "40"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=400, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(rj.read_text())
    v = r["verification"]
    assert r["suggestions"][0]["action"] == "add-workers" and r["suggestions"][0]["verifiable"]
    assert v["rounds"] == 1 and v["baseline_step_ms"] > 0
    c = v["candidates"][0]
    assert c["kind"] == "fix" and c["fixes"]["pydataset_workers"]["workers"] > 1
    assert c["measured_speedup"] and c["expected_speedup"] and c["status"]
    assert v["top"]["label"] == c["label"]
    assert "verification:" in proc.stderr and "measured" in proc.stderr
