"""The import arrows inside pipelint/ point one way: no module imports one that imports it back.

Read statically from the sources, so a lazy import inside a function counts too (it forms the same
knot, only later); imports under `if TYPE_CHECKING:` do not, since they never run.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pipelint
from pipelint.project.graphs import strongly_connected_components

PACKAGE_DIR = Path(pipelint.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(tree: ast.AST, modules: set[str], package: str) -> set[str]:
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            submodules = {f"{base}.{alias.name}" for alias in node.names} & modules
            # `from pipelint import codes` imports the module pipelint.codes, not pipelint's __init__ body.
            if len(submodules) < len(node.names) and base in modules:
                found.add(base)
            found.update(submodules)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(path): path for path in PACKAGE_DIR.rglob("*.py")}
    modules = set(paths)
    graph = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = _imported(ast.parse(path.read_text(encoding="utf-8")), modules, package) - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module."""
    return [component for component in strongly_connected_components(graph) if len(component) > 1]


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_leaves_import_nothing_of_pipelint_but_leaves():
    graph = _graph()
    assert graph["pipelint.diagnostics"] == set()
    assert graph["pipelint.codes"] == {"pipelint.diagnostics"}
    assert graph["pipelint.ancestors"] == set()


#: The probe's rooms in the order of its flow: a room imports only itself and rooms after it.
PROFILER_ROOMS = ("run", "output", "advise", "measure")
PROFILER = "pipelint.profiler"


def _profiler_room(module: str) -> str | None:
    """The room of a module of the probe; "" for its top (the public face); None outside the probe."""
    if module != PROFILER and not module.startswith(PROFILER + "."):
        return None
    room = module[len(PROFILER) + 1:].split(".")[0]
    return room if room in PROFILER_ROOMS else ""


def _arrows_against_the_rooms(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for module, imported in graph.items():
        room = _profiler_room(module)
        if not room:  # outside the probe, or its top: `pipelint.profiler` may reach into any room
            continue
        for target in imported:
            to = _profiler_room(target)
            if to is None:
                continue
            # The top is above `run`: a room importing it would run the public face's imports.
            if to == "" or PROFILER_ROOMS.index(to) < PROFILER_ROOMS.index(room):
                bad.append(f"{module} ({room}) -> {target} ({to or 'top'})")
    return sorted(bad)


def test_the_probes_rooms_import_downward_only():
    graph = _graph()
    probe = {m for m in graph if _profiler_room(m) is not None}
    # Every module of the probe sits in a room, but the public face.
    assert {m for m in probe if _profiler_room(m) == ""} == {PROFILER, PROFILER + ".__main__"}
    assert {_profiler_room(m) for m in probe} - {""} == set(PROFILER_ROOMS)
    assert _arrows_against_the_rooms(graph) == []
    # The session is plain state: the Keras callback feeds it, never the other way round.
    assert f"{PROFILER}.run.callback" not in graph[f"{PROFILER}.run.session"]
    assert f"{PROFILER}.run.session" in graph[f"{PROFILER}.run.callback"]


def test_the_room_check_sees_an_upward_arrow():
    graph = {f"{PROFILER}.measure.a": {f"{PROFILER}.advise.b"}, f"{PROFILER}.output.c": {f"{PROFILER}.measure.a"},
             f"{PROFILER}.advise.b": {PROFILER}, f"{PROFILER}.run.d": {f"{PROFILER}.output.c", "pipelint.codes"}}
    assert _arrows_against_the_rooms(graph) == [f"{PROFILER}.advise.b (advise) -> {PROFILER} (top)",
                                                f"{PROFILER}.measure.a (measure) -> {PROFILER}.advise.b (advise)"]
