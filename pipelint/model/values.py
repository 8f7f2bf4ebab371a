"""The values the model computes and rules read: datasets (origins, paths of ops), consumers,
Keras objects and compile sites, and the interpreter's other abstract values."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator

import libcst as cst

from pipelint.model.catalogue import BATCH_METHODS, ENDLESS_SOURCES, EPOCHS_ARGUMENT_SOURCES, FILE_SOURCES
from pipelint.model.syntax import find_arg, is_none, literal_int

MAX_PATHS = 32  # alternative paths kept per value; beyond this, later ones are dropped


@dataclass(frozen=True)
class FunctionFacts:
    """What the function given to `map`/`interleave` does, as far as the source shows."""

    known: bool = False  # the function's body was found (lambda, local def, partial of one)
    py_function: cst.Call | None = None
    randomness: cst.CSTNode | None = None
    #: Randomness inside the module-level Python function that `py_function` wraps.
    py_function_randomness: cst.CSTNode | None = None
    #: The expression it returns: a lambda's body, or the one `return` of a module-level def
    #: that does nothing else (a docstring aside).
    returned: cst.BaseExpression | None = None
    #: `returned` only makes cheap element-wise calls (casts, `+ - * /`, `one_hot`...).
    elementwise: bool = False
    #: `returned` depends on the element's shape (`reshape`, indexing): it would change on a batch.
    shape_bound: bool = False
    #: The function only picks parts of the element, casts, reshapes or one-hot encodes them, or
    #: scales them by a constant (`lambda x, y: x`, `lambda x, y: (tf.cast(x, tf.float32) / 255.0, y)`).
    trivial: bool = False
    #: Every call in it (and in the functions of this module it calls) is known to put only
    #: stateless ops into the traced graph, so tf.data's default `map_parallelization` runs it in
    #: parallel. False when any call is stateful or unknown: `stateful_call` is the first such.
    stateless: bool = False
    stateful_call: cst.CSTNode | None = None
    #: A NumPy or standard-library `random` call in the traced function itself: it runs once,
    #: while tf.data traces the function, and its value is a constant of the graph.
    trace_time_randomness: cst.CSTNode | None = None
    #: The Python function `py_function` wraps only waits (`time.sleep`): the GIL is let go
    #: meanwhile, so parallel calls overlap.
    py_function_only_waits: bool = False
    #: A function of another project module (mapped by name, or called by the function): that
    #: module (`pipelint.project.ForeignModule`), whose code may hold the nodes above, and the
    #: function. The engine names its line in messages; rules never report on its nodes.
    where: object | None = None
    function: cst.FunctionDef | None = None
    #: The first call that makes the function cost real time per element (`is_costly_name`:
    #: decoding or transforming images, reading files, Python; a Keras random layer): the
    #: evidence that its speed matters. None where nothing in sight does.
    costly: cst.CSTNode | None = None


@dataclass(eq=False)
class Op:
    """One application of a dataset method: `receiver.name(args)`."""

    name: str
    call: cst.Call
    conditional: bool
    facts: FunctionFacts = field(default_factory=FunctionFacts)
    implicit: bool = False  # done inside a constructor (Keras directory helpers), not written
    #: The other project module whose code holds the call (`pipelint.project.ForeignModule`);
    #: None for this module. Rules never report there; the engine names it in messages.
    where: object | None = None

    @property
    def name_node(self) -> cst.CSTNode:
        func = self.call.func
        return func.attr if isinstance(func, cst.Attribute) else func

    def arg(self, keyword: str | None, position: int | None = None) -> cst.Arg | None:
        return find_arg(self.call, keyword, position)

    @property
    def reshuffles_every_epoch(self) -> bool:
        """For a `shuffle`: does it certainly reshuffle on every iteration? Yes for the Keras
        helpers' own shuffle and when `reshuffle_each_iteration` is absent (default True) or
        literally True/None; a variable, `False` or `**kwargs` may turn it off, so no."""
        if self.implicit:
            return True
        if any(arg.star == "**" for arg in self.call.args):
            return False
        arg = self.arg("reshuffle_each_iteration", 2)
        return arg is None or (isinstance(arg.value, cst.Name) and arg.value.value in ("True", "None"))

    @property
    def receiver(self) -> cst.BaseExpression | None:
        func = self.call.func
        return func.value if isinstance(func, cst.Attribute) else None


@dataclass(frozen=True, eq=False)
class Origin:
    kind: str  # canonical qualified name of the constructor, "parameter" or "unknown"
    node: cst.CSTNode
    implicit_ops: tuple[Op, ...] = ()
    #: Set when the dataset is a parameter of this function, seen in the function's own run.
    parameter_of: str | None = None
    #: A parameter taken for a dataset only because of how the function uses it.
    inferred: bool = False
    where: object | None = None  # as `Op.where`

    @property
    def is_file_source(self) -> bool:
        return self.kind in FILE_SOURCES


@dataclass(frozen=True)
class DatasetPath:
    """One way a dataset can have been built: its origin, then its ops in order."""

    origin: Origin
    ops: tuple[Op, ...]

    def all_ops(self) -> tuple[Op, ...]:
        return self.origin.implicit_ops + self.ops

    def extended(self, op: Op) -> "DatasetPath":
        return DatasetPath(self.origin, self.ops + (op,))

    def batched_at(self, op: Op) -> bool:
        """Are the elements that reach `op` (one of this path's ops) batches?"""
        for other, batched in batch_states(self.all_ops()):
            if other is op:
                return batched
        raise ValueError("op is not on this path")

    def ends_batched(self) -> bool:
        """Are the elements at the end of this path batches?"""
        return _batched_after(self.all_ops(), False)

    def endless_reason(self) -> tuple[str, str] | None:
        """(cause, remedy) when the dataset at the end of this path never ends, else None."""
        reason = self._endless_origin()
        for op in self.ops:
            if op.name == "repeat":
                count = op.arg("count", 0)
                if count is None or is_none(count.value) or literal_int(count.value) == -1:
                    reason = ("`repeat()` without a count", "drop the `repeat()`")
            elif op.name in _BOUNDING:
                reason = None
        return reason

    def _endless_origin(self) -> tuple[str, str] | None:
        kind = self.origin.kind
        node = self.origin.node
        if kind in ENDLESS_SOURCES:
            return (f"`{kind.rsplit('.', 1)[-1]}()`", "add a `take()`")
        if kind in EPOCHS_ARGUMENT_SOURCES and isinstance(node, cst.Call):
            if any(arg.star for arg in node.args):
                return None
            keyword, position = EPOCHS_ARGUMENT_SOURCES[kind]
            arg = find_arg(node, keyword, position)
            if arg is None or is_none(arg.value):
                return (f"`{kind.rsplit('.', 1)[-1]}` without `num_epochs`", "set `num_epochs=1`")
        return None


# Ops after which an endless stream may end.
_BOUNDING = frozenset({"take", "take_while", "apply"})


def batch_states(ops: Iterable[Op], batched: bool = False) -> Iterator[tuple[Op, bool]]:
    """Each op with whether the elements reaching it are batches (`batched`: before the first)."""
    for op in ops:
        yield op, batched
        if op.name in BATCH_METHODS:
            batched = True
        elif op.name == "unbatch":
            batched = False


def _batched_after(ops: Iterable[Op], batched: bool) -> bool:
    for op in ops:
        if op.name in BATCH_METHODS:
            batched = True
        elif op.name == "unbatch":
            batched = False
    return batched


@dataclass(frozen=True)
class DatasetValue:
    paths: tuple[DatasetPath, ...]

    def merged(self, other: "DatasetValue") -> "DatasetValue":
        seen = list(self.paths)
        for path in other.paths:
            if path not in seen:
                seen.append(path)
        return DatasetValue(tuple(seen[:MAX_PATHS]))


@dataclass(frozen=True)
class Collection:
    """A tuple, list or dict whose items may be datasets (tfds.load splits, helper returns)."""

    items: tuple[object, ...]  # per-position values; a dict keeps one merged value in items[0]
    is_mapping: bool = False


@dataclass(frozen=True, eq=False)
class ObjectValue:
    """A non-dataset object bound by one assignment: a model, an optimizer, a layer..."""

    node: cst.CSTNode  # the expression that created it
    kind: str | None  # canonical qualified name of its constructor, when known
    loops: tuple[cst.CSTNode, ...]  # loops enclosing the creation
    random: bool = False  # a Keras Random* layer, or a model made of them
    local_class: bool = False  # an instance of a class defined in this module
    cls: cst.ClassDef | None = None  # that class, when the instance was made by calling it
    #: For `model.optimizer` read off a model the module never compiled here (a loaded or
    #: cloned-from model): that model. The optimizer belongs to it.
    owner: "ObjectValue | None" = None
    #: An instance of a class of another project module, not followed when it was made (its
    #: methods are, when called with datasets or returning them): the class's qualified name.
    project_class: str | None = None


@dataclass(frozen=True)
class ClassRef:
    """A class named without being called (`optimizer_class = tf.keras.optimizers.Adam`)."""

    kind: str  # canonical qualified name


@dataclass(frozen=True)
class Keywords:
    """A dict with literal string keys (`dict(loss="mse", optimizer=opt)`, `{"optimizer": opt}`),
    followed so that `compile(**config)` and `config["optimizer"]` find their values."""

    entries: tuple[tuple[str, object], ...]

    def get(self, key: str) -> object:
        return next((value for name, value in self.entries if name == key), None)


@dataclass(frozen=True)
class Constant:
    """A literal True/False/None, followed only where a helper is inlined with known arguments."""

    value: object


@dataclass(frozen=True)
class TfdsBuilder:
    node: cst.CSTNode


@dataclass(eq=False)
class OpSite:
    """Every way the interpreter reached one op call: the paths as they stood just before it."""

    op: Op
    prefixes: list[DatasetPath] = field(default_factory=list)


#: Uses that read a few elements or none at all: nothing for parallelism or prefetch to speed up.
LOOKS = frozenset({"peek", "inspect"})
#: Uses that never train on the data: the order of examples does not matter to them. (A full
#: `pass` over the data, `list(ds)` or a comprehension, is not among them: it may be compared
#: with something in order.)
NOT_TRAINING = LOOKS | {"adapt", "validation", "evaluate", "predict", "eval-loop"}
#: Uses that only score or apply a model: a faster input there saves seconds, not training hours.
#: (Validation runs every epoch of a training run: it is not among them; `off_training` adds it
#: where it loads under half as many batches as training.)
ONLY_EVALUATION = LOOKS | {"evaluate", "predict", "eval-loop"}


@dataclass(eq=False)
class Consumer:
    #: fit, evaluate, predict, validation (`validation_data`), for, eval-loop (a `for` whose body
    #: evaluates: `test_step`, `model(x, training=False)`), iter, distribute, return, and
    #: peek (`next(iter(ds))`, a `for` over `ds.take(n)` with a small n, a loop that only prints,
    #: `tfds.as_dataframe`), inspect (`ds.element_spec`, `ds.cardinality()`), pass (`list(ds)`, a
    #: comprehension over it) and adapt (`layer.adapt(ds)`).
    kind: str
    node: cst.CSTNode  # the consuming call, `for` statement or `return`
    value: DatasetValue
    argument: cst.BaseExpression | None = None  # the expression that carried the dataset
    function: str | None = None  # for `return`: the enclosing function's name
    loops: tuple[cst.CSTNode, ...] = ()  # loops around the consumer (a `for` consumer excluded)
    where: object | None = None  # as `Op.where`


@dataclass(eq=False)
class CompileSite:
    call: cst.Call
    model: ObjectValue | None
    optimizer: ObjectValue | None
    loops: tuple[cst.CSTNode, ...]
    #: For each `if`/`match` around the call, which arm it is in: two calls in different arms
    #: of one statement never both run.
    arms: tuple[tuple[cst.CSTNode, int], ...] = ()
    #: Every optimizer object passed (`optimizer=[opt_a, opt_b]` gives two), first one first.
    optimizers: tuple[ObjectValue, ...] = ()
    #: When the compile runs inside a helper the interpreter inlined: the module's own call to it.
    via: cst.Call | None = None

    def exclusive_with(self, other: "CompileSite") -> bool:
        mine = dict(self.arms)
        return any(owner in mine and mine[owner] != arm for owner, arm in other.arms)


@dataclass(eq=False)
class CallSite:
    call: cst.Call
    qualified_name: str | None  # canonical, when the callee resolves through imports
    in_class: cst.ClassDef | None
    function: cst.FunctionDef | None = None  # the function whose own body makes the call
    #: What the receiver of a method call evaluated to (`model.fit_generator`: the `model`), when
    #: the interpreter knew it.
    receiver: object = None


def datasets_in(value: object) -> list[DatasetValue]:
    if isinstance(value, DatasetValue):
        return [value]
    if isinstance(value, Collection):
        found = []
        for item in value.items:
            found.extend(datasets_in(item))
        return found
    return []


def merge_values(a: object, b: object) -> object:
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, DatasetValue) and isinstance(b, DatasetValue):
        return a.merged(b)
    if isinstance(b, DatasetValue) and isinstance(a, Constant) and a.value is None:
        return b  # `ds = None` before a loop or branch that builds the dataset
    if isinstance(a, Collection) and isinstance(b, Collection) and len(a.items) == len(b.items) \
            and a.is_mapping == b.is_mapping:
        return Collection(tuple(merge_values(x, y) for x, y in zip(a.items, b.items)), a.is_mapping)
    return a


LITERALS = {"True": Constant(True), "False": Constant(False), "None": Constant(None)}
