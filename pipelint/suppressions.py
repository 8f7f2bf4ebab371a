"""Suppression comments: `# noqa`, `# noqa: PL101, PL203`, `# pipelint: ignore[PL101]`, `# pipelint: skip-file`.

A suppression applies to findings reported on the same line as the comment. pipelint reports a
finding on the line of the method name (`.map(`), so in a chain spread over several lines the
comment goes at the end of the line holding that method.
"""
from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Collection
from dataclasses import dataclass, field

from pipelint.codes import CODES

ALL_CODES = "*"
_NOQA = re.compile(r"#\s*noqa\b(?::\s*(?P<codes>[\w\s,]*))?", re.IGNORECASE)
_IGNORE = re.compile(r"#\s*pipelint:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?")
_SKIP_FILE = re.compile(r"^[ \t]*#\s*pipelint:\s*skip-file\b", re.MULTILINE)
_PIPELINT_CODE = re.compile(r"^PL[0-9][0-9A-Z]*$")  # not ruff's pylint codes (PLR0913)


def has_skip_file(source: str) -> bool:
    return _SKIP_FILE.search(source) is not None


@dataclass
class Suppressions:
    by_line: dict[int, set[str]] = field(default_factory=dict)
    #: (line, column, code) of codes named in a comment that no rule has.
    unknown: list[tuple[int, int, str]] = field(default_factory=list)

    def suppresses(self, line: int, code: str) -> bool:
        codes = self.by_line.get(line)
        return codes is not None and (ALL_CODES in codes or code in codes)


def _comments(source: str) -> list[tuple[int, int, str]]:
    """(line, 0-based column, text) of every comment; real comments only, not `#` in strings."""
    try:
        return [
            (tok.start[0], tok.start[1], tok.string)
            for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        found = []
        for number, text in enumerate(source.splitlines(), start=1):
            index = text.find("#")
            if index >= 0:
                found.append((number, index, text[index:]))
        return found


def parse_suppressions(source: str, known_codes: Collection[str] = CODES) -> Suppressions:
    result = Suppressions()
    if "noqa" not in source and "pipelint:" not in source:
        return result
    for line, column, comment in _comments(source):
        for pattern in (_NOQA, _IGNORE):
            for match in pattern.finditer(comment):
                raw = match.group("codes")
                codes = [c for c in re.split(r"[\s,]+", raw.strip())] if raw and raw.strip() else []
                codes = [c for c in codes if c]
                entry = result.by_line.setdefault(line, set())
                if not codes:
                    entry.add(ALL_CODES)
                    continue
                for code in codes:
                    normalized = code.upper()
                    if normalized in known_codes:
                        entry.add(normalized)
                    elif _PIPELINT_CODE.match(normalized):
                        # Other tools' codes (flake8's E501) are theirs to judge; a PLnnn that
                        # no rule has is a typo that suppresses nothing.
                        result.unknown.append((line, column + match.start() + 1, code))
    return result
