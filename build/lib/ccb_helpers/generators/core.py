"""What every schedule generator shares: the caps, the block layout, reversal and rotation of
rounds, and the two records of the registry (:class:`ScheduleGenerator`, :class:`Built`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from ..schedule import Round, _block_bounds

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


class Built(NamedTuple):
    """What a generator's ``build`` returns when plain rounds are not enough."""

    rounds: list[Round]
    #: Local copies (``src == dst``) before the first / after the last round (``None``: none).
    prologue: Round | None = None
    epilogue: Round | None = None
    #: Whether the schedule uses the ``"work"`` scratch buffer.
    work: bool = False


@dataclass(frozen=True)
class ScheduleGenerator:
    """One algorithm's schedules, the entry of :data:`ccb_helpers.generators.registry.GENERATORS`.

    ``build(primitive, n, m, ports, root, chunks)`` returns the rounds (a list of
    :class:`~ccb_helpers.schedule.Round`, or a :class:`Built`) for ``n >= 2`` on arguments the
    dispatcher has validated against the cost model (same primitive, ports and power-of-two
    conditions); ``transfers(primitive, n, ports, chunks)`` is an upper bound on the transfers it
    builds, from a closed form (the caps are checked on it before anything is built). The rounds
    must be those of the cost model: ``tests/test_simulate.py`` runs every pair.
    """

    build: Callable
    transfers: Callable


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
