"""Datasets: constructors and their origins (tf.data, TFDS, the Keras directory helpers), ops
applied along each path, and consumers.

Part of the `Interpreter` (see `frames`).
"""
from __future__ import annotations

import re

import libcst as cst

from pipelint.model.catalogue import (
    COMBINERS, DATASET_CONSTRUCTORS, HELPER_STEPS, KERAS_DATASET_HELPERS, UNSHUFFLED_VALIDATION_HALF,
)
from pipelint.model.frames import Frame, InterpreterState
from pipelint.model.functions import CallCollector
from pipelint.model.syntax import block_body, find_arg, is_false, literal_int, runs_once
from pipelint.model.values import (
    MAX_PATHS, Collection, Consumer, DatasetPath, DatasetValue, FunctionFacts, ObjectValue, Op, OpSite,
    Origin, TfdsBuilder, datasets_in,
)


PEEK_LIMIT = 10  # `take(n)` of at most this many elements, iterated, is a look, not a loop


def _within(node: cst.CSTNode, tree: cst.CSTNode) -> bool:
    """Is `node` `tree` or part of it?"""
    if node is tree:
        return True
    return any(_within(node, child) for child in tree.children)


def _small_count(take: Op) -> bool:
    arg = take.arg("count", 0)
    count = literal_int(arg.value) if arg is not None else None
    return count is not None and 0 <= count <= PEEK_LIMIT


_SHOWING = frozenset({"print", "pprint", "display", "show", "imshow", "title", "axis", "subplot",
                      "write", "flush", "update", "set_description"})
# Calls a loop may make and still do no work on the elements: timing it, counting them.
_BOOKKEEPING = frozenset({"time", "perf_counter", "monotonic", "len", "int", "float", "str", "format"})


def _bookkeeping_kind(loop: cst.For) -> str | None:
    """What a loop that does no work on its elements is: "peek" when its body only prints or plots
    (`for line in ds: print(line.numpy())`, a timing loop printing a dot every hundred elements),
    "pass" when it only counts, reads the clock, copies the elements into lists or does nothing
    (it reads every element: a count, a cache fill, arrays made from the data); None for any
    other loop."""
    statements = block_body(loop.body)
    if not all(_shows_or_counts(stmt) for stmt in statements):
        return None
    shows = any(_shows(node) for node in _calls_in(statements)) or any(
        isinstance(small, cst.Assert) for stmt in statements if isinstance(stmt, cst.SimpleStatementLine)
        for small in stmt.body)
    return "peek" if shows else "pass"


_EVALUATING = re.compile(r"(^|_)(eval|evaluate|evaluation|test|val|valid|validate|validation|predict|"
                         r"infer|inference)(_|$)")
# A call that runs a model (`model(x)`, `self.net(x)`, `generator(z)`).
_MODEL = re.compile(r"(^|_)(model|net|network|classifier|encoder|decoder|generator|discriminator|autoencoder)s?(_|$)")
_TRAINING = re.compile(r"(^|_)(train|fit|backward|minimize|gradient|gradients|apply_gradients)(_|$)|GradientTape")


# A call that may train: any name with these words in it (the test errs towards "this module
# trains"), but for the names that only load or split the training data (`train_test_split`,
# `load_train_data`, `prepare_for_training`).
TRAINS_SOMEWHERE = re.compile(
    r"GradientTape|\b(?!train_test_split\b|(?:load|get|read|prepare|preprocess|split)_\w*\s*\(|\w*_for_training\s*\(|"
    r"\w*pretrained\w*\s*\()"
    r"\w*(train|fit|backward|minimize|gradient|optimizer|step|compile)\w*\s*\(",
    re.IGNORECASE)


def _evaluates(loop: cst.For, module_trains: bool = True) -> bool:
    """Does this loop evaluate a model rather than train it? Its calls name evaluation
    (`test_step`, `model.predict`, `validate`) or pass `training=False`, or call a model in a
    module that trains nothing anywhere (an analysis script that loads weights and scores them);
    and none of its calls names training (`train_step`, `apply_gradients`, `tape.gradient`)."""
    calls = CallCollector.of(loop.body).calls
    names = [(_called_name(call) or "").lower() for call in calls]
    if any(_TRAINING.search(name) for name in names):
        return False
    if not module_trains and any(_MODEL.search(name) for name in names):
        return True  # `model(image)` in a script that trains nothing: it scores
    return any(_EVALUATING.search(name) for name in names) or any(
        arg.keyword is not None and arg.keyword.value == "training" and is_false(arg.value)
        for call in calls for arg in call.args)


def _calls_in(statements) -> list[cst.Call]:
    """The calls made as statements of these statements (and of the `if`s among them)."""
    found: list[cst.Call] = []
    for stmt in statements:
        if isinstance(stmt, cst.If):
            found.extend(_calls_in(block_body(stmt.body)))
            orelse = stmt.orelse
            if orelse is not None:
                found.extend(_calls_in([orelse] if isinstance(orelse, cst.If) else block_body(orelse.body)))
        elif isinstance(stmt, cst.For):
            found.extend(_calls_in(block_body(stmt.body)))
        elif isinstance(stmt, cst.SimpleStatementLine):
            found.extend(small.value for small in stmt.body
                         if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call))
    return found


def _shows_or_counts(stmt: cst.CSTNode) -> bool:
    if isinstance(stmt, cst.If):
        orelse = stmt.orelse
        return (all(_shows_or_counts(inner) for inner in block_body(stmt.body))
                and (orelse is None or (_shows_or_counts(orelse) if isinstance(orelse, cst.If)
                                        else all(_shows_or_counts(inner) for inner in block_body(orelse.body)))))
    if isinstance(stmt, cst.For):  # `for key, value in element.items(): print(key, value)`
        return all(_shows_or_counts(inner) for inner in block_body(stmt.body))
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        if isinstance(small, (cst.Pass, cst.Assert)):
            continue
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            if not (_shows(small.value) or _collects(small.value)):
                return False
            continue
        if isinstance(small, (cst.AugAssign, cst.Assign)):
            value = small.value
            if isinstance(value, (cst.Integer, cst.Float)) or (
                    isinstance(value, cst.Call) and _called_name(value) in _BOOKKEEPING | {"numpy"}):
                continue  # `count += 1`, `start = time.time()`, `num = item.numpy()`
        return False
    return True


def _collects(call: cst.Call) -> bool:
    """Copies what it is given into a list (`images.append(img.numpy())`): a pass that reads the
    data into memory, not a training step."""
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value in ("append", "extend") \
        and isinstance(func.value, (cst.Name, cst.Attribute)) and all(_plain(arg.value) for arg in call.args)


def _plain(expr: cst.BaseExpression) -> bool:
    """The element itself, a part of it, or its NumPy value (`img`, `label[0]`, `img.numpy()`):
    no model call (`preds.append(model(x, training=False))` evaluates)."""
    if isinstance(expr, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, (cst.Attribute, cst.Subscript)):
        return _plain(expr.value)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(_plain(e.value) for e in expr.elements)
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
        and expr.func.attr.value == "numpy" and not expr.args and _plain(expr.func.value)


def _shows(call: cst.Call) -> bool:
    """Prints, plots or checks (`self.assertEqual`) what it is given."""
    name = _called_name(call) or ""
    return name in _SHOWING or name.startswith("assert")


def _called_name(call: cst.Call) -> str | None:
    func = call.func
    return func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)


def _is_literal(expr: cst.BaseExpression, text: str) -> bool:
    """Is `expr` the literal `text` ("False", "None" or an integer)?"""
    if text.isdigit():
        return literal_int(expr) == int(text)
    return isinstance(expr, cst.Name) and expr.value == text


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
            origin = self._origin(call, qualified)
            value = DatasetValue((DatasetPath(origin, ()),))
            subset = find_arg(call, "subset")
            if subset is not None and isinstance(subset.value, cst.SimpleString) and \
                    subset.value.evaluated_value == "both":
                if qualified not in UNSHUFFLED_VALIDATION_HALF:
                    return Collection((value, value))
                # The validation half: the same call, its own origin (kept under the argument).
                validation = self._origin(call, qualified, key=subset, implicit=tuple(
                    op for op in origin.implicit_ops if op.name != "shuffle"))
                return Collection((value, DatasetValue((DatasetPath(validation, ()),))))
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

    def _origin(self, node: cst.CSTNode, kind: str, implicit: tuple[Op, ...] | None = None,
                parameter_of: str | None = None, inferred: bool = False,
                key: cst.CSTNode | None = None) -> Origin:
        """The origin made at `node` (one per node, or per `key` where a call makes two);
        `implicit`: the ops it applies itself, else those the catalogue says a helper applies."""
        key = node if key is None else key
        origin = self._origin_cache.get(key)
        if origin is None:
            if implicit is None:
                implicit = self._inner_steps(node, kind) if isinstance(node, cst.Call) else ()
            origin = Origin(kind, node, implicit, parameter_of, inferred, self._where)
            self._origin_cache[key] = origin
            self.origins.append(origin)
        return origin

    def _inner_steps(self, call: cst.Call, qualified: str) -> tuple[Op, ...]:
        """The ops a helper applies to its own output (`HELPER_STEPS`), as this call sets them."""
        if any(arg.star for arg in call.args):
            steps = ()  # `**options` may set any of them: claim nothing
        else:
            steps = HELPER_STEPS.get(qualified, ())
        ops = []
        for step in steps:
            if step.argument is not None:
                arg = find_arg(call, step.argument, step.position)
                if arg is None:
                    if not step.default:
                        continue
                elif _is_literal(arg.value, step.off):
                    continue
            ops.append(Op(step.op, call, False, implicit=True, where=self._where))
        return tuple(ops)

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

    def _module_trains(self) -> bool:
        """Does the module whose code runs now call anything that may train, anywhere?"""
        home = self._where
        key = id(home)
        known = self._trains.get(key)
        if known is None:
            text = self.model.source if home is None else getattr(home, "text", None)
            known = self._trains[key] = text is None or TRAINS_SOMEWHERE.search(text) is not None
        return known

    def _consume_iteration(self, stmt: cst.For, iter_expr: cst.BaseExpression, value: object) -> None:
        # (A loop over a list of datasets iterates the list, not the datasets.)
        for dataset in [value] if isinstance(value, DatasetValue) else []:
            # `for x in ds.take(1)`: a look at a few elements, not a training loop.
            # (A printing loop inside another loop, an epoch loop, stands for training.)
            bookkeeping = _bookkeeping_kind(stmt)
            if bookkeeping == "peek" and self._frame and self._frame.loops:
                bookkeeping = None
            if runs_once(stmt):
                bookkeeping = "peek"  # `for images, labels in ds: ...; break`: one element, a look
            function = self._frame.function if self._frame else None
            if function is not None and self._where is None \
                    and function.name.value in self.model.calibration_functions():
                bookkeeping = "peek"  # a TFLite converter's calibration samples: read once, never trained on
            # A small `take` built into a pipeline that a loop with work in it iterates inside an
            # epoch loop (`train = ....take(5)` defined elsewhere) is a small training set.
            if all(path.ops and path.ops[-1].name == "take" and _small_count(path.ops[-1])
                   and (not self._frame or not self._frame.loops or bookkeeping is not None
                        or _within(path.ops[-1].call, iter_expr))
                   for path in dataset.paths):
                bookkeeping = "peek"
            trains = self._module_trains()
            # (a loop that runs no model in a module that trains nothing converts or inspects the
            # data: a pass over it)
            kind = "eval-loop" if _evaluates(stmt, trains) else "for" if trains else "pass"
            self._consume(bookkeeping or kind, stmt, dataset, iter_expr)
