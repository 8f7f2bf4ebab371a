"""Verdict and suggestions, in the static linter's rule vocabulary, with speedups from measurements.

Speedup model (per step, seconds): S = measured step time, W = input wait, C = S - W (the step's
own work). The pipeline needs P per batch: P = S when it already overlaps the step (prefetch or
any async stage), else P = W. A fix that makes stage b k times faster shrinks P by its share f_b:
P' = P * (1 - f_b * (1 - 1/k)); the new step is max(C, P') with overlap, C + P' without.
On a CPU-only host input and model share the cores, so k is bounded by the cores tf.data may use
and the whole step cannot get faster than the CPU time it already burns: S' >= S * used / cores.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from pipelint.codes import CODES

#: XProf's thresholds: >= 20% of step time waiting for input is "highly input-bound".
INPUT_BOUND = 0.20
#: Below 5% XProf does not call it input-bound at all.
MODEL_BOUND = 0.05
#: A suggestion must promise at least this much to be shown.
MIN_SPEEDUP = 1.05


def rule_name(code: str) -> str:
    """The linter's name for `code`, from the code table (no rule module is imported)."""
    info = CODES.get(code)
    return info.name if info is not None else code.lower()


def verdict(fraction: float | None) -> str:
    if fraction is None:
        return "unknown"
    if fraction >= INPUT_BOUND:
        return "input-bound"
    if fraction < MODEL_BOUND:
        return "model-bound"
    return "balanced"


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def mem_available() -> int | None:
    """Bytes the kernel says are available without swapping (MemAvailable), Linux only."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover


@dataclass
class StageFigures:
    """A stage with what the advice needs, computed once."""

    stage: Any  # stages.Stage
    time_per_element_ms: float | None
    per_batch_ms: float  # work per delivered batch, all threads together
    wall_per_batch_ms: float  # divided by the parallelism it actually had
    share: float
    bytes_per_element: float | None


def figures(stages: list, cpus: int) -> list[StageFigures]:
    if not stages:
        return []
    root = max(stages[0].elements, 1)
    total = sum(s.processing_ns for s in stages) or 1
    out = []
    for s in stages:
        tpe = (s.processing_ns / s.elements / 1e6) if s.elements else None
        per_batch = s.processing_ns / root / 1e6
        par = max(1.0, min(s.parallelism or 1.0, float(cpus)))
        bpe = (s.bytes_produced / s.elements) if s.elements and s.bytes_produced else None
        out.append(StageFigures(s, tpe, per_batch, per_batch / par, s.processing_ns / total, bpe))
    return out


def bottleneck(figs: list[StageFigures]) -> StageFigures | None:
    cands = [f for f in figs if f.stage.kind != "prefetch"]
    return max(cands, key=lambda f: f.wall_per_batch_ms, default=None)


def where(op) -> str:
    if op.path:
        return f"{os.path.basename(op.path)}:{op.line}"
    return "(unknown line)"


def _speedup(step_ms: float, wait_ms: float, figs: list[StageFigures], target: StageFigures | None,
             k: float, cores_used: float | None, cpus: int, overlapped: bool,
             make_overlap: bool = False) -> float:
    if step_ms <= 0:
        return 1.0
    compute = max(0.0, step_ms - wait_ms)
    pipe = step_ms if overlapped else wait_ms
    total_wall = sum(f.wall_per_batch_ms for f in figs if f.stage.kind != "prefetch") or 1.0
    frac = (target.wall_per_batch_ms / total_wall) if target is not None else 0.0
    new_pipe = pipe * (1 - min(1.0, frac) * (1 - 1 / max(k, 1.0)))
    new_step = max(compute, new_pipe) if (overlapped or make_overlap) else compute + new_pipe
    if cores_used:
        new_step = max(new_step, step_ms * min(cores_used, cpus) / cpus)
    return max(1.0, step_ms / max(new_step, 1e-9))


def suggest(stages: list, step_ms: float | None, wait_ms: float | None, cores_used: float | None,
            cpus: int | None = None, mem: int | None = None) -> list[dict]:
    """Suggestions, best first. Each: code, name, message, source, expected_speedup."""
    cpus = cpus or available_cpus()
    figs = figures(stages, cpus)
    out: list[dict] = []
    have_steps = bool(step_ms) and wait_ms is not None
    step_ms = step_ms or 0.0
    wait_ms = wait_ms or 0.0
    overlapped = any(f.stage.kind == "prefetch" or (f.stage.parallelism or 1) > 1 for f in figs)
    total_wall = sum(f.wall_per_batch_ms for f in figs if f.stage.kind != "prefetch") or 1.0
    core_note = "" if _has_gpu_hint() else f"; CPU-only: input and model share {cpus} cores"

    def add(code: str, f: StageFigures | None, message: str, speedup: float | None) -> None:
        op = f.stage.op if f is not None else None
        out.append({
            "code": code, "name": rule_name(code), "message": message,
            "source": {"path": op.path, "line": op.line} if op is not None and op.path else None,
            "stage": op.name if op is not None else None,
            "expected_speedup": round(speedup, 2) if speedup is not None else None,
        })

    for f in figs:
        st, op = f.stage, f.stage.op
        if op.extra.get("internal"):
            continue
        cost = f"{f.time_per_element_ms:.2f} ms per element" if f.time_per_element_ms else "its time"
        share = f"{round(100 * f.wall_per_batch_ms / total_wall)}% of pipeline time"
        sp = None
        if have_steps:
            sp = _speedup(step_ms, wait_ms, figs, f, cpus, cores_used, cpus, overlapped)
        if st.kind in ("map", "map+batch") and op.extra.get("py_function"):
            if sp is None or sp >= MIN_SPEEDUP:
                add("PL106", f, f"map at {where(op)} calls a Python function (py_function/numpy_function):"
                    f" {cost}, {share}, serialized by the GIL; rewrite it with TensorFlow ops and"
                    f" map with num_parallel_calls=tf.data.AUTOTUNE{core_note}", sp)
        elif st.kind == "map" and (st.parallelism or 1) <= 1 and not op.extra.get("num_parallel_calls"):
            if sp is None or sp >= MIN_SPEEDUP:
                add("PL101", f, f"map at {where(op)} is serial: {cost}, {share}; pass"
                    f" num_parallel_calls=tf.data.AUTOTUNE{core_note}", sp)
        elif op.op == "from_generator" and op.extra.get("pydataset"):
            workers = op.extra.get("workers", 1)
            if workers <= 1 and (sp is None or sp >= MIN_SPEEDUP):
                add("PL407", f, f"{op.name} ({where(op)}) takes {cost} in one thread (workers={workers}),"
                    f" {share}; call super().__init__(workers={max(2, cpus)}, ...) and"
                    f" use_multiprocessing=True if __getitem__ is pure Python{core_note}", sp)
        elif op.op == "from_generator":
            if sp is None or sp >= MIN_SPEEDUP:
                add("PL107", f, f"{op.name} at {where(op)} runs Python in one thread: {cost}, {share};"
                    " produce indices or file names with from_tensor_slices and do the work in a"
                    f" parallel map (or interleave several generators){core_note}", sp)

    # No prefetch anywhere: the pipeline and the step run one after the other.
    if figs and not any(f.stage.kind == "prefetch" for f in figs) and have_steps:
        last = next((f for f in figs if not f.stage.op.extra.get("internal")), figs[0])
        sp = _speedup(step_ms, wait_ms, figs, None, 1.0, cores_used, cpus, False, make_overlap=True)
        if sp >= MIN_SPEEDUP:
            add("PL103", last, f"no prefetch after {last.stage.op.name} at {where(last.stage.op)}: the"
                f" pipeline ({wait_ms:.1f} ms) and the step ({step_ms - wait_ms:.1f} ms) do not overlap;"
                f" end it with .prefetch(tf.data.AUTOTUNE){core_note}", sp)

    mem = mem if mem is not None else mem_available()
    for note in memory_notes(figs, mem):
        if note["code"]:
            add(note["code"], note["figures"], note["message"], None)

    out.sort(key=lambda s: -(s["expected_speedup"] or 0.0))
    return out


def memory_notes(figs: list[StageFigures], mem: int | None) -> list[dict]:
    """What cache() and shuffle buffers will hold, from measured element sizes, vs RAM available."""
    notes = []
    for i, f in enumerate(figs):
        op = f.stage.op
        # The element size entering the op is what its input stage produced.
        src = figs[i + 1] if i + 1 < len(figs) else f
        bpe = src.bytes_per_element or f.bytes_per_element
        if not bpe:
            continue
        if op.op == "cache" and not op.extra.get("filename"):
            card = op.extra.get("input_cardinality", -2)
            n = card if card and card > 0 else src.stage.elements
            need = bpe * n
            if mem and need > 0.5 * mem:
                notes.append({"code": "PL301", "figures": f, "stage": op.name, "needs_bytes": int(need),
                              "available_bytes": mem, "message":
                              f"cache() at {where(op)} will need {human_bytes(need)}"
                              f"{'' if card and card > 0 else ' or more'}; {human_bytes(mem)} available;"
                              " use cache(filename)"})
            else:
                notes.append({"code": None, "figures": f, "stage": op.name, "needs_bytes": int(need),
                              "available_bytes": mem, "message":
                              f"cache() at {where(op)} holds about {human_bytes(need)} in memory"})
        if op.op == "shuffle":
            buf = f.stage.buffer_size or op.extra.get("buffer_size")
            if buf:
                need = bpe * buf
                msg = f"shuffle buffer at {where(op)} holds {int(buf)} elements = {human_bytes(need)}"
                if mem and need > 0.5 * mem:
                    msg += f"; {human_bytes(mem)} available: shuffle file names or use a smaller buffer"
                notes.append({"code": None, "figures": f, "stage": op.name, "needs_bytes": int(need),
                              "available_bytes": mem, "message": msg})
    return notes


_GPU_HINT: bool | None = None


def _has_gpu_hint() -> bool:
    global _GPU_HINT
    if _GPU_HINT is None:
        try:
            import tensorflow as tf
            _GPU_HINT = bool(tf.config.list_physical_devices("GPU"))
        except Exception:
            _GPU_HINT = False
    return _GPU_HINT


def live_hint(session, pipe) -> str:
    """One short clause for the live warning: the bottleneck and the rule that fixes it."""
    from pipelint.profiler.stages import merge
    if pipe is None:
        return ""
    stages = merge(list(pipe.snapshots.values()))
    stats = session.fit.stats if session.fit.stats.steps else None
    if stats is None:
        recs = [r for r in session.iter_records if r.pipeline is pipe and r.stats.steps]
        stats = recs[-1].stats if recs else None
    step_ms = wait_ms = None
    if stats is not None and stats.recent:
        step_ms = 1000 * sum(s for s, _ in stats.recent) / len(stats.recent)
        wait_ms = 1000 * sum(w for _, w in stats.recent) / len(stats.recent)
    sugg = suggest(stages, step_ms, wait_ms, stats.cpu_cores_used() if stats else None)
    if sugg:
        top = sugg[0]
        short = {"PL101": "is serial", "PL106": "calls Python (py_function)",
                 "PL107": "is a Python generator", "PL407": "has no workers",
                 "PL103": "has no prefetch"}.get(top["code"], top["name"])
        src = top["source"]
        at = f" at {os.path.basename(src['path'])}:{src['line']}" if src else ""
        return f"{top['stage']}{at} {short} ({top['code']})"
    figs = figures(stages, available_cpus())
    b = bottleneck(figs)
    return f"slowest stage is {b.stage.op.name} at {where(b.stage.op)}" if b else ""
