"""The project as one check sees it: other modules parsed (libcst) only when the check calls into
them, and the datasets other modules hand to this one's functions.

One `ProjectContext` per process (the engine's worker processes each hold one); it keeps what it
parsed and interpreted for the files that process checks.
"""
from __future__ import annotations

import os
import re

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from pipelint.model import PipelineModel
from pipelint.model.imports import ImportTable
from pipelint.model.interpreter import Interpreter
from pipelint.model.syntax import blocks_of
from pipelint.model.values import merge_values
from pipelint.project.index import ModuleSummary, ProjectIndex


class ForeignModule:
    """Another project module, parsed: its definitions and import table, for the interpreter."""

    def __init__(self, summary: ModuleSummary, text: str, module: cst.Module) -> None:
        self.name, self.path, self.text, self.module = summary.name, summary.path, text, module
        self.imports = ImportTable(summary.package)
        holder = PipelineModel(module)
        definitions = Interpreter(holder)
        definitions._collect_definitions(module.body, None)
        self.functions, self.methods, self.classes = holder.functions, holder.methods, holder.classes
        self.local_class_names = definitions._local_class_names
        for node in _imports_of(module):
            self.imports.add(node)
        self._lines: dict[cst.CSTNode, int] | None = None
        self._assigned: frozenset[str] | None = None

    def assigns(self, name: str) -> bool:
        """Does the module's top level (or an `if`/`try` there) assign `name` (`flip = ...`)?"""
        if self._assigned is None:
            found = set()
            blocks = [self.module.body]
            while blocks:
                for statement in blocks.pop():
                    if isinstance(statement, cst.SimpleStatementLine):
                        for small in statement.body:
                            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) \
                                else [small.target] if isinstance(small, cst.AnnAssign) else []
                            found.update(t.value for t in targets if isinstance(t, cst.Name))
                    elif isinstance(statement, (cst.If, cst.Try)):
                        blocks.extend(blocks_of(statement))
            self._assigned = frozenset(found)
        return name in self._assigned

    def line_of(self, node: cst.CSTNode) -> int | None:
        """The line `node` starts on (positions are computed once, on first need)."""
        if self._lines is None:
            positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
            self._lines = {n: span.start.line for n, span in positions.items()}
        return self._lines.get(node)

    def find(self, attribute: str) -> cst.FunctionDef | cst.ClassDef | None:
        if attribute in self.functions:
            return self.functions[attribute]
        cls = next((c for c in self.classes if c.name.value == attribute), None)
        if cls is not None:
            return cls
        owner, _, method = attribute.partition(".")
        cls = next((c for c in self.classes if c.name.value == owner), None)
        return self.methods.get(cls, {}).get(method) if cls is not None and method else None


def _imports_of(module: cst.Module) -> list[cst.Import | cst.ImportFrom]:
    """The module's imports outside functions (a function's are added when it runs), in order.
    Imports are statements: only statements and their blocks are looked into, never expressions
    (a visitor over every node cost a large module tens of milliseconds)."""
    found: list[cst.Import | cst.ImportFrom] = []

    def small(body) -> None:
        found.extend(statement for statement in body if isinstance(statement, (cst.Import, cst.ImportFrom)))

    def statements(body) -> None:
        for statement in body:
            if isinstance(statement, cst.SimpleStatementLine):
                small(statement.body)
            elif not isinstance(statement, cst.FunctionDef):
                compound(statement)

    def compound(node) -> None:
        # A compound statement, or one of its clauses (else, except, case, finally).
        for attribute in ("body", "handlers", "cases", "orelse", "finalbody"):
            part = getattr(node, attribute, None)
            if isinstance(part, cst.IndentedBlock):
                statements(part.body)
            elif isinstance(part, cst.SimpleStatementSuite):
                small(part.body)
            elif isinstance(part, (list, tuple)):
                for clause in part:
                    compound(clause)
            elif part is not None:
                compound(part)

    statements(module.body)
    return found


# What a package's `__init__.py` writes to re-export names: its imports and its `__all__`.
_REEXPORTS = re.compile(r"^(?:from[ \t]+[\w.]+[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)|import[ \t]+[^\n]*|"
                        r"__all__[ \t]*[+]?=[ \t]*(?:\[[^\]]*\]|\([^)]*\)))", re.MULTILINE)
_MAX_REEXPORT_DEPTH = 4  # packages re-exporting from packages, followed up this far


class ModuleView:
    """What the interpreter of one module asks of the project (see `PipelineModel.project`)."""

    def __init__(self, context: "ProjectContext", summary: ModuleSummary, recording: str | None = None,
                 run_as: ForeignModule | None = None, functions: frozenset[str] | None = None) -> None:
        self.context, self.name, self.package = context, summary.name, summary.package
        self.path = summary.path
        #: Other modules hand this one datasets: it is checked even if it never names TensorFlow.
        self.receives = context.index.receives_datasets(summary.name)
        #: Run as a caller of module `recording`: keep what its functions receive (`model.seeds`).
        self.recording = recording
        #: In that run, this module itself is "another module": its ops name it.
        self.run_as = run_as
        #: In that run, the only functions whose own bodies run: those that make the calls.
        self.functions = functions

    def mentioned_by_importers(self, name: str) -> bool | None:
        """Does a project module that imports this one, by any name, mention `name` (a dataset
        it binds, a function, a method)? None when no project module imports this one. A package's
        `__init__.py` that only re-exports it (`from .preprocess import build_datagen`, `__all__`)
        passes the question on to the modules that import the package."""
        return self._mentioned_below(self.name, re.compile(rf"\b{re.escape(name)}\b"), 0)

    def _mentioned_below(self, module: str, pattern: re.Pattern[str], depth: int) -> bool | None:
        """True where an importer names it; False where importers that use the module exist and
        none does; None where no such importer is known. A package's own `__init__.py` is no user:
        one that only re-exports the name passes the question to the package's importers, one that
        does not name it says nothing."""
        index = self.context.index
        unused = False
        for importer in index.importers_of(module):
            text = self.context.module_text(importer)
            if text is None:
                return True
            path = index.modules[importer].path
            own_package = os.path.basename(path) == "__init__.py" and module.startswith(importer + ".")
            if not pattern.search(text):
                unused = unused or not own_package
                continue
            if own_package and depth < _MAX_REEXPORT_DEPTH and not pattern.search(_REEXPORTS.sub("", text)):
                below = self._mentioned_below(importer, pattern, depth + 1)
                if below is None:
                    continue  # (re-exported by a package nothing in the project imports: read from outside, maybe)
                if below is False:
                    unused = True
                    continue
            return True
        return False if unused else None

    def importer_sources(self) -> list[tuple[str, str | None]]:
        """(path, text) of each other project module that imports this one (text None: unreadable)."""
        index = self.context.index
        return [(index.modules[importer].path, self.context.module_text(importer))
                for importer in index.importers_of(self.name)]

    def importers_say(self, pattern: re.Pattern[str]) -> bool:
        """Does the text of a project module that imports this one match `pattern`?"""
        return any(text is not None and pattern.search(text) for text in self.context.importer_texts(self.name))

    @property
    def own_api_evidence(self) -> str:
        """This module's own `api_evidence`, read when its summary was made."""
        return self.context.index.modules[self.name].api

    def api_evidence(self) -> list[tuple[str, str]]:
        """(file name, evidence) of the TensorFlow/Keras API of the project modules connected to
        this one (`ProjectIndex.api_evidence`)."""
        return self.context.index.api_evidence(self.path)

    def imports_the_project(self) -> bool:
        """Does this module import another project module (a script of the project, when none
        imports it)?"""
        return bool(self.context.index.imported_modules(self.name))

    def loaded_modules(self) -> dict[str, str]:
        """Names this module binds to project modules through `importlib` (no import statement
        says so): local name -> module."""
        summary = self.context.index.modules[self.name]
        return {local: summary.imports[local] for local in summary.loaded if local in summary.imports}

    def overrides(self, cls: str, method: str) -> bool:
        """Does `cls.method` override a method of a project base class (which may call it through
        `self`: a template method)?"""
        index = self.context.index
        summary = index.modules[self.name]
        return bool(summary.bases.get(cls)) and index.inherited_method(summary, cls, method) is not None

    def override_takes(self, cls: str, method: str) -> tuple[str, ...]:
        """The parameters that may take datasets (by their use) of `cls.method` when it overrides
        a method of a project base class: a base's `get()` calls `self._map_x(ds)` and the
        subclass's `_map_x(self, data)` maps `data`."""
        if not self.overrides(cls, method):
            return ()
        function = self.context.index.modules[self.name].functions.get(f"{cls}.{method}")
        return function.takes if function is not None else ()

    def runs(self, qualified: str) -> bool:
        """Is the body of this module's function `qualified` (`f`, `Class.method`) run on its own?"""
        return self.functions is None or qualified in self.functions

    def lookup(self, qualified: str, carries: bool = True) -> tuple[ForeignModule, cst.FunctionDef | cst.ClassDef] | None:
        """The function or class of another project module that `qualified` names, when it
        returns datasets, or takes them and the call hands it one (`carries`)."""
        index = self.context.index
        resolved = index.resolve(qualified, self.package)
        if resolved is None or resolved[0] == self.name:
            return None
        module, attribute = resolved
        if not index.modules[module].relevant(attribute, carries):
            return None
        foreign = self.context.foreign(module)
        if foreign is None:
            return None
        node = foreign.find(attribute)
        return (foreign, node) if node is not None else None

    def definition(self, qualified: str, dataset: bool = False) -> tuple[ForeignModule, str] | None:
        """Another project module and the top-level name of it that `qualified` names (a
        function, a class, a name its top level binds, or `Class.method`), whatever it returns: a
        function mapped here, a layer built there; with `dataset`, only a name its top level binds
        to a dataset (`train_ds`, as the index says)."""
        index = self.context.index
        resolved = index.resolve(qualified, self.package)
        if resolved is None or resolved[0] == self.name:
            return None
        owner, _, attribute = resolved[1].partition(".")
        if attribute and (dataset or "." in attribute):
            return None  # only `Class.method` (a method mapped through its class) beyond top-level names
        if dataset and not (resolved[1] in index.modules[resolved[0]].exports
                            and index.exports_dataset(index.modules[resolved[0]], resolved[1])):
            return None
        foreign = self.context.foreign(resolved[0])
        if foreign is None or (attribute and not isinstance(foreign.find(owner), cst.ClassDef)):
            return None
        return foreign, resolved[1]

    def method(self, qualified: str, carries: bool) -> tuple[ForeignModule, cst.ClassDef, cst.FunctionDef] | None:
        """`pkg.mod.Class.method` of another project module, when worth following."""
        found = self.lookup(qualified, carries)
        if found is None or not isinstance(found[1], cst.FunctionDef):
            return None
        foreign, method = found
        # The class defining it, which may be a base of the one named (`JpegLoader.get` -> `BaseLoader`).
        resolved = self.context.index.resolve(qualified, self.package)
        owner = resolved[1].split(".", 1)[0] if resolved is not None else qualified.rsplit(".", 2)[-2]
        cls = next((c for c in foreign.classes if c.name.value == owner), None)
        return (foreign, cls, method) if cls is not None else None

    def class_defines(self, qualified: str, method: str) -> bool:
        """Does the class of another project module that `qualified` names define (or inherit
        from a project base) a method `method`?"""
        index = self.context.index
        resolved = index.resolve(f"{qualified}.{method}", self.package)
        if resolved is None or resolved[0] == self.name:
            return False
        if resolved[1] in index.modules[resolved[0]].functions:
            return True  # (summarized: a module with datasets in it)
        owner, _, name = resolved[1].partition(".")
        foreign = self.context.foreign(resolved[0])
        cls = foreign.find(owner) if foreign is not None else None
        return isinstance(cls, cst.ClassDef) and name in foreign.methods.get(cls, {})

    def is_class(self, qualified: str) -> bool:
        """Does `qualified` name a class of another project module?"""
        return self.context.index.is_class(qualified, self.package)

    def importers(self) -> list[tuple[ForeignModule, dict[str, str], frozenset[str]]]:
        """The other project modules that import this one's datasets (`index.consumers`), each
        with its local names for this module's top-level names (local -> name here) and its
        names for this module as a whole (`import data`); none while this module is itself run
        for another."""
        if self.recording is not None or self.run_as is not None:
            return []
        index = self.context.index
        own = index.modules[self.name]
        top = [*own.exports, *(name for name in own.functions if "." not in name)]
        found = []
        for importer in sorted(index.consumers.get(self.name, ())):
            home = self.context.foreign(importer)
            if home is None:
                continue
            summary = index.modules[importer]
            names: dict[str, str] = {}
            wholes = set()
            for local, full in summary.imports.items():
                whole = index.resolve(full + ".x", summary.package)
                if whole is not None and whole == (self.name, "x"):
                    if local.startswith("*"):
                        names.update((name, name) for name in top)
                    else:
                        wholes.add(local)
                    continue
                resolved = index.resolve(full, summary.package)
                if resolved is not None and resolved[0] == self.name and "." not in resolved[1]:
                    names[local] = resolved[1]
            found.append((home, names, frozenset(wholes)))
        return found

    def seeds(self, qualified: str) -> dict[str, object]:
        """The datasets this module's function `qualified` receives from other modules, by
        parameter (nothing while this module is itself run as a caller)."""
        if self.recording is not None:
            return {}
        return self.context.seeds_for(self.name).get(qualified, {})


class ProjectContext:
    def __init__(self, index: ProjectIndex) -> None:
        self.index = index
        self._parsed: dict[str, ForeignModule | None] = {}
        self._seeds: dict[str, dict[str, dict[str, object]]] = {}
        self._texts: dict[str, str | None] = {}

    def view(self, path: str | os.PathLike) -> ModuleView | None:
        summary = self.index.module_of(path)
        return ModuleView(self, summary) if summary is not None else None

    def importer_texts(self, name: str) -> list[str | None]:
        """The text of each other project module that imports module `name` (None: unreadable)."""
        return [self.module_text(importer) for importer in self.index.importers_of(name)]

    def module_text(self, name: str) -> str | None:
        """A project module's text as it is on disk, read once (None: unreadable)."""
        if name not in self._texts:
            try:
                with open(self.index.modules[name].path, "rb") as handle:
                    self._texts[name] = handle.read().decode("utf-8-sig", "replace")
            except OSError:
                self._texts[name] = None
        return self._texts[name]

    def foreign(self, name: str) -> ForeignModule | None:
        if name not in self._parsed:
            summary = self.index.modules[name]
            try:
                with open(summary.path, "rb") as handle:
                    text = handle.read().decode("utf-8-sig")
                self._parsed[name] = ForeignModule(summary, text, cst.parse_module(text))
            except Exception:  # noqa: BLE001 - a module that cannot be read is not followed
                self._parsed[name] = None
        return self._parsed[name]

    def seeds_for(self, name: str) -> dict[str, dict[str, object]]:
        """Run each module that hands `name` datasets, as far as its calls into `name`, and keep
        the datasets each function of `name` receives."""
        known = self._seeds.get(name)
        if known is not None:
            return known
        self._seeds[name] = merged = {}  # a cycle of callers sees no seeds, never recursion
        for caller in sorted(self.index.callers.get(name, ())):
            home = self.foreign(caller)
            if home is None:
                continue
            view = ModuleView(self, self.index.modules[caller], recording=name, run_as=home,
                              functions=self.index.calling_functions(caller, name))
            try:
                model = PipelineModel.build(home.module, home.text, project=view)
            except Exception:  # noqa: BLE001 - a caller the model cannot run hands nothing
                continue
            for function, received in model.seeds.items():
                into = merged.setdefault(function, {})
                for parameter, value in received.items():
                    into[parameter] = merge_values(into.get(parameter), value)
        return merged
