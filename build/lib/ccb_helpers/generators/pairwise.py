"""Pairwise exchange all-to-all: in round s node i sends its block for node i + s."""

from __future__ import annotations

import numpy as np

from ..schedule import Round
from .core import Built, ScheduleGenerator, _Blocks


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


def _build_pairwise(primitive, n, m, ports, root, chunks) -> Built:
    prologue, rounds = _pairwise_all_to_all(n, m)
    return Built(rounds, prologue)


def _pairwise_transfers(primitive, n, ports, chunks) -> int:
    return n * n


PAIRWISE = ScheduleGenerator(_build_pairwise, _pairwise_transfers)
