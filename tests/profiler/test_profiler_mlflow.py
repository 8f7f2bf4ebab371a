"""Issue 30 item 5: the probe's scalars and report files in the job's MLflow run (a local file store)."""
import json
import textwrap

import pytest

mlflow = pytest.importorskip("mlflow", reason="mlflow is not installed: pip install 'pipelint[mlflow]'")
pytest.importorskip("tensorflow")

from mlflow.tracking import MlflowClient  # noqa: E402

JOB = """
import time
import mlflow
import numpy as np
import tensorflow as tf
import keras

mlflow.set_tracking_uri({uri!r})

def slow(x):
    time.sleep(0.003)
    return x

x = np.zeros((2000, 4), np.float32)
ds = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).map(
    lambda a, b: (tf.ensure_shape(tf.py_function(slow, [a], tf.float32), (4,)), b)).batch(4).prefetch(2)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
with mlflow.start_run() as run:
    open({run_file!r}, "w").write(run.info.run_id)
    model.fit(ds, epochs=1, steps_per_epoch=60, verbose=0)
"""


def _artifacts(client, run_id):
    return sorted(f.path for f in client.list_artifacts(run_id, "pipelint"))


def test_a_script_logging_to_mlflow_gets_the_probes_scalars_and_reports_in_its_run(tmp_path, monkeypatch):
    from pipelint.profiler.run.runner import profile_script

    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3.x refuses a file store without it
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "")  # restored after the test, whatever the script sets

    uri = (tmp_path / "mlruns").as_uri()
    script, run_file, report_path = tmp_path / "train.py", tmp_path / "run_id", tmp_path / "r.json"
    script.write_text(textwrap.dedent(JOB.format(uri=uri, run_file=str(run_file))))
    outcome = profile_script(str(script), json_path=str(report_path), quiet=True, every=0, live_warnings=False)
    assert outcome.exit_code == 0, outcome.errors
    run_id = run_file.read_text()
    report = outcome.report
    # The run had ended (the script's `with` block) before the final report: it went in by id.
    assert report["mlflow"]["run_id"] == run_id and report["mlflow"]["error"] is None
    mlflow.set_tracking_uri(uri)
    client = MlflowClient()
    data = client.get_run(run_id).data
    assert data.metrics["pipelint/step_time_ms"] == pytest.approx(report["step_time_ms"])
    assert data.metrics["pipelint/input_bound_fraction"] == pytest.approx(report["input_bound_fraction"])
    assert data.metrics["pipelint/steps"] == report["steps"] > 0
    assert data.tags["pipelint.verdict"] == report["verdict"]
    # The JSON under the name the user gave it; the HTML (not asked for) under a name of its own.
    assert _artifacts(client, run_id) == ["pipelint/pipelint-report.html", "pipelint/r.json"]
    local = client.download_artifacts(run_id, "pipelint/r.json", str(tmp_path / "dl"))
    assert json.load(open(local))["step_time_ms"] == report["step_time_ms"]


def test_without_an_active_run_nothing_is_logged():
    from types import SimpleNamespace

    from pipelint.profiler.output.trackers import log_report
    assert mlflow.active_run() is None
    report = {"verdict": "model-bound", "steps": 10, "step_time_ms": 1.0}
    assert log_report(SimpleNamespace(mlflow_run=None), report) is None and "mlflow" not in report
