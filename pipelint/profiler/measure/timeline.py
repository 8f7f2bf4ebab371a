"""The run over time: step time and input wait per step, with warm-up steps and epoch starts marked.

Feeds the HTML report's timeline and the TensorBoard scalars. Pure Python (no TensorFlow) and cheap:
`add` is a few appends. Memory is bounded: past `max_points` stored points, neighbours are merged in
pairs and later points hold as many steps as the merged ones, so a long run keeps its shape at an even,
coarser grain.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Point:
    step: int              # number of the point's last step (1-based; Keras' global batch number in fit)
    n: int                 # steps merged into this point
    step_s: float          # summed step time, seconds
    wait_s: float | None   # summed input wait, seconds; None when not known for these steps
    warmup: bool           # tracing / pipeline start: shown, but left out of the report's figures
    index: int | None = None  # position among the steps the session measured (not its tick warm-up)
    end: float | None = None  # time.perf_counter() when the step ended (TensorBoard's wall time)


class Timeline:
    # Wait per step is "measured" (custom loops: time blocked in next()) or "estimated" (fit: one
    # figure per window of steps, from tf.data's gap times); the report says which.
    def __init__(self, wait_source: str = "measured", max_points: int = 4000, max_unsent: int = 100_000):
        self.wait_source = wait_source
        self.max_points = max_points
        self.max_unsent = max_unsent
        self.points: list[Point] = []
        self.epoch_starts: list[int] = []  # step numbers where an epoch (or a new iterator) began
        self.last_step = 0
        self.grain = 1  # steps per point; doubles each time the points are merged in pairs
        self._measured = 0  # steps added with warmup=False: the session's step statistics, in order
        self._unsent: list[Point] = []
        self._sink = None  # called with full-resolution points when `drain` is not called often enough

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
        for pts in (self.points, self._unsent):
            for p in pts:
                if p.n == 1 and p.index in indices:
                    p.warmup = True

    def fill_wait(self, wait_s: float) -> None:
        """Give the latest steps recorded without a wait (fit: one estimate per window) this wait per step."""
        for pts in (self.points, self._unsent):
            for p in reversed(pts):
                if p.wait_s is not None:
                    break
                p.wait_s = min(wait_s * p.n, p.step_s)

    def add(self, step_s: float, wait_s: float | None, warmup: bool = False, number: int | None = None,
            end: float | None = None) -> None:
        """Record one step. `number` defaults to the step after the last one; `end` is when it ended
        (perf_counter)."""
        number = self.last_step + 1 if number is None else number
        if not self.epoch_starts:
            self.epoch_starts.append(number)
        self.last_step = number
        index = None
        if not warmup:
            index, self._measured = self._measured, self._measured + 1
        if self._sink is not None:
            self._unsent.append(Point(number, 1, step_s, wait_s, warmup, index, end))
            if len(self._unsent) >= self.max_unsent:
                self._sink(self.drain())
        last = self.points[-1] if self.points else None
        # Once coarsened, a point fills up to `grain` steps (never across warm-up and measured steps).
        if last is not None and last.n < self.grain and last.warmup == warmup and index is not None:
            last.step, last.n, last.step_s = number, last.n + 1, last.step_s + step_s
            last.wait_s = None if last.wait_s is None or wait_s is None else last.wait_s + wait_s
        else:
            self.points.append(Point(number, 1, step_s, wait_s, warmup, index, end))
        if len(self.points) > self.max_points:
            self._coarsen()

    def attach(self, sink) -> None:
        """Keep full-resolution points for `drain()`; `sink(points)` takes them if too many pile up."""
        self._sink = sink

    def drain(self) -> list[Point]:
        """The full-resolution points added since the last drain (only after `attach`)."""
        out, self._unsent = self._unsent, []
        return out

    def _coarsen(self) -> None:
        merged: list[Point] = []
        pts = self.points
        for i in range(0, len(pts) - 1, 2):
            a, b = pts[i], pts[i + 1]
            wait = None if a.wait_s is None or b.wait_s is None else a.wait_s + b.wait_s
            merged.append(Point(b.step, a.n + b.n, a.step_s + b.step_s, wait, a.warmup and b.warmup))
        if len(pts) % 2:
            merged.append(pts[-1])
        self.points = merged
        self.grain *= 2

    def to_dict(self) -> dict[str, Any]:
        """The report's `timeline` key: one list per field, one entry per point (mean per step)."""
        return {
            "wait_source": self.wait_source,
            "step": [p.step for p in self.points],
            "steps_per_point": [p.n for p in self.points],
            "step_ms": [round(1000 * p.step_s / p.n, 4) for p in self.points],
            "input_wait_ms": [None if p.wait_s is None else round(1000 * p.wait_s / p.n, 4)
                              for p in self.points],
            "warmup": [p.warmup for p in self.points],
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

    def loop_tick(self, key: int, iterator_id: int, t0: float, t1: float, last_end: float | None,
                  counted: bool, number: int | None = None) -> None:
        """One next() of a custom loop: blocked from t0 to t1; the step began at `last_end`.
        `number`: the XProf step marker's number under --xprof, so both count steps alike."""
        tl = self.loops.get(key)
        if tl is None:
            tl = self.loops[key] = Timeline()
            if self.sink is not None:
                tl.attach(lambda pts, tl=tl: self.sink(tl, pts))
        if self._loop_iterator.get(key) != iterator_id:
            self._loop_iterator[key] = iterator_id
            tl.begin_epoch(number)  # a new iterator over the same pipeline: the next pass over the data
        tl.add(t1 - (t0 if last_end is None else last_end), t1 - t0, warmup=not counted, number=number, end=t1)

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

    def fit_wait(self, wait_s: float) -> None:
        self.fit.fill_wait(wait_s)

    def epoch_end(self) -> None:
        for listener in list(self.listeners):
            listener()

    def primary(self) -> Timeline | None:
        """The training timeline, as the session's step figures choose it: fit's when fit ran, else the
        loop pipeline with the most measured steps."""
        if self.fit.points:
            return self.fit
        return max(self.loops.values(), key=lambda t: t._measured, default=None)
