"""Timing of the Python code behind a stage: wall, thread CPU and run-queue time per call.

Calls are counted one by one but timed one in TIME_EVERY (the first, then every TIME_EVERY-th):
a stage's calls are many and alike, so a sample gives their mean for a quarter of the clock reads
(`benchmarks/probe_overhead.py --micro` prints what a counted and a timed call cost)."""
from __future__ import annotations

import os
import threading
import time
from typing import Callable


_tls = threading.local()

#: One call in this many is timed (wall, thread CPU); all are counted.
TIME_EVERY = 4
#: One timed call in this many also reads the thread's schedstat (run-queue time).
SCHED_EVERY = 2


def _schedstat() -> tuple[float, float] | None:
    """This thread's (time on a CPU, time ready but waiting for one), seconds (Linux), or None.

    Each thread keeps its own file open and re-reads it from offset 0 (a few µs, no open())."""
    try:
        fd = getattr(_tls, "fd", None)
        if fd is None:
            fd = _tls.fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        on_cpu, run_queue, _ = os.pread(fd, 128, 0).split()
        return int(on_cpu) / 1e9, int(run_queue) / 1e9
    except (OSError, ValueError):
        _tls.fd = -1 if getattr(_tls, "fd", None) is None else _tls.fd
        return None


class PyTimer:
    """Calls, wall and thread CPU time (s) of the Python code behind one stage.

    A stage that computes (holds the GIL, uses a core) and one that waits (I/O, sleeps, remote
    reads) differ in how much of a call's time its thread is on a CPU; threads help only the latter.
    On a crowded machine both also wait in the run queue (ready, no CPU free): a spinning thread
    would look half idle, a sleeping one slow to wake. So every 8th call also reads the thread's
    schedstat, and `busy_fraction` = time on a CPU / (wall - time in the run queue): about 1 for
    code that computes, about 0 for code that waits, whatever the load.
    """

    __slots__ = ("calls", "timed", "wall", "cpu", "sampled_wall", "sampled_cpu", "sampled_queue")

    def __init__(self) -> None:
        self.calls = 0  # every call
        self.timed = 0  # the calls whose time is in `wall` and `cpu`
        self.wall = 0.0
        self.cpu = 0.0
        self.sampled_wall = 0.0
        self.sampled_cpu = 0.0
        self.sampled_queue = 0.0

    def start(self) -> tuple:
        sched = _schedstat() if self.timed % SCHED_EVERY == 0 else None
        return time.perf_counter(), time.thread_time(), sched

    def stop(self, token: tuple) -> None:
        """End a timed call (the caller counts it in `calls` itself)."""
        t0, c0, sched0 = token
        wall = time.perf_counter() - t0
        self.timed += 1
        self.wall += wall
        self.cpu += time.thread_time() - c0
        if sched0 is not None:
            sched1 = _schedstat()
            if sched1 is not None:
                self.sampled_wall += wall
                self.sampled_cpu += sched1[0] - sched0[0]
                self.sampled_queue += sched1[1] - sched0[1]

    def add(self, wall: float, cpu: float) -> None:
        self.calls += 1
        self.timed += 1
        self.wall += wall
        self.cpu += cpu

    @property
    def wall_per_call(self) -> float:
        """Mean wall seconds per call, from the timed calls."""
        n = self.timed or self.calls
        return self.wall / n if n else 0.0

    @property
    def cpu_per_call(self) -> float:
        n = self.timed or self.calls
        return self.cpu / n if n else 0.0

    @property
    def busy_fraction(self) -> float | None:
        """Time on a CPU / (wall - run-queue time) from schedstat samples, else CPU / wall."""
        runnable_wall = self.sampled_wall - self.sampled_queue
        if self.sampled_wall > 0 and runnable_wall > 0:
            return max(0.0, min(1.0, self.sampled_cpu / runnable_wall))
        return min(1.0, self.cpu / self.wall) if self.wall > 0 else None


def timed_call(func: Callable, timer: PyTimer, free: bool = False) -> Callable:
    if free:  # a bound measurement: the stage costs (almost) nothing, its first result repeats
        first: list = []

        def once(*args, **kwargs):
            if not first:
                first.append(func(*args, **kwargs))
            return first[0]
        return once

    def timed(*args, **kwargs):
        timer.calls += 1
        if (timer.calls - 1) % TIME_EVERY:
            return func(*args, **kwargs)
        token = timer.start()
        try:
            return func(*args, **kwargs)
        finally:
            timer.stop(token)
    timed.__name__ = getattr(func, "__name__", "timed")
    timed.__wrapped__ = func
    return timed


def timed_generator(factory: Callable, timer: PyTimer, free: bool = False) -> Callable:
    """from_generator's callable, with each next() of the generator timed (same elements)."""
    def make(*args):
        it = iter(factory(*args))
        if free:  # a bound measurement: the first element, again and again, at no cost
            first = next(it)
            return iter(lambda: first, object())

        def timed():
            while True:
                timer.calls += 1
                if (timer.calls - 1) % TIME_EVERY:
                    try:
                        value = next(it)
                    except StopIteration:
                        return
                    yield value
                    continue
                token = timer.start()
                try:
                    value = next(it)
                except StopIteration:
                    return
                timer.stop(token)
                yield value
        return timed()
    make.__name__ = getattr(factory, "__name__", "generator")
    return make
