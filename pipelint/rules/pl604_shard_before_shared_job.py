from __future__ import annotations

from pipelint.model import SHARD_HINT
from pipelint.rules.base import Invalid, Rule, RuleContext


class ShardBeforeSharedJob(Rule):
    code = "PL604"
    summary = ("A `shard` before `distribute(job_name=...)`: trainers sharing the job all read the "
               "first trainer's shard.")
    required = ("distribute",)
    docs = """\
## What it does
Flags a `shard(...)` in a pipeline handed to the tf.data service by `distribute(...)` with a
`job_name`, unless it is the placeholder `shard(SHARD_HINT, SHARD_HINT)` of
`ShardingPolicy.HINT`.

## Why is this bad?
Trainers that pass the same `job_name` consume one shared job, and the job is made from the
dataset of the trainer that created it first. The other trainers' datasets, with their own shard
index, are not read at all, so the data their shards hold is never trained on, with no error.
Measured here with two trainers and `job_name="j"`: trainer 0 built `range(8).shard(2, 0)`,
trainer 1 `range(8).shard(2, 1)`; both received only even numbers. A shared job already splits
the data among trainers ("sharing the job already results in splitting data across the workers",
TensorFlow's `distribute` docs), and the service guide asks that the dataset not depend on the
trainer's `input_context`.

## Example
```python
def dataset_fn(input_context):
    ds = tf.data.Dataset.list_files(pattern)
    ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
    ds = ds.interleave(tf.data.TFRecordDataset).batch(64)
    return ds.apply(tf.data.experimental.service.distribute(
        "distributed_epoch", service=ADDRESS, job_name="train"))
```

## Use instead
```python
def dataset_fn(input_context):
    ds = tf.data.Dataset.list_files(pattern)
    ds = ds.interleave(tf.data.TFRecordDataset).batch(64)
    return ds.apply(tf.data.experimental.service.distribute(
        "distributed_epoch", service=ADDRESS, job_name="train"))
```

## Fix safety
No automatic fix.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/service/distribute (Keras and Distribution Strategies)
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/service (strategy.distribute_datasets_from_function)
"""
    VALID = (
        # without a job name each trainer has its own job: its own shard is what it reads
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).shard(2, index)
        ds = ds.apply(tf.data.experimental.service.distribute('distributed_epoch', ADDRESS))
        """,
        # HINT mode's placeholder is replaced by the service itself
        """
        import tensorflow as tf
        from tensorflow.data.experimental import SHARD_HINT, service
        ds = tf.data.Dataset.list_files('*.tfrecord').shard(SHARD_HINT, SHARD_HINT)
        ds = ds.apply(service.distribute(service.ShardingPolicy.HINT, ADDRESS, job_name='train'))
        """,
        # a shared job and no shard
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).batch(4)
        ds = ds.apply(tf.data.experimental.service.distribute('parallel_epochs', ADDRESS, job_name='j'))
        """,
        # the shard runs in the trainer, after distribute
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).apply(
            tf.data.experimental.service.distribute('parallel_epochs', ADDRESS, job_name='j'))
        ds = ds.shard(2, 0)
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.range(8).shard(2, index)
            ds = ds.apply(tf.data.experimental.service.distribute('parallel_epochs', ADDRESS, job_name='j'))
            """,
            line=2, column=31, end_column=36,
            message="`shard` before `distribute` with a shared `job_name`",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow.data.experimental import service

            def dataset_fn(input_context):
                ds = tf.data.Dataset.list_files('train-*.tfrecord')
                ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
                ds = ds.interleave(tf.data.TFRecordDataset).batch(64)
                return ds.apply(service.distribute(
                    processing_mode=service.ShardingPolicy.DYNAMIC, service=ADDRESS, job_name='train'))

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            line=6, column=13, end_column=18,
            message="`shard` before `distribute` with a shared `job_name`",
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(files).shard(num_workers, worker_index)
            ds = ds.map(parse).batch(32)
            ds = ds.apply(tf.data.experimental.service.distribute(
                processing_mode='distributed_epoch', service=ADDRESS, job_name=JOB))
            """,
            line=2, column=37, end_column=42,
            message="`shard` before `distribute` with a shared `job_name`",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        reported: set[int] = set()
        for hand_off, site in ctx.model.service_hand_offs():
            if hand_off.job_name is None:
                continue
            for path in site.prefixes:
                for op in path.ops:
                    if op.name != "shard" or id(op) in reported or self._hint(ctx, op):
                        continue
                    reported.add(id(op))
                    ctx.report(
                        op.name_node,
                        "`shard` before `distribute` with a shared `job_name`: the trainers read the "
                        "one job made from the first trainer's dataset, so the other shards are never "
                        "read; drop the `shard` and let the shared job split the data",
                    )

    @staticmethod
    def _hint(ctx: RuleContext, op) -> bool:
        return bool(op.call.args) and all(ctx.model.qualified_name(arg.value) == SHARD_HINT
                                          for arg in op.call.args[:2])
