"""Algorithm selection the way NCCL does it: cost every algorithm, take the fastest.

A fixed size threshold ("switch Tree -> Ring at ~1 MB") cannot be right for every machine: the
size where two algorithms cost the same depends on N, α, β and the port count. These helpers
compute that size and the best algorithm per size band from the cost models.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_bandwidth, check_int, check_real
from .algorithms import algorithm_cost, best_algorithm
from .primitives import check_primitive

__all__ = ["crossover_between", "best_algorithm_bands", "optimality"]


def crossover_between(algorithm_a, algorithm_b, primitive, n, alpha, beta, ports=1, m_min=1.0, m_max=2.0**44):
    """Message size (bytes) at which two algorithms cost the same, or ``None`` if they never do.

    Bisection on ``log M`` of ``cost_a - cost_b`` over ``[m_min, m_max]`` (each cost is affine
    in ``M``, so there is at most one crossing).

    >>> m = crossover_between("binomial_tree", "ring", "all_reduce", 16, 5e-6, 25e9)
    >>> round(m)   # 8 alpha + 8 M/beta = 30 alpha + 1.875 M/beta  =>  M = 22 alpha beta / 6.125
    448980
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=2)
    alpha = check_real("alpha", alpha)
    beta = check_bandwidth("beta", beta)

    def diff(m):
        return algorithm_cost(algorithm_a, primitive, n, m, alpha, beta, ports) - algorithm_cost(algorithm_b, primitive, n, m, alpha, beta, ports)

    lo, hi = np.log2(m_min), np.log2(m_max)
    f_lo, f_hi = diff(2**lo), diff(2**hi)
    if f_lo == 0:
        return float(m_min)
    if np.sign(f_lo) == np.sign(f_hi):
        return None
    for _ in range(200):
        mid = (lo + hi) / 2
        f_mid = diff(2**mid)
        if np.sign(f_mid) == np.sign(f_lo):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return float(2 ** ((lo + hi) / 2))


def best_algorithm_bands(primitive, n, alpha, beta, ports=1, m_min=1.0, m_max=2.0**36, points=400):
    """Size bands with their fastest algorithm: ``[(m_start, m_end, name), ...]`` (bytes).

    >>> bands = best_algorithm_bands("all_reduce", 64, 5e-6, 25e9)
    >>> [name for *_, name in bands]
    ['recursive_doubling', 'recursive_halving_doubling']
    """
    primitive = check_primitive(primitive)
    ms = np.geomspace(m_min, m_max, points)
    names, _ = best_algorithm(primitive, n, ms, alpha, beta, ports)
    bands = []
    start = 0
    for i in range(1, len(ms) + 1):
        if i == len(ms) or names[i] != names[start]:
            bands.append((float(ms[start]), float(ms[i - 1]), str(names[start])))
            start = i
    return bands


def optimality(algorithm, primitive, n, m=2.0**20, ports=1, large_n=2**12, huge_n=2**40, pipelined=True, chunks=64):
    """How close an algorithm's two terms come to the two lower bounds, and whether the gap grows.

    Returns a dict with the step ratio ``steps / ceil(log_{p+1} N)`` and the bandwidth ratio
    ``(bytes / M) / (max(S, R) / (p M))`` at ``n``, and verdicts per term: ``"exact"`` (ratio 1
    at ``n`` and beyond), ``"constant"`` (the ratio at ``huge_n`` is within 25% of the ratio at
    ``large_n``, or smaller: a constant factor) or ``"grows"`` (it keeps growing with N). Both
    terms of one row use one configuration: the pipelined double binary tree with ``chunks``
    chunks (``pipelined=False``: one chunk, the source's row). The 1-port double binary tree is
    modelled only up to :data:`ccb_helpers.algorithms.DBT_ONE_PORT_MAX_N` nodes; its verdicts
    are those of the 2-port form, since every 2-port round becomes one or two 1-port rounds of
    the same chunk (rounds and bytes within a factor 2, and ``ceil(log2 N) / ceil(log3 N)`` is
    bounded too), so the two grow alike.

    >>> optimality("ring", "all_reduce", 8)["latency"], optimality("ring", "all_reduce", 8)["bandwidth"]
    ('grows', 'exact')
    >>> optimality("recursive_halving_doubling", "all_reduce", 8)["latency"]
    'constant'
    >>> optimality("recursive_doubling", "all_reduce", 8)["bandwidth"]
    'grows'
    >>> o = optimality("double_binary_tree", "all_reduce", 8, ports=2)   # 64 chunks: 2 (3 + 63) rounds
    >>> o["steps_ratio"], o["latency"], o["bandwidth"]
    (66.0, 'constant', 'grows')
    """
    from .algorithms import ALGORITHMS, algorithm_terms
    from .bandwidth import volume_coefficient
    from .propagation import info_steps

    n = check_int("n", n, minimum=2)
    ports = check_int("ports", ports, minimum=1)
    chunks = check_int("chunks", chunks, minimum=1)
    model = ALGORITHMS[algorithm][primitive]
    options = {}
    trend_ports = ports
    if algorithm == "double_binary_tree":
        options = {"chunks": chunks} if pipelined else {"pipelined": False}
        if ports == 1:
            trend_ports = 2  # see above: the 1-port rounds are counted on trees, up to DBT_ONE_PORT_MAX_N

    def ratios(nodes, p):
        cost = algorithm_terms(algorithm, primitive, nodes, m, ports=p, **options)
        return cost.steps / info_steps(nodes, p), (cost.bandwidth_bytes / m) / (volume_coefficient(primitive, nodes) / p)

    here = ratios(n, ports) if not (model.power_of_two and n & (n - 1)) else (np.nan, np.nan)
    large, huge = ratios(large_n, trend_ports), ratios(huge_n, trend_ports)

    def verdict(i):
        if trend_ports == ports and np.isclose(here[i], 1.0) and np.isclose(large[i], 1.0) and np.isclose(huge[i], 1.0):
            return "exact"
        return "constant" if huge[i] <= 1.25 * large[i] else "grows"

    return {
        "steps_ratio": here[0], "bandwidth_ratio": here[1],
        "steps_ratio_large": huge[0], "bandwidth_ratio_large": huge[1],
        "latency": verdict(0), "bandwidth": verdict(1),
    }
