"""Verdict and suggestions, in the static linter's rule vocabulary, each pricing one action.

Per step (ms): S = median step time, W = input wait, C = S - W (the step's own work). P is the
pipeline's time per delivered batch: P = S when input-bound with the pipeline overlapping the step
(a prefetch or any asynchronous stage), the sum of the stages' wall time per batch when not
input-bound, and W when nothing overlaps. An action changes one stage's wall time per batch from
b to b'; then P' = max(b', P - b + b') and the new step is S' = max(C, P') with overlap, C + P'
without (`Situation.project`: the one stage model, the one `--verify` checks). The process cannot
do the same CPU work faster than its cores allow: S' >= CPU per step / cores, where CPU per step =
cores busy x S, less the CPU the action removes; not applied to more threads on a waiting stage,
whose floor is the GIL instead (`waiting_stage_ms`). A cache after a stage is priced over the
job's epochs: epoch 1 as now, the others at the step without that stage and those before it.

CPU the model loses to the pipeline (`CpuShare`): a pipeline that runs ahead never makes the step
wait, yet on a host whose cores are spent (the process keeps busy nearly all the cores it can get:
its affinity less what other processes keep busy) its threads take CPU the model's ops would use.
Then C above holds that CPU, and an action that removes X ms of the pipeline's CPU per step gives
the model the cores it held, shared with other processes in proportion to what each holds
(`CpuShare.returned_ms`; with no other process, X / c ms of the step, c = the cores the process
gets). X is measured: the stages' work per batch (tf.data's wall clock per call, turned into CPU
by the share of their ready time the process's threads were on a CPU, schedstat) or, for Python
stages, their calls' thread CPU. On a host with idle cores the pipeline's threads run on those and
nothing is returned.

Where the work of a stage goes is measured, not assumed (pytimer.PyTimer): a Python stage whose
threads use less than half a core per call *waits* (I/O, sleeps) and gains from more threads than
cores; one that *computes* holds the GIL, so threads give it nothing: its fix is a rewrite, and
the rewrite's price is an upper bound (the step if the stage cost nothing).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

from pipelint.codes import CODES
from pipelint.profiler.measure.memory import mem_available, memory_notes, site_text, where

#: XProf's thresholds: >= 20% of step time waiting for input is "highly input-bound".
INPUT_BOUND = 0.20
#: Below 5% XProf does not call it input-bound at all.
MODEL_BOUND = 0.05
#: A suggestion must promise at least this much to be shown.
MIN_SPEEDUP = 1.05
#: A Python stage whose calls use less than this share of a core (thread CPU / wall) waits.
WAITS_BELOW = 0.5
#: More threads than this are not suggested (memory, scheduling).
MAX_THREADS = 64

#: What each suggestion's `action` means.
ACTIONS = {
    "parallelize": "run the stage's calls concurrently (num_parallel_calls; a larger private"
                   " thread pool when the calls wait)",
    "rewrite-tf-ops": "replace the Python function by TensorFlow ops, so the stage leaves the GIL",
    "add-workers": "more PyDataset workers: threads when __getitem__ waits, processes"
                   " (use_multiprocessing=True) when it computes",
    "prefetch": "end the pipeline with prefetch(tf.data.AUTOTUNE) so input and step overlap",
    "cache": "keep prepared elements (cache(filename) when they do not fit in memory)",
    "vectorize": "batch first, then map over whole batches (fewer, larger calls)",
    "data-service": "move input processing off this host (tf.data service workers), whose cores"
                    " are spent",
    "cheaper-stage": "make the stage cost less CPU per element (smaller decode or resize, fewer ops): its"
                     " threads take that CPU from the model on a host whose cores are spent",
    "limit": "none priced: the input's cost on this host and what would lower it (a statement, no speedup)",
}


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


@dataclass
class StageFigures:
    """A stage with what the advice needs, computed once."""

    stage: Any  # stages.Stage
    time_per_element_ms: float | None  # work per element consumed, all threads together
    per_batch_ms: float  # work per delivered batch, all threads together
    wall_per_batch_ms: float  # divided by the parallelism it actually had
    share: float
    bytes_per_element: float | None
    elements_per_batch: float = 1.0
    py_calls: int = 0
    py_wall_ms: float | None = None  # per call of the stage's Python code
    py_cpu_ms: float | None = None

    py_busy: float | None = None  # share of the calls' wall time they wanted a core (PyTimer)

    @property
    def cpu_fraction(self) -> float | None:
        if self.py_busy is not None:
            return self.py_busy
        if self.py_wall_ms:
            return min(1.0, (self.py_cpu_ms or 0.0) / self.py_wall_ms)
        return None

    @property
    def work(self) -> str | None:
        """"waits" or "computes" for stages running Python (measured); "tf-ops" for TF's own."""
        frac = self.cpu_fraction
        if frac is not None:
            return "waits" if frac < WAITS_BELOW else "computes"
        op = self.stage.op
        if op.extra.get("py_function") or op.op == "from_generator":
            return None  # Python, but not timed
        return "tf-ops" if self.stage.kind in ("map", "map+batch", "filter", "interleave") else None

    @property
    def python(self) -> bool:
        return self.py_calls > 0 or bool(self.stage.op.extra.get("py_function")) \
            or self.stage.op.op == "from_generator"


def _timers(op) -> list:
    timers = list(op.extra.get("py_timers") or [])
    if op.extra.get("getitem_timer") is not None:
        timers = [op.extra["getitem_timer"]]  # __getitem__ itself, not Keras' queue around it
    return timers


def cap_overlap(stages: list, elapsed_s: float) -> None:
    """A stage with parallelism p cannot have worked more than p x the time its iterators ran.

    tf.data times each call from its start to its end; calls of a Python function that wait for the
    GIL overlap in those timings although they run one at a time, so a map that computes in Python
    can show more processing time than there was time. Cap it (in place) at parallelism x elapsed.
    """
    if elapsed_s <= 0:
        return
    for st in stages:
        cap = int(max(1.0, st.parallelism or 1.0) * elapsed_s * 1e9)
        if st.processing_ns > cap:
            st.processing_ns = cap


def figures(stages: list, cpus: int) -> list[StageFigures]:
    if not stages:
        return []
    total = sum(s.processing_ns for s in stages) or 1
    out = []
    # Outputs of the current stage per batch delivered to training: 1 down to the batch, the batch
    # size below it. Each stage's own consumed/outputs ratio comes from one snapshot, so stages
    # read at different times (an exhausted source kept from an earlier read) still agree.
    outputs_per_batch = 1.0
    for s in stages:
        consumed = s.consumed or s.outputs or s.elements
        per_output_ms = s.processing_ns / s.outputs / 1e6 if s.outputs else 0.0
        per_batch = per_output_ms * outputs_per_batch
        ratio = consumed / s.outputs if s.outputs and consumed else 1.0
        elements_per_batch = outputs_per_batch * ratio
        outputs_per_batch = elements_per_batch
        tpe = (s.processing_ns / consumed / 1e6) if consumed else None
        bpe = (s.bytes_produced / s.elements) if s.elements and s.bytes_produced else None
        f = StageFigures(s, tpe, per_batch, per_batch, s.processing_ns / total, bpe,
                         elements_per_batch=max(1.0, elements_per_batch))
        timers = _timers(s.op)
        calls = sum(t.calls for t in timers)
        if calls:
            f.py_calls = calls
            timed = sum(t.timed or t.calls for t in timers)
            f.py_wall_ms = 1000 * sum(t.wall for t in timers) / timed
            f.py_cpu_ms = 1000 * sum(t.cpu for t in timers) / timed
            sw = sum(t.sampled_wall - t.sampled_queue for t in timers)
            if sw > 0:  # see PyTimer.busy_fraction
                f.py_busy = max(0.0, min(1.0, sum(t.sampled_cpu for t in timers) / sw))
        # Calls that wait overlap on any number of threads; calls that compute share the cores.
        par = max(1.0, s.parallelism or 1.0)
        f.wall_per_batch_ms = per_batch / (par if f.work == "waits" else min(par, float(cpus)))
        out.append(f)
    return out


def bottleneck(figs: list[StageFigures]) -> StageFigures | None:
    cands = [f for f in figs if f.stage.kind != "prefetch"]
    return max(cands, key=lambda f: f.wall_per_batch_ms, default=None)


@dataclass
class Situation:
    """The measured step and machine that every price is computed from."""

    step_ms: float
    wait_ms: float
    overlapped: bool
    pipe_ms: float  # P: the pipeline's time per delivered batch
    cpu_ms_per_step: float | None  # CPU time of the whole process per step, all cores
    cpus: int
    cpu: CpuShare | None = None  # what the pipeline's CPU costs the model (None: not measured)

    @property
    def compute_ms(self) -> float:
        return max(0.0, self.step_ms - self.wait_ms)

    def returned_ms(self, pipeline_cpu_ms: float) -> float:
        """Wall time the model's step gains when the pipeline needs this much less CPU per step."""
        return self.cpu.returned_ms(pipeline_cpu_ms) if self.cpu is not None else 0.0

    def project(self, stage_ms: float, new_stage_ms: float, cpu_saved_ms: float = 0.0,
                make_overlap: bool = False, cpu_floor: bool = True, model_gain_ms: float = 0.0) -> float:
        """The step once one stage's wall time per batch goes from stage_ms to new_stage_ms.

        The pipeline takes at least the new stage's time: P' = max(b', P - b + b'). With overlap
        (prefetch, any asynchronous stage) the step is max(C, P'), else C + P'. `cpu_floor`: the
        process cannot do its CPU work faster than its cores allow (off for actions that add
        waiting threads: they add no CPU work, and the process CPU measured while a stage waits
        holds idle polling that does not grow with the pace). `model_gain_ms`: what the model's own
        step gains from CPU the action hands back to it (`returned_ms`)."""
        new_pipe = max(new_stage_ms, self.pipe_ms - stage_ms + new_stage_ms)
        overlap = self.overlapped or make_overlap
        compute = max(0.0, self.compute_ms - model_gain_ms)
        new_step = max(compute, new_pipe) if overlap else compute + new_pipe
        if cpu_floor and self.cpu_ms_per_step is not None:
            new_step = max(new_step, max(0.0, self.cpu_ms_per_step - cpu_saved_ms) / self.cpus)
        return max(new_step, 1e-9)

    def speedup(self, wall_saved_ms: float, cpu_saved_ms: float = 0.0, make_overlap: bool = False) -> float:
        """Speedup when a stage's wall time per batch drops by wall_saved_ms (to at least 0)."""
        if self.step_ms <= 0:
            return 1.0
        new_step = self.project(wall_saved_ms, 0.0, cpu_saved_ms, make_overlap)
        return max(1.0, self.step_ms / new_step)


#: The host's cores are spent for this process when it keeps at least this share of the cores it can
#: get busy (its affinity less the cores other processes keep busy).
CORES_SPENT = 0.8
#: ... or when its threads were on a CPU at most this share of the time they were ready to run: the
#: rest they queued for a core, so the cores are contended whatever the busy figures say (those are
#: averaged over the whole session, start-up included).
CONTENDED_ON_CPU = 0.8
#: The pipeline's CPU is priced as the model's loss only from this share of the process's CPU on.
MATERIAL_CPU = 0.10


def stage_cpu_ms(f: StageFigures, on_cpu: float | None) -> float:
    """CPU per delivered batch that a stage's threads take: its Python calls' thread CPU where they
    are timed, else tf.data's work per batch (wall clock per call, all threads) times the share of
    its ready time a thread was on a CPU. A stage that waits, or a prefetch, takes next to none."""
    if f.stage.kind == "prefetch":
        return 0.0
    if f.py_calls and f.py_cpu_ms is not None:
        return f.elements_per_batch * f.py_cpu_ms
    if f.work == "waits":
        return 0.0
    return f.per_batch_ms * (on_cpu if on_cpu is not None else 1.0)


@dataclass
class CpuShare:
    """The process's CPU per step, the cores it can get, and the share of that CPU its input
    pipeline takes: on a spent host that share comes out of the model's step."""

    cores_used: float  # c: cores the process kept busy over the measured steps
    cores_available: float  # its affinity less the cores other processes kept busy (at least c)
    process_cpu_ms: float  # U: the process's CPU per step, all threads
    pipeline_cpu_ms: float  # X: the input pipeline's CPU per step
    on_cpu: float | None  # share of its threads' ready time on a CPU (None: not read; 1 assumed)
    others_busy: float  # cores other processes kept busy
    step_ms: float = 0.0  # S: the median step these figures are per
    pipeline_cpu_measured_ms: float | None = None  # X before the model's floor (see cpu_share)

    @property
    def spent(self) -> bool:
        """The cores are contended: the process keeps nearly all it can get busy, or its threads
        queue for a core (then a core the pipeline's thread holds is one a model thread waits for)."""
        return self.cores_used >= CORES_SPENT * self.cores_available or \
            (self.on_cpu is not None and self.on_cpu <= CONTENDED_ON_CPU)

    @property
    def material(self) -> bool:
        """The host is spent and the pipeline's CPU is a material share of the process's."""
        return self.spent and self.pipeline_cpu_ms >= MATERIAL_CPU * self.process_cpu_ms

    def scaled(self, stages_cpu_ms: float) -> float:
        """Some stages' CPU from the stage figures, scaled as the total was (`cpu_share`'s floor)."""
        if not self.pipeline_cpu_measured_ms:
            return stages_cpu_ms
        return stages_cpu_ms * min(1.0, self.pipeline_cpu_ms / self.pipeline_cpu_measured_ms)

    def why(self) -> str:
        """Why the cores count as spent, in words (the figures that say so)."""
        parts = [f"the process keeps {self.cores_used:.2f} of the {self.cores_available:.2f} cores it can get busy"]
        if self.others_busy >= 0.05:
            parts[0] += f", {self.others_busy:.2f} busy with other processes"
        if self.on_cpu is not None and self.on_cpu <= CONTENDED_ON_CPU:
            parts.append(f"its threads queued for a core {100 * (1 - self.on_cpu):.0f}% of the time they were ready to run")
        return "; ".join(parts)

    def returned_ms(self, pipeline_cpu_ms: float) -> float:
        """Wall time per step the model gains when the pipeline needs `pipeline_cpu_ms` (X) less CPU
        per step; nothing on a host with idle cores (the pipeline's threads ran on those).

        The process does its CPU work, U per step, at the cores it gets: c = U / S. The X ms of
        pipeline CPU held f = X / S of them. Freed, that share goes to whoever waits for a core, in
        proportion to what each holds: the process's remaining threads (c - f) and other processes
        (o), so the process then gets c' = (c - f) + f (c - f) / (c - f + o), and S' = (U - X) / c'.
        With no other process (o = 0) c' = c: S' = S - X / c, the whole share goes to the model."""
        if not self.spent or self.cores_used <= 0 or self.step_ms <= 0:
            return 0.0
        x = min(pipeline_cpu_ms, self.pipeline_cpu_ms, self.process_cpu_ms)
        f = x / self.step_ms
        rest = max(self.cores_used - f, 1e-9)
        cores = rest + f * rest / (rest + self.others_busy)
        return max(0.0, self.step_ms - (self.process_cpu_ms - x) / cores)

    def to_dict(self, step_ms: float) -> dict[str, Any]:
        gain = self.returned_ms(self.pipeline_cpu_ms)
        return {"process_cores_used": round(self.cores_used, 2), "cores_available": round(self.cores_available, 2),
                "other_processes_busy_cores": round(self.others_busy, 2),
                "process_cpu_ms_per_step": round(self.process_cpu_ms, 3),
                "pipeline_cpu_ms_per_step": round(self.pipeline_cpu_ms, 3),
                "pipeline_cpu_ms_per_step_from_stages": round(self.pipeline_cpu_measured_ms, 3)
                if self.pipeline_cpu_measured_ms is not None else None,
                "pipeline_cpu_share": round(self.pipeline_cpu_ms / self.process_cpu_ms, 4) if self.process_cpu_ms else None,
                "on_cpu_share": round(self.on_cpu, 3) if self.on_cpu is not None else None,
                "cores_spent": self.spent, "material": self.material,
                "step_ms_if_returned": round(max(step_ms - gain, 1e-9), 3),
                "speedup_if_returned": round(step_ms / max(step_ms - gain, 1e-9), 3) if step_ms else None,
                "basis": "the process does its CPU work (U per step) at the cores it gets (c); the cores the"
                         " pipeline's X ms per step held go to the process's other threads and to other processes"
                         " in proportion to what each holds: S' = (U - X) / c', where the host's cores are spent (c >= "
                         f"{CORES_SPENT:g} x the cores available, or its threads on a CPU at most"
                         f" {CONTENDED_ON_CPU:g} of their ready time); X from tf.data's stage times x the"
                         " on-CPU share, or Python stages' thread CPU, at most U less the model's floor"
                         " ((step - wait) x min(on-CPU share, c): its ops keep a thread ready through the step)"}


def cpu_share(figs: list[StageFigures], step_ms: float, cores_used: float | None, cpus: int,
              system_busy: float | None, on_cpu: float | None, wait_ms: float = 0.0) -> CpuShare | None:
    """The figures of `CpuShare`. The pipeline's CPU is at most what the model's own step leaves of
    the process's: while the step does not wait for input, the model's ops keep at least one thread
    ready to run, on a CPU the on-CPU share of that time (and at most c cores in all). A stage whose
    TF ops wait for TensorFlow's own thread pools (busy with the model's ops) has a wall time per
    call that is neither CPU nor run-queue time; this keeps it from being counted as CPU."""
    if not step_ms or not cores_used or cores_used <= 0:
        return None
    others = max(0.0, (system_busy or 0.0) - cores_used) if system_busy is not None else 0.0
    available = max(cores_used, cpus - others)
    process = cores_used * step_ms
    measured = sum(stage_cpu_ms(f, on_cpu) for f in figs)
    model_floor = max(0.0, step_ms - (wait_ms or 0.0)) * min(on_cpu if on_cpu is not None else 1.0, cores_used)
    pipeline = max(0.0, min(measured, process - model_floor))
    return CpuShare(cores_used, available, process, pipeline, on_cpu, others, step_ms, measured)


def cpu_share_line(cs: dict | None) -> str | None:
    """The CPU the input takes from the model, in words, from the report's `cpu_share` where it is priced
    (else None): the text and HTML reports both say it."""
    if not cs or not cs.get("material"):
        return None
    queued = (f"; its threads were on a CPU {100 * cs['on_cpu_share']:.0f}% of their ready time"
              if cs.get("on_cpu_share") is not None else "")
    return (f"the pipeline takes {cs['pipeline_cpu_ms_per_step']:.1f} ms of CPU per step"
            f" ({100 * cs['pipeline_cpu_share']:.0f}% of the process's) on cores that are spent (the process keeps"
            f" {cs['process_cores_used']:.2f} of the {cs['cores_available']:.2f} it can get busy{queued}): that CPU"
            f" is the model's loss; returned, the step would be about {cs['step_ms_if_returned']:.1f} ms"
            f" ({cs['speedup_if_returned']:.2f}x)")


def situation(figs: list[StageFigures], step_ms: float, wait_ms: float, cores_used: float | None,
              cpus: int) -> Situation:
    overlapped = any(f.stage.kind == "prefetch" or (f.stage.parallelism or 1) > 1 for f in figs)
    stage_sum = sum(f.wall_per_batch_ms for f in figs if f.stage.kind != "prefetch")
    if not overlapped:
        pipe = wait_ms
    elif wait_ms >= INPUT_BOUND * step_ms:
        pipe = step_ms  # the pipeline sets the pace
    else:
        pipe = min(stage_sum, step_ms)
    cpu = cores_used * step_ms if cores_used is not None else None
    return Situation(step_ms, wait_ms, overlapped, pipe, cpu, cpus)


def waiting_threads(per_element_ms: float, cpu_ms: float, elements_per_batch: float, compute_ms: float,
                    cpus: int) -> int:
    """Threads for a stage whose calls wait: enough that its work per batch, spread over them,
    takes half the model's step (waits jitter), but no more than keep the cores busy with the
    calls' own CPU time (cores x wall/CPU per call), and at most MAX_THREADS."""
    work = elements_per_batch * per_element_ms
    need = math.ceil(2.0 * work / compute_ms) if compute_ms > 0 else MAX_THREADS
    by_cpu = math.floor(cpus * per_element_ms / cpu_ms) if cpu_ms > 0 else MAX_THREADS
    return int(max(cpus + 1, min(MAX_THREADS, need, by_cpu)))


def gil_ms_per_call(f: StageFigures, py_overhead_ms: float | None) -> float:
    """CPU time per call that runs one call at a time: the function's own Python and, for a
    py_function/numpy_function, TensorFlow's Python around it (calibrate.py)."""
    extra = (py_overhead_ms or 0.0) if f.stage.op.extra.get("py_function") else 0.0
    return (f.py_cpu_ms or 0.0) + extra


def waiting_stage_ms(f: StageFigures, threads: int, py_overhead_ms: float | None = None) -> float:
    """Wall time per batch of a waiting Python stage on `threads` threads.

    Its calls overlap, but their Python runs one at a time under the GIL (a floor of elements x
    GIL time per call). A fused map+batch fills one batch at a time when it has fewer threads than
    the batch has elements, so its calls run in rounds: ceil(elements / threads) x time per call;
    with more threads than that, a batch still waits for its slowest call (one round, at least)."""
    per_element = f.time_per_element_ms or f.py_wall_ms or 0.0
    if f.stage.kind.endswith("+batch"):
        spread = math.ceil(f.elements_per_batch / threads) * per_element
    else:
        spread = f.elements_per_batch * per_element / threads
    return max(spread, f.elements_per_batch * gil_ms_per_call(f, py_overhead_ms))


def _par_text(st) -> str:
    par = st.parallelism or 1
    if st.autotuned:
        return f"autotuned to {par:g}" + (f" (at most {st.parallelism_max:g}, the pool's size)"
                                           if st.parallelism_max else "")
    return f"num_parallel_calls={par:g}" if par > 1 else "serial"


def suggest(stages: list, step_ms: float | None, wait_ms: float | None, cores_used: float | None,
            cpus: int | None = None, mem: int | None = None, names: bool = True,
            epochs: int | None = None, py_overhead_ms: float | None = None,
            system_busy: float | None = None, on_cpu: float | None = None) -> list[dict]:
    """Suggestions, best first. Each: code, name, action, message, source, stage, expected_speedup,
    speedup_basis ("model": what the action should give; "upper-bound": the step if the stage cost
    nothing), verifiable (the probe can apply it at run time), safe (same elements), fix, and for
    actions that pay over epochs `priced_over`. `epochs`: how many epochs the job runs (cache).
    `py_overhead_ms`: TensorFlow's own CPU per py_function call (calibrate.py), GIL-bound like the
    function's. `system_busy`: cores busy system-wide (this process too): cores other processes
    use are not free for a stage either. `on_cpu`: the share of its ready time the process's threads
    were on a CPU (`service.HostCpu.on_cpu_share`), which turns tf.data's wall times into CPU.
    `names=False` leaves `name` out (the live warning on the training thread needs only codes)."""
    cpus = cpus or available_cpus()
    figs = figures(stages, cpus)
    out: list[dict] = []
    have_steps = bool(step_ms) and wait_ms is not None
    sit = situation(figs, step_ms or 0.0, wait_ms or 0.0, cores_used, cpus) if have_steps else None
    if sit is not None:
        sit.cpu = cpu_share(figs, sit.step_ms, cores_used, cpus, system_busy, on_cpu, sit.wait_ms)
    total_wall = sum(f.wall_per_batch_ms for f in figs if f.stage.kind != "prefetch") or 1.0
    busy = cores_used if cores_used is not None else 0.0
    free_cores = max(0.0, cpus - max(busy, system_busy or 0.0))
    mem = mem if mem is not None else mem_available()

    def add(code: str | None, action: str, f: StageFigures | None, message: str, speedup: float | None,
            basis: str = "model", fix: dict | None = None, safe: bool = True, **more: Any) -> None:
        op = f.stage.op if f is not None else None
        if speedup is not None and speedup < MIN_SPEEDUP:
            return
        out.append({
            "code": code, "name": rule_name(code) if code and names else None, "action": action,
            "message": message,
            "source": {"path": op.path, "line": op.line} if op is not None and op.path else None,
            "stage": op.name if op is not None else None,
            "expected_speedup": round(speedup, 2) if speedup is not None else None,
            "speedup_basis": basis if speedup is not None else None,
            "verifiable": fix is not None, "safe": safe, "fix": fix, **more,
        })

    def bound(f: StageFigures) -> float | None:
        if sit is None:
            return None
        if f.work == "waits":  # its process CPU is mostly idle polling, not work that would go
            return max(1.0, sit.step_ms / sit.project(f.wall_per_batch_ms, 0.0, cpu_floor=False))
        cpu_saved = f.elements_per_batch * (f.py_cpu_ms or 0.0) if f.py_calls else 0.0
        return sit.speedup(f.wall_per_batch_ms, cpu_saved)

    for i, f in enumerate(figs):
        st, op = f.stage, f.stage.op
        if op.extra.get("internal") or op.extra.get("added_by"):
            continue
        cost = f"{f.time_per_element_ms:.2f} ms per element" if f.time_per_element_ms else "its time"
        share = f"{round(100 * f.wall_per_batch_ms / total_wall)}% of pipeline time"
        par = st.parallelism or 1
        measured = ""
        if f.cpu_fraction is not None:
            measured = (f"; its Python code uses {f.py_cpu_ms:.2f} ms CPU per {f.py_wall_ms:.2f} ms call"
                        f" and is on a CPU {100 * f.cpu_fraction:.0f}% of the time it is not queued for"
                        f" one: it {f.work}")
        is_map = st.kind in ("map", "map+batch")
        if is_map and sit is not None:
            _cache_after(add, sit, figs, i, f, epochs, mem, cost, share)
        if is_map and f.python:
            if f.work == "waits" and sit is not None:
                # More threads than cores: the calls wait, they do not need a core each. A stage
                # already at the core count (set or autotuned) is not "parallel" for waiting calls.
                per_element = f.time_per_element_ms or f.py_wall_ms or 0.0
                gil = gil_ms_per_call(f, py_overhead_ms)
                n = waiting_threads(per_element, gil, f.elements_per_batch, sit.compute_ms, cpus)
                if n > par:
                    new_ms = waiting_stage_ms(f, n, py_overhead_ms)
                    new_step = sit.project(f.wall_per_batch_ms, new_ms, make_overlap=True, cpu_floor=False)
                    sp = sit.step_ms / new_step
                    fix = {"map_parallelism": {"path": op.path, "line": op.line, "num_parallel_calls": n},
                           "threadpool_size": max(n, cpus)} if op.path else None
                    add("PL101", "parallelize", f,
                        f"map at {where(op)} waits ({_par_text(st)}){measured}; {cost}, {share}. Pass"
                        f" num_parallel_calls={n} and set options.threading.private_threadpool_size={max(n, cpus)}"
                        f" (more threads than cores: the calls wait, they do not need a core each; tf.data's"
                        f" shared pool has one thread per core). Projected step: max(model {sit.compute_ms:.1f} ms,"
                        f" stage {new_ms:.1f} ms: {f.elements_per_batch:.3g} elements x {per_element:.2f} ms over {n}"
                        f" threads, at least {gil:.2f} ms of GIL-held Python per element) = {new_step:.1f} ms",
                        sp, fix=fix)
            if f.work == "computes":
                why = (f"map at {where(op)} holds the GIL{measured}; {cost}, {share}. More threads give it"
                       " nothing (one Python thread runs at a time): rewrite it with TensorFlow ops, then map"
                       " with num_parallel_calls=tf.data.AUTOTUNE (or move it off-host)")
            else:
                why = (f"map at {where(op)} calls Python (py_function/numpy_function){measured}; {cost},"
                       f" {share}. Rewritten with TensorFlow ops (tf.io, tf.image, ...) it runs without the"
                       " GIL and in parallel")
            add("PL106", "rewrite-tf-ops", f, why + "; not verifiable by a run: the figure is the step if"
                " this stage cost nothing", bound(f), basis="upper-bound")
        elif is_map and par <= 1 and not st.autotuned and not op.extra.get("num_parallel_calls"):
            # A serial map of TF ops: tf.data's threads run it on the free cores, no more.
            if sit is not None and free_cores >= 0.5:
                k = max(1.0, min(float(cpus), 1.0 + free_cores))
                new_step = sit.project(f.wall_per_batch_ms, f.wall_per_batch_ms / k, make_overlap=True)
                fix = {"map_parallelism": {"path": op.path, "line": op.line, "num_parallel_calls": -1}} \
                    if op.path else None
                add("PL101", "parallelize", f, f"map at {where(op)} is serial: {cost}, {share}; pass"
                    f" num_parallel_calls=tf.data.AUTOTUNE ({free_cores:.1f} of {cpus} cores are idle system-wide, so at"
                    f" most {k:.1f}x on this stage)", sit.step_ms / new_step, fix=fix)
        elif op.op == "from_generator" and op.extra.get("pydataset"):
            workers = op.extra.get("workers", 1) or 1
            per_call = f.py_wall_ms or f.per_batch_ms
            cpu_call = f.py_cpu_ms or 0.0
            if f.work == "computes":
                n = max(2, cpus)
                new_wall = max(per_call / n, cpu_call / max(free_cores, 1.0))
                how = f"workers={n}, use_multiprocessing=True (it computes: processes, not threads)"
                fix = {"pydataset_workers": {"class": op.extra.get("class"), "workers": n,
                                             "use_multiprocessing": True}}
            else:
                n = waiting_threads(per_call, cpu_call, 1.0, sit.compute_ms if sit else 0.0, cpus)
                new_wall = max(per_call / n, cpu_call)
                how = f"workers={n} (it waits: threads are enough, more than cores)"
                fix = {"pydataset_workers": {"class": op.extra.get("class"), "workers": n,
                                             "use_multiprocessing": False}}
            if n > workers:
                sp = sit.speedup(max(0.0, f.wall_per_batch_ms - new_wall)) if sit else None
                add("PL407", "add-workers", f, f"{op.name} ({where(op)}) takes {per_call:.2f} ms per batch"
                    f" with workers={workers}{measured}; {share}. Call super().__init__({how})", sp, fix=fix)
        elif op.op == "from_generator":
            add("PL107", "parallelize", f, f"{op.name} at {where(op)} runs Python in one thread{measured};"
                f" {cost}, {share}. Produce indices or file names with from_tensor_slices and do the work in a"
                " parallel map (or interleave several generators); not verifiable by a run, the figure is"
                " the step if this stage cost nothing", bound(f), basis="upper-bound")

    # No prefetch anywhere: the pipeline and the step run one after the other.
    if figs and sit is not None and not any(f.stage.kind == "prefetch" for f in figs):
        last = next((f for f in figs if not f.stage.op.extra.get("internal")), figs[0])
        sp = sit.speedup(0.0, make_overlap=True)
        add("PL103", "prefetch", last, f"no prefetch after {last.stage.op.name} at {where(last.stage.op)}:"
            f" the pipeline ({sit.wait_ms:.1f} ms) and the step ({sit.compute_ms:.1f} ms) do not overlap;"
            " end it with .prefetch(tf.data.AUTOTUNE)", sp, fix={"prefetch": True})

    # Input-bound, and the slowest stage computes but cannot be given more parallelism here (the
    # cores are spent, or autotune held it below its ceiling): nothing local is left on this host.
    input_bound = sit is not None and sit.wait_ms >= INPUT_BOUND * sit.step_ms
    if sit is not None and not input_bound and sit.cpu is not None and sit.cpu.material:
        _cheaper_stage(add, sit, figs)
    if input_bound and not any(s["speedup_basis"] == "model" for s in out):
        b = bottleneck(figs)
        ceiling = local_ceiling(b, cores_used, cpus, system_busy) if b is not None else None
        if ceiling is not None:  # tf.data service workers cannot run Python: blockers are named by the report
            pipeline_cpu = sum(f.per_batch_ms for f in figs if f.stage.kind != "prefetch")
            add(None, "data-service", b, f"the pipeline waits on {b.stage.op.name} at {where(b.stage.op)},"
                f" which computes with {_par_text(b.stage)} on {cpus} cores; {ceiling}: this host cannot"
                " prepare input faster. Move preprocessing to tf.data service workers on other machines;"
                " the figure is the step if input cost nothing",
                sit.speedup(sit.pipe_ms, cpu_saved_ms=pipeline_cpu), basis="upper-bound")

    for note in memory_notes(figs, mem):
        if note["code"]:
            add(note["code"], "cache", note["figures"], note["message"], None)

    # Never "no suggestion" on an input-bound job: when no action is priced, say what the limit is
    # and what it costs, so that the user can weigh a cheaper stage or a smaller per-step demand.
    if input_bound and not any(s["expected_speedup"] for s in out):
        b = bottleneck(figs)
        if b is not None:
            add(None, "limit", b, limit_statement(b, sit, figs, cores_used, cpus, system_busy), None)

    # Priced actions first, then upper bounds (a promise beats a ceiling), each by size.
    out.sort(key=lambda s: (s["speedup_basis"] != "model", -(s["expected_speedup"] or 0.0)))
    return out


#: The process keeps at least this share of its cores busy when its host is spent.
SPENT_CORES = 0.5


def host_spent(b: StageFigures, cores_used: float | None, cpus: int) -> bool:
    """Saturation from what the slowest stage does, not from one noisy CPU figure near a threshold:
    it computes (TF ops, or Python that computes), it already runs as many calls as there are
    cores (autotune raised it there, or num_parallel_calls), and the process keeps at least half of
    the cores busy (a stage at the core count that leaves them idle waits on something else)."""
    if b.work not in ("tf-ops", "computes") or b.stage.kind not in ("map", "map+batch", "interleave"):
        return False
    return (b.stage.parallelism or 1) >= cpus and (cores_used or 0.0) >= SPENT_CORES * cpus


def local_ceiling(b: StageFigures, cores_used: float | None, cpus: int,
                  system_busy: float | None = None) -> str | None:
    """Why the slowest stage cannot be given more parallelism on this host, in words, or None when
    it can (or when it does not compute: a waiting stage gets threads, Python gets a rewrite).

    Three measured cases: it runs as many calls as cores and the process keeps them busy (the host
    is spent, `host_spent`); autotune held it below its ceiling (more calls at once did not pay: the
    cores were busy); or a serial/at-the-cores stage whose cores other processes keep busy."""
    if b.work not in ("tf-ops", "computes") or b.stage.kind not in ("map", "map+batch", "interleave"):
        return None
    st = b.stage
    par = st.parallelism or 1
    if host_spent(b, cores_used, cpus):
        return f"the process keeps {cores_used:.1f} of {cpus} cores busy"
    if st.autotuned and st.parallelism_max and par < st.parallelism_max:
        return (f"autotune keeps it at {par:g} calls of at most {st.parallelism_max:g} (more calls at once did not"
                " pay on this host)")
    if system_busy is not None and system_busy >= SATURATED_SYSTEM * cpus and (par >= cpus or not st.autotuned):
        return (f"{system_busy:.1f} of its {cpus} cores are busy system-wide, {cores_used or 0.0:.1f} of them"
                " with this process")
    return None


#: The cores this process may use count as busy system-wide from this share on (service.SATURATED).
SATURATED_SYSTEM = 0.85


def limit_statement(b: StageFigures, sit: Situation, figs: list[StageFigures], cores_used: float | None,
                    cpus: int, system_busy: float | None) -> str:
    """What an input-bound job pays when no action is priced: the wait, the slowest stage's cost and
    the fastest this host could feed the model with every core on the pipeline."""
    op, st = b.stage.op, b.stage
    pipeline_cpu = sum(f.per_batch_ms for f in figs if f.stage.kind != "prefetch")
    floor = pipeline_cpu / max(1, cpus)
    cost = (f"{b.elements_per_batch:.3g} elements x {b.time_per_element_ms:.2f} ms" if b.time_per_element_ms
            else "its work")
    used = f"{cores_used:.1f}" if cores_used is not None else "an unknown number of"
    why = ""
    if op.extra.get("added_by"):
        why = f" It was added by {op.extra['added_by']}: change the call that adds it ({where(op)})."
    elif b.work == "waits":
        why = " Its calls wait (I/O or sleep) although tf.data runs them in parallel: the wait is outside this process."
    return (f"input-bound: {sit.wait_ms:.1f} of {sit.step_ms:.1f} ms per step ({100 * sit.wait_ms / sit.step_ms:.0f}%)"
            f" wait for {op.name} at {where(op)} ({_par_text(st)}; {cost} = {b.per_batch_ms:.1f} ms of work per"
            f" batch), and no action on this host is priced: the process used {used} of {cpus} cores"
            + (f", {system_busy:.1f} busy system-wide" if system_busy is not None else "")
            + f". The pipeline's work is {pipeline_cpu:.1f} ms per batch: with every core on it this host feeds"
            f" at best one batch per {floor:.1f} ms against the model's {sit.compute_ms:.1f} ms. Only a cheaper"
            " stage (fewer or cheaper ops per element, smaller inputs), a smaller per-step demand (a smaller"
            " batch per step, fewer augmentations) or more machines (tf.data service) lowers the wait." + why)


def _cache_after(add, sit: Situation, figs: list[StageFigures], i: int, f: StageFigures, epochs: int | None,
                 mem: int | None, cost: str, share: str) -> None:
    """cache() right after a deterministic map that is re-computed every epoch and fits in memory.

    Priced over the job's epochs: epoch 1 runs as now (and fills the cache), epochs 2..E read it,
    so this stage and every stage before it cost (about) nothing from then on."""
    from pipelint.profiler.advise.determinism import deterministic_at
    from pipelint.profiler.measure.memory import human_bytes
    op = f.stage.op
    if not epochs or epochs < 2 or not op.path:
        return
    outer = [g.stage.op for g in figs[:i]]
    if any(o.op == "cache" for o in outer):
        return  # already cached after this stage
    inner = figs[i + 1:]
    if any(g.stage.kind.startswith("shuffle") or g.stage.op.op in ("shuffle", "random") for g in inner):
        return  # its input changes order every epoch: a cache would freeze the first order
    card = op.extra.get("cardinality")
    bpe = f.bytes_per_element
    if not card or card <= 0 or not bpe:
        return  # infinite or unknown: a cache would never be complete
    need = bpe * card
    if mem is None or need > 0.5 * mem:
        return  # PL301's business: cache(filename) is a different trade
    if deterministic_at(op.path, op.line) is not True:
        return
    # From epoch 2 the pipeline is what comes after the cache: the stages after this one.
    after = sum(g.wall_per_batch_ms for g in figs[:i] if g.stage.kind != "prefetch")
    cpu_saved = sum(g.per_batch_ms for g in [f, *inner] if g.work == "tf-ops")
    # On a spent host the cached epochs also hand the CPU of these stages back to the model.
    on_cpu = sit.cpu.on_cpu if sit.cpu is not None else None
    returned_cpu = sit.cpu.scaled(sum(stage_cpu_ms(g, on_cpu) for g in [f, *inner])) if sit.cpu is not None else 0.0
    gain = sit.returned_ms(returned_cpu)
    cached_step = sit.project(sit.pipe_ms, after, cpu_saved, model_gain_ms=gain)
    job = epochs * sit.step_ms / (sit.step_ms + (epochs - 1) * cached_step)
    more: dict[str, Any] = {}
    returned = ""
    if gain > 0:
        c = sit.cpu
        more["cpu_returned"] = {"pipeline_cpu_ms": round(returned_cpu, 3), "cores_used": round(c.cores_used, 2),
                                "cores_available": round(c.cores_available, 2), "step_gain_ms": round(gain, 3)}
        returned = (f"; this host's cores are spent ({c.why()}), so the {returned_cpu:.1f} ms of CPU per step"
                    f" these stages take is the model's loss: the cached epochs give it back, {gain:.1f} ms per"
                    f" step (the cores they held go to the model's threads"
                    + (" and, in proportion, to the other processes" if c.others_busy >= 0.05 else "") + ")")
    add(None, "cache", f,
        f"map at {where(op)} is deterministic (no random ops) and re-computed every epoch; {cost}, {share};"
        f" its output, {card} elements x {bpe:.0f} B = {human_bytes(need)}, fits in memory"
        f" ({human_bytes(mem)} available). Add .cache() right after it: epoch 1 runs as now and fills the"
        f" cache, epochs 2-{epochs} read it at about {cached_step:.1f} ms/step instead of {sit.step_ms:.1f}"
        f" ({sit.step_ms / cached_step:.1f}x on those epochs, {job:.2f}x over the job's {epochs} epochs)"
        + returned,
        job, fix={"cache_after": {"path": op.path, "line": op.line}},
        priced_over={"epochs": epochs, "paying_epochs": f"2-{epochs}", "step_ms_cached": round(cached_step, 3),
                     "per_step_speedup": round(sit.step_ms / cached_step, 2),
                     "steps_per_epoch": math.ceil(card / max(f.elements_per_batch, 1.0))}, **more)


def _cheaper_stage(add, sit: Situation, figs: list[StageFigures]) -> None:
    """The stage that takes the most CPU per step, on a spent host where the step does not wait for
    input: what the model's step would be if that stage cost no CPU (an upper bound: how much cheaper
    it can be made is the user's call). Cache advice, where it applies, is the priced form of it."""
    on_cpu = sit.cpu.on_cpu
    cands = [f for f in figs if f.stage.kind not in ("prefetch",) and f.stage.op.path]
    f = max(cands, key=lambda g: stage_cpu_ms(g, on_cpu), default=None)
    if f is None:
        return
    x = sit.cpu.scaled(stage_cpu_ms(f, on_cpu))
    if x < MATERIAL_CPU * sit.cpu.process_cpu_ms:
        return
    gain = sit.returned_ms(x)
    new_step = sit.project(f.wall_per_batch_ms, 0.0, cpu_saved_ms=x, model_gain_ms=gain)
    op, c = f.stage.op, sit.cpu
    per_element = x / f.elements_per_batch
    add(None, "cheaper-stage", f,
        f"{op.name} at {where(op)} takes {x:.1f} ms of CPU per step ({f.elements_per_batch:.3g} elements x"
        f" {per_element:.2f} ms; {100 * x / c.process_cpu_ms:.0f}% of the process's {c.process_cpu_ms:.0f} ms)."
        f" The step does not wait for it, but this host's cores are spent ({c.why()}), so its threads take that CPU from the"
        f" model's ops. Make it cheaper (decode or resize to a smaller size, fewer ops per element, or cache"
        f" what does not change between epochs): each 1 ms of CPU per element less saves about"
        f" {sit.returned_ms(f.elements_per_batch):.1f} ms per step; the figure is the step if it cost no CPU"
        f" ({sit.step_ms:.1f} -> {new_step:.1f} ms)",
        sit.step_ms / new_step, basis="upper-bound",
        cpu_returned={"pipeline_cpu_ms": round(x, 3), "cores_used": round(c.cores_used, 2),
                      "cores_available": round(c.cores_available, 2), "step_gain_ms": round(gain, 3)})


def no_suggestion_reason(figs: list[StageFigures], verdict_: str, cores_used: float | None,
                         cpus: int) -> str | None:
    """Why an input-bound report has no suggestion (None when it is not input-bound)."""
    if verdict_ != "input-bound":
        return None
    b = bottleneck(figs)
    if b is None:
        return "no tf.data stage figures were read (autotune off, or a PyDataset with workers > 1)"
    op = b.stage.op
    if op.extra.get("added_by"):
        return (f"the slowest stage, {op.name}, was added by {op.extra['added_by']}; change the call that"
                f" adds it ({where(op)})")
    st = b.stage
    if st.autotuned and st.parallelism_max and (st.parallelism or 1) < st.parallelism_max:
        return (f"the slowest stage, {op.name} at {where(op)}, runs TensorFlow ops that autotune keeps at"
                f" parallelism {st.parallelism or 1:g} of at most {st.parallelism_max:g}: more calls at once did"
                " not pay on this host (its ops already use the cores), and no cheaper action is known for it")
    if b.work in ("tf-ops", "computes") and (st.parallelism or 1) >= cpus:
        used = f"{cores_used:.1f}" if cores_used is not None else "an unknown number of"
        return (f"the slowest stage, {op.name} at {where(op)}, computes with {_par_text(st)} on {cpus} cores"
                f" and this process used {used} of them: no local action is left; the cores not used"
                " by this process were busy with other processes (see host CPU)")
    return (f"the slowest stage, {op.name} at {where(op)}, is already parallel"
            f" ({st.parallelism or 1:g}) and no cheaper action is known for it")


def live_hint(session, pipe) -> str:
    """One short clause for the live warning: the bottleneck and the rule that fixes it."""
    from pipelint.profiler.measure.stages import merge
    if pipe is None:
        return ""
    stages = merge(list(pipe.snapshots.values()))
    stats = session.fit.stats if session.fit.stats.steps else None
    if stats is None:
        recs = [r for r in session.iter_records if r.pipeline is pipe and r.stats.steps]
        stats = recs[-1].stats if recs else None
    step_ms = wait_ms = None
    if stats is not None and stats.steps:
        recent = stats.step[-100:]
        step_ms = 1000 * sum(recent) / len(recent)
        wait_ms = 1000 * sum(stats.wait[-100:]) / len(recent)
    sugg = suggest(stages, step_ms, wait_ms, stats.cpu_cores_used() if stats else None, names=False)
    if sugg:
        top = sugg[0]
        short = {"PL101": "needs more parallel calls", "PL106": "calls Python (py_function)",
                 "PL107": "is a Python generator", "PL407": "has no workers",
                 "PL103": "has no prefetch"}.get(top["code"]) or \
            {"cache": "is re-computed every epoch", "cheaper-stage": "takes CPU from the model", "data-service": "has spent this host's cores",
             "limit": "sets the pace; no local fix is priced"}.get(
                top["action"], top["action"])
        src = top["source"]
        moved = session.relocate(src["path"], src["line"]) if src and session.relocate else None
        at = f" at {site_text(*(moved or (src['path'], src['line'])))}" if src else ""
        return f"{top['stage']}{at} {short} ({top['code'] or top['action']})"
    figs = figures(stages, available_cpus())
    b = bottleneck(figs)
    return f"slowest stage is {b.stage.op.name} at {where(b.stage.op)}" if b else ""
