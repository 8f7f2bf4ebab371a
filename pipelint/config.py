"""Configuration: `[tool.pipelint]` in pyproject.toml or a top-level table in pipelint.toml.

Modelled on ruff. Keys (kebab-case):

* ``select`` / ``extend-select`` / ``ignore``: rule selectors. A selector is a full code
  (``PL101``), a prefix (``PL1``, ``PL10``) or ``ALL``. ``select`` unset means the default set:
  every rule whose ``default_enabled`` is true. A rule with ``default_enabled = False`` is enabled
  only when selected by its *full code* or by ``ALL``; a prefix never turns it on.
  Between ``select``/``extend-select`` and ``ignore`` the most specific selector wins, and
  ``ignore`` wins a tie (``select = ["PL1"]``, ``ignore = ["PL1"]`` -> nothing from PL1;
  ``select = ["PL101"]``, ``ignore = ["PL1"]`` -> PL101 stays on).
* ``per-file-ignores``: table glob -> list of selectors, applied after the above. Globs match the
  path relative to the config file's directory (``tests/*.py``, ``src/**/gen_*.py``), or the
  basename (``__init__.py``). A glob prefixed with ``!`` applies to files it does *not* match.
* ``exclude`` (replaces the defaults) / ``extend-exclude`` (adds to them): gitignore-style globs
  relative to the config file's directory; a pattern without a slash matches any path component
  (``build`` excludes every directory named build), a trailing slash matches directories only.
* ``respect-gitignore`` (bool, default true), ``force-exclude`` (bool, default false).
* ``[tool.pipelint.rules.PLxxx]``: per-rule options, validated against that rule's ``options``.

Engine codes (PL000-PL003) are always enabled; only an ``ignore`` naming the full code, or a
``per-file-ignores`` entry (any selector), turns them off.

Precedence: the command line's ``--select`` replaces the file's ``select``; ``--extend-select``,
``--ignore``, ``--extend-exclude`` add to the file's lists; ``--exclude`` replaces ``exclude``.
"""
from __future__ import annotations

import copy
import fnmatch
import os
import re
import sys
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipelint import codes as code_table

if sys.version_info >= (3, 11):  # pragma: no cover - version dependent
    import tomllib
else:  # pragma: no cover - version dependent
    import tomli as tomllib

__all__ = [
    "CONFIG_FILENAMES",
    "DEFAULT_EXCLUDE",
    "CliOverrides",
    "ConfigError",
    "Settings",
    "SettingsResolver",
    "find_config_file",
    "load_settings",
]

PIPELINT_TOML = "pipelint.toml"
PYPROJECT_TOML = "pyproject.toml"
CONFIG_FILENAMES = (PIPELINT_TOML, PYPROJECT_TOML)

DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", ".env", "__pycache__", "build",
    "dist", "site-packages", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs",
    "*.egg-info", ".ipynb_checkpoints",
)

_LIST_KEYS = ("select", "extend-select", "ignore", "exclude", "extend-exclude")
_BOOL_KEYS = ("respect-gitignore", "force-exclude")
_KNOWN_KEYS = frozenset(_LIST_KEYS + _BOOL_KEYS + ("per-file-ignores", "rules"))
_SELECTOR_KEYS = ("select", "extend-select", "ignore")

_FULL_SPECIFICITY = 1000  # a full code beats any prefix


class ConfigError(Exception):
    """A configuration problem. `str(e)` is one line naming the file (or CLI flag) and the key."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


@dataclass(frozen=True)
class CliOverrides:
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# Codes


def _registry() -> dict[str, type]:
    """The rule classes: needed only for their options, never to validate a selector."""
    from pipelint.rules import all_rules

    return all_rules()


def _known_codes() -> set[str]:
    return set(code_table.CODES)


def _normalize_selector(selector: str) -> str:
    return selector.strip().upper()


def _selector_valid(selector: str, known: set[str]) -> bool:
    return selector == "ALL" or any(code.startswith(selector) for code in known)


def _specificity(selector: str, code: str) -> int:
    """How specifically `selector` names `code`: -1 no match, 0 ALL, len(prefix), or full."""
    if selector == "ALL":
        return 0
    if selector == code:
        return _FULL_SPECIFICITY
    if code.startswith(selector):
        return len(selector)
    return -1


# --------------------------------------------------------------------------------------------
# Glob matching


def _glob_to_regex(pattern: str) -> str:
    """Translate a gitignore-style glob (no leading `!`, no trailing `/`) into a regex body."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                j = i + 2
                at_start = i == 0 or pattern[i - 1] == "/"
                if at_start and j < n and pattern[j] == "/":
                    out.append("(?:.*/)?")
                    i = j + 1
                    continue
                if at_start and j == n:
                    out.append(".*")
                    i = j
                    continue
                out.append("[^/]*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:j]
                if body and body[0] in "!^":
                    body = "^" + body[1:]
                body = body.replace("\\", "\\\\")
                out.append(f"(?!/)[{body}]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


class _EntryMatcher:
    """Matches one path entry (file or directory) against exclude patterns, ruff-style.

    A pattern without a slash is tested against the basename; one with a slash is anchored at the
    root and tested against the whole root-relative path; an absolute pattern against the absolute
    path. Ancestors are *not* considered here (see `Settings.is_excluded` for that).
    """

    __slots__ = (
        "abs_dir_re",
        "abs_re",
        "name_dir_re",
        "name_dirs",
        "name_re",
        "names",
        "rel_dir_re",
        "rel_re",
    )

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.names: set[str] = set()
        self.name_dirs: set[str] = set()
        name_globs: list[str] = []
        name_dir_globs: list[str] = []
        rel_globs: list[str] = []
        rel_dir_globs: list[str] = []
        abs_globs: list[str] = []
        abs_dir_globs: list[str] = []
        for raw in patterns:
            pattern = raw.strip()
            if not pattern:
                continue
            dir_only = pattern.endswith("/")
            pattern = pattern.rstrip("/")
            if not pattern:
                continue
            if os.path.isabs(pattern):
                (abs_dir_globs if dir_only else abs_globs).append(
                    _glob_to_regex(Path(pattern).as_posix()))
                continue
            pattern = pattern.removeprefix("./")
            if "/" in pattern:
                (rel_dir_globs if dir_only else rel_globs).append(_glob_to_regex(pattern.lstrip("/")))
            elif not any(ch in pattern for ch in "*?[\\"):
                (self.name_dirs if dir_only else self.names).add(pattern)
            else:
                (name_dir_globs if dir_only else name_globs).append(_glob_to_regex(pattern))

        def compile_(globs: list[str]) -> re.Pattern[str] | None:
            return re.compile("(?:" + "|".join(globs) + r")\Z", re.DOTALL) if globs else None

        self.name_re = compile_(name_globs)
        self.name_dir_re = compile_(name_dir_globs)
        self.rel_re = compile_(rel_globs)
        self.rel_dir_re = compile_(rel_dir_globs)
        self.abs_re = compile_(abs_globs)
        self.abs_dir_re = compile_(abs_dir_globs)

    @property
    def needs_rel(self) -> bool:
        return self.rel_re is not None or self.rel_dir_re is not None

    @property
    def needs_abs(self) -> bool:
        return self.abs_re is not None or self.abs_dir_re is not None

    def match(self, name: str, rel: str | None, absolute: str | None, is_dir: bool) -> bool:
        if name in self.names:
            return True
        if self.name_re is not None and self.name_re.match(name):
            return True
        if rel is not None and self.rel_re is not None and self.rel_re.match(rel):
            return True
        if absolute is not None and self.abs_re is not None and self.abs_re.match(absolute):
            return True
        if is_dir:
            if name in self.name_dirs:
                return True
            if self.name_dir_re is not None and self.name_dir_re.match(name):
                return True
            if rel is not None and self.rel_dir_re is not None and self.rel_dir_re.match(rel):
                return True
            if absolute is not None and self.abs_dir_re is not None and self.abs_dir_re.match(absolute):
                return True
        return False


class _PathGlob:
    """A per-file-ignores glob: matched against the root-relative path and the basename."""

    __slots__ = ("dir_re", "name_re", "negated", "rel_re")

    def __init__(self, pattern: str) -> None:
        pattern = pattern.strip()
        self.negated = pattern.startswith("!")
        if self.negated:
            pattern = pattern[1:]
        pattern = pattern.removeprefix("./")
        body = pattern.rstrip("/").lstrip("/") if not os.path.isabs(pattern) else Path(pattern).as_posix()
        # Whole path (gitignore-style and fnmatch-style, where `*` crosses `/` as in ruff).
        self.rel_re = re.compile(
            "(?:" + _glob_to_regex(body) + "|" + fnmatch.translate(body)[:-2].replace(r"(?s:", "(?:", 1)
            + ")" + r"\Z", re.DOTALL)
        # A directory glob covers what is below it: `tests` or `tests/` -> tests/**.
        self.dir_re = re.compile("(?:" + _glob_to_regex(body) + ")/", re.DOTALL)
        self.name_re = re.compile(_glob_to_regex(body) + r"\Z", re.DOTALL) if "/" not in body else None

    def matches(self, rel: str, absolute: str, name: str) -> bool:
        hit = False
        for candidate in (rel, absolute):
            if self.rel_re.match(candidate) or self.dir_re.match(candidate):
                hit = True
                break
        if not hit and self.name_re is not None and self.name_re.match(name):
            hit = True
        return hit != self.negated


def _rel_posix(path: Path, root: Path) -> str | None:
    try:
        rel = os.path.relpath(path, root)
    except ValueError:  # pragma: no cover - different drives on Windows
        return None
    if rel == os.curdir:
        return ""
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return Path(rel).as_posix()


def _abspath(path: Path | str, cwd: Path | None = None) -> Path:
    path = Path(path)
    if not path.is_absolute():
        path = (cwd or Path.cwd()) / path
    return Path(os.path.normpath(path))


# --------------------------------------------------------------------------------------------
# Settings


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] | None
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...]
    exclude: tuple[str, ...]
    extend_exclude: tuple[str, ...]
    rule_options: tuple[tuple[str, tuple[tuple[str, object], ...]], ...]
    root: Path
    config_path: Path | None
    respect_gitignore: bool = True
    force_exclude: bool = False
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
        if cached is not None:
            return cached
        enabled: set[str] = set()
        for code, info in sorted(code_table.CODES.items()):
            if code_table.is_engine_code(code):
                if code not in self.ignore:
                    enabled.add(code)
                continue
            default_enabled = info.default_enabled
            selected = -1
            if self.select is None:
                if default_enabled:
                    selected = 0
            else:
                selected = max((self._select_spec(s, code, default_enabled) for s in self.select),
                               default=-1)
            selected = max([selected] + [self._select_spec(s, code, default_enabled)
                                         for s in self.extend_select])
            ignored = max((_specificity(s, code) for s in self.ignore), default=-1)
            if selected >= 0 and selected > ignored:
                enabled.add(code)
        result = frozenset(enabled)
        self._cache["base"] = result
        return result

    @staticmethod
    def _select_spec(selector: str, code: str, default_enabled: bool) -> int:
        spec = _specificity(selector, code)
        if not default_enabled and spec not in (0, _FULL_SPECIFICITY):
            return -1
        return spec

    def _per_file_globs(self) -> list[tuple[_PathGlob, tuple[str, ...]]]:
        globs = self._cache.get("pfi")
        if globs is None:
            globs = [(_PathGlob(pattern), codes) for pattern, codes in self.per_file_ignores]
            self._cache["pfi"] = globs
        return globs

    def enabled_codes(self, path: Path) -> frozenset[str]:
        """The codes to report for `path` (select/ignore, then per-file-ignores)."""
        base = self._base_codes()
        if not self.per_file_ignores:
            return base
        absolute = _abspath(path)
        rel = _rel_posix(absolute, self.root)
        abs_posix = absolute.as_posix()
        hits = tuple(i for i, (glob, _) in enumerate(self._per_file_globs())
                     if glob.matches(rel if rel is not None else abs_posix, abs_posix, absolute.name))
        if not hits:
            return base
        key = ("pfi-hit", hits)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        selectors = [s for i in hits for s in self.per_file_ignores[i][1]]
        result = frozenset(code for code in base
                           if not any(_specificity(s, code) >= 0 for s in selectors))
        self._cache[key] = result
        return result

    def options_for(self, code: str) -> dict[str, object]:
        """The rule's Option defaults overlaid with the configured values."""
        code = code.upper()
        rule = _registry().get(code)
        declared: Mapping[str, Any] = getattr(rule, "options", {}) or {}
        result: dict[str, object] = {name: copy.deepcopy(opt.default) for name, opt in declared.items()}
        for rcode, values in self.rule_options:
            if rcode != code:
                continue
            for name, value in values:
                opt = declared.get(name)
                result[name] = _to_option_type(value, opt.type) if opt is not None else value
        return result

    # ---- files

    @property
    def exclude_patterns(self) -> tuple[str, ...]:
        return tuple(self.exclude) + tuple(self.extend_exclude)

    def _matcher(self) -> _EntryMatcher:
        matcher = self._cache.get("exclude")
        if matcher is None:
            matcher = _EntryMatcher(self.exclude_patterns)
            self._cache["exclude"] = matcher
        return matcher

    def is_entry_excluded(self, path: Path | str, is_dir: bool) -> bool:
        """Whether this one entry (not its ancestors) matches an exclude pattern. `path` absolute."""
        matcher = self._matcher()
        spath = os.fspath(path)
        rel = _rel_posix(Path(spath), self.root) if matcher.needs_rel else None
        absolute = Path(spath).as_posix() if matcher.needs_abs else None
        return matcher.match(os.path.basename(spath), rel, absolute, is_dir)

    def is_excluded(self, path: Path, is_dir: bool | None = None) -> bool:
        """Whether `path` or one of its ancestors below `root` matches exclude + extend-exclude.

        A relative `path` is taken relative to the current directory. For a path outside `root`,
        only the path itself is tested (by basename and absolute path).
        """
        absolute = _abspath(path)
        if is_dir is None:
            is_dir = absolute.is_dir()
        rel = _rel_posix(absolute, self.root)
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


def _to_option_type(value: object, typ: Any) -> object:
    origin = typing.get_origin(typ) or typ
    if isinstance(value, tuple) and origin in (list, set, frozenset):
        return origin(value)
    if origin is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return copy.deepcopy(value)


def _check_option_type(value: object, typ: Any) -> bool:
    origin = typing.get_origin(typ) or typ
    args = typing.get_args(typ)
    if origin is typing.Any:
        return True
    if origin is typing.Union or (sys.version_info >= (3, 10) and _is_union_type(origin)):
        return any(_check_option_type(value, arg) for arg in args)
    if origin is type(None):
        return value is None
    if origin is bool:
        return isinstance(value, bool)
    if origin is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if origin in (list, tuple, set, frozenset):
        if not isinstance(value, list):
            return False
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            return len(args) == len(value) and all(_check_option_type(v, a) for v, a in zip(value, args))
        element = args[0] if args else None
        return element is None or all(_check_option_type(v, element) for v in value)
    if origin is dict:
        if not isinstance(value, dict):
            return False
        if len(args) == 2:
            return all(_check_option_type(k, args[0]) and _check_option_type(v, args[1])
                       for k, v in value.items())
        return True
    try:
        return isinstance(value, origin)
    except TypeError:
        return True


def _is_union_type(origin: Any) -> bool:
    import types

    return origin is getattr(types, "UnionType", None)


def _type_name(typ: Any) -> str:
    return getattr(typ, "__name__", None) or str(typ)


def _freeze(value: object) -> object:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


# --------------------------------------------------------------------------------------------
# Loading


def _display(path: Path, cwd: Path | None = None) -> str:
    base = cwd or Path.cwd()
    rel = _rel_posix(_abspath(path, base), _abspath(base))
    return rel if rel else str(path)


def _read_toml(path: Path, display: str) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{display}: No such file or directory") from None
    except OSError as exc:
        raise ConfigError(f"{display}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{display}: invalid TOML: not UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{display}: invalid TOML: {exc}") from None


def _pipelint_table(path: Path, display: str) -> tuple[dict[str, Any] | None, str]:
    """The pipelint table of a config file (None if a pyproject.toml has none), and its label."""
    document = _read_toml(path, display)
    if path.name == PYPROJECT_TOML:
        tool = document.get("tool")
        if not isinstance(tool, dict) or "pipelint" not in tool:
            return None, "[tool.pipelint] "
        table = tool["pipelint"]
        if not isinstance(table, dict):
            raise ConfigError(f"{display}: 'tool.pipelint' must be a table")
        return table, "[tool.pipelint] "
    return document, ""


def _has_pipelint_table(pyproject: Path) -> bool:
    try:
        data = pyproject.read_bytes()
    except OSError:
        return False
    if b"pipelint" not in data:  # cheap pre-check: most pyproject.toml files are not ours
        return False
    table, _ = _pipelint_table(pyproject, str(pyproject))
    return table is not None


def find_config_file(directory: Path) -> Path | None:
    """The closest pipelint.toml, or pyproject.toml with a [tool.pipelint] table, from `directory` up.

    Raises ConfigError for a pyproject.toml that mentions pipelint but is not valid TOML.
    """
    current = _abspath(directory)
    while True:
        candidate = _config_in_dir(current)
        if candidate is not None:
            return candidate
        parent = current.parent
        if parent == current:
            return None
        current = parent


def _config_in_dir(directory: Path | str) -> Path | None:
    candidate = os.path.join(directory, PIPELINT_TOML)
    if os.path.isfile(candidate):
        return Path(candidate)
    candidate = os.path.join(directory, PYPROJECT_TOML)
    if os.path.isfile(candidate) and _has_pipelint_table(Path(candidate)):
        return Path(candidate)
    return None


def _string_list(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...] | None:
    if key not in table:
        return None
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}'{key}' must be a list of strings")
    return tuple(value)


def _check_selectors(selectors: tuple[str, ...], origin: str, known: set[str]) -> tuple[str, ...]:
    out = []
    for raw in selectors:
        selector = _normalize_selector(raw)
        if not selector or not _selector_valid(selector, known):
            raise ConfigError(f"unknown rule code '{raw}' in {origin}")
        out.append(selector)
    return tuple(out)


def _cli_list(values: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """CLI values may come comma-separated (`--select PL1,PL2`)."""
    if values is None:
        return None
    out: list[str] = []
    for value in values:
        out.extend(part.strip() for part in str(value).split(",") if part.strip())
    return tuple(out)


def load_settings(config_path: Path | None, overrides: CliOverrides, cwd: Path) -> Settings:
    """Read and validate one config file (None: defaults) and apply the CLI overrides."""
    cwd = _abspath(cwd)
    table: dict[str, Any] | None = None
    where = ""
    display = ""
    if config_path is not None:
        config_path = _abspath(config_path, cwd)
        display = _display(config_path, cwd)
        table, section = _pipelint_table(config_path, display)
        where = f"{display}: {section}"
        root = config_path.parent
    else:
        root = cwd
    table = table or {}

    for key in table:
        if key not in _KNOWN_KEYS:
            raise ConfigError(f"{where}unknown key '{key}'")

    known = _known_codes()
    lists = {key: _string_list(table, key, where) for key in _LIST_KEYS}
    for key in _BOOL_KEYS:
        if key in table and not isinstance(table[key], bool):
            raise ConfigError(f"{where}'{key}' must be a boolean")
    for key in _SELECTOR_KEYS:
        if lists[key] is not None:
            lists[key] = _check_selectors(lists[key], f"'{key}' ({display})", known)

    per_file: list[tuple[str, tuple[str, ...]]] = []
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where}'per-file-ignores' must be a table of glob -> list of codes")
        for glob, codes in pfi.items():
            if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                raise ConfigError(f"{where}'per-file-ignores' entry '{glob}' must be a list of strings")
            per_file.append((glob, _check_selectors(tuple(codes), f"'per-file-ignores' ({display})", known)))

    rule_options: list[tuple[str, tuple[tuple[str, object], ...]]] = []
    if "rules" in table:
        rules = table["rules"]
        if not isinstance(rules, dict):
            raise ConfigError(f"{where}'rules' must be a table of rule code -> options")
        registry = _registry()
        rule_section = "[tool.pipelint.rules" if where.endswith("[tool.pipelint] ") else "[rules"
        for raw_code, values in rules.items():
            code = _normalize_selector(raw_code)
            rule = registry.get(code)
            if rule is None:
                raise ConfigError(f"unknown rule code '{raw_code}' in 'rules' ({display})")
            label = f"{display}: {rule_section}.{raw_code}]"
            if not isinstance(values, dict):
                raise ConfigError(f"{label} must be a table of options")
            declared = getattr(rule, "options", {}) or {}
            items: list[tuple[str, object]] = []
            for name, value in values.items():
                option = declared.get(name)
                if option is None:
                    raise ConfigError(f"{label} unknown option '{name}' for {code}")
                if not _check_option_type(value, option.type):
                    raise ConfigError(f"{label} option '{name}' must be of type {_type_name(option.type)}")
                items.append((name, _freeze(value)))
            rule_options.append((code, tuple(items)))

    # CLI overrides.
    cli_select = _cli_list(overrides.select)
    if cli_select is not None:
        cli_select = _check_selectors(cli_select, "--select", known)
    cli_extend = _check_selectors(_cli_list(overrides.extend_select) or (), "--extend-select", known)
    cli_ignore = _check_selectors(_cli_list(overrides.ignore) or (), "--ignore", known)

    select = cli_select if cli_select is not None else lists["select"]
    extend_select = (lists["extend-select"] or ()) + cli_extend
    ignore = (lists["ignore"] or ()) + cli_ignore
    if overrides.exclude is not None:
        exclude = tuple(_cli_list(overrides.exclude) or ())
    elif lists["exclude"] is not None:
        exclude = lists["exclude"]
    else:
        exclude = DEFAULT_EXCLUDE
    extend_exclude = (lists["extend-exclude"] or ()) + tuple(_cli_list(overrides.extend_exclude) or ())

    return Settings(
        select=select,
        extend_select=extend_select,
        ignore=ignore,
        per_file_ignores=tuple(per_file),
        exclude=tuple(exclude),
        extend_exclude=extend_exclude,
        rule_options=tuple(rule_options),
        root=root,
        config_path=config_path,
        respect_gitignore=table.get("respect-gitignore", True),
        force_exclude=table.get("force-exclude", False),
    )


class SettingsResolver:
    """Settings for each checked path: `--config` for all, else the closest config above it."""

    def __init__(self, overrides: CliOverrides, config_path: Path | None = None,
                 cwd: Path | None = None) -> None:
        self.overrides = overrides
        self.cwd = _abspath(cwd) if cwd is not None else _abspath(Path.cwd())
        self.config_path = _abspath(config_path, self.cwd) if config_path is not None else None
        self._by_config: dict[str | None, Settings] = {}
        self._config_for_dir: dict[str, str | None] = {}
        self._fixed: Settings | None = None
        if self.config_path is not None:
            self._fixed = load_settings(self.config_path, overrides, self.cwd)

    def for_path(self, path: Path) -> Settings:
        absolute = _abspath(path, self.cwd)
        if self._fixed is not None:
            return self._fixed
        directory = absolute if absolute.is_dir() else absolute.parent
        return self.for_directory(directory)

    def for_directory(self, directory: Path | str) -> Settings:
        """Settings for the entries of `directory` (no stat of the directory itself)."""
        if self._fixed is not None:
            return self._fixed
        directory = os.fspath(directory)
        if not os.path.isabs(directory):
            directory = os.path.join(str(self.cwd), directory)
        config = self._find(os.path.normpath(directory))
        settings = self._by_config.get(config)
        if settings is None:
            settings = load_settings(Path(config) if config is not None else None, self.overrides,
                                     self.cwd)
            self._by_config[config] = settings
        return settings

    def _find(self, directory: str) -> str | None:
        cache = self._config_for_dir
        found = cache.get(directory, _MISSING)
        if found is not _MISSING:
            return found
        pending: list[str] = []
        current = directory
        found = None
        while True:
            hit = cache.get(current, _MISSING)
            if hit is not _MISSING:
                found = hit
                break
            pending.append(current)
            candidate = _config_in_dir(current)
            if candidate is not None:
                found = str(candidate)
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        for entry in pending:
            cache[entry] = found
        return found


_MISSING = object()
