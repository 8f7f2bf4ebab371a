from __future__ import annotations

import libcst as cst

from pipelint.model import find_arg
from pipelint.rules.base import Invalid, Rule, RuleContext

# Ops before the cache that bound how much it holds.
_BOUNDING = frozenset({"take", "shard"})
# Ops through which `list_files` names become file contents.
_READING = frozenset({"map", "interleave", "flat_map"})


def _in_memory(call: cst.Call) -> bool:
    arg = find_arg(call, "filename", 0)
    if arg is None:
        return True
    value = arg.value
    return isinstance(value, cst.SimpleString) and value.evaluated_value == ""


class MemoryCacheOfFileSource(Rule):
    code = "PL301"
    summary = "In-memory `cache()` of a file-backed dataset holds the whole dataset in RAM."
    docs = """\
## What it does
Flags `cache()` without a filename (or with `""`) on a pipeline read from files:
`TFRecordDataset`, `TextLineDataset`, `FixedLengthRecordDataset`, `list_files`,
`make_csv_dataset`/`CsvDataset` and the Keras `*_dataset_from_directory` helpers. A `take` or
`shard` before the cache bounds it and is left alone, and so is a cache of `list_files` names
that no `map`/`interleave` has read yet.

Off by default: whether the data fits in memory is not written in the source, and on the real code
pipelint is measured on every cache it flagged fitted (flower photos, a speech-commands subset,
HIGGS at about 1.3 GB). Select it (`--select PL301`, or `extend-select = ["PL301"]`) where your
datasets may outgrow the machine.

## Why is this bad?
An in-memory cache keeps every element it has seen for the life of the dataset. File-backed
datasets are the ones that can be larger than RAM; decoded images are often several times the
size of the files. The first epoch then grows the process until it is killed, often hours into a
run. `cache(filename)` keeps the same saving on disk, and caching after a `map` that shrinks the
elements (resizing, feature selection) keeps the in-memory cache small.

## Example
```python
ds = tf.data.TFRecordDataset(files).map(parse).cache().shuffle(10_000).batch(64)
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).map(parse).cache("/tmp/train.cache").shuffle(10_000).batch(64)
```

## Fix safety
No automatic fix: whether the data fits in memory, and where a cache file may live, is the
author's call.

## References
- https://www.tensorflow.org/guide/data_performance#caching
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#cache
"""
    VALID = (
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files).map(parse).cache('/tmp/train.cache')
        """,
        # an in-memory source is already in memory
        """
        import tensorflow as tf
        ds = tf.data.Dataset.from_tensor_slices((x, y)).cache()
        """,
        # a bounded slice of the files
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files).take(1000).cache()
        """,
        """
        import tensorflow as tf
        names = tf.data.Dataset.list_files('*.png', shuffle=False).cache()
        """,
        # functools.cache and Spark's cache are not tf.data
        """
        import functools
        import tensorflow as tf

        @functools.cache
        def vocab():
            return open('v.txt').read().split()
        """,
        """
        import tensorflow as tf
        from pyspark.sql import SparkSession
        df = SparkSession.builder.getOrCreate().read.text('a.txt').cache()
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).map(parse).cache().shuffle(1000)
            """,
            line=2, column=48, end_column=53,
            message="in-memory `cache()` of a file-backed dataset keeps every element",
        ),
        Invalid(
            """
            from tensorflow import keras
            import tensorflow as tf
            train = keras.utils.image_dataset_from_directory('images/')
            train = train.cache().prefetch(tf.data.AUTOTUNE)
            """,
            line=4, column=15, end_column=20,
            message="in-memory `cache()` of a file-backed dataset keeps every element",
        ),
        Invalid(
            """
            import tensorflow as tf

            def load(pattern, training):
                ds = tf.data.Dataset.list_files(pattern)
                ds = ds.interleave(tf.data.TextLineDataset, num_parallel_calls=tf.data.AUTOTUNE)
                if training:
                    ds = ds.cache('')
                return ds
            """,
            line=7, column=17, end_column=22,
            message="in-memory `cache()` of a file-backed dataset keeps every element",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        for site in ctx.model.ops("cache"):
            if site.op.implicit or not _in_memory(site.op.call):
                continue
            for prefix in site.prefixes:
                if not prefix.origin.is_file_source:
                    continue
                if any(op.name in _BOUNDING for op in prefix.all_ops()):
                    continue
                if prefix.origin.kind == "tensorflow.data.Dataset.list_files" and not any(
                        op.name in _READING for op in prefix.ops):
                    continue  # still file names, not their contents
                ctx.report(
                    site.op.name_node,
                    "in-memory `cache()` of a file-backed dataset keeps every element in RAM and "
                    "can exhaust it; pass a filename (`cache(path)`) or cache after a map that "
                    "shrinks the elements",
                )
                break
