from __future__ import annotations

from pipelint.diagnostics import Applicability
from pipelint.model import FILE_ORDER_SHUFFLES, Op, batch_states, literal_int
from pipelint.rules.base import Invalid, Rule, RuleContext
from pipelint.rules.rewrite import swap_adjacent


def _reshuffled_examples(tail: tuple[Op, ...], batched: bool) -> bool:
    """Does this continuation shuffle examples (not batches) again?"""
    return any(op.name == "shuffle" and not in_batches for op, in_batches in batch_states(tail, batched))


def _one_element_cached(site) -> bool:
    cache = site.op
    return bool(site.prefixes) and all(
        path.ops and path.ops[-1].name == "take" and path.ops[-1].call is cache.receiver
        and (arg := path.ops[-1].arg("count", 0)) is not None and literal_int(arg.value) == 1
        for path in site.prefixes)


class CacheAfterShuffle(Rule):
    code = "PL201"
    summary = "`cache()` after `shuffle()` freezes the first epoch's order for every later epoch."
    fixable = Applicability.UNSAFE
    docs = """\
## What it does
Flags a `cache()` that comes after a `shuffle()` on the same dataset path, unless that shuffle
passes `reshuffle_each_iteration=False` (a deliberate fixed order) or the cached examples are
shuffled again after the cache (shuffling batches after it does not count). The per-epoch shuffle
that Keras `*_dataset_from_directory` helpers apply by default counts too (their output is
batches: a shuffle of those batches after the cache reorders them each epoch, but every batch keeps
the examples of the first epoch, which the message says). A `take(1).cache()`
(one element, replayed on purpose) is not reported.

A dataset whose every known use is validation (`validation_data`), `evaluate`, `predict`, a
look (`next(iter(ds))`, a loop over `ds.take(n)` with a small `n`, `element_spec`,
`cardinality()`), `list(ds)` or `layer.adapt(ds)` is left alone: example order only matters
to training. A dataset with no known use (returned, stored) is still checked, unless the name
it is cached into names held-out data and nothing trained (`ds_val = ds_val.cache()`, `test_ds`,
`valid_dataset`): its order matters no more there.

## Why is this bad?
`cache()` records the elements of the first full pass in the order they arrived and replays that
recording on every later epoch. The shuffle upstream of it runs only once, so every epoch sees the
same order: the model no longer gets a fresh permutation per epoch, which is what `shuffle` was
for. The `Dataset.cache` documentation says to call `shuffle` after `cache`. The same holds for
`image_dataset_from_directory(...).cache()`: the helper's shuffle runs once, and every epoch
replays the same batches in the same order.

## Example
```python
ds = tf.data.TFRecordDataset(files).map(parse).shuffle(10_000).cache().batch(32)
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).map(parse).cache().shuffle(10_000).batch(32)
```

## Fix safety
Unsafe: when the shuffle is written directly before the cache in one chain (`x.shuffle(B).cache()`)
the fix swaps the two calls. The elements are unchanged but their order per epoch changes, and
a file-backed cache written by the old order must be rebuilt.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#cache
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#shuffle
- https://www.tensorflow.org/guide/data_performance#caching
"""
    VALID = (
        # make_csv_dataset repeats forever by default: the cache never completes, so nothing is replayed
        """
        import tensorflow as tf
        titanic = tf.data.experimental.make_csv_dataset('titanic.csv', batch_size=32, label_name='survived')
        model.fit(titanic.cache().repeat().shuffle(500), steps_per_epoch=20)
        """,
        # tfds' shuffle_files and list_files reorder files, not examples
        """
        import tensorflow_datasets as tfds
        train = tfds.load('imdb_reviews', split='train', shuffle_files=True).cache()
        model.fit(train.batch(32), epochs=10)
        """,
        # shuffle after cache: a new order every epoch
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a.tfrecord').cache().shuffle(1000).batch(32)
        """,
        # a deliberately fixed order
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).shuffle(100, reshuffle_each_iteration=False).cache()
        """,
        # a Keras directory helper told not to shuffle
        """
        from tensorflow import keras
        import tensorflow as tf
        val = keras.utils.image_dataset_from_directory('photos', shuffle=False)
        val = val.cache().prefetch(tf.data.AUTOTUNE)
        """,
        # reshuffled again after the cache
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(100).shuffle(100).cache().shuffle(100)
        """,
        # random.shuffle and Spark's cache are not tf.data
        """
        import random
        import tensorflow as tf
        rows = [1, 2, 3]
        random.shuffle(rows)
        df = spark.read.parquet('x').cache()
        """,
        """
        import functools
        import tensorflow as tf
        @functools.cache
        def load():
            return tf.constant(1)
        """,
        # a validation set: the order of its examples does not matter
        """
        from tensorflow import keras
        train = keras.utils.image_dataset_from_directory('d', subset='training', validation_split=0.2, seed=1)
        val = keras.utils.image_dataset_from_directory('d', subset='validation', validation_split=0.2, seed=1)
        val = val.cache().prefetch(2)
        model.fit(train, validation_data=val)
        """,
        # a validation split returned to a loop out of sight: named as held out
        """
        import tensorflow as tf
        def prepare(ds_train, ds_val):
            ds_val = ds_val.shuffle(100).cache('val_cache').batch(8)
            ds_train = ds_train.cache().shuffle(100).batch(8)
            return ds_train, ds_val
        """,
    )
    INVALID = (
        # batches cached after an example shuffle, then shuffled as batches: their make-up is frozen
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset(['a']).shuffle(10000).batch(32)
            model.fit(ds.cache().shuffle(1000).prefetch(2), epochs=20)
            """,
            line=3, column=14, end_column=19,
            message="`cache()` after `shuffle()` keeps the first epoch's batches: the later shuffle only "
                    "reorders whole batches",
        ),
        Invalid(
            """
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a.tfrecord').shuffle(1000).cache().batch(32)
            """,
            line=2, column=58, end_column=63,
            message="`cache()` after `shuffle()` records the first epoch's order",
            fixed="""
            import tensorflow as tf
            ds = tf.data.TFRecordDataset('a.tfrecord').cache().shuffle(1000).batch(32)
            """,
        ),
        Invalid(
            """
            import tensorflow as tf

            def make(files, training):
                ds = tf.data.TFRecordDataset(files)
                if training:
                    ds = ds.shuffle(10_000)
                ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE)
                ds = ds.cache()
                return ds.batch(64)
            """,
            line=8, column=13, end_column=18,
            message="`cache()` after `shuffle()` records the first epoch's order",
        ),
        Invalid(
            """
            import tensorflow_datasets as tfds
            ds = tfds.load('mnist', split='train', as_supervised=True)
            ds = ds.shuffle(60000, reshuffle_each_iteration=True).cache()
            """,
            line=3, column=55, end_column=60,
            message="`cache()` after `shuffle()` records the first epoch's order",
            fixed="""
            import tensorflow_datasets as tfds
            ds = tfds.load('mnist', split='train', as_supervised=True)
            ds = ds.cache().shuffle(60000, reshuffle_each_iteration=True)
            """,
        ),
        Invalid(
            """
            from tensorflow import keras
            import tensorflow as tf
            train = keras.utils.image_dataset_from_directory('photos', seed=1)
            train = train.cache().prefetch(tf.data.AUTOTUNE)
            """,
            line=4, column=15, end_column=20,
            message="`cache()` after `image_dataset_from_directory`",
        ),
        Invalid(
            """
            import keras
            import tensorflow as tf
            train = keras.utils.image_dataset_from_directory('photos', shuffle=False)
            train = train.unbatch().shuffle(4096).batch(32).cache()
            """,
            line=4, column=49, end_column=54,
            message="`cache()` after `shuffle()` records the first epoch's order",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        for site in model.ops("cache"):
            cache = site.op
            if model.never_trained_on(cache):
                continue  # validation, evaluation, prediction or a look: example order does not matter
            if _one_element_cached(site):
                continue  # `take(1).cache().repeat()`: one element (a fake-data batch) has no order
            shuffles: list[Op] = []
            for path in site.prefixes:
                for op in path.all_ops():
                    if op.implicit and path.origin.kind in FILE_ORDER_SHUFFLES:
                        continue  # the order of files, not of examples
                    if op.name == "shuffle" and op.reshuffles_every_epoch and op not in shuffles:
                        shuffles.append(op)
            if not shuffles:
                continue
            if any(path.endless_reason() is not None for path in site.prefixes):
                continue  # a cache of an endless stream never completes: it replays nothing
            batched = any(path.ends_batched() for path in site.prefixes)
            if any(_reshuffled_examples(tail, batched) for tail in model.continuations(cache)):
                continue  # examples shuffled again after the cache: each epoch gets a new order
            if model.named_held_out(cache):
                continue  # (`ds_val = ds_val.cache()`, used out of sight: its order does not matter)
            written = [op for op in shuffles if not op.implicit]
            batches_reshuffled = batched and any(
                op.name == "shuffle" for tail in model.continuations(cache) for op in tail)
            if not written:
                kind = next(p.origin.kind for p in site.prefixes if shuffles[0] in p.origin.implicit_ops)
                helper = kind.rsplit(".", 1)[-1]
                remedy = ("`unbatch()` before `cache()` and `shuffle()`/`batch()` after it" if batched
                          else "shuffle after the cache (`.cache().shuffle(...)`)")
                ctx.report(
                    cache.name_node,
                    f"`cache()` after `{helper}`, which shuffles every epoch: the first epoch's "
                    + ("batches are replayed every epoch (the later shuffle only reorders whole batches: "
                       "each keeps the same examples)" if batches_reshuffled else
                       "batches are replayed in the same order every epoch" if batched else
                       "order is replayed every epoch") + f"; {remedy}",
                )
                continue
            fix = None
            receiver = cache.receiver
            adjacent = next((op for op in written if op.call is receiver), None)
            if adjacent is not None and all(path.ops and path.ops[-1] is adjacent for path in site.prefixes):
                fix = swap_adjacent(cache.call, Applicability.UNSAFE, model.module)
            if batches_reshuffled:
                # (`.shuffle(n).batch(b).cache().shuffle(m)`: the order of batches changes, what each
                # batch holds does not; the advice must not be the order the code already has)
                ctx.report(
                    cache.name_node,
                    "`cache()` after `shuffle()` keeps the first epoch's batches: the later shuffle only "
                    "reorders whole batches, each with the same examples every epoch; shuffle the examples "
                    "after the cache and batch after that",
                )
                continue
            ctx.report(
                cache.name_node,
                "`cache()` after `shuffle()` records the first epoch's order and replays it every "
                "epoch; shuffle after the cache (`.cache().shuffle(...)`)",
                fix,
            )
