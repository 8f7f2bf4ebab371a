"""Notebooks under the probe: `pipelint profile notebook.ipynb` runs the code cells in order, and
IPython's `%load_ext pipelint` registers the `%%pipelint_profile` cell magic.

    %load_ext pipelint
    %%pipelint_profile
    model.fit(train_ds, epochs=2)

The magic runs its cell under a fresh probe session (a second profiled cell starts fresh), then
shows the report: as HTML in a notebook (Jupyter, VS Code, Colab), as text in a terminal IPython.
Inside IPython, `probe()` shows its report after the cell whose run it measured (not at exit),
and a `PipelineProfiler` of its own shows its report as HTML in a notebook when `fit` ends.
"""
from __future__ import annotations

import builtins
import linecache
import os
import sys
from typing import Any, TextIO

from pipelint.notebook import NotebookError, parse_notebook, runnable_cells
from pipelint.profiler.output.display import show

__all__ = ["load_ipython_extension", "profile_cell", "run_notebook"]


def run_notebook(path: str, out: TextIO | None = None) -> None:
    """Run the notebook's code cells in order in one namespace, as Jupyter's "Run All" does.

    Magics and shell escapes are skipped with a note on `out`; so are cells with a non-Python cell
    magic or a syntax error. A cell's exception propagates (the rest does not run). Tracebacks name
    `path:cell N` and the line in the cell, as the linter does.
    """
    out = out or sys.stderr
    try:
        with open(path, encoding="utf-8-sig") as handle:
            notebook = parse_notebook(handle.read())
    except (OSError, UnicodeDecodeError, NotebookError) as error:
        print(f"pipelint: cannot read notebook {path}: {error}", file=out)
        raise SystemExit(2) from None
    if not notebook.python:
        print(f"pipelint: {path}: the notebook's kernel language is not Python", file=out)
        raise SystemExit(2)
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": os.path.abspath(path),
                                 "__builtins__": builtins}
    for cell in runnable_cells(notebook):
        if cell.note:
            print(f"pipelint: {cell.note}", file=out)
        if cell.code is None:
            continue
        filename = f"{path}:cell {cell.number}"
        # Registered so tracebacks and the probe's source lookups show the cell's lines.
        linecache.cache[filename] = (len(cell.code), None, cell.code.splitlines(keepends=True), filename)
        exec(compile(cell.code, filename, "exec"), namespace)  # noqa: S102 - running the user's notebook is the point


def profile_cell(line: str, cell: str, shell: Any = None) -> dict | None:
    """Run `cell` in the IPython `shell` under a fresh probe session and show the report.
    Returns the report dict (None when TensorFlow is missing)."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    try:
        import tensorflow  # noqa: F401 - the hooks need it before the cell builds pipelines
    except ImportError:
        print("pipelint: the probe needs TensorFlow (pip install 'pipelint[profile]')", file=sys.stderr)
        shell.run_cell(cell)
        return None
    from pipelint.profiler.output.display import magic_cell_site
    from pipelint.profiler.run.install import install, uninstall
    from pipelint.profiler.output.report import build_report
    from pipelint.profiler.run.session import Session

    session = Session()
    session.relocate = magic_cell_site(shell)  # sites as "cell N, line M" of the magic's cell
    install(session)
    try:
        shell.run_cell(cell)
    finally:
        uninstall(session, force=True)
    report = build_report(session, script="%%pipelint_profile")
    show(report, shell)
    return report


def load_ipython_extension(shell: Any) -> None:
    """`%load_ext pipelint`: register `%%pipelint_profile`."""

    def pipelint_profile(line: str, cell: str) -> None:
        profile_cell(line, cell, shell)

    shell.register_magic_function(pipelint_profile, magic_kind="cell", magic_name="pipelint_profile")
