"""What checking a file produces, apart from the checker: the result cache hands these out
without importing the engine (and so without libcst)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pipelint.diagnostics import Diagnostic


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


@dataclass(frozen=True)
class FixMode:
    enabled: bool = False
    include_unsafe: bool = False


def display_path(path: Path, cwd: Path) -> str:
    """How a file is named in reports: relative to the current directory when below it."""
    try:
        return path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
