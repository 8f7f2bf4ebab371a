"""The probe's report: a dict (the JSON), a terminal table and a self-contained HTML page."""
from __future__ import annotations

import json
import sys
from typing import Any

from pipelint.profiler.advise import advice, service
from pipelint.profiler.measure import memory
from pipelint.profiler.measure.merge import worker_identity
from pipelint.profiler.measure.stages import merge
from pipelint.profiler.output.files import write_atomic


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
    mem = memory.mem_available()
    env["mem_available_bytes"] = mem
    env["worker"] = worker_identity()  # TF_CONFIG's task, for `pipelint profile-merge`
    return env


STEP_ACCOUNTING = ("median of the measured steps; left out: the first steps of each fit call or"
                   " loop while a step takes more than {factor:g}x the median of the steps after it"
                   " (train-function tracing, XLA compilation, thread pools starting; at most {most}"
                   " per fit or loop), the last step of each epoch (it holds validation) and, in"
                   " loops, the first two next() calls")


def build_report(session, *, exit_code: int | None = None, script: str | None = None,
                 extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one place a report is made: a JSON-ready dict from a `Session` (keys: docs/profiler.md).

    Takes the session's final samples first. `extra` adds keys (e.g. `xprof`) after the built-in
    ones; tools that build on the report (TensorBoard, notebooks) read this dict, never the session.
    """
    from pipelint.profiler.measure.steps import WARMUP_FACTOR, WARMUP_MAX
    session.finish()
    stats, source = session.step_stats()
    pipe = session.main_pipeline()
    stages = merge(list(pipe.snapshots.values())) if pipe is not None else []
    for st in stages:
        # Direct __getitem__ timing beats the model's when the generator node already left it.
        timer = st.op.extra.get("getitem_timer")
        if timer is not None and timer.calls and st.elements:
            st.processing_ns = max(st.processing_ns, int(timer.wall_per_call * st.elements * 1e9))
    if session.relocate is not None:
        _relocate(stages, session.relocate)
    cpus = advice.available_cpus()
    if pipe is not None:
        advice.cap_overlap(stages, pipe.elapsed())
    figs = advice.figures(stages, cpus)
    summary = stats.summary()
    step_ms = summary["step_ms"] if summary else None
    wait_ms = summary["wait_ms"] if summary else None
    fraction = summary["fraction"] if summary else None
    cores_used = stats.cpu_cores_used()
    mem = memory.mem_available()
    verdict = advice.verdict(fraction)
    # Epochs the job runs: what fit was asked for, else the iterators a custom loop made over it.
    # (Keras may make more than one iterator per epoch, so fit's own count wins when there is one.)
    epochs = session.fit.epochs or (pipe.iterators if pipe is not None else 0) or None
    py_overhead = None
    if any(f.work == "waits" and f.stage.op.extra.get("py_function") for f in figs):
        from pipelint.profiler.measure.calibrate import py_function_overhead_ms
        py_overhead = py_function_overhead_ms()  # only when a waiting py_function stage is priced
    host = getattr(session, "host_cpu", None)
    system_busy = host.busy_cores() if host is not None else None
    on_cpu = host.on_cpu_share() if host is not None and hasattr(host, "on_cpu_share") else None
    suggestions = advice.suggest(stages, step_ms, wait_ms, cores_used, cpus, mem, epochs=epochs,
                                 py_overhead_ms=py_overhead, system_busy=system_busy, on_cpu=on_cpu)
    share = advice.cpu_share(figs, step_ms, cores_used, cpus, system_busy, on_cpu, wait_ms or 0.0) if step_ms else None
    if verdict == "model-bound":
        # The step does not wait for input: only memory advice, and the actions that hand the CPU the
        # pipeline's threads take back to the model on a host whose cores are spent.
        suggestions = [s for s in suggestions if s["expected_speedup"] is None or s.get("cpu_returned")]
    b = None if verdict == "model-bound" else advice.bottleneck(figs)
    data_service = service.section(session, pipe, figs, step_ms, wait_ms, fraction, cores_used, cpus,
                                   advice.INPUT_BOUND)
    top = service.suggestion(data_service, cpus)
    # Scale-out comes last: only when nothing local (parallelism, cache, prefetch) is priced.
    if top is not None and not any(s["speedup_basis"] == "model" and s["action"] != "data-service"
                                   for s in suggestions):
        rest = [s for s in suggestions if s["action"] != "data-service"]
        # This host is spent: moving input off it comes first, unless stages the service cannot
        # run must be rewritten before (their own suggestions lead, then this one).
        suggestions = rest + [top] if top["blockers"] else [top] + rest

    def rnd(v, n=3):
        return round(v, n) if v is not None else None

    report: dict[str, Any] = {
        "script": script,
        "exit_code": exit_code,
        "verdict": verdict,
        "input_bound_fraction": rnd(fraction, 4),
        "step_time_ms": rnd(step_ms),
        "step_time_p10_ms": rnd(summary["step_p10_ms"]) if summary else None,
        "step_time_p90_ms": rnd(summary["step_p90_ms"]) if summary else None,
        "step_time_mean_ms": rnd(summary["step_mean_ms"]) if summary else None,
        "job_step_mean_ms": rnd(summary["all_mean_ms"]) if summary else None,
        "input_wait_ms": rnd(wait_ms),
        "steps": summary["steps"] if summary else 0,
        "warmup_steps_excluded": summary["warmup_steps"] if summary else 0,
        "step_accounting": STEP_ACCOUNTING.format(factor=WARMUP_FACTOR, most=WARMUP_MAX),
        "step_source": source,  # "keras" (fit callback), "loop" (timed next()), "none"
        "cpu_cores_used": rnd(cores_used, 2),
        "cpu_share": share.to_dict(step_ms) if share is not None else None,
        "epochs": epochs,
        "py_function_overhead_ms": rnd(py_overhead, 4),
        "stages": [_stage_entry(f, cpus) for f in figs],
        "bottleneck": {"stage": b.stage.op.name, "source": _src(b.stage.op)} if b else None,
        "suggestions": suggestions,
        "no_suggestion_reason": None if suggestions else advice.no_suggestion_reason(figs, verdict, cores_used, cpus),
        "data_service": data_service,
        "memory": [{k: v for k, v in n.items() if k != "figures"}
                   for n in memory.memory_notes(figs, mem)],
        "pydataset_getitem": {k: {"calls": t.calls, "ms_per_call": round(1000 * t.wall_per_call, 3),
                                  "cpu_ms_per_call": round(1000 * t.cpu_per_call, 3)}
                              for k, t in session.pydataset_calls.items() if t.calls},
        "thresholds": {"input_bound": advice.INPUT_BOUND, "model_bound": advice.MODEL_BOUND,
                       "waits_below_cpu_fraction": advice.WAITS_BELOW},
        "live_warnings": session.warnings_emitted,
        "probe_errors": list(session.errors),
        "environment": _environment(),
    }
    timeline = session.timelines.primary()
    if timeline is not None:
        timeline.mark_warmup(stats.warmup_indices())
    report["timeline"] = timeline.to_dict() if timeline is not None and len(timeline) else None
    if extra:
        report.update(extra)
    return report


def _relocate(stages: list, relocate) -> None:
    """Sites as the user sees them (IPython cells: "cell N", the line in the cell); once per op."""
    for st in stages:
        op = st.op
        if op.path and not op.extra.get("relocated"):
            op.extra["relocated"] = True
            moved = relocate(op.path, op.line)
            if moved is not None:
                op.path, op.line = moved
            fused = op.extra.get("fused_with")
            if fused and fused[1]:
                moved = relocate(fused[1], fused[2])
                if moved is not None:
                    op.extra["fused_with"] = (fused[0], *moved)


def _src(op) -> dict[str, Any] | None:
    return {"path": op.path, "line": op.line} if op.path else None


def _code(op) -> str | None:
    """The source text at the stage's line, so that `profile-diff` can show which lines changed
    between two runs (the file itself may have been edited since)."""
    if not op.path or not op.line:
        return None
    import linecache
    text = linecache.getline(op.path, op.line).strip()
    return text[:200] or None


def _stage_entry(f, cpus: int) -> dict[str, Any]:
    st, op = f.stage, f.stage.op
    fused = op.extra.get("fused_with")
    name = op.name + (f" + {fused[0]}" if fused and st.kind.endswith("+batch") else "")
    added_by = op.extra.get("added_by")
    if added_by and "added by" not in name:
        name = f"{name} (added by {added_by})"
    par = st.parallelism if st.parallelism is not None else \
        (1 if st.kind in ("map", "map+batch", "from_generator", "flat_map") else None)
    if par is None:
        par_source = None
    elif st.autotuned:
        par_source = "autotune"
    elif op.extra.get("num_parallel_calls") or (st.parallelism or 1) > 1:
        par_source = "set"
    else:
        par_source = "serial"
    return {
        "name": name,
        "op": st.kind,
        "source": _src(op),
        "added_by": added_by,
        "fused_with": {"op": fused[0], "source": {"path": fused[1], "line": fused[2]} if fused[1] else None}
        if fused else None,
        "tf_nodes": st.nodes,
        "elements": st.elements,
        "time_per_element_ms": round(f.time_per_element_ms, 4) if f.time_per_element_ms is not None else None,
        "time_per_batch_ms": round(f.wall_per_batch_ms, 4),
        "work_per_batch_ms": round(f.per_batch_ms, 4),
        "parallelism": par,
        "parallelism_source": par_source,
        "parallelism_max": st.parallelism_max if st.autotuned else None,  # the most autotune may choose
        "buffer_size": st.buffer_size,
        "bytes_per_element": round(f.bytes_per_element, 1) if f.bytes_per_element else None,
        "share": round(f.share, 4),
        "code": _code(op),
        "work": f.work,
        "python": {"calls": f.py_calls, "wall_ms_per_call": round(f.py_wall_ms, 4),
                   "cpu_ms_per_call": round(f.py_cpu_ms, 4), "cpu_fraction": round(f.cpu_fraction, 3)}
        if f.py_calls else None,
    }


def _fmt(v: Any, spec: str = "") -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and v.is_integer() and not spec:
        return str(int(v))
    return format(v, spec) if spec else str(v)


def _short(source: dict | None) -> str:
    if not source:
        return "-"
    return memory.site_text(source["path"], source["line"])


def _parallel(s: dict) -> str:
    p = s.get("parallelism")
    if p is None:
        return "-"
    src = s.get("parallelism_source")
    p = _fmt(p)
    most = s.get("parallelism_max")
    auto = f"{p} (autotune, max {_fmt(most)})" if most else f"{p} (autotune)"
    return {"autotune": auto, "set": f"{p} (set)"}.get(src, p)


def _work(s: dict) -> str:
    py = s.get("python")
    if py:
        return f"{s['work']} ({100 * py['cpu_fraction']:.0f}% CPU)"
    return s.get("work") or "-"


def render_text(r: dict[str, Any]) -> str:
    lines = ["", "pipelint profile" + (f": {r['script']}" if r.get("script") else "")]
    frac = r["input_bound_fraction"]
    if r["steps"]:
        spread = ""
        if r.get("step_time_p10_ms") is not None:
            spread = f" (p10-p90 {r['step_time_p10_ms']:.2f}-{r['step_time_p90_ms']:.2f})"
        warm = r.get("warmup_steps_excluded") or 0
        lines.append(f"  verdict: {r['verdict']}  ({100 * frac:.0f}% of step time waiting for input;"
                     f" {r['steps']} steps{f' + {warm} warm-up left out' if warm else ''},"
                     f" median {r['step_time_ms']:.2f} ms/step{spread}, {r['input_wait_ms']:.2f} ms input wait)")
    else:
        lines.append("  verdict: unknown (no training steps were measured)")
    if r["stages"]:
        header = ("stage", "source", "elements", "ms/elem", "ms/batch", "parallel", "work", "buffer", "share")
        rows = [(s["name"][:60], _short(s["source"]), str(s["elements"]), _fmt(s["time_per_element_ms"], ".3f"),
                 _fmt(s["time_per_batch_ms"], ".3f"), _parallel(s), _work(s), _fmt(s["buffer_size"]),
                 f"{100 * s['share']:.0f}%") for s in r["stages"]]
        widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
        lines.append("")
        lines.append("  " + "  ".join(h.ljust(w) if i < 2 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths))))
        for row in rows:
            lines.append("  " + "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    if r["bottleneck"]:
        lines.append(f"\n  bottleneck: {r['bottleneck']['stage']} at {_short(r['bottleneck']['source'])}")
    elif r["verdict"] == "model-bound":
        lines.append("\n  no input bottleneck: the step waits for input less than"
                     f" {100 * r['thresholds']['model_bound']:.0f}% of its time")
    line = advice.cpu_share_line(r.get("cpu_share"))
    if line:
        lines.append(f"  input CPU: {line}")
    if r["suggestions"]:
        lines.append("\n  suggestions (best first):")
        for s in r["suggestions"]:
            lines.append(f"  - {_suggestion_head(s)}: {s['message']}")
    elif r.get("no_suggestion_reason"):
        lines.append(f"\n  no suggestion: {r['no_suggestion_reason']}")
    lines.extend(service.render_lines(r.get("data_service")))
    for m in r["memory"]:
        if not any(s["code"] == "PL301" and s["message"] == m["message"] for s in r["suggestions"]):
            lines.append(f"  memory: {m['message']}")
    for k, v in r["pydataset_getitem"].items():
        lines.append(f"  {k}: {v['calls']} calls, {v['ms_per_call']:.2f} ms each")
    ver = r.get("verification")
    if ver:
        lines.extend(render_verification(ver))
    for e in r["probe_errors"]:
        lines.append(f"  probe error (probe switched off): {e}")
    xp = r.get("xprof")
    if xp:
        a = xp.get("analysis") or {}
        if a.get("input_bound_fraction") is not None:
            ours = r.get("input_bound_fraction")
            lines.append(f"  XProf: {100 * a['input_bound_fraction']:.0f}% of step time waiting for input,"
                         f" median step {a['step_time_median_ms']:.2f} ms (mean {a['step_time_ms']:.2f}) over"
                         f" {a['steps']} steps; pipelint: "
                         + (f"{100 * ours:.0f}%, median step {r['step_time_ms']:.2f} ms over {r['steps']} steps"
                            if ours is not None else "no steps"))
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


def _suggestion_head(s: dict) -> str:
    """`PL101 (map-without-parallelism), parallelize, expected 2.10x` in words."""
    head = f"{s['code']} ({s['name']})" if s.get("code") else "advice"
    head += f", {s.get('action', '?')}"
    sp = s.get("expected_speedup")
    if sp:
        head += f", up to {sp:.2f}x" if s.get("speedup_basis") == "upper-bound" else f", expected {sp:.2f}x"
    return head


def render_verification(v: dict) -> list[str]:
    if v.get("error"):
        return [f"\n  verification: {v['error']}"]
    lines = [f"\n  verification: {v['rounds']} rounds x {len(v['candidates']) + 1} runs of {v['steps']} steps,"
             f" fresh process each; baseline median {_fmt(v['baseline_step_ms'], '.2f')} ms/step"]
    for c in v["candidates"]:
        meas = c.get("measured_speedup")
        m = f"measured {meas:.2f}x (range {c['measured_min']:.2f}-{c['measured_max']:.2f})" if meas else \
            f"not measured ({c.get('error') or 'no steps'})"
        pred = c.get("expected_speedup")
        p = (f"{'up to ' if c.get('speedup_basis') == 'upper-bound' else 'predicted '}{pred:.2f}x"
             if pred else "no prediction")
        lines.append(f"  - {c['label']}: {m}; {p}; {c['status']}")
        if c.get("diff"):  # the same comparison `pipelint profile-diff` prints, for the median round
            from pipelint.profiler.output.diff import render_text as diff_text
            lines.extend("    " + line for line in diff_text(c["diff"], brief=True).splitlines())
    if v.get("top"):
        lines.append(f"  top suggestion: {v['top']['status']} ({v['top']['label']})")
    for n in v.get("not_verified", []):
        lines.append(f"  not verifiable: {n}")
    return lines


def write_json(r: dict[str, Any], path: str) -> None:
    write_atomic(path, json.dumps(r, indent=2, default=str) + "\n")


def render_html(r: dict[str, Any]) -> str:
    """One self-contained page (pipelint/profiler/output/html.py; notebooks use the same renderer)."""
    from pipelint.profiler.output.html import render_html as _render
    return _render(r)


def write_html(r: dict[str, Any], path: str) -> None:
    from pipelint.profiler.output.html import write_html as _write
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
