"""The probe's report as HTML: one self-contained page (inline CSS and SVG, no scripts, no network).

`render_html(report)` gives the whole page (`pipelint profile --html`); `render_html(report,
standalone=False)` gives the same content as one `<div class="pipelint-report">` with its styles
scoped to it, for notebooks (`IPython.display.HTML(...)`) and other pages. Pure Python, no TensorFlow.
"""
from __future__ import annotations

import html
import math
from typing import Any

from pipelint.profiler.measure.memory import site_text

__all__ = ["render_html", "write_html"]

INPUT, WORK, WARMUP, STAGE = "#d9534f", "#5cb85c", "#b8b8b8", "#337ab7"

_CSS = """
.pipelint-report{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;max-width:1000px}
.pipelint-report h1{font-size:1.5em;margin:.2em 0}
.pipelint-report h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid #ddd}
.pipelint-report table{border-collapse:collapse;font-size:.92em}
.pipelint-report td,.pipelint-report th{padding:3px 9px;border-bottom:1px solid #e4e4e4;text-align:left}
.pipelint-report td.n{text-align:right;font-variant-numeric:tabular-nums}
.pipelint-report .verdict{font-size:1.3em;font-weight:bold}
.pipelint-report .input-bound{color:#b52b27}.pipelint-report .balanced{color:#a66d00}
.pipelint-report .model-bound{color:#2e7d32}
.pipelint-report code{background:#f3f3f3;padding:1px 4px;border-radius:3px}
.pipelint-report .note{color:#555;font-size:.9em}
.pipelint-report .warn{background:#fff6e0;border-left:4px solid #e0a800;padding:6px 10px}
.pipelint-report .key span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em;vertical-align:-.1em}
.pipelint-report .action{font-weight:bold}
.pipelint-report svg text{font-family:inherit}
"""


def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _short(source: dict | None) -> str:
    if not source:
        return "-"
    return site_text(source["path"], source["line"])


def _num(v: Any, spec: str = ".3f") -> str:
    if isinstance(v, float) and v.is_integer() and spec == ".3f":
        v = int(v)  # a count (parallelism, buffer) that came as a float
    return "-" if v is None else format(v, spec) if isinstance(v, float) else str(v)


def render_html(report: dict[str, Any], standalone: bool = True) -> str:
    """The report as HTML: a whole page, or (standalone=False) one scoped `<div>` for notebooks."""
    body = "\n".join([_header(report), _xprof(report), _timeline(report), _stages(report),
                      _suggestions(report), _footer(report)])
    div = f"<div class='pipelint-report'><style>{_CSS}</style>\n{body}\n</div>"
    if not standalone:
        return div
    title = "pipelint profile" + (f": {_e(report['script'])}" if report.get("script") else "")
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
            f"<style>body{{margin:2em}}</style></head><body>\n{div}\n</body></html>\n")


def write_html(report: dict[str, Any], path: str) -> None:
    from pipelint.profiler.output.files import write_atomic  # rewritten every interval: never half a page
    write_atomic(path, render_html(report))


# -- sections ---------------------------------------------------------------------------------------

def _header(r: dict[str, Any]) -> str:
    title = "pipelint profile" + (f": <code>{_e(r['script'])}</code>" if r.get("script") else "")
    verdict = r.get("verdict", "unknown")
    parts = [f"<h1>{title}</h1>", f"<p class='verdict {_e(verdict)}'>verdict: {_e(verdict)}</p>"]
    if r.get("steps"):
        frac = r.get("input_bound_fraction") or 0.0
        spread = (f" (p10-p90 {r['step_time_p10_ms']:.2f}-{r['step_time_p90_ms']:.2f})"
                  if r.get("step_time_p10_ms") is not None and r.get("step_time_p90_ms") is not None else "")
        warm = r.get("warmup_steps_excluded") or 0
        parts.append(f"<p><b>{100 * frac:.0f}%</b> of step time waiting for input. {r['steps']} steps measured"
                     + (f" ({warm} warm-up steps left out)" if warm else "")
                     + f": median step {r['step_time_ms']:.2f} ms{spread}, median input wait"
                     f" {r['input_wait_ms']:.2f} ms.</p>")
        w = 600
        wi = round(w * min(max(frac, 0.0), 1.0))
        parts.append(f"<svg width='{w}' height='26' viewBox='0 0 {w} 26' role='img'"
                     f" aria-label='share of step time waiting for input: {100 * frac:.0f}%'>"
                     f"<rect x='0' y='0' width='{wi}' height='26' fill='{INPUT}'/>"
                     f"<rect x='{wi}' y='0' width='{w - wi}' height='26' fill='{WORK}'/></svg>"
                     f"<div class='key note'><span style='background:{INPUT};margin-left:0'></span>input wait"
                     f"<span style='background:{WORK}'></span>step work (model, optimizer, Python)</div>")
    else:
        parts.append("<p>No training steps were measured.</p>")
    if r.get("bottleneck"):
        b = r["bottleneck"]
        parts.append(f"<p>Bottleneck: <b>{_e(b['stage'])}</b> at <code>{_e(_short(b.get('source')))}</code></p>")
    return "\n".join(parts)


def _xprof(r: dict[str, Any]) -> str:
    xp = r.get("xprof")
    tb = r.get("tensorboard")
    parts = []
    if xp:
        parts.append("<h2>XProf</h2>")
        a = xp.get("analysis") or {}
        if a.get("input_bound_fraction") is not None:
            ours = r.get("input_bound_fraction")
            parts.append("<table><tr><th></th><th>input-bound</th><th>median step</th><th>mean step</th>"
                         "<th>steps</th></tr>"
                         f"<tr><td>pipelint</td><td class='n'>{_pct(ours)}</td>"
                         f"<td class='n'>{_num(r.get('step_time_ms'), '.2f')} ms</td>"
                         f"<td class='n'>{_num(r.get('step_time_mean_ms'), '.2f')} ms</td><td class='n'>{r.get('steps')}</td></tr>"
                         f"<tr><td>XProf</td><td class='n'>{_pct(a['input_bound_fraction'])}</td>"
                         f"<td class='n'>{_num(a.get('step_time_median_ms'), '.2f')} ms</td>"
                         f"<td class='n'>{_num(a.get('step_time_ms'), '.2f')} ms</td><td class='n'>{a.get('steps')}</td></tr>"
                         "</table>")
            if a.get("conclusion"):
                parts.append(f"<p class='note'>XProf: “{_e(a['conclusion'])}”</p>")
            if a.get("disagreement"):
                parts.append("<div class='warn'>" + " ".join(_e(n) for n in a["disagreement"]) + "</div>")
        elif a.get("error"):
            parts.append(f"<p class='note'>No XProf figures: {_e(a['error'])}</p>")
        if xp.get("trace"):
            parts.append(f"<p class='note'>Trace: <code>{_e(xp['trace'])}</code>; open with <code>{_e(xp['open'])}</code></p>")
        elif xp.get("error"):
            parts.append(f"<p class='note'>No trace: {_e(xp['error'])}</p>")
    if tb and tb.get("error"):
        parts.append(f"<p class='note'>TensorBoard: not written ({_e(tb['error'])})</p>")
    elif tb and tb.get("run_dir"):
        parts.append(f"<p class='note'>TensorBoard: the <code>pipelint/</code> scalars and this report are in"
                     f" <code>{_e(tb['run_dir'])}</code> (<code>{_e(tb.get('open', ''))}</code>).</p>")
    return "\n".join(parts)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.0f}%"


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = span / max(ticks, 1)
    if raw <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _bins(tl: dict[str, Any], max_bins: int) -> list[dict[str, Any]]:
    """Timeline points grouped into at most `max_bins` bins (means weighted by steps per point)."""
    pts = list(zip(tl["step"], tl["steps_per_point"], tl["step_ms"], tl["input_wait_ms"], tl["warmup"]))
    if not pts:
        return []
    size = max(1, math.ceil(len(pts) / max_bins))
    out = []
    for i in range(0, len(pts), size):
        chunk = pts[i:i + size]
        n = sum(c[1] for c in chunk)
        waits = [c for c in chunk if c[3] is not None]
        out.append({
            "first": chunk[0][0] - chunk[0][1] + 1, "last": chunk[-1][0], "n": n,
            "step_ms": sum(c[2] * c[1] for c in chunk) / n,
            "wait_ms": sum(c[3] * c[1] for c in waits) / sum(c[1] for c in waits) if waits else None,
            "warmup": all(c[4] for c in chunk),
        })
    return out


def _timeline(r: dict[str, Any]) -> str:
    tl = r.get("timeline")
    if not tl or not tl.get("step"):
        return ""
    W, H, left, right, top, bottom = 900, 250, 56, 12, 22, 34
    pw, ph = W - left - right, H - top - bottom
    bins = _bins(tl, pw // 2)
    first = min(b["first"] for b in bins)
    last = max(b["last"] for b in bins)
    span = max(1, last - first + 1)

    def x(step: float) -> float:  # the right edge of `step`'s bar: x(first - 1) is the plot's left edge
        return left + pw * (step - first + 1) / span

    measured = sorted(b["step_ms"] for b in bins if not b["warmup"]) or sorted(b["step_ms"] for b in bins)
    # Scale to the measured steps: warm-up (tracing, seconds) would flatten everything else.
    p99 = measured[min(len(measured) - 1, int(0.99 * len(measured)))]
    ymax = max(p99 * 1.15, 1e-6)
    tick = _nice_step(ymax, 4)
    ymax = tick * math.ceil(ymax / tick)

    def y(ms: float) -> float:
        return top + ph * (1 - min(ms, ymax) / ymax)

    svg = [f"<svg width='{W}' height='{H}' viewBox='0 0 {W} {H}' role='img'"
           " aria-label='step time and input wait per step over the run'>",
           f"<rect x='{left}' y='{top}' width='{pw}' height='{ph}' fill='#fafafa' stroke='#ddd'/>"]
    v = 0.0
    while v <= ymax + 1e-9:  # y grid and labels
        yy = y(v)
        svg.append(f"<line x1='{left}' x2='{left + pw}' y1='{yy:.1f}' y2='{yy:.1f}' stroke='#e6e6e6'/>"
                   f"<text x='{left - 6}' y='{yy + 4:.1f}' font-size='11' text-anchor='end'>{_trim(v)}</text>")
        v += tick
    svg.append(f"<text x='14' y='{top + ph / 2:.0f}' font-size='11' transform='rotate(-90 14 {top + ph / 2:.0f})'"
               " text-anchor='middle'>ms per step</text>")
    xt = _nice_step(span, 8)
    s = math.ceil(first / xt) * xt
    while s <= last:
        xx = x(s - 0.5)
        svg.append(f"<line x1='{xx:.1f}' x2='{xx:.1f}' y1='{top + ph}' y2='{top + ph + 4}' stroke='#888'/>"
                   f"<text x='{xx:.1f}' y='{top + ph + 16}' font-size='11' text-anchor='middle'>{int(s)}</text>")
        s += xt
    svg.append(f"<text x='{left + pw / 2:.0f}' y='{H - 3}' font-size='11' text-anchor='middle'>step</text>")
    # Warm-up runs as shaded bands, so a few grey bars among thousands still show.
    run_start = None
    for i, b in enumerate(bins + [None]):
        if b is not None and b["warmup"] and run_start is None:
            run_start = b["first"]
        elif (b is None or not b["warmup"]) and run_start is not None:
            end = bins[i - 1]["last"]
            x0, x1 = x(run_start - 1), max(x(end), x(run_start - 1) + 6)
            svg.append(f"<rect x='{x0:.1f}' y='{top}' width='{x1 - x0:.1f}' height='{ph}' fill='#e9e9e9'/>"
                       f"<text x='{x1 + 3:.1f}' y='{top + 12}' font-size='10' fill='#666'>&#8592; warm-up</text>")
            run_start = None
    clipped = 0
    for b in bins:
        x0, x1 = x(b["first"] - 1), x(b["last"])
        bw = max(x1 - x0 - (0.6 if x1 - x0 > 3 else 0), 0.8)
        wait = b["wait_ms"]
        label = (f"step {b['first']}" if b["n"] == 1 else f"steps {b['first']}-{b['last']} (mean)")
        tip = f"{label}: {b['step_ms']:.2f} ms" + (f", input wait {wait:.2f} ms" if wait is not None else "") \
            + (" (warm-up, not counted)" if b["warmup"] else "")
        over = b["step_ms"] > ymax
        clipped += over
        parts = [f"<g><title>{_e(tip)}</title>"]
        if b["warmup"]:
            parts.append(_rect(x0, y(b["step_ms"]), bw, y(0) - y(b["step_ms"]), WARMUP))
        else:
            w_ms = min(wait or 0.0, b["step_ms"])
            parts.append(_rect(x0, y(b["step_ms"]), bw, y(w_ms) - y(b["step_ms"]), WORK))
            if w_ms > 0:
                parts.append(_rect(x0, y(w_ms), bw, y(0) - y(w_ms), INPUT))
        if over:
            parts.append(f"<path d='M{x0 + bw / 2 - 4:.1f},{top + 7} l4,-6 l4,6 z' fill='#333'/>")
        parts.append("</g>")
        svg.append("".join(parts))
    for i, start in enumerate(tl.get("epoch_starts") or []):
        xx = x(start - 1)
        if i == 0 and start <= first:
            svg.append(f"<text x='{xx + 3:.1f}' y='{top - 7}' font-size='11'>epoch 1</text>")
            continue
        svg.append(f"<line x1='{xx:.1f}' x2='{xx:.1f}' y1='{top - 4}' y2='{top + ph}' stroke='#333'"
                   f" stroke-dasharray='4 3'/><text x='{xx + 3:.1f}' y='{top - 7}' font-size='11'>epoch {i + 1}</text>")
    svg.append("</svg>")
    estimated = tl.get("wait_source") == "estimated"
    key = (f"<div class='key note'><span style='background:{INPUT};margin-left:0'></span>input wait"
           + (" (estimated per window of steps)" if estimated else "")
           + f"<span style='background:{WORK}'></span>step work"
           + f"<span style='background:{WARMUP}'></span>warm-up (tracing, pipeline start; not counted)"
           + ("<span style='background:none;width:auto'>&#9650;</span> off the scale (hover for the value)"
              if clipped else "") + "</div>")
    notes = []
    if max(tl.get("steps_per_point") or [1]) > 1 or len(bins) < len(tl["step"]):
        notes.append("Long run: each bar is the mean of several steps.")
    if estimated:
        notes.append("In fit the input wait per step is estimated from tf.data's gap times for each window of"
                     " steps (the step time is measured per step).")
    epochs = len(tl.get("epoch_starts") or [])
    return ("<h2>Timeline</h2>" + "".join(svg) + key
            + (f"<p class='note'>{epochs} epoch(s). " + " ".join(notes) + "</p>"))


def _trim(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".") if v else "0"


def _rect(x: float, y: float, w: float, h: float, fill: str) -> str:
    return f"<rect x='{x:.1f}' y='{y:.1f}' width='{w:.1f}' height='{max(h, 0):.1f}' fill='{fill}'/>"


def _stages(r: dict[str, Any]) -> str:
    stages = r.get("stages") or []
    if not stages:
        return ""
    bar_w, row_h, label_w = 380, 22, 360
    mx = max((s["time_per_batch_ms"] or 0 for s in stages), default=0) or 1
    h = row_h * len(stages)
    svg = [f"<svg width='{label_w + bar_w + 90}' height='{h}' role='img' aria-label='time per batch by stage'>"]
    for i, s in enumerate(stages):
        yy = i * row_h
        per_batch = s["time_per_batch_ms"] or 0
        bw = max(1, round(bar_w * per_batch / mx))
        label = f"{s['name']} ({_short(s.get('source'))})"
        if len(label) > 56:
            label = label[:55] + "…"
        svg.append(f"<g><title>{_e(s['name'])}: {per_batch:.3f} ms per batch, {100 * s['share']:.0f}% of pipeline time"
                   f"</title><text x='0' y='{yy + 15}' font-size='12'>{_e(label)}</text>"
                   f"<rect x='{label_w}' y='{yy + 3}' width='{bw}' height='{row_h - 6}' fill='{STAGE}'/>"
                   f"<text x='{label_w + bw + 5}' y='{yy + 15}' font-size='12'>{per_batch:.3f} ms</text></g>")
    svg.append("</svg>")
    rows = ["<table><tr><th>stage</th><th>source</th><th>elements</th><th>ms/element</th><th>ms/batch</th>"
            "<th>parallelism</th><th>buffer</th><th>share</th></tr>"]
    for s in stages:
        rows.append(f"<tr><td>{_e(s['name'])}</td><td><code>{_e(_short(s.get('source')))}</code></td>"
                    f"<td class='n'>{s['elements']}</td><td class='n'>{_num(s.get('time_per_element_ms'))}</td>"
                    f"<td class='n'>{_num(s.get('time_per_batch_ms'))}</td><td class='n'>{_num(s.get('parallelism'))}</td>"
                    f"<td class='n'>{_num(s.get('buffer_size'))}</td><td class='n'>{100 * s['share']:.0f}%</td></tr>")
    rows.append("</table>")
    return "<h2>Stages (time per delivered batch)</h2>" + "".join(svg) + "".join(rows)


def _candidate(r: dict[str, Any], s: dict[str, Any]) -> dict[str, Any] | None:
    """The `--verify` result of suggestion `s`: its own `verification`, else the section's candidate
    with the same code and action."""
    own = s.get("verification")
    if isinstance(own, dict):
        spread = own.get("spread") or [None, None]
        return {**own, "measured_min": spread[0], "measured_max": spread[1]}
    for c in (r.get("verification") or {}).get("candidates") or []:
        if (c.get("code"), c.get("action")) == (s.get("code"), s.get("action")):
            return c
    return None


def _measured(c: dict[str, Any] | None) -> str:
    if not c:
        return ""
    if c.get("measured_speedup"):
        rng = ""
        if c.get("measured_min") is not None and c.get("measured_max") is not None:
            rng = f" ({c['measured_min']:.2f}-{c['measured_max']:.2f})"
        return (f" <span class='verified'><b>measured {c['measured_speedup']:.2f}&times;</b>{rng},"
                f" {_e(c.get('status') or '')}</span>")
    return f" <span class='note'>not measured: {_e(c.get('error') or 'no steps')}</span>"


def _expected(s: dict[str, Any]) -> str:
    sp = s.get("expected_speedup")
    if not sp:
        return ""
    word = "up to" if s.get("speedup_basis") == "upper-bound" else "expected"
    return f" <b>{word} {sp:.2f}&times;</b>"


def _suggestions(r: dict[str, Any]) -> str:
    from pipelint.profiler.advise.advice import cpu_share_line
    parts = []
    line = cpu_share_line(r.get("cpu_share"))
    if line:  # the step does not wait, but the input's threads take the model's CPU
        parts.append(f"<p>Input CPU: {_e(line)}</p>")
    if r.get("suggestions"):
        parts.append("<h2>Suggestions (best first)</h2><ol>")
        for s in r["suggestions"]:
            action = f"<span class='action'>{_e(s['action'])}</span>: " if s.get("action") else ""
            where = f" at <code>{_e(_short(s.get('source')))}</code>" if s.get("source") else ""
            name = f" ({_e(s['name'])})" if s.get("name") else ""
            parts.append(f"<li><code>{_e(s.get('code') or 'advice')}</code>{name}{where}{_expected(s)}"
                         f"{_measured(_candidate(r, s))}<br>{action}{_e(s['message'])}</li>")
        parts.append("</ol>")
    elif r.get("no_suggestion_reason"):
        parts.append(f"<p>No suggestion: {_e(r['no_suggestion_reason'])}</p>")
    parts.append(_verification(r.get("verification")))
    for m in r.get("memory") or []:
        parts.append(f"<p>memory: {_e(m['message'])}</p>")
    for k, v in (r.get("pydataset_getitem") or {}).items():
        parts.append(f"<p class='note'>{_e(k)}: {v['calls']} calls, {v['ms_per_call']:.2f} ms each</p>")
    for err in r.get("probe_errors") or []:
        parts.append(f"<p class='warn'>probe error (probe switched off): {_e(err)}</p>")
    return "\n".join(p for p in parts if p)


def _verification(v: dict[str, Any] | None) -> str:
    """The `--verify` section: each fix run in fresh processes against the unchanged job."""
    if not v:
        return ""
    if v.get("error"):
        return f"<h2>Verification</h2><p class='warn'>{_e(v['error'])}</p>"
    parts = [f"<h2>Verification</h2><p class='note'>{v.get('rounds')} alternating rounds of"
             f" {v.get('steps')} steps per run, a fresh process each; the unchanged job:"
             f" {_num(v.get('baseline_step_ms'), '.2f')} ms per step (median).</p>"]
    cands = v.get("candidates") or []
    if cands:
        parts.append("<table><tr><th>fix</th><th>predicted</th><th>measured</th><th>range</th><th>result</th></tr>")
        for c in cands:
            pred = c.get("expected_speedup")
            pred_s = "-" if not pred else (("up to " if c.get("speedup_basis") == "upper-bound" else "")
                                           + f"{pred:.2f}&times;")
            meas = c.get("measured_speedup")
            rng = (f"{c['measured_min']:.2f}-{c['measured_max']:.2f}" if c.get("measured_min") is not None
                   and c.get("measured_max") is not None else "-")
            parts.append(f"<tr><td>{_e(c.get('label'))}</td><td class='n'>{pred_s}</td>"
                         f"<td class='n'>{_num(meas, '.2f') + '&times;' if meas else '-'}</td><td class='n'>{rng}</td>"
                         f"<td>{_e(c.get('status') or c.get('error') or '')}</td></tr>")
        parts.append("</table>")
    top = v.get("top")
    if top:
        parts.append(f"<p>Top suggestion: <b>{_e(top.get('status'))}</b> ({_e(top.get('label'))})</p>")
    for n in v.get("not_verified") or []:
        parts.append(f"<p class='note'>not verifiable: {_e(n)}</p>")
    return "".join(parts)


def _footer(r: dict[str, Any]) -> str:
    env = r.get("environment") or {}
    th = r.get("thresholds") or {"input_bound": 0.2, "model_bound": 0.05}
    return (f"<p class='note'>TensorFlow {_e(env.get('tensorflow'))}, Keras {_e(env.get('keras'))},"
            f" {_e(env.get('cpus'))} CPUs, {_e(env.get('gpus'))} GPUs. Input-bound at &ge; {100 * th['input_bound']:.0f}%"
            f" of step time waiting for input, model-bound below {100 * th['model_bound']:.0f}% (XProf's thresholds).</p>")
