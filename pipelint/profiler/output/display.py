"""Showing a probe report inside IPython: HTML in a notebook kernel (Jupyter, VS Code, Colab),
text in a terminal IPython. IPython is never imported here unless it is already running."""
from __future__ import annotations

import sys
from typing import Any, Callable

__all__ = ["cell_site", "ipython_shell", "magic_cell_site", "report_after_cells", "show", "show_in_notebook"]


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


def _cell_names(shell: Any) -> dict:
    names = getattr(getattr(shell, "compile", None), "_filename_map", None)
    return names if isinstance(names, dict) else {}


def cell_site(path: str, line: int) -> tuple[str, int] | None:
    """("cell N", line in the cell) for code IPython compiled from its cell N (In [N]), else None.

    IPython names each cell's code <ipython-input-N-...> (a terminal) or a temporary file (a
    Jupyter kernel); its compiler maps the name back to N."""
    number = _cell_names(ipython_shell()).get(path)
    if not isinstance(number, int) or number <= 0:
        return None
    return f"cell {number}", line


def magic_cell_site(shell: Any) -> Callable[[str, int], tuple[str, int] | None]:
    """`cell_site` for a `%%pipelint_profile` cell about to run its body: the body is compiled as
    a cell of its own (numbered after the counter IPython already advanced), but the user sees it
    as the magic's cell, starting on its second line."""
    names = _cell_names(shell)
    before = set(names)
    outer = names[next(reversed(names))] if names else None  # the cell running the magic

    def relocate(path: str, line: int) -> tuple[str, int] | None:
        if outer is not None and path in names and path not in before:
            return f"cell {outer}", line + 1
        return cell_site(path, line)
    return relocate


def show(report: dict, shell: Any) -> None:
    """HTML in a notebook, text in a terminal IPython."""
    if _in_notebook(shell):
        from IPython.display import HTML, display

        from pipelint.profiler.output.html import render_html

        display(HTML(render_html(report, standalone=False)))
    else:
        from pipelint.profiler.output.report import render_text

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
