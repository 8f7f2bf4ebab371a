"""Does pipelint agree with what tf.data's default rewrites do to a pipeline as it runs?

PL101 (serial `map`) and PL103/PL104 (no final prefetch) stay quiet where TensorFlow's default
graph rewrites already do the work: `map_parallelization` runs a map in parallel when it can prove
the function stateless, and `inject_prefetch` ends a pipeline with a prefetch. This builds each
case below in TensorFlow, iterates it, reads the pipeline that actually runs
(`tf.data.experimental.get_model_proto`: its nodes, their parallelism and whether autotuning may
raise it), and compares with what pipelint says about the same source under default options:

- the map runs serially (a `Map` node, or a fused `MapAndBatch` whose parallelism is fixed at 1)
  <=> PL101 or PL106 (a Python function: PL106's finding) reports it;
- nothing overlaps the pipeline's output with its consumer (its last node is neither a prefetch
  nor an asynchronous stage) <=> PL103 reports it.

    python benchmarks/default_rewrites.py            # every case, a table and "N/N agree"
    python benchmarks/default_rewrites.py --case random_uniform

Options that switch autotuning off leave no model to read, so those cases are not here; the rules
follow TensorFlow's documentation there (`inject_prefetch` needs autotuning).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HEADER = """\
import keras
import tensorflow as tf
"""
# A consumer that trains, appended for pipelint only: PL103 judges datasets fed to training.
CONSUMER = "\nfor batch in ds:\n    train_step(batch)\n"
# Nodes that hand out elements from a buffer of their own (the consumer never waits for the work).
ASYNC_NODES = ("Prefetch", "ParallelMapV2", "MapAndBatch", "ParallelInterleaveDatasetV4", "ParallelBatch")


@dataclass(frozen=True)
class Case:
    name: str
    source: str  # builds `ds` (after HEADER; `PNG` names a small image file)


CASES = (
    Case("arithmetic", "ds = tf.data.Dataset.range(4096).map(lambda x: x * 2 + 1).batch(8)"),
    Case("arithmetic_unbatched", "ds = tf.data.Dataset.range(4096).map(lambda x: x * 2 + 1)"),
    Case("random_uniform", "ds = tf.data.Dataset.range(4096).map(\n"
                           "    lambda x: tf.cast(x, tf.float32) + tf.random.uniform([])).batch(8)"),
    Case("stateless_random", "ds = tf.data.Dataset.range(4096).map(\n"
                             "    lambda x: tf.image.stateless_random_flip_left_right(\n"
                             "        tf.reshape(tf.cast(x, tf.float32), [1, 1, 1]), seed=(1, 2))).batch(8)"),
    Case("py_function", "ds = tf.data.Dataset.range(4096).map(\n"
                        "    lambda x: tf.py_function(lambda v: v, [x], tf.int64)).batch(8)"),
    Case("tf_print", "def show(x):\n    tf.print(x, output_stream='file:///dev/null')\n    return x\n\n"
                     "ds = tf.data.Dataset.range(4096).map(show).batch(8)"),
    Case("decode_resize_def", "def load(path):\n"
                              "    image = tf.io.decode_png(tf.io.read_file(path), channels=3)\n"
                              "    image = tf.image.resize(image, [8, 8])\n"
                              "    return tf.cast(image, tf.float32) / 255.0\n\n"
                              "ds = tf.data.Dataset.from_tensor_slices([PNG] * 256).map(load).batch(8)"),
    Case("strings", "ds = tf.data.Dataset.from_tensor_slices(['1,2', '3,4'] * 64).map(\n"
                    "    lambda line: tf.strings.to_number(tf.strings.split(line, ','))).batch(8)"),
    Case("helper_of_helper", "def scale(x):\n    return tf.cast(x, tf.float32) * 3.0\n\n"
                             "def prepare(x):\n    y = scale(x)\n    return tf.math.sqrt(y + 1.0)\n\n"
                             "ds = tf.data.Dataset.range(4096).map(prepare).batch(8)"),
    Case("helper_with_randomness", "def jitter(x):\n    return x + tf.random.normal([])\n\n"
                                   "def prepare(x):\n    return jitter(tf.cast(x, tf.float32))\n\n"
                                   "ds = tf.data.Dataset.range(4096).map(prepare).batch(8)"),
    Case("keras_rescaling", "rescale = keras.layers.Rescaling(1.0 / 255)\n"
                            "ds = tf.data.Dataset.range(4096).map(\n"
                            "    lambda x: rescale(tf.reshape(tf.cast(x, tf.float32), [1, 1, 1]))).batch(8)"),
    Case("keras_random_flip", "flip = keras.layers.RandomFlip('horizontal')\n"
                              "ds = tf.data.Dataset.range(4096).map(\n"
                              "    lambda x: flip(tf.fill([2, 2, 1], tf.cast(x, tf.float32)))).batch(8)"),
    Case("keras_normalization", "normalize = keras.layers.Normalization(mean=3.0, variance=2.0)\n"
                                "ds = tf.data.Dataset.range(4096).map(\n"
                                "    lambda x: normalize(tf.reshape(tf.cast(x, tf.float32), [1, 1]))).batch(8)"),
    Case("keras_resizing", "resize = keras.layers.Resizing(4, 4)\n"
                           "ds = tf.data.Dataset.range(4096).map(\n"
                           "    lambda x: resize(tf.fill([2, 2, 1], tf.cast(x, tf.float32)))).batch(8)"),
    Case("keras_string_lookup", "lookup = keras.layers.StringLookup(vocabulary=['a', 'b'])\n"
                                "ds = tf.data.Dataset.from_tensor_slices(['a', 'b', 'c'] * 64).map(lookup).batch(8)"),
    Case("nn_dropout", "ds = tf.data.Dataset.range(4096).map(\n"
                       "    lambda x: tf.nn.dropout(tf.fill([4], tf.cast(x, tf.float32)), rate=0.5)).batch(8)"),
    Case("variable_counter", "counter = tf.Variable(0, dtype=tf.int64)\n"
                             "ds = tf.data.Dataset.range(4096).map(lambda x: x + counter.assign_add(1)).batch(8)"),
    Case("parse_example", "spec = {'v': tf.io.FixedLenFeature([], tf.int64)}\n"
                          "record = tf.train.Example(features=tf.train.Features(feature={\n"
                          "    'v': tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))})).SerializeToString()\n"
                          "ds = tf.data.Dataset.from_tensors(record).repeat(256).map(\n"
                          "    lambda r: tf.io.parse_single_example(r, spec)).batch(8)"),
    Case("map_parallelization_off", "options = tf.data.Options()\n"
                                    "options.experimental_optimization.map_parallelization = False\n"
                                    "ds = tf.data.Dataset.range(4096).map(lambda x: x * 2).batch(8).with_options(options)"),
    Case("default_optimizations_off", "options = tf.data.Options()\n"
                                      "options.experimental_optimization.apply_default_optimizations = False\n"
                                      "ds = tf.data.Dataset.range(4096).map(lambda x: x * 2).batch(8).with_options(options)"),
    Case("inject_prefetch_off", "options = tf.data.Options()\n"
                                "options.experimental_optimization.inject_prefetch = False\n"
                                "ds = tf.data.Dataset.range(4096).batch(8).map(lambda x: x * 2).with_options(options)"),
    Case("inject_prefetch_off_sync_end", "options = tf.data.Options()\n"
                                         "options.experimental_optimization.inject_prefetch = False\n"
                                         "ds = tf.data.Dataset.range(4096).shuffle(64).batch(8).with_options(options)"),
    Case("inject_prefetch_off_fused", "options = tf.data.Options()\n"
                                      "options.experimental_optimization.inject_prefetch = False\n"
                                      "ds = tf.data.Dataset.range(4096).map(\n"
                                      "    lambda x: x + tf.random.uniform([], maxval=2, dtype=tf.int64))"
                                      ".batch(8).with_options(options)"),
    Case("prefetch_before_batch", "ds = tf.data.Dataset.range(4096).map(lambda x: x + 1).prefetch(2).batch(8)"),
    Case("no_map", "ds = tf.data.Dataset.range(4096).shuffle(64).batch(8)"),
)


def running_nodes(ds) -> list[tuple[str, int | None, bool]]:
    """The running pipeline from its output down its first inputs: (node name, parallelism or
    None, whether autotuning may change that parallelism)."""
    import tensorflow as tf

    iterator = iter(ds)
    for _ in range(8):
        next(iterator)
    for _ in range(20):  # the model is written by the autotuning thread: wait for it
        time.sleep(0.1)
        next(iterator)
        proto = tf.data.experimental.get_model_proto(iterator)
        if proto.output in proto.nodes:
            break
    nodes = []
    key = proto.output
    while key is not None and key in proto.nodes:
        node = proto.nodes[key]
        parallelism = next((p for p in node.parameters if p.name == "parallelism"), None)
        nodes.append((node.name, None if parallelism is None else int(parallelism.value),
                      bool(parallelism is not None and parallelism.tunable)))
        key = node.inputs[0] if node.inputs else None
    return [n for n in nodes if n[0] != "Root"]


def runs_serially(nodes) -> bool:
    return any(name == "Map" or (name == "MapAndBatch" and parallelism == 1 and not tunable)
               for name, parallelism, tunable in nodes)


def overlapped(nodes) -> bool:
    return bool(nodes) and nodes[0][0] in ASYNC_NODES


def judge(case: Case, png: str) -> dict:
    from pipelint.engine import lint_source

    namespace: dict = {"PNG": png}
    exec(HEADER + case.source, namespace)  # noqa: S102 - the cases above, nothing else
    nodes = running_nodes(namespace["ds"])
    source = HEADER + case.source.replace("PNG", repr(png)) + CONSUMER
    found = {d.code for d in lint_source(source, "case.py", frozenset({"PL101", "PL103", "PL104", "PL106"}), None)}
    serial, said_serial = runs_serially(nodes), bool(found & {"PL101", "PL106"})
    missing, said_missing = not overlapped(nodes), "PL103" in found
    return {"case": case.name, "nodes": nodes, "serial": serial, "said_serial": said_serial,
            "not_overlapped": missing, "said_not_overlapped": said_missing,
            "agree": serial == said_serial and missing == said_missing}


def write_png(directory: str) -> str:
    import tensorflow as tf

    path = os.path.join(directory, "pixel.png")
    tf.io.write_file(path, tf.io.encode_png(tf.zeros([4, 4, 3], tf.uint8)))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", action="append", help="run only this case (repeatable)")
    args = parser.parse_args(argv)
    chosen = [c for c in CASES if not args.case or c.name in args.case]
    import tensorflow as tf

    print(f"TensorFlow {tf.__version__}")
    with tempfile.TemporaryDirectory() as directory:
        png = write_png(directory)
        results = [judge(case, png) for case in chosen]
    for r in results:
        shown = " <- ".join(f"{name}[{p}{'~' if tunable else ''}]" if p is not None else name
                            for name, p, tunable in r["nodes"])
        print(f"{'ok ' if r['agree'] else 'NO '} {r['case']:<26} serial={r['serial']!s:<5} "
              f"(pipelint {r['said_serial']!s:<5}) not overlapped={r['not_overlapped']!s:<5} "
              f"(pipelint {r['said_not_overlapped']!s:<5})  {shown}")
    agreed = sum(r["agree"] for r in results)
    print(f"{agreed}/{len(results)} agree")
    return 0 if agreed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
