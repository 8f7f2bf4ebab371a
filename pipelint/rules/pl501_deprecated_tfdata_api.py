from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Applicability
from pipelint.rules.base import Invalid, Rule, RuleContext
from pipelint.rules.rewrite import rename_attribute

# `tf.data.experimental` endpoints that TF 2.21 marks `@deprecated`, with the replacement their
# deprecation notice names.
_DEPRECATED = {
    "shuffle_and_repeat": "`Dataset.shuffle(buffer_size, seed)` then `.repeat(count)` (tf.data fuses them)",
    "map_and_batch": "`Dataset.map(f, num_parallel_calls=...)` then `.batch(...)` (tf.data fuses them)",
    "parallel_interleave": "`Dataset.interleave(f, cycle_length, block_length, num_parallel_calls=tf.data.AUTOTUNE)` "
                           "(`sloppy` is `Options.deterministic = False`)",
    "unbatch": "`Dataset.unbatch()`",
    "ignore_errors": "`Dataset.ignore_errors()`",
    "scan": "`Dataset.scan(...)`",
    "take_while": "`Dataset.take_while(...)`",
    "unique": "`Dataset.unique()`",
    "group_by_window": "`Dataset.group_by_window(...)`",
    "bucket_by_sequence_length": "`Dataset.bucket_by_sequence_length(...)`",
    "rejection_resample": "`Dataset.rejection_resample(...)`",
    "dense_to_sparse_batch": "`Dataset.sparse_batch(...)`",
    "dense_to_ragged_batch": "`Dataset.ragged_batch(...)`",
    "enumerate_dataset": "`Dataset.enumerate()`",
    "choose_from_datasets": "`Dataset.choose_from_datasets(...)` (its `stop_on_empty_dataset` defaults to True)",
    "sample_from_datasets": "`Dataset.sample_from_datasets(...)`",
    "Counter": "`Dataset.counter(...)`",
    "RandomDataset": "`Dataset.random(...)`",
    "get_single_element": "`Dataset.get_single_element()`",
    "get_next_as_optional": "`iterator.get_next_as_optional()`",
    "parse_example_dataset": "`Dataset.map(lambda x: tf.io.parse_example(x, features))`",
    "save": "`Dataset.save(path)`",
    "load": "`Dataset.load(path)`",
    "snapshot": "`Dataset.snapshot(path)`",
    "TFRecordWriter": "`tf.io.TFRecordWriter` (or `Dataset.save`)",
    "make_saveable_from_iterator": "`tf.train.Checkpoint`",
    "ThreadingOptions": "`tf.data.ThreadingOptions`",
    "Optional": "`tf.experimental.Optional`",
}
_PREFIX = "tensorflow.data.experimental."
# Deprecated `tf.data.Options` attributes with a 1:1 replacement.
_OPTION_RENAMES = {"experimental_deterministic": "deterministic", "experimental_threading": "threading"}
# The release that brought the replacement (and the deprecation): before it the experimental name is
# the API, and the renamed `Options` attribute does not exist (setting it raises). Endpoints not
# listed had their replacement in every TensorFlow 2 release.
_REPLACED_IN = {
    **dict.fromkeys(("scan", "take_while", "unique", "group_by_window", "bucket_by_sequence_length",
                     "get_single_element", "RandomDataset", "snapshot", "ThreadingOptions",
                     *_OPTION_RENAMES), (2, 6)),
    **dict.fromkeys(("choose_from_datasets", "sample_from_datasets"), (2, 7)),
}


def _current_on(target, name: str) -> bool:
    """Is `name` still the API on the target's TensorFlow (its replacement came later)?"""
    return target.is_before(_REPLACED_IN.get(name, (2, 0)))


class DeprecatedTfdataApi(Rule):
    code = "PL501"
    summary = "Deprecated `tf.data.experimental` transformation or `Options` attribute with a stable replacement."
    fixable = Applicability.SAFE
    triggers = ("data.experimental", "experimental_deterministic", "experimental_threading")
    docs = """\
## What it does
Flags calls to `tf.data.experimental` endpoints that TensorFlow marks deprecated in favour of a
`tf.data.Dataset` method (`shuffle_and_repeat`, `map_and_batch`, `parallel_interleave`, `unbatch`,
`ignore_errors`, `scan`, `group_by_window`, `bucket_by_sequence_length`, `sample_from_datasets`,
`choose_from_datasets`, `save`/`load`/`snapshot` and others), and assignments to the deprecated
`tf.data.Options` attributes `experimental_deterministic` and `experimental_threading`.

## Why is this bad?
Each of these logs a deprecation warning and is kept only for compatibility; the stable
equivalents are the documented, maintained API. The fused transformations are worse than
deprecated: `map_and_batch` and `shuffle_and_repeat` pin an old fused kernel that tf.data's static
optimizations now produce on their own from plain `map(...).batch(...)` and
`shuffle(...).repeat(...)`, and `parallel_interleave` predates AUTOTUNE-able
`interleave(num_parallel_calls=...)`. `experimental_choose_from_datasets` differs from
`Dataset.choose_from_datasets` in its `stop_on_empty_dataset` default, so that migration needs a
look.

Impact: housekeeping (shown with `--show-housekeeping`, or by selecting PL501): every one of these
still works on TensorFlow 2.21. Where the file's target (see `target-version`) is older than the
replacement (TensorFlow 2.6 for `scan`, `group_by_window`, `snapshot`, `Options.deterministic`...,
2.7 for `sample_from_datasets` and `choose_from_datasets`), the experimental name is the API there
and nothing is reported.

## Example
```python
ds = ds.apply(tf.data.experimental.map_and_batch(parse, batch_size=32))
options = tf.data.Options()
options.experimental_deterministic = False
```

## Use instead
```python
ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE).batch(32)
options = tf.data.Options()
options.deterministic = False
```

## Fix safety
Safe for the `Options` attributes: `experimental_deterministic` and `experimental_threading` are
aliases that TensorFlow forwards to `deterministic` and `threading`. The transformations get no
automatic fix: moving from `ds.apply(tf.data.experimental.x(...))` to a method changes the shape of
the expression and sometimes argument defaults.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/experimental
- https://www.tensorflow.org/api_docs/python/tf/data/Options
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset
- https://www.tensorflow.org/guide/data_performance
"""
    VALID = (
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(f, num_parallel_calls=tf.data.AUTOTUNE).batch(4).unbatch()
        """,
        """
        import tensorflow as tf
        options = tf.data.Options()
        options.deterministic = False
        options.threading.private_threadpool_size = 8
        """,
        # not deprecated: AUTOTUNE, cardinality, prefetch_to_device
        """
        import tensorflow as tf
        n = tf.data.experimental.cardinality(ds)
        ds = ds.apply(tf.data.experimental.prefetch_to_device('/gpu:0'))
        """,
        # someone else's experimental_deterministic and unbatch
        """
        import torch  # no tf import
        config.experimental_deterministic = True
        """,
        """
        import tensorflow as tf
        from mylib.experimental import unbatch
        rows = unbatch(table)
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files)
            ds = ds.apply(tf.data.experimental.map_and_batch(parse, batch_size=32))
            """,
            line=3, column=15, end_column=49,
            message="`tf.data.experimental.map_and_batch` is deprecated",
        ),
        Invalid(
            """
            import tensorflow as tf

            def make(ds):
                options = tf.data.Options()
                options.experimental_deterministic = False  # speed over order
                return ds.with_options(options)
            """,
            line=5, column=13, end_column=39,
            message="`experimental_deterministic` is a deprecated alias",
            fixed="""
            import tensorflow as tf

            def make(ds):
                options = tf.data.Options()
                options.deterministic = False  # speed over order
                return ds.with_options(options)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf
            options = tf.data.Options()
            options.experimental_threading.private_threadpool_size = 16
            """,
            line=3, column=9, end_column=31,
            message="`experimental_threading` is a deprecated alias",
            fixed="""
            import tensorflow as tf
            options = tf.data.Options()
            options.threading.private_threadpool_size = 16
            """,
        ),
        Invalid(
            """
            from tensorflow.data.experimental import parallel_interleave
            import tensorflow as tf
            files = tf.data.Dataset.list_files('*.tfrecord')
            if training:
                ds = files.apply(parallel_interleave(tf.data.TFRecordDataset, cycle_length=8))
            """,
            line=5, column=22, end_column=41,
            message="`tf.data.experimental.parallel_interleave` is deprecated",
        ),
        Invalid(
            """
            import tensorflow.compat.v1 as tf
            ds = tf.data.TFRecordDataset(files).apply(tf.data.experimental.shuffle_and_repeat(10000))
            """,
            line=2, column=43, end_column=82,
            message="`tf.data.experimental.shuffle_and_repeat` is deprecated",
        ),
        Invalid(
            """
            import tensorflow as tf
            mixed = tf.data.experimental.sample_from_datasets([a, b], weights=[0.7, 0.3])
            """,
            line=2, column=9, end_column=50,
            message="`tf.data.experimental.sample_from_datasets` is deprecated",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        if not model.imports.imports_any("tensorflow"):
            return
        for site in model.calls:
            name = site.qualified_name
            if not name or not name.startswith(_PREFIX):
                continue
            endpoint = name[len(_PREFIX):].split(".", 1)[0]  # `Optional.from_value` -> `Optional`
            replacement = _DEPRECATED.get(endpoint)
            if replacement is None or _current_on(model.target, endpoint):
                continue
            ctx.report(site.call.func,
                       f"`tf.data.experimental.{endpoint}` is deprecated (it logs a warning and is kept for "
                       f"compatibility only); use {replacement}")
        reported: set[cst.Name] = set()
        for target in model.attribute_assignments:
            node: cst.BaseExpression = target
            while isinstance(node, cst.Attribute):
                new = _OPTION_RENAMES.get(node.attr.value)
                if new is not None and node.attr not in reported and not _current_on(model.target, node.attr.value):
                    reported.add(node.attr)
                    ctx.report(node.attr,
                               f"`{node.attr.value}` is a deprecated alias of `tf.data.Options.{new}`; "
                               f"use `{new}`", rename_attribute(node.attr, new, Applicability.SAFE))
                node = node.value
