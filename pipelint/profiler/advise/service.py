"""When one host cannot feed the model: host CPU saturation, the tf.data service projection, and
what the probe can and cannot see of a pipeline that already runs on the service.

- `HostCpu` samples /proc/stat for the cores this process may use (its affinity), so the report
  has the system-wide load of those cores beside the process's own CPU use.
- `section()` adds the report's `data_service` key: host CPU, whether the job is input-bound on
  saturated cores, the projection (how many worker cores it takes to feed this trainer and the
  step with 1, 2, 4... of them), the stages that cannot run on service workers (py_function,
  numpy_function, from_generator) with their lines, a snippet placing `distribute` after the
  expensive stages and before the trainer's prefetch; and, for a dataset that goes through
  `distribute(...)`, which stages run remotely (their per-stage times are not visible here).
- `suggestion()` is the top `data-service` suggestion when the section calls for it.

Projection (per step, ms): S = measured step, W = input wait, P = pipeline work per batch (the
stages' processing time per delivered batch, all threads together: CPU this host gives back when
the stages move), C = S - W the step's own work (it also holds what the pipeline's threads took
from the model during the step, so it errs high and the projection low). With k worker cores as
fast as this host's, the trainer's step is max(C, P / k): the trainer computes while the workers
prepare the next batches. Not modelled: the network (RPC
latency, bandwidth, deserializing batches on the trainer) and the dispatcher.
"""
from __future__ import annotations

import math
import os
import weakref
from typing import Any

from pipelint.profiler.measure.memory import site_text

#: Input-bound, and at least this share of the cores the process may use is busy: saturated.
SATURATED = 0.85
#: The worker counts the projection shows.
PROJECTED_WORKERS = (1, 2, 4, 8)
#: Sources the dispatcher can split (ShardingPolicy.DYNAMIC: each element produced once).
SPLITTABLE = ("range", "from_tensor_slices", "list_files", "TFRecordDataset", "TextLineDataset",
              "FixedLengthRecordDataset")
BLOCKING_SOURCES = ("from_generator",)
REMOTE_NOTE = ("these stages run on tf.data service workers: the trainer sees only the batches they"
               " send, so their per-stage times are not visible here; call"
               " pipelint.profiler.probe_worker(dataset_fn) on a worker host for them")


class HostCpu:
    """Busy time of the cores this process may use, from /proc/stat (Linux; None elsewhere)."""

    def __init__(self) -> None:
        self.cores = _allowed_cores()
        self.start = _proc_stat(self.cores)
        self.sched_start = _threads_sched()

    def on_cpu_share(self) -> float | None:
        """Of the time this process's threads were ready to run since the start, the share they
        were on a CPU (schedstat: on-CPU / (on-CPU + run-queue)); None where unreadable.

        tf.data times a stage's calls by the wall clock, so on a crowded host a call's time holds
        the time its thread waited for a core: this share turns it back into CPU. Threads are
        matched by id; one that ended before the end is left out (its last figures are gone)."""
        end = _threads_sched()
        if end is None or self.sched_start is None:
            return None
        run = queue = 0
        for tid, (r, q) in end.items():
            r0, q0 = self.sched_start.get(tid, (0, 0))
            run += r - r0
            queue += q - q0
        return run / (run + queue) if run > 0 else None

    def busy_cores(self) -> float | None:
        """Cores busy on average since the start (all processes, not only this one)."""
        end = _proc_stat(self.cores)
        if self.start is None or end is None:
            return None
        busy = end[0] - self.start[0]
        total = end[1] - self.start[1]
        if total <= 0:
            return None
        return len(self.cores) * busy / total


def _allowed_cores() -> list[int]:
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return list(range(os.cpu_count() or 1))


def _threads_sched() -> dict[str, tuple[int, int]] | None:
    """tid -> (ns on a CPU, ns ready but waiting for one) of this process's live threads (Linux)."""
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return None
    out = {}
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/schedstat", encoding="ascii") as fh:
                fields = fh.read().split()
            out[tid] = (int(fields[0]), int(fields[1]))
        except (OSError, ValueError, IndexError):
            continue
    return out or None


def _proc_stat(cores: list[int]) -> tuple[int, int] | None:
    """(busy, total) jiffies summed over `cores`; idle and iowait count as not busy."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    wanted = {f"cpu{c}" for c in cores}
    busy = total = 0
    for line in lines:
        parts = line.split()
        if parts and parts[0] in wanted:
            values = [int(v) for v in parts[1:9]]  # user nice system idle iowait irq softirq steal
            total += sum(values)
            busy += sum(values) - values[3] - values[4]
    return (busy, total) if total else None


# -- the hook on Dataset.apply --------------------------------------------------------------------

def apply_facts(args: tuple, result: Any) -> dict[str, Any]:
    """Facts of a recorded `apply`: a hand-off to the tf.data service keeps a weak reference to
    the dataset it was given (the part that runs on the workers)."""
    if "DataService" not in type(result).__name__ or not args:
        return {}
    try:
        return {"service": True, "service_input": weakref.ref(args[0])}
    except TypeError:
        return {"service": True}


# -- the report section ---------------------------------------------------------------------------

def _where(op) -> dict[str, Any] | None:
    return {"path": op.path, "line": op.line} if getattr(op, "path", None) else None


def _at(op) -> str:
    return site_text(op.path, op.line) if getattr(op, "path", None) else "an unknown line"


def blockers(ops: list) -> list[dict[str, Any]]:
    """Stages that tf.data service workers cannot run, outermost first."""
    found = []
    for op in ops:
        if op.op in BLOCKING_SOURCES:
            what = "from_generator runs a Python generator"
        elif op.extra.get("py_function"):
            what = f"{op.op} calls tf.py_function/tf.numpy_function"
        else:
            continue
        found.append({"stage": op.name, "what": what, "source": _where(op)})
    return found


def snippet(ops: list) -> tuple[str, dict[str, Any] | None]:
    """Where `distribute` goes (after the last stage that does work, before the trailing prefetch)
    and the code to put there."""
    ops = [op for op in ops if not op.extra.get("internal")]
    trailing = 0
    while trailing < len(ops) and ops[trailing].op in ("prefetch", "with_options"):
        trailing += 1
    after = ops[trailing] if trailing < len(ops) else None
    source = ops[-1] if ops else None
    mode = "DYNAMIC" if source is not None and source.op in SPLITTABLE else "OFF"
    why = ("each element produced once: the dispatcher splits the source among workers" if mode == "DYNAMIC"
           else "the source cannot be split: every worker runs the whole pipeline, so shuffle without a seed")
    lines = [
        f"# after {after.name} ({_at(after)})" if after is not None else "# at the end of the pipeline",
        "ds = ds.apply(tf.data.experimental.service.distribute(",
        f"    processing_mode=tf.data.experimental.service.ShardingPolicy.{mode},  # {why}",
        '    service="grpc://DISPATCHER_HOST:5050", job_name="train"))',
        "ds = ds.prefetch(tf.data.AUTOTUNE)  # the trainer's own buffer stays on the trainer",
    ]
    return "\n".join(lines), _where(after) if after is not None else None


def projection(step_ms: float, wait_ms: float, pipeline_ms: float) -> dict[str, Any]:
    # The step's own work C = S - W. On saturated cores C also holds the share the pipeline's
    # threads took during the step, so it overstates the model's time: the projection is cautious.
    model_ms = max(0.0, step_ms - wait_ms)
    need = math.ceil(pipeline_ms / model_ms) if model_ms > 0 else None
    rows = []
    for k in PROJECTED_WORKERS:
        new = max(model_ms, pipeline_ms / k)
        rows.append({"workers": k, "step_ms": round(new, 3),
                     "speedup": round(step_ms / new, 2) if new > 0 else None})
    return {"pipeline_ms_per_batch": round(pipeline_ms, 3), "model_ms_per_step": round(model_ms, 3),
            "step_ms": round(step_ms, 3), "input_wait_ms": round(wait_ms, 3),
            "worker_cores_to_feed_one_trainer": need, "by_workers": rows,
            "basis": "step = max(step - input wait, pipeline work per batch / worker cores); worker cores as"
                     " fast as this host's; network, RPC and deserialization not modelled"}


def section(session, pipe, figs: list, step_ms: float | None, wait_ms: float | None,
            fraction: float | None, cores_used: float | None, cpus: int,
            input_bound: float) -> dict[str, Any]:
    host = getattr(session, "host_cpu", None)
    system = host.busy_cores() if host is not None else None
    ops = list(pipe.ops) if pipe is not None else []
    out: dict[str, Any] = {
        "host_cpu": {"cpus": cpus, "process_cores_used": round(cores_used, 2) if cores_used is not None else None,
                     "system_busy_cores": round(system, 2) if system is not None else None},
        "saturated": False, "recommended": False, "remote": None, "projection": None,
        "blockers": [], "snippet": None, "insert_after": None,
    }
    hand_off = next((op for op in ops if op.op == "apply" and op.extra.get("service")), None)
    if hand_off is not None:
        ref = hand_off.extra.get("service_input")
        remote = ref() if ref is not None else None
        remote_ops = session.chain_of(remote) if remote is not None else []
        out["remote"] = {
            "distribute": _where(hand_off),
            "stages": [{"stage": op.name, "source": _where(op)} for op in remote_ops],
            "trainer_wait_ms": round(wait_ms, 3) if wait_ms is not None else None,
            "trainer_step_ms": round(step_ms, 3) if step_ms is not None else None,
            "batches_received": session.step_stats()[0].steps,
            "note": REMOTE_NOTE,
        }
        return out
    # Saturated by this job, judged from what its slowest stage does (it computes with as many
    # calls as cores, and the process keeps the cores busy), not from one CPU figure near a
    # threshold. Cores busy with other processes (system-wide) are reported too, but they are not
    # this job's input to move.
    from pipelint.profiler.advise.advice import bottleneck, host_spent, local_ceiling
    slowest = bottleneck(figs)
    out["saturated"] = slowest is not None and host_spent(slowest, cores_used, cpus)
    out["host_cpu"]["busy_with_other_processes"] = bool(
        system is not None and system >= SATURATED * cpus and not out["saturated"])
    # Why the slowest stage gets no more parallelism here (spent cores, autotune at its ceiling,
    # cores busy with other processes); None when a local action can still help.
    out["local_limit"] = local_ceiling(slowest, cores_used, cpus, system) if slowest is not None else None
    pipeline_ms = sum(f.per_batch_ms for f in figs if f.stage.kind != "prefetch")
    if step_ms and pipeline_ms > 0:
        out["projection"] = projection(step_ms, wait_ms or 0.0, pipeline_ms)
        if slowest is not None:
            st = slowest.stage
            out["projection"]["slowest_stage"] = {
                "stage": st.op.name, "source": _where(st.op),
                "ms_per_element": round(slowest.time_per_element_ms, 4) if slowest.time_per_element_ms else None,
                "elements_per_batch": round(slowest.elements_per_batch, 3),
                "work_per_batch_ms": round(slowest.per_batch_ms, 3)}
        out["projection"]["local_floor_ms"] = round(pipeline_ms / max(1, cpus), 3)
    relocate = getattr(session, "relocate", None)
    if relocate is not None:  # IPython cells: sites as the user sees them ("cell 3, line 2")
        import dataclasses
        ops = [dataclasses.replace(op, path=moved[0], line=moved[1])
               if op.path and (moved := relocate(op.path, op.line)) else op for op in ops]
    out["blockers"] = blockers(ops)
    out["snippet"], out["insert_after"] = snippet(ops) if ops else (None, None)
    out["recommended"] = bool(fraction is not None and fraction >= input_bound and out["local_limit"]
                              and out["projection"] is not None)
    return out


def cores_here(sec: dict[str, Any], cpus: int) -> float:
    """The cores tf.data service workers started on this host could give the pipeline: this host's
    cores less those other processes kept busy (system-wide busy minus this process's own use)."""
    host = sec.get("host_cpu") or {}
    used, system = host.get("process_cores_used"), host.get("system_busy_cores")
    others = max(0.0, system - used) if system is not None and used is not None else 0.0
    return max(0.5, cpus - others)  # never below half a core: a figure, not a division by zero


def suggestion(sec: dict[str, Any], cpus: int) -> dict[str, Any] | None:
    """The `data-service` suggestion, or None when the section does not call for one.

    Its `expected_speedup` is priced for this host (issue 30): workers started here share the cores
    the pipeline already uses, so the step is max(C, W / h), W = the process's CPU per step (at
    least P), h = the cores not busy with other processes;
    on saturated cores that is about 1x, which is what a service run by hand on this host measures.
    The scale-out figure (worker cores on other hosts) is `remote_projection`: a projection this
    host cannot check, never the promise."""
    if not sec.get("recommended"):
        return None
    proj = sec["projection"]
    one = proj["by_workers"][0]
    need = proj["worker_cores_to_feed_one_trainer"]
    # The projection is for the worker cores it names (at most its largest row).
    cores = min(need or 1, PROJECTED_WORKERS[-1])
    best_step = max(proj["model_ms_per_step"], proj["pipeline_ms_per_batch"] / cores)
    here = cores_here(sec, cpus)
    # Everything the process computes per step stays on this host's cores when the workers run
    # here: its CPU per step (measured) bounds the step, whatever tf.data's per-call wall times say
    # (a map whose ops spread over the cores by themselves shows one call's wall time, not its CPU).
    used = sec["host_cpu"].get("process_cores_used")
    work_here = max(proj["pipeline_ms_per_batch"], (used or 0.0) * (proj.get("step_ms") or 0.0))
    here_step = max(proj["model_ms_per_step"], work_here / here)
    busy = sec["host_cpu"]
    load = busy["system_busy_cores"] if busy["system_busy_cores"] is not None else busy["process_cores_used"]
    limit = sec.get("local_limit")
    slow = proj.get("slowest_stage") or {}
    at = f" at {site_text(slow['source']['path'], slow['source']['line'])}" if slow.get("source") else ""
    per_element = (f" ({slow['stage']}{at}: {slow['elements_per_batch']:.3g} elements x {slow['ms_per_element']:.2f} ms"
                   f" = {slow['work_per_batch_ms']:.1f} ms)" if slow.get("ms_per_element") else "")
    head = (f"input-bound and no more parallelism here: {limit}" if limit else
            f"input-bound with the {cpus} core(s) this process may use busy ({load:.1f} in use)")
    step = proj.get("step_ms")
    here_sp = step / here_step if step and here_step > 0 else 1.0
    remote_sp = step / best_step if step and best_step > 0 else max((r["speedup"] or 1.0) for r in proj["by_workers"])
    others = cpus - here
    msg = (f"{head}; this host cannot prepare input faster. The pipeline does {proj['pipeline_ms_per_batch']:.1f} ms"
           f" of work per batch{per_element} and the model {proj['model_ms_per_step']:.1f} ms per step."
           f" On this host tf.data service workers add no CPU: they share the {cpus} core(s) the pipeline"
           f" already uses" + (f" ({others:.1f} busy with other processes)" if others >= 0.05 else "")
           + f"; the process computes {work_here:.1f} ms per step on them, so the step would be at best"
           f" {here_step:.1f} ms ({here_sp:.2f}x, the figure promised here; the service's own CPU, compressing,"
           " sending and decoding each batch on the same cores, can only lower it). Run the workers on other"
           " machines:"
           f" about {need} worker core(s) feed one trainer; with one the step would be {one['step_ms']:.1f} ms"
           f" ({one['speedup']:.2f}x), with {cores} {best_step:.1f} ms ({remote_sp:.2f}x), a projection this host"
           " cannot check. Assumes worker cores as fast as this host's and the model's step as measured (step -"
           " input wait, measured while the pipeline shared the cores: alone it is likely shorter, so the"
           " projection is cautious); the network, RPC, deserializing batches and the dispatcher are not"
           " modelled. Insert distribute(...) after the expensive stages, before the trainer's prefetch"
           " (snippet in data_service.snippet)")
    if proj.get("local_floor_ms") is not None:
        msg += (f". Without more machines this host feeds at best one batch per {proj['local_floor_ms']:.1f} ms"
                f" (the pipeline's work over all {cpus} core(s)): only a cheaper stage or a smaller per-step"
                " demand lowers that")
    if sec["blockers"]:
        names = ", ".join(f"{b['stage']} at {site_text(b['source']['path'], b['source']['line'])}"
                          if b["source"] else b["stage"] for b in sec["blockers"])
        msg += f". First rewrite with TensorFlow ops what service workers cannot run: {names}"
    src = sec.get("insert_after")
    return {"code": None, "name": None, "action": "data-service", "message": msg, "source": src,
            "stage": "distribute", "expected_speedup": round(here_sp, 2), "speedup_basis": "model",
            "priced_for": f"this host ({here:.1f} of {cpus} cores free for its workers)",
            "remote_projection": {"worker_cores": cores, "step_ms": round(best_step, 3),
                                  "speedup": round(remote_sp, 2),
                                  "basis": "worker cores on other hosts as fast as this host's; not checkable"
                                           " on this host"},
            "verifiable": False, "safe": True, "fix": None,
            "blockers": sec["blockers"], "snippet": sec["snippet"]}


def render_lines(sec: dict[str, Any] | None) -> list[str]:
    """The section's lines in the text report."""
    if not sec:
        return []
    lines = []
    remote = sec.get("remote")
    if remote:
        names = ", ".join(s["stage"] + (f" ({site_text(s['source']['path'], s['source']['line'])})"
                                        if s["source"] else "") for s in remote["stages"]) or "unknown"
        lines.append(f"  tf.data service: {remote['batches_received']} batches received, input wait"
                     f" {remote['trainer_wait_ms']} ms per step; remote stages: {names}")
        lines.append(f"    {remote['note']}")
        for worker in remote.get("workers") or []:
            lines.append(f"    worker {worker.get('worker')}: " + ", ".join(
                f"{s['stage']} {s['work_per_batch_ms']:.2f} ms/batch" for s in worker.get("stages", [])))
    host = sec.get("host_cpu") or {}
    used, system = host.get("process_cores_used"), host.get("system_busy_cores")
    parts = []
    if used is not None:
        parts.append(f"{used} cores used by this process")
    if system is not None:
        parts.append(f"{system} of {host.get('cpus')} busy system-wide")
    if parts:
        lines.append("  host CPU: " + ", ".join(parts) + (" (saturated)" if sec.get("saturated") else ""))
    if sec.get("recommended") and sec.get("snippet"):
        lines.append("  tf.data service snippet:")
        lines.extend("    " + line for line in sec["snippet"].splitlines())
    return lines
