"""NCCL's double binary tree AllReduce, pipelined in chunks, for 2 ports and (edge-coloured) 1 port."""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log2
from .._validation import check_int, check_memory
from ..double_binary_tree import _dbt_trees, _edge_colours, _heights_depths, _nccl_double_binary_tree
from ..schedule import Round, _block_bounds
from .core import MAX_TREE_NODES, ScheduleGenerator, _tree_memory


def nccl_double_binary_tree(n: int):
    """NCCL's two complementary binary trees over ``n`` ranks (``ncclGetBtree`` / ``ncclGetDtree``).

    Tree 0: rank 0 is the root with a single child; a rank's parent is found from its lowest set
    bit, so odd ranks are leaves. Tree 1 mirrors tree 0 (rank r -> n-1-r) for even ``n`` and
    shifts it by one for odd ``n``, so a rank is interior in at most one tree (rank 0 excepted
    for odd ``n``).

    Returns
    -------
    list of two ndarray
        ``parent[t][r]`` for trees ``t = 0, 1`` (``-1`` at the root).

    >>> [p.tolist() for p in nccl_double_binary_tree(4)]
    [[-1, 2, 0, 2], [1, 3, 1, -1]]
    """
    n = check_int("n", n, minimum=1, maximum=MAX_TREE_NODES, scalar=True)
    check_memory(f"n: the double binary tree of {n:,} nodes", _tree_memory(n))
    return _nccl_double_binary_tree(n)


def _double_binary_tree(n: int, m: int, chunks: int, ports: int = 2) -> list[Round]:
    trees = _dbt_trees(n)
    halves = _block_bounds(m, 2)
    height = ceil_log2(n)
    total_rounds = 2 * (height + chunks - 1)
    split = 2 if ports == 1 else 1
    colour = _edge_colours(trees) if split == 2 else np.zeros((2, n), dtype=np.int64)
    pieces = [[] for _ in range(split * total_rounds)]  # (src, dst, offset, length, reduce)
    reduce_rounds = height + chunks - 1
    for t, parent in enumerate(trees):
        base = halves[t]
        chunk = _block_bounds(int(halves[t + 1] - halves[t]), chunks)
        h, depth = _heights_depths(parent)
        for c in range(chunks):
            off, length = base + chunk[c], chunk[c + 1] - chunk[c]
            for r in range(n):
                if parent[r] != -1:
                    sub = int(colour[t, r])
                    # Reduce phase: a node of height l sends chunk c up in round c + l.
                    pieces[split * (c + h[r]) + sub].append((r, parent[r], off, length, True))
                    # Broadcast phase: its parent (depth d - 1) sends chunk c down in round R0 + c + d - 1.
                    pieces[split * (reduce_rounds + c + depth[r] - 1) + sub].append((parent[r], r, off, length, False))
    rounds = []
    for items in pieces:
        if not items:
            continue  # a 1-port sub-round where neither colour has a message: nobody waits for it
        src, dst, off, length, red = (np.array(col) for col in zip(*items))
        rounds.append(Round(src, dst, off, length, red))
    return rounds


def _build_double_binary_tree(primitive, n, m, ports, root, chunks) -> list[Round]:
    return _double_binary_tree(n, m, chunks, ports)


def _double_binary_tree_transfers(primitive, n, ports, chunks) -> int:
    return 4 * (chunks or 1) * (n - 1)


DOUBLE_BINARY_TREE = ScheduleGenerator(_build_double_binary_tree, _double_binary_tree_transfers)
