from __future__ import annotations

from typing import ClassVar

import libcst as cst

from pipelint.diagnostics import Applicability
from pipelint.model import LOOKS, PASS_THROUGH_METHODS, Op, OpSite, literal_int
from pipelint.rules.base import PREFETCH_INJECTED, At, prefetch_injected, Invalid, Option, Rule, RuleContext, speed
from pipelint.rules.rewrite import swap_adjacent

# Ops that may follow a prefetch: they add no per-element work for the prefetch to hide.
_PASS_THROUGH = PASS_THROUGH_METHODS | {"prefetch"}
# `apply` of these belongs after the prefetch (they move elements to a device or a service).
_LAST_TRANSFORMS = ("prefetch_to_device", "copy_to_device", "tensorflow.data.experimental.service.")


def _caches_a_sample(site: OpSite) -> bool:
    """`ds.take(1).cache().repeat()`: one element replayed on purpose (fake-data benchmarks); the
    cache is filled once and then costs nothing."""
    return bool(site.prefixes) and all(
        path.ops and path.ops[-1].name == "take" and site.op.receiver is path.ops[-1].call
        and (arg := path.ops[-1].arg("count", 0)) is not None and literal_int(arg.value) == 1
        for path in site.prefixes)


class PrefetchNotLast(Rule):
    code = "PL104"
    summary = "A transformation runs after `prefetch`, outside the overlap that prefetch provides."
    fixable = Applicability.UNSAFE
    options: ClassVar[dict[str, Option]] = {"prefetch-injected": PREFETCH_INJECTED}
    docs = """\
## What it does
From TensorFlow 2.11 tf.data's `inject_prefetch` rewrite adds a prefetch after the pipeline's
last stage, so the work after a misplaced `prefetch` is overlapped anyway
(`map(f).prefetch(2).batch(4)` runs with a second, injected prefetch after `batch`). In a file
whose target TensorFlow is 2.11 or later (see PL103 and `target-version`) this rule therefore
reports only pipelines whose options switch that rewrite off; on an older target, or with
`[tool.pipelint.rules.PL104] prefetch-injected = false`, it reports every one, as follows.

Flags a transformation that comes after an explicit `prefetch` on the same pipeline, such as
`ds.prefetch(tf.data.AUTOTUNE).batch(32)` or `ds.prefetch(2).map(f)`. Pass-through ops that do no
work per element (`with_options`, another `prefetch`, `take`, `skip`, `repeat`,
`assert_cardinality`) and device/service transfers applied with `apply` are allowed after it. The
implicit prefetch of the Keras `*_dataset_from_directory` helpers is not considered here (see
PL103). A `prefetch(n)` that a later `prefetch` follows on every path is a deliberate
intermediate buffer (`.prefetch(64).batch(32).map(f).prefetch(AUTOTUNE)`), so what runs between
the two is not reported; neither is a dataset only looked at (`next(iter(ds))`, `element_spec`)
nor a `take(1).cache()` that replays one element on purpose.

## Why is this bad?
`prefetch` decouples the producer from the consumer only for the work done before it. A `map`,
`batch`, `shuffle` or `cache` after it runs on the consumer's thread, in the training step's
critical path, and the prefetch buffer then holds elements rather than the batches the model
asks for. The TensorFlow guide asks that the pipeline end with `prefetch`.

Impact: speed where the op after `prefetch` costs real time per element (a map that decodes or
transforms images, runs Python, or calls code not in sight); minor speed (shown with
`--show-minor-speed`) for cheap ops there (`batch`, `padded_batch`, `shuffle`, a cast), or where
the data is only evaluated.

## Example
```python
ds = tf.data.TFRecordDataset(files).map(parse).prefetch(tf.data.AUTOTUNE).batch(32)
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).map(parse).batch(32).prefetch(tf.data.AUTOTUNE)
```

## Fix safety
Unsafe: when the prefetch and the next call are adjacent in one chain
(`x.prefetch(P).op(...)`, on one line or several) the fix swaps them. The elements are unchanged, but `P` now counts what `op` produces (batches
instead of examples, say), so memory use can grow by the batch size.

## References
- https://www.tensorflow.org/guide/data_performance#prefetching
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#prefetch
"""
    VALID = (
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(['a']).map(parse).batch(32).prefetch(tf.data.AUTOTUNE)
        """,
        # default options: tf.data injects a prefetch after the last batch
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(['a']).map(parse).prefetch(tf.data.AUTOTUNE).batch(32)
        model.fit(ds)
        """,
        # options and a peek at a few elements do no work for the prefetch to hide
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(9).batch(3).prefetch(2).with_options(opts)
        for x in ds.take(1):
            print(x)
        """,
        # the Keras helper's own prefetch is PL103's business
        """
        from tensorflow import keras
        train = keras.utils.image_dataset_from_directory('images/').map(lambda x, y: (x, y))
        """,
        # prefetch_to_device belongs last
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(9).prefetch(2).apply(tf.data.experimental.prefetch_to_device('/gpu:0'))
        """,
        # a user's own loader with prefetch and batch methods
        """
        import tensorflow as tf
        class Loader:
            def prefetch(self, n):
                return self
            def batch(self, n):
                return self
        Loader().prefetch(2).batch(4)
        """,
        # an intermediate buffer before batching; the pipeline still ends with prefetch
        """
        import tensorflow as tf
        ds = (tf.data.TFRecordDataset(['a']).map(parse, num_parallel_calls=tf.data.AUTOTUNE)
              .prefetch(64).batch(32).prefetch(tf.data.AUTOTUNE))
        """,
        # one batch replayed for a fake-data benchmark
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(['a']).batch(32).prefetch(2)
        ds = ds.take(1).cache().repeat()
        """,
    )
    INVALID = (
        # default options: the pipeline's options switch the injected prefetch off
        Invalid(
            """
            import tensorflow as tf
            options = tf.data.Options()
            options.experimental_optimization.inject_prefetch = False
            ds = tf.data.TFRecordDataset(['a']).map(parse).prefetch(2).batch(32).with_options(options)
            """,
            line=4, column=60, end_column=65,
            message="`batch` runs after `prefetch`",
            fixed="""
            import tensorflow as tf
            options = tf.data.Options()
            options.experimental_optimization.inject_prefetch = False
            ds = tf.data.TFRecordDataset(['a']).map(parse).batch(32).prefetch(2).with_options(options)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(['a']).map(parse).prefetch(tf.data.AUTOTUNE).batch(32)
            """,
            line=2, column=75, end_column=80,
            options={"prefetch-injected": False},
            message="`batch` runs after `prefetch`",
            fixed="""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(['a']).map(parse).batch(32).prefetch(tf.data.AUTOTUNE)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.range(100).prefetch(4).map(lambda x: x + 1).shuffle(10)
            """,
            line=2, column=45, end_column=48,
            options={"prefetch-injected": False},
            message="`map` runs after `prefetch`",
            fixed="""
            import tensorflow as tf
            ds = tf.data.Dataset.range(100).map(lambda x: x + 1).shuffle(10).prefetch(4)
            """,
        ),
        # reassignment across statements and a branch: reported, not rewritten
        Invalid(
            """
            import tensorflow as tf

            def load(files, training):
                ds = tf.data.TFRecordDataset(files)
                ds = ds.prefetch(tf.data.AUTOTUNE)
                if training:
                    ds = ds.shuffle(1000)
                return ds.batch(32)
            """,
            line=7, column=17, end_column=24,
            options={"prefetch-injected": False},
            message="`shuffle` runs after `prefetch`",
            also=(
                At(line=8, column=15, end_column=20,
                   message="`batch` runs after `prefetch`"),
            ),
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='train')
            ds = ds.prefetch(1)
            ds = ds.cache()
            """,
            line=5, column=9, end_column=14,
            options={"prefetch-injected": False},
            message="`cache` runs after `prefetch`",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        reported: set[int] = set()
        for site in ctx.model.ops():
            op = site.op
            if op.implicit or op.name in _PASS_THROUGH or self._last_transform(ctx, op):
                continue
            excused: bool | None = None  # asked only where a prefetch comes before the op
            for prefix in site.prefixes:
                prefetch = self._prefetch_before(ctx, prefix.ops)
                if prefetch is None or id(op) in reported:
                    continue
                if excused is None:
                    excused = ((prefetch_injected(ctx)
                                and not ctx.model.rewrite_switched_off("inject_prefetch", ctx.model.pipeline_ops(op)))
                               or self._prefetched_again(ctx, op) or ctx.model.only_used_for(op, LOOKS)
                               or (op.name == "cache" and _caches_a_sample(site)))
                if excused:
                    break
                reported.add(id(op))
                fix = None
                receiver = op.receiver
                if receiver is prefetch.call:
                    fix = swap_adjacent(op.call, Applicability.UNSAFE, ctx.model.module)
                ctx.report(
                    op.name_node,
                    f"`{op.name}` runs after `prefetch`, on the consumer's thread and outside the "
                    "overlap prefetch gives; move `prefetch` to the end of the pipeline",
                    fix, impact=speed(ctx.model.material_speed(op)),
                )

    @staticmethod
    def _prefetched_again(ctx: RuleContext, op: Op) -> bool:
        """Does a later `prefetch` follow `op` on every path? Then the earlier one is a deliberate
        intermediate buffer (`prefetch(n)` before batching), not a misplaced last stage. The paths
        are those of the datasets consumed through `op` (a path may end at `op` itself), else the
        complete continuations after it."""
        tails = [path.ops[path.ops.index(op) + 1:]
                 for consumer in ctx.model.consumers_of(op) for path in consumer.value.paths if op in path.ops]
        if not tails:
            partial = ctx.model.continuations(op)
            # `continuations` lists every partial tail; only the complete ones say how a path ends.
            tails = [t for t in partial if not any(len(o) > len(t) and o[:len(t)] == t for o in partial)]
        return bool(tails) and all(
            any(later.name == "prefetch" and not later.implicit for later in tail) for tail in tails)

    def _prefetch_before(self, ctx: RuleContext, ops: tuple[Op, ...]) -> Op | None:
        """The explicit prefetch this op follows, with only pass-through ops in between."""
        for previous in reversed(ops):
            if previous.name == "prefetch" and not previous.implicit:
                return previous
            if previous.name not in _PASS_THROUGH and not self._last_transform(ctx, previous):
                return None
        return None

    @staticmethod
    def _last_transform(ctx: RuleContext, op: Op) -> bool:
        if op.name != "apply" or not op.call.args:
            return False
        value = op.call.args[0].value
        func = value.func if isinstance(value, cst.Call) else value
        name = ctx.model.qualified_name(func) or ""
        return any(marker in name for marker in _LAST_TRANSFORMS)
