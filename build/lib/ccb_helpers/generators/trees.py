"""k-nomial trees (broadcast, reduce, AllReduce), the binomial scatter / gather, and van de
Geijn's scatter + all-gather broadcast."""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log2
from .._validation import check_int, check_memory
from ..schedule import Round
from .core import MAX_TREE_NODES, ScheduleGenerator, _Blocks, _reverse, _rotate, _tree_memory
from .rings import _ring_all_gather


def knomial_tree(n: int, k: int = 1) -> list[list[tuple[int, int]]]:
    """Rounds of the k-nomial broadcast tree from node 0: ``[(parent, child), ...]`` per round.

    In round ``t`` every informed node ``v < (k+1)**t`` sends to ``v + j (k+1)**t``, ``j = 1..k``.

    >>> knomial_tree(5)
    [[(0, 1)], [(0, 2), (1, 3)], [(0, 4)]]
    >>> knomial_tree(9, k=2)
    [[(0, 1), (0, 2)], [(0, 3), (0, 6), (1, 4), (1, 7), (2, 5), (2, 8)]]
    """
    n = check_int("n", n, minimum=1, maximum=MAX_TREE_NODES, scalar=True)
    k = check_int("k", k, minimum=1, scalar=True)
    check_memory(f"n: the {k}-nomial tree of {n:,} nodes", _tree_memory(n))
    return _knomial_tree(n, min(k, max(n - 1, 1)))


def _knomial_tree(n: int, k: int) -> list[list[tuple[int, int]]]:
    rounds = []
    span = 1
    while span < n:
        edges = [(v, v + j * span) for v in range(span) for j in range(1, k + 1) if v + j * span < n]
        rounds.append(edges)
        span *= k + 1
    return rounds


def _tree_broadcast(n: int, m: int, k: int) -> list[Round]:
    # The rounds of knomial_tree, vectorised: node v < span sends to v + j * span, j = 1..k.
    k = min(k, max(n - 1, 1))
    rounds = []
    span = 1
    while span < n:
        parents = np.repeat(np.arange(span, dtype=np.int64), k)
        children = parents + np.tile(np.arange(1, k + 1, dtype=np.int64), span) * span
        keep = children < n
        rounds.append(Round(parents[keep], children[keep], 0, m))
        span *= k + 1
    return rounds


def _binomial_scatter(n: int, m: int, root: int) -> list[Round]:
    # MPICH's binomial scatter, written relative to the root: with mask h = 2^(L-1), ..., 1, node
    # v (a multiple of 2h) hands blocks [v + h, min(v + 2h, n)) to node v + h. Relative node and
    # block v are absolute node and block (v + root) mod n.
    blocks = _Blocks(m, n)
    rounds = []
    mask = 1 << (ceil_log2(n) - 1) if n > 1 else 0
    while mask >= 1:
        src, dst, blk = [], [], []
        for v in range(0, n, 2 * mask):
            for b in range(v + mask, min(v + 2 * mask, n)):
                src.append(v)
                dst.append(v + mask)
                blk.append(b)
        src, dst, blk = ((np.array(x, dtype=np.int64) + root) % n for x in (src, dst, blk))
        rounds.append(Round(src, dst, blocks.offset[blk], blocks.length[blk]))
        mask //= 2
    return rounds


def _build_binomial(primitive, n, m, ports, root, chunks) -> list[Round]:
    if primitive in ("scatter", "gather"):
        scatter = _binomial_scatter(n, m, root)
        return scatter if primitive == "scatter" else _reverse(scatter, False)
    bcast = _rotate(_tree_broadcast(n, m, ports), root, n)
    return {"broadcast": bcast, "reduce": _reverse(bcast, True), "all_reduce": _reverse(bcast, True) + bcast}[primitive]


def _binomial_transfers(primitive, n, ports, chunks) -> int:
    if primitive in ("scatter", "gather"):
        return n * ceil_log2(n)
    return (n - 1) * (2 if primitive == "all_reduce" else 1)


def _build_scatter_allgather(primitive, n, m, ports, root, chunks) -> list[Round]:
    return _binomial_scatter(n, m, root) + _ring_all_gather(n, m)


def _scatter_allgather_transfers(primitive, n, ports, chunks) -> int:
    return n * ceil_log2(n) + n * (n - 1)


BINOMIAL_TREE = ScheduleGenerator(_build_binomial, _binomial_transfers)
SCATTER_ALLGATHER = ScheduleGenerator(_build_scatter_allgather, _scatter_allgather_transfers)
