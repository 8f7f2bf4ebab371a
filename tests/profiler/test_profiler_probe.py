"""The probe in code: same elements, custom-loop timing, failure isolation, hooks restored."""
import logging
import time

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from tensorflow.python.data.ops import dataset_ops  # noqa: E402

import pipelint.profiler as profiler  # noqa: E402
from pipelint.profiler.output.report import build_report  # noqa: E402
from pipelint.profiler.run.install import install, uninstall  # noqa: E402
from pipelint.profiler.run.session import Session  # noqa: E402


def _elements(ds):
    return [tf.nest.map_structure(lambda t: t.numpy(), e) for e in ds]


def _assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        tf.nest.map_structure(np.testing.assert_array_equal, x, y)


def _pipeline():
    ds = tf.data.Dataset.range(50)
    ds = ds.shuffle(16, seed=3).map(lambda i: (i, tf.cast(i, tf.float32) * 0.5), num_parallel_calls=2,
                                    deterministic=True)
    ds = ds.map(lambda i, f: (i, tf.numpy_function(lambda v: v + 1, [f], tf.float32)))
    return ds.batch(4).prefetch(2)


@pytest.fixture
def session():
    s = install(Session(sample_every=5, warn_every=5))
    yield s
    uninstall(s, force=True)


def test_probe_yields_same_elements_in_same_order(session):
    ref = _pipeline()
    expected = [_elements(ref), _elements(ref)]  # the seeded shuffle reshuffles each epoch
    probed = profiler.probe(_pipeline())
    _assert_same(_elements(probed), expected[0])
    _assert_same(_elements(probed), expected[1])


def test_custom_loop_is_timed_and_mapped_to_source(session):
    ds = profiler.probe(_pipeline())
    for _ in range(3):
        for _batch in ds:
            pass
    r = build_report(session)
    assert r["steps"] > 0 and r["step_source"] == "loop"
    assert r["verdict"] in ("input-bound", "balanced", "model-bound")
    ops = [s["op"] for s in r["stages"]]
    assert "shuffle" in ops and "range" in ops
    assert all(s["source"] and s["source"]["path"] == __file__ for s in r["stages"]
               if "tf.data" not in s["name"])


def test_hooks_are_restored():
    before = (dataset_ops.DatasetV2.__dict__["map"], dataset_ops.DatasetV2.__dict__["__iter__"],
              dataset_ops.DatasetV2.__dict__["range"])
    s = install(Session())
    assert dataset_ops.DatasetV2.__dict__["map"] is not before[0]
    uninstall(s)
    after = (dataset_ops.DatasetV2.__dict__["map"], dataset_ops.DatasetV2.__dict__["__iter__"],
             dataset_ops.DatasetV2.__dict__["range"])
    assert after == before


def test_get_model_proto_failure_is_logged_once_and_training_continues(session, monkeypatch, caplog):
    def boom(_it):
        raise RuntimeError("no model for you")
    monkeypatch.setattr(tf.data.experimental, "get_model_proto", boom)
    ref = _pipeline()
    expected = [_elements(ref), _elements(ref)]
    with caplog.at_level(logging.WARNING, logger="pipelint"):
        ds = profiler.probe(_pipeline())
        got1, got2 = _elements(ds), _elements(ds)
    _assert_same(got1, expected[0])
    _assert_same(got2, expected[1])
    msgs = [r.getMessage() for r in caplog.records if r.name == "pipelint"]
    assert len(msgs) == 1 and "get_model_proto" in msgs[0]
    assert session.disabled
    r = build_report(session)  # still reports what it could
    assert "no model for you" in r["probe_errors"][0]


def test_hook_failure_inside_keras_fit_does_not_stop_training(session, monkeypatch):
    import keras
    monkeypatch.setattr(tf.data.experimental, "get_model_proto",
                        lambda it: (_ for _ in ()).throw(ValueError("broken")))
    x = np.random.rand(64, 4).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(8)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    hist = model.fit(ds, epochs=2, verbose=0, callbacks=[profiler.PipelineProfiler(sample_every=2)])
    assert len(hist.history["loss"]) == 2
    assert session.disabled


def test_keras_callback_on_its_own_reports(capsys):
    import keras
    x = np.random.rand(256, 4).astype("float32")
    cb = profiler.PipelineProfiler(sample_every=4, report=False)
    ds = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(8)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(ds, epochs=2, verbose=0, callbacks=[cb])
    r = cb.result
    assert r["step_source"] == "keras" and r["steps"] >= 50
    assert r["verdict"] != "unknown" and r["stages"]
    assert dataset_ops.DatasetV2.__dict__["__iter__"].__module__.startswith("tensorflow")


def _python_map(cost, line_holder=None):
    import time

    def load(i):
        cost()
        return i

    ds = tf.data.Dataset.range(48)
    ds = ds.map(lambda i: tf.numpy_function(load, [i], tf.int64)); line = _line()  # noqa: E702
    if line_holder is not None:
        line_holder.append(line)
    return ds.batch(4).prefetch(2), time


def _line():
    import inspect
    return inspect.currentframe().f_back.f_lineno


def _sleep():
    import time
    time.sleep(0.002)


def _spin():
    import time
    end = time.perf_counter() + 0.002
    while time.perf_counter() < end:
        pass


@pytest.mark.parametrize("cost, work", [(_sleep, "waits"), (_spin, "computes")])
def test_python_stage_is_timed_and_told_waiting_from_computing(session, cost, work):
    ds, _ = _python_map(cost)
    for _ in ds:
        pass
    r = build_report(session)
    st = next(s for s in r["stages"] if s["python"])
    assert st["python"]["calls"] == 48 and st["work"] == work
    assert 1.8 < st["python"]["wall_ms_per_call"] < 20
    assert st["source"]["path"] == __file__


def test_verification_fix_sets_the_parallelism_of_the_map_at_its_line_and_step_limit_stops():
    lines = []
    _python_map(_sleep, lines)  # learn the line of the map call
    s = install(Session(max_steps=6, fixes={"map_parallelism": {"path": __file__, "line": lines[0],
                                                                "num_parallel_calls": 3}}))
    try:
        from pipelint.profiler.run.session import StepLimitReached
        ds, _ = _python_map(_sleep)
        with pytest.raises(StepLimitReached):
            for _ in ds:
                pass
        r = build_report(s)
    finally:
        uninstall(s, force=True)
    st = next(x for x in r["stages"] if x["python"])
    assert st["parallelism"] == 3 and st["parallelism_source"] == "set"
    assert r["steps"] + r["warmup_steps_excluded"] == 6


def test_a_fast_loops_model_reads_stay_within_their_budget_and_lose_nothing(monkeypatch):
    from pipelint.profiler.run import session as session_mod
    reads = []
    real = tf.data.experimental.get_model_proto

    def counted(it):
        start = time.perf_counter()
        try:
            return real(it)
        finally:
            reads.append(time.perf_counter() - start)
    monkeypatch.setattr(tf.data.experimental, "get_model_proto", counted)
    s = install(Session(sample_every=5, live_warnings=False))
    try:
        ds = tf.data.Dataset.range(3000).map(lambda i: i * 2).batch(1)
        got = [int(b[0]) for b in ds]
        r = build_report(s)
    finally:
        uninstall(s, force=True)
    assert got == [2 * i for i in range(3000)]
    # Every 5 steps would be ~600 reads: the budget keeps them to a share of the wall time. Past it
    # go the first read, the ones at the iterator's and the session's end, and the last budgeted
    # read's own length (the budget is checked before a read): at most the four longest reads, so
    # a read slowed by a busy machine does not fail the test.
    assert len(reads) < 300
    assert s.read_s <= session_mod.READ_BUDGET * (s.t_end - s.t_start) + sum(sorted(reads)[-4:])
    # The counters are cumulative: the read at the end still sees every element.
    assert next(st for st in r["stages"] if st["op"] == "range")["elements"] == 3000
