"""The probe's state: what one profiling session has seen, and the methods that update it.

A `Session` knows nothing about how it is fed. `hooks` (tf.data) and `callback` (Keras) install the
patches that call its methods; `report` reads it. Import arrows: hooks/callback -> session -> stages.
A failure inside the probe is logged once and switches the session off, never the training.
"""
from __future__ import annotations

import logging
import math
import os
import statistics
import sys
import time
import weakref
from array import array
from dataclasses import dataclass, field
from typing import Any

from pipelint.profiler.advise.advice import INPUT_BOUND, live_hint
from pipelint.profiler.advise.service import HostCpu
from pipelint.profiler.measure.steps import StepStats, cpu_seconds
from pipelint.profiler.measure.stages import Op, Stage, align, class_kind, describe_dataset, merge, parse_proto, update
from pipelint.profiler.measure.timeline import RunTimelines

log = logging.getLogger("pipelint")


#: A pipeline's model reads are kept raw (the proto tf.data returns, about half a KB serialized for a
#: short chain) and aligned with its chain only when a reader asks; past this many unaligned reads
#: of one pipeline they are aligned at once, so memory stays bounded (fit reads every 50 steps: a
#: fit of 50,000 steps without a live warning aligns nothing before the report).
MAX_UNALIGNED_READS = 1024


class Pipeline:
    """One dataset iterated during the session, and what its iterators' model reads said.

    Describing the chain (`ops`: a graph walk and a `cardinality()` per map) and aligning the reads
    with it (`snapshots`) cost tens of µs to ms; neither is done on the training thread while it
    trains. The dataset is held until it is described (at the latest when the session finishes),
    so that its chain is still there to walk; then only the description is kept.
    """

    def __init__(self, key: int, dataset: Any, session: Session):
        self.key = key
        self.iterators = 0
        self.lifetimes: dict[int, float] = {}  # by iterator id: created -> last read (s)
        self._dataset = dataset
        self._session = session
        self._ops: list[Op] | None = None
        self._snapshots: dict[int, list[Stage]] = {}  # by iterator id: the aligned reads, folded
        self._reads: list[tuple[int, Any]] = []  # (iterator id, proto) not aligned yet, oldest first

    @property
    def described(self) -> bool:
        return self._ops is not None

    @property
    def ops(self) -> list[Op]:
        """The Python chain of ops, outermost first (described on first use)."""
        self.describe()
        return self._ops

    def describe(self) -> None:
        """Walk and describe the chain (once), then let the dataset go."""
        if self._ops is not None:
            return
        dataset, self._dataset = self._dataset, None
        try:
            self._ops = self._session.chain_of(dataset)
        except Exception as exc:
            self._ops = []
            self._session.fail("describing a pipeline", exc)

    def add_read(self, iterator_id: int, proto: Any) -> None:
        self._reads.append((iterator_id, proto))
        if len(self._reads) > MAX_UNALIGNED_READS:
            self.align_reads()

    def align_reads(self) -> None:
        """Align the raw reads with the chain, in the order they were taken (`update` keeps what an
        earlier read saw and a later one no longer reports, so the order matters)."""
        reads, self._reads = self._reads, []
        ops, snaps = self.ops, self._snapshots
        try:
            for iterator_id, proto in reads:
                chain, side, _gaps = parse_proto(proto)
                snaps[iterator_id] = update(snaps.get(iterator_id), align(ops, chain, side))
        except Exception as exc:
            self._session.fail("get_model_proto", exc)

    @property
    def snapshots(self) -> dict[int, list[Stage]]:
        """Each iterator's stages as its reads so far say (by iterator id)."""
        if self._reads:
            self.align_reads()
        return self._snapshots

    def elapsed(self) -> float:
        """Seconds its iterators ran, up to their last model read: a stage cannot work longer
        than that on each of its threads."""
        return sum(self.lifetimes.values())


class IterRecord:
    """Per-iterator timing of Python-side `next()` (custom loops).

    Per step the training thread only appends the step and its wait to two typed arrays (`tick`);
    the loop's timeline is fed from them later (`feed_timeline`: at report time, or at each
    iterator's end when an output such as TensorBoard wants the steps as they come).
    """

    __slots__ = ("session", "pipeline", "ref", "ticks", "last_end", "stats", "next_event", "born",
                 "cpu_born", "read_cpu", "loop", "warm", "numbers", "fed", "fed_end", "__weakref__")
    WARMUP = 2  # the first next() starts the pipeline, the first step traces: keep them out

    def __init__(self, session: "Session", pipeline: Pipeline, it: Any):
        self.session = session
        self.pipeline = pipeline
        self.ref = weakref.ref(it)
        self.ticks = 0
        self.last_end: float | None = None
        self.stats = StepStats()
        self.next_event = 1  # the step count at which the session has something to do (sample, stop)
        self.born = time.perf_counter()
        self.cpu_born = time.thread_time()  # this thread's CPU time when the iterator was made (READ_BUDGET)
        self.read_cpu = 0.0  # this thread's CPU time spent reading the iterator's model
        self.loop: bool | None = None  # a custom loop's iterator (not one read in Python inside fit)
        self.warm: list[tuple] = []  # the WARMUP ticks: (step s, wait s, step number, end)
        self.numbers = array("q")  # --xprof only: the step marker's number of each counted step, -1: none
        self.fed = 0  # ticks handed to the timeline so far
        self.fed_end = 0.0  # when the last tick handed to the timeline ended (perf_counter)

    def tick(self, t0: float, t1: float) -> None:
        # The training thread pays this per step: two appends and one comparison, nothing else.
        s = self.session
        if s.disabled:
            return
        try:
            self.ticks += 1
            last, self.last_end = self.last_end, t1
            if self.ticks > self.WARMUP:
                step = self.stats.step
                step.append(t1 - last)
                self.stats.wait.append(t1 - t0)
                if s.step_marker is not None:
                    self.numbers.append(_marker_number(s, self.pipeline.key))
                if len(step) >= self.next_event and s.fit.depth == 0:
                    s.loop_event(self)
                if t1 >= s.account_due and s.fit.depth == 0:  # the running account's interval is over
                    s.account.due()
            else:
                self._warm_tick(t0, t1, last)
        except Exception as exc:  # pragma: no cover - defensive
            s.fail("iterator timing", exc)

    def _warm_tick(self, t0: float, t1: float, last: float | None) -> None:
        s = self.session
        if self.loop is None:
            self.loop = s.fit.depth == 0
        if self.ticks == self.WARMUP:
            self.stats.track(t1)
        number = _marker_number(s, self.pipeline.key) if s.step_marker is not None else -1
        self.warm.append((t1 - (t0 if last is None else last), t1 - t0, number, t1))

    def feed_timeline(self) -> None:
        """Hand the ticks not handed yet to the loop's timeline, in order (a custom loop's only)."""
        if not self.loop:
            return
        timelines, key = self.session.timelines, self.pipeline.key
        warm = self.warm
        while self.fed < len(warm):
            step_s, wait_s, number, end = warm[self.fed]
            timelines.loop_step(key, id(self), step_s, wait_s, True, None if number < 0 else number, end)
            self.fed += 1
            self.fed_end = end
        step, wait, numbers = self.stats.step, self.stats.wait, self.numbers
        end = self.fed_end
        for i in range(self.fed - len(warm), len(step)):
            end += step[i]  # a counted step lasts from the previous step's end to its own
            number = numbers[i] if i < len(numbers) else -1
            timelines.loop_step(key, id(self), step[i], wait[i], False, None if number < 0 else number, end)
        self.fed = len(warm) + len(step)
        self.fed_end = end


def _marker_number(session: Session, key: int) -> int:
    number = session.step_marker.current(key)
    return -1 if number is None else number


@dataclass
class FitState:
    """What the Keras callback has reported about the `fit` calls of this session.

    Per step the training thread only appends the batch's begin time to `ends` and compares its
    length with `event_at` (and the time with `Session.account_due`); the steps are taken from
    `ends` in a batch when the session has something to do (`Session.fit_event`): at the window's
    end (`fit_flush`, every `sample_every` steps), an early read, the running account's interval,
    the step limit, or when a reader asks for the timeline.
    """

    stats: StepStats = field(default_factory=StepStats)
    depth: int = 0  # > 0 while inside fit: custom-loop timing of its iterators is not a loop
    iterators: list[IterRecord] = field(default_factory=list)
    epoch_first: int = 0  # index into Session.iter_records where the current epoch's iterators start
    # Batch-begin times (perf_counter) since the last flush: ends[0] began the first step not split
    # into wait/work yet, each later one ended a step (and began the next). Empty before an epoch's
    # first batch. Changed in place only.
    ends: array = field(default_factory=lambda: array("d"))
    event_at: int = 1  # the training thread calls Session.fit_event once len(ends) reaches this
    fed: int = 0  # steps of `ends` already handed to the timeline (a reader asked mid-window)
    feeding: bool = False  # handing them over now (a timeline sink that reads the timelines waits)
    gaps: list[int] = field(default_factory=list)  # the last gap times read (µs), for a gone iterator
    flushed: int = 0  # steps split into wait/work so far (the session's fit steps, less those in `ends`)
    epochs: int = 0  # the most epochs a fit call of this session was asked for

    @property
    def steps(self) -> int:
        """fit steps measured so far in this session (flushed or not)."""
        return self.flushed + max(0, len(self.ends) - 1)

    @property
    def pending(self) -> list[float]:
        """Step times (s) not yet split into wait/work, oldest first."""
        ends = self.ends
        return [ends[i] - ends[i - 1] for i in range(1, len(ends))]


class StepLimitReached(BaseException):
    """Raised on the training thread after `max_steps` steps (a bounded `--verify` run).

    A BaseException, like KeyboardInterrupt, so that the script's `except Exception` lets it pass.
    """


#: A custom loop's model reads (every `sample_every` steps, and at steps 1, 2, 4, ...) may take at
#: most this share of the wall time since the session's first iterator (not since install: the
#: time spent building the model must not buy reads), and an iterator's reads at most this share
#: of its thread's CPU time since the iterator was made (a loop that mostly waits for its input
#: uses little CPU of its own: the reads must not be what it spends it on). A read (kept raw,
#: aligned at report time) costs tens of µs, which a fast loop (sub-ms steps) would otherwise pay
#: every 50 steps. The counters read are cumulative, so a skipped read loses nothing that a later one does not see;
#: the reads at an iterator's end and at the session's end, and fit's every `sample_every` steps
#: (its wait estimate needs the gaps of those steps), are always taken; fit's early reads (steps
#: 1, 2, 4, ...) are budgeted.
READ_BUDGET = 0.005
#: Datasets held for a later description (`Pipeline`) at most: past it the oldest is described at
#: once, so a job that makes a new dataset per epoch does not keep them all alive.
MAX_UNDESCRIBED = 8


class Session:
    """State of one probe session. Fed by `hooks` and `callback`; read by `report`.

    `max_steps`: stop the job (StepLimitReached) after that many training steps. `fixes`: settings
    the hooks apply at run time (`pricing.FIX_KEYS`), for verification runs only.
    """

    def __init__(self, *, sample_every: int = 50, warn_every: int = 500, live_warnings: bool = True,
                 record_sources: bool = True, max_steps: int | None = None, fixes: dict | None = None):
        self.max_steps = max_steps
        self.fixes = dict(fixes or {})
        self.sample_every = sample_every
        self.warn_every = warn_every
        self.live_warnings = live_warnings
        self.record_sources = record_sources
        self.disabled = False
        self._failed: set[str] = set()
        self.sites: dict[int, tuple[weakref.ref, Op]] = {}
        self.pipelines: dict[int, Pipeline] = {}
        self._pipeline_refs: dict[int, weakref.ref] = {}
        self.iter_records: list[IterRecord] = []
        self.fit = FitState()
        self.pydataset_calls: dict[str, Any] = {}  # label -> pytimer.PyTimer of __getitem__
        self.restore: list[Any] = []  # undo functions of the patches installed for this session
        self.installs = 0  # nesting count of install() calls (hooks)
        self.t_start = time.perf_counter()
        self.read_s = 0.0  # seconds spent reading tf.data's model (see READ_BUDGET)
        self.t_first_iterator: float | None = None  # when the first iterator was made (READ_BUDGET)
        self._undescribed: list[Pipeline] = []  # pipelines holding their dataset, oldest first
        self.cpu_start = cpu_seconds()
        self.host_cpu = HostCpu()  # system-wide load of this process's cores (data_service section)
        self.t_end: float | None = None
        self.cpu_end: float | None = None
        self._last_warn_step = -10**9
        self.warnings_emitted = 0
        self.errors: list[str] = []
        self.preferred: int | None = None  # id of the dataset given to probe(), if any
        # Outputs over time (issue 14): per-step timelines for the HTML report and TensorBoard, and
        # XProf step markers (an xprof.StepMarker, set under --xprof only).
        self.timelines = RunTimelines()
        self.timelines.catch_up = self.feed_timelines
        self.step_marker: Any = None
        self.keras_tensorboard_dir: str | None = None  # the train run of the script's Keras TensorBoard callback
        # (path, line) -> the site as the user sees it, or None to keep it: IPython cells
        # (`display.cell_site`) are compiled under names like <ipython-input-3-...>.
        self.relocate: Any = None
        # The running account (run/account.py), when one is armed: the training thread compares each
        # step's end with `account_due` (perf_counter seconds; inf when there is none).
        self.account: Any = None
        self.account_due = math.inf
        self.mlflow_run: str | None = None  # the job's MLflow run seen active (output/trackers.py)

    # -- failure handling -------------------------------------------------------------------------
    def fail(self, where: str, exc: BaseException) -> None:
        """Log once and switch the probe off; the user's program carries on unprobed."""
        self.disabled = True
        if where not in self._failed:
            self._failed.add(where)
            self.errors.append(f"{where}: {type(exc).__name__}: {exc}")
            ensure_log_handler()
            log.warning("probe disabled after an error in %s: %s: %s", where, type(exc).__name__, exc)

    def started(self) -> None:
        self.t_start = time.perf_counter()
        self.cpu_start = cpu_seconds()
        self.host_cpu = HostCpu()

    def finish(self) -> None:
        """Take the final samples; called when the hooks come off and before a report."""
        if self.t_end is None or self.installs:
            # fit interrupted (Ctrl-C, an exception): its callback never saw on_train_end.
            try:
                self.fit_flush()
            except Exception as exc:
                self.fail("Keras callback", exc)
            self.sample_all()
            self.describe_pipelines()
            for rec in self.iter_records:
                if rec.stats.cpu0 is not None and rec.ref() is not None:
                    rec.stats.track()
            self.t_end = time.perf_counter()
            self.cpu_end = cpu_seconds()

    # -- call sites -------------------------------------------------------------------------------
    def record(self, ds: Any, op: str, site: tuple[str | None, int | None], extra: dict) -> None:
        key = id(ds)
        ref = weakref.ref(ds, lambda _r, key=key: self.sites.pop(key, None))
        self.sites[key] = (ref, Op(op, site[0], site[1], extra=extra))

    def site_of(self, ds: Any) -> Op | None:
        entry = self.sites.get(id(ds))
        if entry is not None and entry[0]() is ds:
            return entry[1]
        return None

    def chain_of(self, ds: Any) -> list[Op]:
        """The Python chain of ops, outermost first, following each dataset's first input."""
        ops: list[Op] = []
        seen = set()
        cur = ds
        while cur is not None and id(cur) not in seen and len(ops) < 200:
            seen.add(id(cur))
            recorded = self.site_of(cur)
            op = Op(recorded.op, recorded.path, recorded.line, recorded.label, dict(recorded.extra)) \
                if recorded else Op(class_kind(type(cur).__name__))
            describe_dataset(cur, op)
            if op.op == "flat_map" and op.extra.get("generator"):
                op.op = "from_generator"  # built before recording started: recognise it by its graph
            fn = op.extra.get("fn")
            if op.label is None and fn and fn != "<lambda>" and op.op in ("map", "filter", "interleave",
                                                                          "flat_map", "from_generator"):
                op.label = f"{op.op}({fn})"
            ops.append(op)
            if op.op in ("from_generator", "TFRecordDataset", "TextLineDataset",
                         "FixedLengthRecordDataset", "list_files"):
                break  # their inner datasets are TF's own plumbing
            try:
                inputs = cur._inputs()
            except Exception:
                inputs = []
            cur = inputs[0] if inputs else None
        return ops

    def relabel_generator(self, ds: Any, label: str, path: str | None, line: int | None,
                          extra: dict) -> None:
        """Keras wraps PyDatasets and generators in from_generator: name the stage after the user's code."""
        cur, hops = ds, 0
        while cur is not None and hops < 5:
            op = self.site_of(cur)
            if op is not None and op.op == "from_generator":
                op.label, op.path, op.line = label, path, line
                op.extra.update(extra)
                op.extra.pop("added_by", None)  # Keras made the node, the user wrote the code in it
                return
            try:
                inputs = cur._inputs()
            except Exception:
                return
            cur, hops = (inputs[0] if inputs else None), hops + 1

    # -- iterators --------------------------------------------------------------------------------
    def register_iterator(self, ds: Any, it: Any) -> IterRecord:
        if self.t_first_iterator is None:
            self.t_first_iterator = time.perf_counter()
        key = id(ds)
        pipe = self.pipelines.get(key)
        ref = self._pipeline_refs.get(key)
        if pipe is None or ref is None or ref() is not ds:
            pipe = Pipeline(key, ds, self)  # described later: see Pipeline
            self.pipelines[key] = pipe
            self._pipeline_refs[key] = weakref.ref(ds)
            self._undescribed.append(pipe)
            if len(self._undescribed) > MAX_UNDESCRIBED:
                self.describe_pipelines(keep=MAX_UNDESCRIBED)
        pipe.iterators += 1
        rec = IterRecord(self, pipe, it)
        self.iter_records.append(rec)
        if len(self.iter_records) > 1000:  # drop dead iterators, keeping their last snapshot and steps
            for r in self.iter_records:
                if r.ref() is None:
                    r.feed_timeline()
            self.iter_records = [r for r in self.iter_records if r.ref() is not None]
        return rec

    def feed_timelines(self) -> None:
        """Hand the steps not handed yet to the timelines: fit's (`_feed_fit_timeline`) and the
        custom loops' (`IterRecord.feed_timeline`)."""
        self._feed_fit_timeline()
        for rec in self.iter_records:
            rec.feed_timeline()

    def describe_pipelines(self, keep: int = 0) -> None:
        """Describe the chains of the pipelines still holding their dataset, all but the `keep` newest."""
        while len(self._undescribed) > keep:
            self._undescribed.pop(0).describe()

    def sample(self, rec: IterRecord, budgeted: bool = False, gaps: bool = False) -> list[int]:
        """Read one iterator's autotune model; the proto is kept raw (`Pipeline.add_read`) and
        aligned with the chain when the report asks. Returns the gap times (µs) it reported when
        `gaps` is set (fit's wait estimate), else []. `budgeted`: skip the read while reads have
        taken more than READ_BUDGET of the wall time since the first iterator, or of the thread's
        CPU time since this iterator was made."""
        it = rec.ref()
        if it is None or self.disabled:
            return []
        t0, c0 = time.perf_counter(), time.thread_time()
        if budgeted and (self.read_s > READ_BUDGET * (t0 - (self.t_first_iterator or self.t_start))
                         or rec.read_cpu > READ_BUDGET * (c0 - rec.cpu_born)):
            return []
        import tensorflow as tf
        try:
            proto = tf.data.experimental.get_model_proto(it)
            rec.pipeline.add_read(id(rec), proto)
            rec.pipeline.lifetimes[id(rec)] = time.perf_counter() - rec.born
            return list(proto.gap_times) if gaps else []
        except Exception as exc:
            if "model" in str(exc).lower() and "not" in str(exc).lower():
                return []  # autotune off for this pipeline: nothing to read, not an error
            self.fail("get_model_proto", exc)
            return []
        finally:
            self.read_s += time.perf_counter() - t0
            rec.read_cpu += time.thread_time() - c0

    def sample_all(self) -> None:
        for rec in list(self.iter_records):
            if self.disabled:
                return
            self.sample(rec)

    def loop_event(self, rec: IterRecord) -> None:
        """A custom loop reached `rec.next_event` steps: sample, warn, or stop (--verify runs)."""
        n = len(rec.stats.step)
        every = self.sample_every
        if n % every == 0:
            rec.stats.track()
            self.sample(rec, budgeted=True)
            self.maybe_warn(rec.stats, n, rec.pipeline)
        elif early_sample(n, every):
            # An iterator dropped early (Ctrl-C, break) still leaves a snapshot: the session's first
            # read is always within the budget.
            self.sample(rec, budgeted=True)
        if self.max_steps and n >= self.max_steps:
            self.finish()
            raise StepLimitReached(self.max_steps)
        nxt = (n // every + 1) * every
        if n < every:
            nxt = min(nxt, 1 << n.bit_length())  # the next power of two: an early sample
        if self.max_steps:
            nxt = min(nxt, self.max_steps)
        rec.next_event = max(n + 1, nxt)

    # -- Keras fit (called by callback.PipelineProfiler) ------------------------------------------
    def fit_begin(self) -> None:
        self.fit.depth += 1
        self.fit.stats.new_segment()  # each fit call traces (or retraces) its train function

    def fit_end(self) -> None:
        self.fit.depth = max(0, self.fit.depth - 1)
        self.fit_flush()

    def fit_epoch_begin(self) -> None:
        f = self.fit
        if len(f.ends) > 1:  # steps an interrupted fit left: they end with it
            self.fit_flush()
        self._fit_no_base()
        f.epoch_first = len(self.iter_records)
        self.timelines.fit_epoch_begin()

    def fit_epoch_end(self) -> None:
        """The epoch's steps are split; its last batch (it holds validation) is no step."""
        self.fit_flush()
        self._fit_no_base()

    def _fit_no_base(self) -> None:
        f = self.fit
        del f.ends[:]
        f.fed = 0
        f.event_at = 1  # the next batch is an epoch's first: fit_event adopts its iterator

    def fit_first_batch(self) -> None:
        """The epoch's iterator was created just before its first batch: adopt it as fit's."""
        self.timelines.fit_batch_begin(None)
        for rec in self.iter_records[self.fit.epoch_first:]:
            if rec.ref() is not None and rec not in self.fit.iterators:
                self.fit.iterators.append(rec)

    def fit_step(self, now: float, seconds: float) -> None:
        """One training step of `seconds` that ended at `now` (the callback records batch-begin
        times itself, `PipelineProfiler.on_train_batch_begin`; this is the same for a caller that
        measures steps on its own: `seconds` sets where the epoch's first step began)."""
        ends = self.fit.ends
        if not ends:
            ends.append(now - seconds)
        ends.append(now)
        if len(ends) >= self.fit.event_at or now >= self.account_due:
            self.fit_event(now)

    def fit_event(self, now: float) -> None:
        """The training thread's slow path in fit, at the batch begun at `now` (the last of
        `fit.ends`): an epoch's first batch, a window's end (flush, every `sample_every` steps), an
        early read (steps 1, 2, 4, ...), the running account's interval, the step limit. The
        callback calls it once `len(fit.ends)` reaches `fit.event_at` or `now >= account_due`; the
        checks are those a step made when each step called them, at the same steps."""
        f = self.fit
        ends = f.ends
        if self.disabled:
            del ends[:]  # the probe is off: keep nothing, look again in a while
            f.fed, f.event_at = 0, 4096
            return
        n = len(ends) - 1  # steps not flushed yet, the one ending now included
        if n <= 0:
            self.fit_first_batch()  # no step ended here; the running account waits for one
        else:
            steps = f.flushed + n
            if f.stats.cpu0 is None:
                f.stats.track(ends[-2])  # the first step: CPU read from its start (an event step)
            if n >= self.sample_every:
                self.fit_flush()  # reads the CPU time (StepStats.track) as it starts
                self.maybe_warn(f.stats, steps, self.fit_pipeline())
            elif early_sample(steps, self.sample_every):
                self._read_fit_gaps(budgeted=True)  # so that an interrupted fit still has stages and gaps
            if now >= self.account_due:  # the running account's interval is over (run/account.py)
                self.account.due()
            if self.max_steps and steps >= self.max_steps:
                f.stats.track(now)
                self.finish()
                raise StepLimitReached(self.max_steps)
        f.event_at = self._fit_event_at()

    def _fit_event_at(self) -> int:
        """len(fit.ends) at the next step that has something to do (see `fit_event`)."""
        f = self.fit
        if not f.ends:
            return 1
        if f.stats.cpu0 is None:
            return len(f.ends) + 1
        steps = f.steps
        every = self.sample_every
        nxt = f.flushed + every  # the window's end
        if steps < every:
            early = 1 << steps.bit_length()  # the next power of two: an early read
            if early < every:
                nxt = min(nxt, early)
        if self.max_steps:
            nxt = min(nxt, self.max_steps)
        return max(nxt, steps + 1) - f.flushed + 1

    def _feed_fit_timeline(self) -> None:
        """Hand fit's steps not handed yet to its timeline, in order (wait unknown until the flush)."""
        f = self.fit
        if f.feeding or f.fed + 1 >= len(f.ends):  # nothing new, or a timeline sink reading while fed
            return
        f.feeding = True
        try:
            self.timelines.fit_batches(f.ends, f.fed + 1)
            f.fed = len(f.ends) - 1
        finally:
            f.feeding = False

    def fit_flush(self) -> None:
        """Split the pending steps into input wait and work, using tf.data's gap times.

        Keras reads the iterator inside its compiled train function, so Python cannot see the
        wait directly: input wait per step = step time - the consumer's gap between two GetNext.
        """
        f = self.fit
        ends = f.ends
        n = len(ends) - 1
        pending: list[float] = []
        if n > 0:
            if f.stats.cpu0 is not None:
                f.stats.track()
            self._feed_fit_timeline()
            pending = f.pending
            del ends[:-1]  # the last batch's begin starts the next step
            f.fed = 0
            f.flushed += n
        gaps = self._read_fit_gaps() or f.gaps  # the iterator may be gone (interrupted fit)
        if not pending:
            return
        # tf.data keeps the last 100 gaps, newest last: compare the same steps on both sides.
        # Medians: the first gap holds the tracing of the train function (seconds).
        gaps = gaps[-len(pending):]
        step = statistics.median(pending)
        wait_per_step = max(0.0, step - statistics.median(gaps) / 1e6) if gaps else 0.0
        wait_per_step = min(wait_per_step, step)
        self.timelines.fit_wait(wait_per_step)
        f.stats.step.extend(pending)  # StepStats.add, per step
        f.stats.wait.extend([min(p, wait_per_step) for p in pending])

    def fit_pipeline(self) -> Pipeline | None:
        recs = [r for r in self.fit.iterators if r.ref() is not None]
        return recs[-1].pipeline if recs else None

    def _read_fit_gaps(self, budgeted: bool = False) -> list[int]:
        gaps: list[int] = []
        for rec in self.fit.iterators:
            if rec.ref() is not None and not self.disabled:
                g = self.sample(rec, budgeted, gaps=True)
                if len(g) > len(gaps):
                    gaps = g
        if gaps:
            self.fit.gaps = gaps
        return gaps

    # -- results ----------------------------------------------------------------------------------
    def main_pipeline(self) -> Pipeline | None:
        """The pipeline that fed training: the most elements through its root."""
        best, best_n = None, -1
        fit_keys = {r.pipeline.key for r in self.fit.iterators}
        for pipe in self.pipelines.values():
            stages = merge(list(pipe.snapshots.values()))
            n = (stages[0].outputs or stages[0].elements) if stages else 0
            if self.fit.stats.steps and pipe.key not in fit_keys:
                n = -1 if self.fit.iterators else n
            if pipe.key == self.preferred and n > 0:
                n = 1 << 62
            if n > best_n:
                best, best_n = pipe, n
        return best

    def step_stats(self) -> tuple[StepStats, str]:
        """The steps that count: fit's, else the custom loop that ran the most steps."""
        if self.fit.stats.steps:
            return self.fit.stats, "keras"
        loops = [r for r in self.iter_records if r.stats.steps]
        if not loops:
            return StepStats(), "none"
        rec = max(loops, key=lambda r: r.stats.steps)
        # Same pipeline over several epochs: one segment per iterator.
        total = StepStats()
        for r in loops:
            if r.pipeline is rec.pipeline:
                total.new_segment()
                total.step += r.stats.step
                total.wait += r.stats.wait
                if r.stats.cpu0 is not None:
                    total.cpu0 = r.stats.cpu0 if total.cpu0 is None else min(total.cpu0, r.stats.cpu0)
                    total.wall0 = r.stats.wall0 if total.wall0 is None else min(total.wall0, r.stats.wall0)
                    total.cpu1 = max(total.cpu1 or 0, r.stats.cpu1)
                    total.wall1 = max(total.wall1 or 0, r.stats.wall1)
        return total, "loop"

    def maybe_warn(self, stats: StepStats, step: int, pipe: Pipeline | None) -> None:
        if self.disabled or not self.live_warnings or step - self._last_warn_step < self.warn_every:
            return
        frac = stats.recent_fraction()
        if frac is None or frac < INPUT_BOUND:
            return
        self._last_warn_step = step
        hint = live_hint(self, pipe)
        ensure_log_handler()
        log.warning("input-bound (%d%% of step time)%s", round(frac * 100), f": {hint}" if hint else "")
        self.warnings_emitted += 1


def early_sample(step: int, every: int) -> bool:
    """Steps 1, 2, 4, 8... below `every` are sampled too: a few reads per iterator, once."""
    return 0 < step < every and step & (step - 1) == 0


_handler_added = False


def ensure_log_handler() -> None:
    """Make the live warning visible as `WARNING pipelint: ...` when the app configured no logging."""
    global _handler_added
    if _handler_added or log.handlers or logging.getLogger().handlers:
        return
    h = logging.StreamHandler(sys.stderr)
    h.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    log.addHandler(h)
    log.propagate = False
    _handler_added = True
