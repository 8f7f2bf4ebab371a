"""The probe in notebooks: `pipelint profile notebook.ipynb` and IPython's `%%pipelint_profile`."""
import json

import pytest

tf = pytest.importorskip("tensorflow")
IPython = pytest.importorskip("IPython")

from pipelint.profiler.run.runner import profile_script  # noqa: E402


def _cell(source: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": source.splitlines(keepends=True)}


def _write(path, *cells) -> str:
    data = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# probe"]}, *cells],
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
            "nbformat": 4, "nbformat_minor": 4}
    path.write_text(json.dumps(data, indent=1))
    return str(path)


def test_profile_runs_code_cells_in_order_and_skips_magics_with_a_note(tmp_path, capsys):
    script = _write(
        tmp_path / "train.ipynb",
        _cell("!pip install -q nothing\n%matplotlib inline\nimport tensorflow as tf\n"),
        _cell("%%bash\nexit 3\n"),
        _cell("ds = tf.data.Dataset.range(400).map(lambda x: x * 2)\nds = ds.batch(8)\n"),
        _cell("%%time\nseen = sum(1 for _ in ds)\nprint('batches', seen)\n"),
    )
    outcome = profile_script(script, sample_every=5, warn_every=10**6)
    err = capsys.readouterr()
    assert outcome.exit_code == 0, err.err
    assert "batches 50" in err.out
    assert "cell 2: skipped `!pip install -q nothing`, `%matplotlib`" in err.err
    assert "cell 3: `%%bash` cell skipped" in err.err
    stages = {s["name"] if "name" in s else s.get("op"): s for s in outcome.report["stages"]}
    sources = [s.get("source") for s in outcome.report["stages"] if s.get("source")]
    # Sites name the notebook's cell and the line in it, as the linter does.
    assert any(src["path"].endswith("train.ipynb:cell 4") and src["line"] == 1 for src in sources), stages


def test_profile_reports_a_bad_notebook_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.ipynb"
    path.write_text('{"nbformat": 3, "worksheets": []}')
    outcome = profile_script(str(path))
    assert outcome.exit_code == 2
    assert "cannot read notebook" in capsys.readouterr().err


@pytest.fixture
def shell():
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()  # one shell per test process, started on first use
    ip.run_cell("%load_ext pipelint")
    yield ip
    ip.run_cell("%reset -f")


def test_cell_magic_shows_text_in_a_terminal_ipython_and_each_cell_starts_fresh(shell, capsys):
    shell.run_cell("import tensorflow as tf")
    first = shell.run_cell("%%pipelint_profile\nds = tf.data.Dataset.range(300).map(lambda x: x + 1).batch(5)\n"
                           "for _ in ds:\n    pass\n")
    out = capsys.readouterr().out
    assert first.success and "pipelint profile: %%pipelint_profile" in out and "map" in out
    second = shell.run_cell("%%pipelint_profile\nother = tf.data.Dataset.range(100).batch(5)\nfor _ in other:\n    pass\n")
    out = capsys.readouterr().out
    assert second.success and "pipelint profile" in out
    assert " map " not in out  # the first cell's pipeline is not in the second cell's report


def test_cell_magic_displays_html_in_a_notebook_kernel(shell, monkeypatch):
    import pipelint.profiler.output.display as display

    shown = []
    monkeypatch.setattr(display, "_in_notebook", lambda ip: True)
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    shell.run_cell("import tensorflow as tf")
    result = shell.run_cell("%%pipelint_profile\nfor _ in tf.data.Dataset.range(50).batch(5):\n    pass\n")
    assert result.success
    (html,) = shown
    assert "<div" in html.data and "pipelint" in html.data and "<html" not in html.data


def test_probe_in_ipython_reports_after_the_cell_that_measured_and_not_at_exit(shell, capsys):
    import pipelint.profiler.run.api as api

    shell.run_cell("import tensorflow as tf\nfrom pipelint.profiler import probe")
    shell.run_cell("ds = probe(tf.data.Dataset.range(200).map(lambda x: x + 1).batch(4))")
    assert "pipelint profile" not in capsys.readouterr().out  # nothing measured yet: no report
    shell.run_cell("for _ in ds:\n    pass\n")
    assert "pipelint profile" in capsys.readouterr().out
    assert api._DEFAULT is None  # the next probed cell starts a fresh session
    shell.run_cell("x = 1")
    assert "pipelint profile" not in capsys.readouterr().out


def test_pipeline_profiler_shows_html_in_a_notebook(shell, monkeypatch, capsys):
    import pipelint.profiler.output.display as display

    shown = []
    monkeypatch.setattr(display, "_in_notebook", lambda ip: True)
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    from pipelint.profiler import PipelineProfiler

    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    ds = tf.data.Dataset.from_tensor_slices((tf.zeros([64, 2]), tf.zeros([64, 1]))).batch(8)
    model.fit(ds, epochs=1, verbose=0, callbacks=[PipelineProfiler()])
    (html,) = shown
    assert "<div" in html.data and "pipelint profile" not in capsys.readouterr().err


def test_cell_magic_and_probe_cite_cell_and_line(shell, capsys):
    # store_history=True: numbered cells, as a notebook's In [N]
    shell.run_cell("import tensorflow as tf\nfrom pipelint.profiler import probe", store_history=True)
    number = shell.execution_count
    shell.run_cell("%%pipelint_profile\nx = 1\nds = tf.data.Dataset.range(60).map(lambda i: i + 1).batch(5)\n"
                   "for _ in ds:\n    pass\n", store_history=True)
    out = capsys.readouterr().out
    assert f"map at cell {number}, line 3" in out and "<ipython-input" not in out  # the body starts on line 2
    number = shell.execution_count
    shell.run_cell("ds = probe(tf.data.Dataset.range(60).batch(5))\nfor _ in ds:\n    pass\n", store_history=True)
    assert f"cell {number}, line 1" in capsys.readouterr().out
