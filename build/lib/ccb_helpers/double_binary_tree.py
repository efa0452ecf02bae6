"""The double binary tree's structure: NCCL's two trees, their heights, depths and edge colours.

Below both :mod:`ccb_helpers.algorithms` (whose 1-port cost model counts the trees' busy levels,
:func:`_dbt_levels`) and :mod:`ccb_helpers.generators` (which builds the rounds from the trees),
so neither imports the other for it. The public entry point is
:func:`ccb_helpers.generators.nccl_double_binary_tree` (it caps ``n``).
"""

from __future__ import annotations

import functools

import numpy as np


def _nccl_double_binary_tree(n: int):
    ranks = np.arange(n, dtype=np.int64)
    tree0 = _btree_parents(ranks, n)
    if n % 2:
        up = _btree_parents((ranks - 1) % n, n)
        tree1 = np.where(up == -1, -1, (up + 1) % n)
    else:
        up = _btree_parents(n - 1 - ranks, n)
        tree1 = np.where(up == -1, -1, n - 1 - up)
    return [tree0, tree1]


def _btree_parents(ranks: np.ndarray, n: int) -> np.ndarray:
    """``ncclGetBtree``'s parent of each rank: clear the lowest set bit and set the next one up
    (or just clear it if that leaves the range); rank 0 is the root (-1)."""
    bit = ranks & -ranks
    up = (ranks ^ bit) | (bit << 1)
    up = np.where(up >= n, ranks ^ bit, up)
    return np.where(ranks == 0, -1, up).astype(np.int64)


def _heights_depths(parent: np.ndarray):
    """Height (longest path down to a leaf) and depth (hops to the root) of every rank."""
    n = parent.size
    depth = np.zeros(n, dtype=np.int64)
    above = parent.copy()
    while np.any(above != -1):  # one level per pass: O(n log n) for these trees
        live = above != -1
        depth[live] += 1
        above[live] = parent[above[live]]
    height = np.zeros(n, dtype=np.int64)
    for d in range(int(depth.max(initial=0)), 0, -1):  # deepest level first
        kids = np.nonzero(depth == d)[0]
        np.maximum.at(height, parent[kids], height[kids] + 1)
    return height, depth


def _mirrored_btrees(n: int):
    tree0 = _nccl_double_binary_tree(n)[0]
    mirror = np.array([-1 if tree0[n - 1 - r] == -1 else n - 1 - tree0[n - 1 - r] for r in range(n)], dtype=np.int64)
    return [tree0, mirror]


def _edge_colours(trees: list[np.ndarray]) -> np.ndarray:
    """Colour every tree edge 0 or 1 so that no node has two sends or two receives of one colour.

    Edge ``(t, r)`` is rank ``r``'s link to its parent in tree ``t``; the result is an array
    ``colour[t, r]`` (``-1`` at the roots). Seen as a bipartite
    multigraph (every rank once as a child, once as a parent), each side has degree at most 2:
    a rank has at most one parent per tree and its children all sit in the one tree where it is
    interior. Such a graph is a union of paths and even cycles, so alternating colours along each
    component is a proper 2-colouring (König; Sanders, Speck & Träff 2009).
    """
    n = trees[0].size
    # Edge e = t * n + r joins vertex r (rank r as a child) and vertex n + parent (as a parent).
    parent = np.concatenate(trees)
    edges = np.nonzero(parent != -1)[0]
    vertex = np.concatenate([edges % n, n + parent[edges]])
    edge_at = np.concatenate([edges, edges])
    if np.bincount(vertex, minlength=2 * n).max(initial=0) > 2:
        raise AssertionError("a rank has more than two sends or receives in the two trees")  # pragma: no cover
    order = np.argsort(vertex, kind="stable")
    vertex, edge_at = vertex[order], edge_at[order]
    second = np.zeros(vertex.size, dtype=bool)
    second[1:] = vertex[1:] == vertex[:-1]
    ends = np.full((2 * n, 2), -1, dtype=np.int64)  # the (at most two) edges at each vertex
    ends[vertex[~second], 0] = edge_at[~second]
    ends[vertex[second], 1] = edge_at[second]
    ends = ends.tolist()
    a_end = np.full(2 * n, -1, dtype=np.int64)
    b_end = np.full(2 * n, -1, dtype=np.int64)
    a_end[edges], b_end[edges] = edges % n, n + parent[edges]
    a_end, b_end = a_end.tolist(), b_end.tolist()
    colour = [-1] * (2 * n)

    def walk(edge: int, entered_at: int) -> None:
        c = 0
        while edge != -1 and colour[edge] == -1:
            colour[edge] = c
            leave_at = b_end[edge] if a_end[edge] == entered_at else a_end[edge]
            x, y = ends[leave_at]
            edge, entered_at, c = (y if x == edge else x), leave_at, 1 - c

    # Paths first, from an end vertex; what is left are even cycles, started anywhere.
    for v, (x, y) in enumerate(ends):
        if x != -1 and y == -1 and colour[x] == -1:
            walk(x, v)
    for e in edges.tolist():
        if colour[e] == -1:
            walk(e, a_end[e])
    return np.array(colour, dtype=np.int64).reshape(2, n)  # colour[t, r]; -1 at the roots


def _dbt_trees(n: int) -> list[np.ndarray]:
    # NCCL's trees, except n = 3: there the shifted tree gives rank 2 the parent 0 in both trees,
    # so two chunks would share the 2 -> 0 link in one round; the mirrored tree avoids that.
    return _mirrored_btrees(n) if n == 3 else _nccl_double_binary_tree(n)


@functools.lru_cache(maxsize=4096)
def _dbt_levels(n: int) -> tuple[frozenset, frozenset]:
    """The (height, colour) pairs of the reduce phase and (depth - 1, colour) of the broadcast.

    A chunk ``c`` crosses edge ``(t, r)`` upwards in 2-port round ``c + height[r]`` and downwards
    in round ``R0 + c + depth[r] - 1``; these pairs are all the cost model needs to count the
    1-port sub-rounds that carry a message (:func:`ccb_helpers.algorithm_terms`).
    """
    trees = _dbt_trees(n)
    colour = _edge_colours(trees)
    up, down = set(), set()
    for t, parent in enumerate(trees):
        h, depth = _heights_depths(parent)
        has = parent != -1
        up |= set(zip(h[has].tolist(), colour[t][has].tolist()))
        down |= set(zip((depth[has] - 1).tolist(), colour[t][has].tolist()))
    return frozenset(up), frozenset(down)


@functools.lru_cache(maxsize=4096)
def _dbt_two_children(n: int) -> frozenset:
    """``(higher, lower)`` heights of the two children of every rank that has two, in either tree.

    With 2 ports such a rank receives both children's chunks in one reduce round, round ``r``
    with ``higher <= r <= lower + C - 1``: it then combines two chunks in that round (the γ term
    of :func:`ccb_helpers.algorithm_terms`).
    """
    pairs = set()
    for parent in _dbt_trees(n):
        h, _ = _heights_depths(parent)
        kids = np.nonzero(parent != -1)[0]
        order = np.argsort(parent[kids], kind="stable")
        kids = kids[order]
        owners = parent[kids]
        same = np.nonzero(owners[1:] == owners[:-1])[0]  # at most two children per rank
        for i in same.tolist():
            a, b = int(h[kids[i]]), int(h[kids[i + 1]])
            pairs.add((max(a, b), min(a, b)))
    return frozenset(pairs)
