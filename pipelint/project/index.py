"""The project index: module names, and a cheap summary of each module read with CPython's `ast`.

Which modules: the `.py` files discovery found, plus the project modules they import, found as
Python would from the import roots: the project root (the closest directory above a file holding
pyproject.toml, setup.cfg, setup.py or .git), its `src/` (a src layout), and a script's own
directory (`python train.py` imports its siblings).

A module is summarised only when its text could touch a dataset (a dataset method call,
`Dataset`...), and then only its functions that could (or that name another module of the
project) are walked. The summary says, per function and method (`f`, `Class.method`): where
it starts and a digest of its text, which parameters it may take datasets in (receivers of
dataset methods, arguments of `fit`, loops, kept on `self`), and whether it returns a dataset
(or does if some other module's function it calls does, or a caller hands it one); which calls
hand a dataset to another project module (`prepare(ds)`, `ds.apply(pipeline.prepare)`,
`Trainer(ds)`) or to one of its own functions that hands it on; and which names its top level
binds to datasets. A module with nothing else to summarise keeps its top-level imports. A summary
depends on its module's text alone, so the result cache keeps it between runs (`SummaryStore`);
what crosses modules (who returns datasets through whom, who hands whom datasets) is resolved
here, over plain data.

Summaries decide four things: which functions of other modules a check runs (`context`), which
modules receive datasets from other modules (checked even when they never name TensorFlow, with
those datasets), which modules use the datasets a module exports (`consumers`: run in its check,
their uses are its datasets' consumers), and the part of a file's cache key that depends on other
modules (`key_of`).
"""
from __future__ import annotations

import ast
import os
import re
import sys
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol

from pipelint.project.graphs import strongly_connected_components
from pipelint.sources import decode_source
from pipelint.target import api_evidence

try:  # as in pipelint.cache: blake2b without hashlib's OpenSSL import
    from _blake2 import blake2b
except ImportError:  # pragma: no cover
    from hashlib import blake2b

__all__ = ["FunctionSummary", "ModuleSummary", "ProjectIndex", "SummaryStore", "project_root"]

PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
#: Text a module (and a top-level statement of it) needs for any of its code to touch a dataset.
_COULD_TOUCH_DATASETS = re.compile(
    r"\.(?:map|batch|shuffle|cache|prefetch|interleave|padded_batch|unbatch)\(|Dataset|dataset_from_|tfds")
#: Methods whose call makes a value a dataset for the index (few other objects have them).
_TELLING_METHODS = frozenset({"cache", "shuffle", "batch", "prefetch", "padded_batch", "unbatch",
                              "interleave", "repeat", "with_options", "ragged_batch", "shard"})
_CONSTRUCTORS = frozenset({"from_tensor_slices", "from_tensors", "from_generator", "list_files",
                           "TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset",
                           "make_csv_dataset", "CsvDataset", "image_dataset_from_directory",
                           "text_dataset_from_directory", "audio_dataset_from_directory",
                           "timeseries_dataset_from_array", "sample_from_datasets",
                           "choose_from_datasets"})
#: Dataset sources known by their full name (`tfds.load(..., batch_size=bs)` in a loader module).
_QUALIFIED_SOURCES = frozenset({"tensorflow_datasets.load", "tensorflow.data.Dataset.range",
                                "tensorflow.data.Dataset.zip", "tensorflow.data.Dataset.load",
                                "tensorflow.data.experimental.load"})
_PASSING_METHODS = frozenset({"map", "filter", "take", "skip", "apply", "concatenate", "zip",
                              "enumerate", "flat_map", "unique", "window"})
_CONSUMING_METHODS = frozenset({"fit", "evaluate", "predict"})
#: Packages that are never a module of the project being checked (for a module outside any package,
#: an import of anything else may be a sibling script).
_NOT_THE_PROJECT = frozenset(sys.stdlib_module_names) | {
    "tensorflow", "keras", "tf_keras", "tensorflow_datasets", "numpy", "jax", "torch", "pandas",
    "sklearn", "scipy", "matplotlib", "absl", "tqdm", "PIL", "cv2", "yaml", "wandb"}
#: A module's top-level imports, for a module with nothing else to summarise (it may still use
#: what other modules export): cheaper than parsing all of it. A line ending in a backslash goes
#: on (`from a import b, \` then `    c`): cut there, the rest would not parse.
_TOP_LEVEL_IMPORT = re.compile(
    r"^(?:from[ \t]+[\w.]+[ \t]+import[ \t]+(?:\([^)]*\)|(?:[^\n]*\\\n)*[^\n]*)|import[ \t]+(?:[^\n]*\\\n)*[^\n]+)",
    re.M)
# A top-level statement that puts a directory on `sys.path` or loads a module by file or by a literal name.
_PATH_IMPORTS = re.compile(r"^(?:[ \t]*if[^\n]*:[ \t]*\n)?[ \t]*(?:sys\.path\.(?:insert|append)\(|\w+[ \t]*=[ \t]*"
                           r"[\w.]*(?:spec_from_file_location|import_module)\()", re.MULTILINE)
_SCRIPT_DIRECTORY = "_pipelint_scripts_"  # module names of scripts in directories of their own
_MAX_EXTRA_MODULES = 2000  # imported modules read beyond those discovered (a bound, not a goal)
_MAX_REEXPORTS = 4  # package `__init__` re-exports followed in a row (a cycle ends there)
#: Below this many modules to summarise, worker processes cost more to start than they save.
_MIN_MODULES_FOR_WORKERS = 100


def _package_parents(importer: str, package: str) -> list[str]:
    """The parent of each package named `package` that holds `importer`: where Python finds
    `package` when the project runs from a directory below its root (`AIServer/manage.py`
    puts `AIServer/` on the path; `AIServer/ai_api/.../dataset.py` imports `ai_api.utils`)."""
    found = []
    directory = os.path.dirname(importer)
    while os.path.basename(directory):
        if os.path.basename(directory) == package and os.path.isfile(os.path.join(directory, "__init__.py")):
            found.append(os.path.dirname(directory))
        directory = os.path.dirname(directory)
    return found


def project_root(directory: str) -> str:
    """The closest directory from `directory` upward that holds a project marker, else itself."""
    current = directory
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in PROJECT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return directory
        current = parent


@dataclass(frozen=True)
class FunctionSummary:
    line: int
    digest: str
    params: tuple[str, ...]
    takes: tuple[str, ...]  # parameters it may take datasets in
    #: Returns a dataset by its own code (True), or when one of these other modules' functions
    #: (qualified names) does; resolved into `returns_dataset` by the index.
    returns: bool
    returns_if: tuple[str, ...] = ()
    returns_dataset: bool = False


@dataclass
class ModuleSummary:
    name: str
    path: str
    package: str
    checked: bool  # among the files being checked (else only read for what it defines)
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, FunctionSummary] = field(default_factory=dict)
    classes: frozenset[str] = frozenset()
    #: Calls that may hand a dataset to another module: (function making it, "" at module level;
    #: qualified name called; "call" or "apply"; the other modules' functions whose returning a
    #: dataset makes the argument one, () when it is one anyway).
    dataset_calls: list[tuple[str, str, str, tuple[str, ...]]] = field(default_factory=list)
    #: Names bound at module level to datasets (other modules may import them): name -> the
    #: conditions of `dataset_calls` (() when it is one anyway).
    exports: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Each argument that may be a dataset: (qualified name called, position or keyword, conditions).
    handing: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    #: Of its whole text: what a module that it imports datasets from depends on (its loops).
    text_digest: str = ""
    digest: str = ""
    #: What its API says about the TensorFlow/Keras it is written for (`pipelint.target.api_evidence`).
    api: str = ""
    #: Each class's bases as written (`BaseLoader`, `base.BaseLoader`): its inherited methods.
    bases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Directories it puts on `sys.path` (or loads a module from with `importlib`): where its
    #: imports are found besides the project's roots.
    path_roots: tuple[str, ...] = ()
    #: Names bound to modules loaded by `importlib` (`loading = module_from_spec(spec)`).
    loaded: tuple[str, ...] = ()

    def relevant(self, attribute: str, carries: bool) -> bool:
        """Is a call of `attribute` (`f`, `Class`, `Class.method`) worth following: does it
        return a dataset, or take one when the call hands it one (`carries`)?"""
        if attribute in self.classes:
            # Constructed with a dataset that `__init__` keeps; an instance's other methods are
            # followed when they are called (`ModuleView.method`).
            attribute += ".__init__"
        function = self.functions.get(attribute)
        return function is not None and bool((carries and function.takes) or function.returns_dataset)

    def to_json(self) -> dict:
        data = asdict(self)
        data["classes"] = sorted(self.classes)
        return data

    @classmethod
    def from_json(cls, data: dict, checked: bool) -> "ModuleSummary":
        summary = cls(data["name"], data["path"], data["package"], checked, dict(data["imports"]),
                      {name: FunctionSummary(f["line"], f["digest"], tuple(f["params"]), tuple(f["takes"]),
                                             f["returns"], tuple(f["returns_if"]))
                       for name, f in data["functions"].items()},
                      frozenset(data["classes"]),
                      [(scope, target, kind, tuple(needs)) for scope, target, kind, needs in data["dataset_calls"]],
                      {name: tuple(needs) for name, needs in data["exports"].items()},
                      [(target, key, tuple(needs)) for target, key, needs in data["handing"]],
                      data["text_digest"])
        summary.api = data.get("api", "")
        summary.bases = {name: tuple(bases) for name, bases in data.get("bases", {}).items()}
        summary.path_roots = tuple(data.get("path_roots", ()))
        summary.loaded = tuple(data.get("loaded", ()))
        return summary


class SummaryStore(Protocol):
    """Summaries kept between runs (the result cache's): by file, valid for one key."""

    def get(self, path: str, key: str) -> dict | None: ...

    def put(self, path: str, key: str, summary: dict) -> None: ...


def _static_path(expr: ast.expr, file: str, depth: int = 0, names: dict[str, ast.expr] | None = None) -> str | None:
    """The directory or file an expression names, when it is built from `__file__` and literals
    (`os.path.join(os.path.dirname(__file__), "..", "lib")`, `Path(__file__).parent / "lib"`),
    also through names the module binds once to such an expression (`names`: `BACKEND_DIR =
    os.path.dirname(CURRENT_DIR)`); a relative literal is taken from the script's directory."""
    if depth > 12:
        return None
    if isinstance(expr, ast.Name) and expr.id == "__file__":
        return file
    if isinstance(expr, ast.Name) and names and expr.id in names:
        return _static_path(names[expr.id], file, depth + 1, names)
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return os.path.normpath(os.path.join(os.path.dirname(file), expr.value))
    if isinstance(expr, ast.Attribute) and expr.attr == "parent":
        inner = _static_path(expr.value, file, depth + 1, names)
        return os.path.dirname(inner) if inner is not None else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        left, right = _static_path(expr.left, file, depth + 1, names), expr.right
        if left is not None and isinstance(right, ast.Constant) and isinstance(right.value, str):
            return os.path.normpath(os.path.join(left, right.value))
        return None
    if not isinstance(expr, ast.Call):
        return None
    called = _dotted(expr.func) or ""
    last = called.rsplit(".", 1)[-1] if called else (expr.func.attr if isinstance(expr.func, ast.Attribute) else "")
    if last == "join" and expr.args:
        parts = [_static_path(expr.args[0], file, depth + 1, names)]
        parts += [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in expr.args[1:]]
        return os.path.normpath(os.path.join(*parts)) if None not in parts else None
    if last == "dirname" and expr.args:
        inner = _static_path(expr.args[0], file, depth + 1, names)
        return os.path.dirname(inner) if inner is not None else None
    if last in ("abspath", "realpath", "normpath", "Path", "str") and expr.args:
        return _static_path(expr.args[0], file, depth + 1, names)
    if last in ("resolve", "absolute") and isinstance(expr.func, ast.Attribute):
        return _static_path(expr.func.value, file, depth + 1, names)
    return None


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def summarise(name: str, package: str, path: str, text: str, checked: bool, whole: bool = False) -> ModuleSummary:
    """A module's summary from its text alone (empty when nothing in it could touch a dataset);
    `whole`: every function of it walked, whatever its text (another module hands it datasets)."""
    summary = ModuleSummary(name, path, package, checked)
    summary.text_digest = blake2b(text.encode(), digest_size=8).hexdigest()
    summary.api = api_evidence(text)
    if whole or _COULD_TOUCH_DATASETS.search(text):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return summary  # the engine reports what is wrong with it
        _Reader(summary, text, tree, whole).summarise()
    else:
        # Its imports only: what it imports from modules that export datasets is their uses.
        found = _TOP_LEVEL_IMPORT.findall(text)
        if found:
            # (a module that puts directories on `sys.path` or loads modules by file needs its
            # statements, `BACKEND_DIR = os.path.dirname(...)`, not only its import lines)
            paths = ("sys.path" in text or "spec_from_file_location" in text or "import_module" in text) \
                and _PATH_IMPORTS.search(text) is not None
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = ast.parse(text if paths else "\n".join(found))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return summary
            _Reader(summary, text, tree).imports()
    return summary


def _maybe_project_names(summary: ModuleSummary) -> set[str]:
    """Local names imported from what may be another module of this project: relatively, from
    the module's own top-level package, or (for a module outside any package) from anything that
    is not a known library."""
    own = summary.name.split(".", 1)[0] if summary.package and not summary.package.startswith(_SCRIPT_DIRECTORY) else None
    found = set()
    for local, full in summary.imports.items():
        root = full.split(".", 1)[0]
        if (own is not None and root == own) or (own is None and root not in _NOT_THE_PROJECT):
            found.add(local)
    return found


#: The nodes the summary's questions look at (`_taking`, `_bindings`, returns, `_dataset_calls`):
#: the walk keeps only these, and does not look inside nodes that cannot hold one.
_ASKED = (ast.Call, ast.Return, ast.Assign, ast.For)
_BARE = (ast.Name, ast.Constant, ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The asked-about nodes of a function's own code (not those of functions nested in it),
    last first within each statement as the walk pops them."""
    found = []
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, _ASKED):
            found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, *_BARE)):
            stack.extend(ast.iter_child_nodes(node))
    return found


class _Reader:
    """One module's summary from its (partial) `ast`, walked once: each function's own nodes (not
    those of functions nested in it) are kept in a list that the questions below iterate."""

    def __init__(self, summary: ModuleSummary, text: str, tree: ast.Module, whole: bool = False) -> None:
        self.summary, self.lines, self.tree, self.whole = summary, text.splitlines(), tree, whole
        self.defs: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
        self.own_functions: set[str] = set()
        self.scopes: dict[str, list[ast.AST]] = {"": []}

    def imports(self) -> None:
        """The module's own imports (at its top level, in `if`/`try` blocks there)."""
        names = self.summary.imports
        for node in _top_level(self.tree.body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        names[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".", 1)[0]
                        names.setdefault(top, top)
            elif isinstance(node, ast.ImportFrom):
                base = self._absolute(node.level, node.module)
                if base is None:
                    continue
                for alias in node.names:
                    if alias.name != "*":
                        names[alias.asname or alias.name] = f"{base}.{alias.name}"
                    else:  # the module's names, unknown here: kept under a key no name can be
                        names[f"*{base}"] = base
        self._path_imports()

    def _path_imports(self) -> None:
        """`sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))` then
        `from data import make_ds`; `importlib.util.spec_from_file_location("loading", path)` then
        `module_from_spec`; `importlib.import_module("data")`: the directories and names they add."""
        here = self.summary.path
        roots: list[str] = []
        specs: dict[str, str] = {}  # name bound to a spec -> the module's stem
        loaded: list[str] = []
        # (`CURRENT_DIR = os.path.dirname(os.path.abspath(__file__))`, bound once at the top level)
        bound = _bindings(node for node in self.tree.body if isinstance(node, ast.Assign))
        names = {name: values[0] for name, values in bound.items() if len(values) == 1}
        for node in _top_level(self.tree.body):
            if not isinstance(node, (ast.Expr, ast.Assign)) or not isinstance(node.value, ast.Call):
                continue
            call = node.value
            called = _dotted(call.func) or ""
            target = node.targets[0].id if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) else None
            if called in ("sys.path.insert", "sys.path.append") and call.args:
                directory = _static_path(call.args[-1], here, names=names)
                if directory is not None:
                    roots.append(directory)
            elif called.endswith("spec_from_file_location") and len(call.args) >= 2 and target:
                location = _static_path(call.args[1], here, names=names)
                if location is not None and location.endswith(".py"):
                    roots.append(os.path.dirname(location))
                    specs[target] = os.path.basename(location)[:-3]
            elif called.endswith("module_from_spec") and call.args and target \
                    and isinstance(call.args[0], ast.Name) and call.args[0].id in specs:
                self.summary.imports[target] = specs[call.args[0].id]
                loaded.append(target)
            elif called.endswith("import_module") and call.args and target \
                    and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
                self.summary.imports[target] = call.args[0].value
                loaded.append(target)
        self.summary.path_roots = tuple(dict.fromkeys(roots))
        self.summary.loaded = tuple(loaded)

    def _absolute(self, level: int, module: str | None) -> str | None:
        if level == 0:
            return module
        parts = self.summary.package.split(".") if self.summary.package else []
        if level - 1 > len(parts):
            return None
        base = parts[:len(parts) - (level - 1)]
        return ".".join([*base, module] if module else base) or None

    def qualified(self, expr: ast.expr) -> str | None:
        name = _dotted(expr)
        if name is None:
            return None
        root, _, rest = name.partition(".")
        full = self.summary.imports.get(root)
        if full is None:
            return None
        return f"{full}.{rest}" if rest else full

    def own(self, expr: ast.expr) -> str | None:
        """`helper` called by its bare name, a function of this module: its qualified name."""
        if isinstance(expr, ast.Name) and expr.id in self.own_functions and expr.id not in self.summary.imports:
            return f"{self.summary.name}.{expr.id}"
        return None

    def _walk(self) -> None:
        """Each function's own nodes; a function is walked only when its text could touch a
        dataset or names something imported from another module of the project (`__init__`
        always: it may keep a dataset on `self`)."""
        names = _maybe_project_names(self.summary)
        telling = _COULD_TOUCH_DATASETS if not names else re.compile(
            f"{_COULD_TOUCH_DATASETS.pattern}|\\b(?:{'|'.join(map(re.escape, sorted(names)))})\\b")
        lines = self.lines
        classes = []
        stack: list[tuple[ast.AST, str]] = [(child, "") for child in self.tree.body]
        module_nodes = self.scopes[""]
        while stack:
            node, prefix = stack.pop()
            if isinstance(node, _ASKED):
                module_nodes.append(node)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = prefix + node.name
                self.defs.append((inner, node))
                end = getattr(node, "end_lineno", None) or node.lineno
                walked = self.whole or node.name == "__init__" or telling.search("\n".join(lines[node.lineno - 1:end]))
                self.scopes[inner] = _own_nodes(node) if walked else []
                continue
            if isinstance(node, ast.ClassDef) and prefix == "":
                classes.append(node.name)
                written = tuple(name for name in map(_dotted, node.bases) if name)
                if written:
                    self.summary.bases[node.name] = written
                stack.extend((child, node.name + ".") for child in node.body)
                stack.extend((child, "") for child in (*node.bases, *node.decorator_list))
                continue
            if not isinstance(node, _BARE):
                stack.extend((child, prefix if isinstance(node, (ast.If, ast.Try)) else "")
                             for child in ast.iter_child_nodes(node))
        self.summary.classes = frozenset(classes)
        self.own_functions = {name for name, _ in self.defs if "." not in name}

    def summarise(self) -> None:
        self.imports()
        self._walk()
        summary = self.summary
        functions = {}
        for qualname, node in self.defs:
            nodes = self.scopes[qualname]
            params = tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))
            takes = _taking(nodes, set(params) - {"self", "cls"})
            # A parameter it does not use as a dataset is one when a caller hands it one.
            handed = {p: f"{summary.name}.{qualname}:{p}" for p in params
                      if p not in takes and p not in ("self", "cls") and "." not in qualname}
            datasetish = _Datasetish(self, _bindings(nodes), takes, handed)
            returns: bool | frozenset[str] = frozenset()
            for n in nodes:
                if isinstance(n, ast.Return) and n.value is not None:
                    returns = _either(returns, datasetish(n.value))
            end = getattr(node, "end_lineno", node.lineno) or node.lineno
            start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            text = "\n".join(self.lines[start - 1:end])
            # Returning a parameter that some call hands a dataset is not returning one to every
            # caller (`serialize(obj)` returns `obj`): only what it makes or gets counts.
            returns_if = tuple(sorted(q for q in returns if ":" not in q)) if returns is not True else ()
            functions[qualname] = FunctionSummary(
                start, blake2b(text.encode(), digest_size=8).hexdigest(), params, tuple(sorted(takes)),
                returns is True, returns_if)
            self._dataset_calls(qualname, nodes, datasetish)
        module_nodes = self.scopes[""]
        bindings = _bindings(module_nodes)
        datasetish = _Datasetish(self, bindings, set())
        self._dataset_calls("", module_nodes, datasetish)
        summary.functions = functions
        for name in bindings:
            found = datasetish(ast.Name(name))
            if found:
                summary.exports[name] = () if found is True else tuple(sorted(found))

    def _dataset_calls(self, scope: str, nodes: Iterable[ast.AST], datasetish: "_Datasetish") -> None:
        calls = self.summary.dataset_calls
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "apply" and node.args:
                target = self.qualified(node.args[0])
                kind, found = "apply", datasetish(func.value) if target is not None else frozenset()
            else:
                target = self.qualified(func) or self.own(func)
                kind, found = "call", frozenset()
                if target is not None:
                    arguments = [*((str(i), a) for i, a in enumerate(node.args)),
                                 *((k.arg, k.value) for k in node.keywords if k.arg)]
                    for key, arg in arguments:
                        one = datasetish(arg)
                        if one:
                            found = _either(found, one)
                            # Which parameter it fills: a parameter is a dataset when one is handed.
                            self.summary.handing.append((target, key, () if one is True else tuple(sorted(one))))
            if found:
                calls.append((scope, target, kind, () if found is True else tuple(sorted(found))))


def _either(a: bool | frozenset[str], b: bool | frozenset[str]) -> bool | frozenset[str]:
    """A dataset if either is: True wins, else the conditions of both."""
    if a is True or b is True:
        return True
    return a | b


def _top_level(body: Sequence[ast.stmt]) -> Iterable[ast.stmt]:
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try)):
            yield from _top_level(stmt.body)
            yield from _top_level(stmt.orelse)
            for handler in getattr(stmt, "handlers", ()):
                yield from _top_level(handler.body)


def _bindings(nodes: Iterable[ast.AST]) -> dict[str, list[ast.expr]]:
    found: dict[str, list[ast.expr]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node.value)
                elif isinstance(target, (ast.Tuple, ast.List)):
                    # `train, test = load()`: each name may be one of what it returns.
                    for element in target.elts:
                        if isinstance(element, ast.Name):
                            found.setdefault(element.id, []).append(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "append" and isinstance(node.func.value, ast.Name) and node.args:
            found.setdefault(node.func.value.id, []).append(node.args[0])
    return found


def _taking(nodes: Iterable[ast.AST], params: set[str]) -> set[str]:
    """Parameters the function may use as datasets: dataset method receivers, `fit` arguments,
    loops, kept on `self`."""
    takes: set[str] = set()
    if not params:
        return takes
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            if isinstance(receiver, ast.Name) and receiver.id in params and (
                    node.func.attr in _TELLING_METHODS or node.func.attr in _PASSING_METHODS):
                takes.add(receiver.id)
            if node.func.attr in _CONSUMING_METHODS:
                takes.update(a.id for a in node.args if isinstance(a, ast.Name) and a.id in params)
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Name) and node.iter.id in params:
            takes.add(node.iter.id)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in params \
                and any(isinstance(t, ast.Attribute) for t in node.targets):
            takes.add(node.value.id)
    return takes


class _Datasetish:
    """Does an expression look like a dataset, to the index? True for constructors, chains with a
    telling method, names bound to those and parameters taken as datasets; otherwise the other
    modules' functions (qualified names) whose returning a dataset would make it one."""

    def __init__(self, reader: _Reader, bindings: dict[str, list[ast.expr]], takes: set[str],
                 handed: Mapping[str, str] | None = None):
        self.reader, self.bindings, self.takes = reader, bindings, takes
        #: Parameters that are datasets when callers hand them some: their conditions.
        self.handed = handed or {}
        self.active: set[str] = set()
        self.memo: dict[str, bool | frozenset[str]] = {}

    def __call__(self, expr: ast.expr, depth: int = 0) -> bool | frozenset[str]:
        if depth > 8:
            return frozenset()
        if isinstance(expr, ast.Name):
            if expr.id in self.takes:
                return True
            known = self.memo.get(expr.id)
            if known is not None:
                return known
            if expr.id in self.active:
                return frozenset()
            self.active.add(expr.id)
            handed = self.handed.get(expr.id)
            found: bool | frozenset[str] = frozenset((handed,)) if handed is not None else frozenset()
            try:
                for value in self.bindings.get(expr.id, ()):
                    found = _either(found, self(value, depth + 1))
                    if found is True:
                        break
            finally:
                self.active.discard(expr.id)
            self.memo[expr.id] = found
            return found
        if isinstance(expr, (ast.List, ast.Tuple)):
            found = frozenset()
            for element in expr.elts:
                found = _either(found, self(element, depth + 1))
            return found
        if isinstance(expr, ast.Subscript):
            return self(expr.value, depth + 1)
        if not isinstance(expr, ast.Call):
            return frozenset()
        func = expr.func
        if isinstance(func, ast.Attribute):
            if func.attr in _CONSTRUCTORS:
                return True
            # `np.repeat(x)`, `ops.shuffle(x)`: a function of a module, not a dataset's method.
            if self.reader.qualified(func.value) is None:
                if func.attr in _TELLING_METHODS:
                    return True
                if func.attr in _PASSING_METHODS:
                    return self(func.value, depth + 1)
        elif isinstance(func, ast.Name) and func.id in _CONSTRUCTORS:
            return True
        qualified = self.reader.qualified(func) or self.reader.own(func)
        if qualified in _QUALIFIED_SOURCES:
            return True
        return frozenset((qualified,)) if qualified is not None else frozenset()


class ProjectIndex:
    """The modules of one run's projects and their summaries; plain data (sent to workers)."""

    def __init__(self) -> None:
        self.modules: dict[str, ModuleSummary] = {}
        self.by_path: dict[str, str] = {}
        #: Other names of modules (a file imported under two names): name -> module.
        self.aliases: dict[str, str] = {}
        #: Module -> the modules whose calls hand it datasets.
        self.callers: dict[str, set[str]] = {}
        #: Module -> the modules that import datasets it makes (names bound to datasets at its
        #: top level, what its functions return): their uses of those are its datasets' uses.
        self.consumers: dict[str, set[str]] = {}
        #: Parameters (module, function, parameter) that some call hands a dataset.
        self._handed: set[tuple[str, str, str]] = set()
        #: A module's file -> the directories it adds to `sys.path` (`ModuleSummary.path_roots`).
        self._path_roots: dict[str, tuple[str, ...]] = {}
        #: Package -> (name its modules import through those directories -> the module).
        self._path_aliases: dict[str, dict[str, str]] = {}
        #: Module -> the API evidence of its import-connected group (`api_evidence`), made once.
        self._api_groups: dict[str, tuple[tuple[str, str, str], ...]] | None = None
        #: `resolve`'s answers, once every module and alias is known (None while building).
        self._resolved: dict[tuple[str, str], tuple[str, str] | None] | None = None
        #: Module -> digest of what it reaches by imports (`key_of`), computed on first need.
        self._reach: dict[str, str] | None = None
        #: Module -> the project modules it imports (`key_of`), with `_reach`; and the reverse.
        self._imported: dict[str, list[str]] = {}
        self._importers: dict[str, list[str]] = {}

    # ---- building

    @classmethod
    def build(cls, files: Sequence[Path], contents: Mapping[Path, bytes] | None = None,
              store: SummaryStore | None = None, jobs: int = 1) -> "ProjectIndex":
        """The index of the projects `files` belong to; `contents`: bytes already read;
        `store`: summaries kept from earlier runs (and where new ones are kept); `jobs`: worker
        processes that may summarise the files (when there are many to summarise)."""
        index = cls()
        contents = contents or {}
        roots: dict[str, list[str]] = {}
        pending: list[tuple[str, str, bool, bytes | None]] = []
        for path in files:
            if path.suffix != ".py":
                continue
            absolute = os.path.abspath(path)
            named = index._name_of(absolute, roots)
            if named is not None:
                pending.append((named[0], absolute, True, contents.get(path)))
        # The files' summaries, made in worker processes when there are many: serially they
        # were most of the index's cost, before any check could start.
        ready: dict[str, tuple[ModuleSummary, str | None]] = {}
        if jobs > 1 and len(pending) >= _MIN_MODULES_FOR_WORKERS:
            to_make = []
            for entry in pending:
                kept = _kept(*entry, store) if store is not None else None
                if kept is not None:
                    ready[entry[1]] = (kept, None)
                else:
                    to_make.append(entry)
            if len(to_make) >= _MIN_MODULES_FOR_WORKERS:
                ready.update(zip((entry[1] for entry in to_make), _made_in_workers(to_make, jobs)))
        extra = 0
        importers_only: list[ModuleSummary] = []
        while pending:
            name, absolute, checked, data = pending.pop()
            known = index.by_path.get(absolute)
            if known is not None:
                index._alias(name, known)
            if name in index.modules or known is not None:
                continue
            summary = index._read(name, absolute, checked, data, store, ready)
            if not (summary.functions or summary.dataset_calls or summary.exports):
                importers_only.append(summary)  # it may use what others export: nothing to read
                continue
            # The project modules it imports, found as Python would, read too (not checked).
            for full in summary.imports.values():
                if extra >= _MAX_EXTRA_MODULES:
                    break
                found = index._find_module(full, absolute, roots)
                if found is not None:
                    index._alias(found[2], found[0])
                    index._bind_path_import(summary, found)
                if found is not None and found[0] not in index.modules:
                    extra += 1
                    pending.append((found[0], found[1], False, None))
        # What those import under names of their own (`datasets.mnist` for `mnist`).
        for summary in importers_only:
            for full in summary.imports.values():
                if index.resolve(full + ".x", summary.package) is None \
                        and full.split(".", 1)[0] not in _NOT_THE_PROJECT:
                    found = index._find_module(full, summary.path, roots)
                    if found is not None and found[1] in index.by_path:
                        index._alias(found[2], index.by_path[found[1]])
                        index._bind_path_import(summary, (index.by_path[found[1]], *found[1:]))
        index._read_wholly_where_handed_datasets()
        index._resolved = {}  # modules and their names are all known: answers may be kept
        index._resolve()
        if index._read_wholly_receivers(importers_only):
            index._resolve()  # (their calls hand datasets on: to the fixpoint again)
        for summary in index.modules.values():
            for _, target, _, needs in summary.dataset_calls:
                resolved = index.resolve(target, summary.package)
                # Only a function (or class) of that module that takes datasets receives one.
                if resolved is not None and resolved[0] != summary.name \
                        and index.modules[resolved[0]].relevant(resolved[1], carries=True) \
                        and index._holds(needs, summary.package):
                    index.callers.setdefault(resolved[0], set()).add(summary.name)
            summary.digest = _digest(summary)
        for summary in index.modules.values():
            for exporter in index._imported_exporters(summary):
                index.consumers.setdefault(exporter, set()).add(summary.name)
        return index

    def _read_wholly_receivers(self, importers_only: list[ModuleSummary]) -> bool:
        """A module summarised for its imports alone (its text looked like no dataset code) that
        imports a project function returning datasets (`train_ds, valid_ds = load_datasets(...)`
        in a script that never names TensorFlow): summarised again with every function walked,
        so that its calls handing those datasets on (`prepare_datasets(train_ds)`) are known.
        After `_resolve` (which functions return datasets); says whether it read any."""
        read = False
        for summary in importers_only:
            if summary.checked and any(self._returns_dataset(full, summary.package)
                                       for full in summary.imports.values()):
                source = _source(summary.name, summary.path, None)
                if source is None:
                    continue
                try:
                    self.modules[summary.name] = summarise(summary.name, summary.package, summary.path, source[1],
                                                           summary.checked, whole=True)
                except Exception:  # noqa: BLE001 - as `_made_summary`: left as it was
                    continue
                read = True
        return read

    def _read_wholly_where_handed_datasets(self) -> None:
        """A function that a call of another module hands datasets, in a module whose text did
        not look like dataset code (`def split(ds, n): return ds.take(n), ds.skip(n)`): its
        module is summarised again with every function walked (once; not kept in the store,
        whose summaries depend on the text alone)."""
        wholly: set[str] = set()
        for summary in list(self.modules.values()):
            for _, target, _, needs in summary.dataset_calls:
                resolved = self.resolve(target, summary.package)
                if resolved is None or resolved[0] == summary.name or resolved[0] in wholly \
                        or not self._holds(needs, summary.package):
                    continue  # (only a call that does hand a dataset, as for `callers`)
                callee = self.modules[resolved[0]]
                function = callee.functions.get(resolved[1] + (".__init__" if resolved[1] in callee.classes else ""))
                if function is not None and (function.takes or function.returns):
                    continue
                wholly.add(callee.name)
                source = _source(callee.name, callee.path, None)
                if source is None:
                    continue
                try:
                    again = summarise(callee.name, callee.package, callee.path, source[1], callee.checked, whole=True)
                except Exception:  # noqa: BLE001 - as `_made_summary`: left as it was
                    continue
                self.modules[callee.name] = again

    def _imported_exporters(self, summary: ModuleSummary, classes: bool = False) -> set[str]:
        """The other project modules whose datasets `summary`'s module imports: a name bound to
        one, a function returning one, or the whole module (`import data`, `from data import *`:
        its top-level names, not its classes' methods); with `classes`, also a class imported by
        name whose methods return datasets (`Loader().load()`)."""
        found = set()
        for local, full in summary.imports.items():
            as_module = self.resolve(full + ".x", summary.package)
            whole = local.startswith("*") or (as_module is not None and as_module[1] == "x")
            resolved = as_module if whole else self.resolve(full, summary.package)
            if resolved is None or resolved[0] == summary.name:
                continue
            module = self.modules[resolved[0]]
            if whole:
                names = [*module.exports, *(name for name in module.functions if "." not in name)]
            elif "." not in resolved[1]:
                names = [resolved[1]]
                if classes and resolved[1] in module.classes:
                    names += [name for name in module.functions if name.startswith(resolved[1] + ".")]
            else:
                continue
            if any(self.exports_dataset(module, name) for name in names):
                found.add(module.name)
        return found

    def exports_dataset(self, module: ModuleSummary, name: str) -> bool:
        """Is `name` of `module` a dataset (bound at its top level) or a function returning one?"""
        function = module.functions.get(name)
        if function is not None and function.returns_dataset:
            return True
        needs = module.exports.get(name)
        return needs is not None and self._holds(needs, module.package)

    def _bind_path_import(self, summary: ModuleSummary, found: tuple[str, str, str]) -> None:
        """A module found through a directory the importer put on `sys.path`: the importer's own
        names for it lead to it (a bare name is no alias for every script: `_alias`)."""
        if not summary.path_roots or os.path.dirname(found[1]) not in summary.path_roots \
                and os.path.dirname(os.path.dirname(found[1])) not in summary.path_roots:
            return
        module, _, imported_as = found
        self._path_aliases.setdefault(summary.package, {})[imported_as] = module
        for local, full in list(summary.imports.items()):
            if full == imported_as or full.startswith(imported_as + "."):
                summary.imports[local] = module + full[len(imported_as):]

    def _alias(self, name: str, module: str) -> None:
        """One file under two names (`mnist` beside its script, `datasets.mnist` from the
        directory above: a namespace package): both import it. A bare name is left to the
        script's own directory (two may hold a `data.py`)."""
        if name != module and ("." in name or not module.startswith(_SCRIPT_DIRECTORY)):
            self.aliases.setdefault(name, module)

    def _resolve(self) -> None:
        """Which functions return datasets, also through other modules' functions, and which
        are handed datasets by some call (their parameters' conditions): both to a fixpoint, as
        each may hold through the other (`main` hands `prepare` the datasets `load` returns;
        `prepare` hands them on to another module's function, whose result it returns)."""
        waiting = [(summary, name, function) for summary in self.modules.values()
                   for name, function in summary.functions.items()]
        for summary, name, function in waiting:
            if function.returns:
                summary.functions[name] = _returning(function)
        waiting = [(s, n, f) for s, n, f in waiting if not f.returns and f.returns_if]
        calls = [(summary, target, key, needs) for summary in self.modules.values()
                 for target, key, needs in summary.handing]
        changed = True
        while changed and (waiting or calls):
            changed = False
            still_calls = []
            for summary, target, key, needs in calls:
                resolved = self.resolve(target, summary.package)
                function = self.modules[resolved[0]].functions.get(resolved[1]) if resolved is not None else None
                if function is None:
                    continue
                parameter = key if not key.isdigit() else (
                    function.params[int(key)] if int(key) < len(function.params) else None)
                if parameter is None:
                    continue
                if self._holds(needs, summary.package):
                    self._handed.add((*resolved, parameter))
                    changed = True
                else:
                    still_calls.append((summary, target, key, needs))
            calls = still_calls
            still = []
            for summary, name, function in waiting:
                if self._holds(function.returns_if, summary.package):
                    summary.functions[name] = _returning(function)
                    changed = True
                else:
                    still.append((summary, name, function))
            waiting = still

    def _holds(self, needs: Iterable[str], package: str) -> bool:
        """Is the argument a dataset: no conditions, or one of them holds (a function returns
        datasets; `module.function:parameter`, a function some call hands datasets)."""
        needs = tuple(needs)
        if not needs:
            return True
        for condition in needs:
            function, colon, parameter = condition.partition(":")
            if colon:
                resolved = self.resolve(function, package)
                if resolved is not None and (*resolved, parameter) in self._handed:
                    return True
            elif self._returns_dataset(condition, package):
                return True
        return False

    def _name_of(self, absolute: str, roots: dict[str, list[str]]) -> tuple[str, str] | None:
        """(module name, package) as Python would import the file from the project's roots. A
        script in a directory of its own (`examples/a/train.py`, no `__init__.py`) imports its
        siblings by their bare names; two such directories may both hold a `data.py`, so their
        modules are named under a key of the directory (`_SCRIPT_DIRECTORY...`), their package."""
        directory = os.path.dirname(absolute)
        import_roots = self._import_roots(directory, roots)
        for root in import_roots:
            relative = os.path.relpath(absolute, root)
            if relative.startswith(".."):
                continue
            parts = relative[:-len(".py")].split(os.sep)
            package = parts[:-1]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not (parts and all(part.isidentifier() for part in parts)):
                continue
            if root == directory and root != import_roots[-1] and len(parts) == 1:
                key = _SCRIPT_DIRECTORY + blake2b(directory.encode(), digest_size=6).hexdigest()
                return f"{key}.{parts[0]}", key
            return ".".join(parts), ".".join(package)
        return None

    @staticmethod
    def _import_roots(directory: str, cache: dict[str, list[str]]) -> list[str]:
        known = cache.get(directory)
        if known is None:
            top = project_root(directory)
            # No project marker above: the package's parent directory, from where Python
            # imports it (`train_utils/preprocessing.py` is `train_utils.preprocessing`). A
            # directory whose name no import can spell (`tensorflow-image-processing/`, with an
            # `__init__.py` all the same) is no package: its scripts import their siblings by name.
            if top == directory:
                while os.path.exists(os.path.join(top, "__init__.py")) and os.path.dirname(top) != top \
                        and os.path.basename(top).isidentifier():
                    top = os.path.dirname(top)
            # (`src/` is an import root in the src layout; with an `__init__.py` of its own it is
            # a package imported as `src.data`)
            src = os.path.join(top, "src")
            known = [src, top] if os.path.isdir(src) and not os.path.exists(os.path.join(src, "__init__.py")) else [top]
            # A script's own directory (when it is no package) comes first, as `python script.py`.
            if not os.path.exists(os.path.join(directory, "__init__.py")) and directory not in known:
                known = [directory, *known]
            cache[directory] = known
        return known

    def _find_module(self, full: str, importer: str, roots: dict[str, list[str]]) -> tuple[str, str, str] | None:
        """The project module that `full` (a module, or a name in one) lies in: its name, its
        file, and the name `full` imports it by."""
        parts = full.split(".")
        added = self._path_roots.get(importer, ())
        # Last, where nothing else holds it: the importer's own directory, package or not, which
        # Python puts first on the path when it runs the file as a script (`python_src/train.py`
        # imports `utils.loader` from `python_src/utils/`).
        for root in (*added, *self._import_roots(os.path.dirname(importer), roots),
                     *_package_parents(importer, parts[0]), os.path.dirname(importer)):
            for size in range(len(parts), 0, -1):
                base = os.path.join(root, *parts[:size])
                for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                    if os.path.isfile(candidate):
                        named = self._name_of(candidate, roots)
                        return (named[0], candidate, ".".join(parts[:size])) if named is not None else None
        return None

    def _read(self, name: str, absolute: str, checked: bool, data: bytes | None,
              store: SummaryStore | None, ready: dict[str, tuple[ModuleSummary, str | None]]) -> ModuleSummary:
        """The module's summary: made in a worker process (`ready`), kept from an earlier run, or
        made here; a new one is kept in `store`."""
        made = ready.pop(absolute, None)
        if made is None:
            kept = _kept(name, absolute, checked, data, store) if store is not None else None
            made = (kept, None) if kept is not None else _made_summary(name, absolute, checked, data)
        summary, key = made
        summary.checked = checked  # made before it was known whether a checked file imports it first
        if store is not None and key is not None:
            store.put(absolute, key, summary.to_json())
        self.modules[name] = summary
        self.by_path[absolute] = name
        if summary.path_roots:
            self._path_roots[absolute] = summary.path_roots
        return summary

    # ---- questions

    def resolve(self, qualified: str, package: str = "") -> tuple[str, str] | None:
        """`proj.data.load` -> ("proj.data", "load"): the module and the name in it. From a
        script's directory (`package` one of its keys), its siblings come first, as in Python."""
        if self._resolved is not None:
            key = (qualified, package)
            found = self._resolved.get(key, self)
            if found is self:
                found = self._resolved[key] = self._resolve_name(qualified, package)
            return found
        return self._resolve_name(qualified, package)

    def _resolve_name(self, qualified: str, package: str, depth: int = 0) -> tuple[str, str] | None:
        if package.startswith(_SCRIPT_DIRECTORY):
            # (within a chain of re-exports, the depth goes along: two scripts' directories that
            # import each other's names in a cycle end at `_MAX_REEXPORTS`)
            found = self.resolve(f"{package}.{qualified}") if depth == 0 \
                else self._resolve_name(f"{package}.{qualified}", "", depth)
            if found is not None:
                return found
        parts = qualified.split(".")
        through_path = self._path_aliases.get(package, {})
        for size in range(len(parts) - 1, 0, -1):
            module = through_path.get(".".join(parts[:size]))
            if module is not None and module in self.modules:
                return self._through_reexport(module, ".".join(parts[size:]), depth)
        for size in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:size])
            module = self.aliases.get(module, module)
            if module in self.modules:
                return self._through_reexport(module, ".".join(parts[size:]), depth)
        return None

    def _through_reexport(self, module: str, name: str, depth: int) -> tuple[str, str]:
        """A name a module only imports (`from .dataset import get_dataset` in a package's
        `__init__.py`) is the module's it comes from, as Python finds it."""
        summary = self.modules[module]
        head, dot, rest = name.partition(".")
        if head in summary.classes and rest and name not in summary.functions and depth < _MAX_REEXPORTS:
            inherited = self.inherited_method(summary, head, rest, depth)
            if inherited is not None:
                return inherited
        full = summary.imports.get(head)
        if full is None or depth >= _MAX_REEXPORTS or head in summary.functions or head in summary.exports \
                or head in summary.classes:
            return module, name
        found = self._resolve_name(full + dot + rest, summary.package, depth + 1)
        return found if found is not None and found[0] != module else (module, name)

    def inherited_method(self, summary: ModuleSummary, cls: str, method: str,
                         depth: int = 0) -> tuple[str, str] | None:
        """`Class.method` that `Class` inherits from a base of the project (`class JpegLoader(BaseLoader)`,
        `get` defined on `BaseLoader` in base.py): that base's module and `Base.method`."""
        for base in summary.bases.get(cls, ()):
            head, dot, rest = base.partition(".")
            full = summary.imports.get(head)
            qualified = (full + dot + rest) if full is not None else f"{summary.name}.{base}"
            found = self._resolve_name(f"{qualified}.{method}", summary.package, depth + 1)
            if found is not None and found[1] in self.modules[found[0]].functions:
                return found
        return None

    def is_class(self, qualified: str, package: str = "") -> bool:
        resolved = self.resolve(qualified, package)
        return resolved is not None and resolved[1] in self.modules[resolved[0]].classes

    def _returns_dataset(self, qualified: str, package: str = "") -> bool:
        resolved = self.resolve(qualified, package)
        if resolved is None:
            return False
        function = self.modules[resolved[0]].functions.get(resolved[1])
        return function is not None and function.returns_dataset

    def receives_datasets(self, name: str) -> bool:
        """Do other project modules hand this one datasets: to its functions, or as what it
        imports from them (`_imported_exporters`)?"""
        return bool(self.callers.get(name)) or bool(self._imported_exporters(self.modules[name], classes=True))

    def calling_functions(self, caller: str, callee: str) -> frozenset[str]:
        """The functions of `caller` ("" for its module level) that hand `callee` datasets."""
        summary = self.modules[caller]
        found = {scope for scope, target, _, _ in summary.dataset_calls
                 if (resolved := self.resolve(target, summary.package)) is not None and resolved[0] == callee
                 and self.modules[callee].relevant(resolved[1], carries=True)}
        # And the functions that hand those their datasets (`main` calls `prepare(args, ds)`,
        # which calls the other module): the datasets reach the call only through them.
        growing = True
        while growing:
            growing = False
            for scope, target, _, _ in summary.dataset_calls:
                if scope not in found and target.startswith(summary.name + ".") \
                        and target[len(summary.name) + 1:] in found:
                    found.add(scope)
                    growing = True
        return frozenset(found)

    def module_of(self, path: str | os.PathLike) -> ModuleSummary | None:
        name = self.by_path.get(os.path.abspath(path))
        return self.modules.get(name) if name is not None else None

    def key_of(self, path: str | os.PathLike) -> bytes:
        """What a file's findings depend on in other modules, for its cache key: the summaries
        of the project modules it imports (and theirs, and its own), of the modules that hand it
        datasets, and of what those import; the whole text of the modules it imports (the
        functions it maps and the layers it calls are judged by their bodies, which no summary
        holds), of the modules that import its datasets (their uses of them are its datasets'
        consumers), and of every module that imports it (what none mentions never runs)."""
        name = self.by_path.get(os.path.abspath(path))
        if name is None:
            return b""
        reach = self._import_graph()
        return "\0".join(
            [reach[name],
             *(f"{other}~{self.modules[other].text_digest}" for other in self._imported[name]),
             # (whether an importer mentions a name decides whether what it names ever runs)
             *(f"{other}^{self.modules[other].text_digest}" for other in self._importers.get(name, ())),
             *(f"{other}={reach[other]}" for other in sorted(self.callers.get(name, ()))),
             *(f"{other}~{self.modules[other].text_digest}={reach[other]}"
               for other in sorted(self.consumers.get(name, ()))),
             # (the API of the modules it is connected to says which Keras it is written for)
             *(f"api:{where}={evidence}" for where, evidence in self.api_evidence(path))]
        ).encode()

    def api_evidence(self, path: str | os.PathLike) -> list[tuple[str, str]]:
        """(file name, evidence) of the TensorFlow/Keras API that the other modules connected to
        this one through imports show: a `Sequence` module is written for the Keras of the script
        that trains on it through a helper (`fit_generator` two imports away). One walk of the
        import graph per run gives every module's group."""
        start = self.by_path.get(os.path.abspath(path))
        if start is None:
            return []
        if self._api_groups is None:
            self._api_groups = self._group_api_evidence()
        return [(where, evidence) for name, where, evidence in self._api_groups.get(start, ()) if name != start]

    def _group_api_evidence(self) -> dict[str, tuple[tuple[str, str, str], ...]]:
        """Each module -> the API evidence of the modules it is connected to (its own included)."""
        self._import_graph()
        groups: dict[str, tuple[tuple[str, str, str], ...]] = {}
        for first in sorted(self.modules):
            if first in groups:
                continue
            members, frontier = {first}, [first]
            while frontier:
                name = frontier.pop()
                for other in (*self._imported.get(name, ()), *self._importers.get(name, ())):
                    if other not in members and other in self.modules:
                        members.add(other)
                        frontier.append(other)
            found = tuple((name, os.path.basename(self.modules[name].path), self.modules[name].api)
                          for name in sorted(members) if self.modules[name].api)
            for name in members:
                groups[name] = found
        return self._beside_silent_groups(groups)

    def _beside_silent_groups(self, groups: dict[str, tuple[tuple[str, str, str], ...]],
                              ) -> dict[str, tuple[tuple[str, str, str], ...]]:
        """The scripts beside a module add their API evidence to its group's, after it, where most
        of them show theirs: a folder of scripts is run in one environment (`tf.Session` in its
        other files, `fit_generator` in the training one)."""
        by_directory: dict[str, list[str]] = {}
        for name, summary in self.modules.items():
            if os.path.basename(summary.path) != "__init__.py":
                by_directory.setdefault(os.path.dirname(summary.path), []).append(name)
        for names in by_directory.values():
            showing = sorted(name for name in names if self.modules[name].api)
            if not showing or 2 * len(showing) < len(names):
                continue
            for name in names:
                group = groups.get(name, ())
                known = {member for member, _, _ in group}
                groups[name] = (*group, *((other, os.path.basename(self.modules[other].path) + " beside it",
                                           self.modules[other].api) for other in showing if other not in known))
        return groups

    def imported_modules(self, name: str) -> list[str]:
        """The other project modules that module `name` imports (by any name)."""
        self._import_graph()
        return self._imported[name]

    def importers_of(self, name: str) -> list[str]:
        """The other project modules that import module `name` (by any name)."""
        self._import_graph()
        return self._importers.get(name, [])

    def _import_graph(self) -> dict[str, str]:
        """The import graph's edges both ways and each module's reach digest, made once."""
        if self._reach is None:
            self._reach, self._imported = self._reach_digests()
            for importer, imported in self._imported.items():
                for other in imported:
                    self._importers.setdefault(other, []).append(importer)
        return self._reach

    def _reach_digests(self) -> tuple[dict[str, str], dict[str, list[str]]]:
        """Per module, one digest of the summaries of every module it reaches by imports, itself
        included: each strongly connected component of the import graph is hashed once, from its
        members' summaries and the digests of the components it imports (each component comes
        after all those it reaches), instead of a search per module; and the project modules
        each module imports."""
        edges: dict[str, list[str]] = {}
        for name, summary in self.modules.items():
            found = set()
            for full in summary.imports.values():
                # The module itself, or the one a name is in.
                resolved = self.resolve(full + ".x", summary.package)
                if resolved is not None and resolved[0] != name:
                    found.add(resolved[0])
            edges[name] = sorted(found)
        digests: dict[str, str] = {}
        for members in strongly_connected_components(edges):
            inside = set(members)
            digest = blake2b(digest_size=16)
            for member in members:
                digest.update(f"{member}={self.modules[member].digest}\0".encode())
            for below in sorted({digests[t] for m in members for t in edges[m] if t not in inside}):
                digest.update(f"<{below}\0".encode())
            digests.update(dict.fromkeys(members, digest.hexdigest()))
        return digests, edges


def _package(name: str, absolute: str) -> str:
    return name if absolute.endswith("__init__.py") else name.rpartition(".")[0]


def _source(name: str, absolute: str, data: bytes | None) -> tuple[str, str, str] | None:
    """(package, text, the key its summary is kept under), or None when it cannot be read."""
    package = _package(name, absolute)
    try:
        if data is None:
            with open(absolute, "rb") as handle:
                data = handle.read()
        text = decode_source(data)
    except (OSError, ValueError):
        return None
    return package, text, blake2b(f"{name}\0{package}\0".encode() + data, digest_size=16).hexdigest()


def _kept(name: str, absolute: str, checked: bool, data: bytes | None, store: SummaryStore) -> ModuleSummary | None:
    """The summary an earlier run kept for these bytes, if any."""
    source = _source(name, absolute, data)
    kept = store.get(absolute, source[2]) if source is not None else None
    if kept is None:
        return None
    try:
        return ModuleSummary.from_json(kept, checked)
    except (KeyError, TypeError, ValueError):
        return None


def _made_summary(name: str, absolute: str, checked: bool, data: bytes | None) -> tuple[ModuleSummary, str | None]:
    """A module's summary made from its text, and the key to keep it under (None, and an empty
    summary, when it cannot be read)."""
    source = _source(name, absolute, data)
    if source is None:
        return ModuleSummary(name, absolute, _package(name, absolute), checked), None
    package, text, key = source
    try:
        return summarise(name, package, absolute, text, checked), key
    except Exception:  # noqa: BLE001 - a module the index cannot read is left out, never a traceback
        return ModuleSummary(name, absolute, package, checked), key


def _made_in_workers(entries: list[tuple[str, str, bool, bytes | None]],
                     jobs: int) -> list[tuple[ModuleSummary, str | None]]:
    from concurrent.futures import ProcessPoolExecutor  # costs ~0.1 s to import: only when used

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_made_summary, *zip(*entries), chunksize=max(1, len(entries) // (jobs * 16))))


def _returning(function: FunctionSummary) -> FunctionSummary:
    return FunctionSummary(function.line, function.digest, function.params, function.takes,
                           function.returns, function.returns_if, True)


def _digest(summary: ModuleSummary) -> str:
    digest = blake2b(digest_size=8)
    digest.update(summary.path.encode())
    for local, full in sorted(summary.imports.items()):
        digest.update(f"i\0{local}\0{full}\0".encode())
    for name, function in sorted(summary.functions.items()):
        digest.update(f"f\0{name}\0{function.line}\0{function.digest}\0{function.returns_dataset}\0"
                      f"{','.join(function.takes)}\0".encode())
    for scope, target, kind, needs in summary.dataset_calls:
        digest.update(f"c\0{scope}\0{target}\0{kind}\0{','.join(needs)}\0".encode())
    for name, needs in sorted(summary.exports.items()):
        digest.update(f"e\0{name}\0{','.join(needs)}\0".encode())
    for target, key, needs in summary.handing:
        digest.update(f"h\0{target}\0{key}\0{','.join(needs)}\0".encode())
    return digest.hexdigest()
