"""`--verify`'s pricing: which suggestions to run, and how each measured speedup compares with
its prediction.

Plain data in, plain data out (no TensorFlow, no processes): `run/verify.py` runs the job and hands
the step times here. What `fixes` mean to the probe: `run/verify.py`'s docstring.
"""
from __future__ import annotations

import json
import statistics
from typing import Any

FIX_KEYS = ("map_parallelism", "threadpool_size", "prefetch", "pydataset_workers", "cache_after", "free_stage",
            "free_input")
#: A measured speedup within this relative distance of the prediction confirms it.
TOLERANCE = 0.30
#: Below this a fix did nothing measurable.
NO_GAIN = 1.05
#: At most this many suggestions are verified (each adds `rounds` runs).
MAX_CANDIDATES = 3


def candidates(report: dict[str, Any], unsafe_fixes: bool) -> tuple[list[dict], list[str]]:
    """(what to run, what cannot be run and why) from the first run's report."""
    out: list[dict] = []
    skipped: list[str] = []
    for s in report.get("suggestions", []):
        label = f"{s['code'] or 'advice'} {s['action']} ({s['stage']})"
        if s.get("action") == "cheaper-stage":
            # Its bound is the stage at no CPU: a TF-op stage cannot be freed at run time (only
            # Python stages can, by repeating their first result), so nothing would be measured.
            skipped.append(f"{label}: a code change pipelint cannot make, and a TF-op stage cannot be run at no cost")
            continue
        if s.get("fix"):
            if not s.get("safe", True) and not unsafe_fixes:
                skipped.append(f"{label}: changes what the pipeline yields; run with --unsafe-fixes")
                continue
            out.append({"label": label, "fixes": s["fix"], "suggestion": s, "kind": "fix"})
        elif s.get("speedup_basis") == "upper-bound" and s.get("source"):
            stage = next((st for st in report.get("stages", []) if st["source"] == s["source"]), None)
            free = {"path": s["source"]["path"], "line": s["source"]["line"]}
            name = (stage or {}).get("name", "")
            if name.startswith("PyDataset "):
                free = {"class": name.split()[1].split(".")[0]}
            skipped.append(f"{label}: a code rewrite pipelint cannot make; its bound is measured instead")
            out.append({"label": f"bound: {s['stage']} costs nothing", "fixes": {"free_stage": free},
                        "suggestion": s, "kind": "bound"})
        else:
            skipped.append(f"{label}: no run-time setting applies it")
    # One bound per stage is enough; keep the order (best first).
    seen: set[str] = set()
    uniq = []
    for c in out:
        key = json.dumps(c["fixes"], sort_keys=True)
        if key not in seen:
            seen.add(key)
            uniq.append(c)
    out = uniq[:MAX_CANDIDATES]
    if not out and report.get("steps"):
        # No suggestion (model-bound, balanced): check the verdict with input at no cost.
        step, wait = report.get("step_time_ms") or 0.0, report.get("input_wait_ms") or 0.0
        pred = step / max(step - wait, 1e-9) if step else None
        out.append({"label": "bound: input costs nothing", "fixes": {"free_input": True}, "kind": "bound",
                    "suggestion": {"expected_speedup": round(pred, 2) if pred else None,
                                   "speedup_basis": "upper-bound"}})
    return out, skipped


#: A run that covers a cache's epochs stops after at most this many steps.
MAX_JOB_STEPS = 3000


def run_steps(cands: list[dict], steps: int) -> int:
    """Steps per run: `steps`, or enough to cover every epoch a cache suggestion was priced over
    (its later epochs are where it pays), at most MAX_JOB_STEPS."""
    need = steps
    for c in cands:
        over = c["suggestion"].get("priced_over") or {}
        if over.get("epochs") and over.get("steps_per_epoch"):
            need = max(need, min(MAX_JOB_STEPS, over["epochs"] * over["steps_per_epoch"]))
    return need


def repriced(s: dict, baselines: list[dict]) -> float | None:
    """The suggestion's prediction as each baseline run made it (median): same rounds, same load."""
    preds = []
    for rep in baselines:
        for t in rep.get("suggestions") or []:
            if (t.get("code"), t.get("action"), t.get("source")) == (s.get("code"), s.get("action"), s.get("source")) \
                    and t.get("expected_speedup"):
                preds.append(t["expected_speedup"])
                break
    if s.get("action") is None and baselines:  # the verdict check: input at no cost
        preds = [r["step_time_ms"] / max(r["step_time_ms"] - (r.get("input_wait_ms") or 0.0), 1e-9)
                 for r in baselines if r.get("step_time_ms")]
    if preds:
        return round(statistics.median(preds), 2)
    return s.get("expected_speedup")


def judge(measured: float | None, predicted: float | None, basis: str | None) -> str:
    if measured is None:
        return "not measured"
    if predicted is None:
        return "measured (no prediction)"
    close = abs(measured - predicted) / predicted <= TOLERANCE
    if basis == "upper-bound":
        return "bound confirmed" if close else "bound off the prediction"
    if measured < NO_GAIN:
        return "refuted: no measurable gain"
    return "confirmed" if close else "gain, but off the prediction by more than 30%"


def verification(first: dict[str, Any], cands: list[dict], skipped: list[str], times: dict[int, list],
                 job_means: dict[int, list], baselines: list[dict], errors: dict[int, str], runs: list[dict], *,
                 steps: int, rounds: int, unsafe_fixes: bool) -> dict[str, Any]:
    """The `verification` section from the runs' step times (`times[0]`: the baseline's, then one
    list per candidate, one entry per round)."""
    base = times[0]
    out_cands = []
    for i, c in enumerate(cands, start=1):
        s = c["suggestion"]
        # A cache pays from epoch 2 on: it is judged on the whole run's mean step, every epoch.
        over_job = s.get("action") == "cache"
        ratios = [b / v for b, v in zip(job_means[0] if over_job else base, job_means[i] if over_job else times[i])
                  if b and v]
        measured = statistics.median(ratios) if ratios else None
        predicted = repriced(s, baselines)
        entry = {"label": c["label"], "kind": c["kind"], "fixes": c["fixes"], "code": s.get("code"),
                 "action": s.get("action"), "expected_speedup": predicted,
                 "expected_speedup_first_run": s.get("expected_speedup"),
                 "speedup_basis": s.get("speedup_basis"),
                 "measured_speedup": round(measured, 3) if measured else None,
                 "measured_min": round(min(ratios), 3) if ratios else None,
                 "measured_max": round(max(ratios), 3) if ratios else None,
                 "step_time_ms": [round(t, 3) if t else None for t in times[i]],
                 "measured_on": "mean step over the whole run" if over_job else "median step",
                 "error": errors.get(i)}
        entry["status"] = judge(measured, predicted, s.get("speedup_basis"))
        out_cands.append(entry)
    top = None
    sugg = first.get("suggestions") or []
    if sugg:
        top_s = sugg[0]
        match = next((c for c, src in zip(out_cands, cands) if src["suggestion"] is top_s), None)
        top = {"label": match["label"], "status": match["status"]} if match else \
            {"label": f"{top_s.get('code')} {top_s.get('action')}", "status": "not verifiable"}
    elif out_cands:
        c = out_cands[0]
        ok = c["status"] == "bound confirmed"
        top = {"label": "no suggestion (" + (first.get("verdict") or "?") + ")",
               "status": "confirmed: with input at no cost the step is as predicted" if ok
               else "refuted: the step with input at no cost is off the prediction"}
    return {
        "steps": steps, "rounds": rounds, "unsafe_fixes": unsafe_fixes,
        "baseline_step_ms": round(statistics.median([t for t in base if t]), 3) if any(base) else None,
        "baseline_step_times_ms": [round(t, 3) if t else None for t in base],
        "runs": runs, "candidates": out_cands, "not_verified": skipped, "top": top,
        "tolerance": TOLERANCE,
    }
