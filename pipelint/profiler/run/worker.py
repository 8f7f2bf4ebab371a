"""`probe_worker()`: the worker side of a tf.data service job, measured on a worker host."""
from __future__ import annotations

from typing import Any

WORKER_NOTE = ("measured on this host by iterating a copy of the pipeline before distribute, alone"
               " (nothing else running in this process); the service's own copy runs inside the"
               " worker server, where no probe can see it")


def probe_worker(dataset_fn, batches: int = 100, warmup: int = 5, json_path: str | None = None) -> dict[str, Any]:
    """Per-stage figures of the pipeline a tf.data service worker runs, measured on a worker host.

    `dataset_fn()` builds the part of the pipeline that goes before `distribute(...)`. It is
    iterated for `warmup + batches` batches under its own probe session; the report's
    `probe_worker` block holds the batches per second one such host produces (compare with the
    trainer's steps per second: their ratio is the number of workers that keep a trainer fed), and
    its `stages` the per-stage times. `pipelint profile-merge trainer.json worker*.json` lists these
    reports under `service_workers`.
    """
    import time

    from pipelint.profiler.run.install import install, uninstall
    from pipelint.profiler.output.report import build_report, write_json
    from pipelint.profiler.run.session import Session

    session = install(Session(live_warnings=False))
    produced, seconds = 0, 0.0
    start = time.perf_counter()
    try:
        iterator = iter(dataset_fn())
        for _ in range(warmup):
            next(iterator)
        start = time.perf_counter()  # after the warm-up batches (tracing, thread pools starting)
        for _ in range(batches):
            next(iterator)
            produced += 1
        seconds = time.perf_counter() - start
    except StopIteration:
        seconds = time.perf_counter() - start
    finally:
        uninstall(session, force=True)
    report = build_report(session)
    report["probe_worker"] = {
        "batches": produced, "seconds": round(seconds, 4),
        "batches_per_s": round(produced / seconds, 3) if seconds > 0 else None, "note": WORKER_NOTE,
    }
    if json_path:
        write_json(report, json_path)
    return report
