from __future__ import annotations

import libcst as cst

from pipelint.rules.base import Invalid, Rule, RuleContext


def _describe(model, node: cst.CSTNode) -> str:
    target = node.func if isinstance(node, cst.Call) else node
    text = " ".join(model.node_code(target).split())
    return text if len(text) <= 60 else text[:57] + "..."


class CacheAfterRandomMap(Rule):
    code = "PL202"
    summary = "`cache()` after a random `map` replays the same augmentation every epoch."
    fixable = None
    docs = """\
## What it does
Flags a `cache()` that comes after a `map` whose function draws random numbers: `tf.random.*`,
`tf.image.random_*`, NumPy or standard-library `random` inside the Python function of a
`tf.numpy_function`/`tf.py_function`, or Keras `Random*` preprocessing layers (`RandomFlip`,
`RandomRotation`, ...). Stateless ops (`tf.random.stateless_*`,
`tf.image.stateless_random_*`) are not counted, nor is NumPy randomness called directly in the
traced function (drawn once while tracing: PL210).

## Why is this bad?
`cache()` stores the elements of the first pass and replays them unchanged. A random augmentation
upstream of it runs once, so every epoch sees the very same flipped, cropped or noised example:
the augmentation stops augmenting, and the model overfits as if there were none. Cache the
deterministic part of the pipeline (decoding, resizing) and apply random augmentation after it.
Data that is only validated, evaluated or looked at is not reported: noise drawn once for a
validation set keeps its loss comparable from epoch to epoch.

## Example
```python
ds = ds.map(decode).map(augment).cache().shuffle(1000).batch(32)
```

## Use instead
```python
ds = ds.map(decode).cache().map(augment, num_parallel_calls=tf.data.AUTOTUNE).shuffle(1000).batch(32)
```

## Fix safety
No automatic fix.

## References
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#cache
- https://www.tensorflow.org/guide/data_performance#caching
- https://www.tensorflow.org/tutorials/images/data_augmentation
"""
    VALID = (
        # augmentation after the cache
        """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').map(decode).cache().map(lambda x: tf.image.random_flip_left_right(x))
        """,
        # stateless random ops are deterministic given their seed
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(10).map(lambda x: tf.random.stateless_uniform([2], seed=(1, x))).cache()
        """,
        # deterministic map before the cache
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(10).map(lambda x: tf.cast(x, tf.float32) / 255.0).cache()
        """,
        # pandas `.map` with numpy randomness, then Spark's `.cache()`: not tf.data
        """
        import numpy as np
        import pandas as pd
        import tensorflow as tf
        s = pd.Series([1, 2]).map(lambda v: v + np.random.rand())
        df = spark.table('t').cache()
        """,
        """
        import random
        import tensorflow as tf
        values = list(map(lambda v: v * random.random(), [1, 2]))
        """,
        # NumPy drawn while tf.data traces `jitter`: a constant, the same before and after the
        # cache (PL210's matter)
        """
        import numpy as np
        import tensorflow as tf

        def jitter(x):
            return x + np.random.normal()

        ds = tf.data.TFRecordDataset('a').map(jitter).cache()
        """,
        # the same object built with train=False never draws
        """
        import tensorflow as tf

        class Preprocess:
            def __init__(self, train):
                self.train = train

            def __call__(self, image, label):
                if self.train:
                    image = tf.image.random_flip_left_right(image)
                return image, label

        ds = tf.data.Dataset.from_tensor_slices((images, labels))
        ds = ds.map(Preprocess(train=False), num_parallel_calls=tf.data.AUTOTUNE).cache()
        """,
        # validation data: its noise drawn once keeps the validation loss comparable
        """
        import tensorflow as tf
        noisy = lambda x: (x + tf.random.normal(tf.shape(x)), x)
        train = tf.data.TFRecordDataset(['t']).cache().map(noisy).shuffle(100).batch(8)
        val = tf.data.TFRecordDataset(['v']).map(noisy).cache().batch(8)
        model.fit(train, validation_data=val, epochs=20)
        """,
    )
    INVALID = (
        Invalid(
            """
            import tensorflow as tf

            def augment(image, label):
                image = tf.image.random_flip_left_right(image)
                return image, label

            ds = tf.data.TFRecordDataset('train.tfrecord').map(parse).map(augment).cache().batch(32)
            """,
            line=7, column=72, end_column=77,
            message="`cache()` after a `map` that draws random numbers",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow import keras
            augmentation = keras.Sequential([keras.layers.RandomFlip('horizontal'), keras.layers.RandomRotation(0.1)])
            train = keras.utils.image_dataset_from_directory('photos')
            train = train.map(lambda x, y: (augmentation(x, training=True), y))
            train = train.cache().prefetch(tf.data.AUTOTUNE)
            """,
            line=6, column=15, end_column=20,
            message="`cache()` after a `map` that draws random numbers (`augmentation`)",
        ),
        Invalid(
            """
            import numpy as np
            import tensorflow as tf

            def np_augment(x):
                return np.fliplr(x) if np.random.rand() < 0.5 else x

            ds = tf.data.TFRecordDataset('a').map(lambda x: tf.numpy_function(np_augment, [x], tf.uint8))
            ds = ds.cache()
            """,
            line=8, column=9, end_column=14,
            message="`cache()` after a `map` that draws random numbers (`np.random.rand`)",
        ),
        Invalid(
            """
            import tensorflow as tf
            import tensorflow_datasets as tfds
            ds = tfds.load('cifar10', split='train', as_supervised=True)
            ds = ds.map(lambda x, y: (x + tf.random.normal(tf.shape(x)), y), num_parallel_calls=tf.data.AUTOTUNE)
            ds = ds.cache()
            """,
            line=5, column=9, end_column=14,
            message="`cache()` after a `map` that draws random numbers (`tf.random.normal`)",
        ),
        # a callable preprocessing object whose `__call__` flips when built with train=True
        Invalid(
            """
            import tensorflow as tf

            class Preprocess:
                def __init__(self, train):
                    self.train = train

                def __call__(self, image, label):
                    if self.train:
                        image = tf.image.random_flip_left_right(image)
                    return image, label

            ds = tf.data.Dataset.from_tensor_slices((images, labels))
            ds = ds.map(Preprocess(train=True), num_parallel_calls=tf.data.AUTOTUNE).cache()
            """,
            line=13, column=74, end_column=79,
            message="`cache()` after a `map` that draws random numbers",
        ),
        # a zip keeps what its inputs did
        Invalid(
            """
            import tensorflow as tf
            flip = tf.keras.layers.RandomFlip('horizontal')
            images = tf.data.TFRecordDataset(['a']).map(lambda x: flip(x), num_parallel_calls=tf.data.AUTOTUNE)
            labels = tf.data.TFRecordDataset(['b'])
            pairs = tf.data.Dataset.zip((images, labels)).cache()
            """,
            line=5, column=47, end_column=52,
            message="`cache()` after a `map` that draws random numbers",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        for site in model.ops("cache"):
            if model.never_trained_on(site.op):
                continue  # validation or evaluation: noise fixed once is harmless there (comparable losses)
            randomness: cst.CSTNode | None = None
            for path in site.prefixes:
                for op in path.ops:
                    if op.name == "map":
                        randomness = op.facts.randomness or op.facts.py_function_randomness
                        if randomness is not None:
                            break
                if randomness is not None:
                    break
            if randomness is None:
                continue
            ctx.report(
                site.op.name_node,
                f"`cache()` after a `map` that draws random numbers "
                f"(`{_describe(model, randomness)}`): the first epoch's random "
                "augmentation is replayed every epoch; move the random `map` after `cache()`",
            )
