"""The combined lower bound, the crossover size and the regime.

Any algorithm needs at least ``max(steps, D)`` rounds, each costing α, and must move the
busiest node's forced bytes over its ``p`` links. Both constraints hold at once, so the time
is at least the larger of the two (``eq:cc-bound-combined``). An algorithm's cost is a *sum*
of a latency and a bandwidth term; a lower bound is a *max*: no single algorithm need attain
both terms, and the max is at most half the sum.
"""

from __future__ import annotations

import numpy as np

from ._validation import INT64_MAX, check_bandwidth, check_int, check_seconds, check_shapes, check_size, is_array
from .bandwidth import _bandwidth_lower_bound, _effective_ports, _volume_coefficient
from .primitives import check_primitive
from .propagation import _info_steps

__all__ = [
    "latency_steps_lower_bound",
    "latency_lower_bound",
    "combined_lower_bound",
    "crossover_size",
    "regime",
]


def latency_steps_lower_bound(primitive, n, ports=1, diameter=0, degree=None):
    """Rounds any algorithm needs: ``max(ceil(log_{p+1} N), D)`` (``N >= 2``), 0 for one node.

    Every primitive needs ``ceil(log_{p+1} N)`` rounds: some node's data must reach all nodes
    (Broadcast, Scatter, AllGather, AllReduce, AllToAll) or some node needs data from all
    nodes (Gather, Reduce, ReduceScatter), and either way the set of nodes involved grows at
    most ``(p+1)``-fold per round. The diameter bound (``eq:cc-bound-topo``) is ``D`` rounds.

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES` (all share this bound; validated for clarity).
    n : int or array of int
        Nodes, ``n >= 1``.
    ports : int, default 1
        Ports per node ``k``.
    diameter : int, default 0
        ``D`` in rounds (``Topology.step_diameter``); 0 means no topology constraint. For a
        rooted primitive the root's eccentricity is the tighter per-root value.
    degree : int, optional
        Node degree; ``p = min(ports, degree)``.

    Examples
    --------
    >>> latency_steps_lower_bound("all_reduce", 16), latency_steps_lower_bound("all_reduce", 16, diameter=8)
    (4, 8)
    >>> latency_steps_lower_bound("broadcast", 64, ports=6)
    3
    """
    primitive, n, ports, diameter, degree = _check_latency_args(primitive, n, ports, diameter, degree)
    check_shapes(n=n, ports=ports, diameter=diameter, degree=degree)
    return _latency_steps(n, ports, diameter, degree)


def _check_latency_args(primitive, n, ports, diameter, degree):
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX)
    diameter = check_int("diameter", diameter, minimum=0, maximum=INT64_MAX)
    if degree is not None:
        degree = check_int("degree", degree, minimum=1, maximum=INT64_MAX)
    return primitive, n, ports, diameter, degree


def _latency_steps(n, ports, diameter, degree):
    steps = _info_steps(n, _effective_ports(ports, degree))
    if is_array(steps) or is_array(diameter):
        return np.maximum(steps, np.where(np.asarray(n) > 1, diameter, 0))
    return max(steps, diameter if n > 1 else 0)


def latency_lower_bound(primitive, n, alpha, ports=1, diameter=0, degree=None):
    """:math:`T_\\alpha^{\\min} = \\max(\\lceil \\log_{p+1} N \\rceil, D) \\cdot \\alpha` in seconds.

    Implements ``eq:cc-bound-delay-kport`` combined with ``eq:cc-bound-topo``.

    >>> latency_lower_bound("all_gather", 8, 1e-6, diameter=4)
    4e-06
    """
    primitive, n, ports, diameter, degree = _check_latency_args(primitive, n, ports, diameter, degree)
    alpha = check_seconds("alpha", alpha)
    check_shapes(n=n, alpha=alpha, ports=ports, diameter=diameter, degree=degree)
    return _latency_steps(n, ports, diameter, degree) * alpha


def combined_lower_bound(primitive, n, m, alpha, beta, ports=1, diameter=0, degree=None):
    """:math:`T \\ge \\max(T_\\alpha^{\\min}, T_\\beta^{\\min})` in seconds (``eq:cc-bound-combined``).

    For AllReduce this is ``eq:cc-bound-allreduce-1port`` / ``eq:cc-bound-allreduce-kport`` with
    the correct forced volume ``2(N-1)M/N`` (the source uses ``(N-1)M/N`` there).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int or array of int
        Nodes, ``n >= 1``.
    m : float or array
        Message size in bytes (the book's buffer conventions).
    alpha : float or array
        Latency per round, seconds.
    beta : float or array
        Link bandwidth per direction, bytes/s.
    ports : int, default 1
        Ports per node ``k``.
    diameter : int, default 0
        ``D`` in rounds (use ``Topology.step_diameter``).
    degree : int, optional
        Node degree ``d``, so that ``p = min(k, d)``.

    Examples
    --------
    >>> t = combined_lower_bound("all_reduce", 8, 2**20, 5e-6, 25e9)
    >>> round(t * 1e6, 3)   # bandwidth-bound: 2 * 7/8 MiB / 25 GB/s
    73.4
    >>> combined_lower_bound("all_reduce", 8, 1024, 5e-6, 25e9)   # latency-bound: 3 alpha
    1.5e-05
    """
    primitive, n, m, alpha, beta, ports, diameter, degree = _check_bound_args(primitive, n, m, alpha, beta, ports, diameter, degree)
    return _combined_lower_bound(primitive, n, m, alpha, beta, ports, diameter, degree)


def _check_bound_args(primitive, n, m, alpha, beta, ports, diameter, degree):
    primitive, n, ports, diameter, degree = _check_latency_args(primitive, n, ports, diameter, degree)
    m = check_size("m", m)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    check_shapes(n=n, m=m, alpha=alpha, beta=beta, ports=ports, diameter=diameter, degree=degree)
    return primitive, n, m, alpha, beta, ports, diameter, degree


def _combined_lower_bound(primitive, n, m, alpha, beta, ports, diameter, degree):
    t_alpha = _latency_steps(n, ports, diameter, degree) * alpha
    if is_array(m) and not (is_array(beta) or is_array(ports) or is_array(degree)):
        # max(S, R) = c(N) M exactly (the max picks the same product), so the per-node factor is
        # computed on n's own shape and the grid sees two operations, not six.
        t_beta = _volume_coefficient(primitive, n) * m / (_effective_ports(ports, degree) * beta)
    else:
        t_beta = _bandwidth_lower_bound(primitive, n, m, beta, ports, degree)
    if is_array(t_alpha) or is_array(t_beta):
        return np.maximum(t_alpha, t_beta)
    return max(t_alpha, t_beta)


def crossover_size(primitive, n, alpha, beta, ports=1, diameter=0, degree=None):
    """Message size ``M*`` in bytes at which the two terms of the bound are equal.

    Below ``M*`` the latency term dominates the lower bound, above it the bandwidth term
    (``eq:cc-bound-crossover``, corrected): with ``c(N) = max(S, R) / M``,

    .. math:: M^* = \\frac{\\max(\\lceil \\log_{p+1} N \\rceil, D)\\,\\alpha \\, p\\,\\beta}{c(N)}.

    For 1-port AllReduce :math:`c = 2(N-1)/N`, so ``M*`` is half the source's value.

    Parameters
    ----------
    primitive, n, alpha, beta, ports, diameter, degree
        As in :func:`combined_lower_bound`; ``n >= 2``.

    Examples
    --------
    >>> crossover_size("all_reduce", 2, 1e-6, 1e9)   # 1 round; c = 1
    1000.0
    >>> crossover_size("all_gather", 4, 1e-6, 1e9)   # 2 alpha * beta / (3/4)
    2666.6666666666665
    """
    primitive, n, ports, diameter, degree = _check_latency_args(primitive, n, ports, diameter, degree)
    check_int("n", n, minimum=2)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    check_shapes(n=n, alpha=alpha, beta=beta, ports=ports, diameter=diameter, degree=degree)
    p = _effective_ports(ports, degree)
    t_alpha = _latency_steps(n, ports, diameter, degree) * alpha
    return t_alpha * p * beta / _volume_coefficient(primitive, n)


def regime(primitive, n, m, alpha, beta, ports=1, diameter=0, degree=None):
    """Which term of the lower bound dominates: ``"latency"`` or ``"bandwidth"``.

    Ties (``M == M*``) count as ``"bandwidth"``. Arrays in, array of strings out.

    Examples
    --------
    >>> regime("all_reduce", 8, 1024, 5e-6, 25e9), regime("all_reduce", 8, 2**20, 5e-6, 25e9)
    ('latency', 'bandwidth')
    """
    primitive, n, m, alpha, beta, ports, diameter, degree = _check_bound_args(primitive, n, m, alpha, beta, ports, diameter, degree)
    t_alpha = _latency_steps(n, ports, diameter, degree) * alpha
    t_beta = _bandwidth_lower_bound(primitive, n, m, beta, ports, degree)
    if is_array(t_alpha) or is_array(t_beta):
        return np.where(np.asarray(t_alpha) > np.asarray(t_beta), "latency", "bandwidth")
    return "latency" if t_alpha > t_beta else "bandwidth"
