"""Benchmark scripts (run them as `python benchmarks/NAME.py`). A package so that the tests that
reuse a benchmark's code import it by name (`from benchmarks import precision_recall`); pytest puts
the repository root on `sys.path` (`pythonpath` in pyproject.toml)."""
