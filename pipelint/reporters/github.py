"""`--output-format github`: GitHub Actions workflow commands, which show up as PR annotations.

https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions
"""
from __future__ import annotations

from collections.abc import Sequence

from pipelint.diagnostics import Diagnostic, Severity
from pipelint.reporters._common import NotebookPositions, SourceCache, cell_prefix

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(d: Diagnostic, notebooks: NotebookPositions | None = None) -> str:
    """A notebook finding is annotated on the line of the .ipynb file (its JSON) that holds the
    cell's line, so that it shows in the pull request's diff; title and message name the cell."""
    line, column, end_line, end_column = d.line, d.column, d.end_line, d.end_column
    if d.cell is not None:
        notebooks = notebooks or NotebookPositions(SourceCache())
        line, column, end_line, end_column = notebooks.region(d)
    properties = {
        "file": d.path.replace("\\", "/"),
        "line": str(line),
        "col": str(column),
        "endLine": str(end_line),
        "endColumn": str(end_column),
        "title": f"{d.code} ({d.name})" + (f" in cell {d.cell}" if d.cell is not None else ""),
    }
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{_COMMAND.get(d.severity, 'error')} {props}::{escape_data(cell_prefix(d) + d.message)}"


def render(diagnostics: Sequence[Diagnostic], *, color: bool = False, files_checked: int = 0,
           left_out: object = None) -> str:
    notebooks = NotebookPositions(SourceCache())
    return "".join(command(d, notebooks) + "\n" for d in diagnostics)
