"""Output formats, modelled on ruff's `--output-format`.

`render` returns the whole document as text: empty for "nothing at all" in the line-oriented
machine formats (json-lines, github), otherwise ending in exactly one newline -- so write it with
`click.echo(text, nl=False)` / `sys.stdout.write(text)`. Colour codes appear only with `color=True`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from pipelint.diagnostics import Diagnostic
from pipelint.reporters import concise, full, github, json, json_lines, junit, sarif
from pipelint.reporters.statistics import render_statistics

__all__ = ["FORMATS", "render", "render_statistics"]

FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "junit")

_RENDERERS: dict[str, Callable[..., str]] = {
    "full": full.render,
    "concise": concise.render,
    "json": json.render,
    "json-lines": json_lines.render,
    "sarif": sarif.render,
    "github": github.render,
    "junit": junit.render,
}


def render(
    diagnostics: Sequence[Diagnostic],
    output_format: str,
    *,
    color: bool = False,
    files_checked: int = 0,
) -> str:
    try:
        renderer = _RENDERERS[output_format]
    except KeyError:
        raise ValueError(
            f"unknown output format {output_format!r}; expected one of: {', '.join(FORMATS)}"
        ) from None
    return renderer(list(diagnostics), color=color, files_checked=files_checked)
