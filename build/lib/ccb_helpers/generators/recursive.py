"""Recursive halving (reduce-scatter), recursive doubling (all-gather, AllReduce), Rabenseifner's
halving-doubling AllReduce, its 2-port form, and MPICH's fold for non-powers of two."""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log2, floor_log2
from ..schedule import Round
from .core import ScheduleGenerator, _Blocks


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


def _build_rhd(primitive, n, m, ports, root, chunks) -> list[Round]:
    if primitive == "reduce_scatter":
        return _halving_reduce_scatter(n, m, np.arange(n))
    return _fold(n, m, lambda p, mm, ranks: _halving_reduce_scatter(p, mm, ranks) + _doubling_all_gather(p, mm, ranks))


def _build_rhd_2port(primitive, n, m, ports, root, chunks) -> list[Round]:
    return _fold(n, m, _two_port_rhd)


def _build_doubling(primitive, n, m, ports, root, chunks) -> list[Round]:
    if primitive == "all_gather":
        return _doubling_all_gather(n, m, np.arange(n))
    return _fold(n, m, _doubling_all_reduce)


def _folded(n: int) -> int:
    """Transfers of the fold in and out: two per extra rank."""
    return 2 * (n - (1 << floor_log2(n)))


def _rhd_transfers(primitive, n, ports, chunks) -> int:
    if primitive == "reduce_scatter":
        return n * ceil_log2(n)
    return _folded(n) + 2 * (1 << floor_log2(n)) * floor_log2(n)


def _rhd_2port_transfers(primitive, n, ports, chunks) -> int:
    # Two halves, each a full RHD (the fold counted twice: a bound).
    return 2 * (2 * _folded(n) + 2 * (1 << floor_log2(n)) * floor_log2(n))


def _doubling_transfers(primitive, n, ports, chunks) -> int:
    if primitive == "all_gather":
        return n * ceil_log2(n)
    return _folded(n) + (1 << floor_log2(n)) * floor_log2(n)


RECURSIVE_HALVING_DOUBLING = ScheduleGenerator(_build_rhd, _rhd_transfers)
RECURSIVE_HALVING_DOUBLING_2PORT = ScheduleGenerator(_build_rhd_2port, _rhd_2port_transfers)
RECURSIVE_DOUBLING = ScheduleGenerator(_build_doubling, _doubling_transfers)
