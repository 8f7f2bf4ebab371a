"""Where users look, end to end: TensorBoard event files and XProf's own figures from real runs.

Two short runs serve every test here (module fixtures): a custom loop over a probed dataset (the
bundled example) and a Keras `fit` that uses Keras' own TensorBoard callback, each under `--xprof`
and `--logdir`. Events are read back with TensorBoard's event reader.
"""
import os
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")
pytest.importorskip("tensorboard")
pytest.importorskip("xprof")

from tensorboard.backend.event_processing import event_accumulator  # noqa: E402

from pipelint.profiler.run.runner import profile_script  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

FIT = """
import sys, time
import numpy as np
import tensorflow as tf
import keras

def load(i):
    time.sleep(0.003)  # a slow Python reader: input-bound
    return np.full(4, i, np.float32)

ds = tf.data.Dataset.range(8 * 30).map(
    lambda i: tf.ensure_shape(tf.numpy_function(load, [i], tf.float32), [4]))
ds = ds.map(lambda x: (x, x[:1])).batch(8)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(ds, epochs=2, verbose=0,
          callbacks=[keras.callbacks.TensorBoard(sys.argv[1], update_freq="batch", profile_batch=0)])
"""


def _run(tmp, script, args=()):
    return profile_script(str(script), list(args), quiet=True, sample_every=10, live_warnings=False,
                          xprof_dir=str(tmp / "xprof"), log_dir=str(tmp / "tb"))


@pytest.fixture(scope="module")
def loop_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("loop")
    outcome = _run(tmp, ROOT / "examples" / "profile" / "custom_loop.py", ["60"])
    assert outcome.exit_code == 0
    return tmp, outcome.report


@pytest.fixture(scope="module")
def fit_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fit")
    script = tmp / "fit_job.py"
    script.write_text(textwrap.dedent(FIT))
    outcome = _run(tmp, script, [str(tmp / "keras_logs")])
    assert outcome.exit_code == 0
    return tmp, outcome.report


def _events(run_dir):
    acc = event_accumulator.EventAccumulator(str(run_dir), size_guidance={event_accumulator.TENSORS: 0})
    acc.Reload()
    return acc


def _values(acc, tag):
    return {e.step: float(tf.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)}


def test_custom_loop_scalars_and_report_in_tensorboard(loop_run):
    tmp, r = loop_run
    assert r["tensorboard"]["run_dir"] == str(tmp / "tb" / "train") and r["tensorboard"]["error"] is None
    acc = _events(tmp / "tb" / "train")
    steps = _values(acc, "pipelint/step_time_ms")
    waits = _values(acc, "pipelint/input_wait_ms")
    fracs = _values(acc, "pipelint/input_bound_fraction")
    # Every measured step is a point (warm-up left out, as in the report), and they add up to the report.
    assert len(steps) == r["steps"] and set(waits) == set(steps) == set(fracs)
    assert statistics.median(steps.values()) == pytest.approx(r["step_time_ms"], rel=1e-3)
    assert sum(waits.values()) / sum(steps.values()) == pytest.approx(r["input_bound_fraction"], abs=2e-3)
    stage_tags = [t for t in acc.Tags()["tensors"] if t.startswith("pipelint/stage_ms_per_element/")]
    map_line = next(i for i, line in enumerate((ROOT / "examples/profile/custom_loop.py").read_text().splitlines(), 1)
                    if "ds.map(" in line)
    assert any(t.endswith(f"@custom_loop.py:{map_line}") for t in stage_tags), stage_tags
    report_md = acc.Tensors("pipelint/report")[0].tensor_proto.string_val[0].decode()
    assert f"verdict: **{r['verdict']}**" in report_md and "XProf:" in report_md


def test_fit_scalars_sit_beside_keras_loss(fit_run):
    tmp, r = fit_run
    run = tmp / "keras_logs" / "train"  # the script's TensorBoard callback run, not --logdir
    assert r["tensorboard"]["run_dir"] == str(run) and not (tmp / "tb").exists()
    acc = _events(run)
    loss_steps = {e.step for e in acc.Tensors("batch_loss")}
    ours = _values(acc, "pipelint/step_time_ms")
    assert len(ours) == r["steps"] and set(ours) <= loss_steps  # same step axis as Keras' batch_loss
    # Left out: each epoch's last step (it holds validation) and the warm-up steps (tracing).
    assert len(loss_steps - set(ours)) == 2 + r["warmup_steps_excluded"]
    assert min(ours) > 1 and max(ours) < max(loss_steps)
    assert set(_values(acc, "pipelint/input_wait_ms")) == set(ours)


def test_xprof_figures_beside_pipelint_custom_loop(loop_run):
    _, r = loop_run
    xp = r["xprof"]
    a = xp["analysis"]
    assert xp["trace"] and xp["step_markers"] >= r["steps"] and a["error"] is None
    # XProf split the run at our step markers: one step per next() of the probed loop.
    assert abs(a["steps"] - r["steps"]) <= 3
    assert 0 < a["input_bound_fraction"] <= 1 and a["step_time_ms"] > 0 and a["conclusion"]
    assert isinstance(a["disagreement"], list)
    if abs(a["input_bound_fraction"] - r["input_bound_fraction"]) > 0.10:
        assert a["disagreement"] and "points" in a["disagreement"][0]
    else:
        assert a["disagreement"] == []


def test_xprof_figures_beside_pipelint_fit(fit_run):
    _, r = fit_run
    a = r["xprof"]["analysis"]
    assert a["error"] is None and abs(a["steps"] - r["steps"]) <= 3
    assert 0 < a["input_bound_fraction"] <= 1 and a["step_time_ms"] > 0
    assert r["verdict"] == "input-bound" and a["input_bound_fraction"] >= 0.2  # both see the slow reader


def test_html_report_has_timeline_and_xprof(loop_run, fit_run):
    from pipelint.profiler.output.html import render_html
    for _, r in (loop_run, fit_run):
        page = render_html(r)
        assert "step time and input wait per step" in page and "<h2>XProf</h2>" in page
    assert len(fit_run[1]["timeline"]["epoch_starts"]) == 2


def test_option_off_writes_nothing_and_imports_no_tensorboard(tmp_path):
    script = tmp_path / "job.py"
    # Each step costs 5 ms, so that a scheduling hiccup never doubles a step and counts it as warm-up.
    script.write_text("import time\nimport tensorflow as tf\nfor _ in tf.data.Dataset.range(40).batch(4):\n"
                      "    time.sleep(0.005)\n")
    code = ("import sys\nfrom pipelint.profiler.run.runner import profile_script\n"
            f"o = profile_script({str(script)!r}, quiet=True)\n"
            "print('tensorboard' in sys.modules, o.report['steps'], 'tensorboard' in o.report)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=150,
                         cwd=tmp_path, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert out.stdout.split() == ["False", "8", "False"], out.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.py"]


def test_pipeline_profiler_log_dir_in_code(tmp_path):
    import keras
    import numpy as np

    from pipelint.profiler import PipelineProfiler
    x = np.random.rand(96, 4).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(8)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    cb = PipelineProfiler(log_dir=str(tmp_path / "tb"), report=False, sample_every=4)
    model.fit(ds, epochs=2, verbose=0, callbacks=[cb])
    assert cb.result["tensorboard"]["run_dir"] == str(tmp_path / "tb" / "train")
    acc = _events(tmp_path / "tb" / "train")
    assert len(_values(acc, "pipelint/step_time_ms")) == cb.result["steps"] > 0
    assert acc.Tensors("pipelint/report")
