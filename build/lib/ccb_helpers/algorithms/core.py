"""The shared vocabulary of the cost models: :class:`Cost`, the model record and its limits.

Every family module (``ring``, ``trees``, ``double_tree``, ``recursive``, ``bruck``, ``pairwise``)
writes its algorithms as ``terms(n, m, ports, options) -> (steps, bandwidth bytes)`` functions
wrapped in :class:`_Model` records; :mod:`.registry` collects them in ``ALGORITHMS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

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


@check_record(steps="int[]", bandwidth_bytes="real[]", reduce_bytes="real[]")
class Cost(NamedTuple):
    """Rounds, bandwidth bytes and reduced bytes of one run (the α-β-γ cost model).

    ``bandwidth_bytes`` is the sum over rounds of the largest message; ``reduce_bytes`` the sum
    over rounds of the most bytes one node combines into its buffer in that round (0 for the
    primitives that combine nothing). A round costs ``alpha`` plus its largest message over
    ``beta`` plus its reduction work times ``gamma`` (Chan et al. 2007's α-β-γ model): a node
    adds what it received before the round ends.
    """

    steps: int
    bandwidth_bytes: float
    reduce_bytes: float = 0.0

    def time(self, alpha, beta, gamma=0.0):
        """Seconds: ``steps * alpha + bandwidth_bytes / beta + reduce_bytes * gamma`` (eq:cc-cost-abg).

        α in s, β in bytes/s, γ in s per byte combined (``0 <= gamma <= 1e9``; 0 leaves the
        α-β time).

        >>> Cost(3, 8.0).time(1e-6, 4.0)
        2.000003
        >>> Cost(3, 8.0, 4.0).time(1e-6, 4.0, gamma=0.25)   # + 4 bytes x 0.25 s
        3.000003
        """
        alpha = check_seconds("alpha", alpha)
        beta = check_bandwidth("beta", beta)
        gamma = check_seconds("gamma", gamma)
        steps = check_int("steps", self.steps, minimum=0, maximum=INT64_MAX)
        volume = check_size("bandwidth_bytes", self.bandwidth_bytes)
        reduced = check_size("reduce_bytes", self.reduce_bytes)
        check_shapes(steps=steps, bandwidth_bytes=volume, reduce_bytes=reduced, alpha=alpha, beta=beta, gamma=gamma)
        return _time(steps, volume, alpha, beta, reduced, gamma)


def _time(steps, volume, alpha, beta, reduced=0.0, gamma=0.0):
    if np.ndim(gamma) == 0 and gamma == 0:  # γ = 0: today's α-β numbers, bit for bit
        return steps * alpha + volume / beta
    return steps * alpha + volume / beta + reduced * gamma


@dataclass(frozen=True)
class _Model:
    """One algorithm for one primitive: a formula plus the conditions it needs.

    ``terms(n, m, ports, options) -> (steps, bandwidth bytes)`` on validated arguments (``n``
    and ``m`` may be arrays; ``options`` holds ``"pipelined"`` and, for a pipelined model,
    ``"chunks"``). ``reduced(n, m, ports, options)`` gives the reduced bytes of :class:`Cost`
    (``None``: nothing is combined, as in the copy primitives). ``optimal_chunks(n, m, alpha,
    beta, gamma, ports)`` marks a model pipelined in chunks and returns the best count for
    :func:`ccb_helpers.algorithm_cost` (``None``: not pipelined).
    """

    terms: Callable
    min_ports: int = 1
    power_of_two: bool = False
    reference: str = ""
    reduced: Callable | None = None
    optimal_chunks: Callable | None = None
    #: The network the algorithm is made for (chapter 9): ``"two_level"`` (its node shape comes
    #: from ``ccb.two_level``; ``terms`` is the one-GPU-per-node case), ``"torus"`` (Swing),
    #: ``"one_gpu_per_node"`` (PAT). The flat selector (:func:`ccb_helpers.best_algorithm`,
    #: :func:`ccb_helpers.applicable_algorithms`) leaves such models out: chapter 9 compares them
    #: on their own networks.
    topology: str = ""


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
