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
from ._validation import (
    INT64_MAX,
    check_bandwidth,
    check_bool,
    check_cap,
    check_choice,
    check_int,
    check_record,
    check_seconds,
    check_shapes,
    check_size,
    is_array,
)
from .bounds import _combined_lower_bound, _round_lower_bound
from .double_binary_tree import _dbt_levels
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

#: Largest node count of the cost models: ``2 (n - 1)`` rounds of a ring AllReduce stay in int64.
MAX_NODES = 2**62
#: Most pipeline chunks per tree of the double binary tree (:func:`optimal_chunks` never exceeds it).
MAX_CHUNKS = 2**40


@check_record(steps="int[]", bandwidth_bytes="real[]")
class Cost(NamedTuple):
    """Rounds and bandwidth bytes (sum over rounds of the largest message) of one run."""

    steps: int
    bandwidth_bytes: float

    def time(self, alpha, beta):
        """Seconds: ``steps * alpha + bandwidth_bytes / beta`` (α in s, β in bytes/s).

        >>> Cost(3, 8.0).time(1e-6, 4.0)
        2.000003
        """
        alpha = check_seconds("alpha", alpha)
        beta = check_bandwidth("beta", beta)
        steps = check_int("steps", self.steps, minimum=0, maximum=INT64_MAX)
        volume = check_size("bandwidth_bytes", self.bandwidth_bytes)
        check_shapes(steps=steps, bandwidth_bytes=volume, alpha=alpha, beta=beta)
        return _time(steps, volume, alpha, beta)


def _time(steps, volume, alpha, beta):
    return steps * alpha + volume / beta


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
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    check_shapes(n=n)
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
    ``sqrt((H - 1) M / (2 alpha beta))``; the better neighbouring integer in
    ``[1, max(1, min(M // 2, 2**40))]`` is returned (a chunk holds at least one byte per tree;
    ``MAX_CHUNKS = 2**40`` caps the count). With ``alpha = 0`` (or ``alpha * beta`` below the
    smallest float) more chunks always help, so the cap is returned. Arrays broadcast.

    >>> optimal_chunks(16, 2**20, 5e-6, 25e9)   # sqrt(3 * 2**20 / 2.5e5) = 3.55; C = 4 beats C = 3
    4
    """
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    m = check_size("m", m)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    check_shapes(n=n, m=m, alpha=alpha, beta=beta, bytes_per_element=120)  # measured: 104
    return _optimal_chunks(n, m, alpha, beta)


def _optimal_chunks(n, m, alpha, beta):
    """:func:`optimal_chunks` on validated arguments, vectorised (Python int for scalars)."""
    scalar = not any(isinstance(x, np.ndarray) for x in (n, m, alpha, beta))
    height = np.asarray(ceil_log2(n), dtype=float)
    m, alpha, beta = (np.asarray(x, dtype=float) for x in (m, alpha, beta))
    cap = np.maximum(1.0, np.minimum(np.floor(m / 2), MAX_CHUNKS))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        best = np.sqrt((height - 1) * m / (2 * alpha * beta))  # inf when alpha * beta is 0 or underflows
    best = np.where(np.isfinite(best), best, cap)
    low = np.clip(np.floor(best), 1.0, cap)
    high = np.clip(np.ceil(best), 1.0, cap)

    def cost(c):
        return 2 * (height + c - 1) * (alpha + m / (2 * c * beta))

    chunks = np.where(cost(high) < cost(low), high, low)
    chunks = np.where((height <= 1) | (m == 0), 1.0, chunks).astype(np.int64)
    return int(chunks) if scalar else chunks


def _dbt_one_port_rounds(n, chunks):
    """Rounds of the 1-port double binary tree: the 1-port sub-rounds that carry a message.

    Each 2-port round splits into one sub-round per edge colour; a sub-round in which no edge of
    that colour is active (near the roots, where the two trees' top levels may share a colour)
    is dropped. Counted from the trees' (level, colour) pairs: for each phase and colour, the
    union of the intervals ``[level, level + C - 1]`` of rounds in which that level is busy.
    """

    def gaps(n_value: int) -> tuple[list[int], int]:
        # Per phase and colour, the gaps between consecutive busy levels (a busy level holds its
        # colour for C rounds) and how many (phase, colour) lists are not empty.
        found, lists = [], 0
        if n_value > 1:
            for pairs in _dbt_levels(n_value):
                for colour in (0, 1):
                    levels = sorted(level for level, c in pairs if c == colour)
                    found += [b - a for a, b in zip(levels, levels[1:])]
                    lists += bool(levels)
        return found, lists

    def count(n_value: int, c):
        found, lists = gaps(n_value)
        total = lists * c
        for gap in found:
            total = total + np.minimum(c, gap)
        return total

    if not isinstance(n, np.ndarray) and not isinstance(chunks, np.ndarray):
        return int(count(int(n), int(chunks)))
    n, chunks = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(chunks, dtype=np.int64))
    flat_n, flat_chunks = n.ravel(), chunks.ravel()
    out = np.empty(flat_n.shape, dtype=np.int64)
    # Group the elements by n once (a mask per distinct n made this O(elements x distinct n), #28).
    unique, inverse, sizes = np.unique(flat_n, return_inverse=True, return_counts=True)
    order = np.argsort(inverse.ravel(), kind="stable")
    for value, where in zip(unique.tolist(), np.split(order, np.cumsum(sizes)[:-1])):
        out[where] = count(value, flat_chunks[where])
    return out.reshape(n.shape)


#: Most work of the 1-port double binary tree's round counts in one call: the sum of the distinct
#: n > 1 (each costs O(n) to count on the trees, about 15 us per node here, then cached).
DBT_ONE_PORT_MAX_WORK = 2**19


#: Peak bytes of counting the trees' levels of each distinct n (then cached), the term of the
#: memory estimate besides the elements: per unit of that work (tracemalloc measures up to 346,
#: at n = 65536) and per distinct n (up to 4,000 for small n).
_DBT_BYTES_PER_WORK = 400
_DBT_BYTES_PER_TREE = 4096


def _dbt_distinct(n) -> np.ndarray:
    distinct = np.unique(n)
    return distinct[(distinct > 1) & (distinct <= DBT_ONE_PORT_MAX_N)]


def _dbt_work(n) -> int:
    return int(_dbt_distinct(n).sum(dtype=object))


def _dbt_memory(algorithm, n, ports) -> int:
    """Bytes the 1-port double binary tree's round counts take for an array ``n`` (0 otherwise)."""
    if algorithm != "double_binary_tree" or ports != 1 or not isinstance(n, np.ndarray):
        return 0
    distinct = _dbt_distinct(n)
    return _DBT_BYTES_PER_WORK * int(distinct.sum(dtype=object)) + _DBT_BYTES_PER_TREE * distinct.size


def _check_dbt_work(n) -> None:
    """Refuse, before any work, an array of n whose distinct 1-port trees would take too long."""
    if not isinstance(n, np.ndarray) or n.size <= 1:
        return
    work = _dbt_work(n)
    check_cap(
        "the 1-port double_binary_tree's rounds for every distinct n: sum of the distinct n",
        work,
        DBT_ONE_PORT_MAX_WORK,
        hint="use fewer distinct n, or ports=2 (closed form)",
    )


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
    # The total reaches ~ (N/2) log2 N blocks: beyond int64 near N = 2**62, so it is summed in floats
    # (each round's count is an exact int64).
    blocks = np.zeros(np.shape(n), dtype=float)
    top = int(np.max(steps))
    for b in range(top):
        period = 1 << (b + 1)
        half = 1 << b
        blocks = blocks + ((n // period) * half + np.maximum(0, n % period - half))
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
        "all_reduce": _Model(
            _two_port_rhd_all_reduce,
            min_ports=2,
            reference="Rabenseifner 2004 on two halves; dimension order shifted (this book)",
        ),
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


def _raw_terms(model: _Model, n, m, ports, options):
    """(steps, bytes) with n == 1 mapped to zero cost; arguments already validated."""
    steps, volume = model.terms(n, m, ports, options)
    if np.all(n > 1):  # the common case: skip two full-size selections (same numbers)
        return np.asarray(steps), np.asarray(volume)
    return np.where(n > 1, steps, 0), np.where(n > 1, volume, 0.0)


def _evaluate(model: _Model, n, m, ports, options):
    """The :class:`Cost` (Python numbers for scalars, arrays otherwise); arguments already validated."""
    steps, volume = _raw_terms(model, n, m, ports, options)
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
    if algorithm == "double_binary_tree" and ports == 1:
        _check_dbt_work(n)
    if np.any(_too_large(algorithm, n, ports)):
        raise ValueError(
            f"the 1-port double_binary_tree is modelled for n <= {DBT_ONE_PORT_MAX_N} (its rounds are counted on the "
            f"trees' edge colouring, O(n)); got n={int(np.max(n))}; use ports=2 for the closed form"
        )
    if model.power_of_two and not np.all(is_power_of_two(n)):
        raise ValueError(f"algorithm {algorithm!r} for this primitive needs n to be a power of two, got n={n}")


def _check_model_args(algorithm, primitive, n, m, ports, chunks, pipelined):
    """Validate what :func:`algorithm_terms` and :func:`algorithm_cost` share; return the model too."""
    model = _model(algorithm, primitive)
    n = check_int("n", n, minimum=1, maximum=MAX_NODES)
    m = check_size("m", m)
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX, scalar=True)
    _check_applicable(algorithm, model, n, ports)
    pipelined = check_bool("pipelined", pipelined)
    if chunks is not None:
        if algorithm != "double_binary_tree" or not pipelined:
            raise ValueError("chunks applies only to the pipelined double_binary_tree")
        chunks = check_int("chunks", chunks, minimum=1, maximum=MAX_CHUNKS)
    return model, n, m, ports, chunks, pipelined


def algorithm_terms(algorithm, primitive, n, m, ports=1, chunks=None, pipelined=True):
    """Rounds and bandwidth bytes of an algorithm: a :class:`Cost`.

    Parameters
    ----------
    algorithm : str
        A key of :data:`ALGORITHMS`.
    primitive : str
        A primitive the algorithm implements.
    n : int or array of int
        Nodes, ``1 <= n <= 2**62``.
    m : float or array
        Message size in bytes (the book's buffer conventions), ``0 <= m <= 2**96``.
    ports : int, default 1
        Ports per node. ``binomial_tree`` broadcast / reduce / all_reduce become k-nomial;
        ``bidirectional_ring`` needs ``ports >= 2``. ``double_binary_tree`` runs both trees at
        once with 2 ports; with 1 port every round splits into two by a 2-colouring of the tree
        edges (Sanders, Speck & Träff 2009), so rounds and bytes double.
    chunks : int, optional
        Pipeline chunks per tree for ``double_binary_tree`` (required here when pipelined),
        ``1 <= chunks <= 2**40``.
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
    model, n, m, ports, chunks, pipelined = _check_model_args(algorithm, primitive, n, m, ports, chunks, pipelined)
    if algorithm == "double_binary_tree" and pipelined and chunks is None:
        raise ValueError(
            "chunks is required for the pipelined double_binary_tree (or use algorithm_cost, which picks the best)"
        )
    check_shapes(
        n=n, m=m, chunks=chunks, bytes_per_element=88, fixed_bytes=_dbt_memory(algorithm, n, ports)
    )  # measured: 74
    return _terms(algorithm, primitive, n, m, ports, chunks, pipelined)


def _terms(algorithm, primitive, n, m, ports, chunks, pipelined) -> Cost:
    options = {"pipelined": pipelined}
    if chunks is not None:
        options["chunks"] = chunks
    return _evaluate(ALGORITHMS[algorithm][primitive], n, m, ports, options)


def algorithm_cost(algorithm, primitive, n, m, alpha, beta, ports=1, chunks=None, pipelined=True):
    """Time in seconds of ``algorithm`` for ``primitive``: ``steps * alpha + bytes / beta``.

    For the pipelined double binary tree ``chunks=None`` picks :func:`optimal_chunks`.

    Parameters
    ----------
    algorithm, primitive, n, m, ports, chunks, pipelined
        As in :func:`algorithm_terms`.
    alpha : float or array
        Latency per round, seconds (``0 <= alpha <= 1e9``).
    beta : float or array
        Link bandwidth per direction, bytes/s (``1e-9 <= beta <= 1e30``).

    Examples
    --------
    >>> algorithm_cost("ring", "all_reduce", 4, 4e6, 1e-6, 1e9)   # 6 alpha + 1.5 M / beta
    0.006006
    >>> algorithm_cost("pairwise", "all_to_all", 1, 1e6, 1e-6, 1e9)
    0.0
    """
    model, n, m, ports, chunks, pipelined = _check_model_args(algorithm, primitive, n, m, ports, chunks, pipelined)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    check_shapes(  # measured: 141 bytes per element
        n=n,
        m=m,
        alpha=alpha,
        beta=beta,
        chunks=chunks,
        bytes_per_element=160,
        fixed_bytes=_dbt_memory(algorithm, n, ports),
    )
    return _cost(algorithm, primitive, n, m, alpha, beta, ports, chunks, pipelined)


def _cost(algorithm, primitive, n, m, alpha, beta, ports, chunks=None, pipelined=True):
    """:func:`algorithm_cost` on validated arguments (float for scalars, array otherwise)."""
    if algorithm == "double_binary_tree" and pipelined and chunks is None:
        chunks = _optimal_chunks(n, m, alpha, beta)
    steps, volume = _raw_terms(
        ALGORITHMS[algorithm][primitive],
        n,
        m,
        ports,
        {"pipelined": pipelined} if chunks is None else {"pipelined": pipelined, "chunks": chunks},
    )
    time = _time(steps, volume, alpha, beta)
    return (
        float(time) if np.ndim(time) == 0 and not any(isinstance(x, np.ndarray) for x in (n, m, alpha, beta)) else time
    )


def applicable_algorithms(primitive, n=None, ports=1):
    """Names of the algorithms that implement ``primitive`` (for ``n`` and ``ports`` if given).

    >>> applicable_algorithms("all_reduce", n=6)
    ['ring', 'binomial_tree', 'double_binary_tree', 'recursive_halving_doubling', 'recursive_doubling']
    >>> applicable_algorithms("all_gather", n=8, ports=2)
    ['ring', 'bidirectional_ring', 'recursive_doubling', 'bruck']
    """
    primitive = check_primitive(primitive)
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX, scalar=True)
    if n is not None:
        n = check_int("n", n, minimum=1, maximum=INT64_MAX)
        check_shapes(n=n)
    return _applicable(primitive, n, ports)


def _applicable(primitive, n, ports):
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

    Arrays in (``n``, ``m``, ``alpha``, ``beta`` broadcast, at most ``2**25`` elements): returns
    an array of names and an array of times; algorithms that need a power of two compete only
    where ``n`` is one. Ties go to the algorithm listed first in :data:`ALGORITHMS`. The memory
    estimate (the names array, 4 bytes a character, plus 80 bytes of times and temporaries per
    element) must stay within ``BEST_ALGORITHM_MAX_BYTES = 2 GiB`` (about ``2**23`` elements);
    it is checked before any work.

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
    n = check_int("n", n, minimum=1, maximum=MAX_NODES)
    m = check_size("m", m)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX, scalar=True)
    shape = check_shapes(n=n, m=m, alpha=alpha, beta=beta)
    check_cap(
        f"best_algorithm on {int(np.prod(shape, dtype=object))} elements: memory",
        _best_memory(primitive, n, shape, ports),
        BEST_ALGORITHM_MAX_BYTES,
        "bytes",
        hint="split the grid",
    )
    if "double_binary_tree" in _applicable(primitive, None, ports) and ports == 1:
        _check_dbt_work(n)
    return _best_algorithm(primitive, n, m, alpha, beta, ports)


#: Memory budget of one :func:`best_algorithm` call on arrays, bytes.
BEST_ALGORITHM_MAX_BYTES = 2 * 2**30
#: Bytes per grid element of :func:`best_algorithm` besides the names: the running minimum, the
#: row being costed, M / beta, the winner index, masks and the pipelined double binary tree's
#: temporaries (its optimal chunk count). tracemalloc measures at most 66 (AllReduce, 2 ports,
#: every argument an array); tests/test_memory_caps.py checks peak <= estimate at the cap.
_BEST_BYTES_PER_ELEMENT = 80


def _best_memory(primitive, n, shape, ports) -> int:
    """Estimated peak bytes of :func:`_best_algorithm` on a grid of ``shape``."""
    elements = int(np.prod(shape, dtype=object))
    if not shape:
        return 0
    names = _applicable(primitive, None, ports)
    name_bytes = 4 * max(len(name) for name in names)  # numpy's fixed-width unicode: 4 bytes a character
    return elements * (name_bytes + _BEST_BYTES_PER_ELEMENT)


def _best_algorithm(primitive, n, m, alpha, beta, ports):
    names = _applicable(primitive, None, ports)
    scalar = not any(isinstance(x, np.ndarray) for x in (n, m, alpha, beta))
    shape = np.broadcast_shapes(np.shape(n), np.shape(m), np.shape(alpha), np.shape(beta))
    # A running minimum (one row at a time) instead of a (algorithms x grid) table of times: the
    # table set the peak, with the names array, at 5.8 GB on the 2**25-element cap (#28).
    best_time = np.full(shape, np.inf)
    winner = np.zeros(shape, dtype=np.int8)
    row = np.empty(shape)
    # Every model but the pipelined double binary tree is linear in M: its rounds and bytes per
    # byte depend on n only, so they are computed on n's own (small) shape and broadcast once.
    m_over_beta = np.divide(m, beta)
    power_of_two = None
    for i, name in enumerate(names):
        model = ALGORITHMS[name][primitive]
        # The 1-port double binary tree competes only where n is within its cap.
        too_large = _too_large(name, n, ports)
        if name == "double_binary_tree":
            n_within = np.where(too_large, 2, n) if np.any(too_large) else n
            row[...] = _cost(name, primitive, n_within, m, alpha, beta, ports)
        else:
            steps, per_byte = _raw_terms(model, n, 1.0, ports, {"pipelined": True})
            np.multiply(per_byte, m_over_beta, out=row)
            row += steps * alpha
        if np.any(too_large):
            np.copyto(row, np.inf, where=np.broadcast_to(too_large, shape))
        if model.power_of_two:
            if power_of_two is None:
                power_of_two = is_power_of_two(n)
            np.copyto(row, np.inf, where=~np.broadcast_to(power_of_two, shape))
        better = row < best_time  # strictly: ties stay with the algorithm listed first
        np.copyto(best_time, row, where=better)
        np.copyto(winner, i, where=better)
        del better
    best_name = np.array(names)[winner]
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

    The cost models assume that any two nodes are one round apart (a switch or a complete
    graph), so ``diameter`` may only be 0 or 1 here: on a network with a larger step diameter
    the bound grows by ``D alpha`` but the model's cost does not, and the ratio would exceed 1.
    ``options`` are ``chunks`` / ``pipelined`` of :func:`algorithm_cost`.

    >>> round(efficiency("ring", "all_reduce", 8, 2**30, 5e-6, 25e9), 4)   # 14 alpha on top of M-bound
    0.9991
    >>> round(efficiency("ring", "all_reduce", 8, 4096, 5e-6, 25e9), 3)    # 3 alpha bound vs 14 alpha
    0.213
    >>> round(efficiency("ring", "all_reduce", 8, 4096, 5e-6, 25e9, bound="round"), 3)
    0.217
    """
    unknown = set(options) - {"chunks", "pipelined"}
    if unknown:
        raise TypeError(
            f"efficiency() got unexpected keyword arguments {sorted(unknown)}; options are chunks, pipelined"
        )
    bound = check_choice("bound", bound, ("combined", "round"))
    model, n, m, ports, chunks, pipelined = _check_model_args(
        algorithm, primitive, n, m, ports, options.get("chunks"), options.get("pipelined", True)
    )
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    diameter = check_int("diameter", diameter, minimum=0, maximum=1, scalar=True)
    check_shapes(  # measured: 104 bytes per element
        n=n,
        m=m,
        alpha=alpha,
        beta=beta,
        chunks=chunks,
        bytes_per_element=160,
        fixed_bytes=_dbt_memory(algorithm, n, ports),
    )
    cost = _cost(algorithm, primitive, n, m, alpha, beta, ports, chunks, pipelined)
    lower = _combined_lower_bound if bound == "combined" else _round_lower_bound
    value = lower(primitive, n, m, alpha, beta, ports, diameter, None)
    with np.errstate(invalid="ignore", divide="ignore"):
        if is_array(cost):
            return np.where(np.asarray(cost) > 0, value / np.where(np.asarray(cost) > 0, cost, 1.0), 1.0)
        return value / cost if cost > 0 else 1.0
