"""α-β cost models of the algorithms the chapters compare.

Every model is written as *rounds* and *bandwidth bytes*: the algorithm runs ``steps``
rounds and a round costs ``alpha`` plus its largest message over ``beta`` (ports work in
parallel, so a round with a message on each of two links costs one message time). The
bandwidth bytes are the sum over rounds of the largest message, and the time is

.. math:: T = \\text{steps} \\cdot \\alpha + \\frac{\\text{bandwidth bytes}}{\\beta}.

The bandwidth coefficient is ``bandwidth bytes / M``. Sources: MPICH's cost comments and
Thakur, Rabenseifner & Gropp (2005) for ring, binomial, recursive doubling / halving-doubling
(Rabenseifner 2004), Bruck et al. (1997) for Bruck, Sanders, Speck & Träff (2009) and NCCL
(Jeaugey 2019) for the double binary tree. ``tests/test_simulate.py`` runs each algorithm's
schedule and checks these numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from ._intmath import ceil_log, ceil_log2, floor_log2, is_power_of_two
from ._validation import check_bandwidth, check_choice, check_int, check_real, check_size, is_array
from .bounds import combined_lower_bound, round_lower_bound
from .primitives import check_primitive

__all__ = [
    "ALGORITHMS",
    "ALGORITHM_LABELS",
    "Cost",
    "algorithm_terms",
    "algorithm_cost",
    "applicable_algorithms",
    "best_algorithm",
    "efficiency",
    "optimal_chunks",
    "tree_height",
    "DBT_ONE_PORT_MAX_N",
]


class Cost(NamedTuple):
    """Rounds and bandwidth bytes (sum over rounds of the largest message) of one run."""

    steps: int
    bandwidth_bytes: float

    def time(self, alpha, beta):
        """Seconds: ``steps * alpha + bandwidth_bytes / beta`` (β in bytes/s)."""
        return self.steps * alpha + self.bandwidth_bytes / beta


@dataclass(frozen=True)
class _Model:
    """One algorithm for one primitive: a formula plus the conditions it needs."""

    terms: Callable  # (n, m, ports, options) -> (steps, bytes)
    min_ports: int = 1
    power_of_two: bool = False
    reference: str = ""


def tree_height(n):
    """Height of NCCL's binary tree over ``n`` ranks: ``ceil(log2 n)`` (rank 0 has one child).

    >>> tree_height(8), tree_height(5), tree_height(2)
    (3, 3, 1)
    """
    n = check_int("n", n, minimum=1)
    return ceil_log2(n)


def _frac_bytes(n, m):
    return (n - 1) * m / n


# -- ring -----------------------------------------------------------------------------------


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


# -- trees ----------------------------------------------------------------------------------


def _knomial_rounds(n, ports):
    return ceil_log(n, ports + 1)


def _binomial_rooted(n, m, ports, opts):
    steps = _knomial_rounds(n, ports)
    return steps, steps * m


def _binomial_all_reduce(n, m, ports, opts):
    steps = _knomial_rounds(n, ports)
    return 2 * steps, 2 * steps * m


def _binomial_scatter(n, m, ports, opts):
    # Round sizes N - 2^(L-1), 2^(L-2), ..., 1 blocks of M/N: they sum to N - 1 blocks.
    return ceil_log2(n), _frac_bytes(n, m)


def optimal_chunks(n, m, alpha, beta):
    """Chunk count ``C`` minimising the pipelined double-binary-tree time.

    ``T(C) = 2 (H + C - 1) (alpha + M / (2 C beta))`` is convex in ``C``; its real minimiser is
    ``sqrt((H - 1) M / (2 alpha beta))``; the better neighbouring integer in ``[1, max(1, M // 2)]``
    is returned (a chunk holds at least one byte per tree).

    >>> optimal_chunks(16, 2**20, 5e-6, 25e9)   # sqrt(3 * 2**20 / 2.5e5) = 3.55; C = 4 beats C = 3
    4
    """
    n = check_int("n", n, minimum=1)
    m = check_size("m", m)
    alpha = check_real("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    if is_array(n) or is_array(m) or is_array(alpha) or is_array(beta):
        n, m, alpha, beta = np.broadcast_arrays(n, m, alpha, beta)
        out = np.empty(n.shape, dtype=np.int64)
        for idx in np.ndindex(n.shape):
            out[idx] = optimal_chunks(int(n[idx]), float(m[idx]), float(alpha[idx]), float(beta[idx]))
        return out
    cap = max(1, int(m // 2))
    height = ceil_log2(n)
    if height <= 1 or m == 0:
        return 1
    if alpha == 0:
        return cap
    best = np.sqrt((height - 1) * m / (2 * alpha * beta))
    candidates = {max(1, min(cap, int(np.floor(best)))), max(1, min(cap, int(np.ceil(best))))}

    def cost(c):
        return 2 * (height + c - 1) * (alpha + m / (2 * c * beta))

    return min(sorted(candidates), key=cost)


def _dbt_one_port_rounds(n, chunks):
    """Rounds of the 1-port double binary tree: the 1-port sub-rounds that carry a message.

    Each 2-port round splits into one sub-round per edge colour; a sub-round in which no edge of
    that colour is active (near the roots, where the two trees' top levels may share a colour)
    is dropped. Counted from the trees' (level, colour) pairs: for each phase and colour, the
    union of the intervals ``[level, level + C - 1]`` of rounds in which that level is busy.
    """
    from .generators import _dbt_levels

    def count(n_value: int) -> int:
        if n_value <= 1:
            return 0
        total = 0
        for pairs in _dbt_levels(n_value):
            for colour in (0, 1):
                levels = sorted(level for level, c in pairs if c == colour)
                total += sum(min(chunks, b - a) for a, b in zip(levels, levels[1:])) + (chunks if levels else 0)
        return total

    if not isinstance(n, np.ndarray):
        return count(int(n))
    unique, inverse = np.unique(n, return_inverse=True)
    return np.array([count(int(v)) for v in unique], dtype=np.int64)[inverse].reshape(n.shape)


def _dbt_all_reduce(n, m, ports, opts):
    # Two binary trees of height H = ceil(log2 N), each carrying M/2; every rank is interior in
    # at most one tree. With 2 ports both trees run at once (an interior node receives from its
    # two children in the same round): reduce phase then broadcast phase, each pipelined over
    # C chunks of M/(2C), H + C - 1 rounds each. With 1 port (Sanders, Speck & Träff 2009) the
    # edges of both trees are coloured with two colours so that no node has two sends or two
    # receives of one colour; each 2-port round becomes two 1-port rounds, one per colour, and
    # the few that would carry nothing are dropped (just under 4 (H + C - 1) rounds).
    chunks = opts["chunks"] if opts.get("pipelined", True) else 1
    if ports == 1:
        rounds = _dbt_one_port_rounds(n, chunks)
    else:
        rounds = 2 * (ceil_log2(n) + chunks - 1)
    # Unpipelined (chunks = 1): 2H rounds of M/2 with 2 ports, the source's table row.
    return np.where(n > 1, rounds, 0), np.where(n > 1, rounds * m / (2 * chunks), 0.0)


# -- recursive algorithms ---------------------------------------------------------------------


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


def _bruck_all_gather(n, m, ports, opts):
    # Round b sends min(2^b, N - 2^b) blocks; the rounds sum to N - 1 blocks.
    return ceil_log2(n), _frac_bytes(n, m)


def _bruck_all_to_all(n, m, ports, opts):
    # Round b sends every block whose (rotated) index j in [0, N) has bit b set.
    steps = ceil_log2(n)
    blocks = np.zeros(np.shape(n), dtype=np.int64)
    top = int(np.max(steps))
    for b in range(top):
        period = 1 << (b + 1)
        half = 1 << b
        blocks = blocks + (n // period) * half + np.maximum(0, n % period - half)
    return steps, blocks * m / n


def _pairwise_all_to_all(n, m, ports, opts):
    return n - 1, _frac_bytes(n, m)


def _scatter_allgather_broadcast(n, m, ports, opts):
    # Binomial scatter of N blocks, then a ring all-gather (van de Geijn).
    return ceil_log2(n) + n - 1, 2 * _frac_bytes(n, m)


_THAKUR = "Thakur, Rabenseifner & Gropp 2005; MPICH"

ALGORITHMS: dict[str, dict[str, _Model]] = {
    "ring": {
        "reduce_scatter": _Model(_ring_half, reference=_THAKUR),
        "all_gather": _Model(_ring_half, reference=_THAKUR),
        "all_reduce": _Model(_ring_all_reduce, reference="Patarasuk & Yuan 2009; NCCL ring"),
    },
    "bidirectional_ring": {
        "reduce_scatter": _Model(_biring_half, min_ports=2),
        "all_gather": _Model(_biring_half, min_ports=2),
        "all_reduce": _Model(_biring_all_reduce, min_ports=2),
    },
    "binomial_tree": {
        "broadcast": _Model(_binomial_rooted, reference=_THAKUR + "; k-nomial for k ports"),
        "reduce": _Model(_binomial_rooted, reference=_THAKUR + "; k-nomial for k ports"),
        "scatter": _Model(_binomial_scatter, reference=_THAKUR),
        "gather": _Model(_binomial_scatter, reference=_THAKUR),
        "all_reduce": _Model(_binomial_all_reduce, reference="reduce + broadcast, " + _THAKUR),
    },
    "double_binary_tree": {
        "all_reduce": _Model(_dbt_all_reduce, reference="Sanders, Speck & Träff 2009; NCCL 2.4"),
    },
    "recursive_halving_doubling": {
        "all_reduce": _Model(_rhd_all_reduce, reference="Rabenseifner 2004; " + _THAKUR),
        "reduce_scatter": _Model(_halving_reduce_scatter, power_of_two=True, reference=_THAKUR),
    },
    "recursive_halving_doubling_2port": {
        "all_reduce": _Model(_two_port_rhd_all_reduce, min_ports=2,
                             reference="Rabenseifner 2004 on two halves; dimension order shifted (this book)"),
    },
    "recursive_doubling": {
        "all_gather": _Model(_doubling_all_gather, power_of_two=True, reference=_THAKUR),
        "all_reduce": _Model(_doubling_all_reduce, reference=_THAKUR),
    },
    "bruck": {
        "all_gather": _Model(_bruck_all_gather, reference="Bruck et al. 1997; " + _THAKUR),
        "all_to_all": _Model(_bruck_all_to_all, reference="Bruck et al. 1997; " + _THAKUR),
    },
    "pairwise": {
        "all_to_all": _Model(_pairwise_all_to_all, reference=_THAKUR),
    },
    "scatter_allgather": {
        "broadcast": _Model(_scatter_allgather_broadcast, reference="van de Geijn; " + _THAKUR),
    },
}

ALGORITHM_LABELS = {
    "ring": "Ring",
    "bidirectional_ring": "Bidirectional ring",
    "binomial_tree": "Binomial tree",
    "double_binary_tree": "Double binary tree",
    "recursive_halving_doubling": "Recursive halving-doubling",
    "recursive_halving_doubling_2port": "RHD, two halves (2-port)",
    "recursive_doubling": "Recursive doubling",
    "bruck": "Bruck",
    "pairwise": "Pairwise exchange",
    "scatter_allgather": "Scatter + AllGather",
}


def _model(algorithm, primitive) -> _Model:
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    primitive = check_primitive(primitive)
    models = ALGORITHMS[algorithm]
    if primitive not in models:
        raise ValueError(
            f"algorithm {algorithm!r} does not implement primitive {primitive!r}; "
            f"it implements: {', '.join(map(repr, models))}"
        )
    return models[primitive]


def _evaluate(model: _Model, n, m, ports, options):
    """(steps, bytes) with n == 1 mapped to zero cost; n, m already validated."""
    steps, volume = model.terms(n, m, ports, options)
    steps = np.where(n > 1, steps, 0)
    volume = np.where(n > 1, volume, 0.0)
    if steps.ndim == 0 and volume.ndim == 0:
        return Cost(int(steps), float(volume))
    steps, volume = np.broadcast_arrays(steps, volume)
    return Cost(steps.astype(np.int64, copy=False), volume.astype(float, copy=False))


#: Largest N of the 1-port double binary tree model: its rounds are counted on the two trees and
#: their edge colouring (O(N), about 1 s at the cap here, then cached).
DBT_ONE_PORT_MAX_N = 65536


def _too_large(algorithm, n, ports):
    """Where the model refuses ``n`` (the 1-port double binary tree past its cap)."""
    return (algorithm == "double_binary_tree") & (ports == 1) & (np.asarray(n) > DBT_ONE_PORT_MAX_N)


def _check_applicable(algorithm, model: _Model, n, ports):
    if ports < model.min_ports:
        raise ValueError(f"algorithm {algorithm!r} needs ports >= {model.min_ports}, got ports={ports}")
    if np.any(_too_large(algorithm, n, ports)):
        raise ValueError(
            f"the 1-port double_binary_tree is modelled for n <= {DBT_ONE_PORT_MAX_N} (its rounds are counted on the "
            f"trees' edge colouring, O(n)); got n={int(np.max(n))}; use ports=2 for the closed form"
        )
    if model.power_of_two and not np.all(is_power_of_two(n)):
        raise ValueError(f"algorithm {algorithm!r} for this primitive needs n to be a power of two, got n={n}")


def algorithm_terms(algorithm, primitive, n, m, ports=1, chunks=None, pipelined=True):
    """Rounds and bandwidth bytes of an algorithm: a :class:`Cost`.

    Parameters
    ----------
    algorithm : str
        A key of :data:`ALGORITHMS`.
    primitive : str
        A primitive the algorithm implements.
    n : int or array of int
        Nodes, ``n >= 1``.
    m : float or array
        Message size in bytes (the book's buffer conventions).
    ports : int, default 1
        Ports per node. ``binomial_tree`` broadcast / reduce / all_reduce become k-nomial;
        ``bidirectional_ring`` needs ``ports >= 2``. ``double_binary_tree`` runs both trees at
        once with 2 ports; with 1 port every round splits into two by a 2-colouring of the tree
        edges (Sanders, Speck & Träff 2009), so rounds and bytes double.
    chunks : int, optional
        Pipeline chunks per tree for ``double_binary_tree`` (required here when pipelined).
    pipelined : bool, default True
        ``double_binary_tree`` only: ``False`` gives the unpipelined form of the source's table.

    Examples
    --------
    >>> algorithm_terms("ring", "all_reduce", 8, 8000)
    Cost(steps=14, bandwidth_bytes=14000.0)
    >>> algorithm_terms("recursive_halving_doubling", "all_reduce", 6, 6000)
    Cost(steps=6, bandwidth_bytes=21000.0)
    >>> algorithm_terms("double_binary_tree", "all_reduce", 8, 8000, ports=2, pipelined=False)
    Cost(steps=6, bandwidth_bytes=24000.0)
    >>> algorithm_terms("double_binary_tree", "all_reduce", 8, 8000, chunks=4)   # 1 port
    Cost(steps=22, bandwidth_bytes=22000.0)
    """
    model = _model(algorithm, primitive)
    n = check_int("n", n, minimum=1)
    m = check_size("m", m)
    ports = check_int("ports", ports, minimum=1)
    if is_array(ports):
        raise TypeError("ports must be a scalar integer")
    _check_applicable(algorithm, model, n, ports)
    if not isinstance(pipelined, bool):
        raise TypeError(f"pipelined must be True or False, got {pipelined!r}")
    options = {"pipelined": pipelined}
    if algorithm == "double_binary_tree" and pipelined:
        if chunks is None:
            raise ValueError("chunks is required for the pipelined double_binary_tree (or use algorithm_cost, which picks the best)")
        options["chunks"] = check_int("chunks", chunks, minimum=1)
    elif chunks is not None:
        raise ValueError("chunks applies only to the pipelined double_binary_tree")
    return _evaluate(model, n, m, ports, options)


def algorithm_cost(algorithm, primitive, n, m, alpha, beta, ports=1, chunks=None, pipelined=True):
    """Time in seconds of ``algorithm`` for ``primitive``: ``steps * alpha + bytes / beta``.

    For the pipelined double binary tree ``chunks=None`` picks :func:`optimal_chunks`.

    Parameters
    ----------
    algorithm, primitive, n, m, ports, chunks, pipelined
        As in :func:`algorithm_terms`.
    alpha : float or array
        Latency per round, seconds.
    beta : float or array
        Link bandwidth per direction, bytes/s.

    Examples
    --------
    >>> algorithm_cost("ring", "all_reduce", 4, 4e6, 1e-6, 1e9)   # 6 alpha + 1.5 M / beta
    0.006006
    >>> algorithm_cost("pairwise", "all_to_all", 1, 1e6, 1e-6, 1e9)
    0.0
    """
    alpha = check_real("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    if algorithm == "double_binary_tree" and pipelined and chunks is None:
        check_int("n", n, minimum=1)
        check_size("m", m)
        chunks_grid = optimal_chunks(n, m, alpha, beta)
        if is_array(chunks_grid):
            n_b, m_b, c_b = np.broadcast_arrays(np.asarray(n), np.asarray(m, dtype=float), chunks_grid)
            out = np.empty(n_b.shape)
            for c in np.unique(c_b):
                mask = c_b == c
                cost = algorithm_terms(algorithm, primitive, n_b[mask], m_b[mask], ports, int(c), True)
                a = np.broadcast_to(alpha, n_b.shape)[mask] if is_array(alpha) else alpha
                b = np.broadcast_to(beta, n_b.shape)[mask] if is_array(beta) else beta
                out[mask] = cost.time(a, b)
            return out
        chunks = int(chunks_grid)
    return algorithm_terms(algorithm, primitive, n, m, ports, chunks, pipelined).time(alpha, beta)


def applicable_algorithms(primitive, n=None, ports=1):
    """Names of the algorithms that implement ``primitive`` (for ``n`` and ``ports`` if given).

    >>> applicable_algorithms("all_reduce", n=6)
    ['ring', 'binomial_tree', 'double_binary_tree', 'recursive_halving_doubling', 'recursive_doubling']
    >>> applicable_algorithms("all_gather", n=8, ports=2)
    ['ring', 'bidirectional_ring', 'recursive_doubling', 'bruck']
    """
    primitive = check_primitive(primitive)
    ports = check_int("ports", ports, minimum=1)
    if n is not None:
        n = check_int("n", n, minimum=1)
    names = []
    for name, models in ALGORITHMS.items():
        model = models.get(primitive)
        if model is None or ports < model.min_ports:
            continue
        if n is not None and model.power_of_two and not np.all(is_power_of_two(n)):
            continue
        if n is not None and np.any(_too_large(name, n, ports)):
            continue
        names.append(name)
    return names


def best_algorithm(primitive, n, m, alpha, beta, ports=1):
    """The fastest modelled algorithm and its time, NCCL-style: cost every one, take the min.

    Arrays in (``n``, ``m`` broadcast): returns an array of names and an array of times;
    algorithms that need a power of two compete only where ``n`` is one.

    Returns
    -------
    (str, float) or (ndarray of str, ndarray of float)

    Examples
    --------
    >>> best_algorithm("all_reduce", 64, 1024, 5e-6, 25e9)[0]
    'recursive_doubling'
    >>> best_algorithm("all_reduce", 64, 2**30, 5e-6, 25e9)[0]
    'recursive_halving_doubling'
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1)
    m = check_size("m", m)
    alpha = check_real("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    ports = check_int("ports", ports, minimum=1)
    names = applicable_algorithms(primitive, ports=ports)
    scalar = not (is_array(n) or is_array(m) or is_array(alpha) or is_array(beta))
    shape = np.broadcast_shapes(np.shape(n), np.shape(m), np.shape(alpha), np.shape(beta))
    # Work on flat 1-d copies so scalar and array inputs share one code path.
    flat = [np.broadcast_to(np.asarray(x), shape).ravel() for x in (n, m, alpha, beta)]
    n_f, m_f, a_f, b_f = flat[0].astype(np.int64), flat[1].astype(float), flat[2].astype(float), flat[3].astype(float)
    times = np.full((len(names), n_f.size), np.inf)
    for i, name in enumerate(names):
        # Algorithms that need a power of two (or, for the 1-port double binary tree, n within its
        # cap) compete only where n allows them.
        valid = ~_too_large(name, n_f, ports)
        if ALGORITHMS[name][primitive].power_of_two:
            valid &= is_power_of_two(n_f)
        if np.all(valid):
            times[i] = algorithm_cost(name, primitive, n_f, m_f, a_f, b_f, ports)
        elif np.any(valid):
            times[i, valid] = algorithm_cost(name, primitive, n_f[valid], m_f[valid], a_f[valid], b_f[valid], ports)
    winner = np.argmin(times, axis=0)
    best_time = times[winner, np.arange(n_f.size)].reshape(shape)
    best_name = np.array(names)[winner].reshape(shape)
    if scalar:
        return str(best_name.item()), float(best_time.item())
    return best_name, best_time


def efficiency(algorithm, primitive, n, m, alpha, beta, ports=1, diameter=0, bound="combined", **options):
    """Lower bound / ``algorithm_cost``: 1 means the algorithm attains the bound.

    ``bound="combined"`` divides the max form :func:`ccb_helpers.combined_lower_bound` (valid
    when start-up and transfer overlap); ``bound="round"`` the sum form
    :func:`ccb_helpers.round_lower_bound`, the tight one in the synchronous round model the cost
    models use. Against the max, no algorithm exceeds 1/2 at ``M = M*`` (the sum is twice the
    max there); against the sum, every algorithm's efficiency is at most 1.

    >>> round(efficiency("ring", "all_reduce", 8, 2**30, 5e-6, 25e9), 4)   # 14 alpha on top of M-bound
    0.9991
    >>> round(efficiency("ring", "all_reduce", 8, 4096, 5e-6, 25e9), 3)    # 3 alpha bound vs 14 alpha
    0.213
    >>> round(efficiency("ring", "all_reduce", 8, 4096, 5e-6, 25e9, bound="round"), 3)
    0.217
    """
    bound = check_choice("bound", bound, ("combined", "round"))
    cost = algorithm_cost(algorithm, primitive, n, m, alpha, beta, ports, **options)
    lower = combined_lower_bound if bound == "combined" else round_lower_bound
    value = lower(primitive, n, m, alpha, beta, ports, diameter)
    with np.errstate(invalid="ignore", divide="ignore"):
        if is_array(cost):
            return np.where(np.asarray(cost) > 0, value / np.asarray(cost), 1.0)
        return value / cost if cost > 0 else 1.0
