"""A synthetic multi-module project for issue 18: datasets built in data modules, prepared in
modules that never name TensorFlow, cached and fitted in training modules.

    python benchmarks/synthetic_project.py OUT_DIR [--modules 20]

`write_project(root, modules)` writes `modules` modules (a multiple of 4) under `root/src/synth`,
in groups of four: `data_K.py` builds and shuffles a dataset, `prep_K.py` (no TensorFlow) maps it
serially, `train_K.py` caches the prepared dataset and fits, `trainer_K.py` (no TensorFlow) keeps
a dataset on `self` and caches it in another method. `expected(root, modules)` is what a reader
expects pipelint to report there (file, line, code), every finding crossing a module.
"""
from __future__ import annotations

import argparse
from pathlib import Path

_DATA = '''\
import tensorflow as tf


def load(files):
    ds = tf.data.TFRecordDataset(files)
    ds = ds.shuffle(10_000)
    return ds
'''
_PREP = '''\
def prepare(ds, parse):
    ds = ds.map(parse)
    return ds
'''
_TRAIN = '''\
import tensorflow as tf

from synth import data_{k}, prep_{k}
from synth.trainer_{k} import Trainer

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
train = prep_{k}.prepare(data_{k}.load(["a_{k}.tfrecord"]), tf.io.parse_tensor)
train = train.cache().batch(32).prefetch(tf.data.AUTOTUNE)
model.fit(train, epochs=3)
Trainer(data_{k}.load(["b_{k}.tfrecord"]), model).run()
'''
_TRAINER = '''\
class Trainer:
    def __init__(self, dataset, model):
        self.dataset = dataset
        self.model = model

    def run(self):
        self.dataset = self.dataset.cache().batch(64).prefetch(2)
        self.model.fit(self.dataset, epochs=2)
'''


def write_project(root: Path, modules: int = 20) -> list[Path]:
    package = root / "src" / "synth"
    package.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'synth'\n")
    (package / "__init__.py").write_text("")
    written = []
    for k in range(modules // 4):
        for name, text in ((f"data_{k}", _DATA), (f"prep_{k}", _PREP), (f"train_{k}", _TRAIN),
                           (f"trainer_{k}", _TRAINER)):
            path = package / f"{name}.py"
            path.write_text(text.format(k=k))
            written.append(path)
    return written


def expected(modules: int = 20) -> set[tuple[str, int, str]]:
    """(module file, line, code) a reader expects: in prep_K the serial map (PL101, minor speed:
    train_K caches what it makes, so it runs in the first epoch only); in train_K
    the cache after data_K's shuffle (PL201) and its whole file in memory (PL301); in trainer_K
    the same two on the cache kept on `self`."""
    found = set()
    for k in range(modules // 4):
        found |= {(f"prep_{k}.py", 2, "PL101"),
                  (f"train_{k}.py", 9, "PL201"), (f"train_{k}.py", 9, "PL301"),
                  (f"trainer_{k}.py", 7, "PL201"), (f"trainer_{k}.py", 7, "PL301")}
    return found


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--modules", type=int, default=20)
    options = parser.parse_args()
    write_project(options.out, options.modules)
    print(options.out / "src")
