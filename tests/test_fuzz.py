"""Property tests: whatever the input, the engine answers with diagnostics, never an exception and
never a `PL000 internal-error`; and it reports `PL001` only for what CPython itself rejects.

(a) generated Python programs (hypothesmith), (b) random bytes, (c) random line mutations of a
realistic training script. Budget: well under a minute on two cores.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from pipelint.config import CliOverrides, load_settings
from pipelint.engine import FixMode, check_file, lint_and_fix, lint_source
from pipelint.rules import all_rules
from pipelint.sources import decode_source

ALL_CODES = frozenset(all_rules())
TF_PREFIX = "import tensorflow as tf\n"
# The bare import only reaches CPython's syntax check (no rule trigger); this one also reaches
# libcst, the pipeline model and every rule.
PIPELINE_PREFIX = TF_PREFIX + "ds = tf.data.Dataset.range(4).prefetch(tf.data.AUTOTUNE)\n"

FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])


def cpython_accepts(source: str | bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "f.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return False
    return True


def assert_sane(diagnostics, source: str | bytes | None = None) -> None:
    internal = [d.message for d in diagnostics if d.code == "PL000"]
    assert not internal, internal
    for d in diagnostics:
        assert d.line >= 1 and d.column >= 1 and "\n" not in d.message, d
    if source is not None and cpython_accepts(source):
        parse_errors = [d.message for d in diagnostics if d.code == "PL001"]
        assert not parse_errors, f"PL001 on a file CPython compiles: {parse_errors}"


# ------------------------------------------------------------------------- (a) generated programs


@FUZZ
@given(program=hypothesmith.from_grammar(), prefix=st.sampled_from([TF_PREFIX, PIPELINE_PREFIX]))
def test_generated_programs_never_crash_the_engine(program, prefix):
    source = prefix + program
    assert_sane(lint_source(source, "f.py", ALL_CODES, None), source)


@settings(FUZZ, max_examples=25)
@given(program=hypothesmith.from_node())
def test_generated_cst_programs_never_crash_the_engine(program):
    source = PIPELINE_PREFIX + program
    assert_sane(lint_source(source, "f.py", ALL_CODES, None), source)


# ------------------------------------------------------------------------- (b) random bytes

_BYTE_PREFIXES = [b"", TF_PREFIX.encode(), PIPELINE_PREFIX.encode(), b"\xef\xbb\xbf" + TF_PREFIX.encode(),
                  b"# -*- coding: latin-1 -*-\n" + PIPELINE_PREFIX.encode(),
                  b"# coding: utf-16\n" + TF_PREFIX.encode()]


@FUZZ
@example(data=b"\x00", prefix=TF_PREFIX.encode())
@example(data=b"\r", prefix=PIPELINE_PREFIX.encode())
@example(data=b"\\\n", prefix=PIPELINE_PREFIX.encode())
@example(data=b"\x0c", prefix=PIPELINE_PREFIX.encode())
@example(data=b"ds = ds.map(f)  # noqa: \xff\n", prefix=PIPELINE_PREFIX.encode())
@given(data=st.binary(max_size=400), prefix=st.sampled_from(_BYTE_PREFIXES))
def test_random_bytes_through_decode_and_lint(data, prefix):
    raw = prefix + data
    try:
        source = decode_source(raw)
    except ValueError as error:
        assert "\n" not in str(error)
        return
    assert_sane(lint_source(source, "f.py", ALL_CODES, None), source)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@settings(FUZZ, max_examples=40)
@given(data=st.binary(max_size=300), prefix=st.sampled_from(_BYTE_PREFIXES),
       text=st.text(max_size=120))
def test_random_bytes_through_check_file(workdir, data, prefix, text):
    path = Path(workdir) / "f.py"
    settings_ = load_settings(None, CliOverrides(select=("ALL",)), Path(workdir))
    for raw in (prefix + data, prefix + text.encode("utf-8", "surrogatepass")):
        path.write_bytes(raw)
        result = check_file(path, "f.py", settings_, FixMode(enabled=True, include_unsafe=True))
        assert_sane(result.diagnostics, raw)
        if result.fixed_source is not None:  # a fix never produces a file that does not parse
            assert cpython_accepts(result.fixed_source) or not cpython_accepts(raw)


# ------------------------------------------------------------------------- (c) mutated scripts

SCRIPT = '''"""A realistic training script: TFRecords, parsing, augmentation, Keras."""
import functools
import numpy as np
import tensorflow as tf
import tensorflow_datasets as tfds
from tensorflow import keras

AUTOTUNE = tf.data.AUTOTUNE
FEATURES = {"image": tf.io.FixedLenFeature([], tf.string), "label": tf.io.FixedLenFeature([], tf.int64)}


def parse(record):
    example = tf.io.parse_single_example(record, FEATURES)
    image = tf.io.decode_jpeg(example["image"], channels=3)
    return tf.image.resize(image, (64, 64)), example["label"]


def augment(image, label):
    image = tf.image.random_flip_left_right(image)
    image = tf.numpy_function(lambda x: np.clip(x, 0, 255), [image], tf.float32)
    return image, label


def make_dataset(pattern: str, batch_size: int, training: bool = True) -> tf.data.Dataset:
    files = tf.data.Dataset.list_files(pattern, shuffle=training)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4)
    ds = ds.map(parse)
    ds = ds.cache()
    if training:
        ds = ds.repeat()
        ds = ds.shuffle(8)
        ds = ds.map(augment, num_parallel_calls=AUTOTUNE)
    else:
        ds = ds.take(100).cache()
    ds = ds.batch(batch_size)
    ds = ds.unbatch().batch(batch_size)
    ds = ds.prefetch(AUTOTUNE).map(lambda x, y: (x / 255.0, y))
    return ds


def from_generator():
    def gen():
        for i in range(10):
            yield i
    return tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int32))


splits = tfds.load("mnist", split=["train", "test"], as_supervised=True)
train_raw, test_raw = splits
train = train_raw.shuffle(1000).batch(32)
for step, (x, y) in enumerate(train):
    if step > 3:
        break

model = keras.Sequential([keras.layers.RandomFlip(), keras.layers.Dense(10)])
optimizer = keras.optimizers.Adam()
for trial in range(3):
    candidate = keras.Sequential([keras.layers.Dense(10)])
    candidate.compile(optimizer=optimizer, loss="mse")
    candidate.fit(make_dataset("a-*", 32), epochs=1)
model.compile(optimizer=keras.optimizers.SGD(), loss="mse")
model.fit(make_dataset("train-*", 64), validation_data=make_dataset("val-*", 64, False),
          epochs=3, workers=4, use_multiprocessing=True)
model.fit_generator(from_generator(), steps_per_epoch=10)
model.fit(train, batch_size=32)
strategy = tf.distribute.MirroredStrategy()
dist = strategy.experimental_distribute_dataset(make_dataset("x", 8))
optimizer._decayed_lr(tf.float32)
ds2 = tf.data.Dataset.range(10).map(functools.partial(parse), num_parallel_calls=None).cache().take(3)
'''
LINES = SCRIPT.splitlines(keepends=True)

mutation = st.one_of(
    st.tuples(st.just("delete"), st.integers(0, len(LINES) - 1), st.integers(0, 0)),
    st.tuples(st.just("duplicate"), st.integers(0, len(LINES) - 1), st.integers(0, 0)),
    st.tuples(st.just("swap"), st.integers(0, len(LINES) - 1), st.integers(0, len(LINES) - 1)),
    st.tuples(st.just("move"), st.integers(0, len(LINES) - 1), st.integers(0, len(LINES) - 1)),
    st.tuples(st.just("dedent"), st.integers(0, len(LINES) - 1), st.integers(0, 0)),
    st.tuples(st.just("truncate"), st.integers(0, len(LINES) - 1), st.integers(0, 80)),
)


def mutate(lines: list[str], operations) -> str:
    lines = list(lines)
    for name, i, j in operations:
        if not lines:
            break
        i %= len(lines)
        if name == "delete":
            del lines[i]
        elif name == "duplicate":
            lines.insert(i, lines[i])
        elif name == "swap":
            j %= len(lines)
            lines[i], lines[j] = lines[j], lines[i]
        elif name == "move":
            line = lines.pop(i)
            lines.insert(j % (len(lines) + 1), line)
        elif name == "dedent":
            lines[i] = lines[i].lstrip(" ")
        elif name == "truncate":
            lines[i] = lines[i][:j].rstrip("\n") + "\n"
    return "".join(lines)


def test_the_unmutated_script_is_linted():
    found = lint_source(SCRIPT, "train.py", ALL_CODES, None)
    assert_sane(found, SCRIPT)
    assert len({d.code for d in found}) >= 5, sorted({d.code for d in found})


@settings(FUZZ, max_examples=60)
@given(operations=st.lists(mutation, min_size=1, max_size=4))
def test_mutated_scripts_never_crash_the_engine(operations):
    source = mutate(LINES, operations)
    assume(source.strip())
    assert_sane(lint_source(source, "train.py", ALL_CODES, None), source)


@settings(FUZZ, max_examples=15)
@given(operations=st.lists(mutation, min_size=1, max_size=3))
def test_fixing_mutated_scripts_never_crashes_or_breaks_them(operations):
    source = mutate(LINES, operations)
    diagnostics, fixed, count = lint_and_fix(source, "train.py", ALL_CODES, None,
                                             FixMode(enabled=True, include_unsafe=True))
    assert_sane(diagnostics, fixed)
    if count:
        assert cpython_accepts(fixed) or not cpython_accepts(source)
