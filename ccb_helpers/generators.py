"""Schedule generators: every algorithm of :mod:`ccb_helpers.algorithms` as runnable rounds.

Each generator returns a :class:`~ccb_helpers.schedule.Schedule` whose rounds and per-node
bytes are exactly those of the algorithm's cost model (the tests run them for many ``n``).
Reductions are obtained from their copy duals by running the rounds backwards
(:meth:`Round.reversed`): a ReduceScatter is an AllGather in reverse, a Reduce a Broadcast in
reverse, a Gather a Scatter in reverse.
"""

from __future__ import annotations

import numpy as np

from ._intmath import ceil_log2, floor_log2
from ._validation import check_int
from .algorithms import _check_applicable, _model
from .schedule import Round, Schedule, block_bounds, buffers_for

__all__ = ["generate", "nccl_double_binary_tree", "knomial_tree"]


# --------------------------------------------------------------------------- helpers


class _Blocks:
    """Offsets and lengths of the ``parts`` blocks of an ``m``-byte buffer."""

    def __init__(self, m: int, parts: int):
        bounds = block_bounds(m, parts)
        self.offset = bounds[:-1]
        self.length = np.diff(bounds)


def _reverse(rounds: list[Round], reduce: bool) -> list[Round]:
    return [r.reversed(reduce) for r in reversed(rounds)]


def _rotate(rounds: list[Round], root: int, n: int) -> list[Round]:
    """Relabel nodes v -> (v + root) mod n (schedules written for root 0)."""
    if root == 0:
        return rounds
    return [
        Round((r.src + root) % n, (r.dst + root) % n, r.offset, r.length, r.reduce, r.buffer, r.dst_offset, r.dst_buffer)
        for r in rounds
    ]


# --------------------------------------------------------------------------- rings


def _ring_all_gather(n: int, m: int) -> list[Round]:
    blocks = _Blocks(m, n)
    nodes = np.arange(n)
    rounds = []
    for s in range(n - 1):
        blk = (nodes - s) % n
        rounds.append(Round(nodes, (nodes + 1) % n, blocks.offset[blk], blocks.length[blk]))
    return rounds


def _biring_all_gather(n: int, m: int) -> list[Round]:
    if n <= 2:
        return _ring_all_gather(n, m)
    blocks = _Blocks(m, n)
    nodes = np.arange(n)
    rounds = []
    for s in range(1, n // 2 + 1):
        cw = (nodes - s + 1) % n  # travelling clockwise, reaches node i + s
        ccw = (nodes + s - 1) % n  # travelling counter-clockwise
        if n % 2 == 0 and s == n // 2:
            # The antipodal block: first half arrives clockwise, second half counter-clockwise.
            half_cw = blocks.length[cw] // 2
            half_ccw = blocks.length[ccw] // 2
            rounds.append(
                Round(
                    np.concatenate([nodes, nodes]),
                    np.concatenate([(nodes + 1) % n, (nodes - 1) % n]),
                    np.concatenate([blocks.offset[cw], blocks.offset[ccw] + half_ccw]),
                    np.concatenate([half_cw, blocks.length[ccw] - half_ccw]),
                )
            )
        else:
            rounds.append(
                Round(
                    np.concatenate([nodes, nodes]),
                    np.concatenate([(nodes + 1) % n, (nodes - 1) % n]),
                    np.concatenate([blocks.offset[cw], blocks.offset[ccw]]),
                    np.concatenate([blocks.length[cw], blocks.length[ccw]]),
                )
            )
    return rounds


# --------------------------------------------------------------------------- trees


def knomial_tree(n: int, k: int = 1) -> list[list[tuple[int, int]]]:
    """Rounds of the k-nomial broadcast tree from node 0: ``[(parent, child), ...]`` per round.

    In round ``t`` every informed node ``v < (k+1)**t`` sends to ``v + j (k+1)**t``, ``j = 1..k``.

    >>> knomial_tree(5)
    [[(0, 1)], [(0, 2), (1, 3)], [(0, 4)]]
    >>> knomial_tree(9, k=2)
    [[(0, 1), (0, 2)], [(0, 3), (0, 6), (1, 4), (1, 7), (2, 5), (2, 8)]]
    """
    rounds = []
    span = 1
    while span < n:
        edges = [(v, v + j * span) for v in range(span) for j in range(1, k + 1) if v + j * span < n]
        rounds.append(edges)
        span *= k + 1
    return rounds


def _tree_broadcast(n: int, m: int, k: int) -> list[Round]:
    rounds = []
    for edges in knomial_tree(n, k):
        parents, children = np.array(edges).T
        rounds.append(Round(parents, children, 0, m))
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
    def btree_parent(rank: int) -> int:
        if rank == 0:
            return -1
        bit = rank & -rank
        up = (rank ^ bit) | (bit << 1)
        if up >= n:
            up = rank ^ bit
        return up

    tree0 = np.array([btree_parent(r) for r in range(n)], dtype=np.int64)
    tree1 = np.full(n, -1, dtype=np.int64)
    for r in range(n):
        if n % 2:
            u = btree_parent((r - 1) % n)
            tree1[r] = -1 if u == -1 else (u + 1) % n
        else:
            u = btree_parent(n - 1 - r)
            tree1[r] = -1 if u == -1 else n - 1 - u
    return [tree0, tree1]


def _heights_depths(parent: np.ndarray):
    n = parent.size
    depth = np.zeros(n, dtype=np.int64)
    for r in range(n):
        d, v = 0, r
        while parent[v] != -1:
            v = parent[v]
            d += 1
        depth[r] = d
    height = np.zeros(n, dtype=np.int64)
    for r in np.argsort(-depth):  # deepest first: children before parents
        if parent[r] != -1:
            height[parent[r]] = max(height[parent[r]], height[r] + 1)
    return height, depth


def _mirrored_btrees(n: int):
    tree0 = nccl_double_binary_tree(n)[0]
    mirror = np.array([-1 if tree0[n - 1 - r] == -1 else n - 1 - tree0[n - 1 - r] for r in range(n)], dtype=np.int64)
    return [tree0, mirror]


def _double_binary_tree(n: int, m: int, chunks: int) -> list[Round]:
    # NCCL's trees, except n = 3: there the shifted tree gives rank 2 the parent 0 in both trees,
    # so two chunks would share the 2 -> 0 link in one round; the mirrored tree avoids that.
    trees = _mirrored_btrees(n) if n == 3 else nccl_double_binary_tree(n)
    halves = block_bounds(m, 2)
    height = ceil_log2(n)
    total_rounds = 2 * (height + chunks - 1)
    pieces = [[] for _ in range(total_rounds)]  # (src, dst, offset, length, reduce)
    reduce_rounds = height + chunks - 1
    for t, parent in enumerate(trees):
        base = halves[t]
        chunk = block_bounds(int(halves[t + 1] - halves[t]), chunks)
        h, depth = _heights_depths(parent)
        for c in range(chunks):
            off, length = base + chunk[c], chunk[c + 1] - chunk[c]
            for r in range(n):
                if parent[r] != -1:
                    # Reduce phase: a node of height l sends chunk c up in round c + l.
                    pieces[c + h[r]].append((r, parent[r], off, length, True))
                    # Broadcast phase: its parent (depth d - 1) sends chunk c down in round R0 + c + d - 1.
                    pieces[reduce_rounds + c + depth[r] - 1].append((parent[r], r, off, length, False))
    rounds = []
    for items in pieces:
        src, dst, off, length, red = (np.array(col) for col in zip(*items)) if items else ([],) * 5
        rounds.append(Round(src, dst, off, length, red) if items else Round.empty())
    return rounds


# --------------------------------------------------------------------------- recursive algorithms


def _halving_reduce_scatter(p: int, m: int, ranks: np.ndarray) -> list[Round]:
    """Recursive halving on ``p`` (a power of two) ranks ``ranks[0..p-1]``: rank v ends with block v of p."""
    blocks = _Blocks(m, p)
    lo = np.zeros(p, dtype=np.int64)
    hi = np.full(p, p, dtype=np.int64)
    v = np.arange(p)
    rounds = []
    d = p // 2
    while d >= 1:
        partner = v ^ d
        mid = (lo + hi) // 2
        upper = (v & d) != 0
        send_lo = np.where(upper, lo, mid)  # an upper node keeps [mid, hi) and sends [lo, mid)
        send_hi = np.where(upper, mid, hi)
        off = blocks.offset[send_lo]
        length = np.append(blocks.offset, m)[send_hi] - off
        rounds.append(Round(ranks[v], ranks[partner], off, length, True))
        lo, hi = np.where(upper, mid, lo), np.where(upper, hi, mid)
        d //= 2
    return rounds


def _doubling_all_gather(p: int, m: int, ranks: np.ndarray) -> list[Round]:
    """Recursive doubling on ``p`` ranks: rank v starts with block v of p and ends with all."""
    blocks = _Blocks(m, p)
    ends = np.append(blocks.offset, m)
    v = np.arange(p)
    rounds = []
    d = 1
    while d < p:
        start = v & ~(d - 1)  # aligned group of d blocks this rank holds
        off = blocks.offset[start]
        rounds.append(Round(ranks[v], ranks[v ^ d], off, ends[start + d] - off))
        d *= 2
    return rounds


def _doubling_all_reduce(p: int, m: int, ranks: np.ndarray) -> list[Round]:
    v = np.arange(p)
    rounds = []
    d = 1
    while d < p:
        rounds.append(Round(ranks[v], ranks[v ^ d], 0, m, True))
        d *= 2
    return rounds


def _fold(n: int, m: int, core):
    """MPICH's non-power-of-two wrapper: fold r = n - 2^floor(log2 n) ranks in, run ``core`` on 2^floor, unfold.

    Among the first 2r ranks each even rank hands its whole buffer to the odd rank after it
    (one round of M) and sits out; the remaining 2^floor ranks run ``core``; the odd ranks then
    send the result back (one round of M).
    """
    p = 1 << floor_log2(n)
    r = n - p
    if r == 0:
        return core(p, m, np.arange(n))
    evens = np.arange(0, 2 * r, 2)
    active = np.concatenate([np.arange(1, 2 * r, 2), np.arange(2 * r, n)])
    return [Round(evens, evens + 1, 0, m, True), *core(p, m, active), Round(evens + 1, evens, 0, m, False)]


def _bruck_all_gather(n: int, m: int) -> list[Round]:
    # Round b: node i sends the blocks i, ..., i + min(2^b, n - 2^b) - 1 it holds to node i - 2^b.
    blocks = _Blocks(m, n)
    nodes = np.arange(n)
    rounds = []
    span = 1
    while span < n:
        count = min(span, n - span)
        src = np.repeat(nodes, count)
        blk = (src + np.tile(np.arange(count), n)) % n
        rounds.append(Round(src, (src - span) % n, blocks.offset[blk], blocks.length[blk]))
        span *= 2
    return rounds


def _bruck_all_to_all(n: int, m: int):
    if m % n:
        raise ValueError(f"bruck all_to_all needs m divisible by n (equal blocks in the rotated work buffer), got m={m}, n={n}")
    size = m // n
    send, recv, work = 0, 1, 2
    nodes = np.repeat(np.arange(n), n)
    slot = np.tile(np.arange(n), n)
    # Prologue: work_i[slot j] = send_i[block i + j].
    prologue = Round(nodes, nodes, ((nodes + slot) % n) * size, size, False, send, slot * size, work)
    rounds = []
    b = 0
    while (1 << b) < n:
        slots = np.array([j for j in range(n) if j >> b & 1], dtype=np.int64)
        src = np.repeat(np.arange(n), slots.size)
        sl = np.tile(slots, n)
        rounds.append(Round(src, (src + (1 << b)) % n, sl * size, size, False, work))
        b += 1
    # Epilogue: slot j at node d holds the block from source d - j.
    epilogue = Round(nodes, nodes, slot * size, size, False, work, ((nodes - slot) % n) * size, recv)
    return prologue, rounds, epilogue


def _pairwise_all_to_all(n: int, m: int):
    if m % n:  # block j of node i fills block i of node j: unequal blocks do not fit (as for bruck)
        raise ValueError(f"pairwise all_to_all needs m divisible by n (equal blocks), got m={m}, n={n}")
    blocks = _Blocks(m, n)
    nodes = np.arange(n)
    send, recv = 0, 1
    prologue = Round(nodes, nodes, blocks.offset, blocks.length, False, send, blocks.offset, recv)
    rounds = []
    for s in range(1, n):
        dst = (nodes + s) % n
        rounds.append(Round(nodes, dst, blocks.offset[dst], blocks.length[dst], False, send, blocks.offset[nodes], recv))
    return prologue, rounds


# --------------------------------------------------------------------------- dispatch


def generate(algorithm, primitive, n, m, ports=1, root=0, chunks=None, pipelined=True) -> Schedule:
    """The schedule of ``algorithm`` for ``primitive`` on ``n`` nodes and ``m`` bytes.

    Parameters
    ----------
    algorithm, primitive : str
        As in :func:`ccb_helpers.algorithm_terms` (same names, same conditions).
    n : int
        Nodes, ``n >= 1``.
    m : int
        Message size in bytes (the book's buffer conventions).
    ports : int, default 1
        ``binomial_tree`` broadcast / reduce / all_reduce use a ``ports``-nomial tree.
    root : int, default 0
        Root of rooted primitives.
    chunks : int, optional
        Pipeline chunks per tree for ``double_binary_tree`` (default 1 when ``pipelined=False``,
        else 4).
    pipelined : bool, default True
        ``double_binary_tree`` only; ``False`` is the same as ``chunks=1``.

    Examples
    --------
    >>> s = generate("ring", "all_gather", 3, 6)
    >>> print(s)
    all_gather on 3 nodes, 6 B, 2 rounds (ring)
    round 1: 1.data[0:2] <- 0.data[0:2]; 2.data[2:4] <- 1.data[2:4]; 0.data[4:6] <- 2.data[4:6]
    round 2: 1.data[4:6] <- 0.data[4:6]; 2.data[0:2] <- 1.data[0:2]; 0.data[2:4] <- 2.data[2:4]
    """
    model = _model(algorithm, primitive)
    n = check_int("n", n, minimum=1)
    m = check_int("m", m, minimum=0)
    ports = check_int("ports", ports, minimum=1)
    root = check_int("root", root, minimum=0, maximum=n - 1)
    _check_applicable(algorithm, model, n, ports)
    if algorithm != "double_binary_tree" and (chunks is not None or not pipelined):
        raise ValueError("chunks and pipelined apply only to double_binary_tree")
    buffers = buffers_for(primitive)
    prologue = epilogue = Round.empty()
    if n == 1:
        rounds: list[Round] = []
    elif algorithm == "ring":
        ag = _ring_all_gather(n, m)
        rounds = {"all_gather": ag, "reduce_scatter": _reverse(ag, True), "all_reduce": _reverse(ag, True) + ag}[primitive]
    elif algorithm == "bidirectional_ring":
        ag = _biring_all_gather(n, m)
        rounds = {"all_gather": ag, "reduce_scatter": _reverse(ag, True), "all_reduce": _reverse(ag, True) + ag}[primitive]
    elif algorithm == "binomial_tree":
        if primitive in ("scatter", "gather"):
            scatter = _binomial_scatter(n, m, root)
            rounds = scatter if primitive == "scatter" else _reverse(scatter, False)
        else:
            bcast = _rotate(_tree_broadcast(n, m, ports), root, n)
            rounds = {"broadcast": bcast, "reduce": _reverse(bcast, True), "all_reduce": _reverse(bcast, True) + bcast}[primitive]
    elif algorithm == "double_binary_tree":
        if chunks is None:
            chunks = 4 if pipelined else 1
        chunks = check_int("chunks", chunks, minimum=1)
        if not pipelined and chunks != 1:
            raise ValueError("the unpipelined double_binary_tree uses one chunk; drop chunks or set pipelined=True")
        rounds = _double_binary_tree(n, m, chunks)
    elif algorithm == "recursive_halving_doubling":
        if primitive == "reduce_scatter":
            rounds = _halving_reduce_scatter(n, m, np.arange(n))
        else:
            rounds = _fold(n, m, lambda p, mm, ranks: _halving_reduce_scatter(p, mm, ranks) + _doubling_all_gather(p, mm, ranks))
    elif algorithm == "recursive_doubling":
        if primitive == "all_gather":
            rounds = _doubling_all_gather(n, m, np.arange(n))
        else:
            rounds = _fold(n, m, _doubling_all_reduce)
    elif algorithm == "bruck":
        if primitive == "all_gather":
            rounds = _bruck_all_gather(n, m)
        else:
            prologue, rounds, epilogue = _bruck_all_to_all(n, m)
            buffers = buffers + ("work",)
    elif algorithm == "pairwise":
        prologue, rounds = _pairwise_all_to_all(n, m)
    elif algorithm == "scatter_allgather":
        rounds = _binomial_scatter(n, m, root) + _ring_all_gather(n, m)
    else:  # pragma: no cover - ALGORITHMS and this dispatch are kept in step by the tests
        raise AssertionError(algorithm)
    if n == 1 and primitive == "all_to_all":
        prologue = Round([0], [0], 0, m, False, 0, 0, 1)
    return Schedule(primitive, n, m, rounds, buffers, root, algorithm, prologue, epilogue)
