"""Evaluating the cost models: validation, rounds and bytes (:class:`Cost`), times, applicability."""

from __future__ import annotations

import numpy as np

from .._intmath import is_power_of_two
from .._validation import (
    INT64_MAX,
    check_bandwidth,
    check_bool,
    check_int,
    check_seconds,
    check_shapes,
    check_size,
)
from ..primitives import check_primitive
from .core import MAX_CHUNKS, MAX_NODES, Cost, _Model, _time
from .double_tree import DBT_ONE_PORT_MAX_N, _check_dbt_work, _dbt_memory, _too_large
from .registry import ALGORITHMS, _model


def _raw_terms(model: _Model, n, m, ports, options):
    """(steps, bytes) with n == 1 mapped to zero cost; arguments already validated."""
    steps, volume = model.terms(n, m, ports, options)
    if np.all(n > 1):  # the common case: skip two full-size selections (same numbers)
        return np.asarray(steps), np.asarray(volume)
    return np.where(n > 1, steps, 0), np.where(n > 1, volume, 0.0)


def _raw_reduced(model: _Model, n, m, ports, options):
    """Reduced bytes (0 for a model that combines nothing, and for n == 1); arguments already validated."""
    if model.reduced is None:
        return np.zeros(np.broadcast_shapes(np.shape(n), np.shape(m)))
    reduced = np.asarray(model.reduced(n, m, ports, options), dtype=float)
    return reduced if np.all(n > 1) else np.where(n > 1, reduced, 0.0)


def _evaluate(model: _Model, n, m, ports, options):
    """The :class:`Cost` (Python numbers for scalars, arrays otherwise); arguments already validated."""
    steps, volume = _raw_terms(model, n, m, ports, options)
    reduced = _raw_reduced(model, n, m, ports, options)
    if steps.ndim == 0 and volume.ndim == 0 and reduced.ndim == 0:
        return Cost(int(steps), float(volume), float(reduced))
    steps, volume, reduced = np.broadcast_arrays(steps, volume, reduced)
    return Cost(steps.astype(np.int64, copy=False), volume.astype(float, copy=False), reduced.astype(float, copy=False))


def pipelined_algorithms(primitive=None) -> list[str]:
    """Names of the algorithms pipelined in chunks (their models take ``chunks``), for ``primitive`` if given.

    >>> pipelined_algorithms("all_reduce")
    ['double_binary_tree']
    """
    if primitive is not None:
        primitive = check_primitive(primitive)
    return [
        name
        for name, models in ALGORITHMS.items()
        if any(model.optimal_chunks is not None for p, model in models.items() if primitive in (None, p))
    ]


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
        if model.optimal_chunks is None or not pipelined:
            raise ValueError(
                f"chunks applies only to the pipelined algorithms ({', '.join(pipelined_algorithms())}), "
                f"not to {algorithm!r}" + ("" if pipelined else " with pipelined=False")
            )
        chunks = check_int("chunks", chunks, minimum=1, maximum=MAX_CHUNKS)
    return model, n, m, ports, chunks, pipelined


def algorithm_terms(algorithm, primitive, n, m, ports=1, chunks=None, pipelined=True):
    """Rounds, bandwidth bytes and reduced bytes of an algorithm: a :class:`Cost` (eq:cc-cost-abg).

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
        ``bruck`` runs with radix ``k + 1``; ``bidirectional_ring`` needs ``ports >= 2``.
        ``double_binary_tree`` runs both trees at once with 2 ports; with 1 port every round
        splits into two by a 2-colouring of the tree edges (Sanders, Speck & Träff 2009), so
        rounds and bytes double.
    chunks : int, optional
        Pipeline chunks (per tree for ``double_binary_tree``, segments of M for
        ``pipelined_chain`` and ``pipelined_binary_tree``); required here for those algorithms
        when pipelined, ``1 <= chunks <= 2**40`` (see :func:`pipelined_algorithms`).
    pipelined : bool, default True
        Pipelined algorithms only: ``False`` is one chunk (the double binary tree's source table).

    Examples
    --------
    >>> algorithm_terms("ring", "all_reduce", 8, 8000)
    Cost(steps=14, bandwidth_bytes=14000.0, reduce_bytes=7000.0)
    >>> algorithm_terms("recursive_halving_doubling", "all_reduce", 6, 6000)   # adds: fold M, then 3/4 M
    Cost(steps=6, bandwidth_bytes=21000.0, reduce_bytes=10500.0)
    >>> algorithm_terms("double_binary_tree", "all_reduce", 8, 8000, ports=2, pipelined=False)
    Cost(steps=6, bandwidth_bytes=24000.0, reduce_bytes=20000.0)
    >>> algorithm_terms("double_binary_tree", "all_reduce", 8, 8000, chunks=4)   # 1 port
    Cost(steps=22, bandwidth_bytes=22000.0, reduce_bytes=11000.0)
    """
    model, n, m, ports, chunks, pipelined = _check_model_args(algorithm, primitive, n, m, ports, chunks, pipelined)
    if model.optimal_chunks is not None and pipelined and chunks is None:
        raise ValueError(
            f"chunks is required for the pipelined {algorithm} (or use algorithm_cost, which picks the best)"
        )
    check_shapes(  # measured: 74 bytes per element; 89 for the pipelined tree's Reduce (its depth, twice)
        n=n, m=m, chunks=chunks, bytes_per_element=128, fixed_bytes=_dbt_memory(algorithm, n, ports)
    )
    return _terms(algorithm, primitive, n, m, ports, chunks, pipelined)


def _options(model: _Model, chunks, pipelined) -> dict:
    """The options a model's functions read: ``pipelined``, and ``chunks`` (1 when not pipelined)."""
    options = {"pipelined": pipelined}
    if model.optimal_chunks is not None and not pipelined:
        options["chunks"] = 1
    elif chunks is not None:
        options["chunks"] = chunks
    return options


def _terms(algorithm, primitive, n, m, ports, chunks, pipelined) -> Cost:
    model = ALGORITHMS[algorithm][primitive]
    return _evaluate(model, n, m, ports, _options(model, chunks, pipelined))


def algorithm_cost(algorithm, primitive, n, m, alpha, beta, ports=1, chunks=None, pipelined=True, gamma=0.0):
    """Time in seconds of ``algorithm`` for ``primitive``: ``steps α + bytes / β + reduced bytes γ`` (eq:cc-cost-abg).

    For a pipelined algorithm ``chunks=None`` picks the best chunk count (its model's closed
    form: :func:`optimal_chunks` for the double binary tree, :func:`optimal_segments` for the
    pipelined chain and binary tree).

    Parameters
    ----------
    algorithm, primitive, n, m, ports, chunks, pipelined
        As in :func:`algorithm_terms`.
    alpha : float or array
        Latency per round, seconds (``0 <= alpha <= 1e9``).
    beta : float or array
        Link bandwidth per direction, bytes/s (``1e-9 <= beta <= 1e30``).
    gamma : float or array, default 0
        Seconds to combine one byte (``0 <= gamma <= 1e9``); 0 gives the α-β time.

    Examples
    --------
    >>> algorithm_cost("ring", "all_reduce", 4, 4e6, 1e-6, 1e9)   # 6 alpha + 1.5 M / beta
    0.006006
    >>> algorithm_cost("ring", "all_reduce", 4, 4e6, 1e-6, 1e9, gamma=1e-10)   # + 0.75 M gamma
    0.006306
    >>> algorithm_cost("pairwise", "all_to_all", 1, 1e6, 1e-6, 1e9)
    0.0
    """
    model, n, m, ports, chunks, pipelined = _check_model_args(algorithm, primitive, n, m, ports, chunks, pipelined)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    gamma = check_seconds("gamma", gamma)
    check_shapes(  # measured: 141 bytes per element
        n=n,
        m=m,
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        chunks=chunks,
        bytes_per_element=200,
        fixed_bytes=_dbt_memory(algorithm, n, ports),
    )
    return _cost(algorithm, primitive, n, m, alpha, beta, ports, chunks, pipelined, gamma)


def _cost(algorithm, primitive, n, m, alpha, beta, ports, chunks=None, pipelined=True, gamma=0.0):
    """:func:`algorithm_cost` on validated arguments (float for scalars, array otherwise)."""
    model = ALGORITHMS[algorithm][primitive]
    if model.optimal_chunks is not None and pipelined and chunks is None:
        chunks = model.optimal_chunks(n, m, alpha, beta, gamma, ports)
    options = _options(model, chunks, pipelined)
    steps, volume = _raw_terms(model, n, m, ports, options)
    if model.reduced is not None and not (np.ndim(gamma) == 0 and gamma == 0):
        time = _time(steps, volume, alpha, beta, _raw_reduced(model, n, m, ports, options), gamma)
    else:
        time = _time(steps, volume, alpha, beta)
    scalar = not any(isinstance(x, np.ndarray) for x in (n, m, alpha, beta, gamma))
    return float(time) if np.ndim(time) == 0 and scalar else time


def applicable_algorithms(primitive, n=None, ports=1):
    """Names of the algorithms that implement ``primitive`` (for ``n`` and ``ports`` if given).

    >>> applicable_algorithms("all_reduce", n=6)
    ['ring', 'binomial_tree', 'double_binary_tree', 'recursive_halving_doubling', 'recursive_doubling', 'bruck']
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
        if model is None or ports < model.min_ports or model.topology:
            continue
        if n is not None and model.power_of_two and not np.all(is_power_of_two(n)):
            continue
        if n is not None and np.any(_too_large(name, n, ports)):
            continue
        names.append(name)
    return names
