from __future__ import annotations

from pipelint.model import find_arg, is_none
from pipelint.rules.base import Invalid, Rule, RuleContext


class SeededShuffleBeforeDistribute(Rule):
    code = "PL603"
    summary = ("A `shuffle` with a fixed seed before `distribute(processing_mode=OFF)` makes every "
               "tf.data service worker produce the same order.")
    required = ("distribute",)
    docs = """\
## What it does
Flags a `shuffle(..., seed=...)` (a seed that is not `None`) in a pipeline handed to the tf.data
service with `processing_mode=ShardingPolicy.OFF` (or its old spelling `"parallel_epochs"`).

## Why is this bad?
With sharding off, every service worker runs its own full copy of the pipeline. A fixed seed makes
every copy shuffle identically, so with N workers the trainer receives each element N times in
lockstep, the copies close together, instead of N independently shuffled streams. TensorFlow's
service guide asks for exactly the opposite: "shuffle the dataset nondeterministically so that
workers process the dataset in different orders". Measured here with two workers,
`range(8).shuffle(8, seed=1)` arrived as `0, 0, 1, 1, 3, 3, 6, 6, ...`.

## Example
```python
ds = tf.data.Dataset.list_files(pattern).shuffle(10_000, seed=42).interleave(tf.data.TFRecordDataset)
ds = ds.apply(tf.data.experimental.service.distribute("parallel_epochs", service=ADDRESS))
```

## Use instead
```python
ds = tf.data.Dataset.list_files(pattern).shuffle(10_000).interleave(tf.data.TFRecordDataset)
ds = ds.apply(tf.data.experimental.service.distribute("parallel_epochs", service=ADDRESS))
```
Or use `ShardingPolicy.DYNAMIC` (`"distributed_epoch"`), which splits the source among workers
so each element is produced once.

## Fix safety
No automatic fix: dropping the seed changes the order the pipeline produces.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/service (Processing Modes)
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/service/ShardingPolicy
"""
    VALID = (
        # unseeded shuffle: each worker its own order
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).shuffle(100)
        ds = ds.apply(tf.data.experimental.service.distribute('parallel_epochs', ADDRESS))
        """,
        # dynamic sharding splits the source: each element is produced once
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).shuffle(100, seed=7)
        ds = ds.apply(tf.data.experimental.service.distribute('distributed_epoch', ADDRESS))
        """,
        # the seeded shuffle runs in the trainer, after distribute
        """
        import tensorflow as tf
        from tensorflow.data.experimental import service
        ds = tf.data.Dataset.range(100).apply(service.distribute(service.ShardingPolicy.OFF, ADDRESS))
        ds = ds.shuffle(100, seed=1)
        """,
        # the mode is a flag: unknown, stay silent
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).shuffle(100, seed=1)
        ds = ds.apply(tf.data.experimental.service.distribute(FLAGS.mode, ADDRESS))
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.range(100).shuffle(100, seed=1)
            ds = ds.apply(tf.data.experimental.service.distribute('parallel_epochs', ADDRESS))
            """,
            line=2, column=33, end_column=40,
            message="`shuffle` with a fixed seed before `distribute` with sharding off",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow.data.experimental import service

            def build(files, seed):
                ds = tf.data.Dataset.from_tensor_slices(files)
                ds = ds.shuffle(len(files), seed).interleave(tf.data.TFRecordDataset)
                return ds.batch(32).apply(service.distribute(
                    processing_mode=service.ShardingPolicy.OFF, service=ADDRESS, job_name='train'))
            """,
            line=6, column=13, end_column=20,
            message="`shuffle` with a fixed seed before `distribute` with sharding off",
        ),
        Invalid(
            """
            import tensorflow as tf
            SEED = 1234
            ds = tf.data.TFRecordDataset(files)
            if training:
                ds = ds.shuffle(buffer_size=10_000, seed=SEED)
            ds = ds.apply(tf.data.experimental.service.distribute(
                processing_mode=tf.data.experimental.service.ShardingPolicy.OFF, service=ADDRESS))
            """,
            line=5, column=13, end_column=20,
            message="`shuffle` with a fixed seed before `distribute` with sharding off",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        reported: set[int] = set()
        for hand_off, site in ctx.model.service_hand_offs():
            if hand_off.processing_mode != "OFF":
                continue
            for path in site.prefixes:
                for op in path.ops:
                    seed = find_arg(op.call, "seed", 1) if op.name == "shuffle" else None
                    if seed is None or is_none(seed.value) or id(op) in reported:
                        continue
                    reported.add(id(op))
                    ctx.report(
                        op.name_node,
                        "`shuffle` with a fixed seed before `distribute` with sharding off: every "
                        "tf.data service worker runs its own copy in the same order, so the trainer "
                        "gets each element once per worker in lockstep; drop the seed or use "
                        "`ShardingPolicy.DYNAMIC`",
                    )
