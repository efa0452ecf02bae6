"""Bruck et al. (1997): the log-round all-gather and all-to-all for every N (cost models)."""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log2
from .core import _THAKUR, _frac_bytes, _Model


def _bruck_all_gather(n, m, ports, opts):
    # Round b sends min(2^b, N - 2^b) blocks; the rounds sum to N - 1 blocks.
    return ceil_log2(n), _frac_bytes(n, m)


def _bruck_all_to_all(n, m, ports, opts):
    # Round b sends every block whose (rotated) index j in [0, N) has bit b set.
    steps = ceil_log2(n)
    # The total reaches ~ (N/2) log2 N blocks: beyond int64 near N = 2**62, so it is summed in floats
    # (each round's count is an exact int64).
    blocks = np.zeros(np.shape(n), dtype=float)
    top = int(np.max(steps))
    for b in range(top):
        period = 1 << (b + 1)
        half = 1 << b
        blocks = blocks + ((n // period) * half + np.maximum(0, n % period - half))
    return steps, blocks * m / n


BRUCK = {
    "all_gather": _Model(_bruck_all_gather, reference="Bruck et al. 1997; " + _THAKUR),
    "all_to_all": _Model(_bruck_all_to_all, reference="Bruck et al. 1997; " + _THAKUR),
}
