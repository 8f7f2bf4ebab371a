from __future__ import annotations

from pipelint.model import FUNCTION_SITE_OPS, LOOKS
from pipelint.rules.base import Invalid, Rule, RuleContext, speed

_SHORT_NAMES = {
    "tensorflow.py_function": "tf.py_function",
    "tensorflow.numpy_function": "tf.numpy_function",
    "tensorflow.py_func": "tf.py_func",
    "tensorflow.compat.v1.py_func": "tf.py_func",
}


class PyFunctionInMap(Rule):
    code = "PL106"
    summary = "`tf.py_function`/`tf.numpy_function` in a dataset function runs Python under the GIL."
    docs = """\
## What it does
Flags `map`, `interleave`, `flat_map` and `filter` calls whose function (a lambda, a local
`def`, a `functools.partial` of one, or a helper it calls) uses `tf.py_function`,
`tf.numpy_function` or `tf.compat.v1.py_func`. The finding sits on the `py_function` call, where
the rewrite goes, once however many pipelines map that function; for a function of another
project module, on the `map` here, naming the function's line there. A Python function that only
sleeps (`time.sleep`, a stand-in for I/O) is not flagged: it lets the GIL go while it waits.

## Why is this bad?
These ops call back into the Python interpreter for every element. The callbacks hold the GIL, so
however large `num_parallel_calls` is they run essentially one at a time, and they make the
function stateful, so tf.data's `map_parallelization` leaves the map serial. Such a map is
usually the slowest stage of the pipeline. The datasets cannot be serialized either (no
tf.data service, no saving), and a process can hang at exit after a partially consumed iterator.

Impact: speed; minor speed (shown with `--show-minor-speed`) where every pipeline that maps the
function is only evaluated, predicted on or validated on (`validation_data`, unless
`validation_steps` is at least half of `steps_per_epoch`): loading that data is a small part of a
training run.

## Example
```python
def load(path):
    return tf.numpy_function(lambda p: np.load(p), [path], tf.float32)

ds = tf.data.Dataset.list_files("*.npy").map(load, num_parallel_calls=tf.data.AUTOTUNE)
```

## Use instead
```python
def load(path):
    return tf.io.parse_tensor(tf.io.read_file(path), tf.float32)

ds = tf.data.Dataset.list_files("*.tensor").map(load, num_parallel_calls=tf.data.AUTOTUNE)
```
Use TensorFlow ops (`tf.io`, `tf.image`, `tf.strings`), or convert the data once offline to
TFRecord.

## Fix safety
No automatic fix.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#map
- https://www.tensorflow.org/api_docs/python/tf/py_function
- https://www.tensorflow.org/api_docs/python/tf/numpy_function
"""
    VALID = (
        # only sleeps, with the GIL let go: parallel calls overlap (the tf.data performance guide's stand-in)
        """
        import time
        import tensorflow as tf

        def mapped_function(s):
            tf.py_function(lambda: time.sleep(0.03), [], ())
            return s

        ds = tf.data.Dataset.range(40).map(mapped_function, num_parallel_calls=tf.data.AUTOTUNE)
        for _ in ds:
            pass
        """,
        """
        import tensorflow as tf
        ds = tf.data.Dataset.list_files('*.png').map(lambda p: tf.io.decode_png(tf.io.read_file(p)))
        """,
        # a py_function outside any dataset function
        """
        import tensorflow as tf
        out = tf.py_function(lambda x: x, [tf.constant(1)], tf.int32)
        """,
        # pandas apply and Python map with Python code are not tf.data
        """
        import pandas as pd
        import tensorflow as tf
        df = pd.DataFrame({'a': [1]})
        df['b'] = df['a'].apply(lambda v: v + 1)
        """,
        """
        import tensorflow as tf
        import numpy as np
        arrays = list(map(np.load, ['a.npy']))
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            import numpy as np

            def load(path):
                return tf.numpy_function(np.load, [path], tf.float32)

            ds = tf.data.Dataset.list_files('*.npy').map(load, num_parallel_calls=tf.data.AUTOTUNE)
            """,
            line=5, column=12, end_column=29,
            message="`tf.numpy_function` in the `map` function runs Python under the GIL",
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TextLineDataset('a.txt')
            ds = ds.filter(lambda line: tf.py_function(lambda s: len(s.numpy()) > 3, [line], tf.bool))
            """,
            line=3, column=29, end_column=43,
            message="`tf.py_function` in the `filter` function runs Python under the GIL",
        ),
        Invalid(
            """
            from tensorflow import keras
            import tensorflow as tf

            def augment(x, y):
                x = tf.py_function(func=random_crop, inp=[x], Tout=tf.float32)
                return x, y

            train = keras.utils.image_dataset_from_directory('images/')
            train = train.map(augment, num_parallel_calls=tf.data.AUTOTUNE)
            """,
            line=5, column=9, end_column=23,
            message="`tf.py_function` in the `map` function runs Python under the GIL",
        ),
        Invalid(
            """
            import functools
            import tensorflow as tf

            def parse(record, size):
                return tf.numpy_function(decode, [record, size], tf.uint8)

            ds = tf.data.TFRecordDataset(files).map(functools.partial(parse, size=64))
            """,
            line=5, column=12, end_column=29,
            message="`tf.numpy_function` in the `map` function runs Python under the GIL",
        ),
        # through a decorator of this module
        Invalid(
            """
            import tensorflow as tf

            def wrap(func):
                def wrapper(*args):
                    return tf.py_function(func, inp=args, Tout=tf.float32)
                return wrapper

            @wrap
            def slow(x):
                return x

            ds = tf.data.Dataset.range(8).map(slow)
            """,
            line=5, column=16, end_column=30,
            message="`tf.py_function` in the `map` function",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        for site, call, node in model.calls_in_dataset_functions(
                "py_function",
                # a dataset only looked at runs the function a few times; a function that only
                # sleeps lets the GIL go, so parallel calls do overlap
                keep=lambda site: not model.only_used_for(site.op, LOOKS) and not site.op.facts.py_function_only_waits
                and not model.in_dead_function(site.op.call)):
            name = _SHORT_NAMES.get(model.qualified_name(call.func) or "", "tf.py_function")
            ctx.report(
                node,
                f"`{name}` in the `{site.op.name}` function runs Python under the GIL, serially "
                "whatever `num_parallel_calls` says; use TensorFlow ops instead",
                # (one helper mapped for training and for validation: its cost is the training's)
                impact=speed(not all(model.off_training(other.op) for other in model.ops(*FUNCTION_SITE_OPS)
                                     if other.op.facts is not None and other.op.facts.py_function is call)),
            )
