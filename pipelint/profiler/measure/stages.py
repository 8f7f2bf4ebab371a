"""Turn tf.data's autotune model (`get_model_proto`) into per-stage figures tied to source lines.

The proto describes the *optimized* pipeline: ops may be fused (map+batch -> MapAndBatch), renamed
(serial map -> ParallelMapV2 by `map_parallelization`), injected (Prefetch by `inject_prefetch`) or
removed (no-op take/repeat). So we align the proto's chain with the Python chain of dataset objects
greedily, by kind, instead of by position. Pure Python: no TensorFlow import here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: proto node name -> the Dataset method that creates it (fused nodes name both parts).
NODE_KIND = {
    "Map": "map", "ParallelMap": "map", "ParallelMapV2": "map",
    "MapAndBatch": "map+batch",
    "Batch": "batch", "BatchV2": "batch", "ParallelBatch": "batch",
    "PaddedBatch": "padded_batch", "PaddedBatchV2": "padded_batch",
    "Prefetch": "prefetch",
    "Shuffle": "shuffle", "ShuffleV2": "shuffle", "ShuffleV3": "shuffle",
    "ShuffleAndRepeat": "shuffle+repeat",
    "Repeat": "repeat", "Cache": "cache", "CacheV2": "cache", "MemoryCache": "cache",
    "Range": "range", "TensorSlice": "from_tensor_slices", "FromTensor": "from_tensors",
    "Tensor": "from_tensors", "Generator": "from_generator", "FlatMap": "flat_map",
    "Filter": "filter", "ParallelFilter": "filter", "Take": "take", "Skip": "skip",
    "Interleave": "interleave", "ParallelInterleave": "interleave",
    "ParallelInterleaveV2": "interleave", "ParallelInterleaveV3": "interleave",
    "ParallelInterleaveV4": "interleave", "LegacyParallelInterleaveV2": "interleave",
    "Zip": "zip", "Concatenate": "concatenate", "Unbatch": "unbatch", "Shard": "shard",
    "Window": "window", "Scan": "scan", "TakeWhile": "take_while", "Rebatch": "rebatch",
    "TFRecord": "TFRecordDataset", "TextLine": "TextLineDataset",
    "FixedLengthRecord": "FixedLengthRecordDataset", "FixedLengthRecordV2": "FixedLengthRecordDataset",
}

#: Python dataset class name -> Dataset method (used when no call site was recorded).
CLASS_KIND = {
    "_MapDataset": "map", "_ParallelMapDataset": "map", "_BatchDataset": "batch",
    "_ParallelBatchDataset": "batch", "_PaddedBatchDataset": "padded_batch",
    "_PrefetchDataset": "prefetch", "_ShuffleDataset": "shuffle", "_RepeatDataset": "repeat",
    "CacheDataset": "cache", "_CacheDataset": "cache", "_MemoryCacheDataset": "cache",
    "_RangeDataset": "range", "RangeDataset": "range", "_TensorSliceDataset": "from_tensor_slices",
    "_TensorDataset": "from_tensors", "_FlatMapDataset": "flat_map", "_FilterDataset": "filter",
    "_ParallelFilterDataset": "filter", "_TakeDataset": "take", "_SkipDataset": "skip",
    "_InterleaveDataset": "interleave", "_ParallelInterleaveDataset": "interleave",
    "_ZipDataset": "zip", "_ConcatenateDataset": "concatenate", "_UnbatchDataset": "unbatch",
    "_ShardDataset": "shard", "TFRecordDatasetV2": "TFRecordDataset",
    "TextLineDatasetV2": "TextLineDataset", "FixedLengthRecordDatasetV2": "FixedLengthRecordDataset",
    "_OptionsDataset": "with_options",
}

#: Ops that produce no node of their own (options, wrappers).
TRANSPARENT = {"with_options", "apply"}
#: Ops whose whole proto subtree belongs to them (their internals are TF's business).
CLAIMS_SUBTREE = {"from_generator", "TFRecordDataset", "TextLineDataset",
                  "FixedLengthRecordDataset", "list_files", "load"}
#: What node kinds each op may appear as.
OP_ACCEPTS = {
    "from_generator": {"flat_map", "from_generator"},
    "list_files": {"shuffle", "from_tensor_slices", "flat_map"},
    "load": None,  # anything
    "enumerate": {"zip"},
    "counter": {"range"},
}


def node_kind(name: str) -> str:
    if name in NODE_KIND:
        return NODE_KIND[name]
    # Unknown node: CamelCase without Parallel/Legacy prefixes and version suffixes, snake-cased.
    base = re.sub(r"V\d+$", "", re.sub(r"^(Parallel|Legacy|Experimental)+", "", name))
    return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower()


def class_kind(class_name: str) -> str:
    if class_name in CLASS_KIND:
        return CLASS_KIND[class_name]
    base = re.sub(r"(Dataset)?(V\d)?$", "", class_name.lstrip("_"))
    base = re.sub(r"^(Parallel|Legacy)", "", base)
    return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower()


@dataclass
class Node:
    id: int
    name: str
    elements: int
    processing_ns: int
    bytes_produced: int
    params: dict[str, float]
    inputs: list[int]
    tunable: frozenset = frozenset()  # names of the params autotune sets
    maxima: dict[str, float] = field(default_factory=dict)  # the most autotune may set each to


def parse_proto(proto: Any) -> tuple[list[Node], dict[int, list[Node]], list[int]]:
    """Return (main chain below Root, side subtrees by chain node id, gap_times in µs)."""
    nodes = {}
    for key, n in proto.nodes.items():
        nodes[key] = Node(int(n.id), n.name, int(n.num_elements), int(n.processing_time),
                          int(n.bytes_produced), {p.name: float(p.value) for p in n.parameters},
                          list(n.inputs), frozenset(p.name for p in n.parameters if p.tunable),
                          {p.name: float(p.max) for p in n.parameters if p.tunable})
    chain: list[Node] = []
    side: dict[int, list[Node]] = {}
    cur = nodes.get(proto.output)
    seen = set()
    while cur is not None and cur.id not in seen:
        seen.add(cur.id)
        if cur.name != "Root":
            chain.append(cur)
        extra: list[Node] = []
        stack = [nodes[i] for i in cur.inputs[1:] if i in nodes]
        while stack:  # side inputs (zip, interleave's inner datasets): charge them to this node
            s = stack.pop()
            if s.id in seen:
                continue
            seen.add(s.id)
            extra.append(s)
            stack.extend(nodes[i] for i in s.inputs if i in nodes)
        if extra:
            side[cur.id] = extra
        cur = nodes.get(cur.inputs[0]) if cur.inputs else None
    return chain, side, list(proto.gap_times)


@dataclass
class Op:
    """One dataset in the Python chain, outermost first."""

    op: str
    path: str | None = None
    line: int | None = None
    label: str | None = None  # display name, e.g. "map(parse)" or "PyDataset Seq.__getitem__"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.label or self.op


@dataclass
class Stage:
    op: Op
    kind: str  # the node kind, e.g. "map+batch" when fused
    nodes: list[str] = field(default_factory=list)
    elements: int = 0  # elements consumed (a fused map+batch: the map's input elements)
    outputs: int = 0  # elements produced (a fused map+batch: batches)
    consumed: int = 0  # elements taken from its input: the input stage's outputs in the same snapshot (0: unknown)
    processing_ns: int = 0
    bytes_produced: int = 0
    parallelism: float | None = None
    buffer_size: float | None = None
    fused_with: list[str] = field(default_factory=list)
    autotuned: bool = False  # autotune chose the parallelism (else the user set it, or it is serial)
    parallelism_max: float | None = None  # the most autotune may choose (its thread pool's size)


def _accepts(op: str, kind: str) -> bool:
    accepted = OP_ACCEPTS.get(op, ...)
    if accepted is None:
        return True
    if accepted is ...:
        accepted = {op}
    return kind in accepted or kind.split("+")[0] in accepted


#: `_plan` by (the ops' kinds, the nodes' kinds): a pipeline's reads repeat one chain, and the
#: running account aligns every read of each interval (its report), so the plan is made once.
_PLANS: dict[tuple, list[tuple]] = {}


def _plan(ops: list[Op], chain: list[Node]) -> list[tuple]:
    key = (tuple(o.op for o in ops), tuple(n.name for n in chain))
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= 256:
            _PLANS.clear()
        plan = _PLANS[key] = _make_plan(ops, chain)
    return plan


def _make_plan(ops: list[Op], chain: list[Node]) -> list[tuple]:
    """The alignment with the most matched nodes (a small dynamic programme over ops x nodes).

    Steps: ("node", j, i) node j is op i; ("fused", j, outer i, inner k) a fused node is two
    consecutive ops; ("claim", j, i) op i owns node j and every node below it; ("extra", j) node j
    has no op (tf.data added it). Ops without a node (removed no-ops) are skipped. A greedy match
    can give an injected Prefetch the user's (or a Keras helper's) prefetch and shift every stage
    below it by one; maximizing the matches does not.
    """
    n_ops, n_nodes = len(ops), len(chain)
    kinds = [node_kind(n.name) for n in chain]
    memo: dict[tuple[int, int], tuple[int, tuple]] = {}

    def best(i: int, j: int) -> tuple[int, tuple]:
        if j == n_nodes:
            return 0, ()
        if (i, j) in memo:
            return memo[(i, j)]
        kind = kinds[j]
        score, rest = best(i, j + 1)
        choice = (score, (("extra", j),) + rest)
        if i < n_ops:
            score, rest = best(i + 1, j)
            if score > choice[0]:
                choice = (score, rest)
            if ops[i].op in CLAIMS_SUBTREE and _accepts(ops[i].op, kind) and 1 >= choice[0]:
                choice = (1, (("claim", j, i),))
            elif "+" in kind:
                # "map+batch" is ds.map(f).batch(n): outermost first, the batch op, then the map op.
                inner, outer = kind.split("+", 1)
                if i + 1 < n_ops and _accepts(ops[i].op, outer) and _accepts(ops[i + 1].op, inner):
                    score, rest = best(i + 2, j + 1)
                    if score + 2 > choice[0]:
                        choice = (score + 2, (("fused", j, i, i + 1),) + rest)
            if ops[i].op not in CLAIMS_SUBTREE and _accepts(ops[i].op, kind):
                score, rest = best(i + 1, j + 1)
                if score + 1 > choice[0]:
                    choice = (score + 1, (("node", j, i),) + rest)
        memo[(i, j)] = choice
        return choice

    return list(best(0, 0)[1])


def align(ops: list[Op], chain: list[Node], side: dict[int, list[Node]]) -> list[Stage]:
    """Align proto nodes to Python ops (see `_plan`). Unmatched nodes become internal stages."""
    ops = [o for o in ops if o.op not in TRANSPARENT]
    stages: list[Stage] = []

    def absorb(stage: Stage, node: Node, top: bool) -> None:
        stage.nodes.append(node.name)
        stage.processing_ns += node.processing_ns
        if top:
            stage.elements = stage.outputs = node.elements
            stage.bytes_produced = node.bytes_produced
        for n in side.get(node.id, []):
            stage.nodes.append(n.name)
            stage.processing_ns += n.processing_ns
        par = node.params.get("parallelism", node.params.get("cycle_length"))
        if par is not None:
            stage.parallelism = max(stage.parallelism or 0, par)
            stage.autotuned = stage.autotuned or bool({"parallelism", "cycle_length"} & node.tunable)
            top_max = node.maxima.get("parallelism", node.maxima.get("cycle_length"))
            if top_max is not None and top_max < 1e9:
                stage.parallelism_max = max(stage.parallelism_max or 0, top_max)
        if "buffer_size" in node.params and stage.buffer_size is None:
            stage.buffer_size = node.params["buffer_size"]

    for step in _plan(ops, chain):
        node = chain[step[1]]
        kind = node_kind(node.name)
        if step[0] == "extra":
            stage = Stage(Op(kind, label=f"{kind} (added by tf.data)"), kind)
            stage.op.extra["internal"] = True
            stage.op.extra["added_by"] = "tf.data optimizer"
            absorb(stage, node, top=True)
        elif step[0] == "fused":  # the outer part (batch of map+batch) first; the inner one is the stage
            outer, inner = ops[step[2]], ops[step[3]]
            stage = Stage(inner, kind, fused_with=[outer.op])
            absorb(stage, node, top=True)
            inner.extra["fused_with"] = (outer.op, outer.path, outer.line)
        else:
            stage = Stage(ops[step[2]], kind)
            absorb(stage, node, top=True)
            if step[0] == "claim":
                for below in chain[step[1] + 1:]:
                    absorb(stage, below, top=False)
        stages.append(stage)
    # What each stage took from its input, read in this one snapshot: the input's outputs. (Stages
    # of different snapshots are later mixed by `update`; each keeps its own consistent ratio.)
    for i, st in enumerate(stages):
        below = stages[i + 1].outputs if i + 1 < len(stages) else 0
        st.consumed = below
        # A fused map+batch produces batches; report the elements it consumed, as a plain map would.
        if st.kind.endswith("+batch") and below:
            st.elements = below
    return stages


def update(old: list[Stage] | None, new: list[Stage]) -> list[Stage]:
    """Newer snapshot of one iterator, keeping stages it no longer reports.

    An exhausted source drops out of tf.data's model, but what it did still counts.
    """
    if not old:
        return new
    fresh = {_key(s): s for s in new}
    out = []
    for o in old:
        n = fresh.pop(_key(o), None)
        if n is not None and not n.consumed and o.consumed and o.outputs:
            # Its input left the model (an exhausted source): keep the ratio the last read had.
            n.consumed = round(n.outputs * o.consumed / o.outputs)
            if n.kind.endswith("+batch"):
                n.elements = n.consumed
        if n is None:
            out.append(o)
        elif n.processing_ns >= o.processing_ns:
            out.append(n)
        else:  # a claimed subtree lost its exhausted nodes: keep the fuller figure
            o.elements = max(o.elements, n.elements)
            o.outputs = max(o.outputs, n.outputs)
            o.consumed = max(o.consumed, n.consumed)
            o.parallelism = n.parallelism if n.parallelism is not None else o.parallelism
            out.append(o)
    out.extend(s for s in new if _key(s) in fresh)
    return out


def _key(s: Stage) -> tuple:
    return (s.op.label if s.op.extra.get("internal") else id(s.op), s.kind)


def merge(runs: list[list[Stage]]) -> list[Stage]:
    """Sum the figures of several iterators over the same pipeline (one per epoch in Keras).

    Runs may differ in length: an exhausted iterator drops its source nodes from the model.
    Parallelism is the highest any run reached: autotune starts each iterator low and raises it.
    """
    order: list[tuple] = []
    merged: dict[tuple, Stage] = {}
    for run in sorted(runs, key=len, reverse=True):
        for s in run:
            k = _key(s)
            m = merged.get(k)
            if m is None:
                m = merged[k] = Stage(s.op, s.kind, list(s.nodes), parallelism=s.parallelism,
                                      buffer_size=s.buffer_size, fused_with=list(s.fused_with),
                                      autotuned=s.autotuned, parallelism_max=s.parallelism_max)
                order.append(k)
            if s.parallelism is not None:
                m.parallelism = max(m.parallelism or 0, s.parallelism)
            m.elements += s.elements
            m.outputs += s.outputs
            m.consumed += s.consumed
            m.processing_ns += s.processing_ns
            m.bytes_produced += s.bytes_produced
    return [merged[k] for k in order]


def describe_dataset(ds: Any, op: Op) -> None:
    """Facts about a dataset that the advice needs (py_function inside a map, cache file, ...)."""
    if op.op in ("map", "interleave", "flat_map", "filter"):
        wrapper = getattr(ds, "_map_func", None) or getattr(ds, "_predicate", None)
        fn = getattr(wrapper, "function", None)
        graph = getattr(fn, "graph", None)
        if graph is not None and "py_function" not in op.extra:
            try:
                types = {o.type for o in graph.get_operations()}
                op.extra["py_function"] = bool(types & {"EagerPyFunc", "PyFunc", "PyFuncStateless"})
                op.extra["generator"] = "GeneratorDataset" in types
            except Exception:
                pass
        if "num_parallel_calls" not in op.extra:
            op.extra["num_parallel_calls"] = getattr(ds, "_num_parallel_calls", None) is not None
        if op.op == "map" and "cardinality" not in op.extra:
            try:  # elements per epoch (negative: infinite or unknown); what a cache after it holds
                op.extra["cardinality"] = int(ds.cardinality())
            except Exception:
                pass
    if op.op == "cache" and "filename" not in op.extra:
        fname = getattr(ds, "_filename", None)
        try:
            op.extra["filename"] = fname.numpy().decode() if hasattr(fname, "numpy") else fname
        except Exception:
            pass
    if op.op in ("cache", "shuffle"):
        try:
            inputs = ds._inputs()
            card = int(inputs[0].cardinality()) if inputs else -2
            op.extra["input_cardinality"] = card
        except Exception:
            pass
