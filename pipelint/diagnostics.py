"""The finding type every stage after the rules passes along: rules -> suppressions -> reporters."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

DOCS_BASE_URL = "https://github.com/pipelint/pipelint/blob/main/docs/rules.md"


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Impact(str, Enum):
    """What a finding costs the user, judged on the module's target TensorFlow/Keras
    (pipelint/target.py). Only correctness and speed are shown by default (`Settings.shows`).
    The members are listed in the order reports group them: what costs most first."""

    #: The code is wrong on its own target: wrong data reaches the model (order, leaks, frozen
    #: randomness, overlapping splits), or the call fails there.
    CORRECTNESS = "correctness"
    SPEED = "speed"
    #: A correctness finding whose effect on what the model sees is small (a shuffle after
    #: `repeat()` with a buffer far smaller than the data mixes a few examples at each boundary).
    MINOR_CORRECTNESS = "minor-correctness"
    #: A speed finding on a stage with no evidence of cost (data in memory, records only parsed,
    #: casts and lookups), or on data only evaluated: seconds, not hours.
    MINOR_SPEED = "minor-speed"
    #: Works on the target, fails or changes meaning on a newer TensorFlow/Keras: a migration.
    BREAKS_ON_UPGRADE = "breaks-on-upgrade"
    #: A deprecated name that still works on the target: a cleanup.
    HOUSEKEEPING = "housekeeping"


class Applicability(str, Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text between two 1-based positions (end exclusive) with `content`."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str

    def to_dict(self) -> dict:
        return {
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "content": self.content,
        }


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    edits: tuple[Edit, ...]

    def to_dict(self) -> dict:
        return {
            "applicability": self.applicability.value,
            "edits": [edit.to_dict() for edit in self.edits],
        }


def rule_docs_url(code: str, name: str) -> str:
    return f"{DOCS_BASE_URL}#{code.lower()}-{name}"


@dataclass(frozen=True)
class Diagnostic:
    """One finding. Lines and columns are 1-based; the end is exclusive.

    In a notebook, `cell` is the 1-based cell (counting every cell, markdown too) and lines,
    including those of the fix's edits, count from the cell's first line; `cell` is None in a
    Python file.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str
    message: str
    severity: Severity
    impact: Impact
    fix: Fix | None = field(default=None, compare=False)
    cell: int | None = None

    @property
    def url(self) -> str:
        return rule_docs_url(self.code, self.name)

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.line, self.column, self.code, self.message)

    @property
    def location(self) -> str:
        """`line:column`, or `cell N:line:column` in a notebook (as Jupyter and ruff show it)."""
        where = f"{self.line}:{self.column}"
        return f"cell {self.cell}:{where}" if self.cell is not None else where

    def to_dict(self) -> dict:
        """The stable JSON shape documented in the README: exactly these keys."""
        return {
            "path": self.path,
            "cell": self.cell,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "severity": self.severity.value,
            "impact": self.impact.value,
            "fix": self.fix.to_dict() if self.fix else None,
        }
