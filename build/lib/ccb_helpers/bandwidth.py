"""Bandwidth lower bounds: the bytes each node must move, over the bandwidth it has.

Two arguments give the volumes, and both are needed:

* **Information flow** (per node): a node must receive at least one value for every output
  element that depends on data it does not hold, and must send at least one value for every
  input element that some other node's output depends on (no coding across elements).
* **Byte conservation** (all nodes together): every byte sent is received, so the total sent
  equals the total received, and the busiest node moves at least the average. For AllReduce
  the total is fixed by the gossip argument: one element needs at least ``2(N-1)`` one-way
  transmissions (``N-1`` before the first node knows the full sum, ``N-1`` after), so the
  busiest node sends and receives ``2(N-1)M/N`` bytes (Patarasuk & Yuan 2009).

``eq:cc-bound-bw-general``: :math:`T_\\beta \\ge \\max(S, R) / (p\\,\\beta)` with
:math:`p = \\min(k, d)` ports used in parallel. β is the bandwidth of one link in one
direction, in bytes/s.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _validation  # its ARRAY_MAX_BYTES read at call time (the tests lower it)
from ._validation import (
    INT64_MAX,
    MAX_BYTES,
    MAX_SECONDS,
    _as_array,
    check_bandwidth,
    check_cap,
    check_int,
    check_real,
    check_record,
    check_shapes,
    check_size,
    is_array,
)
from .primitives import ROOTED_PRIMITIVES, check_primitive

__all__ = [
    "Volume",
    "role_volumes",
    "forced_volume",
    "volume_coefficient",
    "effective_ports",
    "bandwidth_lower_bound",
    "uniform_routing",
    "routing_volumes",
    "routing_lower_bound",
    "hot_expert_routing",
    "algorithm_bandwidth",
    "bus_bandwidth",
    "gossip_transmissions",
]

#: Largest routing matrix :func:`uniform_routing` / :func:`hot_expert_routing` build: N * N doubles.
ROUTING_MAX_BYTES = 2**30
# Peak bytes per entry of the routing functions that take a matrix (see _check_routing).
_ROUTING_BYTES_PER_ENTRY = 32
#: Shortest duration accepted by algbw / busbw (so that M / t stays a finite float).
MIN_SECONDS = 1e-15


@check_record(send="real[]", recv="real[]")
class Volume(NamedTuple):
    """Bytes sent and received by one node (or the busiest node)."""

    send: float
    recv: float


def _frac(n):
    """(N - 1) / N, elementwise."""
    return (n - 1) / n


def role_volumes(primitive, n, m):
    """Bytes each kind of node must send and receive, by information flow alone.

    These are the per-node volumes forced by each node's own inputs and outputs (the columns
    S and R of ``tbl-cc-bound-bw-1port``). For symmetric primitives the busiest node can be
    forced to move more by byte conservation: see :func:`forced_volume`.

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int
        Number of nodes, ``n >= 1``.
    m : float
        Message size in bytes, by the book's buffer conventions.

    Returns
    -------
    dict
        ``{"root": Volume, "non_root": Volume}`` for rooted primitives,
        ``{"every_node": Volume}`` otherwise.

    Examples
    --------
    >>> role_volumes("scatter", 4, 1024)
    {'root': Volume(send=768.0, recv=0.0), 'non_root': Volume(send=0.0, recv=256.0)}
    >>> role_volumes("all_reduce", 4, 1024)
    {'every_node': Volume(send=1024.0, recv=1024.0)}
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX, scalar=True)
    m = check_size("m", m, scalar=True)
    if n == 1:
        zero = Volume(0.0, 0.0)
        return {"root": zero, "non_root": zero} if primitive in ROOTED_PRIMITIVES else {"every_node": zero}
    block = m / n
    rest = m - block  # (N-1) M / N
    table = {
        "broadcast": {"root": Volume(m, 0.0), "non_root": Volume(0.0, m)},
        "scatter": {"root": Volume(rest, 0.0), "non_root": Volume(0.0, block)},
        "gather": {"root": Volume(0.0, rest), "non_root": Volume(block, 0.0)},
        "reduce": {"root": Volume(0.0, m), "non_root": Volume(m, 0.0)},
        "reduce_scatter": {"every_node": Volume(rest, block)},
        "all_gather": {"every_node": Volume(block, rest)},
        "all_reduce": {"every_node": Volume(m, m)},
        "all_to_all": {"every_node": Volume(rest, rest)},
    }
    return table[primitive]


def volume_coefficient(primitive, n):
    """``max(S, R) / M`` for the busiest node: the bandwidth coefficient of the bound.

    Examples
    --------
    >>> volume_coefficient("all_reduce", 4), volume_coefficient("all_gather", 4)
    (1.5, 0.75)
    >>> volume_coefficient("broadcast", 1)
    0.0
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    check_shapes(n=n)
    return _volume_coefficient(primitive, n)


def _volume_coefficient(primitive, n):
    s, r = _forced_volume(primitive, n, 1.0, granular=False)
    return np.maximum(s, r) if is_array(n) else max(s, r)


def forced_volume(primitive, n, m):
    """Bytes the busiest node must send and receive: information flow plus conservation.

    ================ ======================= =======================
    primitive        S (bytes sent)          R (bytes received)
    ================ ======================= =======================
    broadcast        M (root)                M (any non-root)
    scatter          (N-1)M/N (root)         M/N
    gather           M/N                     (N-1)M/N (root)
    reduce           M (any non-root)        M (root)
    reduce_scatter   (N-1)M/N                (N-1)M/N (conservation)
    all_gather       (N-1)M/N (conservation) (N-1)M/N
    all_reduce       2(N-1)M/N (gossip)      2(N-1)M/N (gossip)
    all_to_all       (N-1)M/N                (N-1)M/N
    ================ ======================= =======================

    The blocks of Scatter and Gather are whole bytes (:func:`ccb_helpers.block_bounds`): when
    ``N`` does not divide ``M`` they differ by a byte and the root may own a largest one, so the
    root moves at least ``M - ceil(M/N)`` bytes, and some other node at least ``floor(M/N)``
    (the table's values when ``N`` divides ``M``). A 1-byte Scatter whose byte is the root's own
    block sends nothing; ``(N-1)M/N`` put the bound above that verified schedule (issue #28).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int or array of int
        Number of nodes, ``n >= 1`` (one node moves nothing).
    m : float or array
        Message size in bytes (buffer conventions of the book).

    Returns
    -------
    Volume
        ``(send, recv)`` in bytes; arrays when ``n`` or ``m`` are arrays.

    Examples
    --------
    >>> forced_volume("all_reduce", 8, 8 * 2**20)
    Volume(send=14680064.0, recv=14680064.0)
    >>> forced_volume("reduce_scatter", 4, 400)
    Volume(send=300.0, recv=300.0)
    >>> forced_volume("scatter", 4, 400), forced_volume("scatter", 4, 10)   # blocks 2, 3, 2, 3
    (Volume(send=300.0, recv=100.0), Volume(send=7.0, recv=2.0))
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    m = check_size("m", m)
    check_shapes(n=n, m=m, bytes_per_element=72)  # measured: 58
    return _forced_volume(primitive, n, m)


def _forced_volume(primitive, n, m, granular=True):
    """``granular=False``: the source's equal blocks of M/N (the coefficient c(N) of the tables)."""
    many = n > 1  # scalar bool or array
    frac = _frac(n)
    if primitive in ("broadcast", "reduce"):
        send = recv = np.where(many, m, 0.0)
    elif primitive in ("scatter", "gather"):
        root, other = frac * m, np.where(many, m / n, 0.0)
        if granular:
            # Whole-byte blocks: the root may own the largest, ceil(M/N); another node the smallest.
            with np.errstate(invalid="ignore", divide="ignore"):
                even = np.mod(m, n) == 0
                root = np.where(even, root, np.maximum(m - np.ceil(m / n), 0.0))
                other = np.where(even, other, np.where(many, np.floor(m / n), 0.0))
        send, recv = (root, other) if primitive == "scatter" else (other, root)
    elif primitive == "all_reduce":
        send = recv = 2 * frac * m
    else:  # reduce_scatter, all_gather, all_to_all
        send = recv = frac * m
    send, recv = np.broadcast_arrays(np.asarray(send, dtype=float), np.asarray(recv, dtype=float))
    if send.ndim == 0:
        return Volume(float(send), float(recv))
    return Volume(send.copy(), recv.copy())


def effective_ports(ports=1, degree=None):
    """:math:`p = \\min(k, d)`: the links a node can use at once.

    >>> effective_ports(6, degree=2), effective_ports(2), effective_ports(4, degree=None)
    (2, 2, 4)
    """
    ports, degree = _check_ports_degree(ports, degree)
    check_shapes(ports=ports, degree=degree)
    return _effective_ports(ports, degree)


def _check_ports_degree(ports, degree):
    """``ports >= 1`` and ``degree`` (``None`` or ``>= 1``), integers or integer arrays."""
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX)
    if degree is not None:
        degree = check_int("degree", degree, minimum=1, maximum=INT64_MAX)
    return ports, degree


def _effective_ports(ports, degree):
    if degree is None:
        return ports
    return np.minimum(ports, degree) if (is_array(ports) or is_array(degree)) else min(ports, degree)


def bandwidth_lower_bound(primitive, n, m, beta, ports=1, degree=None):
    """Node-level bandwidth lower bound in seconds, ``eq:cc-bound-bw-general``.

    :math:`T_\\beta^{\\min} = \\max(S, R) / (p\\,\\beta)` with the busiest node's volumes of
    :func:`forced_volume` and :math:`p = \\min(k, d)`.

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int or array of int
        Number of nodes, ``n >= 1``.
    m : float or array
        Message size in bytes.
    beta : float
        Bandwidth of one link in one direction, bytes/s (``> 0``).
    ports : int, default 1
        Ports per node ``k``.
    degree : int, optional
        Node degree ``d``; when given, ``p = min(ports, degree)``.

    Examples
    --------
    AllReduce of 1 GiB on 8 nodes over 100 GB/s links, 1-port (2 * 7/8 GiB / 100 GB/s):

    >>> round(bandwidth_lower_bound("all_reduce", 8, 2**30, 100e9) * 1e3, 4)
    18.7905
    >>> bandwidth_lower_bound("all_gather", 8, 2**30, 100e9, ports=2) * 2 == \\
    ...     bandwidth_lower_bound("all_gather", 8, 2**30, 100e9)
    True
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    m = check_size("m", m)
    beta = check_bandwidth("beta", beta)
    ports, degree = _check_ports_degree(ports, degree)
    check_shapes(n=n, m=m, beta=beta, ports=ports, degree=degree, bytes_per_element=104)  # measured: 90
    return _bandwidth_lower_bound(primitive, n, m, beta, ports, degree)


def _bandwidth_lower_bound(primitive, n, m, beta, ports, degree):
    p = _effective_ports(ports, degree)
    send, recv = _forced_volume(primitive, n, m)
    if is_array(send) or is_array(p) or is_array(beta):
        return np.maximum(send, recv) / (p * np.asarray(beta, dtype=float))
    return max(send, recv) / (p * beta)


def uniform_routing(n, m):
    """The routing matrix of a uniform AllToAll: ``M/N`` bytes from every node to every node.

    Entry ``[i, j]`` is the bytes node ``i`` sends to node ``j`` (the diagonal stays local).
    The matrix is capped at ``ROUTING_MAX_BYTES = 2**30`` bytes of doubles (``n <= 11585``),
    checked before it is allocated.

    >>> uniform_routing(2, 8).tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    n = check_int("n", n, minimum=1, scalar=True)
    m = check_size("m", m, scalar=True)
    _check_routing_size(n)
    return _uniform_routing(n, m)


def _routing_memory(n: int) -> int:
    """Peak bytes of making an n x n routing matrix: the doubles, and for the hot expert's column
    a copy, an index and a mask (a few arrays of n); the arrays' headers (measured 232 bytes over
    ``8 n**2`` for :func:`uniform_routing`; tests/test_memory_caps.py)."""
    return 8 * n * n + 64 * n + 4096


def _check_routing_size(n: int) -> None:
    check_cap(
        f"an n x n routing matrix for n={n}: bytes",
        _routing_memory(n),
        ROUTING_MAX_BYTES,
        "bytes",
        hint="use forced_volume / bandwidth_lower_bound for large uniform AllToAll",
    )


def _uniform_routing(n, m):
    return np.full((n, n), m / n)


def _check_routing(matrix) -> np.ndarray:
    if not isinstance(matrix, (np.ndarray, list, tuple)):
        raise TypeError(f"matrix must be an N x N array of bytes, got {type(matrix).__name__}")
    array = _as_array("matrix", matrix)
    # The float copy, the diagonal as a matrix and the off-diagonal part (24 bytes per entry,
    # measured), the converted list if one was given, headers; checked before any copy.
    check_cap(
        f"matrix of {array.size:,} entries: memory",
        _ROUTING_BYTES_PER_ENTRY * array.size + 4096,
        _validation.ARRAY_MAX_BYTES,
        "bytes",
    )
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise TypeError(f"matrix must hold real numbers (bytes), got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] < 1:
        raise ValueError(f"matrix must be square N x N with N >= 1, got shape {array.shape}")
    array = array.astype(float)
    if not np.all(np.isfinite(array)) or np.any(array < 0) or np.any(array > MAX_BYTES):
        raise ValueError(f"matrix entries must be finite bytes in [0, {MAX_BYTES:g}]")
    return array


def routing_volumes(matrix):
    """Per-node bytes sent ``S_i`` and received ``R_j`` for a routing matrix (diagonal excluded).

    This is Dispatch (tokens to experts) or, transposed, Combine; ``matrix[i, j]`` is the bytes
    node ``i`` sends to node ``j``.

    Returns
    -------
    Volume
        Arrays ``send[i] = sum_{j != i} matrix[i, j]`` and ``recv[j] = sum_{i != j} matrix[i, j]``.

    Examples
    --------
    >>> routing_volumes([[0, 3, 1], [2, 0, 2], [0, 5, 0]])
    Volume(send=array([4., 4., 5.]), recv=array([2., 8., 3.]))
    """
    return _routing_volumes(_check_routing(matrix))


def _routing_volumes(array):
    off = array - np.diag(np.diag(array))
    return Volume(off.sum(axis=1), off.sum(axis=0))


def routing_lower_bound(matrix, beta, ports=1):
    """Bandwidth lower bound of a non-uniform Dispatch / Combine, in seconds.

    :math:`\\max(\\max_i S_i, \\max_j R_j) / (p\\,\\beta)`. The source lists only the
    receive side :math:`\\max_j R_j / \\beta`; a node that sends much more than it receives
    (a rank with many tokens) is just as much a bottleneck, so both sides are taken.

    Parameters
    ----------
    matrix : (N, N) array_like
        Bytes from node ``i`` (row) to node ``j`` (column).
    beta : float
        Link bandwidth per direction, bytes/s.
    ports : int, default 1
        Parallel ports ``p``.

    Examples
    --------
    >>> routing_lower_bound([[0, 3, 1], [2, 0, 2], [0, 5, 0]], beta=1.0)
    8.0
    >>> routing_lower_bound(uniform_routing(4, 400), beta=100.0)  # = (N-1)M/(N beta)
    3.0
    """
    array = _check_routing(matrix)
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX, scalar=True)
    send, recv = _routing_volumes(array)
    return float(max(send.max(), recv.max())) / (ports * beta)


def hot_expert_routing(n, m, hot=0, factor=3.0):
    """A MoE-style Dispatch matrix: uniform ``M/N`` per pair, except every node sends ``factor`` times
    as much to the ``hot`` node (a popular expert).

    >>> hot_expert_routing(3, 300, factor=2).tolist()
    [[100.0, 100.0, 100.0], [200.0, 100.0, 100.0], [200.0, 100.0, 100.0]]
    """
    n = check_int("n", n, minimum=2, scalar=True)
    m = check_size("m", m, scalar=True)
    hot = check_int("hot", hot, minimum=0, maximum=n - 1, scalar=True)
    factor = check_real("factor", factor, minimum=0.0, maximum=2.0**32, scalar=True)
    _check_routing_size(n)
    matrix = _uniform_routing(n, m)
    column = matrix[:, hot].copy()
    column[np.arange(n) != hot] *= factor
    matrix[:, hot] = column
    return matrix


def algorithm_bandwidth(m, seconds):
    """nccl-tests' *algbw*: message size over time, bytes/s.

    >>> algorithm_bandwidth(2**30, 0.01) / 1e9
    107.3741824
    """
    m = check_size("m", m)
    seconds = check_real("seconds", seconds, minimum=MIN_SECONDS, maximum=MAX_SECONDS)
    check_shapes(m=m, seconds=seconds)
    return m / seconds


def bus_bandwidth(primitive, n, m, seconds):
    """nccl-tests' *busbw*: algbw times the per-collective factor, bytes/s.

    The factors nccl-tests uses (AllReduce ``2(N-1)/N``, AllGather / ReduceScatter / AllToAll
    ``(N-1)/N``, Broadcast / Reduce 1) are exactly :func:`volume_coefficient`: busbw is the
    busiest node's forced volume over the time. So the node-level bandwidth bound says
    ``busbw <= p * beta`` for every algorithm, and ``busbw / (p * beta)`` is the fraction of the
    bandwidth bound an implementation reaches.

    >>> round(bus_bandwidth("all_reduce", 8, 2**30, 0.01) / 1e9, 3)   # 1.75 x algbw
    187.905
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    m = check_size("m", m)
    seconds = check_real("seconds", seconds, minimum=MIN_SECONDS, maximum=MAX_SECONDS)
    check_shapes(n=n, m=m, seconds=seconds, bytes_per_element=80)  # measured: 65
    return _volume_coefficient(primitive, n) * m / seconds


def gossip_transmissions(n):
    """Fewest one-way messages after which every node knows all ``n`` inputs (exhaustive search).

    A message ``u -> v`` merges what ``u`` knows into ``v``. Breadth-first search over knowledge
    states, so only tiny ``n`` (at most 4; 5 takes ~10 s). The answer, ``2(N-1)``, is the per-element count
    behind AllReduce's forced volume ``2(N-1)M/N``.

    >>> [gossip_transmissions(n) for n in (2, 3, 4)]
    [2, 4, 6]
    """
    import itertools

    n = check_int("n", n, minimum=1, maximum=4, scalar=True)
    start = tuple(1 << i for i in range(n))
    full = (1 << n) - 1
    frontier, seen, depth = {start}, {start}, 0
    while not any(all(s == full for s in state) for state in frontier):
        nxt = set()
        for state in frontier:
            for u, v in itertools.permutations(range(n), 2):
                new = list(state)
                new[v] |= state[u]
                new = tuple(new)
                if new not in seen:
                    seen.add(new)
                    nxt.add(new)
        frontier, depth = nxt, depth + 1
    return depth
