"""The Keras side of the probe: the `PipelineProfiler` callback and the Keras hooks.

`PipelineProfiler` times steps between consecutive `on_train_batch_begin` calls: per step it only
records the batch's begin time, and the session takes the steps in a batch at the steps that have
something to do (`Session.fit_event`), splitting them into input wait and work (`fit_flush`). Only
`on_train_batch_begin` is overridden so that Keras keeps dispatching `on_train_batch_end`
asynchronously (no extra device sync per step).

`install_keras_hooks(session)` patches Keras' PyDataset/generator adapters (call sites,
`__getitem__` timing) and `Model.fit` (adds a `PipelineProfiler` when the user did not).
"""
from __future__ import annotations

import sys
import time
from typing import Any

import keras

from pipelint.profiler.run import hooks
from pipelint.profiler.measure.pytimer import PyTimer
from pipelint.profiler.output.report import build_report, emit
from pipelint.profiler.run.session import Session

_perf_counter = time.perf_counter


class PipelineProfiler(keras.callbacks.Callback):
    async_safe = True

    def __init__(self, *, sample_every: int = 50, warn_every: int = 500, live_warnings: bool = True,
                 report: bool = True, json_path: str | None = None, html_path: str | None = None,
                 log_dir: str | None = None, every: float | None = 60.0, session: Session | None = None):
        super().__init__()
        self._own = False
        if session is None:
            session = hooks.active()
        if session is None:
            # Used on its own (not under `pipelint profile`): hook iterators now, before fit makes them.
            session = Session(sample_every=sample_every, warn_every=warn_every,
                              live_warnings=live_warnings, record_sources=False)
            if hooks.install(session):
                install_keras_hooks(session, add_callback=False)
            self._own = True
        self.session = session
        self._print = report and self._own
        self.json_path, self.html_path = json_path, html_path
        self.tensorboard = None
        if log_dir is not None and self._own:
            from pipelint.profiler.output.tensorboard import Output
            self.tensorboard = Output(session, log_dir)
        self.result: dict[str, Any] | None = None
        # Its own running account (run/account.py); under `pipelint profile` the runner keeps one.
        self.every = every if self._own else None
        self.account = None

    def on_train_begin(self, logs=None):
        if self.every and self.account is None:
            from pipelint.profiler.run.account import Account
            self.account = Account(self.session, self.every, json_path=self.json_path, html_path=self.html_path,
                                   tensorboard=self.tensorboard, out=sys.stderr if self._print else None).start()
        self.session.fit_begin()
        epochs = (self.params or {}).get("epochs")
        if isinstance(epochs, int):
            self.session.fit.epochs = max(self.session.fit.epochs, epochs)  # the job's plan (cache advice)

    def on_epoch_begin(self, epoch, logs=None):
        try:
            self.session.fit_epoch_begin()
        except Exception as exc:
            self.session.fail("Keras callback", exc)

    def on_train_batch_begin(self, batch, logs=None):
        # The training thread pays this per step: a clock read, one append, two comparisons. The
        # rest (the step's time, the timeline, the model reads, the flushes) is done in a batch by
        # `Session.fit_event` at the steps that have something to do.
        s = self.session
        if s.step_marker is not None:
            self._next_xprof_step(s)  # --xprof: the step runs until the next batch begins
        now = _perf_counter()
        f = s.fit
        ends = f.ends
        ends.append(now)
        if len(ends) >= f.event_at or now >= s.account_due:
            try:
                s.fit_event(now)
            except Exception as exc:
                s.fail("Keras callback", exc)

    @staticmethod
    def _next_xprof_step(s: Session) -> None:
        if not s.disabled:
            try:
                s.step_marker.next_step()
            except Exception as exc:
                s.fail("Keras callback", exc)

    def on_test_begin(self, logs=None):
        if self.session.step_marker is not None:
            self.session.step_marker.close()  # validation is not a training step

    def on_epoch_end(self, epoch, logs=None):
        # The last step of an epoch also holds validation: it stays out of the figures.
        try:
            if self.session.step_marker is not None:
                self.session.step_marker.close()
            self.session.fit_epoch_end()
            self.session.timelines.epoch_end()
        except Exception as exc:
            self.session.fail("Keras callback", exc)

    def on_train_end(self, logs=None):
        s = self.session
        try:
            s.fit_end()
        except Exception as exc:
            s.fail("Keras callback", exc)
        # Inside the script's `with mlflow.start_run():` still: remember the run for the final report.
        from pipelint.profiler.output.trackers import log_report, note_active_run
        note_active_run(s)
        if self._own:
            hooks.uninstall(s)
            if self.account is not None:
                self.account.stop()
            self.result = build_report(s, extra={"account": self.account.section(final=True)}
                                       if self.account is not None else None)
            if self.tensorboard is not None:
                self.tensorboard.finish(self.result)
            log_report(s, self.result, self.json_path, self.html_path)
            from pipelint.profiler.output.display import show_in_notebook

            shown = self._print and show_in_notebook(self.result)  # HTML in a notebook, not stderr
            emit(self.result, out=sys.stderr if self._print and not shown else None, json_path=self.json_path,
                 html_path=self.html_path)


def install_keras_hooks(session: Session, add_callback: bool = True) -> None:
    """Patch Keras for `session` (undone by `hooks.uninstall`). Does nothing without Keras."""
    try:
        from keras.src.trainers.data_adapters import generator_data_adapter, py_dataset_adapter
    except Exception:
        generator_data_adapter = py_dataset_adapter = None
    if py_dataset_adapter is not None:
        adapter = py_dataset_adapter.PyDatasetAdapter
        orig = adapter.__dict__["get_tf_dataset"]
        workers_fix = session.fixes.get("pydataset_workers")
        if workers_fix:
            orig_init = adapter.__dict__["__init__"]

            def adapter_init(self_, x, *a, **k):
                # Verification runs: the PyDataset as the fix would construct it (same batches).
                if type(x).__name__ == workers_fix.get("class"):
                    x._workers = int(workers_fix["workers"])
                    x._use_multiprocessing = bool(workers_fix.get("use_multiprocessing"))
                return orig_init(self_, x, *a, **k)
            hooks.patch(session, adapter, "__init__", adapter_init)

        def get_tf_dataset(self_):
            ds = orig(self_)
            if not session.disabled:
                try:
                    _note_pydataset(session, self_.py_dataset, ds)
                except Exception as exc:
                    session.fail("PyDataset hook", exc)
            return ds
        hooks.patch(session, adapter, "get_tf_dataset", get_tf_dataset)
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
        hooks.patch(session, gadapter, "__init__", __init__)
        hooks.patch(session, gadapter, "get_tf_dataset", g_get_tf_dataset)

    # Keras' TensorBoard callback: pipelint's scalars go into the same run, beside the loss.
    tb_begin = keras.callbacks.TensorBoard.on_train_begin

    def on_train_begin(self_, logs=None):
        session.keras_tensorboard_dir = getattr(self_, "_train_dir", None) or getattr(self_, "log_dir", None)
        return tb_begin(self_, logs)
    hooks.patch(session, keras.callbacks.TensorBoard, "on_train_begin", on_train_begin)

    if not add_callback:
        return
    for klass in type.mro(keras.Model):
        if "fit" in klass.__dict__:
            orig_fit = klass.__dict__["fit"]

            def fit(self_, *a, _orig=orig_fit, **k):
                if not session.disabled and len(a) < 6:
                    try:
                        cbs = list(k.get("callbacks") or [])
                        if not any(isinstance(c, PipelineProfiler) for c in cbs):
                            cbs.append(PipelineProfiler(session=session))
                            k["callbacks"] = cbs
                    except Exception as exc:
                        session.fail("adding the Keras callback", exc)
                return _orig(self_, *a, **k)
            hooks.patch(session, klass, "fit", fit)
            break


def _note_pydataset(session: Session, py_dataset: Any, ds: Any) -> None:
    cls = type(py_dataset)
    getitem = getattr(cls, "__getitem__", None)
    code = getattr(getitem, "__code__", None)
    path, line = (code.co_filename, code.co_firstlineno) if code else (None, None)
    label = f"PyDataset {cls.__name__}.__getitem__"
    extra = {"pydataset": True, "workers": getattr(py_dataset, "workers", 1),
             "use_multiprocessing": getattr(py_dataset, "use_multiprocessing", False),
             "class": cls.__name__}
    extra["getitem_timer"] = _time_getitem(session, cls, label)
    session.relabel_generator(ds, label, path, line, extra)


def _time_getitem(session: Session, cls: type, label: str) -> PyTimer:
    """Time `__getitem__` (wall and thread CPU, in whichever worker thread runs it)."""
    timer = session.pydataset_calls.setdefault(label, PyTimer())
    orig = cls.__dict__.get("__getitem__") or getattr(cls, "__getitem__")
    if getattr(orig, "_pipelint_timed", False):
        return timer
    if (session.fixes.get("free_stage") or {}).get("class") == cls.__name__:
        first: list = []

        def free_getitem(self_, index):  # a bound measurement: the first batch, at no cost
            if not first:
                first.append(orig(self_, index))
            return first[0]
        free_getitem._pipelint_timed = True
        hooks.patch(session, cls, "__getitem__", free_getitem)
        return timer

    def __getitem__(self_, index):  # noqa: N807 - few, costly calls: each one is timed
        timer.calls += 1
        token = timer.start()
        try:
            return orig(self_, index)
        finally:
            timer.stop(token)
    __getitem__._pipelint_timed = True
    hooks.patch(session, cls, "__getitem__", __getitem__)
    return timer
