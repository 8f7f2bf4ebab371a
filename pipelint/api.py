"""The public Python API: `pipelint.check_source` and `pipelint.check_paths` (see the README).

The same path as the command line (configuration, discovery, engine), minus the reporting: the
caller gets `Diagnostic` objects.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pipelint.config import CliOverrides, SettingsResolver, load_settings
from pipelint.diagnostics import Diagnostic
from pipelint.discovery import discover
from pipelint.engine import check_files, lint_notebook, lint_source, run_with_deep_stack
from pipelint.notebook import is_notebook_path
from pipelint.results import shown_findings

__all__ = ["check_paths", "check_source"]


def check_source(source: str, path: str = "<string>", select: Sequence[str] | None = None) -> list[Diagnostic]:
    """The diagnostics pipelint reports for `source` (default rules unless `select`; findings of
    impact breaks-on-upgrade and housekeeping only for codes `select` names in full, as the
    command line shows them).

    No configuration file is read: `select` (codes, prefixes or ALL) alone decides the rules.
    A `path` ending in `.ipynb` reads `source` as a notebook's JSON (NotebookError if it is not).
    """
    overrides = CliOverrides(select=tuple(select) if select is not None else None)
    settings = load_settings(None, overrides, Path.cwd())
    codes = settings.enabled_codes(Path(path))
    lint = lint_notebook if is_notebook_path(path) else lint_source
    return [d for d in run_with_deep_stack(lint, source, path, codes, settings) if d.code in codes and settings.shows(d)]


def check_paths(paths: Sequence[str | os.PathLike], select: Sequence[str] | None = None,
                jobs: int | None = 1) -> list[Diagnostic]:
    """Discover and check the files under `paths` (each with its closest configuration file, as
    the command line does); the diagnostics it shows, sorted by path and line."""
    overrides = CliOverrides(select=tuple(select) if select is not None else None)
    resolver = SettingsResolver(overrides)
    found = discover(list(paths), resolver)
    return shown_findings(check_files(found.files, resolver, jobs=jobs), resolver)[0]
