"""The probe's report: a dict (the JSON), a terminal table and a self-contained HTML page."""
from __future__ import annotations

import json
import os
import sys
from typing import Any

from pipelint.profiler import advice
from pipelint.profiler.stages import merge


def _environment() -> dict[str, Any]:
    env: dict[str, Any] = {"python": sys.version.split()[0], "cpus": advice.available_cpus(),
                           "tensorflow": None, "keras": None, "gpus": 0}
    tf = sys.modules.get("tensorflow")
    if tf is not None:
        env["tensorflow"] = getattr(tf, "__version__", None)
        try:
            env["gpus"] = len(tf.config.list_physical_devices("GPU"))
        except Exception:
            pass
    keras = sys.modules.get("keras")
    if keras is not None:
        env["keras"] = getattr(keras, "__version__", None)
    mem = advice.mem_available()
    env["mem_available_bytes"] = mem
    return env


def build_report(session, *, exit_code: int | None = None, script: str | None = None,
                 extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one place a report is made: a JSON-ready dict from a `Session` (keys: docs/profiler.md).

    Takes the session's final samples first. `extra` adds keys (e.g. `xprof`) after the built-in
    ones; tools that build on the report (TensorBoard, notebooks) read this dict, never the session.
    """
    session.finish()
    stats, source = session.step_stats()
    pipe = session.main_pipeline()
    stages = merge(list(pipe.snapshots.values())) if pipe is not None else []
    for st in stages:
        # Direct __getitem__ timing beats the model's when the generator node already left it.
        calls = session.pydataset_calls.get(st.op.label or "")
        if st.op.extra.get("pydataset") and calls and calls[0] and st.elements:
            st.processing_ns = max(st.processing_ns, int(calls[1] / calls[0] * st.elements * 1e9))
    cpus = advice.available_cpus()
    figs = advice.figures(stages, cpus)
    step_ms = 1000 * stats.total / stats.steps if stats.steps else None
    wait_ms = 1000 * stats.wait / stats.steps if stats.steps else None
    fraction = (stats.wait / stats.total) if stats.steps and stats.total > 0 else None
    cores_used = stats.cpu_cores_used()
    mem = advice.mem_available()
    suggestions = advice.suggest(stages, step_ms, wait_ms, cores_used, cpus, mem)
    b = advice.bottleneck(figs)

    def src(op):
        return {"path": op.path, "line": op.line} if op.path else None

    report: dict[str, Any] = {
        "script": script,
        "exit_code": exit_code,
        "verdict": advice.verdict(fraction),
        "input_bound_fraction": round(fraction, 4) if fraction is not None else None,
        "step_time_ms": round(step_ms, 3) if step_ms is not None else None,
        "input_wait_ms": round(wait_ms, 3) if wait_ms is not None else None,
        "steps": stats.steps,
        "step_source": source,  # "keras" (fit callback), "loop" (timed next()), "none"
        "cpu_cores_used": round(cores_used, 2) if cores_used is not None else None,
        "stages": [{
            "name": f.stage.op.name,
            "op": f.stage.kind,
            "source": src(f.stage.op),
            "tf_nodes": f.stage.nodes,
            "elements": f.stage.elements,
            "time_per_element_ms": round(f.time_per_element_ms, 4) if f.time_per_element_ms is not None else None,
            "time_per_batch_ms": round(f.wall_per_batch_ms, 4),
            "parallelism": f.stage.parallelism if f.stage.parallelism is not None else
            (1 if f.stage.kind in ("map", "from_generator", "flat_map") else None),
            "buffer_size": f.stage.buffer_size,
            "bytes_per_element": round(f.bytes_per_element, 1) if f.bytes_per_element else None,
            "share": round(f.share, 4),
        } for f in figs],
        "bottleneck": {"stage": b.stage.op.name, "source": src(b.stage.op)} if b else None,
        "suggestions": suggestions,
        "memory": [{k: v for k, v in n.items() if k != "figures"}
                   for n in advice.memory_notes(figs, mem)],
        "pydataset_getitem": {k: {"calls": v[0], "ms_per_call": round(1000 * v[1] / v[0], 3)}
                              for k, v in session.pydataset_calls.items() if v[0]},
        "thresholds": {"input_bound": advice.INPUT_BOUND, "model_bound": advice.MODEL_BOUND},
        "live_warnings": session.warnings_emitted,
        "probe_errors": list(session.errors),
        "environment": _environment(),
    }
    timeline = session.timelines.primary(session.preferred if session.preferred in session.pipelines
                                         else (pipe.key if pipe is not None else None))
    report["timeline"] = timeline.to_dict() if timeline is not None and timeline.points else None
    if extra:
        report.update(extra)
    return report


def _fmt(v: Any, spec: str = "") -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and v.is_integer() and not spec:
        return str(int(v))
    return format(v, spec) if spec else str(v)


def _short(source: dict | None) -> str:
    if not source:
        return "-"
    return f"{os.path.basename(source['path'])}:{source['line']}"


def render_text(r: dict[str, Any]) -> str:
    lines = ["", "pipelint profile" + (f": {r['script']}" if r.get("script") else "")]
    frac = r["input_bound_fraction"]
    if r["steps"]:
        lines.append(f"  verdict: {r['verdict']}  ({100 * frac:.0f}% of step time waiting for input;"
                     f" {r['steps']} steps, {r['step_time_ms']:.2f} ms/step,"
                     f" {r['input_wait_ms']:.2f} ms input wait)")
    else:
        lines.append("  verdict: unknown (no training steps were measured)")
    if r["stages"]:
        header = ("stage", "source", "elements", "ms/elem", "ms/batch", "parallel", "buffer", "share")
        rows = [(s["name"][:38], _short(s["source"]), str(s["elements"]), _fmt(s["time_per_element_ms"], ".3f"),
                 _fmt(s["time_per_batch_ms"], ".3f"), _fmt(s["parallelism"]), _fmt(s["buffer_size"]),
                 f"{100 * s['share']:.0f}%") for s in r["stages"]]
        widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
        lines.append("")
        lines.append("  " + "  ".join(h.ljust(w) if i < 2 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths))))
        for row in rows:
            lines.append("  " + "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    if r["bottleneck"]:
        lines.append(f"\n  bottleneck: {r['bottleneck']['stage']} at {_short(r['bottleneck']['source'])}")
    if r["suggestions"]:
        lines.append("\n  suggestions (best first):")
        for s in r["suggestions"]:
            sp = f"  expected {s['expected_speedup']:.2f}x" if s["expected_speedup"] else ""
            lines.append(f"  - {s['code']} ({s['name']}){sp}: {s['message']}")
    for m in r["memory"]:
        if not any(s["code"] == "PL301" and s["message"] == m["message"] for s in r["suggestions"]):
            lines.append(f"  memory: {m['message']}")
    for k, v in r["pydataset_getitem"].items():
        lines.append(f"  {k}: {v['calls']} calls, {v['ms_per_call']:.2f} ms each")
    for e in r["probe_errors"]:
        lines.append(f"  probe error (probe switched off): {e}")
    xp = r.get("xprof")
    if xp:
        a = xp.get("analysis") or {}
        if a.get("input_bound_fraction") is not None:
            ours = r.get("input_bound_fraction")
            lines.append(f"  XProf: {100 * a['input_bound_fraction']:.0f}% of step time waiting for input,"
                         f" {a['step_time_ms']:.2f} ms/step over {a['steps']} steps (pipelint: "
                         + (f"{100 * ours:.0f}%, {r['step_time_ms']:.2f} ms/step)" if ours is not None else "no steps)"))
            for note in a.get("disagreement") or []:
                lines.append(f"    {note}")
        elif a.get("error"):
            lines.append(f"  XProf figures: none ({a['error']})")
        if xp.get("trace"):
            lines.append(f"  XProf trace: {xp['trace']}\n    open it with: {xp['open']}")
        else:
            lines.append(f"  XProf trace: not captured ({xp.get('error') or 'no .xplane.pb written'})")
    tb = r.get("tensorboard")
    if tb:
        if tb.get("error"):
            lines.append(f"  TensorBoard: not written ({tb['error']})")
        else:
            lines.append(f"  TensorBoard: pipelint/ scalars and the report in {tb['run_dir']}\n"
                         f"    open it with: {tb['open']}")
    env = r["environment"]
    lines.append(f"  environment: TensorFlow {env['tensorflow']}, Keras {env['keras']}, {env['cpus']} CPUs,"
                 f" {env['gpus']} GPUs")
    return "\n".join(lines) + "\n"


def write_json(r: dict[str, Any], path: str) -> None:
    with open(path, "w") as f:
        json.dump(r, f, indent=2, default=str)
        f.write("\n")


def render_html(r: dict[str, Any]) -> str:
    """One self-contained page (pipelint/profiler/html.py; notebooks use the same renderer)."""
    from pipelint.profiler.html import render_html as _render
    return _render(r)


def write_html(r: dict[str, Any], path: str) -> None:
    from pipelint.profiler.html import write_html as _write
    _write(r, path)


def emit(r: dict[str, Any], *, out: Any = None, json_path: str | None = None,
         html_path: str | None = None) -> str:
    """Print the text report to `out` (a stream, or None for no print) and write the files asked for.

    Returns the text.
    """
    text = render_text(r)
    if out is not None:
        out.write(text)
        out.flush()
    if json_path:
        write_json(r, json_path)
    if html_path:
        write_html(r, html_path)
    return text
