"""The tf.data hooks that feed a `Session`, and the install/uninstall bookkeeping of all hooks.

Installing patches (and uninstalling restores):
- `tf.data.Dataset` methods and reader constructors, to record the user's call site of each op;
- `tf.data.Dataset.__iter__`, to register eager iterators and time `next()` in custom loops.
The Keras hooks live with the callback (`callback.install_keras_hooks`); `install.install()` puts
both in place. Every hook calls the original first-hand and returns its result untouched.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Callable

from pipelint.profiler.advise import service
from pipelint.profiler.measure.pytimer import PyTimer, timed_call, timed_generator
from pipelint.profiler.run.session import Session

_ACTIVE: Session | None = None
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


def active() -> Session | None:
    """The session whose hooks are installed, if any."""
    return _ACTIVE


def install(session: Session) -> bool:
    """Install the tf.data hooks for `session`. Nested calls count; True on the first one."""
    global _ACTIVE
    session.installs += 1
    if session.installs > 1:
        return False
    if _ACTIVE is not None and _ACTIVE is not session:
        uninstall(_ACTIVE, force=True)
    _ACTIVE = session
    session.started()
    try:
        _patch_tf(session)
    except Exception as exc:
        session.fail("installing tf.data hooks", exc)
    return True


def uninstall(session: Session, force: bool = False) -> None:
    """Undo one install (all of them with `force`); the last one restores every patch."""
    global _ACTIVE
    if session.installs == 0:
        return
    session.installs = 0 if force else session.installs - 1
    if session.installs:
        return
    session.finish()
    for undo in reversed(session.restore):
        try:
            undo()
        except Exception:  # pragma: no cover - restoring must not raise
            pass
    session.restore.clear()
    if _ACTIVE is session:
        _ACTIVE = None


def patch(session: Session, owner: Any, name: str, new: Any) -> None:
    """Set `owner.name = new` until the session is uninstalled."""
    had = name in owner.__dict__
    old = owner.__dict__.get(name)
    setattr(owner, name, new)

    def undo() -> None:
        if had:
            setattr(owner, name, old)
        else:
            delattr(owner, name)
    session.restore.append(undo)


def _skip_dirs() -> tuple[str, ...]:
    global _SKIP_DIRS
    if not _SKIP_DIRS:
        # pipelint itself, from the package rather than from this file's depth (which moves).
        dirs = [os.path.dirname(os.path.abspath(sys.modules["pipelint"].__file__))]
        for name in ("tensorflow", "keras", "tf_keras", "runpy"):
            mod = sys.modules.get(name)
            if mod is not None and getattr(mod, "__file__", None):
                path = mod.__file__
                dirs.append(os.path.dirname(path) if name != "runpy" else path)
        _SKIP_DIRS = tuple(dirs)
    return _SKIP_DIRS


def caller_site(depth: int = 2) -> tuple[str | None, int | None, str | None]:
    """(path, line) of the first frame outside TF, Keras and pipelint, and the Keras function in
    between when Keras made the call (`fit`, `image_dataset_from_directory`, ...), else None."""
    skip = _skip_dirs()
    keras_dir = _keras_dir()
    f = sys._getframe(depth)
    via = None
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(skip) and not fn.startswith("<frozen"):
            return fn, f.f_lineno, via
        if keras_dir and fn.startswith(keras_dir) and not f.f_code.co_name.startswith("_") \
                and f.f_code.co_name not in _KERAS_WRAPPERS:
            via = f.f_code.co_name  # the outermost public Keras function wins
        f = f.f_back
    return None, None, None


#: Keras' decorator frames around its public functions: not the function the user called.
_KERAS_WRAPPERS = {"error_handler", "wrapper", "inner", "decorated"}


def _keras_dir() -> str | None:
    mod = sys.modules.get("keras")
    path = getattr(mod, "__file__", None) if mod is not None else None
    return os.path.dirname(path) if path else None


def _patch_tf(session: Session) -> None:
    import tensorflow as tf
    from tensorflow.python.data.ops import dataset_ops, iterator_ops

    DatasetV2 = dataset_ops.DatasetV2
    if session.record_sources:
        for name in DATASET_METHODS:
            raw = DatasetV2.__dict__.get(name)
            if raw is None:
                continue
            is_static = isinstance(raw, staticmethod)
            func = raw.__func__ if is_static else raw
            wrapped = _recording_wrapper(func, name)
            patch(session, DatasetV2, name, staticmethod(wrapped) if is_static else wrapped)
        for cname in READER_CLASSES:
            cls = getattr(tf.data, cname, None)
            if cls is not None and "__init__" in cls.__dict__:
                patch(session, cls, "__init__", _recording_init(cls.__dict__["__init__"], cname))

    for fname in ("numpy_function", "py_function"):
        orig = getattr(tf, fname, None)
        if orig is not None:
            # AutoGraph must call the wrapper as-is, as it calls TF's own function.
            patch(session, tf, fname, tf.autograph.experimental.do_not_convert(_timed_pyfunc(orig)))

    owned = iterator_ops.OwnedIterator
    timed_cls = _timed_iterator_class(owned)
    orig_iter = DatasetV2.__dict__["__iter__"]

    def __iter__(ds):  # noqa: N807 - the dunder we patch
        if session.fixes and not session.disabled and not getattr(_tls, "depth", 0):
            ds = _fixed_dataset(session, ds)
        it = orig_iter(ds)
        if type(it) is owned and not session.disabled:
            try:
                it._pipelint_rec = session.register_iterator(ds, it)
                it.__class__ = timed_cls  # only adds timing around next(); same object, same elements
            except Exception as exc:
                session.fail("registering an iterator", exc)
        return it
    patch(session, DatasetV2, "__iter__", __iter__)


def _timed_pyfunc(orig: Callable) -> Callable:
    """tf.numpy_function / tf.py_function with the Python function timed (same arguments, same result)."""
    def wrapper(*args, **kwargs):
        timers = getattr(_tls, "timers", None)
        session = _ACTIVE
        if timers is None or session is None or session.disabled:
            return orig(*args, **kwargs)
        timer = PyTimer()
        free = getattr(_tls, "free", False)
        if args and callable(args[0]):
            args = (timed_call(args[0], timer, free), *args[1:])
        elif callable(kwargs.get("func")):
            kwargs["func"] = timed_call(kwargs["func"], timer, free)
        else:
            return orig(*args, **kwargs)
        timers.append(timer)
        return orig(*args, **kwargs)
    wrapper.__name__ = getattr(orig, "__name__", "py_function")
    wrapper.__doc__ = getattr(orig, "__doc__", None)
    wrapper.__wrapped__ = orig
    return wrapper


def _fixed_dataset(session: Session, ds: Any) -> Any:
    """Verification runs: the dataset as the fix would have it (same elements unless `free_input`)."""
    import tensorflow as tf
    fixes = session.fixes
    _tls.depth = 1  # what we add here is not the user's
    try:
        if fixes.get("free_input"):  # a bound measurement: the first element, repeated at no cost
            ds = ds.take(1).cache().repeat()
        if fixes.get("prefetch"):
            ds = ds.prefetch(tf.data.AUTOTUNE)
        if fixes.get("threadpool_size"):
            opts = tf.data.Options()
            opts.threading.private_threadpool_size = int(fixes["threadpool_size"])
            ds = ds.with_options(opts)
        return ds
    finally:
        _tls.depth = 0


def _fn_name(fn: Any) -> str | None:
    return getattr(fn, "__name__", None) or getattr(type(fn), "__name__", None)


def _recording_wrapper(func: Callable, name: str) -> Callable:
    def wrapper(*args, **kwargs):
        session = _ACTIVE
        if session is None or session.disabled or getattr(_tls, "depth", 0):
            return func(*args, **kwargs)
        _tls.depth = 1
        timers: list[PyTimer] = []
        _tls.timers = timers  # py_function/numpy_function hooks traced inside this call add theirs
        _tls.free = False
        site = caller_site() if session.fixes else None
        try:
            if site is not None:
                args, kwargs = _fixed_call(session, name, site, args, kwargs)
            if name == "from_generator" and args:
                timer = PyTimer()
                timers.append(timer)
                args = (timed_generator(args[0], timer, free=_tls.free), *args[1:])
            result = func(*args, **kwargs)
        finally:
            _tls.depth = 0
            _tls.timers = None
            _tls.free = False
        try:
            extra = _call_facts(name, args, kwargs)
            if name == "apply":
                extra.update(service.apply_facts(args, result))
            if timers:
                extra["py_timers"] = timers
            path, line, via = site or caller_site()
            if via:
                extra["added_by"] = f"Keras {via}"
            session.record(result, name, (path, line), extra)
        except Exception as exc:
            session.fail(f"recording {name}()", exc)
        if site is not None and name == "map" and _same_site(session.fixes.get("cache_after"), site):
            result = _cached(session, result, site)
        return result
    wrapper.__name__ = getattr(func, "__name__", name)
    wrapper.__qualname__ = getattr(func, "__qualname__", name)
    wrapper.__doc__ = getattr(func, "__doc__", None)
    wrapper.__wrapped__ = func
    return wrapper


def _same_site(spec: dict | None, site: tuple) -> bool:
    return bool(spec) and spec.get("line") == site[1] and spec.get("path") is not None \
        and site[0] is not None and os.path.samefile(spec["path"], site[0])


def _fixed_call(session: Session, name: str, site: tuple, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Verification runs: change the call at the fix's source line (`Session.fixes`)."""
    fixes = session.fixes
    if name == "map" and _same_site(fixes.get("map_parallelism"), site):
        n = fixes["map_parallelism"]["num_parallel_calls"]
        if len(args) > 2:  # map(self, fn, num_parallel_calls, ...)
            args = (*args[:2], n, *args[3:])
        else:
            kwargs = {**kwargs, "num_parallel_calls": n}
    if name in ("map", "from_generator") and _same_site(fixes.get("free_stage"), site):
        _tls.free = True  # the stage's Python code runs once; its first result is repeated
    return args, kwargs


def _cached(session: Session, ds: Any, site: tuple) -> Any:
    """Verification runs: `.cache()` right after the map at the fix's line (same elements, same
    order: only a deterministic map over a finite input is offered this fix)."""
    _tls.depth = 1  # the cache is pipelint's, not a call of the user's to record as a map
    try:
        cached = ds.cache()
    finally:
        _tls.depth = 0
    session.record(cached, "cache", site[:2], {"filename": "", "added_by": "pipelint --verify"})
    return cached


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
            path, line, via = caller_site()
            session.record(self, cname, (path, line), {"added_by": f"Keras {via}"} if via else {})
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
        rec = self.__dict__.get("_pipelint_rec")
        if rec is not None and rec.session.step_marker is not None:
            rec.session.step_marker.loop_next(rec)  # --xprof: this next() opens a training step
        t0 = time.perf_counter()
        try:
            value = owned.__next__(self)
        except StopIteration:
            if rec is not None and not rec.session.disabled:
                rec.session.sample(rec)  # the iterator is exhausted: last chance to read its model
                if rec.session.step_marker is not None:
                    rec.session.step_marker.close()
                if rec.session.fit.depth == 0:
                    rec.session.timelines.epoch_end()
            raise
        if rec is not None:
            rec.tick(t0, time.perf_counter())
        return value

    return type(owned.__name__, (owned,), {"__next__": __next__, "next": __next__,
                                           "__module__": __name__})
