"""What the probe keeps per training step: nothing that grows with the steps but typed arrays.

Counted, not timed: tracemalloc's count of live memory blocks allocated from pipelint's own code.
An object kept per step (a timeline point, a float in a list) adds one block or more per step; a
typed array that grows adds none (its one buffer is reallocated). Objects made and freed within a
step are not counted; they never reach the garbage collector's count either.
"""
import os
import tracemalloc

import pytest

import pipelint
from pipelint.profiler.run.session import IterRecord, Pipeline, Session

PIPELINT_DIR = os.path.dirname(os.path.abspath(pipelint.__file__))


def _blocks_kept_by_pipelint() -> int:
    snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, os.path.join(PIPELINT_DIR, "*"))])
    return sum(stat.count for stat in snap.statistics("filename"))


def _kept_per_step(run, first: int, more: int) -> float:
    """Blocks kept per step over `more` steps, after `first` steps of warm-up (lists sized, arrays
    allocated, the timeline coarsened at least once)."""
    tracemalloc.start()
    try:
        run(first)
        before = _blocks_kept_by_pipelint()
        run(more)
        after = _blocks_kept_by_pipelint()
    finally:
        tracemalloc.stop()
    return (after - before) / more


class _Iterator:
    """Stands for a tf.data iterator: the record only holds a weak reference to it."""


def test_a_custom_loop_step_keeps_no_object():
    session = Session(sample_every=50, live_warnings=False)
    it = _Iterator()
    rec = IterRecord(session, Pipeline(1, None, session), it)
    session.iter_records.append(rec)
    del it  # gone: the scheduled model reads find no iterator and read nothing (no TensorFlow here)
    clock = [0.0]

    def run(steps):
        for _ in range(steps):
            t0 = clock[0] + 0.001
            clock[0] = t1 = t0 + 0.0005
            rec.tick(t0, t1)

    # 6000 steps fill the timeline past its 4000 points once: coarsening is part of what is measured.
    assert _kept_per_step(run, 6000, 20000) < 0.001
    assert rec.stats.steps == 26000 - IterRecord.WARMUP
    timeline = session.timelines.primary()  # the steps reach the timeline when it is read
    assert sum(timeline.to_dict()["steps_per_point"]) == 26000 and len(timeline) <= timeline.max_points


def test_a_fit_step_keeps_no_object():
    session = Session(sample_every=50, live_warnings=False)
    session.fit_begin()
    session.fit_epoch_begin()
    session.fit_first_batch()
    clock = [0.0]

    def run(steps):
        for _ in range(steps):
            clock[0] += 0.002
            session.fit_step(clock[0], 0.002)

    assert _kept_per_step(run, 6000, 20000) < 0.001
    session.fit_end()
    assert session.fit.stats.steps == 26000


def test_a_tf_data_loop_through_the_hooks_keeps_no_object_per_step():
    pytest.importorskip("tensorflow")
    import tensorflow as tf

    from pipelint.profiler.run.install import install, uninstall

    session = install(Session(sample_every=50, live_warnings=False))
    try:
        it = iter(tf.data.Dataset.range(10**9).prefetch(2))

        def run(steps):
            for _ in range(steps):
                next(it)

        # Model reads every 50 steps are kept raw (one small record each) until the report: a
        # fiftieth of a block per step at most, against several per step for an object per step.
        assert _kept_per_step(run, 2000, 6000) < 0.05
    finally:
        uninstall(session, force=True)
    assert session.iter_records[-1].stats.steps == 8000 - IterRecord.WARMUP


def test_reads_are_aligned_and_the_chain_described_only_when_a_reader_asks():
    tf = pytest.importorskip("tensorflow")
    from pipelint.profiler.measure.stages import merge
    from pipelint.profiler.run import session as session_mod
    from pipelint.profiler.run.install import install, uninstall

    def stages(align_each_read: bool, monkeypatch_target):
        # Aligning each read as it is taken (the old way) and all of them at the end must agree.
        monkeypatch_target.setattr(session_mod, "MAX_UNALIGNED_READS", 0 if align_each_read else 10**6)
        s = install(Session(sample_every=10, live_warnings=False))
        try:
            ds = tf.data.Dataset.range(400).map(lambda i: i * 2, num_parallel_calls=2).batch(4)
            for _ in ds:
                pass
            (pipe,) = s.pipelines.values()
            if not align_each_read:
                assert pipe._reads and not pipe._snapshots  # raw until asked
                assert not pipe.described and pipe._dataset is ds  # held, not walked yet
        finally:
            uninstall(s, force=True)
        assert pipe.described and pipe._dataset is None  # the session's end describes and lets go
        return [(st.op.op, st.kind, st.elements, st.outputs, st.consumed)
                for st in merge(list(pipe.snapshots.values()))]

    with pytest.MonkeyPatch.context() as mp:
        deferred = stages(False, mp)
        each = stages(True, mp)
    assert deferred == each
    assert ("range", "range", 400, 400, 0) in deferred


def test_a_loops_timeline_is_fed_from_its_steps_as_if_added_one_by_one():
    session = Session(sample_every=50, live_warnings=False)
    pipe = Pipeline(1, None, session)
    ends: list[float] = []
    clock = 100.0
    for _epoch in range(2):  # two passes over one pipeline; the iterators gone (no model to read)
        rec = IterRecord(session, pipe, _Iterator())
        session.iter_records.append(rec)
        for i in range(5):
            t0 = clock + 0.004
            clock = t1 = t0 + 0.001 * (i + 1)
            rec.tick(t0, t1)
            ends.append(t1)
    assert not session.timelines.loops  # nothing handed over on the training thread
    session.timelines.attach(lambda tl, pts: None)  # an output that wants every step (TensorBoard)
    _fit, loop = session.timelines.every()
    drained = loop.drain()
    assert [p.end for p in drained] == pytest.approx(ends, abs=1e-9)
    d = session.timelines.primary().to_dict()
    assert d["step"] == list(range(1, 11)) and d["epoch_starts"] == [1, 6]
    assert d["warmup"] == [True, True, False, False, False] * 2  # each iterator's first WARMUP ticks
    assert d["input_wait_ms"] == pytest.approx([1.0, 2.0, 3.0, 4.0, 5.0] * 2)
    assert d["step_ms"] == pytest.approx([1.0, 6.0, 7.0, 8.0, 9.0] * 2)  # the first: its wait only


def test_a_sink_that_reads_the_timelines_while_they_are_fed_gets_each_step_once():
    session = Session(sample_every=10**9, live_warnings=False)
    rec = IterRecord(session, Pipeline(1, None, session), _Iterator())
    session.iter_records.append(rec)
    for i in range(1, 51):
        rec.tick(float(2 * i), float(2 * i + 1))
    got = []

    def sink(timeline, points):  # what the TensorBoard output does: it asks which timeline is primary
        session.timelines.primary()
        got.extend(points)
    session.timelines.attach(sink)
    session.timelines.primary()  # feeds the loop's timeline...
    session.timelines.loops[1].max_unsent = 10  # ...which hands its points over in tens
    rec.tick(102.0, 103.0)
    session.timelines.every()
    got += session.timelines.loops[1].drain()
    assert [p.end for p in got] == pytest.approx([float(2 * i + 1) for i in range(1, 52)])


def test_a_fit_step_on_the_training_thread_is_an_append_and_the_steps_are_taken_at_events(monkeypatch):
    """The callback records each batch's begin time; the session takes the steps in a batch, at the
    steps that have something to do (the epoch's first batch, early reads at 1, 2, 4, ..., a flush
    every `sample_every` steps), with the figures one call per step gave."""
    pytest.importorskip("keras")
    from pipelint.profiler.run import callback as callback_mod
    from pipelint.profiler.run.callback import PipelineProfiler

    clock = [100.0]
    monkeypatch.setattr(callback_mod, "_perf_counter", lambda: clock[0])
    session = Session(sample_every=10, live_warnings=False)
    reads, events = [], []
    monkeypatch.setattr(session, "_read_fit_gaps",
                        lambda budgeted=False: reads.append((session.fit.steps, budgeted)) or [1000] * 100)
    fit_event = session.fit_event
    monkeypatch.setattr(session, "fit_event", lambda now: events.append(len(session.fit.ends)) or fit_event(now))
    cb = PipelineProfiler(session=session)
    cb.on_train_begin()
    cb.on_epoch_begin(0)
    steps = [0.002 + 0.0001 * (i % 7) for i in range(35)]
    for i, step in enumerate(steps):
        cb.on_train_batch_begin(i)
        clock[0] += step
        if i == 14:  # a reader mid-window (the report, TensorBoard) sees every step ended so far
            mid = session.timelines.primary().to_dict()
            assert mid["step"] == list(range(1, 15)) and mid["input_wait_ms"][-4:] == [None] * 4
    cb.on_epoch_end(0)
    cb.on_train_end()
    assert len(events) == 8  # the first batch, steps 1, 2, 4, 8, then 10, 20, 30: not one per step
    assert reads == [(1, True), (2, True), (4, True), (8, True), (10, False), (20, False), (30, False),
                     (34, False), (34, False)]  # ... and the epoch's and fit's ends
    # The last batch's step holds the epoch's end (validation): it is no step.
    assert list(session.fit.stats.step) == pytest.approx(steps[:34], abs=1e-9)
    d = session.timelines.fit.to_dict()
    assert d["step"] == list(range(1, 35)) and None not in d["input_wait_ms"]
    assert d["step_ms"] == pytest.approx([1000 * s for s in steps[:34]], abs=1e-6)
