"""The Python-stage timer: sampled totals agree with exact ones, busy fractions read right, no fd
is left behind, and the elements a stage yields are the same with the probe as without it."""
import os
import sys
import threading
import time

import pytest

from pipelint.profiler.measure import pytimer
from pipelint.profiler.measure.pytimer import EVERY, FIRST, PyTimer, timed_call, timed_generator, weight


def test_the_first_calls_are_all_clocked_then_one_in_every():
    assert [weight(n) for n in range(1, FIRST + 1)] == [1] * FIRST
    after = [weight(n) for n in range(FIRST + 1, FIRST + 3 * EVERY + 1)]
    assert after == ([EVERY] + [0] * (EVERY - 1)) * 3
    # The clocked calls stand for every call once a block of EVERY is complete.
    n = FIRST + 5 * EVERY
    assert sum(weight(i) for i in range(1, n + 1)) == n


def _costly(cost_of):
    """A function whose n-th call sleeps cost_of(n) seconds and records how long it really took."""
    exact: list[float] = []

    def f(x):
        t0 = time.perf_counter()
        time.sleep(cost_of(len(exact) + 1))
        exact.append(time.perf_counter() - t0)
        return x
    return f, exact


def test_sampled_totals_agree_with_exact_ones():
    # Costly first calls (as tracing and cold caches make them) and cheap later ones: an unweighted
    # mean over the clocked calls would count the first calls 16 times too often (about +50% here).
    f, exact = _costly(lambda n: 0.006 if n <= FIRST else 0.002)
    timer = PyTimer()
    g = timed_call(f, timer)
    calls = FIRST + 20 * EVERY
    assert [g(i) for i in range(calls)] == list(range(calls))
    assert timer.calls == calls and timer.timed == calls and timer.clocked == FIRST + 20
    assert timer.total_wall == pytest.approx(sum(exact), rel=0.08)
    assert timer.wall_per_call == pytest.approx(sum(exact) / calls, rel=0.08)
    assert timer.busy_fraction < 0.2  # sleeping


def test_a_generators_elements_and_count_are_unchanged():
    timer = PyTimer()
    make = timed_generator(lambda k: iter(range(k)), timer)
    assert list(make(100)) == list(range(100))
    assert timer.calls == 100  # the end of the generator is not a call
    assert timer.timed >= 100 and timer.clocked == FIRST + -(-(100 - FIRST) // EVERY)


def test_the_timers_own_cost_per_call_is_small():
    # The unclocked path is one addition and one test: far under a microsecond over a bare call on
    # any machine; a loose bound, so that a loaded test machine cannot fail it.
    timer = PyTimer()
    g = timed_call(lambda v: v, timer)
    n = 50_000
    t0 = time.perf_counter()
    for i in range(n):
        g(i)
    per_call_us = (time.perf_counter() - t0) / n * 1e6
    assert timer.calls == n
    assert per_call_us < 20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="schedstat and /proc/self/fd are Linux's")
def test_reading_the_run_queue_leaves_no_file_open():
    fds = lambda: len(os.listdir("/proc/self/fd"))  # noqa: E731
    assert pytimer.run_queue_seconds() is not None
    before = fds()

    def work():
        timer = PyTimer()
        g = timed_call(lambda v: v, timer)
        for i in range(200):  # clocked calls, half of them reading schedstat
            g(i)
        for _ in range(50):
            pytimer.run_queue_seconds()
    # Many short-lived threads: a file kept per thread would stay open once its thread ended.
    for _ in range(20):
        threads = [threading.Thread(target=work) for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert fds() <= before


def _spin_2ms():
    end = time.perf_counter() + 0.002
    while time.perf_counter() < end:
        pass


@pytest.fixture
def tf():
    return pytest.importorskip("tensorflow")


def _py_stage(tf, cost, n):
    def load(i):
        cost()
        return i * 3
    return tf.data.Dataset.range(n).map(lambda i: tf.numpy_function(load, [i], tf.int64))


def _probed_report(tf, make):
    from pipelint.profiler.output.report import build_report
    from pipelint.profiler.run.install import install, uninstall
    from pipelint.profiler.run.session import Session
    session = install(Session(sample_every=10, live_warnings=False))
    try:
        ds = make()
        got = [int(x) for x in ds]
        report = build_report(session)
    finally:
        uninstall(session, force=True)
    return got, report


@pytest.mark.tensorflow
@pytest.mark.parametrize("cost, low, high", [(lambda: time.sleep(0.002), 0.0, 0.2), (_spin_2ms, 0.7, 1.0)],
                         ids=["sleeping", "spinning"])
def test_busy_fraction_of_a_sleeping_and_a_spinning_py_function_stage(tf, cost, low, high):
    n = FIRST + 6 * EVERY
    got, report = _probed_report(tf, lambda: _py_stage(tf, cost, n))
    assert got == [3 * i for i in range(n)]
    st = next(s for s in report["stages"] if s["python"])
    assert st["python"]["calls"] == n
    assert low <= st["python"]["cpu_fraction"] <= high, st["python"]
    assert 1.8 < st["python"]["wall_ms_per_call"] < 20


@pytest.mark.tensorflow
def test_sampling_leaves_a_pipelines_elements_unchanged(tf):
    n = FIRST + 10 * EVERY + 7  # a partial block at the end

    def gen():
        for i in range(n):
            yield i * 7

    def load(v):
        return v + 3 * (v // 7)

    def make():  # a generator, then a Python map: both stages sampled, in one chain
        ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64))
        ds = ds.map(lambda v: tf.numpy_function(load, [v], tf.int64))
        return ds.batch(5).unbatch()

    expected = [int(x) for x in make()]
    got, report = _probed_report(tf, make)
    assert got == expected == [10 * i for i in range(n)]
    calls = sorted(s["python"]["calls"] for s in report["stages"] if s["python"])
    assert calls == [n, n]


@pytest.mark.tensorflow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd is Linux's")
def test_a_py_function_stage_leaves_no_file_open(tf):
    # tf.data's own threads enter Python afresh for each call (a new thread state, so new
    # thread-locals): a file kept per thread was opened again on every call and never closed.
    fds = lambda: len(os.listdir("/proc/self/fd"))  # noqa: E731
    before = fds()
    got, _ = _probed_report(tf, lambda: _py_stage(tf, lambda: None, 3000))
    assert got == [3 * i for i in range(3000)]
    assert fds() <= before
