"""Run one adapted real training script with the job's own step clock (no probe).

    python -m benchmarks.realscripts.harness ID VARIANT [--workdir D] [--src-dir S]
    python -m benchmarks.realscripts.harness ID prepare            # data + script only

VARIANT: `plain` (the adapted script), `memory` (the same, its training input swapped for the
same batches held in memory: a tf.data input gets `.cache()` filled before training, a
PyDataset/Sequence is read once into a list) or the name of a fix of its recipe.

The clock: for `fit`, a callback stamps each train batch end; for custom loops, the iterators
of the datasets the script loops over are wrapped and stamp each `next`. Intervals within an
epoch (the first of each dropped: epoch start, iterator start) give `job-step-ms` (median) and
`job-mean-ms` (mean; what a cache changes over the whole job). For loops, only the iterators with
the most steps count (the training ones; validation passes are shorter).
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from recipes import RECIPES, adapt  # noqa: E402

MIRROR = "/work/.mirror"


def manifest() -> dict[str, dict]:
    with open(os.path.join(HERE, "manifest.json")) as f:
        return {s["id"]: s for s in json.load(f)["scripts"]}


def source(entry: dict, src_dir: str | None) -> str:
    """The script's text at the manifest's commit: a local mirror, a copy, or GitHub."""
    gitdir = os.path.join(MIRROR, entry["repo"].replace("/", "+"), "repo")
    if os.path.isdir(gitdir):
        out = subprocess.run(["git", "--git-dir", gitdir, "show", f"{entry['commit']}:{entry['path']}"],
                             capture_output=True, text=True)
        if out.returncode == 0:
            return out.stdout
    if src_dir:
        p = os.path.join(src_dir, entry["repo"].replace("/", "+"), entry["path"])
        if os.path.exists(p):
            with open(p) as f:
                return f.read()
    url = f"https://raw.githubusercontent.com/{entry['repo']}/{entry['commit']}/{entry['path']}"
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read().decode()


def prepare(sid: str, workdir: str, src_dir: str | None = None) -> str:
    """Data (once) and every variant's script under WORKDIR/ID; returns that folder."""
    d = os.path.join(workdir, sid)
    os.makedirs(d, exist_ok=True)
    recipe = RECIPES[sid]
    if not os.path.exists(os.path.join(d, ".data-ready")):
        recipe["synth"](d)
        open(os.path.join(d, ".data-ready"), "w").close()
    text = source(manifest()[recipe.get("source", sid)], src_dir)
    for fix in [None, *recipe["fixes"]]:
        with open(os.path.join(d, f"run_{fix or 'plain'}.py"), "w") as f:
            f.write(adapt(text, recipe, fix))
    return d


# ---- the job's own clock ------------------------------------------------------------------

STAMPS: dict[int, list[list[float]]] = {}  # clock key -> epochs -> stamps


def _report() -> None:
    groups = list(STAMPS.values())
    if not groups:
        return
    most = max(sum(len(e) for e in g) for g in groups)
    steps = [b - a for g in groups if sum(len(e) for e in g) >= 0.8 * most
             for e in g for a, b in zip(e[1:], e[2:])]
    if steps:
        print(f"job-step-ms {1000 * statistics.median(steps):.3f}", flush=True)
        print(f"job-mean-ms {1000 * statistics.fmean(steps):.3f}", flush=True)
        print(f"job-steps {len(steps)}", flush=True)
    per_epoch = [statistics.median([b - a for a, b in zip(e[1:], e[2:])]) for g in groups
                 if sum(len(e) for e in g) >= 0.8 * most for e in g if len(e) > 2]
    print("job-epoch-ms " + " ".join(f"{1000 * m:.1f}" for m in per_epoch), flush=True)


def install_fit_clock(memory: bool) -> None:
    import keras
    import tensorflow as tf

    class Clock(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            STAMPS.setdefault(0, []).append([time.perf_counter()])

        def on_train_batch_end(self, batch, logs=None):
            STAMPS[0][-1].append(time.perf_counter())

    fit = keras.Model.fit

    def timed_fit(self, x=None, *args, **kwargs):
        if memory:
            x = in_memory(x, kwargs.get("steps_per_epoch"), kwargs.get("epochs", 1))
        kwargs["callbacks"] = list(kwargs.get("callbacks") or []) + [Clock()]
        return fit(self, x, *args, **kwargs)

    def in_memory(x, steps, epochs):
        if isinstance(x, tf.data.Dataset):
            if x.cardinality() == tf.data.INFINITE_CARDINALITY and steps:
                x = x.take(steps * epochs)
            cached = x.cache()
            for _ in cached:  # filled before training: every batch then comes from memory
                pass
            return cached
        if isinstance(x, keras.utils.PyDataset):
            batches = [x[i] for i in range(len(x))]

            class InMemory(keras.utils.PyDataset):
                def __len__(self):
                    return len(batches)

                def __getitem__(self, i):
                    return batches[i]
            return InMemory()
        return x

    keras.Model.fit = timed_fit


def install_loop_clock(memory: bool) -> None:
    import tensorflow as tf

    base = tf.data.Dataset.__iter__
    cache: dict[int, object] = {}

    class Timed:
        def __init__(self, it):
            self.it = it
            STAMPS[id(self)] = [[time.perf_counter()]]

        def __iter__(self):
            return self

        def __next__(self):
            v = next(self.it)
            STAMPS[id(self)][0].append(time.perf_counter())
            return v

    def timed_iter(self):
        ds = self
        if memory:
            if id(self) not in cache:
                c = self.cache()
                for _ in base(c):
                    pass
                cache[id(self)] = (self, c)  # keep self alive: its id stays unique
            ds = cache[id(self)][1]
        return Timed(base(ds))

    tf.data.Dataset.__iter__ = timed_iter


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("id", choices=sorted(RECIPES))
    ap.add_argument("variant")
    ap.add_argument("--workdir", default="/tmp/probe_real/work")
    ap.add_argument("--src-dir", default=None)
    a = ap.parse_args()
    d = prepare(a.id, a.workdir, a.src_dir)
    if a.variant == "prepare":
        print(d)
        return
    fix = None if a.variant in ("plain", "memory") else a.variant
    script = os.path.join(d, f"run_{fix or 'plain'}.py")
    os.environ.update(RECIPES[a.id].get("env", {}))
    os.chdir(d)
    sys.path.insert(0, d)
    sys.argv = [script]
    if RECIPES[a.id]["clock"] == "fit":
        install_fit_clock(a.variant == "memory")
    else:
        install_loop_clock(a.variant == "memory")
    atexit.register(_report)
    t0 = time.perf_counter()
    import runpy
    runpy.run_path(script, run_name="__main__")
    print(f"job-wall-s {time.perf_counter() - t0:.2f}", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    main()
