"""Whole-project analysis: the modules of the project being checked, so that one file's check
follows its datasets into the others.

`index` (stdlib only, no libcst: the result cache uses it): the `ProjectIndex`, built once per
run with CPython's `ast` -- module names as Python would import them, and a summary per module of
the functions and methods that return datasets or take them, and of the calls that hand datasets
to other project modules. `context` (libcst, in each worker process): `ProjectContext` parses a
module only when a check calls into it, and gives each checked module its `ModuleView` (the
interpreter's way into the others: `lookup`, `definition` and `seeds`).
"""
from pipelint.project.index import ModuleSummary, ProjectIndex

__all__ = ["ModuleSummary", "ProjectIndex"]
