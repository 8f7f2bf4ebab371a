"""The one table of pipelint's codes: code -> name, severity, on by default.

A leaf: it imports nothing of the rules or libcst, so the configuration (validating selectors),
suppressions, reporters and the profiler can name codes without loading a rule. Each rule class
takes its name, severity and default from here (`Rule.__init_subclass__`), so each fact is written
once; `tests/test_codes.py` checks that every code here has a rule module and vice versa.

Codes PL0xx are the engine's own (bad input, internal errors): always on unless ignored by their
full code, and no check runs for them.
"""
from __future__ import annotations

from dataclasses import dataclass

from pipelint.diagnostics import Severity

__all__ = ["CODES", "ENGINE_CODES", "INTERNAL_ERROR", "INVALID_SUPPRESSION", "PARSE_ERROR",
           "UNREADABLE_FILE", "CodeInfo", "is_engine_code"]


@dataclass(frozen=True)
class CodeInfo:
    code: str
    name: str
    severity: Severity
    #: Off-by-default rules run only when selected by their full code or by ALL.
    default_enabled: bool = True


_ERROR, _WARNING, _INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

CODES: dict[str, CodeInfo] = {info.code: info for info in (
    # Engine: reported by pipelint itself.
    CodeInfo("PL000", "internal-error", _ERROR),
    CodeInfo("PL001", "parse-error", _ERROR),
    CodeInfo("PL002", "unreadable-file", _ERROR),
    CodeInfo("PL003", "invalid-suppression", _WARNING),
    # Performance of the input pipeline.
    CodeInfo("PL101", "map-without-parallelism", _WARNING),
    CodeInfo("PL102", "interleave-without-parallelism", _WARNING),
    # Info: with default options TF 2.9+ injects the final prefetch (`inject_prefetch`), so by default
    # the rule reports only pipelines whose options switch that off.
    CodeInfo("PL103", "missing-prefetch", _INFO),
    CodeInfo("PL104", "prefetch-not-last", _WARNING),
    CodeInfo("PL105", "map-before-batch", _INFO, default_enabled=False),
    CodeInfo("PL106", "py-function-in-map", _WARNING),
    CodeInfo("PL107", "from-generator", _INFO, default_enabled=False),
    CodeInfo("PL108", "unnecessary-unbatch", _INFO),
    # Correctness: order of shuffle, cache, repeat, batch, take/skip.
    CodeInfo("PL201", "cache-after-shuffle", _WARNING),
    CodeInfo("PL202", "cache-after-random-map", _WARNING),
    CodeInfo("PL203", "shuffle-after-batch", _WARNING),
    CodeInfo("PL204", "repeat-before-shuffle", _WARNING),
    CodeInfo("PL205", "tiny-shuffle-buffer", _WARNING),
    CodeInfo("PL206", "shuffle-split-leak", _WARNING),
    CodeInfo("PL207", "infinite-repeat-without-steps", _ERROR),
    CodeInfo("PL208", "cache-then-take", _WARNING),
    CodeInfo("PL209", "redundant-cache", _WARNING),
    CodeInfo("PL210", "trace-time-random", _WARNING),
    # Memory.
    # Off by default: whether the data fits in memory is not in the source, and on real code the
    # caches it flagged fitted (benchmarks/realcode: 0 of 9 findings worth acting on).
    CodeInfo("PL301", "memory-cache-of-file-source", _INFO, default_enabled=False),
    # Keras.
    CodeInfo("PL401", "optimizer-reuse", _ERROR),
    CodeInfo("PL402", "fit-generator-deprecated", _WARNING),
    CodeInfo("PL403", "image-data-generator-deprecated", _WARNING),
    CodeInfo("PL404", "private-optimizer-api", _WARNING),
    CodeInfo("PL405", "dataset-with-y-or-batch-size", _ERROR),
    CodeInfo("PL406", "fit-worker-args", _ERROR),
    CodeInfo("PL407", "pydataset-without-workers", _INFO),
    # Deprecated APIs.
    CodeInfo("PL501", "deprecated-tfdata-api", _WARNING),
    # tf.data service: the part of a pipeline that `distribute(...)` sends to remote workers.
    CodeInfo("PL601", "python-stage-before-distribute", _ERROR),
    # Info: the service's reader keeps several requests in flight itself, so a missing
    # trainer-side prefetch costs little unless work follows `distribute`.
    CodeInfo("PL602", "prefetch-before-distribute", _INFO),
    CodeInfo("PL603", "seeded-shuffle-before-distribute", _WARNING),
    CodeInfo("PL604", "shard-before-shared-job", _WARNING),
)}

INTERNAL_ERROR, PARSE_ERROR, UNREADABLE_FILE, INVALID_SUPPRESSION = "PL000", "PL001", "PL002", "PL003"
#: The PL0xx family.
ENGINE_CODES: tuple[str, ...] = tuple(code for code in CODES if code.startswith("PL0"))


def is_engine_code(code: str) -> bool:
    return code in ENGINE_CODES
