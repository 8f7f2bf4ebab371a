"""The running account of a long job (issue 30): every `every` seconds one log line and the report
files rewritten, so a job killed by its scheduler (SIGTERM), stopped with Ctrl-C or crashed leaves a
complete report of everything up to its last interval.

Where it runs: on the training thread, at the first step boundary after each interval is due (the
session compares the step's end with `Session.account_due`, one float comparison per step). The
report is built there, between two steps, where no hook is half-way through updating the session;
a background thread would race with the training thread's appends. What it costs: one report build
and the files written per interval (milliseconds, once a minute by default).

Files are written atomically (`output.report.write_atomic`: a temporary file in the same directory,
then `os.replace`), so a reader, or a kill in the middle of a write, sees the previous complete file
or the new one, never half of one. TensorBoard's event file is append-only with a checksum per
record: its new points are appended and flushed at the same rhythm.

SIGTERM: one last flush, then the handler that was there before runs (a Python handler is called;
the default one is restored and the signal re-sent, so the job dies of SIGTERM as it would have;
an ignored signal stays ignored). The probe never ends or changes the job by itself.
"""
from __future__ import annotations

import math
import os
import signal
import sys
import threading
import time
from typing import Any, TextIO

from pipelint.profiler.measure.memory import site_text
from pipelint.profiler.output.report import build_report, write_html, write_json
from pipelint.profiler.output.trackers import log_interval, log_report

#: Seconds between two lines and two rewrites of the report files, unless told otherwise.
DEFAULT_EVERY = 60.0


class Account:
    """Interval lines and periodic report files for one session. `start()` arms it; `stop()` takes
    the SIGTERM handler off again (the final report is the caller's, as without an account)."""

    def __init__(self, session, every: float, *, json_path: str | None = None, html_path: str | None = None,
                 tensorboard: Any = None, script: str | None = None, extra: Any = None,
                 out: TextIO | None = None):
        self.session = session
        self.every = float(every)
        self.json_path, self.html_path = json_path, html_path
        self.tensorboard = tensorboard
        self.script = script
        self.extra = extra  # a callable giving keys to add to each report (e.g. the XProf section)
        self.out = out
        self.intervals: list[dict[str, Any]] = []
        self._last = (0, 0.0, 0.0)  # steps, step seconds, wait seconds at the previous interval
        self._last_t = 0.0
        self._busy = False  # a flush is under way: a signal arriving then does not start another
        self._previous: Any = None  # the SIGTERM handler before ours
        self._ours: Any = None
        self._armed = False
        self._term_pending: Any = None
        self.stopped_by: str | None = None

    # -- arming ------------------------------------------------------------------------------------
    def start(self) -> "Account":
        now = time.perf_counter()
        self._last_t = now
        self._armed = True
        self.session.account = self
        self.session.account_due = now + self.every
        self._install_sigterm()
        return self

    def stop(self) -> None:
        """No more intervals; the SIGTERM handler goes back to what it was (if it is still ours)."""
        self._armed = False
        self.session.account_due = math.inf
        if self._ours is not None and threading.current_thread() is threading.main_thread():
            try:
                if signal.getsignal(signal.SIGTERM) is self._ours:
                    signal.signal(signal.SIGTERM, self._previous)
            except (ValueError, OSError):
                pass
            self._ours = None

    def _install_sigterm(self) -> None:
        # Signal handlers can only be set from the main thread; elsewhere the periodic files remain.
        if threading.current_thread() is not threading.main_thread():
            return
        try:
            self._previous = signal.getsignal(signal.SIGTERM)
            self._ours = self._on_sigterm
            signal.signal(signal.SIGTERM, self._ours)
        except (ValueError, OSError):
            self._ours = None

    def _rearm(self) -> None:
        """A script sets its own SIGTERM handler after the probe set its: chain to that one now."""
        if self._ours is None or threading.current_thread() is not threading.main_thread():
            return
        try:
            current = signal.getsignal(signal.SIGTERM)
            if current is not self._ours and current != signal.SIG_IGN:
                self._previous = current
                signal.signal(signal.SIGTERM, self._ours)
        except (ValueError, OSError):
            pass

    def _on_sigterm(self, signum, frame) -> None:
        if self._busy:  # arrived during a flush (on this thread): finish that one first, then this
            self._term_pending = (signum, frame)
            return
        self.stopped_by = "SIGTERM"
        self.flush(final=True)
        prev = self._previous
        self.stop()
        if callable(prev):
            prev(signum, frame)  # the job's own handler decides what SIGTERM does
        elif prev == signal.SIG_IGN:
            return
        else:
            # Die of SIGTERM as the job would have without the probe (exit status -15 / 143).
            sys.stdout.flush()
            sys.stderr.flush()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    # -- each interval -----------------------------------------------------------------------------
    def due(self) -> None:
        """Called by the session on the training thread once `account_due` has passed."""
        s = self.session
        s.account_due = math.inf  # nothing here may set off another flush (the report iterates too)
        try:
            self._rearm()
            self.flush()
        finally:
            if self._armed:
                s.account_due = time.perf_counter() + self.every

    def flush(self, final: bool = False) -> dict[str, Any] | None:
        """Build the report so far, log the interval's line (not for the last flush at SIGTERM) and
        rewrite the files. Any error is the probe's (logged once), never the job's."""
        if self._busy or self.session.disabled:
            return None
        self._busy = True
        try:
            report = build_report(self.session, script=self.script, extra=self.extra() if self.extra else None)
            if not final:
                self.session.t_end = None  # the job goes on: its end still takes the final samples
            line = self._interval(report, final)
            report["account"] = self.section(final)
            if line is not None:
                log_interval(self.session, self.intervals[-1])
            if final:
                log_report(self.session, report, self.json_path, self.html_path)
            self._write(report)
            # The line comes after the files: whoever reads it finds them written.
            if line is not None and self.out is not None:
                self.out.write(line + "\n")
                self.out.flush()
            if final and self.out is not None:
                self.out.write(f"pipelint: {self.stopped_by}: report written up to step {report['steps']}"
                               f" (+ {report['warmup_steps_excluded']} warm-up)\n")
                self.out.flush()
            return report
        except Exception as exc:  # noqa: BLE001 - the account must never break the job
            self.session.fail("running account", exc)
            return None
        finally:
            self._busy = False
            pending, self._term_pending = self._term_pending, None
            if pending is not None and not final:
                self._on_sigterm(*pending)

    def section(self, final: bool) -> dict[str, Any]:
        """The report's `account` key: the intervals so far and how the report was written."""
        return {"every_s": self.every, "intervals": list(self.intervals), "final": final,
                "stopped_by": self.stopped_by, "written_at": time.time()}

    def _interval(self, report: dict[str, Any], final: bool) -> str | None:
        stats, _ = self.session.step_stats()
        n = stats.steps
        step_s, wait_s = sum(stats.step), sum(stats.wait)
        n0, step0, wait0 = self._last
        now = time.perf_counter()
        if final or n < n0:  # the last flush covers a partial interval: no line of its own
            return None
        self._last, elapsed, self._last_t = (n, step_s, wait_s), now - self._last_t, now
        dn, dstep, dwait = n - n0, step_s - step0, wait_s - wait0
        b = report.get("bottleneck")
        entry = {"step": n, "seconds": round(elapsed, 3), "steps": dn,
                 "ms_per_step": round(1000 * dstep / dn, 3) if dn else None,
                 "input_share": round(dwait / dstep, 4) if dstep > 0 else None,
                 "verdict": report.get("verdict"),
                 "bottleneck": b["stage"] if b else None, "source": b["source"] if b else None}
        self.intervals.append(entry)
        return format_line(entry)

    def _write(self, report: dict[str, Any]) -> None:
        if self.json_path:
            write_json(report, self.json_path)
        if self.html_path:
            write_html(report, self.html_path)
        if self.tensorboard is not None:
            self.tensorboard.interval(report)


def format_line(entry: dict[str, Any]) -> str:
    """One plain line per interval (no cursor tricks: a scheduler's log file reads it as is)."""
    ms = f"{entry['ms_per_step']:.2f} ms/step" if entry["ms_per_step"] is not None else "no steps"
    share = f"{100 * entry['input_share']:.0f}% waiting for input" if entry["input_share"] is not None else \
        "input wait unknown"
    src = entry.get("source")
    where = f" at {site_text(src['path'], src['line'])}" if src else ""
    slow = f"bottleneck {entry['bottleneck']}{where}" if entry.get("bottleneck") else "no input bottleneck"
    return (f"pipelint: step {entry['step']}: {ms} over the last {entry['seconds']:.0f} s"
            f" ({entry['steps']} steps), {share}, {slow}")
