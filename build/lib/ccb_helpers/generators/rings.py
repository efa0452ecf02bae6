"""Ring and bidirectional ring: all-gather rounds, and reduce-scatter as their reversal."""

from __future__ import annotations

import numpy as np

from ..schedule import Round
from .core import ScheduleGenerator, _Blocks, _reverse


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


def _build_ring(primitive, n, m, ports, root, chunks) -> list[Round]:
    ag = _ring_all_gather(n, m)
    return {"all_gather": ag, "reduce_scatter": _reverse(ag, True), "all_reduce": _reverse(ag, True) + ag}[primitive]


def _build_biring(primitive, n, m, ports, root, chunks) -> list[Round]:
    ag = _biring_all_gather(n, m)
    return {"all_gather": ag, "reduce_scatter": _reverse(ag, True), "all_reduce": _reverse(ag, True) + ag}[primitive]


def _ring_transfers(primitive, n, ports, chunks) -> int:
    return n * (n - 1) * (2 if primitive == "all_reduce" else 1)


def _biring_transfers(primitive, n, ports, chunks) -> int:
    per_phase = n * (n - 1) if n <= 2 else 2 * n * (n // 2)
    return per_phase * (2 if primitive == "all_reduce" else 1)


RING = ScheduleGenerator(_build_ring, _ring_transfers)
BIDIRECTIONAL_RING = ScheduleGenerator(_build_biring, _biring_transfers)
