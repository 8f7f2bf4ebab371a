"""`PipelineModel`: the facts of one module, built by one run of the interpreter, queried by rules.

It answers three questions without importing anything: where does each tf.data dataset come from
(origins, resolved by qualified name whatever the import style), which ops does it pass through, in
which order and on which control-flow path (a value is a set of alternative `DatasetPath`s), and
who consumes it (`fit`, a `for` loop, `iter`, a distribution strategy, a `return` to an unknown
caller). It also holds the module's calls, Keras compile sites, classes and definitions.

A receiver is only ever treated as a dataset when its origin is known (a tf.data/TFDS/Keras
constructor, a parameter annotated `tf.data.Dataset`, a local helper returning one) or when the
chain carries tf.data-only evidence (`tf.data.AUTOTUNE`, `.prefetch(`, `.interleave(`...). That is
what keeps pandas `.map`, Spark `.cache()` and a user's own `Batcher.batch()` silent.
"""
from __future__ import annotations

import ast
import io
import keyword
import os
import re
import tokenize
from collections import Counter
from typing import Callable, Iterable, Iterator

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from pipelint.model.catalogue import DATASET_METHODS, DECODING_SOURCES, canonical
from pipelint.model.datasets import TRAINS_SOMEWHERE
from pipelint.model.expressions import DESCRIBING_BUILTINS
from pipelint.model.functions import switched_off_by_arguments, calls_in
from pipelint.model.imports import ImportTable
from pipelint.model.interpreter import Interpreter
from pipelint.model.keras import KerasQueries
from pipelint.model.order import SourceOrder, source_order
from pipelint.model.service import ServiceHandOff, service_hand_off
from pipelint.model.syntax import (all_params, ancestors, block_body, find_arg, innermost, is_bool, is_false, literal_int,
                                   nodes_of, runs_once, statements_in_order)
from pipelint.model.unreachable import NeverReached, never_reached
from pipelint.target import Target
from pipelint.model.values import (
    NOT_TRAINING, ONLY_EVALUATION, CallSite, CompileSite, Consumer, DatasetPath, FunctionFacts, Op, OpSite, Origin,
)


# Option settings that switch off one of tf.data's default graph rewrites. They act through
# `with_options`, so a pipeline without one keeps the defaults whatever the module sets.
_SWITCHES_OFF = {
    # `inject_prefetch` runs only under autotuning, as one of the default optimizations.
    "inject_prefetch": re.compile(
        r"\b(?:inject_prefetch|apply_default_optimizations|autotune\.enabled|autotune)\s*=\s*False\b"),
    "map_parallelization": re.compile(r"\b(?:map_parallelization|apply_default_optimizations)\s*=\s*False\b"),
    "map_and_batch_fusion": re.compile(r"\b(?:map_and_batch_fusion|apply_default_optimizations)\s*=\s*False\b"),
}


def source_tokens(source: str) -> list[tokenize.TokenInfo] | None:
    """The module's tokens (None when it does not tokenize): read once, by the questions below."""
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def names_only_bound_or_chained(every: list[tokenize.TokenInfo]) -> set[str]:
    """The names whose every mention is `name = ...`, `for name in ...`, `name.<dataset method>(`
    or an import (`from data import name`, then `name = name.cache()`), among `every` token."""
    imported: set[tuple[int, int]] = set()  # where the names of import statements are
    starts, in_import = True, False
    for token in every:
        if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT) or token.string == ";":
            starts, in_import = True, False
            continue
        if token.type in (tokenize.NL, tokenize.COMMENT):
            continue
        if starts and token.type == tokenize.NAME and token.string in ("import", "from"):
            in_import = True
        elif in_import and token.type == tokenize.NAME:
            imported.add(token.start)
        starts = False
    tokens = [t for t in every if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                                 tokenize.DEDENT)]
    seen: set[str] = set()
    used: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type != tokenize.NAME or token.start in imported:
            continue
        seen.add(token.string)
        after = [t.string for t in tokens[index + 1:index + 4]]
        previous = tokens[index - 1].string if index else ""
        if previous == ".":
            continue  # an attribute, not the name
        if after[:1] == ["="] or (previous == "for" and after[:1] == ["in"]):
            continue  # bound: `ds = ...`, `for ds in datasets:`
        if len(after) == 3 and after[0] == "." and after[1] in DATASET_METHODS and after[2] == "(":
            continue
        used.add(token.string)
    return seen - used


def read_by_importers(project: object | None, name: str) -> bool | None:
    """Does a project module that imports this one (by any name) mention `name`? None when no
    project module imports this one (or no project is in sight): then it may be run, or imported
    from outside the project."""
    mentioned = getattr(project, "mentioned_by_importers", None)
    return mentioned(name) if mentioned is not None else None


# Calls that load a dataset (`_loads_data`).
_LOADING_SOURCES = frozenset({"tensorflow_datasets.load", "keras.utils.image_dataset_from_directory",
                              "keras.utils.text_dataset_from_directory", "keras.utils.audio_dataset_from_directory",
                              "keras.datasets.mnist.load_data", "keras.datasets.cifar10.load_data"})
#: At most this many numbers written in the source: a demo's dataset (`toy_source`).
_TOY_ELEMENTS = 1000
# The dataset methods that apply a function of the user's to each element (or file).
_FUNCTION_OPS = frozenset({"map", "interleave", "flat_map", "filter", "parallel_interleave"})


def _names_bound_in(stmt: cst.CSTNode) -> set[str]:
    return {t.target.value for assign in nodes_of(stmt, cst.Assign) for t in assign.targets
            if isinstance(t.target, cst.Name)}


class _CallOnly:
    """A call asked about as an op's call is (`_in_dead_function` keys on `.call`)."""

    def __init__(self, call: cst.Call) -> None:
        self.call = call


def _name_counts(every: list[tokenize.TokenInfo]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for token in every:
        if token.type == tokenize.NAME:
            counts[token.string] = counts.get(token.string, 0) + 1
    return counts


Mention = tuple[str, list[str], "str | None", int]


# What a Keras iterator says of its data without loading a batch (`flow.class_indices`).
_DESCRIBING_ATTRIBUTES = frozenset({"class_indices", "classes", "filenames", "filepaths", "_filepaths", "samples", "n",
                                    "index_array",
                                    "num_classes", "image_shape", "batch_size", "labels", "directory",
                                    "class_mode", "target_size", "color_mode",
                                    "x", "y"})  # (`flow(x, y).x`: the arrays it was given, not a batch)
# The function a TFLite converter calibrates with (`converter.representative_dataset = gen`).
_REPRESENTATIVE = re.compile(r"\brepresentative_dataset\s*=\s*(?:lambda\s*:\s*)?([A-Za-z_]\w*)")
# The ops whose functions `calls_in_dataset_functions` reads (a rule that weighs every site of
# one such call asks the same ones).
FUNCTION_SITE_OPS = ("map", "filter", "interleave", "flat_map")
# A call that scores or applies a model (`model.predict(x)`).
_RUNS_A_MODEL = re.compile(r"\.(?:predict|evaluate)\w*\s*\(|\b(?:no_grad|inference_mode)\s*\(")  # (or PyTorch's)
# Keras calls that read a generator's batches without training on them.
_EVALUATING_METHODS = frozenset({"evaluate", "evaluate_generator", "predict", "predict_generator",
                                 "predict_on_batch", "test_on_batch"})
# Builtins that read one item of their argument, or only describe it: `next(gen)`, `type(gen)`.
_LOOKING_CALLS = frozenset({"next", "type", "len", "print", "repr", "id"})


# `if ADBD > 0:`: a test of a name against an integer, which the module may fix.
_COMPARED_FLAG = re.compile(r"\bif\s+\w+\s*(?:[<>]=?|==|!=)\s*-?\d")
_INT_COMPARISONS = {cst.GreaterThan: lambda a, b: a > b, cst.GreaterThanEqual: lambda a, b: a >= b,
                    cst.LessThan: lambda a, b: a < b, cst.LessThanEqual: lambda a, b: a <= b,
                    cst.Equal: lambda a, b: a == b, cst.NotEqual: lambda a, b: a != b}
# Matches any text: `importers_say(_ANYTHING)` asks whether the project has an importer at all.
_ANYTHING = re.compile("")
# Words of a name that holds held-out data (`named_held_out`).
_HELD_OUT_WORDS = frozenset({"val", "valid", "validation", "test", "eval", "evaluation", "dev"})
# A loop that trains on the batches it pulls itself (`off_training_flows`: then `gen[i]` may be trained on).
# (a `GradientTape` alone computes gradients, as Grad-CAM does: training applies them)
_OWN_TRAINING_LOOP = re.compile(r"train_on_batch|apply_gradients|\.minimize\(|sess\.run|session\.run")
# Showing an image, and writing one (`_only_plots`).
_PLOTS = re.compile(r"\bimshow\s*\(")
_WRITES = re.compile(r"\b(?:imwrite|imsave|save_img|savez?)\s*\(|\.save(?!fig)\w*\s*\(|\bsave_to_dir\b")
# A loop of at most this many rounds pulls a handful of batches to look at, not to train on.
_FEW_PULLS = 16
# Calls that train, in a loop's body: its batches are trained on, however few.
_TRAINING_CALLS = frozenset({"fit", "fit_generator", "train_on_batch", "train_step", "apply_gradients", "minimize",
                             "run", "gradient", "backward", "step"})


def _literal_range_length(iterable: cst.BaseExpression) -> int | None:
    """How many rounds `range(k)` or `range(a, b)` with literal bounds runs (None: not such)."""
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range"
            and 1 <= len(iterable.args) <= 2 and all(a.keyword is None for a in iterable.args)):
        return None
    bounds = [literal_int(a.value) for a in iterable.args]
    if None in bounds:
        return None
    return bounds[0] if len(bounds) == 1 else bounds[1] - bounds[0]


def _returned_items(value: cst.BaseExpression | None) -> list[cst.BaseExpression]:
    """What a `return` hands back, one item per value: a tuple's elements, else the value itself."""
    if isinstance(value, cst.Tuple):
        return [element.value for element in value.elements]
    return [value] if value is not None else []


def _in_targets(name: cst.Name, assign: cst.Assign) -> bool:
    return any(name is node for target in assign.targets for node in nodes_of(target.target, cst.Name))


def _is_range(iterable: cst.BaseExpression) -> bool:
    return isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range"


def _trains_in(calls: list[cst.Call], names: frozenset[str] = _TRAINING_CALLS) -> bool:
    """Does one of these calls (a loop body's) train: `fit`, `train_on_batch`, `minimize`...?"""
    return any(_callee_name(call.func) in names for call in calls
               if isinstance(call.func, (cst.Name, cst.Attribute)))


# (a function's `tape.gradient` alone computes gradients, as Grad-CAM does: training applies them)
_APPLYING_CALLS = _TRAINING_CALLS - {"gradient"}


def _callee_name(func: cst.Name | cst.Attribute) -> str:
    return func.value if isinstance(func, cst.Name) else func.attr.value


def _describes(following: list[str]) -> bool:
    """Do the tokens after a mention read what a Keras iterator says of itself
    (`flow.class_indices`), or only rewind it (`flow.reset()`, before a `predict` in order), and
    load no batch?"""
    if following[:1] != ["."] or not following[1:2]:
        return False
    if following[1] == "reset":
        return following[2:4] == ["(", ")"]
    return following[1] in _DESCRIBING_ATTRIBUTES and following[2:3] != ["("]


def _name_mentions(every: list[tokenize.TokenInfo], unreached: frozenset[int] = frozenset()
                   ) -> tuple[dict[str, list[Mention]], dict[str, list[int]], dict[str, list[int]],
                              dict[str, list[int]]]:
    """Per name, each mention that is not a binding or an attribute: the token before it, the
    four after it, the name bound by the statement whose value the mention starts (`gen =
    datagen.flow(`), and its block depth; per name the block depths of its bindings; and, in
    the same order, each mention's and each binding's place in the token stream. A
    mention as the sole argument of `next(` (or `type(`, `len(`, `print(`...) reads as
    ("(", [")"...]); other calls' arguments read as "call". Mentions on `unreached` lines are none."""
    tokens: list[tuple[tokenize.TokenInfo, int]] = []
    starts: set[int] = {0}  # indices of the tokens that begin a statement
    depth = 0
    for token in every:
        if token.type == tokenize.INDENT:
            depth += 1
        elif token.type == tokenize.DEDENT:
            depth -= 1
        elif token.type == tokenize.NEWLINE or token.string == ";":
            starts.add(len(tokens) + (token.string == ";"))
            if token.string == ";":
                tokens.append((token, depth))
        elif token.type not in (tokenize.COMMENT, tokenize.NL):
            tokens.append((token, depth))
    found: dict[str, list[Mention]] = {}
    bindings: dict[str, list[int]] = {}
    found_at: dict[str, list[int]] = {}
    bound_at: dict[str, list[int]] = {}
    header = -1  # the bracket depth inside a `def`'s parameter list (-1: not in one)
    for index, (token, depth) in enumerate(tokens):
        if token.string == "def" and token.type == tokenize.NAME:
            header = 0
        elif header >= 0 and token.type == tokenize.OP:
            header += (token.string in "([{") - (token.string in ")]}")
            if token.string == ":" and header == 0:
                header = -1
        if token.type != tokenize.NAME or keyword.iskeyword(token.string):
            continue
        previous = tokens[index - 1][0].string if index else ""
        if header == 1 and previous in ("(", ",", "*", "**"):
            continue  # (`def evaluate(model, test_gen):` declares a parameter: no use of the caller's `test_gen`)
        following = [t.string for t, _ in tokens[index + 1:index + 5]]
        if previous == ".":
            continue
        if following[:1] == ["="] or (previous == "for" and following[:1] == ["in"]):
            bindings.setdefault(token.string, []).append(depth)
            bound_at.setdefault(token.string, []).append(index)
            continue
        if previous in ("import", "as", "def", "class") or token.start[0] in unreached:
            continue
        if previous == "(" and following[:1] == [")"] and (
                index < 2 or tokens[index - 2][0].string not in _LOOKING_CALLS):
            previous = "call"  # `f(gen)`: handed on, a use
        # (`name = gen.flow(`, a statement of its own; not a keyword argument `validation_data=`)
        bound = tokens[index - 2][0].string if previous == "=" and index - 2 in starts \
            and tokens[index - 2][0].type == tokenize.NAME else None
        if previous == "(" and index >= 3 and tokens[index - 2][0].string == "=" and index - 3 in starts \
                and tokens[index - 3][0].type == tokenize.NAME:
            bound = tokens[index - 3][0].string  # `gen = (datagen.flow(...))`
        found.setdefault(token.string, []).append((previous, following, bound, depth))
        found_at.setdefault(token.string, []).append(index)
    return found, bindings, found_at, bound_at


# Keras' bundled datasets (`keras.datasets.<name>.load_data()`): examples in the train and test splits.
_KERAS_DATASET_SIZES = {"mnist": (60_000, 10_000), "fashion_mnist": (60_000, 10_000),
                        "cifar10": (50_000, 10_000), "cifar100": (50_000, 10_000)}

# The names a snippet pasted from TensorFlow's docs uses without importing them.
_CONVENTIONAL_NAMES = {"tf": "tensorflow", "keras": "keras"}


def _pasted_names(source: str) -> dict[str, str]:
    """`tf`/`keras` in a module that never imports or binds them and only ever reads attributes
    of them (`tf.data.Dataset...` pasted from the docs, a notes file): the names can only mean
    TensorFlow and Keras, so the module is read as if it imported them."""
    found: dict[str, str] = {}
    for local, module in _CONVENTIONAL_NAMES.items():
        if f"{local}." not in source:
            continue
        if re.search(rf"^\s*(?:import|from)\s+{module}\b", source, re.M):
            continue  # imports the package under another name or in part: its own choice
        if any(source[m.end():m.end() + 1] != "." or source[m.start() - 1:m.start()] == "."
               for m in re.finditer(rf"\b{local}\b", source)):
            continue  # bound, passed or shadowed somewhere (`tf = ...`, `def f(tf)`, `x.tf`)
        found[local] = module
    return found


class PipelineModel(KerasQueries):
    """Built once per module by `PipelineModel.build(module)`; read by every rule."""

    def __init__(self, module: cst.Module, source: str | None = None, project: object | None = None) -> None:
        self.module = module
        #: This module's view of the project index (`pipelint.project.ModuleView`), or None.
        self.project = project
        self.imports = ImportTable(getattr(project, "package", None))
        loaded = getattr(project, "loaded_modules", None)
        for local, module in (loaded() if loaded is not None else {}).items():
            self.imports.names.setdefault(local, module)  # `loading = importlib.util.module_from_spec(spec)`
        self._source = source
        for local, module in _pasted_names(self.source).items():
            self.imports.names.setdefault(local, module)
        self.op_sites: dict[cst.Call, OpSite] = {}
        self.consumers: list[Consumer] = []
        self.origins: list[Origin] = []
        self.calls: list[CallSite] = []
        self.compiles: list[CompileSite] = []
        self.classes: list[cst.ClassDef] = []
        self.attribute_assignments: list[cst.Attribute] = []
        self.functions: dict[str, cst.FunctionDef] = {}
        self.methods: dict[cst.ClassDef, dict[str, cst.FunctionDef]] = {}
        #: What each function's own run saw: the expressions it returns, the attributes it sets.
        self.returns: dict[cst.FunctionDef, list[cst.BaseExpression]] = {}
        self.assigned_attributes: dict[cst.FunctionDef, list[cst.Attribute]] = {}
        #: The name each op's chain is bound to (`name = ds.map(f)`), and whether that binding is a
        #: module-level one (which another module may import).
        self.bindings: dict[Op, tuple[str, bool]] = {}
        #: Ops whose chain is a statement of its own, its value thrown away (`ds.map(f).batch(8)`).
        self.discarded: set[Op] = set()
        #: A notebook: nothing imports its names (set by the engine).
        self.notebook = False
        #: May another module read this module's names? Not a notebook's, nor a whole script's
        #: whose file name no import can name (set by the engine).
        self.importable = True
        #: The TensorFlow and Keras the module is written for (set by the engine; pipelint/target.py).
        self.target = Target()
        self._calibration: frozenset[str] | None = None
        self._script: bool | None = None
        self._enclosing: dict[cst.Call, str] | None = None
        self._never_called: dict[str, bool] = {}
        self._called: set[str] | None = None  # the names the module's calls call (`f(`, `.f(`)
        self._words: Counter[str] | None = None  # each word of the text, as often as it is written
        self._dropped: dict[Op, bool] = {}
        self._unused_names: set[str] | None = None
        self._name_mentions: dict[str, list[Mention]] | None = None
        self._mention_places: dict[str, list[int]] = {}
        self._plots_only: bool | None = None
        self._binding_places: dict[str, list[int]] = {}
        self._name_bindings: dict[str, list[int]] = {}
        self._dead_calls: set[int] | None = None  # ids of the calls under `if False:` or after a NameError
        self._unreached: NeverReached | None = None
        self._dead_ifs: list[cst.CSTNode] | None = None
        self._name_counts: dict[str, int] | None = None
        self._token_list: list[tokenize.TokenInfo] | None | bool = False  # False: not read yet
        self._once: Counter[str] | None = None
        self._few: Counter[str] | None = None
        self._listed: Counter[str] | None = None
        self._feeds: dict[str, list[str]] | None = None
        self._assigns: list[cst.Assign] | None = None
        #: id(value) -> (the plain name a one-target assignment binds it to, at module level?)
        self._assigned_values: dict[int, tuple[str, bool]] | None = None
        #: Run as a caller of another project module: the datasets each of that module's
        #: functions received here, by qualified name (`Class.method`) and parameter.
        self.seeds: dict[str, dict[str, object]] = {}
        self._source = source
        self._bound_once: dict[str, cst.BaseExpression] | None = None
        self._switches_off: dict[str, bool] = {}  # rewrite -> does this module's text switch it off
        self._source_orders: dict[Origin, SourceOrder | None] = {}
        self._lines: dict[cst.CSTNode, int] | None = None
        self._continuations: dict[Op, list[tuple[Op, ...]]] | None = None
        self._consumers_by_op: dict[Op, list[Consumer]] | None = None

    @classmethod
    def build(cls, module: cst.Module, source: str | None = None,
              statement_of: dict[cst.CSTNode, cst.CSTNode] | None = None,
              project: object | None = None) -> "PipelineModel":
        """Interpret `module` once. `statement_of`, when given, is filled with the top-level
        statement holding each node a rule may report (see `pipelint.positions`). `project`:
        the module's view of the project index, so that calls into other modules are followed."""
        model = cls(module, source, project)
        Interpreter(model, statement_of).run()
        model._settle_iterators()
        return model

    def _settle_iterators(self) -> None:
        """`it = iter(ds)` whose only uses are a `next(it)` or two where it was made (a notebook
        cell that shows a batch) is a look at the data, not a loop over it."""
        if "iter(" not in self.source:
            return
        for consumer in self.consumers:
            if consumer.kind == "iter" and isinstance(consumer.node, cst.Call) and consumer.where is None:
                name = self._bound_name(consumer.node)
                if name is not None and self._mentions().get(name) and self._looked_at_name(name):
                    consumer.kind = "peek"

    @property
    def source(self) -> str:
        """The module's text (given by the engine; regenerating it from the tree is slow)."""
        if self._source is None:
            self._source = self.module.code
        return self._source

    def qualified_name(self, expr: cst.BaseExpression) -> str | None:
        return self.imports.resolve(expr)

    def uses_keras3(self) -> bool:
        """Imports TensorFlow/Keras, and not Keras 2 (`tf_keras`, `TF_USE_LEGACY_KERAS`, or a target
        whose Keras is 2: TensorFlow before 2.16, standalone Keras 2 pinned or written for)."""
        if self.imports.imports_any("tf_keras") or not self.imports.imports_any("tensorflow", "keras"):
            return False
        if self.target.keras_major < 3:
            return False
        return "TF_USE_LEGACY_KERAS" not in self.source

    def tensorflow_alias(self) -> str | None:
        return self.imports.alias_for("tensorflow")

    def _autotune_in_data(self) -> str:
        """`AUTOTUNE` under `tf.data` on the target: TensorFlow 2.4 brought it to the core API;
        from 1.13 to 2.3 it is `experimental.AUTOTUNE`."""
        return "experimental.AUTOTUNE" if self.target.is_before((2, 4)) else "AUTOTUNE"

    def autotune_spelling(self) -> str:
        """`tf.data.AUTOTUNE` as the target TensorFlow spells it."""
        return f"tf.data.{self._autotune_in_data()}"

    def autotune_expression(self) -> str | None:
        """How this module can spell tf.data.AUTOTUNE (on its target) without a new import, if it can."""
        if self.target.is_before((1, 13)):
            return None  # (no AUTOTUNE yet: a number of calls is the user's to choose)
        in_data = self._autotune_in_data()
        alias = self.tensorflow_alias()
        if alias:
            return f"{alias}.data.{in_data}"
        for local, full in self.imports.names.items():
            if canonical(full) in ("tensorflow.data.AUTOTUNE", f"tensorflow.data.{in_data}"):
                return local
            if full == "tensorflow.data":
                return f"{local}.{in_data}"
        return None

    def ops(self, *names: str, elsewhere: bool = False) -> Iterator[OpSite]:
        """This module's op sites (ops in other project modules are only on the paths; with
        `elsewhere`, their sites too: a split there of a dataset shuffled here), less those
        whose datasets are built and dropped: nothing ever reads them, so no finding there matters."""
        for site in self.op_sites.values():
            if (not names or site.op.name in names) and (elsewhere or site.op.where is None) \
                    and not self.dropped(site.op):
                yield site

    def calibration_functions(self) -> frozenset[str]:
        """The functions this module hands a TFLite converter as its `representative_dataset`
        (`converter.representative_dataset = gen`): what they read calibrates a quantized model
        once, on a few hundred samples; nothing trains on it."""
        if self._calibration is None:
            self._calibration = frozenset(_REPRESENTATIVE.findall(self.source)) \
                if "representative_dataset" in self.source else frozenset()
        return self._calibration

    def never_called(self, function: str) -> bool:
        """Is this module's function `function` dead code: nothing here calls or names it but its
        own definition, and the project modules that import this one never mention it? (False
        when no project module imports this one: a script's function may be run from outside.)"""
        known = self._never_called.get(function)
        if known is None:
            known = self._never_called[function] = self._is_never_called(function)
        return known

    def _is_never_called(self, function: str) -> bool:
        # (Asked for every op of a function: the calls and the text are read once per name.)
        if self._called is None:
            # (once per module: every op of every function asks)
            self._called = {site.call.func.value if isinstance(site.call.func, cst.Name) else site.call.func.attr.value
                            for site in self.calls if isinstance(site.call.func, (cst.Name, cst.Attribute))}
        if function in self._called:
            return False
        # (the text first: only a name written more than once needs the tokens, which leave out
        # its mentions in comments, `# train()`, and strings, `"train"`)
        if self._word_count(function) > 1 and self._name_tokens().get(function, 0) > 1:
            return False  # named elsewhere here: handed on, registered, called through a name
        read = read_by_importers(self.project, function)
        # No project module imports this one: dead when it runs as a script (top to bottom) and
        # never calls it; a file of definitions alone may be imported from outside the project.
        return read is False or (read is None and self._runs_as_script())

    def _word_count(self, name: str) -> int:
        """How often the text writes `name` as a whole word (comments and strings included)."""
        if self._words is None:
            self._words = Counter(re.findall(r"\w+", self.source))
        return self._words[name]

    def _module_assigns(self) -> list[cst.Assign]:
        """Every plain assignment of the module, collected once (`bound_once`, `_bound_name`)."""
        if self._assigns is None:
            self._assigns = nodes_of(self.module, cst.Assign)
        return self._assigns

    def _tokens(self) -> list[tokenize.TokenInfo] | None:
        """This module's tokens, read once (`source_tokens`)."""
        if self._token_list is False:
            self._token_list = source_tokens(self.source)
        return self._token_list

    def _name_tokens(self) -> dict[str, int]:
        """How many times each name is written in the module's code (not in its comments, `#
        train()`, nor in its strings, `"train"`)."""
        if self._name_counts is None:
            every = self._tokens()
            # (unreadable as tokens: every name counts as written twice, so nothing reads as dead)
            self._name_counts = _name_counts(every) if every is not None else {
                name: 2 for name in re.findall(r"\w+", self.source)}
        return self._name_counts

    def toy_source(self, path: DatasetPath) -> bool:
        """Does the path start from a handful of numbers written in the source (`range(100)`,
        `from_tensor_slices(np.arange(5))`, a list of a few numbers)? Its whole input costs
        microseconds: no performance advice on it is worth reading (a demo, not a job)."""
        node = path.origin.node
        if not isinstance(node, cst.Call):
            return False
        if path.origin.kind == "tensorflow.data.Dataset.range":
            bounds = [self._int_value(a.value) for a in node.args if a.keyword is None]
            return bool(bounds) and None not in bounds and max(bounds) <= _TOY_ELEMENTS
        if path.origin.kind != "tensorflow.data.Dataset.from_tensor_slices":
            return False
        given = find_arg(node, "tensors", 0)
        return given is not None and self._few_numbers(given.value, anchor=node)

    def toy_pipeline(self, path: DatasetPath, then: Op | None = None) -> bool:
        """A `toy_source` whose functions (those of its ops, and of `then`, the op that continues
        it) are all in sight and all TensorFlow (no Python, no function of unknown cost:
        `range(4).map(load)` may read a file per index)."""
        if not self.toy_source(path):
            return False
        for op in (*path.all_ops(), *([then] if then is not None else [])):
            if op.name not in _FUNCTION_OPS:
                continue
            facts = op.facts
            if not facts.known or facts.py_function is not None or facts.where is not None:
                return False
            called = facts.stateful_call
            name = self.qualified_name(called.func) if isinstance(called, cst.Call) else None
            if called is not None and not (name or "").startswith("tensorflow."):
                return False
        return True

    def _top_level_binding_before(self, name: str, node: cst.CSTNode) -> cst.BaseExpression | None:
        """The value of the last top-level `name = ...` before the top-level statement holding
        `node` (a tutorial rebinds `x` cell after cell: each dataset reads the latest)."""
        around = ancestors(self.module, node)
        holder = around[1] if around and len(around) > 1 else None  # the top-level statement
        latest = None
        for stmt in self.module.body:
            if stmt is holder:
                return latest
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and any(
                            isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets):
                        latest = small.value if len(small.targets) == 1 else None
            elif name in _names_bound_in(stmt):
                latest = None  # bound in a block: which value holds is not known here
        return None

    def _int_value(self, expr: cst.BaseExpression) -> int | None:
        """An integer literal, or a name the module binds once to one (`num_items = 11`)."""
        if isinstance(expr, cst.Name):
            bound = self.bound_once(expr.value)
            return literal_int(bound) if bound is not None else None
        return literal_int(expr)

    def _few_numbers(self, expr: cst.BaseExpression, depth: int = 0, anchor: cst.CSTNode | None = None) -> bool:
        if depth > 3:
            return False
        if isinstance(expr, cst.Name):
            bound = self.bound_once(expr.value)
            if bound is None and anchor is not None:
                bound = self._top_level_binding_before(expr.value, anchor)
            return bound is not None and self._few_numbers(bound, depth + 1)
        if isinstance(expr, (cst.List, cst.Tuple)):
            return 0 < len(expr.elements) <= _TOY_ELEMENTS and all(
                isinstance(e, cst.Element) and (isinstance(e.value, (cst.Integer, cst.Float))
                                                or self._few_numbers(e.value, depth + 1))
                for e in expr.elements)
        if isinstance(expr, cst.Call) and self.qualified_name(expr.func) in ("numpy.arange", "numpy.array"):
            if self.qualified_name(expr.func) == "numpy.array":
                return bool(expr.args) and self._few_numbers(expr.args[0].value, depth + 1)
            bounds = [self._int_value(a.value) for a in expr.args if a.keyword is None][:2]
            return bool(bounds) and None not in bounds and max(bounds) <= _TOY_ELEMENTS
        return False

    def _runs_as_script(self) -> bool:
        """Does the module run statements at its top level (calls, loops, `if __name__ == ...`),
        as a script or a notebook does, rather than only define things for importers?"""
        if self.notebook:
            return True
        known = self._script
        if known is None:
            known = self._script = any(
                isinstance(stmt, (cst.For, cst.While, cst.With, cst.If))
                or isinstance(stmt, cst.SimpleStatementLine) and any(
                    isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
                    or isinstance(small, cst.Assign) and self._loads_data(small.value) for small in stmt.body)
                for stmt in self.module.body)
        return known

    def _loads_data(self, value: cst.BaseExpression) -> bool:
        """`(train, test), info = tfds.load(...)` at the top level: a module that loads a dataset
        when it runs is a script (or a notebook exported as one), not a file of definitions."""
        if not isinstance(value, cst.Call):
            return False
        name = self.qualified_name(value.func) or ""
        return name in _LOADING_SOURCES or name.startswith("tensorflow.data.") and name.rsplit(".", 1)[-1] != "Options"

    def _in_dead_function(self, op: Op) -> bool:
        """Is `op` written in a function of this module (at its top level) that never runs?"""
        if self._enclosing is None:
            self._enclosing = {}
            for stmt in self.module.body:
                # A top-level function, or a method (by its name: it may be called on any instance).
                defs = [stmt] if isinstance(stmt, cst.FunctionDef) else [
                    inner for inner in block_body(stmt.body) if isinstance(inner, cst.FunctionDef)
                ] if isinstance(stmt, cst.ClassDef) else []
                for function in defs:
                    # (`__init__`, `__call__`, `__iter__`...: run by Python itself; only the calls
                    # of functions that never run are kept. `__training`, a private name, is not one.)
                    name = function.name.value
                    if name.startswith("__") and name.endswith("__") or not self.never_called(name):
                        continue
                    for call in calls_in(function):
                        self._enclosing[call] = function.name.value
        function = self._enclosing.get(op.call)
        return function is not None and self.never_called(function)

    def in_dead_function(self, call: cst.Call) -> bool:
        """Is `call` written in a function of this module that never runs?"""
        return self._in_dead_function(_CallOnly(call))

    def only_looked_at(self, call: cst.Call, passes: frozenset[str], neutral: frozenset[str] = frozenset()) -> bool:
        """Is what `call` builds never used for work: written in code that never runs (a function
        nobody calls, an `if` on a flag the module sets to False), or bound to a name that the
        module reads only to call one of `passes` on it (`datagen.flow(...)`) where it was bound,
        the results of which are in turn bound to names never read, or read only by one
        `next(...)` where they were made (a look at a batch)? Calls of `neutral` methods on it (`datagen.fit(x)`) use
        nothing. Any other mention (an argument, a loop, a return, a read by another module)
        counts as use."""
        if self.in_dead_function(call) or self._never_runs(call):
            return True
        name = self._bound_name(call)
        if name is not None and "return" in self.source and self._returned_only_unread(name, call):
            return True
        if name is None:
            # `gen = ImageDataGenerator(...).flow_from_directory(...)`: the flow made in place
            flow = next((site.call for site in self.calls if isinstance(site.call.func, cst.Attribute)
                         and site.call.func.value is call and site.call.func.attr.value in passes), None)
            flow_name = self._bound_name(flow) if flow is not None else None
            return flow_name is not None and self._looked_at_name(flow_name)
        uses = self._until_rebound(name, call)
        # `for x, y in datagen.flow(x_train[:3], ...): plot(x); break`: one batch, looked at
        inline_looks = sum(1 for loop in nodes_of(self.module, cst.For)
                           if isinstance(loop.iter, cst.Call) and isinstance(loop.iter.func, cst.Attribute)
                           and loop.iter.func.attr.value in passes and isinstance(loop.iter.func.value, cst.Name)
                           and loop.iter.func.value.value == name and self._pulls_few(loop))
        for previous, following, flow_result, depth in uses:
            if following[:1] == ["."] and following[1:2] and following[1] in neutral:
                continue
            if previous == "in" and inline_looks and following[:1] == ["."] and following[1:2] \
                    and following[1] in passes:
                inline_looks -= 1
                continue
            if following[:1] == ["."] and following[1:2] and following[1] in passes and following[2:3] == ["("]:
                # (a flow made in a loop below the generator's binding makes batches for real,
                # augmented copies written to disk, unless the module only plots them)
                if flow_result is None or depth > self._binding_depth(name) and not self._only_plots() \
                        or not (self._looked_at_name(flow_result) or self._flow_returned_unread(name, flow_result, passes)):
                    return False
                continue
            return False
        return True

    def _until_rebound(self, name: str, call: cst.Call) -> list[Mention]:
        """`name`'s mentions that may read what `call` builds: in a script that binds the name
        only at its top level, those after this binding and before the next (`train_datagen =
        ...` for a preview, then again for training); every mention otherwise."""
        uses = self._mentions().get(name, [])
        depths = self._name_bindings.get(name, [])
        if len(depths) < 2 or any(depths):
            return uses
        top = [small for stmt in self.module.body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body
               if isinstance(small, cst.Assign) and len(small.targets) == 1
               and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name]
        here = next((index for index, assign in enumerate(top) if assign.value is call), None)
        places = self._binding_places.get(name, [])
        if here is None or len(top) != len(places) or any(
                node.value == name for assign in top[here + 1:] for node in nodes_of(assign.value, cst.Name)):
            return uses  # (`train_datagen = train_datagen.flow_from_directory(...)`: the next binding reads it)
        start, end = places[here], places[here + 1] if here + 1 < len(places) else None
        return [use for use, place in zip(uses, self._mention_places.get(name, []))
                if place > start and (end is None or place < end)]

    def handed_only_to_lookers(self, call: cst.Call, passes: frozenset[str]) -> bool:
        """Is what `call` builds bound to a name whose every mention hands it to a function (of
        this module or the project) that only calls one of `passes` on it and reads back only
        what the result describes (`aug.flow(x, y).x`: the arrays it was given, no batch)?"""
        name = self._bound_name(call)
        if name is None:
            return False
        handed = self._handed_as_arguments({name})
        mentions = self._mentions().get(name, [])
        return bool(handed) and len(handed) == len(mentions) and all(
            self._only_describes(site, arg, passes) for site, arg in handed)

    def off_training_flows(self, flows: list[cst.Call]) -> bool:
        """Are these calls' results (a generator's flows) bound to names that the module hands
        only to `evaluate`/`predict` (or a function that only does that with them), or as the
        `validation_data` of training calls that load under half as many validation batches as
        training ones where both counts are written (`validates_much`)? Never to a training call
        to train on, nor anywhere else. Validation loading is a small part of an epoch's (blind
        readers of pools 2029-2039 judged 38 of 39 findings on data only validated on not worth
        acting on), and a training generator's finding says what to change for both."""
        # (a batch looked at beside: `next(test_gen)` for a figure, where no loop of the module trains
        # on batches it pulls itself)
        handed = self._flows_handed(flows, looks=_OWN_TRAINING_LOOP.search(self.source) is None)
        return bool(handed) and all(self._evaluates(site, arg) or self._validates_on(site, arg) for site, arg in handed)

    def validated_only_by_importers(self, flows: list[cst.Call]) -> bool:
        """Does a function of this module return these flows (`return train_gen, val_gen`) only to
        project modules that unpack its call and use the flows' places only as the
        `validation_data` of a `fit` that does not validate much, as what `evaluate`/`predict` run
        on, or for what they say of themselves? (A data module's validation flow, handed to `fit`
        by the training script: its loading is a small part of each epoch's.)"""
        sources = getattr(self.project, "importer_sources", None)
        if not flows or sources is None:
            return False
        places: set[tuple[str, int | None]] = set()  # (function, index in the returned tuple)
        for flow in flows:
            place = self._returned_place(flow)
            if place is None:
                return False
            places.add(place)
        functions = {function for function, _ in places}
        if len(functions) != 1:
            return False
        function = functions.pop()
        if len(re.findall(rf"\b{re.escape(function)}\b", self.source)) != 1:
            return False  # (called here too, or named again: the importers are not its only users)
        unpacked = 0
        for path, text in sources():
            if text is None or not re.search(rf"\b{re.escape(function)}\b", text):
                continue
            if os.path.basename(path) == "__init__.py":
                return False  # (re-exported: its users are out of this question's sight)
            found = _unpacked_for_validation(text, function, places)
            if found is None:
                return False
            unpacked += found
        return unpacked > 0

    def _returned_place(self, flow: cst.Call) -> tuple[str, int | None] | None:
        """(the module-level function, the index in its returned tuple, None for a lone value)
        where `flow`, or the name it is bound to and read nowhere else, is returned; None otherwise."""
        function = innermost(self.module, flow, cst.FunctionDef)
        if function is None or self.functions.get(function.name.value) is not function:
            return None
        name = self._bound_name(flow)
        returns = [node for node in nodes_of(function.body, cst.Return, prune=cst.FunctionDef) if node.value is not None]
        for node in returns:
            items = _returned_items(node.value)
            at = [index for index, item in enumerate(items) if item is flow
                  or name is not None and isinstance(item, cst.Name) and item.value == name]
            if len(at) != 1:
                continue
            if name is not None and (len(returns) != 1 or not _read_once_past_bindings(function, name)):
                return None  # (read elsewhere in the function, or returned more than once)
            return function.name.value, at[0] if isinstance(node.value, cst.Tuple) else None
        return None

    def evaluation_script(self) -> bool:
        """Does this module score a model (`predict`, `evaluate`) and train nothing, with no project
        module importing it: a script whose loading costs no training step?"""
        importers = getattr(self.project, "importers_say", None)
        imported = importers is not None and importers(_ANYTHING)
        return not imported and self.runs_a_model() and not self.trains_somewhere()

    def batches_only_read(self, flows: list[cst.Call]) -> bool:
        """Is every flow bound to a name the module reads only batch by batch itself (`next(gen)`,
        `gen[i]`, `for x, y in gen`) or for what it says of itself (`gen.classes`), never handing it
        to a call? (In a module that scores a model and trains nothing: an evaluation script.)"""
        names = {self._bound_name(flow) for flow in flows}
        if not flows or None in names:
            return False
        for name in names:
            for previous, following, _, _ in self._mentions().get(name, []):
                if _describes(following) or following[:1] == ["["] or previous == "in" \
                        or previous == "(" and following[:1] == [")"]:
                    continue
                return False
        return True

    def images_per_run(self, flows: list[cst.Call]) -> int | None:
        """The images the training calls handed these flows load over the run, where each writes
        its length: `steps_per_epoch` times the flow's `batch_size` (32 unless written), or Keras 1's
        `samples_per_epoch`, times `epochs` (`nb_epoch`; 1 unless written); None where any does not."""
        batches = {self._bound_name(flow): self._int_value(size.value) if (size := find_arg(flow, "batch_size")) else 32
                   for flow in flows}
        total = None
        for site, arg in self._flows_handed(flows):
            func = site.call.func
            if not (isinstance(func, cst.Attribute) and func.attr.value in ("fit", "fit_generator")) \
                    or arg.keyword is not None and arg.keyword.value not in ("x", "generator"):
                continue  # (validation data, an evaluation: no training epoch's)
            keywords = {a.keyword.value: a.value for a in site.call.args if a.keyword is not None}
            written = {name: self._int_value(keywords[name]) if name in keywords else None
                       for name in ("samples_per_epoch", "steps_per_epoch", "epochs", "nb_epoch")}
            batch = batches.get(arg.value.value) if isinstance(arg.value, cst.Name) else None
            steps = written["steps_per_epoch"]
            per_epoch = written["samples_per_epoch"] if "samples_per_epoch" in keywords else \
                steps * batch if steps is not None and batch else None
            epochs = written["epochs"] if "epochs" in keywords else written["nb_epoch"] if "nb_epoch" in keywords else 1
            if per_epoch is None or epochs is None:
                return None
            total = (total or 0) + per_epoch * epochs
        return total

    def _flows_handed(self, flows: list[cst.Call], looks: bool = False) -> list[tuple[CallSite, cst.Arg]]:
        """Each call the flows' bound names are handed to as an argument, where every flow is
        bound to a plain name and each mention that may load its data is such an argument
        (empty otherwise). With `looks`, a batch read to look at (`next(test_gen)`, `test_gen[i]`
        for a figure, `next(iter(test_gen))`) is no such mention."""
        names = {self._bound_name(flow) for flow in flows}
        if not flows or None in names:
            return []
        # (`return train_gen, val_gen` from a helper this module unpacks: the names it unpacks
        # them into are handed on in their place)
        receivers, returns = self._returned_into(names) if "return" in self.source else (set(), 0)
        names |= receivers
        handed = self._handed_as_arguments(names)
        indexed = sum(1 for name in names for _, following, _, _ in self._mentions().get(name, [])
                      if following[:1] == ["["]) if looks else 0
        if len(handed) != sum(self._uses(name) for name in names) - returns - indexed:
            return []
        # (`validation_steps=len(val_flow)`: its length, no batch loaded; `next(test_gen)`: a look)
        return [(site, arg) for site, arg in handed
                if not (isinstance(site.call.func, cst.Name) and (site.call.func.value in DESCRIBING_BUILTINS
                                                                  or looks and site.call.func.value in ("next", "iter")))]

    def _returned_into(self, names: set[str]) -> tuple[set[str], int]:
        """The names this module's callers unpack `names` into where a function of the module
        returns them (`return train_gen, val_gen`; `tr, va = make_generators()`), and how many
        mentions of them that return and those unpackings write; a return whose every call is not
        such an unpacking (a call kept whole, handed on, or made from another module) adds none."""
        receivers: set[str] = set()
        returns = 0
        for node in nodes_of(self.module, cst.Return):
            value = node.value
            items = _returned_items(value)
            at = [index for index, item in enumerate(items) if isinstance(item, cst.Name) and item.value in names]
            if not at:
                continue
            function = innermost(self.module, node, cst.FunctionDef)
            if function is None or self.functions.get(function.name.value) is not function:
                continue
            unpacked = self._unpacked_calls(function.name.value, len(items) if isinstance(value, cst.Tuple) else None)
            if unpacked is None:
                continue
            receivers.update(targets[index] for targets in unpacked for index in at)
            # (the return's mentions, and the unpacking's but its last, which reads as a binding)
            returns += len(at) + sum(1 for targets in unpacked for index in at if index < len(targets) - 1)
        return receivers, returns

    def _flow_returned_unread(self, generator: str, flow: str, passes: frozenset[str]) -> bool:
        """Is the flow `flow = generator.flow_from_directory(...)` returned by its function into
        names its callers never read (`train_it, valid_it, test_it = load_data()`, `test_it` unused)?"""
        if "return" not in self.source:
            return False
        made = [site.call for site in self.calls if isinstance(site.call.func, cst.Attribute)
                and site.call.func.attr.value in passes and isinstance(site.call.func.value, cst.Name)
                and site.call.func.value.value == generator and self._bound_name(site.call) == flow]
        return len(made) == 1 and self._returned_only_unread(flow, made[0])

    def _returned_only_unread(self, name: str, call: cst.Call) -> bool:
        """Is `name`, bound to `call` in a function of the module, read there only by that
        function's `return` (`return train_datagen, val_datagen`), and is every call of the function
        unpacked into names its caller never reads (`train_datagen, val_datagen = make()`, no flow
        after it: a template whose flows are commented out)?"""
        function = innermost(self.module, call, cst.FunctionDef)
        if function is None or self.functions.get(function.name.value) is not function:
            return False
        returns = [node for node in nodes_of(function.body, cst.Return, prune=cst.FunctionDef)
                   if node.value is not None and any(n.value == name for n in nodes_of(node.value, cst.Name))]
        items = _returned_items(returns[0].value) if len(returns) == 1 else []
        at = [index for index, item in enumerate(items) if isinstance(item, cst.Name) and item.value == name]
        if len(at) != 1 or not _read_once_past_bindings(function, name):
            return False  # (read elsewhere in the function, or returned inside an expression)
        unpacked = self._unpacked_calls(function.name.value, len(items) if isinstance(returns[0].value, cst.Tuple)
                                        else None)
        if not unpacked:
            return False
        index = at[0]
        for assign in self._module_assigns():
            value = assign.value
            if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
                    and value.func.value == function.name.value):
                continue
            receiver = unpacked.pop(0)[index]
            scope = innermost(self.module, assign, cst.FunctionDef)
            if scope is None or any(n.value == receiver for n in nodes_of(scope.body, cst.Name)
                                    if not _in_targets(n, assign)):
                return False  # (read by its caller, or unpacked at the top level, in sight of everything)
        return True

    def _unpacked_calls(self, function: str, size: int | None) -> list[list[str]] | None:
        """The names each call of the module's `function` binds its result to (`a, b = f()`, or
        `a = f()` where `size` is None), where every mention of the function is such a call or
        its `def`, and no other module reads it; None otherwise."""
        if read_by_importers(self.project, function) is True:
            return None
        unpacked = []
        for assign in self._module_assigns():
            value = assign.value
            if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == function):
                continue
            target = assign.targets[0].target if len(assign.targets) == 1 else None
            if size is None and isinstance(target, cst.Name):
                unpacked.append([target.value])
            elif isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == size \
                    and all(isinstance(e.value, cst.Name) for e in target.elements):
                unpacked.append([e.value.value for e in target.elements])
            else:
                return None
        return unpacked if unpacked and self._word_count(function) == 1 + len(unpacked) else None

    def _uses(self, name: str) -> int:
        """How many of `name`'s mentions may load its data: all but the reads of what a Keras
        iterator says of itself (`flow.class_indices`, `flow.samples`)."""
        return sum(1 for _, following, _, _ in self._mentions().get(name, []) if not _describes(following))

    def _validates_on(self, site: CallSite, arg: cst.Arg) -> bool:
        """Is `arg` the `validation_data` of a training call that validates on under half as many
        batches as it trains on, where both counts are written?"""
        func = site.call.func
        return isinstance(func, cst.Attribute) and func.attr.value in ("fit", "fit_generator") \
            and arg.keyword is not None and arg.keyword.value == "validation_data" and not self.validates_much(site.call)

    def validates_much(self, call: cst.Call) -> bool:
        """Does this training call write at least half as many validation steps as training steps,
        or validation steps beside no written epoch length (`validation_steps=1000,
        steps_per_epoch=2000`)? Validation is then a third of the loading or more."""
        lengths = {name for pair in _VALIDATION_LENGTHS for name in pair}
        return _validation_weighs({a.keyword.value: self._int_value(a.value) for a in call.args
                                   if a.keyword is not None and a.keyword.value in lengths})

    def _only_plots(self) -> bool:
        """Does the module show images (`imshow`) and neither train on anything nor write images
        to disk (`cv2.imwrite`, `save_img`, `.save(`): what it pulls from a generator is a preview?"""
        if self._plots_only is None:
            # (once per module: asked for every mention of every generator's name)
            self._plots_only = _PLOTS.search(self.source) is not None and _WRITES.search(self.source) is None \
                and not self.trains_somewhere()
        return self._plots_only

    def trains_somewhere(self) -> bool:
        """Does this module call anything that may train (`fit`, `train_step`, `minimize`...)?"""
        return TRAINS_SOMEWHERE.search(self.source) is not None

    def runs_a_model(self) -> bool:
        """Does this module train, evaluate or predict with a model itself?"""
        return self.trains_somewhere() or _RUNS_A_MODEL.search(self.source) is not None

    def off_training(self, op: Op) -> bool:
        """Is what `op` builds only evaluated, predicted on, looked at, or validated on by training
        calls that load under half as many validation batches as training ones (`validates_much`)? A
        faster input there saves a small part of a training run."""
        consumers = self.consumers_of(op)
        return bool(consumers) and all(self.reads_off_training(c) for c in consumers)

    def reads_off_training(self, consumer: Consumer) -> bool:
        """Is this use of a dataset an evaluation, a prediction, a look, or validation that loads
        under half as many batches as training (`off_training`)?"""
        return consumer.kind in ONLY_EVALUATION or consumer.kind == "validation" and not (
            isinstance(consumer.node, cst.Call) and self.validates_much(consumer.node))

    def _handed_as_arguments(self, names: set[str]) -> list[tuple[CallSite, cst.Arg]]:
        """Each call of the module with one of `names`, as written, for an argument."""
        return [(site, arg) for site in self.calls for arg in site.call.args
                if isinstance(arg.value, cst.Name) and arg.value.value in names]

    def _only_describes(self, site: CallSite, arg: cst.Arg, passes: frozenset[str]) -> bool:
        received = self._received_as(site, arg)
        return received is not None and _only_described_through(*received, passes)

    def _received_as(self, site: CallSite, arg: cst.Arg) -> tuple[cst.FunctionDef, str] | None:
        """The function `site` calls (this module's, or the project's) and the parameter that
        receives `arg`, where both are known."""
        func = site.call.func
        function = self.functions.get(func.value) if isinstance(func, cst.Name) else None
        if function is None and self.project is not None and site.qualified_name is not None:
            found = self.project.definition(site.qualified_name)
            node = found[0].find(found[1]) if found is not None else None
            function = node if isinstance(node, cst.FunctionDef) else None
        if function is None or arg.star:
            return None
        positional = [*function.params.posonly_params, *function.params.params]
        if arg.keyword is not None:
            param = next((p for p in all_params(function.params) if p.name.value == arg.keyword.value), None)
        else:
            index = [a for a in site.call.args if a.keyword is None].index(arg)
            param = positional[index] if index < len(positional) else None
        return (function, param.name.value) if param is not None else None

    def _evaluates(self, site: CallSite, arg: cst.Arg) -> bool:
        """Does the call evaluate or predict on `arg`: `model.predict(flow)`, or a function that
        does only that with the parameter receiving it (`def report(model, gen): model.predict(gen)`)?"""
        func = site.call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _EVALUATING_METHODS:
            return True
        received = self._received_as(site, arg)
        return received is not None and _only_evaluated_through(*received, self.validates_much)

    def _looked_at_name(self, name: str, indirection: int = 0) -> bool:
        if self._imported_from_here(name):
            return False
        mentions = self._mentions().get(name, [])
        once = self._iterated_once().get(name, 0)  # `for batch, _ in flow: ...; break`
        listed = self._listed_unread().get(name, 0)  # `all_train = [train1, train2]`, never read
        # `pairs = my_generator(images, masks)`, a generator function that yields from what it is
        # given: the flows feed whatever reads `pairs` (`next(pairs)` once: a look)
        fed = list(self._fed_to_generators().get(name, ())) if indirection < 2 else []
        few = Counter(self._pulled_a_few_times())  # `for i in range(9): plot(next(gen))`
        for previous, following, _, depth in mentions:
            if previous == "in" and following[:1] == [":"] and once:
                once -= 1
                continue
            if previous in ("[", ",", "(") and listed:
                listed -= 1
                continue
            if previous in ("(", ",", "call") and fed:
                if self._looked_at_name(fed.pop(0), indirection + 1):
                    continue
                return False
            if _describes(following):
                continue  # (`flow.class_indices` in a function: what it says of itself, anywhere, loads nothing)
            looks = previous == "(" and following[:1] == [")"] or following[:3] == [".", "next", "("] \
                or following[:1] == ["["] and following[1:2] and following[1].isdigit() and following[2:3] == ["]"]
            # One `next(gen)` (or `gen[0]`, one batch) where it was made is a look; pulled in a loop
            # below it, batches are produced for real (augmented copies written to disk), unless
            # the loop runs a few times and trains nothing (`for i in range(9): plot(next(gen))`).
            if looks and (depth <= self._binding_depth(name) or self._only_plots()):
                continue  # (or anywhere in a module that only shows what it pulls)
            if looks and few[name] > 0:
                few[name] -= 1
                continue
            return False
        return True

    def _pulled_a_few_times(self) -> Counter[str]:
        """Per name, its `next(name)`/`name.next()` calls inside a `for ... in range(k)` loop of at
        most `_FEW_PULLS` rounds whose body trains nothing: a handful of batches, looked at. In a
        module that only plots images (`_only_plots`), a `range` loop of any length counts (`for col
        in range(n_aug): axes[col].imshow(next(gen)[0])`)."""
        if self._few is None:
            self._few = Counter()
            for loop in nodes_of(self.module, cst.For) if "range(" in self.source else ():
                rounds = _literal_range_length(loop.iter)
                if rounds is None and _is_range(loop.iter) and self._only_plots():
                    rounds = 0  # (any length: its batches go to a figure)
                calls = nodes_of(loop.body, cst.Call) if rounds is not None and rounds <= _FEW_PULLS else []
                if not calls or _trains_in(calls):
                    continue
                for call in calls:
                    func = call.func
                    if isinstance(func, cst.Name) and func.value == "next" and call.args \
                            and isinstance(call.args[0].value, cst.Name):
                        self._few[call.args[0].value.value] += 1
                    elif isinstance(func, cst.Attribute) and func.attr.value == "next" and isinstance(func.value, cst.Name):
                        self._few[func.value.value] += 1
        return self._few

    def _fed_to_generators(self) -> dict[str, list[str]]:
        """Per name, the names bound to a generator function's result that it is handed to
        (`pairs = my_generator(images, masks)`: `images` -> [`pairs`]); the function this module's
        or the project's, with a `yield` in it."""
        if self._feeds is None:
            self._feeds = {}
            sites = None
            for assign in self._module_assigns():
                value = assign.value
                if not (len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)
                        and isinstance(value, cst.Call) and any(isinstance(arg.value, cst.Name) for arg in value.args)):
                    continue
                function = self.functions.get(value.func.value) if isinstance(value.func, cst.Name) else None
                if function is None and self.project is not None:
                    sites = {id(site.call): site for site in self.calls} if sites is None else sites
                    site = sites.get(id(value))
                    found = self.project.definition(site.qualified_name) \
                        if site is not None and site.qualified_name else None
                    node = found[0].find(found[1]) if found is not None else None
                    function = node if isinstance(node, cst.FunctionDef) else None
                if function is None or not nodes_of(function, cst.Yield):
                    continue
                for arg in value.args:
                    if isinstance(arg.value, cst.Name):
                        self._feeds.setdefault(arg.value.value, []).append(assign.targets[0].target.value)
        return self._feeds

    def _listed_unread(self) -> Counter[str]:
        """How often each name is an element of a list or tuple written to a name that nothing
        reads (`all_train_data = [train1, train2]`, its loop commented out): no use of it."""
        if self._listed is None:
            mentions = self._mentions()
            self._listed = Counter(
                element.value.value for assign in self._module_assigns()
                if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)
                and isinstance(assign.value, (cst.List, cst.Tuple))
                and not mentions.get(assign.targets[0].target.value)
                for element in assign.value.elements if isinstance(element.value, cst.Name))
        return self._listed

    def _iterated_once(self) -> Counter[str]:
        """How many loops over each name read a few batches to look at (`_pulls_few`)."""
        if self._once is None:
            self._once = Counter(loop.iter.value for loop in nodes_of(self.module, cst.For)
                                 if isinstance(loop.iter, cst.Name) and self._pulls_few(loop))
        return self._once

    def _pulls_few(self, loop: cst.For) -> bool:
        """Does the loop read one element (a `break` nothing skips ends its body), or a few: it
        breaks once a counter reaches a small literal (`i += 1; if i >= 9: break`, the preview of
        augmented copies) and trains on nothing it reads?"""
        if runs_once(loop):
            return True
        if _trains_in(nodes_of(loop.body, cst.Call)):
            return False
        for test in nodes_of(loop.body, cst.If):
            comparison = test.test
            if isinstance(comparison, cst.Comparison) and len(comparison.comparisons) == 1 \
                    and isinstance(comparison.left, cst.Name) and nodes_of(test.body, cst.Break):
                target = comparison.comparisons[0]
                limit = literal_int(target.comparator)
                if limit is not None and isinstance(target.operator, (cst.GreaterThan, cst.GreaterThanEqual, cst.Equal)) \
                        and limit <= _FEW_PULLS:
                    return True
        return False

    def _binding_depth(self, name: str) -> int:
        depths = self._mention_bindings().get(name, [])
        return min(depths) if depths else 0

    def _bound_name(self, call: cst.Call) -> str | None:
        """The plain name `call`'s value is bound to (`datagen = ImageDataGenerator(...)`)."""
        if self._assigned_values is None:
            top = {id(small) for stmt in self.module.body if isinstance(stmt, cst.SimpleStatementLine)
                   for small in stmt.body}
            self._assigned_values = {
                id(assign.value): (assign.targets[0].target.value, id(assign) in top)
                for assign in self._module_assigns()
                if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)}
        bound = self._assigned_values.get(id(call))
        if bound is None:
            return None
        name, module_level = bound
        return None if module_level and self._imported_from_here(name) else name

    def _imported_from_here(self, name: str) -> bool:
        """May another module import this module-level name: one of the project's importers reads
        it, or the module is a file of definitions (not a script or notebook) nobody in sight
        imports?"""
        if self.notebook:
            return False
        read = read_by_importers(self.project, name)
        return bool(read) or read is None and not self._runs_as_script()

    def _mentions(self) -> dict[str, list[Mention]]:
        """Each name's mentions other than its bindings: (token before, tokens after, the name
        the statement binds when the mention starts its value: `gen = datagen.flow(`); a
        mention as the argument of `next(...)` reads as previous "(" and following ")". A
        mention in code no run reaches (after a NameError) is none."""
        if self._name_mentions is None:
            every = self._tokens()
            self._name_mentions, self._name_bindings, self._mention_places, self._binding_places = \
                _name_mentions(every, self._dead_lines()) if every is not None else ({}, {}, {}, {})
        return self._name_mentions

    def _dead_branches(self) -> list[cst.CSTNode]:
        """The branches of `if FLAG:` tests the module fixes (`_flag_truth`): the body where the
        flag is false, the `else` where it is true (`if not data_augmentation: fit(arrays) else:
        <the generator>`)."""
        if self._dead_ifs is None:
            self._dead_ifs = []
            if "False" in self.source or "True" in self.source or _COMPARED_FLAG.search(self.source):
                for node in nodes_of(self.module, cst.If):
                    truth = self._flag_truth(node.test, node)
                    if truth is False:
                        self._dead_ifs.append(node.body)
                    elif truth is True and node.orelse is not None:
                        self._dead_ifs.append(node.orelse)
        return self._dead_ifs

    def _dead_lines(self) -> frozenset[int]:
        """The source lines no run reaches: after a NameError (`unreachable`), and those of the
        dead branches, placed by CPython's `ast` (its `If` nodes in source order are libcst's)."""
        lines = self._never_reached().lines
        branches = self._dead_branches()
        if not branches:
            return lines
        try:
            tree = ast.parse(self.source)
        except (SyntaxError, ValueError, RecursionError):
            return lines
        ast_ifs = sorted((node for node in ast.walk(tree) if isinstance(node, ast.If)),
                         key=lambda node: (node.lineno, node.col_offset))
        cst_ifs = statements_in_order(self.module, cst.If)
        if len(ast_ifs) != len(cst_ifs):
            return lines
        dead = set(lines)
        for cst_if, ast_if in zip(cst_ifs, ast_ifs):
            for branch, statements in ((cst_if.body, ast_if.body), (cst_if.orelse, ast_if.orelse)):
                if statements and any(branch is dead_branch for dead_branch in branches):
                    dead.update(range(statements[0].lineno, (statements[-1].end_lineno or 0) + 1))
        return frozenset(dead)

    def _never_reached(self) -> NeverReached:
        if self._unreached is None:
            # (a notebook's cells run in any order, beside IPython's own names)
            self._unreached = NeverReached() if self.notebook else never_reached(self.module, self.source)
        return self._unreached

    def _mention_bindings(self) -> dict[str, list[int]]:
        self._mentions()
        return self._name_bindings

    def _never_runs(self, call: cst.Call) -> bool:
        """Is `call` inside the body of an `if FLAG:` whose flag the module binds once to False
        (`do_data_augmentation = False`), or after a statement of its block that surely raises
        (it reads a name nothing binds: `unreachable`)?"""
        if self._dead_calls is None:
            # (once per module, with the fast walker: every rule's `dropped` asks it)
            self._dead_calls = {id(inner) for branch in self._dead_branches() for inner in nodes_of(branch, cst.Call)}
            self._dead_calls |= self._never_reached().calls
            self._dead_calls |= self._switched_off_by_every_call()
        return id(call) in self._dead_calls

    def _flag_truth(self, test: cst.BaseExpression, where: cst.If) -> bool | None:
        """A test's value when the source fixes it: `False`, a name the module binds once to a
        literal `True`/`False` (and no function around the test takes as a parameter), or `not`
        of one of those; None otherwise."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._flag_truth(test.expression, where)
            return None if inner is None else not inner
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name):
            # `if ADBD > 0:` where the module binds `ADBD = 0` once
            target = test.comparisons[0]
            bound, limit = self._flag_value(test.left.value, where), literal_int(target.comparator)
            compare = _INT_COMPARISONS.get(type(target.operator))
            return compare(bound, limit) if isinstance(bound, int) and limit is not None and compare else None
        if isinstance(test, cst.Name) and test.value not in ("True", "False"):
            test = self._flag_value(test.value, where)
        return (test.value == "True") if is_bool(test) else None

    def _flag_value(self, name: str, where: cst.If) -> cst.BaseExpression | int | None:
        """What the module binds `name` to once (a literal `True`/`False`, or an integer), where no
        function around `where` takes a parameter of that name (which decides it call by call)."""
        value = self.bound_once(name)
        number = literal_int(value) if value is not None else None
        if not is_bool(value) and number is None:
            return None
        if number is not None and re.search(rf"\b{name}\s*(?://|\*\*|<<|>>|[-+*/%|&^@])=|\bglobal\b[^\n]*\b{name}\b|"
                                            rf"\bfor\b[^\n]*\b{name}\b[^\n]*\bin\b", self.source):
            return None  # (`ADBD += 1`, a loop or a function rebinding it: not fixed)
        if any(isinstance(around, (cst.FunctionDef, cst.Lambda))
               and any(param.name.value == name for param in all_params(around.params))
               for around in ancestors(self.module, where) or ()):
            return None
        return value if number is None else number

    def _switched_off_by_every_call(self) -> set[int]:
        """The ids of the calls in `if flag:` blocks of a function of this module that every call
        of it here switches off (`Masterswitch(evaluate=False, predict=True)`, or a literal False
        default no call overrides), where nothing else names the function: no other module reads
        it, and the module only defines and calls it."""
        dead: set[int] = set()
        defined = [(name, function) for name, function in self.functions.items()]
        defined += [(name, function) for methods in self.methods.values() for name, function in methods.items()]
        calling: dict[str, list[cst.Call]] = {}  # (each call under the name it calls, read once)
        for site in self.calls:
            func = site.call.func
            callee = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
            if callee is not None:
                calling.setdefault(callee, []).append(site.call)
        for name, function in defined:
            sites = calling.get(name, [])
            if not sites or not (any(is_bool(p.default) for p in all_params(function.params))
                                 or any(is_bool(arg.value) for call in sites for arg in call.args)):
                continue
            if self._word_count(name) != 1 + len(sites) or read_by_importers(self.project, name):
                continue  # (handed on, or called from elsewhere: other calls may switch it on)
            off = None
            for call in sites:
                here = {id(c) for c in switched_off_by_arguments(function, call)}
                off = here if off is None else off & here
            dead |= off or set()
        return dead

    def dropped(self, op: Op) -> bool:
        """Is what `op` builds never used? Nothing consumes it, its chain is bound to a name that the
        module never mentions again except to rebind it or to call dataset methods on it (the
        results of which are dropped too), and that name is a function's local, a notebook's, or a
        module-level name that no project module imports."""
        known = self._dropped.get(op)
        if known is None:
            self._dropped[op] = False  # (a cycle through `continuations` reads as "used")
            known = self._dropped[op] = self._is_dropped(op)
        return known

    def _is_dropped(self, op: Op) -> bool:
        if op.where is None and not op.implicit and (self._in_dead_function(op) or self._never_runs(op.call)):
            return True  # (a pipeline built in a function nobody calls, or under `if False:`: C1, it never runs)
        consumers = self.consumers_of(op)
        live = [c for c in consumers if not (isinstance(c.node, cst.Call) and self._never_runs(c.node))]
        if consumers and not live:
            return True  # trained on only where no run gets (`if False:`, after a NameError)
        consumers = live
        if consumers:
            # Returned only by functions of a module the project imports, which no project module
            # imports or calls (nor this one): they never run. (An override of a project base
            # class's method runs when the base calls it through `self`.)
            overrides = getattr(self.project, "overrides", None)
            overriding = {name for cls, defined in self.methods.items() for name in defined
                          if overrides is not None and overrides(cls.name.value, name)}
            return all(c.kind == "return" and c.function is not None and "." not in c.function
                       and c.function not in overriding
                       and read_by_importers(self.project, c.function) is False for c in consumers)
        following = [site.op for site in self.op_sites.values()
                     if any(op in prefix.ops for prefix in site.prefixes)]
        binding = self.bindings.get(op)
        if binding is None:
            if not following and op.where is None and self.stored_on_self_unread(op.call):
                return True
            if op in self.discarded:
                return not following
            # A link inside a chain (`a.map(f).batch(n)`): dropped with everything built on it.
            return bool(following) and all(self.dropped(later) for later in following)
        name, module_level = binding
        if name not in self._names_never_used():
            return False
        if module_level and self.importable and self._read_elsewhere(name):
            return False
        return all(self.dropped(later) for later in following)

    def self_attribute_of(self, value: cst.CSTNode) -> str | None:
        """The attribute of `self` that `value` is assigned to where it is made (`self.gen = ...`)."""
        around = ancestors(self.module, value) or []
        parent = around[-2] if len(around) > 1 else None
        if not (isinstance(parent, cst.Assign) and parent.value is value and len(parent.targets) == 1):
            return None
        target = parent.targets[0].target
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            return target.attr.value
        return None

    def attribute_reads(self, attr: str) -> list[cst.Attribute]:
        """Every `x.attr` of the module that is not an assignment's target."""
        stored = {id(node) for node in self.attribute_assignments}
        return [node for node in nodes_of(self.module, cst.Attribute) if node.attr.value == attr and id(node) not in stored]

    def stored_on_self_unread(self, value: cst.CSTNode) -> bool:
        """Is `value` stored on an attribute of `self` that nothing reads: no method of the module
        reads it, no project module that imports this one names it, and nothing looks it up by name?"""
        attr = self.self_attribute_of(value)
        return attr is not None and not self.attribute_reads(attr) and not self._attribute_read_from_outside(attr)

    def _attribute_read_from_outside(self, attr: str) -> bool:
        """May `attr` be read other than as `x.attr` in this module: a project module that imports
        this one names it, or something looks it up by name (`getattr(self, "attr")`)?"""
        return f'"{attr}"' in self.source or f"'{attr}'" in self.source or read_by_importers(self.project, attr) is True

    def stored_on_self_only_evaluated(self, value: cst.CSTNode) -> bool:
        """Is `value` stored on an attribute of `self` that the module reads only as what
        `evaluate`/`predict` run on (`model.evaluate(self.valid_generator)`), or for what it says of
        itself (`self.valid_generator.class_indices`, `.reset()`), and that no importer names or
        looks up by name? (An evaluation component: its loading is no training step.)"""
        attr = self.self_attribute_of(value)
        if attr is None or self._attribute_read_from_outside(attr):
            return False
        reads = self.attribute_reads(attr)
        evaluated = {id(arg.value) for call in nodes_of(self.module, cst.Call)
                     if isinstance(call.func, cst.Attribute) and call.func.attr.value in _EVALUATING_METHODS
                     for arg in call.args if arg.keyword is None or arg.keyword.value in ("x", "generator")}
        # (`self.gen.class_indices`; `self.gen.reset()` rewinds it before a `predict`)
        described = {id(node.value) for node in nodes_of(self.module, cst.Attribute)
                     if isinstance(node.value, cst.Attribute) and node.value.attr.value == attr
                     and (node.attr.value in _DESCRIBING_ATTRIBUTES or node.attr.value == "reset")}
        return bool(reads) and all(isinstance(read.value, cst.Name) and read.value.value == "self"
                                   and (id(read) in evaluated or id(read) in described) for read in reads)

    def parameter_default(self, node: cst.CSTNode, name: str) -> cst.BaseExpression | None:
        """The default value of parameter `name` of the innermost function around `node` that
        has one (None: no such parameter, or it has no default)."""
        around = ancestors(self.module, node) or [node]
        for function in reversed([n for n in around[:-1] if isinstance(n, cst.FunctionDef)]):
            for param in all_params(function.params):
                if param.name.value == name:
                    return param.default
        return None

    def _is_loop_variable(self, name: str) -> bool:
        """`for name in ...:` somewhere in the module (`for ds in datasets: ds = ds.map(f)`)."""
        return re.search(rf"\bfor\s+{re.escape(name)}\s+in\b", self.source) is not None

    def _read_elsewhere(self, name: str) -> bool:
        """May another module read this module-level name? When project modules import this one,
        only if one of them imports it or reads it through the whole module. When none does, yes,
        unless the module is a script of the project, or the name a loop variable rebound here."""
        read = read_by_importers(self.project, name)
        if read is None:
            # Nobody in the project imports this module. A script of the project (it imports the
            # project's modules) runs from the top: what it never reads is dead; a lone file may
            # be imported from outside.
            return self.project is None or not (self._is_loop_variable(name) or self.project.imports_the_project())
        return read

    def _names_never_used(self) -> set[str]:
        """Names that appear only as a plain assignment target or as the receiver of a dataset
        method call (`ds = ...`, `ds.map(`): read from the tokens, so any other mention counts."""
        if self._unused_names is None:
            every = self._tokens()
            self._unused_names = names_only_bound_or_chained(every) if every is not None else set()
        return self._unused_names

    def calls_in_dataset_functions(self, fact: str, keep: Callable[[OpSite], bool] = lambda site: True,
                                   ) -> Iterator[tuple[OpSite, cst.Call, cst.CSTNode]]:
        """Each `map`/`filter`/`interleave`/`flat_map` site (that `keep` keeps) whose function's
        `fact` (a `FunctionFacts` field) is a call, once per call (one helper mapped twice: one
        finding, where the fix goes), with the node its finding sits on: the call, or the op here
        when the call is in another module (that module's check sees no op of it)."""
        seen: set[int] = set()
        for site in self.ops(*FUNCTION_SITE_OPS):
            call = getattr(site.op.facts, fact)
            if call is None or id(call) in seen or not keep(site):
                continue
            seen.add(id(call))
            # (`where` names the first helper of another module the function's facts came from,
            # which need not be where this call is: `seed = random.randint(...)` here, handed on)
            here = site.op.facts.where is None or ancestors(self.module, call) is not None
            yield site, call, (call.func if here else site.op.name_node)

    def service_hand_offs(self) -> Iterator[tuple[ServiceHandOff, OpSite]]:
        """Each `apply(tf.data.experimental.service.distribute(...))` with its op site: the
        site's prefixes are the pipelines that run on the service's workers."""
        for site in self.ops("apply"):
            hand_off = service_hand_off(site.op, self.qualified_name)
            if hand_off is not None:
                yield hand_off, site

    def continuations(self, op: Op) -> list[tuple[Op, ...]]:
        """The ops seen after `op` on each path that passes through it."""
        if self._continuations is None:
            # (once, after the build: rules ask it of every op)
            self._continuations = {}
            for site in self.op_sites.values():
                for prefix in site.prefixes:
                    ops = prefix.ops + (site.op,)
                    for index, before in enumerate(ops[:-1]):
                        if ops.index(before) != index:
                            continue  # (an op met twice on one path: its tail runs from the first)
                        tails = self._continuations.setdefault(before, [])
                        if ops[index + 1:] not in tails:
                            tails.append(ops[index + 1:])
        return list(self._continuations.get(op, ()))

    def keras_dataset_size(self, name: str) -> int | None:
        """How many examples `name` holds when the module unpacks it from a Keras dataset loader
        (`(x_train, y_train), (x_test, y_test) = mnist.load_data()`: 60,000), and never rebinds it
        to a part of itself (`x_train = x_train[:1000]`)."""
        size = None
        for assign in self._module_assigns():
            for target in assign.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name \
                        and nodes_of(assign.value, cst.Subscript):
                    return None  # (a slice of it, or anything picked from something: not sure)
                if not (isinstance(target.target, cst.Tuple) and isinstance(assign.value, cst.Call)):
                    continue
                loader = self.qualified_name(assign.value.func) or ""
                sizes = _KERAS_DATASET_SIZES.get(loader.rsplit(".", 2)[-2] if loader.endswith(".load_data") else "")
                for split, part in enumerate(target.target.elements):
                    if sizes is not None and split < 2 and isinstance(part.value, cst.Tuple) and any(
                            isinstance(item.value, cst.Name) and item.value.value == name for item in part.value.elements):
                        size = sizes[split]
        return size

    def bound_once(self, name: str) -> cst.BaseExpression | None:
        """What `name` is bound to, when the module assigns it exactly once (at any depth), as
        in `features = [[1.0, 1.5]]` or `drop = lambda x, y: x`."""
        if self._bound_once is None:
            bindings: dict[str, list[cst.BaseExpression]] = {}
            for assign in self._module_assigns():
                for target in assign.targets:
                    if isinstance(target.target, cst.Name):
                        bindings.setdefault(target.target.value, []).append(assign.value)
            self._bound_once = {bound: values[0] for bound, values in bindings.items() if len(values) == 1}
        return self._bound_once.get(name)

    def pipeline_ops(self, op: Op) -> Iterator[Op]:
        """Every op on a pipeline through `op`: those before it, itself, and those after it
        (lazily: the ops after it take a walk over the module's op sites)."""
        site = self.op_sites.get(op.call)
        for prefix in site.prefixes if site is not None else ():
            yield from prefix.ops
        yield op
        for tail in self.continuations(op):
            yield from tail

    def rewrite_switched_off(self, rewrite: str, ops: Iterable[Op]) -> bool:
        """May tf.data's default `rewrite` (`inject_prefetch`, `map_parallelization`) be off for a
        pipeline through `ops`? Only where the pipeline takes options (`with_options`) and this
        module switches the rewrite off (`options.experimental_optimization.inject_prefetch = False`,
        `options.autotune.enabled = False`, `apply_default_optimizations = False`)."""
        switched = self._switches_off.get(rewrite)
        if switched is None:
            switched = self._switches_off[rewrite] = _SWITCHES_OFF[rewrite].search(self.source) is not None
        return switched and any(op.name == "with_options" for op in ops)

    def costly(self, ops: Iterable[Op], path: DatasetPath | None = None) -> bool:
        """May these stages cost real time per element: a function that decodes or transforms
        images, reads files or runs Python (`FunctionFacts.costly`), one whose work is not in sight
        (a function of unknown code), or a source that decodes files itself
        (`image_dataset_from_directory`, `tfds.load`)? A speed finding is material unless every
        stage is in sight and cheap (casts, parsing, lookups): then it is minor
        (`Impact.MINOR_SPEED`)."""
        if path is not None and path.origin.kind in DECODING_SOURCES:
            return True
        return any(op.name in _FUNCTION_OPS and (op.facts.costly is not None or self._cost_unknown(op.facts))
                   for op in ops)

    def material_speed(self, op: Op, prefixes: Iterable[DatasetPath] = ()) -> bool:
        """Does a speed finding on `op` matter: its own stage is `costly`, or it works on what a
        costly stage of one of `prefixes` made (decoded images), and what it builds is trained on
        (not `off_training`)?"""
        return (self.costly([op]) or any(self.costly(path.all_ops(), path) for path in prefixes)) \
            and not self.off_training(op) and not self.cached_after(op)

    def cached_after(self, op: Op) -> bool:
        """Is what `op` makes cached on every path through it, with no `repeat` before the cache
        (`map(decode).cache()`): it runs in the first epoch only, every later one reads the cache.
        Not a random map's: PL202 moves it after the cache, where it runs every epoch."""
        if op.facts is not None and (op.facts.randomness or op.facts.py_function_randomness) is not None:
            return False
        tails = self.continuations(op)
        for tail in tails:
            names = [later.name for later in tail]
            if "cache" not in names or "repeat" in names[:names.index("cache")]:
                return False
        return bool(tails)

    def _cost_unknown(self, facts: FunctionFacts) -> bool:
        if not facts.known:
            return True
        call = facts.stateful_call
        if call is None:
            return False
        name = self.qualified_name(call.func) if isinstance(call, cst.Call) and facts.where is None else None
        return not (name or "").startswith(("tensorflow.", "keras."))

    def consumers_of(self, op: Op) -> list[Consumer]:
        """The consumers of datasets built through `op`."""
        if self._consumers_by_op is None:
            # (once, after the build: rules ask it of every op)
            self._consumers_by_op = {}
            for consumer in self.consumers:
                for through in {id(o): o for path in consumer.value.paths for o in path.ops}.values():
                    self._consumers_by_op.setdefault(through, []).append(consumer)
        return list(self._consumers_by_op.get(op, ()))

    def named_held_out(self, op: Op) -> bool:
        """Is `op`'s chain bound to a name of held-out data and of nothing trained (`ds_val =
        ds_val.cache()`, `test_ds`, `validDataset`), where its uses may be out of sight (returned to
        another module's loop)? Its example order does not matter."""
        assign = innermost(self.module, op.call, cst.Assign)
        if assign is None or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return False
        words = {word.lower() for word in re.findall(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])", assign.targets[0].target.value)}
        return bool(words & _HELD_OUT_WORDS) and "train" not in words and "training" not in words

    def unconsumed(self, op: Op) -> bool:
        """Is what `op` builds consumed by nothing in sight (no training, evaluation, look, return or
        hand-off), only counted (`cardinality(test_ds)`, `len(test_ds)`), and named by no module
        that may import it (a script's or a function's own names)?"""
        if op.where is not None or self.consumers_of(op):
            return False
        chain = [op, *(later for tail in self.continuations(op) for later in tail)]
        bindings = [binding for binding in (self.bindings.get(o) for o in chain) if binding is not None]
        for name, module_level in bindings:
            if module_level and self.importable:
                read = read_by_importers(self.project, name)
                if read is True or read is None and not self._runs_as_script():
                    return False  # (a module-level name another module may read)
        # (counted, and nothing else: a name never read at all is `dropped`'s to judge)
        return any(re.search(rf"\b(?:cardinality|len)\(\s*{re.escape(name)}\s*\)", self.source)
                   for name, _ in bindings)

    def never_trained_on(self, op: Op) -> bool:
        """Does what `op` builds never reach training: every known use is one of `NOT_TRAINING`
        (validation, evaluation, a look), or nothing reads it (`dropped`: built in code that never
        runs, or bound to a name nothing reads)? Example order and epochs do not matter there. (A
        `pass` over the data, a loop that runs no model in a module that trains nothing, or a TF
        1.x iterator read where nothing trains, converts, prints or plots it: no training either.)"""
        return self.only_used_for(op, NOT_TRAINING | {"pass"}) or self.dropped(op)

    def only_used_for(self, op: Op, kinds: frozenset[str]) -> bool:
        """Is every known use of what `op` builds one of these kinds? False when no use is known
        (a dataset handed elsewhere may be trained on)."""
        consumers = self.consumers_of(op)
        return bool(consumers) and all(c.kind in kinds for c in consumers)

    def source_order(self, path: DatasetPath) -> SourceOrder | None:
        """Is the source of `path` a file list read class by class (`pipelint.model.order`)?
        Read on first ask, once per origin: only the shuffles a rule judges ask."""
        origin = path.origin
        if origin not in self._source_orders:
            self._source_orders[origin] = source_order(path, self)
        return self._source_orders[origin]

    def place_of(self, node: cst.CSTNode, where: object | None = None) -> str:
        """Where `node` is, for a message: "line 12" here, "data.py:12" in another project module
        (`where`, as `Op.where`). Positions are computed on first need, for findings only."""
        if where is not None:
            here = getattr(self.project, "path", None)
            name = os.path.relpath(where.path, os.path.dirname(os.path.abspath(here))) if here else \
                os.path.basename(where.path)
            return f"{name}:{where.line_of(node)}"
        if self._lines is None:
            positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
            self._lines = {n: span.start.line for n, span in positions.items()}
        return f"line {self._lines.get(node)}"

    def node_code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)


# A training call's validation and training lengths (Keras 2, Keras 1), as `validates_much` weighs them.
_VALIDATION_LENGTHS = (("validation_steps", "steps_per_epoch"), ("nb_val_samples", "samples_per_epoch"))


def _validation_weighs(written: dict[str, int | None]) -> bool:
    """Given a training call's keyword integers (None where not a known integer), does it write at
    least half as many validation steps as training steps, or validation steps beside no epoch
    length?"""
    for validation, training in _VALIDATION_LENGTHS:
        validated, steps = written.get(validation), written.get(training)
        if validated is not None and (steps is None or 2 * validated >= steps):
            return True
    return False


def _read_once_past_bindings(function: cst.FunctionDef, name: str) -> bool:
    """Is `name` mentioned in `function`'s own body (not its nested functions) by its plain
    bindings (`name = ...`) and one read more, no other?"""
    reads = [n for n in nodes_of(function.body, cst.Name, prune=cst.FunctionDef) if n.value == name]
    bindings = sum(1 for assign in nodes_of(function.body, cst.Assign, prune=cst.FunctionDef)
                   for target in assign.targets if isinstance(target.target, cst.Name) and target.target.value == name)
    return len(reads) == bindings + 1


def _unpacked_for_validation(text: str, function: str, places: set[tuple[str, int | None]]) -> int | None:
    """How many calls of `function` an importer's `text` unpacks (`train, val = f()`), where each
    unpacked name at `places` is used only as a `fit`'s `validation_data` (one that does not load
    at least half as many validation batches as training ones, where both are written), as
    `evaluate`/`predict`'s data, or for what it says of itself; None where any use is other (or
    the text does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    indexes = {index for _, index in places}
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and (isinstance(node.func, ast.Name) and node.func.id == function
                  or isinstance(node.func, ast.Attribute) and node.func.attr == function)]
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    receivers = []
    for call in calls:
        assign = parents.get(id(call))
        if not (isinstance(assign, ast.Assign) and assign.value is call and len(assign.targets) == 1):
            return None
        target = assign.targets[0]
        if isinstance(target, ast.Tuple) and None not in indexes:
            if not all(isinstance(element, ast.Name) for element in target.elts) or max(indexes) >= len(target.elts):
                return None
            receivers += [target.elts[index].id for index in indexes]
        elif isinstance(target, ast.Name) and indexes == {None}:
            receivers.append(target.id)
        else:
            return None
    for receiver in receivers:
        uses = [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == receiver
                and isinstance(node.ctx, ast.Load)]
        if not uses or not all(_validation_use(node, parents) for node in uses):
            return None
    return len(calls)


def _validation_use(name: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """Is this mention of a flow's name a `validation_data=` of a `fit` that does not validate
    much, data of `evaluate`/`predict`, `len(...)`, or a read of what it says of itself?"""
    parent = parents.get(id(name))
    if isinstance(parent, ast.Attribute):
        return parent.attr in _DESCRIBING_ATTRIBUTES
    if isinstance(parent, ast.keyword):
        call = parents.get(id(parent))
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            return False
        if parent.arg == "validation_data" and call.func.attr in ("fit", "fit_generator"):
            return not _validation_weighs({k.arg: k.value.value for k in call.keywords if k.arg is not None
                                           and isinstance(k.value, ast.Constant) and type(k.value.value) is int})
        return parent.arg in ("x", "generator") and call.func.attr in _EVALUATING_METHODS
    if isinstance(parent, ast.Call) and name in parent.args:
        if isinstance(parent.func, ast.Attribute):
            return parent.func.attr in _EVALUATING_METHODS
        return isinstance(parent.func, ast.Name) and parent.func.id in DESCRIBING_BUILTINS
    return False


def _only_evaluated_through(function: cst.FunctionDef, param: str,
                            validates_much: Callable[[cst.Call], bool] = lambda call: True) -> bool:
    """Does `function` use its parameter `param` only as what `evaluate`/`predict` (or their
    `_generator` forms) run on, as the `validation_data` of a `fit` that does not validate much
    (`validates_much`), to read what it says of itself (`gen.class_indices`), or, where it trains
    nothing, to look at one batch (`next(iter(gen))`)?"""
    mentions = [name for name in nodes_of(function.body, cst.Name) if name.value == param]
    allowed = {id(arg.value) for call in nodes_of(function.body, cst.Call)
               if isinstance(call.func, cst.Attribute) and call.func.attr.value in _EVALUATING_METHODS
               for arg in call.args if isinstance(arg.value, cst.Name) and arg.value.value == param}
    allowed |= {id(attribute.value) for attribute in nodes_of(function.body, cst.Attribute)
                if isinstance(attribute.value, cst.Name) and attribute.value.value == param
                and attribute.attr.value in _DESCRIBING_ATTRIBUTES}
    calls = nodes_of(function.body, cst.Call)
    # (`gen.reset()` before `model.predict(gen)`: it rewinds the iterator and loads nothing)
    allowed |= {id(call.func.value) for call in calls if not call.args and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "reset" and isinstance(call.func.value, cst.Name)
                and call.func.value.value == param}
    # (`model.fit(train_gen, validation_data=val_gen)` in `train_phase1(model, train_gen, val_gen)`:
    # validation loads a small part of each epoch, as `validates_much` weighs it)
    allowed |= {id(arg.value) for call in calls
                if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("fit", "fit_generator")
                and not validates_much(call)
                for arg in call.args if arg.keyword is not None and arg.keyword.value == "validation_data"
                and isinstance(arg.value, cst.Name) and arg.value.value == param}
    if not _trains_in(calls, _APPLYING_CALLS) and not nodes_of(function.body, cst.Yield):
        # (`next(gen)`, `next(iter(gen))`: one batch for a figure, in a function that trains nothing
        # and yields nothing: a generator function's `next(gen)` hands its batches on to training)
        for call in calls:
            if isinstance(call.func, cst.Name) and call.func.value == "next" and call.args:
                inner = call.args[0].value
                if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value == "iter" \
                        and inner.args:
                    inner = inner.args[0].value
                if isinstance(inner, cst.Name) and inner.value == param:
                    allowed.add(id(inner))
    return bool(mentions) and all(id(name) in allowed for name in mentions)


def _only_described_through(function: cst.FunctionDef, param: str, passes: frozenset[str]) -> bool:
    """Does `function` use its parameter `param` only to call one of `passes` on it, binding each
    result to a name it reads only for what the result describes (`output.x`, `output.y`)?"""
    names = nodes_of(function.body, cst.Name)
    attributes = [a for a in nodes_of(function.body, cst.Attribute) if isinstance(a.value, cst.Name)]
    uses = [a for a in attributes if a.value.value == param]
    if not uses or len(uses) != sum(1 for n in names if n.value == param) or any(a.attr.value not in passes for a in uses):
        return False
    results = {}
    for assign in nodes_of(function.body, cst.Assign):
        if isinstance(assign.value, cst.Call) and any(assign.value.func is a for a in uses):
            if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
                return False
            results[assign.value.func] = assign.targets[0].target.value
    if len(results) != len(uses):
        return False  # a result handed on, returned or iterated as it is made
    called = {id(c.func) for c in nodes_of(function.body, cst.Call)}
    for result in set(results.values()):
        reads = sum(1 for n in names if n.value == result)
        described = sum(1 for a in attributes if a.value.value == result
                        and a.attr.value in _DESCRIBING_ATTRIBUTES and id(a) not in called)
        bindings = sum(1 for r in results.values() if r == result)
        if reads - bindings != described:
            return False
    return True
