from __future__ import annotations

from pipelint.diagnostics import Applicability
from pipelint.model import Op
from pipelint.rules.base import Invalid, Rule, RuleContext
from pipelint.rules.rewrite import swap_adjacent


class PrefetchBeforeDistribute(Rule):
    code = "PL602"
    summary = "`prefetch` placed just before `distribute` buffers on the tf.data service workers, not in the trainer."
    fixable = Applicability.UNSAFE
    required = ("distribute",)
    docs = """\
## What it does
Flags an explicit `prefetch` that is the last stage before
`apply(tf.data.experimental.service.distribute(...))` when no `prefetch` follows the
`distribute`, such as `ds.batch(64).prefetch(2).apply(service.distribute(...))`.

## Why is this bad?
Everything before `distribute` runs on the service's workers and everything after it runs in the
trainer. A `prefetch` before it therefore buffers batches on the workers, which already queue
their results for the trainers, while the trainer itself keeps no batch ready. TensorFlow's
service guide puts the trainer's `prefetch` after `distribute` ("Any transformations added after
`distribute` will be run on the local machine"). The service's reader keeps several requests in
flight on its own, so the cost is usually small; it grows with network latency and with any work
the trainer does after `distribute`, which is why this is informational.

## Example
```python
ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE).batch(64).prefetch(tf.data.AUTOTUNE)
ds = ds.apply(tf.data.experimental.service.distribute("parallel_epochs", service=ADDRESS))
```

## Use instead
```python
ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE).batch(64)
ds = ds.apply(tf.data.experimental.service.distribute("parallel_epochs", service=ADDRESS))
ds = ds.prefetch(tf.data.AUTOTUNE)
```

## Fix safety
Unsafe: when the `prefetch` and the `apply` are adjacent in one chain the fix swaps them. The
elements are unchanged, but the buffer (and its memory) moves from the workers to the trainer.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/service (Example: `distribute`)
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/service/distribute
"""
    VALID = (
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).batch(8)
        ds = ds.apply(tf.data.experimental.service.distribute('parallel_epochs', ADDRESS)).prefetch(2)
        """,
        # a prefetch on both sides: the trainer keeps batches ready
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).batch(8).prefetch(2)
        ds = ds.apply(tf.data.experimental.service.distribute('parallel_epochs', ADDRESS))
        ds = ds.prefetch(tf.data.AUTOTUNE)
        """,
        # prefetch_to_device is not the service
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(9).prefetch(2).apply(tf.data.experimental.prefetch_to_device('/gpu:0'))
        """,
        # work between prefetch and distribute is PL104's business
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(9).prefetch(2).map(lambda x: x * 2)
        ds = ds.apply(tf.data.experimental.service.distribute('distributed_epoch', ADDRESS)).prefetch(1)
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.range(100).batch(8).prefetch(2).apply(tf.data.experimental.service.distribute('parallel_epochs', ADDRESS))
            """,
            line=2, column=42, end_column=50,
            message="`prefetch` before `distribute` buffers on the tf.data service workers",
            fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.range(100).batch(8).apply(tf.data.experimental.service.distribute('parallel_epochs', ADDRESS)).prefetch(2)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow.data.experimental import service

            ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.AUTOTUNE)
            ds = (ds.batch(64)
                  .prefetch(tf.data.AUTOTUNE)
                  .apply(service.distribute(processing_mode=service.ShardingPolicy.DYNAMIC, service=ADDRESS)))
            """,
            line=6, column=8, end_column=16,
            message="`prefetch` before `distribute` buffers on the tf.data service workers",
            fixed="""
            import tensorflow as tf
            from tensorflow.data.experimental import service

            ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.AUTOTUNE)
            ds = (ds.batch(64)
                  .apply(service.distribute(processing_mode=service.ShardingPolicy.DYNAMIC, service=ADDRESS))
                  .prefetch(tf.data.AUTOTUNE))
            """,
        ),
        # across statements: reported, not rewritten
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.list_files('*.tfrecord').interleave(tf.data.TFRecordDataset)
            ds = ds.prefetch(4).with_options(options)
            ds = ds.apply(tf.data.experimental.service.distribute('distributed_epoch', ADDRESS))
            model.fit(ds, epochs=3)
            """,
            line=3, column=9, end_column=17,
            message="`prefetch` before `distribute` buffers on the tf.data service workers",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        reported: set[int] = set()
        for hand_off, site in ctx.model.service_hand_offs():
            if any("prefetch" in (op.name for op in tail) for tail in ctx.model.continuations(hand_off.op)):
                continue
            for path in site.prefixes:
                prefetch = _prefetch_last(path.ops)
                if prefetch is None or id(prefetch) in reported:
                    continue
                reported.add(id(prefetch))
                fix = None
                if hand_off.op.receiver is prefetch.call:
                    fix = swap_adjacent(hand_off.op.call, Applicability.UNSAFE, ctx.model.module)
                ctx.report(
                    prefetch.name_node,
                    "`prefetch` before `distribute` buffers on the tf.data service workers, not in "
                    "the trainer; move it after `distribute`, where the trainer's own buffer belongs",
                    fix,
                )


def _prefetch_last(ops: tuple[Op, ...]) -> Op | None:
    """The explicit prefetch that ends these ops, options aside."""
    for op in reversed(ops):
        if op.name == "prefetch" and not op.implicit:
            return op
        if op.name != "with_options":
            return None
    return None
