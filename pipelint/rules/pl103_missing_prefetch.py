from __future__ import annotations


from typing import ClassVar

import libcst as cst

from pipelint.diagnostics import Applicability
from pipelint.model import (
    BATCH_METHODS, COMBINER_OPS, IN_MEMORY_SOURCES, PASS_THROUGH_METHODS, DatasetPath, Op, Origin,
)
from pipelint.model.syntax import innermost
from pipelint.rules.base import PREFETCH_INJECTED, Invalid, Option, Rule, RuleContext, prefetch_injected, speed
from pipelint.rules.rewrite import append_call

# Where each parallel-capable method takes `num_parallel_calls` positionally.
_PARALLEL_POSITION = {"map": 1, "interleave": 3, "batch": 2}
_TRAINING_CONSUMERS = frozenset({"fit", "evaluate", "predict", "validation", "for", "eval-loop", "iter",
                                 "return"})


def _is_parallel(op: Op) -> bool:
    position = _PARALLEL_POSITION.get(op.name)
    return position is not None and not op.implicit and op.arg("num_parallel_calls", position) is not None




def _stages(ops: tuple[Op, ...]) -> tuple[Op, ...]:
    """`ops` without the trailing pass-through ops (`.prefetch(2).take(1).repeat()` ends in prefetch)."""
    while ops and ops[-1].name in PASS_THROUGH_METHODS:
        ops = ops[:-1]
    return ops


def _ends_well(path: DatasetPath) -> bool:
    """Does this path already end in a prefetch, or in a stage that buffers on its own? A `zip`
    (or another combiner) ends well when the input before it does: the inputs' own prefetches
    overlap their work with the consumer."""
    ops = _stages(path.all_ops())
    while ops and ops[-1].name in COMBINER_OPS:
        ops = _stages(ops[:-1])
    if not ops:
        # A bare parameter or an unidentified root: its producer may well have prefetched it.
        # A bare in-memory source (`for epoch in tf.data.Dataset.range(n)`) has no work to overlap.
        return path.origin.kind in ("parameter", "unknown") or path.origin.kind in IN_MEMORY_SOURCES
    last = ops[-1]
    if last.name == "prefetch":
        return True
    if last.name == "apply":
        return True  # an opaque transformation: it may end in prefetch itself
    return _is_parallel(last)


def _made_async(model, path: DatasetPath) -> bool:
    """Do tf.data's other default rewrites make the last stage asynchronous? A `map` right before
    the last `batch` is fused with it into one buffered stage (`map_and_batch_fusion`), and a
    stateless `map` at the end runs in parallel (`map_parallelization`)."""
    ops = _stages(path.all_ops())
    every = path.all_ops()
    if len(ops) >= 2 and ops[-1].name == "batch" and ops[-2].name == "map":
        return not model.rewrite_switched_off("map_and_batch_fusion", every)
    if ops and ops[-1].name == "map" and ops[-1].facts.stateless:
        return model.target.has_default_rewrite("map_parallelization") \
            and not model.rewrite_switched_off("map_parallelization", every)
    return False


def _misplaced_prefetch(path: DatasetPath) -> bool:
    """A written `prefetch` with more stages after it: PL104 reports that one spot."""
    return any(op.name == "prefetch" and not op.implicit for op in _stages(path.all_ops()))


def _anchor_op(model, stages: tuple[Op, ...]) -> Op:
    """Where the finding goes: the pipeline's last `batch` (its output is what the model waits for)
    unless a combiner or an `unbatch` comes after it, else the last stage. A `batch` that a
    function of this module returns, followed by stages written in another function of it (a
    method that maps what its sibling returned batched; the sibling's own pipeline may be fine),
    gives way to the last stage; one in another module stays the anchor, once for all its callers."""
    for index in range(len(stages) - 1, -1, -1):
        op = stages[index]
        if op.name in COMBINER_OPS or op.name == "unbatch":
            break
        if op.name in BATCH_METHODS and not op.implicit:
            home = _function_of(model, op) if op.where is None else None
            if home is not None and home is not model.module and any(
                    later.where is None and _function_of(model, later) is not home for later in stages[index + 1:]):
                return stages[-1]
            return op
    return stages[-1]


def _function_of(model, op: Op) -> cst.CSTNode:
    """The function (or the module) whose code holds `op`'s call, written in this module."""
    return innermost(model.module, op.call, cst.FunctionDef, model.module)


_SPLITS = frozenset({"take", "skip", "shard"})


def _split_end(model, path: DatasetPath, paths: tuple[DatasetPath, ...]) -> Op | None:
    """The `take`/`skip` that ends this path, where the pipeline before it is split in two or more
    datasets used apart (`val = ds.take(n)`, `train = ds.skip(n)`; not the branches of an `if`
    that feed the same consumer)."""
    if len(path.ops) < 2:
        return None
    end, before = path.ops[-1], path.ops[-2]
    if end.name not in _SPLITS or end.implicit or end.where is not None:
        return None
    if any(other is not path and any(op is before for op in other.ops) and all(op is not end for op in other.ops)
           for other in paths):
        return None
    # (another `take`/`skip` continues from the same point: a sibling split, not a branch of an
    # `if` that joins again at this `take`, nor one that leads into it: `if training: ds =
    # ds.take(5)` before `ds = ds.take(5)`)
    return end if any(len(tail) == 1 and tail[0] is not end and tail[0].name in _SPLITS and not tail[0].implicit
                      and not any(end in later for later in model.continuations(tail[0]))
                      for tail in model.continuations(before)) else None


def _helper_batch(model, path: DatasetPath) -> bool:
    """Is the path's anchor a `batch` written in another project module?"""
    ops = _stages(path.all_ops())
    anchor = _anchor_op(model, ops) if ops else None
    return anchor is not None and anchor.where is not None and anchor.name in BATCH_METHODS and not anchor.implicit


def _origin_name_node(origin: Origin) -> cst.CSTNode:
    node = origin.node
    if isinstance(node, cst.Call):
        func = node.func
        return func.attr if isinstance(func, cst.Attribute) else func
    return node


class MissingPrefetch(Rule):
    code = "PL103"
    summary = "A dataset fed to training does not end with `prefetch`."
    fixable = Applicability.SAFE
    options: ClassVar[dict[str, Option]] = {"prefetch-injected": PREFETCH_INJECTED}
    docs = """\
## What it does
From TensorFlow 2.11 tf.data adds the final prefetch itself (its default `inject_prefetch`
rewrite), so in a file whose target TensorFlow is 2.11 or later (the `target-version` setting, else
the closest requirements file, setup.py, Dockerfile... above it, else the current release; see
[configuration](configuration.md#target-version)) this rule reports only pipelines whose options
switch that off (`with_options(options)` where the module sets
`experimental_optimization.inject_prefetch`, `apply_default_optimizations` or `autotune.enabled`
to `False`). In a project on an older TensorFlow (`tensorflow==2.4` in requirements.txt) it
reports every such pipeline, and its message names the version and where it was declared;
`[tool.pipelint.rules.PL103] prefetch-injected = false` reports them whatever the version (a team
that wants the prefetch written).

Flags a `tf.data` pipeline that is consumed for training or inference (`fit`, `evaluate`,
`predict`, `validation_data`, a `for` loop or `iter`, or a
batched dataset returned to a caller) when none of its control-flow paths ends in `prefetch`.
The implicit `prefetch` of the Keras `*_dataset_from_directory` helpers counts when nothing
follows it. A pipeline whose last stage is already asynchronous (`map`, `interleave` or `batch`
with `num_parallel_calls`: it buffers its own output) is not
flagged, and neither is a `for`/`iter` over `ds.take(n)` (a peek, not a training loop). A
`prefetch` followed by more transformations is PL104's finding (reported there, once); a `prefetch`
followed only by ops that do no work per element (`take`, `skip`, `repeat`, `with_options`) ends
the pipeline, and so does a `zip` of inputs that each end in `prefetch`. The finding sits on the
pipeline's last `batch`, whose output the model waits for; the fix appends `prefetch` at the end.
A dataset handed to `strategy.experimental_distribute_dataset` is left alone: the distributed
dataset prefetches to the devices itself (PL602 covers the order of the two).

## Why is this bad?
Without a final `prefetch` the producer and the consumer take turns: while the model runs a step
nothing prepares the next batch. The TensorFlow guide asks that most pipelines end in
`prefetch(tf.data.AUTOTUNE)`. Since 2.11 TensorFlow injects that prefetch through the default
`inject_prefetch` graph rewrite (checked on TF 2.21 by `benchmarks/default_rewrites.py`: the
running pipeline ends in a `Prefetch` node it did not write), but only while autotuning is on and
the rewrite is not switched off, and not in older releases (2.10's `options.py` documents the
option as "defaults to False"; 2.11's as "defaults to True"). Where the options switch it off,
nothing overlaps the input with the step.

Impact: speed where a stage of the pipeline costs real time per element (decoding or transforming
images, reading files, Python, a function not in sight) or its source decodes files itself
(`image_dataset_from_directory`, `tfds.load`), and the data is trained on; minor speed (shown with
`--show-minor-speed`) where every stage is in sight and cheap (arrays in memory, records only
parsed), or the data is only evaluated, or only validated on (unless `validation_steps` is at least
half of `steps_per_epoch`): there is little input time to overlap.

## Example
```python
ds = tf.data.TFRecordDataset(files).map(parse).batch(32)
model.fit(ds, epochs=10)
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).map(parse).batch(32).prefetch(tf.data.AUTOTUNE)
model.fit(ds, epochs=10)
```

## Fix safety
Safe: `prefetch` does not change the elements or their order. The fix appends
`.prefetch(tf.data.AUTOTUNE)` (with the module's own TensorFlow alias) to the last call of the
pipeline, and only when nothing else continues from that call (so that no other pipeline gains
a prefetch in its middle). A chain over several lines keeps its layout and comments.


## References
- https://www.tensorflow.org/guide/data_performance#prefetching
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#prefetch
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/OptimizationOptions
"""
    VALID = (
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(['a']).batch(32).prefetch(tf.data.AUTOTUNE)
        model.fit(ds)
        """,
        # default options: tf.data injects the final prefetch
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(['a']).map(parse).batch(32)
        model.fit(ds, epochs=5)
        """,
        # options that leave inject_prefetch alone
        """
        import tensorflow as tf
        options = tf.data.Options()
        options.experimental_deterministic = False
        ds = tf.data.TFRecordDataset(['a']).map(parse).batch(32).with_options(options)
        model.fit(ds, epochs=5)
        """,
        # an epoch counter: a bare in-memory source has nothing to overlap
        """
        import tensorflow as tf
        for epoch in tf.data.Dataset.range(3):
            train_one_epoch(epoch)
        """,
        # the Keras directory helpers already end in prefetch
        """
        from tensorflow import keras
        train = keras.utils.image_dataset_from_directory('images/')
        model.fit(train, epochs=3)
        """,
        # a last parallel stage buffers on its own
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).batch(2).map(lambda x: x, num_parallel_calls=tf.data.AUTOTUNE)
        model.fit(ds)
        """,
        # a peek at a few elements, not a training loop
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).batch(2)
        for x in ds.take(1):
            print(x)
        """,
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).batch(2)
        first = next(iter(ds))
        """,
        # one branch already prefetches
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).batch(2)
        if fast:
            ds = ds.prefetch(2)
        else:
            ds = ds.cache().prefetch(2)
        model.fit(ds)
        """,
        # sklearn's fit, a pandas pipeline
        """
        import tensorflow as tf
        from sklearn.linear_model import LinearRegression
        import pandas as pd
        df = pd.read_csv('a.csv').dropna()
        LinearRegression().fit(df[['x']], df['y'])
        """,
        # a prefetch that is not last is PL104's finding, reported once
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(64).prefetch(tf.data.AUTOTUNE).batch(8)
        model.fit(ds)
        """,
        # a prefetch followed only by pass-through ops still ends the pipeline
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(['a']).batch(8).prefetch(2).take(100).repeat()
        model.fit(ds, steps_per_epoch=10)
        """,
        # zip of inputs that each end in prefetch: their work overlaps already
        """
        import tensorflow as tf
        images = tf.data.TFRecordDataset(['a']).batch(8).prefetch(tf.data.AUTOTUNE)
        labels = tf.data.TFRecordDataset(['b']).batch(8).prefetch(tf.data.AUTOTUNE)
        for x, y in tf.data.Dataset.zip((images, labels)):
            train_step(x, y)
        """,
        # a helper that transforms a dataset it was given: an intermediate stage
        """
        import tensorflow as tf

        def decode(ds: tf.data.Dataset) -> tf.data.Dataset:
            return ds.map(tf.io.decode_png)
        """,
    )
    INVALID = (
        # default options: the pipeline's options switch the injected prefetch off
        Invalid(
            """
            import tensorflow as tf
            options = tf.data.Options()
            options.autotune.enabled = False
            ds = tf.data.TFRecordDataset(['a']).batch(32).map(parse_batch).with_options(options)
            model.fit(ds, epochs=5)
            """,
            line=4, column=37, end_column=42,
            message="dataset fed to `fit` does not end in `prefetch`, and its options switch off",
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(['a.tfrecord']).map(parse).batch(32)
            model.fit(ds, epochs=5)
            """,
            line=2, column=57, end_column=62,
            options={"prefetch-injected": False},
            message="dataset fed to `fit` does not end in `prefetch`",
            fixed="""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(['a.tfrecord']).map(parse).batch(32).prefetch(tf.data.AUTOTUNE)
            model.fit(ds, epochs=5)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf

            def make(files, training):
                ds = tf.data.TFRecordDataset(files)
                if training:
                    ds = ds.shuffle(1000)
                ds = ds.batch(64)
                return ds

            model.fit(make(['a'], True), validation_data=make(['b'], False))
            """,
            line=7, column=13, end_column=18,
            options={"prefetch-injected": False},
            message="dataset fed to `fit` does not end in `prefetch`",
            fixed="""
            import tensorflow as tf

            def make(files, training):
                ds = tf.data.TFRecordDataset(files)
                if training:
                    ds = ds.shuffle(1000)
                ds = ds.batch(64).prefetch(tf.data.AUTOTUNE)
                return ds

            model.fit(make(['a'], True), validation_data=make(['b'], False))
            """,
        ),
        # the helper's implicit prefetch is followed by a map
        Invalid(
            """
            import keras
            import tensorflow as tf
            train = keras.utils.image_dataset_from_directory('images/')
            train = train.map(lambda x, y: (x / 255.0, y))
            model.fit(train)
            """,
            line=4, column=15, end_column=18,
            options={"prefetch-injected": False},
            message="dataset fed to `fit` does not end in `prefetch`",
            fixed="""
            import keras
            import tensorflow as tf
            train = keras.utils.image_dataset_from_directory('images/')
            train = train.map(lambda x, y: (x / 255.0, y)).prefetch(tf.data.AUTOTUNE)
            model.fit(train)
            """,
        ),
        # the last batch is where the finding goes; the prefetch goes at the very end
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(['a']).batch(32).map(parse_batch)
            model.fit(ds)
            """,
            line=2, column=37, end_column=42,
            options={"prefetch-injected": False},
            message="dataset fed to `fit` does not end in `prefetch`",
            fixed="""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(['a']).batch(32).map(parse_batch).prefetch(tf.data.AUTOTUNE)
            model.fit(ds)
            """,
        ),
        # a zip of inputs that are not prefetched
        Invalid(
            """
            import tensorflow as tf
            images = tf.data.TFRecordDataset(['a']).map(parse)
            labels = tf.data.TFRecordDataset(['b']).map(parse)
            ds = tf.data.Dataset.zip((images, labels)).batch(32)
            model.fit(ds)
            """,
            line=4, column=44, end_column=49,
            options={"prefetch-injected": False},
            message="dataset fed to `fit` does not end in `prefetch`",
            fixed="""
            import tensorflow as tf
            images = tf.data.TFRecordDataset(['a']).map(parse)
            labels = tf.data.TFRecordDataset(['b']).map(parse)
            ds = tf.data.Dataset.zip((images, labels)).batch(32).prefetch(tf.data.AUTOTUNE)
            model.fit(ds)
            """,
        ),
        # a custom training loop
        Invalid(
            """
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='train')
            ds = ds.shuffle(1024).batch(128)
            for step, batch in enumerate(ds):
                train_step(batch)
            """,
            line=4, column=23, end_column=28,
            options={"prefetch-injected": False},
            message="dataset fed to a training loop does not end in `prefetch`",
            fixed="""
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='train')
            ds = ds.shuffle(1024).batch(128).prefetch(tf.data.AUTOTUNE)
            for step, batch in enumerate(ds):
                train_step(batch)
            """,
        ),
        # an evaluation loop is named as such
        Invalid(
            """
            import tensorflow as tf
            test = tf.data.TFRecordDataset(['t']).map(parse).batch(64)
            for x, y in test:
                test_step(x, y)
            """,
            line=2, column=50, end_column=55,
            options={"prefetch-injected": False},
            message="dataset fed to an evaluation loop does not end in `prefetch`",
            fixed="""
            import tensorflow as tf
            test = tf.data.TFRecordDataset(['t']).map(parse).batch(64).prefetch(tf.data.AUTOTUNE)
            for x, y in test:
                test_step(x, y)
            """,
        ),
        # a batched dataset handed to an unknown caller
        Invalid(
            """
            import tensorflow as tf

            def input_fn(files):
                return (tf.data.TFRecordDataset(files)
                        .map(parse)
                        .batch(32))
            """,
            line=6, column=14, end_column=19,
            options={"prefetch-injected": False},
            message="dataset fed to a caller does not end in `prefetch`",
            fixed="""
            import tensorflow as tf

            def input_fn(files):
                return (tf.data.TFRecordDataset(files)
                        .map(parse)
                        .batch(32).prefetch(tf.data.AUTOTUNE))
            """,
        ),
        # a tf.data.Dataset subclass, iterated by a method of a local class
        Invalid(
            """
            import tensorflow as tf

            class Rows(tf.data.Dataset):
                def __new__(cls, path):
                    return tf.data.TFRecordDataset(path).map(parse, num_parallel_calls=tf.data.AUTOTUNE)

            class Trainer:
                def train(self, dataset):
                    for batch in dataset:
                        self.step(batch)

            Trainer().train(Rows('train.tfrecord').batch(32))
            """,
            line=12, column=40, end_column=45,
            options={"prefetch-injected": False},
            message="dataset fed to a training loop does not end in `prefetch`",
            fixed="""
            import tensorflow as tf

            class Rows(tf.data.Dataset):
                def __new__(cls, path):
                    return tf.data.TFRecordDataset(path).map(parse, num_parallel_calls=tf.data.AUTOTUNE)

            class Trainer:
                def train(self, dataset):
                    for batch in dataset:
                        self.step(batch)

            Trainer().train(Rows('train.tfrecord').batch(32).prefetch(tf.data.AUTOTUNE))
            """,
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        autotune = model.autotune_expression()
        next_args = {
            site.call.args[0].value for site in model.calls
            if isinstance(site.call.func, cst.Name) and site.call.func.value == "next" and site.call.args
        }
        reported: set[int] = set()
        for consumer in model.consumers:
            if consumer.kind not in _TRAINING_CONSUMERS:
                continue
            paths = consumer.value.paths
            # (a handful of numbers written in the source, no function applied: a demo's data,
            # nothing to overlap)
            if not paths or any(_ends_well(path) or _misplaced_prefetch(path) or model.toy_pipeline(path)
                                for path in paths):
                continue
            if consumer.kind in ("for", "eval-loop", "iter"):
                if consumer.kind == "iter" and consumer.node in next_args:
                    continue  # `next(iter(ds))`: one element, not a loop
                # (A loop over `ds.take(n)` with a small `n` is a look: the model says "peek".)
            if consumer.kind == "return" and consumer.function and model.never_called(consumer.function):
                continue  # a dataset function nothing calls: it never feeds anything
            if all(any(model.dropped(op) for op in path.ops if op.where is None and not op.implicit)
                   for path in paths):
                continue  # built in code that never runs (a function nobody calls)
            if consumer.kind == "return" and any(
                    p.origin.kind == "parameter" or not any(op.name in BATCH_METHODS for op in p.all_ops())
                    for p in paths):
                continue  # an unbatched or pass-through stage: the caller finishes the pipeline
            where = "`validation_data`" if consumer.kind == "validation" else (
                "a training loop" if consumer.kind in ("for", "iter") else
                "an evaluation loop" if consumer.kind == "eval-loop" else
                "a caller" if consumer.kind == "return" else f"`{consumer.kind}`")
            switched_off = any(model.rewrite_switched_off("inject_prefetch", path.all_ops()) for path in paths)
            configured = ctx.options.get("prefetch-injected")
            injected = prefetch_injected(ctx)
            if injected and not switched_off:
                continue  # tf.data injects the final prefetch
            if (injected or configured is None) and any(_made_async(model, path) for path in paths):
                continue  # tf.data's other default rewrites make the last stage asynchronous
            if not injected and configured is None:
                message = (
                    f"dataset fed to {where} does not end in `prefetch`: {model.target.describe_tensorflow()} "
                    "injects no final prefetch (tf.data's `inject_prefetch` is a default from 2.11), so input "
                    f"and training take turns; end it with `.prefetch({model.autotune_spelling()})`")
            elif switched_off:
                message = (
                    f"dataset fed to {where} does not end in `prefetch`, and its options switch off "
                    "tf.data's `inject_prefetch`: input and training take turns; end it with "
                    f"`.prefetch({model.autotune_spelling()})`")
            else:
                message = (
                    f"dataset fed to {where} does not end in `prefetch`: input and training overlap only "
                    "while tf.data's automatic `inject_prefetch` applies (TensorFlow 2.11 and later, "
                    "autotuning on); end it with `.prefetch(tf.data.AUTOTUNE)` to make the overlap explicit")
            # One dataset, one finding: where a path's last `batch` is in the helper module that
            # built it (`get_ds(batch_size=16)`), the finding is that module's, and the path of
            # the helper's other branch (`if batch_size:`) is not reported here as well.
            helper_batched = [path for path in paths if _helper_batch(model, path)]
            for path in helper_batched or paths:
                ops = _stages(path.all_ops())
                last = ops[-1] if ops else None
                anchor = _anchor_op(model, ops) if ops else None
                split = _split_end(model, path, paths)
                if split is not None and (anchor is None or anchor.name not in BATCH_METHODS):
                    # Unbatched splits of one pipeline (`take`/`skip`): each is a dataset of its own
                    # that ends there, and its end is where its prefetch goes.
                    anchor = last = split
                key = id(anchor.call if anchor is not None and not anchor.implicit else path.origin.node)
                if key in reported:
                    continue
                reported.add(key)
                if anchor is not None and not anchor.implicit:
                    node: cst.CSTNode = anchor.name_node
                    target = self._fix_target_op(ctx, last, path)
                else:
                    node = _origin_name_node(path.origin)
                    target = self._fix_target_origin(ctx, path) if last is None else None
                fix = (append_call(target, f"prefetch({autotune})", Applicability.SAFE, model.module)
                       if target is not None and autotune else None)
                material = not ctx.model.reads_off_training(consumer) and ctx.model.costly(path.all_ops(), path)
                ctx.report(node, message, fix, impact=speed(material))

    @staticmethod
    def _fix_target_op(ctx: RuleContext, last: Op, path: DatasetPath) -> cst.Call | None:
        if path.ops and path.ops[-1] is not last:
            return None  # trailing with_options: leave the order to the author
        if any(op.name == "prefetch" and not op.implicit for op in path.ops):
            return None  # a prefetch earlier on: PL104's fix moves it to the end
        if any(tail for tail in ctx.model.continuations(last)):
            return None  # another pipeline continues from this call
        return last.call

    @staticmethod
    def _fix_target_origin(ctx: RuleContext, path: DatasetPath) -> cst.Call | None:
        origin = path.origin
        if path.ops or not isinstance(origin.node, cst.Call) or not origin.kind.startswith("tensorflow.data."):
            return None
        for site in ctx.model.ops():
            if any(prefix.origin is origin for prefix in site.prefixes):
                return None
        return origin.node
