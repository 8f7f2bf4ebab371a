"""Jupyter notebooks: discovery, cells, IPython syntax, locations in every format, suppressions,
fixes written back into cells, and bad input."""
from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest

from clirunner import separate_streams_runner
from pipelint.cli import main
from pipelint.api import check_source
from pipelint.engine import FixMode, lint_and_fix_notebook, lint_notebook
from pipelint.notebook import build_program, mask_cell, parse_notebook, raw_position, replace_sources
from pipelint.rules import all_rules
from rule_options import STRICT_PREFETCH, settings_with

ALL = frozenset(all_rules())


def cell(source: str, kind: str = "code", **extra) -> dict:
    entry = {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
    if kind == "code":
        entry.update(execution_count=None, outputs=[])
    entry.update(extra)
    return entry


def md(text: str) -> dict:
    return cell(text, "markdown")


def notebook(*cells: dict, language: str = "python", **metadata) -> str:
    """JSON text as nbformat writes it: 1-space indent, sorted keys, non-ASCII kept, final newline."""
    data = {
        "cells": list(cells),
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": language, "name": "python3"},
                     "language_info": {"name": language}, **metadata},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


IMPORTS = "import tensorflow as tf\n"
SERIAL = "ds = tf.data.Dataset.range(8).map(lambda x: load(x)); list(ds)\n"  # (a dataset nobody reads gets no finding)


def keys(diagnostics) -> set[tuple]:
    return {(d.cell, d.line, d.column, d.code) for d in diagnostics}


def lint(text: str, codes=ALL) -> list:
    return lint_notebook(text, "nb.ipynb", frozenset(codes), None)


def run(*args, cwd: Path | None = None):
    return separate_streams_runner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return tmp_path


# ------------------------------------------------------------------------------------------------
# cells and names


def test_names_flow_across_cells_and_cells_count_markdown():
    text = notebook(
        md("# Title"),
        cell(IMPORTS),
        md("Build the data"),
        cell("def parse(x):\n    return load(x) * 2\n"),
        cell("train = tf.data.Dataset.range(100).map(parse)\ntrain = train.batch(8)\n"),
        md("Train"),
        cell("model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nmodel.compile(loss='mse')\n"),
        cell("model.fit(train, epochs=2)\n"),
    )
    found = keys(lint_notebook(text, "nb.ipynb", frozenset({"PL101", "PL103"}), settings_with(STRICT_PREFETCH)))
    # PL103 (judging every pipeline, as before TF 2.9) needs the `fit` in cell 8 to know that the dataset of cell 5 feeds training.
    assert found == {(5, 1, 36, "PL101"), (5, 2, 15, "PL103")}


def test_a_cell_that_does_not_parse_is_PL001_in_that_cell_and_the_others_are_checked():
    text = notebook(cell(IMPORTS), cell("def broken(:\n    pass\n"), md("x"), cell(SERIAL))
    found = lint(text)
    assert {(d.cell, d.line, d.code) for d in found} == {(2, 1, "PL001"), (4, 1, "PL101")}
    (error,) = [d for d in found if d.code == "PL001"]
    assert "SyntaxError" in error.message


def test_a_cell_that_only_parses_joined_to_the_next_is_an_error():
    # Jupyter runs each cell alone: an open bracket at the end of a cell is a syntax error there.
    text = notebook(cell(IMPORTS), cell("ds = tf.data.Dataset.range(\n"), cell("    8).map(lambda x: load(x))\n"), cell(SERIAL))
    found = keys(lint(text))
    assert {(c, code) for c, _, _, code in found} == {(2, "PL001"), (3, "PL001"), (4, "PL101")}


def test_future_import_in_a_later_cell_does_not_hide_the_notebook():
    text = notebook(cell(IMPORTS), cell("from __future__ import annotations\n"), cell(SERIAL))
    assert (3, 1, 31, "PL101") in keys(lint(text))


def test_no_code_cells_and_empty_cells():
    assert lint(notebook(md("# only prose"), cell("", "raw"))) == []
    assert lint(notebook(cell(""), cell(IMPORTS), cell(""), cell(SERIAL))) and \
        {d.cell for d in lint(notebook(cell(""), cell(IMPORTS), cell(""), cell(SERIAL)))} == {4}


# ------------------------------------------------------------------------------------------------
# IPython syntax


IPYTHON_LINES = [
    "%matplotlib inline",
    "!pip install -q tensorflow-datasets",
    "files = !ls data/*.tfrecord",
    "a, b = %sx ls",
    "tf.data.Dataset.map?",
    "tf.data.Dataset.map??",
    "?tf.data",
    "%load_ext tensorboard",
    "%tensorboard --logdir logs",
    "!echo one \\\n   two",
]


@pytest.mark.parametrize("line", IPYTHON_LINES)
def test_ipython_syntax_is_not_an_error_and_columns_stay(line):
    text = notebook(cell(IMPORTS + line + "\n" + SERIAL))
    extra = line.count("\n")
    assert keys(lint(text)) == {(1, 3 + extra, 31, "PL101")}


def test_ipython_syntax_inside_blocks_and_a_statement_magic_keeps_its_statement():
    source = IMPORTS + (
        "for shard in range(2):\n"
        "    !echo {shard}\n"
        "%time ds = tf.data.Dataset.range(8).map(lambda x: load(x))\n"
        "text = '''\n%not a magic\n'''\n"
        "list(ds)\n"
    )
    found = keys(lint(notebook(cell(source))))
    # `%time stmt` stays Python in place: the finding is at the column Jupyter shows.
    assert found == {(1, 4, 37, "PL101")}


def test_masking_keeps_length_and_touches_no_string_or_operator():
    masked = mask_cell("x = 5 % 3\ny %= 2\nz = a != b  # really?\ns = '''\n!not shell\n'''\n")
    assert masked.text == "x = 5 % 3\ny %= 2\nz = a != b  # really?\ns = '''\n!not shell\n'''\n"
    assert masked.masked == ()
    shell = mask_cell("files = !ls -la\n")
    assert shell.text == "files = _______\n" and len(shell.text) == len("files = !ls -la\n")


@pytest.mark.parametrize("magic", ["%%writefile train.py", "%%bash", "%%html", "%%javascript"])
def test_non_python_cell_magics_are_skipped(magic):
    text = notebook(cell(IMPORTS), cell(magic + "\nds = tf.data.Dataset.range(3).map(f)\nnot python at all (\n"))
    assert lint(text) == []


@pytest.mark.parametrize("magic", ["%%time", "%%timeit -n 1", "%%capture out"])
def test_python_cell_magics_keep_the_rest_of_the_cell(magic):
    text = notebook(cell(IMPORTS), cell(magic + "\n" + SERIAL))
    assert keys(lint(text)) == {(2, 2, 31, "PL101")}


def test_vscode_cells_in_another_language_are_skipped():
    sql = cell("SELECT * FROM t WHERE ds.map(x)", metadata={"vscode": {"languageId": "sql"}})
    assert keys(lint(notebook(cell(IMPORTS), sql, cell(SERIAL)))) == {(3, 1, 31, "PL101")}


def test_notebook_with_a_non_python_kernel_is_skipped_silently(here):
    (here / "r.ipynb").write_text(notebook(cell("library(tensorflow)\nds <- tf$data$Dataset$range(3) %>% map(f)"),
                                           language="R"))
    result = run("check", ".", "--output-format", "concise")
    assert result.exit_code == 0 and "All checks passed" in result.output


# ------------------------------------------------------------------------------------------------
# locations in every format


@pytest.fixture
def nb_project(here):
    (here / "nb.ipynb").write_text(notebook(md("# Intro"), cell(IMPORTS + "%matplotlib inline"), md("more"),
                                            cell("x = 1\n" + SERIAL)))
    (here / "train.py").write_text(IMPORTS + SERIAL)
    return here


def test_text_formats_name_the_cell(nb_project):
    result = run("check", ".", "--select", "PL101", "--output-format", "concise")
    assert result.exit_code == 1
    assert "nb.ipynb:cell 4:2:31: PL101 [*] `map` without" in result.output
    assert "train.py:2:31: PL101" in result.output
    full = run("check", "nb.ipynb", "--select", "PL101").output
    # The snippet is the cell's own line, numbered as in the cell.
    assert "2 | ds = tf.data.Dataset.range(8).map(lambda x: load(x))" in full


def test_json_has_cell_on_every_object(nb_project):
    for fmt in ("json", "json-lines"):
        out = run("check", ".", "--select", "PL101", "--output-format", fmt).output
        items = json.loads(out) if fmt == "json" else [json.loads(line) for line in out.splitlines()]
        by_path = {item["path"]: item for item in items}
        assert by_path["nb.ipynb"]["cell"] == 4 and by_path["nb.ipynb"]["line"] == 2
        assert by_path["train.py"]["cell"] is None
        edit = by_path["nb.ipynb"]["fix"]["edits"][0]
        assert edit["line"] == 2  # edits count lines within the cell too


def _raw_line_holding(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_sarif_and_github_point_into_the_json_file_and_name_the_cell(nb_project):
    raw_line = _raw_line_holding(nb_project / "nb.ipynb", "ds = tf.data.Dataset.range(8).map")
    raw_text = (nb_project / "nb.ipynb").read_text().splitlines()[raw_line - 1]
    sarif = json.loads(run("check", "nb.ipynb", "--select", "PL101", "--output-format", "sarif").output)
    (result,) = sarif["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == raw_line
    assert raw_text[region["startColumn"] - 1:region["endColumn"] - 1] == "map"
    assert result["message"]["text"].startswith("cell 4, line 2: ")
    assert result["properties"] == {"impact": "speed", "cell": 4, "cellLine": 2, "cellColumn": 31}
    github = run("check", "nb.ipynb", "--select", "PL101", "--output-format", "github").output
    assert f"file=nb.ipynb,line={raw_line},col={region['startColumn']}," in github
    assert "title=PL101 (map-without-parallelism) in cell 4::cell 4, line 2: " in github


def test_junit_names_the_cell(nb_project):
    out = run("check", "nb.ipynb", "--select", "PL101", "--output-format", "junit").output
    failure = ET.fromstring(out).find(".//failure")
    assert failure.text.startswith("nb.ipynb:cell 4:2:31: cell 4, line 2, col 31, PL101")
    assert failure.get("message").startswith("cell 4, line 2: ")


def test_raw_position_handles_string_sources_and_escapes():
    text = notebook(cell(IMPORTS))
    data = json.loads(text)
    data["cells"][0]["source"] = 'x = "a\\tb"\nds = ds.map(f)\n'
    text = json.dumps(data, indent=1)
    line, column = raw_position(text, 1, 2, 9)
    raw = text.splitlines()[line - 1]
    assert raw[column - 1:column + 2] == "map"


# ------------------------------------------------------------------------------------------------
# suppressions


def test_noqa_per_line_in_a_cell_and_unknown_codes():
    text = notebook(cell(IMPORTS), cell(SERIAL.rstrip("\n") + "  # noqa: PL101\n" + SERIAL + "x = 1  # noqa: PL999\n"))
    assert keys(lint(text)) == {(2, 2, 31, "PL101"), (2, 3, 8, "PL003")}


def test_skip_file_in_any_cell_skips_the_notebook():
    text = notebook(cell(IMPORTS + SERIAL), md("x"), cell("# pipelint: skip-file\n"))
    assert lint(text) == []


# ------------------------------------------------------------------------------------------------
# fixes


def _fix(path: Path, *extra: str):
    return run("check", str(path.name), "--fix", *extra)


def test_fix_changes_only_the_fixed_lines_and_keeps_everything_else(here):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
    nb.metadata["custom"] = {"keep": ["me", 1]}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Résumé"),
        nbformat.v4.new_code_cell(IMPORTS + "%matplotlib inline", execution_count=1),
        nbformat.v4.new_code_cell(SERIAL + "ds = ds.batch(2)\nds", execution_count=7,
                                  outputs=[nbformat.v4.new_output("execute_result", {"text/plain": "<ds>"},
                                                                  execution_count=7)]),
    ]
    nb.cells[2]["unknown_key"] = "kept"
    path = here / "nb.ipynb"
    nbformat.write(nb, path)
    before = path.read_text()
    result = _fix(path)
    after = path.read_text()
    assert result.exit_code == 0, result.output
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert len(before.splitlines()) == len(after.splitlines())
    assert changed == [('    "ds = tf.data.Dataset.range(8).map(lambda x: load(x)); list(ds)\\n",',
                        '    "ds = tf.data.Dataset.range(8).map(lambda x: load(x), num_parallel_calls=tf.data.AUTOTUNE); '
                        'list(ds)\\n",')]
    assert after.endswith("}\n")
    reread = nbformat.read(path, 4)
    assert reread.cells[2].outputs[0]["data"] == {"text/plain": "<ds>"}
    assert reread.cells[2].execution_count == 7 and reread.cells[2]["unknown_key"] == "kept"
    del reread.cells[2]["unknown_key"]  # nbformat's schema allows no unknown keys; pipelint keeps them
    nbformat.validate(reread)
    # A second --fix is a no-op.
    assert _fix(path).exit_code == 0 and path.read_text() == after


def test_diff_names_the_cell_and_writes_nothing(here):
    path = here / "nb.ipynb"
    path.write_text(notebook(md("x"), cell(IMPORTS), cell("y = 2\n" + SERIAL)))
    before = path.read_text()
    result = run("check", "nb.ipynb", "--diff")
    assert result.exit_code == 1
    assert "--- a/nb.ipynb:cell 3\n+++ b/nb.ipynb:cell 3\n" in result.output
    assert "+ds = tf.data.Dataset.range(8).map(lambda x: load(x), num_parallel_calls=tf.data.AUTOTUNE)" in result.output
    assert path.read_text() == before


def test_fix_keeps_a_string_source_a_string_and_crlf_line_ends(here):
    data = json.loads(notebook(cell(IMPORTS), cell("")))
    data["cells"][1]["source"] = "x = 1\r\n" + SERIAL.replace("\n", "\r\n") + "ds"
    path = here / "nb.ipynb"
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert run("check", "nb.ipynb", "--select", "PL101", "--output-format", "concise").output.startswith(
        "nb.ipynb:cell 2:2:31: PL101")
    _fix(path, "--select", "PL101")
    fixed = json.loads(path.read_text())
    assert fixed["cells"][1]["source"] == ("x = 1\r\nds = tf.data.Dataset.range(8).map(lambda x: load(x), "
                                           "num_parallel_calls=tf.data.AUTOTUNE); list(ds)\r\nds")
    assert path.read_text().startswith('{\n  "cells"')  # the file's own 2-space indent


def test_a_fix_that_would_break_a_cell_is_dropped(monkeypatch):
    import pipelint.engine as engine

    text = notebook(cell(IMPORTS), cell(SERIAL))
    monkeypatch.setattr(engine, "apply_fixes", lambda source, found, unsafe: (source + "def (:\n", 1))
    diagnostics, new_text, count, changed = lint_and_fix_notebook(text, "nb.ipynb", ALL, None, FixMode(True))
    assert (new_text, count, changed) == (text, 0, [])
    assert any(d.code == "PL101" for d in diagnostics)


def test_a_fix_touching_masked_ipython_syntax_is_not_offered():
    # The fix of PL101 would edit the `%time` line's statement: allowed, it is Python in place.
    text = notebook(cell(IMPORTS + "%time ds = tf.data.Dataset.range(8).map(lambda x: load(x))\nlist(ds)\n"))
    (found,) = lint(text, {"PL101"})
    assert found.fix is not None
    diagnostics, new_text, count, _ = lint_and_fix_notebook(text, "nb.ipynb", frozenset({"PL101"}), None, FixMode(True))
    assert count == 1 and '"%time ds = tf.data.Dataset.range(8).map(lambda x: load(x), num_parallel_calls' in new_text


def test_replace_sources_matches_nbformat_output_byte_for_byte():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("a = 1\nb = 'é'\n"), nbformat.v4.new_code_cell("")]
    text = nbformat.writes(nb) + "\n"
    nb.cells[0].source = "a = 2\nb = 'é'\nc = 3"
    nb.cells[1].source = "x"
    expected = nbformat.writes(nb) + "\n"
    assert replace_sources(text, {1: "a = 2\nb = 'é'\nc = 3", 2: "x"}) == expected


# ------------------------------------------------------------------------------------------------
# bad input: a clear one-line diagnostic or a documented skip, never a traceback


@pytest.mark.parametrize("content, reason", [
    ('{"cells": [', "cannot read notebook: invalid JSON: "),
    ("[1, 2, 3]", "not a Jupyter notebook"),
    ('{"name": "package.json", "version": "1.0"}', "not a Jupyter notebook"),
    ('{"nbformat": 3, "nbformat_minor": 0, "worksheets": [], "metadata": {}}', "nbformat 3 is not supported"),
    ('{"nbformat": 4, "cells": {}}', "`cells` is not a list"),
    ('{"nbformat": 4, "cells": [{"cell_type": "code", "source": 7}]}', "`source` is neither"),
    (b"\xff\xfe{}".decode("latin-1"), "cannot decode notebook as UTF-8"),
])
def test_bad_notebooks_give_one_line_PL002(here, content, reason):
    path = here / "bad.ipynb"
    path.write_bytes(content.encode("latin-1") if "cannot decode" in reason else content.encode())
    (here / "good.py").write_text(IMPORTS + SERIAL)
    result = run("check", ".", "--output-format", "concise")
    lines = result.output.splitlines()
    (bad,) = [line for line in lines if line.startswith("bad.ipynb")]
    assert bad.startswith("bad.ipynb:1:1: PL002 ") and reason in bad, bad
    assert any(line.startswith("good.py:2:31: PL101") for line in lines)
    assert "Traceback" not in result.output + result.stderr


def test_source_as_a_string_is_read():
    data = json.loads(notebook(cell("")))
    data["cells"][0]["source"] = IMPORTS + SERIAL
    assert keys(lint(json.dumps(data))) == {(1, 2, 31, "PL101")}


def test_crlf_inside_cells():
    text = notebook(cell((IMPORTS + "x = 1\n" + SERIAL).replace("\n", "\r\n")))
    assert keys(lint(text, {"PL101"})) == {(1, 3, 31, "PL101")}


def test_fifty_megabytes_of_outputs_stay_fast(here):
    blob = "iVBORw0KGgo" * (50 * 1024 * 1024 // 11)
    output = {"output_type": "display_data", "metadata": {}, "data": {"image/png": blob, "text/plain": "<Figure>"}}
    path = here / "big.ipynb"
    path.write_text(notebook(cell(IMPORTS, outputs=[output]), cell(SERIAL, outputs=[output])))
    assert path.stat().st_size > 100 * 1024 * 1024
    start = time.perf_counter()
    result = run("check", "big.ipynb", "--select", "PL101", "--output-format", "concise")
    elapsed = time.perf_counter() - start
    assert result.output.startswith("big.ipynb:cell 2:1:31: PL101")
    # Outputs are never parsed as code; the JSON decoder reads 100 MB in well under a second.
    # The bound only catches pathological slowness (a quadratic scan); benchmarks measure speed.
    assert elapsed < 30, elapsed


def test_written_fixes_load_with_json_and_nbformat_for_every_shape(here):
    data = json.loads(notebook(cell(IMPORTS), cell(SERIAL), cell("%%bash\nls"), cell("")))
    data["cells"][1]["source"] = SERIAL  # string form
    data["cells"][3]["source"] = []
    path = here / "nb.ipynb"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=True))
    _fix(path)
    text = path.read_text()
    nbformat.validate(nbformat.reads(text, 4))
    assert not text.endswith("\n")  # the file had no final newline: it still has none
    assert "num_parallel_calls" in json.load(open(path))["cells"][1]["source"]


# ------------------------------------------------------------------------------------------------
# discovery and the public API


def test_discovery_finds_notebooks_and_honours_excludes(here):
    for relative in ("a.ipynb", "sub/b.ipynb", ".ipynb_checkpoints/a-checkpoint.ipynb", "skipme/c.ipynb",
                     "ignored/d.ipynb"):
        (here / relative).parent.mkdir(parents=True, exist_ok=True)
        (here / relative).write_text(notebook(cell(IMPORTS + SERIAL)))
    (here / ".git").mkdir()
    (here / ".gitignore").write_text("ignored/\n")
    out = run("check", ".", "--extend-exclude", "skipme", "--select", "PL101", "--output-format", "concise").output
    paths = sorted({line.split(":")[0] for line in out.splitlines() if ":cell " in line})
    assert paths == ["a.ipynb", "sub/b.ipynb"]


def test_check_source_reads_a_notebook_by_its_path():
    found = check_source(notebook(cell(IMPORTS + SERIAL)), "demo.ipynb", select=["PL101"])
    assert [(d.cell, d.line, d.column) for d in found] == [(1, 2, 31)]


def test_bundled_example_notebook_findings_match_jupyter():
    root = Path(__file__).resolve().parent.parent
    text = (root / "examples" / "flowers.ipynb").read_text()
    found = lint(text)
    cells = parse_notebook(text).cells
    for d in found:
        source_line = next(c for c in cells if c.number == d.cell).source.splitlines()[d.line - 1]
        assert source_line[d.column - 1:].startswith(("map", "take", "cache", "batch", "skip", "shuffle")), d
    assert {d.code for d in found} >= {"PL201", "PL202", "PL206"}
    assert not [d for d in found if d.code.startswith("PL0")]


def test_program_lines_map_back_to_cells():
    nb = parse_notebook(notebook(md("m"), cell("a = 1\nb = 2\n"), cell("%%bash\nls\n"), cell("c = 3")))
    program = build_program(nb)
    assert program.text == "a = 1\nb = 2\nc = 3\n"
    assert [program.cells[program.locate(line)[0]].number for line in (1, 2, 3)] == [2, 2, 4]
    assert program.locate(3)[1] == 1


def test_a_cell_indented_as_a_whole_runs_as_ipython_runs_it_and_keeps_its_columns():
    # IPython drops the first line's indentation from every line of the cell.
    text = notebook(cell(IMPORTS), cell("  for x in range(2):\n      ds = tf.data.Dataset.range(8).map(lambda v: load(v))\n      list(ds)\n"))
    (found,) = lint(text, {"PL101", "PL001"})
    assert (found.cell, found.line, found.column, found.code) == (2, 2, 37, "PL101")
    diagnostics, new_text, count, _ = lint_and_fix_notebook(text, "nb.ipynb", frozenset({"PL101"}), None, FixMode(True))
    assert count == 1
    assert json.loads(new_text)["cells"][1]["source"][1] == (
        "      ds = tf.data.Dataset.range(8).map(lambda v: load(v), num_parallel_calls=tf.data.AUTOTUNE)\n")


def test_extend_include_adds_other_suffixes_read_as_python(here):
    (here / "train.pyw").write_text(IMPORTS + SERIAL)
    (here / "nb.ipynb").write_text(notebook(cell(IMPORTS + SERIAL)))
    plain = run("check", ".", "--select", "PL101", "--output-format", "concise").output
    assert "nb.ipynb:cell 1:2:31" in plain and "train.pyw" not in plain
    extended = run("check", ".", "--select", "PL101", "--extend-include", "*.pyw", "--output-format", "concise").output
    assert "train.pyw:2:31: PL101" in extended and "nb.ipynb:cell 1:2:31" in extended
    (here / "pyproject.toml").write_text('[tool.pipelint]\nextend-include = ["*.pyw"]\n')
    configured = run("check", ".", "--select", "PL101", "--output-format", "concise").output
    assert "train.pyw:2:31: PL101" in configured


@pytest.mark.parametrize("example", ["image_classifier.py", "tfrecord_pipeline.py", "custom_loop.py"])
def test_speed_benchmark_notebooks_hold_the_same_code_and_findings(example):
    from benchmarks.static_speed import to_notebook

    root = Path(__file__).resolve().parent.parent
    source = (root / "examples" / example).read_text()
    text = json.dumps(to_notebook(source), indent=1)
    as_py = {(d.code, d.message) for d in lint_source_all(source)}
    as_notebook = {(d.code, d.message) for d in lint(text)}
    assert as_notebook == as_py and as_py
    nbformat.validate(nbformat.reads(text, 4))


def lint_source_all(source: str) -> list:
    from pipelint.engine import lint_source

    return lint_source(source, "x.py", ALL, None)


# ------------------------------------------------------------------------------------------------
# properties: any cell text is read without a traceback; masking keeps lines and columns; writing
# the same sources back changes nothing


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_LINE_PARTS = st.sampled_from([
    "import tensorflow as tf", "ds = tf.data.Dataset.range(3).map(f)", "%matplotlib inline", "!ls -la",
    "x = !ls", "obj?", "?obj", "%%time", "%%bash", "%time y = ds.map(g)", "for i in range(2):",
    "    !echo {i}", "    pass", "s = '''", "%in a string'''", "d = {'a': (", "1)}", "def f(:", "  ", "",
    "x = 5 % 3  # why?", "\\", "é = 'ü'", "\t\tindented", "# pipelint: ignore[PL101]", "ds.cache().take(3)",
])
_CELL = st.lists(_LINE_PARTS, max_size=8).map("\n".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells=st.lists(st.tuples(st.booleans(), _CELL, st.sampled_from(["\n", "\r\n"])), max_size=5))
def test_any_cells_are_read_without_a_traceback_and_masks_keep_columns(cells):
    built = []
    for is_code, source, newline in cells:
        source = source.replace("\n", newline)
        built.append(cell(source) if is_code else md(source))
    text = notebook(*built)
    for d in lint(text):
        assert d.cell is not None and 1 <= d.cell <= len(cells) and d.line >= 1
        assert not d.code == "PL000", d
    for _, source, _ in cells:
        masked = mask_cell(source)
        if masked is None:
            continue
        original = source.split("\n")
        if original and original[-1] == "":
            original.pop()
        masked_lines = masked.text.split("\n")[:-1] if masked.text else []
        assert len(masked_lines) == len(original)
        for line_number, (before, after) in enumerate(zip(original, masked_lines), start=1):
            # Same length (columns kept) or blanked (a cell magic, an escape's continuation), after
            # the whole-cell dedent IPython applies.
            assert after == "" or len(after) + masked.shift(line_number) == len(before), (before, after)
    same = {number: c.source for number, c in ((c.number, c) for c in parse_notebook(text).cells)}
    assert replace_sources(text, same) == text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells=st.lists(_CELL, min_size=1, max_size=4))
def test_fixes_never_corrupt_a_notebook(cells):
    text = notebook(cell(IMPORTS), *(cell(source, outputs=[{"output_type": "stream", "name": "stdout",
                                                              "text": ["kept\n"]}]) for source in cells))
    _, new_text, count, changed = lint_and_fix_notebook(text, "nb.ipynb", ALL, None, FixMode(True, True))
    before, after = json.loads(text), json.loads(new_text)
    for old, new in zip(before["cells"], after["cells"]):
        assert {k: v for k, v in old.items() if k != "source"} == {k: v for k, v in new.items() if k != "source"}
    assert {number for number, _, _ in changed} == {
        i + 1 for i, (old, new) in enumerate(zip(before["cells"], after["cells"])) if old["source"] != new["source"]}
    for number, _, new_source in changed:
        masked = mask_cell(new_source)
        assert masked is not None and compile(masked.text, "cell", "exec")
    nbformat.validate(nbformat.reads(new_text, 4))


def test_a_dataset_nobody_reads_gets_no_finding_until_a_later_cell_reads_it():
    built = cell("ds = tf.data.Dataset.range(8).map(lambda x: load(x))\n")
    assert lint(notebook(cell(IMPORTS), built)) == []
    read = keys(lint(notebook(cell(IMPORTS), built, md("Train"), cell("model.fit(ds)\n"))))
    assert (2, 1, 31, "PL101") in read
