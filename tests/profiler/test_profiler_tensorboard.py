"""TensorBoard output, read back with TensorBoard's own event reader."""
import pytest

pytest.importorskip("tensorboard")

from tensorboard.backend.event_processing import event_accumulator  # noqa: E402

from pipelint.profiler.output import tensorboard as tb  # noqa: E402
from pipelint.profiler.measure.timeline import Timeline  # noqa: E402

REPORT = {
    "script": "train.py", "verdict": "input-bound", "input_bound_fraction": 0.6, "step_time_ms": 10.0,
    "input_wait_ms": 6.0, "steps": 3, "step_source": "loop",
    "stages": [{"name": "map(decode)", "op": "map", "source": {"path": "/x/train.py", "line": 9},
                "elements": 24, "time_per_element_ms": 0.75, "time_per_batch_ms": 6.0, "parallelism": 1,
                "buffer_size": None, "share": 0.95},
               {"name": "Prefetch (added by tf.data)", "op": "prefetch", "source": None, "elements": 3,
                "time_per_element_ms": None, "time_per_batch_ms": 0.0, "parallelism": None,
                "buffer_size": 2, "share": 0.0}],
    "suggestions": [{"code": "PL106", "name": "py-function-in-map", "message": "rewrite | in TF ops",
                     "expected_speedup": 1.5, "action": "rewrite-tf-ops"}],
}


def _load(run_dir):
    acc = event_accumulator.EventAccumulator(str(run_dir), size_guidance={event_accumulator.TENSORS: 0})
    acc.Reload()
    return acc


def _scalars(acc, tag):
    return [(e.step, float(e.tensor_proto.float_val[0])) for e in acc.Tensors(tag)]


def test_steps_and_report_are_read_back_by_tensorboard(tmp_path):
    tl = Timeline()
    tl.attach(lambda pts: None)
    tl.add(0.8, 0.1, warmup=True)
    tl.add(0.010, 0.006)
    tl.add(0.012, 0.003)
    w = tb.Writer(tb.run_dir(str(tmp_path)))
    w.steps(tl.drain())
    w.report(REPORT, step=tl.last_step)
    w.close()
    acc = _load(tmp_path / "train")
    tags = acc.Tags()["tensors"]
    assert all(t.startswith("pipelint/") for t in tags)
    assert _scalars(acc, "pipelint/step_time_ms") == [(2, pytest.approx(10.0)), (3, pytest.approx(12.0))]
    assert _scalars(acc, "pipelint/input_wait_ms") == [(2, pytest.approx(6.0)), (3, pytest.approx(3.0))]
    assert _scalars(acc, "pipelint/input_bound_fraction") == [(2, pytest.approx(0.6)), (3, pytest.approx(0.25))]
    assert _scalars(acc, "pipelint/stage_ms_per_element/map(decode)@train.py:9") == [(3, pytest.approx(0.75))]
    assert not any("Prefetch" in t for t in tags)  # no figure, no curve
    text = acc.Tensors("pipelint/report")[0].tensor_proto.string_val[0].decode()
    assert "verdict: **input-bound**" in text and "| map(decode) | train.py:9 |" in text
    assert ": rewrite | in TF ops" in text and "action `rewrite-tf-ops`" in text
    # The dashboards know what they show: scalars plugin for curves, text plugin for the report.
    meta = {t: acc.SummaryMetadata(t).plugin_data.plugin_name for t in tags}
    assert meta["pipelint/step_time_ms"] == "scalars" and meta["pipelint/report"] == "text"


def test_unwritable_directory_switches_off_with_one_message(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    w = tb.Writer(str(blocker / "train"))
    with caplog.at_level("WARNING", logger="pipelint"):
        w.scalar("pipelint/step_time_ms", 1.0, 1)
        w.scalar("pipelint/step_time_ms", 1.0, 2)
    assert w.error and len([r for r in caplog.records if r.name == "pipelint"]) == 1


def test_points_carry_the_time_their_step_ended(tmp_path):
    import time
    tl = Timeline()
    tl.attach(lambda pts: None)
    now = time.perf_counter()
    tl.add(0.01, 0.005, end=now - 60.0)  # a step that ended a minute ago
    w = tb.Writer(tb.run_dir(str(tmp_path)))
    w.steps(tl.drain())
    w.close()
    (event,) = _load(tmp_path / "train").Tensors("pipelint/step_time_ms")
    assert abs(event.wall_time - (time.time() - 60.0)) < 5.0
