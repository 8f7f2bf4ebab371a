"""Adaptation recipes for the real training scripts of manifest.json (probe_accuracy.py --real).

Each recipe is data: exact (old -> new) substitutions that make the script run here (data made
locally at the script's shapes, fewer samples and epochs, narrower models, absent plotting
libraries stubbed out), an optional `stop_at` marker (what follows training, e.g. plots of
predictions, is dropped), the data synthesizer, and the fixes written by hand: further
substitutions, each alone on top of the adapted script, named with the probe's action it
corresponds to. Nothing of the scripts' own text is kept in this repository beyond the short
anchors that the substitutions must find.
"""
from __future__ import annotations

import os
import random

import numpy as np

# matplotlib, sklearn and pydot are not installed here: plots become no-ops.
NO_PLT = "from unittest import mock as _mock\nplt = _mock.MagicMock()"


def _jpeg(path: str, w: int, h: int, rng: np.random.Generator) -> None:
    """A photo-like JPEG (smooth gradients plus noise, so it compresses like a photo)."""
    from PIL import Image
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.stack([(xx * rng.uniform(0.2, 1.0)) % 256, (yy * rng.uniform(0.2, 1.0)) % 256,
                     ((xx + yy) * rng.uniform(0.1, 0.5)) % 256], -1)
    img = np.clip(base + rng.normal(0, 18, base.shape), 0, 255).astype(np.uint8)
    Image.fromarray(img).save(path, "JPEG", quality=90)  # PIL writes a JFIF header


def synth_image_folder(d: str) -> None:
    # Cats vs Dogs: ~500x375 JPEGs in PetImages/Cat and PetImages/Dog; 2 x 400 here.
    rng = np.random.default_rng(0)
    for cls in ("Cat", "Dog"):
        os.makedirs(os.path.join(d, "PetImages", cls), exist_ok=True)
        for i in range(400):
            _jpeg(os.path.join(d, "PetImages", cls, f"{6400 + i}.jpg"), 500, 375, rng)


def synth_text(d: str) -> None:
    # aclImdb: one review per .txt under train/{pos,neg} and test/{pos,neg}; ~230 words, with
    # <br /> tags and punctuation. 2 x 400 train and 2 x 100 test here, a 5,000-word vocabulary.
    rng = random.Random(0)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(5000)]
    for split, n in (("train", 800), ("test", 100)):
        for lab in ("pos", "neg"):
            p = os.path.join(d, "aclImdb", split, lab)
            os.makedirs(p, exist_ok=True)
            for i in range(n):
                words = [rng.choice(vocab) + rng.choice(["", "", "", ",", ".", "!"])
                         for _ in range(rng.randint(80, 420))]
                for k in range(0, len(words), 60):
                    words[k] += " <br /><br />"
                with open(os.path.join(p, f"{i}_{rng.randint(1, 10)}.txt"), "w") as f:
                    f.write(" ".join(words))


def synth_mnist(d: str) -> None:
    rng = np.random.default_rng(0)
    np.savez(os.path.join(d, "mnist.npz"),
             x_train=rng.integers(0, 256, (6000, 28, 28), dtype=np.uint8),
             y_train=rng.integers(0, 10, 6000, dtype=np.uint8),
             x_test=rng.integers(0, 256, (1000, 28, 28), dtype=np.uint8),
             y_test=rng.integers(0, 10, 1000, dtype=np.uint8))


def synth_cifar(d: str) -> None:
    rng = np.random.default_rng(0)
    np.savez(os.path.join(d, "cifar10.npz"),
             x_train=rng.integers(0, 256, (5000, 32, 32, 3), dtype=np.uint8),
             y_train=rng.integers(0, 10, (5000, 1), dtype=np.uint8),
             x_test=rng.integers(0, 256, (1000, 32, 32, 3), dtype=np.uint8),
             y_test=rng.integers(0, 10, (1000, 1), dtype=np.uint8))


def synth_segmentation(d: str) -> None:
    # Oxford-IIIT Pets: images/*.jpg (~500x375) and annotations/trimaps/*.png (values 1..3).
    from PIL import Image
    rng = np.random.default_rng(0)
    os.makedirs(os.path.join(d, "images"), exist_ok=True)
    os.makedirs(os.path.join(d, "annotations", "trimaps"), exist_ok=True)
    for i in range(320):
        name = f"pet_{i:04d}"
        _jpeg(os.path.join(d, "images", name + ".jpg"), 500, 375, rng)
        mask = np.ones((375, 500), np.uint8)
        mask[90:290, 120:380] = 2
        mask[100:280, 130:370] = 3
        Image.fromarray(mask).save(os.path.join(d, "annotations", "trimaps", name + ".png"))


def synth_tfrecord(d: str) -> None:
    # COCO-style records (keras.io "Creating TFRecords": image JPEG bytes + category_id); the
    # project's images were already 224x224 (its annotations/224x224 folder).
    import tensorflow as tf
    rng = np.random.default_rng(0)
    os.makedirs(os.path.join(d, "tfrecords"), exist_ok=True)
    tmp = os.path.join(d, "tmp.jpg")
    for split, n in (("train", 64), ("test", 16)):
        with tf.io.TFRecordWriter(os.path.join(d, "tfrecords", f"coco-{split}.tfrec")) as w:
            for _ in range(n):
                _jpeg(tmp, 224, 224, rng)
                with open(tmp, "rb") as f:
                    img = f.read()
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[img])),
                    "category_id": tf.train.Feature(int64_list=tf.train.Int64List(
                        value=[int(rng.integers(0, 91))]))}))
                w.write(ex.SerializeToString())
    os.remove(tmp)


RECIPES: dict[str, dict] = {
    "image_folder": {
        "synth": synth_image_folder,
        "clock": "fit",
        "subs": [
            ("import matplotlib.pyplot as plt", NO_PLT),
            ("keras.utils.plot_model(model, show_shapes=True)", "pass  # pydot is not installed"),
            ("x = layers.Conv2D(128, 3, strides=2", "x = layers.Conv2D(16, 3, strides=2"),
            ("for size in [256, 512, 728]:", "for size in [16, 32, 48]:"),
            ("layers.SeparableConv2D(1024, 3", "layers.SeparableConv2D(64, 3"),
            ("epochs = 25", "epochs = 4"),
        ],
        "stop_at": 'img = keras.utils.load_img("PetImages/Cat/6779.jpg"',
        # The augmentation map is already AUTOTUNE and prefetched; the decoded, resized images
        # are the same every epoch: cache them before the (random) augmentation.
        "fixes": {
            "cache": [("train_ds = train_ds.map(\n    lambda img, label: (data_augmentation(img), label),",
                       "train_ds = train_ds.cache().map(\n    lambda img, label: (data_augmentation(img), label),")],
        },
    },
    "tfrecord": {
        "synth": synth_tfrecord,
        "clock": "fit",
        "subs": [
            # The script leaves the parser for the user to write ("Define your parsing logic
            # here"); this is the keras.io recipe's record layout.
            ("    pass\n",
             "    ex = tf.io.parse_single_example(example, {\n"
             "        'image': tf.io.FixedLenFeature([], tf.string),\n"
             "        'category_id': tf.io.FixedLenFeature([], tf.int64)})\n"
             "    return {'image': tf.io.decode_jpeg(ex['image'], channels=3),\n"
             "            'category_id': ex['category_id']}\n"),
            ("tfrecords_dir = '/path/to/tfrecords'", "tfrecords_dir = 'tfrecords'"),
            ("epochs = 20", "epochs = 4"),
            ("weights=None, classes=91", "weights=None, classes=91, alpha=0.35"),
        ],
        # Every map is AUTOTUNE and the end prefetched: the decoded, resized records can be cached.
        "fixes": {
            "cache": [(".map(prepare_sample, num_parallel_calls=AUTOTUNE)\n",
                       ".map(prepare_sample, num_parallel_calls=AUTOTUNE)\n        .cache()\n")],
        },
    },
    "text": {
        "synth": synth_text,
        "clock": "fit",
        "subs": [
            ('fpath = keras.utils.get_file(\n    origin="https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz"\n)',
             'fpath = "aclImdb_v1.tar.gz"'),
            ('os.system(f"tar -xf {fpath} -C {dirpath}")', "pass"),
            ('os.system(f"rm -r {dirpath}/aclImdb/train/unsup")', "pass"),
        ],
        "stop_at": "## Make an end-to-end model",
        "fixes": {
            "parallelize": [("train_ds = raw_train_ds.map(vectorize_text)",
                             "train_ds = raw_train_ds.map(vectorize_text, num_parallel_calls=tf.data.AUTOTUNE)")],
        },
    },
    "sequence": {
        "synth": synth_cifar,
        "clock": "fit",
        "subs": [
            ("import matplotlib.pyplot as plt", NO_PLT),
            ("from sklearn.metrics import ConfusionMatrixDisplay", "ConfusionMatrixDisplay = _mock.MagicMock()"),
            ("(x_train, y_train), (x_test, y_test) = cifar10.load_data()",
             "_d = np.load('cifar10.npz')\n"
             "(x_train, y_train), (x_test, y_test) = (_d['x_train'], _d['y_train']), (_d['x_test'], _d['y_test'])"),
            ("sample_idxs = np.random.randint(0, 50000, size=(5, 5))",
             "sample_idxs = np.random.randint(0, 5000, size=(5, 5))"),
            # Keras 3.15's PyDataset has a read-only `num_batches` property (the example predates it).
            ("self.num_batches", "self._num_batches"),
            ("model.fit(AnchorPositivePairs(num_batches=1000), epochs=20)",
             "model.fit(AnchorPositivePairs(num_batches=1000), epochs=3)"),
        ],
        "stop_at": "plt.plot(history.history",
        "fixes": {
            "add-workers": [("        super().__init__()\n        self._num_batches",
                             "        super().__init__(workers=2)\n        self._num_batches")],
        },
    },
    "custom_loop": {
        "synth": synth_mnist,
        "clock": "loop",
        "subs": [
            ("(x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()",
             "_d = np.load('mnist.npz')\n"
             "(x_train, y_train), (x_test, y_test) = (_d['x_train'], _d['y_train']), (_d['x_test'], _d['y_test'])"),
            ("x_val = x_train[-10000:]\ny_val = y_train[-10000:]\nx_train = x_train[:-10000]\ny_train = y_train[:-10000]",
             "x_val = x_train[-1000:]\ny_val = y_train[-1000:]\nx_train = x_train[:-1000]\ny_train = y_train[:-1000]"),
        ],
        # The guide goes on with losses added by layers and a GAN: the first three loops train.
        "stop_at": "## Low-level handling of losses tracked by the model",
        "fixes": {
            "prefetch": [("train_dataset = train_dataset.shuffle(buffer_size=1024).batch(batch_size)",
                          "train_dataset = train_dataset.shuffle(buffer_size=1024).batch(batch_size)"
                          ".prefetch(tf.data.AUTOTUNE)")],
        },
    },
    "segmentation": {
        "synth": synth_segmentation,
        "clock": "fit",
        # TF 2.21's oneDNN kernels crash (SIGSEGV) on this model on this CPU (no AVX-512).
        "env": {"TF_ENABLE_ONEDNN_OPTS": "0"},
        "subs": [
            ("val_samples = 1000", "val_samples = 64"),
            ("epochs = 15", "epochs = 3"),
            ('x = layers.Conv2D(32, 3, strides=2, padding="same")(inputs)',
             'x = layers.Conv2D(8, 3, strides=2, padding="same")(inputs)'),
            ("for filters in [64, 128, 256]:", "for filters in [8, 16, 32]:"),
            ("for filters in [256, 128, 64, 32]:", "for filters in [32, 16, 8, 8]:"),
        ],
        "stop_at": "# Generate predictions for all images in the validation set",
        "fixes": {
            "prefetch": [("return dataset.batch(batch_size)",
                          "return dataset.batch(batch_size).prefetch(tf_data.AUTOTUNE)")],
            "cache": [("return dataset.batch(batch_size)", "return dataset.cache().batch(batch_size)")],
        },
    },
}


# The same scripts with narrower models: on this CPU the models above set the pace; narrowed,
# the input pipelines do (what a fast accelerator would make of them). Only widths differ.
def _narrow(base: str, widths: list[tuple[str, str]]) -> dict:
    r = dict(RECIPES[base], source=base)
    subs = [(old, dict(widths).get(old, new)) for old, new in r["subs"]]
    r["subs"] = subs + [w for w in widths if w[0] not in dict(r["subs"])]
    return r


RECIPES["text_narrow"] = _narrow("text", [
    ("embedding_dim = 128", "embedding_dim = 8"),
    ('layers.Conv1D(128, 7, padding="valid", activation="relu", strides=3)',
     'layers.Conv1D(8, 7, padding="valid", activation="relu", strides=3)'),
    ('x = layers.Dense(128, activation="relu")(x)', 'x = layers.Dense(8, activation="relu")(x)'),
])
RECIPES["segmentation_narrow"] = _narrow("segmentation", [
    ('x = layers.Conv2D(32, 3, strides=2, padding="same")(inputs)',
     'x = layers.Conv2D(4, 3, strides=2, padding="same")(inputs)'),
    ("for filters in [64, 128, 256]:", "for filters in [4, 4, 8]:"),
    ("for filters in [256, 128, 64, 32]:", "for filters in [8, 4, 4, 4]:"),
])


def adapt(text: str, recipe: dict, fix: str | None = None) -> str:
    """The script as it runs here: the recipe's substitutions, the cut, then the fix's own."""
    subs = list(recipe["subs"]) + (list(recipe["fixes"][fix]) if fix else [])
    for old, new in subs:
        if old not in text:
            raise ValueError(f"recipe anchor not found: {old[:60]!r}")
        text = text.replace(old, new)
    stop = recipe.get("stop_at")
    if stop:
        if stop not in text:
            raise ValueError(f"stop_at anchor not found: {stop[:60]!r}")
        text = text[:text.index(stop)]
        if text.count('"""') % 2:  # the marker sat in a docstring section: cut before it opens
            text = text[:text.rindex('"""')]
    return text
