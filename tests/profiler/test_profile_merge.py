"""`pipelint profile-merge`: a real two-process MultiWorkerMirroredStrategy job, each worker probed
into its own report, merged into one view; and the command's bad input."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from pipelint.cli import main
from pipelint.profiler.measure.merge import merge, load

JOB = Path(__file__).with_name("mwms_job.py")
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def test_two_worker_job_reports_merge_into_one_view(tmp_path):
    cluster = {"worker": [f"localhost:{_free_port()}", f"localhost:{_free_port()}"]}
    procs = []
    try:
        for i in range(2):
            env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PIPELINT_QUIET="1",
                       TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}}))
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "pipelint.profiler", "--report", str(tmp_path / f"r{i}.json"),
                 "--no-live-warnings", str(JOB), "25"],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        codes = [proc.wait(timeout=180) for proc in procs]
    finally:
        for proc in procs:  # stopped whatever happened (a hung collective, a timeout)
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert codes == [0, 0]
    paths = [str(tmp_path / "r0.json"), str(tmp_path / "r1.json")]
    merged = merge(load(paths))
    workers = {w["worker"]: w for w in merged["workers"]}
    assert set(workers) == {"worker:0", "worker:1"}  # named from TF_CONFIG by each worker's probe
    for w in workers.values():
        assert w["steps"] >= 10 and w["step_time_ms"] > 0 and w["input_wait_ms"] is not None
    slowest = max(workers.values(), key=lambda w: w["step_time_ms"])
    assert merged["slowest_worker"] == slowest["worker"]
    result = CliRunner().invoke(main, ["profile-merge", *paths, "--json", str(tmp_path / "m.json")])
    assert result.exit_code == 0, result.output
    assert f"slowest worker: {slowest['worker']}" in result.output
    assert "worker:0" in result.output and "worker:1" in result.output
    assert json.loads((tmp_path / "m.json").read_text())["slowest_worker"] == slowest["worker"]


def test_merge_names_the_slowest_and_the_most_waiting_worker():
    def report(worker, step, wait):
        return {"verdict": "input-bound", "steps": 50, "step_time_ms": step, "input_wait_ms": wait,
                "input_bound_fraction": wait / step, "environment": {"worker": worker}, "suggestions": []}
    merged = merge([("a.json", report("worker:0", 10.0, 1.0)), ("b.json", report("worker:1", 14.0, 6.0)),
                    ("c.json", report("worker:2", 12.0, 8.0))])
    assert merged["slowest_worker"] == "worker:1"
    assert merged["most_input_wait"] == "worker:2"
    assert merged["step_spread"] == 1.4


def test_unreadable_report_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = CliRunner().invoke(main, ["profile-merge", str(bad)])
    assert result.exit_code == 2
    assert "bad.json: not a readable pipelint report" in result.output
    assert "Traceback" not in result.output
