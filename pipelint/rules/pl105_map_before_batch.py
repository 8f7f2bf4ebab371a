from __future__ import annotations


import libcst as cst

from pipelint.model import Op
from pipelint.rules.base import Invalid, Rule, RuleContext

# Calls whose result depends on the element's shape: moving them after `batch` changes them.
_SHAPE_BOUND = ("reshape", "squeeze", "expand_dims")


class _ShapeBound(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
        if name in _SHAPE_BOUND:
            self.found = True

    def visit_Subscript(self, node: cst.Subscript) -> None:
        # `x[0]` / `x[:3]` index the element itself; on a batch they would pick examples.
        for element in node.slice:
            inner = element.slice
            if isinstance(inner, cst.Slice) or (
                    isinstance(inner, cst.Index) and not isinstance(inner.value, cst.SimpleString)):
                self.found = True


# Element-wise functions cheap enough that the per-call overhead dominates.
_CHEAP_CALLS = frozenset({
    "tensorflow.cast", "tensorflow.math.divide", "tensorflow.math.multiply", "tensorflow.math.add",
    "tensorflow.math.subtract", "tensorflow.one_hot", "tensorflow.image.convert_image_dtype",
})
# Ops between the map and `batch` that never look at element values: the map can move past them.
# Not `cache`: a map before it runs only in the first epoch, after it in every epoch.
_AGNOSTIC = frozenset({"shuffle", "prefetch", "repeat", "take", "skip", "shard", "with_options"})


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def _returned_expression(ctx: RuleContext, fn: cst.BaseExpression) -> cst.BaseExpression | None:
    """The body of a lambda, or the returned expression of a local `def` that only returns."""
    if isinstance(fn, cst.Lambda):
        return fn.body
    if not isinstance(fn, cst.Name):
        return None
    func = ctx.model.functions.get(fn.value)
    if func is None or not isinstance(func.body, cst.IndentedBlock) or func.decorators:
        return None
    statements = list(func.body.body)
    if statements and isinstance(statements[0], cst.SimpleStatementLine) and \
            isinstance(statements[0].body[0], cst.Expr) and \
            isinstance(statements[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        statements = statements[1:]  # docstring
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    small = statements[0].body
    if len(small) != 1 or not isinstance(small[0], cst.Return) or small[0].value is None:
        return None
    return small[0].value


def _vectorizable(ctx: RuleContext, op: Op) -> bool:
    if op.implicit:
        return False
    fn = op.arg("map_func", 0)
    if fn is None:
        return False
    body = _returned_expression(ctx, fn.value)
    if body is None:
        return False
    if not (isinstance(fn.value, cst.Lambda) and op.facts.cheap):
        collector = _Calls()
        body.visit(collector)
        if not all(ctx.model.qualified_name(c.func) in _CHEAP_CALLS for c in collector.calls):
            return False
    visitor = _ShapeBound()
    body.visit(visitor)
    return not visitor.found


class MapBeforeBatch(Rule):
    code = "PL105"
    summary = "A cheap element-wise `map` before `batch` could run once per batch instead."
    docs = """\
## What it does
Flags a `map` whose function (a lambda, or a local `def` that only returns an expression) is
cheap element-wise arithmetic (casts, `+ - * /`, `tf.one_hot`...) and that comes before `batch`
on the same pipeline, with at most value-agnostic ops (`shuffle`, `repeat`, `take`...) in
between. A `cache` in between stops it: there the map runs once, in the first epoch only. Functions that depend on the element's
shape (`tf.reshape`, `tf.squeeze`, `tf.expand_dims`, indexing) are left alone. Off by default:
it is advice, not a defect.

## Why is this bad?
Invoking the mapped function has a fixed scheduling cost per call. For a function this cheap the
overhead dominates: applying it after `batch` calls it once per batch on a whole tensor instead
of once per element, which the TensorFlow guide calls vectorized mapping.

## Example
```python
ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y)).batch(64)
```

## Use instead
```python
ds = ds.batch(64).map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y))
```

## Fix safety
No automatic fix: whether the function gives the same result on a batch has to be checked by
the author.

## References
- https://www.tensorflow.org/guide/data_performance#vectorizing_mapping
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#batch
"""
    VALID = (
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).batch(4).map(lambda x: tf.cast(x, tf.float32) / 255.0)
        """,
        # a shape-dependent function does not carry over to batches
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: tf.reshape(x, [1])).batch(4)
        """,
        # mapped once before the cache, not every epoch
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: tf.cast(x, tf.float32) / 255.0)
        ds = ds.cache().shuffle(8).batch(4)
        """,
        # a filter in between sees the mapped element
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: x * 2).filter(lambda x: x > 2).batch(4)
        """,
        # pandas and Python's map, and a user's Batcher
        """
        import pandas as pd
        import tensorflow as tf
        s = pd.Series([1, 2]).map(lambda v: v * 2)
        values = list(map(abs, [1, -2]))
        """,
        """
        import tensorflow as tf
        class Batcher:
            def map(self, f):
                return self
            def batch(self, n):
                return self
        Batcher().map(lambda x: x * 2).batch(4)
        """,
    )
    INVALID = (
        Invalid(
            '''
            import tensorflow as tf

            def normalize(image, label):
                """uint8 -> float32."""
                return tf.cast(image, tf.float32) / 255.0, label

            ds = tf.data.TFRecordDataset(files).map(parse).map(normalize).shuffle(1000).batch(32)
            ''',
            line=7, column=48, end_column=51,
            message="cheap element-wise `map` before `batch` calls its function",
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.from_tensor_slices((x, y))
            ds = ds.map(lambda img, label: (tf.cast(img, tf.float32) / 255.0, label)).batch(64)
            """,
            line=3, column=9, end_column=12,
            message="cheap element-wise `map` before `batch` calls its function",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            import tensorflow as tf
            ds = tfds.load('mnist', split='train', as_supervised=True)
            ds = ds.map(lambda x, y: (x, tf.one_hot(y, 10)), num_parallel_calls=tf.data.AUTOTUNE)
            ds = ds.batch(32)
            """,
            line=4, column=9, end_column=12,
            message="cheap element-wise `map` before `batch` calls its function",
        ),
        Invalid(
            """
            import tensorflow as tf

            def make(training):
                ds = tf.data.Dataset.range(100)
                if training:
                    ds = ds.shuffle(100)
                return ds.map(lambda v: v * 2 + 1).batch(8)
            """,
            line=7, column=15, end_column=18,
            message="cheap element-wise `map` before `batch` calls its function",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        reported: set[int] = set()
        for site in ctx.model.ops("batch"):
            for prefix in site.prefixes:
                ops = prefix.all_ops()
                while ops and ops[-1].name in _AGNOSTIC:
                    ops = ops[:-1]
                if not ops or ops[-1].name != "map":
                    continue
                previous = ops[-1]
                if id(previous) in reported or not _vectorizable(ctx, previous):
                    continue
                reported.add(id(previous))
                ctx.report(
                    previous.name_node,
                    "cheap element-wise `map` before `batch` calls its function once per element; "
                    "map after `batch` to run it once per batch",
                )
