"""NCCL's cost model next to the book's lower bound: the same call, NCCL's estimate and the bound.

The lower bound is taken in NCCL's own units (:func:`nccl_bound_parameters`: the cheapest hop of
the tuning model as α, the bandwidth NCCL's ring graph credits a GPU with as β) and, where the
topology gives them, in the hardware's published rates (``NcclVsBound.line_efficiency``). Split
from :mod:`ccb_helpers.nccl_model` (which it imports; the model never imports this module).
"""

from __future__ import annotations

from typing import NamedTuple

from ._validation import check_int, check_record
from .nccl_model import (
    HW_LATENCY_US,
    MAX_RANKS,
    NCCL_MODEL_VERSION,
    _check_call,
    _predict,
    _resolve_topology,
)

__all__ = ["NcclVsBound", "nccl_bound_parameters", "nccl_vs_bound", "nccl_vs_bound_table"]


def nccl_bound_parameters(topology="dgx_h100", n_nodes=None, **overrides):
    """The lower bound's α and β in NCCL's own units: ``(alpha, beta, node_beta)``.

    * ``alpha``: the cheapest hop NCCL's model charges (Ring/LL over the intra-node link, 0.6 µs
      on NVLink) — any algorithm needs ``ceil(log2 N)`` such rounds;
    * ``beta``: the bandwidth NCCL credits one GPU with, ``ring_channels * ring_bw_intra``
      (bytes/s per direction);
    * ``node_beta``: the network bandwidth per node its rings use, ``ring_channels * ring_bw_inter``.

    ``n_nodes = 1`` takes the preset's ``single_node`` topology (what NCCL sees on one node).

    >>> a, b, nb = nccl_bound_parameters("dgx_h100")
    >>> round(a * 1e6, 2), b / 1e9, nb / 1e9
    (0.6, 360.0, 360.0)
    >>> nccl_bound_parameters("ib_h100")[1] / 1e9, nccl_bound_parameters("ib_h100", n_nodes=1)[1] / 1e9
    (384.0, 360.0)
    """
    if n_nodes is not None:
        n_nodes = check_int("n_nodes", n_nodes, minimum=1, maximum=MAX_RANKS, scalar=True)
    topo = _resolve_topology(topology, overrides, n_nodes)
    return _bound_parameters(topo)


def _bound_parameters(topo):
    alpha = min(HW_LATENCY_US[topo.intra_link]["ring"]) * 1e-6
    return alpha, topo.ring_bus_bandwidth, topo.node_bandwidth


@check_record(
    pick="str",
    nccl_time="real",
    bound_time="real",
    in_network_bound_time="real",
    efficiency="real?",
    in_network="bool",
    book_algorithm="str?",
    book_time="real?",
    flag="str?",
    line_bound_time="real?",
    line_efficiency="real?",
)
class NcclVsBound(NamedTuple):
    """NCCL's predicted time for one call against the lower bound (seconds).

    ``efficiency`` is the bound time over NCCL's estimate, in (0, 1]; it is ``None`` and
    ``flag == "model_beats_bound"`` when NCCL's estimate is faster than the bound, which happens
    only for a topology whose tree or NVLS graphs are credited with more bandwidth than the
    ring graph that sets β (the presets are not).

    β is the bandwidth NCCL's own ring graph credits a GPU with, so the efficiency says how close
    NCCL's estimate comes to *its own* ring bus bandwidth — for Ring/Simple on large messages
    that is 1 by construction. ``line_bound_time`` / ``line_efficiency`` hold the same bound with
    the hardware's published rates (``gpu_line_rate``, ``node_line_rate`` of the topology; ``None``
    when it does not give them): the efficiency against the physical links.
    """

    pick: str
    nccl_time: float
    bound_time: float
    in_network_bound_time: float
    efficiency: float | None
    in_network: bool
    book_algorithm: str | None
    book_time: float | None
    flag: str | None = None
    line_bound_time: float | None = None
    line_efficiency: float | None = None


def _egress(n_ranks, n_nodes, beta, node_beta, primitive="all_gather"):
    """A GPU's two ways out: its links ``beta`` and, on several nodes, its share of the node's
    network, ``node_beta / ceil(N / K)`` when every GPU moves the forced volume (the default; the
    live explorer exports it), the share :func:`ccb_helpers.nccl_tests.ceilings.nic_share` derives
    for ``primitive`` otherwise (``eq:cc-nccl-two-level``; AllReduce on nodes of unequal size: ``K
    node_beta / N``, #37 audit)."""
    from .nccl_tests.ceilings import nic_share

    if n_nodes <= 1:
        return beta
    return beta + nic_share(n_ranks, n_nodes, node_beta, primitive)


def _two_level_bound(primitive, n_ranks, n_nodes, m, alpha, beta, node_beta):
    from .bandwidth import volume_coefficient
    from .propagation import info_steps

    t_alpha = info_steps(n_ranks, 1) * alpha
    t_gpu = volume_coefficient(primitive, n_ranks) * m / _egress(n_ranks, n_nodes, beta, node_beta, primitive)
    t_node = volume_coefficient(primitive, n_nodes) * m / node_beta if n_nodes > 1 else 0.0
    return max(t_alpha, t_gpu, t_node)


def _in_network_bound(primitive, n_ranks, n_nodes, m, alpha, beta, node_beta):
    """The bound when the NVSwitch reduces (NVLS, NVLS-Tree) but the network between nodes does not.

    Inside a node the switch adds, so a GPU sends its M bytes and receives the M-byte sum
    (AllReduce: ``max(S, R) = M`` instead of ``2(N-1)M/N``; the other primitives keep their
    forced volume, since copying or adding in the switch does not shrink their busiest
    direction) and one round of latency suffices; the M bytes leave through both of the GPU's ways
    out (:func:`_egress`). Between nodes the presets have no SHARP
    (NCCL's CollNet is off without its plugin, and NVLS-Tree reduces across nodes with a tree of
    endpoints), so the node cut keeps the endpoint forced volume ``c(K) M`` of K nodes. These are
    the in-network volumes of the book's model of in-network reduction (chapter 3).
    """
    if primitive != "all_reduce":
        return _two_level_bound(primitive, n_ranks, n_nodes, m, alpha, beta, node_beta)
    from .bandwidth import volume_coefficient

    t_node = volume_coefficient(primitive, n_nodes) * m / node_beta if n_nodes > 1 else 0.0
    return max(alpha, m / _egress(n_ranks, n_nodes, beta, node_beta), t_node)


def nccl_vs_bound(primitive, n_ranks, n_nodes, m, topology="dgx_h100", **overrides) -> NcclVsBound:
    """NCCL's pick and predicted time next to the lower bound, in NCCL's own α and β.

    The bound is the combined bound of chapter 4 with :func:`nccl_bound_parameters`, plus, on
    several nodes, the node-level bound (the same forced volume with the node count, over the
    node's network bandwidth — chapter 5's cut around a node); on several nodes a GPU sends its
    forced volume through its links and its share ``β_node / G`` of the network
    (``G = ceil(N / K)``, ``eq:cc-nccl-two-level``):

    .. math:: T \\ge \\max\\Big(\\lceil \\log_2 N \\rceil \\alpha,\\ \\frac{c(N) M}{\\beta + \\beta_{\\text{node}}/G},\\
              \\frac{c(K) M}{\\beta_{\\text{node}}}\\Big).

    NVLS and NVLS-Tree reduce inside the switch, which no endpoint bound covers: for them the
    efficiency is taken against the in-network bound ``max(alpha, M/(beta + beta_node/G), c(K) M/beta_node)``
    (each GPU sends its M bytes and receives the M-byte sum; the network between nodes does not
    reduce). ``efficiency`` = bound / NCCL's time, never above 1 (see :class:`NcclVsBound`).
    On one node, ``book_algorithm`` / ``book_time`` are the book's selector
    (:func:`~ccb_helpers.best_algorithm`, 1 port) with the same α and β.

    Examples
    --------
    >>> r = nccl_vs_bound("all_reduce", 8, 1, 2**30)
    >>> r.pick, r.in_network, round(r.efficiency, 3)   # NVLS: 266.7 GB/s of NCCL's 360
    ('NVLS/Simple', True, 0.736)
    >>> round(r.line_efficiency, 3)   # against NVLink4's 450 GB/s
    0.589
    >>> r = nccl_vs_bound("all_reduce", 8, 1, 1024)
    >>> r.pick, round(r.efficiency, 3), r.book_algorithm     # 1.8 us bound, 15.0 us NCCL
    ('Ring/LL', 0.12, 'recursive_doubling')
    """
    primitive, n_ranks, n_nodes, m = _check_call(primitive, n_ranks, n_nodes, m)
    topo = _resolve_topology(topology, overrides, n_nodes, n_ranks // n_nodes)
    _check_bound_bandwidths(topo, n_nodes)
    return _vs_bound(primitive, n_ranks, n_nodes, m, topo)


def _check_bound_bandwidths(topo, n_nodes) -> None:
    """The bound divides by the ring graph's bandwidths (#28: ``ring_bw_intra=0`` divided by zero)."""
    if topo.ring_bus_bandwidth < 1.0:
        raise ValueError(
            f"ring_bw_intra must be > 0 for the bound (beta = ring_channels x ring_bw_intra), got {topo.ring_bw_intra:g}"
        )
    if n_nodes > 1 and topo.node_bandwidth < 1.0:
        raise ValueError(
            f"ring_bw_inter must be > 0 for the bound on {n_nodes} nodes (node_beta = ring_channels x "
            f"ring_bw_inter), got {topo.ring_bw_inter:g}"
        )


def _vs_bound(primitive, n_ranks, n_nodes, m, topo, book=True) -> NcclVsBound:
    prediction = _predict(primitive, n_ranks, n_nodes, m, topo)
    alpha, beta, node_beta = _bound_parameters(topo)
    bound = _two_level_bound(primitive, n_ranks, n_nodes, m, alpha, beta, node_beta)
    in_network_bound = _in_network_bound(primitive, n_ranks, n_nodes, m, alpha, beta, node_beta)
    in_network = prediction.algorithm in ("nvls", "nvls_tree")
    reference = in_network_bound if in_network else bound
    book_algorithm = book_time = None
    if n_nodes == 1 and book:
        from .algorithms import best_algorithm

        book_algorithm, book_time = best_algorithm(primitive, n_ranks, float(m), alpha, beta)
    efficiency, flag = reference / prediction.time, None
    if efficiency > 1.0 + 1e-9:
        efficiency, flag = None, "model_beats_bound"
    line_bound = line_efficiency = None
    if topo.gpu_line_rate > 0 and (n_nodes == 1 or topo.node_line_rate > 0):
        rates = (alpha, topo.gpu_line_rate, topo.node_line_rate)
        line_bound = (_in_network_bound if in_network else _two_level_bound)(primitive, n_ranks, n_nodes, m, *rates)
        line_efficiency = min(line_bound / prediction.time, 1.0) if prediction.time > 0 else 1.0
    return NcclVsBound(
        pick=prediction.label,
        nccl_time=prediction.time,
        bound_time=bound,
        in_network_bound_time=in_network_bound,
        efficiency=efficiency,
        in_network=in_network,
        book_algorithm=book_algorithm,
        book_time=book_time,
        flag=flag,
        line_bound_time=line_bound,
        line_efficiency=line_efficiency,
    )


def nccl_vs_bound_table(cases, topology="dgx_h100", primitive="all_reduce"):
    """:func:`nccl_vs_bound` for several ``(n_ranks, n_nodes, m)``: NCCL's pick, its time, the bound.

    >>> t = nccl_vs_bound_table([(8, 1, 1024), (8, 1, 2**30)])
    >>> [row[2] for row in t.rows], [row[3] for row in t.rows]
    (['Ring/LL', 'NVLS/Simple'], ['0.12', '0.74†'])
    """
    from .tables import Table
    from .units import format_bytes, format_time

    topo = _resolve_topology(topology, {})
    if not isinstance(cases, (list, tuple)):  # not an iterator or a range: its length is known before copying
        raise TypeError(f"cases must be a list of (n_ranks, n_nodes, m) triples, got {type(cases).__name__}")
    cases = list(cases)
    if not 1 <= len(cases) <= 1000:
        raise ValueError(f"cases must hold 1 to 1000 (n_ranks, n_nodes, m) triples, got {len(cases)}")
    if not all(isinstance(c, (tuple, list)) and len(c) == 3 for c in cases):
        raise TypeError("cases must be (n_ranks, n_nodes, m) triples")
    rows, values = [], []
    for i, (n_ranks, n_nodes, m) in enumerate(cases):
        try:
            primitive_, n_ranks, n_nodes, m = _check_call(primitive, n_ranks, n_nodes, m)
        except (TypeError, ValueError) as err:
            raise type(err)(f"cases[{i}]: {err}") from None
        r = _vs_bound(
            primitive_, n_ranks, n_nodes, m, _resolve_topology(topology, {}, n_nodes, n_ranks // n_nodes), book=False
        )
        reference = r.in_network_bound_time if r.in_network else r.bound_time
        values.append(r)
        shown = "—" if r.efficiency is None else f"{r.efficiency:.2f}"
        rows.append(
            [
                f"{n_ranks}（{n_nodes}）",
                format_bytes(m).replace(" ", "\u00a0"),
                r.pick,
                shown + ("†" if r.in_network else ""),
                format_time(r.nccl_time).replace(" ", "\u00a0"),
                format_time(reference).replace(" ", "\u00a0"),
            ]
        )
    headers = ["N（节点）", "M", "NCCL 的选择", "效率", "NCCL 估计", "下界"]
    caption = (
        f"{topo.label}：NCCL {NCCL_MODEL_VERSION} 的估计对照下界（† 网内归约，对照网内归约的下界；"
        f"— NCCL 的估计快于下界，拓扑给某个图的带宽多于 β）"
    )
    return Table(headers, rows, caption, values)
