"""Ring and bidirectional ring: reduce-scatter, all-gather and their AllReduce (cost models)."""

from __future__ import annotations

import numpy as np

from .core import _THAKUR, _frac_bytes, _Model


def _ring_half(n, m, ports, opts):
    return n - 1, _frac_bytes(n, m)


def _ring_all_reduce(n, m, ports, opts):
    return 2 * (n - 1), 2 * _frac_bytes(n, m)


def _biring_half(n, m, ports, opts):
    # Blocks travel both ways: t rounds cover 2t + 1 nodes, so floor(n/2) rounds; for even n
    # the antipodal block arrives half from each side. Each port carries (N-1)M/(2N) in total.
    small = n <= 2  # one link only: identical to the ring
    steps = np.where(small, n - 1, n // 2)
    volume = np.where(small, _frac_bytes(n, m), _frac_bytes(n, m) / 2)
    return steps, volume


def _biring_all_reduce(n, m, ports, opts):
    steps, volume = _biring_half(n, m, ports, opts)
    return 2 * steps, 2 * volume


def _ring_reduced(n, m, ports, opts):
    # Each reduce-scatter round a node adds the block it received: N - 1 blocks. (The bidirectional
    # ring adds its two blocks a round, or two halves in the last round of an even N: N - 1 too.)
    return _frac_bytes(n, m)


RING = {
    "reduce_scatter": _Model(_ring_half, reference=_THAKUR, reduced=_ring_reduced),
    "all_gather": _Model(_ring_half, reference=_THAKUR),
    "all_reduce": _Model(_ring_all_reduce, reference="Patarasuk & Yuan 2009; NCCL ring", reduced=_ring_reduced),
}
BIDIRECTIONAL_RING = {
    "reduce_scatter": _Model(_biring_half, min_ports=2, reduced=_ring_reduced),
    "all_gather": _Model(_biring_half, min_ports=2),
    "all_reduce": _Model(_biring_all_reduce, min_ports=2, reduced=_ring_reduced),
}
