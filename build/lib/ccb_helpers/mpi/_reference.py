"""Inputs every rank can regenerate, and the bytes each rank must hold at the end.

Rank ``r``'s buffer ``name`` starts as pseudo-random bytes drawn from ``(seed, r, name)``, so
any rank can recompute any other rank's input without communication: the reference result is
computed locally with numpy (reductions add modulo 256, exact in any order) and compared byte for
byte with what the schedule — or the MPI library's own collective — left in the buffers.
"""

from __future__ import annotations

import numpy as np

from ..schedule import block_bounds

__all__: list[str] = []

_BUFFER_CODES = {"data": 0, "send": 1, "recv": 2, "work": 3}


def rank_input(seed: int, rank: int, name: str, m: int) -> np.ndarray:
    """The ``m`` starting bytes of buffer ``name`` on ``rank`` (the same on every machine).

    >>> a = rank_input(0, 1, "data", 10)
    >>> a.dtype, a.shape, bool(np.array_equal(a, rank_input(0, 1, "data", 10)))
    (dtype('uint8'), (10,), True)
    >>> bool(np.array_equal(a, rank_input(0, 2, "data", 10)))
    False
    """
    rng = np.random.Generator(np.random.SFC64([seed, rank, _BUFFER_CODES[name]]))
    # Uniform doubles' bit patterns mixed by an odd multiplier and a shift (as the simulator does):
    # every byte is random and it is several times faster than Generator.bytes for large m.
    words = rng.random(-(-m // 8)).view(np.uint64)
    words *= np.uint64(0x9E3779B97F4A7C15)
    words ^= words >> np.uint64(29)
    return words.view(np.uint8)[:m].copy() if m % 8 else words.view(np.uint8)


def expected_regions(primitive: str, n: int, m: int, root: int, rank: int, seed: int) -> list:
    """What ``rank`` must hold when ``primitive`` is done: ``[(buffer, slice, bytes, what), ...]``.

    Follows the book's buffer conventions (:mod:`ccb_helpers.primitives`); block ``i`` is
    ``block_bounds(m, n)[i:i+2]``.

    >>> [(b, s.start, s.stop, w) for b, s, _, w in expected_regions("reduce_scatter", 4, 10, 0, 1, 0)]
    [('data', 2, 5, 'sum of all inputs')]
    >>> expected_regions("gather", 4, 10, 0, 1, 0)   # only the root's result is defined
    []
    """
    bounds = block_bounds(m, n)
    block = [slice(int(bounds[i]), int(bounds[i + 1])) for i in range(n)]
    whole = slice(0, m)
    if primitive == "all_to_all":
        # .copy(): a slice of rank i's whole input would keep all M bytes of it alive (N x M per rank).
        return [
            ("recv", block[i], rank_input(seed, i, "send", m)[block[rank]].copy(), f"block from rank {i}")
            for i in range(n)
        ]
    if primitive in ("reduce", "reduce_scatter", "all_reduce"):
        region = {"reduce": whole if rank == root else None, "all_reduce": whole, "reduce_scatter": block[rank]}[
            primitive
        ]
        if region is None:
            return []
        total = rank_input(seed, 0, "data", m)[region].copy()
        for i in range(1, n):
            total += rank_input(seed, i, "data", m)[region]  # uint8: modulo 256
        return [("data", region, total, "sum of all inputs")]
    if primitive == "broadcast":
        return [("data", whole, rank_input(seed, root, "data", m), "root's data")]
    if primitive == "scatter":
        return [("data", block[rank], rank_input(seed, root, "data", m)[block[rank]].copy(), f"root's block {rank}")]
    if primitive == "gather" and rank != root:
        return []
    # gather (at the root) and all_gather: every rank's own block, in rank order.
    return [("data", block[i], rank_input(seed, i, "data", m)[block[i]].copy(), f"rank {i}'s block") for i in range(n)]


def compare(expected: list, bufs: dict) -> list[str]:
    """Differences between ``expected`` and the buffers ``bufs`` (name -> array), as messages."""
    errors = []
    for name, region, want, what in expected:
        got = bufs[name][region]
        if not np.array_equal(got, want):
            bad = int(np.nonzero(got != want)[0][0]) + (region.start or 0)
            errors.append(f"{name}[{bad}] wrong ({what})")
    return errors
