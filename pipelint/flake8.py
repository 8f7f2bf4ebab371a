"""flake8 plugin: `flake8 --select PL` reports what `pipelint check` reports.

Registered under the entry point group ``flake8.extension`` with the name ``PL`` (pyproject.toml).
flake8 is not a dependency of pipelint and nothing of it is imported here; the engine (and
libcst) loads on the first file flake8 hands over.

Each file is checked with the settings `pipelint check` would use for it: the closest
``[tool.pipelint]`` / ``pipelint.toml`` above it, so ``select``, ``ignore``,
``per-file-ignores``, rule options and ``show-minor-correctness``/``show-minor-speed``/``show-migrations``/``show-housekeeping`` apply. flake8's own ``--select``/``--ignore``/``# noqa``
then filter as for any plugin. Codes, lines, columns and messages are those of `pipelint check`
(flake8 shows the 0-based column offset plugins give it plus one, as pipelint's 1-based column).
A file that does not parse never reaches the plugin: flake8 reports E999 itself.
"""
from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipelint import __version__

if TYPE_CHECKING:
    from pipelint.config import SettingsResolver

_RESOLVERS: dict[Path, SettingsResolver] = {}


def _resolver() -> SettingsResolver:
    """One resolver per working directory: configs are read once per flake8 worker."""
    from pipelint.config import CliOverrides, SettingsResolver

    cwd = Path.cwd()
    resolver = _RESOLVERS.get(cwd)
    if resolver is None:
        resolver = _RESOLVERS[cwd] = SettingsResolver(CliOverrides(), cwd=cwd)
    return resolver


class Checker:
    """flake8 calls `Checker(tree, filename, lines).run()` for each file."""

    name = "pipelint"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: Sequence[str]) -> None:
        # flake8 classifies a plugin by its parameters: asking for `tree` makes this an AST
        # plugin (run once per file). The tree itself is not used: pipelint parses with libcst.
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type[Any]]]:
        from pipelint.config import ConfigError
        from pipelint.engine import lint_source, run_with_deep_stack

        source = "".join(self.lines)
        if source.startswith("\ufeff"):
            source = source[1:]
        path = Path(self.filename)
        try:
            settings = _resolver().for_path(path)
        except ConfigError as error:
            # A broken config is the user's to fix; say so once per file rather than crash flake8.
            yield 1, 0, f"PL000 pipelint configuration error: {error}", type(self)
            return
        codes = settings.enabled_codes(path)
        for diagnostic in run_with_deep_stack(lint_source, source, self.filename, codes, settings):
            if diagnostic.code in codes and settings.shows(diagnostic):
                yield diagnostic.line, diagnostic.column - 1, f"{diagnostic.code} {diagnostic.message}", type(self)
