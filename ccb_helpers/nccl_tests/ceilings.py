"""The largest busbw a measurement can show: the combined bound at one size, and the two-level cut.

busbw is the forced volume of chapter 3 over the time, so the bound's ceiling on busbw is the
forced volume over the bound's time (``eq:cc-bound-combined``); between nodes, chapter 5's cut
around a node adds a second ceiling.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_bandwidth, check_choice, check_int, check_real
from ..bandwidth import volume_coefficient
from ..bounds import latency_lower_bound
from ..primitives import PRIMITIVES

#: Most message sizes :func:`busbw_ceiling` evaluates in one call (an array of 10^7 floats is 80 MB).
MAX_SIZES = 10_000_000


def busbw_ceiling(primitive, n, m, alpha, beta, ports=1, latency_ports=None):
    """The largest busbw any algorithm can show at size ``m``: ``c(N) M / T_min`` in bytes/s.

    ``T_min`` is the combined lower bound (``eq:cc-bound-combined``) with the bandwidth term over
    ``ports`` links of ``beta`` bytes/s and the latency term ``ceil(log_{k+1} N) alpha`` with
    ``k = latency_ports`` (default ``ports``; all-port networks drive many peers at once but
    share one NIC's bandwidth). ``c(N)`` is nccl-tests' busbw factor, which is
    :func:`~ccb_helpers.volume_coefficient`. Large messages: the ceiling tends to ``ports * beta``;
    measured busbw / ceiling = bound time / measured time (the efficiency).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int
        Ranks, ``n >= 2``.
    m : float or array
        Message size in bytes (nccl-tests' ``size`` column), ``>= 0``.
    alpha : float
        Latency per round, seconds (``>= 0``).
    beta : float
        Bandwidth of one link in one direction, bytes/s (``> 0``).
    ports, latency_ports : int
        Links used in parallel for bandwidth, and for the latency bound.

    Raises
    ------
    ValueError
        Arguments out of range, or more than :data:`MAX_SIZES` sizes at once.

    Examples
    --------
    8 ranks, AllReduce, 1 µs, 100 GB/s: 1 GiB is bandwidth-bound, so the ceiling is β:

    >>> round(busbw_ceiling("all_reduce", 8, 2**30, 1e-6, 100e9) / 1e9, 6)
    100.0
    >>> busbw_ceiling("all_reduce", 8, 1000, 1e-6, 100e9) / 1e9   # 1.75 kB / (3 us)
    0.5833333333333334
    """
    n = check_int("n", n, minimum=2, maximum=2**24, scalar=True)
    m = check_real("m", m)
    if np.size(m) > MAX_SIZES:
        raise ValueError(f"m has {np.size(m)} sizes; at most {MAX_SIZES} are evaluated at once")
    alpha = check_real("alpha", alpha, maximum=1e9, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    latency_ports = ports if latency_ports is None else check_int("latency_ports", latency_ports, minimum=1, maximum=2**62, scalar=True)
    return _busbw_ceiling(check_choice("primitive", primitive, PRIMITIVES), n, m, alpha, beta, ports, latency_ports)


def _busbw_ceiling(primitive, n, m, alpha, beta, ports, latency_ports):
    coefficient = volume_coefficient(primitive, n)
    volume = coefficient * np.asarray(m, dtype=float)
    t_alpha = latency_lower_bound(primitive, n, alpha, ports=latency_ports)
    # Bandwidth-bound sizes reach the link rate exactly: dividing c M by c M / (p beta) would
    # round (for tiny M by more than an ulp), so that branch returns p beta itself.
    bandwidth_bound = volume >= t_alpha * (ports * beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        ceiling = np.where(bandwidth_bound, ports * beta, volume / np.where(bandwidth_bound, 1.0, t_alpha))
    return float(ceiling) if np.ndim(ceiling) == 0 else ceiling


def two_level_busbw_ceiling(primitive, n_ranks, n_nodes, beta, node_beta=None, ports=1):
    """Large-message busbw ceiling of GPUs in nodes: endpoint links and each node's network.

    Two cuts bound the time (chapter 3's endpoint bound, chapter 5's cut around a node): every
    GPU moves ``c(N) M`` over ``ports * beta``, and every node — its GPUs together — must move
    the forced volume of the same primitive among ``K = n_nodes`` nodes, ``c(K) M``, through its
    network bandwidth ``node_beta``. So

    .. math:: \\text{busbw} = \\frac{c(N) M}{T} \\le \\min\\Big(p\\beta,\\ \\frac{c(N)}{c(K)}\\,\\beta_{\\text{node}}\\Big).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n_ranks, n_nodes : int
        GPUs and nodes, ``2 <= n_ranks``, ``1 <= n_nodes <= n_ranks``.
    beta : float
        Per-GPU link bandwidth per direction, bytes/s (NVLink: the GPU's total into the switch).
    node_beta : float, optional
        Network bandwidth per node per direction, bytes/s (required when ``n_nodes > 1``).
    ports : int, default 1
        Links of ``beta`` a GPU drives at once.

    Examples
    --------
    16 H100 on 2 nodes (450 GB/s NVLink each, 8 x 200 Gb/s NICs = 200 GB/s per node):
    AllReduce's node term is 1.875 / 1 * 200 = 375 GB/s, below NVLink's 450.

    >>> two_level_busbw_ceiling("all_reduce", 16, 2, 450e9, 200e9) / 1e9
    375.0
    >>> two_level_busbw_ceiling("all_reduce", 8, 1, 450e9) / 1e9
    450.0
    """
    primitive = check_choice("primitive", primitive, PRIMITIVES)
    n_ranks = check_int("n_ranks", n_ranks, minimum=2, maximum=2**24, scalar=True)
    n_nodes = check_int("n_nodes", n_nodes, minimum=1, maximum=n_ranks, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    ceiling = ports * beta
    if n_nodes > 1:
        if node_beta is None:
            raise ValueError(f"node_beta (bytes/s per node) is required for n_nodes = {n_nodes} > 1")
        node_beta = check_bandwidth("node_beta", node_beta, scalar=True)
        ceiling = min(ceiling, volume_coefficient(primitive, n_ranks) / volume_coefficient(primitive, n_nodes) * node_beta)
    return float(ceiling)
