"""Reach classes met on projects nobody on the team had read (issue 29), each on code shaped like
the real case: a subclass's override called through `self` by its base, a map function made by a
factory, arguments that batch a helper's dataset, and sibling modules imported through `sys.path`
or `importlib`."""
from __future__ import annotations

import textwrap
from pathlib import Path

from pipelint.api import check_paths


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def _found(root: Path, *codes: str) -> list[tuple[str, int, str]]:
    return sorted((Path(d.path).relative_to(root).as_posix(), d.line, d.code)
                  for d in check_paths([root], select=list(codes)))


BASE = """
    import tensorflow as tf

    class BaseLoader:
        def get(self, files):
            ds = tf.data.TFRecordDataset(files)
            ds = self._map_x(ds)
            return ds.batch(32)

        def _map_x(self, data):
            return data
"""


def test_a_subclass_override_called_through_self_by_its_base(tmp_path):
    root = _project(tmp_path, {
        "base.py": BASE,
        "loader.py": """
            import tensorflow as tf
            from base import BaseLoader

            def read_jpeg(path):
                import cv2
                return cv2.imread(path.numpy().decode())

            class JpegLoader(BaseLoader):
                def _map_x(self, data):
                    return data.map(lambda p: tf.py_function(read_jpeg, [p], tf.float32))

            class Unused:
                def _map_x(self, data):  # no project base: no dataset handed to it
                    return data.map(lambda p: tf.py_function(read_jpeg, [p], tf.float32))
        """,
        "train.py": """
            from loader import JpegLoader
            model.fit(JpegLoader().get(["a.tfrecord"]), epochs=3)
        """,
    })
    assert _found(root, "PL106") == [("loader.py", 10, "PL106")]


def test_a_map_function_made_by_a_factory_is_judged_by_its_inner_function(tmp_path):
    root = _project(tmp_path, {
        "requirements.txt": "tensorflow==2.15\n",
        "utils.py": """
            import tensorflow as tf

            def parse_fn(size):
                def parse(record):
                    image = tf.io.decode_jpeg(record)
                    return tf.image.resize(image, (size, size))
                return parse

            def py_fn(size):
                return lambda record: tf.py_function(lambda r: r, [record], tf.float32)
        """,
        "train.py": """
            import tensorflow as tf
            from utils import parse_fn, py_fn

            def local_fn(scale):
                def scaled(x):
                    return tf.random.uniform(()) * x * scale
                return scaled

            train = tf.data.TFRecordDataset(["a"]).map(parse_fn(224)).batch(32)
            valid = tf.data.TFRecordDataset(["b"]).map(py_fn(224)).batch(32)
            test = tf.data.TFRecordDataset(["c"]).map(local_fn(2.0)).batch(32)
            model.fit(train, validation_data=valid)
            model.evaluate(test)
        """,
    })
    # the stateless inner `parse` is parallelized by tf.data (no "not in sight" PL101); the
    # lambda calling `tf.py_function` is PL106; the random inner function stays serial (PL101)
    assert _found(root, "PL101", "PL106") == [("train.py", 10, "PL106"), ("train.py", 11, "PL101")]


def test_batch_size_passed_through_a_loader_function_then_shuffled(tmp_path):
    root = _project(tmp_path, {
        "datasets/loader.py": """
            import tensorflow_datasets as tfds

            def load(name, bs):
                return tfds.load(name, split="train", as_supervised=True, batch_size=bs)
        """,
        "train.py": """
            from datasets.loader import load

            ds = load("mnist", 64)
            ds = ds.shuffle(10000)
            model.fit(ds, epochs=3)
        """,
    })
    found = check_paths([root], select=["PL203"])
    assert [(Path(d.path).name, d.line) for d in found] == [("train.py", 4)]
    assert "load it without `batch_size`" in found[0].message and "datasets/loader.py:4" in found[0].message


def test_siblings_imported_through_sys_path_and_importlib(tmp_path):
    lib = """
        import tensorflow as tf

        def make_ds(files):
            return tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=4).batch(32)
    """
    root = _project(tmp_path, {
        "lib/data.py": lib,
        "common/loading.py": lib,
        "scripts/train.py": """
            import os
            import sys
            sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
            from data import make_ds
            model.fit(make_ds(["a"]).shuffle(1000), epochs=5)
        """,
        "tools/train.py": """
            import importlib.util
            from pathlib import Path
            spec = importlib.util.spec_from_file_location("loading", Path(__file__).parent.parent / "common/loading.py")
            loading = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loading)
            model.fit(loading.make_ds(["a"]).shuffle(1000), epochs=5)
        """,
    })
    assert _found(root, "PL203") == [("scripts/train.py", 5, "PL203"), ("tools/train.py", 6, "PL203")]


def test_a_pipeline_in_a_function_a_script_never_calls_gets_no_finding(tmp_path):
    """Study notes and kept-aside variants (C1): the script runs top to bottom and never calls
    `input_fn_old`; a module of definitions alone may be imported from outside and keeps them."""
    script = """
        import tensorflow as tf

        def input_fn_old(files):
            ds = tf.data.TFRecordDataset(files).repeat().shuffle(100)
            return ds.batch(32)

        def input_fn(files):
            return tf.data.TFRecordDataset(files).shuffle(100).repeat().batch(32)

        model.fit(input_fn(["a"]), steps_per_epoch=10)
    """
    root = _project(tmp_path / "script", {"requirements.txt": "tensorflow==2.4\n", "train.py": script})
    assert _found(root, "PL204", "PL103") == [("train.py", 8, "PL103")]
    library = _project(tmp_path / "library", {"requirements.txt": "tensorflow==2.4\n",
                                              "inputs.py": script.rsplit("model.fit", 1)[0]})
    assert _found(library, "PL204") == [("inputs.py", 4, "PL204")]


def test_a_handful_of_numbers_written_in_the_source_is_a_demo(tmp_path):
    root = _project(tmp_path, {"requirements.txt": "tensorflow==1.15\n", "demo.py": """
        import numpy as np
        import tensorflow as tf

        count = 11
        numbers = np.arange(count)
        squares = tf.data.Dataset.from_tensor_slices(numbers).map(lambda x: x ** 2).batch(3)
        noisy = tf.data.Dataset.range(100).map(lambda x: x + tf.random.uniform([], -10, 10, tf.int64))
        loaded = tf.data.Dataset.range(100).map(lambda i: load_image(i))
        for batch in squares:
            train_step(batch)
        for x in noisy:
            train_step(x)
        for x in loaded:
            train_step(x)
    """})
    # only the map that calls a function of unknown cost (it may read a file per index)
    assert _found(root, "PL101", "PL103") == [("demo.py", 8, "PL101"), ("demo.py", 8, "PL103")]


def test_one_optimizer_compiled_by_a_helper_called_once_per_model(tmp_path):
    """A notebook-style script: `cnn_model()` compiles the module's one Adam into a new model on
    every call; each call after the first is a reuse (TensorFlow 2.8: it runs, but the step count
    and the learning-rate schedule carry over from model to model)."""
    root = _project(tmp_path, {"requirements.txt": "tensorflow==2.8.0\n", "train.py": """
        import tensorflow as tf

        optimizer = tf.keras.optimizers.Adam(tf.keras.optimizers.schedules.InverseTimeDecay(1e-3, 100, 1.0))

        def cnn_model(units):
            model = tf.keras.Sequential([tf.keras.layers.Dense(units)])
            model.compile(optimizer=optimizer, loss="mse")
            return model

        vgg = cnn_model(8)
        resnet = cnn_model(16)
        dense = cnn_model(32)
    """})
    found = check_paths([root], select=["PL401"])
    assert [d.line for d in found] == [11, 12]
    assert "on TensorFlow 2.8 (requirements.txt) it runs" in found[0].message


def test_a_loop_that_copies_the_data_into_lists_is_no_training_loop(tmp_path):
    root = _project(tmp_path, {"requirements.txt": "tensorflow==2.8.0\n", "arrays.py": """
        import tensorflow as tf

        train_ds = tf.data.TFRecordDataset(["a"]).batch(32)
        images, labels = [], []
        for image, label in train_ds.unbatch():
            if label.numpy() == 1:
                images.append(image.numpy())
                labels.append(label.numpy())
    """})
    assert _found(root, "PL103") == []
