"""Order in the data: is a dataset's source a file list read class by class?

A list built from class folders holds every file of one class before the next class's:
`sorted(glob('data/*/*.jpg'))` (glob lists a wildcard folder level folder by folder, sorted or
not), a loop over the classes that appends each folder's files, an `os.walk` collection, one
class's list added to another's, `list_files('data/*/*', shuffle=False)`, and records read file
after file from such a list (`TFRecordDataset(files)`). A `shuffle` buffer much smaller than the
list then mixes only neighbours: each batch holds one or two classes.

How the list was built is read from the statements of the scope that builds the dataset, in
source order, up to that point (following one call into a function of this module or of another
project module that returns it). Anything not known to keep the order (the list shuffled, handed
to an unknown function, rebound to anything else, a `pandas` frame) answers None: a finding here
must be right, so every step has to be understood.

Asked lazily (`PipelineModel.source_order`) for the few shuffles a rule judges; it reads the
statements of one scope, never the whole module twice.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import libcst as cst

from pipelint.model.syntax import ancestors, block_body, dotted, find_arg, innermost, is_false, literal_int
from pipelint.model.values import DatasetPath

_GLOBS = frozenset({"glob.glob", "glob.iglob", "tensorflow.io.gfile.glob", "tensorflow.gfile.Glob"})
_LISTDIRS = frozenset({"os.listdir", "os.scandir", "tensorflow.io.gfile.listdir", "tensorflow.gfile.ListDirectory"})
_WALKS = frozenset({"os.walk", "tensorflow.io.gfile.walk", "tensorflow.gfile.Walk"})
# Calls that return their argument's items in the same order (or sorted, which keeps class folders
# together: a folder's files share its prefix).
_KEEP_ORDER = frozenset({"sorted", "list", "tuple", "numpy.array", "numpy.asarray", "tensorflow.constant",
                         "tensorflow.convert_to_tensor"})
# Calls that only read a list: handing it to them changes nothing.
_READ_ONLY = frozenset({"len", "print", "zip", "enumerate", "sorted", "list", "tuple", "set", "str", "repr",
                        "numpy.array", "numpy.asarray", "tensorflow.constant", "tensorflow.convert_to_tensor",
                        "logging.info", "logging.debug"})
# Sources whose first argument is the list of files to read, one after another.
_RECORD_READERS = frozenset({"tensorflow.data.TFRecordDataset", "tensorflow.data.TextLineDataset",
                             "tensorflow.data.FixedLengthRecordDataset"})
_SLICES = "tensorflow.data.Dataset.from_tensor_slices"
_LIST_FILES = "tensorflow.data.Dataset.list_files"
_FOLLOW_DEPTH = 2  # calls followed into functions that return the list


@dataclass(frozen=True)
class SourceOrder:
    """A dataset source read class by class (see the module docstring)."""

    #: What builds it, as the user wrote it: "`sorted(glob(...))` lists the files folder by folder".
    how: str
    #: The construction: the listing call, the loop over the classes, the `list_files` call.
    node: cst.CSTNode
    #: The project module holding `node` (`pipelint.project.ForeignModule`); None: this module.
    where: object | None
    #: How many classes, when a literal list names them.
    classes: int | None = None
    #: How many files at most, when a literal bounds it (`[:1000]`).
    size: int | None = None


@dataclass(frozen=True)
class _Listing:
    """A list of files, and whether it is grouped by folder (class)."""

    grouped: bool
    how: str
    node: cst.CSTNode
    classes: int | None = None
    size: int | None = None
    #: Built class by class (a loop over the classes, one class's list added to another's), not
    #: just folder by folder: record files of a folder may already be mixed shards.
    per_class: bool = False
    where: object | None = None  # the project module whose code builds it, as `SourceOrder.where`


@dataclass(frozen=True)
class _Literal:
    """A literal list or tuple (`classes = ['cat', 'dog']`): only its length matters."""

    length: int


_EMPTY = object()  # `paths = []`, before the loop that fills it
_MIXED = object()  # a list shuffled, handed on or changed in a way not known to keep its order


def source_order(path: DatasetPath, model) -> SourceOrder | None:
    """The class order of the source of `path`, when its origin reads a list built that way."""
    origin = path.origin
    node = origin.node
    if not isinstance(node, cst.Call) or origin.kind not in (_SLICES, _LIST_FILES, *_RECORD_READERS):
        return None
    scope = _Scope.of(model, origin.where)
    if scope is None:
        return None
    if origin.kind == _LIST_FILES:
        shuffle = find_arg(node, "shuffle", 1)
        pattern = find_arg(node, "file_pattern", 0)
        if shuffle is None or not is_false(shuffle.value) or pattern is None \
                or not _folder_wildcard(pattern.value):
            return None  # shuffled names (the default), or a flat folder: no class order
        return SourceOrder(f"`{scope.text(node)}` lists the files in order, folder by folder", node, origin.where)
    arg = find_arg(node, "tensors" if origin.kind == _SLICES else "filenames", 0)
    if arg is None:
        return None
    listing = scope.listing_at(arg.value, node)
    if not isinstance(listing, _Listing) or not listing.grouped or (
            origin.kind in _RECORD_READERS and not listing.per_class):
        return None
    how = listing.how if origin.kind == _SLICES else f"records read file after file, and {listing.how}"
    return SourceOrder(how, listing.node, listing.where, listing.classes, listing.size)


def constant_int(expr: cst.BaseExpression | None, model, depth: int = 0) -> int | None:
    """An integer the source spells out: a literal, a name the module binds once to one, or
    `+ - * //` of those (`BATCH_SIZE * 20`)."""
    if expr is None or depth > 4:
        return None
    value = literal_int(expr)
    if value is not None:
        return value
    if isinstance(expr, cst.Name):
        return constant_int(model.bound_once(expr.value), model, depth + 1)
    if isinstance(expr, cst.BinaryOperation):
        left, right = constant_int(expr.left, model, depth + 1), constant_int(expr.right, model, depth + 1)
        if left is None or right is None:
            return None
        if isinstance(expr.operator, cst.Multiply):
            return left * right
        if isinstance(expr.operator, cst.Add):
            return left + right
        if isinstance(expr.operator, cst.Subtract):
            return left - right
        if isinstance(expr.operator, cst.FloorDivide) and right:
            return left // right
    return None


class _Scope:
    """The module (this one or another project module) whose statements build a list."""

    def __init__(self, module: cst.Module, imports, functions: dict[str, cst.FunctionDef], where: object | None,
                 project: object | None) -> None:
        self.module, self.imports, self.functions, self.where, self.project = \
            module, imports, functions, where, project

    @classmethod
    def of(cls, model, where: object | None) -> _Scope | None:
        if where is None:
            return cls(model.module, model.imports, model.functions, None, model.project)
        module = getattr(where, "module", None)
        if module is None:
            return None
        return cls(module, where.imports, where.functions, where, None)

    def text(self, node: cst.CSTNode, limit: int = 70) -> str:
        code = " ".join(self.module.code_for_node(node).split())
        return code if len(code) <= limit else code[:limit - 5] + " ...)"

    def name_of(self, func: cst.BaseExpression) -> str | None:
        """The callee's qualified name, else as written (`os.listdir` imported in a function)."""
        return self.imports.resolve(func) or dotted(func)

    # -- the statements before the use ------------------------------------------------------------

    def listing_at(self, expr: cst.BaseExpression, use: cst.CSTNode, depth: int = 0) -> object:
        """What `expr` (a part of the statement holding `use`) is, after the statements before it."""
        around = ancestors(self.module, use)
        if not around:
            return None
        function = innermost(self.module, use, cst.FunctionDef)
        body = block_body(function.body) if function is not None else self.module.body
        state: dict[str, object] = {}
        self._run(body, state, set(map(id, around)), depth)
        return self._value(expr, state, depth)

    def _run(self, body, state: dict[str, object], around: set[int], depth: int) -> bool:
        """Run `body` up to the statement holding the use; True once it is reached."""
        for stmt in body:
            if id(stmt) in around:
                if isinstance(stmt, cst.SimpleStatementLine):
                    return True
                # The use is inside: the part of this statement before it still runs.
                for block in _blocks(stmt):
                    if self._run(block, state, around, depth):
                        return True
                return True
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._small(small, state, depth)
            elif isinstance(stmt, cst.For):
                self._loop(stmt, state)
            elif isinstance(stmt, cst.While):
                self._forget_mutated(stmt, state)
            else:
                for block in _blocks(stmt):
                    self._run(block, state, around, depth)
        return False

    def _small(self, small: cst.CSTNode, state: dict[str, object], depth: int) -> None:
        if isinstance(small, cst.Assign):
            if len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                _rebind(state, small.targets[0].target.value, self._value(small.value, state, depth))
                return
            values = self._unpacked(small.value, state, depth)
            for target in small.targets:
                if isinstance(target.target, (cst.Tuple, cst.List)) and values is not None \
                        and len(values) == len(target.target.elements):
                    for element, value in zip(target.target.elements, values):
                        for name in _target_names(element.value):
                            _rebind(state, name, value if isinstance(element.value, cst.Name) else None)
                else:
                    for name in _target_names(target.target):
                        _rebind(state, name, None)
        elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
            _rebind(state, small.target.value, self._value(small.value, state, depth))
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            _rebind(state, small.target.value, None)  # `paths += more` outside a class loop
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self._call_statement(small.value, state)

    def _call_statement(self, call: cst.Call, state: dict[str, object]) -> None:
        """`random.shuffle(paths)`, `paths.sort()`, `helper(paths)`: what they may do to a list."""
        func = call.func
        # Sorting by path or reversing keeps each folder's files together; any other method
        # (`append` outside a class loop, `sort(key=...)`) leaves the order unknown.
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in state \
                and not (func.attr.value in ("sort", "reverse") and not call.args):
            state[func.value.value] = _MIXED
        qualified = self.name_of(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if qualified in _READ_ONLY:
            return
        for arg in call.args:  # handed on: maybe shuffled in place (`random.shuffle(paths)`)
            if isinstance(arg.value, cst.Name) and arg.value.value in state:
                state[arg.value.value] = _MIXED

    def _loop(self, loop: cst.For, state: dict[str, object]) -> None:
        """A loop that fills lists: grouped by class when it lists one folder per class (or walks
        the tree); any other change to a list it makes leaves that list unknown."""
        appended, other = _mutations(loop, set(state))
        grouped = self._class_loop(loop, state)
        for name in appended - other:
            before = state.get(name)
            if grouped is not None and (before is _EMPTY or isinstance(before, _Listing) and before.grouped):
                state[name] = grouped
            else:
                state[name] = None
        for name in other:
            state[name] = _MIXED

    def _class_loop(self, loop: cst.For, state: dict[str, object]) -> _Listing | None:
        """The grouping a loop gives the files it appends: folder by folder when it (or a loop in
        it) walks the tree or lists a folder named by its own variable."""
        for inner in [loop, *_loops_in(loop.body)]:
            iterable = inner.iter
            if isinstance(iterable, cst.Call) and self.name_of(iterable.func) in _WALKS:
                return _Listing(True, f"`{self.text(iterable)}` collects the files folder by folder", inner,
                                where=self.where)
            variables = _target_names(inner.target)
            if variables and any(self._lists_folder_of(call, variables) for call in _calls_in(inner.body)):
                classes = self._length(inner.iter, state)
                header = f"for {self.module.code_for_node(inner.target)} in {self.text(inner.iter, 40)}"
                return _Listing(True, f"`{header}:` appends one class folder's files after another's",
                                inner, classes=classes, per_class=True, where=self.where)
        return None

    def _lists_folder_of(self, call: cst.Call, variables: set[str]) -> bool:
        qualified = self.name_of(call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
        if qualified in _GLOBS or qualified in _LISTDIRS or qualified in _WALKS:
            arg = call.args[0].value if call.args else None
        elif isinstance(call.func, cst.Attribute) and call.func.attr.value in ("glob", "rglob", "iterdir"):
            arg = call.func.value  # `(root / label).glob('*.jpg')`
        else:
            return False
        return arg is not None and bool(_names_in(arg) & variables)

    def _length(self, iterable: cst.BaseExpression, state: dict[str, object]) -> int | None:
        """How many classes a loop goes over, when a literal list shows it."""
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) \
                and iterable.func.value in ("enumerate", "sorted") and iterable.args:
            iterable = iterable.args[0].value
        if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
            if any(isinstance(e, cst.StarredElement) for e in iterable.elements):
                return None
            return len(iterable.elements)
        if isinstance(iterable, cst.Name):
            known = state.get(iterable.value)
            if isinstance(known, _Literal):
                return known.length
            bound = self._bound_once(iterable.value)
            return self._length(bound, state) if isinstance(bound, (cst.List, cst.Tuple, cst.Set)) else None
        return None

    def _bound_once(self, name: str) -> cst.BaseExpression | None:
        values = [small.value for stmt in self.module.body if isinstance(stmt, cst.SimpleStatementLine)
                  for small in stmt.body if isinstance(small, cst.Assign)
                  for target in small.targets if isinstance(target.target, cst.Name) and target.target.value == name]
        return values[0] if len(values) == 1 else None

    def _forget_mutated(self, node: cst.CSTNode, state: dict[str, object]) -> None:
        appended, other = _mutations(node, set(state))
        for name in appended | other:
            state[name] = _MIXED

    # -- expressions ---------------------------------------------------------------------------------

    def _value(self, expr: cst.BaseExpression, state: dict[str, object], depth: int) -> object:
        if isinstance(expr, cst.Name):
            return state.get(expr.value)
        if isinstance(expr, (cst.List, cst.Tuple)):
            if not expr.elements:
                return _EMPTY
            if isinstance(expr, cst.Tuple) or any(not isinstance(e.value, (cst.SimpleString, cst.Integer))
                                                   for e in expr.elements):
                # A structure (`(paths, labels)`): its file list is the grouped component, if
                # none of the others is known to be shuffled.
                return _component(self._value(e.value, state, depth) for e in expr.elements)
            return _Literal(len(expr.elements))
        if isinstance(expr, cst.Dict):
            return _component(self._value(e.value, state, depth) for e in expr.elements
                              if isinstance(e, cst.DictElement))
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)) and not expr.for_in.inner_for_in:
            # `[str(p) for p in paths]`, `[p for p in paths if p.endswith('.jpg')]`: same order
            return self._value(expr.for_in.iter, state, depth)
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice):
            part = expr.slice[0].slice
            inner = self._value(expr.value, state, depth)
            if isinstance(inner, _Listing) and part.lower is None and part.step is None:
                stop = literal_int(part.upper) if part.upper is not None else None
                return replace(inner, size=stop if stop is not None and stop >= 0 else inner.size)
            return None
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            left, right = self._value(expr.left, state, depth), self._value(expr.right, state, depth)
            if isinstance(left, _Listing) and isinstance(right, _Listing):
                # One folder's files after another's (`cats + dogs`): grouped by class.
                classes = 2 if not (left.grouped or right.grouped) else None
                return _Listing(True, f"`{self.text(expr)}` puts one folder's files after another's", expr,
                                classes=classes, per_class=True, where=self.where)
            return None
        if isinstance(expr, cst.Call):
            return self._call_value(expr, state, depth)
        return None

    def _call_value(self, call: cst.Call, state: dict[str, object], depth: int) -> object:
        func = call.func
        qualified = self.name_of(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        first = call.args[0].value if call.args and call.args[0].keyword is None else None
        if qualified in _GLOBS or (isinstance(func, cst.Attribute) and func.attr.value in ("glob", "rglob")
                                   and qualified not in _GLOBS and first is not None):
            if first is None:
                return None
            recursive = isinstance(func, cst.Attribute) and func.attr.value == "rglob"
            grouped = recursive or _folder_wildcard(first)
            return _Listing(grouped, f"`{self.text(call)}` lists the files folder by folder", call, where=self.where)
        if qualified in _KEEP_ORDER and first is not None and len(call.args) == 1:
            inner = self._value(first, state, depth)
            if isinstance(inner, _Listing) and inner.node is first:
                return replace(inner, how=inner.how.replace(f"`{self.text(first)}`", f"`{self.text(call)}`"),
                               node=call)
            return inner if isinstance(inner, (_Listing, _Literal)) else None
        return self._returned(call, depth, index=None)

    def _unpacked(self, expr: cst.BaseExpression, state: dict[str, object], depth: int) -> list[object] | None:
        """The values of `a, b = expr`: a helper returning `paths, labels`."""
        if isinstance(expr, cst.Call):
            returned = self._returned(expr, depth, index="all")
            return returned if isinstance(returned, list) else None
        if isinstance(expr, cst.Tuple):
            return [self._value(e.value, state, depth) for e in expr.elements]
        return None

    def _returned(self, call: cst.Call, depth: int, index: object) -> object:
        """What a function of this module (or, from this module, of another project module)
        returns, when its last statement returns the list (or a tuple holding it)."""
        if depth >= _FOLLOW_DEPTH or not isinstance(call.func, (cst.Name, cst.Attribute)):
            return None
        scope, function = self, None
        if isinstance(call.func, cst.Name) and call.func.value in self.functions:
            function = self.functions[call.func.value]
        elif self.project is not None:
            qualified = self.imports.resolve(call.func)
            definition = getattr(self.project, "definition", None)
            found = definition(qualified) if qualified is not None and definition is not None else None
            if found is not None:
                foreign, name = found
                node = foreign.find(name)
                if isinstance(node, cst.FunctionDef):
                    scope, function = _Scope(foreign.module, foreign.imports, foreign.functions, foreign, None), node
        if function is None:
            return None
        body = block_body(function.body)
        last = body[-1] if body else None
        if not (isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1
                and isinstance(last.body[0], cst.Return) and last.body[0].value is not None):
            return None
        returned = last.body[0].value
        state: dict[str, object] = {}
        scope._run(body, state, {id(last)}, depth + 1)
        if index == "all":
            if isinstance(returned, cst.Tuple):
                return [scope._value(e.value, state, depth + 1) for e in returned.elements]
            return None
        return scope._value(returned, state, depth + 1)


def _rebind(state: dict[str, object], name: str, value: object) -> None:
    """Bind `name`; a list rebound to something unknown (`paths = np.random.permutation(paths)`)
    is a list mixed, which silences its structure too (`(paths, labels)`)."""
    before = state.get(name)
    if value is None and (isinstance(before, _Listing) or before is _EMPTY or before is _MIXED):
        value = _MIXED
    state[name] = value


def _component(parts) -> _Listing | None:
    """The grouped file list of a structure (`(paths, labels)`), unless another of its components
    was shuffled (`random.shuffle(paths)` after the loop that filled both lists)."""
    parts = list(parts)
    if any(part is _MIXED for part in parts):
        return None
    return next((p for p in parts if isinstance(p, _Listing) and p.grouped), None)


def _blocks(stmt: cst.CSTNode) -> list:
    """The blocks of a compound statement, in source order."""
    blocks = []
    for attribute in ("body", "handlers", "orelse", "finalbody"):
        part = getattr(stmt, attribute, None)
        if isinstance(part, cst.BaseSuite):
            blocks.append(block_body(part))
        elif isinstance(part, (list, tuple)):
            blocks.extend(block_body(handler.body) for handler in part)
        elif isinstance(part, cst.If):
            blocks.extend(_blocks(part))
        elif part is not None and hasattr(part, "body"):
            blocks.append(block_body(part.body))
    return blocks


def _target_names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_target_names(e.value) for e in target.elements)) if target.elements else set()
    return set()


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _names_in(node: cst.CSTNode) -> set[str]:
    collector = _Names()
    node.visit(collector)
    return collector.names


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.loops: list[cst.For] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_For(self, node: cst.For) -> None:
        self.loops.append(node)


def _calls_in(node: cst.CSTNode) -> list[cst.Call]:
    collector = _Calls()
    node.visit(collector)
    return collector.calls


def _loops_in(node: cst.CSTNode) -> list[cst.For]:
    collector = _Calls()
    node.visit(collector)
    return collector.loops


class _Mutations(cst.CSTVisitor):
    """What a block does to the lists named `tracked`: appends (`append`, `extend`, `+=`) and
    anything else (rebinding, `shuffle(paths)`, handing them on)."""

    def __init__(self, tracked: set[str]) -> None:
        self.tracked = tracked
        self.appended: set[str] = set()
        self.other: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in self.tracked:
            (self.appended if func.attr.value in ("append", "extend") else self.other).add(func.value.value)
        name = dotted(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if name not in _READ_ONLY:
            self.other.update(a.value.value for a in node.args
                              if isinstance(a.value, cst.Name) and a.value.value in self.tracked)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and node.target.value in self.tracked:
            (self.appended if isinstance(node.operator, cst.AddAssign) else self.other).add(node.target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.other.update(_target_names(node.target) & self.tracked)


def _mutations(node: cst.CSTNode, tracked: set[str]) -> tuple[set[str], set[str]]:
    collector = _Mutations(tracked)
    node.visit(collector)
    return collector.appended, collector.other


_WILDCARD = re.compile(r"[*?\[]")


def _pattern_text(expr: cst.BaseExpression) -> str | None:
    """A glob pattern as far as its literal parts show (unknown parts as `\\0`), with `/` between
    the parts that `os.path.join` and `Path /` join."""
    if isinstance(expr, cst.SimpleString):
        return expr.evaluated_value if isinstance(expr.evaluated_value, str) else None
    if isinstance(expr, cst.FormattedString):
        return "".join(part.value if isinstance(part, cst.FormattedStringText) else "\0" for part in expr.parts)
    if isinstance(expr, cst.ConcatenatedString):
        left, right = _pattern_text(expr.left), _pattern_text(expr.right)
        return left + right if left is not None and right is not None else None
    if isinstance(expr, cst.BinaryOperation):
        left, right = _pattern_text(expr.left), _pattern_text(expr.right)
        left, right = "\0" if left is None else left, "\0" if right is None else right
        if isinstance(expr.operator, cst.Add):
            return left + right
        if isinstance(expr.operator, cst.Divide):
            return f"{left}/{right}"
        if isinstance(expr.operator, cst.Modulo):
            return left
        return None
    if isinstance(expr, cst.Call):
        name = dotted(expr.func) or ""
        if name.endswith("path.join") or name == "join":
            parts = [_pattern_text(a.value) for a in expr.args]
            return "/".join("\0" if p is None else p for p in parts)
        if name in ("str", "Path", "pathlib.Path", "os.fspath") and len(expr.args) == 1:
            return _pattern_text(expr.args[0].value)
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "format":
            return _pattern_text(expr.func.value)
    return None


def _folder_wildcard(pattern: cst.BaseExpression) -> bool:
    """Does the pattern match a folder level by wildcard (`data/*/*.jpg`): class folders?"""
    text = _pattern_text(pattern)
    if text is None:
        return False
    levels = re.split(r"[/\\]", text)
    return any(_WILDCARD.search(level) for level in levels[:-1])


__all__ = ["SourceOrder", "constant_int", "source_order"]
