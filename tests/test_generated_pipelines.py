"""Property tests: random tf.data training scripts against an oracle written from the rule docs.

`tests/pipeline_generator.py` writes scripts from an op vocabulary and a layout, reads them back
with its own small interpreter, and computes the exact findings by its own logic over the op
sequences of every control-flow path (never by calling pipelint). Here pipelint must agree.

Vocabulary
    sources  `tf.data.Dataset.range(10|64|1000)`, `from_tensor_slices(x)`,
             `from_tensor_slices([1, 2, 3, 4])`, `tf.data.TFRecordDataset(files)`,
             `tf.data.TextLineDataset(path)`
    ops      `map(parse)`, `map(parse, num_parallel_calls=tf.data.AUTOTUNE)`,
             `shuffle(1|8|64|128|1000|10000)`, `cache()`, `batch(8|32|256)`, `repeat()`,
             `prefetch(tf.data.AUTOTUNE)`, `take(5|50|500)`, `skip(1|10)`; up to 8 ops
    layouts  one chain (one line or parenthesized over several lines); reassignments
             `ds = ds.a().b()`; a local helper `def finish(ds): ... return ds.c()` called as
             `ds = finish(ds)`; an `if training:` branch (optionally with `else:`) in the main
             body or inside the helper; always consumed by
             `model.fit(ds, epochs=2, steps_per_epoch=10)`.
Restrictions (to keep every rule's semantics crisp)
    * at most one `repeat()` per script, and it is argument-less (so it always repeats);
    * `shuffle` never passes `reshuffle_each_iteration` (it always reshuffles);
    * `training` is `len(sys.argv) > 1`, never a literal, so both branches are live;

Rule semantics the oracle implements (a path = the ops from the source to `fit` on one way
through the branches; "on some path" means the two ops are on one path together):
    PL101  every `map` without `num_parallel_calls`; safe fix.
    PL103  (checked with `prefetch-injected = false`, as on TensorFlow before 2.9; with default
           options PL103 and PL104 stay quiet on these scripts, which never call `with_options`)
           when no path ends in `prefetch` or a parallel `map` or is a bare in-memory source
           (`range`/`from_tensor_slices` with no op: nothing to overlap, since pipelint
           5c9c68b, not yet in the rule docs): one finding at the last op of
           each path (at the source name when a path has no op); safe fix unless the path has an
           earlier `prefetch`, or an op continues from that last op on another path, or (for a
           bare source) some path has ops. Two paths ending at one op that disagree: either.
    PL104  a `map`/`shuffle`/`cache`/`batch` after a `prefetch` with only `take`/`skip`/`repeat`
           between, on some path; unsafe fix when the prefetch is its receiver in the chain.
    PL201  a `cache` with a `shuffle` before it on some path (and no path endless before it: an
           argument-less `repeat()` with no `take` after it), unless some path shuffles the
           examples again after it (a shuffle after a batch does not count; "batched" is judged
           over all paths reaching the cache); unsafe fix when its receiver is the shuffle.
    PL203  a `shuffle` whose input is batched on some path (a batch after which no unbatch
           came, that was not preceded by a shuffle since the last cache), unless some path
           batches again after the shuffle (the first batch built the examples); unsafe fix when
           its receiver is the batch.
    PL204  a `shuffle` with a `repeat()` before it on some path; unsafe fix when adjacent.
    PL205  a literal buffer < 100, or below the batch size of the first batch after it, judged
           only on paths not yet batched whose count of distinct elements (range/list size
           through take/batch/non-growing ops and repeat) is not known to be <= the buffer; no fix.
    PL208  a `take` right after a `cache` (through `map`/`prefetch`) on some path (fit reads it
           every epoch); unsafe fix when its receiver is the cache.
    PL209  a `cache` with an earlier `cache` on every path and no `repeat` after the last earlier
           cache on any path; safe fix (removal) when only
           `prefetch` lies between on every path and its receiver is a call.

Properties
    1. pipelint reports exactly the oracle's `(code, line, column, fix applicability)` set.
    2. `--fix` (safe, then safe+unsafe): the result parses, a second run changes nothing, no
       finding with an applicable fix remains, what remains is exactly what the oracle expects
       of the fixed script, and (safe mode) every finding that had no safe fix is still reported
       on the same op (PL103 excepted: making the last `map` parallel legitimately settles it).
"""
from __future__ import annotations

import collections
import os
import sys
from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, example, given, settings

sys.path.insert(0, str(Path(__file__).parent))

from pipeline_generator import (  # noqa: E402
    RULES, Program, expected_findings, interpret, matches, programs,
)

from rule_options import STRICT_PREFETCH, settings_with  # noqa: E402

from pipelint.engine import FixMode, lint_and_fix, lint_source  # noqa: E402

CODES = frozenset(RULES)
# (every finding the oracle predicts, whatever its impact: minor findings are shown too)
STRICT = replace(settings_with(STRICT_PREFETCH), show_minor_speed=True, show_minor_correctness=True)
MAX_EXAMPLES = int(os.environ.get("PIPELINT_GENERATED_EXAMPLES", "300"))  # more to hunt bugs
STATS: collections.Counter = collections.Counter()


def _found(diagnostics) -> set:
    return {(d.code, d.line, d.column, d.fix.applicability.value if d.fix else None)
            for d in diagnostics}


def _explain(source: str, expected: set, actual: set) -> str:
    key = lambda f: f[:3]  # noqa: E731
    exp, act = {key(f): f for f in expected}, {key(f): f for f in actual}
    return (f"\n{source}\nmissing: {sorted(exp[k] for k in exp.keys() - act.keys())}"
            f"\nextra:   {sorted(act[k] for k in act.keys() - exp.keys())}"
            f"\nfix differs: {sorted((exp[k], act[k]) for k in exp.keys() & act.keys() if exp[k] != act[k])}")


def _identity(parsed) -> dict:
    """(line, column) -> (chain, method, occurrence of that method in the chain)."""
    seen: collections.Counter = collections.Counter()
    result = {}
    for op in parsed.ops:  # source order, so chain order within a chain
        seen[op.chain, op.method] += 1
        result[op.line, op.column] = (op.chain, op.method, seen[op.chain, op.method])
    return result


def _check_fix(source: str, parsed, original, include_unsafe: bool) -> None:
    mode = FixMode(enabled=True, include_unsafe=include_unsafe)
    remaining, fixed, count = lint_and_fix(source, "gen.py", CODES, STRICT, mode)
    label = "safe+unsafe" if include_unsafe else "safe"
    cst.parse_module(fixed)  # the fixed script parses
    wanted_fix = any(d.fix is not None and (include_unsafe or d.fix.applicability.value == "safe")
                     for d in original)
    assert (fixed != source) == wanted_fix, f"{label}: fixes applicable but nothing changed\n{source}"
    assert (count > 0) == (fixed != source)
    # Idempotent (and the second run's check of the fixed script is what `--fix` reported).
    after, again, more = lint_and_fix(fixed, "gen.py", CODES, STRICT, mode)
    assert (again, more) == (fixed, 0), f"{label} fix is not idempotent:\n{fixed}"
    assert _found(after) == _found(remaining)
    # The fixed findings are gone: nothing fixable under this mode is left.
    leftover = [d for d in after if d.fix is not None and (include_unsafe or d.fix.applicability.value == "safe")]
    assert not leftover, f"{label}: fixable findings remain after --fix:\n{fixed}\n{leftover}"
    # What remains is what the oracle expects of the fixed script.
    parsed_fixed = interpret(fixed)
    expected = expected_findings(parsed_fixed)
    actual = _found(after)
    assert matches(expected, actual), f"after {label} fix:" + _explain(fixed, expected, actual)
    if include_unsafe:
        STATS["fixed programs (safe+unsafe)"] += fixed != source
        return
    STATS["fixed programs (safe)"] += fixed != source
    # Findings without a safe fix remain, on the same op (unless a cache was removed from that
    # chain, which renumbers the ops we identify them by).
    before_ids, after_ids = _identity(parsed), _identity(parsed_fixed)
    caches = lambda ids: collections.Counter(c for c, m, _ in ids.values() if m == "cache")  # noqa: E731
    before_caches, after_caches = caches(before_ids), caches(after_ids)
    still = {(d.code, after_ids.get((d.line, d.column))) for d in after}
    for d in original:
        if d.code == "PL103" or (d.fix is not None and d.fix.applicability.value == "safe"):
            continue
        op = before_ids[d.line, d.column]
        if before_caches[op[0]] != after_caches[op[0]]:
            continue
        assert (d.code, op) in still, f"safe fix dropped an unfixable {d.code} finding:\n{source}\n->\n{fixed}"
        STATS["unfixed findings kept"] += 1


@pytest.fixture(scope="module", autouse=True)
def report_counts(request):
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    line = "generated pipelines: " + ", ".join(f"{k}={v}" for k, v in sorted(STATS.items()))
    if reporter is not None:
        reporter.write_line(line)
    else:  # pragma: no cover
        print(line)


@settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
# (a branch's `take` that leads into the pipeline's last `take` is no sibling split: one PL103, on
# the `map` before both, as the oracle says)
@example(Program(
    source="import sys\n\nimport tensorflow as tf\nfrom tensorflow import keras\n\ntraining = len(sys.argv) > 1\n"
           "files = ['a.tfrecord', 'b.tfrecord']\npath = 'lines.txt'\nx = list(range(100))\n\n\n"
           "def parse(record):\n    return decode(record)  # defined elsewhere: not known to be stateless\n\n"
           "ds = tf.data.Dataset.range(10).map(parse)\nds = ds.map(parse)\nif training:\n    ds = ds.take(5)\n"
           "ds = ds.take(5)\nmodel = keras.Sequential([keras.layers.Dense(1)])\n"
           "model.compile(optimizer='adam', loss='mse')\nmodel.fit(ds, epochs=2, steps_per_epoch=10)\n",
    paths=[['map(parse)', 'map(parse)', 'take(5)', 'take(5)'], ['map(parse)', 'map(parse)', 'take(5)']],
    layout="branch"))
# (a helper function of the module that maps after the module's own `batch`: PL103 stays on that
# `batch`, which no function returns)
@example(Program(
    source="import sys\n\nimport tensorflow as tf\nfrom tensorflow import keras\n\ntraining = len(sys.argv) > 1\n"
           "files = ['a.tfrecord', 'b.tfrecord']\npath = 'lines.txt'\nx = list(range(100))\n\n\n"
           "def parse(record):\n    return decode(record)  # defined elsewhere: not known to be stateless\n\n\n"
           "def finish(ds):\n    return ds.map(parse)\n\n\n"
           "ds = tf.data.Dataset.range(10).map(parse).map(parse).map(parse).batch(8)\nds = finish(ds)\n"
           "model = keras.Sequential([keras.layers.Dense(1)])\nmodel.compile(optimizer='adam', loss='mse')\n"
           "model.fit(ds, epochs=2, steps_per_epoch=10)\n",
    paths=[['map(parse)', 'map(parse)', 'map(parse)', 'batch(8)', 'map(parse)']],
    layout="helper"))
def test_generated_pipelines_match_oracle_and_fix_cleanly(program):
    parsed = interpret(program.source)
    # The generator's intended paths are what its reader sees (the reader is then trusted on
    # the output of --fix).
    assert sorted([op.label() for op in ops] for _, ops in parsed.paths) == sorted(program.paths)
    diagnostics = lint_source(program.source, "gen.py", CODES, STRICT)
    expected, actual = expected_findings(parsed), _found(diagnostics)
    assert matches(expected, actual), _explain(program.source, expected, actual)
    STATS["programs"] += 1
    STATS[f"layout {program.layout}"] += 1
    for code, *_ in actual:
        STATS[code] += 1
    _check_fix(program.source, parsed, diagnostics, include_unsafe=False)
    _check_fix(program.source, parsed, diagnostics, include_unsafe=True)


def test_generator_was_exercised():
    """Runs after the property (file order): it checked enough programs, and every rule fired."""
    if not STATS["programs"]:
        pytest.skip("the property test did not run in this session")
    assert STATS["programs"] >= MAX_EXAMPLES * 0.9, STATS
    for code in RULES:
        assert STATS[code] >= 3, f"{code} fired only {STATS[code]} times: the generator is too narrow"


# ---------------------------------------------------------------------------------------------
# Regressions found by the property test: a helper with tf.data-only evidence (`.prefetch(`,
# `tf.data.AUTOTUNE`) was also interpreted on its own with an unknown-origin `ds`, although the
# module calls it; that stand-in path changed the verdict of rules that need "every path".
# ---------------------------------------------------------------------------------------------

_HEAD = ("import tensorflow as tf\nfrom tensorflow import keras\n\n"
         "model = keras.Sequential([keras.layers.Dense(1)])\n\n\n")
_TAIL = "ds = finish(ds)\nmodel.fit(ds, epochs=2, steps_per_epoch=10)\n"


def _codes_lines(source: str, code: str) -> list[tuple[str, int]]:
    return [(d.code, d.line) for d in lint_source(source, "repro.py", frozenset({code}), STRICT)]


def test_pl209_missed_in_helper_with_evidence():
    source = (_HEAD + "def finish(ds):\n    return ds.cache().prefetch(tf.data.AUTOTUNE)\n\n\n"
              "ds = tf.data.Dataset.range(64).cache()\n" + _TAIL)
    assert _codes_lines(source, "PL209") == [("PL209", 8)]


def test_pl203_false_positive_in_helper_with_evidence():
    source = (_HEAD + "def finish(ds):\n    return ds.batch(32).shuffle(10).prefetch(tf.data.AUTOTUNE)\n\n\n"
              "ds = tf.data.TFRecordDataset(['a.tfrecord']).shuffle(1000)\n" + _TAIL)
    assert _codes_lines(source, "PL203") == []


def test_pl205_false_positive_in_helper_with_evidence():
    source = (_HEAD + "def finish(ds):\n    return ds.shuffle(10).prefetch(tf.data.AUTOTUNE)\n\n\n"
              "ds = tf.data.Dataset.range(10)\n" + _TAIL)
    assert _codes_lines(source, "PL205") == []


@pytest.mark.parametrize("code,helper,main,expected", [
    ("PL209", "ds.cache().batch(8)", "tf.data.Dataset.range(64).cache()", [("PL209", 8)]),
    ("PL203", "ds.batch(32).shuffle(10)", "tf.data.TFRecordDataset(['a.tfrecord']).shuffle(1000)", []),
    ("PL205", "ds.shuffle(10)", "tf.data.Dataset.range(10)", []),
])
def test_same_helpers_without_evidence_are_right(code, helper, main, expected):
    """Regression (a helper's own run once added a stand-in path): with or without tf.data
    evidence in the helper, pipelint agrees with the oracle."""
    source = _HEAD + f"def finish(ds):\n    return {helper}\n\n\nds = {main}\n" + _TAIL
    assert _codes_lines(source, code) == expected
