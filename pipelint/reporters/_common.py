"""Helpers shared by the reporters: colour, source lines, text sanitising, the summary line."""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

import click

from pipelint.diagnostics import Diagnostic, Impact, Severity

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BREAKS_AND_SPACE = re.compile(r"\s*(?:\r\n|\r|\n)\s*")
TAB_WIDTH = 4


def style(text: str, color: bool, **kwargs) -> str:
    """`click.style` when colour is on, the plain text otherwise."""
    return click.style(text, **kwargs) if color and text else text


def fix_marker(diagnostic: Diagnostic) -> str:
    return "[*] " if diagnostic.fix is not None else ""


def one_line(text: str) -> str:
    """Fold line breaks (and the whitespace around them) into single spaces."""
    return _BREAKS_AND_SPACE.sub(" ", text).strip() if ("\n" in text or "\r" in text) else text


def _char_display(ch: str) -> tuple[str, int]:
    """How one source character is shown on a terminal, and how many cells it takes."""
    if ch == "\t":
        return " " * TAB_WIDTH, TAB_WIDTH
    code = ord(ch)
    if code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0:
        shown = f"\\x{code:02x}"  # never let raw control bytes (ESC...) reach the terminal
        return shown, len(shown)
    if unicodedata.combining(ch):
        return ch, 0
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return ch, 2
    return ch, 1


def terminal_safe(text: str) -> str:
    """Replace control characters (other than tabs, which become spaces) by visible escapes."""
    return "".join(_char_display(ch)[0] for ch in text)


def display_line(line: str) -> tuple[str, list[int]]:
    """The line as displayed, plus the display offset of every character index (and one past the end)."""
    shown: list[str] = []
    offsets: list[int] = []
    cell = 0
    for ch in line:
        offsets.append(cell)
        text, width = _char_display(ch)
        shown.append(text)
        cell += width
    offsets.append(cell)
    return "".join(shown), offsets


# Sources that are not (or not yet) on disk, by display path: stdin given `--stdin-filename`.
_GIVEN_SOURCES: dict[str, str] = {}


def give_source(path: str, text: str) -> None:
    """Show `text` as the source of `path` in snippets instead of reading the file."""
    _GIVEN_SOURCES[path] = text


class SourceCache:
    """Reads each file at most once per render; `None` for files that cannot be read.

    For a notebook, `cell` picks the cell whose lines are wanted (numbered as in Jupyter).
    """

    def __init__(self) -> None:
        self._files: dict[str, list[str] | None] = {
            path: _LINE_BREAK.split(text) for path, text in _GIVEN_SOURCES.items()}
        self._cells: dict[str, dict[int, list[str]] | None] = {}

    def lines(self, path: str, cell: int | None = None) -> list[str] | None:
        if cell is not None:
            return self._cell_lines(path, cell)
        if path not in self._files:
            try:
                with open(path, encoding="utf-8", errors="replace", newline="") as handle:
                    text = handle.read()
            except (OSError, ValueError):
                self._files[path] = None
            else:
                if text.startswith("\ufeff"):
                    text = text[1:]
                self._files[path] = _LINE_BREAK.split(text)
        return self._files[path]

    def line(self, path: str, number: int, cell: int | None = None) -> str | None:
        lines = self.lines(path, cell)
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]

    def _cell_lines(self, path: str, cell: int) -> list[str] | None:
        if path not in self._cells:
            from pipelint.notebook import NotebookError, parse_notebook

            text = self.text(path)
            try:
                notebook = parse_notebook(text) if text is not None else None
            except NotebookError:
                notebook = None
            self._cells[path] = None if notebook is None else {
                c.number: _LINE_BREAK.split(c.source) for c in notebook.cells}
        cells = self._cells[path]
        return None if cells is None else cells.get(cell)

    def text(self, path: str) -> str | None:
        """The whole file as text (a notebook's JSON), or None."""
        try:
            with open(path, encoding="utf-8", errors="replace", newline="") as handle:
                text = handle.read()
        except (OSError, ValueError):
            return None
        return text[1:] if text.startswith("\ufeff") else text


class NotebookPositions:
    """Where a notebook finding sits in the file as stored (its JSON), for consumers that place
    findings on lines of the file itself (SARIF code scanning, GitHub annotations)."""

    def __init__(self, source: SourceCache) -> None:
        self._source = source
        self._spans: dict[str, tuple[str, list] | None] = {}

    def region(self, d: Diagnostic) -> tuple[int, int, int, int]:
        """(line, column, end line, end column) in the JSON text; 1-based."""
        from pipelint.notebook import NotebookError, raw_position, source_spans

        if d.path not in self._spans:
            text = self._source.text(d.path)
            try:
                self._spans[d.path] = None if text is None else (text, source_spans(text))
            except (NotebookError, ValueError, IndexError):
                self._spans[d.path] = None
        found = self._spans[d.path]
        if found is None or d.cell is None:
            return 1, 1, 1, 1
        text, spans = found
        try:
            line, column = raw_position(text, d.cell, d.line, d.column, spans)
            end_line, end_column = raw_position(text, d.cell, d.end_line, d.end_column, spans)
        except (ValueError, IndexError):
            return 1, 1, 1, 1
        if (end_line, end_column) < (line, column):
            end_line, end_column = line, column
        return line, column, end_line, end_column


def cell_prefix(d: Diagnostic) -> str:
    """`cell 7, line 2: ` for a notebook finding (said in the message where only the message is
    shown in the notebook's own terms), empty for a Python file."""
    return f"cell {d.cell}, line {d.line}: " if d.cell is not None else ""


#: The switch that shows each impact left out by default.
SHOW_SWITCH = {Impact.MINOR_CORRECTNESS: "--show-minor-correctness", Impact.MINOR_SPEED: "--show-minor-speed",
               Impact.BREAKS_ON_UPGRADE: "--show-migrations", Impact.HOUSEKEEPING: "--show-housekeeping"}


def _count(number: int, what: str) -> str:
    return f"{number} {what} finding{'' if number == 1 else 's'}"


def summary(diagnostics: Sequence[Diagnostic], color: bool, left_out: Mapping[Impact, int] | None = None) -> str:
    """`Found 3 findings (2 correctness, 1 speed; 1 fixable with --fix).`, then a line per impact
    left out: `2 housekeeping findings not shown: --show-housekeeping`."""
    total = len(diagnostics)
    if total == 0:
        lines = [style("All checks passed!", color, fg="green", bold=True)]
    else:
        fixable = sum(1 for d in diagnostics if d.fix is not None)
        noun = "finding" if total == 1 else "findings"
        by_impact = ", ".join(f"{count} {impact.value}" for impact in Impact
                              if (count := sum(1 for d in diagnostics if d.impact == impact)))
        lines = [f"Found {total} {noun} ({by_impact}; {fixable} fixable with --fix)."]
    for impact, switch in SHOW_SWITCH.items():
        if left_out and left_out.get(impact):
            lines.append(f"{_count(left_out[impact], impact.value)} not shown: {switch}")
    return "\n".join(lines)


SEVERITY_COLOR = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "blue"}


def header(diagnostic: Diagnostic, color: bool) -> str:
    """`path:line:col: PL101 [*] message` -- the first line of both `concise` and `full`."""
    d = diagnostic
    sep = style(":", color, fg="cyan")
    cell = f"cell {d.cell}{sep}" if d.cell is not None else ""
    location = (
        f"{style(terminal_safe(d.path), color, bold=True)}{sep}{cell}{d.line}{sep}{d.column}{sep}"
    )
    code = style(d.code, color, fg=SEVERITY_COLOR.get(d.severity, "red"), bold=True)
    marker = style("[*]", color, fg="cyan") + " " if d.fix is not None else ""
    return f"{location} {code} {marker}{terminal_safe(one_line(d.message))}"
