"""The import table: which local name stands for which qualified name."""
from __future__ import annotations

import libcst as cst

from pipelint.model.catalogue import canonical
from pipelint.model.syntax import dotted


class ImportTable:
    """Local name -> qualified name, from every import in the module (at any depth)."""

    def __init__(self, package: str | None = None) -> None:
        self.names: dict[str, str] = {}
        #: The package the module is in, when a project index knows it: relative imports then
        #: resolve to the project's own modules (without it they are left out).
        self.package = package

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
        if isinstance(node.names, cst.ImportStar):
            return
        if node.relative:
            module = self._absolute(len(node.relative), dotted(node.module) if node.module else "")
        else:
            module = dotted(node.module) if node.module is not None else None
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

    def _absolute(self, level: int, name: str | None) -> str | None:
        """`from ..x import y` in package `a.b.c`: `a.b.x` (as importlib resolves it)."""
        if self.package is None or name is None:
            return None
        parts = self.package.split(".") if self.package else []
        if level - 1 > len(parts) or (level - 1 == len(parts) and not name):
            return None
        base = parts[:len(parts) - (level - 1)]
        return ".".join([*base, name] if name else base) or None

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
