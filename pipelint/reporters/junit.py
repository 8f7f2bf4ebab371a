"""`--output-format junit`: JUnit XML for CI test-report views (GitLab, Jenkins, Azure...).

One test suite "pipelint"; one test case per file with findings, carrying one <failure> per
finding; a single passing test case when there is nothing to report.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from pipelint.diagnostics import Diagnostic
from pipelint.reporters._common import cell_prefix

# Characters XML 1.0 cannot carry at all, even escaped (ElementTree would write them raw).
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_safe(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def build(diagnostics: Sequence[Diagnostic], files_checked: int = 0) -> ET.Element:
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_file.setdefault(d.path, []).append(d)

    testcases = []
    for path, found in by_file.items():
        case = ET.Element("testcase", name=xml_safe(path), classname="pipelint")
        for d in found:
            failure = ET.SubElement(
                case, "failure", message=xml_safe(cell_prefix(d) + d.message), type=xml_safe(d.code)
            )
            cell = f"cell {d.cell}, " if d.cell is not None else ""
            failure.text = xml_safe(
                f"{d.path}:{d.location}: {cell}line {d.line}, col {d.column}, "
                f"{d.code} ({d.name}) [{d.severity.value}]: {d.message}"
            )
        testcases.append(case)
    if not testcases:
        testcases.append(ET.Element("testcase", name="pipelint", classname="pipelint"))

    tests = max(files_checked, len(testcases))
    failures = len(by_file)
    counts = {"tests": str(tests), "failures": str(failures), "errors": "0", "skipped": "0"}
    root = ET.Element("testsuites", name="pipelint", **counts)
    suite = ET.SubElement(root, "testsuite", name="pipelint", **counts)
    suite.extend(testcases)
    return root


def render(diagnostics: Sequence[Diagnostic], *, color: bool = False, files_checked: int = 0,
           left_out: object = None) -> str:
    root = build(diagnostics, files_checked)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
