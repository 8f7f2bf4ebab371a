"""Check files: read (PEP 263), pre-filter, parse once, build the pipeline model once, run the rules.

Per file: decode bytes -> skip it unless it names TensorFlow/Keras and holds a word some enabled
rule needs (`Rule.triggers`) -> CPython's `ast` (the judge of syntax: PL001) -> `libcst` ->
`PipelineModel.build` (the one traversal) -> every enabled rule queries the model -> positions
for just the statements with findings -> suppressions -> sorted diagnostics. Each check runs on
a deep-stack thread; files are spread over worker processes; output order is deterministic.
"""
from __future__ import annotations

import ast
import os
import re
import stat
import sys
import threading
import warnings
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

import libcst as cst

from pipelint.codes import CODES, ENGINE_CODES
from pipelint.diagnostics import Diagnostic, Edit, Fix, Impact
from pipelint.fixes import applicable, apply_fixes
from pipelint.model import SMALL_DATA_IMAGES, PipelineModel
from pipelint.model.inference import may_use_datasets
from pipelint.notebook import (Notebook, NotebookError, Program, build_program, is_notebook_path,
                               mask_cell, notebook_api_evidence, parse_notebook, replace_sources)
from pipelint.positions import StatementIndex, node_positions
from pipelint.results import DisplayPaths, FileResult, FixMode
from pipelint.rules import Rule, RuleContext, all_rules
from pipelint.rules.base import Finding
from pipelint.sources import decode as _decode
from pipelint.suppressions import has_skip_file, parse_suppressions
from pipelint.target import Target, target_for

if TYPE_CHECKING:
    from pipelint.config import Settings, SettingsResolver
    from pipelint.project import ProjectIndex
    from pipelint.project.context import ModuleView, ProjectContext

# A file that never names TensorFlow or Keras cannot build a tf.data pipeline or compile a Keras
# model, so it is not parsed at all (most of a large tree, and most of the cost).
_MENTIONS_TF = re.compile(r"\b(?:tensorflow|keras|tf|tfds)\b")
_MAX_FIX_ROUNDS = 8
# Below this many files a process pool costs more to start than it saves.
_MIN_FILES_FOR_POOL = 16


def _engine_diagnostic(path: str, code: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    info = CODES[code]
    return Diagnostic(path, line, column, line, column, code, info.name, message, info.severity, info.impact)


# libcst's parser and the model recurse once per nesting level of an expression; valid code such
# as an 8,000-term `or` chain needs more than the 8 MiB main-thread stack (libcst then crashes
# the process) and more than Python's default recursion limit. Checks run on a thread with room.
_DEEP_STACK_BYTES = 512 * 1024 * 1024
_DEEP_RECURSION_LIMIT = 60_000


def run_with_deep_stack(function, *args):
    """Call `function(*args)` on a thread with a large stack; return its result or raise its error."""
    outcome: list = []

    def target() -> None:
        try:
            outcome.append((True, function(*args)))
        except BaseException as error:  # noqa: BLE001 - handed back to the caller's thread
            outcome.append((False, error))

    if sys.getrecursionlimit() < _DEEP_RECURSION_LIMIT:
        sys.setrecursionlimit(_DEEP_RECURSION_LIMIT)
    previous = threading.stack_size(_DEEP_STACK_BYTES)
    try:
        worker = threading.Thread(target=target, name="pipelint-check")
        worker.start()
    finally:
        threading.stack_size(previous)
    worker.join()
    ok, value = outcome[0]
    if ok:
        return value
    raise value


_RULE_INSTANCES: dict[str, Rule] = {}


def _rule(code: str) -> Rule:
    instance = _RULE_INSTANCES.get(code)
    if instance is None:
        instance = _RULE_INSTANCES[code] = all_rules()[code]()
    return instance


def _checkable_codes(codes: Iterable[str]) -> list[str]:
    registry = all_rules()
    return [code for code in sorted(codes) if code in registry and code not in ENGINE_CODES]


def _fix_is_here(fix, positions: Mapping[cst.CSTNode, object]) -> bool:
    """Does every node the fix touches lie in this module?"""
    anchors = [node for node, _ in fix.replacements]
    for edit in fix.edits:
        anchors += [edit.start[0], edit.end[0]]
        anchors += [n for part in edit.content if not isinstance(part, str) for n in (part.start[0], part.end[0])]
    return all(node in positions for node in anchors)


def _to_diagnostics(path: str, module: cst.Module, source: str, tree: ast.Module, statement_of: StatementIndex,
                    findings: list[tuple[Rule, Finding]]) -> list[Diagnostic]:
    wanted: set[cst.CSTNode] = set()
    for _, finding in findings:
        wanted.add(finding.node)
        if finding.fix is not None:
            wanted.update(old for old, _ in finding.fix.replacements)
            for edit in finding.fix.edits:
                wanted.update((edit.start[0], edit.end[0]))
                wanted.update(part.start[0] for part in edit.content if not isinstance(part, str))
                wanted.update(part.end[0] for part in edit.content if not isinstance(part, str))
    positions = node_positions(module, tree, wanted, statement_of)
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))

    def point(anchor: tuple[cst.CSTNode, str]) -> tuple[int, int]:
        node, edge = anchor
        position = positions[node].start if edge == "start" else positions[node].end
        return position.line, position.column + 1

    def text(start: tuple[int, int], end: tuple[int, int]) -> str:
        return source[line_starts[start[0] - 1] + start[1] - 1:line_starts[end[0] - 1] + end[1] - 1]

    result = []
    for rule, finding in findings:
        span = positions.get(finding.node)
        if span is None:
            continue  # a node of another project module's code, reached through a call into it
        fix = None
        if finding.fix is not None and not _fix_is_here(finding.fix, positions):
            finding = replace(finding, fix=None)
        if finding.fix is not None:
            edits = []
            for old, new in finding.fix.replacements:
                old_span = positions[old]
                content = new if isinstance(new, str) else module.code_for_node(new)
                edits.append(Edit(old_span.start.line, old_span.start.column + 1,
                                  old_span.end.line, old_span.end.column + 1, content))
            for anchored in finding.fix.edits:
                start, end = point(anchored.start), point(anchored.end)
                content = "".join(part if isinstance(part, str) else text(point(part.start), point(part.end))
                                  for part in anchored.content)
                edits.append(Edit(start[0], start[1], end[0], end[1], content))
            fix = Fix(finding.fix.applicability, tuple(sorted(edits)))
        result.append(Diagnostic(
            path, span.start.line, span.start.column + 1, span.end.line, span.end.column + 1,
            rule.code, rule.name, finding.message, rule.severity, finding.impact or rule.impact, fix,
        ))
    return result


_TRIGGER_PATTERNS: dict[frozenset[str], re.Pattern[str]] = {}


def _trigger_pattern(codes: frozenset[str]) -> re.Pattern[str]:
    pattern = _TRIGGER_PATTERNS.get(codes)
    if pattern is None:
        registry = all_rules()
        words = sorted({t for code in codes if code in registry for t in registry[code].triggers})
        pattern = re.compile("|".join(map(re.escape, words)) if words else "(?!)")
        _TRIGGER_PATTERNS[codes] = pattern
    return pattern


def _cpython_parse(source: str, path: str) -> ast.Module | Diagnostic:
    """CPython's own parser (fast, C): the tree, or the PL001 for the first syntax error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source, path)
    except SyntaxError as error:
        message = f"SyntaxError: {error.msg}".replace("\n", " ")
        return _engine_diagnostic(path, "PL001", message, error.lineno or 1, error.offset or 1)
    except (RecursionError, MemoryError, ValueError):
        return _engine_diagnostic(path, "PL001", "SyntaxError: too deeply nested to parse")


_TRIGGER_GROUPS: dict[frozenset[str], tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {}


def _could_fire(source: str, codes: frozenset[str]) -> bool:
    """Does the text hold the words some enabled rule needs? Plain substring tests, each word
    once (a regex of all the words cost twice as much as the tests it was meant to spare)."""
    groups = _TRIGGER_GROUPS.get(codes)
    if groups is None:
        registry = all_rules()
        # Most rules share the dataset triggers: test each distinct (any-of, all-of) pair once.
        groups = _TRIGGER_GROUPS[codes] = tuple(sorted({
            (registry[code].triggers, registry[code].required)
            for code in codes if code in registry and registry[code].triggers
        }))
    present: dict[str, bool] = {}

    def holds(word: str) -> bool:
        found = present.get(word)
        if found is None:
            found = present[word] = word in source
        return found

    if any(any(map(holds, triggers)) and all(map(holds, required)) for triggers, required in groups):
        return True
    # With no rule enabled (only engine codes selected: `--select PL001`) syntax is the question.
    return not _checkable_codes(codes) and not _trigger_pattern(codes).search(source)


def lint_source(source: str, path: str, codes: frozenset[str], settings: "Settings | None",
                tree: ast.Module | None = None, project: "ModuleView | None" = None,
                target: "Target | None" = None,
                parse: Callable[[str], cst.Module] | None = None) -> list[Diagnostic]:
    """All diagnostics for one decoded source text, suppressions applied, sorted. `tree`: the
    source's `ast` when the caller has parsed it already (a notebook's program). `project`: the
    module's view of the project index (calls into other modules are followed). `target`: the
    TensorFlow/Keras the file is written for (None: inferred from `path` and `source`). `parse`:
    one that re-parses only what an edit changed (`reparse.Reparser`); None: libcst's parser."""
    receives = project is not None and project.receives
    names_tf = _MENTIONS_TF.search(source) is not None
    if has_skip_file(source) or not (receives or names_tf or may_use_datasets(source, names_tf)):
        return []
    # (A module that never names TensorFlow got here by handling datasets it is given.)
    if not receives and names_tf and not (_could_fire(source, codes) or may_use_datasets(source, names_tf)):
        # No enabled rule can fire here: the file is not parsed at all (like a file that never
        # names TensorFlow), so a syntax error in it is not reported either.
        return _suppressed(source, path, codes, [])
    # CPython first: it is fast, it is the judge of what is valid Python, and libcst must never
    # see input it rejects (thousands of nested brackets crash libcst's native parser).
    tree = tree or _cpython_parse(source, path)
    if isinstance(tree, Diagnostic):
        return _suppressed(source, path, codes, [tree])
    try:
        module = (parse or cst.parse_module)(source)
    except cst.ParserSyntaxError as error:
        # CPython accepted the file: this is a limit of libcst's grammar, say so.
        message = f"libcst cannot parse this file (CPython can): {error.message}".replace("\n", " ")
        return [_engine_diagnostic(path, "PL001", message, error.raw_line, error.raw_column + 1)]
    except RecursionError:
        return [_engine_diagnostic(path, "PL001", "SyntaxError: too deeply nested to parse")]
    statement_of: StatementIndex = {}
    try:
        model = PipelineModel.build(module, source, statement_of, project)
        model.notebook = path.endswith(".ipynb")
        # A script no import can name (`08. keras_predict_data.py`) that runs a model itself is a
        # whole program: nothing reads its names from outside. (One that runs none may be a
        # fragment of one, `data-loader.py` beside `model.py`, pasted together to run.)
        stem, suffix = os.path.splitext(os.path.basename(path))
        model.importable = not model.notebook and (
            suffix != ".py" or stem.isidentifier() or not model.runs_a_model())
    except Exception as error:  # noqa: BLE001 - any bug becomes a PL000, never a traceback
        return [_engine_diagnostic(path, "PL000", f"pipeline model failed: {type(error).__name__}: {error}")]
    findings: list[tuple[Rule, Finding]] = []
    diagnostics: list[Diagnostic] = []
    # The TensorFlow and Keras this file is written for: tf.data's default rewrites and the Keras
    # API that rules judge it by.
    model.target = target if target is not None else (
        settings.target_for(path, source) if settings is not None else target_for(path, source))
    for code in _checkable_codes(codes):
        rule = _rule(code)
        options = settings.options_for(code) if settings is not None else {
            name: option.default for name, option in rule.options.items()}
        ctx = RuleContext(model, options)
        try:
            rule.check(ctx)
        except Exception as error:  # noqa: BLE001
            diagnostics.append(_engine_diagnostic(
                path, "PL000", f"rule {code} ({rule.name}) failed: {type(error).__name__}: {error}"))
            continue
        findings.extend((rule, finding) for finding in ctx.findings)
    if findings:
        findings = _across_modules(findings, model, path)
    if findings:
        try:
            diagnostics.extend(_to_diagnostics(path, module, source, tree, statement_of, findings))
        except Exception as error:  # noqa: BLE001
            diagnostics.append(_engine_diagnostic(path, "PL000", f"reporting failed: {type(error).__name__}: {error}"))
        folder = _archive_folder(path)
        if folder is not None:
            diagnostics = [_in_archive(d, folder) for d in diagnostics]
    return _suppressed(source, path, codes, _deduplicate(diagnostics))


# A folder of code kept for reference or put aside (`_old/`, `archive/`, `backup/`, `deprecated/`,
# `old_scripts/`, `useless/`): what its files would cost or change is no longer paid by the project's runs.
_ARCHIVE_FOLDER = re.compile(r"^_*(?:old|archived?|archives|deprecated|backups?|unused|not[_-]?used|useless|obsolete"
                             r"|trash|junk|discarded|abandoned)(?:[_-]\w*)?$",
                             re.IGNORECASE)


def _archive_folder(path: str) -> str | None:
    """The first folder of `path` (as shown: relative to where the check was asked) that keeps
    code for reference, if any."""
    folders = path.replace("\\", "/").split("/")[:-1]
    return next((folder for folder in folders if _ARCHIVE_FOLDER.match(folder)), None)


def _in_archive(d: Diagnostic, folder: str) -> Diagnostic:
    """A speed or correctness finding in an archive folder: minor, and the message says why."""
    minor = {Impact.SPEED: Impact.MINOR_SPEED, Impact.CORRECTNESS: Impact.MINOR_CORRECTNESS}.get(d.impact)
    if minor is None:
        return d
    return replace(d, impact=minor, message=f"{d.message} (minor here: `{folder}/` keeps code for reference)")


_DONE = {"shuffle": "shuffled", "cache": "cached", "batch": "batched", "padded_batch": "batched",
         "map": "mapped", "prefetch": "prefetched", "repeat": "repeated", "filter": "filtered",
         "interleave": "interleaved", "unbatch": "unbatched", "take": "`take()`", "skip": "`skip()`"}


def _across_modules(findings: list[tuple[Rule, Finding]], model: PipelineModel,
                    path: str) -> list[tuple[Rule, Finding]]:
    """Findings stay in the file that holds the op: those on another module's code go (that
    module's own check reports them). A finding whose dataset went through ops in other modules
    names them ("shuffled in data.py:15"), as does one whose mapped function is another module's
    ("`augment` in aug.py:3"); one on a parameter taken for a dataset from its use says so."""
    foreign: set[cst.CSTNode] = set()
    paths_at: dict[cst.CSTNode, list] = {}
    for site in model.op_sites.values():
        op = site.op
        if op.where is not None:
            foreign.update((op.call, op.name_node))
        else:
            paths_at.setdefault(op.name_node, []).extend(site.prefixes)
            paths_at.setdefault(op.call, []).extend(site.prefixes)
    for consumer in model.consumers:
        if consumer.where is not None:
            foreign.add(consumer.node)
            if consumer.argument is not None:
                foreign.add(consumer.argument)
        else:
            for node in (consumer.node, consumer.argument):
                if node is not None:
                    paths_at.setdefault(node, []).extend(consumer.value.paths)
    here = os.path.dirname(os.path.abspath(path))
    kept = []
    for rule, finding in findings:
        if finding.node in foreign:
            continue
        reported_op = next((site.op for site in model.op_sites.values()
                            if site.op.name_node is finding.node or site.op.call is finding.node), None)
        reported = reported_op.name if reported_op is not None else None
        notes: list[str] = []
        # A function of another module mapped by the op reported, or by an op the message names
        # (`map`): where it is.
        # (Another op of the reported op's own kind is not the one the message speaks of.)
        spoken_of = [op for dataset_path in paths_at.get(finding.node, ()) for op in dataset_path.all_ops()
                     if f"`{op.name}`" in finding.message and (reported_op is None or op.name != reported_op.name)]
        for op in ([reported_op] if reported_op is not None else []) + spoken_of:
            facts = op.facts
            if facts.where is not None and facts.function is not None:
                line = facts.where.line_of(facts.function.name)
                note = f"`{facts.function.name.value}` in {_display(facts.where.path, here)}:{line}"
                if note not in notes:
                    notes.append(note)
        # The ops of other modules that the message speaks of, besides the one reported: before
        # it on its paths, or after it (`take`/`skip` in the module that splits what it shuffled).
        around: list = []
        for dataset_path in paths_at.get(finding.node, ()):
            origin = dataset_path.origin
            if origin.inferred and origin.where is None:
                name = origin.node.name.value if isinstance(origin.node, cst.Param) else "the parameter"
                note = f"`{name}` is treated as a tf.data dataset from its use"
                if note not in notes:
                    notes.append(note)
            around.extend(dataset_path.all_ops())
        if reported_op is not None:
            around.extend(op for tail in model.continuations(reported_op) for op in tail)
        for op in around:
            if op.where is None or op.name == reported or not any(
                    f"{mark}{op.name}{end}" in finding.message for mark, end in (("`", "("), (".", "("), ("`", "`"))):
                continue
            line = op.where.line_of(op.call)
            note = f"{_DONE.get(op.name, f'`{op.name}()`')} in {_display(op.where.path, here)}:{line}"
            if note not in notes:
                notes.append(note)
        if notes:
            finding = replace(finding, message=f"{finding.message} ({'; '.join(notes[:3])})")
        kept.append((rule, finding))
    return kept


def _display(path: str, here: str) -> str:
    return os.path.relpath(path, here)


# A suppression comment naming a code (`# noqa: PL999`, `# pipelint: ignore[pl999]`): "noqa" in any
# case, as `parse_suppressions` reads it, then a code on the same line.
_SUPPRESSION_WITH_CODE = re.compile(r"(?:[nN][oO][qQ][aA]|pipelint:)[^\n]*[pP][lL][0-9]")


def _may_name_unknown_codes(source: str) -> bool:
    """Could a comment name a code (PL003)? Tokenizing a file to find out cost more than
    checking it; the two `in` tests are `parse_suppressions`'s own first question."""
    return ("noqa" in source or "pipelint:" in source) and _SUPPRESSION_WITH_CODE.search(source) is not None


def _suppressed(source: str, path: str, codes: frozenset[str], diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Drop suppressed findings; report suppression comments naming pipelint codes that do not exist."""
    if not diagnostics and ("PL003" not in codes or not _may_name_unknown_codes(source)):
        return []
    suppressions = parse_suppressions(source)
    kept = [d for d in diagnostics if not suppressions.suppresses(d.line, d.code)]
    if "PL003" in codes:
        for line, column, code in suppressions.unknown:
            kept.append(_engine_diagnostic(path, "PL003", f"unknown rule code `{code}` in suppression comment", line, column))
    return sorted(kept, key=Diagnostic.sort_key)


def _deduplicate(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """A helper inlined at two call sites reports the same node twice: keep one."""
    seen: set[tuple] = set()
    unique = []
    for d in diagnostics:
        key = (d.code, d.line, d.column, d.end_line, d.end_column, d.message)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return unique


def _shown(diagnostics: list[Diagnostic], settings: "Settings | None") -> list[Diagnostic]:
    """The findings the settings report: only those are fixed (a fix nobody was shown is not written)."""
    return diagnostics if settings is None else [d for d in diagnostics if settings.shows(d)]


def lint_and_fix(source: str, path: str, codes: frozenset[str], settings: "Settings | None",
                 fix_mode: FixMode, project: "ModuleView | None" = None,
                 target: "Target | None" = None) -> tuple[list[Diagnostic], str, int]:
    """Check, then apply fixes round after round until none applies; returns what remains."""
    diagnostics = lint_source(source, path, codes, settings, project=project, target=target)
    if not fix_mode.enabled:
        return diagnostics, source, 0
    total = 0
    for _ in range(_MAX_FIX_ROUNDS):
        shown = _shown(diagnostics, settings)
        if not any(applicable(d.fix, fix_mode.include_unsafe) for d in shown):
            break
        fixed, count = apply_fixes(source, shown, fix_mode.include_unsafe)
        if count == 0 or fixed == source:
            break
        try:
            cst.parse_module(fixed)
        except Exception:  # noqa: BLE001 - a fix that breaks the file is dropped, never written
            break
        source, total = fixed, total + count
        diagnostics = lint_source(source, path, codes, settings, project=project, target=target)
    return diagnostics, source, total


def check_file(path: Path, display_path: str, settings: Settings, fix_mode: FixMode = FixMode(),
               data: bytes | None = None, project: "ProjectContext | None" = None) -> FileResult:
    """Check one file; `data`, when given, is its content already read (by the cache, or stdin);
    `project`: the run's project (other modules followed), None to check the file alone."""
    result = FileResult(display_path, file=path)
    codes = settings.enabled_codes(path)
    if data is None:
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                # A FIFO or device would block or never end: only regular files are read.
                result.diagnostics = [_engine_diagnostic(display_path, "PL002", "not a regular file")]
                return result
            data = path.read_bytes()
        except OSError as error:
            reason = error.strerror or type(error).__name__
            result.diagnostics = [_engine_diagnostic(display_path, "PL002", f"cannot read file: {reason}")]
            return result
    if is_notebook_path(path):
        # (its target is read from its cells' code, joined, by `lint_source`: the JSON's escaped
        # lines hide the API a notebook is written for, `from keras.layers.advanced_activations`)
        return _check_notebook_file(result, data, codes, settings, fix_mode)
    try:
        source, result.encoding, result.bom = _decode(data)
    except ValueError as error:
        result.diagnostics = [_engine_diagnostic(display_path, "PL002", f"cannot decode file: {error}")]
        return result
    try:
        view = project.view(path) if project is not None else None
        # From the file's real path (the display path may be relative to another directory).
        target = settings.target_for(path, source, view.api_evidence(), view.own_api_evidence) \
            if view is not None else settings.target_for(path, source)
        diagnostics, fixed, count = run_with_deep_stack(
            lint_and_fix, source, display_path, codes, settings, fix_mode, view, target)
    except Exception as error:  # noqa: BLE001
        diagnostics, fixed, count = [_engine_diagnostic(
            display_path, "PL000", f"internal error: {type(error).__name__}: {error}")], source, 0
    result.diagnostics = [d for d in diagnostics if d.code in codes]
    if count:
        result.original_source, result.fixed_source, result.fixes_applied = source, fixed, count
    return result


# ------------------------------------------------------------------------------------------------
# Notebooks: the Python cells become one program (pipelint.notebook), linted as a file is; the
# findings move back to (cell, line in the cell); fixes are applied to the cells' own text.


def _check_notebook_file(result: FileResult, data: bytes, codes: frozenset[str], settings: Settings,
                         fix_mode: FixMode, target: "Target | None" = None) -> FileResult:
    path = result.path
    try:
        text = data.decode("utf-8")  # JSON is UTF-8 (RFC 8259)
    except UnicodeDecodeError as error:
        result.diagnostics = [_engine_diagnostic(path, "PL002", f"cannot decode notebook as UTF-8: {error.reason}")]
        return result
    result.bom = text.startswith("\ufeff")
    if result.bom:
        text = text[1:]
    try:
        diagnostics, fixed, count, changed = run_with_deep_stack(
            lint_and_fix_notebook, text, path, codes, settings, fix_mode, target)
    except NotebookError as error:
        result.diagnostics = [_engine_diagnostic(path, "PL002", f"cannot read notebook: {error}")]
        return result
    except Exception as error:  # noqa: BLE001
        diagnostics, count, changed = [_engine_diagnostic(
            path, "PL000", f"internal error: {type(error).__name__}: {error}")], 0, []
    result.diagnostics = [d for d in diagnostics if d.code in codes]
    if count:
        result.original_source, result.fixed_source, result.fixes_applied = text, fixed, count
        result.changed_cells = changed
    return result


def lint_notebook(text: str, path: str, codes: frozenset[str], settings: "Settings | None") -> list[Diagnostic]:
    """All diagnostics for a notebook's JSON text, in cell coordinates (raises NotebookError)."""
    return _lint_notebook(parse_notebook(text), path, codes, settings)


def _lint_notebook(notebook: Notebook, path: str, codes: frozenset[str],
                   settings: "Settings | None", target: "Target | None" = None) -> list[Diagnostic]:
    if not notebook.python:
        return []  # another kernel language: skipped silently, as ruff does
    if not any(_MENTIONS_TF.search(cell.source) for cell in notebook.cells):
        return []  # as for a .py file: nothing here can build a pipeline
    program = build_program(notebook)
    if has_skip_file(program.text):
        return []
    if target is None and (notebook.printed_old_keras or notebook.printed_acc):
        own = notebook_api_evidence(notebook, program.text)
        target = settings.target_for(path, program.text, own=own) if settings is not None \
            else target_for(path, program.text, own=own)
    if _MENTIONS_TF.search(program.text) and _could_fire(program.text, codes):
        program.check_syntax()
    diagnostics = [_to_cell(d, program) for d in lint_source(program.text, path, codes, settings, program.tree,
                                                             target=target)]
    if notebook.printed_images_found is not None and notebook.printed_images_found < SMALL_DATA_IMAGES:
        diagnostics = [_on_small_data(d, notebook.printed_images_found) for d in diagnostics]
    for error in program.errors:
        suppressions = parse_suppressions(error.cell.source, frozenset(all_rules()))
        if not suppressions.suppresses(error.line, "PL001"):
            diagnostics.append(replace(_engine_diagnostic(path, "PL001", error.message, error.line, error.column),
                                       cell=error.cell.number))
    return sorted(diagnostics, key=Diagnostic.sort_key)


def _on_small_data(d: Diagnostic, found: int) -> Diagnostic:
    """A speed finding in a notebook whose saved outputs show at most `found` images: minor speed,
    and the message says why."""
    if d.impact is not Impact.SPEED:
        return d
    return replace(d, impact=Impact.MINOR_SPEED,
                   message=f"{d.message} (minor here: the saved outputs show Keras found at most {found:,} images)")


def _to_cell(d: Diagnostic, program: Program) -> Diagnostic:
    """A program diagnostic in cell coordinates; its fix is dropped when it would leave the cell or
    touch masked IPython syntax."""
    index, line = program.locate(d.line)
    end_index, end_line = program.locate(d.end_line)
    mask = program.masks[index]
    column, end_column = d.column + mask.shift(line), d.end_column + mask.shift(end_line)
    if end_index != index:
        end_line, end_column = mask.lines + 1, 1
    fix = d.fix
    if fix is not None:
        shift = program.starts[index] - 1
        edits = tuple(replace(e, line=e.line - shift, end_line=e.end_line - shift,
                              column=e.column + mask.shift(e.line - shift),
                              end_column=e.end_column + mask.shift(e.end_line - shift)) for e in fix.edits)
        if (any(program.locate(e.line)[0] != index or program.locate(e.end_line)[0] != index for e in fix.edits)
                or program.cells[index].number in program.broken
                or any(_touches(e, mask.masked) for e in edits)
                or (mask.indent and any("\n" in e.content for e in edits))):
            fix = None
        else:
            fix = replace(fix, edits=edits)
    return replace(d, line=line, column=column, end_line=end_line, end_column=end_column, fix=fix,
                   cell=program.cells[index].number)


def _touches(edit, masked: tuple[tuple[int, int, int], ...]) -> bool:
    start, end = (edit.line, edit.column - 1), (edit.end_line, edit.end_column - 1)
    return any(start < (line, stop) and (line, begin) <= end for line, begin, stop in masked)


def _cell_parses(source: str) -> bool:
    mask = mask_cell(source)
    if mask is None:
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(mask.text)
        cst.parse_module(mask.text)
    except Exception:  # noqa: BLE001 - any failure means the fix broke the cell
        return False
    return True


def lint_and_fix_notebook(text: str, path: str, codes: frozenset[str], settings: "Settings | None",
                          fix_mode: FixMode, target: "Target | None" = None) -> tuple[list[Diagnostic], str, int, list[tuple[int, str, str]]]:
    """Check a notebook, then fix its cells round after round; returns (what remains, the new
    JSON text, fixes applied, [(cell, old source, new source)] of the changed cells)."""
    notebook = parse_notebook(text)
    diagnostics = _lint_notebook(notebook, path, codes, settings, target)
    if not fix_mode.enabled:
        return diagnostics, text, 0, []
    original = {cell.number: cell.source for cell in notebook.cells}
    sources = dict(original)
    stuck: set[int] = set()  # cells whose fixes broke their parse: left as they are
    total = 0
    for _ in range(_MAX_FIX_ROUNDS):
        by_cell: dict[int, list[Diagnostic]] = {}
        for d in _shown(diagnostics, settings):
            if d.cell is not None and d.cell not in stuck and applicable(d.fix, fix_mode.include_unsafe):
                by_cell.setdefault(d.cell, []).append(d)
        changed = False
        for number, found in by_cell.items():
            source = sources[number]
            if "\r\n" in source:  # a fix's new lines follow the cell's own line ends
                found = [replace(d, fix=replace(d.fix, edits=tuple(
                    replace(e, content=e.content.replace("\n", "\r\n")) for e in d.fix.edits))) for d in found]
            fixed, count = apply_fixes(source, found, fix_mode.include_unsafe)
            if count == 0 or fixed == source:
                continue
            if not _cell_parses(fixed):
                stuck.add(number)  # a fix that would break the cell is dropped, never written
                continue
            sources[number], total, changed = fixed, total + count, True
        if not changed:
            break
        # (the saved outputs stay evidence of the target and the data's size between rounds)
        notebook = replace(notebook, cells=[replace(cell, source=sources[cell.number]) for cell in notebook.cells])
        diagnostics = _lint_notebook(notebook, path, codes, settings, target)
    changes = [(number, original[number], sources[number]) for number in original
               if sources[number] != original[number]]
    if not changes:
        return diagnostics, text, 0, []
    return diagnostics, replace_sources(text, {number: new for number, _, new in changes}), total, changes


#: The run's project in this process (a worker process gets it once, from its initializer).
_PROJECT: "ProjectContext | None" = None


def _use_project(index: "ProjectIndex | None") -> None:
    global _PROJECT
    from pipelint.project.context import ProjectContext

    _PROJECT = ProjectContext(index) if index is not None else None


def _check_task(task: tuple[Path, str, Settings, FixMode, bytes | None]) -> FileResult:
    return check_file(*task, project=_PROJECT)


def _task_size(task: tuple[Path, str, Settings, FixMode, bytes | None]) -> int:
    path, _, _, _, data = task
    if data is not None:
        return len(data)
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def check_files(files: Sequence[Path], resolver: SettingsResolver, jobs: int | None = None,
                fix_mode: FixMode = FixMode(), cwd: Path | None = None,
                contents: Mapping[Path, bytes] | None = None,
                project: "ProjectIndex | None" = None) -> list[FileResult]:
    """Check `files` (in worker processes when there are many); `contents` holds the bytes of
    files already read, so that the findings match the bytes the result cache keyed them by.
    `project`: the run's project index (built here from `files` when not given)."""
    display_path = DisplayPaths(cwd or Path.cwd())
    contents = contents or {}
    jobs = jobs or os.cpu_count() or 1
    index_error = None
    if project is None:
        from pipelint.project import ProjectIndex

        try:
            project = ProjectIndex.build(files, contents, jobs=jobs)
        except Exception as error:  # noqa: BLE001 - a bug in the project pass: each file is still checked alone
            project = ProjectIndex.build([], {}, jobs=1)
            index_error = f"project index failed, files checked one by one: {type(error).__name__}: {error}"
    tasks = [(path, display_path(path), resolver.for_path(path), fix_mode, contents.get(path))
             for path in files]
    if jobs <= 1 or len(tasks) < _MIN_FILES_FOR_POOL:
        _use_project(project)
        try:
            results = [_check_task(task) for task in tasks]
        finally:
            _use_project(None)
    else:
        from concurrent.futures import ProcessPoolExecutor  # costs ~0.1 s to import: only when used

        # Largest files first, in small chunks: the few big files that cost most start at once
        # and the small ones even out the end (in path order one worker was left finishing a
        # big test module while the others idled).
        tasks.sort(key=_task_size, reverse=True)
        with ProcessPoolExecutor(max_workers=jobs, initializer=_use_project, initargs=(project,)) as pool:
            results = list(pool.map(_check_task, tasks, chunksize=max(1, len(tasks) // (jobs * 16))))
    results = sorted(results, key=lambda r: r.path)
    if index_error is not None and results:
        results[0].diagnostics.insert(0, _engine_diagnostic(results[0].path, "PL000", index_error))
    return results
