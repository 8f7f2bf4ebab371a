"""The engine on good and bad input: every failure is a diagnostic, never a traceback."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import pipelint
from pipelint.engine import FixMode, check_file, lint_and_fix, lint_source
from pipelint.rules import all_rules
from pipelint.sources import decode_source

SERIAL_MAP = "import tensorflow as tf\nds = tf.data.Dataset.range(4).map(lambda x: load(x))\n"
ALL = frozenset(all_rules())


def codes(diagnostics):
    return [d.code for d in diagnostics]


def test_check_source_api_reports_position_and_fix():
    (found,) = [d for d in pipelint.check_source(SERIAL_MAP) if d.code == "PL101"]
    assert (found.line, found.column, found.end_line, found.end_column) == (2, 31, 2, 34)
    assert found.name == "map-without-parallelism" and found.fix is not None
    assert found.to_dict()["fix"]["applicability"] == "safe"


def test_check_source_select():
    assert "PL101" not in codes(pipelint.check_source(SERIAL_MAP, select=["PL0"]))
    assert "PL101" in codes(pipelint.check_source(SERIAL_MAP, select=["PL101"]))


def test_syntax_error_is_pl001_at_parser_position():
    found = lint_source("import tensorflow as tf\nds = (tf.data.Dataset.range(3)\n", "bad.py", ALL, None)
    assert codes(found) == ["PL001"]
    assert found[0].line >= 2 and "\n" not in found[0].message


def test_file_no_rule_can_fire_on_is_not_parsed():
    assert lint_source("import tensorflow as tf\nprint 'hi'\n", "plain.py", ALL, None) == []


def test_file_without_tensorflow_is_not_parsed():
    assert lint_source("def broken(:\n", "plain.py", ALL, None) == []


def test_array_module_calls_do_not_make_a_file_worth_parsing():
    # `np.repeat(` and `np.take(` are a module's functions, not a dataset's methods: a file with
    # a syntax error and only those is skipped, with or without TensorFlow named (unparsed: no PL001).
    arrays = "import numpy as np\ny = np.repeat(x, 2)\nz = np.take(y, 1)\ndef broken(:\n"
    assert lint_source(arrays, "plain.py", ALL, None) == []
    assert lint_source("import tensorflow as tf\n" + arrays, "plain.py", ALL, None) == []
    # A parameter used through two dataset methods, one of them telling, is worth the parse.
    split = "def split(ds):\n    ds = ds.shuffle(8)\n    return ds.take(2), ds.skip(2)\ndef broken(:\n"
    assert codes(lint_source(split, "plain.py", ALL, None)) == ["PL001"]
    assert codes(lint_source("import tensorflow as tf\n" + split, "plain.py", ALL, None)) == ["PL001"]


@pytest.mark.parametrize("data,reason", [
    (b"import tensorflow\x00\n", "NUL"),
    (b"import tensorflow as tf\nname = '\xff\xfe'\n", "decode"),
    (b"# -*- coding: no-such-codec -*-\nimport tensorflow\n", "codec"),
])
def test_undecodable_files_are_pl002(tmp_path, data, reason):
    path = tmp_path / "f.py"
    path.write_bytes(data)
    result = check_file(path, "f.py", _settings(tmp_path))
    assert codes(result.diagnostics) == ["PL002"], reason
    assert "\n" not in result.diagnostics[0].message


def test_pep263_coding_line_and_bom_are_honoured():
    latin = "# -*- coding: latin-1 -*-\nimport tensorflow as tf\nname = 'caf\xe9'\n".encode("latin-1")
    assert "caf\xe9" in decode_source(latin)
    assert decode_source(b"\xef\xbb\xbfimport tensorflow\n").startswith("import")


def test_unreadable_file_is_pl002(tmp_path):
    missing = tmp_path / "gone.py"
    result = check_file(missing, "gone.py", _settings(tmp_path))
    assert codes(result.diagnostics) == ["PL002"]


def test_exception_in_a_rule_is_pl000_and_other_rules_still_run(monkeypatch):
    rule = all_rules()["PL101"]

    def explode(self, ctx):
        raise RuntimeError("boom")

    monkeypatch.setattr(rule, "check", explode)
    source = SERIAL_MAP + "ds = ds.cache().cache()\n"
    found = lint_source(source, "x.py", ALL, None)
    internal = [d for d in found if d.code == "PL000"]
    assert len(internal) == 1 and "PL101" in internal[0].message and "boom" in internal[0].message
    assert len(found) > 1  # the other rules still reported


@pytest.mark.parametrize("comment", ["# noqa", "# noqa: PL101", "# noqa:PL101,PL203", "# pipelint: ignore[PL101]", "# pipelint: ignore"])
def test_suppression_comments(comment):
    source = SERIAL_MAP.rstrip("\n") + f"  {comment}\n"
    assert "PL101" not in codes(lint_source(source, "x.py", ALL, None))


def test_suppression_of_other_code_keeps_finding():
    source = SERIAL_MAP.rstrip("\n") + "  # noqa: PL203\n"
    assert "PL101" in codes(lint_source(source, "x.py", ALL, None))


def test_unknown_code_in_noqa_is_reported():
    source = SERIAL_MAP.rstrip("\n") + "  # noqa: PL1O1\n"
    found = lint_source(source, "x.py", ALL, None)
    assert "PL003" in codes(found) and "PL101" in codes(found)



@pytest.mark.parametrize("comment", ["# NOQA: PL999", "# noqa:pl999", "# pipelint: ignore[PL999]", "# Noqa: E501, PL9x"])
def test_unknown_code_in_a_file_with_no_findings_is_reported(comment):
    # A clean file is tokenized for suppression comments only when one may name a code.
    source = "import tensorflow as tf\n# noqa is mentioned here\nx = 1  " + comment + "\n"
    assert codes(lint_source(source, "x.py", ALL, None)) == ["PL003"]
    assert lint_source("import tensorflow as tf\nx = 1  # noqa: E501\n", "x.py", ALL, None) == []

def test_multiline_chain_is_suppressed_on_the_method_line():
    source = ("import tensorflow as tf\n"
              "ds = (tf.data.Dataset.range(4)\n"
              "      .map(lambda x: load(x))  # noqa: PL101\n"
              "      .prefetch(tf.data.AUTOTUNE))\n")
    assert "PL101" not in codes(lint_source(source, "x.py", ALL, None))


def test_skip_file():
    assert lint_source("# pipelint: skip-file\n" + SERIAL_MAP, "x.py", ALL, None) == []


def test_fix_is_idempotent_and_parses():
    _, fixed, count = lint_and_fix(SERIAL_MAP, "x.py", ALL, None, FixMode(enabled=True))
    assert count >= 1 and "num_parallel_calls=tf.data.AUTOTUNE" in fixed
    _, again, more = lint_and_fix(fixed, "x.py", ALL, None, FixMode(enabled=True))
    assert (again, more) == (fixed, 0)


def test_import_pipelint_and_check_never_import_tensorflow(tmp_path):
    script = (
        "import sys, pipelint, pipelint.cli\n"
        "pipelint.check_source(open(sys.argv[1]).read())\n"
        "assert 'tensorflow' not in sys.modules, 'tensorflow was imported'\n"
        "assert 'keras' not in sys.modules, 'keras was imported'\n"
    )
    target = tmp_path / "train.py"
    target.write_text(SERIAL_MAP)
    subprocess.run([sys.executable, "-c", script, str(target)], check=True)


def _settings(root: Path):
    from pipelint.config import CliOverrides, load_settings

    return load_settings(None, CliOverrides(), root)


def test_fixes_in_multiline_chains_keep_layout_and_comments():
    source = (
        "import tensorflow as tf\n"
        "\n"
        "def make(files):\n"
        "    return (tf.data.TFRecordDataset(files)\n"
        "            .map(parse)  # decode\n"
        "            .shuffle(1000)\n"
        "            .cache()\n"
        "            .batch(32))\n"
        "\n"
        "model.fit(make(files))\n"
    )
    _, fixed, count = lint_and_fix(source, "x.py", frozenset({"PL101", "PL201"}), None,
                                   FixMode(enabled=True, include_unsafe=True))
    assert count == 2
    assert fixed == (
        "import tensorflow as tf\n"
        "\n"
        "def make(files):\n"
        "    return (tf.data.TFRecordDataset(files)\n"
        "            .map(parse, num_parallel_calls=tf.data.AUTOTUNE)  # decode\n"
        "            .cache()\n"
        "            .shuffle(1000)\n"
        "            .batch(32))\n"
        "\n"
        "model.fit(make(files))\n"
    )


def test_statement_local_positions_match_whole_module_positions(monkeypatch):
    """Positions come from re-generating only the statements with findings; they must equal the
    positions libcst computes over the whole module."""
    import pipelint.positions as positions

    root = Path(__file__).resolve().parent
    sources = [p.read_text() for p in sorted((root / "corpus").glob("*.py"))]
    sources += [p.read_text() for p in sorted((root.parent / "examples").glob("*.py"))]
    fast = [lint_source(s, "f.py", ALL, None) for s in sources]
    monkeypatch.setattr(positions, "statement_start_lines", lambda module, source: None)
    slow = [lint_source(s, "f.py", ALL, None) for s in sources]
    assert sum(map(len, fast)) > 50
    for a, b in zip(fast, slow):
        assert [(d.line, d.column, d.end_line, d.end_column, d.code, d.fix) for d in a] == \
               [(d.line, d.column, d.end_line, d.end_column, d.code, d.fix) for d in b]


SPLIT_WITHOUT_TF = """\
def partitions(ds, train_split=0.8):
    size = len(ds)
    ds = ds.shuffle(10000, seed=123)
    train_size = int(train_split * size)
    return ds.take(train_size), ds.skip(train_size)
"""


def test_a_module_that_never_names_tensorflow_is_checked_when_it_handles_datasets():
    found = lint_source(SPLIT_WITHOUT_TF, "split.py", frozenset({"PL206"}), None)
    assert [(d.line, d.code) for d in found] == [(3, "PL206")]
    assert found[0].message.endswith("(`ds` is treated as a tf.data dataset from its use)")
    # Hugging Face `datasets` has shuffle/take/skip too: a module importing it is not read as tf.data.
    assert lint_source("import datasets\n" + SPLIT_WITHOUT_TF, "split.py", frozenset({"PL206"}), None) == []
    # One method alone says nothing.
    assert lint_source("def f(xs):\n    return xs.shuffle()\n", "f.py", frozenset(all_rules()), None) == []
