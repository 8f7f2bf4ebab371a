"""Datasets: constructors and their origins (tf.data, TFDS, the Keras directory helpers), ops
applied along each path, and consumers.

Part of the `Interpreter` (see `frames`).
"""
from __future__ import annotations

import libcst as cst

from pipelint.model.catalogue import COMBINERS, DATASET_CONSTRUCTORS, KERAS_DATASET_HELPERS
from pipelint.model.frames import Frame, InterpreterState
from pipelint.model.syntax import block_body, find_arg, is_false, is_none, literal_int
from pipelint.model.values import (
    MAX_PATHS, Collection, Consumer, DatasetPath, DatasetValue, FunctionFacts, ObjectValue, Op, OpSite,
    Origin, TfdsBuilder, datasets_in,
)


PEEK_LIMIT = 10  # `take(n)` of at most this many elements, iterated, is a look, not a loop


def _small_count(take: Op) -> bool:
    arg = take.arg("count", 0)
    count = literal_int(arg.value) if arg is not None else None
    return count is not None and 0 <= count <= PEEK_LIMIT


_SHOWING = frozenset({"print", "pprint", "display", "show", "imshow", "title", "axis"})


def _only_shows(loop: cst.For) -> bool:
    """`for line in ds: print(line.numpy())`: a loop that only prints or plots what it reads."""
    statements = block_body(loop.body)
    for stmt in statements:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
                return False
            func = small.value.func
            name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
            if name not in _SHOWING:
                return False
    return bool(statements)


_SIDE_STREAMS = frozenset({"tensorflow.data.Dataset.counter", "tensorflow.data.Dataset.random",
                           "tensorflow.data.experimental.Counter"})


class Datasets(InterpreterState):
    def _constructor_value(self, call: cst.Call, qualified: str, frame: Frame,
                           arg_values: list[object] = ()) -> object:
        if qualified in COMBINERS:
            inputs = self._combined_inputs(call, arg_values)
            if inputs is not None:
                return self._apply_op(inputs, qualified.rsplit(".", 1)[-1], call, frame)
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

    @staticmethod
    def _combined_inputs(call: cst.Call, arg_values: list[object]) -> DatasetValue | None:
        """The known datasets `zip`/`sample_from_datasets`/`choose_from_datasets` combine, as one
        value whose paths are the inputs' paths; None when none of them is known. A counter or a
        random-seed stream zipped beside the data carries no examples (and zip stops with the
        data), so its paths do not continue."""
        zipping = call.func.attr.value == "zip" if isinstance(call.func, cst.Attribute) else False
        paths: list[DatasetPath] = []
        for arg, value in zip(call.args, arg_values):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword not in (None, "datasets"):
                continue  # weights, seed, choice_dataset, name...
            for dataset in datasets_in(value):
                paths.extend(p for p in dataset.paths
                             if not (zipping and p.origin.kind in _SIDE_STREAMS) and p not in paths)
        return DatasetValue(tuple(paths[:MAX_PATHS])) if paths else None

    def _origin(self, node: cst.CSTNode, kind: str, implicit: tuple[Op, ...] = (),
                parameter_of: str | None = None, inferred: bool = False) -> Origin:
        origin = self._origin_cache.get(node)
        if origin is None:
            origin = Origin(kind, node, implicit, parameter_of, inferred, self._where)
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
        implicit = [Op(name, call, False, implicit=True, where=self._where) for name in names]
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
            op = Op(method, call, frame.branch_depth > 0, facts, where=self._where)
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
        self.consumers.append(Consumer(kind, node, value, argument, function, loops, self._where))

    def _consume_iteration(self, stmt: cst.For, iter_expr: cst.BaseExpression, value: object) -> None:
        for dataset in datasets_in(value):
            # `for x in ds.take(1)`: a look at a few elements, not a training loop.
            # (A printing loop inside another loop, an epoch loop, stands for training.)
            peek = (_only_shows(stmt) and not (self._frame and self._frame.loops)) or all(
                path.ops and path.ops[-1].name == "take" and _small_count(path.ops[-1])
                for path in dataset.paths)
            self._consume("peek" if peek else "for", stmt, dataset, iter_expr)
