from __future__ import annotations

import libcst as cst

from pipelint.model import find_arg
from pipelint.rules.base import Invalid, Rule, RuleContext

_FROM_GENERATOR = "tensorflow.data.Dataset.from_generator"


class FromGenerator(Rule):
    code = "PL107"
    summary = "`Dataset.from_generator` runs Python under the GIL and is tied to this process."
    docs = """\
## What it does
Reports each `tf.data.Dataset.from_generator(...)` source, once: when the call also passes the
deprecated `output_types`/`output_shapes` (by keyword or position) instead of `output_signature`,
the same finding says so.

## Why is this bad?
The generator is plain Python: every element is produced under the GIL by one thread, so the
source caps the pipeline's throughput whatever parallelism follows it. The generator's body is
not serialized into the dataset graph: the pipeline must run in the Python process that built
it, which precludes the tf.data service and workers in other processes. Where the data lives in files, a file-based source
(`TFRecordDataset`, `list_files` + `interleave`, `tf.io` readers) scales; for in-memory arrays
`from_tensor_slices` does.

`output_types` and `output_shapes` are deprecated since TensorFlow 2.4; `output_signature` with
`tf.TensorSpec`s describes the elements in one argument and also supports ragged and sparse
tensors.

## Example
```python
ds = tf.data.Dataset.from_generator(read_rows, output_types=tf.float32, output_shapes=(None, 8))
```

## Use instead
```python
ds = tf.data.Dataset.from_tensor_slices(np.load("rows.npy"))
# or, when a generator is unavoidable:
ds = tf.data.Dataset.from_generator(
    read_rows, output_signature=tf.TensorSpec(shape=(None, 8), dtype=tf.float32))
```

## Fix safety
No automatic fix.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#from_generator
- https://www.tensorflow.org/guide/data#consuming_python_generators
- https://www.tensorflow.org/api_docs/python/tf/data/experimental/service
"""
    VALID = (
        """
        import tensorflow as tf
        ds = tf.data.Dataset.from_tensor_slices(features)
        """,
        # Hugging Face datasets has a from_generator too
        """
        from datasets import Dataset
        import tensorflow as tf
        ds = Dataset.from_generator(gen)
        """,
        # a user's own class
        """
        import tensorflow as tf
        class Source:
            @classmethod
            def from_generator(cls, gen):
                return cls()
        Source.from_generator(iter([]))
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.from_generator(
                gen, output_signature=tf.TensorSpec(shape=(), dtype=tf.int64))
            """,
            line=2, column=22, end_column=36,
            message="`from_generator` produces every element in Python under the GIL",
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.Dataset.from_generator(gen, output_types=tf.int64, output_shapes=())
            """,
            line=2, column=22, end_column=36,
            message="`from_generator` produces every element in Python under the GIL",
        ),
        Invalid(
            """
            from tensorflow.data import Dataset
            import tensorflow as tf
            ds = Dataset.from_generator(gen, tf.float32)
            ds = ds.batch(8)
            """,
            line=3, column=14, end_column=28,
            message="`from_generator` produces every element in Python under the GIL",
        ),
        Invalid(
            """
            import tensorflow.compat.v2 as tf

            def make():
                return tf.data.Dataset.from_generator(rows, output_signature=spec).batch(4)
            """,
            line=4, column=28, end_column=42,
            message="`from_generator` produces every element in Python under the GIL",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        for origin in ctx.model.origins:
            if origin.kind != _FROM_GENERATOR or not isinstance(origin.node, cst.Call):
                continue
            call = origin.node
            func = call.func
            deprecated = [keyword for keyword, position in (("output_types", 1), ("output_shapes", 2))
                          if (arg := find_arg(call, keyword, position)) is not None
                          and not (arg.keyword is None and find_arg(call, "output_signature") is not None)]
            also = (f" (and `{'`/`'.join(deprecated)}` {'is' if len(deprecated) == 1 else 'are'} deprecated: "
                    "describe the elements with `output_signature=tf.TensorSpec(...)`)") if deprecated else ""
            ctx.report(
                func.attr if isinstance(func, cst.Attribute) else func,
                "`from_generator` produces every element in Python under the GIL and cannot be "
                f"moved out of this process (no tf.data service); prefer a file or tensor source{also}",
            )
