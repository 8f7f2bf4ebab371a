from __future__ import annotations

import libcst as cst

from pipelint.rules.base import At, Invalid, Rule, RuleContext

_FROM_GENERATOR = "tensorflow.data.Dataset.from_generator"
_SHORT_NAMES = {
    "tensorflow.py_function": "tf.py_function",
    "tensorflow.numpy_function": "tf.numpy_function",
    "tensorflow.py_func": "tf.py_func",
    "tensorflow.compat.v1.py_func": "tf.py_func",
}


class PythonStageBeforeDistribute(Rule):
    code = "PL601"
    summary = ("A `py_function`/`numpy_function` stage or a `from_generator` source is sent to "
               "tf.data service workers, which cannot run Python.")
    required = ("distribute",)
    docs = """\
## What it does
Flags, in a pipeline handed to the tf.data service with
`ds.apply(tf.data.experimental.service.distribute(...))`, every stage before that `apply` whose
function calls `tf.py_function`, `tf.numpy_function` or `tf.compat.v1.py_func` (`map`,
`interleave`, `flat_map`, `filter`), and a `tf.data.Dataset.from_generator` source.

## Why is this bad?
Everything before `distribute` is serialized and run by the service's worker processes, on other
hosts. Python callbacks live in the trainer's interpreter and are not part of the serialized
graph, so the service cannot run them: TensorFlow's service guide lists Python-based processing
(`tf.py_function`, `tf.numpy_function`, `from_generator`) as unsupported. The job fails when the
workers try to build the dataset, after the cluster has been started.

## Example
```python
def decode(path):
    return tf.numpy_function(load_and_resize, [path], tf.float32)

ds = tf.data.Dataset.list_files("images/*.jpg").map(decode, num_parallel_calls=tf.data.AUTOTUNE)
ds = ds.batch(64).apply(tf.data.experimental.service.distribute("parallel_epochs", service=ADDRESS))
```

## Use instead
```python
def decode(path):
    image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    return tf.image.resize(image, (224, 224))

ds = tf.data.Dataset.list_files("images/*.jpg").map(decode, num_parallel_calls=tf.data.AUTOTUNE)
ds = ds.batch(64).apply(tf.data.experimental.service.distribute("parallel_epochs", service=ADDRESS))
```
Rewrite the stage with TensorFlow ops, or convert the data offline (TFRecord) so the source is a
file dataset. A Python stage that must stay can run after `distribute`, in the trainer.

## Fix safety
No automatic fix.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/service (Limitations)
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/service/distribute
"""
    VALID = (
        # TensorFlow ops only before distribute
        """
        import tensorflow as tf
        ds = tf.data.Dataset.list_files('*.png').map(lambda p: tf.io.decode_png(tf.io.read_file(p)))
        ds = ds.batch(8).apply(tf.data.experimental.service.distribute('parallel_epochs', 'grpc://d:5000'))
        """,
        # the Python stage runs after distribute, in the trainer
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).apply(
            tf.data.experimental.service.distribute(processing_mode='distributed_epoch', service=ADDRESS))
        ds = ds.map(lambda x: tf.py_function(str, [x], tf.string))
        """,
        # a py_function pipeline that never goes to the service
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(3).map(lambda x: tf.py_function(str, [x], tf.string))
        """,
        # a distribute from somewhere else (tf.distribute) is not the service
        """
        import tensorflow as tf
        ds = tf.data.Dataset.from_generator(gen, output_signature=spec)
        dist = strategy.experimental_distribute_dataset(ds)
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
            ds = ds.batch(32).apply(tf.data.experimental.service.distribute('parallel_epochs', ADDRESS))
            """,
            line=7, column=42, end_column=45,
            message="`map` calls `tf.numpy_function`, which tf.data service workers cannot run",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow.data.experimental import service

            ds = tf.data.Dataset.from_generator(rows, output_signature=spec)
            ds = ds.filter(lambda x: tf.py_function(keep, [x], tf.bool))
            ds = ds.apply(service.distribute(processing_mode=service.ShardingPolicy.OFF, service=ADDRESS))
            """,
            line=4, column=22, end_column=36,
            message="the `from_generator` source runs Python, which tf.data service workers cannot run",
            also=(
                At(line=5, column=9, end_column=15,
                   message="`filter` calls `tf.py_function`, which tf.data service workers cannot run"),
            ),
        ),
        # the hand-off in a helper, the Python stage in the caller's branch
        Invalid(
            """
            import tensorflow as tf

            def to_service(ds):
                return ds.apply(tf.data.experimental.service.distribute('distributed_epoch', ADDRESS))

            ds = tf.data.TFRecordDataset(files)
            if augment:
                ds = ds.map(lambda r: tf.py_function(jitter, [r], tf.string))
            train = to_service(ds.batch(16))
            """,
            line=8, column=13, end_column=16,
            message="`map` calls `tf.py_function`, which tf.data service workers cannot run",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        reported: set[int] = set()
        for _, site in ctx.model.service_hand_offs():
            for path in site.prefixes:
                origin = path.origin
                if origin.kind == _FROM_GENERATOR and isinstance(origin.node, cst.Call) \
                        and id(origin.node) not in reported:
                    reported.add(id(origin.node))
                    func = origin.node.func
                    ctx.report(
                        func.attr if isinstance(func, cst.Attribute) else func,
                        "the `from_generator` source runs Python, which tf.data service workers "
                        "cannot run, and this pipeline is handed to them by `distribute`; use a "
                        "file or tensor source",
                    )
                for op in path.ops:
                    call = op.facts.py_function
                    if call is None or id(op) in reported:
                        continue
                    reported.add(id(op))
                    name = _SHORT_NAMES.get(ctx.model.qualified_name(call.func) or "", "tf.py_function")
                    ctx.report(
                        op.name_node,
                        f"`{op.name}` calls `{name}`, which tf.data service workers cannot run, and "
                        "this pipeline is handed to them by `distribute`; use TensorFlow ops or move "
                        "the stage after `distribute`",
                    )
