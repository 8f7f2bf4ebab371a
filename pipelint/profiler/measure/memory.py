"""What cache() and shuffle buffers will hold, from measured element sizes, against the RAM available."""
from __future__ import annotations

import os
import re
from typing import Any

#: An IPython cell's site after `display.cell_site`: "cell N".
CELL = re.compile(r"^cell \d+$")


def site_text(path: str, line: int | None) -> str:
    """`train.py:12`, or `cell 3, line 2` for an IPython cell (see display.cell_site)."""
    if CELL.match(path):
        return f"{path}, line {line}"
    return f"{os.path.basename(path)}:{line}"


def where(op) -> str:
    return site_text(op.path, op.line) if op.path else "an unknown line"


def mem_available() -> int | None:
    """Bytes the kernel says are available without swapping (MemAvailable), Linux only."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover


def memory_notes(figs: list[Any], mem: int | None) -> list[dict]:
    """What cache() and shuffle buffers will hold, from measured element sizes, vs RAM available."""
    notes = []
    for i, f in enumerate(figs):
        op = f.stage.op
        # The element size entering the op is what its input stage produced.
        src = figs[i + 1] if i + 1 < len(figs) else f
        bpe = src.bytes_per_element or f.bytes_per_element
        if not bpe:
            continue
        if op.op == "cache" and not op.extra.get("filename"):
            card = op.extra.get("input_cardinality", -2)
            n = card if card and card > 0 else src.stage.elements
            need = bpe * n
            if mem and need > 0.5 * mem:
                notes.append({"code": "PL301", "figures": f, "stage": op.name, "needs_bytes": int(need),
                              "available_bytes": mem, "message":
                              f"cache() at {where(op)} will need {human_bytes(need)}"
                              f"{'' if card and card > 0 else ' or more'}; {human_bytes(mem)} available;"
                              " use cache(filename)"})
            else:
                notes.append({"code": None, "figures": f, "stage": op.name, "needs_bytes": int(need),
                              "available_bytes": mem, "message":
                              f"cache() at {where(op)} holds about {human_bytes(need)} in memory"})
        if op.op == "shuffle":
            buf = f.stage.buffer_size or op.extra.get("buffer_size")
            if buf:
                need = bpe * buf
                msg = f"shuffle buffer at {where(op)} holds {int(buf)} elements = {human_bytes(need)}"
                if mem and need > 0.5 * mem:
                    msg += f"; {human_bytes(mem)} available: shuffle file names or use a smaller buffer"
                notes.append({"code": None, "figures": f, "stage": op.name, "needs_bytes": int(need),
                              "available_bytes": mem, "message": msg})
    return notes
