"""Ask the linter's model whether the function mapped at a source line is deterministic.

A stage whose function draws no randomness gives the same elements every epoch, so `cache()` right
after it is safe. The runtime sees only the line of the `map` call; the linter's model
(`pipelint.model`) knows what the function there does: random ops (`tf.random.*`,
`tf.image.random_*`), Keras random layers, and randomness inside the Python function a
`py_function` wraps. Nothing here imports TensorFlow; libcst is loaded on first use.
"""
from __future__ import annotations

import functools


@functools.lru_cache(maxsize=64)
def _map_facts(path: str) -> dict[int, bool | None]:
    """{line of each `map`/`filter` call in `path`: its function is deterministic (True), draws
    randomness (False), or its body is not known (None)}."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from pipelint.model import PipelineModel

    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    model = PipelineModel.build(module, source)
    out: dict[int, bool | None] = {}
    for site in model.ops("map", "filter"):
        op = site.op
        facts = op.facts
        verdict = None if not facts.known else not (facts.randomness or facts.py_function_randomness)
        # CPython reports a method call at the line of its attribute (`.map` on its own line in a
        # chain), so both that line and the call's first line identify it.
        for node in (op.name_node, op.call):
            pos = positions.get(node)
            if pos is not None:
                line = pos.start.line
                out[line] = verdict if out.get(line, True) is not False else False
    return out


def deterministic_at(path: str | None, line: int | None) -> bool | None:
    """True when the function of the `map` at path:line draws no randomness, False when it does,
    None when the source cannot be read or the function's body is not known."""
    if not path or not line:
        return None
    try:
        return _map_facts(path).get(line)
    except Exception:  # noqa: BLE001 - unreadable file, syntax the parser rejects: no answer, not an error
        return None
