from pipelint.diagnostics import Applicability
from pipelint.model import LOOKS
from pipelint.rules.base import Invalid, Rule, RuleContext
from pipelint.rules.rewrite import add_keyword


class MapWithoutParallelism(Rule):
    code = "PL101"
    summary = "`Dataset.map` without `num_parallel_calls` may run one element at a time."
    fixable = Applicability.SAFE
    docs = """\
## What it does
Flags `tf.data.Dataset.map(...)` calls that pass no `num_parallel_calls` (neither by keyword nor as
the second positional argument). A map whose dataset is only looked at (`next(iter(ds))`, a loop
over `ds.take(n)` with a small `n`, `element_spec`) is not reported, nor one built and dropped
(bound to a function's local, or a notebook's name, that nothing reads again); one that feeds a full pass
(`fit`, `evaluate`, `adapt`, `list(ds)`) is. Neither is a map that only picks parts of the element, casts them or scales them by a
constant (`lambda x, y: x`, `lambda x, y: (tf.cast(x, tf.float32) / 255.0, y)`): such a function is
stateless, so tf.data's default `map_parallelization` already runs it in parallel, and it is too
cheap for the argument to matter (measured by `benchmarks/trivial_map_cost.py`: serial / AUTOTUNE
between 0.70 and 1.04 with default options over two runs: the serial map was never slower).

## Why is this bad?
Without `num_parallel_calls` the map is sequential by contract. TensorFlow's default
`map_parallelization` graph optimization parallelizes it for you only when it can prove the mapped
function stateless; a function with random ops, `tf.py_function`/`tf.numpy_function` or other
stateful ops stays serial, and the pipeline's throughput is one element per function call.
Saying `num_parallel_calls=tf.data.AUTOTUNE` makes the parallelism explicit and lets the autotuner
pick the degree. Ordering is kept unless you also pass `deterministic=False`.

## Example
```python
ds = tf.data.TFRecordDataset(files).map(parse_example)
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).map(parse_example, num_parallel_calls=tf.data.AUTOTUNE)
```

A map whose function calls `tf.py_function`/`tf.numpy_function` is left to PL106: it holds the
GIL, so `num_parallel_calls` would not make it parallel.

## Fix safety
Safe: elements and their order are unchanged (`deterministic` stays at its default). The fix uses
the module's own alias for TensorFlow and is offered only when one is imported.

## References
- https://www.tensorflow.org/guide/data_performance#parallelizing_data_transformation
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#map
"""
    VALID = (
        # built and dropped: nothing ever reads `preview`
        """
        import tensorflow as tf

        def explore(files):
            preview = tf.data.TFRecordDataset(files).map(parse)
            preview = preview.batch(8)
            return len(files)
        """,
        # a projection and a cast: tf.data parallelizes them already, and they cost next to nothing
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.AUTOTUNE)
        images = ds.map(lambda image, label: image)
        scaled = ds.map(lambda x, y: (tf.cast(x['pixels'], tf.float32) / 255.0, y))
        model.fit(scaled)
        model.predict(images)
        """,
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: x * 2, num_parallel_calls=tf.data.AUTOTUNE)
        """,
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: x * 2, tf.data.AUTOTUNE)
        """,
        # pandas and Python's map are not tf.data
        """
        import pandas as pd
        import tensorflow as tf
        s = pd.Series([1, 2]).map(lambda v: v + 1)
        """,
        """
        import tensorflow as tf
        values = list(map(str, [1, 2, 3]))
        """,
        # a py_function map is PL106's finding: num_parallel_calls would not help
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: tf.py_function(f, [x], tf.int64))
        """,
        # a user's own class with a .map method
        """
        import tensorflow as tf
        class Table:
            def map(self, f):
                return f
        Table().map(len)
        """,
        # only peeked at: one element, nothing for parallelism to speed up
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(['a']).batch(8).prefetch(2)
        normalized = ds.map(lambda x: x / 255)
        print(next(iter(normalized)))
        print(normalized.element_spec)
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.range(8).map(lambda x: x * 2)
            """,
            line=2, column=31, end_column=34,
            message="`map` without `num_parallel_calls`",
            fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.range(8).map(lambda x: x * 2, num_parallel_calls=tf.data.AUTOTUNE)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf

            def load(files):
                ds = tf.data.TFRecordDataset(files)
                ds = ds.map(
                    parse,  # decode one record
                )
                return ds
            """,
            line=5, column=13, end_column=16,
            message="`map` without `num_parallel_calls`",
            fixed="""
            import tensorflow as tf

            def load(files):
                ds = tf.data.TFRecordDataset(files)
                ds = ds.map(
                    parse, num_parallel_calls=tf.data.AUTOTUNE,  # decode one record
                )
                return ds
            """,
        ),
        Invalid(
            """
            from tensorflow import data as tfdata
            ds = tfdata.TextLineDataset('a.txt').map(str.upper)
            """,
            line=2, column=38, end_column=41,
            message="`map` without `num_parallel_calls`",
            fixed="""
            from tensorflow import data as tfdata
            ds = tfdata.TextLineDataset('a.txt').map(str.upper, num_parallel_calls=tfdata.AUTOTUNE)
            """,
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='train')
            ds = ds.map(lambda e: preprocess(e['image']))
            """,
            line=4, column=9, end_column=12,
            message="`map` without `num_parallel_calls`",
            fixed="""
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='train')
            ds = ds.map(lambda e: preprocess(e['image']), num_parallel_calls=tf.data.AUTOTUNE)
            """,
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        autotune = ctx.model.autotune_expression()
        for site in ctx.model.ops("map"):
            call = site.op.call
            if site.op.arg("num_parallel_calls", 1) is not None:
                continue
            if any(a.star for a in call.args):
                continue  # `map(f, **kwargs)` may well carry it
            if site.op.facts.py_function is not None:
                continue  # a Python function stays serial whatever the argument: PL106 says so
            if ctx.model.only_used_for(site.op, LOOKS):
                continue  # only looked at (a peek, `adapt`, `element_spec`): no loop to speed up
            if site.op.facts.trivial:
                # A projection or a cast: stateless, so tf.data's default `map_parallelization`
                # runs it in parallel already, and too cheap for the argument to change anything
                # (benchmarks/trivial_map_cost.py: serial / AUTOTUNE 0.70-1.04 under default options).
                continue
            message = (
                "`map` without `num_parallel_calls`: it runs serially unless tf.data can prove the "
                "function stateless; pass `num_parallel_calls=tf.data.AUTOTUNE`"
            )
            fix = add_keyword(call, "num_parallel_calls", autotune, Applicability.SAFE,
                              ctx.model.module) if autotune and call.args else None
            ctx.report(site.op.name_node, message, fix)
