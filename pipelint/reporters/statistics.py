"""`--statistics`: one row per code -- count, code, `[*]` if any of its findings is fixable, name.

Sorted by count (most first), then code; like `ruff --statistics`.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pipelint.diagnostics import Diagnostic
from pipelint.reporters._common import style, terminal_safe


def rows(diagnostics: Sequence[Diagnostic]) -> list[tuple[int, str, str, bool]]:
    counts = Counter(d.code for d in diagnostics)
    names: dict[str, str] = {}
    fixable: dict[str, bool] = {}
    for d in diagnostics:
        names.setdefault(d.code, d.name)
        fixable[d.code] = fixable.get(d.code, False) or d.fix is not None
    ordered = sorted(counts, key=lambda code: (-counts[code], code))
    return [(counts[code], code, names[code], fixable[code]) for code in ordered]


def render_statistics(diagnostics: Sequence[Diagnostic], *, color: bool = False) -> str:
    table = rows(diagnostics)
    if not table:
        return ""
    count_width = max(len(str(count)) for count, _, _, _ in table)
    code_width = max(len(code) for _, code, _, _ in table)
    any_fixable = any(fix for _, _, _, fix in table)
    lines = []
    for count, code, name, fix in table:
        marker = ("[*] " if fix else "    ") if any_fixable else ""
        lines.append(
            f"{count:>{count_width}}\t"
            f"{style(code.ljust(code_width), color, fg='red', bold=True)}\t"
            f"{style(marker, color, fg='cyan') if fix else marker}{terminal_safe(name)}"
        )
    return "\n".join(lines) + "\n"
