"""Datasets: constructors and their origins (tf.data, TFDS, the Keras directory helpers), ops
applied along each path, and consumers.

Part of the `Interpreter` (see `frames`).
"""
from __future__ import annotations

import libcst as cst

from pipelint.model.catalogue import DATASET_CONSTRUCTORS, KERAS_DATASET_HELPERS
from pipelint.model.frames import Frame, InterpreterState
from pipelint.model.syntax import find_arg, is_false, is_none
from pipelint.model.values import (
    MAX_PATHS, Collection, Consumer, DatasetPath, DatasetValue, FunctionFacts, ObjectValue, Op, OpSite,
    Origin, TfdsBuilder, datasets_in,
)


class Datasets(InterpreterState):
    def _constructor_value(self, call: cst.Call, qualified: str, frame: Frame) -> object:
        if qualified in DATASET_CONSTRUCTORS:
            origin = self._origin(call, qualified)
            if qualified.startswith("tensorflow_datasets."):
                return self._tfds_result(call, origin)
            return DatasetValue((DatasetPath(origin, ()),))
        if qualified in KERAS_DATASET_HELPERS:
            origin = self._keras_helper_origin(call, qualified)
            value = DatasetValue((DatasetPath(origin, ()),))
            subset = find_arg(call, "subset")
            if subset is not None and isinstance(subset.value, cst.SimpleString) and \
                    subset.value.evaluated_value == "both":
                return Collection((value, value))
            return value
        if qualified == "tensorflow_datasets.builder":
            return TfdsBuilder(call)
        if qualified.startswith(("keras.optimizers.", "tensorflow.optimizers.", "tensorflow.random.Generator",
                                 "keras.layers.", "keras.Sequential", "keras.Model",
                                 "keras.models.")):
            return ObjectValue(call, qualified, frame.loops, random=self._builds_random(call, qualified, frame))
        return None

    def _origin(self, node: cst.CSTNode, kind: str, implicit: tuple[Op, ...] = (),
                parameter_of: str | None = None) -> Origin:
        origin = self._origin_cache.get(node)
        if origin is None:
            origin = Origin(kind, node, implicit, parameter_of)
            self._origin_cache[node] = origin
            self.origins.append(origin)
        return origin

    def _keras_helper_origin(self, call: cst.Call, qualified: str) -> Origin:
        cached = self._origin_cache.get(call)
        if cached is not None:
            return cached
        # What each Keras 3 helper does inside, in order (keras/src/utils/*_dataset_utils.py):
        # image/text: shuffle, batch, prefetch; audio: shuffle, prefetch, batch;
        # timeseries: prefetch, shuffle (off by default), batch.
        timeseries = qualified.endswith("timeseries_dataset_from_array")
        audio = qualified.endswith("audio_dataset_from_directory")
        shuffle_arg = find_arg(call, "shuffle")
        if timeseries:
            shuffles = shuffle_arg is not None and not is_false(shuffle_arg.value)
        else:
            shuffles = shuffle_arg is None or not is_false(shuffle_arg.value)
        batch_arg = find_arg(call, "batch_size")
        batches = batch_arg is None or not is_none(batch_arg.value)
        names: list[str] = []
        if timeseries:
            names.append("prefetch")
        if shuffles:
            names.append("shuffle")
        if audio:
            names.append("prefetch")
        if batches:
            names.append("batch")
        if not (timeseries or audio):
            names.append("prefetch")
        implicit = [Op(name, call, False, implicit=True) for name in names]
        return self._origin(call, qualified, tuple(implicit))

    def _tfds_result(self, call: cst.Call, origin: Origin) -> object:
        single = DatasetValue((DatasetPath(origin, ()),))
        split = find_arg(call, "split")
        if split is None:
            data: object = Collection((single,), is_mapping=True)
        elif isinstance(split.value, (cst.List, cst.Tuple)):
            data = Collection(tuple(single for _ in split.value.elements))
        else:
            data = single
        with_info = find_arg(call, "with_info")
        if with_info is not None and isinstance(with_info.value, cst.Name) and \
                with_info.value.value == "True":
            return Collection((data, None))
        return data

    def _apply_op(self, receiver: DatasetValue, method: str, call: cst.Call, frame: Frame) -> DatasetValue:
        op = self._op_cache.get(call)
        if op is None:
            facts = FunctionFacts()
            if method in ("map", "interleave", "flat_map", "filter"):
                fn = find_arg(call, "map_func", 0) or find_arg(call, "predicate", 0)
                if fn is not None:
                    facts = self._function_facts(fn.value, frame)
            op = Op(method, call, frame.branch_depth > 0, facts)
            self._op_cache[call] = op
        site = self.op_sites.get(call)
        if site is None:
            site = self.op_sites[call] = OpSite(op)
        paths = []
        for path in receiver.paths:
            if path not in site.prefixes:
                site.prefixes.append(path)
            paths.append(path.extended(op))
        return DatasetValue(tuple(paths[:MAX_PATHS]))

    def _consume(self, kind: str, node: cst.CSTNode, value: DatasetValue,
                 argument: cst.BaseExpression | None, function: str | None = None) -> None:
        loops = self._frame.loops if self._frame is not None else ()
        self.consumers.append(Consumer(kind, node, value, argument, function, loops))

    def _consume_iteration(self, stmt: cst.For, iter_expr: cst.BaseExpression, value: object) -> None:
        for dataset in datasets_in(value):
            self._consume("for", stmt, dataset, iter_expr)
