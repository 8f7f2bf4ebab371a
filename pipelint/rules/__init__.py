"""The rule registry: every rule class by code, for the engine (checks, triggers, options) and
for what shows rule docs (`pipelint rule`, SARIF, docs/rules.md). Code facts alone (name, severity,
impact, default) are in `pipelint.codes`, which needs no rule module loaded."""
from __future__ import annotations

import importlib
import pkgutil

from pipelint.rules.base import At, EngineCode, Invalid, NodeFix, Option, Rule, RuleContext

__all__ = ["At", "EngineCode", "Invalid", "NodeFix", "Option", "Rule", "RuleContext", "all_rules"]

_REGISTRY: dict[str, type[Rule]] | None = None


def _load() -> dict[str, type[Rule]]:
    """Import every `pipelint.rules.plNNN_*` module; each defines exactly one Rule subclass."""
    registry: dict[str, type[Rule]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("pl"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, Rule) and value not in (Rule, EngineCode)
                    and value.__module__ == module.__name__):
                if value.code in registry:
                    raise RuntimeError(f"duplicate rule code {value.code}")
                registry[value.code] = value
    return dict(sorted(registry.items()))


def all_rules() -> dict[str, type[Rule]]:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _load()
    return _REGISTRY

