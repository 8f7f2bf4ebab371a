"""Experiment trackers (issue 30): the probe's figures in the MLflow run the job logs to.

Only when the job itself uses MLflow: `mlflow` already imported by the script (never imported here
otherwise: no import cost, no side effect for jobs that do not use it) and a run active while the
job trains. Scripts usually train inside `with mlflow.start_run():`, so the run has often ended when
the probe's final report is built; the run seen active during training (at `fit`'s end, at each
interval of the running account) is remembered on the session and the final figures go to it by
id (MLflow accepts metrics and artifacts on a finished run).

What is logged: scalars (`pipelint/step_time_ms`, `pipelint/input_wait_ms`,
`pipelint/input_bound_fraction`, `pipelint/steps`, `pipelint/cpu_cores_used`,
`pipelint/top_expected_speedup`; per interval of the running account `pipelint/interval_ms_per_step`
and `pipelint/interval_input_share` at that step), the tag `pipelint.verdict`, and the JSON and
HTML reports as artifacts under `pipelint/`. A failure is one WARNING on the `pipelint` logger and
the report's `mlflow.error`; training is never affected.
"""
from __future__ import annotations

import logging
import os
import sys
import tempfile
import time
from typing import Any

log = logging.getLogger("pipelint")

SCALARS = ("step_time_ms", "input_wait_ms", "input_bound_fraction", "steps", "cpu_cores_used")


def _mlflow():
    return sys.modules.get("mlflow")  # the job's own: imported by the script, or no tracking at all


def note_active_run(session) -> str | None:
    """Remember the MLflow run active now (if any) on the session; returns its id."""
    mlflow = _mlflow()
    if mlflow is None:
        return None
    try:
        run = mlflow.active_run()
    except Exception:  # noqa: BLE001 - a tracker in a bad state is not the probe's to fix
        return None
    if run is not None:
        session.mlflow_run = run.info.run_id
        return session.mlflow_run
    return getattr(session, "mlflow_run", None)


def log_interval(session, entry: dict[str, Any]) -> None:
    """One running-account interval's figures at its step (the run must be active or remembered)."""
    run_id = note_active_run(session)
    if run_id is None:
        return
    metrics = {"interval_ms_per_step": entry.get("ms_per_step"), "interval_input_share": entry.get("input_share")}
    _log(session, run_id, metrics, step=int(entry.get("step") or 0), tags={})


def log_report(session, report: dict[str, Any], json_path: str | None = None,
               html_path: str | None = None) -> dict[str, Any] | None:
    """The report's scalars and files into the job's MLflow run; sets and returns `report["mlflow"]`
    (None when the job used no MLflow run)."""
    run_id = note_active_run(session)
    if run_id is None:
        return None
    suggestions = report.get("suggestions") or []
    metrics = {k: report.get(k) for k in SCALARS}
    metrics["top_expected_speedup"] = suggestions[0].get("expected_speedup") if suggestions else None
    step = int(report.get("steps") or 0)
    info: dict[str, Any] = {"run_id": run_id, "metrics": sorted(f"pipelint/{k}" for k, v in metrics.items()
                                                                  if v is not None),
                            "artifacts": [], "error": None}
    report["mlflow"] = info
    info["error"] = _log(session, run_id, metrics, step, {"pipelint.verdict": str(report.get("verdict"))})
    if info["error"] is None:
        info["error"] = _artifacts(run_id, report, json_path, html_path, info["artifacts"])
    return info


def _log(session, run_id: str, metrics: dict[str, Any], step: int, tags: dict[str, str]) -> str | None:
    mlflow = _mlflow()
    try:
        from mlflow.entities import Metric, RunTag
        now = int(time.time() * 1000)
        batch = [Metric(f"pipelint/{k}", float(v), now, step) for k, v in metrics.items() if v is not None]
        mlflow.tracking.MlflowClient().log_batch(run_id, metrics=batch,
                                                 tags=[RunTag(k, v) for k, v in tags.items()])
        return None
    except Exception as exc:  # noqa: BLE001
        return _failed(session, exc)


def _artifacts(run_id: str, report: dict[str, Any], json_path: str | None, html_path: str | None,
               logged: list[str]) -> str | None:
    """Attach the report files; the ones the user did not ask for are rendered into a temporary
    directory for the upload only."""
    from pipelint.profiler.output.html import write_html
    from pipelint.profiler.output.report import write_json
    try:
        client = _mlflow().tracking.MlflowClient()
        with tempfile.TemporaryDirectory(prefix="pipelint-mlflow-") as tmp:
            # The files as they are now (the caller writes the user's paths after this returns).
            paths = [os.path.join(tmp, os.path.basename(json_path) if json_path else "pipelint-report.json"),
                     os.path.join(tmp, os.path.basename(html_path) if html_path else "pipelint-report.html")]
            write_json(report, paths[0])
            write_html(report, paths[1])
            for path in paths:
                client.log_artifact(run_id, path, artifact_path="pipelint")
                logged.append(f"pipelint/{os.path.basename(path)}")
        return None
    except Exception as exc:  # noqa: BLE001
        return _failed(None, exc)


_warned: set[str] = set()


def _failed(session, exc: BaseException) -> str:
    msg = f"{type(exc).__name__}: {exc}"
    if msg not in _warned:  # once per cause, not once per interval
        _warned.add(msg)
        log.warning("MLflow logging skipped: %s", msg)
    return msg
