"""`--output-format json-lines`: one compact `Diagnostic.to_dict()` object per line."""
from __future__ import annotations

import json
from collections.abc import Sequence

from pipelint.diagnostics import Diagnostic


def render(diagnostics: Sequence[Diagnostic], *, color: bool = False, files_checked: int = 0,
           left_out: object = None) -> str:
    # json.dumps escapes raw line breaks inside strings, so every object stays on one line.
    return "".join(json.dumps(d.to_dict(), separators=(",", ":")) + "\n" for d in diagnostics)
