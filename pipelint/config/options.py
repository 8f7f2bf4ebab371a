"""Per-rule options: `[tool.pipelint.rules.PLxxx]` checked against the rule's declared `Option`s.

Options are declared on the rule classes, so this module imports the rules, but only when a
configuration has a `rules` table or the engine asks for a rule's options (it has loaded the
rules by then anyway).
"""
from __future__ import annotations

import copy
import sys
import typing
from collections.abc import Mapping
from typing import Any

from pipelint.config.errors import ConfigError

__all__ = ["RuleOptions", "check_rule_options", "options_for"]

#: ((code, ((option name, value), ...)), ...): hashable and picklable, as Settings must be.
RuleOptions = tuple[tuple[str, tuple[tuple[str, object], ...]], ...]


def _registry() -> dict[str, type]:
    from pipelint.rules import all_rules

    return all_rules()


def check_rule_options(rules: object, where: str, display: str) -> RuleOptions:
    """Validate a `rules` table (code -> option -> value); ConfigError names the bad entry."""
    if not isinstance(rules, dict):
        raise ConfigError(f"{where}'rules' must be a table of rule code -> options")
    registry = _registry()
    rule_section = "[tool.pipelint.rules" if where.endswith("[tool.pipelint] ") else "[rules"
    checked: list[tuple[str, tuple[tuple[str, object], ...]]] = []
    for raw_code, values in rules.items():
        code = raw_code.strip().upper()
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
        checked.append((code, tuple(items)))
    return tuple(checked)


def options_for(code: str, rule_options: RuleOptions) -> dict[str, object]:
    """The rule's Option defaults overlaid with the configured values."""
    code = code.upper()
    rule = _registry().get(code)
    declared: Mapping[str, Any] = getattr(rule, "options", {}) or {}
    result: dict[str, object] = {name: copy.deepcopy(opt.default) for name, opt in declared.items()}
    for rcode, values in rule_options:
        if rcode != code:
            continue
        for name, value in values:
            opt = declared.get(name)
            result[name] = _to_option_type(value, opt.type) if opt is not None else value
    return result


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
