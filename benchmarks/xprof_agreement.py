"""pipelint's figures beside XProf's own, on the bundled example jobs (`--xprof`).

Usage: python benchmarks/xprof_agreement.py [--steps 120] [--rounds 1] [--jobs custom_loop,model_bound,...]

Each run is a fresh `python -m pipelint.profiler --xprof TMP --report TMP/r.json examples/profile/JOB.py
STEPS` process: the probe marks the steps, XProf's converter (input_pipeline_analyzer) reads the
trace, and the report holds both sets of figures. Prints a Markdown table per run: input-bound
fraction and median step time from each, XProf's mean step, the gap in points and, past 10 points,
the start of the reason the report gives. Rounds repeat every job (order rotated).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOBS = ["custom_loop", "numpy_function_map", "generator_source", "pydataset_no_workers", "model_bound"]


def run(job: str, steps: int, tmp: str) -> dict:
    out = os.path.join(tmp, job)
    os.makedirs(out, exist_ok=True)
    report = os.path.join(out, "report.json")
    cmd = [sys.executable, "-m", "pipelint.profiler", "--no-live-warnings", "--xprof", os.path.join(out, "xprof"),
           "--report", report, os.path.join(ROOT, "examples", "profile", f"{job}.py"), str(steps)]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env, cwd=out)
    with open(report) as f:
        return json.load(f)


def row(job: str, r: dict) -> str:
    a = (r.get("xprof") or {}).get("analysis") or {}
    if a.get("input_bound_fraction") is None or r.get("input_bound_fraction") is None:
        return f"| {job} | {r.get('step_source')} | - | - | - | - | - | - | - | {a.get('error') or 'no figures'} |"
    gap = 100 * (a["input_bound_fraction"] - r["input_bound_fraction"])
    notes = a.get("disagreement") or []
    why = notes[1][:90] + "..." if len(notes) > 1 else ""
    return (f"| {job} | {r['step_source']} | {100 * r['input_bound_fraction']:.0f}% | {r['step_time_ms']:.2f}"
            f" | {r['steps']} | {100 * a['input_bound_fraction']:.0f}% | {a['step_time_median_ms']:.2f}"
            f" | {a['step_time_ms']:.2f} | {a['steps']} | {gap:+.0f} {why} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--jobs", default=",".join(JOBS))
    args = ap.parse_args()
    jobs = args.jobs.split(",")
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print("| job | steps from | pipelint input | pipelint median ms | steps | XProf input | XProf median ms"
          " | XProf mean ms | steps | gap (points), reason |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="pipelint-xprof-") as tmp:
        for rnd in range(args.rounds):
            order = jobs[rnd % len(jobs):] + jobs[:rnd % len(jobs)]
            for job in order:
                try:
                    print(row(job, run(job, args.steps, os.path.join(tmp, f"r{rnd}"))), flush=True)
                except Exception as exc:  # one broken job must not hide the others
                    print(f"| {job} | failed: {type(exc).__name__}: {exc} |", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
