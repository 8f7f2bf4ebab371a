"""What checking a file produces, apart from the checker: the result cache hands these out
without importing the engine (and so without libcst)."""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipelint.diagnostics import Diagnostic, Impact

if TYPE_CHECKING:
    from pipelint.config import SettingsResolver


@dataclass
class FileResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    fixed_source: str | None = None  # set when fixes changed the file
    original_source: str | None = None
    fixes_applied: int = 0
    file: Path | None = None
    encoding: str = "utf-8"
    bom: bool = False
    #: In a notebook fixed: (cell number, old source, new source) of each changed cell.
    changed_cells: list[tuple[int, str, str]] = field(default_factory=list)

    def fixed_bytes(self) -> bytes:
        """The fixed text in the file's own encoding, its byte-order mark kept (may raise
        UnicodeEncodeError when a fix adds a character that encoding lacks)."""
        return (("\ufeff" if self.bom else "") + (self.fixed_source or "")).encode(self.encoding)


def shown_findings(results: Sequence[FileResult], resolver: "SettingsResolver") -> tuple[list[Diagnostic], Counter[Impact]]:
    """The findings each file's settings report (`Settings.shows`), and how many of each impact
    were left out. Results (and the cache) hold every finding; what is shown is decided here."""
    shown: list[Diagnostic] = []
    left_out: Counter[Impact] = Counter()
    for result in results:
        if not result.diagnostics:
            continue  # (most files: no settings to look up)
        # A checked file's settings are its directory's (`for_directory`: no stat of the file).
        settings = resolver.for_directory((result.file if result.file is not None else Path(result.path)).parent)
        for d in result.diagnostics:
            if settings.shows(d):
                shown.append(d)
            else:
                left_out[d.impact] += 1
    return shown, left_out


@dataclass(frozen=True)
class FixMode:
    enabled: bool = False
    include_unsafe: bool = False


def display_path(path: Path, cwd: Path) -> str:
    """How a file is named in reports: relative to the current directory when below it."""
    return DisplayPaths(cwd)(path)


class DisplayPaths:
    """`display_path` for many files: each directory's symbolic links are resolved once."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = os.path.abspath(cwd)
        self._real: dict[str, str] = {}
        self.base = self._real_dir(self.cwd)

    def _real_dir(self, directory: str) -> str:
        real = self._real.get(directory)
        if real is None:
            real = self._real[directory] = os.path.realpath(directory)
        return real

    def __call__(self, path: Path) -> str:
        joined = os.path.join(self.cwd, path)
        if os.pardir in Path(joined).parts:
            real = os.path.realpath(joined)  # `..` after a link: leave the order to realpath
        else:
            directory, name = os.path.split(joined)
            real = os.path.join(self._real_dir(directory), name)
            if os.path.islink(real):
                real = os.path.realpath(real)
        if real == self.base:
            return "."
        prefix = self.base.rstrip(os.sep) + os.sep
        if real.startswith(prefix):
            return Path(real[len(prefix):]).as_posix()
        return Path(path).as_posix()
