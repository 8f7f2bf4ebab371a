"""pipelint never imports or runs the code it checks, and its machine-readable output survives any
file name or message: GitHub workflow-command escaping, SARIF/JSON round trips, valid JUnit XML,
one line per finding in the text formats."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote

import pytest
from clirunner import separate_streams_runner

from pipelint.cli import main
from pipelint.rules import base as rules_base

KNOWN = "import tensorflow as tf\nds = tf.data.Dataset.range(4).map(lambda x: load(x))\n"


def _booby_trap(marker: Path) -> str:
    """A training script whose import or execution leaves `marker` behind (or kills the process)."""
    return (
        "import os, sys\n"
        f"open({str(marker)!r}, 'w').write('module executed')\n"
        "import tensorflow as tf\n"
        f"open({str(marker)!r}, 'w').write('tensorflow imported')\n"
        "ds = tf.data.Dataset.range(4).map(lambda x: load(x))\n"
        "class Meta(type):\n"
        f"    def __new__(mcs, *a):\n        open({str(marker)!r}, 'w').write('class body ran')\n"
        "        return super().__new__(mcs, *a)\n"
        "class Model(metaclass=Meta):\n"
        "    pass\n"
        "def __getattr__(name):\n"
        f"    open({str(marker)!r}, 'w').write('module __getattr__ ran')\n"
        "if __name__ == '__main__':\n"
        f"    open({str(marker)!r}, 'w').write('ran as main')\n"
        "os._exit(99)\n"
    )


def test_checking_a_file_never_executes_it(tmp_path):
    marker = tmp_path / "MARKER"
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(_booby_trap(marker))
    (project / "__init__.py").write_text(_booby_trap(marker))
    (project / "conftest.py").write_text(_booby_trap(marker))
    (project / "setup.py").write_text(_booby_trap(marker))
    # enough files for the engine to use its process pool as well
    for index in range(20):
        (project / f"mod_{index}.py").write_text(_booby_trap(marker))
    probe = (
        "import sys\n"
        "from pipelint.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit as exit_:\n"
        "    code = exit_.code\n"
        "bad = sorted(m for m in ('tensorflow', 'keras', 'train', 'project') if m in sys.modules)\n"
        "assert not bad, bad\n"
        "sys.exit(code)\n"
    )
    env = dict(os.environ, NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1")
    for extra in ([], ["--fix"], ["--diff", "--unsafe-fixes"], ["--jobs", "1"]):
        result = subprocess.run(
            [sys.executable, "-c", probe, "check", str(project), "--select", "ALL",
             "--output-format", "json", *extra],
            capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
        assert result.returncode in (0, 1), result.stderr
        assert "Traceback" not in result.stderr
        assert not marker.exists(), f"{extra}: {marker.read_text()}"
        if not extra:
            found = json.loads(result.stdout)
            assert {(Path(d["path"]).name, d["line"], d["code"]) for d in found} >= {("train.py", 5, "PL101")}
    assert not list(project.rglob("__pycache__")), "the checked files were compiled to bytecode"


# ---------------------------------------------------------------------------------- escaping

EVIL_MESSAGE = "100% wrong:\r\nsee a, b, c :: here\nthen %0A is not a newline; <tag attr=\"&\">\x07"


def _odd_name(project: Path) -> str:
    for name in ("we,ird: na%me ü.py", "we,ird na%me.py"):
        try:
            (project / name).write_text(KNOWN)
        except OSError:
            continue
        return name
    pytest.skip("the filesystem refuses commas in file names")


@pytest.fixture
def evil(tmp_path, monkeypatch):
    """A project with one file with an awkward name; every finding's message is EVIL_MESSAGE + its own."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    name = _odd_name(tmp_path)
    real_report = rules_base.RuleContext.report

    def report(self, node, message, fix=None, impact=None):
        real_report(self, node, EVIL_MESSAGE + message, fix, impact)

    monkeypatch.setattr(rules_base.RuleContext, "report", report)
    return name


def _check(fmt: str) -> str:
    result = separate_streams_runner().invoke(
        main, ["check", ".", "--select", "PL101", "--output-format", fmt, "--jobs", "1"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1, result.stdout + result.stderr
    return result.stdout


_ESCAPES = {"%25": "%", "%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","}


def _unescape(text: str) -> str:
    return re.sub("%25|%0D|%0A|%3A|%2C", lambda match: _ESCAPES[match.group()], text)


def test_github_annotations_escape_data_and_properties(evil):
    lines = _check("github").splitlines()
    assert len(lines) == 1  # the message's line breaks never split an annotation
    line = lines[0]
    assert line.startswith("::warning ")
    properties, data = line[len("::warning "):].split("::", 1)
    # data: only %, CR and LF are escaped
    assert "\r" not in data and "\n" not in data
    assert "100%25 wrong:%0D%0Asee a, b, c :: here%0Athen %250A is not" in data
    assert _unescape(data).startswith(EVIL_MESSAGE)
    # properties: also `:` and `,`; splitting on the raw `,` and `=` gives the right fields back
    fields = dict(item.split("=", 1) for item in properties.split(","))
    assert list(fields) == ["file", "line", "col", "endLine", "endColumn", "title"]
    assert _unescape(fields["file"]) == evil
    assert ":" not in fields["file"] and "%3A" in fields["file"] and "%2C" in fields["file"]
    assert "%25" in fields["file"]
    assert (fields["line"], fields["col"]) == ("2", "31")


def test_sarif_round_trips_message_and_path(evil):
    document = json.loads(_check("sarif"))
    (result,) = document["runs"][0]["results"]
    assert result["message"]["text"].startswith(EVIL_MESSAGE)
    location = result["locations"][0]["physicalLocation"]
    uri = location["artifactLocation"]["uri"]
    assert unquote(uri) == evil
    assert ":" not in uri.split("/")[0], "a colon in the first segment reads as a URI scheme"
    assert " " not in uri and "%25" in uri
    assert location["region"]["startLine"] == 2 and location["region"]["startColumn"] == 31


@pytest.mark.parametrize("fmt", ["json", "json-lines"])
def test_json_round_trips_message_and_path(evil, fmt):
    text = _check(fmt)
    items = json.loads(text) if fmt == "json" else [json.loads(line) for line in text.splitlines()]
    (item,) = items
    assert item["path"] == evil and item["message"].startswith(EVIL_MESSAGE)


def test_junit_is_valid_xml(evil):
    root = ET.fromstring(_check("junit").split("\n", 1)[1])
    (failure,) = root.iter("failure")
    assert failure.get("message").startswith("100% wrong:")
    assert '<tag attr="&">' in failure.get("message")
    (case,) = root.iter("testcase")
    assert case.get("name") == evil


@pytest.mark.parametrize("fmt", ["concise", "full"])
def test_text_formats_keep_one_header_line_and_no_raw_escape_codes(evil, fmt):
    text = _check(fmt)
    headers = [line for line in text.splitlines() if ": PL101 " in line]
    assert len(headers) == 1
    assert headers[0].startswith(f"{evil}:2:31: PL101")
    assert "\r" not in text and "\x07" not in text  # control characters are made visible


def test_the_else_of_a_flag_the_module_fixes_never_runs(tmp_path):
    """`data_augmentation = False` ... `if not data_augmentation: fit(arrays) else: <generator>`
    (pool 2035, keras-resnet's cifar10.py); a parameter of the same name decides per call."""
    from pipelint.api import check_paths
    script = """
        from keras.preprocessing.image import ImageDataGenerator
        data_augmentation = False
        if not data_augmentation:
            model.fit(x_train, y_train, epochs=100)
        else:
            datagen = ImageDataGenerator(rotation_range=10, horizontal_flip=True)
            model.fit_generator(datagen.flow(x_train, y_train), epochs=100)

        def train(data_augmentation):
            if not data_augmentation:
                model.fit(x_train, y_train, epochs=100)
            else:
                datagen = ImageDataGenerator(rotation_range=10)
                model.fit_generator(datagen.flow(x_train, y_train), epochs=100)

        train(use_augmentation)
    """
    import textwrap
    (tmp_path / "cifar10.py").write_text(textwrap.dedent(script).lstrip())
    assert [d.line for d in check_paths([tmp_path], select=["PL403"])] == [13]
