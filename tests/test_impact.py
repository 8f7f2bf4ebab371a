"""Each finding's impact (correctness, speed, breaks-on-upgrade, housekeeping), what a default run
shows of it, and the Keras migrations (PL402-PL407, PL501) on the same code under a Keras 2 and a
Keras 3 target, declared by the project's requirements.txt."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from clirunner import separate_streams_runner
from pipelint.api import check_paths
from pipelint.cli import main
from pipelint.codes import CODES
from pipelint.diagnostics import Impact
from pipelint.docs import render_rules_page
from pipelint.rules import all_rules

KERAS2, KERAS3 = "tensorflow==2.10.1", "tensorflow==2.17.0"

MIGRATIONS = """
    import tensorflow as tf
    from tensorflow.keras.preprocessing.image import ImageDataGenerator

    class Batches(tf.keras.utils.Sequence):
        def __init__(self, paths):
            self.paths = paths

    model.fit_generator(train_gen, steps_per_epoch=100, epochs=10)
    lr = model.optimizer._decayed_lr(tf.float32)
    train = ImageDataGenerator(rescale=1 / 255).flow_from_directory('data/train')
    model.fit(train, epochs=3)
    ds = tf.data.TFRecordDataset(files).batch(32).prefetch(tf.data.AUTOTUNE)
    model.fit(ds, batch_size=32)
    options = tf.data.Options()
    options.experimental_deterministic = False
    model.fit(Batches(paths), epochs=3)
"""


def _project(root: Path, requirement: str, source: str = MIGRATIONS, config: str = "") -> Path:
    (root / ".git").mkdir(parents=True)  # the project's top: the walk for declarations stops here
    (root / "requirements.txt").write_text(requirement + "\n")
    (root / "train.py").write_text(textwrap.dedent(source).lstrip("\n"))
    if config:
        (root / "pyproject.toml").write_text(textwrap.dedent(config))
    return root


def _check(root: Path, *args: str):
    result = separate_streams_runner().invoke(main, ["check", "--no-cache", *args, str(root)])
    assert "Traceback" not in result.stderr, result.stderr
    return result


def _json(root: Path, *args: str) -> list[dict]:
    return json.loads(_check(root, "--output-format", "json", *args).output)


def _found(root: Path, *args: str) -> dict[str, list[dict]]:
    by_code: dict[str, list[dict]] = {}
    for item in _json(root, *args):
        by_code.setdefault(item["code"], []).append(item)
    return by_code


def test_every_code_declares_one_impact_and_the_rules_page_lists_it():
    # (minor speed is no code's own: a speed finding is refined to it where its stage costs little)
    assert {info.impact for info in CODES.values()} == set(Impact) - {Impact.MINOR_SPEED, Impact.MINOR_CORRECTNESS}
    page = render_rules_page()
    for code, rule in all_rules().items():
        assert rule.impact == CODES[code].impact
        assert f"| {rule.severity.value} | {rule.impact.value} |" in page.split(f"[{code}]", 1)[1].splitlines()[0]


# ---- the same code under Keras 2 and Keras 3


def test_keras3_target_shows_what_fails_there(tmp_path):
    found = _found(_project(tmp_path, KERAS3))
    assert sorted(found) == ["PL402", "PL403", "PL404", "PL407"]
    (fit_generator,) = found["PL402"]
    assert fit_generator["impact"] == "correctness"
    assert "raises AttributeError on Keras 3 (requirements.txt)" in fit_generator["message"]
    assert fit_generator["fix"]["edits"][0]["content"] == "fit"
    (decayed,) = found["PL404"]
    assert decayed["impact"] == "correctness"
    assert "raises AttributeError on TensorFlow 2.17 (requirements.txt); use `optimizer.learning_rate`" \
        in decayed["message"]
    (generator,) = found["PL403"]  # Keras 3's legacy copy decodes the files one batch at a time
    assert generator["impact"] == "speed" and "use `keras.utils.image_dataset_from_directory`" in generator["message"]
    (sequence,) = found["PL407"]  # the Keras 3 advice, with the Keras it is judged by
    assert sequence["impact"] == "speed" and sequence["line"] == 4
    assert "in Keras 3 (requirements.txt) pass `workers=N`" in sequence["message"]


def test_keras2_target_shows_no_migration_by_default(tmp_path):
    root = _project(tmp_path, KERAS2)
    found = _found(root)
    # what costs on Keras 2: `fit` loads the Sequence's batches, and the generator's decoded
    # images, with one worker
    assert sorted(found) == ["PL403", "PL407"]
    assert [item["impact"] for item in found["PL403"]] == ["speed"]
    (sequence,) = found["PL407"]
    assert sequence["impact"] == "speed" and sequence["line"] == 16
    assert "pass `workers=N` (and `use_multiprocessing=True` for CPU-bound loading) to `fit`" in sequence["message"]
    assert "super().__init__" not in sequence["message"]  # Keras 2's Sequence takes no workers

    migrations = _found(root, "--show-migrations")
    assert sorted(migrations) == ["PL402", "PL403", "PL404", "PL407"]
    (fit_generator,) = migrations["PL402"]
    assert fit_generator["impact"] == "breaks-on-upgrade"
    assert "it works on Keras 2 (requirements.txt) and raises AttributeError after an upgrade" in fit_generator["message"]
    assert fit_generator["fix"]["edits"][0]["content"] == "fit"  # `fit` takes generators from TF 2.1
    (decayed,) = migrations["PL404"]
    assert decayed["impact"] == "breaks-on-upgrade"
    # Keras 2's `learning_rate` is the schedule, not its current value: the advice is for after the upgrade.
    assert "works on TensorFlow 2.10 (requirements.txt)" in decayed["message"]
    assert "; there, use `optimizer.learning_rate`" in decayed["message"]

    housekeeping = _found(root, "--show-housekeeping")
    assert sorted(housekeeping) == ["PL403", "PL405", "PL407", "PL501"]
    assert {item["impact"] for code in ("PL405", "PL501") for item in housekeeping[code]} == {"housekeeping"}
    (rename,) = housekeeping["PL501"]
    assert rename["fix"]["edits"][0]["content"] == "deterministic"


def test_fixes_and_advice_follow_an_older_target(tmp_path):
    root = _project(tmp_path, "tensorflow==2.0.0")
    found = _found(root, "--show-migrations", "--show-housekeeping")
    (fit_generator,) = found["PL402"]
    # TensorFlow 2.0's `fit` takes no generator yet: the advice is for the upgrade, and no rename is offered.
    assert "on TensorFlow 2.0 (requirements.txt) it is the API to use" in fit_generator["message"]
    assert fit_generator["fix"] is None
    (generator,) = found["PL403"]
    assert "on TensorFlow 2.0 (requirements.txt) build a tf.data pipeline" in generator["message"]
    assert "PL501" not in found  # `Options.deterministic` came in 2.6: setting it would raise on 2.0


def test_keras2_advice_names_the_experimental_layers_before_2_6(tmp_path):
    # a generator that only scales is told where its scaling goes
    found = _found(_project(tmp_path, "tensorflow==2.4.1"), "--select", "PL403")
    (generator,) = found["PL403"]
    assert "`tf.keras.preprocessing.image_dataset_from_directory` with its scaling (`Rescaling`" in generator["message"]
    assert "RandomFlip" not in generator["message"]
    # one that augments, of the random layers of that release
    augmenting = MIGRATIONS.replace("ImageDataGenerator(rescale=1 / 255)", "ImageDataGenerator(rotation_range=20)")
    found = _found(_project(tmp_path / "augments", "tensorflow==2.4.1", augmenting), "--select", "PL403")
    (generator,) = found["PL403"]
    assert "`tf.keras.preprocessing.image_dataset_from_directory`" in generator["message"]
    assert "`tf.keras.layers.experimental.preprocessing`" in generator["message"]


def test_a_newer_target_version_shows_the_migrations_as_failures(tmp_path):
    found = _found(_project(tmp_path, KERAS2), "--target-version", "2.21")
    assert [item["impact"] for item in found["PL402"]] == ["correctness"]
    assert [item["impact"] for item in found["PL404"]] == ["correctness"]


@pytest.mark.parametrize("code,impact", [("PL402", "breaks-on-upgrade"), ("PL501", "housekeeping")])
def test_selecting_a_code_by_its_full_code_shows_its_findings(tmp_path, code, impact):
    root = _project(tmp_path, KERAS2)
    assert [item["impact"] for item in _found(root, "--select", code)[code]] == [impact]
    assert code not in _found(root, "--select", code[:3])  # a prefix picks rules, not findings


# ---- what is left out is said, and fails nothing


def test_the_summary_names_what_was_left_out_and_how_to_show_it(tmp_path):
    root = _project(tmp_path, KERAS2)
    result = _check(root, "--output-format", "concise")
    assert result.exit_code == 1
    assert result.output.splitlines()[-3:] == [
        "Found 2 findings (2 speed; 0 fixable with --fix).",
        "2 breaks-on-upgrade findings not shown: --show-migrations",
        "2 housekeeping findings not shown: --show-housekeeping",
    ]
    quiet = _check(root, "--output-format", "concise", "--quiet")
    assert "not shown" not in quiet.output and quiet.output.count("\n") == 2


def test_hidden_findings_do_not_fail_the_run_nor_get_fixed(tmp_path):
    root = _project(tmp_path, KERAS2, """
        import tensorflow as tf
        options = tf.data.Options()
        options.experimental_deterministic = False
    """)
    result = _check(root)
    assert result.exit_code == 0
    assert result.output.splitlines() == ["All checks passed!", "1 housekeeping finding not shown: --show-housekeeping"]
    _check(root, "--fix")
    assert "experimental_deterministic" in (root / "train.py").read_text()
    assert _check(root, "--fix", "--show-housekeeping").exit_code == 0
    assert "options.deterministic = False" in (root / "train.py").read_text()


def test_the_configuration_shows_them_too(tmp_path):
    root = _project(tmp_path, KERAS2, config="""
        [tool.pipelint]
        show-migrations = true
        show-housekeeping = true
    """)
    assert sorted(_found(root)) == ["PL402", "PL403", "PL404", "PL405", "PL407", "PL501"]
    assert sorted(d.code for d in check_paths([root])) == ["PL402", "PL403", "PL404", "PL405", "PL407", "PL501"]
    (root / "pyproject.toml").write_text('[tool.pipelint]\nshow-housekeeping = "yes"\n')
    result = _check(root)
    assert result.exit_code == 2 and "'show-housekeeping' must be a boolean" in result.stderr


def test_sarif_carries_the_impact_on_each_result_and_rule(tmp_path):
    root = _project(tmp_path, KERAS3)
    sarif = json.loads(_check(root, "--output-format", "sarif").output)
    run = sarif["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert rules["PL402"]["properties"]["impact"] == "breaks-on-upgrade"  # the code's default
    assert rules["PL501"]["properties"]["impact"] == "housekeeping"
    impacts = {result["ruleId"]: result["properties"]["impact"] for result in run["results"]}
    assert impacts == {"PL402": "correctness", "PL403": "speed", "PL404": "correctness", "PL407": "speed"}


def test_an_image_generator_costs_where_it_decodes_or_transforms_images_in_one_worker(tmp_path):
    root = _project(tmp_path, KERAS2, """
        from tensorflow.keras.preprocessing.image import ImageDataGenerator
        rescaled = ImageDataGenerator(rescale=1 / 255).flow(x_train, y_train)
        augmented = ImageDataGenerator(rotation_range=20, horizontal_flip=True).flow(x_train, y_train)
        decoded = ImageDataGenerator(rescale=1 / 255).flow_from_directory("data/train")
        model.fit(rescaled, epochs=3)
        model.fit(augmented, epochs=3)
        model.fit(decoded, epochs=3)
    """)
    impacts = [(item["line"], item["impact"]) for item in _json(root, "--show-housekeeping")]
    assert impacts == [(2, "housekeeping"), (3, "speed"), (4, "speed")]
    # Keras 2's fit given several workers loads them in parallel: a cleanup, no longer a cost
    (root / "train.py").write_text((root / "train.py").read_text().replace(
        "model.fit(decoded, epochs=3)", "model.fit(decoded, epochs=3, workers=4)"))
    impacts = [item["impact"] for item in _json(root, "--show-housekeeping")]
    assert impacts == ["housekeeping"] * 3


PIPELINES = """
    import tensorflow as tf

    def decode(path):
        return tf.image.resize(tf.io.decode_jpeg(tf.io.read_file(path)), [224, 224])

    def parse(record):
        return tf.io.parse_single_example(record, {"x": tf.io.FixedLenFeature([8], tf.float32)})["x"]

    images = tf.data.Dataset.list_files("images/*.jpg").map(decode).shuffle(256).batch(32)
    records = tf.data.TFRecordDataset(files).map(parse).shuffle(256).batch(32)
    arrays = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(1000).batch(32)
    test = tf.data.Dataset.list_files("test/*.jpg").map(decode).cache().batch(32)
    model.fit(images, epochs=3)
    model.fit(records, epochs=3)
    model.fit(arrays, epochs=3)
    model.evaluate(test)
"""


def test_a_missing_prefetch_costs_where_a_stage_decodes_and_the_data_trains(tmp_path):
    # TensorFlow 2.4 injects no final prefetch and parallelizes no map: each pipeline is
    # reported, and only the one that decodes images for training is shown by default
    root = _project(tmp_path, "tensorflow==2.4.1", PIPELINES)
    found = [(item["line"], item["code"], item["impact"]) for item in _json(root, "--show-minor-speed")]
    assert found == [(9, "PL101", "speed"), (9, "PL103", "speed"),
                     (10, "PL101", "minor-speed"), (10, "PL103", "minor-speed"), (11, "PL103", "minor-speed"),
                     (12, "PL101", "minor-speed"), (12, "PL103", "minor-speed")]
    result = _check(root, "--output-format", "concise")
    assert [line.split(": ")[1][:5] for line in result.output.splitlines()[:2]] == ["PL101", "PL103"]
    assert result.output.splitlines()[2:] == ["Found 2 findings (2 speed; 2 fixable with --fix).",
                                              "5 minor-speed findings not shown: --show-minor-speed"]


def test_a_sequence_that_only_slices_arrays_in_memory_is_minor_speed(tmp_path):
    root = _project(tmp_path, KERAS3, """
        import cv2
        import numpy as np
        import keras

        class Slices(keras.utils.PyDataset):
            def __init__(self, x, y, batch_size):
                super().__init__()
                self.x, self.y, self.batch_size = x, y, batch_size

            def __len__(self):
                return len(self.x) // self.batch_size

            def __getitem__(self, index):
                part = slice(index * self.batch_size, (index + 1) * self.batch_size)
                return np.asarray(self.x[part]).astype("float32"), self.y[part]

        class Images(keras.utils.PyDataset):
            def __init__(self, paths, batch_size):
                super().__init__()
                self.paths, self.batch_size = paths, batch_size

            def __getitem__(self, index):
                return np.stack([cv2.imread(p) for p in self.paths[index:index + self.batch_size]])
    """)
    found = [(item["line"], item["impact"]) for item in _json(root, "--show-minor-speed")]
    assert found == [(5, "minor-speed"), (17, "speed")]


def test_a_flow_only_printed_or_described_is_a_look(tmp_path):
    root = _project(tmp_path, KERAS2, """
        from tensorflow.keras.preprocessing.image import ImageDataGenerator
        datagen = ImageDataGenerator(rescale=1 / 255, horizontal_flip=True)
        xy_train = datagen.flow_from_directory("data/train", target_size=(150, 150), batch_size=5)
        print(type(xy_train))
        print(xy_train[0][0].shape, len(xy_train))
    """)
    assert _json(root, "--show-housekeeping") == []


GAN = """
    from keras.layers.advanced_activations import LeakyReLU
    from keras.models import Model, Sequential
    from keras.optimizers import Adam, RMSprop

    lr = 0.0002
    optimizer = Adam({rate})
    discriminator = Sequential([LeakyReLU()])
    discriminator.compile(loss="binary_crossentropy", optimizer=optimizer)
    combined = Model(z, discriminator(z))
    combined.compile(loss="binary_crossentropy", optimizer=optimizer)
"""


@pytest.mark.parametrize("requirement,rate,impact", [
    # Keras 2 runs it; the shared step count only hurries Adam's bias correction at first: what
    # remains is that TensorFlow 2.11 and Keras 3 refuse it (pool 2034's Keras-GAN copies)
    ("keras==2.2.4", "0.0002, 0.5", "breaks-on-upgrade"),
    # a per-step decay (or a schedule) advances for every model: it changes what is learned
    ("keras==2.2.4", "0.0002, 0.5, decay=1e-6", "correctness"),
    ("keras==2.2.4", "learning_rate=schedule", "correctness"),
    # a rate the module binds once to a number is a plain rate
    ("keras==2.2.4", "lr=lr, beta_1=0.5, decay=0.0", "breaks-on-upgrade"),
    # Keras 3 refuses the second model's variables
    ("tensorflow==2.17.0", "0.0002, 0.5", "correctness"),
])
def test_a_shared_optimizer_on_keras_2_is_a_migration_unless_a_schedule_follows_its_steps(
        tmp_path, requirement, rate, impact):
    root = _project(tmp_path, requirement, GAN.replace("{rate}", rate))
    (finding,) = _json(root, "--select", "PL401", "--show-migrations")
    assert finding["impact"] == impact
    assert finding["line"] == 10
    if impact == "breaks-on-upgrade":
        assert 'raises "Unknown variable" from TensorFlow 2.11 and on Keras 3' in finding["message"]
        # a default run counts it, and says how to show it
        assert [f for f in _json(root) if f["code"] == "PL401"] == []
        assert "--show-migrations" in _check(root).output


REPEATED_THEN_SHUFFLED = """
    import tensorflow as tf
    (x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
    n_train = len(x_train)
    whole = tf.data.Dataset.from_tensor_slices((x_train, y_train)).repeat().shuffle(n_train).batch(32)
    records = tf.data.TFRecordDataset(files).repeat().shuffle(1024).batch(32)
    tenth = tf.data.Dataset.from_tensor_slices((x_train, y_train)).repeat().shuffle(10000).batch(32)
    small = tf.data.Dataset.from_tensor_slices((x_train, y_train)).repeat().shuffle(1000).batch(32)
    for ds in (whole, records, tenth, small):
        model.fit(ds, steps_per_epoch=100, epochs=3)
"""


def test_a_shuffle_after_repeat_is_minor_where_its_buffer_is_small_beside_the_data(tmp_path):
    """Pools 2035/2036: a blind reader judged 14 of 14 accurate PL204s not worth acting on, each a
    buffer of 100-2,048 over a large or step-counted stream; the labelled ones worth acting on
    shuffle with the data's size (`shuffle(n_train)`) after `repeat()`."""
    root = _project(tmp_path, KERAS3, REPEATED_THEN_SHUFFLED)
    found = [(item["line"], item["impact"]) for item in _json(root, "--show-minor-correctness")]
    assert found == [(4, "correctness"), (5, "minor-correctness"), (6, "correctness"), (7, "minor-correctness")]
    result = _check(root, "--output-format", "concise")
    assert [line.split(":")[1] for line in result.output.splitlines()[:2]] == ["4", "6"]
    assert result.output.splitlines()[2:] == [
        "Found 2 findings (2 correctness; 2 fixable with --fix).",
        "2 minor-correctness findings not shown: --show-minor-correctness"]
    (root / "pyproject.toml").write_text("[tool.pipelint]\nshow-minor-correctness = true\n")
    assert len(_json(root)) == 4


VALIDATION_BESIDE_TRAINING = """
    from tensorflow.keras.preprocessing.image import ImageDataGenerator
    train_datagen = ImageDataGenerator(rescale=1 / 255, zoom_range=0.2, horizontal_flip=True)
    test_datagen = ImageDataGenerator(rescale=1 / 255)
    train = train_datagen.flow_from_directory("data/train", target_size=(64, 64))
    val = test_datagen.flow_from_directory("data/val", target_size=(64, 64))
    model.fit(train, steps_per_epoch=2000, epochs=10, validation_data=val{steps})
"""


@pytest.mark.parametrize(("steps", "validation"), [("", "minor-speed"), (", validation_steps=100", "minor-speed"),
                                                   (", validation_steps=1000", "speed")])
def test_a_validation_generator_beside_a_training_one_is_minor_unless_it_loads_as_much(tmp_path, steps, validation):
    """Pools 2035/2036: 12 of 14 rescale-only validation generators beside a training generator
    were judged not worth acting on (a small part of each epoch's loading; the training finding
    says what to change for both); the two worth it validated on as much as an epoch trains."""
    root = _project(tmp_path, KERAS3, VALIDATION_BESIDE_TRAINING.format(steps=steps))
    found = [(item["line"], item["impact"]) for item in _json(root, "--show-minor-speed")]
    assert found == [(2, "speed"), (3, validation)]


def test_a_validation_generator_beside_arrays_trained_on_is_minor_speed(tmp_path):
    """Pools 2029-2039: 38 of 39 findings on data only validated on were judged not worth acting
    on, whatever the training data was."""
    root = _project(tmp_path, KERAS3, """
        from tensorflow.keras.preprocessing.image import ImageDataGenerator
        val = ImageDataGenerator(rescale=1 / 255).flow_from_directory("data/val", target_size=(64, 64))
        model.fit(x_train, y_train, epochs=10, validation_data=val)
    """)
    assert [(item["line"], item["impact"]) for item in _json(root, "--show-minor-speed")] == [(2, "minor-speed")]


VALIDATION_DATASET = """
    import tensorflow as tf

    def load(path):
        return tf.py_function(read_with_cv2, [path], tf.float32)

    train = tf.data.Dataset.from_tensor_slices(train_files).map(load).batch(32)
    val = tf.data.Dataset.from_tensor_slices(val_files).interleave(tf.data.TFRecordDataset).map(load_val).batch(32)

    def load_val(path):
        return tf.py_function(read_with_cv2, [path], tf.float32)
    model.fit(train, steps_per_epoch=1000, validation_data=val{steps}, epochs=10)
"""


@pytest.mark.parametrize(("steps", "validation"), [("", "minor-speed"), (", validation_steps=100", "minor-speed"),
                                                   (", validation_steps=500", "speed")])
def test_a_dataset_only_validated_on_is_minor_speed_unless_it_loads_much(tmp_path, steps, validation):
    """Pool 2032 (PL106), pool 2038 (PL101): a validation dataset's serial Python stage or
    serial reads cost a small part of each epoch where validation loads under half of training.
    A helper mapped for both (`load`) costs what the training pays."""
    root = _project(tmp_path, KERAS3, VALIDATION_DATASET.format(steps=steps))
    found = sorted((item["line"], item["code"], item["impact"]) for item in _json(root, "--show-minor-speed"))
    assert found == [(4, "PL106", "speed"), (7, "PL102", validation), (10, "PL106", validation)]


def test_a_python_helper_mapped_for_validation_and_training_costs_the_training(tmp_path):
    """One `load` mapped by the validation pipeline first and the training one after: one finding,
    at the training's impact, whichever pipeline the model meets first."""
    root = _project(tmp_path, KERAS3, """
        import tensorflow as tf

        def load(path):
            return tf.py_function(read_with_cv2, [path], tf.float32)

        val = tf.data.Dataset.from_tensor_slices(val_files).map(load).batch(32)
        train = tf.data.Dataset.from_tensor_slices(train_files).map(load).batch(32)
        model.fit(train, validation_data=val, epochs=10)
    """)
    assert [(item["line"], item["code"], item["impact"]) for item in _json(root, "--show-minor-speed")] == [
        (4, "PL106", "speed")]


@pytest.mark.parametrize("buffer", ["info.splits['train'].num_examples", "int(ds.cardinality().numpy())", "x.shape[0]"])
def test_a_shuffle_after_repeat_over_the_whole_data_is_correctness(tmp_path, buffer):
    """Set E: `shuffle(n_train)` after `repeat()`, `n_train` tfds's count of the split."""
    root = _project(tmp_path, KERAS3, f"""
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files)
        n_train = {buffer}
        train = ds.repeat().shuffle(n_train).batch(32)
        model.fit(train, steps_per_epoch=100, epochs=3)
    """)
    assert [(item["line"], item["code"], item["impact"]) for item in _json(root, "--select", "PL204")] == [
        (4, "PL204", "correctness")]


def test_a_flow_only_predicted_on_and_described_is_minor_speed(tmp_path):
    """Pool 2036: `test_batches.class_indices` beside `predict_generator(test_batches, steps=1)`:
    reading what the iterator says of itself loads no batch."""
    root = _project(tmp_path, KERAS3, """
        from tensorflow.keras.preprocessing.image import ImageDataGenerator
        test_batches = ImageDataGenerator().flow_from_directory("data/test", target_size=(224, 224))
        print(test_batches.class_indices)
        pred = model.predict(test_batches, steps=1)
    """)
    assert [(item["line"], item["impact"]) for item in _json(root, "--show-minor-speed")] == [(2, "minor-speed")]


@pytest.mark.parametrize("rewind, impact", [("test_batches.reset()", "minor-speed"),
                                             ("test_batches.reset(0)", "speed")])
def test_a_flow_rewound_before_it_is_predicted_on_is_minor_speed(tmp_path, rewind, impact):
    """Pool 2039: `test_generator.reset()` then `model.predict(test_generator)`: rewinding loads
    no batch. A `reset` that takes arguments is not the iterator's and stays a use."""
    root = _project(tmp_path, KERAS3, f"""
        from tensorflow.keras.preprocessing.image import ImageDataGenerator
        test_batches = ImageDataGenerator().flow_from_directory("data/test", target_size=(224, 224))
        {rewind}
        pred = model.predict(test_batches)
        model.fit(x_train, y_train, epochs=3)  # (a script that also trains: no evaluation script)
    """)
    assert [(item["line"], item["impact"]) for item in _json(root, "--show-minor-speed")] == [(2, impact)]


def test_a_generator_pulled_by_the_module_own_loop_is_told_of_tf_data_not_of_fit_workers(tmp_path):
    """Pool 2037: seven TensorFlow 1.7 scripts pull `next(train_gen)` into a session's
    `feed_dict`; no `fit` is there to take `fit_generator(..., workers=N)`."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text("Requires TensorFlow 1.7\\n\\n    pip install tensorflow==1.7.0\\n")
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import tensorflow as tf
        from keras.preprocessing.image import ImageDataGenerator
        datagen = ImageDataGenerator(rotation_range=10, zoom_range=0.1)
        train_gen = datagen.flow(x_train, y_train, batch_size=500)
        with tf.Session() as sess:
            for step in range(10000):
                x_batch, y_batch = next(train_gen)
                sess.run(train_op, feed_dict={x: x_batch, y: y_batch})
    """).lstrip("\n"))
    (item,) = _json(tmp_path)
    assert item["message"].endswith(
        "build a tf.data pipeline instead (`Dataset.from_tensor_slices((x, y))` and `tf.image` random ops "
        "in a parallel `map`) and iterate over it")
    assert "workers" not in item["message"]


def test_a_generator_whose_flows_are_made_by_a_helper_is_judged_by_them(tmp_path):
    """Pool 2037: `evaluate_model(model, datagen, x, y)` calls `datagen.flow(x, y)`: arrays in
    memory, not a directory to list; and a loop over one flow that breaks after a batch is a look."""
    root = _project(tmp_path, KERAS3, """
        from tensorflow.keras.preprocessing.image import ImageDataGenerator

        def evaluate_model(model, generator, x, y):
            model.fit(generator.flow(x, y, batch_size=256), epochs=20)

        augmenting = ImageDataGenerator(rotation_range=45)
        evaluate_model(model, augmenting, x_train, y_train)

        shown = ImageDataGenerator(rotation_range=45)
        for x_batch, y_batch in shown.flow(x_train[:3], y_train[:3], batch_size=3):
            plot(x_batch)
            break
    """)
    (item,) = _json(root)
    assert item["line"] == 6 and "`tf.data.Dataset.from_tensor_slices((x, y))`" in item["message"]


def test_flows_yielded_by_a_generator_function_are_told_to_become_a_sequence_first(tmp_path):
    """Pool 2038: image and mask flows zipped inside a generator function (`yield`) and handed
    to `fit_generator`: Keras cannot load a plain generator with more workers (not thread-safe)."""
    root = _project(tmp_path, "keras==2.2.4\ntensorflow==1.14.0", """
        from keras.preprocessing.image import ImageDataGenerator

        def pairs(path):
            images = ImageDataGenerator(rescale=1. / 255).flow_from_directory(path, classes=["image"], seed=1)
            masks = ImageDataGenerator(rescale=1. / 255).flow_from_directory(path, classes=["mask"], seed=1)
            for image, mask in zip(images, masks):
                yield image, mask

        model.fit_generator(pairs("data/train"), steps_per_epoch=100, epochs=10)
    """)
    messages = [item["message"] for item in _json(root)]
    assert len(messages) == 2 and all(message.endswith(
        "make the generator function a `keras.utils.Sequence` (a Python generator is not thread-safe) and load "
        "that in parallel with `fit_generator(..., workers=N)`") for message in messages)


def test_a_generator_used_only_to_transform_images_it_is_handed_is_not_reported(tmp_path):
    """Pool 2038: `augmenter.random_transform(image)` in an offline oversampling pass; no flow."""
    root = _project(tmp_path, KERAS3, """
        from tensorflow.keras.preprocessing.image import ImageDataGenerator

        def create_augmenter():
            return ImageDataGenerator(rotation_range=15, horizontal_flip=True)

        def oversample(images):
            augmenter = create_augmenter()
            return [augmenter.random_transform(image) for image in images]
    """)
    assert _json(root, "--show-minor-speed", "--show-housekeeping") == []


def test_a_keras_2_sequence_with_one_worker_is_said_to_load_in_one_background_thread(tmp_path):
    """Pool 2038: Keras 2's one worker loads ahead in a background thread (a queue of batches);
    a step waits only where its batch loads slower than it trains."""
    root = _project(tmp_path, KERAS2, """
        import cv2
        import numpy as np
        import tensorflow as tf

        class Batches(tf.keras.utils.Sequence):
            def __len__(self):
                return 10

            def __getitem__(self, index):
                return np.stack([cv2.imread(p) for p in self.paths[index]]), self.labels[index]

        model.fit_generator(Batches(), epochs=3)
    """)
    (item,) = [item for item in _json(root) if item["code"] == "PL407"]
    assert "one background thread calls `__getitem__` a batch at a time, so every step whose batch takes longer " \
           "to load than to train waits for it" in item["message"]


def test_a_serial_map_whose_output_is_cached_is_minor_speed(tmp_path):
    """Pool 2038: `map(augment_batch).cache()`: the map runs in the first epoch only; a reader
    judged both such PL101s accurate and not worth acting on. Without the cache it costs every epoch."""
    root = _project(tmp_path, "tensorflow==2.4.1", """
        import tensorflow as tf
        ds = tf.data.Dataset.list_files("data/*.jpg").map(lambda p: tf.io.decode_jpeg(tf.io.read_file(p))).cache()
        model.fit(ds.batch(32), epochs=25)
        again = tf.data.Dataset.list_files("data/*.jpg").map(lambda p: tf.io.decode_jpeg(tf.io.read_file(p)))
        model.fit(again.batch(32), epochs=25)
    """)
    found = [(item["line"], item["impact"]) for item in _json(root, "--show-minor-speed") if item["code"] == "PL101"]
    assert found == [(2, "minor-speed"), (4, "speed")]


def test_a_flow_handed_to_a_helper_that_only_predicts_on_it_is_minor_speed(tmp_path):
    """Pool 2039: `get_binary_predictions(model, val_gen)` only calls `model.predict(generator)`
    and reads `generator.classes`: the flow is evaluated, never trained on."""
    root = _project(tmp_path, KERAS3, """
        from tensorflow.keras.preprocessing.image import ImageDataGenerator

        def binary_predictions(model, generator):
            scores = model.predict(generator)
            return scores, generator.classes

        val_gen = ImageDataGenerator(rescale=1 / 255).flow_from_directory("data/val", shuffle=False)
        scores, labels = binary_predictions(model, val_gen)
        train_gen = ImageDataGenerator(rescale=1 / 255).flow_from_directory("data/train")
        def train(model, generator):
            model.fit(generator, epochs=3)
        train(model, train_gen)
    """)
    found = [(item["line"], item["impact"]) for item in _json(root, "--show-minor-speed")]
    assert found == [(7, "minor-speed"), (9, "speed")]


def test_data_read_only_to_calibrate_a_tflite_converter_is_not_trained_on(tmp_path):
    """Pool 2038: a flow read by `next()` only inside the converter's `representative_dataset`
    (20 batches, 5 images each, for INT8 calibration): nothing trains on it (C1); likewise a
    dataset looped over only there. The same flow and dataset trained on are reported."""
    calibration = """
        import tensorflow as tf

        datagen = tf.keras.preprocessing.image.ImageDataGenerator(rescale=1.0 / 255)
        samples = datagen.flow_from_directory("data/calibration", target_size=(224, 224))
        records = tf.data.TFRecordDataset(files).map(parse).batch(1)

        def representative_dataset():
            for _ in range(20):
                images, _ = next(samples)
                yield [images[:1]]
            for record in records.take(100):
                yield [record]

        converter = tf.lite.TFLiteConverter.from_keras_model(model)
        converter.representative_dataset = representative_dataset
    """
    root = _project(tmp_path, "tensorflow==2.4.1", calibration)
    assert _json(root, "--show-minor-speed", "--show-minor-correctness") == []
    (tmp_path / "train.py").write_text(textwrap.dedent(calibration).replace(
        "converter.representative_dataset = representative_dataset", "model.fit(samples, epochs=3)"))
    assert {item["code"] for item in _json(root)} == {"PL101", "PL403"}


def test_a_flow_pulled_by_next_where_nothing_trains_is_minor_speed(tmp_path):
    """Pool 2040: test-time augmentation, `next(tta_datagen.flow(image))` nine times for one
    `model.predict`; the module trains nothing. The same pulls beside a `fit` stay speed."""
    tta = """
        import numpy as np
        from tensorflow.keras.preprocessing.image import ImageDataGenerator
        tta_datagen = ImageDataGenerator(horizontal_flip=True, rotation_range=15)

        def predict_with_tta(model, image, n=10):
            batches = tta_datagen.flow(np.expand_dims(image, 0), batch_size=1)
            return model.predict(np.concatenate([next(batches) for _ in range(n)]))
    """
    root = _project(tmp_path, KERAS3, tta)
    assert [(item["line"], item["impact"]) for item in _json(root, "--show-minor-speed")] == [(3, "minor-speed")]
    trained = _project(tmp_path / "trained", KERAS3, tta + "\n        model.fit(x, y, epochs=3)\n")
    assert [(item["line"], item["impact"]) for item in _json(trained, "--show-minor-speed")] == [(3, "speed")]


def _notebook_printing(tmp_path: Path, printed: str) -> Path:
    """A notebook that trains on an augmenting generator, its saved output `printed`."""
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": 1, "source": [
                  "import tensorflow as tf\n",
                  "from tensorflow.keras.preprocessing.image import ImageDataGenerator\n",
                  "gen = ImageDataGenerator(zoom_range=0.2).flow_from_directory('data/train')\n"],
              "outputs": [{"name": "stdout", "output_type": "stream", "text": [printed]}]},
             {"cell_type": "code", "metadata": {}, "execution_count": 2, "outputs": [],
              "source": ["ds = tf.data.Dataset.from_tensor_slices(files).map(lambda f: tf.py_function(load, [f], tf.float32))\n",
                         "model.fit(gen, epochs=10)\n", "model.fit(ds.batch(32), epochs=10)\n"]}]
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}), encoding="utf-8")
    return path


def test_speed_findings_of_a_notebook_whose_outputs_show_a_small_dataset_are_minor(tmp_path):
    """Pools 2035-2041: readers judged 47 of 53 accurate ImageDataGenerator findings in notebooks
    whose saved outputs show Keras found fewer than 2,500 images not worth acting on (360 images
    of a course project: seconds an epoch). Correctness findings keep their impact."""
    path = _notebook_printing(tmp_path, "Found 360 images belonging to 3 classes.\n")
    found = {d.code: d for d in check_paths([path], select=["PL403", "PL106"])}
    assert {code: d.impact for code, d in found.items()} == {"PL403": Impact.MINOR_SPEED, "PL106": Impact.MINOR_SPEED}
    assert found["PL403"].message.endswith("(minor here: the saved outputs show Keras found at most 360 images)")
    # a large set, or a count of nothing (a wrong path in that run) or no count at all, is no evidence
    for printed in ("Found 22498 images belonging to 2 classes.\nFound 300 images belonging to 2 classes.\n",
                    "Found 0 images belonging to 0 classes.\n", "Epoch 1/10\n"):
        path = _notebook_printing(tmp_path, printed)
        assert {d.code: d.impact for d in check_paths([path], select=["PL403", "PL106"])} == {
            "PL403": Impact.SPEED, "PL106": Impact.SPEED}, printed



def test_a_generator_whose_written_run_loads_few_images_is_minor_speed(tmp_path):
    """Pool 2042: `fit(gen, steps_per_epoch=40, epochs=5)` over batches of 4 loads 800 images (a
    reader: "tiny"); 400 steps of the default 32 for 5 epochs load 64,000, 20 steps of 20 for 170
    epochs 68,000, and a run whose length is not written is no evidence."""
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        from keras.preprocessing.image import ImageDataGenerator
        few = ImageDataGenerator(rotation_range=10).flow_from_directory("data/train", batch_size=4)
        many = ImageDataGenerator(rotation_range=10).flow_from_directory("data/train")
        long = ImageDataGenerator(rotation_range=10).flow_from_directory("data/train", batch_size=20)
        unwritten = ImageDataGenerator(rotation_range=10).flow_from_directory("data/train", batch_size=4)
        model.fit(few, steps_per_epoch=40, epochs=5)
        model.fit(many, steps_per_epoch=400, epochs=5)
        model.fit_generator(long, steps_per_epoch=20, epochs=170)
        model.fit(unwritten, epochs=5)
        print(model)
    """).lstrip("\n"))
    found = {d.line: d for d in check_paths([tmp_path], select=["PL403"])}
    assert {line: d.impact for line, d in found.items()} == {
        2: Impact.MINOR_SPEED, 3: Impact.SPEED, 4: Impact.SPEED, 5: Impact.SPEED}
    assert found[2].message.endswith("(minor here: the training run loads 800 images)")


def test_a_flow_a_helper_returns_and_the_caller_only_validates_on_is_minor_speed(tmp_path):
    """Pool 2043: `create_generators` returns the training, validation and test flows; the caller
    unpacks them, trains on the first, validates on the second (a quarter of the steps) and
    predicts on the third. The validation/test generator's finding is minor speed; the training
    one's speed. A helper whose result is kept whole is no evidence."""
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        from keras.preprocessing.image import ImageDataGenerator

        def create_generators(data_dir):
            train_datagen = ImageDataGenerator(rotation_range=10)
            test_datagen = ImageDataGenerator(rotation_range=10)
            train_gen = train_datagen.flow_from_directory(data_dir + "/train")
            val_gen = test_datagen.flow_from_directory(data_dir + "/val")
            test_gen = test_datagen.flow_from_directory(data_dir + "/test")
            return train_gen, val_gen, test_gen

        def kept_whole(data_dir):
            datagen = ImageDataGenerator(rotation_range=10)
            return datagen.flow_from_directory(data_dir), datagen.flow_from_directory(data_dir + "/val")

        train_gen, val_gen, test_gen = create_generators("data")
        model.fit(train_gen, steps_per_epoch=1000, epochs=10, validation_data=val_gen, validation_steps=250)
        model.predict(test_gen)
        both = kept_whole("data")
        model.fit(both[1], steps_per_epoch=1000, epochs=10)
    """).lstrip("\n"))
    assert sorted((d.line, d.impact.value) for d in check_paths([tmp_path], select=["PL403"])) == [
        (4, "speed"), (5, "minor-speed"), (12, "speed")]
