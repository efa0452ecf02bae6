"""Pipelined chain and pipelined binary tree: Broadcast and Reduce in ``s`` segments (cost models).

Cutting ``M`` into ``s`` equal segments lets every link of a tree carry a segment while the next
one follows; a round costs ``alpha + M / (s beta)``. Each algorithm's rounds are ``A + B s``
(``A`` rounds to fill the pipeline, ``B`` rounds per segment at its busiest node), so

.. math:: T(s) = (A + B s)\\left(\\alpha + \\frac{M}{s\\beta}\\right), \\qquad
          s^* = \\sqrt{\\frac{A M}{B \\alpha \\beta}}, \\qquad
          T(s^*) = \\left(\\sqrt{A\\alpha} + \\sqrt{B M / \\beta}\\right)^2

(``eq:cc-pipeline-optimum``; ``T`` is convex in ``s``, so the best whole count is the floor or the
ceiling of ``s*``). For a Reduce every received segment is also added: with one segment added a
round (chain, 1-port tree) ``1/beta`` becomes ``1/beta + gamma`` in both formulas; the 2-port
tree adds two a round (see :func:`optimal_segments`).

* **Chain** ``root -> root+1 -> ... -> root+N-1``: ``A = N - 2``, ``B = 1``. ``T* = (sqrt((N-2) alpha)
  + sqrt(M / beta))^2``: the bandwidth term of the bound, ``M / beta``, with ``N - 2`` rounds of
  latency instead of ``ceil(log2 N)``. One port is enough (a node receives from its predecessor
  while it sends to its successor); more ports do not help it.
* **Binary tree** (heap order: node ``v`` of the rotated labels has children ``2v + 1`` and
  ``2v + 2``), ``N >= 3``. With **one port** a parent sends each segment to its first child, then
  its second: a segment reaches node ``v`` after ``depth(v) + rights(v)`` rounds (a second child
  waits one more), ``A = D2 - 2`` with ``D2 = max_v (depth + rights)`` and ``B = 2``: the bandwidth
  term doubles to ``2 M / beta``, since every interior node sends each byte twice. With **two
  ports** both children get the segment in the same round: ``A = H - 1`` (``H = floor(log2 N)``, the
  depth), ``B = 1``, ``T* = (sqrt((H-1) alpha) + sqrt(M / beta))^2`` against the 2-port bound's
  ``M / (2 beta)``. ``N = 2`` is the chain.

None attains both terms of the bound at once: the chain pays ``N - 2`` rounds, the 1-port tree
twice the bytes, and even at the best ``s`` the cross term ``2 sqrt(A alpha B M / beta)`` remains.
The double binary tree (:mod:`.double_tree`) gives each rank one interior role so that the two
trees together move ``M`` once per rank (for AllReduce); Bruck's algorithms
(:mod:`.bruck`) move ``(N-1) M / N`` in ``ceil(log2 N)`` rounds, not pipelined at all.
"""

from __future__ import annotations

import numpy as np

from .._intmath import floor_log2
from .._validation import check_bandwidth, check_choice, check_int, check_seconds, check_shapes, check_size
from ..primitives import check_primitive
from .core import MAX_CHUNKS, MAX_NODES, _Model

__all__ = ["optimal_segments", "pipeline_constants", "one_port_tree_depth"]


def _one_port_tree_depth(n):
    """``D2 = max over nodes (depth + right edges on the path)`` of the heap tree on ``n >= 2`` nodes.

    Node ``v`` is ``x = v + 1`` in binary: depth ``bitlen(x) - 1``, right edges ``popcount(x) - 1``.
    The most of ``bitlen + popcount`` over ``2 <= x <= n``: ``x = n``; ``n`` with one of its set
    bits ``p`` (below the leading one) cleared and every bit below it set; or ``2^(L-1) - 1``.
    One pass from the top bit down, a few arrays of ``n``'s shape (no numpy 2 ``bitwise_count``).
    """
    n = np.asarray(n, dtype=np.int64)
    length = floor_log2(np.maximum(n, 1)) + 1
    above = np.zeros_like(n)  # set bits of n above bit p
    best = 2 * length - 4
    for p in range(62, -1, -1):
        bit = (n >> p) & 1
        best = np.where((bit == 1) & (p < length - 1), np.maximum(best, length - 2 + above + p), best)
        above += bit
    return np.maximum(best, length - 2 + above)


def one_port_tree_depth(n):
    """Rounds for one segment to reach every node of the 1-port pipelined binary tree: ``D2``.

    ``D2 = max_v (depth(v) + rights(v))`` on the heap-ordered binary tree of ``n`` nodes (a second
    child is served one round after the first). ``n = 2**h - 1``: ``2 (h - 1)``.

    >>> one_port_tree_depth(7), one_port_tree_depth(8), one_port_tree_depth(12)
    (4, 4, 5)
    """
    n = check_int("n", n, minimum=2, maximum=MAX_NODES)
    check_shapes(n=n, bytes_per_element=128)
    value = _one_port_tree_depth(n)
    return int(value) if np.ndim(value) == 0 and not isinstance(n, np.ndarray) else value


def _pipeline(algorithm, n, ports):
    """``(A, B)``: rounds ``A + B s`` of ``s`` segments (N = 2 is the chain for both)."""
    n = np.asarray(n, dtype=np.int64)
    if algorithm == "pipelined_chain":
        return n - 2, np.ones_like(n)
    if ports >= 2:
        fill, per = floor_log2(n) - 1, 1
    else:
        fill, per = _one_port_tree_depth(n) - 2, 2
    return np.where(n == 2, 0, fill), np.where(n == 2, 1, per)


def pipeline_constants(algorithm, n, ports=1):
    """``(A, B)`` of a pipelined algorithm: it runs ``A + B s`` rounds of one segment ``M / s``.

    Chain: ``(N - 2, 1)``; binary tree: ``(D2 - 2, 2)`` with one port (:func:`one_port_tree_depth`),
    ``(floor(log2 N) - 1, 1)`` with two or more; ``N = 2``: ``(0, 1)``.

    >>> pipeline_constants("pipelined_chain", 8), pipeline_constants("pipelined_binary_tree", 7)
    ((6, 1), (2, 2))
    >>> pipeline_constants("pipelined_binary_tree", 7, ports=2)
    (1, 1)
    """
    algorithm = check_choice("algorithm", algorithm, ("pipelined_chain", "pipelined_binary_tree"))
    n = check_int("n", n, minimum=2, maximum=MAX_NODES)
    ports = check_int("ports", ports, minimum=1, scalar=True)
    check_shapes(n=n, bytes_per_element=128)
    fill, per = _pipeline(algorithm, n, ports)
    if not isinstance(n, np.ndarray):
        return int(fill), int(per)
    return fill, per


def _chain_terms(n, m, ports, opts):
    chunks = opts["chunks"]
    fill, per = _pipeline("pipelined_chain", n, ports)
    rounds = fill + per * chunks
    return rounds, rounds * (m / chunks)


def _tree_terms(n, m, ports, opts):
    chunks = opts["chunks"]
    fill, per = _pipeline("pipelined_binary_tree", n, ports)
    rounds = fill + per * chunks
    return rounds, rounds * (m / chunks)


def _chain_reduced(n, m, ports, opts):
    # Every round some node adds one segment (one predecessor each).
    rounds, volume = _chain_terms(n, m, ports, opts)
    return volume


def _tree_reduced(n, m, ports, opts):
    # One port: one segment a round (one sender a round). Two ports: a parent of two adds both
    # children's segments in one round; every round has such a parent busy except, when the last
    # level holds a single node (N = 2^H), the last round; N = 2 is the chain.
    rounds, volume = _tree_terms(n, m, ports, opts)
    if ports == 1:
        return volume
    n = np.asarray(n, dtype=np.int64)
    single_last = (n >= 4) & (n == 2 ** floor_log2(n))
    units = np.where(n == 2, rounds, 2 * rounds - single_last)
    return units * (m / opts["chunks"])


def _reduce_fill(algorithm, n, ports):
    """``C``: the segments a Reduce adds over the pipeline fill, its reduced bytes being ``(C + D s) M / s``.

    One segment a round (chain, 1-port tree: ``C = A``); the 2-port tree adds two a round but one
    in its last when ``N = 2^H`` (``C = 2A - 1``, else ``2A``); ``N = 2`` is the chain.
    """
    fill, per = _pipeline(algorithm, n, ports)
    if algorithm == "pipelined_chain" or ports == 1:
        return fill
    n = np.asarray(n, dtype=np.int64)
    single_last = (n >= 4) & (n == 2 ** floor_log2(n))
    return np.where(n == 2, fill, 2 * fill - single_last)


def _segments(fill, per, m, alpha, beta, gamma=0.0, added=0):
    """The whole ``s`` minimising ``(A + B s)(alpha + M / (s beta)) + (C + D s) M gamma / s``.

    ``A, B`` = ``fill, per``, ``C`` = ``added``; the term ``D M gamma`` does not depend on ``s``.
    Convex in ``s`` (``A, C >= 0``): the best whole count is the floor or the ceiling of
    ``s* = sqrt(M (A / beta + C gamma) / (B alpha))``, within ``[1, max(1, min(M, 2**40))]``.
    """
    scalar = all(np.ndim(x) == 0 for x in (fill, per, m, alpha, beta, gamma, added))
    fill, per, m, alpha, beta, gamma, added = (
        np.asarray(x, dtype=float) for x in (fill, per, m, alpha, beta, gamma, added)
    )
    cap = np.maximum(1.0, np.minimum(np.floor(m), MAX_CHUNKS))
    slope = fill / beta + added * gamma
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        best = np.sqrt(m * slope / (per * alpha))  # inf when alpha is 0 or the product underflows
    best = np.where(np.isfinite(best), best, cap)
    low = np.clip(np.floor(best), 1.0, cap)
    high = np.clip(np.ceil(best), 1.0, cap)

    def cost(s):
        return (fill + per * s) * (alpha + m / (s * beta)) + added * m * gamma / s

    segments = np.where(cost(high) < cost(low), high, low)
    segments = np.where((slope <= 0) | (m == 0), 1.0, segments).astype(np.int64)
    return int(segments) if scalar else segments


def _optimal(algorithm, reduce):
    def optimal(n, m, alpha, beta, gamma, ports):
        fill, per = _pipeline(algorithm, n, ports)
        if reduce and not (np.ndim(gamma) == 0 and gamma == 0):
            return _segments(fill, per, m, alpha, beta, gamma, _reduce_fill(algorithm, n, ports))
        return _segments(fill, per, m, alpha, beta)

    return optimal


def optimal_segments(algorithm, primitive, n, m, alpha, beta, ports=1, gamma=0.0):
    """The segment count that minimises a pipelined Broadcast or Reduce (eq:cc-pipeline-optimum).

    ``T(s) = (A + B s)(alpha + M / (s beta))`` (:func:`pipeline_constants`) is convex in ``s``; its
    real minimiser is ``s* = sqrt(A M / (B alpha beta))`` and the better of ``floor(s*)`` and
    ``ceil(s*)`` within ``[1, max(1, min(M, 2**40))]`` is returned (a segment holds at least a
    byte). ``A = 0`` (a chain of two, a binary tree of three) or ``M = 0``: 1; ``alpha = 0``: the
    cap. For ``reduce`` the added bytes ``(C + D s) M / s`` join in (:func:`_reduce_fill`):
    ``s* = sqrt(M (A / beta + C gamma) / (B alpha))``. Arrays broadcast.

    Parameters
    ----------
    algorithm : {"pipelined_chain", "pipelined_binary_tree"}
    primitive : {"broadcast", "reduce"}
    n : int or array of int
        Nodes, ``2 <= n <= 2**62``.
    m : float or array
        Bytes, ``0 <= m <= 2**96``.
    alpha, beta : float or array
        Seconds per round, bytes/s per link.
    ports : int, default 1
    gamma : float or array, default 0
        Seconds per byte added (Reduce only).

    Examples
    --------
    Chain of 10, 1 MiB, 5 us, 25 GB/s: ``s* = sqrt(8 * 2**20 / (5e-6 * 25e9)) = 8.19``.

    >>> optimal_segments("pipelined_chain", "broadcast", 10, 2**20, 5e-6, 25e9)
    8
    >>> optimal_segments("pipelined_binary_tree", "broadcast", 3, 2**20, 5e-6, 25e9)   # A = 0
    1
    """
    algorithm = check_choice("algorithm", algorithm, ("pipelined_chain", "pipelined_binary_tree"))
    primitive = check_primitive(primitive)
    if primitive not in ("broadcast", "reduce"):
        raise ValueError(f"primitive must be 'broadcast' or 'reduce' for {algorithm}, got {primitive!r}")
    n = check_int("n", n, minimum=2, maximum=MAX_NODES)
    m = check_size("m", m)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    ports = check_int("ports", ports, minimum=1, scalar=True)
    gamma = check_seconds("gamma", gamma)
    check_shapes(n=n, m=m, alpha=alpha, beta=beta, gamma=gamma, bytes_per_element=320)
    return _optimal(algorithm, primitive == "reduce")(n, m, alpha, beta, gamma, ports)


_CHAIN = "pipelined chain, segmented as MPI libraries do; rounds and optimum derived here"
_TREE = "pipelined binary tree (heap order), segmented; rounds and optimum derived here"

PIPELINED_CHAIN = {
    "broadcast": _Model(_chain_terms, reference=_CHAIN, optimal_chunks=_optimal("pipelined_chain", False)),
    "reduce": _Model(
        _chain_terms, reference=_CHAIN, reduced=_chain_reduced, optimal_chunks=_optimal("pipelined_chain", True)
    ),
}
PIPELINED_BINARY_TREE = {
    "broadcast": _Model(_tree_terms, reference=_TREE, optimal_chunks=_optimal("pipelined_binary_tree", False)),
    "reduce": _Model(
        _tree_terms, reference=_TREE, reduced=_tree_reduced, optimal_chunks=_optimal("pipelined_binary_tree", True)
    ),
}
