"""The pipeline model: one abstract interpretation of a module that every rule queries.

It answers three questions without importing anything: where does each tf.data dataset come from
(origins, resolved by qualified name whatever the import style), which ops does it pass through, in
which order and on which control-flow path (a value is a set of alternative `Path`s), and who
consumes it (`fit`, a `for` loop, `iter`, a distribution strategy, a `return` to an unknown caller).

A receiver is only ever treated as a dataset when its origin is known (a tf.data/TFDS/Keras
constructor, a parameter annotated `tf.data.Dataset`, a local helper returning one) or when the
chain carries tf.data-only evidence (`tf.data.AUTOTUNE`, `.prefetch(`, `.interleave(`...). That is
what keeps pandas `.map`, Spark `.cache()` and a user's own `Batcher.batch()` silent.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

import libcst as cst

MAX_PATHS = 32
MAX_INLINE_DEPTH = 4

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
# Dataset methods that group examples into batches (the elements after them are batches).
BATCH_METHODS = ("batch", "padded_batch", "ragged_batch")
TRAINING_METHODS = frozenset({"fit", "evaluate", "predict"})

PY_FUNCTION_NAMES = frozenset(
    {"tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.py_func",
     "tensorflow.compat.v1.py_func"}
)


def _is_random_name(name: str) -> bool:
    """Does a call to this canonical name draw fresh randomness on every call?"""
    if name.startswith(("tensorflow.random.stateless", "tensorflow.image.stateless_random")):
        return False
    if name.startswith(("tensorflow.random.", "tensorflow.image.random_", "numpy.random.",
                        "random.", "keras.random.")):
        return True
    if name.startswith("keras.layers."):
        last = name.rsplit(".", 1)[-1]
        return last.startswith("Random") or last == "GaussianNoise"
    return False


@dataclass(frozen=True)
class FunctionFacts:
    """What the function given to `map`/`interleave` does, as far as the source shows."""

    known: bool = False  # the function's body was found (lambda, local def, partial of one)
    py_function: cst.Call | None = None
    randomness: cst.CSTNode | None = None
    cheap: bool = False  # only arithmetic and casts: worth vectorizing after batch


@dataclass(eq=False)
class Op:
    """One application of a dataset method: `receiver.name(args)`."""

    name: str
    call: cst.Call
    conditional: bool
    facts: FunctionFacts = field(default_factory=FunctionFacts)
    implicit: bool = False  # done inside a constructor (Keras directory helpers), not written

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

    @property
    def is_file_source(self) -> bool:
        return self.kind in FILE_SOURCES


@dataclass(frozen=True)
class Path:
    """One way a dataset can have been built: its origin, then its ops in order."""

    origin: Origin
    ops: tuple[Op, ...]

    def all_ops(self) -> tuple[Op, ...]:
        return self.origin.implicit_ops + self.ops

    def extended(self, op: Op) -> "Path":
        return Path(self.origin, self.ops + (op,))


@dataclass(frozen=True)
class DatasetValue:
    paths: tuple[Path, ...]

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
    prefixes: list[Path] = field(default_factory=list)


@dataclass(eq=False)
class Consumer:
    kind: str  # fit, evaluate, predict, validation, for, iter, distribute, return
    node: cst.CSTNode  # the consuming call, `for` statement or `return`
    value: DatasetValue
    argument: cst.BaseExpression | None = None  # the expression that carried the dataset
    function: str | None = None  # for `return`: the enclosing function's name
    loops: tuple[cst.CSTNode, ...] = ()  # loops around the consumer (a `for` consumer excluded)


@dataclass(eq=False)
class CompileSite:
    call: cst.Call
    model: ObjectValue | None
    optimizer: ObjectValue | None
    loops: tuple[cst.CSTNode, ...]
    #: For each `if`/`match` around the call, which arm it is in: two calls in different arms
    #: of one statement never both run.
    arms: tuple[tuple[cst.CSTNode, int], ...] = ()

    def exclusive_with(self, other: "CompileSite") -> bool:
        mine = dict(self.arms)
        return any(owner in mine and mine[owner] != arm for owner, arm in other.arms)


@dataclass(eq=False)
class CallSite:
    call: cst.Call
    qualified_name: str | None  # canonical, when the callee resolves through imports
    in_class: cst.ClassDef | None


def find_arg(call: cst.Call, keyword: str | None, position: int | None = None) -> cst.Arg | None:
    for arg in call.args:
        if keyword is not None and arg.keyword is not None and arg.keyword.value == keyword:
            return arg
    if position is not None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) > position:
            return positional[position]
    return None


def literal_int(expr: cst.BaseExpression | None) -> int | None:
    if isinstance(expr, cst.Integer):
        try:
            return int(expr.value.replace("_", ""), 0)
        except ValueError:
            return None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = literal_int(expr.expression)
        return -inner if inner is not None else None
    return None


def is_false(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


def is_none(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def dotted(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted(expr.value)
        return f"{base}.{expr.attr.value}" if base else None
    return None


class ImportTable:
    """Local name -> qualified name, from every import in the module (at any depth)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def add(self, node: cst.Import | cst.ImportFrom) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted(alias.name)
                if not full:
                    continue
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.names[alias.asname.name.value] = full
                else:
                    top = full.split(".", 1)[0]
                    self.names.setdefault(top, top)
            return
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = dotted(node.module)
        if not module:
            return
        for alias in node.names:
            name = dotted(alias.name)
            if not name:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.names[local] = f"{module}.{name}"

    def resolve(self, expr: cst.BaseExpression) -> str | None:
        """The canonical qualified name of a dotted expression rooted at an imported name."""
        parts: list[str] = []
        while isinstance(expr, cst.Attribute):
            parts.append(expr.attr.value)
            expr = expr.value
        if not isinstance(expr, cst.Name):
            return None
        root = self.names.get(expr.value)
        if root is None:
            return None
        return canonical(".".join([root, *reversed(parts)]))

    def imports_any(self, *packages: str) -> bool:
        """Does the module import anything from one of these top-level packages?"""
        return any(full.split(".", 1)[0] in packages for full in self.names.values())

    def alias_for(self, module: str) -> str | None:
        """The local name bound to `module` itself (`tf` for `import tensorflow as tf`)."""
        for local, full in self.names.items():
            if full == module:
                return local
        return None


@dataclass
class _Frame:
    """Interpretation state of one function body (or the module body)."""

    env: dict[str, object]
    function: cst.FunctionDef | None
    cls: cst.ClassDef | None
    locals_defs: dict[str, cst.FunctionDef]
    loops: tuple[cst.CSTNode, ...] = ()
    arms: tuple[tuple[cst.CSTNode, int], ...] = ()
    branch_depth: int = 0
    returns: list[object] = field(default_factory=list)
    inlined: bool = False


class PipelineModel:
    """Built once per module by `PipelineModel.build(module)`; read by every rule."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.imports = ImportTable()
        self.op_sites: dict[cst.Call, OpSite] = {}
        self.consumers: list[Consumer] = []
        self.origins: list[Origin] = []
        self.calls: list[CallSite] = []
        self.compiles: list[CompileSite] = []
        self.classes: list[cst.ClassDef] = []
        self.attribute_assignments: list[cst.Attribute] = []
        self.functions: dict[str, cst.FunctionDef] = {}
        self.methods: dict[cst.ClassDef, dict[str, cst.FunctionDef]] = {}
        self._called_names: set[str] = set()
        self._inline_stack: list[cst.FunctionDef] = []
        self._origin_cache: dict[cst.CSTNode, Origin] = {}
        self._op_cache: dict[cst.Call, Op] = {}
        self._scanned_chain_calls: set[cst.Call] = set()
        self._evidence_roots: set[cst.BaseExpression] = set()
        self._local_class_names: set[str] = set()
        self._module_frame: _Frame | None = None
        self._source: str | None = None
        #: The top-level statement holding each node rules report (calls, their names and
        #: arguments, definitions, loops, returns), so that the engine can compute positions
        #: for just those statements instead of the whole module.
        self.statement_of: dict[cst.CSTNode, cst.CSTNode] = {}
        self._top: cst.CSTNode | None = None
        self._frame: _Frame | None = None  # the frame being interpreted, for consumer context

    # ---- public queries -------------------------------------------------------------------
    @classmethod
    def build(cls, module: cst.Module, source: str | None = None) -> "PipelineModel":
        model = cls(module)
        model._source = source
        model._collect_definitions(module.body, None)
        top = _Frame(env={}, function=None, cls=None, locals_defs=dict(model.functions))
        model._module_frame = top
        for stmt in module.body:
            model._top = stmt
            model._run_statement(stmt, top)
        # A dataset returned from a function that this module itself calls is not handed to an
        # unknown caller: the call site was interpreted and its consumers recorded there.
        model.consumers = [
            c for c in model.consumers
            if not (c.kind == "return" and c.function in model._called_names)
        ]
        model._drop_stand_in_parameters()
        return model

    def _drop_stand_in_parameters(self) -> None:
        """A helper's own run stands its parameter in for "some dataset"; where this module calls
        the helper, the real datasets reached it at the call sites, so the stand-in paths go."""
        called = self._called_names

        def real(path: Path) -> bool:
            return path.origin.parameter_of is None or path.origin.parameter_of not in called

        for call, site in list(self.op_sites.items()):
            site.prefixes = [p for p in site.prefixes if real(p)]
            if not site.prefixes:
                del self.op_sites[call]
        kept = []
        for consumer in self.consumers:
            paths = tuple(p for p in consumer.value.paths if real(p))
            if paths:
                consumer.value = DatasetValue(paths)
                kept.append(consumer)
        self.consumers = kept
        self.origins = [o for o in self.origins if o.parameter_of is None or o.parameter_of not in called]

    @property
    def source(self) -> str:
        """The module's text (given by the engine; regenerating it from the tree is slow)."""
        if self._source is None:
            self._source = self.module.code
        return self._source

    def qualified_name(self, expr: cst.BaseExpression) -> str | None:
        return self.imports.resolve(expr)

    def uses_keras3(self) -> bool:
        """Imports TensorFlow/Keras, and not Keras 2 (`tf_keras`, or `TF_USE_LEGACY_KERAS`)."""
        if self.imports.imports_any("tf_keras") or not self.imports.imports_any("tensorflow", "keras"):
            return False
        return "TF_USE_LEGACY_KERAS" not in self.source

    def tensorflow_alias(self) -> str | None:
        return self.imports.alias_for("tensorflow")

    def autotune_expression(self) -> str | None:
        """How this module can spell tf.data.AUTOTUNE without a new import, if it can."""
        alias = self.tensorflow_alias()
        if alias:
            return f"{alias}.data.AUTOTUNE"
        for local, full in self.imports.names.items():
            if canonical(full) == "tensorflow.data.AUTOTUNE":
                return local
            if full == "tensorflow.data":
                return f"{local}.AUTOTUNE"
        return None

    def ops(self, *names: str) -> Iterator[OpSite]:
        for site in self.op_sites.values():
            if not names or site.op.name in names:
                yield site

    def continuations(self, op: Op) -> list[tuple[Op, ...]]:
        """The ops seen after `op` on each path that passes through it."""
        result: list[tuple[Op, ...]] = []
        for site in self.op_sites.values():
            for prefix in site.prefixes:
                ops = prefix.ops + (site.op,)
                if op in ops[:-1]:
                    tail = ops[ops.index(op) + 1:]
                    if tail not in result:
                        result.append(tail)
        return result

    def node_code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # ---- definitions ----------------------------------------------------------------------
    def _collect_definitions(self, body: Sequence[cst.CSTNode], cls: cst.ClassDef | None) -> None:
        """Functions and classes by name, so that calls to local helpers can be followed."""
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                if cls is None:
                    self.functions[stmt.name.value] = stmt
                else:
                    self.methods.setdefault(cls, {})[stmt.name.value] = stmt
            elif isinstance(stmt, cst.ClassDef):
                self.classes.append(stmt)
                self._local_class_names.add(stmt.name.value)
                self.methods.setdefault(stmt, {})
                self._collect_definitions(_block_body(stmt.body), stmt)
            elif isinstance(stmt, (cst.If, cst.Try)) and cls is None:
                # `if TYPE_CHECKING:` / `try: import x` style definitions still count.
                for block in _blocks_of(stmt):
                    self._collect_definitions(block, cls)

    # ---- statements -----------------------------------------------------------------------
    def _run_block(self, body: Sequence[cst.CSTNode], frame: _Frame) -> None:
        for stmt in body:
            self._run_statement(stmt, frame)

    def _locate(self, *nodes: cst.CSTNode) -> None:
        top = self._top
        for node in nodes:
            self.statement_of[node] = top

    def _run_statement(self, stmt: cst.CSTNode, frame: _Frame) -> None:
        self._frame = frame
        if not frame.inlined:
            self._locate(stmt)
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self._locate(stmt.name)
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._run_small(small, frame)
        elif isinstance(stmt, cst.FunctionDef):
            frame.locals_defs[stmt.name.value] = stmt
            for decorator in stmt.decorators:
                self._eval(decorator.decorator, frame)
            if not frame.inlined:
                self._run_function(stmt, frame.cls, frame)
        elif isinstance(stmt, cst.ClassDef):
            for base in stmt.bases:
                self._eval(base.value, frame)
            if not frame.inlined:
                inner = _Frame(env=dict(frame.env), function=None, cls=stmt,
                               locals_defs=dict(frame.locals_defs), loops=frame.loops)
                self._run_block(_block_body(stmt.body), inner)
        elif isinstance(stmt, cst.If):
            self._run_if(stmt, frame)
        elif isinstance(stmt, (cst.For, cst.While)):
            self._run_loop(stmt, frame)
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            self._run_try(stmt, frame)
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                value = self._eval(item.item, frame)
                if item.asname is not None:
                    self._bind(item.asname.name, value, frame)
            self._run_block(_block_body(stmt.body), frame)
        elif isinstance(stmt, cst.Match):
            self._eval(stmt.subject, frame)
            self._run_branches([_block_body(case.body) for case in stmt.cases], frame,
                               exhaustive=False, owner=stmt)

    def _run_small(self, small: cst.BaseSmallStatement, frame: _Frame) -> None:
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            self.imports.add(small)
        elif isinstance(small, cst.Assign):
            value = self._eval(small.value, frame)
            for target in small.targets:
                self._bind(target.target, value, frame, small.value)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                value = self._eval(small.value, frame)
                self._bind(small.target, value, frame, small.value)
        elif isinstance(small, cst.AugAssign):
            self._eval(small.value, frame)
        elif isinstance(small, cst.Expr):
            self._eval(small.value, frame)
        elif isinstance(small, cst.Return):
            if not frame.inlined:
                self._locate(small, *(() if small.value is None else (small.value,)))
            if small.value is not None:
                value = self._eval(small.value, frame)
                frame.returns.append(value)
                if not frame.inlined and frame.function is not None:
                    for dataset in _datasets_in(value):
                        self._consume("return", small, dataset, small.value, function=frame.function.name.value)
        elif isinstance(small, (cst.Raise, cst.Assert, cst.Del)):
            for child in small.children:
                if isinstance(child, cst.BaseExpression):
                    self._eval(child, frame)

    def _run_if(self, stmt: cst.If, frame: _Frame) -> None:
        test = self._eval(stmt.test, frame)
        if frame.inlined and isinstance(test, Constant):
            # `make_dataset(files, training=False)`: only the branch this call takes.
            if test.value:
                self._run_block(_block_body(stmt.body), frame)
            elif isinstance(stmt.orelse, cst.If):
                self._run_if(stmt.orelse, frame)
            elif stmt.orelse is not None:
                self._run_block(_block_body(stmt.orelse.body), frame)
            return
        blocks: list[Sequence[cst.CSTNode]] = [_block_body(stmt.body)]
        orelse = stmt.orelse
        exhaustive = False
        while orelse is not None:
            if isinstance(orelse, cst.If):
                self._eval(orelse.test, frame)
                blocks.append(_block_body(orelse.body))
                orelse = orelse.orelse
            else:
                blocks.append(_block_body(orelse.body))
                exhaustive = True
                orelse = None
        self._run_branches(blocks, frame, exhaustive, owner=stmt)

    def _run_branches(self, blocks: list, frame: _Frame, exhaustive: bool,
                      owner: cst.CSTNode | None = None) -> None:
        before = frame.env
        arms = frame.arms
        results = []
        frame.branch_depth += 1
        for index, block in enumerate(blocks):
            frame.env = dict(before)
            if owner is not None:
                frame.arms = arms + ((owner, index),)
            self._run_block(block, frame)
            results.append(frame.env)
        frame.arms = arms
        frame.branch_depth -= 1
        if not exhaustive:
            results.append(before)
        frame.env = _merge_envs(results)

    def _run_loop(self, stmt: cst.For | cst.While, frame: _Frame) -> None:
        if isinstance(stmt, cst.For):
            iterable = self._eval(stmt.iter, frame)
            self._consume_iteration(stmt, stmt.iter, iterable)
        else:
            self._eval(stmt.test, frame)
        before = frame.env
        frame.env = dict(before)
        frame.loops = frame.loops + (stmt,)
        frame.branch_depth += 1
        if isinstance(stmt, cst.For):
            self._bind(stmt.target, None, frame)
        self._run_block(_block_body(stmt.body), frame)
        frame.branch_depth -= 1
        frame.loops = frame.loops[:-1]
        frame.env = _merge_envs([frame.env, before])
        if stmt.orelse is not None:
            self._run_block(_block_body(stmt.orelse.body), frame)

    def _run_try(self, stmt: cst.Try | cst.TryStar, frame: _Frame) -> None:
        self._run_block(_block_body(stmt.body), frame)
        if stmt.handlers:
            self._run_branches([h.body.body for h in stmt.handlers], frame, exhaustive=False)
        if stmt.orelse is not None:
            self._run_block(_block_body(stmt.orelse.body), frame)
        if stmt.finalbody is not None:
            self._run_block(_block_body(stmt.finalbody.body), frame)

    def _run_function(self, func: cst.FunctionDef, cls: cst.ClassDef | None, outer: _Frame) -> None:
        env = dict(outer.env)
        self._locate(*_all_params(func.params))
        for param in _all_params(func.params):
            env[param.name.value] = self._parameter_value(param, owner=func.name.value)
        frame = _Frame(env=env, function=func, cls=cls, locals_defs=dict(outer.locals_defs))
        self._collect_nested(func, frame)
        self._run_block(_block_body(func.body), frame)
        self._frame = outer

    def _collect_nested(self, func: cst.FunctionDef, frame: _Frame) -> None:
        for stmt in _block_body(func.body):
            if isinstance(stmt, cst.FunctionDef):
                frame.locals_defs[stmt.name.value] = stmt

    def _parameter_value(self, param: cst.Param, owner: str | None = None) -> object:
        if param.annotation is not None:
            name = self.qualified_name(_unquote(param.annotation.annotation))
            if name in ("tensorflow.data.Dataset", "tensorflow.data.TFRecordDataset"):
                return DatasetValue((Path(self._origin(param, "parameter", parameter_of=owner), ()),))
        return None

    # ---- binding --------------------------------------------------------------------------
    def _bind(self, target: cst.BaseExpression, value: object, frame: _Frame,
              source: cst.BaseExpression | None = None) -> None:
        if isinstance(target, cst.Name):
            if value is None and isinstance(source, cst.Call):
                value = ObjectValue(source, None, frame.loops, local_class=self._is_local_instance(source))
            frame.env[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            items: tuple[object, ...] = ()
            if isinstance(value, Collection) and not value.is_mapping:
                items = value.items
            for index, element in enumerate(target.elements):
                item = items[index] if index < len(items) else None
                self._bind(element.value, item, frame)
        elif isinstance(target, cst.Attribute):
            self.attribute_assignments.append(target)
            if not frame.inlined:
                self._locate(target, target.attr)
            key = dotted(target)
            if key:
                frame.env[key] = value
        elif isinstance(target, cst.Subscript):
            self._eval(target.value, frame)

    # ---- expressions ----------------------------------------------------------------------
    def _eval(self, expr: cst.BaseExpression, frame: _Frame) -> object:
        value = self._eval_expression(expr, frame)
        if expr in self._evidence_roots and not isinstance(value, DatasetValue):
            # A user's own class with tf.data-like method names is not a dataset.
            local = (isinstance(value, ObjectValue) and value.local_class) or self._is_local_instance(expr)
            if not local:
                value = DatasetValue((Path(self._origin(expr, "unknown", parameter_of=self._parameter_owner(expr)), ()),))
        return value

    def _parameter_owner(self, expr: cst.BaseExpression) -> str | None:
        """The function whose parameter `expr` is, in that function's own (not inlined) run."""
        frame = self._frame
        if (isinstance(expr, cst.Name) and frame is not None and not frame.inlined
                and frame.function is not None
                and any(p.name.value == expr.value for p in _all_params(frame.function.params))):
            return frame.function.name.value
        return None

    def _is_local_instance(self, expr: cst.BaseExpression) -> bool:
        """`MyPipeline(...)` or `MyPipeline.from_files(...)`: made by a class of this module."""
        if not isinstance(expr, cst.Call):
            return False
        root = expr.func
        while isinstance(root, cst.Attribute):
            root = root.value
        return isinstance(root, cst.Name) and root.value in self._local_class_names

    def _eval_expression(self, expr: cst.BaseExpression, frame: _Frame) -> object:
        if isinstance(expr, cst.Name):
            if expr.value in _LITERALS and expr.value not in frame.env:
                return _LITERALS[expr.value]
            return frame.env.get(expr.value)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            inner = self._eval(expr.expression, frame)
            return Constant(not inner.value) if isinstance(inner, Constant) else None
        if isinstance(expr, cst.Call):
            return self._eval_call(expr, frame)
        if isinstance(expr, cst.Attribute):
            key = dotted(expr)
            if key is not None and key in frame.env:
                return frame.env[key]
            self._eval(expr.value, frame)
            return None
        if isinstance(expr, cst.Subscript):
            base = self._eval(expr.value, frame)
            for element in expr.slice:
                if isinstance(element.slice, cst.Index):
                    self._eval(element.slice.value, frame)
            if isinstance(base, Collection):
                if base.is_mapping:
                    return base.items[0] if base.items else None
                index = (literal_int(expr.slice[0].slice.value)
                         if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
                         else None)
                if index is not None and -len(base.items) <= index < len(base.items):
                    return base.items[index]
            return None
        if isinstance(expr, (cst.Tuple, cst.List)):
            return Collection(tuple(self._eval(e.value, frame) for e in expr.elements))
        if isinstance(expr, (cst.Lambda, cst.SimpleString, cst.Integer, cst.Float)):
            return None
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            # Comprehensions have their own scope; only record the calls they make.
            self._eval_children(expr, frame)
            return None
        if isinstance(expr, cst.IfExp):
            self._eval(expr.test, frame)
            body = self._eval(expr.body, frame)
            orelse = self._eval(expr.orelse, frame)
            if isinstance(body, DatasetValue) and isinstance(orelse, DatasetValue):
                return body.merged(orelse)
            return body if isinstance(body, DatasetValue) else orelse
        if isinstance(expr, cst.NamedExpr):
            value = self._eval(expr.value, frame)
            self._bind(expr.target, value, frame, expr.value)
            return value
        self._eval_children(expr, frame)
        return None

    def _eval_children(self, node: cst.CSTNode, frame: _Frame) -> None:
        # Fast paths for the common compound expressions; `children` is slow and generic.
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            self._eval(node.left, frame)
            self._eval(node.right, frame)
            return
        if isinstance(node, cst.Comparison):
            self._eval(node.left, frame)
            for target in node.comparisons:
                self._eval(target.comparator, frame)
            return
        if isinstance(node, cst.UnaryOperation):
            self._eval(node.expression, frame)
            return
        if isinstance(node, (cst.Set, cst.Dict)):
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    self._eval(element.key, frame)
                if hasattr(element, "value"):
                    self._eval(element.value, frame)
            return
        if isinstance(node, cst.FormattedString):
            for part in node.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    self._eval(part.expression, frame)
            return
        if isinstance(node, cst.ConcatenatedString):
            self._eval(node.left, frame)
            self._eval(node.right, frame)
            return
        if isinstance(node, (cst.SimpleString, cst.Ellipsis, cst.Imaginary)):
            return
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self._eval(child, frame)
            elif not isinstance(child, (cst.BaseStatement, cst.BaseSmallStatement)):
                self._eval_children(child, frame)

    def _eval_call(self, call: cst.Call, frame: _Frame) -> object:
        func = call.func
        qualified = self.qualified_name(func)
        if not frame.inlined:
            self.calls.append(CallSite(call, qualified, frame.cls))
            self._locate(call, func, *call.args)
            if isinstance(func, cst.Attribute):
                self._locate(func.attr)
            for arg in call.args:
                self._locate(arg.value)
                if arg.keyword is not None:
                    self._locate(arg.keyword)
        # Method call on something we can evaluate.
        receiver_value: object = None
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if isinstance(func, cst.Attribute) and qualified is None:
            if method in DATASET_METHODS and call not in self._scanned_chain_calls:
                self._scan_chain_for_evidence(call)
            receiver_value = self._eval(func.value, frame)
        arg_values = [self._eval(arg.value, frame) for arg in call.args]

        if qualified is not None:
            origin_value = self._constructor_value(call, qualified, frame)
            if origin_value is not None:
                return origin_value
        if isinstance(func, cst.Name):
            name = func.value
            self._called_names.add(name)
            if name in ("iter", "enumerate", "zip", "list") and name not in frame.env:
                if name == "iter":
                    for value in arg_values:
                        for dataset in _datasets_in(value):
                            self._consume("iter", call, dataset, call.args[0].value)
                if name == "enumerate" and arg_values and isinstance(arg_values[0], DatasetValue):
                    return arg_values[0]
                return None
            helper = frame.locals_defs.get(name) or self.functions.get(name)
            if helper is not None and name not in frame.env:
                return self._inline(helper, call, arg_values, frame, frame.cls)
            if name in self._local_class_names and name not in frame.env:
                return ObjectValue(call, None, frame.loops, local_class=True)
            return None
        if method is None:
            return None
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value == "self" and frame.cls is not None):
            self._called_names.add(method)
            helper = self.methods.get(frame.cls, {}).get(method)
            if helper is not None:
                return self._inline(helper, call, arg_values, frame, frame.cls, bound=True)
            return None
        if isinstance(receiver_value, DatasetValue) and method in DATASET_METHODS:
            return self._apply_op(receiver_value, method, call, frame)
        if isinstance(receiver_value, TfdsBuilder) and method == "as_dataset":
            return self._tfds_result(call, self._origin(call, "tensorflow_datasets.builder.as_dataset"))
        if method in TRAINING_METHODS:
            self._record_training_call(call, method, arg_values)
        elif method == "compile":
            self._record_compile(call, receiver_value, arg_values, frame)
        elif method == "experimental_distribute_dataset" and arg_values:
            for dataset in _datasets_in(arg_values[0]):
                self._consume("distribute", call, dataset, call.args[0].value)
            return arg_values[0] if isinstance(arg_values[0], DatasetValue) else None
        else:
            self._called_names.add(method)
        if (isinstance(receiver_value, ObjectValue) and receiver_value.local_class) \
                or self._is_local_instance(call):
            # What a user's own class returns stays the user's own, however tf.data-like.
            return ObjectValue(call, None, frame.loops, local_class=True)
        return None

    def _scan_chain_for_evidence(self, call: cst.Call) -> None:
        """Mark the root of a method chain as a dataset when the chain is unmistakably tf.data.

        Called on the outermost call of a chain, before its receivers are evaluated, so that the
        ops written before the tell-tale one (`x.map(f).prefetch(AUTOTUNE)`) are recorded too.
        """
        chain: list[cst.Call] = []
        node: cst.BaseExpression = call
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            chain.append(node)
            self._scanned_chain_calls.add(node)
            node = node.func.value
        if any(self._is_tfdata_evidence(c) for c in chain):
            self._evidence_roots.add(node)

    def _is_tfdata_evidence(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in TFDATA_ONLY_METHODS:
            return True
        for arg in call.args:
            if self.qualified_name(arg.value) == "tensorflow.data.AUTOTUNE":
                return True
            if isinstance(arg.value, cst.Name) and arg.value.value in ("AUTOTUNE", "AUTO"):
                return True
        return False

    def _constructor_value(self, call: cst.Call, qualified: str, frame: _Frame) -> object:
        if qualified in DATASET_CONSTRUCTORS:
            origin = self._origin(call, qualified)
            if qualified.startswith("tensorflow_datasets."):
                return self._tfds_result(call, origin)
            return DatasetValue((Path(origin, ()),))
        if qualified in KERAS_DATASET_HELPERS:
            origin = self._keras_helper_origin(call, qualified)
            value = DatasetValue((Path(origin, ()),))
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

    def _builds_random(self, call: cst.Call, qualified: str, frame: _Frame) -> bool:
        if _is_random_name(qualified):
            return True
        if qualified in ("keras.Sequential", "keras.models.Sequential"):
            for arg in call.args:
                for element in getattr(arg.value, "elements", ()):
                    value = element.value
                    if isinstance(value, cst.Call):
                        name = self.qualified_name(value.func)
                        if name and _is_random_name(name):
                            return True
                    bound = frame.env.get(value.value) if isinstance(value, cst.Name) else None
                    if isinstance(bound, ObjectValue) and bound.random:
                        return True
        return False

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
        single = DatasetValue((Path(origin, ()),))
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

    def _apply_op(self, receiver: DatasetValue, method: str, call: cst.Call, frame: _Frame) -> DatasetValue:
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

    # ---- consumers ------------------------------------------------------------------------
    def _consume(self, kind: str, node: cst.CSTNode, value: DatasetValue,
                 argument: cst.BaseExpression | None, function: str | None = None) -> None:
        loops = self._frame.loops if self._frame is not None else ()
        self.consumers.append(Consumer(kind, node, value, argument, function, loops))

    def _consume_iteration(self, stmt: cst.For, iter_expr: cst.BaseExpression, value: object) -> None:
        for dataset in _datasets_in(value):
            self._consume("for", stmt, dataset, iter_expr)

    def _record_training_call(self, call: cst.Call, method: str, arg_values: list[object]) -> None:
        for arg, value in zip(call.args, arg_values):
            keyword = arg.keyword.value if arg.keyword else None
            if keyword in (None, "x") and isinstance(value, DatasetValue):
                if keyword is None and arg is not next((a for a in call.args if a.keyword is None), None):
                    continue
                self._consume(method, call, value, arg.value)
            elif keyword == "validation_data" and isinstance(value, DatasetValue):
                self._consume("validation", call, value, arg.value)

    def _record_compile(self, call: cst.Call, receiver: object, arg_values: list[object],
                        frame: _Frame) -> None:
        optimizer = None
        arg = find_arg(call, "optimizer", 0)
        if arg is not None:
            value = arg_values[call.args.index(arg)]
            if isinstance(value, ObjectValue):
                optimizer = value
        model = receiver if isinstance(receiver, ObjectValue) else None
        self.compiles.append(CompileSite(call, model, optimizer, frame.loops, frame.arms))

    # ---- helpers called with datasets -----------------------------------------------------
    def _inline(self, helper: cst.FunctionDef, call: cst.Call, arg_values: list[object],
                frame: _Frame, cls: cst.ClassDef | None, bound: bool = False) -> object:
        if helper in self._inline_stack or len(self._inline_stack) >= MAX_INLINE_DEPTH:
            return None
        params = _all_params(helper.params)
        if bound and params:
            params = params[1:]
        # A helper sees the module's globals as they stand at the call, then its parameters.
        env: dict[str, object] = dict(self._module_frame.env) if self._module_frame else {}
        positional = [(a, v) for a, v in zip(call.args, arg_values) if a.keyword is None and not a.star]
        for param, (_, value) in zip(params, positional):
            env[param.name.value] = value
        for arg, value in zip(call.args, arg_values):
            if arg.keyword is not None:
                env[arg.keyword.value] = value
        for param in params:
            if param.name.value not in env:
                default = param.default
                if isinstance(default, cst.Name) and default.value in _LITERALS:
                    env[param.name.value] = _LITERALS[default.value]
                else:
                    env[param.name.value] = self._parameter_value(param)
        inner = _Frame(env=env, function=helper, cls=cls, locals_defs=dict(frame.locals_defs),
                       loops=frame.loops, arms=frame.arms, branch_depth=frame.branch_depth,
                       inlined=True)
        self._collect_nested(helper, inner)
        self._inline_stack.append(helper)
        try:
            self._run_block(_block_body(helper.body), inner)
        finally:
            self._inline_stack.pop()
            self._frame = frame
        result: object = None
        for value in inner.returns:
            result = _merge_values(result, value)
        return result

    # ---- mapped functions -----------------------------------------------------------------
    def _function_facts(self, fn: cst.BaseExpression, frame: _Frame, depth: int = 0) -> FunctionFacts:
        body: cst.CSTNode | None = None
        if isinstance(fn, cst.Lambda):
            body = fn.body
        elif isinstance(fn, cst.Name):
            body = frame.locals_defs.get(fn.value) or self.functions.get(fn.value)
        elif isinstance(fn, cst.Call) and self.qualified_name(fn.func) == "functools.partial" and fn.args:
            return self._function_facts(fn.args[0].value, frame, depth)
        elif (isinstance(fn, cst.Attribute) and isinstance(fn.value, cst.Name)
              and fn.value.value == "self" and frame.cls is not None):
            body = self.methods.get(frame.cls, {}).get(fn.attr.value)
        if body is None:
            return FunctionFacts()
        collector = _CallCollector()
        body.visit(collector)
        py_function = None
        randomness: cst.CSTNode | None = None
        for call in collector.calls:
            name = self.qualified_name(call.func)
            if name in PY_FUNCTION_NAMES and py_function is None:
                py_function = call
            elif name is not None and _is_random_name(name) and randomness is None:
                randomness = call
            elif name is None and isinstance(call.func, cst.Name):
                bound = frame.env.get(call.func.value)
                if isinstance(bound, ObjectValue) and bound.random and randomness is None:
                    randomness = call
                elif depth < 2 and call.func.value in self.functions and bound is None:
                    inner = self._function_facts(call.func, frame, depth + 1)
                    py_function = py_function or inner.py_function
                    randomness = randomness or inner.randomness
            elif name is None and isinstance(call.func, cst.Attribute):
                bound = self._eval_quiet(call.func.value, frame)
                if isinstance(bound, ObjectValue) and bound.random and randomness is None:
                    randomness = call
        for name_node in collector.names:
            bound = frame.env.get(name_node.value)
            if isinstance(bound, ObjectValue) and bound.random and randomness is None:
                randomness = name_node
        cheap = _is_simple_function(body) and all(
            (self.qualified_name(c.func) or "") in ("tensorflow.cast", "tensorflow.math.divide",
                                                    "tensorflow.math.multiply",
                                                    "tensorflow.math.add", "tensorflow.squeeze",
                                                    "tensorflow.expand_dims",
                                                    "tensorflow.one_hot", "tensorflow.reshape")
            for c in collector.calls
        )
        return FunctionFacts(True, py_function, randomness, cheap)

    def _eval_quiet(self, expr: cst.BaseExpression, frame: _Frame) -> object:
        key = dotted(expr)
        return frame.env.get(key) if key else None


class _CallCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.names: list[cst.Name] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Arg(self, node: cst.Arg) -> None:
        if isinstance(node.value, cst.Name):
            self.names.append(node.value)


_LITERALS = {"True": Constant(True), "False": Constant(False), "None": Constant(None)}


def _is_simple_function(body: cst.CSTNode) -> bool:
    """A lambda, or a def of a few assignments and a return: no loops, branches or nested defs."""
    if isinstance(body, cst.FunctionDef):
        statements = _block_body(body.body)
        return 0 < len(statements) <= 4 and all(
            isinstance(stmt, cst.SimpleStatementLine)
            and all(isinstance(small, (cst.Return, cst.Assign, cst.Expr)) for small in stmt.body)
            for stmt in statements
        )
    return True  # a lambda body (an expression)


def _block_body(block: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    if isinstance(block, cst.IndentedBlock):
        return block.body
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=block.body)]
    return ()


def _blocks_of(stmt: cst.If | cst.Try) -> Iterable[Sequence[cst.CSTNode]]:
    if isinstance(stmt, cst.If):
        yield _block_body(stmt.body)
        orelse = stmt.orelse
        while orelse is not None:
            yield _block_body(orelse.body)
            orelse = orelse.orelse if isinstance(orelse, cst.If) else None
    else:
        yield _block_body(stmt.body)
        for handler in stmt.handlers:
            yield _block_body(handler.body)


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    result = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    return result


def _unquote(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, cst.SimpleString):
        try:
            return cst.parse_expression(expr.evaluated_value)
        except Exception:
            return expr
    return expr


def _datasets_in(value: object) -> list[DatasetValue]:
    if isinstance(value, DatasetValue):
        return [value]
    if isinstance(value, Collection):
        found = []
        for item in value.items:
            found.extend(_datasets_in(item))
        return found
    return []


def _merge_values(a: object, b: object) -> object:
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, DatasetValue) and isinstance(b, DatasetValue):
        return a.merged(b)
    if isinstance(a, Collection) and isinstance(b, Collection) and len(a.items) == len(b.items) \
            and a.is_mapping == b.is_mapping:
        return Collection(tuple(_merge_values(x, y) for x, y in zip(a.items, b.items)), a.is_mapping)
    return a


def _merge_envs(envs: list[dict[str, object]]) -> dict[str, object]:
    merged: dict[str, object] = {}
    for env in envs:
        for name, value in env.items():
            if name in merged:
                merged[name] = _merge_values(merged[name], value) if merged[name] is not value else value
            else:
                merged[name] = value
    return merged
