"""Loading: find the configuration file for a directory, read it, check it, apply the CLI.

A configuration is `[tool.pipelint]` in a pyproject.toml or the top-level table of a pipelint.toml;
the closest one above a file governs it (pipelint.toml first when a directory has both), unless
`--config` names one for every file.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelint.ancestors import ClosestAncestor
from pipelint.config.errors import ConfigError
from pipelint.config.matching import abspath, rel_posix
from pipelint.config.options import check_rule_options
from pipelint.config.selection import check_selectors, split_cli_values
from pipelint.config.settings import Settings
from pipelint.target import TargetError, forget_declarations, parse_target_version

if sys.version_info >= (3, 11):  # pragma: no cover - version dependent
    import tomllib
else:  # pragma: no cover - version dependent
    import tomli as tomllib

__all__ = ["CONFIG_FILENAMES", "DEFAULT_EXCLUDE", "CliOverrides", "SettingsResolver", "find_config_file",
           "load_settings"]

PIPELINT_TOML = "pipelint.toml"
PYPROJECT_TOML = "pyproject.toml"
CONFIG_FILENAMES = (PIPELINT_TOML, PYPROJECT_TOML)

DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", ".env", "__pycache__", "build",
    "dist", "site-packages", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs",
    "*.egg-info", ".ipynb_checkpoints", ".pipelint_cache",
)

_LIST_KEYS = ("select", "extend-select", "ignore", "exclude", "extend-exclude", "extend-include")
_BOOL_KEYS = ("respect-gitignore", "force-exclude", "show-migrations", "show-housekeeping", "show-minor-speed",
              "show-minor-correctness")
_KNOWN_KEYS = frozenset(_LIST_KEYS + _BOOL_KEYS + ("per-file-ignores", "rules", "cache-dir", "target-version"))
_SELECTOR_KEYS = ("select", "extend-select", "ignore")


@dataclass(frozen=True)
class CliOverrides:
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    extend_include: tuple[str, ...] = ()
    target_version: str | None = None
    #: `--show-migrations` / `--show-housekeeping` / `--show-minor-speed`: on for every file whatever
    #: its configuration says.
    show_migrations: bool = False
    show_housekeeping: bool = False
    show_minor_speed: bool = False
    show_minor_correctness: bool = False


def _display(path: Path, cwd: Path | None = None) -> str:
    base = cwd or Path.cwd()
    rel = rel_posix(abspath(path, base), abspath(base))
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
    return ClosestAncestor(_config_in_dir).find(str(abspath(directory)))


def _config_in_dir(directory: Path | str) -> Path | None:
    candidate = os.path.join(directory, PIPELINT_TOML)
    if os.path.isfile(candidate):
        return Path(candidate)
    candidate = os.path.join(directory, PYPROJECT_TOML)
    if os.path.isfile(candidate) and _has_pipelint_table(Path(candidate)):
        return Path(candidate)
    return None


def _config_path_in_dir(directory: str) -> str | None:
    found = _config_in_dir(directory)
    return str(found) if found is not None else None


def _string_list(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...] | None:
    if key not in table:
        return None
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}'{key}' must be a list of strings")
    return tuple(value)


def load_settings(config_path: Path | None, overrides: CliOverrides, cwd: Path) -> Settings:
    """Read and validate one config file (None: defaults) and apply the CLI overrides."""
    cwd = abspath(cwd)
    table: dict[str, Any] | None = None
    where = ""
    display = ""
    if config_path is not None:
        config_path = abspath(config_path, cwd)
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

    lists = {key: _string_list(table, key, where) for key in _LIST_KEYS}
    for key in _BOOL_KEYS:
        if key in table and not isinstance(table[key], bool):
            raise ConfigError(f"{where}'{key}' must be a boolean")
    cache_dir = table.get("cache-dir")
    if cache_dir is not None:
        if not isinstance(cache_dir, str) or not cache_dir.strip():
            raise ConfigError(f"{where}'cache-dir' must be a non-empty string")
        cache_dir = abspath(Path(cache_dir).expanduser(), root)
    for key in _SELECTOR_KEYS:
        if lists[key] is not None:
            lists[key] = check_selectors(lists[key], f"'{key}' ({display})")

    per_file: list[tuple[str, tuple[str, ...]]] = []
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where}'per-file-ignores' must be a table of glob -> list of codes")
        for glob, codes in pfi.items():
            if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                raise ConfigError(f"{where}'per-file-ignores' entry '{glob}' must be a list of strings")
            per_file.append((glob, check_selectors(tuple(codes), f"'per-file-ignores' ({display})")))

    rule_options = check_rule_options(table["rules"], where, display) if "rules" in table else ()

    target_version = overrides.target_version if overrides.target_version is not None else table.get("target-version")
    if target_version is not None:
        label = "--target-version" if overrides.target_version is not None else f"{where}'target-version'"
        if not isinstance(target_version, str):
            raise ConfigError(f"{label} must be a string such as \"2.4\"")
        try:
            parse_target_version(target_version)
        except TargetError as error:
            raise ConfigError(f"{label}: {error}") from None

    # CLI overrides.
    cli_select = split_cli_values(overrides.select)
    if cli_select is not None:
        cli_select = check_selectors(cli_select, "--select")
    cli_extend = check_selectors(split_cli_values(overrides.extend_select) or (), "--extend-select")
    cli_ignore = check_selectors(split_cli_values(overrides.ignore) or (), "--ignore")

    select = cli_select if cli_select is not None else lists["select"]
    extend_select = (lists["extend-select"] or ()) + cli_extend
    ignore = (lists["ignore"] or ()) + cli_ignore
    if overrides.exclude is not None:
        exclude = tuple(split_cli_values(overrides.exclude) or ())
    elif lists["exclude"] is not None:
        exclude = lists["exclude"]
    else:
        exclude = DEFAULT_EXCLUDE
    extend_exclude = (lists["extend-exclude"] or ()) + tuple(split_cli_values(overrides.extend_exclude) or ())
    extend_include = (lists["extend-include"] or ()) + tuple(split_cli_values(overrides.extend_include) or ())

    return Settings(
        select=select,
        extend_select=extend_select,
        ignore=ignore,
        per_file_ignores=tuple(per_file),
        exclude=tuple(exclude),
        extend_exclude=extend_exclude,
        extend_include=extend_include,
        rule_options=rule_options,
        root=root,
        config_path=config_path,
        respect_gitignore=table.get("respect-gitignore", True),
        force_exclude=table.get("force-exclude", False),
        cache_dir=cache_dir,
        target_version=target_version,
        show_migrations=overrides.show_migrations or table.get("show-migrations", False),
        show_housekeeping=overrides.show_housekeeping or table.get("show-housekeeping", False),
        show_minor_speed=overrides.show_minor_speed or table.get("show-minor-speed", False),
        show_minor_correctness=overrides.show_minor_correctness or table.get("show-minor-correctness", False),
    )


class SettingsResolver:
    """Settings for each checked path: `--config` for all, else the closest config above it."""

    def __init__(self, overrides: CliOverrides, config_path: Path | None = None,
                 cwd: Path | None = None) -> None:
        self.overrides = overrides
        self.cwd = abspath(cwd) if cwd is not None else abspath(Path.cwd())
        self.config_path = abspath(config_path, self.cwd) if config_path is not None else None
        self._by_config: dict[str | None, Settings] = {}
        self._closest_config = ClosestAncestor(_config_path_in_dir)
        self._fixed: Settings | None = None
        forget_declarations()  # a new run reads requirements.txt and the like anew
        if self.config_path is not None:
            self._fixed = load_settings(self.config_path, overrides, self.cwd)

    def for_path(self, path: Path) -> Settings:
        absolute = abspath(path, self.cwd)
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
        config = self._closest_config.find(os.path.normpath(directory))
        settings = self._by_config.get(config)
        if settings is None:
            settings = load_settings(Path(config) if config is not None else None, self.overrides,
                                     self.cwd)
            self._by_config[config] = settings
        return settings
