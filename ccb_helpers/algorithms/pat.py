"""PAT (NCCL 2.23+) AllGather and ReduceScatter: cost models in the book's synchronous rounds.

Every rank sends ``N - 1`` blocks in all (each block crosses a binomial tree); NCCL's operation
order puts them in ``log2 A + min(P/A, N) - 1`` messages, ``P = 2^ceil(log2 N)`` and ``A`` the
aggregation factor (``min(8, P/2)`` for large messages, :func:`pat_aggregation`). The count is
read off NCCL's ``PatAGAlgorithm``: ``log2 A`` aggregated levels (phase 2) and one message per
aggregated step ``as`` in ``[1, P/A)`` below ``N`` (phase 1); ``tests/test_pat.py`` checks it
against the replayed operations for every ``N <= 300`` and every ``A``. The schedule is in
:mod:`ccb_helpers.generators.pat`.
"""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log2
from .._validation import check_int
from .core import _frac_bytes, _Model

#: NCCL_STEPS in NCCL's device.h: buffer slots per connection.
NCCL_STEPS = 8


def _default_aggregation(n):
    """``min(8, P / 2)`` (at least 1), vectorised: NCCL doubles A three times (NCCL_STEPS = 8) while A < N/2."""
    p = np.left_shift(1, ceil_log2(n)) if isinstance(n, np.ndarray) else 1 << int(ceil_log2(n))
    return (
        np.clip(np.minimum(NCCL_STEPS, p // 2), 1, None)
        if isinstance(n, np.ndarray)
        else max(1, min(NCCL_STEPS, p // 2))
    )


def pat_aggregation(n) -> int:
    """NCCL's aggregation factor for large messages: ``min(8, 2^ceil(log2 N) / 2)`` (at least 1).

    The constructor of ``PatAGAlgorithm`` doubles ``aggFactor`` while ``NCCL_STEPS = 8`` buffer
    slots allow it (three doublings) and ``aggFactor < N / 2``; smaller chunks double it further.

    >>> [pat_aggregation(n) for n in (2, 3, 8, 12, 16, 64, 1000)]
    [1, 2, 4, 8, 8, 8, 8]
    """
    n = check_int("n", n, minimum=1, maximum=2**62, scalar=True)
    return _default_aggregation(n)


def _pat_rounds(n, aggregation):
    p = (np.left_shift(1, ceil_log2(n))) if isinstance(n, np.ndarray) else 1 << int(ceil_log2(n))
    levels = ceil_log2(aggregation)
    return levels + np.minimum(p // aggregation, n) - 1


def _pat_half(n, m, ports, opts):
    steps = _pat_rounds(n, _default_aggregation(n))
    return steps, _frac_bytes(n, m)


PAT = {
    "all_gather": _Model(
        _pat_half,
        reference="NCCL 2.23+ (src/include/collectives.h PatAGAlgorithm); NVIDIA/nccl#1473",
        topology="one_gpu_per_node",
    ),
    "reduce_scatter": _Model(
        _pat_half,
        reference="NCCL 2.23+ (PatRSAlgorithm); NVIDIA/nccl#1473, #1594",
        topology="one_gpu_per_node",
        reduced=lambda n, m, ports, opts: _frac_bytes(n, m),  # every received block is added once: N - 1 blocks
    ),
}
