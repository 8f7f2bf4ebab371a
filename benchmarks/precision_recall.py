"""Precision and recall of pipelint on the written corpus and, side by side, on real code.

Written corpus (tests/corpus): every expected finding is a trailing `# expect: PL101, PL203`
comment on the line where pipelint must report it (in a notebook, on that line of its cell).

Real-code corpus (benchmarks/realcode): third-party training code pinned by manifest.json and
labelled by reading it in labels.csv (path, line or `cell:line`, code, positive/negative, reason).
The files are not in this repository; `benchmarks/realcode/extract.py DIR` brings them into DIR
and `--realcode DIR` scores them. A finding on a line not labelled positive is a false positive
(labelled negative or not labelled at all: both are listed, so the labels can be reviewed).
Notebook entries are scored once pipelint reads notebooks (`pipelint.engine.lint_notebook`);
before that they are reported as skipped.

The written corpus is linted with ALL rules selected (default-off ones included) and PL103/PL104 as
on TensorFlow before 2.11 (`prefetch-injected = false`: its scripts were written to show the
missing prefetch whatever the version) and the current TensorFlow's Keras (`target-version = "2.21"`), real code with
the rules a default run reports (`--every-rule` for all of them: users see the default), and the
(file, line, code) triples are compared. Engine codes PL000-PL003 always count as failures.
Every finding of those rules is scored, whatever its impact: the script reads the engine's results
(`lint_source`, `check_files`), which hold every finding, before `Settings.shows` leaves out the
migrations and housekeeping that a default `pipelint check` only counts (docs/usage.md#impact).

    python benchmarks/precision_recall.py                          # written corpus
    python benchmarks/precision_recall.py --realcode /tmp/realcode # both, side by side
    python benchmarks/precision_recall.py --check [--realcode DIR] # exit 1 below the targets
    python benchmarks/precision_recall.py --realcode DIR --sample 40  # unlabelled findings to judge

labels.csv's `scope` column marks rows whose problem crosses a module (`cross-module`): they are
also scored on their own.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
MIN_PRECISION = 0.95
MIN_RECALL = 0.90
REALCODE = ROOT / "benchmarks" / "realcode"
REAL_MIN_PRECISION = 0.90
REAL_MIN_RECALL = 0.85
#: The written corpus's rule options (see the module docstring).
#: Its scripts show Keras 3 migrations (`fit(workers=...)` that raises), whatever their own API says.
CORPUS_TARGET = "2.21"
CORPUS_RULE_OPTIONS = (("PL103", (("prefetch-injected", False),)), ("PL104", (("prefetch-injected", False),)))
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>PL\d{3}(?:\s*,\s*PL\d{3})*)")

# (file relative to the corpus, line, code); in a notebook the line is "cell:line" (1-based cell
# counting every cell, 1-based line in the cell).
Key = tuple[str, "int | str", str]


@dataclass
class Comparison:
    expected: set[Key] = field(default_factory=set)
    found: set[Key] = field(default_factory=set)
    engine_errors: list[tuple[str, int, str, str]] = field(default_factory=list)  # PL000-PL003
    files: int = 0
    lines: int = 0
    negatives: set[Key] = field(default_factory=set)  # labelled "not a problem" (real code)
    skipped: list[str] = field(default_factory=list)  # files that could not be scored
    scored: list[str] = field(default_factory=list)  # files linted (relative paths)
    #: Labelled keys whose problem crosses a module (labels.csv `scope` = cross-module).
    cross_module: set[Key] = field(default_factory=set)
    messages: dict[Key, str] = field(default_factory=dict)  # what pipelint said at each finding

    def cross_module_part(self) -> "Comparison":
        """Only the labelled rows that cross a module: their positives and negatives."""
        return Comparison(expected=self.expected & self.cross_module, found=self.found & self.cross_module,
                          negatives=self.negatives & self.cross_module, files=self.files)

    @property
    def tp(self) -> set[Key]:
        return self.expected & self.found

    @property
    def fp(self) -> set[Key]:
        return self.found - self.expected

    @property
    def fn(self) -> set[Key]:
        return self.expected - self.found

    @property
    def precision(self) -> float:
        # Engine errors count as false positives: a PL000 is never a good answer.
        denominator = len(self.found) + len(self.engine_errors)
        return len(self.tp) / denominator if denominator else 1.0

    @property
    def recall(self) -> float:
        return len(self.tp) / len(self.expected) if self.expected else 1.0

    def subset(self, notebooks: bool) -> "Comparison":
        """The figures for notebooks only, or for Python files only."""
        def keep(path: str) -> bool:
            return path.endswith(".ipynb") == notebooks

        part = Comparison(
            expected={k for k in self.expected if keep(k[0])}, found={k for k in self.found if keep(k[0])},
            engine_errors=[e for e in self.engine_errors if keep(e[0])],
            negatives={k for k in self.negatives if keep(k[0])})
        part.files = sum(1 for path in self.scored if keep(path))
        part.scored = [path for path in self.scored if keep(path)]
        return part

    def per_rule(self) -> dict[str, tuple[int, int, int]]:
        codes = sorted({k[2] for k in self.expected | self.found})
        tp, fp, fn = Counter(k[2] for k in self.tp), Counter(k[2] for k in self.fp), Counter(k[2] for k in self.fn)
        return {code: (tp[code], fp[code], fn[code]) for code in codes}


def expectations(source: str, relpath: str) -> set[Key]:
    """`# expect:` annotations from real comments only (not from strings)."""
    keys: set[Key] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        match = _EXPECT.search(tok.string)
        if match:
            for code in re.split(r"\s*,\s*", match.group("codes").strip()):
                keys.add((relpath, tok.start[0], code))
    return keys


def notebook_expectations(text: str, relpath: str) -> set[Key]:
    """`# expect:` annotations in a notebook's code cells, keyed `cell:line`."""
    from pipelint.notebook import mask_cell, parse_notebook

    keys: set[Key] = set()
    for cell in parse_notebook(text).cells:
        masked = mask_cell(cell.source)  # tokenizable Python, same lines; None: not a Python cell
        if masked is not None:
            keys |= {(path, f"{cell.number}:{line}", code) for path, line, code in expectations(masked.text, relpath)}
    return keys


def compare(corpus: Path = CORPUS) -> Comparison:
    from pipelint.rules import all_rules

    from pipelint.config.settings import Settings

    codes = frozenset(all_rules())
    settings = Settings(select=None, extend_select=(), ignore=(), per_file_ignores=(), exclude=(),
                        extend_exclude=(), rule_options=CORPUS_RULE_OPTIONS, root=corpus, config_path=None,
                        target_version=CORPUS_TARGET)
    result = Comparison()
    for path in sorted([*corpus.rglob("*.py"), *corpus.rglob("*.ipynb")]):
        relpath = path.relative_to(corpus).as_posix()
        text = path.read_text(encoding="utf-8")
        result.expected |= (notebook_expectations if path.suffix == ".ipynb" else expectations)(text, relpath)
        _lint_file(path, relpath, codes, result, settings)
    return result


def _lint_file(path: Path, relpath: str, codes: frozenset[str], result: Comparison, settings=None) -> None:
    from pipelint import engine

    source = path.read_text(encoding="utf-8")
    notebook = path.suffix == ".ipynb"
    lint_notebook = getattr(engine, "lint_notebook", None)
    if notebook and lint_notebook is None:
        result.skipped.append(f"{relpath} (notebooks are not read yet)")
        return
    result.files += 1
    result.scored.append(relpath)
    result.lines += source.count("\n")
    try:
        # The file's own path: the project's requirements.txt or Dockerfile above it sets its target.
        if notebook:
            diagnostics = lint_notebook(source, str(path), codes, settings)
        else:
            diagnostics = engine.lint_source(source, str(path), codes, settings)
    except Exception as error:  # noqa: BLE001 - a crash is an engine failure, not a traceback
        result.engine_errors.append((relpath, 1, "PL000", f"lint raised {type(error).__name__}: {error}"))
        return
    _record(result, relpath, diagnostics)


def _record(result: Comparison, relpath: str, diagnostics) -> None:
    """A file's diagnostics as (file, line, code) keys; engine codes are failures."""
    for d in diagnostics:
        cell = getattr(d, "cell", None)
        line: int | str = f"{cell}:{d.line}" if cell is not None else d.line
        if d.code.startswith("PL0"):
            result.engine_errors.append((relpath, line, d.code, d.message))
        else:
            result.found.add((relpath, line, d.code))
            result.messages[(relpath, line, d.code)] = d.message


def load_labels(labels: Path = REALCODE / "labels.csv") -> tuple[set[Key], set[Key], set[Key]]:
    """(positives, negatives, cross-module keys) from a labels.csv."""
    positives: set[Key] = set()
    negatives: set[Key] = set()
    cross_module: set[Key] = set()
    with labels.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            line: int | str = row["line"] if ":" in row["line"] else int(row["line"])
            key = (row["path"], line, row["code"])
            (positives if row["label"] == "positive" else negatives).add(key)
            if row.get("scope") == "cross-module":
                cross_module.add(key)
    return positives, negatives, cross_module


def compare_realcode(directory: Path, manifest: Path = REALCODE / "manifest.json",
                     labels: Path = REALCODE / "labels.csv", every_rule: bool = False) -> Comparison:
    """Score the extracted real-code corpus in `directory` against the labels, with the rules a
    user gets by default (`every_rule`: all of them, default-off ones too; labels of rules not
    run are left out)."""
    codes = rule_codes(every_rule)
    result = Comparison()
    positives, result.negatives, result.cross_module = (
        {key for key in keys if key[2] in codes} for keys in load_labels(labels))
    scored: set[str] = set()
    projects: dict[str, list[tuple[Path, str]]] = {}
    for entry in json.loads(manifest.read_text(encoding="utf-8"))["files"]:
        relpath = entry["repository"].replace("/", "__") + "/" + entry["path"]
        path = directory / relpath
        if not path.is_file():
            result.skipped.append(f"{relpath} (not extracted: run benchmarks/realcode/extract.py)")
            continue
        if entry.get("layout") == "multi-module":
            # Checked together, as `pipelint check` checks a project: findings follow datasets
            # from one module into the others.
            projects.setdefault(entry["repository"], []).append((path, relpath))
            continue
        before = result.files
        _lint_file(path, relpath, codes, result)
        if result.files > before:
            scored.add(relpath)
    for files in projects.values():
        _lint_project(files, codes, result)
        scored.update(relpath for _, relpath in files)
    result.expected = {key for key in positives if key[0] in scored}
    return result


def _lint_project(files: list[tuple[Path, str]], codes: frozenset[str], result: Comparison) -> None:
    """Check the files of one project in one run (its project index), as `pipelint check` does."""
    from pipelint.config import CliOverrides, SettingsResolver
    from pipelint.engine import check_files

    resolver = SettingsResolver(CliOverrides(select=tuple(sorted(codes))))
    relpaths = {path.resolve(): relpath for path, relpath in files}
    for path, _ in files:
        result.files += 1
        result.lines += path.read_text(encoding="utf-8", errors="replace").count("\n")
    try:
        checked = check_files([path for path, _ in files], resolver, jobs=1)
    except Exception as error:  # noqa: BLE001 - a crash is an engine failure, not a traceback
        result.engine_errors.append((files[0][1], 1, "PL000", f"check raised {type(error).__name__}: {error}"))
        return
    for file_result in checked:
        relpath = relpaths[Path(file_result.file or file_result.path).resolve()]
        result.scored.append(relpath)
        _record(result, relpath, file_result.diagnostics)


def _ratio(tp: int, other: int) -> float:
    return tp / (tp + other) if tp + other else float("nan")


def report(result: Comparison, out=sys.stdout, name: str = "corpus") -> None:
    print(f"{name}: {result.files} files, {result.lines} lines, {len(result.expected)} expected findings", file=out)
    print(f"{'rule':<7} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8}", file=out)
    for code, (tp, fp, fn) in result.per_rule().items():
        print(f"{code:<7} {tp:>4} {fp:>4} {fn:>4} {_ratio(tp, fp):>10.2f} {_ratio(tp, fn):>8.2f}", file=out)
    print(f"{'total':<7} {len(result.tp):>4} {len(result.fp):>4} {len(result.fn):>4} "
          f"{result.precision:>10.3f} {result.recall:>8.3f}", file=out)
    _by_kind(result, out)
    _details(result, out)


def _by_kind(result: Comparison, out, name: str = "") -> None:
    """Python files and notebooks apart: notebooks must do at least as well as .py files."""
    for label, notebooks in ((".py", False), ("notebooks", True)):
        part = result.subset(notebooks)
        if part.files:
            print(f"  {name}{label:<10} {part.files:>3} files {len(part.tp):>4} TP {len(part.fp):>4} FP "
                  f"{len(part.fn):>4} FN  precision {part.precision:.3f}  recall {part.recall:.3f}", file=out)


def _details(result: Comparison, out) -> None:
    if result.skipped:
        print(f"\nskipped ({len(result.skipped)}):", file=out)
        for line in result.skipped:
            print(f"  {line}", file=out)
    if result.engine_errors:
        print("\nengine errors (count as failures):", file=out)
        for path, line, code, message in sorted(result.engine_errors, key=str):
            print(f"  {path}:{line}: {code} {message}", file=out)
    if result.fp:
        print("\nfalse positives (reported, not expected):", file=out)
        for path, line, code in sorted(result.fp, key=str):
            note = " (labelled negative)" if (path, line, code) in result.negatives else (
                " (not labelled)" if result.negatives else "")
            print(f"  {path}:{line}: {code}{note}", file=out)
    if result.fn:
        print("\nfalse negatives (expected, not reported):", file=out)
        for path, line, code in sorted(result.fn, key=str):
            print(f"  {path}:{line}: {code}", file=out)


def report_side_by_side(written: Comparison, real: Comparison, out=sys.stdout) -> None:
    print(f"written corpus: {written.files} files, {len(written.expected)} expected findings; "
          f"real code: {real.files} files scored, {len(real.expected)} expected findings "
          f"({len(real.negatives)} labelled negatives)", file=out)
    header = f"{'TP':>4} {'FP':>4} {'FN':>4} {'prec':>6} {'recall':>6}"
    print(f"{'':<7} | {'written corpus':^30} | {'real code':^30}", file=out)
    print(f"{'rule':<7} | {header} | {header}", file=out)
    rules_w, rules_r = written.per_rule(), real.per_rule()
    for code in sorted(set(rules_w) | set(rules_r)):
        cells = []
        for rules in (rules_w, rules_r):
            tp, fp, fn = rules.get(code, (0, 0, 0))
            if tp + fp + fn == 0:
                cells.append(f"{'-':>4} {'-':>4} {'-':>4} {'-':>6} {'-':>6}")
            else:
                cells.append(f"{tp:>4} {fp:>4} {fn:>4} {_ratio(tp, fp):>6.2f} {_ratio(tp, fn):>6.2f}")
        print(f"{code:<7} | {cells[0]} | {cells[1]}", file=out)
    totals = [f"{len(c.tp):>4} {len(c.fp):>4} {len(c.fn):>4} {c.precision:>6.3f} {c.recall:>6.3f}"
              for c in (written, real)]
    print(f"{'total':<7} | {totals[0]} | {totals[1]}", file=out)
    _by_kind(written, out, "written  ")
    _by_kind(real, out, "real code ")
    cross = real.cross_module_part()
    if cross.expected or cross.negatives:
        print(f"  real code, cross-module rows only: {len(cross.tp):>4} TP {len(cross.fp):>4} FP "
              f"{len(cross.fn):>4} FN  precision {cross.precision:.3f}  recall {cross.recall:.3f}", file=out)
    print("\n== written corpus", file=out)
    _details(written, out)
    print("\n== real code", file=out)
    _details(real, out)


def rule_codes(every_rule: bool) -> frozenset[str]:
    """The codes a default run reports, or every rule's."""
    from pipelint.rules import all_rules

    return frozenset(code for code, rule in all_rules().items() if every_rule or rule.default_enabled)


def lint_tree(tree: Path, every_rule: bool = False) -> Comparison:
    """Every finding in the .py and .ipynb files under `tree` (no labels: for `--sample-from`);
    each directory directly under `tree` is checked as one project."""
    codes = rule_codes(every_rule)
    result = Comparison()
    for project in sorted(p for p in tree.iterdir() if p.is_dir()):
        files = sorted(project.rglob("*.py"))
        if files:
            _lint_project([(path, path.relative_to(tree).as_posix()) for path in files], codes, result)
        for path in sorted(project.rglob("*.ipynb")):
            _lint_file(path, path.relative_to(tree).as_posix(), codes, result)
    return result


def print_sample(real: Comparison, directory: Path, count: int, seed: int, out=sys.stdout) -> None:
    """N findings drawn at random from lines no label covers, each with its message and the source
    around it, numbered so that a reader can write a verdict (worth acting on / not) beside each."""
    import random

    labelled = real.expected | real.negatives
    unlabelled = sorted((key for key in real.found if key not in labelled), key=str)
    drawn = random.Random(seed).sample(unlabelled, min(count, len(unlabelled)))
    print(f"{len(drawn)} of {len(unlabelled)} findings on unlabelled lines (seed {seed})", file=out)
    for number, (path, line, code) in enumerate(drawn, 1):
        print(f"\n[{number}] {path}:{line}: {code} {real.messages.get((path, line, code), '')}", file=out)
        for text in _context(directory / path, line):
            print(f"    {text}", file=out)


def _context(path: Path, line: "int | str", around: int = 3) -> list[str]:
    """The lines around a finding (in a notebook, around its line in its cell)."""
    if isinstance(line, str):
        cell, row = (int(part) for part in line.split(":"))
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        source = cells[cell - 1]["source"]
        lines = ("".join(source) if isinstance(source, list) else source).splitlines()
    else:
        row, lines = line, path.read_text(encoding="utf-8", errors="replace").splitlines()
    start = max(row - around, 1)
    return [f"{'>' if number == row else ' '}{number:5} {lines[number - 1]}"
            for number in range(start, min(row + around, len(lines)) + 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when precision < {MIN_PRECISION} or recall < {MIN_RECALL} (real code: "
                             f"{REAL_MIN_PRECISION}, {REAL_MIN_RECALL}) or an engine error occurs")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--realcode", type=Path, metavar="DIR",
                        help="directory the real-code corpus was extracted into (benchmarks/realcode/extract.py)")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="print N random findings on real-code lines nobody labelled, for a reader to "
                             "judge (needs --realcode)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of --sample")
    parser.add_argument("--sample-from", type=Path, metavar="TREE",
                        help="draw --sample from every .py/.ipynb file under TREE (code nobody labelled) "
                             "instead of the real-code corpus")
    parser.add_argument("--every-rule", action="store_true",
                        help="score real code with every rule, default-off ones too (default: the rules a "
                             "default run reports)")
    args = parser.parse_args(argv)
    if args.sample:
        if args.sample_from is not None:
            print_sample(lint_tree(args.sample_from, args.every_rule), args.sample_from, args.sample, args.seed)
        elif args.realcode is not None:
            print_sample(compare_realcode(args.realcode, every_rule=args.every_rule), args.realcode,
                         args.sample, args.seed)
        else:
            parser.error("--sample needs --realcode DIR or --sample-from TREE")
        return 0
    result = compare(args.corpus)
    failed = result.precision < MIN_PRECISION or result.recall < MIN_RECALL or bool(result.engine_errors)
    if args.realcode is None:
        report(result)
    else:
        real = compare_realcode(args.realcode, every_rule=args.every_rule)
        report_side_by_side(result, real)
        failed = failed or real.precision < REAL_MIN_PRECISION or real.recall < REAL_MIN_RECALL \
            or bool(real.engine_errors) or real.files == 0
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
