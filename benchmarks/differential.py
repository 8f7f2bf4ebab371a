"""Differential check: the same corpora through two pipelint trees -- are the findings identical?

For changes to pipelint's engine that must not change a single finding. The base tree is a git
revision (default `main`, extracted with `git archive` by `ab_check.py`'s helper); the new tree is
this working tree, or another revision (`--new`). For each corpus, each tree runs

    pipelint check --select ALL --output-format json --no-cache --exit-zero CORPUS

once (a subprocess of this interpreter, the tree first on `sys.path`, as `ab_check.py` launches
it), and the findings are compared as multisets of (path, cell, line, column, end_line,
end_column, code, message, fix); stderr and the exit code must match too.

Corpora (`--corpus`, repeatable; default: the first three; positional paths are checked too):

* `realcode`: the real-world files of benchmarks/realcode/manifest.json, extracted (offline, from
  the local mirrors) into a temporary directory, or into `--realcode-dir` (kept; files already
  there with the right sha256 are reused).
* `keras`: the installed keras package (`importlib.util.find_spec`, keras is not imported).
* `site-packages`: the whole directory holding `tensorflow/` (found the same way).
* any other value, and each positional argument: a directory (or file) of your own.

    python benchmarks/differential.py                                 # main vs working tree, all three
    python benchmarks/differential.py /tmp/pool2033                   # the three, then that directory
    python benchmarks/differential.py --base HEAD~1 --corpus keras /tmp/pool2033
    python benchmarks/differential.py --base abc123~1 --new abc123 --corpus realcode --jobs 2

Prints one line per corpus, `NAME: identical: N files, M findings [wall times]` or
`NAME: DIFFERENT: ...` followed by up to 20 differing findings (`-` only in base, `+` only in
new), then the totals. N is the number of files pipelint's own discovery handed to the check in
that run (a wrapper around `pipelint.discovery.discover` in the child records it; a tree without
that function falls back to counting the .py/.pyi/.ipynb files under the corpus, marked
"walked"). Exit status: 0 all identical, 1 a difference, 2 a corpus not found.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: import the sibling benchmarks by name
    sys.path.insert(0, str(ROOT))

from benchmarks import ab_check
from benchmarks.realcode import extract as realcode

CHECK_ARGS = ["--select", "ALL", "--output-format", "json", "--no-cache", "--exit-zero"]
NAMED_CORPORA = ("realcode", "keras", "site-packages")
SHOWN_DIFFERENCES = 20
FIELDS = ("path", "cell", "line", "column", "end_line", "end_column", "code", "message", "fix")
_COUNT_FILE = "PIPELINT_DIFFERENTIAL_COUNT"

# ab_check's launcher with one addition before the CLI runs: the number of files pipelint's
# discovery returns (its first call: the CLI's) is written to the file $PIPELINT_DIFFERENTIAL_COUNT.
_HOOK = textwrap.dedent(f"""
    import os, pipelint.discovery as _discovery
    if hasattr(_discovery, "discover"):
        _discover = _discovery.discover
        def _counting(*args, **kwargs):
            found = _discover(*args, **kwargs)
            if not os.path.exists(os.environ["{_COUNT_FILE}"]):
                with open(os.environ["{_COUNT_FILE}"], "w") as out:
                    out.write(str(len(found.files)))
            return found
        _discovery.discover = _counting
""")
_ANCHOR = "; from pipelint.cli import main"
assert _ANCHOR in ab_check._LAUNCH, "ab_check's launcher changed: update differential.py's hook"
_LAUNCH = ab_check._LAUNCH.replace(_ANCHOR, "\n" + _HOOK + "\n" + _ANCHOR[2:])


@dataclass
class Run:
    """One tree's `pipelint check` of one corpus."""

    stdout: bytes
    stderr: bytes
    returncode: int
    files: int | None = None  # as pipelint's discovery reported; None: not recorded
    wall: float = 0.0
    cpu: float = 0.0


@dataclass
class Comparison:
    only_base: list[tuple] = field(default_factory=list)  # findings (FIELDS order), with repeats
    only_new: list[tuple] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # stderr, exit code, file count, bad JSON
    findings: int = 0  # in base
    same_bytes: bool = True  # stdout byte-identical (order and the fields not compared included)

    @property
    def identical(self) -> bool:
        return not (self.only_base or self.only_new or self.problems)


def findings(stdout: bytes) -> Counter:
    """The JSON report as a multiset of FIELDS tuples (`fix` as canonical JSON, to be hashable)."""
    found: Counter = Counter()
    for item in json.loads(stdout):
        found[tuple(json.dumps(item.get(key), sort_keys=True) if key == "fix" else item.get(key)
                    for key in FIELDS)] += 1
    return found


def compare(base: Run, new: Run) -> Comparison:
    result = Comparison(same_bytes=base.stdout == new.stdout)
    parsed = {}
    for side, run in (("base", base), ("new", new)):
        try:
            parsed[side] = findings(run.stdout)
        except (ValueError, TypeError, AttributeError) as error:
            result.problems.append(f"{side}'s stdout is not a JSON list of findings ({error}): "
                                   f"{run.stdout[:200]!r}")
    if len(parsed) == 2:
        result.findings = sum(parsed["base"].values())
        result.only_base = sorted((parsed["base"] - parsed["new"]).elements(), key=_order)
        result.only_new = sorted((parsed["new"] - parsed["base"]).elements(), key=_order)
    if base.returncode != new.returncode:
        result.problems.append(f"exit code {base.returncode} (base) vs {new.returncode} (new)")
    if base.stderr != new.stderr:
        result.problems.append(f"stderr differs: base {_tail(base.stderr)!r} vs new {_tail(new.stderr)!r}")
    if base.files != new.files:
        result.problems.append(f"files read {base.files} (base) vs {new.files} (new)")
    return result


def _order(finding: tuple) -> tuple:
    return tuple("" if value is None else str(value).zfill(8) if isinstance(value, int) else value
                 for value in finding)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _tail(data: bytes, size: int = 300) -> bytes:
    return data if len(data) <= size else b"..." + data[-size:]


def _describe(finding: tuple) -> str:
    item = dict(zip(FIELDS, finding))
    cell = f"[cell {item['cell']}]" if item["cell"] is not None else ""
    fix = "" if item["fix"] == "null" else f" fix={item['fix']}"
    return (f"{item['path']}{cell}:{item['line']}:{item['column']}-{item['end_line']}:{item['end_column']} "
            f"{item['code']} {item['message']}{fix}")


def report(name: str, comparison: Comparison, base: Run, new: Run, files_note: str = "",
           differences: int = SHOWN_DIFFERENCES) -> list[str]:
    """The corpus's line (and, when it differs, up to `differences` findings)."""
    times = f"[wall base {base.wall:.1f} s, new {new.wall:.1f} s; CPU base {base.cpu:.1f} s, new {new.cpu:.1f} s]"
    files = "?" if base.files is None else str(base.files)
    if comparison.identical:
        order = "" if comparison.same_bytes else " (stdout not byte-identical: order or the fields not compared)"
        return [f"{name}: identical: {files} files{files_note}, {comparison.findings} findings {times}{order}"]
    counts = f"{_plural(len(comparison.only_base), 'finding')} only in base, {len(comparison.only_new)} only in new"
    why = "; ".join([counts, *comparison.problems])
    lines = [f"{name}: DIFFERENT: {why} ({files} files{files_note}, {comparison.findings} findings in base) {times}"]
    shown = [("-", f) for f in comparison.only_base] + [("+", f) for f in comparison.only_new]
    lines += [f"  {sign} {'base' if sign == '-' else 'new '}: {_describe(f)}" for sign, f in shown[:differences]]
    if len(shown) > differences:
        lines.append(f"  ... and {len(shown) - differences} more")
    return lines


def run_check(tree: Path, corpus: Path, extra: list[str], label: str = "") -> Run:
    """`pipelint check CHECK_ARGS corpus` from `tree`, run in the corpus's parent directory (so the
    findings' paths start with the corpus's name). On a terminal, a progress line on stderr."""
    progress = sys.stderr.isatty()
    with tempfile.TemporaryDirectory(prefix="pipelint-differential-") as scratch:
        count_file = Path(scratch) / "files"
        env = {**os.environ, _COUNT_FILE: str(count_file)}
        start, cpu = time.perf_counter(), ab_check._cpu_of_children()
        process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, str(tree), "check", *CHECK_ARGS, *extra, corpus.name],
            cwd=corpus.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        while True:
            try:
                stdout, stderr = process.communicate(timeout=1)
                break
            except subprocess.TimeoutExpired:
                if progress:
                    print(f"\r  {label}: {time.perf_counter() - start:.0f} s", end="", file=sys.stderr, flush=True)
        wall, cpu = time.perf_counter() - start, ab_check._cpu_of_children() - cpu
        if progress:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
        files = int(count_file.read_text()) if count_file.exists() else None
    return Run(stdout, stderr, process.returncode, files, wall, cpu)


def walked_files(corpus: Path) -> int:
    """The .py/.pyi/.ipynb files under `corpus` (the fallback count, ignoring pipelint's excludes)."""
    if corpus.is_file():
        return 1
    return sum(name.endswith((".py", ".pyi", ".ipynb"))
               for _, _, names in os.walk(corpus, followlinks=True) for name in names)


def _package_dir(name: str) -> Path | None:
    """Where `name` is installed, without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def resolve_corpus(name: str, scratch: Path, realcode_dir: Path | None) -> tuple[Path | None, str]:
    """The directory to check, or None and why not."""
    if name == "realcode":
        dest = realcode_dir or scratch / "realcode"
        problems = realcode.extract(dest, offline=True)
        wanted = len(realcode.load_manifest())
        note = (f"{wanted - len(problems)}/{wanted} manifest files extracted; first problem: {problems[0]}"
                if problems else "")
        if len(problems) == wanted:
            return None, note
        return dest.resolve(), note
    if name == "keras":
        found = _package_dir("keras")
        return found, "" if found else "keras is not installed in this interpreter"
    if name == "site-packages":
        found = _package_dir("tensorflow")
        return (found.parent, "") if found else (None, "tensorflow is not installed in this interpreter")
    path = Path(name).resolve()
    return (path, "") if path.exists() else (None, f"{name} does not exist")


def _describe_tree(revision: str | None) -> str:
    if revision is None:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=False)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "pipelint"], cwd=ROOT,
                               capture_output=True, text=True, check=False).stdout.strip()
        return f"working tree {ROOT} (HEAD {head.stdout.strip()}{', pipelint/ modified' if dirty else ''})"
    sha = subprocess.run(["git", "rev-parse", "--short", revision], cwd=ROOT, capture_output=True, text=True,
                         check=False)
    return f"{revision} ({sha.stdout.strip()})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=str, help="more corpora (directories or files), checked after the --corpus ones")
    parser.add_argument("--base", default="main", help="git revision of the base tree (default main)")
    parser.add_argument("--new", default=None, help="git revision of the new tree (default: the working tree)")
    parser.add_argument("--corpus", action="append", default=None,
                        help="realcode, keras, site-packages or a path; repeatable (default: the three named ones)")
    parser.add_argument("--realcode-dir", type=Path, default=None,
                        help="extract the realcode corpus here and keep it (default: a temporary directory)")
    parser.add_argument("--all-findings", action="store_true",
                        help="also pass --show-migrations --show-housekeeping --show-minor-speed: compare the "
                             "findings pipelint only counts by default too")
    parser.add_argument("--differences", type=int, default=SHOWN_DIFFERENCES,
                        help=f"how many differing findings to print per corpus (default {SHOWN_DIFFERENCES})")
    parser.add_argument("-j", "--jobs", type=int, default=None, help="passed to `pipelint check --jobs`")
    options = parser.parse_args(argv)

    names = list(options.corpus or NAMED_CORPORA)
    names += options.paths
    extra = ["--jobs", str(options.jobs)] if options.jobs else []
    if options.all_findings:
        extra += ["--show-migrations", "--show-housekeeping", "--show-minor-speed"]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cores: {os.cpu_count()}")
    print(f"base: {_describe_tree(options.base)}")
    print(f"new:  {_describe_tree(options.new)}")
    print(f"pipelint check {' '.join(CHECK_ARGS + extra)} CORPUS; files: as pipelint's discovery reported them")
    totals = {"corpora": 0, "identical": 0, "files": 0, "findings": 0, "base": 0.0, "new": 0.0}
    missing = 0
    with tempfile.TemporaryDirectory(prefix="pipelint-differential-") as scratch:
        trees = {"base": ab_check._extract(options.base, Path(scratch) / "base"),
                 "new": ab_check._extract(options.new, Path(scratch) / "new") if options.new else ROOT}
        for index, name in enumerate(names):
            corpus, note = resolve_corpus(name, Path(scratch), options.realcode_dir)
            if corpus is None:
                print(f"{name}: NOT RUN: {note}")
                missing += 1
                continue
            print(f"{name}: {corpus}" + (f" ({note})" if note else ""), flush=True)
            runs = {}
            for side in (("base", "new") if index % 2 == 0 else ("new", "base")):  # alternate who goes first
                runs[side] = run_check(trees[side], corpus, extra, label=f"{name}, {side}")
            files_note = ""
            if runs["base"].files is None or runs["new"].files is None:
                walked = walked_files(corpus)
                for run in runs.values():
                    run.files = walked if run.files is None else run.files
                files_note = " (walked)"
            comparison = compare(runs["base"], runs["new"])
            for line in report(name, comparison, runs["base"], runs["new"], files_note, options.differences):
                print(line, flush=True)
            totals["corpora"] += 1
            totals["identical"] += comparison.identical
            totals["files"] += runs["base"].files or 0
            totals["findings"] += comparison.findings
            totals["base"] += runs["base"].wall
            totals["new"] += runs["new"].wall
    verdict = "identical" if totals["identical"] == totals["corpora"] else "DIFFERENT"
    print(f"total: {verdict} ({totals['identical']}/{totals['corpora']} corpora identical"
          f"{f', {missing} not run' if missing else ''}): {totals['files']} files, {totals['findings']} findings "
          f"[wall base {totals['base']:.1f} s, new {totals['new']:.1f} s]")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if verdict != "identical":
        return 1
    return 2 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
