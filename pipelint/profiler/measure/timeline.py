"""The run over time: step time and input wait per step, with warm-up steps and epoch starts marked.

Feeds the HTML report's timeline and the TensorBoard scalars. Pure Python (no TensorFlow) and cheap:
`add` writes a step into typed arrays (`array.array`), one column per field, so the training thread
allocates no object per step and leaves the garbage collector nothing to track or traverse. `Point`
objects are made only when a reader asks (`points`, `drain`, `to_dict`). Memory is bounded: past
`max_points` stored points, neighbours are merged in pairs (in place, in the arrays) and later points
hold as many steps as the merged ones, so a long run keeps its shape at an even, coarser grain.
"""
from __future__ import annotations

import math
from array import array
from dataclasses import dataclass
from typing import Any

_NONE = math.nan  # a float column's "not known" (None in `Point`)
_NO_INDEX = -1  # the index column's "not a measured step"


@dataclass(slots=True)
class Point:
    step: int              # number of the point's last step (1-based; Keras' global batch number in fit)
    n: int                 # steps merged into this point
    step_s: float          # summed step time, seconds
    wait_s: float | None   # summed input wait, seconds; None when not known for these steps
    warmup: bool           # tracing / pipeline start: shown, but left out of the report's figures
    index: int | None = None  # position among the steps the session measured (not its tick warm-up)
    end: float | None = None  # time.perf_counter() when the step ended (TensorBoard's wall time)


class _Columns:
    """Points stored column-wise: a NaN wait or end is None, an index of -1 is None. A merged wait
    is the sum of its parts, and NaN + x is NaN: unknown stays unknown without a test."""

    __slots__ = ("step", "n", "step_s", "wait_s", "warmup", "index", "end")

    def __init__(self) -> None:
        self.step = array("q")
        self.n = array("q")
        self.step_s = array("d")
        self.wait_s = array("d")
        self.warmup = array("b")
        self.index = array("q")
        self.end = array("d")

    def __len__(self) -> int:
        return len(self.step)

    def append(self, step: int, step_s: float, wait_s: float, warmup: bool, index: int, end: float) -> None:
        self.step.append(step)
        self.n.append(1)
        self.step_s.append(step_s)
        self.wait_s.append(wait_s)
        self.warmup.append(warmup)
        self.index.append(index)
        self.end.append(end)

    def point(self, i: int) -> Point:
        wait, index, end = self.wait_s[i], self.index[i], self.end[i]
        return Point(self.step[i], self.n[i], self.step_s[i], None if math.isnan(wait) else wait,
                     bool(self.warmup[i]), None if index == _NO_INDEX else index, None if math.isnan(end) else end)

    def points(self) -> list[Point]:
        return [self.point(i) for i in range(len(self))]

    def truncate(self, length: int) -> None:
        for col in (self.step, self.n, self.step_s, self.wait_s, self.warmup, self.index, self.end):
            del col[length:]

    def merge_pairs(self) -> None:
        """Neighbours merged in pairs, in place; an odd last point stays as it is. A merged point is
        warm-up only when both parts were, and has no index or end of its own."""
        size = len(self)
        pairs = size // 2
        for j in range(pairs):
            a, b = 2 * j, 2 * j + 1
            self.step[j] = self.step[b]
            self.n[j] = self.n[a] + self.n[b]
            self.step_s[j] = self.step_s[a] + self.step_s[b]
            self.wait_s[j] = self.wait_s[a] + self.wait_s[b]
            self.warmup[j] = self.warmup[a] and self.warmup[b]
            self.index[j] = _NO_INDEX
            self.end[j] = _NONE
        if size % 2:
            last = size - 1
            for col in (self.step, self.n, self.step_s, self.wait_s, self.warmup, self.index, self.end):
                col[pairs] = col[last]
        self.truncate(pairs + size % 2)


class Timeline:
    # Wait per step is "measured" (custom loops: time blocked in next()) or "estimated" (fit: one
    # figure per window of steps, from tf.data's gap times); the report says which.
    def __init__(self, wait_source: str = "measured", max_points: int = 4000, max_unsent: int = 100_000):
        self.wait_source = wait_source
        self.max_points = max_points
        self.max_unsent = max_unsent
        self._points = _Columns()
        self.epoch_starts: list[int] = []  # step numbers where an epoch (or a new iterator) began
        self.last_step = 0
        self.grain = 1  # steps per point; doubles each time the points are merged in pairs
        self._measured = 0  # steps added with warmup=False: the session's step statistics, in order
        self._unsent = _Columns()
        self._sink = None  # called with full-resolution points when `drain` is not called often enough

    def __len__(self) -> int:
        """Points stored (each holds `grain` steps or fewer)."""
        return len(self._points)

    @property
    def points(self) -> list[Point]:
        """The stored points, as objects (made on each call: for readers, not for the training thread)."""
        return self._points.points()

    def begin_epoch(self, number: int | None = None) -> None:
        """The next step (or step `number`) starts a new epoch."""
        nxt = self.last_step + 1 if number is None else number
        if not self.epoch_starts or self.epoch_starts[-1] != nxt:
            self.epoch_starts.append(nxt)

    def mark_warmup(self, indices: set[int]) -> None:
        """Grey out measured steps the session's figures leave out as warm-up (decided after the fact,
        from the steps that follow them); `indices` count measured steps in the order they were added."""
        if not indices:
            return
        for cols in (self._points, self._unsent):
            for i in range(len(cols)):
                if cols.n[i] == 1 and cols.index[i] in indices:
                    cols.warmup[i] = True

    def fill_wait(self, wait_s: float) -> None:
        """Give the latest steps recorded without a wait (fit: one estimate per window) this wait per step."""
        for cols in (self._points, self._unsent):
            i = len(cols) - 1
            while i >= 0 and math.isnan(cols.wait_s[i]):  # not known yet
                cols.wait_s[i] = min(wait_s * cols.n[i], cols.step_s[i])
                i -= 1

    def add(self, step_s: float, wait_s: float | None, warmup: bool = False, number: int | None = None,
            end: float | None = None) -> None:
        """Record one step. `number` defaults to the step after the last one; `end` is when it ended
        (perf_counter). Called once per training step: array writes only, no object is kept."""
        number = self.last_step + 1 if number is None else number
        if not self.epoch_starts:
            self.epoch_starts.append(number)
        self.last_step = number
        index = _NO_INDEX
        if not warmup:
            index, self._measured = self._measured, self._measured + 1
        wait = _NONE if wait_s is None else wait_s
        if self._sink is not None:
            self._unsent.append(number, step_s, wait, warmup, index, _NONE if end is None else end)
            if len(self._unsent) >= self.max_unsent:
                self._sink(self.drain())
        pts = self._points
        last = len(pts) - 1
        # Once coarsened, a point fills up to `grain` steps (never across warm-up and measured steps).
        if last >= 0 and not warmup and not pts.warmup[last] and pts.n[last] < self.grain:
            pts.step[last] = number
            pts.n[last] += 1
            pts.step_s[last] += step_s
            pts.wait_s[last] += wait
        else:
            pts.append(number, step_s, wait, warmup, index, _NONE if end is None else end)
        if len(pts) > self.max_points:
            pts.merge_pairs()
            self.grain *= 2

    def add_steps(self, begins, first: int, number: int) -> int:
        """`add(begins[i] - begins[i - 1], None, number=..., end=begins[i])` for each i from `first`
        on, numbered from `number`, in order; returns the number after the last. The same points as
        those calls (fit's steps, handed over at each flush), without a call per step."""
        if self._sink is not None:  # points kept for a sink too: the general path
            for i in range(first, len(begins)):
                end = begins[i]
                self.add(end - begins[i - 1], None, False, number, end)
                number += 1
            return number
        if first >= len(begins):
            return number
        if not self.epoch_starts:
            self.epoch_starts.append(number)
        pts = self._points
        steps, ns, step_s, wait_s, warmup, index, ends = (pts.step, pts.n, pts.step_s, pts.wait_s, pts.warmup,
                                                          pts.index, pts.end)
        measured, grain, max_points = self._measured, self.grain, self.max_points
        for i in range(first, len(begins)):
            end = begins[i]
            seconds = end - begins[i - 1]
            last = len(steps) - 1
            if last >= 0 and not warmup[last] and ns[last] < grain:
                steps[last] = number
                ns[last] += 1
                step_s[last] += seconds
                wait_s[last] += _NONE
            else:
                steps.append(number)
                ns.append(1)
                step_s.append(seconds)
                wait_s.append(_NONE)
                warmup.append(False)
                index.append(measured)
                ends.append(end)
                if len(steps) > max_points:
                    pts.merge_pairs()  # in place: the same arrays
                    grain *= 2
                    self.grain = grain
            measured += 1
            number += 1
        self._measured = measured
        self.last_step = number - 1
        return number

    def attach(self, sink) -> None:
        """Keep full-resolution points for `drain()`; `sink(points)` takes them if too many pile up."""
        self._sink = sink

    def drain(self) -> list[Point]:
        """The full-resolution points added since the last drain (only after `attach`)."""
        out = self._unsent.points()
        self._unsent = _Columns()
        return out

    def to_dict(self) -> dict[str, Any]:
        """The report's `timeline` key: one list per field, one entry per point (mean per step)."""
        pts = self._points
        return {
            "wait_source": self.wait_source,
            "step": pts.step.tolist(),
            "steps_per_point": pts.n.tolist(),
            "step_ms": [round(1000 * s / n, 4) for s, n in zip(pts.step_s, pts.n)],
            "input_wait_ms": [None if math.isnan(w) else round(1000 * w / n, 4) for w, n in zip(pts.wait_s, pts.n)],
            "warmup": [bool(w) for w in pts.warmup],
            "epoch_starts": list(self.epoch_starts),
        }


class RunTimelines:
    """The timelines of one probe session: `fit`'s, and one per pipeline iterated in a custom loop.

    The session calls these from the places where it already measures steps; `listeners` are called
    at epoch ends (the TensorBoard output writes then, never per step).
    """

    def __init__(self) -> None:
        self.fit = Timeline(wait_source="estimated")
        self.loops: dict[int, Timeline] = {}  # by pipeline key
        self.listeners: list = []
        self.sink = None  # sink(timeline, points): set by an output that wants full-resolution points
        self._fit_batches = 0  # Keras' global train batch count, so steps line up with its batch_* scalars
        self._loop_iterator: dict[int, int] = {}  # pipeline key -> id of the iterator last seen
        # Called before the loops' timelines are read: the session hands them the steps its
        # iterators recorded (custom loops' steps are not added one by one on the training thread).
        self.catch_up = None
        self._catching_up = False

    def loop_step(self, key: int, iterator_id: int, step_s: float, wait_s: float, warmup: bool,
                  number: int | None, end: float) -> None:
        """One next() of a custom loop: the step (s), the time blocked in next() (s), when it ended.
        `number`: the XProf step marker's number under --xprof, so both count steps alike."""
        tl = self.loops.get(key)
        if tl is None:
            tl = self.loops[key] = Timeline()
            if self.sink is not None:
                tl.attach(lambda pts, tl=tl: self.sink(tl, pts))
        if self._loop_iterator.get(key) != iterator_id:
            self._loop_iterator[key] = iterator_id
            tl.begin_epoch(number)  # a new iterator over the same pipeline: the next pass over the data
        tl.add(step_s, wait_s, warmup=warmup, number=number, end=end)

    def attach(self, sink) -> None:
        """Keep full-resolution points of every timeline for `drain`; `sink(timeline, points)` takes
        them when too many pile up between two epoch ends."""
        self.sink = sink
        for tl in [self.fit, *self.loops.values()]:
            tl.attach(lambda pts, tl=tl: sink(tl, pts))

    def fit_epoch_begin(self) -> None:
        self.fit.begin_epoch(self._fit_batches + 1)

    def fit_batch_begin(self, step_s: float | None, now: float | None = None, counted: bool = True) -> None:
        """Keras' on_train_batch_begin at `now`; `step_s` is the step that just ended (None at an epoch's
        first batch)."""
        if step_s is not None:
            self.fit.add(step_s, None, warmup=not counted, number=self._fit_batches, end=now)
        self._fit_batches += 1

    def fit_batches(self, begins, first: int) -> None:
        """`fit_batch_begin` for the batches begun at `begins[first:]` (perf_counter), in order: each
        ends the step begun at the one before it. Called in a batch, not per step (Session.fit_flush)."""
        self._fit_batches = self.fit.add_steps(begins, first, self._fit_batches)

    def fit_wait(self, wait_s: float) -> None:
        self.fit.fill_wait(wait_s)

    def epoch_end(self) -> None:
        if self.listeners:  # they read the steps now; without them, the steps wait for the report
            self._catch_up()
        for listener in list(self.listeners):
            listener()

    def _catch_up(self) -> None:
        # Not again from inside: feeding can fill a timeline's unsent points, whose sink reads
        # `primary()` before the steps being fed are counted as fed.
        if self.catch_up is not None and not self._catching_up:
            self._catching_up = True
            try:
                self.catch_up()
            finally:
                self._catching_up = False

    def every(self) -> list[Timeline]:
        """fit's timeline and the loops', up to date."""
        self._catch_up()
        return [self.fit, *self.loops.values()]

    def primary(self) -> Timeline | None:
        """The training timeline, as the session's step figures choose it: fit's when fit ran, else the
        loop pipeline with the most measured steps."""
        self._catch_up()
        if len(self.fit):
            return self.fit
        return max(self.loops.values(), key=lambda t: t._measured, default=None)
