"""File matching: `exclude` patterns (tested per directory entry) and `per-file-ignores` globs.

Both use git's pattern language through `pathspec` (the same library discovery uses for
.gitignore files). Exclude patterns are not gitignore lines, though: `!` and `#` are literal
characters, and a pattern matches the entry it names, not what lies below it (a walk never
descends into an excluded directory; `pipelint check build/` still checks an explicitly given
one). pathspec marks where a directory match ends and its contents begin with the `ps_d` group;
a match that ends there names an ancestor, not the entry.
"""
from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

__all__ = ["ExcludeMatcher", "PathGlob", "abspath", "rel_posix"]

_DIRECTORY_PART = "ps_d"


def _gitignore_regex(pattern: str) -> re.Pattern[str]:
    """pathspec's regex for one pattern; a pattern git would reject matches itself literally."""
    from pathspec import GitIgnoreSpec  # ~20 ms to import: only once a glob needs it

    if pattern.lstrip("/").startswith(("!", "#")):  # literal here, not negation or comment
        anchor = "/" if pattern.startswith("/") else ""
        pattern = anchor + "\\" + pattern.lstrip("/")
    try:
        compiled = GitIgnoreSpec.from_lines([pattern]).patterns
    except ValueError:  # e.g. a trailing backslash
        compiled = []
    if compiled and compiled[0].regex is not None:
        return compiled[0].regex
    return re.compile("^" + re.escape(pattern.lstrip("/")) + f"(?:(?P<{_DIRECTORY_PART}>/)|$)")


def _names_entry(regex: re.Pattern[str], path: str) -> bool:
    match = regex.search(path)  # as pathspec does: a few of its regexes are not anchored
    return match is not None and match.groupdict().get(_DIRECTORY_PART) is None


class ExcludeMatcher:
    """Matches one path entry (file or directory) against exclude patterns, ruff-style.

    A pattern without a slash is tested against the basename; one with a slash is anchored at the
    root and tested against the whole root-relative path; an absolute pattern against the absolute
    path. A trailing slash matches directories only. Ancestors are *not* considered here (see
    `Settings.is_excluded` for that).
    """

    __slots__ = ("_absolute", "_absolute_dir", "_name", "_name_dir", "_rel", "_rel_dir", "name_dirs",
                 "names")

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.names: set[str] = set()
        self.name_dirs: set[str] = set()
        name: list[str] = []
        name_dir: list[str] = []
        rel: list[str] = []
        rel_dir: list[str] = []
        absolute: list[str] = []
        absolute_dir: list[str] = []
        for raw in patterns:
            pattern = raw.strip()
            if not pattern:
                continue
            dir_only = pattern.endswith("/")
            pattern = pattern.rstrip("/")
            if not pattern:
                continue
            if os.path.isabs(pattern):
                (absolute_dir if dir_only else absolute).append(Path(pattern).as_posix())
                continue
            pattern = pattern.removeprefix("./")
            if "/" in pattern:
                (rel_dir if dir_only else rel).append("/" + pattern.lstrip("/"))
            elif not any(ch in pattern for ch in "*?[\\"):
                (self.name_dirs if dir_only else self.names).add(pattern)
            else:
                (name_dir if dir_only else name).append(pattern)
        self._name = tuple(map(_gitignore_regex, name))
        self._name_dir = tuple(map(_gitignore_regex, name_dir))
        self._rel = tuple(map(_gitignore_regex, rel))
        self._rel_dir = tuple(map(_gitignore_regex, rel_dir))
        self._absolute = tuple(map(_gitignore_regex, absolute))
        self._absolute_dir = tuple(map(_gitignore_regex, absolute_dir))

    @property
    def needs_rel(self) -> bool:
        return bool(self._rel or self._rel_dir)

    @property
    def needs_abs(self) -> bool:
        return bool(self._absolute or self._absolute_dir)

    def match(self, name: str, rel: str | None, absolute: str | None, is_dir: bool) -> bool:
        """`absolute` is a POSIX path (leading slash included)."""
        if name in self.names or any(_names_entry(regex, name) for regex in self._name):
            return True
        if rel is not None and any(_names_entry(regex, rel) for regex in self._rel):
            return True
        if absolute is not None and any(_names_entry(regex, absolute[1:]) for regex in self._absolute):
            return True
        if is_dir:
            if name in self.name_dirs or any(_names_entry(regex, name) for regex in self._name_dir):
                return True
            if rel is not None and any(_names_entry(regex, rel) for regex in self._rel_dir):
                return True
            if absolute is not None and any(_names_entry(regex, absolute[1:]) for regex in self._absolute_dir):
                return True
        return False


class PathGlob:
    """A per-file-ignores glob: it covers the path it names and everything below it.

    Tested against the root-relative path with git's semantics (anchored at the root) and with
    fnmatch's (where `*` crosses `/`, as in ruff), against the absolute path, and, for a glob
    without a slash, against the basename. A leading `!` applies it to the files it misses.
    """

    __slots__ = ("_absolute", "_anchored", "_loose", "_name", "negated")

    def __init__(self, pattern: str) -> None:
        pattern = pattern.strip()
        self.negated = pattern.startswith("!")
        if self.negated:
            pattern = pattern[1:]
        pattern = pattern.removeprefix("./")
        self._absolute = os.path.isabs(pattern)
        body = Path(pattern).as_posix() if self._absolute else pattern.rstrip("/").lstrip("/")
        self._anchored = _gitignore_regex("/" + body.lstrip("/"))
        self._loose = re.compile(fnmatch.translate(body))
        self._name = _gitignore_regex(body) if "/" not in body else None

    def _anchored_match(self, candidate: str) -> bool:
        if self._absolute:
            return candidate.startswith("/") and self._anchored.search(candidate[1:]) is not None
        return self._anchored.search(candidate) is not None

    def matches(self, rel: str, absolute: str, name: str) -> bool:
        hit = any(self._loose.match(candidate) or self._anchored_match(candidate)
                  for candidate in (rel, absolute))
        if not hit and self._name is not None and _names_entry(self._name, name):
            hit = True
        return hit != self.negated


def rel_posix(path: Path, root: Path) -> str | None:
    """`path` relative to `root` in POSIX form; "" for the root itself, None outside it."""
    try:
        rel = os.path.relpath(path, root)
    except ValueError:  # pragma: no cover - different drives on Windows
        return None
    if rel == os.curdir:
        return ""
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return Path(rel).as_posix()


def abspath(path: Path | str, cwd: Path | None = None) -> Path:
    """Absolute and normalised, without resolving symbolic links."""
    path = Path(path)
    if not path.is_absolute():
        path = (cwd or Path.cwd()) / path
    return Path(os.path.normpath(path))
