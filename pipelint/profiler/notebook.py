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
from typing import Any, Callable, TextIO

from pipelint.notebook import NotebookError, parse_notebook, runnable_cells

__all__ = ["ipython_shell", "load_ipython_extension", "profile_cell", "report_after_cells", "run_notebook",
           "show_in_notebook"]


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


def _in_notebook(shell: Any) -> bool:
    """A Jupyter kernel (notebook, lab, VS Code, Colab) rather than a terminal IPython."""
    return getattr(shell, "kernel", None) is not None


def ipython_shell() -> Any:
    """The running IPython shell, or None (IPython is never imported just to ask)."""
    module = sys.modules.get("IPython")
    try:
        return module.get_ipython() if module is not None else None
    except Exception:  # noqa: BLE001 - a half-initialised IPython is no shell
        return None


def show(report: dict, shell: Any) -> None:
    """HTML in a notebook, text in a terminal IPython."""
    if _in_notebook(shell):
        from IPython.display import HTML, display

        from pipelint.profiler.html import render_html

        display(HTML(render_html(report, standalone=False)))
    else:
        from pipelint.profiler.report import render_text

        print(render_text(report), end="")


def show_in_notebook(report: dict) -> bool:
    """Display `report` as HTML when running in a notebook kernel; False elsewhere."""
    shell = ipython_shell()
    if shell is None or not _in_notebook(shell):
        return False
    show(report, shell)
    return True


def _measured(report: dict) -> bool:
    return bool(report.get("steps")) or any(stage.get("elements") for stage in report.get("stages") or [])


def report_after_cells(shell: Any, finish: Callable[[bool], dict | None]) -> None:
    """After each cell, ask `finish(False)` for a report; once it has measured something, show it
    and call `finish(True)` (which ends the session) so that the next probed cell starts fresh."""

    def post_run_cell(result: Any = None) -> None:
        try:
            report = finish(False)
            if report is None or not _measured(report):
                return  # e.g. `probe(ds)` alone in a cell: wait for the cell that trains
            shell.events.unregister("post_run_cell", post_run_cell)
            finish(True)
            show(report, shell)
        except Exception as exc:  # noqa: BLE001 - the probe never breaks the user's session
            print(f"pipelint: could not show the probe's report: {type(exc).__name__}: {exc}", file=sys.stderr)

    shell.events.register("post_run_cell", post_run_cell)


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
    from pipelint.profiler.install import install, uninstall
    from pipelint.profiler.report import build_report
    from pipelint.profiler.session import Session

    session = install(Session())
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
