"""Where a cold `pipelint check` spends its time: by phase, by rule and by function (issue 31, item 1).

One cold check (no result cache, `--select ALL` unless told otherwise) of a tree, in one process
(`jobs=1`), as `pipelint check --no-cache` runs it: discover -> `ProjectIndex.build` ->
`check_files` -> `shown_findings` + `render`. Each file's check runs on the engine's deep-stack
thread (`engine.run_with_deep_stack`); both measurements below cover that thread.

Two passes, each in a fresh child process so that both are cold (imports, rule instances, regex
and trigger caches, libcst's grammar):

* **phases**: small wrappers, installed by this script only (pipelint's code is unchanged), time
  the engine's own phase functions with `time.perf_counter`. Time is *own* time: a wrapped call
  inside another (the `ast.parse` of `ProjectIndex.build`, the libcst parse of another module
  reached while a model is built) counts for its own phase and is taken out of the outer one,
  so the phases add up to the total; what no wrapper covers (the loops of `check_files` and
  `lint_source`, thread start-up, settings per file) is the "other" row.
* **functions**: cProfile, one profiler on the main thread (switched off while it waits for the
  check thread) and one switched on inside each check thread; the top N functions by own time.
  cProfile slows Python code far more than C code (libcst's native parser, `ast.parse`), so the
  phase table comes from the unprofiled pass.

Phases (and what each wraps):

    import        importing the engine, libcst and every rule (a cold CLI run pays it)
    discover      discovery.discover (walk, excludes, .gitignore)
    config        SettingsResolver.for_path (a Settings per file)
    read          file bytes: index._source (read + utf-8 decode + key digest, for the index),
                  Path.read_bytes (the engine's read), engine._decode (PEP 263)
    pre-filter    the text tests that skip files: suppressions.has_skip_file, engine._MENTIONS_TF,
                  model.inference.may_use_datasets, engine._could_fire
    parse         ast.parse (index and engine; not the one inside ast.literal_eval, which libcst's
                  `evaluated_value` runs for the model and rules: that stays with its caller) and
                  libcst.parse_module (engine and project context)
    index         ProjectIndex.build (less its reads and parses) and ProjectContext.view
    target        Settings.target_for (the TensorFlow/Keras each file is written for)
    model         PipelineModel.build (the interpreter; other modules' runs it starts)
    rules         each rule's check (per rule below), engine._across_modules
    positions     engine._to_diagnostics (libcst position metadata for the nodes with findings,
                  fixes' edits, the Diagnostic objects)
    suppressions  engine._suppressed (noqa comments: tokenize)
    report        results.shown_findings + reporters.render

Not separable cleanly (said in the output too): the model is partly lazy, so what a rule asks of
it the first time is counted under that rule; the index's own text tests (which modules could
touch a dataset) are counted under index, not pre-filter; in `--no-cache` the index and the
engine each read every file (both counted under read).

    python benchmarks/profile_phases.py examples/
    python benchmarks/profile_phases.py .venv/lib/python3.11/site-packages/keras --top 15 --json keras.json
    python benchmarks/profile_phases.py /tmp/realcode --select-default     # the default rule set

The load average and core count are printed beside the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PHASES = ("import", "discover", "config", "read", "pre-filter", "parse", "index", "target", "model",
          "rules", "positions", "suppressions", "report")

NOT_SEPARATED = (
    ("model vs rules: the model answers some questions lazily, so what a rule asks first is counted "
     "under that rule"),
    ("pre-filter vs index: ProjectIndex.build's own text tests (could a module touch a dataset) count "
     "under index"),
    ("read: with --no-cache the index and the engine each read every file (both counted); the index's "
     "read includes its utf-8 decode and key digest"),
    "functions: cProfile inflates Python code more than C code; its times are for ranking only",
)


class Phases:
    """Own time per (phase, detail): nested wrapped calls are taken out of the outer one."""

    def __init__(self) -> None:
        self.own: dict[tuple[str, str], float] = defaultdict(float)
        self.calls: Counter[tuple[str, str]] = Counter()
        self._stack: list[list[float]] = []

    def add(self, phase: str, detail: str, seconds: float) -> None:
        self.own[(phase, detail)] += seconds
        self.calls[(phase, detail)] += 1

    def wrap(self, phase: str, detail: str, function):
        stack, own, calls = self._stack, self.own, self.calls
        key = (phase, detail)

        def timed(*args, **kwargs):
            stack.append([0.0])
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                own[key] += elapsed - stack.pop()[0]
                calls[key] += 1
                if stack:
                    stack[-1][0] += elapsed

        timed.__wrapped__ = function
        return timed


_LITERAL_EVAL_CODE = __import__("ast").literal_eval.__code__


class _TimedPattern:
    """Stands in for a compiled regex whose `.search` is a pre-filter test."""

    def __init__(self, pattern, search) -> None:
        self._pattern, self.search = pattern, search

    def __getattr__(self, name):
        return getattr(self._pattern, name)


def _install_phase_wrappers(phases: Phases) -> None:
    import ast
    import pathlib

    import libcst

    from pipelint import discovery, engine, results
    from pipelint.config import loading, settings
    from pipelint.model import PipelineModel
    from pipelint.project import context, index

    w = phases.wrap
    discovery.discover = w("discover", "discovery.discover", discovery.discover)
    loading.SettingsResolver.for_path = w("config", "SettingsResolver.for_path", loading.SettingsResolver.for_path)
    index._source = w("read", "index._source (read, decode, digest)", index._source)
    pathlib.Path.read_bytes = w("read", "Path.read_bytes (engine)", pathlib.Path.read_bytes)
    engine._decode = w("read", "engine._decode (PEP 263)", engine._decode)
    engine.has_skip_file = w("pre-filter", "has_skip_file", engine.has_skip_file)
    engine._MENTIONS_TF = _TimedPattern(engine._MENTIONS_TF, w("pre-filter", "_MENTIONS_TF.search",
                                                               engine._MENTIONS_TF.search))
    engine.may_use_datasets = w("pre-filter", "may_use_datasets", engine.may_use_datasets)
    engine._could_fire = w("pre-filter", "_could_fire (rule triggers)", engine._could_fire)
    # ast.literal_eval parses too (libcst's `evaluated_value` of every string and number the model
    # reads): that is the caller's work, not a parse of a file, so it stays in the caller's phase.
    plain_parse, timed_parse = ast.parse, w("parse", "ast.parse", ast.parse)

    def parse(*args, **kwargs):
        if sys._getframe(1).f_code is _LITERAL_EVAL_CODE:
            return plain_parse(*args, **kwargs)
        return timed_parse(*args, **kwargs)

    ast.parse = parse
    libcst.parse_module = w("parse", "libcst.parse_module", libcst.parse_module)
    build = index.ProjectIndex.build.__func__
    index.ProjectIndex.build = classmethod(w("index", "ProjectIndex.build", build))
    context.ProjectContext.view = w("index", "ProjectContext.view", context.ProjectContext.view)
    settings.Settings.target_for = w("target", "Settings.target_for", settings.Settings.target_for)
    model_build = PipelineModel.build.__func__
    PipelineModel.build = classmethod(w("model", "PipelineModel.build", model_build))
    for code in engine._checkable_codes(engine.all_rules()):
        rule = engine._rule(code)  # the instance the engine will use: its check timed per rule
        rule.check = w("rules", code, rule.check)
    engine._across_modules = w("rules", "engine._across_modules", engine._across_modules)
    engine._to_diagnostics = w("positions", "engine._to_diagnostics", engine._to_diagnostics)
    engine._suppressed = w("suppressions", "engine._suppressed", engine._suppressed)
    results.shown_findings = w("report", "shown_findings", results.shown_findings)


def _imports() -> None:
    import libcst  # noqa: F401

    from pipelint import engine  # noqa: F401
    from pipelint.reporters import render  # noqa: F401
    from pipelint.rules import all_rules

    for rule in all_rules().values():
        rule()


def _check(path: str, select: tuple[str, ...] | None, output_format: str) -> tuple[int, int, int]:
    """The cold check `pipelint check PATH --no-cache --jobs 1` does; (files, findings, report bytes)."""
    from pipelint import discovery, engine, reporters, results
    from pipelint.config import CliOverrides, SettingsResolver

    resolver = SettingsResolver(CliOverrides(select=select))
    found = discovery.discover([path], resolver)
    checked = engine.check_files(found.files, resolver, jobs=1)
    diagnostics, left_out = results.shown_findings(checked, resolver)
    render = reporters.render
    start = time.perf_counter()
    text = render(diagnostics, output_format, files_checked=len(checked), left_out=left_out)
    if _PHASES_NOW is not None:
        _PHASES_NOW.add("report", "render", time.perf_counter() - start)
    return len(checked), len(diagnostics), len(text)


_PHASES_NOW: Phases | None = None


def _child(mode: str, path: str, select: tuple[str, ...] | None, output_format: str, top: int) -> dict:
    global _PHASES_NOW
    sys.path.insert(0, str(ROOT))
    start, cpu = time.perf_counter(), time.process_time()
    _imports()
    imported = time.perf_counter() - start
    if mode == "phases":
        phases = _PHASES_NOW = Phases()
        phases.add("import", "pipelint.engine, libcst, rules", imported)
        _install_phase_wrappers(phases)
        files, findings, size = _check(path, select, output_format)
        total = time.perf_counter() - start
        rows = defaultdict(float)
        for (phase, _), seconds in phases.own.items():
            rows[phase] += seconds
        return {"mode": mode, "total_s": total, "cpu_s": time.process_time() - cpu, "files": files,
                "findings": findings, "report_chars": size,
                "phases": {phase: rows.get(phase, 0.0) for phase in PHASES},
                "other_s": total - sum(rows.values()),
                "details": [{"phase": phase, "detail": detail, "seconds": seconds,
                             "calls": phases.calls[(phase, detail)]}
                            for (phase, detail), seconds in sorted(phases.own.items(), key=lambda kv: -kv[1])]}
    import cProfile
    import pstats

    from pipelint import engine

    main_profile, check_profile = cProfile.Profile(), cProfile.Profile()
    deep_stack = engine.run_with_deep_stack

    def profiled(function, *args):
        def inside(*inner):
            check_profile.enable()
            try:
                return function(*inner)
            finally:
                check_profile.disable()

        main_profile.disable()  # the main thread only waits for the check thread meanwhile
        try:
            return deep_stack(inside, *args)
        finally:
            main_profile.enable()

    engine.run_with_deep_stack = profiled
    begun = time.perf_counter()
    main_profile.enable()
    try:
        files, findings, _ = _check(path, select, output_format)
    finally:
        main_profile.disable()
    profiled_total = time.perf_counter() - begun
    stats = pstats.Stats(main_profile)
    stats.add(check_profile)
    own_total = sum(entry[2] for entry in stats.stats.values())
    ranked = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]
    by_package: dict[str, float] = defaultdict(float)
    for key, entry in stats.stats.items():
        by_package[_package_of(key[0])] += entry[2]
    return {"mode": mode, "profiled_total_s": profiled_total, "own_total_s": own_total, "files": files,
            "findings": findings,
            "functions": [{"function": _label(key), "own_s": entry[2], "cumulative_s": entry[3],
                           "calls": entry[1], "share": entry[2] / own_total if own_total else 0.0}
                          for key, entry in ranked],
            "by_package": dict(sorted(by_package.items(), key=lambda kv: -kv[1]))}


def _short(file: str) -> str:
    for marker in ("site-packages/", "/lib/python3"):
        if marker in file:
            return file.split(marker, 1)[1].lstrip("/").removeprefix(".11/").removeprefix("11/")
    try:
        return str(Path(file).resolve().relative_to(ROOT))
    except ValueError:
        return file


def _label(key: tuple[str, int, str]) -> str:
    file, line, name = key
    if file == "~":
        return name
    return f"{_short(file)}:{line}({name})"


def _package_of(file: str) -> str:
    if file == "~":
        return "builtins (C)"
    short = _short(file)
    parts = short.split("/")
    if parts[0] == "pipelint" and len(parts) > 2:
        return "/".join(parts[:2])
    if parts[0] == "pipelint":
        return short
    if "site-packages/" in file:
        return parts[0]
    if parts[0] == "benchmarks":
        return "benchmarks (this script)"
    return "stdlib"


def _run_child(mode: str, options: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix="pipelint-prof-") as scratch:
        out = Path(scratch) / "out.json"
        command = [sys.executable, str(Path(__file__).resolve()), options.path, "--_child", mode, "--_out", str(out),
                   "--top", str(options.top), "--output-format", options.output_format]
        if options.select_default:
            command.append("--select-default")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{mode} pass failed ({done.returncode}):\n{done.stderr[-4000:]}")
        return json.loads(out.read_text())


def _print_phases(result: dict) -> None:
    total = result["total_s"]
    print(f"cold check, one process: {result['files']} files, {result['findings']} findings shown, "
          f"{total:.2f} s wall, {result['cpu_s']:.2f} s CPU")
    print(f"{'phase':<14}{'seconds':>9}{'share':>8}")
    for phase in PHASES:
        seconds = result["phases"][phase]
        print(f"{phase:<14}{seconds:>9.3f}{seconds / total:>8.1%}")
    print(f"{'other':<14}{result['other_s']:>9.3f}{result['other_s'] / total:>8.1%}   (loops, threads, glue)")
    print(f"{'total':<14}{total:>9.3f}{1:>8.1%}")
    print("\nby detail (own time):")
    print(f"  {'phase':<13}{'detail':<40}{'seconds':>9}{'calls':>8}")
    for row in result["details"]:
        if row["seconds"] >= 0.0005 or row["phase"] != "rules":
            print(f"  {row['phase']:<13}{row['detail']:<40}{row['seconds']:>9.3f}{row['calls']:>8}")


def _print_functions(result: dict, top: int) -> None:
    print(f"\ntop {top} functions by own time (cProfile pass: {result['profiled_total_s']:.2f} s wall under "
          f"the profiler, {result['own_total_s']:.2f} s own time in all)")
    print(f"{'own s':>8}{'share':>7}{'cum s':>8}{'calls':>10}  function")
    for row in result["functions"]:
        print(f"{row['own_s']:>8.3f}{row['share']:>7.1%}{row['cumulative_s']:>8.2f}{row['calls']:>10}  {row['function']}")
    print("\nown time by package (cProfile pass):")
    total = result["own_total_s"]
    for package, seconds in list(result["by_package"].items())[:12]:
        print(f"{seconds:>8.3f}{seconds / total:>7.1%}  {package}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="the tree (or file) to check")
    parser.add_argument("--top", type=int, default=15, help="functions to list (default 15)")
    parser.add_argument("--json", type=Path, default=None, help="write both passes' figures here")
    parser.add_argument("--select-default", action="store_true", help="the default rules, not --select ALL")
    parser.add_argument("--output-format", default="full", help="reporter timed in the report phase (default full)")
    parser.add_argument("--no-functions", action="store_true", help="skip the cProfile pass")
    parser.add_argument("--_child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--_out", default=None, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    select = None if options.select_default else ("ALL",)
    if options._child:
        result = _child(options._child, options.path, select, options.output_format, options.top)
        Path(options._out).write_text(json.dumps(result))
        return 0

    load_before = os.getloadavg()
    print(f"{options.path}  (rules: {'default' if select is None else 'ALL'}, jobs 1, no cache)")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}; cores: {os.cpu_count()}\n")
    phases = _run_child("phases", options)
    _print_phases(phases)
    functions = None if options.no_functions else _run_child("functions", options)
    if functions is not None:
        _print_functions(functions, options.top)
    load_after = os.getloadavg()
    print("\nnot separated cleanly:")
    for line in NOT_SEPARATED:
        print(f"  - {line}")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in load_after)}")
    if options.json is not None:
        options.json.write_text(json.dumps({"path": options.path, "select": select or "default",
                                            "cores": os.cpu_count(), "load_before": load_before,
                                            "load_after": load_after, "phases": phases, "functions": functions,
                                            "not_separated": NOT_SEPARATED}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
