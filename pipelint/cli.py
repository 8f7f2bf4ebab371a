"""Command line: `pipelint check`, `pipelint rules`, `pipelint rule CODE`, `pipelint server`, `pipelint profile`.

Exit codes (as ruff): 0 no findings shown, 1 findings shown (or a non-empty `--diff`), 2 usage, configuration
or internal error (including a path that does not exist, reported after the rest is checked).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from pipelint import __version__
from pipelint.reporters import FORMATS as OUTPUT_FORMATS

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(values: tuple[str, ...]) -> tuple[str, ...]:
    """`--select PL101,PL2 --select PL3` -> ('PL101', 'PL2', 'PL3')."""
    return tuple(part.strip().upper() for value in values for part in value.split(",") if part.strip())


def _patterns(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def _use_color(output_file: str | None) -> bool:
    if output_file or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def _fail(message: str) -> None:
    click.echo(f"pipelint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


class _LazyGroup(click.Group):
    """A group whose heavier commands are imported only when named (or listed by --help), so that
    `pipelint check` answered from the cache loads neither the probe's command line nor its
    dependencies."""

    #: command name -> "module:attribute"
    lazy = {
        "profile": "pipelint.profiler.run.cli:profile_command",
        "profile-merge": "pipelint.profiler.run.cli:profile_merge_command",
        "profile-diff": "pipelint.profiler.run.cli:profile_diff_command",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *(n for n in self.lazy if self.get_command(ctx, n))})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy and name not in self.commands:
            module, attribute = self.lazy[name].split(":")
            try:
                from importlib import import_module

                self.add_command(getattr(import_module(module), attribute), name)
            except ImportError:  # the profiler package is optional at import time
                return None
        return super().get_command(ctx, name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pipelint")
def main() -> None:
    """Find what makes TensorFlow/Keras input pipelines slow or wrong."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (replaces the configured set). ALL for every rule.")
@click.option("--extend-select", multiple=True, help="Rule codes or prefixes to enable on top of the configured set.")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--exclude", multiple=True, help="Globs to exclude (replaces the defaults and configured excludes).")
@click.option("--extend-exclude", multiple=True, help="Globs to exclude on top of the defaults.")
@click.option("--extend-include", multiple=True, help="Globs of more files to check besides *.py, *.pyi, *.ipynb.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files passed explicitly too (for pre-commit).")
@click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default="full", show_default=True)
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, writable=True), help="Write the report to a file.")
@click.option("--statistics", is_flag=True, help="Print counts per rule instead of each finding.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings are reported.")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply unsafe fixes (with --fix or --diff).")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff instead of writing them.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache.")
@click.option("--stdin-filename", help="Read the source from stdin (PATHS empty or `-`) and check it as this "
              "file: its config and per-file-ignores apply. With --fix, print the fixed source.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary.")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Use this pyproject.toml or pipelint.toml for every file.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: all cores).")
@click.option("--target-version", help="The TensorFlow release the code targets (\"2.4\", \"tf2.15+keras3\"); "
              "default: inferred per file from the closest requirements file, setup.py, Dockerfile... or its API.")
@click.option("--show-migrations", is_flag=True, help="Also report breaks-on-upgrade findings: code that works on "
              "its target TensorFlow/Keras and fails on a newer one (by default only counted in the summary).")
@click.option("--show-housekeeping", is_flag=True, help="Also report housekeeping findings: deprecated names that "
              "still work on the target (by default only counted in the summary).")
@click.option("--show-minor-speed", is_flag=True, help="Also report minor speed findings: stages with no evidence "
              "of cost (data in memory, records only parsed) or data only evaluated (by default only counted).")
@click.option("--show-minor-correctness", is_flag=True, help="Also report minor correctness findings: an effect "
              "on what the model sees too small to matter (a few examples mixed at epoch boundaries; by default "
              "only counted).")
@click.option("--show-settings", is_flag=True, help="Print each file's configuration and target TensorFlow/Keras "
              "(and where it was found), then exit.")
def check(paths, select, extend_select, ignore, exclude, extend_exclude, extend_include, force_exclude, output_format,
          output_file, statistics, exit_zero, fix, unsafe_fixes, diff, no_cache, stdin_filename, quiet,
          config_path, jobs, target_version, show_migrations, show_housekeeping, show_minor_speed,
          show_minor_correctness, show_settings) -> None:
    """Check Python files and Jupyter notebooks under PATHS (default: the current directory; `-`: stdin)."""
    from pipelint.config import CliOverrides, ConfigError, SettingsResolver
    from pipelint.discovery import discover
    from pipelint.reporters import render, render_statistics
    from pipelint.results import FixMode, shown_findings

    from_stdin = paths == ("-",) or (stdin_filename is not None and not paths)
    if ("-" in paths or stdin_filename is not None) and not from_stdin:
        _fail("stdin (`-` or --stdin-filename) cannot be combined with other paths")

    if config_path is not None and not config_path.is_file():
        _fail(f"config file not found: {config_path}")
    overrides = CliOverrides(
        select=_codes(select) or None,
        extend_select=_codes(extend_select),
        ignore=_codes(ignore),
        exclude=_patterns(exclude) or None,
        extend_exclude=_patterns(extend_exclude),
        extend_include=_patterns(extend_include),
        target_version=target_version,
        show_migrations=show_migrations,
        show_housekeeping=show_housekeeping,
        show_minor_speed=show_minor_speed,
        show_minor_correctness=show_minor_correctness,
    )
    fix_mode = FixMode(enabled=fix or diff, include_unsafe=unsafe_fixes)
    errors: list[str] = []
    stdin_data: bytes | None = None
    try:
        resolver = SettingsResolver(overrides, config_path=config_path)
        if from_stdin:
            stdin_data = click.get_binary_stream("stdin").read()
            results = _check_stdin(stdin_data, stdin_filename, resolver, fix_mode, force_exclude)
        else:
            found = discover(list(paths) or ["."], resolver, force_exclude=force_exclude)
            errors = found.errors
            if show_settings:
                _show_settings(found.files, resolver)
                for message in errors:
                    click.echo(f"pipelint: error: {message}", err=True)
                sys.exit(EXIT_ERROR if errors else EXIT_CLEAN)
            results = _check_files(found.files, resolver, jobs, fix_mode, no_cache)
    except ConfigError as error:
        _fail(str(error))
    for message in errors:
        click.echo(f"pipelint: error: {message}", err=True)

    diff_text = []
    fixed_count = 0
    for result in results:
        if result.fixed_source is None:
            continue
        fixed_count += result.fixes_applied
        if diff:
            diff_text.extend(_unified_diff(result))
        elif not from_stdin:
            _write_fixed(result)
    # Findings left out (migrations, housekeeping) are counted in the summary and fail nothing.
    diagnostics, left_out = shown_findings(results, resolver)
    if from_stdin and fix and not diff:
        # As ruff: the (fixed) source goes to stdout for the editor, the findings left to stderr.
        _emit_source(results, stdin_data)
        output_to_stderr = output_file is None
    else:
        output_to_stderr = False

    color = _use_color(output_file)
    if diff:
        text = "".join(diff_text)
        if not quiet:
            text += f"\nWould fix {fixed_count} finding{'s' if fixed_count != 1 else ''}.\n"
    elif statistics:
        text = render_statistics(diagnostics, color=color)
    else:
        text = render(diagnostics, output_format, color=color, files_checked=len(results), left_out=left_out)
        if quiet and output_format in ("full", "concise"):
            text = "\n".join(line for line in text.splitlines()
                             if not line.startswith(("Found ", "All checks passed")) and " not shown: --show-" not in line)
        if fix and fixed_count and output_format in ("full", "concise") and not quiet:
            text += f"\nFixed {fixed_count} finding{'s' if fixed_count != 1 else ''}."
    _emit(text, output_file, err=output_to_stderr)

    if errors or any(d.code == "PL000" for d in diagnostics):
        sys.exit(EXIT_ERROR)
    if exit_zero:
        sys.exit(EXIT_CLEAN)
    if diff:
        sys.exit(EXIT_FINDINGS if fixed_count else EXIT_CLEAN)
    sys.exit(EXIT_FINDINGS if diagnostics else EXIT_CLEAN)


def _unified_diff(result) -> list[str]:
    """The fix as a unified diff; for a notebook, one per changed cell, named `path:cell N`."""
    import difflib

    if not result.changed_cells:
        return list(difflib.unified_diff(
            result.original_source.splitlines(keepends=True),
            result.fixed_source.splitlines(keepends=True),
            fromfile=f"a/{result.path}", tofile=f"b/{result.path}"))

    def lines(text: str) -> list[str]:
        found = text.splitlines(keepends=True)
        if found and not found[-1].endswith(("\n", "\r")):
            found[-1] += "\n"  # a cell's last line has no line end; the diff still needs one
        return found

    out: list[str] = []
    for number, old, new in result.changed_cells:
        out.extend(difflib.unified_diff(lines(old), lines(new), fromfile=f"a/{result.path}:cell {number}",
                                        tofile=f"b/{result.path}:cell {number}"))
    return out


def _show_settings(files, resolver) -> None:
    """One line per file: its configuration file and the TensorFlow/Keras it targets, with where
    that came from (as ruff's --show-settings, per file since pipelint infers the target per file)."""
    from pipelint.project import ProjectIndex
    from pipelint.project.context import ProjectContext
    from pipelint.results import display_path

    # The project's modules, as `check` reads them: a module's importers show its Keras too.
    project = ProjectContext(ProjectIndex.build(list(files)))
    for path in files:
        settings = resolver.for_path(path)
        try:
            source = Path(path).read_bytes().decode("utf-8", "replace")
        except OSError as error:
            click.echo(f"{display_path(Path(path), resolver.cwd)}: unreadable: {error.strerror or error}")
            continue
        source, own = _code_of(path, source)
        config = display_path(settings.config_path, resolver.cwd) if settings.config_path else "(defaults)"
        enabled = len(settings.enabled_codes(Path(path)))
        view = project.view(path)
        target = settings.target_for(path, source, view.api_evidence() if view is not None else (), own)
        click.echo(f"{display_path(Path(path), resolver.cwd)}: {target.describe()}; "
                   f"config {config}, {enabled} codes enabled")


def _code_of(path, text: str) -> tuple[str, str | None]:
    """A notebook's code cells joined and its API evidence, as `check` reads its target from them;
    a file's own text (its evidence read from it)."""
    from pipelint.notebook import (NotebookError, build_program, is_notebook_path, notebook_api_evidence,
                                   parse_notebook)

    if not is_notebook_path(path):
        return text, None
    try:
        notebook = parse_notebook(text)
        code = build_program(notebook).text
    except NotebookError:
        return text, None
    return code, notebook_api_evidence(notebook, code)


def _check_files(files, resolver, jobs, fix_mode, no_cache: bool) -> list:
    """Check files through the result cache (unless `--no-cache`): libcst loads only on a miss."""
    from pipelint.cache import ResultCache, check_with_cache, resolve_cache_dir

    if no_cache:
        from pipelint.engine import check_files

        return check_files(files, resolver, jobs=jobs, fix_mode=fix_mode)
    cache = ResultCache(resolve_cache_dir(resolver.for_directory(resolver.cwd), resolver.cwd))
    results = check_with_cache(files, resolver, cache, jobs=jobs, fix_mode=fix_mode, cwd=resolver.cwd)
    for message in cache.warnings:
        click.echo(f"pipelint: warning: {message}", err=True)
    return results


def _check_stdin(data: bytes, filename: str | None, resolver, fix_mode, force_exclude: bool) -> list:
    """The source on stdin, checked as `filename` would be (its config, its per-file-ignores)."""
    from pipelint.engine import check_file
    from pipelint.results import display_path

    if filename is None:
        path, shown = resolver.cwd / "-", "-"
    else:
        path = Path(filename)
        path = path if path.is_absolute() else resolver.cwd / path
        shown = display_path(path, resolver.cwd)
    settings = resolver.for_path(path)
    if filename is not None and (force_exclude or settings.force_exclude) \
            and settings.is_excluded(path, is_dir=False):
        return []
    result = check_file(path, shown, settings, fix_mode, data=data)
    if result.original_source is not None or result.diagnostics:
        from pipelint.sources import decode_source
        from pipelint.reporters._common import give_source

        try:
            give_source(shown, result.fixed_source if result.fixed_source is not None else decode_source(data))
        except ValueError:
            pass  # undecodable input: reported as PL002, no snippet to show
    return [result]


def _emit_source(results, original: bytes) -> None:
    """Write the fixed source (or the input unchanged) to stdout, byte for byte."""
    data = original
    if results and results[0].fixed_source is not None:
        try:
            data = results[0].fixed_bytes()
        except UnicodeEncodeError:
            click.echo(f"pipelint: error: fixes for {results[0].path} need characters its "
                       f"{results[0].encoding} encoding lacks; source left unchanged", err=True)
    stream = click.get_binary_stream("stdout")
    stream.write(data)
    stream.flush()


def _write_fixed(result) -> None:
    """Write the fixed text back in the file's own encoding, keeping a byte-order mark."""
    target = result.file or Path(result.path)
    try:
        data = result.fixed_bytes()
    except UnicodeEncodeError:
        click.echo(f"pipelint: error: fixes for {result.path} need characters its {result.encoding} "
                   "encoding lacks; not written", err=True)
        return
    try:
        with open(target, "wb") as handle:
            handle.write(data)
    except OSError as error:
        click.echo(f"pipelint: error: cannot write fixes to {result.path}: {error.strerror}", err=True)


def _emit(text: str, output_file: str | None, err: bool = False) -> None:
    if not text:
        return
    if output_file:
        try:
            # backslashreplace: a file name that is not valid UTF-8 must not stop the report
            Path(output_file).write_text(text if text.endswith("\n") else text + "\n",
                                         encoding="utf-8", errors="backslashreplace")
        except OSError as error:
            _fail(f"cannot write {output_file}: {error.strerror}")
    else:
        click.echo(text, nl=not text.endswith("\n"), err=err)


@main.command("clean")
def clean_cache() -> None:
    """Remove the result cache (of this project, and any `.pipelint_cache` below here)."""
    from pipelint.cache import DEFAULT_CACHE_DIR, clean, resolve_cache_dir
    from pipelint.config import CliOverrides, ConfigError, SettingsResolver

    cwd = Path.cwd()
    try:
        resolver = SettingsResolver(CliOverrides(), cwd=cwd)
        candidates = [resolve_cache_dir(resolver.for_directory(cwd), cwd)]
    except ConfigError as error:
        _fail(str(error))
    for directory, subdirectories, _ in os.walk(cwd):
        if DEFAULT_CACHE_DIR in subdirectories:
            candidates.append(Path(directory) / DEFAULT_CACHE_DIR)
        subdirectories[:] = [d for d in subdirectories if not d.startswith(".") and d != "node_modules"]
    removed = clean(list(dict.fromkeys(candidates)))
    for directory in removed:
        click.echo(f"Removed cache at {directory}")
    if not removed:
        click.echo("No cache to remove.")


@main.command("rules")
@click.option("--output-format", type=click.Choice(("text", "json")), default="text", show_default=True)
def list_rules(output_format: str) -> None:
    """List every rule: code, name, severity, impact, whether it is on by default and fixable."""
    import json

    from pipelint.rules import all_rules

    rows = []
    for code, rule in all_rules().items():
        rows.append({
            "code": code, "name": rule.name, "severity": rule.severity.value, "impact": rule.impact.value,
            "default": rule.default_enabled,
            "fix": rule.fixable.value if rule.fixable else None, "summary": rule.summary,
        })
    if output_format == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo(f"{'code':<6}  {'name':<34}  {'severity':<8}  {'impact':<17}  {'default':<7}  fix")
    for row in rows:
        click.echo(f"{row['code']:<6}  {row['name']:<34}  {row['severity']:<8}  {row['impact']:<17}  "
                   f"{'on' if row['default'] else 'off':<7}  {row['fix'] or '-'}")


@main.command("rule")
@click.argument("code")
def show_rule(code: str) -> None:
    """Print the full documentation of one rule (by code or name)."""
    from pipelint.rules import all_rules

    wanted = code.strip()
    for rule in all_rules().values():
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            fix = f"{rule.fixable.value} fix available" if rule.fixable else "no automatic fix"
            default = "on by default" if rule.default_enabled else "off by default (select it to enable)"
            click.echo(f"# {rule.name} ({rule.code})\n")
            click.echo(f"{rule.summary}\n")
            click.echo(f"Severity: {rule.severity.value}. Impact: {rule.impact.value}. {fix.capitalize()}. "
                       f"{default.capitalize()}.\n")
            if rule.options:
                click.echo("Options (under [tool.pipelint.rules." + rule.code + "]):")
                for name, option in rule.options.items():
                    click.echo(f"  {name} ({option.type.__name__}, default {option.default!r}): {option.description}")
                click.echo("")
            click.echo(rule.docs.rstrip())
            return
    _fail(f"unknown rule code: {code} (see `pipelint rules`)")


@main.command("server")
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default and only transport; "
              "accepted because editors pass it).")
def language_server(stdio: bool) -> None:
    """Run the language server (LSP) on stdin/stdout, for editors: diagnostics as you type, fixes,
    hover docs, notebooks. Needs the `server` extra: pip install "pipelint[server]"."""
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError as error:
        _fail(f"`pipelint server` needs {error.name}: pip install \"pipelint[server]\"")
    from pipelint.server import serve

    serve()
