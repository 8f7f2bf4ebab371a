"""Write the probe's figures where people already look: TensorBoard event files.

Tags, all under the `pipelint/` group of TensorBoard's scalars dashboard:
  pipelint/step_time_ms, pipelint/input_wait_ms, pipelint/input_bound_fraction   one point per step
  pipelint/stage_ms_per_element/<stage>@<file>:<line>                           per stage, at the last step
  pipelint/report (text dashboard)                                              the report in Markdown
Steps are numbered like Keras' `batch_*` scalars (its global train batch), so in `fit` the curves line
up with the loss. Warm-up steps (tracing, pipeline start) are not written: the report leaves them out too.

Events are written with TensorBoard's own pure-Python writer (about 25 µs per scalar, on a background
thread) rather than `tf.summary` (about 200 µs per scalar op): the per-step points are buffered and
written at epoch ends and at the end of the run, never per step on the training thread.
This module is imported only when a log directory is set; importing it imports `tensorboard`.
"""
from __future__ import annotations

import logging
import os
import re
import time
from typing import Any

from tensorboard.plugins.scalar.summary_v2 import scalar_pb
from tensorboard.plugins.text.summary_v2 import text_pb
from tensorboard.compat.proto import event_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from pipelint.profiler.measure.steps import WARMUP_MAX
from pipelint.profiler.measure.timeline import Point

log = logging.getLogger("pipelint")

GROUP = "pipelint"
RUN = "train"  # Keras' TensorBoard callback writes training scalars to <log_dir>/train


def run_dir(log_dir: str, keras_train_dir: str | None = None) -> str:
    """Where the events go: the train run of the script's Keras TensorBoard callback when there is one
    (so pipelint's curves sit beside the loss), else `<log_dir>/train`."""
    return os.path.abspath(keras_train_dir) if keras_train_dir else os.path.join(os.path.abspath(log_dir), RUN)


def stage_tags(stages: list[dict[str, Any]]) -> list[str]:
    """One tag per stage: its name and source line (`map(parse)@train.py:31`), `#2`... when repeated."""
    tags, seen = [], {}
    for s in stages:
        src = s.get("source")
        label = s["name"] + (f"@{os.path.basename(src['path'])}:{src['line']}" if src else "")
        # Tags stay readable in the dashboard's tag list; slashes would nest them further.
        label = re.sub(r"[^\w.:@()\[\]+-]+", "_", label).strip("_")
        seen[label] = seen.get(label, 0) + 1
        tags.append(f"{GROUP}/stage_ms_per_element/{label}" + (f"#{seen[label]}" if seen[label] > 1 else ""))
    return tags


class Writer:
    """An event file in `directory`; any failure is logged once and turns the writer off."""

    def __init__(self, directory: str):
        self.directory = directory
        self.error: str | None = None
        self.scalars = 0
        self._events: EventFileWriter | None = None

    def _open(self) -> EventFileWriter | None:
        if self._events is None and self.error is None:
            try:
                os.makedirs(self.directory, exist_ok=True)
                self._events = EventFileWriter(self.directory, filename_suffix=".pipelint")
            except Exception as exc:  # noqa: BLE001 - TensorBoard output is optional, training is not
                self._fail(exc)
        return self._events

    def _fail(self, exc: BaseException) -> None:
        if self.error is None:
            self.error = f"{type(exc).__name__}: {exc}"
            log.warning("TensorBoard output switched off: %s", self.error)

    def _add(self, summary, step: int, wall_time: float | None = None) -> None:
        events = self._open()
        if events is None:
            return
        try:
            events.add_event(event_pb2.Event(wall_time=wall_time or time.time(), step=step, summary=summary))
        except Exception as exc:  # noqa: BLE001
            self._fail(exc)

    def scalar(self, tag: str, value: float, step: int, wall_time: float | None = None) -> None:
        self._add(scalar_pb(tag, float(value)), step, wall_time)
        self.scalars += 1

    def text(self, tag: str, markdown: str, step: int) -> None:
        self._add(text_pb(tag, markdown), step)

    def steps(self, points: list[Point]) -> None:
        """Per-step scalars for measured (non-warm-up) points."""
        offset = time.time() - time.perf_counter()  # perf_counter -> wall clock, for TensorBoard's time axes
        for p in points:
            if p.warmup or p.step_s <= 0:
                continue
            wall = p.end + offset if p.end is not None else None
            self.scalar(f"{GROUP}/step_time_ms", 1000 * p.step_s / p.n, p.step, wall)
            if p.wait_s is not None:
                self.scalar(f"{GROUP}/input_wait_ms", 1000 * p.wait_s / p.n, p.step, wall)
                self.scalar(f"{GROUP}/input_bound_fraction", min(1.0, p.wait_s / p.step_s), p.step, wall)
        self.flush()

    def report(self, r: dict[str, Any], step: int) -> None:
        """Stage figures and the Markdown report, at the run's last step."""
        stages = r.get("stages") or []
        for s, tag in zip(stages, stage_tags(stages)):
            if s.get("time_per_element_ms") is not None:
                self.scalar(tag, s["time_per_element_ms"], step)
        self.text(f"{GROUP}/report", render_markdown(r), step)
        self.flush()

    def flush(self) -> None:
        if self._events is not None:
            try:
                self._events.flush()
            except Exception as exc:  # noqa: BLE001
                self._fail(exc)

    def close(self) -> None:
        if self._events is not None:
            try:
                self._events.close()
            except Exception as exc:  # noqa: BLE001
                self._fail(exc)
            self._events = None


def _md_cell(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return "-" if v is None else str(v).replace("|", "\\|")


def render_markdown(r: dict[str, Any]) -> str:
    """The report as Markdown (TensorBoard's text dashboard renders tables)."""
    out = ["**pipelint profile**" + (f": `{r['script']}`" if r.get("script") else "")]
    if r.get("steps"):
        out.append(f"verdict: **{r['verdict']}**, {100 * (r['input_bound_fraction'] or 0):.0f}% of step time waiting"
                   f" for input ({r['steps']} steps, {r['step_time_ms']:.2f} ms/step,"
                   f" {r['input_wait_ms']:.2f} ms input wait)")
    else:
        out.append(f"verdict: **{r.get('verdict', 'unknown')}** (no training steps were measured)")
    xp = (r.get("xprof") or {}).get("analysis")
    if xp and xp.get("input_bound_fraction") is not None:
        out.append(f"XProf: {100 * xp['input_bound_fraction']:.0f}% input, median step"
                   f" {xp.get('step_time_median_ms') or xp['step_time_ms']:.2f} ms over {xp['steps']} steps")
        for note in xp.get("disagreement") or []:
            out.append(f"> {note}")
    if r.get("stages"):
        out.append("")
        out.append("| stage | source | elements | ms/element | ms/batch | parallelism | share |")
        out.append("|---|---|---:|---:|---:|---:|---:|")
        for s in r["stages"]:
            src = s.get("source")
            where = f"{os.path.basename(src['path'])}:{src['line']}" if src else "-"
            out.append(f"| {_md_cell(s['name'])} | {where} | {s['elements']} | {_md_cell(s['time_per_element_ms'])}"
                       f" | {_md_cell(s['time_per_batch_ms'])} | {_md_cell(s['parallelism'])}"
                       f" | {100 * s['share']:.0f}% |")
    if r.get("suggestions"):
        out.append("")
        out.append("Suggestions (best first):")
        out.append("")
        for s in r["suggestions"]:
            extra = []
            if s.get("action"):
                extra.append(f"action `{s['action']}`")
            if s.get("expected_speedup"):
                word = "up to" if s.get("speedup_basis") == "upper-bound" else "expected"
                extra.append(f"{word} {s['expected_speedup']:.2f}x")
            measured = next((c.get("measured_speedup") for c in (r.get("verification") or {}).get("candidates") or []
                             if (c.get("code"), c.get("action")) == (s.get("code"), s.get("action"))), None)
            if measured:
                extra.append(f"measured {measured:.2f}x with --verify")
            out.append(f"1. `{s.get('code') or 'advice'}` {s.get('name') or ''}" + (f" ({', '.join(extra)})" if extra else "")
                       + f": {s['message']}")
    return "\n".join(out) + "\n"


class Output:
    """TensorBoard output of one probe session: per-step scalars at each epoch end (and when a long
    epoch piles up points), stage scalars and the Markdown report at the end."""

    def __init__(self, session: Any, log_dir: str):
        self.session = session
        self.log_dir = os.path.abspath(log_dir)
        self.writer: Writer | None = None
        self._held: list[Point] = []  # leading steps of a segment, until warm-up is decided
        session.timelines.attach(self._take)
        session.timelines.listeners.append(self.epoch_end)

    def _writer(self) -> Writer:
        if self.writer is None:
            self.writer = Writer(run_dir(self.log_dir, self.session.keras_tensorboard_dir))
        return self.writer

    def _take(self, timeline, points: list[Point]) -> None:
        if timeline is not self.session.timelines.primary():
            return
        # Whether a segment's leading steps are warm-up is decided from the steps after them, so
        # those few wait until the end; the rest are written now and never retracted.
        stats, _ = self.session.step_stats()
        undecided = {i for a in (stats.segments or [0]) for i in range(a, a + WARMUP_MAX)}
        self._held += [p for p in points if p.index in undecided]
        self._writer().steps([p for p in points if p.index not in undecided])

    def epoch_end(self) -> None:
        tls = self.session.timelines
        for tl in tls.every():
            points = tl.drain()
            if points:
                self._take(tl, points)

    def interval(self, report: dict[str, Any]) -> None:
        """The running account's rhythm: append the steps measured since the last interval, the
        stage scalars and the report so far, and flush (an event file is append-only with a
        checksum per record, so a killed job leaves every flushed record readable)."""
        self.epoch_end()
        tl = self.session.timelines.primary()
        self._writer().report(report, step=max(1, tl.last_step if tl else 1))

    def finish(self, report: dict[str, Any]) -> None:
        """Write what is left and the report; add the `tensorboard` key to the report."""
        self.epoch_end()
        stats, _ = self.session.step_stats()
        warmup = stats.warmup_indices()  # as the report decided
        w = self._writer()
        w.steps([p for p in self._held if p.index not in warmup])
        self._held = []
        tl = self.session.timelines.primary()
        w.report(report, step=max(1, tl.last_step if tl else 1))
        w.close()
        report["tensorboard"] = {"log_dir": self.log_dir, "run_dir": w.directory, "scalars": w.scalars,
                                 "error": w.error,
                                 "open": f"tensorboard --logdir {os.path.dirname(w.directory)}"}
