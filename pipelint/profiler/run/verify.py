"""`pipelint profile --verify`: measure each suggestion's speedup on the user's own job.

One bounded profiling run gives the suggestions. Then, for `rounds` rounds, the job runs as-is
(baseline) and once per candidate, each in a fresh process, in an order that rotates every round
so that no variant always runs first or last. Speedup per round = baseline median step / the
variant's median step; the result is the median over rounds with its range.

Fixes are applied by the probe at run time (never to the user's files), from `Session.fixes`:
- `map_parallelism {path, line, num_parallel_calls}`: the `map` called at that line;
- `threadpool_size N`: `tf.data.Options().threading.private_threadpool_size` on iterated datasets;
- `prefetch true`: a trailing `prefetch(tf.data.AUTOTUNE)`;
- `cache_after {path, line}`: `.cache()` right after the `map` called at that line;
- `pydataset_workers {class, workers, use_multiprocessing}`: the PyDataset's settings;
- `free_stage {path, line}` or `{class}` and `free_input true`: *bound measurements*, not fixes: the
  stage (or the whole input) runs once and its first result repeats, so the run shows the step if
  that stage cost nothing. Their data differ from the job's; the run is thrown away.
A fix that changes what the pipeline yields runs only with `unsafe_fixes`.
This module does not import TensorFlow: each run is a child `python -m pipelint.profiler`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Callable

from pipelint.profiler.advise.pricing import candidates, run_steps, verification


def run_child(script: str, args: list[str], steps: int, fixes: dict | None, workdir: str, tag: str,
              timeout: float) -> dict[str, Any]:
    """One bounded run of the job under the probe in a fresh process; its report (or an error)."""
    report = os.path.join(workdir, f"{tag}.json")
    log = os.path.join(workdir, f"{tag}.log")
    cmd = [sys.executable, "-m", "pipelint.profiler", "--report", report, "--no-live-warnings",
           "--quiet", "--every", "0", "--max-steps", str(steps)]
    if fixes:
        cmd += ["--apply", json.dumps(fixes)]
    cmd += [script, *args]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2")}
    try:
        with open(log, "w") as f:
            proc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if not os.path.exists(report):
        with open(log) as f:
            tail = f.read()[-300:].strip().splitlines()
        return {"error": f"exit {proc.returncode}, no report" + (f": {tail[-1]}" if tail else "")}
    with open(report) as f:
        r = json.load(f)
    if proc.returncode != 0:
        r["error"] = f"exit {proc.returncode}"
    return r


def verify(script: str, args: list[str], *, steps: int = 60, rounds: int = 3, unsafe_fixes: bool = False,
           timeout: float = 600.0, progress: Callable[[str], None] | None = None,
           first_report: dict | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Returns (the first run's report, the `verification` section)."""
    say = progress or (lambda _msg: None)
    with tempfile.TemporaryDirectory(prefix="pipelint-verify-") as tmp:
        say("profiling run")
        first = first_report or run_child(script, args, steps, None, tmp, "profile", timeout)
        if first.get("error") and not first.get("steps"):
            return first, {"error": f"the profiling run failed: {first['error']}", "steps": steps,
                           "rounds": 0, "runs": [], "candidates": [], "not_verified": [], "top": None,
                           "baseline_step_ms": None}
        cands, skipped = candidates(first, unsafe_fixes)
        steps = run_steps(cands, steps)
        variants = [{"label": "baseline", "fixes": None}] + cands
        times: dict[int, list[float | None]] = {i: [] for i in range(len(variants))}
        reports: dict[int, list[dict]] = {i: [] for i in range(len(variants))}  # per round, for the diffs
        job_means: dict[int, list[float | None]] = {i: [] for i in range(len(variants))}
        baselines: list[dict] = []  # the baseline runs' own reports: their predictions too
        errors: dict[int, str] = {}
        runs = []
        for r in range(rounds):
            order = list(range(len(variants)))
            k = r % len(order)
            order = order[k:] + order[:k]  # rotate: no variant always first or last
            for i in order:
                say(f"round {r + 1}/{rounds}: {variants[i]['label']}")
                rep = run_child(script, args, steps, variants[i]["fixes"], tmp, f"r{r}v{i}", timeout)
                t = rep.get("step_time_ms") if rep.get("steps") else None
                if i == 0 and t is not None:
                    baselines.append(rep)
                if t is None:
                    errors[i] = rep.get("error") or "no steps measured"
                times[i].append(t)
                reports[i].append(rep)
                job_means[i].append(rep.get("job_step_mean_ms") if t is not None else None)
                runs.append({"round": r + 1, "variant": variants[i]["label"], "step_time_ms": t,
                             "job_step_mean_ms": job_means[i][-1],
                             "steps": rep.get("steps"), "error": rep.get("error")})
    section = verification(first, cands, skipped, times, job_means, baselines, errors, runs, steps=steps,
                           rounds=rounds, unsafe_fixes=unsafe_fixes)
    for i, cand in enumerate(section["candidates"], start=1):
        cand["diff"] = _diff_of_median_round(times, reports, i, cand["label"])
    return first, section


def _diff_of_median_round(times: dict[int, list], reports: dict[int, list], i: int, label: str) -> dict | None:
    """The baseline against candidate `i` in `profile-diff`'s form, from the round whose candidate run
    gave the median step (the baseline run of the same round: same load)."""
    from pipelint.profiler.output.diff import diff
    rounds = [r for r, (t, b) in enumerate(zip(times[i], times[0])) if t and b]
    if not rounds:
        return None
    rounds.sort(key=lambda r: times[i][r])
    r = rounds[(len(rounds) - 1) // 2]
    try:
        return diff(reports[0][r], reports[i][r], f"baseline (round {r + 1})", f"{label} (round {r + 1})")
    except Exception:  # noqa: BLE001 - a comparison that cannot be made leaves the verification as it was
        return None
