"""Find the files to check (.py, .pyi, .ipynb): walk directories, honour excludes and .gitignore files.

* Directories are walked with `os.scandir`. An entry matching the settings' exclude patterns
  (tested per entry, by basename or root-relative path, like ruff) is skipped without descending,
  so `pipelint path/to/site-packages` still works although `site-packages` is a default exclude.
* `.gitignore` files are honoured (gitwildmatch, negation included): those in the walked
  directories, and those above a walked directory up to the enclosing git work tree (the directory
  holding `.git`), plus `.git/info/exclude`. Disabled with `respect-gitignore = false`.
* Symlinked directories are followed, but each real directory is walked once (no loops).
* A vendored copy of TensorFlow's Model Garden (`official/` beside `research/`) or of its Object
  Detection API (`object_detection/` with `protos/` and `builders/`) is not walked: TensorFlow's
  code, not the project's. Given explicitly, it is.
* Besides `.py`, `.pyi` and `.ipynb`, files matching an `extend-include` glob are collected (and
  read as Python).
* Files given explicitly are always checked (whatever their suffix) unless `force_exclude` is
  true (or `force-exclude = true` in the config) and they, or an ancestor directory, match an
  exclude or a .gitignore.
* Paths come back in the form they were given (relative stays relative, normalised), sorted and
  deduplicated by their absolute location.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING

from pipelint.ancestors import ClosestAncestor, ancestors
from pipelint.config import Settings, SettingsResolver

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

__all__ = ["PYTHON_SUFFIXES", "Discovery", "discover"]

PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class _GitIgnores:
    """Compiled .gitignore specs, one per directory, read at most once."""

    def __init__(self) -> None:
        self._specs: dict[str, GitIgnoreSpec | None] = {}
        self._repo_root = ClosestAncestor(_holding_git)

    def spec_for(self, directory: str, has_gitignore: bool | None = None) -> GitIgnoreSpec | None:
        """The spec of `directory`'s own .gitignore (and .git/info/exclude at a repo root)."""
        if directory in self._specs:
            return self._specs[directory]
        lines: list[str] = []
        if has_gitignore is not False:
            lines.extend(_read_lines(os.path.join(directory, ".gitignore")))
        if os.path.isdir(os.path.join(directory, ".git")):
            lines.extend(_read_lines(os.path.join(directory, ".git", "info", "exclude")))
        spec = None
        if any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            try:
                from pathspec import GitIgnoreSpec  # imported only where a .gitignore exists

                spec = GitIgnoreSpec.from_lines(lines)
            except ValueError:  # pragma: no cover - pathspec rejects only pathological lines
                spec = GitIgnoreSpec.from_lines(
                    [line for line in lines if _valid_line(line)])
        self._specs[directory] = spec
        return spec

    def repo_root(self, directory: str) -> str | None:
        """The closest ancestor (or self) holding `.git`, or None."""
        return self._repo_root.find(directory)

    def chain_above(self, directory: str) -> list[tuple[str, GitIgnoreSpec]]:
        """Specs of the ancestors of `directory` (excluded) up to the repo root, outermost first."""
        root = self.repo_root(directory)
        if root is None or root == directory:
            return []
        return _chain_between(self, root, os.path.dirname(directory))

    def chain_for(self, directory: str) -> list[tuple[str, GitIgnoreSpec]]:
        """Specs that apply to the entries of `directory`: ancestors' then its own."""
        chain = self.chain_above(directory)
        own = self.spec_for(directory)
        if own is not None:
            chain.append((directory, own))
        return chain


def _holding_git(directory: str) -> str | None:
    return directory if os.path.exists(os.path.join(directory, ".git")) else None


def _valid_line(line: str) -> bool:
    from pathspec import GitIgnoreSpec

    try:
        GitIgnoreSpec.from_lines([line])
    except ValueError:
        return False
    return True


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            return handle.read().splitlines()
    except OSError:
        return []


def _gitignored(chain: list[tuple[str, GitIgnoreSpec]], path: str, is_dir: bool) -> bool:
    """Deepest .gitignore with a verdict wins; within one, the last matching pattern wins."""
    for base, spec in reversed(chain):
        prefix = base if base.endswith(os.sep) else base + os.sep
        if not path.startswith(prefix):
            continue
        rel = path[len(prefix):]
        if os.sep != "/":  # pragma: no cover - Windows
            rel = rel.replace(os.sep, "/")
        if is_dir:
            rel += "/"
        result = spec.check_file(rel)
        if result.include is not None:
            return bool(result.include)
    return False


def _gitignored_with_ancestors(ignores: _GitIgnores, path: str, is_dir: bool, fallback_root: str) -> bool:
    """Whether `path` or an ancestor is git-ignored, by the .gitignore files up to the repo root.

    Outside a git work tree, `fallback_root` (the settings root) bounds the search instead.
    """
    root = ignores.repo_root(os.path.dirname(path))
    if root is None:
        prefix = fallback_root if fallback_root.endswith(os.sep) else fallback_root + os.sep
        root = fallback_root if path.startswith(prefix) else os.path.dirname(path)
    for current in ancestors(path):
        directory = os.path.dirname(current)
        chain = _chain_between(ignores, root, directory)
        if chain and _gitignored(chain, current, is_dir if current == path else True):
            return True
        if directory == root or os.path.dirname(directory) == directory:
            return False
    return False  # pragma: no cover - the walk stops at the root above


def _chain_between(ignores: _GitIgnores, top: str, directory: str) -> list[tuple[str, GitIgnoreSpec]]:
    """Specs from `top` down to `directory` (both included), outermost first."""
    chain: list[tuple[str, GitIgnoreSpec]] = []
    for current in ancestors(directory, stop=top):
        spec = ignores.spec_for(current)
        if spec is not None:
            chain.append((current, spec))
    chain.reverse()
    return chain


def _join_display(display: str, name: str) -> str:
    if display in ("", os.curdir):
        return name
    return os.path.join(display, name)


def discover(paths: Sequence[str | Path], resolver: SettingsResolver,
             force_exclude: bool = False) -> Discovery:
    """Collect the .py/.pyi/.ipynb files under `paths`. ConfigError from the resolver propagates."""
    result = Discovery()
    found: dict[str, str] = {}  # absolute -> display form
    ignores = _GitIgnores()
    visited_dirs: set[tuple[int, int]] = set()
    cwd = str(resolver.cwd)

    for raw in paths:
        raw_str = os.fspath(raw)
        display = os.path.normpath(raw_str) if raw_str else os.curdir
        absolute = os.path.normpath(os.path.join(cwd, raw_str))
        try:
            st = os.stat(absolute)
        except FileNotFoundError:
            if os.path.islink(absolute):
                result.errors.append(f"{raw_str}: broken symbolic link")
            else:
                result.errors.append(f"{raw_str}: No such file or directory")
            continue
        except OSError as exc:
            result.errors.append(f"{raw_str}: {exc.strerror or exc}")
            continue

        is_dir = stat.S_ISDIR(st.st_mode)
        settings = resolver.for_directory(absolute if is_dir else os.path.dirname(absolute))
        if (force_exclude or settings.force_exclude) and _explicitly_excluded(
                settings, ignores, absolute, is_dir):
            continue
        if not is_dir:
            found.setdefault(absolute, display)
            continue
        _walk(absolute, display, resolver, ignores, visited_dirs, found, result.errors, st)

    items = sorted(found.items(), key=lambda item: item[1])
    result.files = [Path(display) for _, display in items]
    return result


def _explicitly_excluded(settings: Settings, ignores: _GitIgnores, absolute: str, is_dir: bool) -> bool:
    if settings.is_excluded(Path(absolute), is_dir=is_dir):
        return True
    return settings.respect_gitignore and _gitignored_with_ancestors(
        ignores, absolute, is_dir, str(settings.root))


# A copy of tensorflow/models (the Model Garden: `official/` beside `research/`) or of its
# Object Detection API (`object_detection/` holding `protos/` and `builders/`) inside a project is
# TensorFlow's code, vendored to be run or imported, not the user's: its thousands of pipelines and
# unit tests are not walked (name the copy on the command line to check it).
_VENDORED_TOGETHER = frozenset({"official", "research"})


def _vendored_children(entries: list[os.DirEntry]) -> frozenset[str]:
    names = {entry.name for entry in entries if entry.name in _VENDORED_TOGETHER or entry.name == "object_detection"}
    if not names:
        return frozenset()  # (most directories: nothing to look at)
    vendored = set(_VENDORED_TOGETHER) if _VENDORED_TOGETHER <= names else set()
    if "object_detection" in names:
        try:
            inside = {child.name for child in os.scandir(os.path.join(os.path.dirname(entries[0].path),
                                                                      "object_detection"))}
        except OSError:
            inside = set()
        if {"protos", "builders"} <= inside:
            vendored.add("object_detection")
    return frozenset(vendored)


def _walk(top: str, top_display: str, resolver: SettingsResolver, ignores: _GitIgnores,
          visited: set[tuple[int, int]], found: dict[str, str], errors: list[str],
          top_stat: os.stat_result) -> None:
    key = (top_stat.st_dev, top_stat.st_ino)
    if key in visited:
        return
    visited.add(key)
    top_settings = resolver.for_directory(top)
    chain0 = ignores.chain_above(top) if top_settings.respect_gitignore else []
    if chain0 and _gitignored(chain0, top, True):
        # The directory was given explicitly although it (or a parent) is git-ignored: walk it,
        # with only the .gitignore files found inside it.
        chain0 = []
    stack: list[tuple[str, str, list[tuple[str, GitIgnoreSpec]]]] = [(top, top_display, chain0)]

    while stack:
        directory, display, parent_chain = stack.pop()
        try:
            with os.scandir(directory) as iterator:
                entries = list(iterator)
        except PermissionError:
            errors.append(f"{display}: Permission denied")
            continue
        except OSError as exc:
            errors.append(f"{display}: {exc.strerror or exc}")
            continue

        settings = resolver.for_directory(directory)
        chain = parent_chain
        if settings.respect_gitignore:
            has_gitignore = any(entry.name == ".gitignore" for entry in entries)
            spec = ignores.spec_for(directory, has_gitignore)
            if spec is not None:
                chain = parent_chain + [(directory, spec)]

        subdirs: list[tuple[str, str, list]] = []
        vendored = _vendored_children(entries)
        for entry in entries:
            name = entry.name
            if name in vendored:
                continue
            try:
                entry_is_dir = entry.is_dir()  # follows symlinks
                entry_is_file = not entry_is_dir and entry.is_file()
            except OSError:
                continue
            if not entry_is_dir and not (entry_is_file and (
                    name.endswith(PYTHON_SUFFIXES) or settings.is_extra_included(entry.path))):
                continue
            path = entry.path
            if settings.is_entry_excluded(path, entry_is_dir):
                continue
            if chain and settings.respect_gitignore and _gitignored(chain, path, entry_is_dir):
                continue
            if entry_is_dir:
                try:
                    st = entry.stat()  # follows symlinks
                except OSError:
                    continue
                dir_key = (st.st_dev, st.st_ino)
                if dir_key in visited:
                    continue
                visited.add(dir_key)
                subdirs.append((path, _join_display(display, name), chain))
            else:
                found.setdefault(path, _join_display(display, name))
        # Depth-first, in name order (the final list is sorted anyway).
        subdirs.sort(reverse=True)
        stack.extend(subdirs)
