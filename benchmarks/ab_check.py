"""A/B: `pipelint check` from two source trees on the same files -- same output? how fast?

For refactors that must not change what users see or how long they wait. The base tree is a git
revision (default `main`) extracted with `git archive`; the new tree is this working tree, or
another revision (`--new`). Both
run with the same interpreter, from the same directory, alternating (base, new, new, base, ...) so
that background load hits them alike; the report gives each side's median wall time and CPU time
(user + system of the whole process tree, which other jobs on the machine disturb far less than
wall time), their ratios, and whether stdout, stderr and the exit code were byte-identical in
every round.

    python benchmarks/ab_check.py examples/ tests/corpus/                    # main vs working tree
    python benchmarks/ab_check.py --base HEAD~3 --rounds 9 path/to/tree
    python benchmarks/ab_check.py --base abc123~1 --new abc123 examples/      # one commit's effect
    python benchmarks/ab_check.py --args "--select ALL --output-format json" examples/

Exit status 1 when an output differs. Timings depend on the machine's load: the report prints
the load average before and after.
"""
from __future__ import annotations

import argparse
import io
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs the CLI from the tree given first on the command line, whatever is installed.
_LAUNCH = (
    "import sys; tree = sys.argv.pop(1); sys.path.insert(0, tree); import pipelint; "
    "assert pipelint.__file__.startswith(tree), pipelint.__file__; "
    "from pipelint.cli import main; main()"
)


def _extract(revision: str, into: Path) -> Path:
    archive = subprocess.run(["git", "archive", "--format=tar", revision, "pipelint"], cwd=ROOT,
                             check=True, capture_output=True).stdout
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python >= 3.10.12
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, **safe)
    return into


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # waited-for children and theirs
    return usage.ru_utime + usage.ru_stime


def _run(tree: Path, args: list[str], cwd: Path) -> tuple[float, float, tuple[bytes, bytes, int]]:
    start, cpu = time.perf_counter(), _cpu_of_children()
    done = subprocess.run([sys.executable, "-c", _LAUNCH, str(tree), "check", *args], cwd=cwd,
                          capture_output=True)
    return (time.perf_counter() - start, _cpu_of_children() - cpu,
            (done.stdout, done.stderr, done.returncode))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="what to check (relative to --cwd)")
    parser.add_argument("--base", default="main", help="git revision of the base tree (default main)")
    parser.add_argument("--new", default=None, help="git revision of the new tree (default: the working tree)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--args", default="--select ALL --output-format concise --exit-zero",
                        help="extra `pipelint check` arguments, one string")
    parser.add_argument("--cwd", type=Path, default=ROOT, help="directory to run from (default: repo root)")
    options = parser.parse_args(argv)

    args = [*options.paths, *shlex.split(options.args)]
    print(f"load average before: {os.getloadavg()[0]:.2f}; cores: {os.cpu_count()}")
    with tempfile.TemporaryDirectory(prefix="pipelint-ab-") as scratch:
        trees = {"base": _extract(options.base, Path(scratch) / "base"),
                 "new": _extract(options.new, Path(scratch) / "new") if options.new else ROOT}
        times: dict[str, list[float]] = {"base": [], "new": []}
        cpu: dict[str, list[float]] = {"base": [], "new": []}
        outputs: dict[str, set[tuple[bytes, bytes, int]]] = {"base": set(), "new": set()}
        for round_ in range(options.rounds):
            order = ("base", "new") if round_ % 2 == 0 else ("new", "base")
            for side in order:
                elapsed, cpu_seconds, output = _run(trees[side], args, options.cwd)
                times[side].append(elapsed)
                cpu[side].append(cpu_seconds)
                outputs[side].add(output)
    identical = len(outputs["base"]) == 1 and outputs["base"] == outputs["new"]
    base, new = statistics.median(times["base"]), statistics.median(times["new"])
    print(f"base {options.base}: median {base:.3f} s  ({' '.join(f'{t:.2f}' for t in times['base'])})")
    print(f"new  {options.new or 'working tree'}: median {new:.3f} s  ({' '.join(f'{t:.2f}' for t in times['new'])})")
    print(f"ratio new/base: {new / base:.3f}")
    base_cpu, new_cpu = statistics.median(cpu["base"]), statistics.median(cpu["new"])
    print(f"CPU (user+sys) median: base {base_cpu:.3f} s, new {new_cpu:.3f} s, "
          f"ratio new/base {new_cpu / base_cpu:.3f}")
    print(f"stdout, stderr and exit code identical in every round: {'yes' if identical else 'NO'}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
