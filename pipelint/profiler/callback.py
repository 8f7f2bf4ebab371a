"""`PipelineProfiler`: a Keras callback that measures step time and input wait during `fit`.

Keras 3 reads the iterator inside its compiled train function, so Python cannot see the wait
directly. The callback times steps between consecutive `on_train_batch_begin` calls and reads
tf.data's own `gap_times` (the consumer's time between two GetNext calls) from the autotune model:
input wait per step = step time - gap. Only `on_train_batch_begin` is overridden so that Keras
keeps dispatching `on_train_batch_end` asynchronously (no extra device sync per step).
"""
from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import keras

from pipelint.profiler.session import Session, active, early_sample


class PipelineProfiler(keras.callbacks.Callback):
    async_safe = True

    def __init__(self, *, sample_every: int = 50, warn_every: int = 500, live_warnings: bool = True,
                 report: bool = True, json_path: str | None = None, html_path: str | None = None,
                 session: Session | None = None):
        super().__init__()
        self._own = False
        if session is None:
            session = active()
        if session is None:
            # Used on its own (not under `pipelint profile`): hook iterators now, before fit makes them.
            session = Session(sample_every=sample_every, warn_every=warn_every,
                              live_warnings=live_warnings, record_sources=False).install()
            self._own = True
        self.session = session
        self.sample_every = sample_every
        self._print = report and self._own
        self.json_path, self.html_path = json_path, html_path
        self.result: dict[str, Any] | None = None
        self._last: float | None = None
        self._pending: list[float] = []
        self._epoch_first = 0
        self._step = 0
        self._gaps: list[int] = []  # the last gap times read, for when the iterator is gone

    # Keras hooks --------------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self.session.keras_depth += 1
        self.session.active_callbacks.append(self)

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch_first = len(self.session.iter_records)
        self._last = None

    def on_train_batch_begin(self, batch, logs=None):
        s = self.session
        if s.disabled:
            return
        try:
            now = time.perf_counter()
            if self._last is None:
                # The epoch's iterator was created just before its first batch.
                for rec in s.iter_records[self._epoch_first:]:
                    if rec.ref() is not None and rec not in s.keras_iterators:
                        s.keras_iterators.append(rec)
            else:
                self._pending.append(now - self._last)
                s.keras.track(now, now - self._last)
                self._step += 1
                if len(self._pending) >= self.sample_every:
                    self._flush()
                    s.maybe_warn(s.keras, self._step, self._pipeline())
                elif early_sample(self._step, self.sample_every):
                    self._read_gaps()  # so that an interrupted fit still has stages and gaps
            self._last = now
        except Exception as exc:
            s.fail("Keras callback", exc)

    def on_epoch_end(self, epoch, logs=None):
        # The last step of an epoch also holds validation: it stays out of the figures.
        self._last = None
        try:
            self._flush()
        except Exception as exc:
            self.session.fail("Keras callback", exc)

    def on_train_end(self, logs=None):
        s = self.session
        s.keras_depth = max(0, s.keras_depth - 1)
        if self in s.active_callbacks:
            s.active_callbacks.remove(self)
        try:
            self._flush()
        except Exception as exc:
            s.fail("Keras callback", exc)
        if self._own:
            s.uninstall()
            from pipelint.profiler.report import build_report, render_text, write_html, write_json
            self.result = build_report(s)
            if self._print:
                print(render_text(self.result), file=sys.stderr)
            if self.json_path:
                write_json(self.result, self.json_path)
            if self.html_path:
                write_html(self.result, self.html_path)

    # internals ----------------------------------------------------------------------------------
    def _pipeline(self):
        recs = [r for r in self.session.keras_iterators if r.ref() is not None]
        return recs[-1].pipeline if recs else None

    def _read_gaps(self) -> list[int]:
        s = self.session
        gaps: list[int] = []
        for rec in s.keras_iterators:
            if rec.ref() is not None and not s.disabled:
                g = s.sample(rec)
                if len(g) > len(gaps):
                    gaps = g
        if gaps:
            self._gaps = gaps
        return gaps

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        s = self.session
        gaps = self._read_gaps() or self._gaps  # the iterator may be gone (interrupted fit)
        if not pending:
            return
        step = statistics.median(pending)
        # Medians: the first gap holds the tracing of the train function (seconds).
        wait_per_step = max(0.0, step - statistics.median(gaps) / 1e6) if gaps else 0.0
        wait_per_step = min(wait_per_step, step)
        for p in pending:
            s.keras.add(p, min(p, wait_per_step), track=False)
