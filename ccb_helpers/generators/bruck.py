"""Bruck et al. (1997): the all-gather by doubling spans and the all-to-all by index bits, any N."""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log2
from ..schedule import Round
from .core import Built, ScheduleGenerator, _Blocks


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


def _build_bruck(primitive, n, m, ports, root, chunks):
    if primitive == "all_gather":
        return _bruck_all_gather(n, m)
    prologue, rounds, epilogue = _bruck_all_to_all(n, m)
    return Built(rounds, prologue, epilogue, work=True)


def _bruck_transfers(primitive, n, ports, chunks) -> int:
    if primitive == "all_gather":
        return n * (n - 1)
    return 2 * n * n + n * (n // 2 + 1) * ceil_log2(n)


BRUCK = ScheduleGenerator(_build_bruck, _bruck_transfers)
