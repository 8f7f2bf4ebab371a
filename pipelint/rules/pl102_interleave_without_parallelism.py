from __future__ import annotations



from pipelint.diagnostics import Applicability
from pipelint.model import LOOKS
from pipelint.rules.base import Invalid, Rule, RuleContext, speed
from pipelint.rules.rewrite import add_keyword


class InterleaveWithoutParallelism(Rule):
    code = "PL102"
    summary = "`Dataset.interleave` without `num_parallel_calls` reads its input datasets one at a time."
    fixable = Applicability.SAFE
    docs = """\
## What it does
Flags `tf.data.Dataset.interleave(...)` calls that pass no `num_parallel_calls`, neither by keyword
nor as the fourth positional argument (`interleave(map_func, cycle_length, block_length,
num_parallel_calls)`).

## Why is this bad?
`interleave` is how a pipeline reads several files at once, but without `num_parallel_calls` it
cycles through its `cycle_length` inputs on the calling thread: one file is read and decoded at a
time, so remote or compressed storage stalls the whole pipeline. No default graph optimization
parallelizes `interleave` for you (only `map` gets `map_parallelization`). Passing
`num_parallel_calls=tf.data.AUTOTUNE` fetches from the inputs on parallel threads and lets the
autotuner pick the degree; the output order stays the same unless you also pass
`deterministic=False`.

Impact: speed; minor speed (shown with `--show-minor-speed`) where the data is only evaluated,
predicted on or validated on (unless `validation_steps` is at least half of `steps_per_epoch`).

## Example
```python
files = tf.data.Dataset.list_files("data/*.tfrecord")
ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4)
```

## Use instead
```python
files = tf.data.Dataset.list_files("data/*.tfrecord")
ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4,
                      num_parallel_calls=tf.data.AUTOTUNE)
```

## Fix safety
Safe: the elements and their order are unchanged (`deterministic` keeps its default). The fix uses
the module's own alias for TensorFlow and is offered only when one is imported.

## References
- https://www.tensorflow.org/guide/data_performance#parallelizing_data_extraction
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#interleave
"""
    VALID = (
        """
        import tensorflow as tf
        files = tf.data.Dataset.list_files('*.tfrecord')
        ds = files.interleave(tf.data.TFRecordDataset, num_parallel_calls=tf.data.AUTOTUNE)
        """,
        # the fourth positional argument is num_parallel_calls
        """
        import tensorflow as tf
        files = tf.data.Dataset.list_files('*.tfrecord')
        ds = files.interleave(tf.data.TFRecordDataset, 4, 1, tf.data.AUTOTUNE)
        """,
        # keyword arguments forwarded from a dict may carry it
        """
        import tensorflow as tf
        opts = {'num_parallel_calls': 4}
        ds = tf.data.Dataset.range(4).interleave(lambda x: tf.data.Dataset.range(x), **opts)
        """,
        # a user's own class with an `interleave` method; numpy's interleaving is not tf.data
        """
        import tensorflow as tf
        class Mixer:
            def interleave(self, a, b):
                return a + b
        Mixer().interleave([1], [2])
        """,
        """
        import numpy as np
        import tensorflow as tf
        out = np.stack([np.arange(3), np.arange(3)], axis=1).ravel()
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            files = tf.data.Dataset.list_files('data/*.tfrecord')
            ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4)
            """,
            line=3, column=12, end_column=22,
            message="`interleave` without `num_parallel_calls` reads its inputs",
            fixed="""
            import tensorflow as tf
            files = tf.data.Dataset.list_files('data/*.tfrecord')
            ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf

            def load(pattern):
                ds = tf.data.Dataset.list_files(pattern)
                ds = ds.interleave(
                    lambda f: tf.data.TextLineDataset(f).skip(1),
                    cycle_length=8,  # eight files at once
                )
                return ds.batch(64)
            """,
            line=5, column=13, end_column=23,
            message="`interleave` without `num_parallel_calls` reads its inputs",
            fixed="""
            import tensorflow as tf

            def load(pattern):
                ds = tf.data.Dataset.list_files(pattern)
                ds = ds.interleave(
                    lambda f: tf.data.TextLineDataset(f).skip(1),
                    cycle_length=8, num_parallel_calls=tf.data.AUTOTUNE,  # eight files at once
                )
                return ds.batch(64)
            """,
        ),
        # three positional arguments stop before num_parallel_calls
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.range(4).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(3), 2, 1)
            """,
            line=2, column=31, end_column=41,
            message="`interleave` without `num_parallel_calls` reads its inputs",
            fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.range(4).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(3), 2, 1, num_parallel_calls=tf.data.AUTOTUNE)
            """,
        ),
        Invalid(
            """
            from tensorflow import data as tfdata
            shards = tfdata.Dataset.from_tensor_slices(['a', 'b'])
            records = shards.interleave(tfdata.TFRecordDataset)
            """,
            line=3, column=18, end_column=28,
            message="`interleave` without `num_parallel_calls` reads its inputs",
            fixed="""
            from tensorflow import data as tfdata
            shards = tfdata.Dataset.from_tensor_slices(['a', 'b'])
            records = shards.interleave(tfdata.TFRecordDataset, num_parallel_calls=tfdata.AUTOTUNE)
            """,
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='train')
            ds = ds.interleave(lambda e: tf.data.Dataset.from_tensors(e))
            """,
            line=4, column=9, end_column=19,
            message="`interleave` without `num_parallel_calls` reads its inputs",
            fixed="""
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='train')
            ds = ds.interleave(lambda e: tf.data.Dataset.from_tensors(e), num_parallel_calls=tf.data.AUTOTUNE)
            """,
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        autotune = ctx.model.autotune_expression()
        for site in ctx.model.ops("interleave"):
            call = site.op.call
            if site.op.implicit or site.op.arg("num_parallel_calls", 3) is not None:
                continue
            if any(a.star for a in call.args):
                continue  # `interleave(f, *args, **kwargs)` may well carry it
            if ctx.model.only_used_for(site.op, LOOKS):
                continue  # only looked at: a few elements, no loop to speed up
            message = (
                "`interleave` without `num_parallel_calls` reads its inputs one at a time on one "
                f"thread; pass `num_parallel_calls={ctx.model.autotune_spelling()}`"
            )
            fix = add_keyword(call, "num_parallel_calls", autotune, Applicability.SAFE,
                              ctx.model.module) if autotune and call.args else None
            ctx.report(site.op.name_node, message, fix, impact=speed(not ctx.model.off_training(site.op)))
