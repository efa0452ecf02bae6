"""The shared vocabulary of the cost models: :class:`Cost`, the model record and its limits.

Every family module (``ring``, ``trees``, ``double_tree``, ``recursive``, ``bruck``, ``pairwise``)
writes its algorithms as ``terms(n, m, ports, options) -> (steps, bandwidth bytes)`` functions
wrapped in :class:`_Model` records; :mod:`.registry` collects them in ``ALGORITHMS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

from .._intmath import ceil_log2
from .._validation import (
    INT64_MAX,
    check_bandwidth,
    check_int,
    check_record,
    check_seconds,
    check_shapes,
    check_size,
)

#: Largest node count of the cost models: ``2 (n - 1)`` rounds of a ring AllReduce stay in int64.
MAX_NODES = 2**62
#: Most pipeline chunks per tree of the double binary tree (:func:`optimal_chunks` never exceeds it).
MAX_CHUNKS = 2**40


@check_record(steps="int[]", bandwidth_bytes="real[]")
class Cost(NamedTuple):
    """Rounds and bandwidth bytes (sum over rounds of the largest message) of one run."""

    steps: int
    bandwidth_bytes: float

    def time(self, alpha, beta):
        """Seconds: ``steps * alpha + bandwidth_bytes / beta`` (α in s, β in bytes/s).

        >>> Cost(3, 8.0).time(1e-6, 4.0)
        2.000003
        """
        alpha = check_seconds("alpha", alpha)
        beta = check_bandwidth("beta", beta)
        steps = check_int("steps", self.steps, minimum=0, maximum=INT64_MAX)
        volume = check_size("bandwidth_bytes", self.bandwidth_bytes)
        check_shapes(steps=steps, bandwidth_bytes=volume, alpha=alpha, beta=beta)
        return _time(steps, volume, alpha, beta)


def _time(steps, volume, alpha, beta):
    return steps * alpha + volume / beta


@dataclass(frozen=True)
class _Model:
    """One algorithm for one primitive: a formula plus the conditions it needs."""

    terms: Callable  # (n, m, ports, options) -> (steps, bytes)
    min_ports: int = 1
    power_of_two: bool = False
    reference: str = ""


def tree_height(n):
    """Height of NCCL's binary tree over ``n`` ranks: ``ceil(log2 n)`` (rank 0 has one child).

    >>> tree_height(8), tree_height(5), tree_height(2)
    (3, 3, 1)
    """
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    check_shapes(n=n)
    return ceil_log2(n)


def _frac_bytes(n, m):
    return (n - 1) * m / n


_THAKUR = "Thakur, Rabenseifner & Gropp 2005; MPICH"
