from __future__ import annotations

import re

import libcst as cst

from pipelint.diagnostics import Impact
from pipelint.model import SMALL_RUN_IMAGES
from pipelint.model.syntax import ancestors, find_arg, innermost, is_false, is_none, nodes_of
from pipelint.model.values import ObjectValue
from pipelint.rules.base import At, Invalid, Rule, RuleContext

# Canonical qualified names end in `.ImageDataGenerator` under one of these roots:
# `keras.preprocessing.image` (also `tf.keras...`, `tf_keras...`), `keras.legacy.preprocessing.image`
# (`keras.src.legacy...`) and the standalone `keras_preprocessing.image` of Keras 2.
_ROOTS = ("keras", "keras_preprocessing")
# The methods that turn a generator into batches: the generator matters only if their result is used.
_FLOWS = frozenset({"flow", "flow_from_directory", "flow_from_dataframe"})
# The flows that read and decode image files in Python (`flow` slices arrays already in memory).
_DECODING_FLOWS = frozenset({"flow_from_directory", "flow_from_dataframe"})


def _flows(model, construction: cst.Call, names: frozenset[str] = _FLOWS, unknown: bool = False) -> list[cst.Call]:
    """The calls of `names` on the generator this call makes, and, with `unknown`, on generators
    the module does not know (a parameter: `def load(generator, df): generator.flow_from_dataframe(...)`)."""
    found = []
    for site in model.calls:
        func = site.call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in names:
            continue
        if func.value is construction or (isinstance(site.receiver, ObjectValue) and site.receiver.node is construction) \
                or unknown and not isinstance(site.receiver, ObjectValue) and not isinstance(func.value, cst.Call):
            found.append(site.call)
    return found


def _only_arrays(model, construction: cst.Call) -> bool:
    """Does the generator only slice arrays in memory: `flow(x, y)` its only flow (or, where it
    has none in sight, the only flow of the generators the module is handed: `def
    evaluate_model(datagen, x, y): ... datagen.flow(x, y)`)?"""
    flows = _flows(model, construction) or _flows(model, construction, unknown=True)
    return bool(flows) and all(isinstance(flow.func, cst.Attribute) and flow.func.attr.value == "flow"
                               for flow in flows)


def _decodes_files(model, construction: cst.Call) -> bool:
    """Is a flow that decodes image files called on the generator this call makes, or on a
    generator the module does not know (the module's generators are made for it)?"""
    return bool(_flows(model, construction, _DECODING_FLOWS, unknown=True))


# Constructor arguments that transform each image in Python (SciPy/NumPy affine transforms, the
# user's own function): costly even on arrays in memory.
_AUGMENTING = frozenset({"rotation_range", "width_shift_range", "height_shift_range", "brightness_range",
                         "shear_range", "zoom_range", "channel_shift_range", "horizontal_flip", "vertical_flip",
                         "preprocessing_function"})


# Constructor arguments that scale or normalize every image (a fixed transform, not an augmentation).
_SCALING = frozenset({"rescale", "preprocessing_function", "featurewise_center", "samplewise_center",
                      "featurewise_std_normalization", "samplewise_std_normalization", "zca_whitening"})


def _keywords(model, construction: cst.Call) -> list[tuple[str, cst.BaseExpression]] | None:
    """The constructor's keyword arguments, with those of a `**params` splat whose dict the
    function (or module) writes once in sight (`datagenerator_kwargs = dict(rescale=1/255,
    validation_split=0.2)`); None where a splat's keys are out of sight."""
    found = []
    for arg in construction.args:
        if arg.keyword is not None:
            found.append((arg.keyword.value, arg.value))
        elif arg.star == "**":
            spelled = _spelled_dict(model, construction, arg.value)
            if spelled is None:
                return None
            found.extend(spelled)
    return found


def _spelled_dict(model, where: cst.CSTNode, value: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]] | None:
    """The (key, value) pairs of `dict(a=1, b=2)` or `{"a": 1}`, directly or through a name bound
    once in the function around `where` (or the module, outside any function)."""
    if isinstance(value, cst.Name):
        scope = innermost(model.module, where, cst.FunctionDef, model.module)
        bound = [assign.value for assign in nodes_of(scope, cst.Assign)
                 if any(isinstance(t.target, cst.Name) and t.target.value == value.value for t in assign.targets)]
        if len(bound) != 1 or _mutated(scope, value.value):
            return None
        value = bound[0]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict" \
            and all(arg.keyword is not None for arg in value.args):
        return [(arg.keyword.value, arg.value) for arg in value.args]
    if isinstance(value, cst.Dict) and all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                                           for e in value.elements):
        return [(e.key.evaluated_value, e.value) for e in value.elements]
    return None


def _mutated(scope: cst.CSTNode, name: str) -> bool:
    """Is the dict bound to `name` changed after it is written (`params["zoom_range"] = 0.2`,
    `params.update(...)`)?"""
    for node in nodes_of(scope, cst.Subscript):
        if isinstance(node.value, cst.Name) and node.value.value == name:
            return True
    return any(isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)
               and call.func.value.value == name and call.func.attr.value in ("update", "setdefault", "__setitem__")
               for call in nodes_of(scope, cst.Call))


def _scales(model, construction: cst.Call) -> bool:
    keywords = _keywords(model, construction) or []
    return any(keyword in _SCALING and not is_false(value) and not is_none(value) for keyword, value in keywords)


def _augments(model, construction: cst.Call) -> bool:
    """Does the generator transform each image at random: an augmenting argument, or a `**params`
    that may hold one (`ImageDataGenerator(rescale=1/255, **aug_params)`) where its dict is out of
    sight?"""
    keywords = _keywords(model, construction)
    if keywords is None:
        return True
    for keyword, value in keywords:
        if keyword in _AUGMENTING and not is_false(value) and not is_none(value) \
                and not (isinstance(value, (cst.Integer, cst.Float)) and float(value.value) == 0) \
                and not (keyword == "preprocessing_function" and _fixed_preprocessing(model, value)):
            return True
    return False


def _fixed_preprocessing(model, function: cst.BaseExpression) -> bool:
    """`preprocessing_function=vgg16.preprocess_input`: a Keras application's fixed scaling, the
    same for every image (a transform, not an augmentation)."""
    name = model.qualified_name(function) or ""
    return name.startswith("keras.applications.") and name.endswith(".preprocess_input")


# `fit_generator(gen, workers=self.n_workers, ...)` in a module that imports the generator's.
_WORKERS_GIVEN = re.compile(r"\b(?:fit|fit_generator|evaluate_generator|predict_generator)\s*\((?:[^()]|\([^()]*\))*"
                            r"\bworkers\s*=\s*(?!\s*[01]\b)\w")


def _fit_given_workers(model) -> bool:
    """Does the module hand Keras 2's `fit`/`evaluate`/`predict` (or their `_generator` forms)
    more than one loading worker, or, where it trains nothing itself, does a project module that
    imports it (the one that trains on its generators)?"""
    importers_say = getattr(model.project, "importers_say", None)
    if importers_say is not None and not model.trains_somewhere() and importers_say(_WORKERS_GIVEN):
        return True
    for site in model.calls:
        func = site.call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _LOADING_METHODS:
            workers = find_arg(site.call, "workers")
            if workers is not None and not (isinstance(workers.value, cst.Integer) and workers.value.value in ("0", "1")):
                return True
    return False


_LOADING_METHODS = frozenset({"fit", "fit_generator", "evaluate", "evaluate_generator", "predict",
                              "predict_generator"})


def _only_writes_to_disk(model, flows: list[cst.Call]) -> bool:
    """Is every one of a generator's `flows` given `save_to_dir=` and handed to no training call:
    augmented copies written to disk once (offline augmentation), not batches a model waits for?"""
    if not flows or any(find_arg(flow, "save_to_dir") is None for flow in flows):
        return False
    trained = {name.value for site in model.calls
               if isinstance(site.call.func, cst.Attribute) and site.call.func.attr.value in _LOADING_METHODS
               for arg in site.call.args for name in nodes_of(arg.value, cst.Name)}
    for flow in flows:
        around = ancestors(model.module, flow) or []
        parent = around[-2] if len(around) > 1 else None
        caller = around[-3] if len(around) > 2 else None
        inline = isinstance(parent, cst.Arg) and isinstance(caller, cst.Call) and isinstance(caller.func, cst.Attribute) \
            and caller.func.attr.value in _LOADING_METHODS
        if inline or isinstance(parent, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value in trained for t in parent.targets):
            return False  # (a flow handed to `fit` saves its copies while training)
    return True


def _only_flowed_into_unread_attributes(model, construction: cst.Call) -> bool:
    """`self.train_datagen = ImageDataGenerator(...)` read only to make flows that are stored on
    attributes of `self` nothing reads (`self.train_generator = self.train_datagen.flow(...)`, then
    `fit` on the arrays): no batch is ever loaded."""
    attr = model.self_attribute_of(construction)
    if attr is None:
        return False
    # (the instance's attributes are not followed into the flows made on them: found by their text)
    flows = [site.call for site in model.calls if isinstance(site.call.func, cst.Attribute)
             and site.call.func.attr.value in _FLOWS and isinstance(site.call.func.value, cst.Attribute)
             and site.call.func.value.attr.value == attr]
    receivers = {id(flow.func.value) for flow in flows}
    return bool(flows) and all(id(read) in receivers for read in model.attribute_reads(attr)) \
        and all(model.stored_on_self_unread(flow) for flow in flows)


def _bound_to(model, flow: cst.Call) -> cst.Name | None:
    """The plain name a flow is bound to where it is made (`train_gen = datagen.flow(...)`)."""
    around = ancestors(model.module, flow) or []
    parent = around[-2] if len(around) > 1 else None
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        return parent.targets[0].target
    return None


def _pulled_by_own_loop(model, flows: list[cst.Call]) -> bool:
    """Are the batches pulled by the module's own loop (`x, y = next(train_gen)` into a session's
    `feed_dict`), no Keras training or evaluation call in it: every flow bound to a name that
    `next(...)` reads? Then `fit`'s workers are no advice."""
    return not any(isinstance(site.call.func, cst.Attribute) and site.call.func.attr.value in _LOADING_METHODS
                   for site in model.calls) and _pulled_by_next(model, flows)


def _pulled_by_next(model, flows: list[cst.Call]) -> bool:
    """Is every flow bound to a name that `next(...)` reads?"""
    pulled = {arg.value.value for site in model.calls
              if isinstance(site.call.func, cst.Name) and site.call.func.value == "next"
              for arg in site.call.args[:1] if isinstance(arg.value, cst.Name)}
    bound = [_bound_to(model, flow) for flow in flows]
    return bool(flows) and all(name is not None and name.value in pulled for name in bound)


# An `ImageDataGenerator`'s methods that transform one image the caller holds: no batches loaded.
_TRANSFORMS = frozenset({"random_transform", "apply_transform", "get_random_transform", "standardize"})


def _only_transforms_images(model) -> bool:
    """Does the module use its generators only to transform images it holds itself
    (`augmenter.random_transform(image)` in an offline oversampling pass): no flow anywhere in
    it, and a transform method called? Nothing loads batches; the message's claim would be false."""
    methods = {site.call.func.attr.value for site in model.calls if isinstance(site.call.func, cst.Attribute)}
    return not (methods & _FLOWS) and bool(methods & _TRANSFORMS)


def _only_calibrates(model, flows: list[cst.Call]) -> bool:
    """Are the flows read only inside the functions the module hands a TFLite converter as its
    `representative_dataset` (`next(train_data)` there): calibration samples, never trained on?"""
    functions = model.calibration_functions()
    if not functions or not flows:
        return False
    bound = [_bound_to(model, flow) for flow in flows]
    if None in bound:
        return False
    names, bindings = {name.value for name in bound}, {id(name) for name in bound}
    for name in nodes_of(model.module, cst.Name):
        if name.value in names and id(name) not in bindings and not any(
                isinstance(node, cst.FunctionDef) and node.name.value in functions
                for node in ancestors(model.module, name) or []):
            return False
    return True


def _yielded_by_generator_function(model, flows: list[cst.Call]) -> bool:
    """Do the flows reach training through a Python generator function: made inside one that
    yields (`for img, mask in zip(images, masks): yield ...`)? Keras cannot load such a generator
    with more than one worker (it is not thread-safe)."""
    for flow in flows:
        for node in ancestors(model.module, flow) or []:
            if isinstance(node, cst.FunctionDef) and nodes_of(node, cst.Yield):
                return True
    return False


def _thread_safe(advice: str) -> str:
    """The workers advice for batches yielded by a Python generator function."""
    return advice.replace("load batches in parallel with", "make the generator function a `keras.utils.Sequence` "
                          "(a Python generator is not thread-safe) and load that in parallel with")


def _advice(target, augments: bool = True, standalone: bool = False, in_memory: bool = False,
            scales: bool = True, own_loop: bool = False) -> str:
    """What replaces it on the target's release: the stable names from TensorFlow 2.6, the
    experimental ones from 2.3, a tf.data pipeline before; on Keras 2, also `fit`'s workers.
    Standalone Keras before TensorFlow 2.3 trains on no tf.data dataset: its workers alone. Arrays
    already in memory (`flow(x, y)`) are sliced, not listed from a directory. Batches pulled by
    the module's own loop (`own_loop`) are told of tf.data alone: no `fit` takes workers there."""
    if own_loop:
        if target.is_before((1, 4)):
            return (f"on {target.describe_tensorflow()} prepare the next batches in background threads while "
                    f"the step runs (a `queue.Queue` filled by `threading.Thread`s)")
        if target.is_before((2, 3)) or standalone and target.tensorflow is None:
            random = " and `tf.image` random ops" if augments else ""
            source = "`Dataset.from_tensor_slices((x, y))`" if in_memory else \
                "`Dataset.list_files`, `tf.image.decode_image`"
            on = f"on {target.describe_tensorflow()} " if target.tensorflow is not None else ""
            return f"{on}build a tf.data pipeline instead ({source}{random} in a parallel `map`) and iterate over it"
    workers = _KERAS2_WORKERS if target.keras_major == 2 and not own_loop else ""
    if standalone and target.keras_major == 2 and target.tensorflow is None:
        # (standalone Keras of an unnamed release: `fit` takes generators and workers only from
        # 2.3; `fit_generator(workers=N)` runs on every Keras 2)
        workers = _STANDALONE_KERAS2_WORKERS
    # (tf.data came with TensorFlow 1.4; the multi-backend Keras of TensorFlow 1.x and 2.0-2.2
    # takes Python generators and Sequences only)
    if target.is_before((1, 4)) or standalone and target.is_before((2, 3)):
        return f"on {target.describe_tensorflow()} load batches in parallel with `fit_generator(..., workers=N)`" \
            + _keras1_workers(target)
    random = " and `tf.image` random ops" if augments else ""
    if target.is_before((2, 3)):
        if target.is_before((2, 1)) or target.tensorflow is None:
            # (TensorFlow 2.1 moved generators to `fit`; before, `fit_generator` trains on them)
            workers = _OLD_KERAS2_WORKERS
        source = "`Dataset.from_tensor_slices((x, y))`" if in_memory else \
            "`Dataset.list_files`, `tf.image.decode_image`"
        return (f"on {target.describe_tensorflow()} build a tf.data pipeline instead ({source}{random} in a "
                f"parallel `map`){workers}")
    # (a generator that only scales is told where its scaling goes, not of random layers; one
    # that does neither, of the loader alone)
    if augments:
        experimental_layers = ("the preprocessing layers of `tf.keras.layers.experimental.preprocessing` "
                               "(`RandomFlip`, `RandomRotation`, ...)")
        layers = "preprocessing layers (`RandomFlip`, `RandomRotation`, ...)"
    elif scales:
        experimental_layers = layers = "its scaling (`Rescaling`, `preprocess_input`)"
    else:
        experimental_layers = layers = ""
    placed = " in the model or a parallel `map`" if layers else ""
    if in_memory:
        loader = experimental_loader = "`tf.data.Dataset.from_tensor_slices((x, y))`"
    else:
        loader = "`keras.utils.image_dataset_from_directory`"
        experimental_loader = "`tf.keras.preprocessing.image_dataset_from_directory`"
    current = f"{loader} with {layers}{placed}" if layers else loader
    experimental = f"{experimental_loader} with {experimental_layers}" if layers else experimental_loader
    if target.is_before((2, 6)):
        return f"on {target.describe_tensorflow()} use {experimental}{placed}{workers}"
    if target.keras_major == 2 and not target.is_from((2, 6)):
        return f"use {current} (TensorFlow 2.6 and later; from 2.3: {experimental}){workers}"
    return f"use {current}{workers}"


# Keras 1's own spellings (`nb_epoch=`, `Convolution2D(32, 3, 3)`), which the target's source may name.
_KERAS1_MARKS = ("nb_epoch", "samples_per_epoch", "nb_val_samples", "max_q_size", "nb_worker", "pickle_safe",
                 "border_mode", "Convolution2D")


def _keras1_workers(target) -> str:
    """Keras 1's `fit_generator` takes `nb_worker` (Keras 2 up to 2.2 still reads it as `workers`):
    said where the code is written in Keras 1's API and no release is declared."""
    if target.tensorflow is None and any(mark in target.source for mark in _KERAS1_MARKS):
        return " (`nb_worker=N` on Keras 1)"
    return ""


def _standalone(model, construction: cst.Call) -> bool:
    """Is the generator the multi-backend `keras` package's (`from keras.preprocessing.image
    import ...`), not TensorFlow's `tf.keras`?"""
    root = construction.func
    while isinstance(root, cst.Attribute):
        root = root.value
    imported = model.imports.names.get(root.value, "") if isinstance(root, cst.Name) else ""
    return imported.split(".", 1)[0] in _ROOTS


# Keras 2 loads a generator's batches in parallel when `fit` is asked to (Keras 3 has no workers here).
_KERAS2_WORKERS = "; or, on Keras 2, load batches in parallel with `fit(..., workers=N, use_multiprocessing=True)`"
_OLD_KERAS2_WORKERS = "; or load batches in parallel with `fit_generator(..., workers=N)`"
_STANDALONE_KERAS2_WORKERS = ("; or, on Keras 2, load batches in parallel with `fit_generator(..., workers=N)` "
                              "(`fit(..., workers=N)` from Keras 2.3)")


class ImageDataGeneratorDeprecated(Rule):
    code = "PL403"
    summary = "`ImageDataGenerator` is deprecated; load with `image_dataset_from_directory` and augment with layers."
    fixable = None
    triggers = ("ImageDataGenerator",)
    docs = """\
## What it does
Flags constructions of `keras.preprocessing.image.ImageDataGenerator` (whatever the import style:
`tf.keras.preprocessing.image`, `from keras.preprocessing.image import ImageDataGenerator`, the
standalone `keras_preprocessing` package).

## Why is this bad?
`ImageDataGenerator` is deprecated ("not recommended for new code"); in Keras 3 it survives only
as a legacy API. It decodes, resizes and augments images in Python with NumPy/PIL, one batch at a
time, holding the GIL: the accelerator waits on it, and it cannot be parallelized, cached or
prefetched the way a `tf.data` pipeline can. `keras.utils.image_dataset_from_directory` returns a
batched, shuffled, prefetched `tf.data.Dataset`, and augmentation belongs in preprocessing layers
(`keras.layers.RandomFlip`, `RandomRotation`, `RandomZoom`, `Rescaling`), either in the model
(run on the accelerator) or in a parallel `Dataset.map`.

Impact: speed where the generator reads image files (`flow_from_directory`,
`flow_from_dataframe`) or transforms each image in Python (`rotation_range`, `zoom_range`,
`horizontal_flip`, a `preprocessing_function` other than a Keras application's fixed
`preprocess_input`...): Keras 3 keeps it only as a legacy API whose batches load one at a time,
with no `workers`, and Keras 2's `fit` loads them in one worker unless given `workers=N`.
Elsewhere housekeeping (shown with `--show-housekeeping`): a `flow` that only rescales arrays
already in memory costs little, and so does a Keras 2 `fit(workers=N)` that decodes in parallel (in this module,
or, for a module that trains nothing, in one that imports it: `fit_generator(..., workers=workers)`). A generator whose
batches are only looked at (`next(flow)`, `flow[0]` where it was made, `flow.class_indices` anywhere) is not
reported, nor one a helper returns into names its callers never read (a template whose flows are commented
out), nor one kept on `self` whose flows are kept on attributes nothing reads (`fit` then trains on the
arrays), nor one bound to a name the script binds again before training (the preview's `train_datagen`, then the
training one's); one whose batches
are only evaluated or predicted on (`evaluate`, `predict`, here or through a function that does only that
with them, `gen.reset()` before it included, or after a helper of the module returns them to callers that
unpack them: `train_gen, val_gen = make_generators()`, or kept on `self` only for that: a pipeline's
evaluation component's `model.evaluate(self.valid_generator)`) is minor speed (shown with `--show-minor-speed`): loading them costs no training step (`validation_data` does: it loads every epoch). So is one
whose batches are only the `validation_data` of a `fit` (or are that and evaluated; here, or in the project
modules that unpack the function of this module returning them: `train_gen, val_gen = get_generators()`), unless
`validation_steps` is at least half of `steps_per_epoch`: its loading is a small part of each epoch's, and
the training generator's finding says what to change for both; and one pulled by `next()` in a module that
predicts and trains nothing (test-time augmentation), or read there batch by batch (`test_generator[i]`
into `predict`, or into a PyTorch model under `no_grad()`: an evaluation script), and any made in a
module that scores a model, trains nothing, and no project module imports; and, in a notebook whose saved outputs show Keras
found fewer than 2,500 images, any of them (an epoch's loading takes seconds), and likewise one whose
training calls write a run of fewer than 50,000 images (`steps_per_epoch=40` of batches of 4 for 5
epochs: 800). A generator that only scales is told where its scaling goes (`Rescaling`, `preprocess_input`),
not of random layers. The replacement named follows the target:
the stable names from TensorFlow 2.6, the `experimental` ones from 2.3, a tf.data pipeline before, and on
Keras 2 also `fit(workers=N, use_multiprocessing=True)` (`fit_generator(..., workers=N)` before TensorFlow
2.1; that alone before TensorFlow 1.4, which brought tf.data, and with the standalone, multi-backend
Keras of TensorFlow before 2.3, which trains on no tf.data dataset; standalone Keras 2 of an unnamed
release is told of `fit_generator(..., workers=N)`, since `fit` took generators only from 2.3; code in
Keras 1's API, `nb_epoch=` or `Convolution2D(32, 3, 3)`, also of Keras 1's `nb_worker=N`). Arrays already in memory
(`flow(x, y)`, also where a helper the generator is handed makes the flow) are told of
`Dataset.from_tensor_slices`, not of a directory loader. Batches the module's own loop pulls (`next(train_gen)`
into a session's `feed_dict`, no Keras training call in the module) are told of a tf.data pipeline alone: no
`fit` is there to take workers. Flows made inside a generator function (`zip(images, masks)`, then `yield`) reach
training as a plain Python generator, which Keras cannot load with more than one worker: the advice makes it a
`keras.utils.Sequence` first. A loop over one flow that breaks after its first batch is a look, and so
is one that trains on nothing and reads a few batches: it breaks once a counter reaches a small literal
(`i += 1; if i >= 9: break`, the preview of augmented copies), or it pulls `next()` in `for i in range(9)`
(at most 16 rounds; any `range` in a module that shows images with `imshow` and neither trains nor writes
images: a figure of augmented copies). Flows read
only inside the function handed to a TFLite converter as its `representative_dataset` calibrate a quantized
model, and are not reported either. A module that uses its generators only to transform images it holds (`augmenter.random_transform(image)`, no flow anywhere in it) loads no batches, and is
not reported. The message calls it deprecated only where
the target's TensorFlow does (its API docs mark `tf.keras.preprocessing` so from 2.11 on).

## Example
```python
datagen = ImageDataGenerator(rescale=1 / 255, horizontal_flip=True)
train = datagen.flow_from_directory("data/train", target_size=(224, 224), batch_size=32)
model.fit(train, epochs=10)
```

## Use instead
```python
train = keras.utils.image_dataset_from_directory("data/train", image_size=(224, 224), batch_size=32)
augment = keras.Sequential([keras.layers.Rescaling(1 / 255), keras.layers.RandomFlip("horizontal")])
train = train.map(lambda x, y: (augment(x, training=True), y), num_parallel_calls=tf.data.AUTOTUNE)
model.fit(train, epochs=10)
```

## Fix safety
No automatic fix.

## References
- https://www.tensorflow.org/api_docs/python/tf/keras/preprocessing/image/ImageDataGenerator
- https://keras.io/api/data_loading/image/
- https://www.tensorflow.org/tutorials/images/data_augmentation
- https://www.tensorflow.org/tutorials/load_data/images
"""
    VALID = (
        """
        import keras
        train = keras.utils.image_dataset_from_directory('data/train', image_size=(224, 224))
        """,
        # a user's own class with the same name
        """
        import tensorflow as tf

        class ImageDataGenerator:
            pass

        gen = ImageDataGenerator()
        """,
        # a third-party package that is not Keras
        """
        import tensorflow as tf
        from mylib.augment import ImageDataGenerator
        gen = ImageDataGenerator()
        """,
        # named, not constructed (an isinstance check)
        """
        from tensorflow.keras.preprocessing.image import ImageDataGenerator
        ok = isinstance(obj, ImageDataGenerator)
        """,
    )
    INVALID = (
        Invalid(
            """
            from tensorflow.keras.preprocessing.image import ImageDataGenerator
            datagen = ImageDataGenerator(rescale=1 / 255, horizontal_flip=True)
            train = datagen.flow_from_directory('data/train', target_size=(224, 224))
            """,
            line=2, column=11, end_column=29,
            message="`ImageDataGenerator` is deprecated and ",
        ),
        Invalid(
            """
            import tensorflow as tf

            def make_generators(training):
                if training:
                    return tf.keras.preprocessing.image.ImageDataGenerator(rotation_range=20)
                return tf.keras.preprocessing.image.ImageDataGenerator()
            """,
            line=5, column=16, end_column=63,
            message="`ImageDataGenerator` is deprecated and ",
            also=(
                At(line=6, column=12, end_column=59,
                   message="`ImageDataGenerator` is deprecated and "),
            ),
        ),
        Invalid(
            """
            import keras
            aug = keras.preprocessing.image.ImageDataGenerator(zoom_range=0.2).flow(x, y, batch_size=32)
            """,
            line=2, column=7, end_column=51,
            message="`ImageDataGenerator` is deprecated and ",
        ),
        Invalid(
            """
            from keras_preprocessing.image import ImageDataGenerator as IDG
            import keras
            gen = IDG(validation_split=0.2)
            """,
            line=3, column=7, end_column=10,
            message="`ImageDataGenerator` is deprecated and ",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        for site in ctx.model.calls:
            name = site.qualified_name
            if not name or not name.endswith(".ImageDataGenerator") or name.split(".", 1)[0] not in _ROOTS:
                continue
            flows = _flows(ctx.model, site.call)
            if ctx.model.only_looked_at(site.call, _FLOWS, neutral=frozenset({"fit"})) \
                    or _only_writes_to_disk(ctx.model, flows) or ctx.model.handed_only_to_lookers(site.call, _FLOWS) \
                    or _only_transforms_images(ctx.model) or _only_calibrates(ctx.model, flows) \
                    or _only_flowed_into_unread_attributes(ctx.model, site.call):
                continue  # (C1: a generator nothing trains or evaluates on is no migration worth doing)
            target = ctx.model.target
            augments = _augments(ctx.model, site.call)
            # Keras 2's `fit(workers=N)` loads its batches in parallel (one worker by default);
            # Keras 3's legacy copy has no workers.
            serial_work = (_decodes_files(ctx.model, site.call) or augments) and not (
                target.keras_major == 2 and _fit_given_workers(ctx.model))
            # (batches only evaluated or predicted on, after training: loading them costs no training
            # time; validation batches: a small part of an epoch's)
            # (or pulled by `next()` in a module that predicts and trains nothing: test-time augmentation)
            # (or read batch by batch, `test_generator[i]`, in such a module: an evaluation script)
            # (or made in a script that scores a model, trains nothing, and nothing imports)
            # (or kept on `self` only to be evaluated: a pipeline's evaluation component)
            # (or returned to the training script only as its `fit`'s `validation_data`)
            minor = ctx.model.off_training_flows(flows) or ctx.model.evaluation_script() or (
                bool(flows) and all(ctx.model.stored_on_self_only_evaluated(flow) for flow in flows)) or \
                ctx.model.validated_only_by_importers(flows) or (
                (_pulled_by_next(ctx.model, flows) or ctx.model.batches_only_read(flows))
                and ctx.model.runs_a_model() and not ctx.model.trains_somewhere())
            # (`steps_per_epoch=40` of batches of 4 for 5 epochs: 800 images, seconds of work)
            per_run = ctx.model.images_per_run(flows) if serial_work and not minor else None
            small = per_run is not None and per_run < SMALL_RUN_IMAGES
            impact = None if not serial_work else Impact.MINOR_SPEED if minor or small else Impact.SPEED
            # TensorFlow's docs mark `tf.keras.preprocessing` deprecated from 2.11 on (checked in the
            # 2.11-2.15 API docs); on an older target it is the current API, and says so.
            deprecated = "is deprecated and " if target.is_from((2, 11)) else ""
            work = "augments" if augments else "loads"
            advice = _advice(target, augments, _standalone(ctx.model, site.call), _only_arrays(ctx.model, site.call),
                             _scales(ctx.model, site.call), _pulled_by_own_loop(ctx.model, flows))
            if _yielded_by_generator_function(ctx.model, flows):
                advice = _thread_safe(advice)
            epoch = f" (minor here: the training run loads {per_run:,} images)" if small else ""
            ctx.report(site.call.func,
                       f"`ImageDataGenerator` {deprecated}{work} in Python one batch at a time; "
                       f"{advice}{epoch}",
                       impact=impact)
