"""Wall-clock speed of `pipelint check`, cold and warm (result cache), next to ruff and Fixit, in one run.

Fixit (`fixit lint`) is the closest peer: also built on libcst, every rule in one traversal per
file, a process pool; it has no result cache. ruff (`--select ALL`) is the speed reference, with
and without its cache. For each corpus every variant below runs as a subprocess, alternating
(variant 1, 2, ..., 1, 2, ...) so that background load hits them alike; the best of N wall-clock
runs of each counts.

Variants (a tool that is not installed is skipped with a note; `pip install fixit ruff`):

* ``pipelint --no-cache``   no cache read or written (the figure before the cache existed)
* ``pipelint cold``         an empty cache directory before each run: checks everything, writes the cache
* ``pipelint warm``         the cache the previous run wrote, nothing changed: every file a hit
* ``ruff --no-cache``, ``ruff cold``, ``ruff warm``   the same for ruff
* ``fixit``                 Fixit's built-in rules

Corpora (found from the installed packages, no import of TensorFlow needed):

* ``keras``       the installed ``keras`` package directory
* ``tensorflow``  the installed ``tensorflow/python`` directory
* ``examples``    this repository's ``examples/``
* any other value of ``--corpus`` is taken as a directory path

Every corpus is first copied (its ``.py`` files only, relative paths kept) into a temporary
directory, so that no tool's default excludes or stray config files hide or change files, and all
tools see exactly the same files. The script checks that: ruff's ``--show-files`` count, the
``tests`` count of one untimed ``pipelint --output-format junit`` run, and Fixit's own "N files
checked" line must all equal the number of copied files (a mismatch is printed as a warning). The
findings of the cold and warm runs of a tool must be identical (else a warning: the cache would
be wrong).

Commands timed (cwd = the temporary directory, CORPUS = the copied corpus; the caches live in
the temporary directory: ``PIPELINT_CACHE_DIR=TMP/_pipelint_cache``, ``--cache-dir TMP/_ruff_cache``):

    python -m pipelint check CORPUS --select ALL --output-format concise --exit-zero -q [--no-cache]
    ruff check --select ALL --exit-zero -q --isolated --output-format concise CORPUS [--no-cache]
    fixit -c TMP/fixit.toml lint CORPUS        # built-in rules: enable = ["fixit.rules"], root = true

Fixit's exit code (0 clean, 1 violations) and its summary line are checked so that a run which
lints nothing cannot pass for a fast one. Fixit is very slow on large corpora: a run longer than
``--fixit-timeout`` is killed, reported as "> T s", and its ratio to pipelint is a lower bound.

Notebook corpus (``notebooks``, on by default): the same Python code linted as ``.py`` files and as
Jupyter notebooks. Every 4th ``.py`` file of the installed ``keras`` package that names TensorFlow
or Keras is copied, and each is also written as a notebook: cells split at top-level statements
(a cell per definition, 20 lines at most otherwise), a markdown cell before each definition, a
shell escape and a line magic in the first cell, and an output on every fifth code cell (a 16 KB
base64 PNG and a line of text, as plotting cells have). pipelint checks both copies, alternating,
best of N, without the result cache (this measures parsing); the lines of code are the same, so the ratio of the two times is the ratio of the cost
per line of code (target: notebooks <= 1.1x ``.py``, i.e. no more cost per line within noise)::

    python -m pipelint check CORPUS_PY  --select ALL --output-format concise --exit-zero -q --no-cache
    python -m pipelint check CORPUS_NB  --select ALL --output-format concise --exit-zero -q --no-cache

Then a single file (``pipelint check FILE``, best of ``--single-repeat``, default 5) is timed with
the same variants, next to ``python -c pass`` with the same interpreter: the start-up floor no
Python tool can go below, which on a loaded machine is itself a large part of 0.1 s.

Targets (reported as met / not met): pipelint warm at most 10% of pipelint cold on every corpus
(the issue names the keras package); a warm single file at most 0.1 s and at most 10x ruff's warm
time on it (both from their caches, alternated), a cold one under 0.3 s;
pipelint (no cache) at least 9x faster than Fixit and within 10x of ruff (no cache).

    python benchmarks/static_speed.py --corpus keras --corpus examples --fixit-repeat 1
    python benchmarks/static_speed.py                                  # keras, tensorflow, examples, notebooks
    python benchmarks/static_speed.py --corpus notebooks --tools pipelint --no-single
    python benchmarks/static_speed.py --corpus tensorflow --repeat 1 --fixit-timeout 900
    python benchmarks/static_speed.py --quick                          # every 10th file: smoke run
    python benchmarks/static_speed.py --json speed.json --markdown speed.md

Wall-clock numbers depend on the cores and on whatever else runs on the machine; the report
prints the core count and the load average before and after each corpus.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOLS = ("pipelint", "fixit", "ruff")
FIXIT_VS_PIPELINT_TARGET = 9.0  # pipelint must be at least this many times faster than Fixit
PIPELINT_VS_RUFF_TARGET = 10.0  # pipelint may be at most this many times slower than ruff
WARM_OVER_COLD_TARGET = 0.10  # a warm run at most this fraction of a cold one
SINGLE_FILE_TARGET_S = 0.3
SINGLE_FILE_WARM_TARGET_S = 0.1
SINGLE_FILE_WARM_VS_RUFF_TARGET = 10.0  # one warm file: pipelint at most this many times ruff's warm time
NOTEBOOK_VS_PY_TARGET = 1.1  # notebooks may cost at most this much more per line of code than .py

FIXIT_TOML = """\
# Written by benchmarks/static_speed.py: Fixit's built-in rules, no config above this file.
[tool.fixit]
root = true
enable = ["fixit.rules"]
"""

# A realistic training script, used for the single-file timing when examples/ has none.
GENERATED_SCRIPT = '''\
"""Train a small image classifier from a directory of JPEGs."""
import argparse

import tensorflow as tf
from tensorflow import keras

AUTOTUNE = tf.data.AUTOTUNE


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/train/*.jpg")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=64)
    return parser.parse_args()


def decode(path):
    label = tf.strings.to_number(tf.strings.split(path, "_")[-2])
    image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    image = tf.image.resize(image, (224, 224)) / 255.0
    return image, label


def augment(image, label):
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, 0.1)
    return image, label


def make_dataset(pattern, batch_size, training):
    files = tf.data.Dataset.list_files(pattern, shuffle=training)
    ds = files.map(decode)
    ds = ds.cache()
    if training:
        ds = ds.map(augment).shuffle(1000).repeat()
    ds = ds.batch(batch_size)
    return ds


def build_model():
    base = keras.applications.MobileNetV2(include_top=False, input_shape=(224, 224, 3))
    base.trainable = False
    inputs = keras.Input((224, 224, 3))
    x = base(inputs, training=False)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(10)(x)
    return keras.Model(inputs, outputs)


def main():
    args = parse_args()
    train = make_dataset(args.data, args.batch_size, training=True)
    val = make_dataset(args.data.replace("train", "val"), args.batch_size, training=False)
    model = build_model()
    model.compile(
        optimizer=keras.optimizers.Adam(1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(train, validation_data=val, epochs=args.epochs, steps_per_epoch=200)
    model.save("model.keras")


if __name__ == "__main__":
    main()
'''

_FIXIT_SUMMARY = re.compile(r"(\d+) files? (?:checked|clean)")
_FIXIT_FINDING = re.compile(r"^\S.*@\d+:\d+ ", re.MULTILINE)
_CONCISE_FINDING = re.compile(r"^\S.*?:\d+:\d+: ", re.MULTILINE)
_JUNIT_TESTS = re.compile(r'<testsuite\b[^>]*\btests="(\d+)"')


# --------------------------------------------------------------------------------------------
# corpora


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)  # locates the package without importing it
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def locate_corpus(name: str) -> Path:
    if name == "keras":
        found = _package_dir("keras")
    elif name in ("tensorflow", "tf", "tensorflow/python"):
        base = _package_dir("tensorflow")
        found = base / "python" if base else None
    elif name == "examples":
        found = REPO / "examples"
    else:
        found = Path(name)
    if found is None or not found.is_dir():
        raise SystemExit(f"corpus {name!r}: no such directory (is the package installed?)")
    return found


def corpus_label(name: str) -> str:
    if name in ("tensorflow", "tf", "tensorflow/python"):
        return "tensorflow/python"
    if name in ("keras", "examples"):
        return name
    return Path(name).name or name


def python_files(root: Path) -> list[Path]:
    """Relative paths of the .py files under root, sorted; caches and hidden dirs skipped."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        for fn in filenames:
            if fn.endswith(".py"):
                out.append(Path(dirpath, fn).relative_to(root))
    out.sort(key=lambda p: p.as_posix())
    return out


def copy_corpus(src: Path, dest: Path, every: int) -> tuple[int, int, int]:
    """Copy every `every`-th .py file of src (sorted order) into dest; return files, lines, bytes."""
    files = python_files(src)[::every]
    lines = size = 0
    for rel in files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        data = (src / rel).read_bytes()
        target.write_bytes(data)
        lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        size += len(data)
    return len(files), lines, size


# --------------------------------------------------------------------------------------------
# running the tools


def _exe(name: str) -> list[str]:
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return [str(beside)]
    found = shutil.which(name)
    if found:
        return [found]
    return [sys.executable, "-m", name]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    env["PYTHONWARNINGS"] = "ignore"
    # As after `pip install`, which compiles every module: without bytecode each Python tool run
    # would recompile its own modules first (some shells and CI images set this variable).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


@dataclass
class Run:
    seconds: float
    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def run_timed(cmd: list[str], cwd: Path, timeout: float, outdir: Path, tag: str,
              env: dict[str, str] | None = None) -> Run:
    """Run cmd with stdout/stderr to files (so that output size does not distort the pipe)."""
    out_path, err_path = outdir / f"{tag}.out", outdir / f"{tag}.err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                env={**_env(), **(env or {})}, start_new_session=True)
        try:
            code: int | None = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
            try:  # the tool's own process group: its worker processes go with it
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
        seconds = time.perf_counter() - start
    return Run(seconds, code,
               out_path.read_text(errors="replace"), err_path.read_text(errors="replace"))



def installed(tool: str) -> bool:
    if tool == "pipelint":
        return True
    if (Path(sys.executable).parent / tool).exists() or shutil.which(tool):
        return True
    return importlib.util.find_spec(tool) is not None


# --------------------------------------------------------------------------------------------
# variants: a tool with a cache mode


@dataclass
class Variant:
    label: str  # "pipelint warm"
    tool: str
    mode: str  # "no-cache", "cold", "warm", or "" (Fixit: no cache)
    command: list[str]
    env: dict[str, str]
    cache_dir: Path | None


def variants(tools: list[str], target: str, workdir: Path, modes: list[str]) -> list[Variant]:
    out = []
    for tool in tools:
        if tool == "fixit":
            out.append(Variant("fixit", tool, "", [*_exe("fixit"), "-c", str(workdir / "fixit.toml"),
                                                   "lint", target], {}, None))
            continue
        for mode in modes:
            label = f"{tool} {'--no-cache' if mode == 'no-cache' else mode}"
            flags = ["--no-cache"] if mode == "no-cache" else []
            if tool == "pipelint":
                cache_dir = workdir / "_pipelint_cache"
                cmd = [sys.executable, "-m", "pipelint", "check", target, "--select", "ALL",
                       "--output-format", "concise", "--exit-zero", "-q", *flags]
                env = {"PIPELINT_CACHE_DIR": str(cache_dir)}
            else:
                cache_dir = workdir / "_ruff_cache"
                cmd = [*_exe("ruff"), "check", "--select", "ALL", "--exit-zero", "-q", "--isolated",
                       "--output-format", "concise", *flags,
                       *([] if mode == "no-cache" else ["--cache-dir", str(cache_dir)]), target]
                env = {}
            out.append(Variant(label, tool, mode, cmd, env, None if mode == "no-cache" else cache_dir))
    return out


def prepare(variant: Variant, workdir: Path, timeout: float, outdir: Path) -> None:
    """Untimed: empty the cache before a cold run; make sure one exists before a warm run."""
    if variant.cache_dir is None:
        return
    if variant.mode == "cold":
        shutil.rmtree(variant.cache_dir, ignore_errors=True)
    elif variant.mode == "warm" and not variant.cache_dir.exists():
        run_timed(variant.command, workdir, timeout, outdir, "prime", variant.env)


def count_findings(tool: str, stdout: str) -> int:
    if tool == "fixit":
        return len(_FIXIT_FINDING.findall(stdout))
    return len(_CONCISE_FINDING.findall(stdout))


@dataclass
class ToolResult:
    label: str
    tool: str
    mode: str
    command: list[str]
    runs: list[float] = field(default_factory=list)  # seconds of the completed runs
    timed_out: bool = False  # some run hit the timeout
    timeout_s: float | None = None
    skipped_runs: int = 0
    findings: int | None = None
    output: str | None = field(default=None, repr=False)  # findings text of the last run
    files_seen: int | None = None  # how many files the tool says it checked
    returncodes: list[int | None] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def best(self) -> float | None:
        return min(self.runs) if self.runs else None

    @property
    def lower_bound(self) -> float | None:
        """Seconds known to be <= the true time: the best run, else the timeout."""
        if self.runs:
            return min(self.runs)
        return self.timeout_s if self.timed_out else None

    def shown(self) -> str:
        if self.best is not None:
            return f"{self.best:.2f}" if self.best >= 0.1 else f"{self.best:.3f}"
        if self.timed_out:
            return f"> {self.timeout_s:.0f}"
        return "n/a"


def _ratio(numerator: ToolResult | None, denominator: ToolResult | None) -> float | None:
    if not numerator or not denominator or numerator.best is None or denominator.best is None:
        return None
    return numerator.best / denominator.best


@dataclass
class CorpusResult:
    name: str
    source: str
    files: int
    lines: int
    sample_every: int
    tools: dict[str, ToolResult] = field(default_factory=dict)
    verified: dict[str, int | None] = field(default_factory=dict)
    load_before: tuple[float, float, float] | None = None
    load_after: tuple[float, float, float] | None = None

    def fixit_ratio(self) -> tuple[float | None, bool]:
        """Fixit seconds / pipelint (no cache) seconds; True when only a lower bound."""
        p, f = self.tools.get("pipelint --no-cache"), self.tools.get("fixit")
        if not p or not f or p.best is None or f.lower_bound is None:
            return None, False
        return f.lower_bound / p.best, f.best is None

    def ruff_ratio(self) -> float | None:
        return _ratio(self.tools.get("pipelint --no-cache"), self.tools.get("ruff --no-cache"))

    def warm_ratio(self, tool: str = "pipelint") -> float | None:
        return _ratio(self.tools.get(f"{tool} warm"), self.tools.get(f"{tool} cold"))


def verify_file_counts(workdir: Path, target: str, tools: list[str], timeout: float,
                       outdir: Path) -> dict[str, int | None]:
    """Untimed: how many files pipelint and ruff discover under target."""
    seen: dict[str, int | None] = {}
    if "ruff" in tools:
        cmd = [*_exe("ruff"), "check", "--isolated", "--no-cache", "--show-files", target]
        run = run_timed(cmd, workdir, timeout, outdir, f"verify-ruff-{target}")
        seen["ruff"] = sum(1 for line in run.stdout.splitlines() if line.strip().endswith(".py"))
    if "pipelint" in tools:
        cmd = [sys.executable, "-m", "pipelint", "check", target, "--select", "ALL", "--no-cache",
               "--output-format", "junit", "--exit-zero", "-q"]
        run = run_timed(cmd, workdir, timeout, outdir, f"verify-pipelint-{target}")
        match = _JUNIT_TESTS.search(run.stdout)
        seen["pipelint"] = int(match.group(1)) if match else None
    return seen


def _timed_loop(result_tools: dict[str, ToolResult], chosen: list[Variant], repeat: int,
                fixit_repeat: int, cwd: Path, outdir: Path, tag: str, files: int | None, log,
                verbose: bool) -> None:
    for i in range(repeat):
        for variant in chosen:
            res = result_tools[variant.label]
            if variant.tool == "fixit" and (res.timed_out or i >= fixit_repeat):
                res.skipped_runs += 1
                continue
            prepare(variant, cwd, res.timeout_s or 900, outdir)
            name = re.sub(r"[^A-Za-z0-9_.-]+", "_", variant.label)
            run = run_timed(variant.command, cwd, res.timeout_s or 900, outdir, f"{tag}-{name}", variant.env)
            res.returncodes.append(run.returncode)
            if run.timed_out:
                res.timed_out = True
                log(f"   {variant.label:20} run {i + 1}: > {res.timeout_s:.0f} s (killed at the timeout)")
                continue
            status = ""
            if run.returncode not in (0, 1):
                tail = (run.stderr.strip().splitlines() or ["(no stderr)"])[-1]
                res.problems.append(f"exit {run.returncode}: {tail[:200]}")
                status = f"  EXIT {run.returncode}: {tail[:120]}"
            res.runs.append(run.seconds)
            res.findings = count_findings(variant.tool, run.stdout)
            res.output = run.stdout
            if variant.tool == "fixit" and files is not None:
                match = _FIXIT_SUMMARY.search(run.stderr)
                res.files_seen = int(match.group(1)) if match else None
                if res.files_seen != files:
                    res.problems.append(f"Fixit reports {res.files_seen} files checked, {files} copied")
                    status += f"  WARNING: Fixit checked {res.files_seen} of {files} files"
            if verbose:
                log(f"   {variant.label:20} run {i + 1}: {run.seconds:8.3f} s  ({res.findings} findings){status}")
    # A cache must never change what is reported.
    for tool in ("pipelint", "ruff"):
        outputs = {label: r.output for label, r in result_tools.items() if r.tool == tool and r.output is not None}
        if len(set(outputs.values())) > 1:
            problem = f"{tool}: findings differ between " + ", ".join(sorted(outputs))
            for label in outputs:
                result_tools[label].problems.append(problem)
            log(f"   WARNING: {problem}")


def bench_corpus(name: str, source: Path, workdir: Path, args: argparse.Namespace,
                 log) -> CorpusResult:
    label = corpus_label(name)
    target = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)
    dest = workdir / target
    outdir = workdir / "_out"
    outdir.mkdir(exist_ok=True)
    files, lines, _ = copy_corpus(source, dest, args.sample_every)
    result = CorpusResult(label, str(source), files, lines, args.sample_every)
    log(f"\n== {label}: {files} files, {lines} lines"
        + (f" (every {args.sample_every}th file of {source})" if args.sample_every > 1
           else f" (copied from {source})"))
    if files == 0:
        log("   no .py files: skipped")
        return result
    result.load_before = os.getloadavg()
    if not args.no_verify:
        result.verified = verify_file_counts(workdir, target, args.tools, args.timeout, outdir)
        for tool, seen in result.verified.items():
            if seen != files:
                log(f"   WARNING: {tool} discovers {seen} files, {files} were copied")
    chosen = variants(args.tools, target, workdir, args.modes)
    for variant in chosen:
        timeout = args.fixit_timeout if variant.tool == "fixit" else args.timeout
        result.tools[variant.label] = ToolResult(variant.label, variant.tool, variant.mode,
                                                 variant.command, timeout_s=timeout)
    _timed_loop(result.tools, chosen, args.repeat, args.fixit_repeat, workdir, outdir, target, files,
                log, verbose=True)
    result.load_after = os.getloadavg()
    return result


# --------------------------------------------------------------------------------------------
# notebooks: the same code as .py files and as notebooks

_PNG_16K = "iVBORw0KGgoAAAANSUhEUgAA" + "A" * (16 * 1024 - 24)


def to_notebook(source: str) -> dict:
    """The module as an nbformat 4 notebook: a cell per top-level definition (or per 20 lines of
    other statements), markdown before each definition, IPython syntax and outputs as notebooks
    have them. Returns the notebook as a dict."""
    import ast

    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    starts = []
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        definition = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if not starts or definition or first - starts[-1][0] >= 20 or starts[-1][1]:
            starts.append((first, definition, getattr(node, "name", "")))
    cells: list[dict] = []
    code_cells = 0
    for index, (first, definition, name) in enumerate(starts):
        end = starts[index + 1][0] - 1 if index + 1 < len(starts) else len(lines)
        body = lines[(0 if index == 0 else first - 1):end]
        if index == 0:
            body = ["!pip install -q keras\n", "%matplotlib inline\n"] + body
        if definition:
            cells.append({"cell_type": "markdown", "metadata": {}, "source": [f"## `{name}`"]})
        code_cells += 1
        outputs = []
        if code_cells % 5 == 0:
            outputs = [{"output_type": "display_data", "metadata": {},
                        "data": {"image/png": _PNG_16K, "text/plain": ["<Figure size 640x480 with 1 Axes>"]}},
                       {"output_type": "stream", "name": "stdout", "text": ["done\n"]}]
        cells.append({"cell_type": "code", "execution_count": code_cells, "metadata": {},
                      "outputs": outputs, "source": body})
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 4,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}}}


@dataclass
class NotebookResult:
    files: int
    lines: int  # lines of code, the same in both copies
    notebook_bytes: int
    py: ToolResult | None = None
    notebooks: ToolResult | None = None

    def ratio(self) -> float | None:
        if not self.py or not self.notebooks or self.py.best is None or self.notebooks.best is None:
            return None
        return self.notebooks.best / self.py.best


def bench_notebooks(workdir: Path, args: argparse.Namespace, log) -> NotebookResult:
    source = locate_corpus("keras")
    every = max(4, args.sample_every)
    py_dir, nb_dir = workdir / "nb_py", workdir / "nb_ipynb"
    files = lines = size = 0
    for rel in python_files(source)[::every]:
        text = (source / rel).read_text(encoding="utf-8", errors="replace")
        if not re.search(r"\b(?:tensorflow|keras|tf)\b", text):
            continue
        try:
            notebook = to_notebook(text)
        except (SyntaxError, ValueError):
            continue
        (py_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (py_dir / rel).write_text(text, encoding="utf-8")
        data = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        (nb_dir / rel).with_suffix(".ipynb").parent.mkdir(parents=True, exist_ok=True)
        (nb_dir / rel).with_suffix(".ipynb").write_text(data, encoding="utf-8")
        files += 1
        lines += text.count("\n")
        size += len(data.encode())
    result = NotebookResult(files, lines, size)
    log(f"\n== notebooks: the same {files} files ({lines} lines of code) of {source} (every {every}th "
        f"naming TF/Keras) as .py and as .ipynb ({size / 1e6:.1f} MB of notebook JSON)")
    outdir = workdir / "_out"
    outdir.mkdir(exist_ok=True)
    def pipelint(target: str) -> list[str]:
        return [sys.executable, "-m", "pipelint", "check", target, "--select", "ALL",
                "--output-format", "concise", "--exit-zero", "-q", "--no-cache"]

    result.py = ToolResult("pipelint .py", "pipelint", "no-cache", pipelint("nb_py"), timeout_s=args.timeout)
    result.notebooks = ToolResult("pipelint .ipynb", "pipelint", "no-cache", pipelint("nb_ipynb"),
                                  timeout_s=args.timeout)
    for i in range(args.repeat):
        for label, res in ((".py", result.py), (".ipynb", result.notebooks)):
            run = run_timed(res.command, workdir, res.timeout_s, outdir, f"notebooks-{label[1:]}")
            res.returncodes.append(run.returncode)
            if run.timed_out:
                res.timed_out = True
                continue
            if run.returncode not in (0, 1):
                res.problems.append(f"exit {run.returncode}")
            res.runs.append(run.seconds)
            res.findings = count_findings("pipelint", run.stdout)
            log(f"   pipelint {label:7} run {i + 1}: {run.seconds:8.2f} s  ({res.findings} findings)")
    ratio = result.ratio()
    if ratio is not None:
        log(f"   per 1,000 lines of code: .py {1000 * result.py.best / lines:.3f} s, "
            f"notebooks {1000 * result.notebooks.best / lines:.3f} s; notebooks / .py = {ratio:.2f}x "
            f"(target <= {NOTEBOOK_VS_PY_TARGET:g}x: {'met' if ratio <= NOTEBOOK_VS_PY_TARGET else 'NOT met'})")
    return result


# --------------------------------------------------------------------------------------------
# single file


@dataclass
class SingleResult:
    file: str
    lines: int
    tools: dict[str, ToolResult] = field(default_factory=dict)

    def warm_ratio(self, tool: str = "pipelint") -> float | None:
        return _ratio(self.tools.get(f"{tool} warm"), self.tools.get(f"{tool} cold"))

    def warm_vs_ruff(self) -> float | None:
        """pipelint warm / ruff warm: both answered from their caches, side by side."""
        return _ratio(self.tools.get("pipelint warm"), self.tools.get("ruff warm"))


def pick_single_file(args: argparse.Namespace) -> tuple[str, str]:
    """(display name, source text) of the file for the single-file timing."""
    if args.single_file:
        path = Path(args.single_file)
        return str(path), path.read_text()
    preferred = REPO / "examples" / "image_classifier.py"
    if preferred.is_file():
        return "examples/image_classifier.py", preferred.read_text()
    candidates = sorted((REPO / "examples").glob("*.py"), key=lambda p: (-p.stat().st_size, p.name))
    for path in candidates:
        text = path.read_text()
        if "tensorflow" in text or "keras" in text:
            return f"examples/{path.name}", text
    return "(generated training script)", GENERATED_SCRIPT


def bench_single(workdir: Path, args: argparse.Namespace, log) -> SingleResult:
    display, text = pick_single_file(args)
    single_dir = workdir / "_single"
    single_dir.mkdir()
    (single_dir / "train.py").write_text(text)
    outdir = workdir / "_out"
    outdir.mkdir(exist_ok=True)
    result = SingleResult(display, text.count("\n"))
    log(f"\n== single file: {display} ({result.lines} lines), best of {args.single_repeat}")
    # Caches of their own, apart from the corpora's.
    chosen = variants(args.tools, "train.py", single_dir, args.modes)
    (single_dir / "fixit.toml").write_text(FIXIT_TOML)
    # The floor: starting this Python at all (with its site-packages), timed alongside.
    chosen.append(Variant("python -c pass", "python", "", [sys.executable, "-c", "pass"], {}, None))
    for variant in chosen:
        result.tools[variant.label] = ToolResult(variant.label, variant.tool, variant.mode,
                                                 variant.command, timeout_s=args.timeout)
    _timed_loop(result.tools, chosen, args.single_repeat, args.single_repeat, single_dir, outdir,
                "single", None, log, verbose=False)
    for label, res in result.tools.items():
        log(f"   {label:20} {res.shown():>8} s  (runs: "
            + ", ".join(f"{s:.3f}" for s in res.runs) + f"; {res.findings} findings)")
    return result


# --------------------------------------------------------------------------------------------
# report


def _fmt_rate(files: int, res: ToolResult | None) -> str:
    if res is None:
        return "n/a"
    if res.best is not None:
        rate = files / res.best
        return f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"
    if res.timed_out:
        return f"< {files / res.timeout_s:.2g}"
    return "n/a"


def _verdict(met: bool | None) -> str:
    return "n/a" if met is None else ("met" if met else "NOT met")


def markdown(corpora: list[CorpusResult], single: SingleResult | None,
             args: argparse.Namespace) -> str:
    labels = [label for c in corpora for label in c.tools] + (list(single.tools) if single else [])
    labels = list(dict.fromkeys(labels))
    rows = ["| Corpus | Files | Lines | " + " | ".join(labels)
            + f" | pipelint warm / cold (target ≤ {WARM_OVER_COLD_TARGET:.0%}) | ruff warm / cold "
            f"| Fixit / pipelint --no-cache (target ≥ {FIXIT_VS_PIPELINT_TARGET:g}x) "
            f"| pipelint / ruff, --no-cache (target ≤ {PIPELINT_VS_RUFF_TARGET:g}x) |",
            "|---|---:|---:|" + "---:|" * (len(labels) + 4)]
    for c in corpora:
        if not c.tools:
            continue
        cells = [f"{c.tools[label].shown()} s" if label in c.tools else "–" for label in labels]
        warm = c.warm_ratio()
        warm_cell = "n/a" if warm is None else f"{warm:.1%} {_verdict(warm <= WARM_OVER_COLD_TARGET)}"
        ruff_warm = c.warm_ratio("ruff")
        ratio, lower = c.fixit_ratio()
        fixit_cell = "n/a" if ratio is None else (
            f"{'> ' if lower else ''}{ratio:.1f}x "
            + ("met" if ratio >= FIXIT_VS_PIPELINT_TARGET else ("unknown (lower bound)" if lower else "NOT met")))
        rr = c.ruff_ratio()
        ruff_cell = "n/a" if rr is None else f"{rr:.1f}x {_verdict(rr <= PIPELINT_VS_RUFF_TARGET)}"
        name = c.name + (f" (every {c.sample_every}th file)" if c.sample_every > 1 else "")
        rows.append(f"| {name} | {c.files:,} | {c.lines:,} | " + " | ".join(cells)
                    + f" | {warm_cell} | {'n/a' if ruff_warm is None else f'{ruff_warm:.1%}'} "
                    f"| {fixit_cell} | {ruff_cell} |")
    if single is not None:
        cells = [f"{single.tools[label].shown()} s" if label in single.tools else "–" for label in labels]
        warm = single.warm_ratio()
        ruff_warm = single.warm_ratio("ruff")
        rows.append(f"| single file {single.file} | 1 | {single.lines} | " + " | ".join(cells)
                    + f" | {'n/a' if warm is None else f'{warm:.1%}'} "
                    f"| {'n/a' if ruff_warm is None else f'{ruff_warm:.1%}'} | | |")
    out = "\n".join(rows)
    fixit_runs = (f"best of {min(args.repeat, args.fixit_repeat)}"
                  if args.fixit_repeat < args.repeat else f"best of {args.repeat}")
    out += (f"\n\nWall-clock seconds, corpora best of {args.repeat} (Fixit: {fixit_runs}, killed after "
            f"{args.fixit_timeout:g} s; \"> T\" means it was killed and the ratio is a lower bound), "
            f"single file best of {args.single_repeat}; variants alternated; {os.cpu_count()} cores, "
            f"Python {sys.version.split()[0]}.")
    if single is not None:
        warm, cold = single.tools.get("pipelint warm"), single.tools.get("pipelint cold")
        if warm is not None and warm.best is not None:
            out += (f" Single file: pipelint warm {warm.best:.3f} s (target ≤ {SINGLE_FILE_WARM_TARGET_S:g} s: "
                    f"{_verdict(warm.best <= SINGLE_FILE_WARM_TARGET_S)})")
        if cold is not None and cold.best is not None:
            out += (f", cold {cold.best:.3f} s (target < {SINGLE_FILE_TARGET_S:g} s: "
                    f"{_verdict(cold.best < SINGLE_FILE_TARGET_S)}).")
        versus = single.warm_vs_ruff()
        if versus is not None:
            out += (f" Warm single file, pipelint / ruff: {versus:.1f}x (target ≤ {SINGLE_FILE_WARM_VS_RUFF_TARGET:g}x: "
                    f"{_verdict(versus <= SINGLE_FILE_WARM_VS_RUFF_TARGET)}).")
    return out


def versions(tools: list[str]) -> dict[str, str]:
    out = {"python": sys.version.split()[0]}
    for tool, cmd in (("pipelint", [sys.executable, "-m", "pipelint", "--version"]),
                      ("fixit", [*_exe("fixit"), "--version"]),
                      ("ruff", [*_exe("ruff"), "--version"])):
        if tool not in tools:
            continue
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                                  env=_env(), check=False)
            out[tool] = (proc.stdout.strip() or proc.stderr.strip()).splitlines()[-1]
        except (OSError, subprocess.SubprocessError, IndexError) as exc:
            out[tool] = f"unknown ({exc.__class__.__name__})"
    return out


MODES = ("no-cache", "cold", "warm")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", metavar="NAME",
                        help="keras, tensorflow (= tensorflow/python), examples, notebooks (the same "
                             "keras code as .py and .ipynb), or a directory; repeatable "
                             "(default: keras, tensorflow, examples, notebooks)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each variant; the best counts")
    parser.add_argument("--fixit-repeat", type=int, default=None,
                        help="at most this many Fixit runs per corpus (default: --repeat)")
    parser.add_argument("--fixit-timeout", type=float, default=900.0,
                        help="seconds after which a Fixit run is killed (default 900)")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds after which a pipelint or ruff run is killed")
    parser.add_argument("--tools", default=",".join(TOOLS),
                        help="comma-separated subset of pipelint,fixit,ruff")
    parser.add_argument("--modes", default=",".join(MODES),
                        help="comma-separated subset of no-cache,cold,warm (pipelint and ruff)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: every 10th file of each corpus, --repeat 1, "
                             "--single-repeat 2")
    parser.add_argument("--sample-every", type=int, default=None, metavar="K",
                        help="keep every K-th file (sorted paths) of each corpus")
    parser.add_argument("--single-file", help="file for the single-file timing "
                        "(default: examples/image_classifier.py, else a generated script)")
    parser.add_argument("--single-repeat", type=int, default=5)
    parser.add_argument("--no-single", action="store_true", help="skip the single-file timing")
    parser.add_argument("--no-verify", action="store_true",
                        help="skip the untimed file-discovery check of pipelint and ruff")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="also write the Markdown table")
    parser.add_argument("--keep-temp", action="store_true",
                        help="keep the temporary copies and tool outputs")
    args = parser.parse_args(argv)

    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in args.tools if t not in TOOLS]
    if unknown:
        parser.error(f"unknown tool(s): {', '.join(unknown)}")
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if [m for m in args.modes if m not in MODES]:
        parser.error(f"--modes: choose from {', '.join(MODES)}")
    missing = [t for t in args.tools if not installed(t)]
    for tool in missing:
        print(f"note: {tool} is not installed: skipped (pip install {tool})", flush=True)
    args.tools = [t for t in args.tools if t not in missing]
    if args.quick:
        if args.sample_every is None:
            args.sample_every = 10
        if "--repeat" not in " ".join(argv if argv is not None else sys.argv[1:]):
            args.repeat = 1
        args.single_repeat = min(args.single_repeat, 2)
    args.sample_every = max(1, args.sample_every or 1)
    args.repeat = max(1, args.repeat)
    args.fixit_repeat = args.repeat if args.fixit_repeat is None else max(1, args.fixit_repeat)
    names = args.corpus or ["keras", "tensorflow", "examples", "notebooks"]
    sources = [(name, locate_corpus(name)) for name in names if name != "notebooks"]

    def log(msg: str) -> None:
        print(msg, flush=True)

    info = versions(args.tools)
    log("static speed: " + ", ".join(f"{k} {v}" for k, v in info.items()))
    log(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} "
        f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; repeat {args.repeat}, "
        f"Fixit timeout {args.fixit_timeout:g} s")
    workdir = Path(tempfile.mkdtemp(prefix="pipelint-speed-"))
    (workdir / "fixit.toml").write_text(FIXIT_TOML)
    corpora: list[CorpusResult] = []
    single: SingleResult | None = None
    notebooks: NotebookResult | None = None
    try:
        for name, source in sources:
            corpora.append(bench_corpus(name, source, workdir, args, log))
        if "notebooks" in names and "pipelint" in args.tools:
            notebooks = bench_notebooks(workdir, args, log)
        if not args.no_single:
            single = bench_single(workdir, args, log)
    finally:
        if args.keep_temp:
            log(f"\ntemporary copies and outputs kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    log("\n== summary")
    for c in corpora:
        if not c.tools:
            continue
        log(f"{c.name}: {c.files} files, {c.lines} lines; load average "
            f"{c.load_before[0]:.2f} -> {c.load_after[0]:.2f}" if c.load_before and c.load_after
            else f"{c.name}: {c.files} files, {c.lines} lines")
        for label, res in c.tools.items():
            log(f"   {label:20} {res.shown():>9} s  {_fmt_rate(c.files, res):>9} files/s  "
                f"{res.findings if res.findings is not None else '?'} findings"
                + (f"  PROBLEMS: {'; '.join(sorted(set(res.problems)))}" if res.problems else ""))
        warm = c.warm_ratio()
        if warm is not None:
            log(f"   pipelint warm / cold = {warm:.1%} (target <= {WARM_OVER_COLD_TARGET:.0%}: "
                f"{_verdict(warm <= WARM_OVER_COLD_TARGET)})")
        ruff_warm = c.warm_ratio("ruff")
        if ruff_warm is not None:
            log(f"   ruff warm / cold     = {ruff_warm:.1%}")
        ratio, lower = c.fixit_ratio()
        if ratio is not None:
            log(f"   Fixit / pipelint --no-cache = {'> ' if lower else ''}{ratio:.1f}x "
                f"({'lower bound, Fixit timed out; ' if lower else ''}target >= "
                f"{FIXIT_VS_PIPELINT_TARGET:g}x: "
                f"{'met' if ratio >= FIXIT_VS_PIPELINT_TARGET else ('unknown' if lower else 'NOT met')})")
        rr = c.ruff_ratio()
        if rr is not None:
            log(f"   pipelint / ruff, both --no-cache = {rr:.1f}x (target <= {PIPELINT_VS_RUFF_TARGET:g}x: "
                f"{_verdict(rr <= PIPELINT_VS_RUFF_TARGET)})")
    if single is not None:
        for label, target in (("pipelint warm", SINGLE_FILE_WARM_TARGET_S), ("pipelint cold", SINGLE_FILE_TARGET_S)):
            res = single.tools.get(label)
            if res is not None and res.best is not None:
                log(f"single file {single.file}: {label} {res.best:.3f} s (target <= {target:g} s: "
                    f"{_verdict(res.best <= target)})")
        versus = single.warm_vs_ruff()
        if versus is not None:
            log(f"single file {single.file}: pipelint warm / ruff warm = {versus:.1f}x "
                f"(target <= {SINGLE_FILE_WARM_VS_RUFF_TARGET:g}x: {_verdict(versus <= SINGLE_FILE_WARM_VS_RUFF_TARGET)})")

    if notebooks is not None and notebooks.ratio() is not None:
        ratio = notebooks.ratio()
        log(f"notebooks: {notebooks.files} files, {notebooks.lines} lines of code: .py "
            f"{notebooks.py.best:.2f} s, .ipynb {notebooks.notebooks.best:.2f} s; notebooks / .py = "
            f"{ratio:.2f}x per line of code (target <= {NOTEBOOK_VS_PY_TARGET:g}x: "
            f"{'met' if ratio <= NOTEBOOK_VS_PY_TARGET else 'NOT met'})")

    table = markdown(corpora, single, args)
    if notebooks is not None and notebooks.ratio() is not None:
        table += (f"\n\n| Same code as | Files | Lines of code | pipelint | per 1,000 lines |\n"
                  f"|---|---:|---:|---:|---:|\n"
                  f"| `.py` | {notebooks.files} | {notebooks.lines:,} | {notebooks.py.best:.2f} s | "
                  f"{1000 * notebooks.py.best / notebooks.lines:.3f} s |\n"
                  f"| `.ipynb` ({notebooks.notebook_bytes / 1e6:.1f} MB) | {notebooks.files} | "
                  f"{notebooks.lines:,} | {notebooks.notebooks.best:.2f} s | "
                  f"{1000 * notebooks.notebooks.best / notebooks.lines:.3f} s |\n\n"
                  f"Notebooks / `.py` = {notebooks.ratio():.2f}x per line of code (target ≤ "
                  f"{NOTEBOOK_VS_PY_TARGET:g}x: {'met' if notebooks.ratio() <= NOTEBOOK_VS_PY_TARGET else 'not met'}).")
    log("\n" + table)
    log("\ncommands (CORPUS = the copied corpus, run from the temporary directory):")
    for variant in variants(args.tools, "CORPUS", Path("TMP"), args.modes):
        env = " ".join(f"{k}={v}" for k, v in variant.env.items())
        log(f"   {variant.label:20} {env + ' ' if env else ''}{' '.join(variant.command)}")
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")
    if args.json:
        def tools_json(tools: dict[str, ToolResult]) -> dict:
            return {label: {**{k: v for k, v in asdict(r).items() if k != "output"}, "best": r.best}
                    for label, r in tools.items()}

        payload = {
            "versions": info, "cores": os.cpu_count(), "repeat": args.repeat,
            "fixit_repeat": args.fixit_repeat, "fixit_timeout_s": args.fixit_timeout,
            "corpora": [
                {**{k: v for k, v in asdict(c).items() if k != "tools"},
                 "tools": tools_json(c.tools),
                 "pipelint_warm_over_cold": c.warm_ratio(),
                 "ruff_warm_over_cold": c.warm_ratio("ruff"),
                 "fixit_over_pipelint": c.fixit_ratio()[0],
                 "fixit_ratio_is_lower_bound": c.fixit_ratio()[1],
                 "pipelint_over_ruff": c.ruff_ratio()}
                for c in corpora],
            "notebooks": None if notebooks is None else {
                "files": notebooks.files, "lines": notebooks.lines, "notebook_bytes": notebooks.notebook_bytes,
                "py": tools_json({"py": notebooks.py})["py"], "ipynb": tools_json({"ipynb": notebooks.notebooks})["ipynb"],
                "notebooks_over_py": notebooks.ratio()},
            "single_file": None if single is None else {
                "file": single.file, "lines": single.lines, "tools": tools_json(single.tools),
                "pipelint_warm_over_cold": single.warm_ratio(),
                "pipelint_warm_over_ruff_warm": single.warm_vs_ruff()},
        }
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
