"""The fastest modelled algorithm (NCCL-style: cost every one, take the min) and efficiency against a bound."""

from __future__ import annotations

import numpy as np

from .._intmath import is_power_of_two
from .._validation import (
    INT64_MAX,
    check_bandwidth,
    check_cap,
    check_choice,
    check_int,
    check_seconds,
    check_shapes,
    check_size,
    is_array,
)
from ..bounds import _combined_lower_bound, _round_lower_bound
from ..primitives import check_primitive
from .core import MAX_NODES
from .double_tree import _check_dbt_work, _dbt_memory, _too_large
from .evaluate import _applicable, _check_model_args, _cost, _raw_reduced, _raw_terms
from .registry import ALGORITHMS


def best_algorithm(primitive, n, m, alpha, beta, ports=1, gamma=0.0):
    """The fastest modelled algorithm and its time, NCCL-style: cost every one, take the min.

    The catalogue is what is *possible* in the α-β-γ round model (``gamma`` seconds per byte
    combined, default 0), not what a library picks (chapter 8 has NCCL's own choices). Pipelined
    algorithms compete with their best chunk count. Arrays in (``n``, ``m``, ``alpha``, ``beta``,
    ``gamma`` broadcast, at most ``2**25`` elements): returns
    an array of names and an array of times; algorithms that need a power of two compete only
    where ``n`` is one. Ties go to the algorithm listed first in :data:`ALGORITHMS`. The memory
    estimate (the names array, 4 bytes a character, plus 112 bytes of times and temporaries per
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
    >>> best_algorithm("all_reduce", 12, 2**20, 5e-6, 25e9)[0]   # 8 rounds, 2 (N-1)/N M: no fold
    'bruck'
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=MAX_NODES)
    m = check_size("m", m)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    gamma = check_seconds("gamma", gamma)
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX, scalar=True)
    shape = check_shapes(n=n, m=m, alpha=alpha, beta=beta, gamma=gamma)
    check_cap(
        f"best_algorithm on {int(np.prod(shape, dtype=object))} elements: memory",
        _best_memory(primitive, n, shape, ports),
        BEST_ALGORITHM_MAX_BYTES,
        "bytes",
        hint="split the grid",
    )
    if "double_binary_tree" in _applicable(primitive, None, ports) and ports == 1:
        _check_dbt_work(n)
    return _best_algorithm(primitive, n, m, alpha, beta, ports, gamma)


#: Memory budget of one :func:`best_algorithm` call on arrays, bytes.
BEST_ALGORITHM_MAX_BYTES = 2 * 2**30
#: Bytes per grid element of :func:`best_algorithm` besides the names: the running minimum, the
#: row being costed, M / beta, the winner index, masks and the pipelined algorithms' temporaries
#: (their best chunk count). tracemalloc measures at most 94 (AllReduce, 2 ports, every argument
#: an array, gamma too; 78 for Reduce with the pipelined chain and tree);
#: tests/test_memory_caps.py checks peak <= estimate at the cap.
_BEST_BYTES_PER_ELEMENT = 112


def _best_memory(primitive, n, shape, ports) -> int:
    """Estimated peak bytes of :func:`_best_algorithm` on a grid of ``shape``."""
    elements = int(np.prod(shape, dtype=object))
    if not shape:
        return 0
    names = _applicable(primitive, None, ports)
    name_bytes = 4 * max(len(name) for name in names)  # numpy's fixed-width unicode: 4 bytes a character
    return elements * (name_bytes + _BEST_BYTES_PER_ELEMENT)


def _best_algorithm(primitive, n, m, alpha, beta, ports, gamma=0.0):
    names = _applicable(primitive, None, ports)
    scalar = not any(isinstance(x, np.ndarray) for x in (n, m, alpha, beta, gamma))
    shape = np.broadcast_shapes(np.shape(n), np.shape(m), np.shape(alpha), np.shape(beta), np.shape(gamma))
    with_gamma = not (np.ndim(gamma) == 0 and gamma == 0)
    # A running minimum (one row at a time) instead of a (algorithms x grid) table of times: the
    # table set the peak, with the names array, at 5.8 GB on the 2**25-element cap (#28).
    best_time = np.full(shape, np.inf)
    winner = np.zeros(shape, dtype=np.int8)
    row = np.empty(shape)
    # Every model but the pipelined ones is linear in M: its rounds and bytes per byte depend on
    # n only, so they are computed on n's own (small) shape and broadcast once.
    m_over_beta = np.divide(m, beta)
    power_of_two = None
    for i, name in enumerate(names):
        model = ALGORITHMS[name][primitive]
        # The 1-port double binary tree competes only where n is within its cap.
        too_large = _too_large(name, n, ports)
        if model.optimal_chunks is not None:
            n_within = np.where(too_large, 2, n) if np.any(too_large) else n
            row[...] = _cost(name, primitive, n_within, m, alpha, beta, ports, gamma=gamma)
        else:
            steps, per_byte = _raw_terms(model, n, 1.0, ports, {"pipelined": True})
            np.multiply(per_byte, m_over_beta, out=row)
            row += steps * alpha
            if with_gamma and model.reduced is not None:
                row += _raw_reduced(model, n, 1.0, ports, {"pipelined": True}) * np.multiply(m, gamma)
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


def efficiency(algorithm, primitive, n, m, alpha, beta, ports=1, diameter=0, bound="combined", gamma=0.0, **options):
    """Lower bound / ``algorithm_cost``: 1 means the algorithm attains the bound.

    ``bound="combined"`` divides the max form :func:`ccb_helpers.combined_lower_bound` (valid
    when start-up and transfer overlap); ``bound="round"`` the sum form
    :func:`ccb_helpers.round_lower_bound`, the tight one in the synchronous round model the cost
    models use. Against the max, no algorithm exceeds 1/2 at ``M = M*`` (the sum is twice the
    max there); against the sum, every algorithm's efficiency is at most 1.

    The cost models assume that any two nodes are one round apart (a switch or a complete
    graph), so ``diameter`` may only be 0 or 1 here: on a network with a larger step diameter
    the bound grows by ``D alpha`` but the model's cost does not, and the ratio would exceed 1.
    ``options`` are ``chunks`` / ``pipelined`` of :func:`algorithm_cost`. With ``gamma`` both
    sides carry the computation: the model its reduced bytes, the bound ``(N-1) M / N gamma``
    for the reductions (:func:`ccb_helpers.computation_lower_bound`).

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
    gamma = check_seconds("gamma", gamma)
    diameter = check_int("diameter", diameter, minimum=0, maximum=1, scalar=True)
    check_shapes(  # measured: 104 bytes per element
        n=n,
        m=m,
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        chunks=chunks,
        bytes_per_element=160,
        fixed_bytes=_dbt_memory(algorithm, n, ports),
    )
    cost = _cost(algorithm, primitive, n, m, alpha, beta, ports, chunks, pipelined, gamma)
    lower = _combined_lower_bound if bound == "combined" else _round_lower_bound
    value = lower(primitive, n, m, alpha, beta, ports, diameter, None, gamma)
    with np.errstate(invalid="ignore", divide="ignore"):
        if is_array(cost):
            return np.where(np.asarray(cost) > 0, value / np.where(np.asarray(cost) > 0, cost, 1.0), 1.0)
        return value / cost if cost > 0 else 1.0
