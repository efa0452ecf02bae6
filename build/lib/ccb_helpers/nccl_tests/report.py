"""Each row of a log against the lower bound, as data: busbw, ceiling, efficiency, regime, flag.

:func:`nccl_tests_report` returns the comparison as a :class:`~ccb_helpers.tables.Table` whose
``values`` hold every number (both halves of every row); the text, CSV and JSON views are
formatters of that data (:mod:`~ccb_helpers.nccl_tests.formatters`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validation import check_bool, check_int, check_real
from .ceilings import (
    _busbw_ceiling,
    _busbw_factor,
    _latency_bound,
    check_link,
    network_per_node,
    nic_share,
    node_cut_ceiling,
    node_volume_coefficient,
)
from .records import _EXAMPLE, _log_context, ratio  # noqa: F401  (_EXAMPLE: doctests)


def _nbsp(text: str) -> str:
    """Keep a number and its unit on one line in narrow tables."""
    return text.replace(" ", "\u00a0")


def _node_context(log, n, n_nodes, node_beta, rail_beta=None):
    """``(K, network bandwidth per node)`` of the network cut, or ``(1, None)`` when not asked for."""
    if node_beta is None and rail_beta is None:
        if n_nodes is not None:
            raise ValueError("n_nodes needs node_beta (the network bandwidth per node, bytes/s) or rail_beta")
        return 1, None
    if n_nodes is None:
        n_nodes = log.n_hosts
        if n_nodes is None:
            raise ValueError("the log does not list its hosts: pass n_nodes (--nodes) with node_beta or rail_beta")
    n_nodes = check_int("n_nodes", n_nodes, minimum=1, maximum=n, scalar=True)
    return n_nodes, network_per_node(n, n_nodes, node_beta, rail_beta)


def _judge(busbw, time, bound_time, endpoint, node_ceiling, what="a row"):
    """``(efficiency, flag)`` of one measured half: efficiency ≤ 1, or a flag saying which ceiling it passes."""
    efficiency = ratio(bound_time, time, what)
    if efficiency <= 1.0 + 1e-9:
        return efficiency, None
    if busbw > endpoint:
        return None, "endpoint"
    if node_ceiling is not None and busbw > node_ceiling:
        return None, "network"
    return None, "latency"


def nccl_tests_report(
    log,
    alpha,
    beta,
    ports=1,
    latency_ports=None,
    n_ranks=None,
    collective=None,
    n_nodes=None,
    node_beta=None,
    rail_beta=None,
    nic_shares_link=False,
    in_network=None,
):
    """Each row of a log against the lower bound: busbw, the bound's ceiling, efficiency, regime.

    Efficiency is bound time / measured time = measured busbw / ceiling (:func:`busbw_ceiling`),
    for both halves of every row (the table shows the out-of-place half; ``values`` hold both).
    With ``node_beta`` (or ``rail_beta`` per GPU's NIC) the bound also has the network cut around
    each of the ``K = n_nodes`` nodes (:func:`two_level_busbw_ceiling`): every node must move
    ``V_node`` through its network, so ``T >= V_node / node_beta`` (``V_node = c(K) M``, or
    ``r (N - r) M / N`` for AllToAll with ``r`` ranks per node), and each GPU has a second way
    out, its share ``node_beta / r`` of the network, so the endpoint term is
    ``c(N) M / (ports * beta + node_beta / r)`` (:func:`two_level_ceiling_terms`; not with
    ``nic_shares_link``, for GPUs whose NIC traffic crosses the ``beta`` link).

    A busbw above the ceiling is never reported as an efficiency above 1; the row is flagged
    instead (``efficiency`` is ``None``):

    * ``"endpoint"``: busbw exceeds the endpoint term ``ports * beta`` (plus ``node_beta / r`` on
      several nodes). For AllReduce a switch that reduces in flight
      (NVLS, SHARP) lets each endpoint move only ``M``, so busbw can reach ``2(N-1)/N * ports *
      beta``; for every other collective each endpoint must receive (or send) ``c(N) M`` whatever
      the network does, so ``beta`` is below the real rate (or the data took a faster path);
    * ``"network"``: busbw exceeds the node cut: the network reduced (SHARP) or ``node_beta`` is
      set below the real one;
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
        Supply what the log does not say (a value the log contradicts raises).
    n_nodes : int, optional
        Nodes (default: the log's host count).
    node_beta, rail_beta : float, optional
        Network bandwidth per node, or per GPU's own NIC, per direction, bytes/s, for the network
        cut; without either only the endpoint bound is used.
    nic_shares_link : bool, default False
        As in :func:`two_level_ceiling_terms`: the NIC's traffic crosses the ``beta`` link.
    in_network : {None, "nvls", "collnet", "nvls+collnet"} or dict, optional
        In-network reduction of an AllReduce (the other collectives move the same bytes either
        way): ``"nvls"`` — the NVSwitch reduces, so each GPU sends and receives ``M`` instead of
        ``c(N) M`` (the endpoint term rises by ``c(N)``); ``"collnet"`` — the network reduces
        (SHARP), so each node sends ``M`` instead of ``V_node``. A dict maps a size (bytes) to its
        kind, for the sizes NCCL ran so (its ``NCCL_DEBUG_SUBSYS=TUNING`` lines).

    Returns
    -------
    Table
        Columns 大小, 效率, 区间, 实测 busbw, 上限 busbw (the verdict first, so it stays visible on a
        phone); ``values`` holds one dict per row of size > 0 with ``size``, ``busbw``, ``ceiling``,
        ``efficiency`` (``None`` when flagged), ``flag`` (``None``, ``"endpoint"``, ``"network"`` or
        ``"latency"``), ``regime`` (``"latency"``, ``"bandwidth"`` or ``"network"``: the largest term
        of the bound), ``bound_time``, ``time``, the same for the in-place half (``busbw_inplace``,
        ``efficiency_inplace``, ``flag_inplace``, ``time_inplace``; ``None`` without one), and the
        row's ``line``, ``type``, ``redop``, ``root`` (``None`` for nccl-tests' ``-1``, no root),
        ``in_network`` (the reduction the row's bound allows) and ``algorithm`` (``"RING/SIMPLE"``
        … where NCCL's INFO lines name it, else ``None``).

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
    beta, ports = check_link(beta, ports)
    latency_ports = (
        ports
        if latency_ports is None
        else check_int("latency_ports", latency_ports, minimum=1, maximum=2**62, scalar=True)
    )
    n_nodes, node_beta = _node_context(log, n, n_nodes, node_beta, rail_beta)
    nic_shares_link = check_bool("nic_shares_link", nic_shares_link)
    # The GPU's egress: its links, and beside them its share of the node's network (eq:cc-nccl-two-level).
    egress = ports * beta
    if node_beta is not None and n_nodes > 1 and not nic_shares_link:
        egress += nic_share(n, n_nodes, node_beta, primitive, rails=rail_beta is not None)
    coefficient = _busbw_factor(primitive, n)
    node_coefficient = node_volume_coefficient(primitive, n, n_nodes) if node_beta is not None else 0.0
    node_ceiling = node_cut_ceiling(primitive, n, n_nodes, node_beta) if node_coefficient else None
    t_alpha = _latency_bound(primitive, n, alpha, latency_ports)
    rows, values = [], []
    algorithms = getattr(log.nccl, "algorithms", {}) if log.nccl is not None else {}
    for row in log.rows:
        if row.size == 0:
            continue
        reduction = _in_network_for(in_network, primitive, row.size)
        # In-network reduction (eq. of chapter 5's in-network bound): NVLS lets each GPU of an
        # AllReduce send and receive M, not c(N) M; CollNet (SHARP) lets each node send M.
        endpoint_volume = row.size if reduction in ("nvls", "nvls+collnet") else coefficient * row.size
        node_volume = row.size if reduction in ("collnet", "nvls+collnet") else node_coefficient * row.size
        t_beta = ratio(endpoint_volume, egress, "the endpoint egress")
        t_node = ratio(node_volume, node_beta, "node_beta") if node_coefficient else 0.0
        if reduction is None:
            ceiling = _busbw_ceiling(primitive, n, row.size, alpha, egress, 1, latency_ports)
            if node_ceiling is not None:
                ceiling = min(ceiling, node_ceiling)
        else:
            ceiling = ratio(coefficient * row.size, max(t_alpha, t_beta, t_node), "the bound time")
        bound_time = max(t_alpha, t_beta, t_node)
        regime = "latency" if t_alpha >= max(t_beta, t_node) else ("network" if t_node > t_beta else "bandwidth")
        what = f"the row of {row.size} bytes at line {row.line} (time {row.time_s:g} s)"
        busbw = ratio(coefficient * row.size, row.time_s, what)
        endpoint_limit = egress * (coefficient if reduction in ("nvls", "nvls+collnet") else 1.0)
        node_limit = node_ceiling
        if reduction in ("collnet", "nvls+collnet") and node_ceiling is not None:
            node_limit = coefficient * node_beta
        efficiency, flag = _judge(busbw, row.time_s, bound_time, endpoint_limit, node_limit, what)
        value = {
            "size": row.size,
            "busbw": busbw,
            "ceiling": ceiling,
            "efficiency": efficiency,
            "flag": flag,
            "regime": regime,
            "bound_time": bound_time,
            "time": row.time_s,
            "busbw_inplace": None,
            "efficiency_inplace": None,
            "flag_inplace": None,
            "time_inplace": None,
            "line": row.line,
            "type": row.type,
            "redop": row.redop,
            "root": row.root if row.root is not None and row.root >= 0 else None,  # nccl-tests' -1: no root
            "in_network": reduction,
            "algorithm": "/".join(algorithms[(primitive, row.size)]) if (primitive, row.size) in algorithms else None,
        }
        if row.time_s_inplace:
            what = f"the in-place half of the row at line {row.line} (time {row.time_s_inplace:g} s)"
            busbw_in = ratio(coefficient * row.size, row.time_s_inplace, what)
            efficiency_in, flag_in = _judge(busbw_in, row.time_s_inplace, bound_time, endpoint_limit, node_limit, what)
            value.update(
                busbw_inplace=busbw_in,
                efficiency_inplace=efficiency_in,
                flag_inplace=flag_in,
                time_inplace=row.time_s_inplace,
            )
        values.append(value)
        shown = f"{efficiency:.2f}" if efficiency is not None else _FLAG_LABELS[flag]
        rows.append(
            [
                _nbsp(format_bytes(row.size)),
                shown,
                _REGIME_LABELS[regime],
                _nbsp(format_bandwidth(busbw)),
                _nbsp(format_bandwidth(ceiling)),
            ]
        )
    headers = ["大小", "效率", "区间", "实测 busbw", "上限 busbw"]
    network = f"，{n_nodes} 个节点各 {node_beta / 1e9:.3g} GB/s" if node_coefficient else ""
    caption = (
        f"{primitive}，N = {n}：α = {alpha * 1e6:.3g} µs，β = {beta / 1e9:.3g} GB/s，p = {ports}{network}"
        f"（效率 = 下界时间 / 实测时间 = 实测 busbw / 上限）"
    )
    return Table(headers, rows, caption, values)


def _in_network_for(in_network, primitive: str, size: int):
    """The in-network reduction a row's bound allows: only an AllReduce's, per size when given so."""
    if in_network is None or primitive != "all_reduce":
        return None
    kind = in_network.get(size) if isinstance(in_network, dict) else in_network
    if not (kind is None or isinstance(kind, str)) or kind not in (None, "nvls", "collnet", "nvls+collnet"):
        raise ValueError(
            f"in_network must be None, 'nvls', 'collnet', 'nvls+collnet' or a dict of them by size, got {kind!r}"[:200]
        )
    return kind


_FLAG_LABELS = {"endpoint": "超端点上限", "network": "超网络上限", "latency": "快于延迟界"}
_REGIME_LABELS = {"latency": "延迟", "bandwidth": "带宽", "network": "网络"}


@dataclass(frozen=True)
class RunReport:
    """One run held against the bound: the log, the bound's parameters, the per-size table, the fit.

    Made by :func:`run_report`; formatted by :mod:`~ccb_helpers.nccl_tests.formatters` (text,
    CSV, JSON) and drawn by :mod:`~ccb_helpers.nccl_tests.plot`.

    Attributes
    ----------
    log : NcclTestsLog
    n_ranks : int
    collective : str
    alpha, beta : float
        Seconds per round; bytes/s per link per direction.
    ports, latency_ports : int
    label : str
        Where α and β came from (a preset, the command line).
    table : Table
        :func:`nccl_tests_report` of the log.
    fit : AlphaBeta or None
        α and β fitted to the measured times (``None`` when they cannot be: ``fit_error`` says why).
    n_nodes : int
        Nodes of the network cut (1: none).
    node_beta : float or None
        Network bandwidth per node per direction (bytes/s) of the cut.
    fit_error : str or None
        Why the times could not be fitted (``None`` when ``fit`` is set).
    endpoint_ceiling : float or None
        The endpoint term of the bound (bytes/s): ``ports * beta``, plus each GPU's share of its
        node's network on several nodes (:func:`two_level_ceiling_terms`).
    notes : tuple of str
        Where the bound's parameters came from (a preset chosen from the devices, a topology file,
        NCCL's INFO lines …), as the caller gives them.
    """

    log: object
    n_ranks: int
    collective: str
    alpha: float
    beta: float
    ports: int
    latency_ports: int
    label: str
    table: object
    fit: object
    n_nodes: int = 1
    node_beta: float | None = None
    fit_error: str | None = None
    endpoint_ceiling: float | None = None
    notes: tuple = ()

    @property
    def node_ceiling(self) -> float | None:
        """busbw ceiling of the cut around a node (bytes/s), ``None`` without one."""
        if self.node_beta is None or self.n_nodes <= 1:
            return None
        return node_cut_ceiling(self.collective, self.n_ranks, self.n_nodes, self.node_beta)


def run_report(
    log,
    alpha,
    beta,
    ports=1,
    latency_ports=None,
    n_ranks=None,
    collective=None,
    n_nodes=None,
    node_beta=None,
    rail_beta=None,
    label="",
    nic_shares_link=False,
    in_network=None,
    notes=(),
) -> RunReport:
    """:func:`nccl_tests_report` and :func:`fit_alpha_beta` of one run, with the parameters used.

    >>> from ccb_helpers.nccl_tests import read_nccl_tests
    >>> run = run_report(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce")
    >>> run.n_ranks, run.collective, len(run.table.values), run.node_ceiling
    (2, 'all_reduce', 2, None)
    """
    from .fit import _fit_or_error

    table = nccl_tests_report(
        log,
        alpha,
        beta,
        ports=ports,
        latency_ports=latency_ports,
        n_ranks=n_ranks,
        collective=collective,
        n_nodes=n_nodes,
        node_beta=node_beta,
        rail_beta=rail_beta,
        nic_shares_link=nic_shares_link,
        in_network=in_network,
    )
    _, n, primitive = _log_context(log, n_ranks, collective)
    k, per_node = _node_context(log, n, n_nodes, node_beta, rail_beta)
    latency_ports = ports if latency_ports is None else latency_ports
    fit, fit_error = _fit_or_error(log, n, primitive)
    endpoint = float(ports * beta)
    if per_node is not None and k > 1 and not nic_shares_link:
        endpoint += nic_share(n, k, per_node, primitive, rails=rail_beta is not None)
    return RunReport(
        log,
        n,
        primitive,
        float(alpha),
        float(beta),
        int(ports),
        int(latency_ports),
        label,
        table,
        fit,
        k,
        per_node,
        fit_error,
        endpoint,
        tuple(str(note) for note in notes),
    )


def compare_runs(before: RunReport, after: RunReport) -> list[dict]:
    """Per size (and type, operator, root) in both runs: busbw before and after, the change, each efficiency.

    ``change`` is ``after / before - 1`` of the out-of-place busbw; each efficiency is against its
    own run's bound (a run on more ranks or other hardware has another ceiling). Rows are matched
    on size, type, operator and root; a row left without a match is matched on size and type alone
    when that names one row on each side (two collectives, e.g. AllReduce against Reduce, whose
    roots and operators differ: each busbw is then its own collective's).

    >>> from ccb_helpers.nccl_tests import read_nccl_tests
    >>> slow = read_nccl_tests(_EXAMPLE.replace("104.9   10.00   10.00", "209.7    5.00    5.00"))
    >>> a = run_report(slow, 1e-6, 20e9, collective="all_reduce")
    >>> b = run_report(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce")
    >>> [(c["size"], round(c["change"], 2)) for c in compare_runs(a, b)]
    [(1024, 0.0), (1048576, 1.0)]
    """
    if not isinstance(before, RunReport) or not isinstance(after, RunReport):
        raise TypeError("compare_runs takes two RunReport (from run_report)")

    def key(value):
        return value["size"], value["type"], value["redop"], value["root"]

    later = {key(v): v for v in after.table.values}
    by_size: dict = {}
    for v in after.table.values:
        by_size.setdefault((v["size"], v["type"]), []).append(v)
    before_by_size: dict = {}
    for v in before.table.values:
        before_by_size.setdefault((v["size"], v["type"]), []).append(v)
    rows = []
    for value in before.table.values:
        other = later.get(key(value))
        if other is None:
            pair = (value["size"], value["type"])
            if len(by_size.get(pair, ())) == 1 and len(before_by_size[pair]) == 1:
                other = by_size[pair][0]
            else:
                continue
        rows.append(
            {
                "size": value["size"],
                "type": value["type"],
                "redop": value["redop"],
                "root": value["root"],
                "busbw_before": value["busbw"],
                "busbw_after": other["busbw"],
                "change": ratio(other["busbw"], value["busbw"], f"the busbw before at {value['size']} bytes") - 1.0,
                "efficiency_before": value["efficiency"],
                "flag_before": value["flag"],
                "efficiency_after": other["efficiency"],
                "flag_after": other["flag"],
                "ceiling_before": value["ceiling"],
                "ceiling_after": other["ceiling"],
            }
        )
    return rows
