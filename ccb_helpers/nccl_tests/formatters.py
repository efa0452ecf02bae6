"""The report as text: the per-size table a practitioner reads in a terminal."""

from __future__ import annotations

from ..bandwidth import volume_coefficient
from .ceilings import two_level_busbw_ceiling


def format_report_text(log, n, primitive, alpha, beta, ports, latency_ports, label, report, fit,
                       node_beta=None, n_nodes=None) -> str:
    """The report of one run as the lines the command line prints (joined by newlines).

    ``report`` is :func:`~ccb_helpers.nccl_tests_report`'s table of ``log``, ``fit`` the
    :class:`AlphaBeta` fit (or ``None``), ``label`` where α and β came from.
    """
    from ..units import format_bytes

    lines: list[str] = []
    emit = lines.append

    first = log.rows[0]
    hosts = f" on {len(log.hosts)} host{'s' if len(log.hosts) > 1 else ''}" if log.hosts else ""
    emit(f"collective {primitive}, {n} ranks{hosts}, {len(log.rows)} rows"
          f"{', NCCL ' + log.nccl_version if log.nccl_version else ''}"
          f"{', type ' + first.type if first.type else ''}{', op ' + first.redop if first.redop else ''}")
    emit(f"bound: {label}; alpha = {alpha * 1e6:.4g} us, beta = {beta / 1e9:.4g} GB/s, ports = {ports}"
          f"{f' (latency bound with {latency_ports} ports)' if latency_ports != ports else ''}")
    emit(f"endpoint busbw ceiling p*beta = {ports * beta / 1e9:.4g} GB/s")
    if node_beta is not None:
        k = n_nodes if n_nodes is not None else log.n_hosts
        if k and k > 1:
            node_ceiling = two_level_busbw_ceiling(primitive, n, k, ports * beta, node_beta)
            emit(f"network cut: {k} nodes x {node_beta / 1e9:.4g} GB/s -> busbw ceiling {node_ceiling / 1e9:.4g} GB/s")
    elif log.n_hosts and log.n_hosts > 1:
        emit(f"note: the ranks run on {log.n_hosts} hosts; pass --node-beta BPS (network bandwidth per node) "
              "to add the network cut around each node")
    wrong = [r for r in log.rows if log.check_column == "#wrong" and any(w for w in (r.wrong, r.wrong_inplace) if w)]
    if (log.out_of_bounds or 0) > 0 or wrong:
        emit(f"WARNING: the log's own correctness check failed ({log.out_of_bounds or len(wrong)} out-of-bounds "
              "values): these timings come from wrong results and do not measure a working collective")
    emit("")
    varied = len({(r.type, r.redop, r.root) for r in log.rows if r.size > 0}) > 1
    emit(f"{'size':>10}  {'busbw GB/s':>10}  {'ceiling GB/s':>12}  {'efficiency':>10}  regime" + ("     type/op" if varied else ""))
    notes = set()
    described = [r for r in log.rows if r.size > 0]
    shown_flag = {"endpoint": "> p*beta", "network": "> network", "latency": "< latency"}
    for v, row in zip(report.values, described):
        if v["efficiency"] is not None:
            shown = f"{v['efficiency']:.2f}"
        else:
            shown = shown_flag[v["flag"]]
            notes.add(v["flag"])
        extra = f"  {row.type}/{row.redop}" if varied else ""
        emit(f"{format_bytes(v['size']):>10}  {v['busbw'] / 1e9:>10.2f}  {v['ceiling'] / 1e9:>12.2f}  {shown:>10}  {v['regime']:<9}{extra}")
    emit("")
    if "endpoint" in notes:
        in_network = volume_coefficient(primitive, n) * ports * beta if primitive == "all_reduce" else None
        emit("> p*beta: busbw exceeds the endpoint ceiling p*beta, which no algorithm that only sends and receives "
              "through the endpoints can reach. Either the network reduces in flight (NVLS, SHARP: each endpoint "
              "then moves only M"
              + (f", so AllReduce's ceiling is 2(N-1)/N*p*beta = {in_network / 1e9:.4g} GB/s" if in_network else "")
              + ") or the traffic has a faster path than beta (e.g. NVLink inside a node when beta is the NIC).")
    if "network" in notes:
        emit("> network: busbw exceeds the node cut c(N)/c(K)*node_beta: the network reduces (SHARP) or --node-beta "
              "is below the real network bandwidth per node.")
    if "latency" in notes:
        emit("< latency: the time is below the latency bound ceil(log_{k+1} N)*alpha: alpha is set above this system's.")
    if fit is None:
        emit("fit: needs at least two non-empty rows of different sizes")
    else:
        emit(f"fit (ring, {fit.steps} steps, least squares on relative error over {fit.points} rows): "
              f"alpha = {fit.alpha * 1e6:.3g} us, beta = {fit.beta / 1e9:.4g} GB/s "
              f"(rms relative error {100 * fit.rms_relative_error:.0f} %)")
    return "\n".join(lines)
