"""pipelint against the annotated corpus: precision >= 0.95, recall >= 0.90, no engine errors."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _benchmark():
    spec = importlib.util.spec_from_file_location("precision_recall", ROOT / "benchmarks" / "precision_recall.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


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
