"""Pipelined chain and pipelined binary tree: Broadcast in ``s`` segments, Reduce as its reversal.

Labels are relative to the root (node ``v`` is ``(v + root) mod n``). The chain sends segment
``c`` from node ``i - 1`` to node ``i`` in round ``c + i - 1``. The binary tree is heap-ordered
(children ``2v + 1`` and ``2v + 2``): with one port a node that received segment ``c`` in round
``R`` sends it to its first child in ``R + 1`` and to its second in ``R + 2`` (the root "receives"
segment ``c`` in round ``2c - 1``), so a node receives every other round and sends in between;
with two ports both children get it in round ``R + 1``. A chain of two is the tree of two.
"""

from __future__ import annotations

import numpy as np

from ..schedule import Round, _block_bounds
from .core import ScheduleGenerator, _reverse, _rotate


def _segments(m: int, chunks: int):
    bounds = _block_bounds(m, chunks)
    return bounds[:-1], np.diff(bounds)


def _from_arrival(parent: np.ndarray, arrival: np.ndarray, m: int, chunks: int) -> list[Round]:
    """Rounds where ``parent[v] -> v`` carries segment ``c`` in round ``arrival[v] + c * period``.

    ``arrival`` is an ``(n, chunks)`` array of round indices (``-1`` for the root).
    """
    offset, length = _segments(m, chunks)
    nodes = np.nonzero(parent >= 0)[0]
    child = np.repeat(nodes, chunks)
    segment = np.tile(np.arange(chunks), nodes.size)
    when = arrival[child, segment]
    order = np.argsort(when, kind="stable")
    child, segment, when = child[order], segment[order], when[order]
    cuts = np.flatnonzero(np.diff(when)) + 1
    rounds = []
    for group in np.split(np.arange(when.size), cuts):
        if group.size:
            kids = child[group]
            rounds.append(Round(parent[kids], kids, offset[segment[group]], length[segment[group]]))
    return rounds


def _chain_broadcast(n: int, m: int, chunks: int) -> list[Round]:
    parent = np.arange(-1, n - 1, dtype=np.int64)
    # Node i (>= 1) receives segment c in round c + i - 1.
    arrival = np.arange(n, dtype=np.int64)[:, None] - 1 + np.arange(chunks, dtype=np.int64)[None, :]
    return _from_arrival(parent, arrival, m, chunks)


def _tree_broadcast(n: int, m: int, chunks: int, ports: int) -> list[Round]:
    if n == 2:
        return _chain_broadcast(n, m, chunks)
    v = np.arange(n, dtype=np.int64)
    parent = np.where(v == 0, -1, (v - 1) // 2)
    x = v + 1  # heap index from 1: depth = bitlen(x) - 1, right edges = popcount(x) - 1
    depth = np.zeros(n, dtype=np.int64)
    rights = np.zeros(n, dtype=np.int64)
    for bit in range(int(n).bit_length()):
        has = (x >> bit) > 0
        depth += has & ((x >> (bit + 1)) > 0)
        rights += has & ((x >> (bit + 1)) > 0) & (((x >> bit) & 1) == 1)
    c = np.arange(chunks, dtype=np.int64)[None, :]
    if ports == 1:
        arrival = 2 * c - 1 + (depth + rights)[:, None]
    else:
        arrival = c + depth[:, None] - 1
    return _from_arrival(parent, arrival, m, chunks)


def _build(tree: bool):
    def build(primitive, n, m, ports, root, chunks) -> list[Round]:
        bcast = _tree_broadcast(n, m, chunks, ports) if tree else _chain_broadcast(n, m, chunks)
        bcast = _rotate(bcast, root, n)
        return bcast if primitive == "broadcast" else _reverse(bcast, True)

    return build


def _transfers(primitive, n, ports, chunks) -> int:
    return (n - 1) * chunks


PIPELINED_CHAIN = ScheduleGenerator(_build(tree=False), _transfers)
PIPELINED_BINARY_TREE = ScheduleGenerator(_build(tree=True), _transfers)
