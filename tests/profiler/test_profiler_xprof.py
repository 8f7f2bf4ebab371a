"""XProf beside pipelint: the comparison's wording, and real captures converted by XProf's converter."""
import pytest

from pipelint.profiler.measure.xprof import compare


def _xp(frac, step_ms=10.0, typical=None):
    return {"steps": 50, "step_time_ms": step_ms, "input_wait_ms": None if frac is None else frac * step_ms,
            "input_bound_fraction": frac, "typical": typical, "conclusion": None, "error": None}


def test_figures_within_ten_points_say_nothing():
    assert compare({"input_bound_fraction": 0.50, "step_source": "loop"}, _xp(0.59)) == []
    assert compare({"input_bound_fraction": None}, _xp(0.9)) == []
    assert compare({"input_bound_fraction": 0.5}, _xp(None)) == []


def test_long_steps_explain_the_gap_when_leaving_them_out_closes_it():
    notes = compare({"input_bound_fraction": 0.30, "step_source": "loop", "step_time_ms": 10.0},
                    _xp(0.55, typical={"input_bound_fraction": 0.33, "left_out": 2, "steps": 48}))
    assert notes[0].startswith("XProf's input-bound figure (55%) differs from pipelint's (30%) by 25 points")
    assert "2 long step(s)" in notes[1] and "33%" in notes[1]


def _timeline(rows, first=1):
    n = len(rows)
    return {"step": list(range(first, first + n)), "steps_per_point": [1] * n, "step_ms": [r[0] for r in rows],
            "input_wait_ms": [r[1] for r in rows], "warmup": [False] * n, "epoch_starts": [first],
            "wait_source": "estimated"}


def test_lined_up_steps_show_the_gap_is_a_step_only_one_side_counts():
    # pipelint counts a 600 ms first step (tracing) that XProf does not have; the rest agree.
    mine = [(600.0, 0.0)] + [(10.0, 8.0)] * 20
    xp = {**_xp(0.8), "per_step": {n: (10.0, 8.0) for n in range(2, 22)}}
    report = {"input_bound_fraction": 160 / 800, "step_source": "keras", "timeline": _timeline(mine)}
    notes = compare(report, xp)
    assert "differs from pipelint's (20%) by 60 points" in notes[0]
    assert "On the 20 steps both measured they agree (80% vs 80%)" in notes[1]
    assert "pipelint counts what XProf has no figures for (step 1, 600.0 ms)" in notes[1]
    assert "traces the train function" in notes[1]


def test_lined_up_steps_that_still_differ_blame_the_fit_estimate():
    mine = [(10.0, 2.0)] * 20
    xp = {**_xp(0.6), "per_step": {n: (10.5, 6.0) for n in range(1, 21)}}
    notes = compare({"input_bound_fraction": 0.2, "step_source": "keras", "timeline": _timeline(mine)}, xp)
    assert "step times agree (XProf/pipelint median ratio 1.05)" in notes[1] and "gap between two GetNext" in notes[1]
    xp_slow = {**_xp(0.6), "per_step": {n: (20.0, 12.0) for n in range(1, 21)}}
    notes = compare({"input_bound_fraction": 0.2, "step_source": "loop", "timeline": _timeline(mine)}, xp_slow)
    assert "XProf's steps are 2.00x pipelint's" in notes[1]
