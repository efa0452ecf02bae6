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
from .double_tree import DBT_ONE_PORT_MAX_N, _check_dbt_work, _dbt_memory, _optimal_chunks, _too_large
from .registry import ALGORITHMS, _model


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
        if model is None or ports < model.min_ports or model.topology:
            continue
        if n is not None and model.power_of_two and not np.all(is_power_of_two(n)):
            continue
        if n is not None and np.any(_too_large(name, n, ports)):
            continue
        names.append(name)
    return names
