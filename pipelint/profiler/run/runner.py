"""Run a training script as `__main__` with the probe installed, then report."""
from __future__ import annotations

import os
import runpy
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, TextIO


class ScriptNotFound(Exception):
    pass


class TensorFlowMissing(Exception):
    pass


@dataclass
class Outcome:
    exit_code: int
    report: dict[str, Any] | None
    text: str = ""
    errors: list[str] = field(default_factory=list)


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # sys.exit("message") prints the message and exits 1, as Python does
    return 1


def _print_user_traceback(exc: BaseException) -> None:
    """Print the traceback as Python would for the script: without our and runpy's frames."""
    tb = exc.__traceback__
    skip = (os.path.abspath(__file__), os.path.abspath(runpy.__file__), "<frozen runpy>")
    while tb is not None and (tb.tb_frame.f_code.co_filename in skip
                              or os.path.abspath(tb.tb_frame.f_code.co_filename) in skip):
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)


def profile_script(script: str, args: list[str] | tuple[str, ...] = (), *, json_path: str | None = None,
                   html_path: str | None = None, out: TextIO | None = None, sample_every: int = 50,
                   warn_every: int = 500, live_warnings: bool = True, quiet: bool = False,
                   xprof_dir: str | None = None, log_dir: str | None = None, max_steps: int | None = None,
                   fixes: dict | None = None, every: float | None = 60.0) -> Outcome:
    """Run `script` with `args` under the probe. Never calls sys.exit; the caller decides.

    With `xprof_dir`, the run is also traced with `tf.profiler.experimental.start(xprof_dir)`, with
    XProf step markers, and XProf's own figures join the report. With `log_dir`, per-step scalars and
    the report are written for TensorBoard (pipelint/profiler/output/tensorboard.py). Every `every`
    seconds (None or 0: never) one line goes to `out` and the report files are rewritten
    (run/account.py), so a job killed mid-run leaves its report up to its last interval.
    """
    if not os.path.isfile(script):
        raise ScriptNotFound(script)
    try:
        import tensorflow  # noqa: F401 - hooks must be in place before the script builds pipelines
    except ImportError as exc:
        raise TensorFlowMissing(str(exc)) from exc
    from pipelint.profiler.run.install import install, uninstall
    from pipelint.profiler.output.report import build_report, emit
    from pipelint.profiler.run.session import Session, StepLimitReached
    from pipelint.profiler.measure.xprof import Capture

    out = out or sys.stderr
    session = Session(sample_every=sample_every, warn_every=warn_every, live_warnings=live_warnings,
                      max_steps=max_steps, fixes=fixes)
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    code = 0
    xprof = Capture(xprof_dir, session)
    tensorboard = None
    if log_dir:
        from pipelint.profiler.output.tensorboard import Output
        tensorboard = Output(session, log_dir)
    install(session)
    account = None
    if every:
        from pipelint.profiler.run.account import Account
        account = Account(session, every, json_path=json_path, html_path=html_path, tensorboard=tensorboard,
                          script=script, out=None if quiet else out).start()
    xprof.start()
    try:
        if script.endswith(".ipynb"):
            from pipelint.profiler.run.notebook import run_notebook  # code cells in order, magics skipped

            run_notebook(script, out)
        else:
            runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = _exit_code(exc)
    except StepLimitReached:
        code = 0  # a bounded run (--verify) ended where it was asked to
    except KeyboardInterrupt:
        print("KeyboardInterrupt", file=sys.stderr)
        code = 130
    except BaseException as exc:  # the script's own error: report it like Python, keep the report
        _print_user_traceback(exc)
        code = 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        if account is not None:
            account.stop()  # the final report below replaces the last interval's
        try:
            xprof.stop()
        except BaseException as exc:  # noqa: BLE001 - Ctrl-C while the trace is written
            xprof.failed("could not stop", exc)
    report = text = None
    try:
        extra = {"xprof": xprof.info()} if xprof_dir else {}
        if account is not None:
            extra["account"] = account.section(final=True)
        report = build_report(session, exit_code=code, script=script, extra=extra or None)
        if xprof_dir:
            xprof.compare(report)
        if tensorboard is not None:
            tensorboard.finish(report)
        from pipelint.profiler.output.trackers import log_report
        log_report(session, report, json_path, html_path)  # only when the script logs to an MLflow run
        uninstall(session, force=True)
        text = emit(report, out=None if quiet else out, json_path=json_path, html_path=html_path)
    except KeyboardInterrupt:
        code = 130
    except Exception as exc:  # a broken report must not hide the script's exit code
        uninstall(session, force=True)
        print(f"pipelint: could not build the report: {type(exc).__name__}: {exc}", file=sys.stderr)
    return Outcome(code, report, text or "", list(session.errors))
