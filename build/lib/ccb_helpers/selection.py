"""Algorithm selection the way NCCL does it: cost every algorithm, take the fastest.

A fixed size threshold ("switch Tree -> Ring at ~1 MB") cannot be right for every machine: the
size where two algorithms cost the same depends on N, α, β and the port count. These helpers
compute that size and the best algorithm per size band from the cost models.
"""

from __future__ import annotations

import numpy as np

from ._validation import (
    INT64_MAX,
    MAX_BYTES,
    check_bandwidth,
    check_bool,
    check_cap,
    check_int,
    check_real,
    check_seconds,
)
from .algorithms import MAX_CHUNKS, MAX_NODES, _best_algorithm, _best_memory, _check_applicable, _cost, _model, _terms
from .algorithms import best as _best
from .primitives import check_primitive

__all__ = ["crossover_between", "best_algorithm_bands", "optimality"]

#: Sizes :func:`crossover_between` scans (log-spaced) before bisecting a bracket.
CROSSOVER_GRID = 1025
#: Most sizes :func:`best_algorithm_bands` evaluates.
MAX_BAND_POINTS = 2**20


def _check_range(m_min, m_max):
    m_min = check_real("m_min", m_min, minimum=0.0, strict=True, maximum=MAX_BYTES, scalar=True)
    m_max = check_real("m_max", m_max, minimum=0.0, strict=True, maximum=MAX_BYTES, scalar=True)
    if m_max < m_min:
        raise ValueError(f"m_max must be >= m_min, got m_min={m_min:g}, m_max={m_max:g}")
    return m_min, m_max


def crossover_between(
    algorithm_a, algorithm_b, primitive, n, alpha, beta, ports=1, m_min=1.0, m_max=2.0**44, gamma=0.0
):
    """Smallest message size (bytes) in ``[m_min, m_max]`` at which two algorithms cost the same,
    or ``None`` if there is none.

    The cost difference is evaluated at 1025 log-spaced sizes; the first bracket where its sign
    changes is bisected on ``log M``. Most costs are affine in ``M``; the pipelined algorithms'
    are not (their chunk count is an integer, at most ``M // 2`` or ``M``), and with a tiny ``alpha``
    it can *jump* past the other cost without ever equalling it. Such a bracket is not a
    crossover: the search goes on to the next one (the result always has equal costs, to 1e-6).

    >>> m = crossover_between("binomial_tree", "ring", "all_reduce", 16, 5e-6, 25e9)
    >>> round(m)   # 8 alpha + 8 M/beta = 30 alpha + 1.875 M/beta  =>  M = 22 alpha beta / 6.125
    448980
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=2, maximum=MAX_NODES, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX, scalar=True)
    for name in ("algorithm_a", "algorithm_b"):
        value = algorithm_a if name == "algorithm_a" else algorithm_b
        try:
            model = _model(value, primitive)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{name}: {err}") from None
        _check_applicable(value, model, n, ports)
    alpha = check_seconds("alpha", alpha, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    gamma = check_seconds("gamma", gamma, scalar=True)
    m_min, m_max = _check_range(m_min, m_max)
    return _crossover_between(algorithm_a, algorithm_b, primitive, n, alpha, beta, ports, m_min, m_max, gamma)


def _crossover_between(algorithm_a, algorithm_b, primitive, n, alpha, beta, ports, m_min, m_max, gamma=0.0):
    def cost(algorithm, m):
        return _cost(algorithm, primitive, n, m, alpha, beta, ports, gamma=gamma)

    def diff(m):
        return cost(algorithm_a, m) - cost(algorithm_b, m)

    def equal_at(m) -> bool:
        a = cost(algorithm_a, m)
        b = cost(algorithm_b, m)
        return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-300)

    logs = np.linspace(np.log2(m_min), np.log2(m_max), CROSSOVER_GRID)
    sizes = np.exp2(logs)
    sizes[0], sizes[-1] = m_min, m_max
    sign = np.sign(diff(sizes))
    for i in range(len(sizes)):
        if sign[i] == 0:
            return float(sizes[i])
        if i + 1 == len(sizes) or sign[i + 1] == 0 or sign[i + 1] == sign[i]:
            continue
        lo, hi, s_lo = logs[i], logs[i + 1], sign[i]
        for _ in range(200):
            mid = (lo + hi) / 2
            s_mid = np.sign(diff(float(np.exp2(mid))))
            if s_mid == 0:
                return float(np.exp2(mid))
            if s_mid == s_lo:
                lo = mid
            else:
                hi = mid
            if hi - lo < 1e-13:
                break
        m = float(np.exp2((lo + hi) / 2))
        # Both costs are affine in M across such a tiny bracket: the secant root is exact there.
        m_lo, m_hi = float(np.exp2(lo)), float(np.exp2(hi))
        d_lo, d_hi = diff(m_lo), diff(m_hi)
        if d_lo != d_hi:
            secant = m_lo - d_lo * (m_hi - m_lo) / (d_hi - d_lo)
            if m_lo <= secant <= m_hi and abs(diff(secant)) <= abs(diff(m)):
                m = secant
        if equal_at(m):
            return min(max(m, m_min), m_max)
    return None


def best_algorithm_bands(primitive, n, alpha, beta, ports=1, m_min=1.0, m_max=2.0**36, points=400, gamma=0.0):
    """Size bands with their fastest algorithm: ``[(m_start, m_end, name), ...]`` (bytes).

    The whole catalogue competes (:func:`ccb_helpers.best_algorithm`, ``gamma`` seconds per byte
    added): what is possible in the round model, not a library's choice.

    >>> bands = best_algorithm_bands("all_reduce", 64, 5e-6, 25e9)
    >>> [name for *_, name in bands]
    ['recursive_doubling', 'recursive_halving_doubling']
    >>> [name for *_, name in best_algorithm_bands("all_reduce", 48, 5e-6, 25e9)]   # not a power of two
    ['recursive_doubling', 'bruck']
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=MAX_NODES, scalar=True)
    alpha = check_seconds("alpha", alpha, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    gamma = check_seconds("gamma", gamma, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX, scalar=True)
    m_min, m_max = _check_range(m_min, m_max)
    points = check_int("points", points, minimum=1, maximum=MAX_BAND_POINTS, scalar=True)
    check_cap(
        f"best_algorithm_bands with points={points}: memory",
        _band_memory(primitive, n, points, ports),
        _best.BEST_ALGORITHM_MAX_BYTES,  # read at call time: the memory test lowers it
        "bytes",
        hint="use fewer points",
    )
    ms = np.geomspace(m_min, m_max, points)
    names, _ = _best_algorithm(primitive, n, ms, alpha, beta, ports, gamma)
    # Where the winner changes, found by numpy (a Python loop over 2**20 points took 7 s).
    starts = [0, *(np.flatnonzero(names[1:] != names[:-1]) + 1).tolist()]
    ends = [*(i - 1 for i in starts[1:]), len(ms) - 1]
    return [(float(ms[a]), float(ms[b]), str(names[a])) for a, b in zip(starts, ends)]


def _band_memory(primitive, n, points, ports) -> int:
    """Peak bytes of :func:`best_algorithm_bands`: :func:`_best_algorithm` on ``points`` sizes, the
    sizes, and the comparison of neighbouring names (a bool and an index per point)."""
    return _best_memory(primitive, n, (points,), ports) + 24 * points


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
    from .bandwidth import _volume_coefficient
    from .propagation import _info_steps

    model = _model(algorithm, primitive)
    n = check_int("n", n, minimum=2, maximum=MAX_NODES, scalar=True)
    m = check_real("m", m, minimum=1.0, maximum=MAX_BYTES, scalar=True)  # at least a byte: the ratios divide by m
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX, scalar=True)
    large_n = check_int("large_n", large_n, minimum=2, maximum=MAX_NODES, scalar=True)
    huge_n = check_int("huge_n", huge_n, minimum=2, maximum=MAX_NODES, scalar=True)
    if huge_n <= large_n:
        raise ValueError(f"huge_n must be > large_n, got large_n={large_n}, huge_n={huge_n}")
    pipelined = check_bool("pipelined", pipelined)
    chunks = check_int("chunks", chunks, minimum=1, maximum=MAX_CHUNKS, scalar=True)
    options = (None, True)  # (chunks, pipelined)
    trend_ports = ports
    if model.optimal_chunks is not None:
        options = (chunks, True) if pipelined else (None, False)
        if algorithm == "double_binary_tree" and ports == 1:
            trend_ports = 2  # see above: the 1-port rounds are counted on trees, up to DBT_ONE_PORT_MAX_N
    for name, value, p in (("n", n, ports), ("large_n", large_n, trend_ports), ("huge_n", huge_n, trend_ports)):
        try:
            _check_applicable(algorithm, model, value, p)
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None

    def ratios(nodes, p):
        cost = _terms(algorithm, primitive, nodes, m, p, *options)
        return cost.steps / _info_steps(nodes, p), (cost.bandwidth_bytes / m) / (
            _volume_coefficient(primitive, nodes) / p
        )

    here = ratios(n, ports)
    large, huge = ratios(large_n, trend_ports), ratios(huge_n, trend_ports)

    def verdict(i):
        if trend_ports == ports and np.isclose(here[i], 1.0) and np.isclose(large[i], 1.0) and np.isclose(huge[i], 1.0):
            return "exact"
        return "constant" if huge[i] <= 1.25 * large[i] else "grows"

    return {
        "steps_ratio": here[0],
        "bandwidth_ratio": here[1],
        "steps_ratio_large": huge[0],
        "bandwidth_ratio_large": huge[1],
        "latency": verdict(0),
        "bandwidth": verdict(1),
    }
