"""The probe's state and the hooks that feed it.

One `Session` is active at a time. Installing it patches (and uninstalling restores):
- `tf.data.Dataset` methods and reader constructors, to record the user's call site of each op;
- `tf.data.Dataset.__iter__`, to register eager iterators and time `next()` in custom loops;
- Keras' PyDataset/generator adapters (call sites, `__getitem__` timing) and `Model.fit`
  (adds a `PipelineProfiler` callback when the user did not).
Every hook calls the original first-hand and returns its result untouched; a failure inside the
probe is logged once and switches the probe off, never the training.
"""
from __future__ import annotations

import logging
import os
import sys
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from pipelint.profiler.stages import Op, Stage, align, class_kind, merge, parse_proto, update

log = logging.getLogger("pipelint")

_ACTIVE: "Session | None" = None
_tls = threading.local()

# Frames from these directories are library internals; the call site is the first frame outside.
_SKIP_DIRS: tuple[str, ...] = ()

# Methods whose call sites we record. Static constructors are included.
DATASET_METHODS = (
    "map", "batch", "padded_batch", "ragged_batch", "prefetch", "shuffle", "repeat", "cache",
    "interleave", "flat_map", "filter", "take", "skip", "unbatch", "rebatch", "shard",
    "concatenate", "with_options", "apply", "window", "scan", "take_while", "enumerate",
    "bucket_by_sequence_length", "group_by_window", "ignore_errors", "unique",
    "from_tensor_slices", "from_tensors", "range", "from_generator", "list_files", "zip",
    "sample_from_datasets", "choose_from_datasets", "load", "counter",
)
READER_CLASSES = ("TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset")


def active() -> "Session | None":
    return _ACTIVE


def _skip_dirs() -> tuple[str, ...]:
    global _SKIP_DIRS
    if not _SKIP_DIRS:
        dirs = [os.path.dirname(os.path.dirname(__file__))]  # pipelint itself
        for name in ("tensorflow", "keras", "tf_keras", "runpy"):
            mod = sys.modules.get(name)
            if mod is not None and getattr(mod, "__file__", None):
                path = mod.__file__
                dirs.append(os.path.dirname(path) if name != "runpy" else path)
        _SKIP_DIRS = tuple(dirs)
    return _SKIP_DIRS


def caller_site(depth: int = 2) -> tuple[str | None, int | None]:
    skip = _skip_dirs()
    f = sys._getframe(depth)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(skip) and not fn.startswith("<frozen"):
            return fn, f.f_lineno
        f = f.f_back
    return None, None


def _fn_name(fn: Any) -> str | None:
    name = getattr(fn, "__name__", None) or getattr(type(fn), "__name__", None)
    return name


@dataclass
class StepStats:
    """Running sums of step time and input wait (seconds), plus a recent window for warnings."""

    steps: int = 0
    total: float = 0.0
    wait: float = 0.0
    recent: deque = field(default_factory=lambda: deque(maxlen=100))

    cpu0: float | None = None
    wall0: float | None = None
    cpu1: float | None = None
    wall1: float | None = None

    def add(self, step: float, wait: float, track: bool = True) -> None:
        if track:
            self.track(time.perf_counter(), step)
        self.steps += 1
        self.total += step
        self.wait += wait
        self.recent.append((step, wait))

    def track(self, now: float, step: float) -> None:
        # CPU time over the measured steps tells how much of the machine is already busy.
        cpu = _cpu_seconds()
        if self.cpu0 is None:
            self.cpu0, self.wall0 = cpu, now - step
        self.cpu1, self.wall1 = cpu, now

    def cpu_cores_used(self) -> float | None:
        if self.cpu0 is None or self.wall1 is None or self.wall1 - self.wall0 <= 0:
            return None
        return (self.cpu1 - self.cpu0) / (self.wall1 - self.wall0)

    def recent_fraction(self) -> float | None:
        tot = sum(s for s, _ in self.recent)
        return (sum(w for _, w in self.recent) / tot) if tot > 0 else None


@dataclass
class Pipeline:
    key: int
    ops: list[Op]
    snapshots: dict[int, list[Stage]] = field(default_factory=dict)  # by iterator id
    iterators: int = 0


class IterRecord:
    """Per-iterator timing of Python-side `next()` (custom loops)."""

    __slots__ = ("session", "pipeline", "ref", "ticks", "last_end", "stats", "__weakref__")
    WARMUP = 2  # the first next() starts the pipeline, the first step traces: keep them out

    def __init__(self, session: "Session", pipeline: Pipeline, it: Any):
        self.session = session
        self.pipeline = pipeline
        self.ref = weakref.ref(it)
        self.ticks = 0
        self.last_end: float | None = None
        self.stats = StepStats()

    def tick(self, t0: float, t1: float) -> None:
        s = self.session
        if s.disabled:
            return
        try:
            self.ticks += 1
            if self.ticks > self.WARMUP and self.last_end is not None:
                self.stats.add(t1 - self.last_end, t1 - t0)
                if s.keras_depth == 0:
                    s.loop_stats_changed(self)
            self.last_end = t1
        except Exception as exc:  # pragma: no cover - defensive
            s.fail("iterator timing", exc)


class Session:
    def __init__(self, *, sample_every: int = 50, warn_every: int = 500, live_warnings: bool = True,
                 record_sources: bool = True):
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
        self.keras = StepStats()  # filled by the callback
        self.keras_depth = 0
        self.keras_iterators: list[IterRecord] = []
        self.active_callbacks: list[Any] = []  # PipelineProfilers inside fit (flushed by finish())
        self.pydataset_calls: dict[str, list[float]] = {}  # label -> [calls, seconds]
        self._restore: list[Callable[[], None]] = []
        self._installed = 0
        self.t_start = time.perf_counter()
        self.cpu_start = _cpu_seconds()
        self.t_end: float | None = None
        self.cpu_end: float | None = None
        self._last_warn_step = -10**9
        self.warnings_emitted = 0
        self.errors: list[str] = []
        self.preferred: int | None = None  # id of the dataset given to probe(), if any

    # -- failure handling -------------------------------------------------------------------------
    def fail(self, where: str, exc: BaseException) -> None:
        """Log once and switch the probe off; the user's program carries on unprobed."""
        self.disabled = True
        if where not in self._failed:
            self._failed.add(where)
            self.errors.append(f"{where}: {type(exc).__name__}: {exc}")
            _ensure_handler()
            log.warning("probe disabled after an error in %s: %s: %s", where, type(exc).__name__, exc)

    # -- install / uninstall ----------------------------------------------------------------------
    def install(self) -> "Session":
        global _ACTIVE
        self._installed += 1
        if self._installed > 1:
            return self
        if _ACTIVE is not None and _ACTIVE is not self:
            _ACTIVE.uninstall(force=True)
        _ACTIVE = self
        self.t_start = time.perf_counter()
        self.cpu_start = _cpu_seconds()
        try:
            self._patch_tf()
        except Exception as exc:
            self.fail("installing tf.data hooks", exc)
        try:
            self._patch_keras()
        except Exception as exc:
            self.fail("installing Keras hooks", exc)
        return self

    def uninstall(self, force: bool = False) -> None:
        global _ACTIVE
        if self._installed == 0:
            return
        self._installed = 0 if force else self._installed - 1
        if self._installed:
            return
        self.finish()
        for undo in reversed(self._restore):
            try:
                undo()
            except Exception:  # pragma: no cover - restoring must not raise
                pass
        self._restore.clear()
        if _ACTIVE is self:
            _ACTIVE = None

    def finish(self) -> None:
        """Take the final samples; called at uninstall and before a report."""
        if self.t_end is None or self._installed:
            # fit interrupted (Ctrl-C, an exception): its callback never saw on_train_end.
            for cb in list(self.active_callbacks):
                try:
                    cb._flush()
                except Exception as exc:
                    self.fail("Keras callback", exc)
            self.sample_all()
            self.t_end = time.perf_counter()
            self.cpu_end = _cpu_seconds()

    def _patch(self, owner: Any, name: str, new: Any) -> None:
        had = name in owner.__dict__
        old = owner.__dict__.get(name)
        setattr(owner, name, new)

        def undo() -> None:
            if had:
                setattr(owner, name, old)
            else:
                delattr(owner, name)
        self._restore.append(undo)

    def _patch_tf(self) -> None:
        import tensorflow as tf
        from tensorflow.python.data.ops import dataset_ops, iterator_ops

        session = self
        DatasetV2 = dataset_ops.DatasetV2
        if self.record_sources:
            for name in DATASET_METHODS:
                raw = DatasetV2.__dict__.get(name)
                if raw is None:
                    continue
                is_static = isinstance(raw, staticmethod)
                func = raw.__func__ if is_static else raw
                wrapped = _recording_wrapper(func, name)
                self._patch(DatasetV2, name, staticmethod(wrapped) if is_static else wrapped)
            for cname in READER_CLASSES:
                cls = getattr(tf.data, cname, None)
                if cls is not None and "__init__" in cls.__dict__:
                    self._patch(cls, "__init__", _recording_init(cls.__dict__["__init__"], cname))

        owned = iterator_ops.OwnedIterator
        timed_cls = _timed_iterator_class(owned)
        orig_iter = DatasetV2.__dict__["__iter__"]

        def __iter__(ds):  # noqa: N807 - the dunder we patch
            it = orig_iter(ds)
            if type(it) is owned and not session.disabled:
                try:
                    session.register_iterator(ds, it, timed_cls)
                except Exception as exc:
                    session.fail("registering an iterator", exc)
            return it
        self._patch(DatasetV2, "__iter__", __iter__)

    def _patch_keras(self) -> None:
        keras = sys.modules.get("keras")
        if keras is None:
            try:
                import keras  # noqa: F811 - the user's script will import it anyway
            except Exception:
                return
        try:
            from keras.src.trainers.data_adapters import generator_data_adapter, py_dataset_adapter
        except Exception:
            generator_data_adapter = py_dataset_adapter = None
        session = self
        if py_dataset_adapter is not None:
            adapter = py_dataset_adapter.PyDatasetAdapter
            orig = adapter.__dict__["get_tf_dataset"]

            def get_tf_dataset(self_):
                ds = orig(self_)
                if not session.disabled:
                    try:
                        session.note_pydataset(self_.py_dataset, ds)
                    except Exception as exc:
                        session.fail("PyDataset hook", exc)
                return ds
            self._patch(adapter, "get_tf_dataset", get_tf_dataset)
        if generator_data_adapter is not None:
            gadapter = generator_data_adapter.GeneratorDataAdapter
            ginit = gadapter.__dict__["__init__"]
            gget = gadapter.__dict__["get_tf_dataset"]

            def __init__(self_, generator, *a, **k):  # noqa: N807
                code = getattr(generator, "gi_code", None)
                ginit(self_, generator, *a, **k)
                if code is not None:
                    self_._pipelint_gen = (code.co_name, code.co_filename, code.co_firstlineno)

            def g_get_tf_dataset(self_):
                ds = gget(self_)
                info = getattr(self_, "_pipelint_gen", None)
                if info is not None and not session.disabled:
                    try:
                        session.relabel_generator(ds, f"generator {info[0]}()", info[1], info[2], {})
                    except Exception as exc:
                        session.fail("generator hook", exc)
                return ds
            self._patch(gadapter, "__init__", __init__)
            self._patch(gadapter, "get_tf_dataset", g_get_tf_dataset)

        for klass in type.mro(keras.Model):
            if "fit" in klass.__dict__:
                orig_fit = klass.__dict__["fit"]

                def fit(self_, *a, _orig=orig_fit, **k):
                    if not session.disabled and len(a) < 6:
                        try:
                            from pipelint.profiler.callback import PipelineProfiler
                            cbs = list(k.get("callbacks") or [])
                            if not any(isinstance(c, PipelineProfiler) for c in cbs):
                                cbs.append(PipelineProfiler(session=session))
                                k["callbacks"] = cbs
                        except Exception as exc:
                            session.fail("adding the Keras callback", exc)
                    return _orig(self_, *a, **k)
                self._patch(klass, "fit", fit)
                break

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
            _describe(cur, op)
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

    def note_pydataset(self, py_dataset: Any, ds: Any) -> None:
        cls = type(py_dataset)
        getitem = getattr(cls, "__getitem__", None)
        code = getattr(getitem, "__code__", None)
        path, line = (code.co_filename, code.co_firstlineno) if code else (None, None)
        label = f"PyDataset {cls.__name__}.__getitem__"
        extra = {"pydataset": True, "workers": getattr(py_dataset, "workers", 1),
                 "use_multiprocessing": getattr(py_dataset, "use_multiprocessing", False),
                 "class": cls.__name__}
        self.relabel_generator(ds, label, path, line, extra)
        self._time_getitem(cls, label)

    def _time_getitem(self, cls: type, label: str) -> None:
        orig = cls.__dict__.get("__getitem__") or getattr(cls, "__getitem__")
        if getattr(orig, "_pipelint_timed", False):
            return
        stats = self.pydataset_calls.setdefault(label, [0, 0.0])

        def __getitem__(self_, index):  # noqa: N807
            t0 = time.perf_counter()
            value = orig(self_, index)
            stats[0] += 1
            stats[1] += time.perf_counter() - t0
            return value
        __getitem__._pipelint_timed = True
        self._patch(cls, "__getitem__", __getitem__)

    def relabel_generator(self, ds: Any, label: str, path: str | None, line: int | None,
                          extra: dict) -> None:
        """Keras wraps PyDatasets and generators in from_generator: name the stage after the user's code."""
        cur, hops = ds, 0
        while cur is not None and hops < 5:
            op = self.site_of(cur)
            if op is not None and op.op == "from_generator":
                op.label, op.path, op.line = label, path, line
                op.extra.update(extra)
                return
            try:
                inputs = cur._inputs()
            except Exception:
                return
            cur, hops = (inputs[0] if inputs else None), hops + 1

    # -- iterators --------------------------------------------------------------------------------
    def register_iterator(self, ds: Any, it: Any, timed_cls: type) -> None:
        key = id(ds)
        pipe = self.pipelines.get(key)
        ref = self._pipeline_refs.get(key)
        if pipe is None or ref is None or ref() is not ds:
            pipe = Pipeline(key, self.chain_of(ds))
            self.pipelines[key] = pipe
            self._pipeline_refs[key] = weakref.ref(ds)
        pipe.iterators += 1
        rec = IterRecord(self, pipe, it)
        it._pipelint_rec = rec
        it.__class__ = timed_cls  # only adds timing around next(); same object, same elements
        self.iter_records.append(rec)
        if len(self.iter_records) > 1000:  # drop dead iterators, keeping their last snapshot
            self.iter_records = [r for r in self.iter_records if r.ref() is not None]

    def sample(self, rec: IterRecord) -> list[int]:
        """Snapshot one iterator's autotune model. Returns the gap times (µs) it reported."""
        it = rec.ref()
        if it is None or self.disabled:
            return []
        import tensorflow as tf
        try:
            proto = tf.data.experimental.get_model_proto(it)
            chain, side, gaps = parse_proto(proto)
            snaps = rec.pipeline.snapshots
            snaps[id(rec)] = update(snaps.get(id(rec)), align(rec.pipeline.ops, chain, side))
            return gaps
        except Exception as exc:
            if "model" in str(exc).lower() and "not" in str(exc).lower():
                return []  # autotune off for this pipeline: nothing to read, not an error
            self.fail("get_model_proto", exc)
            return []

    def sample_all(self) -> None:
        for rec in list(self.iter_records):
            if self.disabled:
                return
            self.sample(rec)

    def loop_stats_changed(self, rec: IterRecord) -> None:
        n = rec.stats.steps
        if n % self.sample_every == 0:
            self.sample(rec)
            self.maybe_warn(rec.stats, n, rec.pipeline)
        elif early_sample(n, self.sample_every):
            self.sample(rec)  # an iterator dropped early (Ctrl-C, break) still leaves a snapshot

    # -- results ----------------------------------------------------------------------------------
    def main_pipeline(self) -> Pipeline | None:
        """The pipeline that fed training: the most elements through its root."""
        best, best_n = None, -1
        for pipe in self.pipelines.values():
            stages = merge(list(pipe.snapshots.values()))
            n = stages[0].elements if stages else 0
            if self.keras.steps and pipe.key not in {r.pipeline.key for r in self.keras_iterators}:
                n = -1 if self.keras_iterators else n
            if pipe.key == self.preferred and n > 0:
                n = 1 << 62
            if n > best_n:
                best, best_n = pipe, n
        return best

    def step_stats(self) -> tuple[StepStats, str]:
        if self.keras.steps:
            return self.keras, "keras"
        loops = [r for r in self.iter_records if r.stats.steps]
        if not loops:
            return StepStats(), "none"
        rec = max(loops, key=lambda r: r.stats.steps)
        # Same pipeline over several epochs: add them up.
        total = StepStats()
        for r in loops:
            if r.pipeline is rec.pipeline:
                total.steps += r.stats.steps
                total.total += r.stats.total
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
        from pipelint.profiler.advice import INPUT_BOUND, live_hint
        if frac is None or frac < INPUT_BOUND:
            return
        self._last_warn_step = step
        hint = live_hint(self, pipe)
        _ensure_handler()
        log.warning("input-bound (%d%% of step time)%s", round(frac * 100), f": {hint}" if hint else "")
        self.warnings_emitted += 1


def early_sample(step: int, every: int) -> bool:
    """Steps 1, 2, 4, 8... below `every` are sampled too: a few reads per iterator, once."""
    return 0 < step < every and step & (step - 1) == 0


def _describe(ds: Any, op: Op) -> None:
    """Facts about a dataset that the advice needs (py_function inside a map, cache file, ...)."""
    if op.op in ("map", "interleave", "flat_map", "filter"):
        wrapper = getattr(ds, "_map_func", None) or getattr(ds, "_predicate", None)
        fn = getattr(wrapper, "function", None)
        graph = getattr(fn, "graph", None)
        if graph is not None and "py_function" not in op.extra:
            try:
                types = {o.type for o in graph.get_operations()}
                op.extra["py_function"] = bool(types & {"EagerPyFunc", "PyFunc", "PyFuncStateless"})
                op.extra["generator"] = "GeneratorDataset" in types
            except Exception:
                pass
        if "num_parallel_calls" not in op.extra:
            op.extra["num_parallel_calls"] = getattr(ds, "_num_parallel_calls", None) is not None
    if op.op == "cache" and "filename" not in op.extra:
        fname = getattr(ds, "_filename", None)
        try:
            op.extra["filename"] = fname.numpy().decode() if hasattr(fname, "numpy") else fname
        except Exception:
            pass
    if op.op in ("cache", "shuffle"):
        try:
            inputs = ds._inputs()
            card = int(inputs[0].cardinality()) if inputs else -2
            op.extra["input_cardinality"] = card
        except Exception:
            pass


def _recording_wrapper(func: Callable, name: str) -> Callable:
    def wrapper(*args, **kwargs):
        session = _ACTIVE
        if session is None or session.disabled or getattr(_tls, "depth", 0):
            return func(*args, **kwargs)
        _tls.depth = 1
        try:
            result = func(*args, **kwargs)
        finally:
            _tls.depth = 0
        try:
            extra = _call_facts(name, args, kwargs)
            session.record(result, name, caller_site(), extra)
        except Exception as exc:
            session.fail(f"recording {name}()", exc)
        return result
    wrapper.__name__ = getattr(func, "__name__", name)
    wrapper.__qualname__ = getattr(func, "__qualname__", name)
    wrapper.__doc__ = getattr(func, "__doc__", None)
    wrapper.__wrapped__ = func
    return wrapper


def _recording_init(init: Callable, cname: str) -> Callable:
    def __init__(self, *args, **kwargs):  # noqa: N807
        session = _ACTIVE
        if session is None or session.disabled or getattr(_tls, "depth", 0):
            return init(self, *args, **kwargs)
        _tls.depth = 1
        try:
            init(self, *args, **kwargs)
        finally:
            _tls.depth = 0
        try:
            session.record(self, cname, caller_site(), {})
        except Exception as exc:
            session.fail(f"recording {cname}", exc)
    __init__.__wrapped__ = init
    return __init__


def _call_facts(name: str, args: tuple, kwargs: dict) -> dict:
    """Cheap facts about the call's arguments (never inspects tensors' values)."""
    facts: dict[str, Any] = {}
    if name in ("map", "interleave", "flat_map", "filter") and len(args) > 1:
        facts["fn"] = _fn_name(args[1])
        npc = kwargs.get("num_parallel_calls", args[2] if name == "map" and len(args) > 2 else None)
        facts["num_parallel_calls"] = npc is not None
    elif name == "from_generator" and args:
        facts["fn"] = _fn_name(args[0])
    elif name == "cache":
        fname = kwargs.get("filename", args[1] if len(args) > 1 else "")
        facts["filename"] = fname if isinstance(fname, str) else "<tensor>"
    elif name in ("shuffle", "prefetch"):
        buf = kwargs.get("buffer_size", args[1] if len(args) > 1 else None)
        if isinstance(buf, int):
            facts["buffer_size"] = buf
    return facts


def _timed_iterator_class(owned: type) -> type:
    # A subclass of OwnedIterator so that isinstance checks and tf.function arguments still work;
    # only Python-side next() is timed (Keras fit reads the iterator inside its graph).
    def __next__(self):  # noqa: N807
        t0 = time.perf_counter()
        try:
            value = owned.__next__(self)
        except StopIteration:
            rec = self.__dict__.get("_pipelint_rec")
            if rec is not None and not rec.session.disabled:
                rec.session.sample(rec)  # the iterator is exhausted: last chance to read its model
            raise
        rec = self.__dict__.get("_pipelint_rec")
        if rec is not None:
            rec.tick(t0, time.perf_counter())
        return value

    return type(owned.__name__, (owned,), {"__next__": __next__, "next": __next__,
                                           "__module__": __name__})


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


_handler_added = False


def _ensure_handler() -> None:
    """Make the live warning visible as `WARNING pipelint: ...` when the app configured no logging."""
    global _handler_added
    if _handler_added or log.handlers or logging.getLogger().handlers:
        return
    h = logging.StreamHandler(sys.stderr)
    h.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    log.addHandler(h)
    log.propagate = False
    _handler_added = True
