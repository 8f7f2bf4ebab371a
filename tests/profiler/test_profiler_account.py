"""Issue 30: the running account. A real training subprocess, killed with SIGTERM after 3 intervals,
leaves JSON and HTML reports that parse and cover those intervals; its log has one line per interval.

The jobs are input-bound by design (a serial 4 ms map per element, 4 per batch, against a 5 ms loop
step), so the figures checked are far from any threshold on a loaded machine.
"""
import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import textwrap
import threading
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
EVERY = 1.0
INTERVALS = 3
TIMEOUT = 150

JOB = """
import signal, sys, time
import tensorflow as tf
{handler}
def slow(x):
    time.sleep(0.004)  # waits, like a read: input-bound however busy the machine is
    return x

ds = tf.data.Dataset.range(10**7).map(lambda i: tf.py_function(slow, [i], tf.int64)).batch(4).prefetch(2)
for batch in ds:
    time.sleep(0.005)
"""

OWN_HANDLER = """
def on_term(signum, frame):
    open(sys.argv[1], "w").write("job's own handler ran")
    sys.exit(7)
signal.signal(signal.SIGTERM, on_term)
"""


def _start(tmp_path, name, handler="", logdir=False):
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(JOB.format(handler=handler)))
    paths = {k: tmp_path / f"{name}.{k}" for k in ("json", "html", "marker", "logs")}
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "2"}
    tb = ["--logdir", str(paths["logs"])] if logdir else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipelint.profiler", "--every", str(EVERY), "--report", str(paths["json"]),
         "--html", str(paths["html"]), *tb, "--no-live-warnings", str(script), str(paths["marker"])],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l) for l in proc.stderr], daemon=True).start()
    return proc, lines, paths


def _kill_after_intervals(proc, lines):
    """Read the log until INTERVALS interval lines, then SIGTERM; the whole log and the exit status."""
    log, seen, deadline = [], 0, time.monotonic() + TIMEOUT
    try:
        while seen < INTERVALS:
            log.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
            seen += log[-1].startswith("pipelint: step ")
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    time.sleep(0.2)
    while not lines.empty():
        log.append(lines.get())
    return log, rc


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.open, self.text = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "br", "hr", "img", "link", "input", "rect", "line", "path", "circle", "polygon"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag):]

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("account")
    started = {"default": _start(tmp, "default", logdir=True), "own": _start(tmp, "own", OWN_HANDLER)}
    out = {}
    for name, (proc, lines, paths) in started.items():  # both jobs import TensorFlow at once
        log, rc = _kill_after_intervals(proc, lines)
        out[name] = (log, rc, paths)
    return out


@pytest.mark.parametrize("name", ["default", "own"])
def test_a_job_killed_with_sigterm_leaves_reports_covering_its_intervals(runs, name):
    log, rc, paths = runs[name]
    interval_lines = [l for l in log if l.startswith("pipelint: step ")]
    report = json.loads(paths["json"].read_text())
    account = report["account"]
    # One log line per interval, and the report holds every one of them.
    assert len(interval_lines) >= INTERVALS
    assert len(account["intervals"]) == len(interval_lines), (interval_lines, account["intervals"])
    assert account["final"] and account["stopped_by"] == "SIGTERM"
    # It covers them: at least the steps the last interval line counted.
    last = account["intervals"][-1]
    assert report["steps"] + report["warmup_steps_excluded"] >= last["step"] > 0
    for entry, line in zip(account["intervals"], interval_lines):
        assert f"step {entry['step']}:" in line and "ms/step" in line and "waiting for input" in line
        assert entry["input_share"] > 0.3 and "map" in entry["bottleneck"]
        assert f"{name}.py:" in line  # the bottleneck's own line
    assert report["verdict"] == "input-bound"
    page = _Page()
    page.feed(paths["html"].read_text())
    page.close()
    assert not page.open, page.open  # a complete page: every element closed
    assert "input-bound" in " ".join(page.text)
    # Files were replaced whole: no temporary file is left beside them.
    assert not [p for p in paths["json"].parent.iterdir() if p.name.endswith(".tmp")]
    if name == "default":
        assert rc == -signal.SIGTERM  # the job died of SIGTERM, as it would without the probe
        assert not paths["marker"].exists()
        # TensorBoard's events were appended and flushed at the same rhythm: the per-step curve and
        # the report text are readable although the job never reached its end.
        from tensorboard.backend.event_processing import event_accumulator
        acc = event_accumulator.EventAccumulator(str(paths["logs"] / "train"),
                                                 size_guidance={event_accumulator.TENSORS: 0})
        acc.Reload()
        tags = acc.Tags()["tensors"]
        assert "pipelint/report" in tags and len(acc.Tensors("pipelint/step_time_ms")) >= last["step"] // 2
    else:
        assert rc == 7 and paths["marker"].read_text() == "job's own handler ran"  # chained, not replaced


def test_interval_line_is_one_plain_line():
    from pipelint.profiler.run.account import format_line
    line = format_line({"step": 120, "seconds": 60.2, "steps": 118, "ms_per_step": 21.456, "input_share": 0.712,
                        "bottleneck": "map(parse)", "source": {"path": "/x/train.py", "line": 31}})
    assert line == ("pipelint: step 120: 21.46 ms/step over the last 60 s (118 steps), 71% waiting for input,"
                    " bottleneck map(parse) at train.py:31")
    assert "\r" not in line and "\x1b" not in line


def test_the_keras_callback_keeps_its_own_account(tmp_path, capsys):
    """PipelineProfiler(every=...) used on its own (no `pipelint profile`): lines and files per interval."""
    import numpy as np
    import tensorflow as tf
    import keras

    from pipelint.profiler.run.callback import PipelineProfiler

    def slow(x):
        time.sleep(0.004)
        return x

    x = np.zeros((4000, 4), np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).map(
        lambda a, b: (tf.py_function(slow, [a], tf.float32), b)).map(
        lambda a, b: (tf.ensure_shape(a, (4,)), b)).batch(4).prefetch(2)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    report = tmp_path / "r.json"
    cb = PipelineProfiler(every=0.5, json_path=str(report), live_warnings=False)
    model.fit(ds, epochs=1, steps_per_epoch=150, callbacks=[cb], verbose=0)
    lines = [l for l in capsys.readouterr().err.splitlines() if l.startswith("pipelint: step ")]
    intervals = cb.result["account"]["intervals"]
    assert len(intervals) >= 2 and len(lines) == len(intervals)
    # (input-bound throughout: 16 ms of Python per batch against a one-unit model; the median, since
    # an interval that holds the step function's tracing, or the job's last few steps on a loaded
    # machine, can read otherwise)
    shares = [e["input_share"] for e in intervals]
    assert statistics.median(shares) > 0.3 and all(0.0 <= share <= 1.0 for share in shares), shares
    assert json.loads(report.read_text())["account"]["final"] is True  # the end's report replaced the last interval's
