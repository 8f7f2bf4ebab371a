"""Issue 17 on real pipelines: tf.data's default rewrites read from the running graph, in `fit` and
in a custom loop, and the waiting shapes priced as the stage model says.

Costs dominate noise: the waiting stages sleep 2-3 ms per element (tens of ms per batch) while
the probe's own costs are microseconds, so the verdicts and actions cannot flip with load.
"""
import inspect
import time

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from pipelint.profiler.run.install import install, uninstall  # noqa: E402
from pipelint.profiler.output.report import build_report  # noqa: E402
from pipelint.profiler.run.session import Session  # noqa: E402

X = np.zeros((96, 4), np.float32)
Y = np.zeros((96, 1), np.float32)


def _line() -> int:
    return inspect.currentframe().f_back.f_lineno


def _consume(ds, consumer: str) -> None:
    if consumer == "loop":
        for _ in range(2):  # two epochs
            for _batch in ds:
                pass
    else:
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        model.fit(ds, epochs=2, verbose=0)


def _report(build, consumer):
    session = install(Session(sample_every=4, live_warnings=False))
    try:
        ds, lines = build()
        _consume(ds, consumer)
    finally:
        uninstall(session, force=True)
    return build_report(session), lines


def _stage(report, op):
    return next(s for s in report["stages"] if s["op"] == op)


def map_and_batch_fusion():
    ds = tf.data.Dataset.from_tensor_slices((X, Y)); first = _line()  # noqa: E702
    ds = ds.map(lambda x, y: (x * 2.0, y), num_parallel_calls=2); at = _line()  # noqa: E702
    return ds.batch(8).prefetch(2), {"map": at, "source": first}


def map_parallelization():
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(8)
    ds = ds.map(lambda x, y: (x + 1.0, y)); at = _line()  # noqa: E702 - no num_parallel_calls: TF makes it parallel
    return ds, {"map": at}


def inject_prefetch():
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(8); at = _line()  # noqa: E702 - no prefetch written
    return ds, {"batch": at}


def noop_elimination():
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).repeat(1).take(-1)  # both removed by TF
    ds = ds.batch(8); at = _line()  # noqa: E702
    return ds.prefetch(2), {"batch": at}


def shuffle_and_repeat_fusion():
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(16, seed=1).repeat(2); at = _line()  # noqa: E702
    return ds.batch(8).prefetch(2), {"shuffle": at}


@pytest.mark.parametrize("consumer", ["loop", "fit"])
@pytest.mark.parametrize("build", [map_and_batch_fusion, map_parallelization, inject_prefetch, noop_elimination,
                                   shuffle_and_repeat_fusion], ids=lambda f: f.__name__)
def test_each_default_rewrite_is_read_from_the_running_graph(build, consumer):
    r, lines = _report(build, consumer)
    assert r["stages"], r
    here = __file__
    if build is map_and_batch_fusion:
        st = _stage(r, "map+batch")
        assert st["tf_nodes"] == ["MapAndBatch"] and st["source"] == {"path": here, "line": lines["map"]}
        assert st["fused_with"]["op"] == "batch" and st["parallelism"] == 2 and st["parallelism_source"] == "set"
        # Elements in, batches out: per batch is 8 elements' work, not one element's.
        assert st["work_per_batch_ms"] == pytest.approx(8 * st["time_per_element_ms"], rel=0.05)
    elif build is map_parallelization:
        st = _stage(r, "map")
        assert st["tf_nodes"] == ["ParallelMapV2"] and st["parallelism_source"] == "autotune"
        assert st["source"]["line"] == lines["map"]
    elif build is inject_prefetch:
        added = _stage(r, "prefetch")
        assert added["added_by"] == "tf.data optimizer" and added["source"] is None
        assert _stage(r, "batch")["source"]["line"] == lines["batch"]
    elif build is noop_elimination:
        assert not [s for s in r["stages"] if s["op"] in ("repeat", "take")]
        assert _stage(r, "batch")["source"]["line"] == lines["batch"]
    else:
        st = _stage(r, "shuffle+repeat")
        assert st["tf_nodes"] == ["ShuffleAndRepeat"] and st["source"]["line"] == lines["shuffle"]


WAIT_MS = 2.5


def _read(i):
    time.sleep(WAIT_MS / 1000)  # an I/O-like read: the thread waits, no CPU
    return np.float32(i)


def _waiting(i):
    x = tf.py_function(_read, [i], tf.float32)
    x.set_shape([])
    return tf.reshape(x, [1]), tf.reshape(x, [1])


def test_custom_loop_over_a_fused_waiting_map_gets_more_threads_than_cores():
    # The first shape: ds.map(f).batch(n), f waits; fused to one MapAndBatch, parallelism 1.
    session = install(Session(sample_every=4, live_warnings=False))
    try:
        ds = tf.data.Dataset.range(10**5).map(_waiting).batch(16); at = _line()  # noqa: E702
        for step, _batch in enumerate(ds):
            if step == 14:
                break
            time.sleep(0.003)  # the loop's own step
    finally:
        uninstall(session, force=True)
    r = build_report(session)
    st = _stage(r, "map+batch")
    assert st["work"] == "waits" and st["parallelism"] == 1
    assert st["work_per_batch_ms"] > 10 * st["time_per_element_ms"]  # 16 elements per batch, not 1
    top = r["suggestions"][0]
    assert top["code"] == "PL101" and top["source"]["line"] == at
    n = top["fix"]["map_parallelism"]["num_parallel_calls"]
    assert n > r["environment"]["cpus"] and top["fix"]["threadpool_size"] == n
    assert top["expected_speedup"] > 3  # 16 x 2.5 ms of waiting per 3 ms step
    assert r["py_function_overhead_ms"] is not None and r["py_function_overhead_ms"] > 0


def test_fit_with_a_waiting_map_at_the_core_count_gets_more_threads_than_cores():
    session = install(Session(sample_every=4, live_warnings=False))
    try:
        cores = len(__import__("os").sched_getaffinity(0))
        ds = tf.data.Dataset.range(10**5).map(_waiting, num_parallel_calls=cores).batch(16).prefetch(2)
        model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        model.fit(ds, epochs=1, steps_per_epoch=14, verbose=0)
    finally:
        uninstall(session, force=True)
    r = build_report(session)
    top = r["suggestions"][0]
    assert top["code"] == "PL101" and top["action"] == "parallelize"  # not "already parallel"
    assert top["fix"]["map_parallelism"]["num_parallel_calls"] > cores
    assert top["expected_speedup"] > 2


def test_the_cache_fix_of_a_verification_run_yields_the_same_elements():
    def build():
        ds = tf.data.Dataset.range(40).map(lambda i: i * 3); at = _line()  # noqa: E702
        return ds.batch(4), at
    expected = [b.numpy().tolist() for b in build()[0]]
    _, at = build()
    session = install(Session(fixes={"cache_after": {"path": __file__, "line": at}}))
    try:
        ds, _ = build()
        assert "cache" in [op.op for op in session.chain_of(ds)]
        got = [[b.numpy().tolist() for b in ds] for _ in range(2)]
    finally:
        uninstall(session, force=True)
    assert got == [expected, expected]
