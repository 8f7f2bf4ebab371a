"""`pipelint profile SCRIPT [ARGS...]`. Importing this module must not import TensorFlow."""
from __future__ import annotations

import json
import os
import sys

import click


@click.command("profile", context_settings={"ignore_unknown_options": True,
                                            "allow_interspersed_args": False})
@click.option("--report", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the report as JSON to this file.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, writable=True),
              help="Write a self-contained HTML report to this file.")
@click.option("--sample-every", default=50, show_default=True, type=click.IntRange(1),
              help="Read tf.data's autotune model every N steps.")
@click.option("--warn-every", default=500, show_default=True, type=click.IntRange(1),
              help="Repeat the live input-bound warning at most every N steps.")
@click.option("--no-live-warnings", is_flag=True, help="Do not log input-bound warnings while training.")
@click.option("--xprof", "xprof_dir", type=click.Path(file_okay=False),
              help="Also capture an XProf trace of the run into this directory, with step markers,"
                   " and report XProf's input-bound figure and step time beside pipelint's"
                   " (open the trace with `tensorboard --logdir DIR` or `xprof --logdir DIR`).")
@click.option("--logdir", "log_dir", type=click.Path(file_okay=False),
              help="Write per-step scalars and the report for TensorBoard: into the run of the script's"
                   " Keras TensorBoard callback when it has one, else into DIR/train.")
@click.option("--every", default=60.0, show_default=True, type=click.FloatRange(min=0),
              help="Every SECONDS log one line (step, ms/step, share waiting for input, bottleneck) and"
                   " rewrite the report files, so a killed job leaves its report; 0: only at the end.")
@click.option("--verify", is_flag=True,
              help="Measure each suggestion: run the job as-is and with each fix, fresh processes,"
                   " alternating rounds; report measured vs predicted speedup.")
@click.option("--verify-steps", default=60, show_default=True, type=click.IntRange(10),
              help="Steps per verification run (the job stops there).")
@click.option("--verify-rounds", default=3, show_default=True, type=click.IntRange(1),
              help="Rounds of runs (baseline and each fix once per round).")
@click.option("--unsafe-fixes", is_flag=True,
              help="With --verify: also run fixes that change what the pipeline yields.")
@click.option("--max-steps", type=click.IntRange(1), hidden=True)
@click.option("--apply", "apply_json", hidden=True)
@click.option("--quiet", is_flag=True, hidden=True)
@click.argument("script", type=click.Path(dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def profile_command(json_path, html_path, sample_every, warn_every, no_live_warnings, xprof_dir, log_dir, every, verify,
                    verify_steps, verify_rounds, unsafe_fixes, max_steps, apply_json, quiet, script, args):
    """Run SCRIPT with ARGS under the input-pipeline probe and report where step time goes."""
    if verify:
        _verify(script, list(args), json_path, html_path, verify_steps, verify_rounds, unsafe_fixes)
        return
    from pipelint.profiler.run.runner import ScriptNotFound, TensorFlowMissing, profile_script

    try:
        outcome = profile_script(script, list(args), json_path=json_path, html_path=html_path,
                                 sample_every=sample_every, warn_every=warn_every,
                                 live_warnings=not no_live_warnings, xprof_dir=xprof_dir,
                                 log_dir=log_dir, max_steps=max_steps,
                                 fixes=json.loads(apply_json) if apply_json else None, quiet=quiet,
                                 every=every)
    except ScriptNotFound:
        click.echo(f"pipelint profile: no such script: {script}", err=True)
        sys.exit(2)
    except TensorFlowMissing as exc:
        click.echo(f"pipelint profile: needs TensorFlow ({exc}); pip install 'pipelint[profile]'", err=True)
        sys.exit(2)
    sys.stdout.flush()
    sys.stderr.flush()
    # TF can hang at interpreter exit while an iterator over a py_function map is alive, and the
    # script may have left such iterators behind: leave without running finalizers.
    os._exit(outcome.exit_code)


def _verify(script, args, json_path, html_path, steps, rounds, unsafe_fixes) -> None:
    """Runs in this process without TensorFlow: every job run is a child process."""
    from pipelint.profiler.output.report import emit
    from pipelint.profiler.run.verify import verify

    if not os.path.isfile(script):
        click.echo(f"pipelint profile: no such script: {script}", err=True)
        sys.exit(2)
    quiet = not sys.stderr.isatty()

    def progress(msg: str) -> None:
        if not quiet:
            click.echo(f"pipelint verify: {msg}", err=True)
    report, section = verify(script, args, steps=steps, rounds=rounds, unsafe_fixes=unsafe_fixes,
                             progress=progress)
    report["verification"] = section
    for cand in section.get("candidates", []):  # each suggestion also carries its own result
        for s in report.get("suggestions") or []:
            if (s.get("code"), s.get("action")) == (cand.get("code"), cand.get("action")) and "verification" not in s:
                s["verification"] = {"measured_speedup": cand["measured_speedup"],
                                     "spread": [cand["measured_min"], cand["measured_max"]]
                                     if cand["measured_min"] is not None else None,
                                     "predicted": cand["expected_speedup"], "status": cand["status"]}
                break
    emit(report, out=sys.stderr, json_path=json_path, html_path=html_path)
    sys.exit(2 if section.get("error") else 0)


def main() -> None:  # `python -m pipelint.profiler`
    profile_command(prog_name="pipelint profile")


@click.command("profile-merge")
@click.argument("reports", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write the merged view as JSON.")
def profile_merge_command(reports, json_path) -> None:
    """Combine the JSON reports of a multi-worker job's workers into one view (no TensorFlow)."""
    from pipelint.profiler.measure.merge import MergeError, load, merge, render_text

    try:
        merged = merge(load(list(reports)))
    except MergeError as exc:
        click.echo(f"pipelint profile-merge: {exc}", err=True)
        sys.exit(2)
    click.echo(render_text(merged))
    if json_path:
        with open(json_path, "w", encoding="utf-8") as fh:
            json.dump(merged, fh, indent=1)


@click.command("profile-diff")
@click.argument("before", type=click.Path(dir_okay=False))
@click.argument("after", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help="text for a terminal, markdown for a pull request, json for tools.")
def profile_diff_command(before, after, fmt) -> None:
    """Compare two probe reports (JSON): step time, input wait, verdict and each stage side by side.

    Exit codes: 0 compared, 2 a report cannot be read (one line on stderr). No TensorFlow."""
    from pipelint.profiler.output.diff import MergeError, diff, load_pair, render

    try:
        b, a = load_pair(before, after)
    except MergeError as exc:
        click.echo(f"pipelint profile-diff: {exc}", err=True)
        sys.exit(2)
    click.echo(render(diff(b, a, before, after), fmt), nl=False)
