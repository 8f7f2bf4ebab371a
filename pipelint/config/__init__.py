"""Configuration: `[tool.pipelint]` in pyproject.toml or a top-level table in pipelint.toml.

The package by job: `selection` (selectors -> codes, against `pipelint.codes` only), `matching`
(exclude and per-file-ignores globs, on pathspec), `options` (per-rule options), `settings` (the
resolved values and the questions asked of them), `loading` (finding, reading, CLI overrides).

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
* ``extend-include``: globs (like per-file-ignores globs) of more files to check besides
  ``*.py``, ``*.pyi`` and ``*.ipynb`` (``*.pyw``, ``scripts/*``); they are read as Python.
* ``respect-gitignore`` (bool, default true), ``force-exclude`` (bool, default false).
* ``show-minor-correctness`` / ``show-minor-speed`` / ``show-migrations`` / ``show-housekeeping`` (bool,
  default false): also report the findings of impact minor-correctness / minor-speed / breaks-on-upgrade / housekeeping
  (``pipelint.diagnostics.Impact``); left out, they are only counted in the summary. A code
  selected by its full code shows all its findings (``Settings.shows``). ``--show-minor-correctness`` /
  ``--show-minor-speed`` / ``--show-migrations`` / ``--show-housekeeping`` turn them on for every file.
* ``cache-dir`` (string): where the result cache lives, relative to the config file's directory
  (default ``.pipelint_cache`` there); ``PIPELINT_CACHE_DIR`` overrides it (``pipelint.cache``).
* ``[tool.pipelint.rules.PLxxx]``: per-rule options, validated against that rule's ``options``.

Engine codes (PL0xx, see ``pipelint.codes``) are always enabled; only an ``ignore`` naming the
full code, or a ``per-file-ignores`` entry (any selector), turns them off.

Precedence: the command line's ``--select`` replaces the file's ``select``; ``--extend-select``,
``--ignore``, ``--extend-exclude``, ``--extend-include`` add to the file's lists; ``--exclude`` replaces ``exclude``.
"""
from __future__ import annotations

from pipelint.config.errors import ConfigError
from pipelint.config.loading import (
    CONFIG_FILENAMES,
    DEFAULT_EXCLUDE,
    CliOverrides,
    SettingsResolver,
    find_config_file,
    load_settings,
)
from pipelint.config.settings import Settings

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
