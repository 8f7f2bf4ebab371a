"""The shared pipeline model: origins by qualified name, flow, branches, helpers, consumers."""
from __future__ import annotations

import libcst as cst
import pytest

from pipelint.model import PipelineModel


def build(source: str) -> PipelineModel:
    return PipelineModel.build(cst.parse_module(source))


def op_paths(model: PipelineModel, name: str) -> list[list[str]]:
    (site,) = [s for s in model.ops(name)]
    return sorted([op.name for op in prefix.ops] for prefix in site.prefixes)


@pytest.mark.parametrize("header,expr", [
    ("import tensorflow as tf", "tf.data.Dataset.range(3)"),
    ("import tensorflow", "tensorflow.data.Dataset.range(3)"),
    ("from tensorflow import data", "data.Dataset.range(3)"),
    ("from tensorflow.data import Dataset", "Dataset.range(3)"),
    ("import tensorflow.compat.v2 as tf", "tf.data.Dataset.range(3)"),
    ("import tensorflow as tf", "tf.data.TFRecordDataset(files)"),
    ("import tensorflow_datasets as tfds", "tfds.load('mnist', split='train')"),
    ("from tensorflow import keras", "keras.utils.image_dataset_from_directory('d')"),
    ("import keras", "keras.utils.text_dataset_from_directory('d')"),
    ("import tensorflow as tf", "tf.keras.preprocessing.image_dataset_from_directory('d')"),
])
def test_origins_resolve_whatever_the_import_style(header, expr):
    model = build(f"{header}\nds = {expr}\nds = ds.cache()\n")
    (site,) = list(model.ops("cache"))
    assert site.prefixes and site.prefixes[0].origin.kind != "unknown"


@pytest.mark.parametrize("source", [
    "import pandas as pd\ndf = pd.DataFrame()\ndf = df.map(f).cache()\n",
    "import tensorflow as tf\nclass Batcher:\n    def batch(self, n):\n        return self\nBatcher().batch(3).shuffle(2)\n",
    "import tensorflow as tf\nrdd = spark.sparkContext.parallelize(x).map(f).cache()\n",
])
def test_lookalikes_are_not_datasets(source):
    assert list(build(source).ops()) == []


def test_flow_through_reassignment_branch_and_helper():
    model = build(
        "import tensorflow as tf\n"
        "def finish(ds):\n"
        "    return ds.batch(64).prefetch(tf.data.AUTOTUNE)\n"
        "def make(training):\n"
        "    ds = tf.data.TFRecordDataset(files).map(parse)\n"
        "    if training:\n"
        "        ds = ds.shuffle(1000)\n"
        "    return finish(ds.cache())\n"
        "model.fit(make(True))\n"
    )
    assert op_paths(model, "cache") == [["map"], ["map", "shuffle"]]
    (shuffle,) = list(model.ops("shuffle"))
    assert shuffle.op.conditional
    fits = [c for c in model.consumers if c.kind == "fit"]
    assert len(fits) == 1
    # `make(True)` is inlined with training=True: only the branch that call takes reaches fit
    assert sorted(len(p.ops) for p in fits[0].value.paths) == [5]
    # `make` is called here, so its return is not an unknown consumer
    assert not [c for c in model.consumers if c.kind == "return"]


def test_keras_helpers_have_implicit_ops():
    model = build("import keras\nds = keras.utils.image_dataset_from_directory('d', shuffle=False)\nmodel.fit(ds)\n")
    (fit,) = model.consumers
    assert [op.name for op in fit.value.paths[0].all_ops()] == ["batch", "prefetch"]


@pytest.mark.parametrize("header,source,expected", [
    ("import keras", "keras.utils.image_dataset_from_directory('d')", ["shuffle", "batch", "prefetch"]),
    ("import keras", "keras.utils.image_dataset_from_directory('d', 'inferred', 'int', None, 'rgb', None)",
     ["shuffle", "prefetch"]),
    ("import keras", "keras.utils.audio_dataset_from_directory('d')", ["shuffle", "prefetch", "batch"]),
    ("import keras", "keras.utils.timeseries_dataset_from_array(x, None, 10)", ["prefetch", "batch"]),
    ("import keras", "keras.utils.timeseries_dataset_from_array(x, None, 10, shuffle=True)",
     ["prefetch", "shuffle", "batch"]),
    ("import tensorflow as tf", "tf.data.Dataset.list_files('*.png')", ["shuffle"]),
    ("import tensorflow as tf", "tf.data.Dataset.list_files('*.png', False)", []),
    ("import tensorflow as tf", "tf.data.Dataset.list_files('*.png', shuffle=flag)", ["shuffle"]),
    ("import tensorflow as tf", "tf.data.experimental.make_csv_dataset('a.csv', 32)",
     ["shuffle", "repeat", "batch", "prefetch"]),
    ("import tensorflow as tf", "tf.data.experimental.make_csv_dataset('a.csv', 32, num_epochs=1, shuffle=False)",
     ["batch", "prefetch"]),
    ("import tensorflow as tf", "tf.data.experimental.make_csv_dataset('a.csv', 32, **options)", []),
    ("import tensorflow_datasets as tfds", "tfds.load('mnist', split='train')", []),
    ("import tensorflow_datasets as tfds", "tfds.load('mnist', split='train', shuffle_files=True, batch_size=8)",
     ["shuffle", "batch"]),
])
def test_helpers_defaults_are_implicit_ops(header, source, expected):
    model = build(f"{header}\nds = {source}\nmodel.fit(ds)\n")
    (fit,) = model.consumers
    assert [op.name for op in fit.value.paths[0].all_ops()] == expected
    assert all(op.implicit for op in fit.value.paths[0].all_ops())


@pytest.mark.parametrize("body,kind", [
    ("print(x)", "peek"),
    ("if i % 100 == 0:\n        print('.', end='')\n    elif i == 5:\n        count += 1", "peek"),
    ("pass", "pass"),  # reads every element (fills a cache)
    ("counts[int(x)] += 1", "pass"),  # a count over the data
    ("time.sleep(0.01)\n    model.train_on_batch(x)", "for"),  # it trains
    # (in a module that trains nothing anywhere: a model run scores, other work converts or writes)
    ("score += psnr(x, model(x))", "eval-loop"),
    ("time.sleep(0.01)", "pass"),
    ("cv2.imwrite(f'{i}.png', x.numpy())", "pass"),
    ("if i % 100 == 0:\n        print(i)\n    train_step(x)", "for"),
    ("self.assertEqual(x['id'], 1)", "peek"),  # a unit test reading two records
    ("print(i)\n    for key, value in x.items():\n        print(key, value)", "peek"),
    ("test_step(x)", "eval-loop"),
    ("preds.append(model(x, training=False))", "eval-loop"),
    ("loss = train_step(x)\n    val = test_step(x)", "for"),  # it trains
])
def test_loops_that_only_show_or_count_are_looks(body, kind):
    model = build(f"import tensorflow as tf\nds = tf.data.Dataset.range(8).map(f)\nfor i, x in enumerate(ds):\n    {body}\n")
    assert [c.kind for c in model.consumers] == [kind]


def test_unknown_work_in_a_module_that_trains_elsewhere_stands_for_training():
    model = build("import tensorflow as tf\nds = tf.data.Dataset.range(8).map(f)\n"
                  "model.compile(optimizer='adam', loss='mse')\nfor x in ds:\n    time.sleep(0.01)\n")
    assert [c.kind for c in model.consumers] == ["for"]


def test_consumers():
    model = build(
        "import tensorflow as tf\n"
        "ds = tf.data.Dataset.range(8).batch(2)\n"
        "for x in ds: step(x)\n"
        "it = iter(ds)\n"
        "dist = strategy.experimental_distribute_dataset(ds)\n"
        "model.fit(ds, validation_data=ds)\n"
        "def input_fn():\n"
        "    return tf.data.Dataset.range(2)\n"
    )
    assert sorted(c.kind for c in model.consumers) == ["distribute", "fit", "for", "iter", "return", "validation"]


def test_tfds_splits_and_with_info():
    model = build(
        "import tensorflow_datasets as tfds\n"
        "(train, test), info = tfds.load('mnist', split=['train', 'test'], with_info=True)\n"
        "train = train.cache()\n"
        "test = test.cache()\n"
    )
    assert len(list(model.ops("cache"))) == 2


def test_map_function_facts():
    model = build(
        "import tensorflow as tf\n"
        "def decode(x):\n"
        "    return tf.numpy_function(np_decode, [x], tf.float32)\n"
        "ds = tf.data.Dataset.range(3).map(decode)\n"
        "ds = ds.map(lambda x: tf.image.random_flip_left_right(x))\n"
        "ds = ds.map(lambda x: tf.image.stateless_random_flip_left_right(x, seed=(1, 2)))\n"
    )
    facts = [site.op.facts for site in model.ops("map")]
    assert facts[0].py_function is not None and facts[0].randomness is None
    assert facts[1].randomness is not None
    assert facts[2].randomness is None


def test_evidence_marks_unknown_roots():
    model = build("import tensorflow as tf\nds = load().map(f).prefetch(tf.data.AUTOTUNE)\n")
    assert op_paths(model, "prefetch") == [["map"]]


def test_random_generator_object_in_map_is_randomness():
    model = build(
        "import tensorflow as tf\n"
        "rng = tf.random.Generator.from_seed(1)\n"
        "ds = tf.data.Dataset.range(3).map(lambda x: x + rng.normal([]))\n"
    )
    (site,) = list(model.ops("map"))
    assert site.op.facts.randomness is not None


def test_inlined_helper_sees_module_globals():
    model = build(
        "import keras\n"
        "opt = keras.optimizers.Adam()\n"
        "def train(m):\n"
        "    m.compile(optimizer=opt)\n"
        "train(keras.Sequential([]))\n"
    )
    assert any(site.optimizer is not None for site in model.compiles)


@pytest.mark.parametrize("header,call,mode,shared", [
    ("import tensorflow as tf", "tf.data.experimental.service.distribute('parallel_epochs', A)", "OFF", False),
    ("import tensorflow as tf",
     "tf.data.experimental.service.distribute(processing_mode='distributed_epoch', service=A, job_name='j')",
     "DYNAMIC", True),
    ("from tensorflow.data.experimental import service",
     "service.distribute(service.ShardingPolicy.FILE_OR_DATA, A, job_name=None)", "FILE_OR_DATA", False),
    ("from tensorflow.data.experimental.service import distribute", "distribute(FLAGS.mode, A, 'job')", None, True),
])
def test_service_hand_off_is_read_from_apply(header, call, mode, shared):
    model = build(f"{header}\nimport tensorflow as tf\nds = tf.data.Dataset.range(4).batch(2).apply({call}).prefetch(1)\n")
    ((hand_off, site),) = list(model.service_hand_offs())
    assert (hand_off.processing_mode, hand_off.job_name is not None) == (mode, shared)
    # what runs on the workers: the prefixes of the hand-off
    assert [[op.name for op in prefix.ops] for prefix in site.prefixes] == [["batch"]]


def test_other_applies_are_not_service_hand_offs():
    model = build("import tensorflow as tf\n"
                  "ds = tf.data.Dataset.range(4).apply(tf.data.experimental.prefetch_to_device('/gpu:0'))\n"
                  "ds = ds.apply(my.distribute('parallel_epochs', A))\n")
    assert list(model.service_hand_offs()) == []


def test_a_loop_over_a_list_of_datasets_iterates_the_list_not_the_datasets():
    model = build(
        "import tensorflow as tf\n"
        "parts = []\n"
        "for name in names:\n"
        "    parts.append(tf.data.TextLineDataset(name).map(f))\n"
        "for part in parts[1:]:\n"
        "    print(part)\n"
        "for part in parts:\n"
        "    print(part)\n"
        "for x, y in zip(parts[0], parts[1]):\n"
        "    step(x, y)\n"
    )
    # only the zip of two of them loops over elements; `print(part)` reads each one's description
    assert [c.kind for c in model.consumers] == ["inspect", "inspect", "for"]
