"""Views of a :class:`~ccb_helpers.nccl_tests.report.RunReport`: a terminal table, CSV, JSON.

The data are made once (:func:`~ccb_helpers.nccl_tests.report.run_report`); these functions only
lay them out — the shape of nccl-tests' and OSU's own tables (one line per size, both halves).
"""

from __future__ import annotations

import csv
import io
import json
import math

from ..units import format_bytes
from .ceilings import _busbw_factor

#: The text views' short names of the flags.
SHOWN_FLAGS = {"endpoint": "> p*beta", "network": "> network", "latency": "< latency"}


def _shown(efficiency, flag) -> str:
    if efficiency is not None:
        return f"{efficiency:.2f}"
    return SHOWN_FLAGS[flag] if flag else "-"


def _gbps(value) -> str:
    return "-" if value is None else f"{value / 1e9:.2f}"


def flag_explanation(flag: str, run) -> str:
    """Why a busbw passed a ceiling, in terms of the run's collective."""
    if flag == "endpoint":
        if run.collective == "all_reduce":
            in_network = _busbw_factor("all_reduce", run.n_ranks) * run.ports * run.beta
            return (
                "> p*beta: busbw exceeds the endpoint ceiling p*beta, which no AllReduce that only sends and "
                "receives through the endpoints can reach. Either the switch reduces in flight (NVLS, SHARP: "
                f"each endpoint then moves only M, so AllReduce's ceiling is 2(N-1)/N*p*beta = {in_network / 1e9:.4g} "
                "GB/s) or the traffic has a faster path than beta (e.g. NVLink inside a node when beta is the NIC)."
            )
        if run.collective == "sendrecv":
            return (
                "> p*beta: a point-to-point transfer moved M faster than p*beta: beta is below the real link rate "
                "(check the preset), or the two ranks share a GPU or a node's memory instead of a link."
            )
        return (
            f"> p*beta: every endpoint of {run.collective} must receive (or send) c(N)*M bytes through its own "
            "links whatever the network does (in-network reduction or multicast does not lower that), so busbw "
            "above p*beta means beta is below this system's real rate (e.g. NVLink inside a node when beta is "
            "the NIC's), or the ranks share GPUs."
        )
    if flag == "network":
        return (
            "> network: busbw exceeds the cut around a node: the network reduces (SHARP) or the node's network "
            "bandwidth (--node-beta / --rail-beta / --network) is below the real one."
        )
    return "< latency: the time is below the latency bound ceil(log_{k+1} N)*alpha: alpha is set above this system's."


def format_text(run) -> str:
    """The report of one run as the lines the command line prints (joined by newlines).

    >>> from ccb_helpers.nccl_tests import read_nccl_tests, run_report, _EXAMPLE
    >>> print(format_text(run_report(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce")).splitlines()[0])
    collective all_reduce, 2 ranks on 1 host, 2 rows, type float, op sum
    """
    log, n, primitive = run.log, run.n_ranks, run.collective
    lines: list[str] = []
    emit = lines.append
    first = log.rows[0]
    if log.n_hosts:
        hosts = f" on {log.n_hosts} host{'s' if log.n_hosts > 1 else ''}"
    elif log.hosts:
        hosts = f" (the rank lines list {len(log.devices)} of them)"
    else:
        hosts = ""
    source = f" ({log.n_ranks_source})" if log.n_ranks_source not in (None, "rank lines") else ""
    emit(
        f"collective {primitive}, {n} ranks{source}{hosts}, {len(log.rows)} rows"
        f"{', NCCL ' + log.nccl_version if log.nccl_version else ''}"
        f"{', type ' + first.type if first.type else ''}{', op ' + first.redop if first.redop else ''}"
    )
    emit(
        f"bound: {run.label}; alpha = {run.alpha * 1e6:.4g} us, beta = {run.beta / 1e9:.4g} GB/s, ports = {run.ports}"
        f"{f' (latency bound with {run.latency_ports} ports)' if run.latency_ports != run.ports else ''}"
    )
    if run.endpoint_ceiling and run.endpoint_ceiling > run.ports * run.beta * (1 + 1e-12):
        emit(
            f"endpoint busbw ceiling p*beta + node network / r = {run.ports * run.beta / 1e9:.4g} + "
            f"{(run.endpoint_ceiling - run.ports * run.beta) / 1e9:.4g} = {run.endpoint_ceiling / 1e9:.4g} GB/s"
        )
    else:
        emit(f"endpoint busbw ceiling p*beta = {run.ports * run.beta / 1e9:.4g} GB/s")
    if run.node_ceiling is not None:
        emit(
            f"network cut: {run.n_nodes} nodes x {run.node_beta / 1e9:.4g} GB/s -> busbw ceiling "
            f"{run.node_ceiling / 1e9:.4g} GB/s"
        )
    elif run.node_beta is not None:
        emit("network: one node, so no data crosses the network (no network cut)")
    elif log.n_hosts and log.n_hosts > 1:
        emit(
            f"note: the ranks run on {log.n_hosts} hosts; pass --node-beta BPS (network bandwidth per node), "
            "--rail-beta BPS (per GPU's NIC) or --network KEY to add the network cut around each node"
        )
    for note in run.notes:
        emit(f"note: {note}")
    for warning in log.warnings:
        emit(f"WARNING: {warning}")
    emit("")
    varied = len({(r.type, r.redop, r.root) for r in log.rows if r.size > 0}) > 1
    inplace = any(v["busbw_inplace"] is not None for v in run.table.values)
    algorithms = any(v.get("algorithm") for v in run.table.values)
    emit(
        f"{'size':>10}  {'busbw GB/s':>10}  {'ceiling GB/s':>12}  {'efficiency':>10}  regime   "
        + (f"  {'in-place':>10}  {'efficiency':>10}" if inplace else "")
        + ("  type/op" if varied else "")
        + ("  NCCL algo/proto" if algorithms else "")
    )
    flags = []
    for v in run.table.values:
        for flag in (v["flag"], v["flag_inplace"]):
            if flag and flag not in flags:
                flags.append(flag)
        extra = (
            f"  {_gbps(v['busbw_inplace']):>10}  {_shown(v['efficiency_inplace'], v['flag_inplace']):>10}"
            if inplace
            else ""
        )
        kind = f"  {v['type']}/{v['redop']}" if varied else ""
        kind += f"  {v.get('algorithm') or '-'}" if algorithms else ""
        emit(
            f"{format_bytes(v['size']):>10}  {v['busbw'] / 1e9:>10.2f}  {v['ceiling'] / 1e9:>12.2f}  "
            f"{_shown(v['efficiency'], v['flag']):>10}  {v['regime']:<9}{extra}{kind}"
        )
    emit("")
    for flag in flags:
        emit(flag_explanation(flag, run))
    lines.extend(fit_lines(run))
    return "\n".join(lines)


def fit_lines(run) -> list[str]:
    """The fit's lines of the text report: α and β where the rows determine them, else why not."""
    fit = run.fit
    if fit is None:
        return [f"fit: not possible: {run.fit_error}"]
    shown = []
    if fit.alpha_determined:
        shown.append(f"alpha = {fit.alpha * 1e6:.3g} us")
    if fit.beta_determined:
        shown.append(f"beta = {fit.beta / 1e9:.4g} GB/s")
    head = (
        f"fit (ring, {fit.steps} steps, least squares on relative error over {fit.points} rows): "
        if fit.steps > 1
        else f"fit (one round, least squares on relative error over {fit.points} rows): "
    )
    if shown:
        out = [head + ", ".join(shown) + f" (rms relative error {100 * fit.rms_relative_error:.0f} %)"]
    else:
        out = [head + "neither alpha nor beta is determined by these rows"]
    if fit.why_not:
        out.append(f"  not determined: {fit.why_not}")
    return out


CSV_COLUMNS = (
    "run",
    "line",
    "collective",
    "n_ranks",
    "size",
    "type",
    "redop",
    "root",
    "time_us",
    "busbw_GBps",
    "ceiling_GBps",
    "efficiency",
    "flag",
    "regime",
    "time_inplace_us",
    "busbw_inplace_GBps",
    "efficiency_inplace",
    "flag_inplace",
)


def _csv_value(value):
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return value


def format_csv(runs) -> str:
    """Every row of every run, one CSV line each (bandwidths in GB/s, times in µs; empty = none).

    >>> from ccb_helpers.nccl_tests import read_nccl_tests, run_report, _EXAMPLE
    >>> text = format_csv([run_report(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce")])
    >>> text.splitlines()[2]
    '1,11,all_reduce,2,1048576,float,sum,,104.9,9.99596,20,0.499798,,bandwidth,104.9,9.99596,0.499798,'
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for index, run in enumerate(runs, start=1):
        for v in run.table.values:
            writer.writerow(
                [
                    _csv_value(x)
                    for x in (
                        index,
                        v["line"],
                        run.collective,
                        run.n_ranks,
                        v["size"],
                        v["type"],
                        v["redop"],
                        v["root"],
                        v["time"] * 1e6,
                        v["busbw"] / 1e9,
                        v["ceiling"] / 1e9,
                        v["efficiency"],
                        v["flag"],
                        v["regime"],
                        None if v["time_inplace"] is None else v["time_inplace"] * 1e6,
                        None if v["busbw_inplace"] is None else v["busbw_inplace"] / 1e9,
                        v["efficiency_inplace"],
                        v["flag_inplace"],
                    )
                ]
            )
    return out.getvalue()


def _plain(value):
    """JSON-safe: infinite floats (a fit's β when times do not grow) as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def run_data(run) -> dict:
    """One run as plain data (what :func:`format_json` writes)."""
    log, fit = run.log, run.fit
    return {
        "collective": run.collective,
        "n_ranks": run.n_ranks,
        "n_ranks_source": log.n_ranks_source,
        "program": log.program,
        "hosts": list(log.hosts),
        "nccl_version": log.nccl_version,
        "header_line": log.header_line,
        "warnings": list(log.warnings),
        "notes": list(run.notes),
        "bound": {
            "label": run.label,
            "alpha_s": run.alpha,
            "beta_Bps": run.beta,
            "ports": run.ports,
            "latency_ports": run.latency_ports,
            "n_nodes": run.n_nodes,
            "node_beta_Bps": run.node_beta,
            "node_ceiling_Bps": run.node_ceiling,
            "endpoint_ceiling_Bps": run.endpoint_ceiling,
        },
        "fit": {"error": run.fit_error}
        if fit is None
        else {
            "alpha_s": _plain(fit.alpha) if fit.alpha_determined else None,
            "beta_Bps": _plain(fit.beta) if fit.beta_determined else None,
            "alpha_determined": fit.alpha_determined,
            "beta_determined": fit.beta_determined,
            "not_determined": fit.why_not or None,
            "steps": fit.steps,
            "rms_relative_error": fit.rms_relative_error,
            "points": fit.points,
        },
        "rows": [{key: _plain(value) for key, value in v.items()} for v in run.table.values],
    }


def format_json(runs) -> str:
    """Every run as JSON: the log's facts, the bound used, the fit, every row (SI units).

    >>> import json
    >>> from ccb_helpers.nccl_tests import read_nccl_tests, run_report, _EXAMPLE
    >>> data = json.loads(format_json([run_report(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce")]))
    >>> data["runs"][0]["n_ranks"], data["runs"][0]["rows"][1]["size"]
    (2, 1048576)
    """
    return json.dumps({"runs": [run_data(run) for run in runs]}, indent=1, ensure_ascii=False)


def format_compare(rows, before, after, fmt="table") -> str:
    """:func:`~ccb_helpers.nccl_tests.report.compare_runs` rows as a table, CSV or JSON."""
    if fmt == "json":
        return json.dumps(
            {"before": run_data(before), "after": run_data(after), "compare": rows}, indent=1, ensure_ascii=False
        )
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        columns = (
            "size",
            "type",
            "redop",
            "root",
            "busbw_before_GBps",
            "busbw_after_GBps",
            "change",
            "efficiency_before",
            "flag_before",
            "efficiency_after",
            "flag_after",
        )
        writer.writerow(columns)
        for r in rows:
            writer.writerow(
                [
                    _csv_value(x)
                    for x in (
                        r["size"],
                        r["type"],
                        r["redop"],
                        r["root"],
                        r["busbw_before"] / 1e9,
                        r["busbw_after"] / 1e9,
                        r["change"],
                        r["efficiency_before"],
                        r["flag_before"],
                        r["efficiency_after"],
                        r["flag_after"],
                    )
                ]
            )
        return out.getvalue()
    lines = [
        f"before: {before.collective}, {before.n_ranks} ranks, {len(before.log.rows)} rows; "
        f"after: {after.collective}, {after.n_ranks} ranks, {len(after.log.rows)} rows",
        (
            f"bound: {before.label}; p*beta = {before.ports * before.beta / 1e9:.4g} GB/s"
            + (
                f" (after: {after.ports * after.beta / 1e9:.4g} GB/s)"
                if after.ports * after.beta != before.ports * before.beta
                else ""
            )
        )
        if before.label == after.label
        else (
            f"bound before: {before.label}; p*beta = {before.ports * before.beta / 1e9:.4g} GB/s\n"
            f"bound after:  {after.label}; p*beta = {after.ports * after.beta / 1e9:.4g} GB/s"
        ),
    ]
    if before.collective != after.collective:
        lines.append(
            f"note: {before.collective} against {after.collective}, matched by size: each busbw is its own "
            "collective's (its busbw factor), each efficiency against its own bound"
        )
    for name, run in (("before", before), ("after", after)):
        lines += [f"note ({name}): {n}" for n in run.notes]
        lines += [f"WARNING ({name}): {w}" for w in run.log.warnings]
    lines.append("")
    varied = len({(r["type"], r["redop"], r["root"]) for r in rows}) > 1
    lines.append(
        f"{'size':>10}  {'before GB/s':>11}  {'after GB/s':>10}  {'change':>7}  {'eff before':>10}  {'eff after':>10}"
        + ("  type/op" if varied else "")
    )
    for r in rows:
        kind = f"  {r['type']}/{r['redop']}" if varied else ""
        lines.append(
            f"{format_bytes(r['size']):>10}  {r['busbw_before'] / 1e9:>11.2f}  {r['busbw_after'] / 1e9:>10.2f}  "
            f"{100 * r['change']:>+6.0f}%  {_shown(r['efficiency_before'], r['flag_before']):>10}  "
            f"{_shown(r['efficiency_after'], r['flag_after']):>10}{kind}"
        )
    if not rows:
        lines.append("(no size appears in both logs)")
    return "\n".join(lines)
