"""What the language server asks of the linter, without any LSP type: settings per document,
findings for a Python buffer or a notebook's cells, and "fix all".

The same engine entry points as `pipelint check --stdin-filename` (the buffer is checked as the
file at its path would be: the closest configuration, its per-file-ignores, rule options and
which impacts it shows), and,
for notebooks, the same `lint_notebook` as an `.ipynb` on disk: the editor's cells become an
nbformat 4 document in memory, so names flow across cells and findings come back per cell.

Nothing here raises for bad input or a bug: a failure becomes a PL000 finding (an exception inside
pipelint) or PL002 (a notebook that cannot be read), never a dead server.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pipelint.codes import CODES
from pipelint.config import CliOverrides, ConfigError, Settings, SettingsResolver
from pipelint.diagnostics import Diagnostic
from pipelint.results import FixMode

if TYPE_CHECKING:
    from pipelint.reparse import Reparser

__all__ = ["Cell", "ConfigError", "Linter", "NotebookFindings"]


@dataclass(frozen=True)
class Cell:
    """A notebook cell as the editor holds it."""

    kind: str  # "code" or "markdown"
    text: str
    language: str = "python"


@dataclass
class NotebookFindings:
    #: Findings per cell, by the cell's 0-based position in the notebook (every cell, markdown too).
    by_cell: dict[int, list[Diagnostic]]
    #: Findings that belong to no cell (a notebook that cannot be read at all).
    whole: list[Diagnostic]


def _engine_finding(path: str, code: str, message: str) -> Diagnostic:
    info = CODES[code]
    return Diagnostic(path, 1, 1, 1, 1, code, info.name, message.replace("\n", " "), info.severity, info.impact)


def _internal_error(path: str, error: BaseException) -> Diagnostic:
    return _engine_finding(path, "PL000", f"internal error: {type(error).__name__}: {error}")


def notebook_json(cells: list[Cell], metadata: dict | None = None) -> str:
    """The cells as an nbformat 4 document: what `pipelint check` reads from an `.ipynb` file."""
    out = []
    for cell in cells:
        if cell.kind != "code":
            out.append({"cell_type": "markdown", "metadata": {}, "source": cell.text})
            continue
        # VS Code's way of marking a cell's language: the engine skips non-Python cells by it.
        out.append({"cell_type": "code", "metadata": {"vscode": {"languageId": cell.language}},
                    "source": cell.text, "outputs": [], "execution_count": None})
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata or {}, "cells": out})


_KEPT_DOCUMENTS = 8


class Linter:
    """Settings and checks for the documents of one workspace root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._resolver = SettingsResolver(CliOverrides(), cwd=root)
        #: The last parse of each recently checked document: an edit re-parses only the
        #: statements it touches. (A few documents: the ones being edited.)
        self._reparsers: dict[str, "Reparser"] = {}

    def reload_settings(self) -> None:
        """Forget every configuration read so far (a pyproject.toml or pipelint.toml changed)."""
        self._resolver = SettingsResolver(CliOverrides(), cwd=self.root)

    def settings_for(self, path: Path) -> Settings:
        """The settings of the closest configuration above `path` (raises ConfigError)."""
        return self._resolver.for_directory(path.parent)

    def _skipped(self, settings: Settings, path: Path) -> bool:
        # As `--stdin-filename`: an editor's buffer is checked even when excluded, unless the
        # configuration says force-exclude.
        return settings.force_exclude and settings.is_excluded(path, is_dir=False)

    def check_python(self, text: str, path: Path) -> list[Diagnostic]:
        """Findings for a Python buffer checked as the file at `path` (raises ConfigError)."""
        settings = self.settings_for(path)
        if self._skipped(settings, path):
            return []
        shown = str(path)
        codes = settings.enabled_codes(path)
        try:
            from pipelint.engine import lint_source, run_with_deep_stack
            from pipelint.reparse import Reparser

            reparser = self._reparsers.pop(shown, None) or Reparser()
            self._reparsers[shown] = reparser  # (most recent last)
            while len(self._reparsers) > _KEPT_DOCUMENTS:
                del self._reparsers[next(iter(self._reparsers))]
            found = run_with_deep_stack(partial(lint_source, parse=reparser.parse), text, shown, codes, settings)
        except Exception as error:  # noqa: BLE001 - a bug becomes a finding, never a dead server
            return [_internal_error(shown, error)]
        return [d for d in found if d.code in codes and settings.shows(d)]

    def check_notebook(self, cells: list[Cell], path: Path, metadata: dict | None = None) -> NotebookFindings:
        """Findings for a notebook's cells (raises ConfigError)."""
        settings = self.settings_for(path)
        if self._skipped(settings, path):
            return NotebookFindings({}, [])
        shown = str(path)
        codes = settings.enabled_codes(path)
        try:
            from pipelint.engine import lint_notebook, run_with_deep_stack
            from pipelint.notebook import NotebookError

            try:
                found = run_with_deep_stack(lint_notebook, notebook_json(cells, metadata), shown, codes, settings)
            except NotebookError as error:
                return NotebookFindings({}, [_engine_finding(shown, "PL002", f"cannot read notebook: {error}")])
        except Exception as error:  # noqa: BLE001
            return NotebookFindings({}, [_internal_error(shown, error)])
        by_cell: dict[int, list[Diagnostic]] = {}
        whole = []
        for d in found:
            if d.code not in codes or not settings.shows(d):
                continue
            if d.cell is None:
                whole.append(d)
            else:
                by_cell.setdefault(d.cell - 1, []).append(d)
        return NotebookFindings(by_cell, whole)

    def fix_python(self, text: str, path: Path, include_unsafe: bool = False) -> str | None:
        """The buffer with every applicable fix applied (round after round, as `--fix`), or None
        when nothing changes."""
        settings = self.settings_for(path)
        if self._skipped(settings, path):
            return None
        try:
            from pipelint.engine import lint_and_fix, run_with_deep_stack

            _, fixed, count = run_with_deep_stack(lint_and_fix, text, str(path), settings.enabled_codes(path),
                                                  settings, FixMode(enabled=True, include_unsafe=include_unsafe))
        except Exception:  # noqa: BLE001 - no fix then; the diagnostics say what failed
            return None
        return fixed if count and fixed != text else None

    def fix_notebook(self, cells: list[Cell], path: Path, metadata: dict | None = None,
                     include_unsafe: bool = False) -> dict[int, str]:
        """New text of each cell that fixes change, by 0-based position in the notebook."""
        settings = self.settings_for(path)
        if self._skipped(settings, path):
            return {}
        try:
            from pipelint.engine import lint_and_fix_notebook, run_with_deep_stack

            _, _, count, changed = run_with_deep_stack(
                lint_and_fix_notebook, notebook_json(cells, metadata), str(path), settings.enabled_codes(path),
                settings, FixMode(enabled=True, include_unsafe=include_unsafe))
        except Exception:  # noqa: BLE001
            return {}
        return {number - 1: new for number, _, new in changed} if count else {}
