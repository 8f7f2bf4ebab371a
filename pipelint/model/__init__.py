"""The pipeline model: one abstract interpretation of a module that every rule queries.

Rooms: `values` (what the model computes: `Op`, `Origin`, `DatasetPath`, `Consumer`,
`CompileSite`...), `catalogue` (what tf.data/TFDS/Keras names mean), `imports` (the import table),
`syntax` (small node questions), `order` (is a file list read class by class), the interpreter (`frames`, `interpreter`, `expressions`,
`datasets`, `keras`, `functions`) and `queries` (`PipelineModel`, what rules read).
Rules import from here: `from pipelint.model import PipelineModel, Op, DatasetPath`.
"""
from pipelint.model.catalogue import (
    COMBINER_OPS,
    BATCH_METHODS, DATASET_CONSTRUCTORS, DATASET_METHODS, DATASET_TRIGGERS, ELEMENTWISE_CALLS,
    ENDLESS_SOURCES, EPOCHS_ARGUMENT_SOURCES, FILE_NAME_SOURCES, FILE_ORDER_SHUFFLES, FILE_SOURCES, IN_MEMORY_SOURCES,
    KERAS_DATASET_HELPERS, PASS_THROUGH_METHODS, PY_FUNCTION_NAMES, SMALL_DATA_IMAGES, SMALL_RUN_IMAGES,
    TFDATA_ONLY_METHODS,
    TRAINING_METHODS, canonical,
    is_model_bound_optimizer, is_pydataset_base, is_random_name, turned_off_by,
)
from pipelint.model.imports import ImportTable
from pipelint.model.order import SourceOrder, constant_int
from pipelint.model.queries import FUNCTION_SITE_OPS, PipelineModel
from pipelint.model.service import SHARD_HINT, ServiceHandOff
from pipelint.model.syntax import dotted, find_arg, is_false, is_none, literal_int
from pipelint.model.values import (
    LOOKS, NOT_TRAINING, ONLY_EVALUATION, CallSite, Collection, CompileSite, Consumer, DatasetPath, DatasetValue,
    FunctionFacts, ObjectValue, Op, OpSite, Origin, batch_states,
)

__all__ = [
    "COMBINER_OPS",
    "BATCH_METHODS", "DATASET_CONSTRUCTORS", "DATASET_METHODS", "DATASET_TRIGGERS",
    "ELEMENTWISE_CALLS", "ENDLESS_SOURCES", "EPOCHS_ARGUMENT_SOURCES", "FILE_NAME_SOURCES", "FILE_ORDER_SHUFFLES",
    "FILE_SOURCES", "FUNCTION_SITE_OPS", "IN_MEMORY_SOURCES", "KERAS_DATASET_HELPERS", "PASS_THROUGH_METHODS", "PY_FUNCTION_NAMES",
    "SMALL_DATA_IMAGES", "SMALL_RUN_IMAGES",
    "LOOKS", "NOT_TRAINING", "ONLY_EVALUATION", "TFDATA_ONLY_METHODS", "TRAINING_METHODS", "CallSite", "Collection", "CompileSite", "Consumer",
    "DatasetPath", "DatasetValue", "FunctionFacts", "ImportTable", "ObjectValue", "Op", "OpSite",
    "Origin", "PipelineModel", "SHARD_HINT", "ServiceHandOff", "SourceOrder", "constant_int", "batch_states", "canonical", "dotted", "find_arg", "is_false",
    "is_model_bound_optimizer", "is_none", "is_pydataset_base", "is_random_name", "literal_int",
    "turned_off_by",
]
