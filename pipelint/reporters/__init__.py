"""Output formats, modelled on ruff's `--output-format`.

`render` returns the whole document as text: empty for "nothing at all" in the line-oriented
machine formats (json-lines, github), otherwise ending in exactly one newline -- so write it with
`click.echo(text, nl=False)` / `sys.stdout.write(text)`. Colour codes appear only with `color=True`.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence

from pipelint.diagnostics import Diagnostic, Impact
from pipelint.reporters.statistics import render_statistics

__all__ = ["FORMATS", "render", "render_statistics"]

FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "junit")

# Only the chosen format's module is imported (SARIF and JUnit pull in hashlib, xml...).
_MODULES = {name: "pipelint.reporters." + name.replace("-", "_") for name in FORMATS}


def render(
    diagnostics: Sequence[Diagnostic],
    output_format: str,
    *,
    color: bool = False,
    files_checked: int = 0,
    left_out: Mapping[Impact, int] | None = None,
) -> str:
    """`left_out`: how many findings of each impact the settings did not show; the text formats
    (full, concise) say so in their summary, the machine formats list only what is shown."""
    try:
        module = _MODULES[output_format]
    except KeyError:
        raise ValueError(
            f"unknown output format {output_format!r}; expected one of: {', '.join(FORMATS)}"
        ) from None
    renderer = importlib.import_module(module).render
    return renderer(list(diagnostics), color=color, files_checked=files_checked, left_out=left_out)
