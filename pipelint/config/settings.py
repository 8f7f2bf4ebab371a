"""`Settings`: one configuration file's resolved values, and the questions the engine and discovery
ask of them (which codes for this file, which options for this rule, is this path excluded).
Compiled matchers are cached on the object and rebuilt after pickling (worker processes).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pipelint.config.selection import selected_codes, without
from pipelint.config.matching import ExcludeMatcher, PathGlob, abspath, rel_posix
from pipelint.config.options import RuleOptions, options_for
from pipelint.diagnostics import Diagnostic, Impact
from pipelint.target import Target, parse_target_version, target_for

__all__ = ["Settings"]


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] | None
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...]
    exclude: tuple[str, ...]
    extend_exclude: tuple[str, ...]
    rule_options: RuleOptions
    root: Path
    config_path: Path | None
    respect_gitignore: bool = True
    force_exclude: bool = False
    #: Globs naming more files to check besides *.py, *.pyi and *.ipynb (read as Python).
    extend_include: tuple[str, ...] = ()
    cache_dir: Path | None = None  # absolute; None: the default beside the config (pipelint.cache)
    #: `target-version`: the TensorFlow (and Keras) every file targets; None: inferred per file.
    target_version: str | None = None
    #: Report breaks-on-upgrade findings (migrations for a release newer than the target).
    show_migrations: bool = False
    #: Report housekeeping findings (deprecated names that still work on the target).
    show_housekeeping: bool = False
    #: Report minor speed findings (a stage with no evidence of cost).
    show_minor_speed: bool = False
    #: Report minor correctness findings (an effect on what the model sees too small to matter).
    show_minor_correctness: bool = False
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    # Pickle without the compiled caches (they are rebuilt lazily in the worker).
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_cache"] = {}
        return state

    def __setstate__(self, state: dict) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)

    # ---- rules

    def _base_codes(self) -> frozenset[str]:
        cached = self._cache.get("base")
        if cached is None:
            cached = self._cache["base"] = selected_codes(self.select, self.extend_select, self.ignore)
        return cached

    def _per_file_globs(self) -> list[tuple[PathGlob, tuple[str, ...]]]:
        globs = self._cache.get("pfi")
        if globs is None:
            globs = [(PathGlob(pattern), codes) for pattern, codes in self.per_file_ignores]
            self._cache["pfi"] = globs
        return globs

    def enabled_codes(self, path: Path) -> frozenset[str]:
        """The codes to report for `path` (select/ignore, then per-file-ignores)."""
        base = self._base_codes()
        if not self.per_file_ignores:
            return base
        absolute = abspath(path)
        rel = rel_posix(absolute, self.root)
        abs_posix = absolute.as_posix()
        hits = tuple(i for i, (glob, _) in enumerate(self._per_file_globs())
                     if glob.matches(rel if rel is not None else abs_posix, abs_posix, absolute.name))
        if not hits:
            return base
        key = ("pfi-hit", hits)
        cached = self._cache.get(key)
        if cached is None:
            selectors = [s for i in hits for s in self.per_file_ignores[i][1]]
            cached = self._cache[key] = without(base, selectors)
        return cached

    def shows(self, diagnostic: Diagnostic) -> bool:
        """Is the finding reported, or left out and only counted? Correctness and speed always are;
        migrations and housekeeping when asked for, by their switch or by selecting the code by its
        full code (`select = ["PL501"]`: a prefix or ALL picks rules, not findings)."""
        impact = diagnostic.impact
        if impact in (Impact.CORRECTNESS, Impact.SPEED):
            return True
        if {Impact.BREAKS_ON_UPGRADE: self.show_migrations, Impact.HOUSEKEEPING: self.show_housekeeping,
                Impact.MINOR_SPEED: self.show_minor_speed,
                Impact.MINOR_CORRECTNESS: self.show_minor_correctness}[impact]:
            return True
        named = self._cache.get("named")
        if named is None:
            named = self._cache["named"] = frozenset((self.select or ()) + self.extend_select)
        return diagnostic.code in named

    def target_for(self, path: "str | os.PathLike[str] | None", source: str,
                   neighbours: "Sequence[tuple[str, str]]" = (), own: str | None = None) -> Target:
        """The TensorFlow and Keras the file at `path` is written for (pipelint/target.py);
        `neighbours`: (name, text) of the project modules it imports or that import it."""
        setting = self._cache.get("target")
        if setting is None and self.target_version is not None:
            setting = self._cache["target"] = parse_target_version(self.target_version)
        return target_for(path, source, setting, neighbours, own)

    def options_for(self, code: str) -> dict[str, object]:
        """The rule's Option defaults overlaid with the configured values."""
        return options_for(code, self.rule_options)

    # ---- files

    @property
    def exclude_patterns(self) -> tuple[str, ...]:
        return tuple(self.exclude) + tuple(self.extend_exclude)

    def _matcher(self) -> ExcludeMatcher:
        matcher = self._cache.get("exclude")
        if matcher is None:
            matcher = ExcludeMatcher(self.exclude_patterns)
            self._cache["exclude"] = matcher
        return matcher

    def is_extra_included(self, path: Path | str) -> bool:
        """Whether a file found while walking matches `extend-include` (its suffix is not one
        checked by default). `path` absolute."""
        if not self.extend_include:
            return False
        globs = self._cache.get("include")
        if globs is None:
            globs = self._cache["include"] = [PathGlob(pattern) for pattern in self.extend_include]
        spath = os.fspath(path)
        rel = rel_posix(Path(spath), self.root)
        posix = Path(spath).as_posix()
        return any(glob.matches(rel if rel is not None else posix, posix, os.path.basename(spath))
                   for glob in globs)

    def is_entry_excluded(self, path: Path | str, is_dir: bool) -> bool:
        """Whether this one entry (not its ancestors) matches an exclude pattern. `path` absolute."""
        matcher = self._matcher()
        spath = os.fspath(path)
        rel = rel_posix(Path(spath), self.root) if matcher.needs_rel else None
        absolute = Path(spath).as_posix() if matcher.needs_abs else None
        return matcher.match(os.path.basename(spath), rel, absolute, is_dir)

    def is_excluded(self, path: Path, is_dir: bool | None = None) -> bool:
        """Whether `path` or one of its ancestors below `root` matches exclude + extend-exclude.

        A relative `path` is taken relative to the current directory. For a path outside `root`,
        only the path itself is tested (by basename and absolute path).
        """
        absolute = abspath(path)
        if is_dir is None:
            is_dir = absolute.is_dir()
        rel = rel_posix(absolute, self.root)
        if self.is_entry_excluded(absolute, is_dir):
            return True
        if not rel:
            return False
        parts = rel.split("/")
        current = self.root
        for part in parts[:-1]:
            current = current / part
            if self.is_entry_excluded(current, True):
                return True
        return False
