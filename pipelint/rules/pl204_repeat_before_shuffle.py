from __future__ import annotations

from pipelint.diagnostics import Applicability, Severity
from pipelint.pipeline import Op, literal_int
from pipelint.rules.base import Invalid, Rule, RuleContext
from pipelint.rules.rewrite import swap_adjacent


def _repeats(op: Op) -> bool:
    """A `repeat` that really repeats: not `repeat(1)` or `repeat(0)`."""
    count = op.arg("count", 0)
    value = literal_int(count.value) if count is not None else None
    return value is None or value > 1 or value < 0


class RepeatBeforeShuffle(Rule):
    code = "PL204"
    name = "repeat-before-shuffle"
    severity = Severity.WARNING
    summary = "`shuffle()` after `repeat()` mixes epochs: some examples repeat before others are seen once."
    fixable = Applicability.UNSAFE
    docs = """\
## What it does
Flags a `shuffle()` that comes after a `repeat()` on the same dataset path (`repeat(1)` and
`repeat(0)` do not count).

## Why is this bad?
`repeat` before `shuffle` turns the epochs into one stream and the shuffle buffer mixes across
their boundaries: examples of the next epoch appear before every example of this one has been
seen, so some examples are seen twice before others once. The tf.data guide notes that
`shuffle` before `repeat` keeps epoch boundaries ("blurs the boundaries between epochs"
otherwise), which is what epoch-level metrics and callbacks assume.

## Example
```python
ds = tf.data.TFRecordDataset(files).repeat().shuffle(10_000).batch(32)
```

## Use instead
```python
ds = tf.data.TFRecordDataset(files).shuffle(10_000).repeat().batch(32)
```

## Fix safety
Unsafe: when written as `x.repeat(...).shuffle(...)` in one chain the fix swaps the two calls;
the order of elements changes (by design), and a slight pause at each epoch start can appear
while the shuffle buffer refills.

## References
- https://www.tensorflow.org/guide/data#training_workflows
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#repeat
- https://www.tensorflow.org/api_docs/python/tf/data/Dataset#shuffle
"""
    VALID = (
        "import tensorflow as tf\nds = tf.data.TFRecordDataset('a').shuffle(1000).repeat().batch(32)\n",
        # repeat(1) does not repeat
        "import tensorflow as tf\nds = tf.data.Dataset.range(10).repeat(1).shuffle(10)\n",
        # pandas/NumPy `repeat` and random.shuffle are not tf.data
        "import random\nimport numpy as np\nimport pandas as pd\nimport tensorflow as tf\nx = np.arange(3).repeat(2)\nrandom.shuffle(list(x))\ns = pd.Series([1]).repeat(3)\n",
        "import tensorflow as tf\nclass Loader:\n    def repeat(self):\n        return self\n    def shuffle(self, n):\n        return self\nLoader().repeat().shuffle(3)\n",
    )
    INVALID = (
        Invalid(
            "import tensorflow as tf\nds = tf.data.TFRecordDataset('a').repeat().shuffle(1000).batch(32)\n",
            "import tensorflow as tf\nds = tf.data.TFRecordDataset('a').shuffle(1000).repeat().batch(32)\n",
        ),
        Invalid(
            "import tensorflow as tf\n\ndef make(files, training):\n    ds = tf.data.TFRecordDataset(files).repeat(10)\n    if training:\n        ds = ds.map(parse).shuffle(2048)\n    return ds.batch(32)\n"
        ),
        Invalid(
            "import tensorflow_datasets as tfds\nds = tfds.load('mnist', split='train')\nds = ds.repeat()\nds = ds.shuffle(buffer_size=10000)\n"
        ),
        Invalid(
            "import keras\ntrain = keras.utils.image_dataset_from_directory('photos', batch_size=None)\ntrain = train.repeat(3).shuffle(1000, seed=1)\n",
            "import keras\ntrain = keras.utils.image_dataset_from_directory('photos', batch_size=None)\ntrain = train.shuffle(1000, seed=1).repeat(3)\n",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        for site in model.ops("shuffle"):
            shuffle = site.op
            repeat = next((op for path in site.prefixes for op in path.ops
                           if op.name == "repeat" and _repeats(op)), None)
            if repeat is None:
                continue
            fix = None
            if (shuffle.receiver is repeat.call
                    and all(path.ops and path.ops[-1] is repeat for path in site.prefixes)):
                fix = swap_adjacent(shuffle.call, Applicability.UNSAFE, model.module)
            ctx.report(
                shuffle.name_node,
                "`shuffle()` after `repeat()` mixes examples across epoch boundaries (some are seen "
                "twice before others once); shuffle before `repeat()`",
                fix,
            )
