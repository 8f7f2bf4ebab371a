"""The statement interpreter: one abstract run over a module's statements.

Each function body is run once on its own (its dataset parameters stand in for "some dataset"),
and again, inlined, wherever this module calls it with known arguments. Branches run on copies of
the environment that are merged afterwards, so a value is the set of its alternative paths.
"""
from __future__ import annotations

from typing import Sequence

import libcst as cst

from pipelint.model.datasets import Datasets
from pipelint.model.expressions import Expressions
from pipelint.model.frames import MAX_INLINE_DEPTH, Frame
from pipelint.model.functions import MappedFunctions
from pipelint.model.keras import KerasFacts
from pipelint.model.syntax import all_params, block_body, blocks_of, dotted, unquote
from pipelint.model.values import (
    LITERALS, Collection, Constant, DatasetPath, DatasetValue, ObjectValue, datasets_in, merge_values,
)
from pipelint.model.inference import dataset_parameters_by_use


class Interpreter(Expressions, Datasets, KerasFacts, MappedFunctions):
    """Runs a module once and leaves its facts in the `PipelineModel` it was given."""

    def run(self) -> None:
        module = self.module
        self._collect_definitions(module.body, None)
        top = Frame(env={}, function=None, cls=None, locals_defs=dict(self.functions), where=self._where)
        self._module_frame = top
        for stmt in module.body:
            self._top = stmt
            self._run_statement(stmt, top)
        self._run_importers(top)
        # A dataset returned from a function that this module itself calls is not handed to an
        # unknown caller: the call site was interpreted and its consumers recorded there.
        self.consumers[:] = [
            c for c in self.consumers
            if not (c.kind == "return" and (c.function in self._called_names or c.function in self._importers_called))
        ]
        self._drop_stand_in_parameters()

    def _run_importers(self, top: Frame) -> None:
        """Run the modules that import this one's datasets (`project.importers`), their
        top-level code and what it calls, with this module's names bound to what this run made
        of them: their uses of those datasets (a training loop, a look at one batch) are this
        module's datasets' consumers (kept with `where`, as ops of other modules are)."""
        importers = getattr(self.project, "importers", None)
        if importers is None or self._where is not None:
            return
        for home, names, wholes in importers():
            frame = Frame(env={}, function=None, cls=None, locals_defs=dict(home.functions),
                          where=home, inlined=True)
            for local, name in names.items():
                if name in top.env:
                    frame.env[local] = top.env[name]
            for alias in wholes:
                for name, value in top.env.items():
                    if "." not in name:
                        frame.env[f"{alias}.{name}"] = value
            self._exported_to = (names, wholes)
            consumers, sites = len(self.consumers), set(self.op_sites)
            try:
                with self._in_module(home):
                    self._module_frame = frame
                    for stmt in home.module.body:
                        self._run_statement(stmt, frame)
            except Exception:  # noqa: BLE001 - an importer this model cannot run adds nothing
                del self.consumers[consumers:]
                for call in set(self.op_sites) - sites:
                    del self.op_sites[call]
            finally:
                self._exported_to = None
                self._module_frame = top

    def _foreign_globals(self, home: object) -> dict[str, object]:
        """What the top level of another project module binds, run once per check (its functions
        are not run on their own): the layers and datasets its names hold, for this module's
        uses of them. In an import cycle a module sees what the other had bound so far."""
        env = self._foreign_envs.get(home)
        if env is not None:
            return env
        frame = Frame(env={}, function=None, cls=None, locals_defs=dict(home.functions), where=home, inlined=True)
        self._foreign_envs[home] = frame.env
        saved = (self._exported_to, self._frame, self._module_frame, set(self._called_names))
        self._exported_to = None  # (its names are its own, even while an importer of this one runs)
        try:
            with self._in_module(home):
                self._module_frame = frame
                for stmt in home.module.body:
                    self._run_statement(stmt, frame)
        except Exception:  # noqa: BLE001 - a module this model cannot run binds what it had bound
            pass
        finally:
            # (What it calls are its functions, not this module's of the same names.)
            self._exported_to, self._frame, self._module_frame, self._called_names = saved
            self._foreign_envs[home] = frame.env
        return frame.env

    def _exported_call(self, func: cst.BaseExpression) -> str | None:
        """While an importer runs: the function of this module that `func` names, if any."""
        names, wholes = self._exported_to
        name = dotted(func)
        if name is None or self._where is None:
            return None
        if name in names:
            return names[name]
        alias, _, rest = name.partition(".")
        return rest if alias in wholes and rest and "." not in rest else None

    def _drop_stand_in_parameters(self) -> None:
        """A helper's own run stands its parameter in for "some dataset"; where this module calls
        the helper, the real datasets reached it at the call sites, so the stand-in paths go."""
        called = self._called_names

        def real(path: DatasetPath) -> bool:
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
        self.consumers[:] = kept
        self.origins[:] = [o for o in self.origins if o.parameter_of is None or o.parameter_of not in called]

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
                self._collect_definitions(block_body(stmt.body), stmt)
            elif isinstance(stmt, (cst.If, cst.Try)) and cls is None:
                # `if TYPE_CHECKING:` / `try: import x` style definitions still count.
                for block in blocks_of(stmt):
                    self._collect_definitions(block, cls)

    def _run_block(self, body: Sequence[cst.CSTNode], frame: Frame) -> None:
        for stmt in body:
            self._run_statement(stmt, frame)

    def _run_statement(self, stmt: cst.CSTNode, frame: Frame) -> None:
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
            if not frame.inlined and (self.project is None or self.project.runs(
                    f"{frame.cls.name.value}.{stmt.name.value}" if frame.cls is not None else stmt.name.value)):
                self._run_function(stmt, frame.cls, frame)
        elif isinstance(stmt, cst.ClassDef):
            for base in stmt.bases:
                self._eval(base.value, frame)
            if not frame.inlined:
                inner = Frame(env=dict(frame.env), function=None, cls=stmt,
                               locals_defs=dict(frame.locals_defs), loops=frame.loops, where=frame.where)
                self._run_block(block_body(stmt.body), inner)
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
            self._run_block(block_body(stmt.body), frame)
        elif isinstance(stmt, cst.Match):
            self._eval(stmt.subject, frame)
            self._run_branches([block_body(case.body) for case in stmt.cases], frame,
                               exhaustive=False, owner=stmt)

    def _run_small(self, small: cst.BaseSmallStatement, frame: Frame) -> None:
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            self.imports.add(small)
        elif isinstance(small, cst.Assign):
            value = self._eval(small.value, frame)
            for target in small.targets:
                self._bind(target.target, value, frame, small.value)
            op = self._op_cache.get(small.value) if isinstance(small.value, cst.Call) else None
            if op is not None and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                self.model.bindings.setdefault(op, (small.targets[0].target.value, frame.function is None))
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                value = self._eval(small.value, frame)
                self._bind(small.target, value, frame, small.value)
        elif isinstance(small, cst.AugAssign):
            self._eval(small.value, frame)
        elif isinstance(small, cst.Expr):
            self._eval(small.value, frame)
            op = self._op_cache.get(small.value) if isinstance(small.value, cst.Call) else None
            if op is not None:
                self.model.discarded.add(op)  # `ds.map(f).batch(8)` alone: a notebook shows its repr
        elif isinstance(small, cst.Return):
            if not frame.inlined:
                self._locate(small, *(() if small.value is None else (small.value,)))
            if small.value is not None:
                value = self._eval(small.value, frame)
                frame.returns.append(value)
                if not frame.inlined and frame.function is not None:
                    self.returns.setdefault(frame.function, []).append(small.value)
                    if frame.cls is None and frame.where is None:
                        name = frame.function.name.value
                        self._returned[name] = merge_values(self._returned.get(name), value)
                    for dataset in datasets_in(value):
                        self._consume("return", small, dataset, small.value, function=frame.function.name.value)
        elif isinstance(small, (cst.Raise, cst.Assert, cst.Del)):
            for child in small.children:
                if isinstance(child, cst.BaseExpression):
                    self._eval(child, frame)

    def _run_if(self, stmt: cst.If, frame: Frame) -> None:
        test = self._eval(stmt.test, frame)
        if frame.inlined and isinstance(test, Constant):
            # `make_dataset(files, training=False)`: only the branch this call takes.
            if test.value:
                self._run_block(block_body(stmt.body), frame)
            elif isinstance(stmt.orelse, cst.If):
                self._run_if(stmt.orelse, frame)
            elif stmt.orelse is not None:
                self._run_block(block_body(stmt.orelse.body), frame)
            return
        blocks: list[Sequence[cst.CSTNode]] = [block_body(stmt.body)]
        orelse = stmt.orelse
        exhaustive = False
        while orelse is not None:
            if isinstance(orelse, cst.If):
                self._eval(orelse.test, frame)
                blocks.append(block_body(orelse.body))
                orelse = orelse.orelse
            else:
                blocks.append(block_body(orelse.body))
                exhaustive = True
                orelse = None
        self._run_branches(blocks, frame, exhaustive, owner=stmt)

    def _run_branches(self, blocks: list, frame: Frame, exhaustive: bool,
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
        frame.env = merge_envs(results)

    def _run_loop(self, stmt: cst.For | cst.While, frame: Frame) -> None:
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
            # `for part in parts:` over a list of datasets: each item is one of them.
            item = None
            if isinstance(iterable, Collection):
                for element in iterable.items:
                    item = merge_values(item, element)
            self._bind(stmt.target, item, frame)
        self._run_block(block_body(stmt.body), frame)
        frame.branch_depth -= 1
        frame.loops = frame.loops[:-1]
        frame.env = merge_envs([frame.env, before])
        if stmt.orelse is not None:
            self._run_block(block_body(stmt.orelse.body), frame)

    def _run_try(self, stmt: cst.Try | cst.TryStar, frame: Frame) -> None:
        self._run_block(block_body(stmt.body), frame)
        if stmt.handlers:
            self._run_branches([h.body.body for h in stmt.handlers], frame, exhaustive=False)
        if stmt.orelse is not None:
            self._run_block(block_body(stmt.orelse.body), frame)
        if stmt.finalbody is not None:
            self._run_block(block_body(stmt.finalbody.body), frame)

    def _run_function(self, func: cst.FunctionDef, cls: cst.ClassDef | None, outer: Frame) -> None:
        env = dict(outer.env)
        self._locate(*all_params(func.params))
        # Datasets that callers in other project modules hand to this function.
        seeds = self.project.seeds(f"{cls.name.value}.{func.name.value}" if cls else func.name.value) \
            if self.project is not None else {}
        inferred = None
        # A subclass's override of a project base class's method: the base hands it datasets.
        overriding = self.project.override_takes(cls.name.value, func.name.value) \
            if self.project is not None and cls is not None and hasattr(self.project, "override_takes") else ()
        for param in all_params(func.params):
            value = self._parameter_value(param, owner=func.name.value)
            if param.name.value in seeds:
                value = merge_values(value, seeds[param.name.value])
            if value is None and param.name.value in overriding:
                value = DatasetValue((DatasetPath(self._origin(
                    param, "parameter", parameter_of=func.name.value, inferred=True), ()),))
            if value is None and param.name.value in self._telling_receivers:
                if inferred is None:
                    inferred = dataset_parameters_by_use(func)
                if param.name.value in inferred:
                    value = DatasetValue((DatasetPath(self._origin(
                        param, "parameter", parameter_of=func.name.value, inferred=True), ()),))
            env[param.name.value] = value
        frame = Frame(env=env, function=func, cls=cls, locals_defs=dict(outer.locals_defs), where=outer.where)
        self._collect_nested(func, frame)
        self._run_block(block_body(func.body), frame)
        self._frame = outer

    def _collect_nested(self, func: cst.FunctionDef, frame: Frame) -> None:
        for stmt in block_body(func.body):
            if isinstance(stmt, cst.FunctionDef):
                frame.locals_defs[stmt.name.value] = stmt

    def _record_seeds(self, helper: cst.FunctionDef, cls: cst.ClassDef | None, env: dict[str, object]) -> None:
        """Run as a caller of another project module (`project.recording`): keep the datasets
        that module's functions receive here, for that module's own check."""
        project = self.project
        if project is None or project.recording is None or self._where is None \
                or getattr(self._where, "name", None) != project.recording:
            return
        qualified = f"{cls.name.value}.{helper.name.value}" if cls is not None else helper.name.value
        received = self.model.seeds.setdefault(qualified, {})
        for param in all_params(helper.params):
            value = env.get(param.name.value)
            if datasets_in(value):
                received[param.name.value] = merge_values(received.get(param.name.value), value)

    def _parameter_value(self, param: cst.Param, owner: str | None = None) -> object:
        if param.annotation is not None:
            name = self.qualified_name(unquote(param.annotation.annotation))
            if name in ("tensorflow.data.Dataset", "tensorflow.data.TFRecordDataset"):
                return DatasetValue((DatasetPath(self._origin(param, "parameter", parameter_of=owner), ()),))
        return None

    def _bind(self, target: cst.BaseExpression, value: object, frame: Frame,
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
                if frame.function is not None:
                    self.assigned_attributes.setdefault(frame.function, []).append(target)
            key = dotted(target)
            if key:
                frame.env[key] = value
            if (frame.cls is not None and isinstance(target.value, cst.Name) and target.value.value == "self"
                    and datasets_in(value)):
                # Kept on the instance: every method of the class may read it later.
                slot = (frame.cls, target.attr.value)
                self._self_attributes[slot] = merge_values(self._self_attributes.get(slot), value)
        elif isinstance(target, cst.Subscript):
            self._eval(target.value, frame)

    def _inline(self, helper: cst.FunctionDef, call: cst.Call, arg_values: list[object],
                frame: Frame, cls: cst.ClassDef | None, bound: bool = False,
                positional_values: list[object] | None = None,
                receiver: tuple[cst.ClassDef, object | None] | None = None) -> object:
        """Run `helper` for this call. `positional_values`, when given, are its arguments
        instead of the call's (`ds.apply(prepare)` calls `prepare(ds)`)."""
        if helper in self._inline_stack or len(self._inline_stack) >= MAX_INLINE_DEPTH:
            return None
        params = all_params(helper.params)
        if bound and params:
            params = params[1:]
        # A helper sees the module's globals as they stand at the call, then its parameters.
        env: dict[str, object] = dict(self._module_frame.env) if self._module_frame else {}
        if positional_values is not None:
            for param, value in zip(params, positional_values):
                env[param.name.value] = value
        else:
            positional = [(a, v) for a, v in zip(call.args, arg_values) if a.keyword is None and not a.star]
            for param, (_, value) in zip(params, positional):
                env[param.name.value] = value
            for arg, value in zip(call.args, arg_values):
                if arg.keyword is not None:
                    env[arg.keyword.value] = value
        self._record_seeds(helper, cls, env)
        for param in params:
            if param.name.value not in env:
                default = param.default
                if isinstance(default, cst.Name) and default.value in LITERALS:
                    env[param.name.value] = LITERALS[default.value]
                else:
                    env[param.name.value] = self._parameter_value(param)
        # A function of another module sees that module's functions, not the caller's.
        locals_defs = dict(frame.locals_defs) if frame.where is self._where else dict(self.functions)
        inner = Frame(env=env, function=helper, cls=cls, locals_defs=locals_defs,
                       loops=frame.loops, arms=frame.arms, branch_depth=frame.branch_depth,
                       inlined=True, where=self._where,
                       receiver=receiver if receiver is not None else (cls, self._where) if bound and cls else None)
        self._collect_nested(helper, inner)
        self._inline_stack.append(helper)
        self._inline_calls.append(call)
        try:
            self._run_block(block_body(helper.body), inner)
        finally:
            self._inline_stack.pop()
            self._inline_calls.pop()
            self._frame = frame
        result: object = None
        for value in inner.returns:
            result = merge_values(result, value)
        return result


def merge_envs(envs: list[dict[str, object]]) -> dict[str, object]:
    merged: dict[str, object] = {}
    for env in envs:
        for name, value in env.items():
            if name in merged:
                merged[name] = merge_values(merged[name], value) if merged[name] is not value else value
            else:
                merged[name] = value
    return merged
