"""`probe(ds)`: profile a pipeline from inside a program, without `pipelint profile`."""
from __future__ import annotations

import ast
import atexit
import linecache
import os
import sys
from typing import Any

from pipelint.profiler.run.hooks import DATASET_METHODS
from pipelint.profiler.run.install import active, install
from pipelint.profiler.output.report import build_report, render_text
from pipelint.profiler.run.session import Session

_DEFAULT: Session | None = None


def _session() -> Session:
    global _DEFAULT
    s = active()
    if s is not None:
        return s
    if _DEFAULT is None:
        _DEFAULT = Session()
        from pipelint.profiler.output.display import (
            cell_site,
            ipython_shell,
            report_after_cells,
        )

        shell = ipython_shell()
        if shell is not None:
            _DEFAULT.relocate = cell_site  # sites as "cell N, line M"
            report_after_cells(shell, _finish_cell)  # IPython: a report after the cell, none at exit
        else:
            atexit.register(_print_at_exit)
    return install(_DEFAULT)


def _finish_cell(end: bool) -> dict | None:
    """The default session's report so far; `end` takes the probe off so the next cell starts fresh."""
    global _DEFAULT
    s = _DEFAULT
    if s is None:
        return None
    if end:
        from pipelint.profiler.run.install import uninstall

        _DEFAULT = None
        uninstall(s, force=True)
        return None
    return build_report(s)


def probe(ds: Any, _frame=None) -> Any:
    """Return `ds` with the probe attached: the same dataset, same elements, same order.

    Its iterators are timed (custom loops) and their tf.data model is sampled; `fit` with a
    `PipelineProfiler` callback measures the step split. Source lines come from recorded call sites
    under `pipelint profile`, else from a static scan of the file that called `probe`.
    """
    s = _session()
    try:
        s.preferred = id(ds)
        if not any(op.path for op in s.chain_of(ds)):
            _guess_sites(s, ds, _frame or sys._getframe(1))
    except Exception as exc:
        s.fail("probe()", exc)
    return ds


def _guess_sites(s: Session, ds: Any, frame) -> None:
    """Match the chain's ops to `.op(` calls above the probe() line in the caller's file, nearest first."""
    path = frame.f_code.co_filename
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
    else:  # an IPython cell: its code lives in linecache under the cell's name
        text = "".join(linecache.getlines(path))
        if not text:
            return
    tree = ast.parse(text, path)
    calls = sorted((n.lineno, n.func.attr) for n in ast.walk(tree)
                   if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                   and n.func.attr in DATASET_METHODS and n.lineno <= frame.f_lineno)
    i = len(calls) - 1
    cur = ds
    for op in s.chain_of(ds):
        k = i
        while k >= 0 and calls[k][1] != op.op:
            k -= 1
        if k >= 0:
            s.record(cur, op.op, (path, calls[k][0]), {"site_guessed": True})
            i = k - 1
        try:
            inputs = cur._inputs()
        except Exception:
            return
        if not inputs:
            return
        cur = inputs[0]


def get_report(fmt: str = "dict") -> Any:
    """The report of the current (or last) probe session: "dict", "json" or "text"."""
    s = active() or _DEFAULT
    if s is None:
        return None
    r = build_report(s)
    if fmt == "text":
        return render_text(r)
    if fmt == "json":
        import json
        return json.dumps(r, indent=2, default=str)
    return r


def _print_at_exit() -> None:
    if _DEFAULT is None or os.environ.get("PIPELINT_QUIET") or active() is not _DEFAULT:
        return
    try:
        text = get_report("text")
        if text:
            sys.stderr.write(text)
            sys.stderr.flush()
    except Exception:
        pass
