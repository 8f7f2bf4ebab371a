"""tf.data service: the probe on a pipeline that goes through `distribute` (a real localhost
dispatcher and worker, separate processes), and the saturation advice's figures."""
from __future__ import annotations

import os

import pytest

from benchmarks import data_service_scaling as bench
from pipelint.profiler.advise import service


def _cores():
    available = bench.cores()
    # One core each where there are two; the test checks what is reported, not speed.
    return available[0], (available[1:] or available[:1])


def test_probe_reports_service_stage_and_trainer_wait():
    trainer, workers = _cores()
    started = []
    with bench.cluster(1, trainer, workers, timeout=90, procs=started) as target:
        result = bench.run_trainer(trainer, target, work=2, steps=12, warmup=3, width=32, timeout=150)
    assert started and all(proc.poll() is not None for proc in started)
    report = result["report"]
    remote = report["data_service"]["remote"]
    assert remote is not None, report["data_service"]
    # what runs on the worker, with the lines that built it
    assert [s["stage"] for s in remote["stages"]] == ["batch", "map(features)", "range"]
    assert all(s["source"]["path"].endswith("data_service_scaling.py") and s["source"]["line"] > 0
               for s in remote["stages"])
    assert remote["distribute"]["path"].endswith("data_service_scaling.py")
    assert remote["trainer_wait_ms"] is not None and remote["trainer_wait_ms"] >= 0
    assert remote["batches_received"] >= 12
    assert "not visible" in remote["note"]
    # the trainer-side stage that receives from the service
    assert any(s["op"] == "data_service" for s in report["stages"])
    # a pipeline already on the service gets no advice to move it there
    assert not any(s["action"] == "data-service" for s in report["suggestions"])


def test_cluster_stops_every_process_on_failure():
    trainer, workers = _cores()
    started = []
    with pytest.raises(RuntimeError, match="boom"):
        with bench.cluster(1, trainer, workers, timeout=90, procs=started):
            raise RuntimeError("boom")
    assert len(started) == 2 and all(proc.poll() is not None for proc in started)
    for proc in started:
        with pytest.raises(ProcessLookupError):
            os.kill(proc.pid, 0)


def test_projection_is_step_over_max_of_model_and_pipeline_per_worker_core():
    # step 30 ms, waiting 20 ms: the model's own work is 10 ms; the pipeline does 40 ms per batch
    proj = service.projection(step_ms=30.0, wait_ms=20.0, pipeline_ms=40.0)
    assert proj["model_ms_per_step"] == 10.0
    assert proj["worker_cores_to_feed_one_trainer"] == 4
    by = {row["workers"]: row for row in proj["by_workers"]}
    assert by[1]["step_ms"] == 40.0 and by[1]["speedup"] == 0.75  # one core feeds slower than two local ones
    assert by[4]["step_ms"] == 10.0 and by[4]["speedup"] == 3.0
    assert by[8]["step_ms"] == 10.0  # never below the model's own time


class _Op:
    def __init__(self, op, line, label=None, **extra):
        self.op, self.path, self.line, self.label, self.extra = op, "/x/train.py", line, label, extra

    @property
    def name(self):
        return self.label or self.op


def test_snippet_goes_before_the_trailing_prefetch_and_names_blockers():
    ops = [_Op("prefetch", 9), _Op("batch", 8), _Op("map", 7, "map(load)", py_function=True),
           _Op("from_generator", 6)]
    text, after = service.snippet(ops)
    assert after == {"path": "/x/train.py", "line": 8}
    assert text.splitlines()[0] == "# after batch (train.py:8)"
    assert "ShardingPolicy.OFF" in text  # a generator cannot be split
    assert text.splitlines()[-1].startswith("ds = ds.prefetch(")
    assert [b["source"]["line"] for b in service.blockers(ops)] == [7, 6]
    splittable, _ = service.snippet([_Op("batch", 3), _Op("range", 2)])
    assert "ShardingPolicy.DYNAMIC" in splittable


def test_suggestion_says_what_to_rewrite_first():
    sec = {"recommended": True, "host_cpu": {"cpus": 1, "process_cores_used": 0.98, "system_busy_cores": 1.0},
           "projection": service.projection(30.0, 20.0, 25.0),
           "blockers": [{"stage": "map(load)", "what": "", "source": {"path": "/x/train.py", "line": 7}}],
           "snippet": "...", "insert_after": {"path": "/x/train.py", "line": 8}}
    top = service.suggestion(sec, cpus=1)
    # Priced for this host: its one core, 0.02 of it busy with others, and the process's CPU per
    # step (0.98 x 30 ms) stays on it: 30 / max(10, 29.4 / 0.98) = 1.0.
    assert top["action"] == "data-service" and top["expected_speedup"] == pytest.approx(1.0, abs=0.01)
    assert top["remote_projection"]["speedup"] == 3.0  # 30 / max(10, 25 / 3): worker cores elsewhere
    assert "3 worker core(s) feed one trainer" in top["message"]
    assert "First rewrite" in top["message"] and "map(load) at train.py:7" in top["message"]
    assert service.suggestion(dict(sec, recommended=False), cpus=1) is None


def test_probe_worker_measures_the_pipeline_a_worker_runs(tmp_path):
    import tensorflow as tf

    import pipelint.profiler
    from pipelint.profiler.measure.merge import load, merge

    def dataset_fn():
        return tf.data.Dataset.range(10_000).map(lambda i: tf.reduce_sum(tf.ones([64, 64]) * tf.cast(i, tf.float32)),
                                                 num_parallel_calls=tf.data.AUTOTUNE).batch(8)

    report = pipelint.profiler.probe_worker(dataset_fn, batches=30, json_path=str(tmp_path / "w.json"))
    assert report["probe_worker"]["batches"] == 30 and report["probe_worker"]["batches_per_s"] > 0
    names = [s["name"] for s in report["stages"]]
    assert any(name.startswith("map") for name in names), names
    trainer = {"verdict": "input-bound", "steps": 40, "step_time_ms": 20.0, "input_wait_ms": 12.0,
               "environment": {"worker": "worker:0"}}
    (tmp_path / "t.json").write_text(__import__("json").dumps(trainer))
    merged = merge(load([str(tmp_path / "t.json"), str(tmp_path / "w.json")]))
    assert [w["worker"] for w in merged["workers"]] == ["worker:0"]
    (sw,) = merged["service_workers"]
    assert sw["trainers_fed"] == round(sw["batches_per_s"] / 50.0, 2)  # the trainer runs 50 steps/s
