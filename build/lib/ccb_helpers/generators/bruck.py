"""Bruck et al. (1997): the all-gather by concatenation (k ports), its reversal (reduce-scatter), both
in a row (AllReduce), and the all-to-all by index bits, for every N."""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log2
from ..schedule import Round
from .core import Built, ScheduleGenerator, _Blocks, _reverse
from .trees import _binomial_scatter


def _bruck_all_gather(n: int, m: int, ports: int = 1) -> list[Round]:
    """Bruck's concatenation with ``ports`` ports: node i ends with every block, starting from block i.

    Holding blocks ``i .. i + S - 1``, node ``i`` receives the next ``r = min(k S, n - S)`` in one
    round, split over ``k`` senders: piece ``j`` (``q_j`` blocks, the pieces as even as whole
    blocks allow) comes from node ``i + a_j``, which holds it from its own start, with
    ``a_j = S + q_0 + ... + q_{j-1}``. One port: ``i`` sends blocks ``i .. i + min(S, n - S) - 1``
    to ``i - S``.
    """
    blocks = _Blocks(m, n)
    nodes = np.arange(n)
    rounds = []
    held = 1
    while held < n:
        r = min(ports * held, n - held)
        q, extra = divmod(r, ports)
        counts = [q + (j < extra) for j in range(min(ports, r))]
        src, dst, blk = [], [], []
        distance = held
        for count in counts:
            sender = np.repeat(nodes, count)
            src.append(sender)
            dst.append((sender - distance) % n)
            blk.append((sender + np.tile(np.arange(count), n)) % n)
            distance += count
        src, dst, blk = (np.concatenate(x) for x in (src, dst, blk))
        rounds.append(Round(src, dst, blocks.offset[blk], blocks.length[blk]))
        held = min(held * (ports + 1), n)
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
    if primitive == "all_to_all":
        prologue, rounds, epilogue = _bruck_all_to_all(n, m)
        return Built(rounds, prologue, epilogue, work=True)
    gather = _bruck_all_gather(n, m, ports)
    # Reversed, each piece added into its sender: a reduce-scatter (every block's tree, leaves first).
    scatter = _reverse(gather, True)
    if primitive in ("broadcast", "reduce"):
        # The binomial scatter leaves block i on node i, where Bruck's all-gather starts; its
        # reverse gathers block i of node i (reduced by the reduce-scatter) at the root.
        tree = _binomial_scatter(n, m, root)
        return tree + gather if primitive == "broadcast" else scatter + _reverse(tree, False)
    return {"all_gather": gather, "reduce_scatter": scatter, "all_reduce": scatter + gather}[primitive]


def _bruck_transfers(primitive, n, ports, chunks) -> int:
    if primitive in ("all_gather", "reduce_scatter"):
        return n * (n - 1)  # every node receives each other block once
    if primitive == "all_reduce":
        return 2 * n * (n - 1)
    if primitive in ("broadcast", "reduce"):
        return n * ceil_log2(n) + n * (n - 1)  # the binomial tree's pieces, then the all-gather's
    return 2 * n * n + n * (n // 2 + 1) * ceil_log2(n)


BRUCK = ScheduleGenerator(_build_bruck, _bruck_transfers)
