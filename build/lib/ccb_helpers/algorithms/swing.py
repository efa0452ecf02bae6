"""Swing AllReduce (De Sensi, Bonato, Saam & Hoefler, NSDI 2024): cost models.

Bandwidth-optimal Swing is recursive halving-doubling with the partners ``r ± ρ(s)``,
``ρ(s) = (1 - (-2)^{s+1}) / 3``: on a switch or a complete graph it costs what RHD costs,
``2 log2 p`` rounds and ``2(p-1)/p M``; the folded form for ``p`` not a power of two adds a round of
``M`` on each side (the book's fold, as MPICH does for RHD). Its gain is on rings and tori, where
its partners are about a third closer (:func:`ccb_helpers.routed_time`). The schedule is in
:mod:`ccb_helpers.generators.swing`.
"""

from __future__ import annotations

import numpy as np

from .._intmath import floor_log2, is_power_of_two
from .._validation import check_choice, check_int, check_size
from .core import _frac_bytes, _Model
from .recursive import _rhd_reduced

SWING_VARIANTS = ("bandwidth", "latency")


def _swing_all_reduce(n, m, ports, opts):
    f = floor_log2(n)
    p = 2**f
    pow2 = is_power_of_two(n)
    steps = np.where(pow2, 2 * f, 2 * f + 2)
    volume = np.where(pow2, 2 * _frac_bytes(n, m), 2 * m + 2 * _frac_bytes(p, m))
    return steps, volume


def swing_terms(n, m, variant="bandwidth") -> tuple[int, float]:
    """Rounds and bandwidth bytes of Swing AllReduce (single-β model).

    Power of two ``p``: ``2 log2 p`` rounds and ``2(p-1)/p M`` (bandwidth variant), ``log2 p``
    rounds of ``M`` (latency variant); otherwise two more rounds of ``M`` (the fold).

    >>> swing_terms(8, 800.0), swing_terms(12, 1200.0), swing_terms(8, 800.0, "latency")
    ((6, 1400.0), (8, 4500.0), (3, 2400.0))
    """
    n = check_int("n", n, minimum=1, maximum=2**62, scalar=True)
    m = check_size("m", m, scalar=True)
    variant = check_choice("variant", variant, SWING_VARIANTS)
    if n == 1:
        return 0, 0.0
    f = floor_log2(n)
    p = 1 << f
    steps, volume = (2 * f, 2 * (p - 1) * m / p) if variant == "bandwidth" else (f, f * m)
    if p != n:
        steps, volume = steps + 2, volume + 2 * m
    return steps, float(volume)


SWING = {
    "all_reduce": _Model(
        _swing_all_reduce,
        reference="De Sensi, Bonato, Saam & Hoefler, NSDI 2024 (Swing)",
        topology="torus",
        reduced=_rhd_reduced,  # halving adds M/2, M/4, ... as RHD does (and the fold a whole M)
    ),
}
