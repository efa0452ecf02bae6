"""Swing AllReduce (De Sensi, Bonato, Saam & Hoefler, NSDI 2024) as runnable rounds.

Swing is recursive halving-doubling with other partners: in step ``s`` rank ``r`` exchanges with

.. math:: \\pi(r, s) = r + \\rho(s) \\ (r \\text{ even}), \\quad r - \\rho(s) \\ (r \\text{ odd}),
          \\qquad \\rho(s) = \\sum_{i=0}^{s} (-2)^i = 1, -1, 3, -5, 11, \\dots \\pmod p,

so the distance grows as ``|ρ(s)| ≈ 2^{s+1}/3`` instead of RHD's ``2^s``: on a ring or torus the
messages cross about a third fewer links, which is what the paper optimises (on a torus of ``D``
dimensions the steps cycle through the dimensions, each swinging along its own axis). The
bandwidth-optimal form (the paper's Swing-B) is a reduce-scatter then an all-gather:
``2 log2 p`` rounds and ``2(p-1)/p M`` bytes per rank, the same as RHD on a switch.

Which blocks go where follows from the peers alone: in step ``s`` rank ``r`` hands partner ``q`` the
blocks of every rank ``q`` still reaches in the later steps (its *reach set*). This module
computes the reach sets and checks that the two halves of every exchange are disjoint and
that every rank reaches all ``p`` — the property the paper proves — before it builds a round;
the simulator checks the bytes. For ``p`` not a power of two the book folds the extra ranks in
and out as MPICH does for RHD (one round of ``M`` each way), not the paper's own scheme.
"""

from __future__ import annotations

import numpy as np

from .._intmath import floor_log2
from .._validation import check_cap, check_choice, check_int
from ..algorithms.swing import SWING_VARIANTS
from ..schedule import MAX_BUFFER_BYTES, Round, Schedule, _block_bounds
from .core import ScheduleGenerator

__all__ = ["swing_rho", "swing_peer", "swing_schedule", "halving_doubling_schedule"]

#: Most ranks of a Swing schedule (reach sets are p x p bits; p log p transfers per phase).
MAX_SWING_RANKS = 4096


def swing_rho(s) -> int:
    """``ρ(s) = Σ_{i=0}^{s} (-2)^i = (1 - (-2)^{s+1}) / 3``.

    >>> [swing_rho(s) for s in range(6)]
    [1, -1, 3, -5, 11, -21]
    """
    s = check_int("s", s, minimum=0, maximum=62, scalar=True)
    return (1 - (-2) ** (s + 1)) // 3


def _coords(ranks: np.ndarray, dims: tuple[int, ...]) -> list[np.ndarray]:
    out, rest = [], ranks.copy()
    for size in reversed(dims):  # row-major, the last dimension fastest (as ccb.torus numbers nodes)
        out.append(rest % size)
        rest //= size
    return out[::-1]


def _rank(coords: list[np.ndarray], dims: tuple[int, ...]) -> np.ndarray:
    r = np.zeros_like(coords[0])
    for c, size in zip(coords, dims):
        r = r * size + c
    return r


def _plan(dims: tuple[int, ...]) -> list[tuple[int, int]]:
    """(dimension, step within it) of every step: dimensions in turn, each for log2 of its side."""
    steps = [floor_log2(d) for d in dims]
    plan, used = [], [0] * len(dims)
    while any(u < s for u, s in zip(used, steps)):
        for k in range(len(dims)):
            if used[k] < steps[k]:
                plan.append((k, used[k]))
                used[k] += 1
    return plan


def _peers(dims: tuple[int, ...]) -> list[np.ndarray]:
    p = int(np.prod(dims))
    ranks = np.arange(p, dtype=np.int64)
    coords = _coords(ranks, dims)
    out = []
    for k, t in _plan(dims):
        rho = (1 - (-2) ** (t + 1)) // 3
        moved = [c.copy() for c in coords]
        moved[k] = np.where(coords[k] % 2 == 0, coords[k] + rho, coords[k] - rho) % dims[k]
        out.append(_rank(moved, dims))
    return out


def swing_peer(r, s, p) -> int:
    """Partner of rank ``r`` in step ``s`` on ``p`` ranks (one dimension): ``r ± ρ(s) mod p``.

    >>> [swing_peer(0, s, 16) for s in range(4)], [swing_peer(5, s, 16) for s in range(4)]
    ([1, 15, 3, 11], [4, 6, 2, 10])
    """
    p = check_int("p", p, minimum=1, maximum=2**62, scalar=True)
    r = check_int("r", r, minimum=0, maximum=p - 1, scalar=True)
    rho = swing_rho(s)
    return (r + rho) % p if r % 2 == 0 else (r - rho) % p


def _reach_sets(peers: list[np.ndarray], p: int) -> list[np.ndarray]:
    """``reach[s][r]``: boolean row of the ranks ``r`` reaches with steps ``s, s+1, ...`` (and itself)."""
    steps = len(peers)
    reach = [None] * (steps + 1)
    reach[steps] = np.eye(p, dtype=bool)
    for s in range(steps - 1, -1, -1):
        nxt = reach[s + 1]
        q = peers[s]
        if np.any(q[q] != np.arange(p)):
            raise ValueError(f"swing step {s}: the partners do not pair up (pi(pi(r)) != r)")
        if np.any(nxt & nxt[q]):
            raise ValueError(f"swing step {s}: a rank and its partner reach a common rank; the halving is not exact")
        reach[s] = nxt | nxt[q]
    if not reach[0].all():
        raise ValueError("swing: some rank does not reach every rank")
    return reach


def _core_rounds(dims: tuple[int, ...], m: int, ranks: np.ndarray, base: int = 0, variant: str = "bandwidth"):
    """Swing AllReduce on ``prod(dims)`` (powers of two) ranks ``ranks`` over bytes [base, base + m)."""
    p = int(np.prod(dims))
    peers = _peers(dims)
    if variant == "latency":  # the whole vector every step (the paper's Swing-L)
        return [Round(ranks, ranks[q], base, m, True) for q in peers]
    reach = _reach_sets(peers, p)
    bounds = _block_bounds(m, p)
    offset, length = bounds[:-1] + base, np.diff(bounds)
    halving = []
    for s, q in enumerate(peers):
        src_idx, blk = np.nonzero(reach[s + 1][q])  # rank r sends partner q's reach set
        halving.append(Round(ranks[src_idx], ranks[q[src_idx]], offset[blk], length[blk], True))
    doubling = [r.reversed(False) for r in reversed(halving)]
    return halving + doubling


def _check_dims(p: int, dims) -> tuple[int, ...]:
    if dims is None:
        return (p,)
    if not isinstance(dims, (tuple, list)) or not dims:
        raise TypeError(f"dims must be a tuple of side lengths (a torus), got {dims!r}")
    dims = tuple(
        check_int(f"dims[{i}]", d, minimum=1, maximum=MAX_SWING_RANKS, scalar=True) for i, d in enumerate(dims)
    )
    if int(np.prod(dims)) != p:
        raise ValueError(f"dims {dims} hold {int(np.prod(dims))} ranks, not n={p}")
    if any(d & (d - 1) for d in dims):
        raise ValueError(f"Swing on a torus needs every side a power of two, got dims={dims}")
    return dims


def swing_schedule(n, m, dims=None, variant="bandwidth") -> Schedule:
    """Swing AllReduce as a :class:`~ccb_helpers.schedule.Schedule`.

    Parameters
    ----------
    n : int
        Ranks, ``1 <= n <= 4096``. Not a power of two: the ``n - 2^floor(log2 n)`` extra ranks
        fold into partners first (one round of ``M``) and get the result at the end (one more).
    m : int
        Bytes per rank, ``0 <= m <= 2**62`` (any value).
    dims : tuple of int, optional
        Sides of a torus holding the ranks (row-major, as :func:`ccb_helpers.torus`), each a power
        of two: steps swing along one dimension at a time. Default: one dimension.
    variant : {"bandwidth", "latency"}
        Reduce-scatter + all-gather (``2 log2 p`` rounds, ``2(p-1)/p M``) or the whole vector in
        each of ``log2 p`` steps.

    Examples
    --------
    >>> from ccb_helpers.simulator import run_schedule
    >>> r = run_schedule(swing_schedule(8, 800))
    >>> r.correct, r.rounds, int(r.bytes_sent.max())
    (True, 6, 1400)
    >>> run_schedule(swing_schedule(16, 1600, dims=(4, 4))).correct
    True
    """
    n = check_int("n", n, minimum=1, maximum=MAX_SWING_RANKS, scalar=True)
    m = check_int("m", m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
    variant = check_choice("variant", variant, SWING_VARIANTS)
    check_cap(f"the Swing schedule on n={n}: transfers", 2 * n * n + 2 * n, 2**21)
    if n == 1:
        return Schedule("all_reduce", 1, m, [], ("data",), 0, "swing")
    p = 1 << floor_log2(n)
    if dims is not None and p != n:
        raise ValueError(f"dims needs n a power of two (a torus of powers of two), got n={n}")
    dims = _check_dims(p, dims)
    r = n - p
    if r == 0:
        rounds = _core_rounds(dims, m, np.arange(n, dtype=np.int64), 0, variant)
    else:
        evens = np.arange(0, 2 * r, 2, dtype=np.int64)
        active = np.concatenate([np.arange(1, 2 * r, 2), np.arange(2 * r, n)]).astype(np.int64)
        rounds = [
            Round(evens, evens + 1, 0, m, True),
            *_core_rounds(dims, m, active, 0, variant),
            Round(evens + 1, evens, 0, m, False),
        ]
    return Schedule("all_reduce", n, m, rounds, ("data",), 0, "swing")


#: Orders of :func:`halving_doubling_schedule`'s partners.
HALVING_DOUBLING_ORDERS = ("far", "near")


def halving_doubling_schedule(n, m, order="near") -> Schedule:
    """Recursive halving-doubling AllReduce with the order of its partners chosen: Swing's baselines.

    Both orders are reduce-scatter by vector halving then all-gather by doubling, ``2 log2 p``
    rounds and ``2(p-1)/p M`` bytes per rank, identical on a switch; on a ring or torus they differ
    in how far the big messages go:

    * ``"far"``: the first partner is ``p/2`` away with half the vector (recursive *halving* of
      the distance; Thakur, Rabenseifner & Gropp 2005) — the book's ``"recursive_halving_doubling"``;
    * ``"near"``: the first partner is the neighbour (distance 1, 2, 4, ... as the data halves):
      MPICH's ``allreduce_intra_reduce_scatter_allgather`` code (``mask = 1`` first), which the
      Swing paper's library (``libswing``, ``RECDOUB_B``) copies as its recursive-doubling baseline.

    Non-powers of two fold the extra ranks in and out as MPICH does (one round of ``M`` each way).

    Parameters
    ----------
    n : int
        Ranks, ``1 <= n <= 4096``.
    m : int
        Bytes per rank, ``0 <= m <= 2**62``.
    order : {"near", "far"}

    Examples
    --------
    On a ring of 16 (routed, α = 0) the near-first order moves half the vector one hop first;
    the far-first order sends it 8 hops.

    >>> from ccb_helpers.routed import routed_time
    >>> from ccb_helpers.topology import ring
    >>> [routed_time(halving_doubling_schedule(16, 1600, o), ring(16), 0.0, 1.0) for o in ("near", "far")]
    [6400.0, 17000.0]
    """
    from .recursive import _fold, _ordered_halving_doubling

    n = check_int("n", n, minimum=1, maximum=MAX_SWING_RANKS, scalar=True)
    m = check_int("m", m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
    order = check_choice("order", order, HALVING_DOUBLING_ORDERS)
    check_cap(f"the halving-doubling schedule on n={n}: transfers", 2 * n * n + 2 * n, 2**21)
    if n == 1:
        return Schedule("all_reduce", 1, m, [], ("data",), 0, f"halving_doubling_{order}")

    def core(p, mm, ranks):
        dims = list(range(floor_log2(p)))
        return _ordered_halving_doubling(p, mm, ranks, dims if order == "near" else dims[::-1], 0)

    return Schedule("all_reduce", n, m, _fold(n, m, core), ("data",), 0, f"halving_doubling_{order}")


def _build_swing(primitive, n, m, ports, root, chunks):
    return swing_schedule(n, m).rounds


def _swing_transfers(primitive, n, ports, chunks) -> int:
    # Reach sets are not contiguous: every block is its own piece, p - 1 per rank in each half.
    return 2 * n * n + 2 * n


SWING = ScheduleGenerator(_build_swing, _swing_transfers)
