"""The per-step timeline: what it keeps, how it coarsens a long run, what it hands to TensorBoard."""
from pipelint.profiler.measure.timeline import Timeline


def test_steps_epochs_and_warmup_are_kept():
    tl = Timeline()
    tl.begin_epoch()
    tl.add(0.5, 0.1, warmup=True)
    tl.add(0.010, 0.004)
    tl.begin_epoch()
    tl.add(0.020, None)
    d = tl.to_dict()
    assert d["step"] == [1, 2, 3]
    assert d["step_ms"] == [500.0, 10.0, 20.0]
    assert d["input_wait_ms"] == [100.0, 4.0, None]
    assert d["warmup"] == [True, False, False]
    assert d["epoch_starts"] == [1, 3]
    assert d["wait_source"] == "measured"


def test_explicit_step_numbers_leave_gaps():
    tl = Timeline(wait_source="estimated")
    tl.add(0.01, 0.0, number=2)
    tl.begin_epoch()
    tl.add(0.01, 0.0, number=7)
    d = tl.to_dict()
    assert d["step"] == [2, 7] and d["epoch_starts"] == [2, 3]


def test_long_runs_are_coarsened_keeping_totals_and_shape():
    tl = Timeline(max_points=100)
    for i in range(1, 1001):
        tl.add(0.001 * (2 if i > 500 else 1), 0.0005, warmup=i <= 2)
    d = tl.to_dict()
    assert len(d["step"]) <= 100
    assert sum(d["steps_per_point"]) == 1000
    total_ms = sum(ms * n for ms, n in zip(d["step_ms"], d["steps_per_point"]))
    assert abs(total_ms - (500 * 1 + 500 * 2)) < 0.05  # means are rounded to 0.1 µs
    assert d["step"][-1] == 1000
    assert d["step_ms"][0] == 1.0 and d["step_ms"][-1] == 2.0  # the shape survives
    assert not any(d["warmup"])  # merged points are warm-up only when all their steps were


def test_drain_gives_full_resolution_points_once():
    tl = Timeline(max_points=10, max_unsent=1000)
    tl.attach(lambda pts: None)
    for _ in range(50):
        tl.add(0.01, 0.002)
    pts = tl.drain()
    assert len(pts) == 50 and all(p.n == 1 for p in pts)
    assert tl.drain() == []


def test_sink_takes_points_when_nobody_drains():
    got = []
    tl = Timeline(max_unsent=20)
    tl.attach(got.extend)
    for _ in range(45):
        tl.add(0.01, 0.002)
    assert len(got) == 40 and len(tl.drain()) == 5
