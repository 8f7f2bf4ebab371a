"""XProf beside pipelint: the comparison's wording, and real captures converted by XProf's converter."""
import pytest

from pipelint.profiler.xprof import compare


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


def test_fit_gap_names_the_estimate_and_slower_traced_steps():
    notes = compare({"input_bound_fraction": 0.10, "step_source": "keras", "step_time_ms": 10.0},
                    _xp(0.40, step_ms=15.0))
    assert len(notes) == 3
    assert "gap times" in notes[1] and "15.00 vs 10.00 ms" in notes[2]
