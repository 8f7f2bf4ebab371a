"""Issue 18: whole-project analysis. Datasets built in one module and shuffled, cached, batched or
fitted in others are followed across modules; findings stay in the file that holds the op and
name the other module's line; the cache re-checks a file when a module it depends on changes."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from benchmarks.synthetic_project import expected, write_project
from clirunner import separate_streams_runner
from pipelint import check_paths, check_source
from pipelint.cli import main
from pipelint.project import ProjectIndex
from rule_options import STRICT_PREFETCH_TOML

FILES = {
    "pyproject.toml": "[project]\nname = 'proj'\n",
    "src/proj/__init__.py": "",
    "src/proj/data.py": """
        import tensorflow as tf


        def parse(record):
            return tf.io.parse_single_example(record, {"x": tf.io.FixedLenFeature([], tf.float32)})


        def load(files):
            ds = tf.data.TFRecordDataset(files)
            ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE)
            ds = ds.shuffle(10_000)
            return ds


        def shards(files):
            parts = []
            for name in files:
                parts.append(tf.data.TFRecordDataset(name).shuffle(1_000))
            return parts
        """,
    # serial maps, one random, then a cache: applied with `train.apply(pipeline.prepare)`
    "src/proj/pipeline.py": """
        import tensorflow as tf


        def decode(x):
            return tf.image.decode_jpeg(x)


        def augment(x):
            return tf.image.random_flip_left_right(x)


        def prepare(ds):
            ds = ds.map(decode)
            ds = ds.map(augment)
            ds = ds.cache()
            return ds
        """,
    # never names TensorFlow: it only receives datasets
    "src/proj/batching.py": '''
        """Batching helpers."""


        def finish(ds, size):
            return ds.batch(size).shuffle(64).prefetch(2)
        ''',
    # never names TensorFlow either; keeps the dataset on `self` in one method, caches it in another
    "src/proj/trainer.py": """
        class Trainer:
            def __init__(self, dataset, model):
                self.dataset = dataset
                self.model = model

            def fit(self):
                self.dataset = self.dataset.cache().batch(32).prefetch(2)
                self.model.fit(self.dataset, epochs=10)
        """,
    "src/proj/train.py": """
        import tensorflow as tf

        from proj import data, pipeline
        from proj.batching import finish
        from proj.trainer import Trainer

        train = data.load(["a.tfrecord"])
        train = train.apply(pipeline.prepare)
        train = finish(train, 32)

        parts = data.shards(["b.tfrecord", "c.tfrecord"])
        extra = parts[0]
        for part in parts[1:]:
            extra = extra.concatenate(part)
        extra = extra.cache().batch(32).prefetch(tf.data.AUTOTUNE)

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        Trainer(data.load(["d.tfrecord"]), model).fit()
        model.fit(train, epochs=3)
        model.fit(extra, epochs=3)
        """,
    # names TensorFlow, but nothing hands it a dataset and nothing it does is tf.data's
    "src/proj/report.py": """
        import tensorflow as tf


        def summarize(frame):
            return frame.map(str).filter(len)
        """,
}

# What a reader expects, in the file that holds each op: (file, line, code, end of the message).
EXPECTED = {
    ("batching.py", 5, "PL203", ""),  # `shuffle` of batches (data.py's own shuffle is not named)
    # `decode` is stateless: tf.data parallelizes its map; `augment`'s random op keeps it serial
    ("pipeline.py", 14, "PL101", ""),
    ("pipeline.py", 15, "PL201", "(shuffled in data.py:11)"),  # cache after data.py's shuffle
    ("pipeline.py", 15, "PL202", ""),  # cache after the random map
    ("pipeline.py", 15, "PL301", ""),  # a TFRecord file kept whole in memory
    ("train.py", 15, "PL201", "(shuffled in data.py:18)"),  # the list's shuffled parts, concatenated
    ("train.py", 15, "PL301", ""),
    ("trainer.py", 7, "PL201", "(shuffled in data.py:11)"),  # kept on self in __init__, cached in fit
    ("trainer.py", 7, "PL301", ""),
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def _found(diagnostics) -> set[tuple[str, int, str, str]]:
    return {(os.path.basename(d.path), d.line, d.code,
             d.message[d.message.rindex(" ("):].strip() if d.message.endswith(")") and " (shuffled" in d.message
             else "") for d in diagnostics}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    _write(tmp_path, FILES)
    return tmp_path


def test_the_whole_project_gets_exactly_the_findings_a_reader_expects(project):
    assert _found(check_paths([project], select=["ALL"])) == EXPECTED


def test_one_file_given_still_follows_the_modules_it_imports(project):
    found = _found(check_paths([project / "src/proj/train.py"], select=["ALL"]))
    assert found == {e for e in EXPECTED if e[0] == "train.py"}


def test_a_module_alone_takes_a_parameter_for_a_dataset_from_its_use(project):
    # No caller in sight (one file, as the flake8 plugin and --stdin-filename check it).
    source = (project / "src/proj/pipeline.py").read_text()
    found = {(d.line, d.code): d.message for d in check_source(source, "pipeline.py", select=["ALL"])}
    assert set(found) == {(14, "PL101"), (15, "PL202")}
    assert all(m.endswith("(`ds` is treated as a tf.data dataset from its use)") for m in found.values())


def test_a_parameter_with_other_uses_is_not_taken_for_a_dataset():
    source = textwrap.dedent("""
        import tensorflow as tf

        def prepare(ds):
            ds = ds.map(decode)
            print(ds.shape)
            return ds.shuffle(8).batch(4)

        def rows(frame):
            return frame.map(str).filter(len)
    """)
    assert check_source(source, "x.py", select=["ALL"]) == []


def test_a_module_that_never_names_tensorflow_is_checked_only_when_it_receives_datasets(project):
    (project / "src/proj/train.py").write_text("import tensorflow as tf\n")
    found = _found(check_paths([project], select=["ALL"]))
    assert not {f for f in found if f[0] in ("batching.py", "trainer.py")}


def test_editing_one_module_changes_the_findings_cached_for_another(project, monkeypatch):
    monkeypatch.chdir(project)
    runner = separate_streams_runner()

    def run() -> list[str]:
        result = runner.invoke(main, ["check", "--select", "ALL", "--output-format", "concise", "--jobs", "1",
                                      "--exit-zero", "src"], catch_exceptions=False)
        return [line for line in result.stdout.splitlines() if line.startswith("src/")]

    cold = run()
    assert run() == cold  # warm: replayed
    assert any("trainer.py:7" in line and "PL201" in line for line in cold)
    data = project / "src/proj/data.py"
    data.write_text(data.read_text().replace("    ds = ds.shuffle(10_000)\n", ""))
    edited = run()
    # trainer.py and pipeline.py are unchanged, but what data.py hands them no longer shuffles.
    assert not any("trainer.py:7" in line and "PL201" in line for line in edited)
    assert not any("pipeline.py:15" in line and "PL201" in line for line in edited)
    assert any("train.py:15" in line and "PL201" in line for line in edited)


def test_the_cache_key_of_a_file_depends_on_the_modules_it_uses_not_on_others(project):
    files = sorted((project / "src/proj").glob("*.py"))
    before = ProjectIndex.build(files)
    report = project / "src/proj/report.py"
    report.write_text(report.read_text() + "\n\ndef more(frame):\n    return frame.map(repr)\n")
    after_report = ProjectIndex.build(files)
    data = project / "src/proj/data.py"
    data.write_text("\n" + data.read_text())
    after_data = ProjectIndex.build(files)
    trainer = project / "src/proj/trainer.py"
    assert before.key_of(trainer) == after_report.key_of(trainer)
    assert after_report.key_of(trainer) != after_data.key_of(trainer)


def test_the_cache_key_follows_imports_transitively_and_through_cycles(tmp_path):
    # train -> loader -> io <-> codecs (a cycle); unrelated stands apart.
    _write(tmp_path, {
        "pyproject.toml": "",
        "pkg/__init__.py": "",
        "pkg/train.py": "from pkg.loader import load\n\nds = load().batch(8)\n",
        "pkg/loader.py": "from pkg import io\n\ndef load():\n    return io.read().shuffle(10)\n",
        "pkg/io.py": "from pkg import codecs\n\ndef read():\n    return codecs.decode().map(len)\n",
        "pkg/codecs.py": "from pkg import io\n\ndef decode():\n    return io.read().cache()\n",
        "pkg/unrelated.py": "def other(ds):\n    return ds.batch(2)\n",
    })
    files = sorted((tmp_path / "pkg").glob("*.py"))
    before = ProjectIndex.build(files)
    (tmp_path / "pkg/unrelated.py").write_text("def other(ds):\n    return ds.batch(3).cache()\n")
    after_unrelated = ProjectIndex.build(files)
    codecs = tmp_path / "pkg/codecs.py"
    codecs.write_text(codecs.read_text() + "\n\ndef more(ds):\n    return ds.prefetch(1)\n")
    after_codecs = ProjectIndex.build(files)
    for name in ("train", "loader", "io"):
        path = tmp_path / "pkg" / f"{name}.py"
        assert before.key_of(path) == after_unrelated.key_of(path), name
        assert after_unrelated.key_of(path) != after_codecs.key_of(path), name


def test_summaries_made_in_worker_processes_are_those_made_in_one(project, monkeypatch):
    from pipelint.project import index as index_module

    monkeypatch.setattr(index_module, "_MIN_MODULES_FOR_WORKERS", 2)
    files = sorted((project / "src/proj").glob("*.py"))
    one, many = ProjectIndex.build(files, jobs=1), ProjectIndex.build(files, jobs=2)
    assert {name: (m.to_json(), m.digest) for name, m in one.modules.items()} == \
        {name: (m.to_json(), m.digest) for name, m in many.modules.items()}
    assert (one.callers, one.consumers, one.aliases) == (many.callers, many.consumers, many.aliases)
    assert [one.key_of(f) for f in files] == [many.key_of(f) for f in files]


def test_worker_processes_report_what_one_process_does(tmp_path):
    write_project(tmp_path, 20)
    # (prep_K's serial map is minor speed: train_K caches what it makes; shown here too)
    (tmp_path / "pyproject.toml").write_text("[tool.pipelint]\nshow-minor-speed = true\n")
    one = check_paths([tmp_path], select=["ALL"], jobs=1)
    many = check_paths([tmp_path], select=["ALL"], jobs=2)
    assert one == many
    assert {(os.path.basename(d.path), d.line, d.code) for d in one} == expected(20)


def test_a_warm_run_reads_the_summaries_it_kept(project, monkeypatch):
    from pipelint.project import index as index_module

    monkeypatch.chdir(project)
    parsed: list[str] = []
    real = index_module.summarise

    def counting(name, *args, **kwargs):
        parsed.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(index_module, "summarise", counting)
    runner = separate_streams_runner()
    arguments = ["check", "--select", "ALL", "--jobs", "1", "--exit-zero", "src"]
    cold = runner.invoke(main, arguments, catch_exceptions=False).stdout
    assert sorted(parsed) == ["proj", "proj.batching", "proj.data", "proj.pipeline", "proj.report",
                              "proj.train", "proj.trainer"]
    parsed.clear()
    assert runner.invoke(main, arguments, catch_exceptions=False).stdout == cold
    assert parsed == []


def test_scripts_in_directories_of_their_own_import_their_own_siblings(tmp_path):
    # Two examples, each a `data.py` beside a `train.py`: each train.py uses its own data.py.
    for example, buffer in (("a", "shuffle(100)"), ("b", "repeat()")):
        _write(tmp_path / "examples" / example, {
            "data.py": f"""
                import tensorflow as tf

                def load(files):
                    return tf.data.TFRecordDataset(files).{buffer}
                """,
            "train.py": """
                import data

                ds = data.load(["x.tfrecord"]).cache()
                model.fit(ds, epochs=2)
                """,
        })
    (tmp_path / ".git").mkdir()
    found = {(Path(d.path).parent.name, d.code) for d in check_paths([tmp_path], select=["PL201", "PL209"])}
    assert found == {("a", "PL201")}


def test_a_class_of_the_module_keeps_the_dataset_on_self_for_its_other_methods():
    source = textwrap.dedent("""
        import tensorflow as tf

        class Trainer:
            def __init__(self, files):
                self.ds = tf.data.TFRecordDataset(files).shuffle(1000)

            def fit(self, model):
                model.fit(self.ds.cache().batch(8).prefetch(2), epochs=3)

        Trainer(["a.tfrecord"]).fit(model)
    """)
    found = {(d.line, d.code) for d in check_source(source, "t.py", select=["PL201"])}
    assert found == {(9, "PL201")}


def test_datasets_collected_in_a_list_reach_what_combines_them():
    source = textwrap.dedent("""
        import tensorflow as tf

        parts = []
        for name in ["a", "b"]:
            parts.append(tf.data.TFRecordDataset(name).shuffle(100))
        mixed = tf.data.Dataset.sample_from_datasets(parts).cache().batch(8).prefetch(2)
    """)
    found = {(d.line, d.code) for d in check_source(source, "t.py", select=["PL201"])}
    assert found == {(7, "PL201")}


# Datasets made at one module's top level (or returned by its functions) and used by a module
# that imports them: the importer's uses are the consumers the exporting module's ops are judged by.
EXPORTS = {
    ".git/HEAD": "",
    "pyproject.toml": STRICT_PREFETCH_TOML,  # PL103 judges every pipeline, as before TF 2.9
    "dataset.py": """
        import tensorflow as tf

        train_dataset = tf.data.Dataset.list_files("train/*.jpg")
        train_dataset = train_dataset.map(load, num_parallel_calls=tf.data.AUTOTUNE)
        train_dataset = train_dataset.shuffle(400)
        train_dataset = train_dataset.batch(1)

        test_dataset = tf.data.Dataset.list_files("test/*.jpg")
        test_dataset = test_dataset.map(load)
        test_dataset = test_dataset.batch(1)
        """,
    # never names a tf.data method of its own: only loops and looks
    "train.py": """
        from dataset import train_dataset, test_dataset


        def fit(train_ds, epochs, test_ds):
            for epoch in range(epochs):
                for example_input, example_target in test_ds.take(1):
                    show(example_input, example_target)
                for n, (input_image, target) in train_ds.enumerate():
                    train_step(input_image, target, epoch)


        fit(train_dataset, 150, test_dataset)
        """,
}


def _codes_in(found, name: str) -> set[tuple[int, str]]:
    return {(line, code) for file, line, code, _ in found if file == name}


def test_an_importers_uses_of_module_level_datasets_are_their_consumers(tmp_path):
    _write(tmp_path, EXPORTS)
    found = _found(check_paths([tmp_path], select=["PL101", "PL103"]))
    # The training set is looped over every epoch with no prefetch; the test set's serial map
    # only feeds a look at one batch.
    assert _codes_in(found, "dataset.py") == {(6, "PL103")}
    alone = check_source((tmp_path / "dataset.py").read_text(), "dataset.py", select=["PL101", "PL103"])
    assert {(d.line, d.code) for d in alone} == {(9, "PL101")}  # no importer in sight: who knows


def test_an_importers_uses_of_what_a_function_returns_are_its_consumers(tmp_path):
    _write(tmp_path, {
        ".git/HEAD": "",
        "pyproject.toml": STRICT_PREFETCH_TOML,
        "datasets/mnist.py": """
            import tensorflow as tf
            import tensorflow_datasets as tfds


            def prepare_dataset(batch_size, seed=42):
                train_ds = tfds.load("mnist", split="train")
                test_ds = tfds.load("mnist", split="test")
                train_ds = train_ds.shuffle(buffer_size=10, seed=seed).batch(batch_size)
                test_ds = test_ds.shuffle(buffer_size=10, seed=seed).batch(batch_size)
                return train_ds, test_ds
            """,
        # a star import, a progress bar around a numpy iterator, inside a function
        "main.py": """
            from datasets.mnist import *
            from tqdm import tqdm


            def train(epochs):
                for _ in range(epochs):
                    for batch in tqdm(train_ds.as_numpy_iterator(), total=total):
                        state = step(state, batch)


            train_ds, test_ds = prepare_dataset(100)
            total = train_ds.cardinality().numpy()
            print(test_ds.cardinality().numpy())
            train(10)
            """,
    })
    found = _found(check_paths([tmp_path], select=["PL103", "PL205"]))
    # Fixed seed on the training set, looped over every epoch; the test set is only counted.
    assert _codes_in(found, "mnist.py") == {(8, "PL103"), (8, "PL205")}


def test_datasets_handed_on_through_two_functions_of_the_calling_module(tmp_path):
    _write(tmp_path, {
        "train_utils/__init__.py": "",
        "train_utils/preprocessing.py": """
            import tensorflow as tf


            def resize(image, label):
                return tf.image.random_flip_left_right(tf.image.resize_with_pad(image, 224, 224)), label


            def preproc(train_ds, test_ds):
                train_ds = train_ds.map(resize)
                test_ds = test_ds.map(resize)
                return train_ds, test_ds
            """,
        # `main` gets them from `get_dataset` and hands them to `preprocess_dataset`, whose
        # parameters are only passed on: no call of this module names a dataset outright
        "train.py": """
            import tensorflow as tf
            from train_utils.preprocessing import preproc


            def get_dataset(batch_size):
                (x, y), (tx, ty) = tf.keras.datasets.cifar10.load_data()
                train = tf.data.Dataset.from_tensor_slices((x, y))
                test = tf.data.Dataset.from_tensor_slices((tx, ty))
                return train.batch(batch_size), test.batch(batch_size)


            def preprocess_dataset(args, train_dataset, test_dataset):
                if args.augment:
                    return preproc(train_dataset, test_dataset)
                return train_dataset, test_dataset


            def main(args, model):
                train_dataset, test_dataset = get_dataset(args.batch_size)
                train_dataset, test_dataset = preprocess_dataset(args, train_dataset, test_dataset)
                train_dataset = train_dataset.prefetch(tf.data.AUTOTUNE)
                test_dataset = test_dataset.prefetch(tf.data.AUTOTUNE)
                model.fit(train_dataset, epochs=3, validation_data=test_dataset)


            if __name__ == "__main__":
                main(parse(), build())
            """,
    })
    found = _found(check_paths([tmp_path], select=["ALL"]))
    # A serial map over the batches `main` fits on (and, prefetched there, no PL103 here); the
    # test split's map, only validated on, is minor speed, not shown by default.
    assert _codes_in(found, "preprocessing.py") == {(9, "PL101")}
    index = ProjectIndex.build(sorted(tmp_path.rglob("*.py")))
    assert index.callers == {"train_utils.preprocessing": {"train"}}


def test_editing_an_importer_changes_the_findings_cached_for_the_exporter(tmp_path, monkeypatch):
    _write(tmp_path, EXPORTS)
    monkeypatch.chdir(tmp_path)
    runner = separate_streams_runner()

    def run() -> list[str]:
        result = runner.invoke(main, ["check", "--select", "PL103", "--output-format", "concise", "--jobs", "1",
                                      "--exit-zero", "."], catch_exceptions=False)
        return [line for line in result.stdout.splitlines() if "PL103" in line]

    assert [line.split(":")[:2] for line in run()] == [["dataset.py", "6"]]
    train = tmp_path / "train.py"
    # dataset.py is unchanged, but train.py now only looks at one batch of the training set.
    train.write_text(train.read_text().replace("train_ds.enumerate()", "enumerate(train_ds.take(1))"))
    assert run() == []


def test_an_importer_the_model_cannot_run_leaves_the_exporters_own_findings(tmp_path, monkeypatch):
    from pipelint.model.interpreter import Interpreter

    _write(tmp_path, EXPORTS)
    real = Interpreter._run_statement

    failed = []

    def failing(self, stmt, frame):
        if getattr(frame.where, "name", None) == "train":
            failed.append(stmt)
            raise RuntimeError("a construct the interpreter does not know")
        return real(self, stmt, frame)

    monkeypatch.setattr(Interpreter, "_run_statement", failing)
    found = _codes_in(_found(check_paths([tmp_path], select=["ALL"], jobs=1)), "dataset.py")
    alone = {(d.line, d.code) for d in check_source((tmp_path / "dataset.py").read_text(), "dataset.py", select=["ALL"])}
    assert failed and found == alone and (9, "PL101") in found


_LOOP_REBINDING = """
    import tensorflow as tf

    datasets = [tf.data.TFRecordDataset("a"), tf.data.TFRecordDataset("b")]
    for dataset in datasets:
        dataset = dataset.map(lambda x: tf.py_function(parse, [x], tf.string))
    {after}
    """


@pytest.mark.parametrize("after, expected", [
    ("", []),  # the mapped datasets are dropped: the list still holds the unmapped ones
    ("model.fit(dataset, epochs=2)", ["PL106"]),  # the last one is trained on
])
def test_a_loop_variable_rebound_to_a_mapped_dataset_is_dropped_unless_read(tmp_path, after, expected):
    (tmp_path / ".git").mkdir()
    (tmp_path / "model.py").write_text(textwrap.dedent(_LOOP_REBINDING.format(after=after)))
    found = sorted(d.code for d in check_paths([tmp_path], select=["PL101", "PL106"]))
    assert found == expected


@pytest.mark.parametrize("reads, expected", [
    ("from data import train_ds\nmodel.fit(train_ds)", []),  # nobody reads test_ds: what builds it never runs
    ("from data import test_ds, train_ds\nmodel.fit(train_ds)\nmodel.evaluate(test_ds)", [("data.py", "PL106")]),
])
def test_a_module_level_dataset_no_importer_reads_gets_no_finding(tmp_path, reads, expected):
    _write(tmp_path, {
        "data.py": """
            import tensorflow as tf

            base = tf.data.TFRecordDataset(["a"])
            train_ds = base.batch(32)
            test_ds = base.map(lambda x: tf.py_function(parse, [x], tf.float32)).batch(32)
            """,
        "main.py": reads + "\n",
    })
    (tmp_path / ".git").mkdir()
    found = sorted((Path(d.path).name, d.code) for d in check_paths([tmp_path], select=["PL106"]))
    assert found == expected


@pytest.mark.parametrize("imports, expected", [
    ("make", []),  # make_basic is called and imported by no module: it never runs
    ("make, make_basic", [("data.py", 7, "PL102")]),  # imported: it may be handed anywhere
])
def test_a_dataset_function_no_project_module_imports_gets_no_finding(tmp_path, imports, expected):
    _write(tmp_path, {
        "data.py": """
            import tensorflow as tf

            def load(path):
                return tf.data.TFRecordDataset(path)

            def make_basic(files):
                return tf.data.Dataset.from_tensor_slices(files).interleave(load)

            def make(files):
                return tf.data.Dataset.from_tensor_slices(files).interleave(load, num_parallel_calls=tf.data.AUTOTUNE)
            """,
        "train.py": f"from data import {imports}\n\nmodel.fit(make(['a.tfrecord']), epochs=2)\n",
    })
    (tmp_path / ".git").mkdir()
    found = sorted((Path(d.path).name, d.line, d.code) for d in check_paths([tmp_path], select=["PL102"]))
    assert found == expected


def test_a_function_re_exported_by_a_package_init_is_followed_to_its_module(tmp_path):
    # detector/model/dataset/__init__.py re-exports get_dataset; train.py imports it relatively.
    _write(tmp_path, {
        "det/__init__.py": "",
        "det/model/__init__.py": "",
        "det/model/dataset/__init__.py": "from .dataset import get_dataset\n",
        "det/model/dataset/dataset.py": """
            import tensorflow as tf

            def get_dataset(path):
                return tf.keras.utils.image_dataset_from_directory(path, batch_size=32)
            """,
        "det/model/gesture/__init__.py": "",
        "det/model/gesture/train.py": """
            from ..dataset import get_dataset

            model.fit(get_dataset("x"), batch_size=32, epochs=3)
            ds = get_dataset("y").shuffle(100)
            model.fit(ds, epochs=2)
            """,
    })
    (tmp_path / ".git").mkdir()
    found = sorted((Path(d.path).name, d.line, d.code, d.message.split(",")[0])
                   for d in check_paths([tmp_path], select=["PL203", "PL405"]))
    assert found == [
        ("train.py", 3, "PL405", "`batch_size` is ignored by `fit` when `x` is a tf.data.Dataset: the dataset's own batching applies; set it with `.batch()` and drop the argument"),
        ("train.py", 4, "PL203", "`shuffle()` after `image_dataset_from_directory`"),
    ]


# Issue 18, whole-module imports: a dataset bound at another module's top level, or returned by
# its function, is followed however the importer names that module; the importer never names
# TensorFlow (it is checked because it imports datasets).
_DATA = """
    import tensorflow as tf

    train_ds = tf.data.TFRecordDataset(["a"]).shuffle(100)
    plain_ds = tf.data.TFRecordDataset(["b"])
    BATCH = 32


    def make_ds():
        return tf.data.TFRecordDataset(["c"]).shuffle(100)
    """


@pytest.mark.parametrize("folder,importing,name", [
    ("", "import data", "data"),  # scripts side by side
    ("pkg/", "from . import data", "data"),
    ("pkg/", "import pkg.data as d", "d"),
])
def test_a_whole_module_import_reaches_its_datasets_and_functions(tmp_path, folder, importing, name):
    _write(tmp_path, {
        ".git/HEAD": "",
        "pkg/__init__.py": "",
        f"{folder}data.py": _DATA,
        f"{folder}train.py": f"""
            {importing}

            a = {name}.train_ds.cache().batch({name}.BATCH)
            b = {name}.make_ds().cache()
            c = {name}.plain_ds.cache()
            model.fit(a)
            model.fit(b)
            model.fit(c)
            """,
    })
    found = {(line, code, note) for file, line, code, note in _found(check_paths([tmp_path], select=["PL201"]))
             if file == "train.py"}
    assert found == {(3, "PL201", "(shuffled in data.py:3)"), (4, "PL201", "(shuffled in data.py:9)")}


def test_a_name_imported_from_a_module_that_binds_a_dataset_is_that_dataset(tmp_path):
    _write(tmp_path, {
        ".git/HEAD": "",
        "data.py": _DATA,
        "train.py": """
            from data import BATCH, plain_ds, train_ds

            a = train_ds.cache().batch(BATCH)
            c = plain_ds.cache()
            model.fit(a)
            model.fit(c)
            """,
        # imports only a constant of it: nothing here is a dataset
        "other.py": """
            from data import BATCH


            def finish(rows):
                return rows.cache().shuffle(BATCH)
            """,
    })
    found = _found(check_paths([tmp_path], select=["PL201", "PL203"]))
    assert found == {("train.py", 3, "PL201", "(shuffled in data.py:3)")}


# Issue 18, map functions of other modules: judged by their bodies exactly as a function of the
# module that maps them (PL101, PL202, PL106); the finding stays on the map or cache here and
# names the function's line there.
_AUG = """
    import keras
    import tensorflow as tf
    from keras import layers

    flip = keras.Sequential([layers.RandomFlip("horizontal"), layers.RandomRotation(0.1)])
    rescale = layers.Rescaling(1 / 255)


    def augment(x, y):
        return tf.image.random_flip_left_right(x), y


    def decode(x, y):
        return tf.io.decode_png(x), y


    def slow(x, y):
        return tf.py_function(lambda a: a, [x], tf.uint8), y


    class Base:
        def augment(self, x, y):
            return flip(x), y

        def decode(self, x, y):
            return rescale(x), y
    """


@pytest.mark.parametrize("importing,prefix", [("from aug import augment, decode, slow", ""),
                                              ("import aug", "aug.")])
def test_a_function_mapped_from_another_module_is_judged_by_its_body(tmp_path, importing, prefix):
    _write(tmp_path, {".git/HEAD": "", "aug.py": _AUG, "train.py": f"""
        import tensorflow as tf
        {importing}

        ds = tf.data.TFRecordDataset(["a"])
        a = ds.map({prefix}augment).cache("c").batch(8).prefetch(1)
        b = ds.map({prefix}decode).cache("c").batch(8).prefetch(1)
        c = ds.map({prefix}slow).batch(8).prefetch(1)
        model.fit(a)
        model.fit(b)
        model.fit(c)
        """})
    found = {(d.line, d.code, d.message[d.message.rindex("("):]) for d in check_paths([tmp_path], select=["ALL"])}
    assert found == {(5, "PL101", "(`augment` in aug.py:9)"), (5, "PL202", "(`augment` in aug.py:9)"),
                     (7, "PL106", "(`slow` in aug.py:17)")}


def test_layers_and_methods_of_another_module_are_judged_as_local_ones(tmp_path):
    _write(tmp_path, {".git/HEAD": "", "aug.py": _AUG, "train.py": """
        import tensorflow as tf
        import aug
        from aug import Base, rescale


        class Loader(Base):
            def make(self, ds):
                a = ds.map(self.augment).cache("c").batch(8).prefetch(1)
                b = ds.map(self.decode).cache("c").batch(8).prefetch(1)
                return a, b


        ds = tf.data.TFRecordDataset(["a"])
        a = ds.map(lambda x, y: (aug.flip(x), y)).cache("c").batch(8).prefetch(1)
        b = ds.map(lambda x, y: (rescale(x), y)).cache("c").batch(8).prefetch(1)
        loaded = Loader().make(ds)
        """})
    found = {(d.line, d.code) for d in check_paths([tmp_path], select=["PL101", "PL202"])}
    # The random layer made at aug.py's top level (through an inherited method too); the
    # stateless Rescaling and the inherited method that only rescales are quiet.
    assert found == {(8, "PL101"), (8, "PL202"), (14, "PL101"), (14, "PL202")}


def test_editing_a_module_changes_the_cache_key_of_the_modules_that_import_it(tmp_path):
    _write(tmp_path, {".git/HEAD": "", "aug.py": _AUG,
                      "train.py": "import tensorflow as tf\nfrom aug import augment\n\n"
                                  "ds = tf.data.TFRecordDataset(['a']).map(augment).cache('c')\n"})
    files = [tmp_path / "aug.py", tmp_path / "train.py"]
    before = ProjectIndex.build(files).key_of(tmp_path / "train.py")
    aug = tmp_path / "aug.py"
    aug.write_text(aug.read_text().replace("tf.image.random_flip_left_right(x)", "x"))
    assert ProjectIndex.build(files).key_of(tmp_path / "train.py") != before


def test_an_importer_starting_to_name_a_method_changes_the_cache_key_of_its_module(tmp_path):
    # Whether make_basic's pipeline gets findings depends on whether a module importing data.py
    # names it; train.py imports only the class, so it is no consumer of data.py's datasets.
    _write(tmp_path, {".git/HEAD": "",
                      "data.py": "import tensorflow as tf\n\nclass Loader:\n    def make_basic(self, f):\n"
                                 "        return tf.data.TFRecordDataset(f).map(parse)\n\n"
                                 "    def make(self, f):\n        return tf.data.TFRecordDataset(f)\n",
                      "train.py": "from data import Loader\n\nmodel.fit(Loader().make(['a']))\n"})
    files = [tmp_path / "data.py", tmp_path / "train.py"]
    before = ProjectIndex.build(files).key_of(tmp_path / "data.py")
    (tmp_path / "train.py").write_text("from data import Loader\n\nmodel.fit(Loader().make_basic(['a']))\n")
    assert ProjectIndex.build(files).key_of(tmp_path / "data.py") != before


@pytest.mark.parametrize("reshuffle", ["", ", reshuffle_each_iteration=False"])
def test_a_split_in_another_module_returns_datasets_in_a_tuple(tmp_path, reshuffle):
    # split.py never names TensorFlow nor any method the index reads as a dataset's by itself:
    # it is read because train.py hands `split` a dataset; both halves come back as datasets.
    _write(tmp_path, {
        ".git/HEAD": "",
        "pyproject.toml": STRICT_PREFETCH_TOML,  # PL103 judges every pipeline, as before TF 2.9
        "split.py": """
            def split(ds, n):
                return ds.take(n), ds.skip(n)
            """,
        "train.py": f"""
            import tensorflow as tf
            from split import split

            ds = tf.data.TFRecordDataset(["a"]).shuffle(100{reshuffle})
            train, val = split(ds, 10)
            train = train.batch(8)
            val = val.batch(8)
            model.fit(train, validation_data=val, epochs=3)
            """,
    })
    found = {(d.line, d.code): d.message for d in check_paths([tmp_path], select=["PL103", "PL206"])}
    # Both halves are batched and fed to `fit` without a prefetch: datasets at the caller.
    assert set(found) == {(6, "PL103"), (7, "PL103")} | ({(4, "PL206")} if not reshuffle else set())
    if not reshuffle:
        assert found[4, "PL206"].endswith("(`take()` in split.py:2; `skip()` in split.py:2)")


def test_a_whole_module_import_counts_the_modules_top_level_names_only(tmp_path):
    # A module that never names TensorFlow is parsed (a syntax error then shows) only when what
    # it imports holds datasets: a dataset bound at the top level does, a method of a class
    # (`Loader.load`) of a module imported whole does not (methods abound; their modules' imports
    # made most of a large package worth parsing).
    _write(tmp_path, {
        ".git/HEAD": "",
        "data.py": """
            import tensorflow as tf


            class Loader:
                def load(self):
                    return tf.data.TFRecordDataset(["a"]).shuffle(10)
            """,
        "exports.py": 'import tensorflow as tf\n\ntrain_ds = tf.data.TFRecordDataset(["a"])\n',
        "uses_class.py": "import data\n\nprint(data.Loader)\ndef broken(:\n",
        "uses_dataset.py": "import exports\n\nprint(exports.train_ds)\ndef broken(:\n",
    })
    parsed = {os.path.basename(d.path) for d in check_paths([tmp_path], select=["ALL"]) if d.code == "PL001"}
    assert parsed == {"uses_dataset.py"}


def test_trace_time_randomness_in_a_function_of_another_module_is_reported_on_the_map(tmp_path):
    _write(tmp_path, {
        "aug.py": """
            import numpy as np

            def jitter(x):
                return x + np.random.normal()
            """,
        "train.py": """
            import tensorflow as tf
            from aug import jitter

            ds = tf.data.TFRecordDataset("a").map(jitter, num_parallel_calls=4)
            model.fit(ds.batch(8), epochs=2)
            """,
    })
    (tmp_path / ".git").mkdir()
    found = [(Path(d.path).name, d.line, d.code) for d in check_paths([tmp_path], select=["PL210"])]
    assert found == [("train.py", 4, "PL210")]
    assert "(`jitter` in aug.py:3)" in check_paths([tmp_path], select=["PL210"])[0].message


@pytest.mark.parametrize("called, expected", [
    ("make", []),  # make_basic: no module that imports data.py mentions it
    ("make_basic", [("data.py", 8, "PL102")]),
])
def test_a_method_no_importer_mentions_gets_no_finding(tmp_path, called, expected):
    _write(tmp_path, {
        "data.py": """
            import tensorflow as tf

            class Loader:
                def __init__(self, files):
                    self.files = tf.data.Dataset.from_tensor_slices(files)

                def make_basic(self):
                    return self.files.interleave(tf.data.TFRecordDataset)

                def make(self):
                    return self.files.interleave(tf.data.TFRecordDataset, num_parallel_calls=tf.data.AUTOTUNE)
            """,
        "train.py": f"from data import Loader\n\nmodel.fit(Loader(['a.tfrecord']).{called}(), epochs=2)\n",
    })
    (tmp_path / ".git").mkdir()
    found = sorted((Path(d.path).name, d.line, d.code) for d in check_paths([tmp_path], select=["PL102"]))
    assert found == expected


def test_a_script_that_never_names_tensorflow_hands_on_the_datasets_it_is_given(tmp_path):
    # coffee-classification's shape: main() gets datasets from one helper and hands them to another.
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/records.py": """
            import tensorflow as tf

            def read(files):
                return tf.data.TFRecordDataset(files)
            """,
        "pkg/data.py": """
            from pkg.records import read

            def load(train_files, valid_files):
                train_ds = read(train_files)
                valid_ds = read(valid_files)
                return train_ds, valid_ds

            def prepare(train_ds, valid_ds, repeat=True):
                steps = count(train_ds)
                if repeat:
                    train_ds = train_ds.repeat()
                train_ds = train_ds.shuffle(1000).batch(32)
                return train_ds, valid_ds.batch(32), steps
            """,
        "pkg/train.py": """
            import sys
            from pkg.data import load, prepare


            def main(args):
                train_ds, valid_ds = load(["a"], ["b"])
                train_ds, valid_ds, steps = prepare(train_ds, valid_ds, repeat=True)
                model.fit(train_ds, steps_per_epoch=steps, epochs=3, validation_data=valid_ds)


            if __name__ == "__main__":
                sys.exit(main(sys.argv[1:]))
            """,
    })
    (tmp_path / ".git").mkdir()
    found = sorted((Path(d.path).name, d.line, d.code) for d in check_paths([tmp_path], select=["PL204"]))
    assert found == [("data.py", 12, "PL204")]


def test_an_importer_with_a_backslash_continued_import_line_is_still_an_importer(tmp_path):
    # first-captioning's shape: the module that builds the training set never names TensorFlow and
    # continues an import line with a backslash; the finding on the pipeline it uses must stay.
    _write(tmp_path, {
        "prep.py": """
            import numpy as np
            import tensorflow as tf

            def load(path):
                return np.load(path)

            def create_dataset(paths):
                return tf.data.Dataset.from_tensor_slices(paths).map(lambda p: tf.numpy_function(load, [p], tf.float32))

            def create_dataset_valid(paths):
                return tf.data.Dataset.from_tensor_slices(paths).map(lambda p: tf.numpy_function(load, [p], tf.float32))
            """,
        "train_data.py": """
            from helpers import tokenize, \\
                pad
            from prep import create_dataset

            dataset_train = create_dataset(["a.npy"])
            """,
        "valid_data.py": "from prep import create_dataset_valid\n\ndataset_val = create_dataset_valid(['b.npy'])\n",
        "training.py": "from train_data import dataset_train\nfrom valid_data import dataset_val\n\n"
                       "model.fit(dataset_train, epochs=3, validation_data=dataset_val)\n",
    })
    (tmp_path / ".git").mkdir()
    found = sorted((Path(d.path).name, d.line) for d in check_paths([tmp_path], select=["PL106"]))
    assert found == [("prep.py", 8), ("prep.py", 11)]
