"""What a rule is. Each rule module defines one `Rule` subclass with its docs and examples beside it.

Rules never walk the syntax tree themselves: the engine builds one `PipelineModel` per file in a
single traversal and every rule queries it (datasets, the ops they pass, their consumers, calls).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar

import libcst as cst

from pipelint import codes
from pipelint.diagnostics import Applicability, Impact, Severity
from pipelint.model import DATASET_TRIGGERS

if TYPE_CHECKING:
    from pipelint.model import PipelineModel


def example_source(text: str) -> str:
    """The source an example stands for. Examples are written as indented triple-quoted blocks that
    open with a newline; that newline is dropped and the block dedented, so line 1 is the first line."""
    return textwrap.dedent(text.removeprefix("\n"))


@dataclass(frozen=True)
class At:
    """Where a finding must be, and what it says: 1-based line and column (the end column is
    exclusive; the end line defaults to the start line) and how its message starts."""

    line: int
    column: int
    end_column: int
    message: str | None = None
    end_line: int | None = None

    def span(self) -> tuple[int, int, int, int]:
        return (self.line, self.column, self.line if self.end_line is None else self.end_line, self.end_column)


@dataclass(frozen=True)
class Invalid:
    """An example the rule must fire on, and exactly where: the finding at `line`/`column` up to
    `end_column` (on `end_line`, by default the same line) whose message starts with `message`, plus
    any further findings in `also`. `fixed`, when given, is the source after the fix. Sources go
    through `example_source`."""

    code: str
    line: int
    column: int
    end_column: int
    message: str | None = None
    end_line: int | None = None
    also: tuple[At, ...] = ()
    fixed: str | None = None
    #: Rule options the example is checked with (`{"prefetch-injected": False}`); defaults otherwise.
    options: dict[str, Any] | None = None
    #: The `target-version` the example is checked under ("2.4", "2.21"); none: inferred from its API.
    target: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", example_source(self.code))
        if self.fixed is not None:
            object.__setattr__(self, "fixed", example_source(self.fixed))

    def findings(self) -> list[At]:
        """Every finding it must produce, in the order the engine sorts them."""
        return [At(self.line, self.column, self.end_column, self.message, self.end_line), *self.also]


@dataclass(frozen=True)
class Option:
    """A per-rule option, set under `[tool.pipelint.rules.PLxxx]`."""

    type: type
    default: Any
    description: str


#: Shared by PL103 and PL104. tf.data's default `inject_prefetch` rewrite (TensorFlow 2.11 and
#: later, pipelint/target.py) ends a pipeline whose last stage is synchronous with a prefetch
#: (while autotuning is on); unset, the rules ask the file's target TensorFlow whether it does.
PREFETCH_INJECTED = Option(
    bool, None,
    "Whether TensorFlow adds the final prefetch itself (`inject_prefetch`): unset, the file's target "
    "TensorFlow decides (on from 2.11; see `target-version`), and only pipelines whose options switch it "
    "off are reported there. Set false to ask for an explicit prefetch everywhere.")


def prefetch_injected(ctx: "RuleContext") -> bool:
    """Does tf.data add the final prefetch for this file: the rule's option where set, else its target?"""
    configured = ctx.options.get("prefetch-injected")
    return ctx.model.target.has_default_rewrite("inject_prefetch") if configured is None else bool(configured)


#: A point in the source: the start or the end of a node's range.
Anchor = tuple[cst.CSTNode, str]  # (node, "start" | "end")


@dataclass(frozen=True)
class SourceSlice:
    """The original source text between two anchors (copied verbatim: formatting, comments)."""

    start: Anchor
    end: Anchor


@dataclass(frozen=True)
class AnchoredEdit:
    """Replace the text between two anchors with strings and verbatim slices of the source."""

    start: Anchor
    end: Anchor
    content: tuple[str | SourceSlice, ...]


@dataclass(frozen=True)
class NodeFix:
    """A fix expressed on the tree. `replacements` swap a node's text for a new node's code (or raw
    text); `edits` splice text between anchors, so untouched code keeps its exact layout."""

    applicability: Applicability
    replacements: tuple[tuple[cst.CSTNode, cst.CSTNode | str], ...] = ()
    edits: tuple[AnchoredEdit, ...] = ()


@dataclass(frozen=True)
class Finding:
    node: cst.CSTNode
    message: str
    fix: NodeFix | None = None
    #: The rule's impact refined for this case (None: the code's own, from `pipelint.codes`).
    impact: Impact | None = None


def speed(material: bool) -> Impact:
    """The impact of a speed finding: speed where the stage's cost is in evidence and the data is
    trained on (`PipelineModel.material_speed`), else minor speed (shown on request)."""
    return Impact.SPEED if material else Impact.MINOR_SPEED


def fails_from(fails: bool) -> Impact:
    """The impact of a call that fails from some TensorFlow/Keras release on: correctness where the
    module's target already `fails` it, else breaks-on-upgrade (a migration, shown on request)."""
    return Impact.CORRECTNESS if fails else Impact.BREAKS_ON_UPGRADE


@dataclass
class RuleContext:
    model: "PipelineModel"
    options: dict[str, Any]
    findings: list[Finding] = field(default_factory=list)

    def report(self, node: cst.CSTNode, message: str, fix: NodeFix | None = None,
               impact: Impact | None = None) -> None:
        self.findings.append(Finding(node, message, fix, impact))


class Rule:
    """A rule class states its `code`; its name, severity, impact and default come from `pipelint.codes`."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    #: The code's default impact; `ctx.report(..., impact=...)` refines it for one finding.
    impact: ClassVar[Impact]
    #: One line: what the rule flags (used by `pipelint rules`, SARIF and docs/rules.md).
    summary: ClassVar[str]
    #: Markdown in ruff's shape: What it does / Why is this bad? / Example / Use instead /
    #: Fix safety / References.
    docs: ClassVar[str]
    fixable: ClassVar[Applicability | None] = None
    default_enabled: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {}
    #: Substrings a file must contain for this rule to possibly fire. A file containing none of
    #: the enabled rules' triggers is not parsed at all, which is most of a large tree.
    triggers: ClassVar[tuple[str, ...]] = DATASET_TRIGGERS
    #: Substrings that must ALL be present too (a rule about `compile` needs the word).
    required: ClassVar[tuple[str, ...]] = ()
    #: Examples it must stay silent on, as indented triple-quoted blocks (see `example_source`).
    VALID: ClassVar[tuple[str, ...]] = ()
    INVALID: ClassVar[tuple[Invalid, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "VALID" in cls.__dict__:
            cls.VALID = tuple(example_source(source) for source in cls.VALID)
        code = cls.__dict__.get("code")
        if code is None:  # a base class such as EngineCode
            return
        restated = sorted({"name", "severity", "impact", "default_enabled"} & cls.__dict__.keys())
        if restated:
            raise TypeError(f"{cls.__name__} ({code}): {', '.join(restated)} come from pipelint/codes.py")
        info = codes.CODES.get(code)
        if info is None:
            raise TypeError(f"{cls.__name__}: code {code} is not in pipelint/codes.py")
        cls.name, cls.severity, cls.impact, cls.default_enabled = (info.name, info.severity, info.impact,
                                                                   info.default_enabled)

    def check(self, ctx: RuleContext) -> None:
        raise NotImplementedError


class EngineCode(Rule):
    """Codes PL0xx: reported by the engine itself (bad input, internal errors), never by a check."""

    triggers = ()

    def check(self, ctx: RuleContext) -> None:  # pragma: no cover - never scheduled
        return None


RuleCheck = Callable[[RuleContext], None]
