"""The largest busbw a measurement can show: the combined bound at one size, and the cut around a node.

busbw is the forced volume of chapter 3 over the time, so the bound's ceiling on busbw is the
forced volume over the bound's time (``eq:cc-bound-combined``); between nodes, chapter 5's cut
around a node adds a second ceiling, and the node's network a second way out of each GPU
(:func:`two_level_ceiling_terms`, :func:`two_level_busbw_ceiling`). ``"sendrecv"``
(nccl-tests' point-to-point test) is bounded like a message: every rank sends ``M`` to one peer
and receives ``M`` from another, one round, busbw = algbw.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._validation import check_bandwidth, check_bool, check_choice, check_int, check_memory, check_real, check_record
from ..bandwidth import volume_coefficient
from ..bounds import latency_lower_bound
from .records import COLLECTIVES

#: Most message sizes :func:`busbw_ceiling` evaluates in one call (an array of 10^7 floats is 80 MB).
MAX_SIZES = 10_000_000
#: Peak bytes per size of :func:`busbw_ceiling` (the float64 volume, mask, quotient and result,
#: a list converted first): tracemalloc measured 33 for an array of 10**6 sizes, 56 for a list
#: of 10**5; 640 MB at the cap.
_BYTES_PER_SIZE = 64
#: Largest ``ports * beta`` the ceilings take (bytes/s): 1e18, a million times any link built, so
#: ``p * beta`` and the times derived from it stay finite (``--beta 1e29 --ports 100`` is refused).
MAX_PORT_BANDWIDTH = 1e18


def _busbw_factor(collective: str, n: int) -> float:
    """nccl-tests' busbw factor: the forced volume over ``M`` (1 for SendRecv)."""
    return 1.0 if collective == "sendrecv" else volume_coefficient(collective, n)


def _latency_bound(collective: str, n: int, alpha: float, latency_ports: int) -> float:
    return alpha if collective == "sendrecv" else latency_lower_bound(collective, n, alpha, ports=latency_ports)


def check_link(beta, ports, name="beta"):
    """``(beta, ports)`` checked, with ``ports * beta <= MAX_PORT_BANDWIDTH`` (shared by the CLI)."""
    beta = check_bandwidth(name, beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**20, scalar=True)
    if ports * beta > MAX_PORT_BANDWIDTH:
        raise ValueError(f"ports * {name} must be <= {MAX_PORT_BANDWIDTH:g} bytes/s, got {ports} x {beta:g}")
    return beta, ports


def busbw_ceiling(primitive, n, m, alpha, beta, ports=1, latency_ports=None):
    """The largest busbw any algorithm can show at size ``m``: ``c(N) M / T_min`` in bytes/s.

    ``T_min`` is the combined lower bound (``eq:cc-bound-combined``) with the bandwidth term over
    ``ports`` links of ``beta`` bytes/s and the latency term ``ceil(log_{k+1} N) alpha`` with
    ``k = latency_ports`` (default ``ports``; all-port networks drive many peers at once but
    share one NIC's bandwidth). ``c(N)`` is nccl-tests' busbw factor, which is
    :func:`~ccb_helpers.volume_coefficient` (1 and one round for ``"sendrecv"``). Large messages:
    the ceiling tends to ``ports * beta``; measured busbw / ceiling = bound time / measured time
    (the efficiency).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`, or ``"sendrecv"``.
    n : int
        Ranks, ``n >= 2``.
    m : float or array
        Message size in bytes (nccl-tests' ``size`` column), ``>= 0``.
    alpha : float
        Latency per round, seconds (``>= 0``).
    beta : float
        Bandwidth of one link in one direction, bytes/s (``> 0``; ``ports * beta <= 1e18``).
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
    >>> busbw_ceiling("sendrecv", 8, 1000, 1e-6, 100e9) / 1e9     # 1 kB / (1 us)
    1.0
    """
    n = check_int("n", n, minimum=2, maximum=2**24, scalar=True)
    m = check_real("m", m)
    if np.size(m) > MAX_SIZES:
        raise ValueError(f"m has {np.size(m)} sizes; at most {MAX_SIZES} are evaluated at once")
    check_memory(f"m: {np.size(m):,} sizes", _BYTES_PER_SIZE * np.size(m) + 2**16)
    alpha = check_real("alpha", alpha, maximum=1e9, scalar=True)
    beta, ports = check_link(beta, ports)
    latency_ports = (
        ports
        if latency_ports is None
        else check_int("latency_ports", latency_ports, minimum=1, maximum=2**62, scalar=True)
    )
    return _busbw_ceiling(check_choice("primitive", primitive, COLLECTIVES), n, m, alpha, beta, ports, latency_ports)


def _busbw_ceiling(primitive, n, m, alpha, beta, ports, latency_ports):
    coefficient = _busbw_factor(primitive, n)
    volume = coefficient * np.asarray(m, dtype=float)
    t_alpha = _latency_bound(primitive, n, alpha, latency_ports)
    # Bandwidth-bound sizes reach the link rate exactly: dividing c M by c M / (p beta) would
    # round (for tiny M by more than an ulp), so that branch returns p beta itself.
    bandwidth_bound = volume >= t_alpha * (ports * beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        ceiling = np.where(bandwidth_bound, ports * beta, volume / np.where(bandwidth_bound, 1.0, t_alpha))
    return float(ceiling) if np.ndim(ceiling) == 0 else ceiling


def node_volume_coefficient(collective: str, n_ranks: int, n_nodes: int) -> float:
    """Bytes one node must send (or receive) through its network, over ``M`` — the cut around a node.

    The ``r = ceil(N / n_nodes)`` ranks of the fullest node (ranks spread as evenly as possible)
    act together as one party of the same collective among ``K = n_nodes`` parties, so a node
    moves ``c(K) M`` (chapter 5's cut around a node) — except for AllToAll, where nothing can be
    combined: each of the node's ``r`` ranks sends its own ``M/N`` bytes to each of the ``N - r``
    ranks elsewhere, ``r (N - r) M / N`` in all. SendRecv: one rank of a node sends ``M`` off it.

    >>> node_volume_coefficient("all_reduce", 16, 2), node_volume_coefficient("all_to_all", 16, 2)
    (1.0, 4.0)
    """
    if n_nodes <= 1:
        return 0.0
    if collective == "all_to_all":
        per_node = math.ceil(n_ranks / n_nodes)
        return per_node * (n_ranks - per_node) / n_ranks
    if collective == "sendrecv":
        return 1.0
    if collective in ("scatter", "gather"):
        # The root's node sends (receives) the blocks of the ranks elsewhere, (N - r) M / N with the
        # root among the r ranks of a fullest node: c(K) M only when every node holds N / K ranks
        # (#37 audit: 3 ranks on 2 nodes move M / 3, not M / 2, across).
        return (n_ranks - math.ceil(n_ranks / n_nodes)) / n_ranks
    return volume_coefficient(collective, n_nodes)


@check_record(links="real", nic="real", endpoint="real", node_cut="real?", ceiling="real", binding="str")
class TwoLevelCeiling(NamedTuple):
    """The terms of :func:`two_level_ceiling_terms` (bytes/s of busbw), and which one binds.

    Attributes
    ----------
    links : float
        ``p β``: the GPU's own links (NVLink: its total into the switch).
    nic : float
        The GPU's share of its node's network egress, ``β_node / r`` (with one NIC per GPU,
        ``rail_beta``); 0 on one node, or when the NIC's traffic crosses the ``β`` link itself
        (``nic_shares_link=True``).
    endpoint : float
        ``links + nic``: the ceiling of the per-GPU forced volume ``c(N) M`` over both egress paths.
    node_cut : float or None
        The cut around a node, ``c(N) M / V_node × β_node``; ``None`` on one node.
    ceiling : float
        ``min(endpoint, node_cut)``.
    binding : str
        ``"endpoint"`` or ``"node_cut"``: the smaller term (``"endpoint"`` on a tie).
    """

    links: float
    nic: float
    endpoint: float
    node_cut: float | None
    ceiling: float
    binding: str


def two_level_ceiling_terms(
    primitive, n_ranks, n_nodes, beta, node_beta=None, ports=1, rail_beta=None, nic_shares_link=False
) -> TwoLevelCeiling:
    """Large-message busbw ceiling of GPUs in nodes, term by term (``eq:cc-nccl-two-level``).

    A GPU has two ways out: its ``ports`` links of ``beta`` inside the node (NVLink) and the
    node's network, reached through its own NIC (GPUDirect RDMA reads GPU memory over PCIe,
    beside NVLink). Two cuts bound the time ``T`` of any endpoint algorithm:

    * **endpoint**: every GPU sends (and receives) at least the forced volume ``c(N) M``
      (chapter 3). Summed over the ``r = ceil(N / K)`` GPUs of the fullest node, those bytes leave
      through ``r p β`` of links and ``β_node`` of network, so
      ``r c(N) M <= T (r p β + β_node)`` and ``busbw = c(N) M / T <= p β + β_node / r``
      (``p β + rail_beta`` with one NIC per GPU). That holds where every GPU must move
      ``c(N) M``; with a shared ``node_beta`` and an AllReduce on nodes of unequal size, or a
      rooted primitive, the GPU's share of the network is what :func:`nic_share` derives (the
      total for AllReduce, the root's whole node for Scatter / Gather);
    * **node cut**: every node moves ``V_node`` (:func:`node_volume_coefficient`) through its
      network alone, so ``T >= V_node / β_node`` and ``busbw <= c(N) M / V_node × β_node``.

    .. math:: \\text{busbw} \\le \\min\\Big(p\\beta + \\frac{\\beta_{\\text{node}}}{r},\\
              \\frac{c(N)\\,M}{V_{\\text{node}}}\\,\\beta_{\\text{node}}\\Big).

    The two cuts together give nothing tighter: a GPU can send ``β_node T / r`` through the NIC and
    the rest ``c(N) M - β_node T / r`` over its links, which fits both whenever ``T`` meets both terms. On
    2 × 8 H100 (450 GB/s NVLink, one 400 Gb/s NIC each) AllReduce's endpoint term is 450 + 50 =
    500 GB/s and binds (the node cut is 1.875 × 400 = 750); it is attained: a hierarchical
    schedule that sends only the forced ``c(K) M / r`` through each NIC reaches 15/14 × 450 ≈ 482
    GB/s, and running part of the data on flat rings that cross between nodes on every GPU's NIC
    fills both paths at once (``tests/test_nccl_ceilings.py`` builds the mixture).

    ``nic_shares_link=True`` is for GPUs whose NIC traffic crosses the same link ``beta``
    describes (PCIe-only GPUs: the PCIe link is their only way out): the endpoint term is then
    ``p β`` alone. On one node the network adds nothing (the term is ``p β``).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`, or ``"sendrecv"``.
    n_ranks, n_nodes : int
        GPUs and nodes, ``2 <= n_ranks``, ``1 <= n_nodes <= n_ranks``.
    beta : float
        Per-GPU link bandwidth per direction, bytes/s (NVLink: the GPU's total into the switch).
    node_beta : float, optional
        Network bandwidth per node per direction, bytes/s.
    ports : int, default 1
        Links of ``beta`` a GPU drives at once.
    rail_beta : float, optional
        Network bandwidth of each GPU's own NIC per direction, bytes/s; the node then has
        ``ceil(n_ranks / n_nodes) * rail_beta``. Give ``node_beta`` or ``rail_beta`` (one is
        required when ``n_nodes > 1``).
    nic_shares_link : bool, default False
        The NIC's traffic crosses the ``beta`` link (no separate egress path).

    Returns
    -------
    TwoLevelCeiling

    Examples
    --------
    >>> t = two_level_ceiling_terms("all_reduce", 16, 2, 450e9, rail_beta=50e9)
    >>> t.links / 1e9, t.nic / 1e9, t.endpoint / 1e9, t.node_cut / 1e9, t.binding
    (450.0, 50.0, 500.0, 750.0, 'endpoint')
    >>> two_level_ceiling_terms("all_reduce", 16, 2, 450e9, 200e9).binding   # 8 x 200 Gb/s: 375 < 475
    'node_cut'
    """
    primitive = check_choice("primitive", primitive, COLLECTIVES)
    n_ranks = check_int("n_ranks", n_ranks, minimum=2, maximum=2**24, scalar=True)
    n_nodes = check_int("n_nodes", n_nodes, minimum=1, maximum=n_ranks, scalar=True)
    beta, ports = check_link(beta, ports)
    nic_shares_link = check_bool("nic_shares_link", nic_shares_link)
    rails = rail_beta is not None
    node_beta = network_per_node(n_ranks, n_nodes, node_beta, rail_beta)
    links = float(ports * beta)
    nic = 0.0 if n_nodes == 1 or nic_shares_link else nic_share(n_ranks, n_nodes, node_beta, primitive, rails)
    endpoint = links + nic
    node_cut = node_cut_ceiling(primitive, n_ranks, n_nodes, node_beta) if n_nodes > 1 else None
    if node_cut is not None and node_cut < endpoint:
        return TwoLevelCeiling(links, nic, endpoint, node_cut, node_cut, "node_cut")
    return TwoLevelCeiling(links, nic, endpoint, node_cut, endpoint, "endpoint")


def two_level_busbw_ceiling(
    primitive, n_ranks, n_nodes, beta, node_beta=None, ports=1, rail_beta=None, nic_shares_link=False
):
    """Large-message busbw ceiling of GPUs in nodes: both egress paths of a GPU, and each node's network.

    The ``ceiling`` of :func:`two_level_ceiling_terms` (which gives the derivation and each
    term): ``min(p β + β_node / r, c(N) M / V_node × β_node)`` with ``r = ceil(N / K)`` GPUs per
    node (``eq:cc-nccl-two-level``).

    For the collectives that combine data inside a node, ``V_node = c(K) M`` with ``K`` nodes, so
    the node term is ``c(N)/c(K) β_node``. For AllToAll a node of ``r = N/K`` ranks sends
    ``r (N - r) M / N``, so busbw ``≤ (N-1) β_node / (r (N - r))``: 16 ranks on 2 nodes of 400 GB/s
    give 15 × 400 / 64 = 93.75 GB/s, not the 750 GB/s of ``c(N)/c(K)``. With one NIC of
    ``rail_beta`` per GPU ("rails") the node has ``r rail_beta``, so AllToAll's busbw is at most
    ``(N-1)/(N-r) rail_beta`` — NCCL's maintainers' "on 2 nodes, BusBW = 2x network bandwidth per
    GPU" once the busbw factor ``(N-1)/N`` is applied (NVIDIA/nccl-tests#130).

    Parameters
    ----------
    primitive, n_ranks, n_nodes, beta, node_beta, ports, rail_beta, nic_shares_link
        As in :func:`two_level_ceiling_terms`.

    Returns
    -------
    float
        bytes/s.

    Examples
    --------
    16 H100 on 2 nodes (450 GB/s NVLink each, 8 x 200 Gb/s NICs = 200 GB/s per node):
    AllReduce's node term is 1.875 / 1 * 200 = 375 GB/s, below the endpoint's 450 + 25.

    >>> two_level_busbw_ceiling("all_reduce", 16, 2, 450e9, 200e9) / 1e9
    375.0
    >>> two_level_busbw_ceiling("all_reduce", 16, 2, 450e9, 400e9) / 1e9   # 450 + 400 / 8
    500.0
    >>> two_level_busbw_ceiling("all_to_all", 16, 2, 450e9, node_beta=400e9) / 1e9
    93.75
    >>> two_level_busbw_ceiling("all_to_all", 16, 2, 450e9, rail_beta=50e9) / 1e9
    93.75
    >>> two_level_busbw_ceiling("all_reduce", 8, 1, 450e9) / 1e9
    450.0
    """
    return two_level_ceiling_terms(
        primitive, n_ranks, n_nodes, beta, node_beta, ports, rail_beta, nic_shares_link
    ).ceiling


def nic_share(
    n_ranks: int, n_nodes: int, node_beta: float, collective: str = "all_gather", rails: bool = False
) -> float:
    """The network egress of one GPU in the endpoint term, bytes/s: its share of the node's network.

    With one NIC per GPU (``rails``) it is that NIC, ``node_beta / r`` (``r = ceil(n_ranks /
    n_nodes)``, the node's ``r`` NICs). With ``node_beta`` shared by the node's GPUs, the
    ``r`` GPUs of a fullest node share it when each of them must move ``c(N) M``
    (AllGather, ReduceScatter, AllToAll, SendRecv): ``node_beta / r``. When only some must (#37
    audit), the share is what the argument allows:

    * AllReduce: only the total ``2 (N-1) M`` is forced (chapter 5), over the ``N`` GPUs' links and
      the ``K`` nodes' networks: ``K node_beta / N`` (``node_beta / r`` when the nodes are full);
    * Scatter / Gather: only the root moves ``c(N) M``, and its node's whole network is its own:
      ``node_beta``;
    * Broadcast / Reduce: every rank but the root receives (sends) ``M``: ``node_beta / r`` over
      a fullest node without the root, ``node_beta / (r - 1)`` when the root may hold the only one.

    >>> nic_share(16, 2, 400e9) / 1e9
    50.0
    >>> round(nic_share(3, 2, 100e9, "all_reduce") / 1e9, 6), nic_share(16, 2, 400e9, "scatter") / 1e9
    (66.666667, 400.0)
    """
    full = math.ceil(n_ranks / n_nodes)
    if rails:
        return node_beta / full
    if collective == "all_reduce":
        return n_nodes * node_beta / n_ranks
    if collective in ("scatter", "gather"):
        return node_beta
    if collective in ("broadcast", "reduce") and n_ranks % n_nodes == 1 and full > 1:
        return node_beta / (full - 1)
    return node_beta / full


def network_per_node(n_ranks, n_nodes, node_beta=None, rail_beta=None):
    """The network bandwidth of one node (bytes/s), from ``node_beta`` or ``rail_beta`` per GPU;
    ``None`` when neither is given on one node."""
    if node_beta is not None and rail_beta is not None:
        raise ValueError("give node_beta (per node) or rail_beta (per GPU's NIC), not both")
    if rail_beta is not None:
        rail_beta = check_bandwidth("rail_beta", rail_beta, scalar=True)
        node_beta = math.ceil(n_ranks / n_nodes) * rail_beta
    elif node_beta is not None:
        node_beta = check_bandwidth("node_beta", node_beta, scalar=True)
    elif n_nodes > 1:
        raise ValueError(
            f"node_beta (bytes/s per node) or rail_beta (bytes/s per GPU's NIC) is required for n_nodes = {n_nodes} > 1"
        )
    return node_beta


def node_cut_ceiling(collective, n_ranks, n_nodes, node_beta) -> float:
    """busbw ceiling of the cut around a node: ``c(N) node_beta / (V_node / M)`` (bytes/s)."""
    return _busbw_factor(collective, n_ranks) * node_beta / node_volume_coefficient(collective, n_ranks, n_nodes)
