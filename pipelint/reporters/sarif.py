"""`--output-format sarif`: SARIF 2.1.0, in the shape GitHub code scanning accepts.

https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath
from typing import Any
from collections.abc import Sequence
import os
from urllib.parse import quote

from pipelint.diagnostics import Diagnostic, Severity, rule_docs_url
from pipelint.reporters._common import NotebookPositions, SourceCache, cell_prefix
from pipelint.rules import all_rules

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/pipelint/pipelint"
SRCROOT = "%SRCROOT%"

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def tool_version() -> str:
    try:
        import pipelint
    except ImportError:  # pragma: no cover - we are inside the package
        return "0.0.0"
    version = getattr(pipelint, "__version__", None)
    return version if isinstance(version, str) and version else "0.0.0"


def level(severity: Any) -> str:
    try:
        return _LEVEL[Severity(severity)]
    except ValueError:
        return "warning"


def artifact_location(path: str) -> dict[str, str]:
    """A relative, percent-encoded URI against %SRCROOT%, or an absolute file URI outside of it."""
    native = Path(path)
    if native.is_absolute():
        try:
            native = native.relative_to(Path.cwd())
        except ValueError:
            return {"uri": "file://" + quote(os.fsencode(native.as_posix()), safe="/-._~!$&'()*+,;=@")}
    posix = PurePosixPath(*native.parts).as_posix() if native.parts else "."
    posix = posix.replace("\\", "/")
    while posix.startswith("./"):
        posix = posix[2:]
    # Percent-encode the file system's bytes: a name that is not valid UTF-8 still gets a URI.
    return {"uri": quote(os.fsencode(posix), safe="/-._~!$&'()*+,;=@"), "uriBaseId": SRCROOT}


def _rule_descriptor(code: str, rule: Any | None, diagnostic: Diagnostic | None) -> dict[str, Any]:
    name = getattr(rule, "name", None) or (diagnostic.name if diagnostic else code)
    summary = getattr(rule, "summary", None) or (diagnostic.name if diagnostic else code)
    docs = getattr(rule, "docs", None) or summary
    severity = getattr(rule, "severity", None) or (diagnostic.severity if diagnostic else Severity.WARNING)
    descriptor: dict[str, Any] = {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": docs},
        "help": {"text": docs, "markdown": docs},
        "helpUri": rule_docs_url(code, name),
        "defaultConfiguration": {"level": level(severity)},
    }
    if rule is not None:
        fixable = getattr(rule, "fixable", None) is not None
    else:
        fixable = diagnostic is not None and diagnostic.fix is not None
    impact = getattr(rule, "impact", None) or (diagnostic.impact if diagnostic else None)
    descriptor["properties"] = {"tags": ["pipelint"], "fixable": fixable}
    if impact is not None:
        descriptor["properties"]["impact"] = impact.value  # the code's default; each result has its own
    return descriptor


def _fingerprints(diagnostics: Sequence[Diagnostic], source: SourceCache) -> list[str]:
    """GitHub-style `primaryLocationLineHash`es: `<hash>:<occurrence>`, stable across runs and edits
    elsewhere in the file (the hash covers the line's text, not its number)."""
    seen: dict[tuple[str, str, str], int] = {}
    out = []
    for d in diagnostics:
        line = source.line(d.path, d.line, d.cell)
        text = line.strip() if line is not None and line.strip() else d.message
        key = (d.code, d.path.replace("\\", "/"), text)
        seen[key] = seen.get(key, 0) + 1
        digest = hashlib.sha256("\0".join(key).encode("utf-8", "surrogatepass")).hexdigest()[:16]
        out.append(f"{digest}:{seen[key]}")
    return out


def build(diagnostics: Sequence[Diagnostic]) -> dict[str, Any]:
    registry = all_rules()
    first_seen: dict[str, Diagnostic] = {}
    for d in diagnostics:
        first_seen.setdefault(d.code, d)
    codes = sorted(set(registry) | set(first_seen))
    rules = [_rule_descriptor(code, registry.get(code), first_seen.get(code)) for code in codes]
    index = {code: i for i, code in enumerate(codes)}

    source = SourceCache()
    notebooks = NotebookPositions(source)
    results = []
    for d, fingerprint in zip(diagnostics, _fingerprints(diagnostics, source), strict=True):
        line, column, end_line, end_column = d.line, d.column, d.end_line, d.end_column
        if d.cell is not None:
            # The region is in the .ipynb file as stored (its JSON), where code scanning shows it;
            # the message and `properties` say the cell and the line as Jupyter numbers them.
            line, column, end_line, end_column = notebooks.region(d)
        start_line = max(1, line)
        start_column = max(1, column)
        end_line = max(start_line, end_line)
        end_column = end_column if end_line > start_line else max(start_column, end_column)
        result = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": level(d.severity),
            "message": {"text": cell_prefix(d) + d.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": artifact_location(d.path),
                    "region": {
                        "startLine": start_line,
                        "startColumn": start_column,
                        "endLine": end_line,
                        "endColumn": max(1, end_column),
                    },
                },
            }],
            "partialFingerprints": {"primaryLocationLineHash": fingerprint},
            "properties": {"impact": d.impact.value},
        }
        if d.cell is not None:
            result["properties"].update(cell=d.cell, cellLine=d.line, cellColumn=d.column)
        results.append(result)

    root_uri = Path.cwd().as_uri()
    if not root_uri.endswith("/"):
        root_uri += "/"
    return {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [{
            "tool": {
                "driver": {
                    "name": "pipelint",
                    "informationUri": INFORMATION_URI,
                    "version": tool_version(),
                    "rules": rules,
                },
            },
            "originalUriBaseIds": {SRCROOT: {"uri": root_uri}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render(diagnostics: Sequence[Diagnostic], *, color: bool = False, files_checked: int = 0,
           left_out: object = None) -> str:
    return json.dumps(build(diagnostics), indent=2) + "\n"
