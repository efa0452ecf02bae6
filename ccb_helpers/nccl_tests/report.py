"""Each row of a log against the lower bound, as data: busbw, ceiling, efficiency, regime, flag."""

from __future__ import annotations

from .._validation import check_bandwidth, check_int, check_real
from ..bandwidth import volume_coefficient
from ..bounds import latency_lower_bound
from .ceilings import _busbw_ceiling
from .records import _EXAMPLE, _log_context  # noqa: F401  (_EXAMPLE: doctests)


def _nbsp(text: str) -> str:
    """Keep a number and its unit on one line in narrow tables."""
    return text.replace(" ", "\u00a0")


def _node_context(log, n, n_nodes, node_beta):
    """``(K, node_beta)`` of the network cut, or ``(1, None)`` when it is not asked for."""
    if node_beta is None:
        if n_nodes is not None:
            raise ValueError("n_nodes needs node_beta (the network bandwidth per node, bytes/s)")
        return 1, None
    node_beta = check_bandwidth("node_beta", node_beta)
    if n_nodes is None:
        n_nodes = log.n_hosts
        if n_nodes is None:
            raise ValueError("the log does not list its hosts: pass n_nodes (--nodes) with node_beta")
    n_nodes = check_int("n_nodes", n_nodes, minimum=1, maximum=n)
    return n_nodes, node_beta


def nccl_tests_report(log, alpha, beta, ports=1, latency_ports=None, n_ranks=None, collective=None,
                      n_nodes=None, node_beta=None):
    """Each row of a log against the lower bound: busbw, the bound's ceiling, efficiency, regime.

    Efficiency is bound time / measured time = measured busbw / ceiling (:func:`busbw_ceiling`),
    from the out-of-place half. With ``node_beta`` the bound also has the network cut around each
    of the ``K = n_nodes`` nodes (:func:`two_level_busbw_ceiling`): every node must move
    ``c(K) M`` through ``node_beta``, so ``T >= c(K) M / node_beta``.

    A busbw above the ceiling is never reported as an efficiency above 1; the row is flagged
    instead (``efficiency`` is ``None``):

    * ``"endpoint"``: busbw exceeds ``ports * beta``. No algorithm that only sends and receives
      through the endpoints can do that: the switch reduced in flight (NVLS, SHARP; each endpoint
      then moves only ``M``, so an AllReduce's busbw can reach ``2(N-1)/N * ports * beta``), or
      the traffic had a faster path than β;
    * ``"network"``: busbw exceeds the node cut's ``c(N)/c(K) * node_beta``: the network reduced
      (SHARP) or ``node_beta`` is set below the real one;
    * ``"latency"``: the time is below the latency bound (α is set above this system's).

    Parameters
    ----------
    log : NcclTestsLog
        From :func:`read_nccl_tests`.
    alpha : float
        Latency per round, seconds.
    beta : float
        Bandwidth per link per direction, bytes/s.
    ports, latency_ports : int
        As in :func:`busbw_ceiling`.
    n_ranks, collective : optional
        Override (or supply) what the log says.
    n_nodes, node_beta : optional
        Nodes (default: the log's host count) and network bandwidth per node per direction,
        bytes/s, for the network cut; without ``node_beta`` only the endpoint bound is used.

    Returns
    -------
    Table
        Columns 大小, 效率, 区间, 实测 busbw, 上限 busbw (the verdict first, so it stays visible on a
        phone); ``values`` holds one dict per row with
        ``size``, ``busbw``, ``ceiling``, ``efficiency`` (``None`` when flagged), ``flag``
        (``None``, ``"endpoint"``, ``"network"`` or ``"latency"``), ``regime`` (``"latency"``,
        ``"bandwidth"`` or ``"network"``: the largest term of the bound) and ``bound_time``.

    Examples
    --------
    >>> from ccb_helpers.nccl_tests import read_nccl_tests
    >>> t = nccl_tests_report(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce")
    >>> [round(v["efficiency"], 3) for v in t.values], [v["regime"] for v in t.values]
    ([0.098, 0.5], ['latency', 'bandwidth'])

    Two nodes sharing a 12.5 GB/s network (c(2) / c(2) = 1: the node cut caps busbw at 12.5 GB/s):

    >>> t = nccl_tests_report(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce",
    ...                       n_nodes=2, node_beta=12.5e9)
    >>> [v["regime"] for v in t.values], round(t.values[1]["ceiling"] / 1e9, 2), round(t.values[1]["efficiency"], 2)
    (['latency', 'network'], 12.5, 0.8)
    """
    from ..tables import Table
    from ..units import format_bandwidth, format_bytes

    log, n, primitive = _log_context(log, n_ranks, collective)
    alpha = check_real("alpha", alpha, maximum=1e9, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    latency_ports = ports if latency_ports is None else check_int("latency_ports", latency_ports, minimum=1, maximum=2**62, scalar=True)
    n_nodes, node_beta = _node_context(log, n, n_nodes, node_beta)
    coefficient = volume_coefficient(primitive, n)
    node_coefficient = volume_coefficient(primitive, n_nodes) if node_beta is not None and n_nodes > 1 else 0.0
    t_alpha = latency_lower_bound(primitive, n, alpha, ports=latency_ports)
    rows, values = [], []
    for row in log.rows:
        if row.size == 0:
            continue
        busbw = coefficient * row.size / row.time_s
        ceiling = _busbw_ceiling(primitive, n, row.size, alpha, beta, ports, latency_ports)
        t_beta = coefficient * row.size / (ports * beta)
        t_node = node_coefficient * row.size / node_beta if node_coefficient else 0.0
        if t_node:
            ceiling = min(ceiling, coefficient / node_coefficient * node_beta)
        bound_time = max(t_alpha, t_beta, t_node)
        regime = "latency" if t_alpha >= max(t_beta, t_node) else ("network" if t_node > t_beta else "bandwidth")
        flag = None
        efficiency = bound_time / row.time_s
        if efficiency > 1.0 + 1e-9:
            if busbw > ports * beta:
                flag = "endpoint"
            elif t_node and busbw > coefficient / node_coefficient * node_beta:
                flag = "network"
            else:
                flag = "latency"
            efficiency = None
        values.append({"size": row.size, "busbw": busbw, "ceiling": ceiling, "efficiency": efficiency, "flag": flag,
                       "regime": regime, "bound_time": bound_time, "time": row.time_s})
        shown = f"{efficiency:.2f}" if efficiency is not None else _FLAG_LABELS[flag]
        rows.append([_nbsp(format_bytes(row.size)), shown, _REGIME_LABELS[regime],
                     _nbsp(format_bandwidth(busbw)), _nbsp(format_bandwidth(ceiling))])
    headers = ["大小", "效率", "区间", "实测 busbw", "上限 busbw"]
    network = f"，{n_nodes} 个节点各 {node_beta / 1e9:.3g} GB/s" if node_coefficient else ""
    caption = (f"{primitive}，N = {n}：α = {alpha * 1e6:.3g} µs，β = {beta / 1e9:.3g} GB/s，p = {ports}{network}"
               f"（效率 = 下界时间 / 实测时间 = 实测 busbw / 上限）")
    return Table(headers, rows, caption, values)


_FLAG_LABELS = {"endpoint": "超端点上限", "network": "超网络上限", "latency": "快于延迟界"}
_REGIME_LABELS = {"latency": "延迟", "bandwidth": "带宽", "network": "网络"}
