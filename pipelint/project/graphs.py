"""Graphs of names (module -> the modules it imports): their strongly connected components."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["strongly_connected_components"]


def strongly_connected_components(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The components of `graph` (node -> its successors, every successor a node too), each
    sorted, in the order Tarjan's algorithm finishes them: a component comes after every
    component it reaches, so a digest of what a node reaches can be built in one pass.
    Iterative (a deep import chain would overflow Python's stack) and deterministic (nodes and
    successors are visited in sorted order)."""
    successors = {node: sorted(targets) for node, targets in graph.items()}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(successors):
        if root in order:
            continue
        work = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                order[node] = low[node] = len(order)
                stack.append(node)
                on_stack.add(node)
            targets = successors[node]
            if position < len(targets):
                work.append((node, position + 1))
                target = targets[position]
                if target not in order:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], order[target])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                found.append(sorted(members))
    return found
