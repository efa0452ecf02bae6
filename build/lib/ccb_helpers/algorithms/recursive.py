"""Recursive halving-doubling (Rabenseifner), its 2-port form, and recursive doubling (cost models)."""

from __future__ import annotations

import numpy as np

from .._intmath import floor_log2, is_power_of_two
from .core import _THAKUR, _frac_bytes, _Model


def _rhd_all_reduce(n, m, ports, opts):
    # Rabenseifner: recursive-halving reduce-scatter + recursive-doubling all-gather, 2 log2 N
    # rounds and 2(N-1)M/N bytes. Otherwise MPICH folds the r = N - 2^floor(log2 N) extra ranks
    # into partners first (one round of M) and sends them the result at the end (one round of M).
    f = floor_log2(n)
    p = 2**f
    pow2 = is_power_of_two(n)
    steps = np.where(pow2, 2 * f, 2 * f + 2)
    volume = np.where(pow2, 2 * _frac_bytes(n, m), 2 * m + 2 * _frac_bytes(p, m))
    return steps, volume


def _two_port_rhd_all_reduce(n, m, ports, opts):
    # Two halves of M run RHD at the same time, the second with its dimension order cyclically
    # shifted by one, so in every round a node's two partners differ (two ports). Each half moves
    # (P-1)/P of M/2 in each phase: (P-1)M/P bytes in all, the 2-port bound for P = N. A reversed
    # order would collide at the middle dimension when log2 N is odd. With one dimension (P = 2)
    # both halves go to the same partner in one message: (P-1)M/P per phase, as 1-port RHD.
    # Non-powers of two fold as in MPICH (one round of M in, one out).
    f = floor_log2(n)
    p = 2**f
    pow2 = is_power_of_two(n)
    core = np.where(f >= 2, _frac_bytes(p, m), 2 * _frac_bytes(p, m))
    steps = np.where(pow2, 2 * f, 2 * f + 2)
    volume = np.where(pow2, core, 2 * m + core)
    return steps, volume


def _halving_reduce_scatter(n, m, ports, opts):
    return floor_log2(n), _frac_bytes(n, m)


def _doubling_all_gather(n, m, ports, opts):
    return floor_log2(n), _frac_bytes(n, m)


def _doubling_all_reduce(n, m, ports, opts):
    f = floor_log2(n)
    steps = np.where(is_power_of_two(n), f, f + 2)
    return steps, steps * m


def _rhd_reduced(n, m, ports, opts):
    # Halving adds M/2, M/4, ...: (P-1)M/P on P = 2^floor(log2 N) ranks (the 2-port form adds both
    # halves' pieces a round: the same sum); the fold adds a whole M first when N is not P.
    p = 2 ** floor_log2(n)
    return np.where(is_power_of_two(n), _frac_bytes(n, m), m + _frac_bytes(p, m))


def _halving_reduced(n, m, ports, opts):
    return _frac_bytes(n, m)


def _doubling_reduced(n, m, ports, opts):
    # Every round adds the partner's whole M; the fold adds one more.
    f = floor_log2(n)
    return np.where(is_power_of_two(n), f, f + 1) * m


RECURSIVE_HALVING_DOUBLING = {
    "all_reduce": _Model(_rhd_all_reduce, reference="Rabenseifner 2004; " + _THAKUR, reduced=_rhd_reduced),
    "reduce_scatter": _Model(_halving_reduce_scatter, power_of_two=True, reference=_THAKUR, reduced=_halving_reduced),
}
RECURSIVE_HALVING_DOUBLING_2PORT = {
    "all_reduce": _Model(
        _two_port_rhd_all_reduce,
        min_ports=2,
        reference="Rabenseifner 2004 on two halves; dimension order shifted (this book)",
        reduced=_rhd_reduced,
    ),
}
RECURSIVE_DOUBLING = {
    "all_gather": _Model(_doubling_all_gather, power_of_two=True, reference=_THAKUR),
    "all_reduce": _Model(_doubling_all_reduce, reference=_THAKUR, reduced=_doubling_reduced),
}
