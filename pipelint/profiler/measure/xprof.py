"""XProf side of `--xprof`: step markers while tracing, then XProf's own verdict beside pipelint's.

Step markers. XProf's input-pipeline analyzer splits a trace into steps only where the program marks
them (`tf.profiler.experimental.Trace("train", step_num=N, _r=1)`); Keras 3's `fit` marks none unless
its TensorBoard callback profiles, and custom loops mark none at all. Under `--xprof` the probe marks
each step itself: a step runs from one `next()` on the probed iterator (custom loops), or one
`on_train_batch_begin` (fit), to the next one, the same span pipelint times, so XProf's "input" (time
in tf.data's GetNext inside the step) is comparable with pipelint's input wait.

Conversion. After the trace is written, `xspace_to_tool_data(..., "input_pipeline_analyzer")` of
xprof / tensorboard-plugin-profile gives one row per step (step time, input time, ...) and XProf's
own conclusion sentence; `analyze` reduces that to the same figures pipelint reports.
"""
from __future__ import annotations

import glob
import json
import logging
import os
import statistics
from typing import Any

log = logging.getLogger("pipelint")

DISAGREE_POINTS = 10  # percentage points between the two input-bound figures before the report says so


class StepMarker:
    """Opens one XProf step marker per training step; at most one open at a time."""

    def __init__(self, name: str = "train"):
        self.name = name
        self.steps = 0
        self._open = None
        self._trace_cls = None
        self.pipeline: int | None = None  # key of the custom-loop pipeline whose steps are marked
        self.error: str | None = None

    def next_step(self) -> None:
        """Close the running step (if any) and open the next one."""
        self.close()
        if self.error is not None:
            return
        try:
            if self._trace_cls is None:
                import tensorflow as tf
                self._trace_cls = tf.profiler.experimental.Trace
            self.steps += 1
            t = self._trace_cls(self.name, step_num=self.steps, _r=1)
            t.__enter__()
            self._open = t
        except Exception as exc:  # noqa: BLE001 - markers are optional, training is not
            self.error = f"{type(exc).__name__}: {exc}"
            log.warning("XProf step markers switched off: %s", self.error)

    def loop_next(self, rec: Any) -> None:
        """A custom loop's next(): marks steps of one pipeline (the one given to probe(), else the first
        iterated outside fit), so a validation loop in between does not split its steps."""
        session = rec.session
        if session.fit.depth or session.disabled:
            return
        if self.pipeline is None:
            self.pipeline = session.preferred if session.preferred in session.pipelines else rec.pipeline.key
        if rec.pipeline.key == self.pipeline:
            self.next_step()

    def current(self, pipeline_key: int) -> int | None:
        """The marker's step number for a custom loop's next() on `pipeline_key` (None if not marked), so
        the timeline numbers its steps as XProf will."""
        return self.steps if pipeline_key == self.pipeline else None

    def close(self) -> None:
        t, self._open = self._open, None
        if t is not None:
            try:
                t.__exit__(None, None, None)
            except Exception as exc:  # noqa: BLE001
                self.error = self.error or f"{type(exc).__name__}: {exc}"


class Capture:
    """The `--xprof DIR` trace of a whole run: started before the script, stopped after it, then
    converted. Any failure is logged once and the run goes on without the trace."""

    def __init__(self, logdir: str | None, session: Any = None):
        self.logdir = os.path.abspath(logdir) if logdir else None
        self.session = session
        self.running = False
        self.error: str | None = None
        self.marker: StepMarker | None = None

    def failed(self, what: str, exc: BaseException) -> None:
        if self.error is None:
            self.error = f"{what}: {type(exc).__name__}: {exc}"
            log.warning("XProf trace: %s; the run continues without it", self.error)

    def start(self) -> None:
        if not self.logdir:
            return
        try:
            import tensorflow as tf
            os.makedirs(self.logdir, exist_ok=True)
            tf.profiler.experimental.start(self.logdir)
            self.running = True
        except Exception as exc:  # noqa: BLE001 - the trace is optional, the run is not
            self.failed("could not start", exc)
            return
        if self.session is not None:
            self.marker = self.session.step_marker = StepMarker()

    def stop(self) -> None:
        if not self.running:
            return
        self.running = False
        if self.marker is not None:
            self.marker.close()
            self.session.step_marker = None
        try:
            import tensorflow as tf
            tf.profiler.experimental.stop()
        except Exception as exc:  # noqa: BLE001 - the trace is optional, the report is not
            self.failed("could not stop", exc)

    def info(self) -> dict[str, Any] | None:
        """The report's `xprof` key, with XProf's own figures under `analysis` when there is a trace."""
        if not self.logdir:
            return None
        traces = sorted(glob.glob(os.path.join(self.logdir, "plugins", "profile", "*", "*.xplane.pb")),
                        key=os.path.getmtime)
        trace = traces[-1] if traces else None
        return {"dir": self.logdir, "trace": trace, "error": self.error,
                "step_markers": self.marker.steps if self.marker else 0,
                "analysis": analyze(trace) if trace else None,
                "open": f"tensorboard --logdir {self.logdir}  (or: xprof --logdir {self.logdir}),"
                        " then the Profile tab"}

    @staticmethod
    def compare(report: dict[str, Any]) -> None:
        """Add XProf-vs-pipelint notes to the report's XProf analysis (see `compare`)."""
        analysis = (report.get("xprof") or {}).get("analysis")
        if analysis:
            analysis["disagreement"] = compare(report, analysis)
            analysis.pop("per_step", None)


def _converter():
    try:
        from xprof.convert.raw_to_tool_data import xspace_to_tool_data
    except ImportError:
        from tensorboard_plugin_profile.convert.raw_to_tool_data import xspace_to_tool_data
    return xspace_to_tool_data


def _float(v: Any) -> float | None:
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def analyze(trace: str) -> dict[str, Any]:
    """XProf's input-pipeline analysis of one `.xplane.pb`, reduced to pipelint's figures.

    Returns `steps`, `step_time_ms` (mean over XProf's steps, as its page shows it),
    `step_time_median_ms` (to set beside pipelint's median), `input_wait_ms`, `input_bound_fraction`
    (input time / step time over all its steps), the same over steps no longer than 3x the median
    (`typical`), XProf's `conclusion` sentence, `error` (None, or why there are no figures) and
    `per_step` ({step number: (step ms, input ms)}, for `compare`; not kept in the report).
    """
    out: dict[str, Any] = {"steps": 0, "step_time_ms": None, "input_wait_ms": None,
                           "input_bound_fraction": None, "typical": None, "conclusion": None, "error": None}
    try:
        data, _ = _converter()([trace], "input_pipeline_analyzer", {})
    except Exception as exc:  # noqa: BLE001 - a missing or incompatible converter must not break the report
        out["error"] = f"conversion failed: {type(exc).__name__}: {exc}"
        return out
    if not data:
        out["error"] = "the converter returned nothing"
        return out
    tables = json.loads(data)
    steps_table = next((t for t in tables if any(c.get("id") == "stepTimeMs" for c in t.get("cols", []))), None)
    if steps_table is None:
        out["error"] = "no step table in XProf's input-pipeline analysis"
        return out
    props = steps_table.get("p") or {}
    out["conclusion"] = props.get("input_conclusion")
    ids = [c.get("id") for c in steps_table["cols"]]
    rows = []
    per_step: dict[int, tuple[float, float]] = {}
    for row in steps_table.get("rows") or []:
        cells = dict(zip(ids, (c.get("v") for c in row["c"])))
        step = _float(cells.get("stepTimeMs"))
        if step:
            rows.append((step, _float(cells.get("infeedTimeMs")) or 0.0))
            number = str(cells.get("stepnum") or "").rsplit(" ", 1)[-1]
            if number.isdigit():
                per_step[int(number)] = rows[-1]
    out["per_step"] = per_step
    if not rows:
        out["error"] = "XProf found no steps (no step markers in the trace)"
        return out
    out.update(_figures(rows))
    med = statistics.median(s for s, _ in rows)
    typical = [r for r in rows if r[0] <= 3 * med]
    if len(typical) < len(rows):
        out["typical"] = {**_figures(typical), "left_out": len(rows) - len(typical)}
    return out


def _figures(rows: list[tuple[float, float]]) -> dict[str, Any]:
    total = sum(s for s, _ in rows)
    wait = sum(w for _, w in rows)
    return {"steps": len(rows), "step_time_ms": round(total / len(rows), 3),
            "step_time_median_ms": round(statistics.median(s for s, _ in rows), 3),
            "input_wait_ms": round(wait / len(rows), 3),
            "input_bound_fraction": round(wait / total, 4) if total > 0 else None}


def _timeline_steps(tl: dict[str, Any] | None) -> dict[int, tuple[float, float]]:
    """pipelint's measured single steps with a known wait: {step number: (step ms, wait ms)}."""
    if not tl:
        return {}
    return {n: (ms, w) for n, k, ms, w, warm in zip(tl["step"], tl["steps_per_point"], tl["step_ms"],
                                                  tl["input_wait_ms"], tl["warmup"])
            if k == 1 and not warm and w is not None}


def _share(rows) -> float:
    total = sum(s for s, _ in rows)
    return sum(w for _, w in rows) / total if total > 0 else 0.0


def _steps_phrase(ns: list[int], rows: list[tuple[float, float]]) -> str:
    """'step 1, 576.8 ms' or '3 steps (2, 41, 80), 30.1 ms each on average'."""
    mean = sum(r[0] for r in rows) / len(rows)
    if len(ns) == 1:
        return f"step {ns[0]}, {mean:.1f} ms"
    listed = ", ".join(map(str, ns[:6])) + (", ..." if len(ns) > 6 else "")
    return f"{len(ns)} steps ({listed}), {mean:.1f} ms each on average"


def compare(report: dict[str, Any], xp: dict[str, Any]) -> list[str]:
    """Sentences for the report when XProf and pipelint disagree by more than DISAGREE_POINTS on the
    input-bound fraction, with the reason the figures support. Empty when they agree.

    Both number steps alike (XProf's steps are the probe's markers), so the steps each counts can be
    lined up: either the gap closes on the steps both measured (then it is which steps each counts),
    or it stays (then it is how each measures the wait, or tracing slowing the traced run).
    """
    ours, theirs = report.get("input_bound_fraction"), xp.get("input_bound_fraction")
    if ours is None or theirs is None:
        return []
    gap = 100 * (theirs - ours)
    if abs(gap) <= DISAGREE_POINTS:
        return []
    notes = [f"XProf's input-bound figure ({100 * theirs:.0f}%) differs from pipelint's ({100 * ours:.0f}%)"
             f" by {abs(gap):.0f} points."]
    fit = report.get("step_source") == "keras"
    mine, theirs_steps = _timeline_steps(report.get("timeline")), xp.get("per_step") or {}
    common = sorted(set(mine) & set(theirs_steps))
    if len(common) >= 5:
        o_c = _share([mine[n] for n in common])
        x_c = _share([theirs_steps[n] for n in common])
        if abs(100 * (x_c - o_c)) <= DISAGREE_POINTS:
            parts = []
            only_x = sorted(set(theirs_steps) - set(mine))
            only_o = sorted(set(mine) - set(theirs_steps))
            first = min([*theirs_steps, *mine])
            if only_x:
                rows = [theirs_steps[n] for n in only_x]
                parts.append(f"XProf also counts what pipelint leaves out ({_steps_phrase(only_x, rows)},"
                             f" {100 * _share(rows):.0f}% input): warm-up (the first steps trace the train"
                             " function and start the pipeline)" + (" and each epoch's last step, which holds"
                                                                    " validation" if fit else ""))
            if only_o:
                rows = [mine[n] for n in only_o]
                why = " (the first step, which traces the train function)" if only_o[0] == first else ""
                parts.append(f"pipelint counts what XProf has no figures for ({_steps_phrase(only_o, rows)}){why}")
            notes.append(f"On the {len(common)} steps both measured they agree ({100 * o_c:.0f}% vs"
                         f" {100 * x_c:.0f}%): the gap is which steps each counts. " + "; ".join(parts) + ".")
            return notes
        ratio = statistics.median(theirs_steps[n][0] / mine[n][0] for n in common if mine[n][0] > 0)
        if abs(ratio - 1) <= 0.15:
            how = ("pipelint's input wait in fit is an estimate (median step time minus tf.data's median gap"
                   " between two GetNext calls, per window of steps), while XProf measures the time in GetNext"
                   " inside each step; prefetching that keeps up for part of a window, or steps whose work"
                   " varies, pull the two apart, and XProf's is the direct measurement." if fit else
                   "pipelint counts the time blocked in next() from Python; XProf counts the tf.data GetNext"
                   " time inside the step; Python work around the iterator (a generator, a py_function"
                   " waiting for the GIL) can fall on either side.")
            notes.append(f"On the {len(common)} steps both measured, step times agree (XProf/pipelint median ratio"
                         f" {ratio:.2f}) but the input share does not ({100 * o_c:.0f}% vs {100 * x_c:.0f}%): "
                         + how)
        else:
            notes.append(f"On the {len(common)} steps both measured, XProf's steps are {ratio:.2f}x pipelint's:"
                         " the traced run is not the run pipelint measured (tracing slows every op, most where"
                         " tf.data runs many small ops per element), so its input share differs too.")
        return notes
    typical = xp.get("typical")
    if typical and typical.get("input_bound_fraction") is not None \
            and abs(100 * (typical["input_bound_fraction"] - ours)) <= DISAGREE_POINTS:
        notes.append(f"Most of it is {typical['left_out']} long step(s) XProf counts and pipelint leaves out"
                     " (the first steps trace the train function and start the pipeline; in fit the last"
                     f" step of each epoch holds validation): without them XProf says"
                     f" {100 * typical['input_bound_fraction']:.0f}%.")
        return notes
    if fit:
        notes.append("In fit pipelint estimates the wait from tf.data's gap times (median step time minus"
                     " the median time the model spends between two GetNext calls, per window of steps),"
                     " while XProf measures the time inside GetNext in every step.")
    else:
        notes.append("In a custom loop both measure the time blocked in the iterator's next(); without a"
                     " per-step timeline the steps could not be lined up to say more.")
    return notes
