"""`--output-format json`: a JSON array of `Diagnostic.to_dict()` objects (the documented, stable shape)."""
from __future__ import annotations

import json
from collections.abc import Sequence

from pipelint.diagnostics import Diagnostic


def render(diagnostics: Sequence[Diagnostic], *, color: bool = False, files_checked: int = 0,
           left_out: object = None) -> str:
    return json.dumps([d.to_dict() for d in diagnostics], indent=2) + "\n"
