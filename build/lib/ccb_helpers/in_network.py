"""In-network reduction: what changes when the switch adds (NVLink SHARP / NVLS, InfiniBand SHARP, CollNet).

The forced volumes of :func:`ccb_helpers.forced_volume` assume **endpoint reduction**: only the
nodes add, so a partial sum travels from node to node and byte conservation plus the gossip
count force the busiest node to send and receive ``2(N-1)M/N`` in an AllReduce. A switch that
reduces (NVSwitch with NVLS, an InfiniBand switch with SHARP) or multicasts breaks both
arguments: N messages go in, one combined message comes out, so the bytes sent no longer equal
the bytes received and one element no longer needs ``2(N-1)`` transmissions between nodes.

What is left is information flow alone, node by node (busiest node, ``N >= 2``):

================ ======================= =======================
primitive        S (bytes sent)          R (bytes received)
================ ======================= =======================
broadcast        M (root)                M (any non-root)
scatter          (N-1)M/N (root)         M/N
gather           M/N                     (N-1)M/N (root)
reduce           M (any non-root)        M (root)
reduce_scatter   (N-1)M/N                M/N (the switch adds)
all_gather       M/N (the switch copies) (N-1)M/N
all_reduce       M                       M
all_to_all       (N-1)M/N                (N-1)M/N
================ ======================= =======================

Only AllReduce changes its ``max(S, R)``: ``M`` instead of ``2(N-1)M/N``. nccl-tests still
multiplies algbw by ``2(N-1)/N`` for AllReduce, so its busbw can reach ``2(N-1)/N * p * beta``,
above the endpoint ceiling ``p * beta``: 8 H100 reach about 480 GB/s busbw over 450 GB/s of
NVLink per direction (NVIDIA/nccl-tests#212, NVIDIA/nccl#1374). The latency bound changes too:
a reducing switch combines all N inputs within one round, so ``ceil(log_{p+1} N)`` no longer
applies (one round suffices in principle).
"""

from __future__ import annotations

import numpy as np

from ._validation import INT64_MAX, check_bandwidth, check_bool, check_int, check_shapes, check_size, is_array
from .bandwidth import Volume, _check_ports_degree, _effective_ports, _forced_volume, _volume_coefficient
from .primitives import check_primitive

__all__ = ["in_network_volume", "in_network_lower_bound", "busbw_limit", "nvls_all_reduce_volume"]


def in_network_volume(primitive, n, m):
    """Bytes the busiest node must send and receive when the network can add and copy.

    See the module table. Equal to :func:`ccb_helpers.forced_volume` except ReduceScatter and
    AllGather (one direction drops to ``M/N``) and AllReduce (``M`` each way instead of
    ``2(N-1)M/N``).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int or array of int
        Nodes, ``n >= 1``.
    m : float or array
        Message size in bytes (the book's buffer conventions).

    Returns
    -------
    Volume
        ``(send, recv)`` in bytes.

    Examples
    --------
    >>> in_network_volume("all_reduce", 8, 8000)
    Volume(send=8000.0, recv=8000.0)
    >>> in_network_volume("reduce_scatter", 8, 8000)   # 7/8 M out, the switch's sum M/8 in
    Volume(send=7000.0, recv=1000.0)
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    m = check_size("m", m)
    check_shapes(n=n, m=m, bytes_per_element=72)  # measured: 58
    return _in_network_volume(primitive, n, m)


def _in_network_volume(primitive, n, m, granular=True):
    send, recv = _forced_volume(primitive, n, m, granular)
    many = np.asarray(n) > 1
    if primitive == "all_reduce":
        send = recv = np.where(many, m, 0.0)
    elif primitive == "reduce_scatter":
        recv = np.where(many, m / n, 0.0)
    elif primitive == "all_gather":
        send = np.where(many, m / n, 0.0)
    send, recv = np.broadcast_arrays(np.asarray(send, dtype=float), np.asarray(recv, dtype=float))
    if send.ndim == 0:
        return Volume(float(send), float(recv))
    return Volume(send.copy(), recv.copy())


def in_network_lower_bound(primitive, n, m, beta, ports=1, degree=None):
    """Bandwidth lower bound with in-network reduction, seconds: ``max(S, R) / (p beta)``.

    The volumes of :func:`in_network_volume`; ``p = min(ports, degree)``.

    Examples
    --------
    AllReduce of 1 GiB on 8 GPUs with 18 links of 25 GB/s each: M / 450 GB/s, against
    2 * 7/8 M / 450 GB/s with endpoint reduction.

    >>> round(in_network_lower_bound("all_reduce", 8, 2**30, 25e9, ports=18) * 1e3, 4)
    2.3861
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    m = check_size("m", m)
    beta = check_bandwidth("beta", beta)
    ports, degree = _check_ports_degree(ports, degree)
    check_shapes(n=n, m=m, beta=beta, ports=ports, degree=degree, bytes_per_element=104)  # measured: 90
    return _in_network_lower_bound(primitive, n, m, beta, ports, degree)


def _in_network_lower_bound(primitive, n, m, beta, ports, degree):
    p = _effective_ports(ports, degree)
    send, recv = _in_network_volume(primitive, n, m)
    if is_array(send):
        return np.maximum(send, recv) / (p * beta)
    return max(send, recv) / (p * beta)


def busbw_limit(primitive, n, beta, ports=1, in_network=False, degree=None):
    """Largest nccl-tests busbw any algorithm can show for large messages, bytes/s.

    (:func:`ccb_helpers.busbw_ceiling` is the size-dependent ceiling with the latency term, for
    endpoint reduction; this is its large-message limit, for either kind of reduction.)

    busbw is ``volume_coefficient * M / t`` (the endpoint factor, whatever the algorithm) and
    ``t >= max(S, R) / (p beta)``, so busbw is at most ``volume_coefficient / (max(S, R) / M)``
    times ``p beta``: exactly ``p beta`` with endpoint reduction, ``2(N-1)/N p beta`` for an
    AllReduce with in-network reduction (``p beta`` for every other primitive).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int or array of int
        Nodes, ``n >= 2``.
    beta : float
        Bandwidth of one link in one direction, bytes/s.
    ports : int, default 1
        ``k``.
    in_network : bool, default False
        Whether the network reduces and copies (:func:`in_network_volume`).
    degree : int, optional
        ``d``; ``p = min(ports, degree)``.

    Examples
    --------
    >>> busbw_limit("all_reduce", 8, 25e9, ports=18) / 1e9
    450.0
    >>> busbw_limit("all_reduce", 8, 25e9, ports=18, in_network=True) / 1e9   # 2 * 7/8 * 450
    787.5
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=2, maximum=INT64_MAX)
    beta = check_bandwidth("beta", beta)
    in_network = check_bool("in_network", in_network)
    ports, degree = _check_ports_degree(ports, degree)
    check_shapes(n=n, beta=beta, ports=ports, degree=degree, bytes_per_element=96)  # measured: 81
    return _busbw_limit(primitive, n, beta, ports, in_network, degree)


def _busbw_limit(primitive, n, beta, ports, in_network, degree):
    p = _effective_ports(ports, degree)
    factor = _volume_coefficient(primitive, n)  # nccl-tests' busbw factor: the endpoint max(S, R) / M
    if in_network:
        send, recv = _in_network_volume(primitive, n, 1.0, granular=False)
        ratio = factor / np.maximum(send, recv)
    else:
        ratio = np.ones_like(np.asarray(factor, dtype=float))
    ceiling = ratio * p * beta
    return ceiling if is_array(ceiling) and np.ndim(ceiling) else float(ceiling)


def nvls_all_reduce_volume(n, m):
    """Bytes each GPU sends and receives in NCCL's NVLS AllReduce (NVLink SHARP), for comparison.

    A reduce-scatter through the switch (each GPU's whole buffer goes in, its ``M/N`` share of
    the sum comes back) then an all-gather by switch multicast (``M/N`` goes in, ``M`` comes
    back): ``(N+1)M/N`` each way, a little above the in-network bound ``M`` (NVIDIA/nccl#1506
    describes the two halves). With the endpoint busbw factor this caps busbw at
    ``2(N-1)/(N+1) * p * beta``.

    >>> nvls_all_reduce_volume(8, 8000)
    Volume(send=9000.0, recv=9000.0)
    """
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    m = check_size("m", m)
    check_shapes(n=n, m=m)
    return _nvls_all_reduce_volume(n, m)


def _nvls_all_reduce_volume(n, m):
    # M + M/N, not (N+1) M / N: N + 1 overflows an int64 array at N = 2**63 - 1.
    value = np.where(np.asarray(n) > 1, m + np.asarray(m, dtype=float) / np.asarray(n, dtype=float), 0.0)
    value = np.asarray(value, dtype=float)
    if value.ndim == 0:
        return Volume(float(value), float(value))
    return Volume(value.copy(), value.copy())
