from __future__ import annotations

import libcst as cst

from pipelint.model.syntax import ancestors, innermost, nodes_of
from pipelint.rules.base import Invalid, Rule, RuleContext


def _pairing_seed(model, call: cst.Call) -> tuple[str, int] | None:
    """`seed = np.random.randint(1000)` whose name then seeds two or more random ops of the same
    function (`seed=seed`: an image and its mask flipped alike), itself or through helpers whose
    parameter it is given to and that use that parameter only as `seed=`: the name and how many ops."""
    around = ancestors(model.module, call)
    if not around or len(around) < 3:
        return None
    assign = around[-2]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)):
        return None
    name = assign.targets[0].target.value
    function = innermost(model.module, call, (cst.FunctionDef, cst.Lambda))
    if function is None:
        return None
    seeded = len(_seed_arguments(function, name))
    sites = None
    for inner in nodes_of(function, cst.Call):
        for position, arg in enumerate(inner.args):
            if not (isinstance(arg.value, cst.Name) and arg.value.value == name) or arg.keyword is not None \
                    and arg.keyword.value == "seed" or arg.star:
                continue
            sites = {id(site.call): site for site in model.calls} if sites is None else sites
            helper = _helper(model, sites.get(id(inner)), inner)
            parameter = _parameter(helper, arg, position) if helper is not None else None
            if parameter is None:
                continue
            seeds = _seed_arguments(helper, parameter)
            keywords = {id(a.keyword) for a in nodes_of(helper.body, cst.Arg) if a.keyword is not None}
            uses = sum(1 for node in nodes_of(helper.body, cst.Name)
                       if node.value == parameter and id(node) not in keywords)
            if seeds and len(seeds) == uses:  # (the helper does nothing else with it)
                seeded += len(seeds)
    return (name, seeded) if seeded >= 2 else None


def _seed_arguments(function: cst.CSTNode, name: str) -> list[cst.Arg]:
    return [arg for arg in nodes_of(function, cst.Arg)
            if arg.keyword is not None and arg.keyword.value == "seed"
            and any(n.value == name for n in nodes_of(arg.value, cst.Name))]


def _helper(model, site, call: cst.Call) -> cst.FunctionDef | None:
    """The function `call` calls: one of the module's own, or one of the project's."""
    if isinstance(call.func, cst.Name) and call.func.value in model.functions:
        return model.functions[call.func.value]
    if site is None or site.qualified_name is None or model.project is None:
        return None
    found = model.project.definition(site.qualified_name)
    node = found[0].find(found[1]) if found is not None else None
    return node if isinstance(node, cst.FunctionDef) else None


def _parameter(function: cst.FunctionDef, arg: cst.Arg, position: int) -> str | None:
    params = function.params
    if arg.keyword is not None:
        names = {param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)}
        return arg.keyword.value if arg.keyword.value in names else None
    positional = [*params.posonly_params, *params.params]
    return positional[position].name.value if position < len(positional) else None


class TraceTimeRandom(Rule):
    code = "PL210"
    summary = "NumPy or Python `random` in a dataset function is drawn once, while tracing."
    fixable = None
    docs = """\
## What it does
Flags a NumPy (`np.random.*`) or standard-library (`random.*`) call made directly in the function
given to `map`, `filter`, `interleave` or `flat_map` (or in a helper of the same module it calls).
Calls inside the Python function handed to `tf.py_function`/`tf.numpy_function` are not flagged:
those run for every element. Nor is a call that only picks a seed (`seed=np.random.randint(9)`, or `seed = np.random.randint(9)`
read once, as the `seed=` of one stateful random op, which draws per element anyway).
A value drawn once and given as `seed=` to two or more random ops (an image and its mask flipped
alike), directly or through helpers that use it only as `seed=`, is flagged only where the map runs
with `num_parallel_calls`, with a message that says so: a serial map keeps the ops in step.

## Why is this bad?
tf.data traces the dataset function into a graph once. Python code in it runs during that trace,
so `np.random.rand()` is drawn once and its value becomes a constant of the graph: every element,
in every epoch, gets the very same "random" crop, offset or noise. The augmentation looks random
in the source and is not; the model trains on one fixed distortion.

## Example
```python
def translate(image):
    offset = np.random.rand(2) * 20
    return tfa.image.translate(image, offset)

ds = ds.map(translate, num_parallel_calls=tf.data.AUTOTUNE)
```

## Use instead
```python
def translate(image):
    offset = tf.random.uniform([2]) * 20
    return tfa.image.translate(image, offset)

ds = ds.map(translate, num_parallel_calls=tf.data.AUTOTUNE)
```
TensorFlow's random ops (`tf.random.*`, `tf.image.random_*`, `tf.image.stateless_random_*` with a
per-element seed, Keras `Random*` layers) draw a new value for every element.

Where the constant was meant to pair two random ops (`seed = np.random.randint(1000)`, then
`random_flip_left_right(image, seed=seed)` and `random_flip_left_right(mask, seed=seed)`), the ops
pair only while the map runs one element at a time: with `num_parallel_calls` each stateful op
draws from its own stream in the order the calls happen to run, and images and masks come apart.
Give each element one seed (`Dataset.zip((ds, tf.data.Dataset.random(seed=1).batch(2)))`) and use
`tf.image.stateless_random_flip_left_right(image, seed)` on both.

## Fix safety
No automatic fix: the TensorFlow op to use depends on the distribution and shapes.

## References
- https://www.tensorflow.org/guide/function#python_side_effects
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#map
- https://www.tensorflow.org/guide/random_numbers
"""
    VALID = (
        # TensorFlow's random op: a new value per element
        """
        import tensorflow as tf
        ds = tf.data.Dataset.range(10).map(lambda x: tf.cast(x, tf.float32) + tf.random.uniform([]))
        """,
        # NumPy randomness inside the Python function of a numpy_function runs per element
        """
        import numpy as np
        import tensorflow as tf

        def np_augment(x):
            return np.fliplr(x) if np.random.rand() < 0.5 else x

        ds = tf.data.TFRecordDataset('a').map(lambda x: tf.numpy_function(np_augment, [x], tf.uint8))
        """,
        """
        import numpy as np
        import tensorflow as tf
        ds = tf.data.Dataset.range(4).map(
            lambda x: tf.numpy_function(lambda: np.random.normal(0, 0.05, (8,)).astype('float32'), [], tf.float32))
        """,
        # a seed picked once while tracing, for a TensorFlow op that draws per element
        """
        import numpy as np
        import tensorflow as tf
        ds = tf.data.Dataset.range(10).map(
            lambda x: tf.random.uniform([], seed=np.random.randint(1000)), num_parallel_calls=tf.data.AUTOTUNE)
        """,
        # the same pairing seed on a serial map: the two ops stay in step
        """
        import numpy as np
        import tensorflow as tf

        def augment(image, mask):
            seed = np.random.randint(1000)
            image = tf.image.random_flip_left_right(image, seed=seed)
            mask = tf.image.random_flip_left_right(mask, seed=seed)
            return image, mask

        ds = tf.data.Dataset.zip((images, masks)).map(augment)
        """,
        # the same, the seed handed to a helper that uses it only as `seed=` (two hands augmented alike)
        """
        import random
        import tensorflow as tf

        def transform(image, seed):
            image = tf.image.random_brightness(image, 0.2, seed=seed)
            return tf.image.random_flip_left_right(image, seed=seed)

        def parse(left, right):
            seed = random.randint(0, 10000)
            return transform(left, seed), transform(right, seed)

        ds = tf.data.Dataset.zip((lefts, rights)).map(parse)
        """,
        # NumPy randomness outside any dataset function; pandas `.map`; Python's `map`
        """
        import random
        import numpy as np
        import pandas as pd
        import tensorflow as tf
        x = np.random.rand(100, 4).astype('float32')
        s = pd.Series([1, 2]).map(lambda v: v + np.random.rand())
        values = list(map(lambda v: v * random.random(), [1, 2]))
        ds = tf.data.Dataset.from_tensor_slices(x).batch(8)
        """,
    )
    INVALID = (
        # one constant seeding the image's and the mask's flip, under parallel calls
        Invalid(
            """
            import numpy as np
            import tensorflow as tf

            def augment(image, mask):
                seed = np.random.randint(1000)
                image = tf.image.random_flip_left_right(image, seed=seed)
                mask = tf.image.random_flip_left_right(mask, seed=seed)
                return image, mask

            ds = pairs.map(augment, num_parallel_calls=tf.data.AUTOTUNE)
            """,
            line=5, column=12, end_column=29,
            message="`np.random.randint` in the `map` function runs once, while tf.data traces it: `seed` is "
                    "one constant that seeds 2 random ops to pair them",
        ),
        # through a helper, under parallel calls
        Invalid(
            """
            import random
            import tensorflow as tf

            def transform(image, seed):
                return tf.image.random_flip_left_right(image, seed=seed)

            def parse(left, right):
                seed = random.randint(0, 10000)
                return transform(left, seed), transform(right, seed=seed)

            ds = pairs.map(parse, num_parallel_calls=tf.data.AUTOTUNE)
            """,
            line=8, column=12, end_column=26,
            message="`random.randint` in the `map` function runs once, while tf.data traces it: `seed` is "
                    "one constant that seeds 2 random ops to pair them",
        ),
        # a helper that also computes with it: the value itself is frozen
        Invalid(
            """
            import random
            import tensorflow as tf

            def shift(image, amount):
                image = tf.image.random_flip_left_right(image, seed=amount)
                return tf.roll(image, amount, axis=0)

            def parse(left, right):
                amount = random.randint(0, 10)
                return shift(left, amount), shift(right, amount)

            ds = tf.data.Dataset.zip((lefts, rights)).map(parse)
            """,
            line=9, column=14, end_column=28,
            message="`random.randint` in the `map` function runs once, while tf.data traces it: every element gets the same value",
        ),
        Invalid(
            """
            import numpy as np
            import tensorflow as tf

            def jitter(x):
                return x + np.random.normal()

            def make(files, training):
                ds = tf.data.TFRecordDataset(files)
                if training:
                    ds = ds.map(jitter)
                return ds.cache()
            """,
            line=5, column=16, end_column=32,
            message="`np.random.normal` in the `map` function runs once, while tf.data traces it",
        ),
        Invalid(
            """
            import random
            import tensorflow as tf
            ds = tf.data.Dataset.range(100).map(lambda x: x + random.randint(0, 3), num_parallel_calls=8)
            """,
            line=3, column=51, end_column=65,
            message="`random.randint` in the `map` function runs once",
        ),
        # a helper the mapped function calls is traced with it
        Invalid(
            """
            import numpy as np
            import tensorflow as tf

            def translate(image):
                offset = np.random.rand(2) * 20
                return tf.roll(image, tf.cast(offset, tf.int32), axis=[0, 1])

            def load(path):
                return translate(tf.io.decode_png(tf.io.read_file(path)))

            ds = tf.data.Dataset.list_files('*.png').map(load, num_parallel_calls=tf.data.AUTOTUNE)
            """,
            line=5, column=14, end_column=28,
            message="`np.random.rand` in the `map` function runs once, while tf.data traces it: every element gets the same value",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        for site, call, node in ctx.model.calls_in_dataset_functions("trace_time_randomness"):
            name = " ".join(ctx.model.node_code(call.func).split())
            pairing = _pairing_seed(ctx.model, call) if node is call.func else None
            if pairing is not None:
                if site.op.arg("num_parallel_calls", 1) is None:
                    continue  # a serial map keeps the ops it seeds alike in step: a deliberate seed
                seed, count = pairing
                ctx.report(
                    node,
                    f"`{name}` in the `{site.op.name}` function runs once, while tf.data traces it: `{seed}` is "
                    f"one constant that seeds {count} random ops to pair them (an image and its mask); with "
                    "`num_parallel_calls` each stateful op draws from its own stream in whatever order the "
                    "calls run, so the pairs come apart; draw one seed per element (a zipped "
                    "`Dataset.random()`, or `tf.random.Generator.make_seeds`) and give it to the "
                    "`tf.image.stateless_random_*` ops",
                )
                continue
            ctx.report(
                node,
                f"`{name}` in the `{site.op.name}` function runs once, while tf.data traces it: every "
                "element gets the same value; draw with `tf.random` ops instead",
            )
