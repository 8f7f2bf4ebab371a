"""pipelint: find what makes TensorFlow/Keras input pipelines slow or wrong.

`import pipelint` stays light: it never imports TensorFlow (only `pipelint.profiler` does), and
the linter's modules load on first use.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Diagnostic", "__version__", "check_paths", "check_source"]

if TYPE_CHECKING:
    from pipelint.diagnostics import Diagnostic
    from pipelint.api import check_paths, check_source


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext pipelint` in IPython/Jupyter: registers the `%%pipelint_profile` cell magic."""
    from pipelint.profiler.run.notebook import load_ipython_extension as load

    load(ipython)


def __getattr__(name: str) -> Any:
    if name in ("check_source", "check_paths"):
        from pipelint import api

        return getattr(api, name)
    if name == "Diagnostic":
        from pipelint.diagnostics import Diagnostic

        return Diagnostic
    raise AttributeError(f"module 'pipelint' has no attribute {name!r}")
