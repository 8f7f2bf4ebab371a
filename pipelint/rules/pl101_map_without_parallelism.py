import libcst as cst

from pipelint.diagnostics import Applicability
from pipelint.model import LOOKS
from pipelint.rules.base import Invalid, Rule, RuleContext, speed
from pipelint.rules.rewrite import add_keyword


def _call_name(ctx: RuleContext, node: cst.CSTNode) -> str:
    """How the source spells the called function (`tf.random.uniform`), or the node itself."""
    target = node.func if isinstance(node, cst.Call) else node
    text = ctx.model.node_code(target)
    return text if len(text) <= 40 else text[:37] + "..."


class MapWithoutParallelism(Rule):
    code = "PL101"
    summary = "`Dataset.map` without `num_parallel_calls` may run one element at a time."
    fixable = Applicability.SAFE
    docs = """\
## What it does
Flags `tf.data.Dataset.map(...)` calls that pass no `num_parallel_calls` (neither by keyword nor as
the second positional argument) and that tf.data will run serially: the mapped function draws
random numbers, calls `tf.print`, updates a variable, looks up a table (`StringLookup`,
`TextVectorization`), calls a function pipelint cannot see (imported from elsewhere, or a method of
an object it does not know), or the pipeline's options switch `map_parallelization` off. The
message names the call that keeps it serial.

A map whose function is provably stateless is left alone where the file's target TensorFlow
parallelizes stateless maps on its own (2.5 and later: the `target-version` setting, else the
closest declaring file above it, else the current release; see PL103); in a project on TensorFlow
2.4 or older every serial map but a projection is reported, and the message names the version and
where it was declared. Stateless means: only stateless TensorFlow ops, stateless
Keras layers (`Rescaling`, `Resizing`, `Normalization`...), Python that runs once while tracing
(`len`, `int`...) and functions of this module that do the same. So is a map that only picks
parts of the element or casts them (`lambda x, y: x`), a map whose dataset is only looked at
(`next(iter(ds))`, a loop over `ds.take(n)` with a small `n`, `element_spec`), and one built and
dropped (bound to a name that nothing reads again). A map whose function calls
`tf.py_function`/`tf.numpy_function` is PL106's finding.

## Why is this bad?
Without `num_parallel_calls` a map is sequential by contract. TensorFlow's default
`map_parallelization` rewrite makes it parallel for you only when it can prove the function
stateless (checked on TF 2.21 by `benchmarks/default_rewrites.py`, which reads the running
pipeline: a stateless function's map runs with autotuned parallelism, a map with `tf.random`, a
Keras random layer, `tf.print`, a variable update or a lookup table runs with parallelism 1). A
serial map processes one element per function call, and the step waits for it. Saying
`num_parallel_calls=tf.data.AUTOTUNE` makes it parallel whatever the function, and lets the
autotuner pick the degree. Ordering is kept unless you also pass `deterministic=False`.

Impact: speed where the map's own work costs real time per element (decoding or transforming
images, reading files, a Keras random layer, a function not in sight) or where it works on what such
a stage made (decoded images); minor speed (shown with `--show-minor-speed`) where every call is in
sight and cheap on data already in memory or parsed from records, where the data is only
evaluated or predicted on or only validated on (`validation_data`, unless `validation_steps` is at
least half of `steps_per_epoch`: loading it is a small part of each epoch's), or where the map's output is cached on every path (`map(decode).cache()`,
no `repeat` before the cache): it runs in the first epoch only (not a random map: PL202 moves it after
the cache, where it runs every epoch).

## Example
```python
ds = tf.data.TFRecordDataset(files).map(parse_example)
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).map(parse_example, num_parallel_calls=tf.data.AUTOTUNE)
```

## Fix safety
Safe: elements and their order are unchanged (`deterministic` stays at its default). The fix uses
the module's own alias for TensorFlow and is offered only when one is imported.

## References
- https://www.tensorflow.org/guide/data_performance#parallelizing_data_transformation
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#map
"""
    VALID = (
        # Python dict methods run once, while tracing: the graph is DecodeCSV alone
        """
        import tensorflow as tf
        NAMES = ['a', 'b', 'Species']

        def parse_line(line):
            fields = tf.io.decode_csv(line, record_defaults=[[0.0], [0.0], [0]])
            features = dict(zip(NAMES, fields))
            label = features.pop('Species')
            return features, label

        model.fit(tf.data.TextLineDataset('iris.csv').skip(1).map(parse_line).batch(32), epochs=3)
        """,
        # a chain that is a statement of its own (a notebook cell's last line shows its repr): never runs
        """
        import tensorflow as tf
        raw_ds = tf.data.TextLineDataset('pairs.tsv')
        raw_ds.map(lambda x: tokenize_and_pad(x, 60)).batch(10).prefetch(1)
        """,
        # a lambda bound to a name: read like one written in place
        """
        import tensorflow as tf
        drop_fold = lambda embedding, label, fold: (embedding, label)
        ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.AUTOTUNE)
        model.fit(ds.map(drop_fold).batch(32))
        """,
        # a stateless function: tf.data's map_parallelization runs it in parallel already
        """
        import keras
        import tensorflow as tf

        rescale = keras.layers.Rescaling(1.0 / 255)

        def load(path):
            image = tf.io.decode_png(tf.io.read_file(path), channels=3)
            return rescale(tf.image.resize(image, [224, 224]))

        ds = tf.data.Dataset.list_files('images/*.png').map(load).batch(32)
        model.fit(ds)
        """,
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
        # stateless, but the pipeline's options switch map_parallelization off
        Invalid(
            """
            import tensorflow as tf
            options = tf.data.Options()
            options.experimental_optimization.map_parallelization = False
            ds = tf.data.Dataset.range(n).map(lambda x: x * 2).with_options(options)
            """,
            line=4, column=31, end_column=34,
            message="`map` without `num_parallel_calls`: its options switch off",
            fixed="""
            import tensorflow as tf
            options = tf.data.Options()
            options.experimental_optimization.map_parallelization = False
            ds = tf.data.Dataset.range(n).map(lambda x: x * 2, num_parallel_calls=tf.data.AUTOTUNE).with_options(options)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.range(n).map(lambda x: x + tf.random.uniform([], maxval=2, dtype=tf.int64))
            """,
            line=2, column=31, end_column=34,
            message="`map` without `num_parallel_calls`: its function calls `tf.random.uniform`",
            fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.range(n).map(lambda x: x + tf.random.uniform([], maxval=2, dtype=tf.int64), num_parallel_calls=tf.data.AUTOTUNE)
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
            if ctx.model.only_used_for(site.op, LOOKS) or ctx.model.in_dead_function(call):
                continue  # only looked at (a peek, `adapt`, `element_spec`), or never run: nothing to speed up
            if site.prefixes and all(ctx.model.toy_pipeline(path, site.op) for path in site.prefixes):
                continue  # a handful of numbers written in the source: a demo, it costs nothing
            if site.op.facts.trivial:
                # A projection or a cast: stateless, so tf.data's default `map_parallelization`
                # runs it in parallel already, and too cheap for the argument to change anything
                # (benchmarks/trivial_map_cost.py: serial / AUTOTUNE 0.70-1.04 under default options).
                continue
            facts = site.op.facts
            target = ctx.model.target
            switched_off = ctx.model.rewrite_switched_off("map_parallelization", ctx.model.pipeline_ops(site.op))
            parallelized = target.has_default_rewrite("map_parallelization")
            if facts.stateless and parallelized and not switched_off:
                continue  # tf.data's default `map_parallelization` runs a stateless function in parallel
            if switched_off:
                why = "its options switch off tf.data's `map_parallelization`, so it runs serially"
            elif not parallelized:
                why = (f"{target.describe_tensorflow()} does not parallelize maps on its own (tf.data's "
                       "`map_parallelization` is a default from 2.5), so it runs serially")
            elif isinstance(facts.randomness, cst.Call) and (facts.where is None
                                                            or facts.stateful_call is facts.randomness):
                # (a random op is a sure cause: named before a call whose code is not in sight)
                why = (f"its function calls `{_call_name(ctx, facts.randomness)}`, a random op, so tf.data's "
                       "`map_parallelization` leaves it serial")
            elif facts.stateful_call is not None:
                given = call.args[0].value if call.args else None
                what = (f"`{_call_name(ctx, facts.stateful_call)}` is" if facts.stateful_call is given
                        else f"its function calls `{_call_name(ctx, facts.stateful_call)}`, which is")
                why = f"{what} stateful or not known to be stateless, so tf.data's `map_parallelization` leaves it serial"
            else:
                why = ("its function is not in sight, so it may be stateful, which leaves it serial "
                       "(tf.data parallelizes only a function it can prove stateless)")
            message = (f"`map` without `num_parallel_calls`: {why}; "
                       f"pass `num_parallel_calls={ctx.model.autotune_spelling()}`")
            fix = add_keyword(call, "num_parallel_calls", autotune, Applicability.SAFE,
                              ctx.model.module) if autotune and call.args else None
            ctx.report(site.op.name_node, message, fix, impact=speed(ctx.model.material_speed(site.op, site.prefixes)))
