"""Step accounting: every measured step and its input wait, and the figures made from them.

Pure Python (no TensorFlow). The training thread only appends, to typed arrays (no object is kept
per step); `summary()` leaves out each segment's warm-up steps and gives the median, the spread and
the fraction waiting for input.
"""
from __future__ import annotations

import bisect
import os
import statistics
import time
from array import array
from typing import Any


#: A leading step of a fit or a loop is warm-up (train-function tracing, XLA compilation, thread
#: pools starting) while it takes more than this many times the median of the steps after it.
WARMUP_FACTOR = 2.0
#: At most this many leading steps of one fit or loop are dropped as warm-up.
WARMUP_MAX = 10


class StepStats:
    """Every measured step (seconds) and its input wait, in segments (one per fit call or iterator).

    Appending is all the training thread pays per step; CPU time is read only at sample points.
    The figures (`summary()`) leave out each segment's warm-up steps: see WARMUP_FACTOR.
    """

    __slots__ = ("step", "wait", "segments", "cpu0", "wall0", "cpu1", "wall1", "_warm")

    def __init__(self) -> None:
        self.step = array("d")  # seconds per step
        self.wait = array("d")  # seconds of it spent waiting for input
        self.segments: list[int] = []  # index of each segment's first step
        self.cpu0 = self.wall0 = self.cpu1 = self.wall1 = None
        self._warm: tuple = ((), [])  # (steps, segments) -> `_warmup()`: steps are only appended

    @property
    def steps(self) -> int:
        return len(self.step)

    def new_segment(self) -> None:
        if not self.segments or self.segments[-1] != len(self.step):
            self.segments.append(len(self.step))

    def add(self, step: float, wait: float) -> None:
        self.step.append(step)
        self.wait.append(wait)

    def track(self, now: float | None = None) -> None:
        """Read the process CPU time: over the measured steps it says how busy the machine is."""
        now = time.perf_counter() if now is None else now
        cpu = cpu_seconds()
        if self.cpu0 is None:
            self.cpu0, self.wall0 = cpu, now
        self.cpu1, self.wall1 = cpu, now

    def cpu_cores_used(self) -> float | None:
        if self.cpu0 is None or self.wall1 is None or self.wall1 - self.wall0 <= 0.05:
            return None
        return (self.cpu1 - self.cpu0) / (self.wall1 - self.wall0)

    def recent_fraction(self, n: int = 100) -> float | None:
        tot = sum(self.step[-n:])
        return (sum(self.wait[-n:]) / tot) if tot > 0 else None

    def _warmup(self) -> list[tuple[int, int, int]]:
        """Per segment: (first index, end index, leading warm-up steps). Kept until a step or a
        segment is added (a report asks twice: `steady` and `warmup_indices`)."""
        key = (len(self.step), tuple(self.segments))
        if self._warm[0] == key:
            return self._warm[1]
        bounds = (self.segments or [0]) + [len(self.step)]
        out = []
        for a, b in zip(bounds, bounds[1:]):
            seg = self.step[a:b]
            k = 0
            limit = min(WARMUP_MAX, len(seg) - 2)
            if limit > 0:
                # The steps after step k, kept sorted: sorted once, then one step taken out per k
                # (the report is rebuilt at each running-account interval: no sort per k).
                rest = sorted(seg[1:])
                while k < limit:
                    if seg[k] <= WARMUP_FACTOR * _median_of_sorted(rest):
                        break
                    k += 1
                    del rest[bisect.bisect_left(rest, seg[k])]
            out.append((a, b, k))
        self._warm = (key, out)
        return out

    def steady(self) -> tuple[list[float], list[float], int]:
        """(steps, waits, number of warm-up steps left out)."""
        steps: list[float] = []
        waits: list[float] = []
        dropped = 0
        for a, b, k in self._warmup():
            dropped += k
            steps += self.step[a + k:b]
            waits += self.wait[a + k:b]
        return steps, waits, dropped

    def warmup_indices(self) -> set[int]:
        """Indices into `step` that `steady` leaves out (the timeline greys them out)."""
        return {i for a, _b, k in self._warmup() for i in range(a, a + k)}

    def summary(self) -> dict[str, Any] | None:
        """Median step and wait (ms), spread (p10-p90), mean, fraction waiting; None without steps."""
        steps, waits, dropped = self.steady()
        if not steps:
            return None
        ordered = sorted(steps)  # sorted once: median and quantiles sort it again in linear time
        q = _quantiles(ordered)
        total = sum(steps)
        return {"steps": len(steps), "warmup_steps": dropped,
                "step_ms": 1000 * _median_of_sorted(ordered), "step_p10_ms": 1000 * q[0],
                "step_p90_ms": 1000 * q[1], "step_mean_ms": 1000 * total / len(steps),
                "all_mean_ms": 1000 * sum(self.step) / len(self.step),  # warm-up too: the whole job's pace
                "wait_ms": 1000 * statistics.median(waits), "wait_mean_ms": 1000 * sum(waits) / len(waits),
                "fraction": (sum(waits) / total) if total > 0 else None}


def _median_of_sorted(v: list[float]) -> float:
    """statistics.median of an already sorted list, without sorting it again."""
    n = len(v)
    if n % 2:
        return v[n // 2]
    return (v[n // 2 - 1] + v[n // 2]) / 2


def _quantiles(v: list[float]) -> tuple[float, float]:
    if len(v) < 2:
        return v[0], v[0]
    q = statistics.quantiles(v, n=10, method="inclusive")
    return q[0], q[-1]


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system
