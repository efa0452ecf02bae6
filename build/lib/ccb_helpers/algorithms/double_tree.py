"""The double binary tree AllReduce (Sanders, Speck & Träff 2009; NCCL): its pipelined cost model,
optimal chunk count, the 1-port rounds counted on the trees' edge colouring, and their caps."""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log2
from .._validation import INT64_MAX, check_bandwidth, check_cap, check_int, check_seconds, check_shapes, check_size
from ..double_binary_tree import _dbt_levels
from .core import MAX_CHUNKS, _Model


def optimal_chunks(n, m, alpha, beta):
    """Chunk count ``C`` minimising the pipelined double-binary-tree time.

    ``T(C) = 2 (H + C - 1) (alpha + M / (2 C beta))`` is convex in ``C``; its real minimiser is
    ``sqrt((H - 1) M / (2 alpha beta))``; the better neighbouring integer in
    ``[1, max(1, min(M // 2, 2**40))]`` is returned (a chunk holds at least one byte per tree;
    ``MAX_CHUNKS = 2**40`` caps the count). With ``alpha = 0`` (or ``alpha * beta`` below the
    smallest float) more chunks always help, so the cap is returned. Arrays broadcast.

    >>> optimal_chunks(16, 2**20, 5e-6, 25e9)   # sqrt(3 * 2**20 / 2.5e5) = 3.55; C = 4 beats C = 3
    4
    """
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    m = check_size("m", m)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    check_shapes(n=n, m=m, alpha=alpha, beta=beta, bytes_per_element=120)  # measured: 104
    return _optimal_chunks(n, m, alpha, beta)


def _optimal_chunks(n, m, alpha, beta):
    """:func:`optimal_chunks` on validated arguments, vectorised (Python int for scalars)."""
    scalar = not any(isinstance(x, np.ndarray) for x in (n, m, alpha, beta))
    height = np.asarray(ceil_log2(n), dtype=float)
    m, alpha, beta = (np.asarray(x, dtype=float) for x in (m, alpha, beta))
    cap = np.maximum(1.0, np.minimum(np.floor(m / 2), MAX_CHUNKS))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        best = np.sqrt((height - 1) * m / (2 * alpha * beta))  # inf when alpha * beta is 0 or underflows
    best = np.where(np.isfinite(best), best, cap)
    low = np.clip(np.floor(best), 1.0, cap)
    high = np.clip(np.ceil(best), 1.0, cap)

    def cost(c):
        return 2 * (height + c - 1) * (alpha + m / (2 * c * beta))

    chunks = np.where(cost(high) < cost(low), high, low)
    chunks = np.where((height <= 1) | (m == 0), 1.0, chunks).astype(np.int64)
    return int(chunks) if scalar else chunks


def _dbt_one_port_rounds(n, chunks, phases=(0, 1)):
    """Rounds of the 1-port double binary tree: the 1-port sub-rounds that carry a message.

    Each 2-port round splits into one sub-round per edge colour; a sub-round in which no edge of
    that colour is active (near the roots, where the two trees' top levels may share a colour)
    is dropped. Counted from the trees' (level, colour) pairs: for each phase and colour, the
    union of the intervals ``[level, level + C - 1]`` of rounds in which that level is busy.
    ``phases``: which phases to count (0 the reduce phase, 1 the broadcast phase).
    """

    def gaps(n_value: int) -> tuple[list[int], int]:
        # Per phase and colour, the gaps between consecutive busy levels (a busy level holds its
        # colour for C rounds) and how many (phase, colour) lists are not empty.
        found, lists = [], 0
        if n_value > 1:
            for phase, pairs in enumerate(_dbt_levels(n_value)):
                if phase not in phases:
                    continue
                for colour in (0, 1):
                    levels = sorted(level for level, c in pairs if c == colour)
                    found += [b - a for a, b in zip(levels, levels[1:])]
                    lists += bool(levels)
        return found, lists

    def count(n_value: int, c):
        found, lists = gaps(n_value)
        total = lists * c
        for gap in found:
            total = total + np.minimum(c, gap)
        return total

    if not isinstance(n, np.ndarray) and not isinstance(chunks, np.ndarray):
        return int(count(int(n), int(chunks)))
    n, chunks = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(chunks, dtype=np.int64))
    flat_n, flat_chunks = n.ravel(), chunks.ravel()
    out = np.empty(flat_n.shape, dtype=np.int64)
    # Group the elements by n once (a mask per distinct n made this O(elements x distinct n), #28).
    unique, inverse, sizes = np.unique(flat_n, return_inverse=True, return_counts=True)
    order = np.argsort(inverse.ravel(), kind="stable")
    for value, where in zip(unique.tolist(), np.split(order, np.cumsum(sizes)[:-1])):
        out[where] = count(value, flat_chunks[where])
    return out.reshape(n.shape)


#: Most work of the 1-port double binary tree's round counts in one call: the sum of the distinct
#: n > 1 (each costs O(n) to count on the trees, about 15 us per node here, then cached).
DBT_ONE_PORT_MAX_WORK = 2**19


#: Peak bytes of counting the trees' levels of each distinct n (then cached), the term of the
#: memory estimate besides the elements: per unit of that work (tracemalloc measures up to 346,
#: at n = 65536) and per distinct n (up to 4,000 for small n).
_DBT_BYTES_PER_WORK = 400
_DBT_BYTES_PER_TREE = 4096


def _dbt_distinct(n) -> np.ndarray:
    distinct = np.unique(n)
    return distinct[(distinct > 1) & (distinct <= DBT_ONE_PORT_MAX_N)]


def _dbt_work(n) -> int:
    return int(_dbt_distinct(n).sum(dtype=object))


def _dbt_memory(algorithm, n, ports) -> int:
    """Bytes the 1-port double binary tree's round counts take for an array ``n`` (0 otherwise)."""
    if algorithm != "double_binary_tree" or ports != 1 or not isinstance(n, np.ndarray):
        return 0
    distinct = _dbt_distinct(n)
    return _DBT_BYTES_PER_WORK * int(distinct.sum(dtype=object)) + _DBT_BYTES_PER_TREE * distinct.size


def _check_dbt_work(n) -> None:
    """Refuse, before any work, an array of n whose distinct 1-port trees would take too long."""
    if not isinstance(n, np.ndarray) or n.size <= 1:
        return
    work = _dbt_work(n)
    check_cap(
        "the 1-port double_binary_tree's rounds for every distinct n: sum of the distinct n",
        work,
        DBT_ONE_PORT_MAX_WORK,
        hint="use fewer distinct n, or ports=2 (closed form)",
    )


def _dbt_all_reduce(n, m, ports, opts):
    # Two binary trees of height H = ceil(log2 N), each carrying M/2; every rank is interior in
    # at most one tree. With 2 ports both trees run at once (an interior node receives from its
    # two children in the same round): reduce phase then broadcast phase, each pipelined over
    # C chunks of M/(2C), H + C - 1 rounds each. With 1 port (Sanders, Speck & Träff 2009) the
    # edges of both trees are coloured with two colours so that no node has two sends or two
    # receives of one colour; each 2-port round becomes two 1-port rounds, one per colour, and
    # the few that would carry nothing are dropped (just under 4 (H + C - 1) rounds).
    chunks = opts["chunks"] if opts.get("pipelined", True) else 1
    if ports == 1:
        rounds = _dbt_one_port_rounds(n, chunks)
    else:
        rounds = 2 * (ceil_log2(n) + chunks - 1)
    # Unpipelined (chunks = 1): 2H rounds of M/2 with 2 ports, the source's table row.
    return np.where(n > 1, rounds, 0), np.where(n > 1, rounds * m / (2 * chunks), 0.0)


def _dbt_two_port_reduce_chunks(n, chunks):
    """Chunks combined on the 2-port reduce phase's critical path: per round the most one rank adds.

    All ``H + C - 1`` reduce rounds carry a chunk; a rank with two children (or rank 0 of an odd
    ``n``, a parent in both trees) adds two in the rounds where both are busy. NCCL's trees leave
    only the last round single, and one more when the root's child has just one full subtree:
    ``2 (H + C - 1) - 1`` chunks, minus one for ``2^(H-1) + 2 <= n <= 2^(H-1) + 2^(H-2)`` (and
    for ``n = 2^(H-1) + 1`` with one chunk); ``n = 3`` (mirrored trees) adds ``2C``, ``n = 2`` ``C``.
    Counted on the trees for every ``n <= 4096`` in tests/test_algorithms.py.
    """
    height = np.asarray(ceil_log2(n), dtype=np.int64)
    half = np.left_shift(np.int64(1), np.maximum(height - 1, 0))
    units = 2 * (height + chunks - 1) - 1
    short = ((n >= half + 2) & (n <= half + half // 2)) | ((n == half + 1) & (chunks == 1))
    units = units - short
    units = np.where(n == 3, 2 * chunks, units)
    return np.where(n == 2, chunks, units)


def _dbt_reduced(n, m, ports, opts):
    # γ: a rank adds each chunk its children send up. With 1 port a sub-round carries one colour,
    # in which no rank receives twice: one chunk per reduce-phase round. With 2 ports a parent of
    # two adds two chunks in the rounds where both children are busy.
    chunks = opts["chunks"] if opts.get("pipelined", True) else 1
    if ports == 1:
        units = _dbt_one_port_rounds(n, chunks, phases=(0,))
    else:
        units = _dbt_two_port_reduce_chunks(n, chunks)
    return np.where(n > 1, units * m / (2 * chunks), 0.0)


def _with_gamma(beta, gamma):
    """The bandwidth that charges a received byte ``1 / beta + gamma`` (``beta`` itself when γ = 0)."""
    if np.ndim(gamma) == 0 and gamma == 0:
        return beta
    return 1.0 / (1.0 / np.asarray(beta, dtype=float) + gamma)


def _dbt_optimal_chunks(n, m, alpha, beta, gamma, ports):
    # γ is extra time per received byte in the rounds that add: with 2 ports about every round
    # (a parent of two adds two chunks while the other tree's chunks flow), with 1 port about half
    # of them (the reduce phase). Folded into β the closed form stays (and γ = 0 gives today's count).
    share = gamma if ports >= 2 else np.multiply(gamma, 0.5)
    return _optimal_chunks(n, m, alpha, _with_gamma(beta, share))


#: Largest N of the 1-port double binary tree model: its rounds are counted on the two trees and
#: their edge colouring (O(N), about 1 s at the cap here, then cached).
DBT_ONE_PORT_MAX_N = 65536


def _too_large(algorithm, n, ports):
    """Where the model refuses ``n`` (the 1-port double binary tree past its cap)."""
    return (algorithm == "double_binary_tree") & (ports == 1) & (np.asarray(n) > DBT_ONE_PORT_MAX_N)


DOUBLE_BINARY_TREE = {
    "all_reduce": _Model(
        _dbt_all_reduce,
        reference="Sanders, Speck & Träff 2009; NCCL 2.4",
        reduced=_dbt_reduced,
        optimal_chunks=_dbt_optimal_chunks,
    ),
}
