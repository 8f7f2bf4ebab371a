"""Parameters that are datasets by their use: `def prepare(ds): ds = ds.map(f); return ds.cache()`.

Where no caller is in sight, an unannotated parameter is taken for a tf.data dataset only when
every use of its name is a dataset method call on it, an assignment to it, a `return` of it, an
argument or a `for` loop over it, and those methods are at least two distinct ones of which one
is not also a list/pandas/Spark name (`map`, `filter`, `take`, `apply`...): `cache`, `shuffle`,
`batch`, `prefetch` and the like. The findings on such a dataset say so.
"""
from __future__ import annotations

import re

import libcst as cst

from pipelint.model.catalogue import DATASET_METHODS
from pipelint.model.syntax import all_params

#: Dataset methods that few other Python objects have; one of them must be among the uses. Not
#: `repeat`: `np.repeat(...)`, `tf.repeat(...)` and `keras.ops.repeat(...)` are everywhere, and
#: counting them made most array code look like dataset code to `may_use_datasets`.
_TELLING = frozenset({"cache", "shuffle", "batch", "prefetch", "padded_batch", "unbatch", "interleave",
                      "shard", "with_options", "ragged_batch"})


_TELLING_CALL = re.compile(r"\b(\w+)\s*\.\s*(?:" + "|".join(sorted(_TELLING)) + r")\s*\(")


def telling_receivers(source: str) -> frozenset[str]:
    """The names a telling method is called on somewhere in the text (`ds.shuffle(`)."""
    return frozenset(_TELLING_CALL.findall(source))


# Libraries whose objects share some of these methods (Hugging Face `datasets`: shuffle, batch,
# shard, take; Spark: cache, map): a module importing one is not read as handling tf.data.
_OTHER_DATA_LIBRARIES = re.compile(
    r"^\s*(?:from|import)\s+(?:datasets|torch|pyspark|pandas|polars|dask|ray|grain)\b", re.MULTILINE)
_METHOD_CALL = re.compile(r"\b(\w+)\s*\.\s*(\w+)\s*\(")


def may_use_datasets(source: str, names_tf: bool) -> bool:
    """Could a parameter of this module be a dataset by its use (`dataset_parameters_by_use`), so
    that the module is worth parsing although no rule's words are in it (`def split(ds): ds =
    ds.shuffle(n); return ds.take(k), ds.skip(k)`)? Only when one name gets a telling method and
    another dataset method; a module that never names TensorFlow (`names_tf`) must also import no
    other data library, whose objects share these method names."""
    receivers = telling_receivers(source)
    if not receivers or (not names_tf and _OTHER_DATA_LIBRARIES.search(source)):
        return False
    methods: dict[str, set[str]] = {}
    for name, method in _METHOD_CALL.findall(source):
        if name in receivers and method in DATASET_METHODS:
            methods.setdefault(name, set()).add(method)
    return any(len(called) >= 2 for called in methods.values())


class _Uses(cst.CSTVisitor):
    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.methods: dict[str, set[str]] = {name: set() for name in names}
        self.allowed: set[cst.Name] = set()
        self.seen: dict[str, list[cst.Name]] = {name: [] for name in names}

    def _allow(self, node: cst.BaseExpression | None) -> None:
        if isinstance(node, cst.Name) and node.value in self.names:
            self.allowed.add(node)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and func.value.value in self.names and func.attr.value in DATASET_METHODS:
            self.allowed.add(func.value)
            self.methods[func.value.value].add(func.attr.value)
        for arg in node.args:
            self._allow(arg.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._allow(node.target)

    def visit_Return(self, node: cst.Return) -> None:
        self._allow(node.value)

    def visit_For(self, node: cst.For) -> None:
        self._allow(node.iter)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names:
            self.seen[node.value].append(node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False  # its own scope; its parameters may reuse the name

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def dataset_parameters_by_use(func: cst.FunctionDef) -> frozenset[str]:
    """The unannotated parameters of `func` that its body uses only as a tf.data dataset."""
    names = {p.name.value for p in all_params(func.params)
             if p.annotation is None and p.name.value not in ("self", "cls")}
    if not names:
        return frozenset()
    uses = _Uses(names)
    body = func.body
    if isinstance(body, cst.IndentedBlock):
        for stmt in body.body:
            stmt.visit(uses)
    else:
        body.visit(uses)
    found = set()
    for name in names:
        methods = uses.methods[name]
        if (len(methods) >= 2 and methods & _TELLING and uses.seen[name]
                and all(node in uses.allowed for node in uses.seen[name])):
            found.add(name)
    return frozenset(found)
