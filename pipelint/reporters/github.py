"""`--output-format github`: GitHub Actions workflow commands, which show up as PR annotations.

https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions
"""
from __future__ import annotations

from collections.abc import Sequence

from pipelint.diagnostics import Diagnostic, Severity

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(d: Diagnostic) -> str:
    properties = {
        "file": d.path.replace("\\", "/"),
        "line": str(d.line),
        "col": str(d.column),
        "endLine": str(d.end_line),
        "endColumn": str(d.end_column),
        "title": f"{d.code} ({d.name})",
    }
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{_COMMAND.get(d.severity, 'error')} {props}::{escape_data(d.message)}"


def render(diagnostics: Sequence[Diagnostic], *, color: bool = False, files_checked: int = 0) -> str:
    return "".join(command(d) + "\n" for d in diagnostics)
