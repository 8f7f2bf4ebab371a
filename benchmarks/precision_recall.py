"""Precision and recall of pipelint on the annotated corpus in tests/corpus.

Every expected finding is a trailing `# expect: PL101, PL203` comment on the line where pipelint
must report it. The corpus is linted with ALL rules selected (default-off ones included) and the
(file, line, code) triples are compared. Engine codes PL000-PL003 always count as failures.

    python benchmarks/precision_recall.py            # table, FPs and FNs; exit 0
    python benchmarks/precision_recall.py --check    # exit 1 if precision < 0.95 or recall < 0.90
"""
from __future__ import annotations

import argparse
import io
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
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>PL\d{3}(?:\s*,\s*PL\d{3})*)")

Key = tuple[str, int, str]  # (file relative to the corpus, line, code)


@dataclass
class Comparison:
    expected: set[Key] = field(default_factory=set)
    found: set[Key] = field(default_factory=set)
    engine_errors: list[tuple[str, int, str, str]] = field(default_factory=list)  # PL000-PL003
    files: int = 0
    lines: int = 0

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


def compare(corpus: Path = CORPUS) -> Comparison:
    from pipelint.engine import lint_source
    from pipelint.rules import all_rules

    codes = frozenset(all_rules())
    result = Comparison()
    for path in sorted(corpus.rglob("*.py")):
        relpath = path.relative_to(corpus).as_posix()
        source = path.read_text(encoding="utf-8")
        result.files += 1
        result.lines += source.count("\n")
        result.expected |= expectations(source, relpath)
        try:
            diagnostics = lint_source(source, relpath, codes, None)
        except Exception as error:  # noqa: BLE001 - a crash is an engine failure, not a traceback
            result.engine_errors.append((relpath, 1, "PL000", f"lint_source raised {type(error).__name__}: {error}"))
            continue
        for d in diagnostics:
            if d.code.startswith("PL0"):
                result.engine_errors.append((relpath, d.line, d.code, d.message))
            else:
                result.found.add((relpath, d.line, d.code))
    return result


def report(result: Comparison, out=sys.stdout) -> None:
    print(f"corpus: {result.files} files, {result.lines} lines, {len(result.expected)} expected findings", file=out)
    print(f"{'rule':<7} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8}", file=out)
    for code, (tp, fp, fn) in result.per_rule().items():
        precision = tp / (tp + fp) if tp + fp else float("nan")
        recall = tp / (tp + fn) if tp + fn else float("nan")
        print(f"{code:<7} {tp:>4} {fp:>4} {fn:>4} {precision:>10.2f} {recall:>8.2f}", file=out)
    print(f"{'total':<7} {len(result.tp):>4} {len(result.fp):>4} {len(result.fn):>4} "
          f"{result.precision:>10.3f} {result.recall:>8.3f}", file=out)
    if result.engine_errors:
        print("\nengine errors (count as failures):", file=out)
        for path, line, code, message in sorted(result.engine_errors):
            print(f"  {path}:{line}: {code} {message}", file=out)
    if result.fp:
        print("\nfalse positives (reported, not expected):", file=out)
        for path, line, code in sorted(result.fp):
            print(f"  {path}:{line}: {code}", file=out)
    if result.fn:
        print("\nfalse negatives (expected, not reported):", file=out)
        for path, line, code in sorted(result.fn):
            print(f"  {path}:{line}: {code}", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when precision < {MIN_PRECISION} or recall < {MIN_RECALL} or an engine error occurs")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    result = compare(args.corpus)
    report(result)
    if args.check and (result.precision < MIN_PRECISION or result.recall < MIN_RECALL or result.engine_errors):
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
