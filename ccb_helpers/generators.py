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
from ._validation import check_bool, check_cap, check_int, check_memory
from .algorithms import MAX_CHUNKS, _check_applicable, _model, _terms
from .double_binary_tree import _dbt_trees, _edge_colours, _heights_depths, _nccl_double_binary_tree
from .schedule import MAX_BUFFER_BYTES, Round, Schedule, _block_bounds, buffers_for

__all__ = ["generate", "nccl_double_binary_tree", "knomial_tree"]

#: Most transfers (pieces) a generated schedule may hold (~60 bytes and ~1 microsecond each).
MAX_TRANSFERS = 2**21
#: Most rounds a generated schedule may have (each round costs the simulator ~0.3 ms).
MAX_ROUNDS = 2**13
#: Most nodes of :func:`knomial_tree` and :func:`nccl_double_binary_tree` (Python lists / loops).
MAX_TREE_NODES = 2**20
#: Peak bytes per node of those two: tracemalloc measured 106-128 for the k-nomial tree's tuples
#: and 57 for the double binary tree's arrays (2**18 nodes); 256 MiB at the cap.
_TREE_BYTES_PER_NODE = 256


def _tree_memory(n: int) -> int:
    return _TREE_BYTES_PER_NODE * n + 2**16


#: Peak bytes per transfer while a schedule is generated (its rounds' columns and the lists they
#: are built from): tracemalloc measured 53-185 per transfer (ring, pairwise, Bruck, binomial,
#: double binary tree), the small schedules' fixed costs included. At the cap: 512 MiB.
BYTES_PER_GENERATED_TRANSFER = 256
#: And per round (its arrays' headers), plus 1 MiB.
_BYTES_PER_GENERATED_ROUND = 1024


def _generate_memory(rounds: int, transfers: int) -> int:
    """Estimated peak bytes of generating a schedule of ``rounds`` and ``transfers``."""
    return BYTES_PER_GENERATED_TRANSFER * transfers + _BYTES_PER_GENERATED_ROUND * rounds + 2**20


# --------------------------------------------------------------------------- helpers


class _Blocks:
    """Offsets and lengths of the ``parts`` blocks of an ``m``-byte buffer."""

    def __init__(self, m: int, parts: int):
        bounds = _block_bounds(m, parts)
        self.offset = bounds[:-1]
        self.length = np.diff(bounds)


def _reverse(rounds: list[Round], reduce: bool) -> list[Round]:
    return [r.reversed(reduce) for r in reversed(rounds)]


def _rotate(rounds: list[Round], root: int, n: int) -> list[Round]:
    """Relabel nodes v -> (v + root) mod n (schedules written for root 0)."""
    if root == 0:
        return rounds
    return [
        Round(
            (r.src + root) % n, (r.dst + root) % n, r.offset, r.length, r.reduce, r.buffer, r.dst_offset, r.dst_buffer
        )
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


def _ordered_halving_doubling(p: int, m: int, ranks: np.ndarray, order: list[int], base: int) -> list[Round]:
    """Recursive halving then doubling on bytes ``[base, base + m)``, dimensions in ``order``.

    Round ``t`` of the reduce-scatter pairs rank ``v`` with ``v ^ 2**order[t]``; the rank whose
    bit is set keeps the upper half of its current range and sends the lower half. The
    all-gather retraces the same dimensions backwards, sending the whole current range.
    """
    blocks = _Blocks(m, p)
    ends = np.append(blocks.offset, m)
    v = np.arange(p)
    lo = np.zeros(p, dtype=np.int64)
    hi = np.full(p, p, dtype=np.int64)
    halving, history = [], []
    for dim in order:
        partner = v ^ (1 << dim)
        mid = (lo + hi) // 2
        upper = (v >> dim & 1) == 1
        send_lo, send_hi = np.where(upper, lo, mid), np.where(upper, mid, hi)
        off = ends[send_lo]
        halving.append(Round(ranks[v], ranks[partner], base + off, ends[send_hi] - off, True))
        history.append((lo.copy(), hi.copy()))
        lo, hi = np.where(upper, mid, lo), np.where(upper, hi, mid)
    doubling = []
    for dim in reversed(order):
        off = ends[lo]
        doubling.append(Round(ranks[v], ranks[v ^ (1 << dim)], base + off, ends[hi] - off))
        lo, hi = history.pop()
    return halving + doubling


def _two_port_rhd(p: int, m: int, ranks: np.ndarray) -> list[Round]:
    """RHD on two halves at once; the second half's dimension order is shifted by one."""
    dims = p.bit_length() - 1
    order = list(range(dims - 1, -1, -1))  # high bit first, as the 1-port RHD
    shifted = order[1:] + order[:1]
    half = m // 2
    first = _ordered_halving_doubling(p, half, ranks, order, 0)
    second = _ordered_halving_doubling(p, m - half, ranks, shifted, half)
    return [Round.concat([a, b]) for a, b in zip(first, second)]


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
    size = m // n  # m % n == 0 (checked by generate)
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
        rounds.append(
            Round(nodes, dst, blocks.offset[dst], blocks.length[dst], False, send, blocks.offset[nodes], recv)
        )
    return prologue, rounds


# --------------------------------------------------------------------------- dispatch


def schedule_size(algorithm: str, primitive: str, n: int, ports: int, chunks: int) -> tuple[int, int]:
    """(rounds, transfers) of the generated schedule, from closed forms (transfers: an upper bound)."""
    if n == 1:
        return 0, 1 if primitive == "all_to_all" else 0
    pipelined = chunks is not None
    rounds = int(_terms(algorithm, primitive, n, 0.0, ports, chunks, pipelined).steps)
    levels = ceil_log2(n)
    p = 1 << floor_log2(n)
    fold = 2 * (n - p)
    if algorithm in ("ring", "bidirectional_ring"):
        per_phase = n * (n - 1) if algorithm == "ring" or n <= 2 else 2 * n * (n // 2)
        transfers = per_phase * (2 if primitive == "all_reduce" else 1)
    elif algorithm == "binomial_tree":
        transfers = (
            n * levels if primitive in ("scatter", "gather") else (n - 1) * (2 if primitive == "all_reduce" else 1)
        )
    elif algorithm == "double_binary_tree":
        transfers = 4 * (chunks or 1) * (n - 1)
    elif algorithm == "recursive_halving_doubling":
        transfers = n * levels if primitive == "reduce_scatter" else fold + 2 * p * floor_log2(n)
    elif algorithm == "recursive_halving_doubling_2port":  # two halves, each a full RHD (fold twice: a bound)
        transfers = 2 * (2 * fold + 2 * p * floor_log2(n))
    elif algorithm == "recursive_doubling":
        transfers = n * levels if primitive == "all_gather" else fold + p * floor_log2(n)
    elif algorithm == "bruck":
        transfers = n * (n - 1) if primitive == "all_gather" else 2 * n * n + n * (n // 2 + 1) * levels
    elif algorithm == "pairwise":
        transfers = n * n
    else:  # scatter_allgather
        transfers = n * levels + n * (n - 1)
    return rounds, transfers


def _check_generate(algorithm, primitive, n, m, ports, root, chunks, pipelined):
    """Validate :func:`generate`'s arguments and its caps; return them normalised (chunks resolved)."""
    model = _model(algorithm, primitive)
    n = check_int("n", n, minimum=1, maximum=MAX_BUFFER_BYTES, scalar=True)
    m = check_int("m", m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
    ports = check_int("ports", ports, minimum=1, scalar=True)
    root = check_int("root", root, minimum=0, maximum=n - 1, scalar=True)
    pipelined = check_bool("pipelined", pipelined)
    _check_applicable(algorithm, model, n, ports)
    if algorithm != "double_binary_tree":
        if chunks is not None or not pipelined:
            raise ValueError("chunks and pipelined apply only to double_binary_tree")
    else:
        if chunks is None:
            chunks = 4 if pipelined else 1
        chunks = check_int("chunks", chunks, minimum=1, maximum=MAX_CHUNKS, scalar=True)
        if not pipelined and chunks != 1:
            raise ValueError("the unpipelined double_binary_tree uses one chunk; drop chunks or set pipelined=True")
    if primitive == "all_to_all" and m % n:
        raise ValueError(
            f"all_to_all needs m divisible by n (block j of node i fills block i of node j, so the "
            f"blocks must be equal), got m={m}, n={n}"
        )
    rounds, transfers = schedule_size(algorithm, primitive, n, ports, chunks)
    what = f"{algorithm} {primitive} on n={n}" + (f" with chunks={chunks}" if chunks is not None else "")
    check_cap(f"schedule of {what}: rounds", rounds, MAX_ROUNDS)
    check_cap(f"schedule of {what}: transfers", transfers, MAX_TRANSFERS)
    return n, m, ports, root, chunks, rounds, transfers


def generate(algorithm, primitive, n, m, ports=1, root=0, chunks=None, pipelined=True) -> Schedule:
    """The schedule of ``algorithm`` for ``primitive`` on ``n`` nodes and ``m`` bytes.

    Parameters
    ----------
    algorithm, primitive : str
        As in :func:`ccb_helpers.algorithm_terms` (same names, same conditions).
    n : int
        Nodes, ``n >= 1``.
    m : int
        Message size in bytes (the book's buffer conventions), ``0 <= m <= 2**62``; for
        ``all_to_all`` a multiple of ``n`` (equal blocks).
    ports : int, default 1
        ``binomial_tree`` broadcast / reduce / all_reduce use a ``ports``-nomial tree.
    root : int, default 0
        Root of rooted primitives.
    chunks : int, optional
        Pipeline chunks per tree for ``double_binary_tree`` (default 1 when ``pipelined=False``,
        else 4).
    pipelined : bool, default True
        ``double_binary_tree`` only; ``False`` is the same as ``chunks=1``.

    Notes
    -----
    Caps, checked from closed forms before any round is built: at most ``MAX_ROUNDS = 2**13``
    rounds and ``MAX_TRANSFERS = 2**21`` transfers (e.g. a ring AllReduce up to 1024 nodes, a
    double binary tree with ``4 chunks (n - 1) <= 2**21``); each costs the simulator time. The
    memory, ``BYTES_PER_GENERATED_TRANSFER = 256`` bytes a transfer (512 MiB at the cap), is
    checked against ``_validation.COUNT_CAP_MAX_BYTES`` before the first round.

    Examples
    --------
    >>> s = generate("ring", "all_gather", 3, 6)
    >>> print(s)
    all_gather on 3 nodes, 6 B, 2 rounds (ring)
    round 1: 1.data[0:2] <- 0.data[0:2]; 2.data[2:4] <- 1.data[2:4]; 0.data[4:6] <- 2.data[4:6]
    round 2: 1.data[4:6] <- 0.data[4:6]; 2.data[0:2] <- 1.data[0:2]; 0.data[2:4] <- 2.data[2:4]
    """
    n, m, ports, root, chunks, rounds, transfers = _check_generate(
        algorithm, primitive, n, m, ports, root, chunks, pipelined
    )
    check_memory(f"n: the schedule of {algorithm} {primitive} on n={n}", _generate_memory(rounds, transfers))
    return _generate(algorithm, primitive, n, m, ports, root, chunks)


def _generate(algorithm, primitive, n, m, ports, root, chunks) -> Schedule:
    buffers = buffers_for(primitive)
    prologue = epilogue = Round.empty()
    if n == 1:
        rounds: list[Round] = []
    elif algorithm == "ring":
        ag = _ring_all_gather(n, m)
        rounds = {"all_gather": ag, "reduce_scatter": _reverse(ag, True), "all_reduce": _reverse(ag, True) + ag}[
            primitive
        ]
    elif algorithm == "bidirectional_ring":
        ag = _biring_all_gather(n, m)
        rounds = {"all_gather": ag, "reduce_scatter": _reverse(ag, True), "all_reduce": _reverse(ag, True) + ag}[
            primitive
        ]
    elif algorithm == "binomial_tree":
        if primitive in ("scatter", "gather"):
            scatter = _binomial_scatter(n, m, root)
            rounds = scatter if primitive == "scatter" else _reverse(scatter, False)
        else:
            bcast = _rotate(_tree_broadcast(n, m, ports), root, n)
            rounds = {"broadcast": bcast, "reduce": _reverse(bcast, True), "all_reduce": _reverse(bcast, True) + bcast}[
                primitive
            ]
    elif algorithm == "double_binary_tree":
        rounds = _double_binary_tree(n, m, chunks, ports)
    elif algorithm == "recursive_halving_doubling":
        if primitive == "reduce_scatter":
            rounds = _halving_reduce_scatter(n, m, np.arange(n))
        else:
            rounds = _fold(
                n, m, lambda p, mm, ranks: _halving_reduce_scatter(p, mm, ranks) + _doubling_all_gather(p, mm, ranks)
            )
    elif algorithm == "recursive_halving_doubling_2port":
        rounds = _fold(n, m, _two_port_rhd)
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
