"""The one table of pipelint's codes: code -> name, severity, impact, on by default.

A leaf: it imports nothing of the rules or libcst, so the configuration (validating selectors),
suppressions, reporters and the profiler can name codes without loading a rule. Each rule class
takes its name, severity, impact and default from here (`Rule.__init_subclass__`), so each fact is written
once; `tests/test_codes.py` checks that every code here has a rule module and vice versa.

Codes PL0xx are the engine's own (bad input, internal errors): always on unless ignored by their
full code, and no check runs for them. Their impact is correctness: a file that was not checked,
or a suppression that suppresses nothing, is always shown.

The impact is each code's default (docs/rules.md lists it); a finding may refine it from its
module's target. A call that fails from some release on is `breaks-on-upgrade` (a migration, shown
on request) where the target is older than that release, and correctness where the target already
breaks it (`rules.base.fails_from`): PL402, PL404. PL403 and PL405 are refined by what the code
does (see their docs).
"""
from __future__ import annotations

from dataclasses import dataclass

from pipelint.diagnostics import Impact, Severity

__all__ = ["CODES", "ENGINE_CODES", "INTERNAL_ERROR", "INVALID_SUPPRESSION", "PARSE_ERROR",
           "UNREADABLE_FILE", "CodeInfo", "is_engine_code"]


@dataclass(frozen=True)
class CodeInfo:
    code: str
    name: str
    severity: Severity
    impact: Impact
    #: Off-by-default rules run only when selected by their full code or by ALL.
    default_enabled: bool = True


_ERROR, _WARNING, _INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
_CORRECTNESS, _SPEED, _UPGRADE, _HOUSEKEEPING = (Impact.CORRECTNESS, Impact.SPEED, Impact.BREAKS_ON_UPGRADE,
                                                 Impact.HOUSEKEEPING)

CODES: dict[str, CodeInfo] = {info.code: info for info in (
    # Engine: reported by pipelint itself.
    CodeInfo("PL000", "internal-error", _ERROR, _CORRECTNESS),
    CodeInfo("PL001", "parse-error", _ERROR, _CORRECTNESS),
    CodeInfo("PL002", "unreadable-file", _ERROR, _CORRECTNESS),
    CodeInfo("PL003", "invalid-suppression", _WARNING, _CORRECTNESS),
    # Performance of the input pipeline.
    CodeInfo("PL101", "map-without-parallelism", _WARNING, _SPEED),
    CodeInfo("PL102", "interleave-without-parallelism", _WARNING, _SPEED),
    # Info: with default options TF 2.9+ injects the final prefetch (`inject_prefetch`), so by default
    # the rule reports only pipelines whose options switch that off.
    CodeInfo("PL103", "missing-prefetch", _INFO, _SPEED),
    CodeInfo("PL104", "prefetch-not-last", _WARNING, _SPEED),
    CodeInfo("PL105", "map-before-batch", _INFO, _SPEED, default_enabled=False),
    CodeInfo("PL106", "py-function-in-map", _WARNING, _SPEED),
    CodeInfo("PL107", "from-generator", _INFO, _SPEED, default_enabled=False),
    CodeInfo("PL108", "unnecessary-unbatch", _INFO, _SPEED),
    # Correctness: order of shuffle, cache, repeat, batch, take/skip.
    CodeInfo("PL201", "cache-after-shuffle", _WARNING, _CORRECTNESS),
    CodeInfo("PL202", "cache-after-random-map", _WARNING, _CORRECTNESS),
    CodeInfo("PL203", "shuffle-after-batch", _WARNING, _CORRECTNESS),
    CodeInfo("PL204", "repeat-before-shuffle", _WARNING, _CORRECTNESS),
    CodeInfo("PL205", "tiny-shuffle-buffer", _WARNING, _CORRECTNESS),
    CodeInfo("PL206", "shuffle-split-leak", _WARNING, _CORRECTNESS),
    CodeInfo("PL207", "infinite-repeat-without-steps", _ERROR, _CORRECTNESS),
    # PL208, PL209: the data stays right; the work of the cache is redone or doubled.
    CodeInfo("PL208", "cache-then-take", _WARNING, _SPEED),
    CodeInfo("PL209", "redundant-cache", _WARNING, _SPEED),
    CodeInfo("PL210", "trace-time-random", _WARNING, _CORRECTNESS),
    # Memory.
    # Off by default: whether the data fits in memory is not in the source, and on real code the
    # caches it flagged fitted (benchmarks/realcode: 0 of 9 findings worth acting on).
    # Correctness: the cost is a job killed for memory, not a slower one.
    CodeInfo("PL301", "memory-cache-of-file-source", _INFO, _CORRECTNESS, default_enabled=False),
    # Keras. PL402, PL404: correctness where the target already fails the call; PL406 reports only
    # there (Keras 3 targets), so it is correctness. PL403: speed where the generator decodes image
    # files or augments in Python and loads in one worker, else housekeeping (a legacy API that still
    # works). PL407, like PL101/PL103/PL104: minor speed where the stage costs little.
    # PL405: `y`/`sample_weight` raise, an ignored `batch_size` is housekeeping.
    CodeInfo("PL401", "optimizer-reuse", _ERROR, _CORRECTNESS),
    CodeInfo("PL402", "fit-generator-deprecated", _WARNING, _UPGRADE),
    CodeInfo("PL403", "image-data-generator-deprecated", _WARNING, _HOUSEKEEPING),
    CodeInfo("PL404", "private-optimizer-api", _WARNING, _UPGRADE),
    CodeInfo("PL405", "dataset-with-y-or-batch-size", _ERROR, _CORRECTNESS),
    CodeInfo("PL406", "fit-worker-args", _ERROR, _CORRECTNESS),
    CodeInfo("PL407", "pydataset-without-workers", _INFO, _SPEED),
    # Deprecated APIs.
    CodeInfo("PL501", "deprecated-tfdata-api", _WARNING, _HOUSEKEEPING),
    # tf.data service: the part of a pipeline that `distribute(...)` sends to remote workers.
    CodeInfo("PL601", "python-stage-before-distribute", _ERROR, _CORRECTNESS),
    # Info: the service's reader keeps several requests in flight itself, so a missing
    # trainer-side prefetch costs little unless work follows `distribute`.
    CodeInfo("PL602", "prefetch-before-distribute", _INFO, _SPEED),
    CodeInfo("PL603", "seeded-shuffle-before-distribute", _WARNING, _CORRECTNESS),
    CodeInfo("PL604", "shard-before-shared-job", _WARNING, _CORRECTNESS),
)}

INTERNAL_ERROR, PARSE_ERROR, UNREADABLE_FILE, INVALID_SUPPRESSION = "PL000", "PL001", "PL002", "PL003"
#: The PL0xx family.
ENGINE_CODES: tuple[str, ...] = tuple(code for code in CODES if code.startswith("PL0"))


def is_engine_code(code: str) -> bool:
    return code in ENGINE_CODES
