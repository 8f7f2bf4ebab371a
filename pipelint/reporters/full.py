"""`--output-format full` (the default): the concise header, then the source with the range underlined.

    data.py:3:5: PL101 [*] `map` without `num_parallel_calls` runs on one core
      |
    3 | ds = ds.map(parse)
      |      ^^^^^^^^^^^^^ PL101
      |
      = help: Safe fix available (run with --fix)
      = docs: https://.../rules.md#pl101-...

    Found 1 finding (1 speed; 1 fixable with --fix).
    2 housekeeping findings not shown: --show-housekeeping
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from pipelint.diagnostics import Applicability, Diagnostic, Impact
from pipelint.reporters._common import (
    SEVERITY_COLOR,
    SourceCache,
    display_line,
    header,
    style,
    summary,
    terminal_safe,
)

#: A range spanning more lines than this shows its first and last lines around an ellipsis.
MAX_SNIPPET_LINES = 6


def _underline(line: str, start: int, end: int) -> tuple[str, str]:
    """The displayed line and the caret string under 0-based character range [start, end)."""
    shown, offsets = display_line(line)
    start = max(0, min(start, len(line)))
    end = max(start, min(end, len(line)))
    first, last = offsets[start], offsets[end]
    width = max(1, last - first)
    return shown, " " * first + "^" * width


def _snippet(d: Diagnostic, source: SourceCache, color: bool) -> list[str]:
    end_line = max(d.end_line, d.line)
    end_column = d.end_column
    if end_line > d.line and end_column <= 1:
        # The range ends at the very start of a line: it really ends with the previous line.
        end_line, end_column = end_line - 1, 1 << 30
    rows: list[tuple[int | None, str, str]] = []  # (line number or None for "...", text, carets)
    numbers = list(range(d.line, end_line + 1))
    if len(numbers) > MAX_SNIPPET_LINES:
        half = MAX_SNIPPET_LINES // 2
        numbers = numbers[:half] + [-1] + numbers[-half:]
    for number in numbers:
        if number == -1:
            rows.append((None, "...", ""))
            continue
        text = source.line(d.path, number, d.cell)
        if text is None:
            if number == d.line:
                return []  # unreadable file or stale position: no snippet at all
            break
        start = d.column - 1 if number == d.line else len(text) - len(text.lstrip())
        end = end_column - 1 if number == end_line else len(text)
        if number != d.line and number != end_line and not text.strip():
            shown, carets = display_line(text)[0], ""
        else:
            shown, carets = _underline(text, start, end)
        rows.append((number, shown.rstrip(), carets))
    if not rows:
        return []

    width = _gutter_width(d)
    bar = style("|", color, fg="blue", bold=True)
    blank_gutter = style(" " * width + " |", color, fg="blue", bold=True)
    caret_color = SEVERITY_COLOR.get(d.severity, "red")
    out = [blank_gutter]
    last_index = max(i for i, row in enumerate(rows) if row[0] is not None)
    for index, (number, shown, carets) in enumerate(rows):
        if number is None:
            out.append(style("...", color, fg="blue", bold=True))
            continue
        gutter = style(f"{number:>{width}} ", color, fg="blue", bold=True)
        out.append(f"{gutter}{bar} {shown}".rstrip())
        if carets:
            label = f" {d.code}" if index == last_index else ""
            out.append(f"{blank_gutter} {style(carets + label, color, fg=caret_color, bold=True)}")
    out.append(blank_gutter)
    return out


def _gutter_width(d: Diagnostic) -> int:
    return len(str(max(d.line, d.end_line)))


def _help(d: Diagnostic) -> str:
    if d.fix is None:
        return ""
    if d.fix.applicability == Applicability.SAFE:
        return "Safe fix available (run with --fix)"
    return "Unsafe fix available (applied only when unsafe fixes are enabled)"


def render_one(d: Diagnostic, source: SourceCache, color: bool) -> list[str]:
    lines = [header(d, color)]
    lines.extend(_snippet(d, source, color))
    equals = style(" " * _gutter_width(d) + " =", color, fg="blue", bold=True)
    help_text = _help(d)
    if help_text:
        lines.append(f"{equals} {style('help', color, fg='cyan', bold=True)}: {help_text}")
        lines.append(f"{equals} docs: {terminal_safe(d.url)}")
    else:
        lines.append(f"{equals} {style('help', color, fg='cyan', bold=True)}: see {terminal_safe(d.url)}")
    return lines


def render(diagnostics: Sequence[Diagnostic], *, color: bool = False, files_checked: int = 0,
           left_out: Mapping[Impact, int] | None = None) -> str:
    source = SourceCache()
    blocks: list[str] = []
    for d in diagnostics:
        blocks.append("\n".join(render_one(d, source, color)) + "\n")
    blocks.append(summary(diagnostics, color, left_out) + "\n")
    return "\n".join(blocks)
