"""pipelint's runtime probe: measure where training step time goes and which stage to fix.

Importing this package does not import TensorFlow; TF loads when the probe is first used.
"""
from __future__ import annotations

import sys
from typing import Any

__all__ = ["probe", "probe_worker", "get_report", "PipelineProfiler", "profile_script", "Session", "install", "uninstall",
           "build_report", "render_html"]


def probe(ds: Any) -> Any:
    """Return `ds` with the probe attached (same dataset, same elements, same order)."""
    from pipelint.profiler.run.api import probe as _probe
    return _probe(ds, _frame=sys._getframe(1))


def probe_worker(dataset_fn: Any, batches: int = 100, warmup: int = 5, json_path: str | None = None) -> dict:
    """On a tf.data service worker host: per-stage figures and batches/s of the pipeline that runs
    there (`dataset_fn()` builds the part before `distribute`). See docs/profiler.md, Scaling out."""
    from pipelint.profiler.run.worker import probe_worker as _probe_worker
    return _probe_worker(dataset_fn, batches=batches, warmup=warmup, json_path=json_path)


def get_report(fmt: str = "dict") -> Any:
    """The report of the current probe session as a dict, or "json" / "text"."""
    from pipelint.profiler.run.api import get_report as _get_report
    return _get_report(fmt)


def render_html(report: dict, standalone: bool = True) -> str:
    """A report dict as HTML: a whole page, or (standalone=False) one scoped <div> for notebooks."""
    from pipelint.profiler.output.html import render_html as _render
    return _render(report, standalone=standalone)


def __getattr__(name: str) -> Any:
    # Lazy: PipelineProfiler subclasses a Keras callback, so it imports Keras.
    if name == "PipelineProfiler":
        from pipelint.profiler.run.callback import PipelineProfiler
        return PipelineProfiler
    if name == "profile_script":
        from pipelint.profiler.run.runner import profile_script
        return profile_script
    if name == "Session":
        from pipelint.profiler.run.session import Session
        return Session
    if name in ("install", "uninstall"):
        from pipelint.profiler.run import install as _install
        return getattr(_install, name)
    if name == "build_report":
        from pipelint.profiler.output.report import build_report
        return build_report
    raise AttributeError(name)
