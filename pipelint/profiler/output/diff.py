"""`pipelint profile-diff BEFORE.json AFTER.json`: two runs of a job side by side (issue 30).

Reads two JSON reports (no TensorFlow) and compares what a change did: the median step (and its
ratio: before / after, above 1 the change made the job faster), the input wait and the share of the
step waiting for input, the verdict, and each stage's ms per element with its ratio, parallelism
and source line; then the changed lines of the pipeline (each stage's source text, which the report
keeps as `code`, where it differs between the runs). `--verify` writes each fix's comparison with
the baseline in the same form (`verification.candidates[].diff`).

Stages are paired by name (`map(parse)`, `batch`...) and, among stages of one name, in the order
the reports list them (outermost first); a stage found in one run only is listed as added or removed.
"""
from __future__ import annotations

import os
from typing import Any

from pipelint.profiler.measure.merge import MergeError, load

FORMATS = ("text", "markdown", "json")


def _ratio(before: float | None, after: float | None) -> float | None:
    if before is None or after is None or after <= 0:
        return None
    return round(before / after, 3)


def _site(src: dict | None) -> str | None:
    return f"{os.path.basename(src['path'])}:{src['line']}" if src and src.get("path") else None


def _pair_stages(before: list[dict], after: list[dict]) -> list[tuple[dict | None, dict | None]]:
    """Pairs (before, after) by name, in order within a name; unpaired stages keep their own row."""
    pending: dict[str, list[dict]] = {}
    for st in after:
        pending.setdefault(st.get("name") or "?", []).append(st)
    pairs: list[tuple[dict | None, dict | None]] = []
    used: set[int] = set()
    for st in before:
        queue = pending.get(st.get("name") or "?") or []
        match = queue.pop(0) if queue else None
        if match is not None:
            used.add(id(match))
        pairs.append((st, match))
    pairs += [(None, st) for st in after if id(st) not in used]
    return pairs


def diff(before: dict[str, Any], after: dict[str, Any], before_name: str = "before",
         after_name: str = "after") -> dict[str, Any]:
    """The comparison as a JSON-ready dict (what every format renders)."""
    def share(r):
        return r.get("input_bound_fraction")

    stages = []
    for b, a in _pair_stages(before.get("stages") or [], after.get("stages") or []):
        one = a or b
        tb = b.get("time_per_element_ms") if b else None
        ta = a.get("time_per_element_ms") if a else None
        code_b = b.get("code") if b else None
        code_a = a.get("code") if a else None
        stages.append({
            "stage": one.get("name"), "op": one.get("op"),
            "status": "removed" if a is None else "added" if b is None else "both",
            "before": _stage_side(b), "after": _stage_side(a),
            "ms_per_element_ratio": _ratio(tb, ta),
            "ms_per_batch_ratio": _ratio(b.get("time_per_batch_ms") if b else None,
                                         a.get("time_per_batch_ms") if a else None),
            "code_changed": bool(code_b and code_a and code_b != code_a),
        })
    changed = _changed_lines(stages)
    moved = [s for s in stages if s["ms_per_batch_ratio"] is not None]
    # The stage whose time per batch moved the most milliseconds: what the step felt. (A ratio
    # would crown a stage of microseconds whose noise halves or doubles it: a `prefetch`.)
    most = max(moved, key=lambda s: abs(_ms_per_batch(s["before"]) - _ms_per_batch(s["after"])), default=None)
    step_b, step_a = before.get("step_time_ms"), after.get("step_time_ms")
    return {
        "before": {"report": before_name, "script": before.get("script"), "steps": before.get("steps")},
        "after": {"report": after_name, "script": after.get("script"), "steps": after.get("steps")},
        "step_time_ms": {"before": step_b, "after": step_a, "speedup": _ratio(step_b, step_a)},
        "input_wait_ms": {"before": before.get("input_wait_ms"), "after": after.get("input_wait_ms"),
                          "ratio": _ratio(before.get("input_wait_ms"), after.get("input_wait_ms"))},
        "input_bound_fraction": {"before": share(before), "after": share(after)},
        "verdict": {"before": before.get("verdict"), "after": after.get("verdict")},
        "bottleneck": {"before": (before.get("bottleneck") or {}).get("stage"),
                       "after": (after.get("bottleneck") or {}).get("stage")},
        "stages": stages,
        "most_changed_stage": most["stage"] if most else None,
        "changed_lines": changed,
        "note": None if before.get("environment", {}).get("cpus") == after.get("environment", {}).get("cpus")
        else "the two runs had different CPU counts: compare with care",
    }


def _ms_per_batch(side: dict | None) -> float:
    return float((side or {}).get("ms_per_batch") or 0.0)


def _stage_side(st: dict | None) -> dict[str, Any] | None:
    if st is None:
        return None
    return {"source": st.get("source"), "ms_per_element": st.get("time_per_element_ms"),
            "ms_per_batch": st.get("time_per_batch_ms"), "parallelism": st.get("parallelism"),
            "parallelism_source": st.get("parallelism_source"), "work": st.get("work"), "code": st.get("code")}


def _changed_lines(stages: list[dict]) -> list[dict[str, Any]]:
    """The pipeline's lines that differ: a paired stage whose source text changed, or a stage that
    only one run has (its line added or removed). Reports without source text (`code`) give none."""
    out, seen = [], set()
    for s in stages:
        b, a = s["before"], s["after"]
        if s["status"] == "both" and s["code_changed"]:
            entry = {"stage": s["stage"], "before": _line(b), "after": _line(a)}
        elif s["status"] == "added" and a and a.get("code"):
            entry = {"stage": s["stage"], "before": None, "after": _line(a)}
        elif s["status"] == "removed" and b and b.get("code"):
            entry = {"stage": s["stage"], "before": _line(b), "after": None}
        else:
            continue
        key = repr((entry["before"], entry["after"]))  # one line holding several stages is shown once
        if key not in seen:
            seen.add(key)
            out.append(entry)
    return out


def _line(side: dict) -> dict[str, Any]:
    return {"source": side.get("source"), "code": side.get("code")}


def load_pair(before: str, after: str) -> tuple[dict, dict]:
    """The two reports; MergeError (one line, naming the file) when one cannot be read."""
    (_, b), (_, a) = load([before, after])
    return b, a


# -- rendering ------------------------------------------------------------------------------------

def _f(v: Any, spec: str = ".2f") -> str:
    if v is None:
        return "-"
    return format(v, spec) if isinstance(v, (int, float)) else str(v)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.0f}%"


def _x(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}x"


def _par(side: dict | None) -> str:
    if not side or side.get("parallelism") is None:
        return "-"
    src = side.get("parallelism_source")
    return f"{_f(side['parallelism'], 'g')}" + (f" ({src})" if src and src != "serial" else "")


def _rows(d: dict[str, Any]) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    st, w, fr, v = d["step_time_ms"], d["input_wait_ms"], d["input_bound_fraction"], d["verdict"]
    head = [("", "before", "after", "before/after"),
            ("step (median ms)", _f(st["before"]), _f(st["after"]), _x(st["speedup"]) + " faster"
             if st["speedup"] is not None else "-"),
            ("input wait (ms)", _f(w["before"]), _f(w["after"]), _x(w["ratio"])),
            ("waiting for input", _pct(fr["before"]), _pct(fr["after"]), ""),
            ("verdict", _f(v["before"]), _f(v["after"]), ""),
            ("bottleneck", _f(d["bottleneck"]["before"]), _f(d["bottleneck"]["after"]), "")]
    stages = [("stage", "ms/elem before", "ms/elem after", "before/after", "parallel before", "parallel after",
               "line before", "line after")]
    for s in d["stages"]:
        b, a = s["before"], s["after"]
        name = s["stage"] + {"added": " (added)", "removed": " (removed)"}.get(s["status"], "")
        if s["stage"] == d["most_changed_stage"]:
            name += " *"
        stages.append((name, _f((b or {}).get("ms_per_element"), ".3f"), _f((a or {}).get("ms_per_element"), ".3f"),
                       _x(s["ms_per_element_ratio"]), _par(b), _par(a),
                       _site((b or {}).get("source")) or "-", _site((a or {}).get("source")) or "-"))
    return head, stages


def _table(rows: list[tuple[str, ...]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


def render_text(d: dict[str, Any], brief: bool = False) -> str:
    head, stages = _rows(d)
    lines = [f"pipelint profile-diff: {d['before']['report']} -> {d['after']['report']}", *_table(head)]
    if not brief:
        lines += ["", *_table(stages)]
    if d["most_changed_stage"]:
        m = next(s for s in d["stages"] if s["stage"] == d["most_changed_stage"])
        lines.append(f"  * most changed: {d['most_changed_stage']} (ms per batch {_x(m['ms_per_batch_ratio'])}"
                     f" before/after; parallelism {_par(m['before'])} -> {_par(m['after'])})")
    if d["changed_lines"]:
        lines += ["", "  changed lines:"]
        for c in d["changed_lines"]:
            if c["before"]:
                lines.append(f"  - {_site(c['before']['source']) or '?'}: {c['before']['code']}")
            if c["after"]:
                lines.append(f"  + {_site(c['after']['source']) or '?'}: {c['after']['code']}")
    if d.get("note"):
        lines.append(f"  note: {d['note']}")
    return "\n".join(lines) + "\n"


def _md(c: str) -> str:
    return c.replace("|", "\\|") or " "


def render_markdown(d: dict[str, Any]) -> str:
    """For a pull request: two tables and the changed lines as a diff block."""
    head, stages = _rows(d)
    out = [f"**pipelint profile-diff**: `{d['before']['report']}` -> `{d['after']['report']}`", ""]
    for rows in (head, stages):
        out.append("| " + " | ".join(_md(c) for c in rows[0]) + " |")
        out.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(rows[0]))) + "|")
        out += ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows[1:]]
        out.append("")
    if d["most_changed_stage"]:
        out.append(f"\\* most changed: `{d['most_changed_stage']}` (ms per batch)")
        out.append("")
    if d["changed_lines"]:
        out.append("```diff")
        for c in d["changed_lines"]:
            if c["before"]:
                out.append(f"- {c['before']['code']}  # {_site(c['before']['source']) or '?'}")
            if c["after"]:
                out.append(f"+ {c['after']['code']}  # {_site(c['after']['source']) or '?'}")
        out.append("```")
    if d.get("note"):
        out.append(f"> {d['note']}")
    return "\n".join(out).rstrip() + "\n"


def render(d: dict[str, Any], fmt: str) -> str:
    if fmt == "markdown":
        return render_markdown(d)
    if fmt == "json":
        import json
        return json.dumps(d, indent=1) + "\n"
    return render_text(d)


__all__ = ["FORMATS", "MergeError", "diff", "load_pair", "render", "render_text", "render_markdown"]
