"""`pipelint profile-merge`: one view of a multi-worker job from each worker's own report.

Under a multi-worker strategy (`MultiWorkerMirroredStrategy`, `ParameterServerStrategy`; one
process per worker, `TF_CONFIG`) each worker's probe writes its own JSON report (`pipelint profile
--report r<i>.json` or `PipelineProfiler(json_path=...)`); the report names the worker from
`TF_CONFIG` (`environment.worker`). This module reads the reports (no TensorFlow) and lists per
worker its step time, input wait and verdict, and names the slowest worker: in synchronous training
every step waits for it, so its input wait is the one worth removing.
"""
from __future__ import annotations

import json
import os
from typing import Any


def worker_identity() -> str | None:
    """`type:index` from TF_CONFIG (e.g. `worker:1`), or None outside a multi-worker job."""
    raw = os.environ.get("TF_CONFIG")
    if not raw:
        return None
    try:
        task = json.loads(raw).get("task") or {}
    except (ValueError, AttributeError):
        return None
    if "type" not in task:
        return None
    return f"{task['type']}:{task.get('index', 0)}"


class MergeError(Exception):
    """A report that cannot be read; the message names the file."""


def load(paths: list[str]) -> list[tuple[str, dict[str, Any]]]:
    reports = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                report = json.load(fh)
        except (OSError, ValueError) as exc:
            raise MergeError(f"{path}: not a readable pipelint report ({exc.__class__.__name__}: {exc})") from None
        if not isinstance(report, dict) or "verdict" not in report:
            raise MergeError(f"{path}: not a pipelint report (no 'verdict')")
        reports.append((path, report))
    return reports


def merge(reports: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    workers, service_workers = [], []
    for i, (path, r) in enumerate(reports):
        env = r.get("environment") or {}
        if r.get("probe_worker"):  # a tf.data service worker host's report (probe_worker)
            service_workers.append({
                "worker": env.get("worker") or f"report {i}", "report": path,
                "batches_per_s": r["probe_worker"].get("batches_per_s"),
                "stages": [{"stage": st.get("name"), "source": st.get("source"),
                            "work_per_batch_ms": st.get("work_per_batch_ms")} for st in r.get("stages") or []],
            })
            continue
        workers.append({
            "worker": env.get("worker") or f"report {i}",
            "report": path,
            "verdict": r.get("verdict"),
            "steps": r.get("steps"),
            "step_time_ms": r.get("step_time_ms"),
            "input_wait_ms": r.get("input_wait_ms"),
            "input_bound_fraction": r.get("input_bound_fraction"),
            "cpu_cores_used": r.get("cpu_cores_used"),
            "bottleneck": r.get("bottleneck"),
            "top_suggestion": (r.get("suggestions") or [None])[0],
        })
    timed = [w for w in workers if w["step_time_ms"] is not None]
    slowest = max(timed, key=lambda w: w["step_time_ms"], default=None)
    fastest = min(timed, key=lambda w: w["step_time_ms"], default=None)
    most_waiting = max((w for w in timed if w["input_wait_ms"] is not None),
                       key=lambda w: w["input_wait_ms"], default=None)
    trainer_rate = 1000.0 / slowest["step_time_ms"] if slowest and slowest["step_time_ms"] else None
    for sw in service_workers:
        sw["trainers_fed"] = round(sw["batches_per_s"] / trainer_rate, 2) \
            if sw["batches_per_s"] and trainer_rate else None
    return {
        "workers": workers,
        "service_workers": service_workers,
        "slowest_worker": slowest["worker"] if slowest else None,
        "most_input_wait": most_waiting["worker"] if most_waiting else None,
        "step_spread": round(slowest["step_time_ms"] / fastest["step_time_ms"], 3)
        if slowest and fastest and fastest["step_time_ms"] else None,
    }


def render_text(merged: dict[str, Any]) -> str:
    lines = [f"pipelint profile-merge: {len(merged['workers'])} worker report(s)", ""]
    header = ("worker", "verdict", "step ms", "input wait ms", "waiting", "top suggestion")
    rows = []
    for w in merged["workers"]:
        top = w["top_suggestion"] or {}
        frac = w["input_bound_fraction"]
        rows.append((w["worker"], w["verdict"] or "-",
                     f"{w['step_time_ms']:.2f}" if w["step_time_ms"] is not None else "-",
                     f"{w['input_wait_ms']:.2f}" if w["input_wait_ms"] is not None else "-",
                     f"{100 * frac:.0f}%" if frac is not None else "-",
                     top.get("code") or top.get("action") or "-"))
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        lines.append("  " + "  ".join(str(c).ljust(wd) for c, wd in zip(row, widths)))
    if merged["slowest_worker"]:
        lines.append("")
        lines.append(f"  slowest worker: {merged['slowest_worker']} (step spread {merged['step_spread']}x);"
                     " synchronous training runs at its pace")
    if merged["most_input_wait"]:
        lines.append(f"  most input wait: {merged['most_input_wait']}")
    for sw in merged.get("service_workers") or []:
        stages = ", ".join(f"{st['stage']} {st['work_per_batch_ms']:.2f} ms/batch" for st in sw["stages"]
                           if st.get("work_per_batch_ms") is not None)
        fed = f", feeds {sw['trainers_fed']}x the slowest trainer's step rate" if sw.get("trainers_fed") else ""
        lines.append(f"  service worker {sw['worker']}: {sw['batches_per_s']} batches/s{fed}; {stages}")
    return "\n".join(lines)
