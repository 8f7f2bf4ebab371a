"""Timing of the Python code behind a stage: wall, thread CPU and run-queue time per call.

Every call is counted; only a sample is clocked: the first FIRST calls, then one in EVERY. A
clocked call stands for the calls it represents (1 among the first, EVERY after), and its times are
added with that weight, so that `wall` and `cpu` estimate the totals over every call without bias
even when the first calls (tracing, warm caches) cost more than the rest; per-call figures divide
by the calls represented (`timed`). `benchmarks/probe_overhead.py --micro` prints what an
uncounted, a counted and a clocked call cost.
"""
from __future__ import annotations

import os
import time
from typing import Callable


#: The first calls are all clocked: short runs still get a figure, and warm-up is seen as it is.
FIRST = 16
#: After them, one call in this many is clocked and stands for EVERY calls.
EVERY = 16
#: One clocked call in this many also reads the thread's run-queue time (schedstat: an open, a
#: read and a close; the file is never kept, so a thread that ends cannot leak it).
SCHED_EVERY = 2


def weight(n: int) -> int:
    """How many calls the `n`-th call (1-based) stands for when clocked; 0 if it is not clocked."""
    if n <= FIRST:
        return 1
    return EVERY if (n - FIRST - 1) % EVERY == 0 else 0


#: This thread's scheduler statistics (Linux 3.17+): on-CPU ns, run-queue ns, time slices.
SCHEDSTAT = "/proc/thread-self/schedstat"
_schedstat_missing = False  # set once a read fails (not Linux, no /proc): never tried again


def run_queue_seconds() -> float | None:
    """Seconds this thread has spent ready to run but waiting for a CPU (Linux schedstat), or None.

    Only this field is used: it is current whenever the thread runs (the kernel adds a wait when
    the thread is scheduled in). The file's first field, time on a CPU, is not: for the running
    thread it lags until the next tick or switch, which made a sleeping stage read half busy. CPU
    time comes from `time.thread_time()` instead, which the kernel brings up to date on each read.
    """
    global _schedstat_missing
    if _schedstat_missing:
        return None
    try:
        fd = os.open(SCHEDSTAT, os.O_RDONLY)
        try:
            fields = os.read(fd, 128).split()
        finally:
            os.close(fd)
        return int(fields[1]) / 1e9
    except (OSError, ValueError, IndexError):
        _schedstat_missing = True
        return None


class PyTimer:
    """Calls, wall and thread CPU time (s) of the Python code behind one stage.

    A stage that computes (holds the GIL, uses a core) and one that waits (I/O, sleeps, remote
    reads) differ in how much of a call's time its thread is on a CPU; threads help only the latter.
    On a crowded machine both also wait in the run queue (ready, no CPU free): a spinning thread
    would look half idle. So some clocked calls also read the thread's run-queue time, and
    `busy_fraction` = thread CPU / (wall - run-queue time) over those calls: about 1 for code that
    computes, about 0 for code that waits, whatever the load.

    `wall`, `cpu`: estimated totals over the `timed` calls the clocked ones stand for (weighted
    sums); `clocked`: the calls actually clocked. `sampled_*`: plain sums over the clocked calls
    that read the run queue too (a ratio of them needs no weights).
    """

    __slots__ = ("calls", "timed", "clocked", "wall", "cpu", "sampled_wall", "sampled_cpu", "sampled_queue")

    def __init__(self) -> None:
        self.calls = 0  # every call
        self.timed = 0  # the calls that `wall` and `cpu` stand for
        self.clocked = 0  # the calls clocked
        self.wall = 0.0
        self.cpu = 0.0
        self.sampled_wall = 0.0
        self.sampled_cpu = 0.0
        self.sampled_queue = 0.0

    def start(self, w: int = 1) -> tuple:
        """Begin clocking a call that stands for `w` calls (the caller counts it in `calls`)."""
        queue = run_queue_seconds() if self.clocked % SCHED_EVERY == 0 else None
        return w, queue, time.thread_time(), time.perf_counter()

    def stop(self, token: tuple) -> None:
        t1 = time.perf_counter()
        c1 = time.thread_time()
        w, queue0, c0, t0 = token
        wall, cpu = t1 - t0, c1 - c0
        self.clocked += 1
        self.timed += w
        self.wall += w * wall
        self.cpu += w * cpu
        if queue0 is not None:
            queue1 = run_queue_seconds()
            if queue1 is not None:
                self.sampled_wall += wall
                self.sampled_cpu += cpu
                self.sampled_queue += max(0.0, min(wall, queue1 - queue0))

    def add(self, wall: float, cpu: float) -> None:
        """One call measured elsewhere."""
        self.calls += 1
        self.timed += 1
        self.clocked += 1
        self.wall += wall
        self.cpu += cpu

    @property
    def wall_per_call(self) -> float:
        """Mean wall seconds per call (the clocked calls, each weighted by the calls it stands for)."""
        n = self.timed or self.calls
        return self.wall / n if n else 0.0

    @property
    def cpu_per_call(self) -> float:
        n = self.timed or self.calls
        return self.cpu / n if n else 0.0

    @property
    def total_wall(self) -> float:
        """Estimated wall seconds of every call."""
        return self.wall_per_call * self.calls

    @property
    def total_cpu(self) -> float:
        return self.cpu_per_call * self.calls

    @property
    def busy_fraction(self) -> float | None:
        """Thread CPU / (wall - run-queue time) over the calls that read the run queue, else CPU / wall."""
        runnable_wall = self.sampled_wall - self.sampled_queue
        if self.sampled_wall > 0 and runnable_wall > 0:
            return max(0.0, min(1.0, self.sampled_cpu / runnable_wall))
        return min(1.0, self.cpu / self.wall) if self.wall > 0 else None


def timed_call(func: Callable, timer: PyTimer, free: bool = False) -> Callable:
    """`func` with its calls counted and a sample of them clocked (same arguments, same result)."""
    if free:  # a bound measurement: the stage costs (almost) nothing, its first result repeats
        first: list = []

        def once(*args, **kwargs):
            if not first:
                first.append(func(*args, **kwargs))
            return first[0]
        return once

    def timed(*args, **kwargs):
        timer.calls = n = timer.calls + 1
        # The unclocked path is the common one: one addition and one test, inlined (no call).
        if n > FIRST and (n - FIRST - 1) % EVERY:
            return func(*args, **kwargs)
        token = timer.start(1 if n <= FIRST else EVERY)
        try:
            return func(*args, **kwargs)
        finally:
            timer.stop(token)
    timed.__name__ = getattr(func, "__name__", "timed")
    timed.__wrapped__ = func
    return timed


def timed_generator(factory: Callable, timer: PyTimer, free: bool = False) -> Callable:
    """from_generator's callable, with the generator's next() counted and sampled (same elements)."""
    def make(*args):
        it = iter(factory(*args))
        if free:  # a bound measurement: the first element, again and again, at no cost
            first = next(it)
            return iter(lambda: first, object())

        def timed():
            while True:
                timer.calls = n = timer.calls + 1
                if n > FIRST and (n - FIRST - 1) % EVERY:
                    try:
                        value = next(it)
                    except StopIteration:
                        timer.calls -= 1  # the end of the generator is not a call that made an element
                        return
                    yield value
                    continue
                token = timer.start(1 if n <= FIRST else EVERY)
                try:
                    value = next(it)
                except StopIteration:
                    timer.calls -= 1
                    return
                timer.stop(token)
                yield value
        return timed()
    make.__name__ = getattr(factory, "__name__", "generator")
    return make
