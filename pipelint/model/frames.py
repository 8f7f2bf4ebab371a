"""The interpreter's state: frames (one per function body being run) and what one run keeps.

The interpreter is one class assembled from a few mixins, one per job, each in its own module:
statements (`interpreter`), expressions and calls (`expressions`), dataset construction and
consumption (`datasets`), Keras objects and compile sites (`keras`), mapped functions
(`functions`). They share the state declared here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from pipelint.model.inference import telling_receivers
from pipelint.model.values import ObjectValue, Op, Origin

if TYPE_CHECKING:
    from pipelint.model.queries import PipelineModel

MAX_INLINE_DEPTH = 4


@dataclass
class Frame:
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
    where: object | None = None  # the project module whose code this frame runs (None: this one)
    #: In a method: the class of `self` as created (a subclass of `cls` that may override what
    #: `cls` calls through `self`) and its project module (None: this one).
    receiver: tuple[cst.ClassDef, object | None] | None = None


class InterpreterState:
    """What one run over a module keeps. The result containers are the model's own objects, so
    that the interpreter fills them in place."""

    def __init__(self, model: "PipelineModel",
                 statement_of: dict[cst.CSTNode, cst.CSTNode] | None = None) -> None:
        self.model = model
        self.module = model.module
        self.imports = model.imports
        self.qualified_name = model.imports.resolve
        self.op_sites = model.op_sites
        self.consumers = model.consumers
        self.origins = model.origins
        self.calls = model.calls
        self.compiles = model.compiles
        self.classes = model.classes
        self.attribute_assignments = model.attribute_assignments
        self.functions = model.functions
        self.methods = model.methods
        self.returns = model.returns
        self.assigned_attributes = model.assigned_attributes
        #: The top-level statement holding each node a rule may report; filled for the engine's
        #: positions (`pipelint.positions`), which then regenerate just those statements.
        self.statement_of = {} if statement_of is None else statement_of
        self._called_names: set[str] = set()
        self._inline_stack: list[cst.FunctionDef] = []
        #: The calls being inlined, outermost first: the first is the call the module itself makes.
        self._inline_calls: list[cst.Call] = []
        self._origin_cache: dict[cst.CSTNode, Origin] = {}
        self._op_cache: dict[cst.Call, Op] = {}
        #: A body's calls and names, and the calls it makes while traced, read once per body: one
        #: function mapped by many pipelines is judged once per call site.
        self._collected: dict[cst.CSTNode, object] = {}
        self._traced: dict[cst.CSTNode, object] = {}
        self._tensor_array_names: dict[cst.CSTNode, frozenset[str]] = {}
        self._scanned_chain_calls: set[cst.Call] = set()
        self._evidence_roots: set[cst.BaseExpression] = set()
        self._local_class_names: set[str] = set()
        self._module_frame: Frame | None = None
        self._top: cst.CSTNode | None = None
        self._frame: Frame | None = None  # the frame being interpreted, for consumer context
        #: The optimizer each model was compiled with (or came with), for `model.optimizer`.
        self._model_optimizers: dict[ObjectValue, ObjectValue] = {}
        #: The other modules of the project, when the engine has an index (`pipelint.project`).
        self.project = model.project
        #: The project module whose code is being run (a foreign function inlined), else None.
        self._where: object | None = getattr(model.project, "run_as", None)
        #: What the methods of each class store on `self`, merged over every run of them: a
        #: dataset kept in `__init__` is what another method reads.
        self._self_attributes: dict[tuple[cst.ClassDef, str], object] = {}
        #: The module each class of another project module lives in.
        self._class_homes: dict[cst.ClassDef, object] = {}
        self._receivers: frozenset[str] | None = None
        #: id(module run: None for this one) -> does its text call anything that may train.
        self._trains: dict[int, bool] = {}
        #: id(function: None for the module body) -> does it build a TF 1.x training graph.
        self._tf1_iteration_kinds: dict[int, str] = {}
        #: What this module's functions returned in their own runs, by name, and those that
        #: modules importing them call (`_run_importers`): their callers are known.
        self._returned: dict[str, object] = {}
        self._importers_called: set[str] = set()
        #: What the top level of each other project module binds (`_foreign_globals`).
        self._foreign_envs: dict[object, dict[str, object]] = {}
        #: While a module importing this one runs: its names for this module's names.
        self._exported_to: tuple[dict[str, str], frozenset[str]] | None = None

    @property
    def _telling_receivers(self) -> frozenset[str]:
        """Names some tf.data-only-ish method is called on in the text (`ds.cache(`): only such
        a parameter can be a dataset by its use (`inference`), a cheap test before the walk."""
        if self._receivers is None:
            self._receivers = telling_receivers(self.model.source)
        return self._receivers

    def _locate(self, *nodes: cst.CSTNode) -> None:
        top = self._top
        for node in nodes:
            self.statement_of[node] = top
