from __future__ import annotations

from typing import ClassVar

import libcst as cst

from pipelint.model import BATCH_METHODS, FILE_NAME_SOURCES, NOT_TRAINING, DatasetPath, Op, find_arg, literal_int
from pipelint.rules.base import Invalid, Option, Rule, RuleContext

# Ops that never produce more distinct elements than they receive (`repeat` replays the same ones:
# a buffer that holds every distinct example mixes them however often they repeat).
_NON_GROWING = frozenset({"map", "filter", "cache", "prefetch", "shuffle", "skip", "shard",
                          "with_options", "enumerate", "ignore_errors", "take_while", "unique",
                          "assert_cardinality", "repeat"})
# Tensor constructors whose first argument is the shape: `tf.random.uniform((10, 10))` has 10 rows.
_SHAPED_CONSTRUCTORS = frozenset({"tensorflow.random.uniform", "tensorflow.random.normal", "tensorflow.zeros",
                                  "tensorflow.ones", "numpy.zeros", "numpy.ones", "numpy.empty"})


def _origin_size(path: DatasetPath, model) -> int | None:
    """The number of elements of a literal source: `range(n)`, `from_tensor_slices([...])`."""
    node = path.origin.node
    if not isinstance(node, cst.Call):
        return None
    kind = path.origin.kind
    if kind == "tensorflow.data.Dataset.range":
        bounds = [literal_int(a.value) for a in node.args if a.keyword is None]
        if len(bounds) == 1 and bounds[0] is not None:
            return max(bounds[0], 0)
        if len(bounds) == 2 and None not in bounds:
            return max(bounds[1] - bounds[0], 0)
        return None
    if kind == "tensorflow.data.Dataset.from_tensor_slices":
        arg = find_arg(node, "tensors", 0)
        return _slices(arg.value, model) if arg is not None else None
    if kind == "tensorflow.data.Dataset.from_tensors":
        return 1
    return None


def _slices(tensors: cst.BaseExpression, model) -> int | None:
    """How many elements `from_tensor_slices(tensors)` yields, when the literal shows it (directly
    or through a name the module binds once). A list is one tensor, sliced along its first axis; a
    tuple or a dict is a structure whose components are sliced together (`(x, y)` yields len(x)
    elements, not 2), so one component of known length tells."""
    if isinstance(tensors, cst.Name):
        bound = model.bound_once(tensors.value)
        return _slices(bound, model) if isinstance(bound, (cst.List, cst.Tuple, cst.Dict, cst.Call)) else None
    if isinstance(tensors, cst.Call):  # `tf.random.uniform((10, 10))`: its shape's first dimension
        shape = tensors.args[0].value if tensors.args and tensors.args[0].keyword is None else None
        if model.qualified_name(tensors.func) in _SHAPED_CONSTRUCTORS and isinstance(shape, (cst.Tuple, cst.List)) \
                and shape.elements:
            return literal_int(shape.elements[0].value)
        return None
    if isinstance(tensors, cst.List):
        if any(isinstance(e, cst.StarredElement) for e in tensors.elements):
            return None
        return len(tensors.elements)
    if isinstance(tensors, cst.Tuple):
        components = [e.value for e in tensors.elements if not isinstance(e, cst.StarredElement)]
    elif isinstance(tensors, cst.Dict):
        components = [e.value for e in tensors.elements if isinstance(e, cst.DictElement)]
    else:
        return None
    sizes = {_slices(component, model) for component in components} - {None}
    return sizes.pop() if len(sizes) == 1 else None


def _size_bound(path: DatasetPath, model) -> int | None:
    """An upper bound on the number of elements at the end of `path`, when the source shows it."""
    bound = _origin_size(path, model)
    for op in path.ops:
        if op.name == "take":
            arg = op.arg("count", 0)
            count = literal_int(arg.value) if arg is not None else None
            if count is not None and count >= 0:
                bound = count if bound is None else min(bound, count)
        elif op.name in BATCH_METHODS:
            arg = op.arg("batch_size", 0)
            size = literal_int(arg.value) if arg is not None else None
            bound = -(-bound // size) if bound is not None and size and size > 0 else None
        elif op.name not in _NON_GROWING:
            bound = None
    return bound


def _file_names(path: DatasetPath) -> bool:
    """Are the elements still the file names of `list_files` (not yet opened)? A small buffer
    over sources to open is normal."""
    return path.origin.kind in FILE_NAME_SOURCES and not any(
        op.name in ("interleave", "flat_map") for op in path.ops)


def _later_batch_size(model, shuffle: Op) -> int | None:
    """The largest literal batch size of the first `batch` after this shuffle on any path."""
    sizes = []
    for tail in model.continuations(shuffle):
        for op in tail:
            if op.name in ("unbatch", "shuffle", "interleave", "flat_map"):
                break
            if op.name in BATCH_METHODS:
                arg = op.arg("batch_size", 0)
                size = literal_int(arg.value) if arg is not None else None
                if size is not None:
                    sizes.append(size)
                break
    return max(sizes) if sizes else None


def _opens_sources_next(model, shuffle: Op) -> bool:
    """Are the shuffled elements file names (or datasets) that an interleave/flat_map opens?"""
    for tail in model.continuations(shuffle):
        for op in tail:
            if op.name in ("interleave", "flat_map"):
                return True
            if op.name in BATCH_METHODS or op.name == "shuffle":
                break
    return False


class TinyShuffleBuffer(Rule):
    code = "PL205"
    summary = "A `shuffle()` buffer too small to mix the data (or smaller than the batch it feeds)."
    fixable = None
    options: ClassVar[dict[str, Option]] = {
        "min-buffer-size": Option(int, 100, "Literal shuffle buffers below this many elements are reported."),
    }
    docs = """\
## What it does
Flags `shuffle(n)` where `n` is a literal below `min-buffer-size` (default 100), or below the
literal batch size of the first `batch` after it; `shuffle(1)` is reported as a no-op. Buffers
written as variables or expressions are not judged. It stays silent when the source is known to
be no larger than the buffer (`Dataset.range(10).shuffle(10)`), when the shuffle works on batches
(that is `shuffle-after-batch`), and when its elements are file names or other sources that an
`interleave`/`flat_map` opens next.

A dataset whose every known use is validation (`validation_data`), `evaluate`, `predict`, a
look (`next(iter(ds))`, a loop over `ds.take(n)` with a small `n`, `element_spec`,
`cardinality()`), `list(ds)` or `layer.adapt(ds)` is left alone: example order only matters
to training. A dataset with no known use (returned, stored) is still checked.

## Why is this bad?
`shuffle` keeps a buffer of `buffer_size` elements and emits a random one from it, refilling from
upstream. With a small buffer an element can move only a few places from where it was read, so
the output stays almost in file order (often sorted by class), and `shuffle(1)` changes nothing.
A buffer smaller than the batch size means every batch is made of neighbours in the source.
A perfect shuffle needs a buffer at least the size of the dataset; when that does not fit,
shuffle file names too and `interleave` several files.

## Example
```python
ds = tf.data.TFRecordDataset(files).shuffle(16).batch(64)
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).shuffle(10_000).batch(64)
```

## Fix safety
No automatic fix.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#shuffle
- https://www.tensorflow.org/guide/data#randomly_shuffling_input_data
- https://www.tensorflow.org/guide/data_performance#reducing_memory_footprint
"""
    VALID = (
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').shuffle(10_000).batch(64)
        """,
        # every element fits in the buffer: three slices of a literal structure
        """
        import tensorflow as tf
        ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], {'y': [0, 1, 0]})).shuffle(3)
        """,
        # the whole source fits in the buffer
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(10).shuffle(10)
        """,
        # file names shuffled before being opened
        """
        import tensorflow as tf
        files = tf.data.Dataset.from_tensor_slices(paths).shuffle(16)
        ds = files.interleave(tf.data.TFRecordDataset, num_parallel_calls=tf.data.AUTOTUNE)
        """,
        # a name bound once to a literal: one example, the buffer holds it all
        """
        import tensorflow as tf
        features = [[1.0, 1.5]]
        ds = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(10).repeat().batch(8)
        model.fit(ds, steps_per_epoch=1)
        """,
        # four examples repeated: a buffer of 64 holds every one of them
        """
        import tensorflow as tf
        ds = tf.data.Dataset.from_tensor_slices(([1.0, 2.0, 3.0, 4.0], [1, 1, 0, 0])).repeat(200).shuffle(64)
        model.fit(ds.batch(16))
        """,
        # ten rows of a random tensor: the buffer holds them all
        """
        import tensorflow as tf
        x = tf.random.uniform((10, 10))
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(10).repeat().batch(4)
        model.fit(ds, steps_per_epoch=5)
        """,
        # not a literal: not judged
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').shuffle(BUFFER)
        """,
        # random.shuffle, a user's own class: not tf.data
        """
        import random
        import tensorflow as tf
        random.shuffle([1, 2, 3])
        class Deck:
            def shuffle(self, n):
                return self
        Deck().shuffle(2)
        """,
        # only predicted on: no training order to mix
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(['a']).shuffle(8).batch(32)
        model.predict(ds)
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a').map(parse).shuffle(16).batch(32)
            """,
            line=2, column=46, end_column=53,
            message="shuffle buffer of 16 elements barely mixes the data",
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a')
            ds = ds.shuffle(1)
            """,
            line=3, column=9, end_column=16,
            message="`shuffle(1)` does nothing",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds

            def make(training):
                ds = tfds.load('mnist', split='train')
                if training:
                    ds = ds.shuffle(buffer_size=128)
                return ds.batch(256)
            """,
            line=6, column=17, end_column=24,
            message="shuffle buffer of 128 is smaller than the batch of 256 after it",
        ),
        Invalid(
            """
            import keras
            ds = keras.utils.image_dataset_from_directory('photos', batch_size=None)
            ds = ds.shuffle(50).batch(32)
            """,
            line=3, column=9, end_column=16,
            message="shuffle buffer of 50 elements barely mixes the data",
        ),
        # a tuple is a structure: (x, y) yields len(x) elements, not two
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(10).batch(32)
            """,
            line=2, column=61, end_column=68,
            message="shuffle buffer of 10 elements barely mixes the data",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        minimum = ctx.options.get("min-buffer-size", 100)
        for site in model.ops("shuffle"):
            shuffle = site.op
            if model.only_used_for(shuffle, NOT_TRAINING):
                continue  # validation, evaluation, prediction or a look: example order does not matter
            arg = shuffle.arg("buffer_size", 0)
            size = literal_int(arg.value) if arg is not None else None
            if size is None or size < 1:
                continue
            relevant = [
                path for path in site.prefixes
                if not path.ends_batched() and not _file_names(path)
                and not ((bound := _size_bound(path, model)) is not None and bound <= size)
            ]
            if not relevant:
                continue
            if _opens_sources_next(model, shuffle):
                continue
            batch_size = _later_batch_size(model, shuffle)
            if size == 1:
                message = ("`shuffle(1)` does nothing: a one-element buffer emits elements in their "
                           "input order; use a buffer of thousands of examples or remove it")
            elif size < minimum:
                message = (f"shuffle buffer of {size} elements barely mixes the data (the output "
                           f"stays close to the input order); use a buffer of thousands of examples")
            elif batch_size is not None and size < batch_size:
                message = (f"shuffle buffer of {size} is smaller than the batch of {batch_size} after "
                           "it, so each batch holds near neighbours from the source; use a larger buffer")
            else:
                continue
            ctx.report(shuffle.name_node, message)
