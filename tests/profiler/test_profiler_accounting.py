"""Step accounting, wait-vs-compute advice, actions and verification verdicts: no TensorFlow needed."""
from pipelint.profiler.advise import advice
from pipelint.profiler.advise import pricing
from pipelint.profiler.measure.pytimer import PyTimer
from pipelint.profiler.measure.steps import StepStats
from pipelint.profiler.measure.stages import Node, Op, align


def node(i, name, elements, ns, params=None):
    return Node(i, name, elements, ns, 0, params or {}, [])


def test_warmup_steps_are_left_out_and_median_reported():
    s = StepStats()
    s.new_segment()
    for t in [1.5, 0.4, 0.021, 0.020, 0.019, 0.020, 0.022, 0.020]:  # tracing, a slow start, then steady
        s.add(t, 0.005)
    s.new_segment()  # a second fit call retraces
    for t in [0.9, 0.020, 0.021, 0.019]:
        s.add(t, 0.005)
    summ = s.summary()
    assert summ["warmup_steps"] == 3 and summ["steps"] == 9
    assert abs(summ["step_ms"] - 20.0) < 0.6
    assert summ["step_p10_ms"] <= summ["step_ms"] <= summ["step_p90_ms"] < 23
    assert abs(summ["fraction"] - 0.005 / 0.0202) < 0.02  # the tracing step no longer dilutes it


def test_a_steady_slow_first_step_is_kept():
    s = StepStats()
    for t in [0.030, 0.020, 0.020, 0.021]:
        s.add(t, 0.0)
    assert s.summary()["warmup_steps"] == 0


def _py_map(wall_ms, cpu_ms, calls=400):
    timer = PyTimer()
    timer.calls, timer.wall, timer.cpu = calls, calls * wall_ms / 1000, calls * cpu_ms / 1000
    op = Op("map", "/x/train.py", 12, extra={"py_function": True, "py_timers": [timer]})
    # map+batch of 8: 50 batches, 400 elements, per element about wall_ms of work.
    return align([Op("prefetch", "/x/train.py", 13), Op("batch", "/x/train.py", 13), op,
                  Op("range", "/x/train.py", 11)],
                 [node(2, "Prefetch", 50, 10_000), node(3, "MapAndBatch", 50, int(400 * wall_ms * 1e6),
                                                         {"parallelism": 1}),
                  node(4, "Range", 400, 100_000)], {})


def test_waiting_python_stage_gets_more_threads_than_cores_and_a_promise_above_the_core_count():
    stages = _py_map(wall_ms=3.0, cpu_ms=0.05)
    sugg = advice.suggest(stages, step_ms=24.0, wait_ms=14.0, cores_used=0.4, cpus=2, mem=10**12)
    top = sugg[0]
    assert top["code"] == "PL101" and top["action"] == "parallelize" and top["verifiable"]
    n = top["fix"]["map_parallelism"]["num_parallel_calls"]
    assert n > 2 and top["fix"]["threadpool_size"] >= n  # more threads than the 2 cores
    assert top["fix"]["map_parallelism"]["line"] == 12
    # 24 ms/batch of waiting spread over n threads: the 10 ms model step sets the pace again.
    assert 2.0 < top["expected_speedup"] <= 2.4 and top["speedup_basis"] == "model"
    assert all(s["action"] in advice.ACTIONS for s in sugg)


def test_computing_python_stage_gets_rewrite_with_an_upper_bound_and_no_thread_promise():
    stages = _py_map(wall_ms=3.0, cpu_ms=2.9)
    sugg = advice.suggest(stages, step_ms=24.0, wait_ms=14.0, cores_used=1.1, cpus=2, mem=10**12)
    assert [s["action"] for s in sugg] == ["rewrite-tf-ops"]
    assert sugg[0]["speedup_basis"] == "upper-bound" and not sugg[0]["verifiable"]
    assert "GIL" in sugg[0]["message"]


def test_computing_tf_stage_on_spent_cores_says_the_host_is_spent():
    stages = align([Op("map", "t.py", 5, extra={"num_parallel_calls": True})],
                   [node(2, "ParallelMapV2", 100, 2_000_000_000, {"parallelism": 2})], {})
    sugg = advice.suggest(stages, step_ms=20.0, wait_ms=12.0, cores_used=1.95, cpus=2, mem=10**12)
    assert [s["action"] for s in sugg] == ["data-service"]
    assert "cannot prepare input faster" in sugg[0]["message"]


def test_no_suggestion_reason_for_stages_added_by_keras():
    stages = align([Op("map", "t.py", 9, extra={"added_by": "Keras image_dataset_from_directory"})],
                   [node(2, "ParallelMapV2", 10, 10_000_000, {"parallelism": 2})], {})
    figs = advice.figures(stages, 2)
    assert "Keras image_dataset_from_directory" in advice.no_suggestion_reason(figs, "input-bound", 1.0, 2)
    assert advice.no_suggestion_reason(figs, "model-bound", 1.0, 2) is None


def test_verification_candidates_and_verdicts():
    report = {"steps": 40, "step_time_ms": 20.0, "input_wait_ms": 0.1, "stages": [], "suggestions": [
        {"code": "PL101", "action": "parallelize", "stage": "map(f)", "fix": {"map_parallelism": {}},
         "safe": True, "speedup_basis": "model", "expected_speedup": 2.0, "source": {"path": "t.py", "line": 3}},
        {"code": "PL106", "action": "rewrite-tf-ops", "stage": "map(f)", "fix": None, "safe": True,
         "speedup_basis": "upper-bound", "expected_speedup": 2.5, "source": {"path": "t.py", "line": 3}},
        {"code": "X", "action": "cache", "stage": "c", "fix": {"cache": 1}, "safe": False,
         "speedup_basis": None, "expected_speedup": None, "source": None}]}
    cands, skipped = pricing.candidates(report, unsafe_fixes=False)
    assert [c["kind"] for c in cands] == ["fix", "bound"]
    assert cands[1]["fixes"] == {"free_stage": {"path": "t.py", "line": 3}}
    assert any("--unsafe-fixes" in s for s in skipped)
    assert len(pricing.candidates(report, unsafe_fixes=True)[0]) == 3
    # Nothing to suggest: the verdict itself is checked with input at no cost.
    cands, _ = pricing.candidates({**report, "suggestions": []}, unsafe_fixes=False)
    assert cands[0]["fixes"] == {"free_input": True}
    assert pricing.judge(2.3, 2.0, "model") == "confirmed"
    assert pricing.judge(1.01, 2.0, "model").startswith("refuted")
    assert pricing.judge(3.5, 2.0, "model").startswith("gain, but off")
    assert pricing.judge(2.1, 2.0, "upper-bound") == "bound confirmed"
