"""PAT (NCCL 2.23+) AllGather and ReduceScatter: cost models in the book's synchronous rounds.

Every rank sends ``N - 1`` blocks in all (each block crosses a binomial tree). NCCL's operation
order groups them into *aggregated steps* of ``A`` operations, ``A`` the aggregation factor:
large messages post each block in a buffer slot of its own (``postFreq = 1``) with up to
``A = min(8, ...)`` slots in flight (``NCCL_STEPS``); small ones also pack ``A`` chunks into one
slot. The book's synchronous model makes one message of what a rank posts on one dimension per
``A`` operations (:mod:`ccb_helpers.generators.pat`): ``log2 A + min(P/A, N) - 1`` rounds,
``P = 2^ceil(log2 N)``, with NCCL's large-message ``A`` of :func:`pat_aggregation`. The count
is read off NCCL's ``PatAGAlgorithm``: ``log2 A`` aggregated levels (phase 2) and one message per
aggregated step ``as`` in ``[1, P/A)`` below ``N`` (phase 1); ``tests/test_pat.py`` checks it
against the replayed operations for every ``N <= 300`` and every ``A``.
"""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log2
from .._validation import check_int
from .core import _frac_bytes, _Model

#: NCCL_STEPS in NCCL's device.h: buffer slots per connection.
NCCL_STEPS = 8


def _default_aggregation(n):
    """NCCL's large-message ``aggFactor``, vectorised: doubled at most three times (``NCCL_STEPS = 8``)
    while below ``floor(N / 2)`` — ``min(8, the first power of two >= floor(N / 2))``, at least 1."""
    half = np.asarray(n) // 2
    out = np.ones_like(half)
    for _ in range(3):  # NCCL_STEPS = 8 = 2**3: d = 8, 4, 2
        out = np.where(out < half, out * 2, out)
    return out if isinstance(n, np.ndarray) else int(out)


def pat_aggregation(n) -> int:
    """NCCL's aggregation factor ``A`` for large messages (``aggFactor`` of ``PatAGAlgorithm``).

    The constructor's first loop doubles ``aggFactor`` while several chunks fit one buffer slot
    (small messages) and sets ``postFreq`` to it (1 for large messages: a block per slot); the second
    doubles it while ``d = NCCL_STEPS = 8`` halves above 1 (three times) — both only while
    ``aggFactor < nranks / 2`` in integer division. So ``A = min(8, 2^ceil(log2 floor(N/2)))``: ``P/2``
    for most ``N`` (``P = 2^ceil(log2 N)``), but ``P/4`` for ``N = 2^j + 1`` (3 ranks: 1; 5: 2; 9: 4).

    >>> [pat_aggregation(n) for n in (2, 3, 5, 8, 9, 12, 16, 64, 1000)]
    [1, 1, 2, 4, 4, 8, 8, 8, 8]
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
