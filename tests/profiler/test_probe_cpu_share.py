"""Issue 30: the CPU a pipeline that runs ahead takes from a model training on the same cores.

Constructed measurements only (no TensorFlow): the step never waits for input, yet on a host whose
cores are spent the pipeline's threads take CPU from the model's ops, so a cache (the cached epochs
stop paying for the stages before it) and a cheaper stage are priced from the pipeline's CPU per
step, the process's CPU and its cores. Each price is checked against the model written out by hand.
"""
import pytest

from pipelint.profiler.advise import advice
from pipelint.profiler.measure.pytimer import PyTimer
from pipelint.profiler.measure.stages import Node, Op, align
# (the job the shapes tests price a cache on, as a file: a deterministic map and a random one)
from tests.profiler.test_probe_shapes import source  # noqa: F401

MS = 1_000_000  # ns

def node(i, name, elements, ns, params=None, nbytes=0):
    return Node(i, name, elements, ns, nbytes, params or {}, [], frozenset(), {})


def stages_of(path, line=9, ms_per_element=2.0, py_timer=None):
    """from_tensor_slices (1152 elements) -> map (TF ops, AUTOTUNE at 2) -> batch(8) -> prefetch:
    100 batches read; the map's work is 8 x ms_per_element per batch."""
    extra = {"cardinality": 1152, "num_parallel_calls": True}
    if py_timer is not None:
        extra.update(py_function=True, py_timers=[py_timer])
    op = Op("map", path, line, extra=extra)
    return align([Op("prefetch", path, line + 1), Op("batch", path, line + 1), op,
                  Op("from_tensor_slices", path, line - 1)],
                 [node(2, "Prefetch", 100, MS), node(5, "BatchV2", 100, MS),
                  node(3, "ParallelMapV2", 800, int(800 * ms_per_element * MS), {"parallelism": 2.0},
                       nbytes=800 * 4096),
                  node(4, "TensorSlice", 800, MS, nbytes=800 * 4096)], {})


def suggest(stages, step_ms=50.0, wait_ms=0.5, cores_used=1.9, system_busy=1.9, on_cpu=1.0, epochs=4):
    return advice.suggest(stages, step_ms, wait_ms, cores_used, 2, mem=10**12, epochs=epochs,
                          system_busy=system_busy, on_cpu=on_cpu)


def by_action(sugg):
    return {s["action"]: s for s in sugg}


def test_a_model_bound_job_on_spent_cores_gets_the_cache_priced_by_the_cpu_it_returns(source):
    # 50 ms steps, 0.5 ms waiting: model-bound. The process keeps 1.9 of 2 cores busy (no other
    # process), 95 ms of CPU per step, 16 of them the map's (8 x 2 ms): 17%, material.
    sugg = suggest(stages_of(source))
    top = sugg[0]
    assert top["action"] == "cache" and top["fix"] == {"cache_after": {"path": source, "line": 9}}
    assert top["source"] == {"path": source, "line": 9}
    ret = top["cpu_returned"]
    # The stages a cache stops paying for: the map (16 ms) and its source (1 ms / 800 x 8).
    x = 8 * 2.0 + 8 * 1.0 / 800
    assert ret["pipeline_cpu_ms"] == pytest.approx(x, rel=1e-3)
    gain = x / 1.9  # the process does its CPU work at 1.9 cores
    assert ret["step_gain_ms"] == pytest.approx(gain, rel=1e-3)
    cached = 49.5 - gain  # the model's step (50 - 0.5 wait) less the CPU handed back
    assert top["priced_over"]["step_ms_cached"] == pytest.approx(cached, rel=1e-3)
    assert top["expected_speedup"] == pytest.approx(4 * 50.0 / (50.0 + 3 * cached), abs=0.01)
    assert "cores are spent" in top["message"] and "give it back" in top["message"]
    # The cheaper stage comes after it: an upper bound (the stage at no CPU), not a promise.
    cheaper = by_action(sugg)["cheaper-stage"]
    assert cheaper["speedup_basis"] == "upper-bound" and cheaper["source"] == {"path": source, "line": 9}
    assert cheaper["expected_speedup"] == pytest.approx(50.0 / (49.5 - 16.0 / 1.9), abs=0.01)


def test_the_cpu_comes_from_the_stage_times_less_the_time_threads_queued_for_a_core(source):
    # Half their ready time the threads waited for a core: tf.data's 2 ms per call is 1 ms of CPU.
    top = suggest(stages_of(source), on_cpu=0.5)[0]
    x = (8 * 2.0 + 8 * 1.0 / 800) * 0.5
    assert top["cpu_returned"]["pipeline_cpu_ms"] == pytest.approx(x, rel=1e-3)
    assert top["priced_over"]["step_ms_cached"] == pytest.approx(49.5 - x / 1.9, rel=1e-3)


def returned(step, process_cpu, cores, others, x):
    """The model written out: the cores x held go to the process's other threads and to the other
    processes in proportion to what each holds; the process's remaining CPU at its new cores."""
    f = x / step
    rest = cores - f
    return step - (process_cpu - x) / (rest + f * rest / (rest + others))


def test_other_processes_spend_the_cores_this_job_could_use(source):
    # The job keeps 0.9 cores busy, other processes 1.05 more: 1.95 of 2 busy, its threads queue for
    # a core 40% of their ready time. What the pipeline frees is shared with those processes.
    sugg = suggest(stages_of(source, ms_per_element=5.0), cores_used=0.9, system_busy=1.95, step_ms=100.0,
                   wait_ms=1.0, on_cpu=0.6)
    top = sugg[0]
    assert top["action"] == "cache"
    assert top["cpu_returned"]["cores_available"] == pytest.approx(0.95)
    x = (8 * 5.0 + 0.01) * 0.6
    gain = returned(100.0, 90.0, 0.9, 1.05, x)
    assert top["cpu_returned"]["step_gain_ms"] == pytest.approx(gain, rel=1e-3)
    assert gain < x / 0.9  # less than if the model got all of it
    assert top["priced_over"]["step_ms_cached"] == pytest.approx(99.0 - gain, rel=1e-3)
    assert "busy with other processes" in by_action(sugg)["cheaper-stage"]["message"]


def test_the_pipeline_cpu_never_leaves_the_model_less_than_its_own_step_needs(source):
    # keras.io's image-folder script on a loaded host: tf.data timed 8 x 222 ms per batch, x 0.43
    # on a CPU = 769 ms, of a process that used 0.58 cores x 1445 ms = 838 ms. The model's step does
    # not wait, so its ops kept a thread ready throughout, on a CPU 43% of the time: 626 ms are the
    # model's, and the pipeline had at most 212 (the stage calls waited on TensorFlow's pools too).
    figs = advice.figures(stages_of(source, ms_per_element=222.0), 2)
    share = advice.cpu_share(figs, 1445.0, 0.58, 2, 1.63, 0.433, wait_ms=0.0)
    d = share.to_dict(1445.0)
    assert d["pipeline_cpu_ms_per_step_from_stages"] == pytest.approx((8 * 222.0 + 0.02) * 0.433, rel=1e-3)
    assert d["pipeline_cpu_ms_per_step"] == pytest.approx(0.58 * 1445.0 - 1445.0 * 0.433, rel=1e-3)
    assert d["speedup_if_returned"] == pytest.approx(1445.0 / (1445.0 - returned(
        1445.0, 0.58 * 1445.0, 0.58, 1.63 - 0.58, d["pipeline_cpu_ms_per_step"])), abs=0.002)
    assert d["speedup_if_returned"] < 1.15  # not the 1.49x of the stage figures taken as CPU
    # The cache of the map returns its scaled share, not its stage figure.
    top = suggest(stages_of(source, ms_per_element=222.0), step_ms=1445.0, wait_ms=0.0, cores_used=0.58,
                  system_busy=1.63, on_cpu=0.433)[0]
    assert top["cpu_returned"]["pipeline_cpu_ms"] <= d["pipeline_cpu_ms_per_step"] + 1e-6


def test_a_python_stage_is_charged_its_calls_thread_cpu(source):
    t = PyTimer()
    t.calls = t.timed = 800
    t.wall, t.cpu = 800 * 2.0 / 1000, 800 * 1.5 / 1000  # 2 ms per call, 1.5 ms of it on a CPU
    figs = advice.figures(stages_of(source, py_timer=t), 2)
    (m,) = [f for f in figs if f.stage.kind == "map"]
    assert advice.stage_cpu_ms(m, on_cpu=0.5) == pytest.approx(8 * 1.5)  # measured, not scaled


@pytest.mark.parametrize("kw, why", [
    ({"cores_used": 0.9, "system_busy": 1.0}, "the cores are idle: the pipeline's threads run on the free one"),
    ({"cores_used": 1.9, "step_ms": 500.0, "wait_ms": 2.0}, "the pipeline's CPU is 2% of the process's"),
    ({"cores_used": 1.9, "on_cpu": 0.1}, "what tf.data timed was mostly waiting for a core, not CPU"),
    ({"cores_used": 0.9, "system_busy": 1.0, "on_cpu": 0.95}, "idle cores, threads scarcely queue"),
])
def test_nothing_is_priced_where_the_cores_are_idle_or_the_pipeline_cpu_is_small(source, kw, why):
    sugg = suggest(stages_of(source), **kw)
    assert not [s for s in sugg if s.get("cpu_returned")], why
    assert "cheaper-stage" not in by_action(sugg), why
    assert all((s["expected_speedup"] or 1.0) < 1.05 or s["action"] != "cache" for s in sugg), why


def test_a_random_map_gets_no_cache_but_the_cheaper_stage_at_its_line(source):
    sugg = suggest(stages_of(source, line=10))
    assert "cache" not in by_action(sugg)  # a cache would freeze its random draws
    cheaper = by_action(sugg)["cheaper-stage"]
    assert cheaper["source"]["line"] == 10 and "16.0 ms of CPU per step" in cheaper["message"]


def test_an_input_bound_job_keeps_its_own_advice(source):
    # Waiting 60% of the step: the wait-based pricing leads; no cheaper-stage statement is added.
    sugg = suggest(stages_of(source), wait_ms=30.0)
    assert "cheaper-stage" not in by_action(sugg)


def test_the_report_figures_say_what_was_measured(source):
    figs = advice.figures(stages_of(source), 2)
    share = advice.cpu_share(figs, 50.0, 1.9, 2, 1.9, 1.0)
    d = share.to_dict(50.0)
    assert d["cores_spent"] and d["material"]
    assert d["process_cpu_ms_per_step"] == pytest.approx(95.0)
    x = 8 * 2.0 + 8 * 1.0 / 800 + 1.0 / 100  # map, source and the batch's own 1 ms per 100 batches
    assert d["pipeline_cpu_ms_per_step"] == pytest.approx(x, rel=1e-3)
    assert d["step_ms_if_returned"] == pytest.approx(50.0 - x / 1.9, rel=1e-3)
    idle = advice.cpu_share(figs, 50.0, 0.9, 2, 1.0, 1.0).to_dict(50.0)
    assert not idle["cores_spent"] and idle["speedup_if_returned"] == 1.0



def test_the_report_says_it_plainly_and_verify_does_not_run_a_bound_it_cannot_apply(source):
    from pipelint.profiler.advise import pricing
    from pipelint.profiler.advise.advice import cpu_share_line
    figs = advice.figures(stages_of(source), 2)
    d = advice.cpu_share(figs, 50.0, 1.9, 2, 1.9, 0.7).to_dict(50.0)
    line = cpu_share_line(d)
    assert "takes 11.2 ms of CPU per step" in line and "on a CPU 70% of their ready time" in line
    assert "model's loss" in line and f"{d['speedup_if_returned']:.2f}x" in line
    assert cpu_share_line(advice.cpu_share(figs, 50.0, 0.9, 2, 1.0, 1.0).to_dict(50.0)) is None
    sugg = suggest(stages_of(source))
    cands, skipped = pricing.candidates({"suggestions": sugg, "stages": [], "steps": 10}, unsafe_fixes=False)
    assert [c["suggestion"]["action"] for c in cands] == ["cache"]  # its fix is applied and measured
    assert any("cheaper-stage" in why for why in skipped)

# -- a real job: the model trains on every core, the pipeline runs ahead on the same cores ---------

JOB = '''import numpy as np
import tensorflow as tf


def features(v):  # deterministic TF ops: 64 small matmuls per element, tens of ms per batch
    m = tf.reshape(v, [64, 64])
    for _ in range(64):
        m = tf.tanh(tf.linalg.matmul(m, m) / 64.0)
    return tf.reshape(m, [4096])


x = np.random.default_rng(0).random((384, 4096), dtype=np.float32)
ds = tf.data.Dataset.from_tensor_slices(x).map(features, num_parallel_calls=tf.data.AUTOTUNE)
ds = ds.batch(16).prefetch(2)
w = tf.Variable(tf.random.normal([512, 512]) / 23.0)


@tf.function
def step(b):  # 12 512x512 matmuls: the model's ops use every core
    m = w
    for _ in range(12):
        m = tf.tanh(tf.linalg.matmul(m, m))
    return tf.reduce_sum(m) + tf.reduce_sum(b)


for epoch in range(4):
    for b in ds:
        step(b)
'''
MAP_LINE = 13


def test_a_job_whose_pipeline_takes_the_models_cpu_gets_the_cache_priced_by_it(tmp_path):
    """The pipeline's CPU is about 40% of the process's, and the model's matmuls use every core: on
    a quiet 2-core host the process keeps both busy; on a loaded one other processes take cores and
    the threads queue for them. Either way the cores are spent, so the figures do not sit near a
    threshold: the cache is priced by the CPU it hands back (a 1.2x by hand on this host, 5 rounds)."""
    pytest.importorskip("tensorflow")
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    job = tmp_path / "cpu_job.py"
    job.write_text(JOB)
    rj = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "pipelint.profiler", "--report", str(rj), "--every", "0",
                           "--no-live-warnings", str(job)], capture_output=True, text=True, timeout=400,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root), "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads(rj.read_text())
    cs = r["cpu_share"]
    assert cs["cores_spent"] and cs["material"], cs
    assert cs["pipeline_cpu_share"] > 0.1 and cs["speedup_if_returned"] > 1.05, cs
    (cache,) = [s for s in r["suggestions"] if s["action"] == "cache"]
    assert cache["source"] == {"path": str(job), "line": MAP_LINE}
    assert cache["cpu_returned"]["step_gain_ms"] > 0 and cache["expected_speedup"] >= 1.05, cache
    assert "input CPU: the pipeline takes" in proc.stderr
