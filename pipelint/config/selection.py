"""Rule selection: `select`, `extend-select`, `ignore` and per-file-ignores selectors -> codes.

Selectors are checked against the code table (`pipelint.codes`) alone, so a typo is reported
without importing a rule or libcst. A selector is a full code (PL101), a prefix (PL1, PL10) or
ALL. Between select/extend-select and ignore the most specific selector wins and ignore wins a
tie; a rule off by default is turned on only by its full code or ALL; engine codes (PL0xx) are
always on unless ignored by their full code.
"""
from __future__ import annotations

from pipelint import codes as code_table
from pipelint.config.errors import ConfigError

__all__ = ["check_selectors", "selected_codes", "split_cli_values", "without"]

_FULL_SPECIFICITY = 1000  # a full code beats any prefix


def _normalize(selector: str) -> str:
    return selector.strip().upper()


def _is_known(selector: str) -> bool:
    return selector == "ALL" or any(code.startswith(selector) for code in code_table.CODES)


def check_selectors(selectors: tuple[str, ...], origin: str) -> tuple[str, ...]:
    """The selectors normalised (upper case); ConfigError naming `origin` for an unknown one."""
    out = []
    for raw in selectors:
        selector = _normalize(raw)
        if not selector or not _is_known(selector):
            raise ConfigError(f"unknown rule code '{raw}' in {origin}")
        out.append(selector)
    return tuple(out)


def split_cli_values(values: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """CLI values may come comma-separated (`--select PL1,PL2`)."""
    if values is None:
        return None
    out: list[str] = []
    for value in values:
        out.extend(part.strip() for part in str(value).split(",") if part.strip())
    return tuple(out)


def _specificity(selector: str, code: str) -> int:
    """How specifically `selector` names `code`: -1 no match, 0 ALL, len(prefix), or full."""
    if selector == "ALL":
        return 0
    if selector == code:
        return _FULL_SPECIFICITY
    if code.startswith(selector):
        return len(selector)
    return -1


def _select_specificity(selector: str, code: str, default_enabled: bool) -> int:
    spec = _specificity(selector, code)
    if not default_enabled and spec not in (0, _FULL_SPECIFICITY):
        return -1
    return spec


def selected_codes(select: tuple[str, ...] | None, extend_select: tuple[str, ...],
                  ignore: tuple[str, ...]) -> frozenset[str]:
    """The codes on for these (validated) selectors; `select` None means the default set."""
    enabled: set[str] = set()
    for code, info in sorted(code_table.CODES.items()):
        if code_table.is_engine_code(code):
            if code not in ignore:
                enabled.add(code)
            continue
        selected = -1
        if select is None:
            if info.default_enabled:
                selected = 0
        else:
            selected = max((_select_specificity(s, code, info.default_enabled) for s in select),
                           default=-1)
        selected = max([selected] + [_select_specificity(s, code, info.default_enabled)
                                     for s in extend_select])
        ignored = max((_specificity(s, code) for s in ignore), default=-1)
        if selected >= 0 and selected > ignored:
            enabled.add(code)
    return frozenset(enabled)


def without(codes: frozenset[str], selectors: list[str]) -> frozenset[str]:
    """`codes` minus every code a per-file-ignores selector names (engine codes included)."""
    return frozenset(code for code in codes if not any(_specificity(s, code) >= 0 for s in selectors))
