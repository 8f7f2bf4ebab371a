"""What the pipelint probe costs a training job: paired, alternating runs with and without it.

Each case runs `--rounds` rounds in one process; a round is one run without and one run with the
probe, in ABBA order (off on, on off, off on, ...), so that drift (warm caches, other processes'
load, thermal) falls on both sides alike. Per round: the paired overhead, wall = on/off - 1 (the
same number of steps each side) and CPU = on/off - 1, where CPU is the process's user + system
time over all its threads (`time.process_time`, CLOCK_PROCESS_CPUTIME_ID): tf.data's and Keras'
threads count, and another process's load moves it far less than it moves wall time.

Per case it prints the median of the paired overheads, a distribution-free 95% confidence interval
for that median (order statistics: [X(k), X(n+1-k)], the largest k with 2 P(Binomial(n, 1/2) < k)
<= 0.05; its exact coverage is printed) and the interquartile range. The interval is what tells 3%
from 8%: its upper end at or under 3% shows the goal met, its lower end above 3% shows it missed.
`--aa` runs both sides without the probe, the same way: the interval it prints around 0 is the
noise floor of this machine at this moment (a real overhead can be told only where it is wider
than that floor).
Usage: python benchmarks/probe_overhead.py [--rounds 30] [--steps 400] [--cases loop,pyfunc,fit]
       [--aa] [--micro]
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from pipelint.profiler.measure import pytimer  # noqa: E402
from pipelint.profiler.measure.pytimer import PyTimer, timed_call  # noqa: E402
from pipelint.profiler.run.install import install, uninstall  # noqa: E402
from pipelint.profiler.run.session import Session  # noqa: E402

GOAL = 3.0  # percent


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


def _probed(probed: bool):
    return install(Session(sample_every=50, live_warnings=False)) if probed else None


def run_loop(make, steps, probed) -> tuple[float, float]:
    """(wall s, CPU s) of one custom loop over `make(steps)`."""
    session = _probed(probed)
    try:
        ds = make(steps)
        gc.collect()  # the previous run's garbage is not this run's cost
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in ds:
            pass
        return time.perf_counter() - t0, time.process_time() - c0
    finally:
        if session is not None:
            uninstall(session)


def run_fit(make, steps, probed, model) -> tuple[float, float]:
    session = _probed(probed)
    try:
        ds = make(steps).map(lambda v: (v, v[:, :1]))
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        model.fit(ds, epochs=1, verbose=0)
        return time.perf_counter() - t0, time.process_time() - c0
    finally:
        if session is not None:
            uninstall(session)


def per_step_cost() -> tuple[float, float]:
    """Load-insensitive figures: µs of bookkeeping per custom-loop step, ms per model read."""
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


def _best_us_per_call(fn, n: int = 200_000, repeats: int = 5) -> float:
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for i in range(n):
            fn(i)
        runs.append((time.perf_counter() - t0) / n * 1e6)
    return min(runs)  # the least disturbed run: these are costs, not waits


def timer_cost() -> dict[str, float]:
    """µs per call of a Python stage: bare; through the probe's wrapper (the mean over calls, the
    first FIRST clocked, then one in EVERY); the wrapper's own mean cost; a clocked call's own cost."""
    def f(v):
        return v
    timer = PyTimer()
    wrapped = timed_call(f, timer)
    bare = _best_us_per_call(f)
    through = _best_us_per_call(wrapped)
    n = 20_000
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            timer.stop(timer.start(1))
        runs.append((time.perf_counter() - t0) / n * 1e6)
    return {"bare": bare, "wrapped": through, "own": through - bare, "clocked": min(runs),
            "schedstat": _best_us_per_call(lambda _i: pytimer.run_queue_seconds(), n=20_000)}


def median_ci(values: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """(low, high, coverage): the order-statistic interval for the median, distribution-free."""
    s = sorted(values)
    n = len(s)
    below = 0.0  # P(B <= k - 1), B ~ Binomial(n, 1/2)
    k = 0
    while k < n // 2:
        nxt = below + math.comb(n, k) / 2 ** n
        if 2 * nxt > 1 - level:
            break
        below, k = nxt, k + 1
    if k == 0:  # too few rounds for the level: the whole range, with its own coverage
        return s[0], s[-1], 1 - 2 / 2 ** n
    return s[k - 1], s[n - k], 1 - 2 * below


def _iqr(values: list[float]) -> tuple[float, float]:
    if len(values) < 4:
        return min(values), max(values)
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def _reading(lo: float, hi: float) -> str:
    if hi <= GOAL:
        return f"<= {GOAL:g}%"
    if lo > GOAL:
        return f"> {GOAL:g}%"
    return "undecided"


def _summary(over: list[float]) -> str:
    lo, hi, _ = median_ci(over)
    qlo, qhi = _iqr(over)
    return f"{statistics.median(over):6.1f}% [{lo:5.1f}, {hi:5.1f}] ({qlo:5.1f}..{qhi:5.1f})"


def measure(fn, rounds: int, aa: bool) -> dict[str, list[float]]:
    """Paired rounds of `fn(probed) -> (wall, cpu)`; ABBA order. Under `aa` both sides are unprobed
    (the "on" side is only a label), so the figures show the noise floor."""
    fn(False), fn(not aa)  # warm-up: tracing, thread pools, the probe's first install
    out: dict[str, list[float]] = {"wall_off": [], "wall_on": [], "cpu_off": [], "cpu_on": [], "wall": [], "cpu": []}
    for r in range(rounds):
        pair = {}
        for side in (("on", "off") if r % 2 else ("off", "on")):
            pair[side] = fn(side == "on" and not aa)
        (w0, c0), (w1, c1) = pair["off"], pair["on"]
        out["wall_off"].append(w0)
        out["wall_on"].append(w1)
        out["cpu_off"].append(c0)
        out["cpu_on"].append(c1)
        out["wall"].append(100 * (w1 / w0 - 1))
        out["cpu"].append(100 * (c1 / c0 - 1) if c0 > 0 else 0.0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--steps", type=int, default=400, help="steps of the fast custom loop per run"
                    " (the py_function loop runs a quarter, fit half)")
    ap.add_argument("--cases", default="loop,pyfunc,fit", help="comma-separated: loop, pyfunc, fit")
    ap.add_argument("--aa", action="store_true", help="both sides without the probe: the noise floor")
    ap.add_argument("--micro", action="store_true", help="only the per-step and per-call cost figures")
    a = ap.parse_args()
    cost = timer_cost()
    tick_us, sample_ms = per_step_cost()
    micro = (f"probe bookkeeping per custom-loop step: {tick_us:.1f} µs; one get_model_proto read +"
             f" alignment: {sample_ms:.2f} ms (a fast loop's reads are held to 0.5% of its wall time);\n"
             f"a Python stage's call: {cost['bare']:.2f} µs bare, {cost['wrapped']:.2f} µs through the"
             f" probe's timer: the timer's own cost {cost['own']:+.2f} µs per call on average"
             f" (a clocked call {cost['clocked']:.2f} µs, the first {pytimer.FIRST} then 1 in {pytimer.EVERY};"
             f" a schedstat read {cost['schedstat']:.2f} µs, on one clocked call in {pytimer.SCHED_EVERY})")
    if a.micro:
        print(micro)
        return
    wanted = [c.strip() for c in a.cases.split(",") if c.strip()]
    model = None
    if "fit" in wanted:
        import keras
        model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8), keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    cases = {"loop": ("fast pipeline, custom loop", lambda p: run_loop(fast, a.steps, p)),
             "pyfunc": ("py_function pipeline, custom loop", lambda p: run_loop(slow, max(1, a.steps // 4), p)),
             "fit": ("fast pipeline, Keras fit", lambda p: run_fit(fast, max(1, a.steps // 2), p, model))}
    unknown = [c for c in wanted if c not in cases]
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(cases)}")
    _, _, coverage = median_ci([0.0] * a.rounds)
    print(f"{'A/A (no probe on either side: the noise floor)' if a.aa else 'probe off vs on'}; {a.rounds} paired"
          f" rounds per case, ABBA order, {a.steps} steps; load average at start {os.getloadavg()[0]:.1f} on"
          f" {os.cpu_count()} CPUs")
    print(f"overhead per round = on/off - 1 (wall; CPU = process user+system, all threads); median"
          f" [order-statistic {100 * coverage:.1f}% CI of the median] (IQR)")
    print(f"{'case':36} {'off ms/run':>10} {'on ms/run':>10} {'wall overhead':>34} {'CPU overhead':>34}"
          f" {'wall':>10} {'CPU':>10}")
    for key in wanted:
        name, fn = cases[key]
        m = measure(fn, a.rounds, a.aa)
        wlo, whi, _ = median_ci(m["wall"])
        clo, chi, _ = median_ci(m["cpu"])
        print(f"{name:36} {1000 * statistics.median(m['wall_off']):10.1f} {1000 * statistics.median(m['wall_on']):10.1f}"
              f" {_summary(m['wall']):>34} {_summary(m['cpu']):>34} {_reading(wlo, whi):>10}"
              f" {_reading(clo, chi):>10}", flush=True)
    print(f"load average at end {os.getloadavg()[0]:.1f}\n{micro}")


if __name__ == "__main__":
    main()
