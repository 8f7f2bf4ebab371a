"""`--output-format concise`: one `path:line:col: CODE [*] message` line per finding, then a summary."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from pipelint.diagnostics import Diagnostic, Impact
from pipelint.reporters._common import header, summary


def render(diagnostics: Sequence[Diagnostic], *, color: bool = False, files_checked: int = 0,
           left_out: Mapping[Impact, int] | None = None) -> str:
    lines = [header(d, color) for d in diagnostics]
    lines.append(summary(diagnostics, color, left_out))
    return "\n".join(lines) + "\n"
