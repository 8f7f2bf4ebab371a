"""Wall-clock of `pipelint check --select ALL` from two source trees, side by side, alternating.

For a change to the model or the rules: is it slower than the revision it started from? Each
round runs both trees once, in alternating order, as subprocesses with PYTHONPATH pointing at
the tree; the medians and their ratio are printed. Findings counts are printed too, so that a
speed-up that comes from reporting less is visible.

    git worktree add /tmp/base main
    python benchmarks/compare_revisions.py /tmp/base . --corpus DIR [--rounds 5]
    python benchmarks/compare_revisions.py /tmp/base . --keras-every 10   # installed keras, every 10th file
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def keras_sample(every: int, dest: Path) -> Path:
    import importlib.util

    spec = importlib.util.find_spec("keras")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("keras is not installed; pass --corpus")
    root = Path(list(spec.submodule_search_locations)[0])
    files = sorted(root.rglob("*.py"))[::every]
    for index, path in enumerate(files):
        shutil.copyfile(path, dest / f"f{index:05d}.py")
    return dest


def run(tree: Path, corpus: Path) -> tuple[float, int]:
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pipelint", "check", "--select", "ALL", "--no-cache",
                           "--output-format", "concise", str(corpus)],
                          env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{tree}: exit {done.returncode}\n{done.stderr[-2000:]}")
    findings = sum(1 for line in done.stdout.splitlines() if ": PL" in line)
    return elapsed, findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path, help="source tree of the baseline (holds pipelint/)")
    parser.add_argument("new", type=Path, help="source tree of the candidate")
    parser.add_argument("--corpus", type=Path, help="directory of .py files to check")
    parser.add_argument("--keras-every", type=int, default=10,
                        help="without --corpus: every K-th file of the installed keras (default 10)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.corpus or keras_sample(args.keras_every, Path(tmp))
        files = len(list(corpus.rglob("*.py")))
        times: dict[str, list[float]] = {"base": [], "new": []}
        counts: dict[str, int] = {}
        for round_index in range(args.rounds):
            order = ("base", "new") if round_index % 2 == 0 else ("new", "base")
            for name in order:
                elapsed, findings = run(getattr(args, name), corpus)
                times[name].append(elapsed)
                counts[name] = findings
        base, new = statistics.median(times["base"]), statistics.median(times["new"])
        print(f"corpus: {corpus} ({files} files), {args.rounds} alternating rounds")
        for name, median in (("base", base), ("new", new)):
            runs = ", ".join(f"{t:.2f}" for t in times[name])
            print(f"{name:<5} median {median:6.2f} s  runs [{runs}]  findings {counts[name]}")
        print(f"new / base: {new / base:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
