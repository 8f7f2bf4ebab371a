"""pipelint against the annotated corpus: precision >= 0.95, recall >= 0.90, no engine errors."""
from __future__ import annotations

from benchmarks import precision_recall


def _benchmark():
    return precision_recall


def test_corpus_is_annotated():
    bench = _benchmark()
    result = bench.compare()
    assert result.files >= 25
    assert len({code for _, _, code in result.expected}) >= 20


def test_precision_and_recall_on_corpus():
    bench = _benchmark()
    result = bench.compare()
    detail = "\n".join(
        [f"FP {p}:{l}: {c}" for p, l, c in sorted(result.fp)] + [f"FN {p}:{l}: {c}" for p, l, c in sorted(result.fn)]
    )
    assert not result.engine_errors, f"engine errors: {result.engine_errors}"
    assert result.precision >= bench.MIN_PRECISION, f"precision {result.precision:.3f}\n{detail}"
    assert result.recall >= bench.MIN_RECALL, f"recall {result.recall:.3f}\n{detail}"
