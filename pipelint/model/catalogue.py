"""The catalogue: what tf.data, TFDS and Keras names mean, by canonical qualified name.

Pure data and name tests; no libcst. Every import style is first rewritten to one canonical
name (`canonical`), then looked up here.
"""
from __future__ import annotations

import builtins

from dataclasses import dataclass

# Prefix rewrites that make every import style land on one canonical qualified name.
_CANONICAL_PREFIXES = (
    ("tensorflow.compat.v2.", "tensorflow."),
    ("tensorflow.compat.v1.", "tensorflow."),
    ("tensorflow.python.keras.", "keras."),
    ("tensorflow.keras.", "keras."),
    ("tf_keras.", "keras."),
    ("keras.api.", "keras."),
    ("keras.src.", "keras."),
    ("tensorflow.data.experimental.AUTOTUNE", "tensorflow.data.AUTOTUNE"),
    ("keras.preprocessing.image_dataset_from_directory", "keras.utils.image_dataset_from_directory"),
    ("keras.preprocessing.text_dataset_from_directory", "keras.utils.text_dataset_from_directory"),
    ("keras.preprocessing.timeseries_dataset_from_array", "keras.utils.timeseries_dataset_from_array"),
    ("keras.utils.data_utils.", "keras.utils."),
)


def canonical(qualified_name: str) -> str:
    for old, new in _CANONICAL_PREFIXES:
        if qualified_name.startswith(old) or qualified_name + "." == old:
            qualified_name = new + qualified_name[len(old):]
    return qualified_name


# Constructors that return a tf.data.Dataset, by canonical qualified name.
DATASET_CONSTRUCTORS = frozenset(
    {
        "tensorflow.data.Dataset." + name
        for name in (
            "from_tensor_slices", "from_tensors", "range", "from_generator", "list_files",
            "zip", "load", "sample_from_datasets", "choose_from_datasets", "counter", "random",
        )
    }
    | {
        "tensorflow.data." + name
        for name in ("TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset")
    }
    | {
        "tensorflow.data.experimental." + name
        for name in (
            "sample_from_datasets", "choose_from_datasets", "load", "make_csv_dataset",
            "CsvDataset", "SqlDataset", "make_batched_features_dataset", "Counter",
        )
    }
    | {"tensorflow_datasets.load", "tensorflow_datasets.as_dataset"}
)
# Constructors that combine datasets: what each input did stays true of the combination, so the
# result continues every input's paths (through an op named after the combiner, or `concatenate`).
COMBINERS = frozenset(
    {"tensorflow.data.Dataset." + name for name in ("zip", "sample_from_datasets", "choose_from_datasets")}
    | {"tensorflow.data.experimental." + name for name in ("sample_from_datasets", "choose_from_datasets")}
)
COMBINER_OPS = frozenset({"zip", "sample_from_datasets", "choose_from_datasets", "concatenate"})
# Progress bars: iterating one iterates what it wraps.
PROGRESS_BARS = frozenset({"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm"})
# Calls that hand back an iterable over a dataset's elements as they are (iterating it iterates
# the dataset): progress bars, and tfds's NumPy view.
ITERATES_DATASET = PROGRESS_BARS | {"tensorflow_datasets.as_numpy"}
# Calls that show a few elements of a dataset (a look, not a pass over it).
PEEKING_CALLS = frozenset({"tensorflow_datasets.as_dataframe", "tensorflow_datasets.show_examples",
                           "tensorflow_datasets.visualization.show_examples"})
KERAS_DATASET_HELPERS = frozenset(
    {
        "keras.utils.image_dataset_from_directory",
        "keras.utils.text_dataset_from_directory",
        "keras.utils.audio_dataset_from_directory",
        "keras.utils.timeseries_dataset_from_array",
    }
)
FILE_SOURCES = frozenset(
    {
        "tensorflow.data.TFRecordDataset",
        "tensorflow.data.TextLineDataset",
        "tensorflow.data.FixedLengthRecordDataset",
        "tensorflow.data.Dataset.list_files",
        "tensorflow.data.experimental.make_csv_dataset",
        "tensorflow.data.experimental.CsvDataset",
        "keras.utils.image_dataset_from_directory",
        "keras.utils.text_dataset_from_directory",
        "keras.utils.audio_dataset_from_directory",
    }
)

# Sources that never end on their own.
ENDLESS_SOURCES = frozenset({
    "tensorflow.data.Dataset.counter", "tensorflow.data.experimental.Counter",
    "tensorflow.data.Dataset.random",
})


@dataclass(frozen=True)
class InnerStep:
    """A dataset method a constructor applies to its output itself, and the argument that decides it.

    Without `argument` the step always happens. Otherwise it happens when the argument is absent
    and `default` is True, or when it is given as anything but the literal `off` ("False", "None",
    or "1" for an epoch count): a variable may well turn it on."""

    op: str
    argument: str | None = None
    position: int | None = None
    default: bool = True
    off: str = "False"


# What each helper does to its output, in order. Read from the installed sources:
# Keras 3.15.1 keras/src/utils/{image,text,audio,timeseries}_dataset_utils.py (shuffle, then batch,
# then prefetch; audio prefetches before it batches; timeseries prefetches first and shuffles only
# when asked) and TensorFlow 2.21.0 tensorflow/python/data/experimental/ops/readers.py
# (`make_csv_dataset`, `make_batched_features_dataset`: shuffle-and-repeat, batch, prefetch) and
# tensorflow/python/data/ops/dataset_ops.py (`list_files` shuffles its names unless shuffle=False).
# Positions are those of the installed signatures. TFDS `load` (tensorflow_datasets 4.9
# core/load.py) shuffles files only with `shuffle_files=True` and batches when given `batch_size`.
HELPER_STEPS: dict[str, tuple[InnerStep, ...]] = {
    "keras.utils.image_dataset_from_directory": (
        InnerStep("shuffle", "shuffle", 7), InnerStep("batch", "batch_size", 5, off="None"), InnerStep("prefetch")),
    "keras.utils.text_dataset_from_directory": (
        InnerStep("shuffle", "shuffle", 6), InnerStep("batch", "batch_size", 4, off="None"), InnerStep("prefetch")),
    "keras.utils.audio_dataset_from_directory": (
        InnerStep("shuffle", "shuffle", 8), InnerStep("prefetch"), InnerStep("batch", "batch_size", 4, off="None")),
    "keras.utils.timeseries_dataset_from_array": (
        InnerStep("prefetch"), InnerStep("shuffle", "shuffle", 6, default=False),
        InnerStep("batch", "batch_size", 5, off="None")),
    "tensorflow.data.Dataset.list_files": (InnerStep("shuffle", "shuffle", 1),),
    "tensorflow.data.experimental.make_csv_dataset": (
        InnerStep("shuffle", "shuffle", 11), InnerStep("repeat", "num_epochs", 10, off="1"),
        InnerStep("batch"), InnerStep("prefetch")),
    "tensorflow.data.experimental.make_batched_features_dataset": (
        InnerStep("shuffle", "shuffle", 7), InnerStep("repeat", "num_epochs", 6, off="1"),
        InnerStep("batch"), InnerStep("prefetch")),
    "tensorflow_datasets.load": (
        InnerStep("shuffle", "shuffle_files", default=False), InnerStep("batch", "batch_size", default=False, off="None")),
}
# `subset="both"` returns (training, validation): the training half as above, the validation half
# never shuffled, then batched and prefetched alike. Keras 3.15.1 keras/src/utils/
# image_dataset_utils.py and text_dataset_utils.py build `val_dataset` with `shuffle=False`;
# audio_dataset_utils.py's `get_training_and_validation_dataset` does too, and `prepare_dataset`
# prefetches and batches both halves.
UNSHUFFLED_VALIDATION_HALF = frozenset({
    "keras.utils.image_dataset_from_directory", "keras.utils.text_dataset_from_directory",
    "keras.utils.audio_dataset_from_directory",
})



def turned_off_by(kind: str, op: str) -> str | None:
    """The argument of helper `kind` that turns off the `op` it applies inside, if any."""
    return next((step.argument for step in HELPER_STEPS.get(kind, ()) if step.op == op), None)


# Helpers whose own shuffle reorders files, not examples: caching after it freezes only the order
# of the files, and TFDS datasets of one shard are not reordered at all.
FILE_ORDER_SHUFFLES = frozenset({"tensorflow.data.Dataset.list_files", "tensorflow_datasets.load"})

# Sources that repeat forever unless `num_epochs` is given: (keyword, position).
EPOCHS_ARGUMENT_SOURCES = {
    kind: (step.argument, step.position)
    for kind, steps in HELPER_STEPS.items() for step in steps if step.op == "repeat"
}
# Sources whose elements are file names to open, not examples.
FILE_NAME_SOURCES = frozenset({"tensorflow.data.Dataset.list_files"})

# Dataset methods that return a new dataset: these become `Op`s on a path.
DATASET_METHODS = frozenset(
    {
        "map", "flat_map", "interleave", "filter", "batch", "padded_batch", "ragged_batch",
        "sparse_batch", "unbatch", "rebatch", "shuffle", "repeat", "cache", "prefetch", "take",
        "skip", "shard", "apply", "with_options", "enumerate", "concatenate", "window", "scan",
        "take_while", "unique", "snapshot", "ignore_errors", "assert_cardinality",
        "bucket_by_sequence_length", "group_by_window", "rejection_resample", "distribute",
    }
)
# Methods only tf.data has: a chain using one of them is a dataset even when its root is unknown.
TFDATA_ONLY_METHODS = frozenset(
    {"prefetch", "interleave", "padded_batch", "unbatch", "with_options", "ragged_batch",
     "bucket_by_sequence_length"}
)
# Every dataset the model can recognise needs one of these words in the source: a constructor
# (`Dataset.range`, `TFRecordDataset`, `*_dataset_from_directory`, `tfds`), tf.data-only
# evidence, or an annotation (`tf.data.Dataset`). Plain "Dataset" would match `PyDataset`.
DATASET_TRIGGERS = (
    "Dataset.", "data.Dataset", "RecordDataset", "TextLineDataset", "CsvDataset", "SqlDataset",
    "dataset_from_", "as_dataset", "make_csv_dataset", "make_batched_features_dataset",
    "tensorflow_datasets", "tfds", "AUTOTUNE", ".prefetch(", ".interleave(", ".unbatch(",
    ".with_options(", ".padded_batch(", ".ragged_batch(", "bucket_by_sequence_length",
)
# Dataset methods that add no work per element: after a `prefetch`, the pipeline still ends there.
PASS_THROUGH_METHODS = frozenset({"with_options", "take", "skip", "repeat", "assert_cardinality"})
# Dataset methods that group examples into batches (the elements after them are batches).
BATCH_METHODS = frozenset(
    {"batch", "padded_batch", "ragged_batch", "sparse_batch", "bucket_by_sequence_length"}
)
# Sources whose elements are already in memory: nothing to read, so no I/O to overlap or cache.
IN_MEMORY_SOURCES = frozenset(
    "tensorflow.data.Dataset." + name
    for name in ("range", "counter", "from_tensors", "from_tensor_slices", "zip", "random")
)
TRAINING_METHODS = frozenset({"fit", "evaluate", "predict"})

# Python calls that wait with the GIL let go (CPython's time.sleep releases it).
WAITING_CALLS = frozenset({"time.sleep"})

PY_FUNCTION_NAMES = frozenset(
    {"tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.py_func",
     "tensorflow.compat.v1.py_func"}
)


def is_random_name(name: str) -> bool:
    """Does a call to this canonical name draw fresh randomness on every call?"""
    if name.startswith(("tensorflow.random.stateless", "tensorflow.image.stateless_random",
                        "tensorflow.random.experimental.stateless")):  # (`stateless_split`, `stateless_fold_in`)
        return False
    if name.startswith(("tensorflow.random.", "tensorflow.image.random_", "numpy.random.",
                        "random.", "keras.random.", "tensorflow_addons.image.random_")):
        return True
    if name.startswith("keras.layers."):
        last = name.rsplit(".", 1)[-1]
        return last.startswith("Random") or last == "GaussianNoise"
    return False


def is_trace_time_random_name(name: str) -> bool:
    """Randomness from Python (NumPy, the standard library): inside a function tf.data traces it
    runs once, while tracing, not once per element."""
    return name.startswith(("numpy.random.", "random."))


# TensorFlow calls (canonical-name prefixes) that put a stateful op into a traced function, besides
# randomness and Python functions: tf.data's default `map_parallelization` leaves such a map serial.
# `tf.print`, `tf.Variable` updates, lookup tables (Keras `StringLookup` too) and `tf.nn.dropout` were
# checked on TF 2.21 by benchmarks/default_rewrites.py; the rest are stateful by their kernels' nature.
STATEFUL_TF_PREFIXES = (
    "tensorflow.print", "tensorflow.Variable", "tensorflow.summary.", "tensorflow.lookup.",
    "tensorflow.io.write_file", "tensorflow.io.gfile.", "tensorflow.data.", "tensorflow.debugging.",
    "tensorflow.Assert", "tensorflow.nn.dropout", "tensorflow.image.sample_distorted_bounding_box",
    "tensorflow.saved_model.", "tensorflow.queue.", "tensorflow.compat.", "tensorflow.keras.",
)
# Keras layers whose call runs only stateless ops (no randomness, no lookup table, no variable
# update); Rescaling, Resizing and Normalization checked by benchmarks/default_rewrites.py.
STATELESS_KERAS_LAYERS = frozenset(
    {"Rescaling", "Resizing", "CenterCrop", "Normalization", "Reshape", "Flatten", "Permute"})
# `keras.applications.<model>.preprocess_input` (and `tensorflow.keras.applications...`): Keras
# 3.15.1 keras/src/applications/imagenet_utils.py `_preprocess_tensor_input` only scales, flips the
# channels and subtracts the ImageNet mean with `keras.ops`; the models of convnext.py,
# efficientnet.py, efficientnet_v2.py and mobilenet_v3.py return their input unchanged.
_APPLICATIONS = "keras.applications."
# TensorFlow I/O's image decoders: their kernels are registered without `SetIsStateful`
# (tensorflow_io/core/ops/image_ops.cc, `IO>DecodeTiff`...), so tf.data parallelizes a map of them.
# TensorFlow Addons' image functions (`tfa.image.rotate`, `transform`, filters) are built of core
# ops (`ImageProjectiveTransformV3`, convolutions); its `random_*` ones are random (above).
_STATELESS_THIRD_PARTY = ("tensorflow_io.experimental.image.decode_", "tensorflow_addons.image.")
# Python's builtins run while tracing: they put no op into the graph (`len`, `print`, `open`) or,
# given tensors, only the stateless math ops their operators dispatch to (`pow`, `abs`, `divmod`).
TRACE_TIME_BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))
# Methods a traced function calls on tensors (the static shape) or on the element's Python
# containers (`features.values()`, `features.pop("label")`, `parts.append(x)`): they add no op.
TRACE_TIME_METHODS = frozenset({"set_shape", "get_shape", "values", "keys", "items", "pop", "get", "copy",
                                "append", "extend", "update", "setdefault",
                                # a Python string's (a tensor has none of these): `subset.startswith("train")`
                                "startswith", "endswith", "lower", "upper", "strip", "format"})
# Methods of a `tf.TensorArray`: in a traced function (control flow v2, TensorFlow 2's default)
# it is a TensorList, whose ops are stateless (tensorflow/core/ops/list_ops.cc).
TENSOR_ARRAY_METHODS = frozenset({"write", "read", "stack", "unstack", "gather", "scatter", "concat", "split",
                                  "size", "identity", "mark_used", "close"})
# Methods of a tensor (or a `RaggedTensor`) that add only stateless ops.
STATELESS_TENSOR_METHODS = frozenset({"to_tensor", "merge_dims", "with_flat_values", "to_sparse"})


def is_stateless_name(name: str) -> bool:
    """Does a call to this canonical name put only stateless ops into a traced function?"""
    if is_random_name(name) or name in PY_FUNCTION_NAMES:
        return False
    if name.startswith("keras.layers."):
        return name.rsplit(".", 1)[-1] in STATELESS_KERAS_LAYERS
    if name.startswith("keras.ops."):
        return True
    if name.startswith(_APPLICATIONS) and name.endswith(".preprocess_input"):
        return True
    if name.startswith(_STATELESS_THIRD_PARTY):
        return True
    return name.startswith("tensorflow.") and not name.startswith(STATEFUL_TF_PREFIXES)


# What makes a stage cost real time per element: decoding or transforming images, audio or signals,
# reading whole files, running Python. (Parsing records, casts, lookups and slicing cost little
# next to a training step: a missing prefetch or a serial map over them is minor.)
_COSTLY_PREFIXES = ("tensorflow.image.", "tensorflow.audio.", "tensorflow.signal.", "tensorflow.io.read_file",
                    "tensorflow.io.decode_jpeg", "tensorflow.io.decode_png", "tensorflow.io.decode_image",
                    "tensorflow.io.decode_bmp", "tensorflow.io.decode_gif", "tensorflow.io.decode_and_crop_jpeg",
                    "tensorflow.io.decode_webp", "tensorflow.read_file", "tensorflow_io.", "tensorflow_addons.image.",
                    "keras.utils.load_img", "keras.preprocessing.image.", "keras.layers.Resizing")
_CHEAP_IMAGE_CALLS = frozenset({"tensorflow.image.convert_image_dtype"})
#: Sources that read and decode media files (or records a catalogue decodes) themselves.
DECODING_SOURCES = frozenset({"keras.utils.image_dataset_from_directory", "keras.utils.audio_dataset_from_directory",
                              "tensorflow_datasets.load"})


def is_costly_name(name: str) -> bool:
    """Does a call to this canonical name make a pipeline stage costly (`_COSTLY_PREFIXES`)?"""
    if name in PY_FUNCTION_NAMES or name.startswith("keras.layers.Random"):
        return True
    return name.startswith(_COSTLY_PREFIXES) and name not in _CHEAP_IMAGE_CALLS


# Element-wise calls cheap enough that the per-call overhead of a mapped function dominates.
ELEMENTWISE_CALLS = frozenset(
    {"tensorflow.cast", "tensorflow.math.divide", "tensorflow.math.multiply", "tensorflow.math.add",
     "tensorflow.math.subtract", "tensorflow.one_hot", "tensorflow.image.convert_image_dtype"}
)
# Calls that only change the element's dtype or shape (or one-hot encode a label): next to no work.
DTYPE_AND_SHAPE_CALLS = frozenset(
    {"tensorflow.cast", "tensorflow.image.convert_image_dtype", "tensorflow.dtypes.cast", "tensorflow.reshape",
     "tensorflow.expand_dims", "tensorflow.squeeze", "tensorflow.one_hot"})
# Calls whose result depends on the element's shape: on a batch they would do something else.
SHAPE_BOUND_NAMES = frozenset({"reshape", "squeeze", "expand_dims"})

# Keras optimizers: an instance is built for the variables of the first model it trains.
OPTIMIZER_PREFIXES = ("keras.optimizers.", "tensorflow.optimizers.")
# Schedules are not optimizers at all. Legacy (Keras 2) optimizers do count: they accept new
# variables, but a second model silently takes over the first one's step count and schedule
# position (and Keras 3 has no legacy optimizers).
_NOT_BOUND_TO_ONE_MODEL = (".schedules.", "keras.optimizers.deserialize", "keras.optimizers.serialize")


def is_model_bound_optimizer(name: str | None) -> bool:
    """A Keras (2.11+/3) optimizer class: its instances serve one model's variables only."""
    return (name is not None and name.startswith(OPTIMIZER_PREFIXES)
            and not any(part in name for part in _NOT_BOUND_TO_ONE_MODEL))


#: Calls (by their last name) that read or decode data from files: a `Sequence.__getitem__` that
#: makes them loads each batch at a cost worth spreading over workers.
LOADING_CALLS = frozenset({
    "imread", "open", "load_img", "read_file", "load", "loadtxt", "read_csv", "read_image", "imdecode",
    "decode_jpeg", "decode_png", "decode_image", "resize", "imresize", "img_to_array", "fromfile",
})


def is_pydataset_base(name: str | None) -> bool:
    """`keras.utils.PyDataset`, `keras.utils.Sequence` (its Keras 3 alias) by any import path
    (`tensorflow.python.keras.utils.data_utils.Sequence` and `tf_keras.utils.Sequence` too)."""
    for prefix in ("tensorflow.python.keras.", "tensorflow.keras.", "tf_keras."):
        if name and name.startswith(prefix):
            name = "keras." + name[len(prefix):]
    if not name or not name.startswith("keras."):
        return False
    last = name.rsplit(".", 1)[-1]
    return last == "PyDataset" or (last == "Sequence" and ".utils." in name + ".")


#: Fewer images than this an epoch load in seconds on one core (a 500x375 JPEG decodes and resizes
#: in about 1.4 ms on the development machine), so a faster loader saves seconds: readers of unseen
#: projects judged such speed findings not worth acting on. A notebook's saved outputs say how many
#: ("Found 360 images belonging to 3 classes.").
SMALL_DATA_IMAGES = 2500
#: Fewer images than this over a whole training run (`steps_per_epoch` x `batch_size` x `epochs`,
#: as written: 20 epochs of 2,500) load in about a minute of one core's decoding.
SMALL_RUN_IMAGES = 50_000
