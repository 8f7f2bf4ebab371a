"""Apply the text edits of fixes to a source string."""
from __future__ import annotations

from typing import Iterable

from pipelint.diagnostics import Applicability, Diagnostic, Fix


def _line_offsets(source: str) -> list[int]:
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def applicable(fix: Fix | None, include_unsafe: bool) -> bool:
    return fix is not None and (include_unsafe or fix.applicability is Applicability.SAFE)


def apply_fixes(source: str, diagnostics: Iterable[Diagnostic], include_unsafe: bool) -> tuple[str, int]:
    """Apply every applicable fix whose edits overlap no fix applied before; returns (text, count).

    Overlapping fixes are left for the next round: the engine re-checks and re-applies until
    nothing changes, which is also what makes `--fix` idempotent.
    """
    offsets = _line_offsets(source)

    def offset(line: int, column: int) -> int:
        return offsets[min(line - 1, len(offsets) - 1)] + column - 1

    accepted: list[tuple[int, int, str]] = []
    applied = 0
    for diagnostic in diagnostics:
        if not applicable(diagnostic.fix, include_unsafe):
            continue
        spans = [
            (offset(e.line, e.column), offset(e.end_line, e.end_column), e.content)
            for e in diagnostic.fix.edits
        ]
        if any(s < end and start < e for s, e, _ in spans for start, end, _ in accepted):
            continue
        if any(s == start and s == e == end for s, e, _ in spans for start, end, _ in accepted):
            continue
        accepted.extend(spans)
        applied += 1
    for start, end, content in sorted(accepted, reverse=True):
        source = source[:start] + content + source[end:]
    return source, applied
