"""Random tf.data training scripts, and an independent oracle for the findings they must draw.

Used by `tests/test_generated_pipelines.py` (its docstring states the rule semantics and the
restrictions of the vocabulary). Three parts:

* `programs()`: a hypothesis strategy that writes a script from an op vocabulary and a layout
  (one chain, reassignments, a local helper, an `if training:` branch), returning a `Program`
  (the source, plus the op sequences of every control-flow path as the generator intended them).
* `interpret(source)`: reads such a script back with `ast` (our own tiny interpreter for exactly
  this grammar, NOT pipelint's model) into ops with their positions and the paths that reach
  `model.fit`. It is also used on the output of `--fix`, which stays inside the grammar.
* `expected_findings(parsed)`: the oracle, written from the rule docs over the op sequences:
  the exact set of `(code, line, column, fix)` the script must get.
"""
from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field

from hypothesis import strategies as st

RULES = ("PL101", "PL103", "PL104", "PL201", "PL203", "PL204", "PL205", "PL208", "PL209")
AUTOTUNE = "tf.data.AUTOTUNE"
OP_METHODS = frozenset({"map", "shuffle", "cache", "batch", "repeat", "prefetch", "take", "skip"})
MIN_BUFFER = 100  # PL205's default `min-buffer-size`
IN_MEMORY_SOURCES = frozenset({"range", "from_tensor_slices"})

# ---------------------------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------------------------

SOURCES = (
    "tf.data.Dataset.range(10)",
    "tf.data.Dataset.range(64)",
    "tf.data.Dataset.range(1000)",
    "tf.data.Dataset.from_tensor_slices(x)",
    "tf.data.Dataset.from_tensor_slices([1, 2, 3, 4])",
    "tf.data.TFRecordDataset(files)",
    "tf.data.TextLineDataset(path)",
)


@dataclass(frozen=True)
class OpSpec:
    method: str
    args: str = ""

    def code(self) -> str:
        return f".{self.method}({self.args})"


def op_specs(allow_repeat: bool = True) -> st.SearchStrategy[OpSpec]:
    choices = [
        st.just(OpSpec("map", "parse")),
        st.just(OpSpec("map", f"parse, num_parallel_calls={AUTOTUNE}")),
        st.sampled_from([1, 8, 64, 128, 1000, 10000]).map(lambda b: OpSpec("shuffle", str(b))),
        st.just(OpSpec("cache")),
        st.sampled_from([8, 32, 256]).map(lambda n: OpSpec("batch", str(n))),
        st.just(OpSpec("prefetch", AUTOTUNE)),
        st.sampled_from([5, 50, 500]).map(lambda k: OpSpec("take", str(k))),
        st.sampled_from([1, 10]).map(lambda k: OpSpec("skip", str(k))),
    ]
    if allow_repeat:
        choices.append(st.just(OpSpec("repeat")))
    return st.one_of(*choices)


@dataclass
class Chunk:
    """Ops written as one statement: `ds = ds.a().b()` (or `ds = SOURCE.a()` for the first)."""

    ops: list[OpSpec]
    multiline: bool = False
    branch: bool = False  # under `if training:`
    orelse: list[OpSpec] | None = None  # ops of an `else:` branch (only when branch)


@dataclass
class Program:
    source: str
    paths: list[list[str]]  # intended op sequences (`method(args)`) of every path reaching fit
    layout: str


def _render_chain(root: str, ops: list[OpSpec], multiline: bool, indent: str, prefix: str) -> str:
    """`<prefix>root.a().b()` on one line, or parenthesized with one op per line."""
    if not ops:
        return f"{indent}{prefix}{root}\n"
    if not multiline:
        return f"{indent}{prefix}{root}{''.join(op.code() for op in ops)}\n"
    pad = indent + " " * (len(prefix) + 1)
    lines = [f"{indent}{prefix}({root}"] + [f"{pad}{op.code()}" for op in ops]
    return "\n".join(lines) + ")\n"


def _render_chunks(chunks: list[Chunk], indent: str, first_root: str | None,
                   return_last: bool) -> str:
    out = []
    for index, chunk in enumerate(chunks):
        root = first_root if index == 0 and first_root is not None else "ds"
        last = return_last and index == len(chunks) - 1 and not chunk.branch
        prefix = "return " if last else "ds = "
        if chunk.branch:
            out.append(f"{indent}if training:\n")
            out.append(_render_chain("ds", chunk.ops, chunk.multiline, indent + "    ", "ds = "))
            if chunk.orelse is not None:
                out.append(f"{indent}else:\n")
                out.append(_render_chain("ds", chunk.orelse, False, indent + "    ", "ds = "))
        else:
            out.append(_render_chain(root, chunk.ops, chunk.multiline, indent, prefix))
    if return_last and (not chunks or chunks[-1].branch):
        out.append(f"{indent}return ds\n")
    return "".join(out)


HEADER = (
    "import sys\n"
    "\n"
    "import tensorflow as tf\n"
    "from tensorflow import keras\n"
    "\n"
    "training = len(sys.argv) > 1\n"
    "files = ['a.tfrecord', 'b.tfrecord']\n"
    "path = 'lines.txt'\n"
    "x = list(range(100))\n"
    "\n"
    "\n"
    "def parse(record):\n"
    "    return decode(record)  # defined elsewhere: not known to be stateless\n"
)
FOOTER = (
    "model = keras.Sequential([keras.layers.Dense(1)])\n"
    "model.compile(optimizer='adam', loss='mse')\n"
    "model.fit(ds, epochs=2, steps_per_epoch=10)\n"
)


@st.composite
def programs(draw, layouts=("chain", "reassign", "helper", "branch", "helper+branch"),
             helper_evidence: bool = True) -> Program:
    """A random training script (`helper_evidence` is kept for callers; helpers may hold any op)."""
    layout = draw(st.sampled_from(layouts))
    source = draw(st.sampled_from(SOURCES))
    # Single ops, plus the idioms the rules are about (so that each rule fires often enough).
    idioms = st.sampled_from([
        [OpSpec("batch", "32"), OpSpec("shuffle", "1000")],
        [OpSpec("cache"), OpSpec("take", "50")],
        [OpSpec("cache"), OpSpec("map", "parse"), OpSpec("take", "5")],
        [OpSpec("shuffle", "1000"), OpSpec("cache")],
        [OpSpec("repeat"), OpSpec("shuffle", "10000")],
        [OpSpec("prefetch", AUTOTUNE), OpSpec("batch", "8")],
        [OpSpec("cache"), OpSpec("prefetch", AUTOTUNE), OpSpec("cache")],
    ])
    pieces_drawn = draw(st.lists(st.one_of(op_specs().map(lambda o: [o]), idioms),
                                 min_size=0 if layout == "chain" else 1, max_size=6))
    ops = [op for piece in pieces_drawn for op in piece][:8]
    # At most one `repeat()` (PL204's fix is about "the" repeat before the shuffle).
    seen_repeat = False
    kept = []
    for op in ops:
        if op.method == "repeat":
            if seen_repeat:
                continue
            seen_repeat = True
        kept.append(op)
    ops = kept

    # Cut the op sequence into statements.
    if layout == "chain":
        cuts: list[int] = []
    else:
        cuts = sorted(draw(st.sets(st.integers(0, len(ops)), max_size=4)))
    bounds = [0, *cuts, len(ops)]
    pieces = [ops[a:b] for a, b in zip(bounds, bounds[1:])]
    # The first piece stays attached to the source (possibly empty: `ds = SOURCE`); later empty
    # pieces are dropped.
    chunks = [Chunk(pieces[0])] + [Chunk(p) for p in pieces[1:] if p]
    for chunk in chunks:
        chunk.multiline = len(chunk.ops) >= 2 and draw(st.booleans())

    branch_index = None
    if "branch" in layout and len(chunks) >= 2:
        branch_index = draw(st.integers(1, len(chunks) - 1))
        chunks[branch_index].branch = True
        if draw(st.booleans()):
            chunks[branch_index].orelse = draw(st.lists(op_specs(allow_repeat=not seen_repeat),
                                                        min_size=1, max_size=2))
    helper_from = None
    if "helper" in layout and len(chunks) >= 2:
        helper_from = draw(st.integers(1, len(chunks) - 1))
        # A helper may hold any ops, with or without tf.data-only evidence: its own run's
        # stand-in parameter path is dropped by the model because the module calls it.

        def narrow(specs: list[OpSpec]) -> list[OpSpec]:
            return specs

        for chunk in chunks[helper_from:]:
            chunk.ops = narrow(chunk.ops)
            if chunk.orelse is not None:
                chunk.orelse = narrow(chunk.orelse) or None
            if chunk.branch and not chunk.ops:
                chunk.ops, chunk.orelse = chunk.orelse or [], None
            chunk.multiline = chunk.multiline and len(chunk.ops) >= 2
        chunks = chunks[:helper_from] + [c for c in chunks[helper_from:] if c.ops]
        if helper_from >= len(chunks):
            helper_from = None

    main_chunks = chunks if helper_from is None else chunks[:helper_from]
    text = [HEADER, "\n"]
    if helper_from is not None:
        text.append("\ndef finish(ds):\n")
        text.append(_render_chunks(chunks[helper_from:], "    ", None, return_last=True))
        text.append("\n\n")
    text.append(_render_chunks(main_chunks, "", source, return_last=False))
    if helper_from is not None:
        text.append("ds = finish(ds)\n")
    text.append(FOOTER)

    # The paths the generator means: every branch is either taken or not.
    paths: list[list[str]] = [[]]
    for chunk in chunks:
        names = [f"{o.method}({o.args})" for o in chunk.ops]
        if chunk.branch:
            other = [f"{o.method}({o.args})" for o in chunk.orelse] if chunk.orelse is not None else []
            paths = [p + names for p in paths] + [p + other for p in paths]
        else:
            paths = [p + names for p in paths]
    return Program("".join(text), paths, layout)


# ---------------------------------------------------------------------------------------------
# Reading a script back (our own interpreter for exactly the generated grammar)
# ---------------------------------------------------------------------------------------------

_uids = itertools.count()


@dataclass(eq=False)
class Op:
    method: str
    args: list[tuple[str | None, str]]  # (keyword, code)
    line: int
    column: int  # 1-based, of the method name
    chain: int  # index of the chain expression (statement) it is written in
    receiver: "Op | str"  # the op whose call is the receiver, or "source" / "name"
    uid: int = field(default_factory=lambda: next(_uids))

    def arg(self, keyword: str, position: int) -> str | None:
        for kw, code in self.args:
            if kw == keyword:
                return code
        positional = [code for kw, code in self.args if kw is None]
        return positional[position] if len(positional) > position else None

    @property
    def parallel(self) -> bool:
        return self.method == "map" and self.arg("num_parallel_calls", 1) is not None

    def int_arg(self, keyword: str, position: int = 0) -> int | None:
        code = self.arg(keyword, position)
        try:
            return int(code) if code is not None else None
        except ValueError:
            return None

    def label(self) -> str:
        return f"{self.method}({', '.join(c if k is None else f'{k}={c}' for k, c in self.args)})"


@dataclass(frozen=True)
class Origin:
    kind: str  # range, from_tensor_slices, TFRecordDataset, TextLineDataset
    size: int | None  # number of elements when the source shows it
    line: int
    column: int


@dataclass
class Parsed:
    paths: list[tuple[Origin, tuple[Op, ...]]]  # the paths reaching `model.fit`, in order
    ops: list[Op]  # every op, in source order


class _Reader:
    """Python's `ast` (fast; libcst only checks that pipelint's output parses)."""

    def __init__(self, source: str) -> None:
        self.module = ast.parse(source)
        self.helper: ast.FunctionDef | None = None
        self.ops: list[Op] = []
        self.chains = 0
        self.fit_paths: list | None = None
        self.in_helper = False
        self.helper_methods: set[str] = set()

    @staticmethod
    def attr_pos(node: ast.Attribute) -> tuple[int, int]:
        """Where the attribute's name starts (1-based column): it ends the Attribute node."""
        return node.end_lineno, node.end_col_offset - len(node.attr) + 1

    def run(self) -> Parsed:
        self.run_block(self.module.body, {})
        assert self.fit_paths is not None, "no model.fit"
        self.ops.sort(key=lambda op: (op.line, op.column))
        return Parsed(self.fit_paths, self.ops)

    def run_block(self, body, env: dict) -> list | None:
        """Runs statements; returns the paths of a `return`, if one is reached."""
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef):
                if stmt.name == "finish":
                    self.helper = stmt
            elif isinstance(stmt, ast.If):
                assert isinstance(stmt.test, ast.Name) and stmt.test.id == "training"
                taken = dict(env)
                self.run_block(stmt.body, taken)
                other = dict(env)
                self.run_block(stmt.orelse, other)
                env["ds"] = _merge(taken.get("ds"), other.get("ds"))
            elif isinstance(stmt, ast.Assign):
                (target,) = stmt.targets
                if isinstance(target, ast.Name) and target.id == "ds":
                    env["ds"] = self.chain(stmt.value, env)
            elif isinstance(stmt, ast.Return):
                return self.chain(stmt.value, env)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                func = stmt.value.func
                if isinstance(func, ast.Attribute) and func.attr == "fit":
                    self.fit_paths = env["ds"]
        return None

    def chain(self, expr: ast.expr, env: dict) -> list:
        calls: list[ast.Call] = []
        node = expr
        while (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in OP_METHODS):
            calls.append(node)
            node = node.func.value
        calls.reverse()
        chain_index = self.chains
        self.chains += 1
        previous: Op | str
        if isinstance(node, ast.Name):
            assert node.id == "ds"
            paths, previous = env["ds"], "name"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id == "finish" and self.helper is not None
            self.in_helper = True
            paths, previous = self.run_block(self.helper.body, {"ds": env["ds"]}), "name"
            self.in_helper = False
        else:
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            kind = node.func.attr
            size = None
            if kind == "range":
                size = node.args[0].value
            elif kind == "from_tensor_slices" and isinstance(node.args[0], ast.List):
                size = len(node.args[0].elts)
            line, column = self.attr_pos(node.func)
            paths, previous = [(Origin(kind, size, line, column), ())], "source"
        for call in calls:
            line, column = self.attr_pos(call.func)
            args = [(None, ast.unparse(a)) for a in call.args]
            args += [(k.arg, ast.unparse(k.value)) for k in call.keywords]
            op = Op(call.func.attr, args, line, column, chain_index, previous)
            if self.in_helper:
                self.helper_methods.add(op.method)
                if any("AUTOTUNE" in code for _, code in args):
                    self.helper_methods.add("AUTOTUNE")
            self.ops.append(op)
            paths = [(origin, ops + (op,)) for origin, ops in paths]
            previous = op
        return paths


def _merge(a: list, b: list) -> list:
    merged = list(a)
    for path in b:
        if not any(p[0] == path[0] and p[1] == path[1] for p in merged):
            merged.append(path)
    return merged


def interpret(source: str) -> Parsed:
    return _Reader(source).run()


# ---------------------------------------------------------------------------------------------
# The oracle
# ---------------------------------------------------------------------------------------------

ANY = "any"  # the fix may or may not be offered


def _prefixes(parsed: Parsed, op: Op) -> list[tuple[Origin, tuple[Op, ...]]]:
    """The distinct paths as they stand just before `op`."""
    result: list = []
    for origin, ops in parsed.paths:
        if op in ops:
            prefix = (origin, ops[:ops.index(op)])
            if not any(p[0] == prefix[0] and p[1] == prefix[1] for p in result):
                result.append(prefix)
    return result


def _tails(parsed: Parsed, op: Op) -> list[tuple[Op, ...]]:
    """What follows `op` on each path through it."""
    return [ops[ops.index(op) + 1:] for _, ops in parsed.paths if op in ops]


def expected_findings(parsed: Parsed, codes=RULES) -> set[tuple[str, int, int, str | None]]:
    """`(code, line, column, fix)` for every finding; fix is "safe", "unsafe", None or ANY."""
    found: set = set()

    def add(code: str, op_or_origin, fix) -> None:
        if code in codes:
            found.add((code, op_or_origin.line, op_or_origin.column, fix))

    for op in parsed.ops:
        prefixes = _prefixes(parsed, op)
        tails = _tails(parsed, op)
        receiver = op.receiver if isinstance(op.receiver, Op) else None

        # PL101: a map without num_parallel_calls; always fixable (tf is imported as `tf`).
        if op.method == "map" and not op.parallel:
            add("PL101", op, "safe")

        # PL104: a working op after an explicit prefetch, with only pass-through ops between,
        # unless every path goes on to a later prefetch (the first one is an intermediate buffer).
        prefetched_again = bool(tails) and all(any(t.method == "prefetch" for t in tail) for tail in tails)
        if op.method not in ("prefetch", "take", "skip", "repeat") and not prefetched_again:
            for _, ops in prefixes:
                for previous in reversed(ops):
                    if previous.method == "prefetch":
                        add("PL104", op, "unsafe" if receiver and receiver.method == "prefetch" else None)
                        break
                    if previous.method not in ("take", "skip", "repeat"):
                        break

        if op.method == "cache":
            # PL201: a reshuffling shuffle on some path before it, and no path shuffles the
            # (unbatched) examples again after it.
            # A path with an argument-less `repeat()` (no `take` after it) before the cache is
            # endless: that cache never completes and replays nothing.
            endless = any(_endless(ops) for _, ops in prefixes)
            if any(o.method == "shuffle" for _, ops in prefixes for o in ops) and not endless:
                batched = any(o.method == "batch" for _, ops in prefixes for o in ops)
                reshuffled = False
                for tail in tails:
                    state = batched
                    for o in tail:
                        if o.method == "batch":
                            state = True
                        elif o.method == "shuffle" and not state:
                            reshuffled = True
                # (batches shuffled again after the cache: moving the cache before the shuffle
                # would still reorder whole batches only, so no fix is offered)
                batches_reshuffled = batched and any(o.method == "shuffle" for tail in tails for o in tail)
                if not reshuffled:
                    add("PL201", op, "unsafe" if receiver and receiver.method == "shuffle" and not batches_reshuffled
                        else None)
            # PL209: every path reaching it is cached already, with no `repeat` after that cache
            # on any path (the earlier cache is then read on every repetition).
            def after_last_cache(ops):
                return ops[max(i for i, c in enumerate(ops) if c.method == "cache") + 1:]

            if prefixes and all(any(o.method == "cache" for o in ops) for _, ops in prefixes) and not any(
                    o.method == "repeat" for _, ops in prefixes for o in after_last_cache(ops)):
                clean = all(
                    all(o.method == "prefetch"
                        for o in ops[max(i for i, c in enumerate(ops) if c.method == "cache") + 1:])
                    for _, ops in prefixes)
                add("PL209", op, "safe" if clean and receiver else None)

        if op.method == "shuffle":
            # PL203: the elements are batches (batched with no shuffle before that batch since
            # the last cache) on some path.
            pending = False
            for _, ops in prefixes:
                batch, shuffled = None, False
                for o in ops:
                    if o.method == "batch":
                        batch = o if not shuffled else None
                    elif o.method == "shuffle":
                        shuffled = True
                    elif o.method == "cache":
                        shuffled = False
                pending = pending or batch is not None
            # (Batched again after the shuffle: the first batch built the examples.)
            if pending and not any(o.method == "batch" for tail in tails for o in tail):
                add("PL203", op, "unsafe" if receiver and receiver.method == "batch" else None)
            # PL204: a repeat before it on some path.
            if any(o.method == "repeat" for _, ops in prefixes for o in ops):
                add("PL204", op, "unsafe" if receiver and receiver.method == "repeat" else None)
            # PL205: a literal buffer below 100 (or below the next batch), on a path that is not
            # batched and whose element count is not known to fit in the buffer.
            size = op.int_arg("buffer_size")
            relevant = [
                (origin, ops) for origin, ops in prefixes
                if not any(o.method == "batch" for o in ops)
                and not ((bound := _size_bound(origin, ops)) is not None and bound <= size)
            ]
            if relevant:
                batch_sizes = []
                for tail in tails:
                    for o in tail:
                        if o.method == "shuffle":
                            break
                        if o.method == "batch":
                            batch_sizes.append(o.int_arg("batch_size"))
                            break
                if size < MIN_BUFFER or (batch_sizes and size < max(batch_sizes)):
                    add("PL205", op, None)

        if op.method == "take":
            # PL208: cache() right before (through map/prefetch) on some path; fit reads it
            # every epoch.
            def cache_before(ops):
                for o in reversed(ops):
                    if o.method == "cache":
                        return o
                    if o.method not in ("map", "prefetch"):
                        return None
                return None
            if any(cache_before(ops) is not None for _, ops in prefixes):
                add("PL208", op, "unsafe" if receiver and receiver.method == "cache" else None)

    # PL103: no path reaching fit ends in prefetch or a parallel map (trailing take/skip/repeat do
    # no work and do not count), or is a bare in-memory source (`range`, `from_tensor_slices`:
    # nothing to overlap; pipelint 5c9c68b). A prefetch with stages after it is PL104's one
    # finding. The finding sits on the last batch of the path, else its last stage (issue 18).
    def stages(ops):
        while ops and ops[-1].method in ("take", "skip", "repeat"):
            ops = ops[:-1]
        return ops
    # A handful of numbers written in the source with no function applied (`range(64).batch(8)`:
    # a demo's data, nothing to overlap) ends well too (issue 29: `toy_pipeline`).
    def toy(origin, ops):
        return (origin.kind in IN_MEMORY_SOURCES and origin.size is not None and origin.size <= 1000
                and not any(o.method == "map" for o in ops))
    ends_well = any((stages(ops)[-1].method == "prefetch" or stages(ops)[-1].parallel or toy(origin, ops))
                    if stages(ops) else origin.kind in IN_MEMORY_SOURCES
                    for origin, ops in parsed.paths)
    misplaced = any(o.method == "prefetch" for _, ops in parsed.paths for o in stages(ops))
    if not ends_well and not misplaced:
        fixes: dict = {}
        for origin, ops in parsed.paths:
            kept = stages(ops)
            if kept:
                last = kept[-1]
                continued = any(tail for tail in _tails(parsed, last))
                fix = None if (continued or len(kept) < len(ops)) else "safe"
                key = next((o for o in reversed(kept) if o.method == "batch"), last)
            else:
                fix = None if any(o for _, o in parsed.paths) else "safe"
                key = origin
            if key in fixes and fixes[key][1] != fix:
                fixes[key] = (key, ANY)
            else:
                fixes.setdefault(key, (key, fix))
        for node, fix in fixes.values():
            add("PL103", node, fix)
    return found


def _size_bound(origin: Origin, ops: tuple[Op, ...]) -> int | None:
    bound = origin.size
    for o in ops:
        if o.method == "take":
            count = o.int_arg("count")
            bound = count if bound is None else min(bound, count)
        elif o.method == "batch":
            size = o.int_arg("batch_size")
            bound = -(-bound // size) if bound is not None else None
        elif o.method not in ("map", "cache", "prefetch", "shuffle", "skip", "repeat"):
            bound = None  # (a repeat replays the same distinct elements)
    return bound


def _endless(ops: tuple[Op, ...]) -> bool:
    """Does an argument-less `repeat()` make this path endless (no `take` after it)?"""
    endless = False
    for o in ops:
        if o.method == "repeat":
            endless = True
        elif o.method == "take":
            endless = False
    return endless


def matches(expected: set, actual: set) -> bool:
    """Compare `(code, line, column, fix)` sets, where the expected fix may be ANY."""
    def key(f):
        return f[:3]
    if {key(f) for f in expected} != {key(f) for f in actual} or len(actual) != len({key(f) for f in actual}):
        return False
    wanted = {key(f): f[3] for f in expected}
    return all(wanted[key(f)] in (ANY, f[3]) for f in actual)
