from __future__ import annotations

from typing import ClassVar

import libcst as cst

from pipelint.model import (
    BATCH_METHODS, FILE_NAME_SOURCES, DatasetPath, Op, OpSite, constant_int, find_arg, literal_int,
)
from pipelint.rules.base import Invalid, Option, Rule, RuleContext

# Ops that never produce more distinct elements than they receive (`repeat` replays the same ones:
# a buffer that holds every distinct example mixes them however often they repeat).
_NON_GROWING = frozenset({"map", "filter", "cache", "prefetch", "shuffle", "skip", "shard",
                          "with_options", "enumerate", "ignore_errors", "take_while", "unique",
                          "assert_cardinality", "repeat"})
# Tensor constructors whose first argument is the shape: `tf.random.uniform((10, 10))` has 10 rows.
_SHAPED_CONSTRUCTORS = frozenset({"tensorflow.random.uniform", "tensorflow.random.normal", "tensorflow.zeros",
                                  "tensorflow.ones", "numpy.zeros", "numpy.ones", "numpy.empty"})
# Constructors whose one positional argument is the number of rows (`tf.eye(3)`, `np.arange(100)`).
_COUNTED_CONSTRUCTORS = frozenset({"tensorflow.eye", "tensorflow.range", "numpy.eye", "numpy.identity",
                                   "numpy.arange"})


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
        name = model.qualified_name(tensors.func)
        if name in _SHAPED_CONSTRUCTORS and isinstance(shape, (cst.Tuple, cst.List)) and shape.elements:
            return literal_int(shape.elements[0].value)
        positional = [a for a in tensors.args if a.keyword is None]
        if name in _COUNTED_CONSTRUCTORS and len(positional) == 1:
            return literal_int(positional[0].value)  # `tf.eye(3)`, `np.arange(100)`: n rows
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


# Ops that keep the order of the elements they pass on: a class-ordered source stays in class order
# through them (`interleave`, an earlier `shuffle`, `zip` and the like do not, or may not).
_ORDER_KEEPING = frozenset({"map", "filter", "cache", "prefetch", "repeat", "take", "skip", "shard",
                            "with_options", "ignore_errors", "enumerate", "assert_cardinality", "take_while"})


def _class_order_finding(model, site: OpSite, threshold: int) -> str | None:
    """The message for a shuffle whose buffer is much smaller than a file list read class by
    class (`pipelint.model.order`), else None. Much smaller: at most half the list where its size
    is known, at most `threshold` elements where it is not (the list is read from disk)."""
    shuffle = site.op
    arg = shuffle.arg("buffer_size", 0)
    size = constant_int(arg.value, model) if arg is not None else None
    if size is None or size < 2 or _opens_sources_next(model, shuffle):
        return None
    for path in site.prefixes:
        if path.ends_batched() or any(op.name not in _ORDER_KEEPING for op in path.all_ops()):
            continue  # batches (PL203), or already mixed: `list_files`' own shuffle, interleave
        order = model.source_order(path)
        if order is None:
            continue
        # (Not `_size_bound`: the literal a list filled by appends was first bound to is `[]`.)
        taken = [literal_int(op.arg("count", 0).value) for op in path.ops
                 if op.name == "take" and op.arg("count", 0) is not None]
        known = min([n for n in [order.size, *taken] if n is not None and n >= 0], default=None)
        if known is not None and size * 2 > known or known is None and size > threshold:
            continue
        classes = order.classes
        share = known // classes if known is not None and classes else None
        if known is not None:
            source = f"the list holds at most {known} files" + (
                f" in {classes} classes ({share} per class)" if share is not None else "")
        else:
            source = "size of the source unknown: the list is built from the file system" + (
                f" ({classes} classes)" if classes else "")
        if share is not None and size < share:
            effect = f"a buffer smaller than one class's share ({share}) mixes at most two classes per batch"
        else:
            effect = "unless the buffer holds more than one class's files, each batch holds one or two classes"
        return (f"shuffle buffer of {size} elements over a file list in class order mixes only neighbours: "
                f"{order.how} ({model.place_of(order.node, order.where)}); {source}; {effect}. Shuffle the "
                "whole list of names first (a buffer of `len(paths)` before loading, or `random.shuffle`) "
                "or use a buffer as large as the dataset")
    return None


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
        "class-order-buffer-size": Option(
            int, 1_000, "Over a file list read class by class whose size is unknown, buffers of at most this many "
                         "elements are reported."),
    }
    docs = """\
## What it does
Flags `shuffle(n)` where `n` is a literal below `min-buffer-size` (default 100), or below the
literal batch size of the first `batch` after it; `shuffle(1)` is reported as a no-op. Buffers
written as variables or expressions are not judged. It stays silent when the source is known to
be no larger than the buffer (`Dataset.range(10).shuffle(10)`), when the shuffle works on batches
(that is `shuffle-after-batch`), and when its elements are file names or other sources that an
`interleave`/`flat_map` opens next.

It also flags a buffer much smaller than a file list read **class by class**: built from class
folders (`sorted(glob('data/*/*.jpg'))`, or unsorted: glob lists a wildcard folder level folder by
folder), by a loop over the classes that appends each folder's files, by an `os.walk`
collection, by one class's list added to another's, or listed by `list_files(..., shuffle=False)`;
or records read file after file from files gathered class by class (`TFRecordDataset(files)`).
The message names the construction and its line, the buffer, and the size of the source where a
literal shows it (`[:3000]`, `take(3000)`, the number of classes from a literal list), else says
that the list is built from the file system. Much smaller means at most half the list when its
size is known, and of at most `class-order-buffer-size` (default 1,000, the buffer the TensorFlow tutorials write) when it is not. Buffers
written as names bound once to integers, or products of them (`BATCH_SIZE * 20`), are judged
here; `len(paths)`, `cardinality()` and other expressions are not. It stays silent when the list
is shuffled first (`random.shuffle(paths)`, `sklearn.utils.shuffle`, `np.random.permutation`,
`train_test_split`, anything else the list is handed to or rebound from, a `pandas` frame), when
`list_files` shuffles (its default), when an `interleave`/earlier `shuffle` mixes the files
before the buffer, and when the files are not in class folders (`sorted(glob('frames/*.png'))`).

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

Over a list sorted by class it is worse than it looks: the buffer is a window sliding along the
list. With `n` files in `k` class folders, each class holds about `n/k` consecutive files; a buffer
smaller than that share spans at most two classes at any moment, so every batch holds one or two
classes (the first epoch's batches are all cats, then all dogs), and the gradients swing from class
to class. A buffer as large as several classes' shares still leaves the classes of one batch
neighbours in the folder listing. Only a buffer the size of the list (or shuffling the list of
names before anything is loaded) mixes them all.

## Example
```python
ds = tf.data.TFRecordDataset(files).shuffle(16).batch(64)
```

A file list in class order, shuffled by a window of 1,000 files:
```python
paths = sorted(glob.glob("data/train/*/*.jpg"))  # every cat, then every dog
labels = [class_index[p.split("/")[-2]] for p in paths]
ds = tf.data.Dataset.from_tensor_slices((paths, labels))
ds = ds.map(load_image).shuffle(1000).batch(32)  # batches of one or two classes
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).shuffle(10_000).batch(64)
```

Shuffle the names, all of them, before loading (names are small; images are not):
```python
paths = sorted(glob.glob("data/train/*/*.jpg"))
labels = [class_index[p.split("/")[-2]] for p in paths]
ds = tf.data.Dataset.from_tensor_slices((paths, labels))
ds = ds.shuffle(len(paths)).map(load_image).batch(32)
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
        # class folders, but the list of names is shuffled in Python before the dataset is built
        """
        import glob
        import random
        import tensorflow as tf
        paths = sorted(glob.glob('data/train/*/*.jpg'))
        random.shuffle(paths)
        ds = tf.data.Dataset.from_tensor_slices(paths).map(load_image).shuffle(1000).batch(32)
        model.fit(ds, epochs=10)
        """,
        # sklearn's shuffle (and train_test_split, np.random.permutation): a new, mixed list
        """
        import glob
        import tensorflow as tf
        from sklearn.utils import shuffle
        paths = sorted(glob.glob('data/*/*.png'))
        labels = [p.split('/')[-2] for p in paths]
        paths, labels = shuffle(paths, labels)
        ds = tf.data.Dataset.from_tensor_slices((paths, labels)).map(load).shuffle(1000).batch(32)
        model.fit(ds)
        """,
        """
        import os
        import tensorflow as tf
        from sklearn.model_selection import train_test_split
        paths, labels = [], []
        for label in sorted(os.listdir('data')):
            for name in os.listdir(os.path.join('data', label)):
                paths.append(os.path.join('data', label, name))
                labels.append(label)
        x_train, x_val, y_train, y_val = train_test_split(paths, labels, test_size=0.2)
        ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).map(load).shuffle(1000).batch(32)
        model.fit(ds)
        """,
        # list_files shuffles its names by default
        """
        import tensorflow as tf
        ds = tf.data.Dataset.list_files('flowers/*/*.jpg').map(load).shuffle(1000).batch(32)
        model.fit(ds)
        """,
        # the buffer is the whole list
        """
        import glob
        import tensorflow as tf
        paths = sorted(glob.glob('data/*/*.jpg'))
        ds = tf.data.Dataset.from_tensor_slices(paths).shuffle(len(paths)).map(load).batch(32)
        model.fit(ds)
        """,
        # a list sorted by class that is only validated on: order does not matter there
        """
        import glob
        import tensorflow as tf
        val_paths = sorted(glob.glob('data/val/*/*.jpg'))
        val_ds = tf.data.Dataset.from_tensor_slices(val_paths).map(load).shuffle(500).batch(32)
        model.fit(train_ds, validation_data=val_ds)
        """,
        # per-class record files interleaved: the interleave mixes the classes
        """
        import glob
        import tensorflow as tf
        files = []
        for label in ['cat', 'dog']:
            files += glob.glob(f'records/{label}/*.tfrecord')
        ds = tf.data.Dataset.from_tensor_slices(files).shuffle(8)
        ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=8, num_parallel_calls=tf.data.AUTOTUNE)
        model.fit(ds.batch(32))
        """,
        # frames of one video, sorted: one folder, no classes
        """
        import glob
        import tensorflow as tf
        frames = sorted(glob.glob('video_01/*.png'))
        ds = tf.data.Dataset.from_tensor_slices(frames).map(load).shuffle(1000).batch(16)
        model.fit(ds)
        """,
        # a pandas frame shuffled with sample(frac=1)
        """
        import pandas as pd
        import tensorflow as tf
        df = pd.read_csv('labels.csv').sort_values('label').sample(frac=1)
        ds = tf.data.Dataset.from_tensor_slices((df['path'].values, df['label'].values))
        ds = ds.map(load).shuffle(1000).batch(32)
        model.fit(ds)
        """,
        # the list holds 2,000 files at most, and the buffer all of them
        """
        import glob
        import tensorflow as tf
        paths = sorted(glob.glob('data/*/*.jpg'))[:2000]
        ds = tf.data.Dataset.from_tensor_slices(paths).map(load).shuffle(2000).batch(32)
        model.fit(ds)
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
        # an image-classification script: every file of one class folder, then the next's
        Invalid(
            """
            import glob
            import os
            import tensorflow as tf

            paths = sorted(glob.glob(os.path.join('data/train', '*', '*.jpg')))
            labels = [class_index[p.split(os.sep)[-2]] for p in paths]
            ds = tf.data.Dataset.from_tensor_slices((paths, labels))
            ds = ds.map(load_image, num_parallel_calls=tf.data.AUTOTUNE).shuffle(1000).batch(32)
            model.fit(ds, epochs=10)
            """,
            line=8, column=62, end_column=69,
            message="shuffle buffer of 1000 elements over a file list in class order mixes only neighbours: "
                    "`sorted(glob.glob(os.path.join('data/train', '*', '*.jpg')))` lists the files folder by "
                    "folder (line 5); size of the source unknown: the list is built from the file system;",
        ),
        # a loop over the classes appending each folder's files; a buffer of 20 batches
        Invalid(
            """
            import os
            import tensorflow as tf

            CLASSES = ['cat', 'dog', 'bird']
            BATCH_SIZE = 32

            def list_images(root):
                paths, labels = [], []
                for index, label in enumerate(CLASSES):
                    for name in os.listdir(os.path.join(root, label)):
                        paths.append(os.path.join(root, label, name))
                        labels.append(index)
                return paths, labels

            paths, labels = list_images('data')
            ds = tf.data.Dataset.from_tensor_slices((paths, labels)).map(load)
            ds = ds.shuffle(buffer_size=BATCH_SIZE * 20).batch(BATCH_SIZE)
            model.fit(ds, epochs=5)
            """,
            line=17, column=9, end_column=16,
            message="shuffle buffer of 640 elements over a file list in class order mixes only neighbours: "
                    "`for index, label in enumerate(CLASSES):` appends one class folder's files after "
                    "another's (line 9); size of the source unknown: the list is built from the file "
                    "system (3 classes);",
        ),
        # list_files told not to shuffle
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.list_files('flowers/*/*', shuffle=False)
            ds = ds.map(load).shuffle(500).batch(32)
            model.fit(ds)
            """,
            line=3, column=19, end_column=26,
            message="shuffle buffer of 500 elements over a file list in class order mixes only neighbours: "
                    "`tf.data.Dataset.list_files('flowers/*/*', shuffle=False)` lists the files in order",
        ),
        # records of one class after another's, read file after file
        Invalid(
            """
            import glob
            import tensorflow as tf
            files = []
            for label in ['cat', 'dog']:
                files += sorted(glob.glob(f'records/{label}/*.tfrecord'))
            ds = tf.data.TFRecordDataset(files).map(parse).shuffle(512).batch(64)
            model.fit(ds)
            """,
            line=6, column=48, end_column=55,
            message="shuffle buffer of 512 elements over a file list in class order mixes only neighbours: "
                    "records read file after file, and `for label in ['cat', 'dog']:` appends",
        ),
        # 3,000 files in three classes: a buffer under one class's share
        Invalid(
            """
            import os
            import tensorflow as tf
            paths = []
            for label in ['cat', 'dog', 'bird']:
                for name in sorted(os.listdir(f'data/{label}')):
                    paths.append(f'data/{label}/{name}')
            ds = tf.data.Dataset.from_tensor_slices(paths).take(3000).map(load).shuffle(500).batch(32)
            model.fit(ds)
            """,
            line=7, column=69, end_column=76,
            message="shuffle buffer of 500 elements over a file list in class order mixes only neighbours: "
                    "`for label in ['cat', 'dog', 'bird']:` appends one class folder's files after another's "
                    "(line 4); the list holds at most 3000 files in 3 classes (1000 per class); a buffer "
                    "smaller than one class's share (1000) mixes at most two classes per batch",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        minimum = ctx.options.get("min-buffer-size", 100)
        threshold = ctx.options.get("class-order-buffer-size", 1_000)
        for site in model.ops("shuffle"):
            shuffle = site.op
            if model.never_trained_on(shuffle):
                continue  # validation, evaluation, prediction or a look: example order does not matter
            ordered = _class_order_finding(model, site, threshold)
            if ordered is not None:
                ctx.report(shuffle.name_node, ordered)
                continue
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
