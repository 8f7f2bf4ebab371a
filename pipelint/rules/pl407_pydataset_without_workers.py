from __future__ import annotations

import libcst as cst

from pipelint.model import TRAINING_METHODS, PipelineModel, find_arg, literal_int
from pipelint.rules.base import At, Invalid, Rule, RuleContext, speed



def _workers_state(call: cst.Call) -> str:
    """'parallel' (workers > 1 or an expression), 'one' (a literal <= 1), 'single' (absent),
    'forwarded' (`**kwargs` may carry it)."""
    arg = find_arg(call, "workers", 0)
    if arg is not None:
        value = literal_int(arg.value)
        return "one" if value is not None and value <= 1 else "parallel"
    if any(a.star == "**" for a in call.args):
        return "forwarded"
    return "single"


_KERAS2_TRAINING = frozenset({"fit", "fit_generator"})


class PyDatasetWithoutWorkers(Rule):
    code = "PL407"
    summary = "A `keras.utils.PyDataset` that never sets `workers`, so batches load one at a time."
    fixable = None
    # In Keras 2 the finding is on a training call of a module that may only import the class:
    # `fit_generator(...)`, or an instance made there of the usual `DataGenerator`. (Not every `.fit`:
    # that would parse most of a library for nothing.)
    triggers = ("PyDataset", "Sequence", "fit_generator", "DataGenerator")
    docs = """\
## What it does
In a file whose target is Keras 3 (see `target-version`; the default), flags a subclass of `keras.utils.PyDataset` (or `keras.utils.Sequence`, its Keras 3 alias) that
loads with a single worker:
- on the class, when its `__init__` cannot receive `workers` (it does not pass `workers=` to
  `super().__init__(...)`, passes `workers=1`, or never calls it);
- on each construction in the module that omits `workers=`, when the class takes it from its
  callers (no `__init__` of its own, or one forwarding `**kwargs` to `super().__init__`). Such a
  class that the module never constructs is left alone: its callers decide.

In a file whose target is Keras 2 (TensorFlow before 2.16, `keras<3` or `tf-keras` declared, or
code written for it: `fit_generator`, `fit(workers=...)`), the `Sequence` takes no `workers`; `fit`
and `fit_generator` do, default 1. There the rule flags a `fit`/`fit_generator` call of the module
that trains on a `Sequence` class (this module's, or one imported from another project module)
without `workers=` (an explicit `workers=1` is left alone: a generator that is not thread-safe), and the fix it names is `fit(..., workers=N)`. The
message names what makes a batch costly to load where `__getitem__` shows it (`cv2.imread`,
`Image.open`, `np.load`...).
Keras 2's one worker is a background thread with a queue of batches (tf.data's `prefetch(1)` in
tf.keras from TensorFlow 2.2): loading overlaps training, one batch at a time, and a step waits only
where its batch takes longer to load than to train; the message says so.

## Why is this bad?
In Keras 3 `fit` no longer takes `workers`; the `PyDataset` carries it, and it defaults to 1.
With one worker Keras does not start its enqueuer: `__getitem__` is called one batch at a time
from a single Python thread (under the JAX and PyTorch backends, in the training loop itself), so
the accelerator waits for every batch's loading and augmentation. `workers=N` loads N batches
concurrently in threads, `use_multiprocessing=True` in processes (for CPU-bound Python code).

Impact: speed where `__getitem__` reads, decodes or transforms data, or calls code not in sight;
minor speed (shown with `--show-minor-speed`) where it only slices and stacks arrays already in
memory (builtins, NumPy): a batch costs microseconds there, and more workers save little.

## Example
```python
class Batches(keras.utils.PyDataset):
    def __init__(self, paths, batch_size):
        super().__init__()
        self.paths, self.batch_size = paths, batch_size
```

## Use instead
```python
class Batches(keras.utils.PyDataset):
    def __init__(self, paths, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.paths, self.batch_size = paths, batch_size

train = Batches(paths, 32, workers=4, use_multiprocessing=True)
```

## Fix safety
No automatic fix.

## References
- https://keras.io/api/utils/python_utils/#pydataset-class
- https://keras.io/guides/migrating_to_keras_3/
"""
    VALID = (
        """
        import keras

        class Batches(keras.utils.PyDataset):
            def __init__(self, paths, **kwargs):
                super().__init__(workers=4, use_multiprocessing=True, **kwargs)
                self.paths = paths
        """,
        # forwards **kwargs and the module's instantiation passes workers
        """
        from keras.utils import PyDataset

        class Batches(PyDataset):
            def __init__(self, paths, **kwargs):
                super().__init__(**kwargs)
                self.paths = paths

        train = Batches(files, workers=8)
        """,
        # forwards **kwargs and is instantiated elsewhere: the caller decides
        """
        import tensorflow as tf

        class Frames(tf.keras.utils.Sequence):
            def __init__(self, videos, **kwargs):
                super().__init__(**kwargs)
                self.videos = videos
        """,
        # workers from configuration
        """
        import keras

        class Batches(keras.utils.PyDataset):
            def __init__(self, cfg):
                super().__init__(workers=cfg.num_workers)
        """,
        # Keras 2 (tf_keras): Sequence has no workers, fit does
        """
        import tf_keras

        class Batches(tf_keras.utils.Sequence):
            def __init__(self, paths):
                self.paths = paths
        """,
        # Keras 2 written, no version declared: `fit` gets the workers
        """
        import tensorflow as tf

        class Batches(tf.keras.utils.Sequence):
            def __init__(self, paths):
                self.paths = paths

        model.fit(Batches(files), epochs=5, workers=4, use_multiprocessing=True)
        """,
        # not a Keras class
        """
        import tensorflow as tf
        from typing import Sequence

        class Rows(Sequence):
            def __init__(self):
                pass
        """,
    )
    INVALID = (
        # Keras 2 (TensorFlow 2.4): `fit` takes the workers, and this one leaves them at 1
        Invalid(
            """
            import tensorflow as tf

            class Batches(tf.keras.utils.Sequence):
                def __init__(self, paths):
                    self.paths = paths

            train = Batches(files)
            model.fit(train, epochs=5)
            """,
            line=8, column=7, end_column=10,
            message="`fit` loads `Batches` without `workers=` (the default is 1): in Keras 2 (target-version)",
            target="2.4",
        ),
        Invalid(
            """
            import keras

            class Batches(keras.utils.PyDataset):
                def __init__(self, paths, batch_size):
                    super().__init__()
                    self.paths, self.batch_size = paths, batch_size
            """,
            line=3, column=7, end_column=14,
            message="`Batches` never passes `workers` to `PyDataset.__init__`",
        ),
        Invalid(
            """
            from tensorflow.keras.utils import Sequence

            class DataGenerator(Sequence):
                def __init__(self, ids, labels, batch_size=32):
                    self.ids = ids
                def __len__(self):
                    return len(self.ids) // 32
            """,
            line=3, column=7, end_column=20,
            message="`DataGenerator` never passes `workers` to `PyDataset.__init__`",
        ),
        Invalid(
            """
            import keras

            class Tiles(keras.utils.PyDataset):
                def __len__(self):
                    return 10

            train = Tiles(max_queue_size=4)
            model.fit(train, epochs=3)
            """,
            line=7, column=9, end_column=14,
            message="`Tiles` is created without `workers=`",
        ),
        Invalid(
            """
            import tensorflow as tf

            class Clips(tf.keras.utils.PyDataset):
                def __init__(self, files, **kwargs):
                    super().__init__(**kwargs)
                    self.files = files

            if training:
                data = Clips(train_files)
            else:
                data = Clips(test_files, workers=1)
            """,
            line=9, column=12, end_column=17,
            message="`Clips` is created without `workers=`",
            also=(
                At(line=11, column=12, end_column=17,
                   message="`Clips` is created with `workers=1`: one worker loads batches one at a time"),
            ),
        ),
        Invalid(
            """
            import keras

            class Batches(keras.utils.PyDataset):
                def __init__(self, paths):
                    keras.utils.PyDataset.__init__(self, workers=1)
            """,
            line=3, column=7, end_column=14,
            message="`Batches` passes `workers=1` to `PyDataset.__init__`, so only one worker is used",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        model = ctx.model
        if not model.uses_keras3():
            if model.imports.imports_any("tensorflow", "keras", "tf_keras"):
                self._check_keras2(ctx)
            return
        if self._fit_takes_workers(model):
            return  # Keras 2 style: PL406 reports it
        # (The advice is Keras 3's: say which Keras the file is judged by, as the Keras 2 advice does.)
        target = model.target
        keras = (f"{target.describe_keras()} (the current release: the project declares no version)"
                 if not target.known else target.describe_keras())
        for cls in model.pydataset_classes():
            state = self._init_state(cls, model)
            if state == "parallel":
                continue
            if state in ("single", "one"):
                passes = ("passes `workers=1` to `PyDataset.__init__`, so only one worker is used"
                          if state == "one" else
                          "never passes `workers` to `PyDataset.__init__`, so it runs with one worker")
                ctx.report(cls.name,
                           f"`{cls.name.value}` {passes}: batches load one at a time in one Python thread while the "
                           f"model waits; in {keras} pass `workers=N` (and `use_multiprocessing=True` for CPU-bound "
                           f"loading) to `super().__init__`", impact=speed(not model.only_slices(cls)))
                continue
            # `workers` can be given at construction: judge each construction in this module.
            for call in self._instantiations(cls, model):
                if not self._call_sets_workers(call):
                    created = ("is created with `workers=1`: one worker"
                               if find_arg(call, "workers") is not None else
                               "is created without `workers=`: the `PyDataset` default of one worker")
                    ctx.report(call.func,
                               f"`{cls.name.value}` {created} loads batches one at a time in one Python thread while the "
                               f"model waits; in {keras} pass `workers=N` (and `use_multiprocessing=True` for "
                               f"CPU-bound loading)", impact=speed(not model.only_slices(cls)))

    def _check_keras2(self, ctx: RuleContext) -> None:
        """Keras 2 takes `workers` on `fit`/`fit_generator` (default 1), not on the `Sequence`: report
        a training call in this module that loads one of this module's `Sequence` classes with one
        worker. A class trained on elsewhere is left to that module."""
        model = ctx.model
        for site in model.calls:
            func = site.call.func
            if not isinstance(func, cst.Attribute) or func.attr.value not in _KERAS2_TRAINING:
                continue
            given = find_arg(site.call, "generator" if func.attr.value == "fit_generator" else "x", 0)
            found = model.sequence_class_of(given.value) if given is not None else None
            if found is None or find_arg(site.call, "workers") is not None or any(a.star == "**" for a in site.call.args):
                continue  # (an explicit `workers=1` is a choice: a generator that is not thread-safe)
            name, cls, home = found
            how = "without `workers=` (the default is 1)"
            loads = model.loading_call(cls, home)
            cost = f" (its `__getitem__` calls `{loads}`)" if loads else ""
            ctx.report(func.attr,
                       f"`{func.attr.value}` loads `{name}`{cost} {how}: in {model.target.describe_keras()} "
                       f"one background thread calls `__getitem__` a batch at a time, so every step whose "
                       f"batch takes longer to load than to train waits for it; pass `workers=N` (and "
                       f"`use_multiprocessing=True` for CPU-bound loading) to `{func.attr.value}`",
                       impact=speed(not model.only_slices(cls, home)))

    @staticmethod
    def _init_state(klass: cst.ClassDef, model: PipelineModel) -> str:
        super_calls = model.base_init_calls(klass)
        if super_calls is None:
            return "forwarded"  # PyDataset.__init__ itself takes workers=
        if model.sets_self_attribute(model.methods[klass]["__init__"], "workers", "_workers"):
            return "parallel"
        states = {_workers_state(call) for call in super_calls}
        for state in ("parallel", "forwarded", "single"):
            if state in states:
                return state
        return "one" if states else "single"  # no `super().__init__` call at all: the default

    @staticmethod
    def _instantiations(klass: cst.ClassDef, model: PipelineModel) -> list[cst.Call]:
        calls: list[cst.Call] = []
        for site in model.calls:
            func = site.call.func
            if isinstance(func, cst.Name) and func.value == klass.name.value and site.call not in calls:
                calls.append(site.call)
        return calls

    @staticmethod
    def _call_sets_workers(call: cst.Call) -> bool:
        if any(a.star == "**" for a in call.args):
            return True
        arg = find_arg(call, "workers")
        if arg is None:
            return False
        value = literal_int(arg.value)
        return value is None or value > 1

    @staticmethod
    def _fit_takes_workers(model: PipelineModel) -> bool:
        for site in model.calls:
            func = site.call.func
            if isinstance(func, cst.Attribute) and func.attr.value in TRAINING_METHODS \
                    and find_arg(site.call, "workers") is not None:
                return True
        return False
