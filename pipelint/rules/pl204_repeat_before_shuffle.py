from __future__ import annotations

import libcst as cst

from pipelint.diagnostics import Applicability, Impact
from pipelint.model import DatasetPath, Op, constant_int, literal_int
from pipelint.model.syntax import nodes_of
from pipelint.rules.base import Invalid, Rule, RuleContext
from pipelint.rules.rewrite import swap_adjacent


def _repeats(op: Op) -> bool:
    """A `repeat` that really repeats: not `repeat(1)` or `repeat(0)`."""
    count = op.arg("count", 0)
    value = literal_int(count.value) if count is not None else None
    return value is None or value > 1 or value < 0


def _defaults_to_once(repeat: Op, model) -> bool:
    """`repeat(num_epochs)` in `def input_fn(..., num_epochs=1)`: unless a caller asks for more
    epochs, the dataset is not repeated at all."""
    count = repeat.arg("count", 0)
    if count is None or not isinstance(count.value, cst.Name):
        return False
    default = literal_int(model.parameter_default(repeat.call, count.value.value))
    return default is not None and 0 <= default <= 1


def _ends_within_one_pass(model, site) -> bool:
    """Does every loop over the shuffled data stop before the source's first pass ends: the
    source of known size (a Keras dataset's arrays, `mnist.load_data()`), each consumer a loop over
    `take(N)` of batches of B, and N * B plus the shuffle buffer within it (TensorFlow's examples:
    200 steps of 128 of MNIST's 60,000)? Then no epoch boundary is crossed, nothing to mix."""
    sizes = [_source_size(model, path) for path in site.prefixes]
    if not sizes or None in sizes:
        return False
    buffer = constant_int(_value(site.op.arg("buffer_size", 0)), model)
    consumers = model.consumers_of(site.op)
    if buffer is None or not consumers:
        return False
    for consumer in consumers:
        for path in consumer.value.paths:
            ops = path.all_ops()
            if site.op not in ops:
                continue
            after = ops[ops.index(site.op) + 1:]
            take = next((op for op in reversed(after) if op.name == "take"), None)
            batch = next((op for op in after if op.name == "batch"), None)
            if consumer.kind != "for" or take is None or batch is None or after.index(batch) > after.index(take):
                return False
            steps = constant_int(_value(take.arg("count", 0)), model)
            size = constant_int(_value(batch.arg("batch_size", 0)), model)
            if steps is None or size is None or steps * size + buffer > min(sizes):
                return False
    return True


def _one_element_replayed(model, shuffle: Op) -> bool:
    """`....take(1).cache().repeat()` after the shuffle on every path (a fake-data benchmark's
    input): one element is read and replayed, no pass over the data ever ends."""
    tails = [ops[ops.index(shuffle) + 1:] for consumer in model.consumers_of(shuffle)
             for ops in (path.all_ops() for path in consumer.value.paths) if shuffle in ops]
    return bool(tails) and all(any(
        op.name == "take" and (count := op.arg("count", 0)) is not None and literal_int(count.value) == 1
        and any(later.name == "cache" for later in tail[index + 1:])
        for index, op in enumerate(tail)) for tail in tails)


def _value(arg):
    return arg.value if arg is not None else None


def _source_size(model, path: DatasetPath) -> int | None:
    """The examples of `from_tensor_slices((x_train, y_train))` over a Keras dataset's arrays."""
    origin = path.origin
    if not origin.kind.endswith("from_tensor_slices") or not isinstance(origin.node, cst.Call) or not origin.node.args:
        return None
    names = [node.value for node in nodes_of(origin.node.args[0].value, cst.Name)]
    sizes = {model.keras_dataset_size(name) for name in names}
    return sizes.pop() if len(sizes) == 1 else None


def _stopped_by_zip(path: DatasetPath, repeat: Op, prefixes: list[DatasetPath]) -> bool:
    """`zip((data, labels.repeat(100)))`: the repeat tiles one input of a zip whose other input
    does not repeat, and the zip ends with that one: a single pass, no epochs to mix."""
    after = path.ops[path.ops.index(repeat) + 1:]
    for zip_op in (op for op in after if op.name == "zip"):
        for other in prefixes:
            if other is path or zip_op not in other.ops:
                continue
            before_zip = other.all_ops()
            if not any(op.name == "repeat" and _repeats(op) for op in before_zip[:before_zip.index(zip_op)]):
                return True
    return False


def _sizes_of_data(buffer: cst.BaseExpression | None, model, depth: int = 0) -> bool:
    """Is the buffer written as the data's own size: `len(x_train)`, `x.shape[0]`,
    `ds.cardinality()`, tfds's `info.splits['train'].num_examples`, or a name bound once to one of
    those (`n_train = len(x_train)`)?"""
    if buffer is None or depth > 3:
        return False
    if isinstance(buffer, cst.Name):
        return _sizes_of_data(model.bound_once(buffer.value), model, depth + 1)
    if isinstance(buffer, cst.Attribute):
        return buffer.attr.value == "num_examples"
    if isinstance(buffer, cst.Call):
        func = buffer.func
        if isinstance(func, cst.Attribute) and func.attr.value == "numpy":  # `ds.cardinality().numpy()`
            return _sizes_of_data(func.value, model, depth + 1)
        if isinstance(func, cst.Name) and func.value == "int" and buffer.args:
            return _sizes_of_data(buffer.args[0].value, model, depth + 1)
        return (isinstance(func, cst.Name) and func.value == "len") or (
            isinstance(func, cst.Attribute) and func.attr.value == "cardinality")
    if isinstance(buffer, cst.Subscript) and isinstance(buffer.value, cst.Attribute):
        return buffer.value.attr.value == "shape"
    return False


def _mixes_much(model, site) -> bool:
    """Does the shuffle after `repeat()` mix a material share of each epoch with the next: a
    buffer written as the data's size, or one of at least a tenth of a source of known size? A
    buffer of 1,024 over 50,000 records mixes only the examples near each boundary (2% of them),
    which training that counts steps, not epochs, never notices."""
    buffer = _value(site.op.arg("buffer_size", 0))
    if _sizes_of_data(buffer, model):
        return True
    size = constant_int(buffer, model) if buffer is not None else None
    sizes = [_source_size(model, path) for path in site.prefixes]
    return size is not None and bool(sizes) and None not in sizes and 10 * size >= min(sizes)


class RepeatBeforeShuffle(Rule):
    code = "PL204"
    summary = "`shuffle()` after `repeat()` mixes epochs: some examples repeat before others are seen once."
    fixable = Applicability.UNSAFE
    docs = """\
## What it does
Flags a `shuffle()` that comes after a `repeat()` on the same dataset path (`repeat(1)` and
`repeat(0)` do not count, nor `repeat(num_epochs)` in a function whose `num_epochs` parameter
defaults to 0 or 1: by default it does not repeat).

A dataset whose every known use is validation (`validation_data`), `evaluate`, `predict`, a
look (`next(iter(ds))`, a loop over `ds.take(n)` with a small `n`, `element_spec`,
`cardinality()`), `list(ds)` or `layer.adapt(ds)` is left alone: example order only matters
to training. A dataset with no known use (returned, stored) is still checked.

## Why is this bad?
`repeat` before `shuffle` turns the epochs into one stream and the shuffle buffer mixes across
their boundaries: examples of the next epoch appear before every example of this one has been
seen, so some examples are seen twice before others once. The tf.data guide notes that
`shuffle` before `repeat` keeps epoch boundaries ("blurs the boundaries between epochs"
otherwise), which is what epoch-level metrics and callbacks assume.

Nor is a pipeline whose shuffled data goes through `take(1).cache()` (one element replayed: a
fake-data benchmark's input). A loop that stops within the source's first pass crosses no epoch boundary: TensorFlow's examples
train on `take(200)` batches of 128 from MNIST's 60,000 arrays (`from_tensor_slices` over a Keras
dataset's `load_data()`), and are not reported.

Impact: correctness where the buffer mixes much of each epoch with the next: a buffer written as
the data's size (`len(x_train)`, `x.shape[0]`, `cardinality()`, or a name bound to one) or one of
at least a tenth of a source of known size. Elsewhere (a buffer of 1,024 over an unknown or large
source) minor correctness, shown with `--show-minor-correctness`: only the examples near each
boundary mix, which training that counts steps rather than epochs never notices.

## Example
```python
ds = tf.data.TFRecordDataset(files).repeat().shuffle(10_000).batch(32)
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).shuffle(10_000).repeat().batch(32)
```

## Fix safety
Unsafe: when written as `x.repeat(...).shuffle(...)` in one chain the fix swaps the two calls;
the order of elements changes (by design), and a slight pause at each epoch start can appear
while the shuffle buffer refills.

## References
- https://www.tensorflow.org/guide/data#training_workflows
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#repeat
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#shuffle
"""
    VALID = (
        # the repeat only tiles the labels of a zip that stops with the unrepeated data: one pass
        """
        import numpy as np
        import tensorflow as tf
        data = tf.data.Dataset.from_tensor_slices(np.zeros((1000, 2)))
        labels = tf.data.Dataset.range(10).repeat(100)
        ds = tf.data.Dataset.zip((data, labels)).shuffle(1000).batch(16)
        model.fit(ds, epochs=3)
        """,
        # the epochs are a parameter that defaults to one pass: by default nothing repeats
        """
        import tensorflow as tf

        def input_fn(filenames, batch_size=32, num_epochs=1):
            ds = tf.data.Dataset.from_tensor_slices(filenames).repeat(num_epochs).shuffle(1000)
            return ds.batch(batch_size)
        """,
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').shuffle(1000).repeat().batch(32)
        """,
        # make_csv_dataset already shuffles and repeats forever (num_epochs=None)
        """
        import tensorflow as tf
        ds = tf.data.experimental.make_csv_dataset('train.csv', batch_size=32).repeat().shuffle(8)
        """,
        # repeat(1) does not repeat
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(10).repeat(1).shuffle(10)
        """,
        # pandas/NumPy `repeat` and random.shuffle are not tf.data
        """
        import random
        import numpy as np
        import pandas as pd
        import tensorflow as tf
        x = np.arange(3).repeat(2)
        random.shuffle(list(x))
        s = pd.Series([1]).repeat(3)
        """,
        """
        import tensorflow as tf
        class Loader:
            def repeat(self):
                return self
            def shuffle(self, n):
                return self
        Loader().repeat().shuffle(3)
        """,
        # only used to adapt a vocabulary: epochs do not matter
        """
        import tensorflow as tf
        texts = tf.data.TextLineDataset(['corpus.txt']).repeat(2).shuffle(1000)
        vectorizer.adapt(texts)
        """,
        # one batch taken and replayed: no pass ever ends
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files).repeat().shuffle(1024).batch(256)
        ds = ds.take(1).cache().repeat()
        model.fit(ds, steps_per_epoch=100, epochs=10)
        """,
        # TensorFlow's examples: 200 steps of 128 from MNIST's 60,000 never finish a pass
        """
        import tensorflow as tf
        from tensorflow.keras.datasets import mnist
        (x_train, y_train), (x_test, y_test) = mnist.load_data()
        training_steps = 200
        batch_size = 128
        train_data = tf.data.Dataset.from_tensor_slices((x_train, y_train))
        train_data = train_data.repeat().shuffle(5000).batch(batch_size).prefetch(1)
        for step, (batch_x, batch_y) in enumerate(train_data.take(training_steps), 1):
            train_step(batch_x, batch_y)
        """,
    )
    INVALID = (
        # 2,000 steps of 256 pass over MNIST's 60,000 eight times
        Invalid(
            """
            import tensorflow as tf
            from tensorflow.keras.datasets import mnist
            (x_train, y_train), (x_test, y_test) = mnist.load_data()
            train_data = tf.data.Dataset.from_tensor_slices((x_train, y_train))
            train_data = train_data.repeat().shuffle(5000).batch(256).prefetch(1)
            for step, (batch_x, batch_y) in enumerate(train_data.take(2000), 1):
                train_step(batch_x, batch_y)
            """,
            line=5, column=34, end_column=41,
            message="`shuffle()` after `repeat()` mixes examples across epoch boundaries",
            fixed="""
            import tensorflow as tf
            from tensorflow.keras.datasets import mnist
            (x_train, y_train), (x_test, y_test) = mnist.load_data()
            train_data = tf.data.Dataset.from_tensor_slices((x_train, y_train))
            train_data = train_data.shuffle(5000).repeat().batch(256).prefetch(1)
            for step, (batch_x, batch_y) in enumerate(train_data.take(2000), 1):
                train_step(batch_x, batch_y)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf

            def input_fn(filenames, num_epochs=10):
                return tf.data.Dataset.from_tensor_slices(filenames).repeat(num_epochs).shuffle(1000).batch(32)
            """,
            line=4, column=77, end_column=84,
            message="`shuffle()` after `repeat()` mixes examples across epoch boundaries",
            fixed="""
            import tensorflow as tf

            def input_fn(filenames, num_epochs=10):
                return tf.data.Dataset.from_tensor_slices(filenames).shuffle(1000).repeat(num_epochs).batch(32)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a').repeat().shuffle(1000).batch(32)
            """,
            line=2, column=44, end_column=51,
            message="`shuffle()` after `repeat()` mixes examples across epoch boundaries",
            fixed="""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a').shuffle(1000).repeat().batch(32)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf

            def make(files, training):
                ds = tf.data.TFRecordDataset(files).repeat(10)
                if training:
                    ds = ds.map(parse).shuffle(2048)
                return ds.batch(32)
            """,
            line=6, column=28, end_column=35,
            message="`shuffle()` after `repeat()` mixes examples across epoch boundaries",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            ds = tfds.load('mnist', split='train')
            ds = ds.repeat()
            ds = ds.shuffle(buffer_size=10000)
            """,
            line=4, column=9, end_column=16,
            message="`shuffle()` after `repeat()` mixes examples across epoch boundaries",
        ),
        Invalid(
            """
            import keras
            train = keras.utils.image_dataset_from_directory('photos', batch_size=None)
            train = train.repeat(3).shuffle(1000, seed=1)
            """,
            line=3, column=25, end_column=32,
            message="`shuffle()` after `repeat()` mixes examples across epoch boundaries",
            fixed="""
            import keras
            train = keras.utils.image_dataset_from_directory('photos', batch_size=None)
            train = train.shuffle(1000, seed=1).repeat(3)
            """,
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        for site in model.ops("shuffle"):
            shuffle = site.op
            if model.never_trained_on(shuffle):
                continue  # validation, evaluation, prediction or a look: example order does not matter
            repeat = next((op for path in site.prefixes for op in path.ops
                           if op.name == "repeat" and _repeats(op)
                           # a helper that repeats already (`make_csv_dataset` without
                           # `num_epochs`) makes one endless stream: moving the shuffle changes nothing
                           and not any(inner.name == "repeat" for inner in path.origin.implicit_ops)
                           and not _stopped_by_zip(path, op, site.prefixes)), None)
            if repeat is None or _defaults_to_once(repeat, model) or _ends_within_one_pass(model, site) \
                    or _one_element_replayed(model, shuffle):
                continue
            fix = None
            if (shuffle.receiver is repeat.call
                    and all(path.ops and path.ops[-1] is repeat for path in site.prefixes)):
                fix = swap_adjacent(shuffle.call, Applicability.UNSAFE, model.module)
            ctx.report(
                shuffle.name_node,
                "`shuffle()` after `repeat()` mixes examples across epoch boundaries (some are seen "
                "twice before others once); shuffle before `repeat()`",
                fix,
                impact=Impact.CORRECTNESS if _mixes_much(model, site) else Impact.MINOR_CORRECTNESS,
            )
