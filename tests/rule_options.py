"""Settings that give rules non-default options, for tests that check code under them."""
from __future__ import annotations

from pathlib import Path

from pipelint.config.settings import Settings

#: PL103 and PL104 as on TensorFlow before 2.11 (no injected prefetch): every pipeline is judged.
STRICT_PREFETCH = {"PL103": {"prefetch-injected": False}, "PL104": {"prefetch-injected": False}}
STRICT_PREFETCH_TOML = """
[tool.pipelint.rules.PL103]
prefetch-injected = false

[tool.pipelint.rules.PL104]
prefetch-injected = false
"""


def settings_with(options: dict[str, dict[str, object]], target_version: str | None = None) -> Settings:
    """Default settings, with these options per rule code (and this `target-version`)."""
    return Settings(select=None, extend_select=(), ignore=(), per_file_ignores=(), exclude=(),
                    extend_exclude=(), root=Path.cwd(), config_path=None,
                    rule_options=tuple((code, tuple(values.items())) for code, values in options.items()),
                    target_version=target_version)
