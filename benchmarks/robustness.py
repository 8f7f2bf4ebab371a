"""Robustness sweep: run pipelint's engine over every `.py` file of the installed site-packages.

Every file goes through `pipelint.engine.check_file` with ALL rules selected (default-off ones
included), in a process pool. The sweep reports how many files and lines were checked, how long it
took, the findings per rule, and the engine codes:

* `PL000 internal-error` must never happen: each one is listed with its message (exit 1).
* `PL001 parse-error`: each file is re-compiled with CPython's own `compile()`. Site-packages hold
  genuinely invalid files (Python 2 modules, templates, test data); a PL001 on a file CPython
  accepts is a pipelint bug and is listed as such (exit 1).
* `PL002 unreadable-file`: listed; one on a file CPython compiles is flagged as suspicious (it
  does not change the exit code).
* an exception escaping `check_file` (it must turn every failure into a diagnostic), a worker
  process dying on a file (a segfault in native code) or a file running past `--timeout` is a
  crash (exit 1); the sweep carries on with the other files.

    python benchmarks/robustness.py                       # the whole purelib, 2 workers
    python benchmarks/robustness.py --sample 500          # every k-th of the sorted paths
    python benchmarks/robustness.py --root DIR --json out.json --jobs 4
    python benchmarks/robustness.py --force-parse         # bypass the pre-filters: parse every file

`--force-parse` disables the "mentions tensorflow" and per-rule trigger pre-filters, so every file
is parsed with libcst and interpreted by the pipeline model: much slower, much more coverage of the
model and the rules on code that is not a training script.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import sys
import sysconfig
import tempfile
import time
import traceback
import warnings
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

# A file taking longer than this is listed among the slow ones in the report.
SLOW_SECONDS = 5.0
# A file taking longer than this is abandoned and reported as a crash (a hang).
DEFAULT_TIMEOUT = 300.0


@dataclass
class FileOutcome:
    path: str  # display path (relative to the root it was found under)
    lines: int = 0
    seconds: float = 0.0
    codes: list[str] = field(default_factory=list)
    # (code, line, column, message) of every engine diagnostic (PL000-PL003)
    engine: list[tuple[str, int, int, str]] = field(default_factory=list)
    cpython_error: str | None = None  # only computed for PL001/PL002 files; None = compiles
    crash: str | None = None  # traceback of an exception that escaped check_file


@dataclass
class SweepReport:
    roots: list[str]
    files: int = 0
    lines: int = 0
    seconds: float = 0.0
    jobs: int = 1
    force_parse: bool = False
    findings_per_rule: dict[str, int] = field(default_factory=dict)
    pl000: list[dict] = field(default_factory=list)
    pl001_genuine: list[dict] = field(default_factory=list)
    pl001_bugs: list[dict] = field(default_factory=list)  # PL001 on a file CPython compiles
    pl002: list[dict] = field(default_factory=list)
    pl002_suspicious: list[dict] = field(default_factory=list)  # PL002 on a file CPython compiles
    pl003: int = 0
    crashes: list[dict] = field(default_factory=list)
    slow_files: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.pl000 and not self.pl001_bugs and not self.crashes

    def to_json(self) -> dict:
        data = asdict(self)
        data["ok"] = self.ok
        return data


# --------------------------------------------------------------------------------------------
# Files


def default_roots() -> list[Path]:
    return [Path(sysconfig.get_paths()["purelib"])]


def collect(roots: Sequence[Path]) -> list[tuple[Path, str]]:
    """(absolute path, display path) of every `.py` file below `roots`, sorted, deduplicated.

    Symlinked directories are not followed (no loops, no double counting); symlinked files are.
    """
    seen: set[str] = set()
    out: list[tuple[Path, str]] = []
    for root in roots:
        root = Path(root).resolve()
        if root.is_file():
            if str(root) not in seen:
                seen.add(str(root))
                out.append((root, root.name))
            continue
        label = root.name
        for directory, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(".py"):
                    continue
                full = os.path.join(directory, name)
                if full in seen or not os.path.isfile(full):
                    continue
                seen.add(full)
                out.append((Path(full), label + "/" + os.path.relpath(full, root).replace(os.sep, "/")))
    out.sort(key=lambda item: item[1])
    return out


def sample(files: Sequence, n: int | None) -> list:
    """Deterministic sample: every k-th of the (sorted) files so that `n` of them are taken."""
    if n is None or n <= 0 or n >= len(files):
        return list(files)
    step = len(files) / n
    return [files[int(i * step)] for i in range(n)]


# --------------------------------------------------------------------------------------------
# Worker

_SETTINGS = None
_TIMEOUT: float | None = None
_BUSY_DIR: str | None = None


class FileTimeout(BaseException):
    """Raised in a worker when one file runs past the timeout (a BaseException, so that the
    engine's `except Exception` cannot turn it into a PL000)."""


def _alarm(signum, frame):
    raise FileTimeout()


def _init_worker(force_parse: bool, timeout: float | None = None, busy_dir: str | None = None) -> None:
    global _SETTINGS, _TIMEOUT, _BUSY_DIR
    _TIMEOUT, _BUSY_DIR = timeout, busy_dir
    if timeout and hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _alarm)
    import re

    import pipelint.engine as engine
    from pipelint.config import CliOverrides, load_settings

    warnings.simplefilter("ignore")
    _SETTINGS = load_settings(None, CliOverrides(select=("ALL",)), Path.cwd())
    if force_parse:
        always = re.compile("")
        engine._MENTIONS_TF = always
        engine._trigger_pattern = lambda codes: always


def cpython_error(data: bytes, path: str) -> str | None:
    """Why CPython refuses to compile `data`, or None when it compiles."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, path, "exec", dont_inherit=True)
    except SyntaxError as error:
        return f"{type(error).__name__}: {error.msg} (line {error.lineno})"
    except (ValueError, MemoryError, RecursionError, OverflowError) as error:
        return f"{type(error).__name__}: {error}"
    return None


def check_one(task: tuple[str, str]) -> FileOutcome:
    from pipelint.engine import check_file

    path_str, display = task
    path = Path(path_str)
    outcome = FileOutcome(display)
    try:
        data = path.read_bytes()
    except OSError as error:
        data = b""
        outcome.cpython_error = f"OSError: {error.strerror}"
    outcome.lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    busy = Path(_BUSY_DIR) / str(os.getpid()) if _BUSY_DIR else None
    if busy is not None:
        busy.write_text(path_str, encoding="utf-8", errors="surrogateescape")
    start = time.perf_counter()
    try:
        if _TIMEOUT and hasattr(signal, "SIGALRM"):
            signal.setitimer(signal.ITIMER_REAL, _TIMEOUT)
        result = check_file(path, display, _SETTINGS)
    except FileTimeout:
        outcome.seconds = time.perf_counter() - start
        outcome.crash = f"timed out after {_TIMEOUT:g} s"
        return outcome
    except BaseException as error:  # noqa: BLE001 - check_file must never raise: record it
        if isinstance(error, KeyboardInterrupt):
            raise
        outcome.seconds = time.perf_counter() - start
        outcome.crash = "".join(traceback.format_exception(error)).strip()
        return outcome
    finally:
        if _TIMEOUT and hasattr(signal, "SIGALRM"):
            signal.setitimer(signal.ITIMER_REAL, 0)
        if busy is not None:
            busy.unlink(missing_ok=True)
    outcome.seconds = time.perf_counter() - start
    outcome.codes = [d.code for d in result.diagnostics]
    outcome.engine = [(d.code, d.line, d.column, d.message)
                      for d in result.diagnostics if d.code.startswith("PL0")]
    if any(code in ("PL001", "PL002") for code, *_ in outcome.engine) and data:
        outcome.cpython_error = cpython_error(data, path_str)
    return outcome


# --------------------------------------------------------------------------------------------
# Sweep


def sweep(files: Sequence[tuple[Path, str]], jobs: int = 2, force_parse: bool = False,
          roots: Iterable[Path] = (), progress: bool = False,
          timeout: float | None = DEFAULT_TIMEOUT) -> SweepReport:
    """Check `files`; a file that kills its worker (a segfault in a native parser) or runs past
    `timeout` seconds is recorded as a crash, and the sweep carries on with the others."""
    report = SweepReport(roots=[str(r) for r in roots], jobs=jobs, force_parse=force_parse)
    tasks = [(str(path), display) for path, display in files]
    start = time.perf_counter()
    if jobs <= 1:
        _init_worker(force_parse, timeout, None)
        _accumulate(report, (check_one(task) for task in tasks), len(tasks), progress)
    else:
        _accumulate(report, _pooled(tasks, jobs, force_parse, timeout), len(tasks), progress)
    report.seconds = round(time.perf_counter() - start, 2)
    report.slow_files.sort(key=lambda item: -item["seconds"])
    report.findings_per_rule = dict(sorted(report.findings_per_rule.items(),
                                           key=lambda item: (-item[1], item[0])))
    for bucket in (report.pl000, report.pl001_genuine, report.pl001_bugs, report.pl002,
                   report.pl002_suspicious, report.crashes):
        bucket.sort(key=lambda item: item["path"])
    return report


def _pooled(tasks: list[tuple[str, str]], jobs: int, force_parse: bool,
            timeout: float | None) -> Iterator[FileOutcome]:
    """Outcomes from a process pool; when a worker dies, the files it held are reported as
    crashes and a fresh pool takes the rest."""
    # Import the engine (and every rule) before forking, so that all workers run the same snapshot
    # of the code even while the sources are being edited.
    import pipelint.engine  # noqa: F401
    import pipelint.rules

    pipelint.rules.all_rules()
    context = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
    pending = dict(enumerate(tasks))
    with tempfile.TemporaryDirectory(prefix="pipelint-sweep-") as busy_dir:
        while pending:
            with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker,
                                     initargs=(force_parse, timeout, busy_dir)) as pool:
                futures = {pool.submit(check_one, task): index for index, task in pending.items()}
                try:
                    for future in as_completed(futures):
                        outcome = future.result()
                        del pending[futures[future]]
                        yield outcome
                except BrokenProcessPool:
                    pass
            # The pool broke: one of the files the workers held killed its worker (and the
            # executor stopped the others). Check each of them alone to find the culprit.
            suspects = set()
            for marker in Path(busy_dir).iterdir():
                suspects.add(marker.read_text(encoding="utf-8", errors="surrogateescape"))
                marker.unlink()
            for index, task in list(pending.items()):
                if task[0] in suspects:
                    del pending[index]
                    yield _isolated(task, context, force_parse, timeout, busy_dir)
            if pending and not suspects:  # pragma: no cover - should not happen
                raise RuntimeError("the process pool broke without a culprit")


def _isolated(task: tuple[str, str], context, force_parse: bool, timeout: float | None,
              busy_dir: str) -> FileOutcome:
    with ProcessPoolExecutor(1, mp_context=context, initializer=_init_worker,
                             initargs=(force_parse, timeout, busy_dir)) as pool:
        try:
            return pool.submit(check_one, task).result()
        except BrokenProcessPool:
            for marker in Path(busy_dir).iterdir():
                marker.unlink()
            return FileOutcome(task[1], crash="the worker process died while checking this file "
                               "(a crash in native code, e.g. a segfault in libcst's parser)")


def _accumulate(report: SweepReport, outcomes: Iterable[FileOutcome], total: int, progress: bool) -> None:
    counts: Counter[str] = Counter()
    for index, outcome in enumerate(outcomes, start=1):
        report.files += 1
        report.lines += outcome.lines
        counts.update(outcome.codes)
        if outcome.seconds >= SLOW_SECONDS:
            report.slow_files.append({"path": outcome.path, "seconds": round(outcome.seconds, 2),
                                      "lines": outcome.lines})
        if outcome.crash is not None:
            report.crashes.append({"path": outcome.path, "traceback": outcome.crash})
        for code, line, column, message in outcome.engine:
            item = {"path": outcome.path, "line": line, "column": column, "message": message}
            if code == "PL000":
                report.pl000.append(item)
            elif code == "PL001":
                if outcome.cpython_error is None:
                    report.pl001_bugs.append(item)
                else:
                    report.pl001_genuine.append(dict(item, cpython=outcome.cpython_error))
            elif code == "PL002":
                report.pl002.append(item)
                if outcome.cpython_error is None:
                    report.pl002_suspicious.append(item)
            elif code == "PL003":
                report.pl003 += 1
        if progress and index % 500 == 0:
            print(f"  ... {index}/{total} files", file=sys.stderr, flush=True)
    report.findings_per_rule = dict(counts)


# --------------------------------------------------------------------------------------------
# Report


def format_report(report: SweepReport, limit: int = 50) -> str:
    out = []
    rate = report.lines / report.seconds if report.seconds else 0.0
    out.append(f"pipelint robustness sweep over {', '.join(report.roots) or '(files)'}")
    out.append(f"  files: {report.files}   lines: {report.lines}   seconds: {report.seconds:.1f}"
               f"   ({rate:,.0f} lines/s, {report.jobs} worker{'s' if report.jobs != 1 else ''}"
               f"{', force-parse' if report.force_parse else ''})")
    out.append(f"  PL000 internal errors: {len(report.pl000)}")
    out.append(f"  PL001 parse errors:    {len(report.pl001_genuine) + len(report.pl001_bugs)}"
               f" ({len(report.pl001_genuine)} genuinely invalid, {len(report.pl001_bugs)} accepted by CPython)")
    out.append(f"  PL002 unreadable:      {len(report.pl002)}"
               f" ({len(report.pl002_suspicious)} of them compile with CPython)")
    out.append(f"  PL003 bad suppression: {report.pl003}")
    out.append(f"  crashes (exception, dead worker, timeout): {len(report.crashes)}")
    out.append("")
    out.append("Findings per rule:")
    if not report.findings_per_rule:
        out.append("  (none)")
    for code, count in report.findings_per_rule.items():
        out.append(f"  {code}  {count}")

    def section(title: str, items: list[dict], render) -> None:
        if not items:
            return
        out.append("")
        out.append(f"{title} ({len(items)}):")
        for item in items[:limit]:
            out.append("  " + render(item))
        if len(items) > limit:
            out.append(f"  ... and {len(items) - limit} more")

    section("BUG: PL000 internal errors", report.pl000,
            lambda i: f"{i['path']}:{i['line']}:{i['column']}: {i['message']}")
    section("BUG: PL001 on files CPython compiles", report.pl001_bugs,
            lambda i: f"{i['path']}:{i['line']}:{i['column']}: {i['message']}")
    section("BUG: crashes (exception escaping check_file, dead worker, timeout)", report.crashes,
            lambda i: f"{i['path']}:\n    " + i["traceback"].replace("\n", "\n    "))
    section("PL001 on genuinely invalid files", report.pl001_genuine,
            lambda i: f"{i['path']}:{i['line']}:{i['column']}: {i['message']}  [CPython: {i['cpython']}]")
    section("PL002 unreadable files", report.pl002,
            lambda i: f"{i['path']}: {i['message']}")
    section("Suspicious: PL002 on files CPython compiles", report.pl002_suspicious,
            lambda i: f"{i['path']}: {i['message']}")
    section(f"Slow files (>= {SLOW_SECONDS:g} s)", report.slow_files,
            lambda i: f"{i['path']}: {i['seconds']} s ({i['lines']} lines)")
    out.append("")
    out.append("OK" if report.ok else "FAILED: PL000, a PL001 CPython accepts, or a crash")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", action="append", type=Path,
                        help="directory (or file) to sweep; repeatable (default: the purelib site-packages)")
    parser.add_argument("--sample", type=int, default=None, metavar="N",
                        help="check N files: every k-th of the sorted paths")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="also write the report as JSON")
    parser.add_argument("--force-parse", action="store_true",
                        help="bypass the pre-filters and parse every file with libcst")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds per file before it counts as a hang (default {DEFAULT_TIMEOUT:g}; 0: none)")
    parser.add_argument("--limit", type=int, default=50, help="items listed per section (default 50)")
    parser.add_argument("--progress", action="store_true", help="print progress on stderr")
    args = parser.parse_args(argv)

    roots = args.root or default_roots()
    files = sample(collect(roots), args.sample)
    report = sweep(files, jobs=max(1, args.jobs), force_parse=args.force_parse, roots=roots,
                   progress=args.progress, timeout=args.timeout or None)
    print(format_report(report, limit=args.limit))
    if args.json is not None:
        args.json.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
