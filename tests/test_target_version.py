"""The TensorFlow and Keras each file targets (pipelint/target.py): inferred from the declaring files
above it and from the project's API, overridden by `target-version`, shown by `--show-settings`;
and the rules that depend on it, run on the same code under TensorFlow 2.4, 2.8 and 2.21."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from clirunner import separate_streams_runner
from pipelint.api import check_paths
from pipelint.cli import main
from pipelint.target import Target, TargetError, api_evidence, parse_target_version, target_for


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)  # the project's top: the walk stops here
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def _target(tmp_path: Path, declaring: dict[str, str], module: str = "train.py", source: str = "") -> Target:
    _project(tmp_path, {**declaring, module: source or "import tensorflow as tf\n"})
    return target_for(tmp_path / module, source)


# ---- inference from each kind of declaration


@pytest.mark.parametrize("declaring,tensorflow,keras,source", [
    ({"requirements.txt": "numpy\ntensorflow-gpu==2.4.1  # GPU build\n"}, (2, 4), 2, "requirements.txt"),
    ({"requirements-dev.txt": "tensorflow>=2.3,<2.6\n"}, (2, 5), 2, "requirements-dev.txt"),
    ({"requirements.txt": "tensorflow~=2.8.0\n"}, (2, 8), 2, "requirements.txt"),
    ({"requirements.txt": "tensorflow==2.17.0\n"}, (2, 17), 3, "requirements.txt"),
    ({"requirements.txt": "tensorflow>=2.8\n"}, (2, 21), 3, "requirements.txt"),  # a fresh install's
    ({"requirements.txt": "tensorflow==2.15\nkeras==2.15.0\n"}, (2, 15), 2, "requirements.txt"),
    ({"requirements.txt": "tensorflow==2.17\ntf-keras\n"}, (2, 17), 2, "requirements.txt"),
    ({"setup.py": "from setuptools import setup\nsetup(install_requires=['numpy', 'tensorflow>=2.3,<2.5'])\n"},
     (2, 4), 2, "setup.py"),
    ({"setup.cfg": "[options]\ninstall_requires =\n    numpy\n    tensorflow==2.6.2\n"}, (2, 6), 2, "setup.cfg"),
    ({"pyproject.toml": '[project]\nname = "x"\ndependencies = ["tensorflow==2.10.1"]\n'}, (2, 10), 2,
     "pyproject.toml"),
    ({"environment.yml": "name: x\ndependencies:\n  - python=3.7\n  - tensorflow-gpu=1.15.0\n"}, (1, 15), 2,
     "environment.yml"),
    ({"Pipfile": '[packages]\ntensorflow = "==2.2.0"\n'}, (2, 2), 2, "Pipfile"),
    ({"Dockerfile": "FROM tensorflow/tensorflow:2.4.1-gpu\nRUN pip install pandas\n"}, (2, 4), 2, "Dockerfile"),
    ({"Dockerfile": "FROM python:3.8\nRUN pip install tensorflow==2.7.0 pillow\n"}, (2, 7), 2, "Dockerfile"),
    ({"README.md": "# x\n\n## Install\n\n    pip install tensorflow==2.3.0 opencv-python\n"}, (2, 3), 2, "README.md"),
    ({"README.md": "# x\n\nTested with Tensorflow 1.14 and Python 3.6.\n"}, (1, 14), 2, "README.md"),
    ({"README.md": "# x\n\n## Environment\nTensorflow: 2.9.1  \nKeras: 2.9.0  \n"}, (2, 9), 2, "README.md"),
    # (pool 2041: shields.io badges)
    ({"README.md": "![TensorFlow](https://img.shields.io/badge/TensorFlow-2.5-orange?style=for-the-badge)\n"},
     (2, 5), 2, "README.md"),
    # (pool 2042: the Python a folder runs caps the TensorFlow pip installs there; Keras 3 needs 3.9)
    ({"requirements.txt": "tensorflow\nkeras\n", "Dockerfile": "FROM python:3.6\nRUN pip install -r requirements.txt\n"},
     (2, 6), 2, "requirements.txt, Python 3.6 in Dockerfile"),
    ({"runtime.txt": "python-3.7.12\n"}, (2, 11), 2, "Python 3.7 in runtime.txt"),
    ({"requirements.txt": "tensorflow>=2.5\n", "environment.yml": "dependencies:\n  - python=3.8\n"},
     (2, 13), 2, "requirements.txt, Python 3.8 in environment.yml"),
    ({"requirements.txt": "tensorflow==2.4.1\n", "Dockerfile": "FROM python:3.7-slim\n"}, (2, 4), 2, "requirements.txt"),
    ({"requirements.txt": "tensorflow\n", "Dockerfile": "FROM python:3.11\n"}, (2, 21), 3, "requirements.txt"),
])
def test_inferred_from_each_kind_of_declaration(tmp_path, declaring, tensorflow, keras, source):
    target = _target(tmp_path, declaring)
    assert (target.tensorflow_version, target.keras_major, target.source) == (tensorflow, keras, source)


def test_the_closest_declaration_wins_and_files_without_tensorflow_are_passed(tmp_path):
    _project(tmp_path, {
        "requirements.txt": "tensorflow==2.4.0\n",
        "services/api/requirements.txt": "flask\n",           # no TensorFlow: look further up
        "services/api/app.py": "import tensorflow as tf\n",
        "research/requirements.txt": "tensorflow==2.12\n",
        "research/train.py": "import tensorflow as tf\n",
    })
    assert target_for(tmp_path / "services/api/app.py", "").tensorflow == (2, 4)
    assert target_for(tmp_path / "research/train.py", "").tensorflow == (2, 12)


def test_a_pin_further_down_the_file_wins_over_an_unpinned_mention(tmp_path):
    # an environment export: the bare name the author typed first, the pins `pip freeze` wrote
    frozen = _target(tmp_path / "a", {"requirements.txt": "kaggle\ntensorflow-gpu\nKeras==2.3.1\ntensorflow==2.3.1\n"})
    assert frozen.tensorflow == (2, 3) and frozen.keras_major == 2
    nightly = _target(tmp_path / "b", {"requirements.txt": "tf-nightly\ntensorflow==2.3.1\n"})
    assert nightly.tensorflow_version == (2, 21)


def test_unpinned_and_undeclared_read_as_the_current_release(tmp_path):
    unpinned = _target(tmp_path / "a", {"requirements.txt": "tensorflow\n"})
    assert unpinned.tensorflow_version == (2, 21) and unpinned.keras_major == 3
    assert "unpinned" in unpinned.describe()
    undeclared = _target(tmp_path / "b", {})
    assert not undeclared.known and undeclared.tensorflow_version == (2, 21) and undeclared.keras_major == 3


def test_the_walk_stops_at_the_git_work_tree(tmp_path):
    (tmp_path / "requirements.txt").write_text("tensorflow==2.4\n")  # outside the project
    _project(tmp_path / "project", {"train.py": "import tensorflow as tf\n"})
    assert not target_for(tmp_path / "project" / "train.py", "").known


@pytest.mark.parametrize("source,tensorflow,keras,named", [
    ("import tensorflow as tf\nsess = tf.Session()\n", (1, 15), 2, "`tf.Session` in this module"),
    ("import tensorflow as tf\nfrom tensorflow.contrib import slim\n", (1, 15), 2, "`tensorflow.contrib`"),
    ("import keras\nmodel.fit_generator(gen, epochs=3)\n", None, 2, "`fit_generator` in this module"),
    ("import keras\nmodel.fit(seq, epochs=3, workers=4)\n", None, 2, "`fit(workers=...)` in this module"),
    ("import tensorflow as tf\nmodel.fit(ds, epochs=3)\n", None, 3, ""),
])
def test_inferred_from_the_api_when_nothing_is_declared(source, tensorflow, keras, named):
    target = target_for(None, source)
    assert (target.tensorflow, target.keras_major) == (tensorflow, keras)
    assert named in target.source


def test_a_range_is_narrowed_by_the_api(tmp_path):
    target = _target(tmp_path, {"requirements.txt": "tensorflow>=2.8.0\n"},
                     source="import tensorflow as tf\nmodel.fit(seq, use_multiprocessing=True)\n")
    assert (target.tensorflow, target.keras_major) == ((2, 15), 2)
    assert target.source == "requirements.txt, with `fit(use_multiprocessing=...)` in this module"


def test_the_api_of_connected_modules_counts(tmp_path):
    """A `Sequence` module is written for the Keras of the script that trains on it through a
    helper two imports away."""
    root = _project(tmp_path, {
        "generators.py": """
            import keras

            class DataGenerator(keras.utils.Sequence):
                def __init__(self, paths):
                    self.paths = paths
        """,
        "training.py": """
            def train_model(model, train, valid):
                model.fit_generator(train, validation_data=valid, epochs=5, workers=4)
        """,
        "train.py": """
            from generators import DataGenerator
            from training import train_model

            train_model(model, DataGenerator(paths), DataGenerator(valid_paths))
        """,
    })
    assert [d.code for d in check_paths([root], select=["PL407"])] == []
    result = separate_streams_runner().invoke(main, ["check", "--show-settings", str(root)])
    assert "generators.py: TensorFlow before 2.16, Keras 2 (`fit_generator` in training.py)" in result.output


def test_setting_overrides_and_is_checked(tmp_path):
    assert parse_target_version("2.4") == Target((2, 4), None, "target-version")
    assert parse_target_version("tf2.15+keras3") == Target((2, 15), 3, "target-version")
    assert parse_target_version("keras2").keras_major == 2
    for bad in ("latest", "9.1", "2.4+keras4"):
        with pytest.raises(TargetError):
            parse_target_version(bad)
    root = _project(tmp_path, {"requirements.txt": "tensorflow==2.4\n", "train.py": "import tensorflow as tf\n",
                               "pyproject.toml": '[tool.pipelint]\ntarget-version = "2.21"\n'})
    result = separate_streams_runner().invoke(main, ["check", "--show-settings", str(root / "train.py")])
    assert "TensorFlow 2.21, Keras 3 (target-version)" in result.output
    (root / "pyproject.toml").write_text('[tool.pipelint]\ntarget-version = "two point four"\n')
    result = separate_streams_runner().invoke(main, ["check", str(root)])
    assert result.exit_code == 2 and "target-version" in result.stderr and "Traceback" not in result.stderr
    result = separate_streams_runner().invoke(main, ["check", "--target-version", "1.99", str(root / "train.py"),
                                                     "--config", str(root / "pyproject.toml")])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1


# ---- the same code under TensorFlow 2.4, 2.8 and 2.21

TRAIN = """
    import tensorflow as tf

    def scale(x):
        return tf.io.parse_tensor(x, tf.float32) * 2.0

    class Batches(tf.keras.utils.Sequence):
        def __init__(self, paths):
            self.paths = paths

        def __len__(self):
            return len(self.paths)

    train = tf.data.TFRecordDataset(files).map(scale).batch(32)
    valid = tf.data.TFRecordDataset(files).shuffle(100).batch(32)
    test = tf.data.TFRecordDataset(files).prefetch(2).batch(32)
    model.fit(train, validation_data=valid, epochs=3)
    model.evaluate(test)
    sequence = Batches(paths)
    model.fit(sequence, epochs=3, use_multiprocessing=False)
"""


def _findings_under(tmp_path: Path, requirement: str) -> list[tuple[str, int]]:
    root = _project(tmp_path / requirement.replace("=", ""), {"requirements.txt": requirement + "\n",
                                                               "train.py": TRAIN})
    found = check_paths([root], select=["PL101", "PL103", "PL104", "PL406", "PL407"])
    return sorted((d.code, d.line) for d in found)


def test_the_same_code_under_three_declared_versions(tmp_path):
    assert _findings_under(tmp_path, "tensorflow==2.4.1") == [
        ("PL101", 13),   # no map_parallelization before 2.5
        ("PL103", 14),   # no injected prefetch before 2.11
        ("PL104", 15),
        ("PL407", 19),   # Keras 2: `fit` takes the workers
    ]
    assert _findings_under(tmp_path, "tensorflow==2.8.0") == [
        ("PL103", 14), ("PL104", 15), ("PL407", 19)]
    assert _findings_under(tmp_path, "tensorflow==2.21.0") == [
        ("PL406", 19),   # Keras 3 `fit` has no `use_multiprocessing`
        ("PL407", 6),    # Keras 3: the class takes the workers
    ]


def test_messages_name_the_version_and_where_it_came_from(tmp_path):
    root = _project(tmp_path, {"requirements.txt": "tensorflow==2.4.1\n", "train.py": TRAIN})
    messages = {d.code: d.message for d in check_paths([root], select=["PL101", "PL103", "PL407"])}
    assert "TensorFlow 2.4 (requirements.txt) does not parallelize maps" in messages["PL101"]
    assert "TensorFlow 2.4 (requirements.txt) injects no final prefetch" in messages["PL103"]
    assert "in Keras 2 (requirements.txt) one background thread calls `__getitem__` a batch at a time" in messages["PL407"]
    root = _project(tmp_path / "new", {"requirements.txt": "tensorflow==2.21\n", "train.py": TRAIN})
    messages = {d.code: d.message for d in check_paths([root], select=["PL406"])}
    assert "raises on Keras 3 (requirements.txt)" in messages["PL406"]


def test_a_notebook_takes_the_target_of_its_directory(tmp_path):
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": ["import tensorflow as tf\n", "ds = tf.data.TFRecordDataset(files).map(lambda x: x * 2 + 1)\n",
                       "model.fit(ds.batch(3))\n"]}
    notebook = {"cells": [cell], "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    root = _project(tmp_path, {"requirements.txt": "tensorflow==2.4\n", "nb.ipynb": json.dumps(notebook)})
    assert [d.code for d in check_paths([root], select=["PL101"])] == ["PL101"]
    (root / "requirements.txt").write_text("tensorflow==2.8\n")
    assert [d.code for d in check_paths([root], select=["PL101"])] == []


def test_a_notebooks_own_api_shows_its_keras(tmp_path):
    """Its cells' code, not the JSON's escaped lines, is read for the API (pool 2034's Keras-GAN
    notebooks: `keras.layers.advanced_activations` means Keras 2, where a shared optimizer runs)."""
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": ["from keras.layers.advanced_activations import LeakyReLU\n",
                       "from keras.optimizers import Adam\n",
                       "from keras.models import Sequential, Model\n",
                       "discriminator = Sequential([LeakyReLU()])\n",
                       "combined = Model(z, discriminator(z))\n",
                       "optimizer = Adam(0.0002, 0.5)\n",
                       "discriminator.compile(loss='binary_crossentropy', optimizer=optimizer)\n",
                       "combined.compile(loss='binary_crossentropy', optimizer=optimizer)\n"]}
    notebook = {"cells": [cell], "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    root = _project(tmp_path, {"requirements.txt": "keras\nmatplotlib\n", "gan.ipynb": json.dumps(notebook)})
    (finding,) = check_paths([root], select=["PL401"])
    assert "on the Keras 2 of TensorFlow before 2.11" in finding.message
    assert "`keras.layers.advanced_activations` in this module" in finding.message
    result = separate_streams_runner().invoke(main, ["check", "--show-settings", str(root / "gan.ipynb")])
    assert "Keras 2 (requirements.txt, with `keras.layers.advanced_activations` in this module)" in result.stdout


def test_the_cache_sees_a_changed_declaration(tmp_path):
    root = _project(tmp_path, {"requirements.txt": "tensorflow==2.4\n", "train.py": TRAIN})
    runner = separate_streams_runner()
    first = runner.invoke(main, ["check", "--select", "PL101", "--output-format", "concise", str(root)])
    assert "PL101" in first.output
    (root / "requirements.txt").write_text("tensorflow==2.8\n")
    second = runner.invoke(main, ["check", "--select", "PL101", "--output-format", "concise", str(root)])
    assert "PL101" not in second.output and second.exit_code == 0


# ---- shapes seen on projects nobody on the team had read


def test_a_keras2_sequence_of_another_module_trained_with_one_worker(tmp_path):
    """The `Sequence` reads images in `__getitem__` (data_generator.py); train.py trains on it with
    `fit` and no `workers`: Keras 2 loads one batch at a time. The message names the cost."""
    root = _project(tmp_path, {
        "requirements.txt": "tensorflow\n",  # unpinned: the code's Keras 2 paths narrow it
        "data_generator.py": """
            import cv2
            import numpy as np
            from tensorflow.python.keras.utils.data_utils import Sequence

            class DataGenerator(Sequence):
                def __init__(self, paths, batch_size=64):
                    self.paths, self.batch_size = paths, batch_size

                def __len__(self):
                    return len(self.paths) // self.batch_size

                def __getitem__(self, index):
                    return self._load(self.paths[index * self.batch_size:(index + 1) * self.batch_size])

                def _load(self, paths):
                    return np.stack([cv2.imread(p) for p in paths])
        """,
        "train.py": """
            import tensorflow as tf
            from data_generator import DataGenerator

            def train(model, paths):
                generator = DataGenerator(paths)
                model.fit(generator, epochs=10)
                model.fit(DataGenerator(paths), epochs=10, workers=1)  # a choice: left alone

            if __name__ == "__main__":
                train(build(), list_paths())
        """,
    })
    found = check_paths([root], select=["PL407"])
    assert [(d.path.rsplit("/", 1)[-1], d.line) for d in found] == [("train.py", 6)]
    assert "`fit` loads `DataGenerator` (its `__getitem__` calls `cv2.imread`) without `workers=`" in found[0].message
    assert "in Keras 2 (requirements.txt, with `fit(workers=...)` in this module) one background thread calls" \
        in found[0].message, found[0].message


def test_a_dataset_function_nothing_calls_is_not_a_pipeline(tmp_path):
    """TensorFlow 1.x project: `train_input_fn` is used by the estimator script, `csv_input_fn`
    by nothing (dead code): only the first one's missing prefetch is reported."""
    root = _project(tmp_path, {
        "requirements.txt": "tensorflow==1.15\n",
        "iris_data.py": """
            import tensorflow as tf

            def train_input_fn(features, labels, batch_size):
                dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
                return dataset.shuffle(1000).repeat().batch(batch_size)

            def csv_input_fn(csv_path, batch_size):
                dataset = tf.data.TextLineDataset(csv_path).skip(1)
                return dataset.shuffle(1000).repeat().batch(batch_size)
        """,
        "premade_estimator.py": """
            import tensorflow as tf
            import iris_data

            classifier.train(input_fn=lambda: iris_data.train_input_fn(x, y, 100), steps=1000)
        """,
    })
    assert [(d.path.rsplit("/", 1)[-1], d.line) for d in check_paths([root], select=["PL103"])] == [
        ("iris_data.py", 5)]


def test_a_projection_written_as_a_loop_is_cheap_on_any_release(tmp_path):
    """TensorFlow 1.13: no map is parallel by default, but a classmethod of another module that only
    splits the element's dict (with loops) costs nothing worth parallelizing; the decode does."""
    root = _project(tmp_path, {
        "requirements.txt": "tensorflow==1.13.1\n",
        "records.py": """
            FEATURES = ("spectrum", "tempo")

            class Record:
                @classmethod
                def split(cls, data):
                    features, labels = {}, {}
                    for item in FEATURES:
                        features[item] = data[item]
                    for item in data:
                        if item in FEATURES:
                            continue
                        labels[item] = data[item]
                    return features, labels
        """,
        "utils.py": """
            import tensorflow as tf
            from records import Record

            def decode(features, labels):
                return tf.io.decode_raw(features["spectrum"], tf.float32), labels

            def prepare(files):
                return tf.data.TFRecordDataset(files).map(Record.split).map(decode).batch(8).prefetch(1)
        """,
    })
    found = check_paths([root], select=["PL101"])
    assert [(d.line, d.column) for d in found] == [(8, 61)]  # `decode`, not the projection
    assert "records.py" not in found[0].message


@pytest.mark.parametrize("source,evidence", [
    ("image = tf.read_file(path)\n", "1.x `tf.read_file`"),
    ("it = ds.make_one_shot_iterator()\n", "1.x `make_one_shot_iterator`"),
    ("with tf.variable_scope('d'):\n    pass\n", "1.x `tf.variable_scope`"),
    ("tf.compat.v1.disable_eager_execution()\n", ""),  # TensorFlow 2 code in graph mode
    ("from keras.layers.convolutional import Conv2D\n", "keras2 `keras.layers.convolutional`"),
    ("from keras.layers import Conv2D\n", ""),
    ("model.evaluate(seq, use_multiprocessing=True)\n", "keras2 `evaluate(use_multiprocessing=...)`"),
    ("model.fit_generator(gen, samples_per_epoch=2000, nb_epoch=5)\n", "keras1 `samples_per_epoch`"),
    ("x = Convolution2D(32, 3, 3, border_mode='same')(x)\n", "keras1 `Convolution2D`"),
    # one per alternative of the Keras 2 pattern, each past the substring test in front of it
    ("from tensorflow.python.keras.layers import Dense\n", "keras2 `tensorflow.python.keras`"),
    ("from keras.utils.np_utils import to_categorical\n", "keras2 `keras.utils.np_utils`"),
    ("model.fit_generator(gen, epochs=3)\n", "keras2 `fit_generator`"),
    ("model.fit(x, workers=4)\n", "keras2 `fit(workers=...)`"),
    ("opt = SGD(0.01, lr=0.1)\n", "keras2 `SGD(lr=...)`"),
    ("import keras\nopt = Nadam(lr\t=0.1)\n", "keras2 `Nadam`"),
])
def test_api_evidence(source, evidence):
    from pipelint.target import api_evidence

    assert api_evidence(source) == evidence


def test_a_dockerfile_in_the_projects_environment_folder_declares_it(tmp_path):
    """`docker/dev/Dockerfile` at the project's top (beside a requirements.txt without TensorFlow)."""
    root = _project(tmp_path, {
        "requirements.txt": "numpy\nopencv-python\n",
        "docker/dev/Dockerfile": "FROM tensorflow/tensorflow:2.4.0-gpu\n",
        "train/train_unet.py": "import tensorflow as tf\n",
    })
    target = target_for(root / "train" / "train_unet.py", "")
    assert (target.tensorflow, target.source) == ((2, 4), "docker/dev/Dockerfile")


# ---- a standalone Keras pin, or a wheel, where TensorFlow itself is not named (pools 2032/2033)


@pytest.mark.parametrize("declaring,words,source", [
    # Keras 2.0-2.3 ran on TensorFlow 1.x (2.3 also on 2.0-2.2): an older release than 2.3
    ({"requirements.txt": "numpy==1.11.2\nKeras==2.0.4\n"}, "TensorFlow before 2.3", "`keras==2.0.4` in requirements.txt"),
    ({"README.md": "# x\n\nRequires keras 2.2.2 and python 3.6\n"}, "TensorFlow before 2.3", "`keras==2.2.2` in README.md"),
    # from 2.6 the keras package is released with TensorFlow, minor for minor
    ({"requirements.txt": "keras==2.8.0\n"}, "TensorFlow 2.8", "`keras==2.8.0` in requirements.txt"),
    # a wheel named by its URL
    ({"requirements.txt": "Keras==2.0.4\nhttps://storage.googleapis.com/tensorflow/linux/cpu/"
                          "tensorflow-1.0.0-cp27-none-linux_x86_64.whl\n"}, "TensorFlow 1.0", "requirements.txt"),
    ({"Dockerfile": "FROM python:3.6\nRUN pip install https://x/tensorflow_gpu-1.4.0-cp36-cp36m-linux_x86_64.whl\n"},
     "TensorFlow 1.4", "Dockerfile"),
    # a newer Keras pin says nothing of an older TensorFlow
    ({"requirements.txt": "keras>=2.4\n"}, "TensorFlow 2.21 (unpinned, requirements.txt)", "requirements.txt"),
])
def test_a_keras_pin_or_a_wheel_names_the_tensorflow(tmp_path, declaring, words, source):
    target = _target(tmp_path, declaring)
    assert target.describe_tensorflow().startswith(words), target.describe_tensorflow()
    assert target.source == source


def test_an_old_keras_pin_with_tensorflow_1_api_is_tensorflow_1(tmp_path):
    target = _target(tmp_path, {"requirements.txt": "keras==2.1.6\n"},
                     source="import tensorflow as tf\nsess = tf.Session()\n")
    assert target.tensorflow_version == (1, 15)
    assert target.source == "`keras==2.1.6` in requirements.txt, with `tf.Session` in this module"


def test_under_an_old_keras_pin_the_rules_read_an_old_tensorflow(tmp_path):
    """TensorFlow before 2.3: no map_parallelization, no injected prefetch, nothing "deprecated";
    ImageDataGenerator's advice is a tf.data pipeline or `fit_generator`'s workers."""
    root = _project(tmp_path, {"requirements.txt": "Keras==2.2.4\n", "train.py": """
        import tensorflow as tf
        from keras.preprocessing.image import ImageDataGenerator

        def parse(path):
            return tf.image.decode_jpeg(tf.io.read_file(path))

        files = tf.data.Dataset.list_files("data/*.jpg").map(parse).shuffle(100).batch(32)
        gen = ImageDataGenerator(rotation_range=20).flow_from_directory("data/train")
        model.fit_generator(gen, steps_per_epoch=1000, epochs=10)
        model.fit(files, epochs=10)
        """})
    messages = {d.code: d.message for d in check_paths([root], select=["PL101", "PL103", "PL403"])}
    assert "TensorFlow before 2.3 (`keras==2.2.4` in requirements.txt) does not parallelize maps" in messages["PL101"]
    assert "injects no final prefetch" in messages["PL103"]
    assert "deprecated" not in messages["PL403"]
    # the multi-backend Keras of that time trains on no tf.data dataset (pool 2035)
    assert messages["PL403"].endswith("on TensorFlow before 2.3 (`keras==2.2.4` in requirements.txt) load batches "
                                      "in parallel with `fit_generator(..., workers=N)`")


@pytest.mark.parametrize("flow,source", [
    ('flow_from_directory("data/train")', "`Dataset.list_files`, `tf.image.decode_image`"),
    ("flow(x_train, y_train)", "`Dataset.from_tensor_slices((x, y))`"),  # arrays in memory are sliced
])
def test_tf_keras_before_2_3_is_told_of_a_tf_data_pipeline(tmp_path, flow, source):
    root = _project(tmp_path, {"requirements.txt": "tensorflow==2.2.0\n", "train.py": f"""
        import tensorflow as tf
        gen = tf.keras.preprocessing.image.ImageDataGenerator(rotation_range=20).{flow}
        model.fit(gen, epochs=10)
        """})
    (message,) = [d.message for d in check_paths([root], select=["PL403"])]
    assert message.endswith(f"on TensorFlow 2.2 (requirements.txt) build a tf.data pipeline instead ({source} and "
                            "`tf.image` random ops in a parallel `map`); or, on Keras 2, load batches in parallel "
                            "with `fit(..., workers=N, use_multiprocessing=True)`")


def test_keras_1_arguments_mean_standalone_keras_before_tensorflow_2_3(tmp_path):
    """`nb_epoch`, `samples_per_epoch`, `Convolution2D`: only standalone Keras up to 2.3 took them."""
    root = _project(tmp_path, {"train.py": """
        from keras.preprocessing.image import ImageDataGenerator
        gen = ImageDataGenerator(zoom_range=0.2).flow_from_directory("data/train")
        model.fit_generator(gen, samples_per_epoch=20000, nb_epoch=50)
        """})
    target = target_for(root / "train.py", (root / "train.py").read_text())
    assert target.describe_tensorflow() == "TensorFlow before 2.3 (`samples_per_epoch` in this module)"
    (message,) = [d.message for d in check_paths([root], select=["PL403"])]
    assert message.endswith("load batches in parallel with `fit_generator(..., workers=N)` (`nb_worker=N` on Keras 1)")


def test_before_tf_data_the_advice_is_workers_alone(tmp_path):
    root = _project(tmp_path, {"requirements.txt": "https://x/tensorflow-1.0.0-cp27-none-linux_x86_64.whl\n",
                               "train.py": """
        from keras.preprocessing.image import ImageDataGenerator
        gen = ImageDataGenerator(zoom_range=0.2).flow_from_directory("data/train")
        model.fit_generator(gen, steps_per_epoch=1000, epochs=10)
        """})
    (message,) = [d.message for d in check_paths([root], select=["PL403"])]
    assert message.endswith("on TensorFlow 1.0 (requirements.txt) load batches in parallel with "
                            "`fit_generator(..., workers=N)`")


def test_standalone_keras_2_of_an_unnamed_release_is_told_of_fit_generator_workers(tmp_path):
    """`fit` took generators and `workers` only from Keras 2.3 (pool 2036: `keras.engine` projects on
    Keras 2.2, where the `fit(workers=...)` advice fails); `fit_generator(workers=N)` runs on all."""
    root = _project(tmp_path, {"train.py": """
        from keras.layers.convolutional import Conv2D
        from keras.preprocessing.image import ImageDataGenerator
        gen = ImageDataGenerator(zoom_range=0.2).flow_from_directory("data/train")
        model.fit_generator(gen, steps_per_epoch=1000, epochs=10)
        """})
    (message,) = [d.message for d in check_paths([root], select=["PL403"])]
    assert message.endswith("; or, on Keras 2, load batches in parallel with `fit_generator(..., workers=N)` "
                            "(`fit(..., workers=N)` from Keras 2.3)")


@pytest.mark.parametrize("old_import", ["from keras.engine import Model", "from keras.engine import (Input, Layer)",
                                        "from keras.engine.topology import Layer"])
def test_names_only_old_keras_engine_exported_mark_keras_before_2_3(tmp_path, old_import):
    """Standalone Keras up to 2.3 exported `Model`, `Input`, `Layer`... from `keras.engine` (and
    had `keras.engine.topology`); Keras 2.4 had no `keras.engine` and 2.6's exports none of them
    (pool 2036: `from keras.engine import Model` beside `fit_generator` and `logs['acc']`)."""
    root = _project(tmp_path, {"train.py": "\n        " + old_import + """
        from keras.preprocessing.image import ImageDataGenerator
        gen = ImageDataGenerator(zoom_range=0.2).flow_from_directory("data/train")
        model.fit_generator(gen, steps_per_epoch=1000, epochs=10)
        """})
    (message,) = [d.message for d in check_paths([root], select=["PL403"])]
    assert message.endswith("load batches in parallel with `fit_generator(..., workers=N)`")
    assert "on TensorFlow before 2.3 (`from keras.engine" in message


def test_keras_engine_modules_kept_by_later_keras_2_are_no_such_mark():
    assert api_evidence("from keras.engine.training import Model\n") == "keras2 `keras.engine`"
    assert api_evidence("from keras.engine import training\n") == "keras2 `keras.engine`"


def test_a_notebook_whose_outputs_show_old_keras_banner_is_read_as_keras_before_2_3(tmp_path):
    """A notebook run on standalone Keras up to 2.3 keeps "Using TensorFlow backend." in its saved
    outputs (pool 2036: such notebooks were told of `fit(workers=N)`, which that Keras lacks)."""
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": 1, "source": [
                  "from keras.preprocessing.image import ImageDataGenerator\n",
                  "gen = ImageDataGenerator(zoom_range=0.2).flow_from_directory('data/train')\n",
                  "model.fit_generator(gen, steps_per_epoch=1000, epochs=10)\n"],
              "outputs": [{"name": "stderr", "output_type": "stream", "text": ["Using TensorFlow backend.\n"]}]}]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    (tmp_path / "train.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    (message,) = [d.message for d in check_paths([tmp_path], select=["PL403"])]
    assert "on TensorFlow before 2.3 (`Using TensorFlow backend.` (printed) in this module)" in message
    assert message.endswith("load batches in parallel with `fit_generator(..., workers=N)`")
    result = separate_streams_runner().invoke(main, ["check", "--show-settings", str(tmp_path / "train.ipynb")])
    assert "`Using TensorFlow backend.` (printed)" in result.output
    cells[0]["outputs"] = []
    (tmp_path / "train.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    (message,) = [d.message for d in check_paths([tmp_path], select=["PL403"])]
    assert "(`fit(..., workers=N)` from Keras 2.3)" in message


def test_a_script_beside_scripts_of_tensorflow_1_is_read_as_theirs(tmp_path):
    """Pool 2036: `image_test_VGG.py` imports nothing of its folder, whose other scripts use
    `tf.Session` and `tf.placeholder` (and are written in GBK, which the index must read as the
    engine does, by their coding line); the folder's scripts run in one environment."""
    root = _project(tmp_path, {"train_cnn.py": "import tensorflow as tf\nsess = tf.Session()\n",
                               "test_cnn.py": "import tensorflow as tf\nx = tf.placeholder(tf.float32)\n",
                               "train_vgg.py": "import tensorflow as tf\nds = tf.data.TFRecordDataset(f).map(parse)\n"})
    (root / "old.py").write_bytes("# coding=gbk\n# 读取\nimport tensorflow as tf\nv = tf.variable_scope('a')\n"
                                  .encode("gbk"))
    result = separate_streams_runner().invoke(main, ["check", "--show-settings", str(root)])
    line = next(line for line in result.output.splitlines() if "train_vgg.py" in line)
    assert "TensorFlow 1.x" in line and "beside it" in line
    (message,) = [d.message for d in check_paths([root], select=["PL101"])]
    assert "TensorFlow 1.x" in message, message


def test_a_script_beside_mostly_silent_scripts_keeps_its_own_target(tmp_path):
    root = _project(tmp_path, {"old.py": "import tensorflow as tf\nsess = tf.Session()\n",
                               **{f"new_{n}.py": "import tensorflow as tf\nx = tf.constant(1)\n" for n in range(3)},
                               "train.py": "import tensorflow as tf\nds = tf.data.TFRecordDataset(f).map(parse)\n"})
    result = separate_streams_runner().invoke(main, ["check", "--show-settings", str(root / "train.py")])
    assert "TensorFlow 2.21, Keras 3 (not declared" in result.output


def test_a_notebook_whose_training_log_says_acc_of_accuracy_is_read_as_keras_before_2_3(tmp_path):
    """Keras before 2.3 logged the `"accuracy"` metric as `acc` (pool 2036: a notebook whose saved
    log shows `- acc: 0.71` was told of `fit(workers=N)`); a model compiled with `"acc"` itself
    logs `acc` on every release, and says nothing."""
    def notebook(metric: str) -> str:
        source = ["from keras.preprocessing.image import ImageDataGenerator\n",
                  "gen = ImageDataGenerator(zoom_range=0.2).flow_from_directory('data/train')\n",
                  f"model.compile('adam', 'categorical_crossentropy', metrics=['{metric}'])\n",
                  "model.fit_generator(gen, steps_per_epoch=1000, epochs=10)\n"]
        log = ["Epoch 1/10\n", "100/100 [==============================] - 31s - loss: 0.61 - acc: 0.71\n"]
        return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "execution_count": 1, "source": source,
                                      "outputs": [{"name": "stdout", "output_type": "stream", "text": log}]}],
                           "metadata": {}, "nbformat": 4, "nbformat_minor": 4})
    (tmp_path / "train.ipynb").write_text(notebook("accuracy"), encoding="utf-8")
    (message,) = [d.message for d in check_paths([tmp_path], select=["PL403"])]
    assert "on TensorFlow before 2.3 (`acc` in the training log of `metrics=['accuracy']` (printed)" in message
    (tmp_path / "train.ipynb").write_text(notebook("acc"), encoding="utf-8")
    (message,) = [d.message for d in check_paths([tmp_path], select=["PL403"])]
    assert "(`fit(..., workers=N)` from Keras 2.3)" in message


def test_tensorflow_1_code_is_read_as_tensorflow_1_whatever_a_tensorflow_2_pin_says(tmp_path):
    """Pool 2037: requirements.txt pins tensorflow==2.6.1 over modules of `tf.contrib`,
    `tf.Session` and `make_initializable_iterator`, which no TensorFlow 2 has: the code ran on 1.x,
    where `tf.data.AUTOTUNE` is spelled `tf.data.experimental.AUTOTUNE`."""
    root = _project(tmp_path, {"requirements.txt": "tensorflow==2.6.1\n", "load.py": """
        import tensorflow as tf
        sess = tf.Session()
        files = tf.data.Dataset.list_files("data/*.bin")
        ds = files.interleave(lambda f: tf.data.FixedLengthRecordDataset(f, 64), cycle_length=4)
        ds = ds.map(parse).batch(32)
        it = ds.make_initializable_iterator()
        model.fit(ds, epochs=3)
        """})
    by_code = {d.code: d for d in check_paths([root], select=["PL101", "PL102"])}
    assert "pass `num_parallel_calls=tf.data.experimental.AUTOTUNE`" in by_code["PL102"].message
    assert "TensorFlow 1.x" in by_code["PL101"].message
    assert "which no release requirements.txt declares has" in by_code["PL101"].message
    (fix,) = {edit.content for edit in by_code["PL102"].fix.edits}
    assert fix == ", num_parallel_calls=tf.data.experimental.AUTOTUNE"


@pytest.mark.parametrize(("pin", "spelling"), [("2.3.0", "tf.data.experimental.AUTOTUNE"), ("2.4.1", "tf.data.AUTOTUNE")])
def test_autotune_is_spelled_as_the_target_spells_it(tmp_path, pin, spelling):
    """`tf.data.AUTOTUNE` came to the core API in TensorFlow 2.4 (its release notes); before, from
    1.13, it is `tf.data.experimental.AUTOTUNE`."""
    root = _project(tmp_path, {"requirements.txt": f"tensorflow=={pin}\n", "train.py": """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files).map(lambda r: tf.io.parse_single_example(r, spec)).batch(32)
        model.fit(ds, epochs=3)
        model.fit(tf.data.TFRecordDataset(files).shuffle(100).batch(32), epochs=3)
        """})
    found = {d.code: d for d in check_paths([root], select=["PL101", "PL103"])}
    assert f"pass `num_parallel_calls={spelling}`" in found["PL101"].message
    assert f"`.prefetch({spelling})`" in found["PL103"].message


def test_tf1_names_through_tensorflow_2s_compat_v1_and_keras_2_layer_modules_read_as_attributes():
    """Pool 2042: `import tensorflow.compat.v1 as tf` makes `tf.InteractiveSession` TensorFlow 2's
    compat API (no evidence of 1.x, beside a `tensorflow==2.9.3` pin); a layer class read through
    a Keras 2 module (`keras.layers.normalization.BatchNormalization`) is Keras 2 evidence, as the
    module's import is."""
    assert api_evidence("import tensorflow.compat.v1 as tf\ns = tf.InteractiveSession()\n") == ""
    assert api_evidence("import tensorflow as tf\ns = tf.InteractiveSession()\n") == "1.x `tf.InteractiveSession`"
    assert api_evidence("import tensorflow.compat.v1 as tf\nfrom tensorflow.contrib import slim\n") == \
        "1.x `tensorflow.contrib`"
    assert api_evidence("import keras\nok = isinstance(layer, keras.layers.normalization.BatchNormalization)\n") == \
        "keras2 `keras.layers.normalization`"
    assert api_evidence("import keras\nlayer = keras.layers.BatchNormalization()\n") == ""
