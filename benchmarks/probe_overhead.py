"""What the pipelint probe costs a training job: paired, alternating runs with and without it.

Each case runs `--rounds` rounds in one process; a round is one run without and one run with the
probe, in ABBA order (off on, on off, off on, ...), so that drift (warm caches, other processes'
load, thermal) falls on both sides alike. Per round, three paired overheads = on/off - 1 over the
same steps: wall time; the training thread's CPU time (`time.thread_time` around the loop, on the
thread that runs it: where the probe's per-step bookkeeping is paid, and which another process's
load moves least); and the process's CPU time over all its threads (`time.process_time`:
tf.data's and Keras' threads count too).

Per case and measure it prints the median of the paired overheads, a distribution-free 95%
confidence interval for that median (order statistics: [X(k), X(n+1-k)], the largest k with
2 P(Binomial(n, 1/2) < k) <= 0.05; its exact coverage is printed), the interquartile range, and
the reading against 3%: `<= 3%` when the interval's upper end is at or under 3%, `> 3%` when its
lower end is above, `undecided` otherwise. The probe's end-of-job work (its last model reads, the
chains described, the reads aligned, the report built) is timed apart, once per run, outside the
paired figures: a job pays it once, not per step.
`--aa` runs both sides without the probe, the same way: the interval it prints around 0 is the
noise floor of this machine at this moment (a real overhead can be told only where it is wider
than that floor). `--freeze` calls `gc.freeze()` after each case's warm-up, for both sides alike:
the objects alive then (TensorFlow's, Keras', the model's) leave the collector's generations, so a
collection that happens to fall into one run no longer walks that whole heap (noise, not the
probe's cost). The load average is printed at the start and at the end. `--fit-micro` prints
only the probe's cost per Keras `fit` step on the training thread: its callback alone (warm cache,
no model read), then the CPU spent inside its `on_train_batch_begin` during real `fit` runs
(`--steps`/2 steps, `--rounds` runs per side; the running account's intervals under `--every`).
Usage: python benchmarks/probe_overhead.py [--rounds 30] [--steps 400] [--cases loop,pyfunc,fit]
       [--aa] [--freeze] [--micro] [--fit-micro] [--every S] [--warmup-steps N]
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import time
from dataclasses import dataclass

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from pipelint.profiler.measure import pytimer  # noqa: E402
from pipelint.profiler.measure.pytimer import PyTimer, timed_call  # noqa: E402
from pipelint.profiler.output.report import build_report  # noqa: E402
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


@dataclass
class Run:
    """One timed run: wall, the training thread's CPU and the process's CPU (s), and (probe on) the
    probe's end of session: its last reads, the chains described, the report built (s)."""
    wall: float
    thread: float
    cpu: float
    report: float = 0.0


#: `--every S`: the probed side also keeps the running account (issue 30): an interval line and the
#: JSON and HTML reports rewritten every S seconds, paid on the training thread like a user's job.
EVERY: float = 0.0
#: Each flush of the running account (report built, line logged, JSON and HTML written), seconds:
#: what one interval costs the training thread.
FLUSHES: list[float] = []


def _timed(probed: bool, make_ds, train) -> Run:
    session = install(Session(sample_every=50, live_warnings=False)) if probed else None
    account = None
    if session is not None and EVERY > 0:
        import io
        import tempfile

        from pipelint.profiler.run.account import Account

        folder = tempfile.mkdtemp(prefix="pipelint-account-")
        account = Account(session, EVERY, json_path=os.path.join(folder, "r.json"),
                          html_path=os.path.join(folder, "r.html"), out=io.StringIO()).start()
        flush = account.flush

        def timed_flush(*args, **kwargs):
            f0 = time.perf_counter()
            try:
                return flush(*args, **kwargs)
            finally:
                FLUSHES.append(time.perf_counter() - f0)

        account.flush = timed_flush
    try:
        ds = make_ds()
        gc.collect()  # the previous run's garbage is not this run's cost
        c0, th0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
        train(ds)
        t1, th1, c1 = time.perf_counter(), time.thread_time(), time.process_time()
        if account is not None:
            account.stop()
    except BaseException:
        if session is not None:
            uninstall(session)
        raise
    report = 0.0
    if session is not None:  # once per job, after training: reported apart from the per-run overhead
        r0 = time.perf_counter()
        uninstall(session)
        build_report(session)
        report = time.perf_counter() - r0
    return Run(t1 - t0, th1 - th0, c1 - c0, report)


def _drain(ds) -> None:
    for _ in ds:
        pass


def run_loop(make, steps, probed) -> Run:
    """One custom loop over `make(steps)`."""
    return _timed(probed, lambda: make(steps), _drain)


def run_fit(make, steps, probed, model) -> Run:
    return _timed(probed, lambda: make(steps).map(lambda v: (v, v[:, :1])),
                  lambda ds: model.fit(ds, epochs=1, verbose=0))


def per_step_cost() -> tuple[float, float, float]:
    """Load-insensitive figures: µs of bookkeeping per custom-loop step, ms per model read (kept
    raw), ms per read aligned with the chain at report time."""
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
        rec.pipeline.describe()  # once per pipeline, not part of a read's cost
        rec.pipeline.align_reads()
        t0 = time.perf_counter()
        for _ in range(50):
            session.sample(rec)
        sample_ms = (time.perf_counter() - t0) / 50 * 1e3
        t0 = time.perf_counter()
        rec.pipeline.align_reads()
        align_ms = (time.perf_counter() - t0) / 50 * 1e3
        return tick_us, sample_ms, align_ms
    finally:
        uninstall(session)


def fit_step_cost(steps: int = 50000, repeats: int = 7) -> float:
    """µs of training-thread CPU per `fit` step of the probe's bookkeeping, Keras and tf.data left
    out: its callback's `on_train_batch_begin` called `steps` times as fit calls it, with the
    flushes every 50 steps (the step times split, the timeline fed) but no iterator to read (a
    model read is timed apart: `per_step_cost`; fit takes one per 50 steps). The least disturbed
    of `repeats` runs, on a warm cache: in a real `fit` the training step runs in between and each
    call costs more (`fit_step_cost_in_fit`)."""
    from pipelint.profiler.run.callback import PipelineProfiler

    best = math.inf
    for _ in range(repeats):
        session = Session(sample_every=50, live_warnings=False)
        cb = PipelineProfiler(session=session)
        cb.on_train_begin()
        cb.on_epoch_begin(0)
        batch_begin = cb.on_train_batch_begin
        gc.collect()
        c0 = time.thread_time()
        for i in range(steps):
            batch_begin(i)
        spent = time.thread_time() - c0
        cb.on_epoch_end(0)
        cb.on_train_end()
        best = min(best, spent / steps * 1e6)
    return best


def fit_step_cost_in_fit(model, steps: int, runs: int) -> dict[str, float]:
    """In real `fit` runs of `steps` steps (the running account on under `--every`): µs per step of
    training-thread CPU spent inside the probe's `on_train_batch_begin` (everything it does: the
    step recorded, flushes, model reads, the account's intervals; each call clocked with
    `thread_time`, less the same clocking around an empty callback's), and of it in the account's
    intervals; and the whole `fit`'s thread CPU per step without and with the probe (noisy: the
    median of `runs` ABBA pairs)."""
    import keras

    from pipelint.profiler.run.callback import PipelineProfiler

    spent = {"probe": 0.0, "empty": 0.0, "account": 0.0}
    calls = dict.fromkeys(spent, 0)
    clock = time.thread_time

    def clocked(fn, key):
        def wrapper(*args, **kwargs):
            c0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] += clock() - c0
                calls[key] += 1
        return wrapper

    class Empty(keras.callbacks.Callback):
        async_safe = True

        def on_train_batch_begin(self, batch, logs=None):
            pass

    Empty.on_train_batch_begin = clocked(Empty.on_train_batch_begin, "empty")
    orig_begin = PipelineProfiler.__dict__["on_train_batch_begin"]
    PipelineProfiler.on_train_batch_begin = clocked(orig_begin, "probe")
    from pipelint.profiler.run import account as account_mod
    orig_due = account_mod.Account.__dict__["due"]
    account_mod.Account.due = clocked(orig_due, "account")
    whole: dict[bool, list[float]] = {False: [], True: []}
    try:
        def one(probed: bool) -> float:
            run = _timed(probed, lambda: fast(steps).map(lambda v: (v, v[:, :1])),
                         lambda ds: model.fit(ds, epochs=1, verbose=0, callbacks=[Empty()]))
            return run.thread
        one(False), one(True)  # warm-up
        for key in spent:
            spent[key], calls[key] = 0.0, 0
        for r in range(runs):
            for probed in ((False, True) if r % 2 == 0 else (True, False)):
                whole[probed].append(one(probed))
    finally:
        PipelineProfiler.on_train_batch_begin = orig_begin
        account_mod.Account.due = orig_due
    per = runs * steps / 1e6
    empty = spent["empty"] / (2 * per)  # the empty callback ran in both sides' fits
    return {"inside": spent["probe"] / per - empty, "account": spent["account"] / per, "clocking": empty,
            "intervals": calls["account"] / runs,
            "interval_ms": 1000 * spent["account"] / calls["account"] if calls["account"] else 0.0,
            "off": statistics.median(whole[False]) / steps * 1e6, "on": statistics.median(whole[True]) / steps * 1e6}


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
    return f"{statistics.median(over):6.1f}% [{lo:5.1f}, {hi:5.1f}] (IQR {qlo:5.1f}..{qhi:5.1f})  {_reading(lo, hi)}"


#: The paired overheads: wall time, the training thread's CPU, the process's CPU (all threads).
MEASURES = (("wall", "wall"), ("thread", "training thread CPU"), ("cpu", "process CPU"))


def measure(fn, rounds: int, aa: bool, freeze: bool, warm=None) -> dict[str, list[float]]:
    """Paired rounds of `fn(probed) -> Run`; ABBA order. Under `aa` both sides are unprobed (the
    "on" side is only a label), so the figures show the noise floor. Under `freeze` the objects
    alive after the warm-up (TensorFlow's, Keras', the model's) go to the garbage collector's
    permanent generation, for every round, both sides alike."""
    warm = warm or fn  # a shorter run warms up as well: tracing and thread pools do not scale with steps
    warm(False), warm(not aa)  # warm-up: tracing, thread pools, the probe's first install
    if freeze:
        gc.collect()
        gc.freeze()
    out: dict[str, list[float]] = {"report": []}
    for key, _ in MEASURES:
        out[key], out[f"{key}_off"], out[f"{key}_on"] = [], [], []
    for r in range(rounds):
        pair = {}
        for side in (("on", "off") if r % 2 else ("off", "on")):
            pair[side] = fn(side == "on" and not aa)
        off, on = pair["off"], pair["on"]
        for key, _ in MEASURES:
            a, b = getattr(off, key), getattr(on, key)
            out[f"{key}_off"].append(a)
            out[f"{key}_on"].append(b)
            out[key].append(100 * (b / a - 1) if a > 0 else 0.0)
        out["report"].append(on.report)
    if freeze:
        gc.unfreeze()
    return out


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--steps", type=int, default=400, help="steps of the fast custom loop per run"
                    " (the py_function loop runs a quarter, fit half)")
    ap.add_argument("--cases", default="loop,pyfunc,fit", help="comma-separated: loop, pyfunc, fit")
    ap.add_argument("--warmup-steps", type=int, default=0, help="steps of each warm-up run (default: --steps);"
                    " long runs (the account at its default 60 s) need no warm-up of their length")
    ap.add_argument("--aa", action="store_true", help="both sides without the probe: the noise floor")
    ap.add_argument("--freeze", action="store_true", help="gc.freeze() after each case's warm-up (both"
                    " sides alike): garbage collections no longer walk TensorFlow's heap, less noise")
    ap.add_argument("--micro", action="store_true", help="only the per-step and per-call cost figures")
    ap.add_argument("--fit-micro", action="store_true", help="only the probe's cost per Keras fit step on the"
                    " training thread: its callback alone, then inside real fit runs (--steps, --rounds runs"
                    " per side; the running account on under --every)")
    ap.add_argument("--every", type=float, default=0.0, metavar="S",
                    help="the probed side keeps the running account, an interval every S seconds (issue 30)")
    a = ap.parse_args()
    global EVERY
    EVERY = a.every
    print(f"load average (1, 5, 15 min) at start: {_load()} on {os.cpu_count()} CPUs", flush=True)
    if a.fit_micro:
        import keras
        model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8), keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        steps = max(1, a.steps // 2)
        _, sample_ms, _ = per_step_cost()
        print(f"the probe's bookkeeping per fit step, its callback alone (the least disturbed of 7 runs of"
              f" 50000 steps, no model read): {fit_step_cost():.2f} µs of training-thread CPU; plus one"
              f" model read per 50 steps ({sample_ms:.3f} ms each here)", flush=True)
        if a.freeze:
            gc.collect()
            gc.freeze()
        c = fit_step_cost_in_fit(model, steps, a.rounds)
        print(f"in fit ({a.rounds} runs of {steps} steps per side{f', running account every {EVERY:g} s' if EVERY else ''}):"
              f" {c['inside']:.2f} µs per step of training-thread CPU inside the probe's on_train_batch_begin"
              f" ({c['account']:.2f} of it in the running account's intervals: {c['intervals']:.1f} per run,"
              f" {c['interval_ms']:.1f} ms each; less {c['clocking']:.2f} µs of"
              f" clocking, measured on an empty callback); the whole fit {c['off']:.1f} -> {c['on']:.1f} µs per"
              f" step (median of {a.rounds} runs)")
        print(f"load average at end: {_load()}")
        return
    cost = timer_cost()
    tick_us, sample_ms, align_ms = per_step_cost()
    micro = (f"probe bookkeeping per custom-loop step: {tick_us:.1f} µs; one get_model_proto read (kept raw):"
             f" {sample_ms:.3f} ms (a custom loop's reads are held to 0.5% of its wall time and of its thread's CPU); aligning one"
             f" read at report time: {align_ms:.3f} ms;\n"
             f"a Python stage's call: {cost['bare']:.2f} µs bare, {cost['wrapped']:.2f} µs through the"
             f" probe's timer: the timer's own cost {cost['own']:+.2f} µs per call on average"
             f" (a clocked call {cost['clocked']:.2f} µs, the first {pytimer.FIRST} then 1 in {pytimer.EVERY};"
             f" a schedstat read {cost['schedstat']:.2f} µs, on one clocked call in {pytimer.SCHED_EVERY})")
    if a.micro:
        print(micro)
        print(f"load average at end: {_load()}")
        return
    wanted = [c.strip() for c in a.cases.split(",") if c.strip()]
    model = None
    if "fit" in wanted:
        import keras
        model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8), keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    def runs(steps):
        return {"loop": lambda p: run_loop(fast, steps, p),
                "pyfunc": lambda p: run_loop(slow, max(1, steps // 4), p),
                "fit": lambda p: run_fit(fast, max(1, steps // 2), p, model)}
    names = {"loop": "fast pipeline, custom loop", "pyfunc": "py_function pipeline, custom loop",
             "fit": "fast pipeline, Keras fit"}
    timed, warming = runs(a.steps), runs(a.warmup_steps or a.steps)
    cases = {k: (names[k], timed[k]) for k in names}
    unknown = [c for c in wanted if c not in cases]
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(cases)}")
    _, _, coverage = median_ci([0.0] * a.rounds)
    print(f"{'A/A (no probe on either side: the noise floor)' if a.aa else 'probe off vs on'}; {a.rounds} paired"
          f" rounds per case, ABBA order, {a.steps} steps{f' (warm-up {a.warmup_steps})' if a.warmup_steps else ''}{'; gc.freeze() after warm-up' if a.freeze else ''}")
    print(f"overhead per round = on/off - 1; median [order-statistic {100 * coverage:.1f}% CI of the median]"
          f" (IQR), read against {GOAL:g}%")
    for key in wanted:
        name, fn = cases[key]
        m = measure(fn, a.rounds, a.aa, a.freeze, warming[key])
        med = {k: 1000 * statistics.median(v) for k, v in m.items() if k.endswith(("_off", "_on"))}
        print(f"\n{name}: wall {med['wall_off']:.1f} -> {med['wall_on']:.1f} ms/run, training thread CPU"
              f" {med['thread_off']:.1f} -> {med['thread_on']:.1f} ms, process CPU {med['cpu_off']:.1f} ->"
              f" {med['cpu_on']:.1f} ms" + ("" if a.aa else f"; once at the job's end (not in these runs):"
                                             f" {1000 * statistics.median(m['report']):.1f} ms"))
        for measure_key, label in MEASURES:
            print(f"  {label:20} {_summary(m[measure_key])}", flush=True)
        if FLUSHES:
            print(f"  running account: {len(FLUSHES)} flushes in the probed runs, median "
                  f"{1000 * statistics.median(FLUSHES):.1f} ms each (max {1000 * max(FLUSHES):.1f} ms): report built, "
                  f"line logged, JSON and HTML written on the training thread")
            FLUSHES.clear()
    print(f"\nload average at end: {_load()}\n{micro}")


if __name__ == "__main__":
    main()
