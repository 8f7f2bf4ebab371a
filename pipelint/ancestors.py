"""The one upward directory walk, shared by the configuration (the closest pipelint.toml or
pyproject.toml above a file) and discovery (the enclosing git work tree, the .gitignore files
between it and a file). Paths are absolute, normalised strings: no `pathlib`, no stat calls
beyond what the caller's test makes, since discovery asks this for every directory it walks.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

__all__ = ["ClosestAncestor", "ancestors"]

T = TypeVar("T")
_MISSING = object()


def ancestors(directory: str, stop: str | None = None) -> Iterator[str]:
    """`directory`, its parent, and so on up to `stop` (included) or the file-system root."""
    current = directory
    while True:
        yield current
        if current == stop:
            return
        parent = os.path.dirname(current)
        if parent == current:
            return
        current = parent


class ClosestAncestor(Generic[T]):
    """The first answer, from a directory upward, of `find_in(directory)` (None: look further up).

    Every directory's answer is remembered, its own or the one found above it, so a tree walk
    asks each directory at most once.
    """

    def __init__(self, find_in: Callable[[str], T | None]) -> None:
        self._find_in = find_in
        self._found: dict[str, T | None] = {}

    def find(self, directory: str) -> T | None:
        found = self._found.get(directory, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[return-value]
        pending: list[str] = []
        found = None
        for current in ancestors(directory):
            known = self._found.get(current, _MISSING)
            if known is not _MISSING:
                found = known
                break
            pending.append(current)
            found = self._find_in(current)
            if found is not None:
                break
        for entry in pending:
            self._found[entry] = found  # type: ignore[assignment]
        return found  # type: ignore[return-value]
