"""Issue 30: the saturated-augmentation shape's promise against its fix applied by hand, on this host.

Usage: python benchmarks/saturated_promise.py [--rounds 3] [--steps 200] [--probe-runs 1]

1. `pipelint profile --report` on `probe_jobs.py saturated_aug STEPS` (random TF augmentation,
   AUTOTUNE, batch 16, a 5 ms device-like step): its verdict, top action and promise (the step it
   measured -> the step it promises, and the speedup).
2. Rounds of fresh processes without the probe, alternating which goes first: the job as written
   and the job with the probe's advice applied by hand (`service`: a tf.data service dispatcher and
   worker started on this host, `distribute(DYNAMIC)` after `batch`, before the trainer's
   `prefetch`, as the probe's snippet says). Measured = the job's own clock (median step).
3. Prints promised vs measured: the speedups, measured/promised and whether it is within 30%; the
   load average (`os.getloadavg`, as `uptime` prints it) before every run.

The remote projection (worker cores on other hosts) cannot be checked on one machine: it is
printed beside the promise, as the probe states it, and is not part of the comparison.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = os.path.join(HERE, "probe_jobs.py")
TOLERANCE = 0.30


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _env() -> dict:
    root = os.path.dirname(HERE)
    return {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2",
            "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}


def probe(steps: int, tmp: str, tag: str) -> dict:
    rj = os.path.join(tmp, f"{tag}.json")
    cmd = [sys.executable, "-m", "pipelint", "profile", "--report", rj, JOB, "saturated_aug", str(steps)]
    subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=_env(), check=False)
    with open(rj) as f:
        return json.load(f)


def job_step(steps: int, variant: str) -> float:
    """The job's own median step (ms), no probe."""
    cmd = [sys.executable, JOB, "saturated_aug", str(steps), variant]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=_env(), check=False)
    for line in proc.stdout.splitlines():
        if line.startswith("job-step-ms "):
            return float(line.split()[1])
    raise RuntimeError(f"{variant}: no job-step-ms\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")


def promise(report: dict) -> dict:
    top = (report.get("suggestions") or [None])[0] or {}
    step = report.get("step_time_ms")
    sp = top.get("expected_speedup")
    remote = top.get("remote_projection") or {}
    return {"verdict": report.get("verdict"), "action": top.get("action"), "speedup": sp, "step_ms": step,
            "after_ms": step / sp if step and sp else None, "basis": top.get("speedup_basis"),
            "priced_for": top.get("priced_for"), "remote": remote,
            "cores_used": (report.get("data_service") or {}).get("host_cpu", {}).get("process_cores_used"),
            "system_busy": (report.get("data_service") or {}).get("host_cpu", {}).get("system_busy_cores")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--probe-runs", type=int, default=1, help="probe runs (the promise is their median)")
    a = ap.parse_args()
    print(f"load average at start: {load()} on {os.cpu_count()} CPUs", flush=True)
    with tempfile.TemporaryDirectory(prefix="pipelint-sat-") as tmp:
        promises = []
        for i in range(a.probe_runs):
            before = load()
            p = promise(probe(a.steps, tmp, f"probe{i}"))
            promises.append(p)
            after = f"{p['after_ms']:.1f}" if p["after_ms"] else "-"
            print(f"probe run {i + 1} (load {before}): {p['verdict']}, top {p['action']}"
                  f" {p['speedup']}x ({p['priced_for'] or 'as priced'}): {p['step_ms']:.1f} -> {after} ms/step;"
                  f" process {p['cores_used']} cores, {p['system_busy']} busy system-wide", flush=True)
            if p["remote"]:
                r = p["remote"]
                print(f"  remote projection (not checked here): {r.get('worker_cores')} worker cores elsewhere,"
                      f" {r.get('step_ms')} ms/step, {r.get('speedup')}x", flush=True)
        plain, fixed, ratios = [], [], []
        for r in range(a.rounds):
            order = ("plain", "service") if r % 2 == 0 else ("service", "plain")
            got = {}
            for variant in order:
                before = load()
                got[variant] = job_step(a.steps, variant)
                print(f"round {r + 1} {variant:8} {got[variant]:7.2f} ms/step (load {before})", flush=True)
            plain.append(got["plain"])
            fixed.append(got["service"])
            ratios.append(got["plain"] / got["service"])
    promised = statistics.median(p["speedup"] for p in promises if p["speedup"]) if any(
        p["speedup"] for p in promises) else None
    measured = statistics.median(ratios)
    print(f"\nmeasured by hand ({a.rounds} rounds, job's own clock): plain {statistics.median(plain):.2f} ms ->"
          f" service on this host {statistics.median(fixed):.2f} ms/step (medians); speedup {measured:.2f}x"
          f" (range {min(ratios):.2f}-{max(ratios):.2f})")
    if promised:
        off = abs(measured / promised - 1)
        print(f"promised {promised:.2f}x, measured {measured:.2f}x: measured/promised {measured / promised:.2f},"
              f" {'within' if off <= TOLERANCE else 'NOT within'} 30% ({100 * off:.0f}% off)")
    else:
        print("no priced promise")
    print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()
