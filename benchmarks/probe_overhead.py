"""Steps per second with and without the pipelint probe, on a fast and a slow pipeline.

Each case runs many short rounds; every round runs the job once without and once with the probe,
the order swapped every round (off-on, on-off, ...), in one process so that warm-up and machine
noise hit both sides alike. Per round: overhead = 1 - on/off (wall steps per second) and the CPU
the process spent per step with and without (user + system, all threads): on a shared machine the
CPU figure moves far less with other processes' load than the wall figure does. Printed per case: the median over
rounds with its spread (interquartile range), so that 3% can be told from noise or not.
Usage: python benchmarks/probe_overhead.py [--rounds 15] [--steps 600] [--micro]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from pipelint.profiler.run.install import install, uninstall  # noqa: E402
from pipelint.profiler.measure.pytimer import PyTimer, timed_call  # noqa: E402
from pipelint.profiler.run.session import Session  # noqa: E402


def fast(steps):
    x = np.random.rand(steps * 32, 16).astype("float32")
    return tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2.0, num_parallel_calls=tf.data.AUTOTUNE) \
        .batch(32).prefetch(tf.data.AUTOTUNE)


def _slow_py(v):
    time.sleep(0.0002)
    return v


def slow(steps):
    return tf.data.Dataset.range(steps * 4).map(
        lambda i: tf.numpy_function(_slow_py, [i], tf.int64)).batch(4).prefetch(tf.data.AUTOTUNE)


def _cpu() -> float:
    return time.process_time()  # user + system of every thread, at the clock's resolution


def run_loop(make, steps, probed) -> tuple[float, float]:
    """(steps per second, CPU ms per step) of one run over `make(steps)`."""
    session = install(Session(sample_every=50, live_warnings=False)) if probed else None
    try:
        ds = make(steps)
        c0, t0 = _cpu(), time.perf_counter()
        n = 0
        for _ in ds:
            n += 1
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        return n / wall, 1000 * cpu / max(n, 1)
    finally:
        if session is not None:
            uninstall(session)


def run_fit(make, steps, probed, model) -> tuple[float, float]:
    session = install(Session(sample_every=50, live_warnings=False)) if probed else None
    try:
        ds = make(steps).map(lambda v: (v, v[:, :1]))
        c0, t0 = _cpu(), time.perf_counter()
        model.fit(ds, epochs=1, verbose=0)
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        return steps / wall, 1000 * cpu / steps
    finally:
        if session is not None:
            uninstall(session)


def per_step_cost() -> tuple[float, float]:
    """Load-insensitive figures: µs per timed next() and ms per model read."""
    session = install(Session(sample_every=10**9, live_warnings=False))
    try:
        it = iter(fast(2000).repeat())
        rec = session.iter_records[-1]
        n = 20000
        t0 = time.perf_counter()
        for _ in range(n):
            rec.tick(0.0, 0.0)
        tick_us = (time.perf_counter() - t0) / n * 1e6
        next(it)
        t0 = time.perf_counter()
        for _ in range(50):
            session.sample(rec)
        sample_ms = (time.perf_counter() - t0) / 50 * 1e3
        return tick_us, sample_ms
    finally:
        uninstall(session)


def timer_cost() -> tuple[float, float, float]:
    """µs a Python stage's call pays: a bare call, a call through the probe's wrapper (counted,
    timed one in pytimer.TIME_EVERY), and the mean per call of that wrapper minus the bare call."""
    def f(v):
        return v
    n = 200_000
    wrapped = timed_call(f, PyTimer())
    best = {}
    for name, fn in (("bare", f), ("wrapped", wrapped)):
        runs = []
        for _ in range(5):
            t0 = time.perf_counter()
            for i in range(n):
                fn(i)
            runs.append((time.perf_counter() - t0) / n * 1e6)
        best[name] = min(runs)
    return best["bare"], best["wrapped"], best["wrapped"] - best["bare"]


def _iqr(values: list[float]) -> tuple[float, float]:
    if len(values) < 4:
        return min(values), max(values)
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--micro", action="store_true", help="only the per-step and per-call cost figures")
    a = ap.parse_args()
    bare_us, wrapped_us, timer_us = timer_cost()
    tick_us, sample_ms = per_step_cost()
    micro = (f"probe bookkeeping per step: {tick_us:.1f} µs; one get_model_proto read + alignment:"
             f" {sample_ms:.2f} ms (every 50 steps = {sample_ms * 1000 / 50:.1f} µs per step); a Python"
             f" stage's call: {bare_us:.2f} µs bare, {wrapped_us:.2f} µs through the probe's timer"
             f" (+{timer_us:.2f} µs)")
    if a.micro:
        print(micro)
        return
    import keras
    model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    cases = [("fast pipeline, custom loop", lambda p: run_loop(fast, a.steps, p)),
             ("slow pipeline (py_function), custom loop", lambda p: run_loop(slow, a.steps // 4, p)),
             ("fast pipeline, Keras fit", lambda p: run_fit(fast, a.steps // 2, p, model))]
    print(f"{a.rounds} rounds per case, alternating; load average at start {os.getloadavg()[0]:.1f} on"
          f" {os.cpu_count()} CPUs")
    print(f"{'case':42} {'off steps/s':>11} {'on steps/s':>11} {'wall overhead (median, IQR)':>28}"
          f" {'CPU ms/step off -> on':>22} {'CPU overhead (median, IQR)':>28}")
    for name, fn in cases:
        fn(False), fn(True)  # warm-up: tracing, thread pools
        off, on, over, cpu_off, cpu_on, cpu_over = [], [], [], [], [], []
        for r in range(a.rounds):  # swap the order every round: no side always runs second
            pair = {}
            for probed in ((True, False) if r % 2 else (False, True)):
                pair[probed] = fn(probed)
            off.append(pair[False][0])
            on.append(pair[True][0])
            over.append(100 * (1 - pair[True][0] / pair[False][0]))
            cpu_off.append(pair[False][1])
            cpu_on.append(pair[True][1])
            cpu_over.append(100 * (pair[True][1] / pair[False][1] - 1) if pair[False][1] > 0 else 0.0)
        lo, hi = _iqr(over)
        clo, chi = _iqr(cpu_over)
        print(f"{name:42} {statistics.median(off):11.0f} {statistics.median(on):11.0f}"
              f" {statistics.median(over):11.1f}% ({lo:5.1f}..{hi:5.1f})"
              f" {statistics.median(cpu_off):11.3f} -> {statistics.median(cpu_on):.3f}"
              f" {statistics.median(cpu_over):11.1f}% ({clo:5.1f}..{chi:5.1f})", flush=True)
    print(f"load average at end {os.getloadavg()[0]:.1f}\n{micro}")


if __name__ == "__main__":
    main()
