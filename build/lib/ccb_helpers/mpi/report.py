"""The human-readable view of a ``python -m ccb_helpers.mpi`` result: an OSU-shaped table and warnings.

:func:`format_report` turns the result dict (the same data ``--json`` writes) into text, one row
per size as the OSU micro-benchmarks and nccl-tests print them; :func:`report_warnings` lists what
makes the numbers less trustworthy (more ranks than cores, other processes' load, a poor α-β fit,
a wrong result). No MPI.
"""

from __future__ import annotations

from ..algorithms import algorithm_terms
from ..bandwidth import bus_bandwidth
from ..bounds import combined_lower_bound
from ..units import format_bytes
from ._load import OUTSIDE_LOAD_WARNING

__all__ = ["RESIDUAL_WARNING", "format_report", "report_warnings"]

#: Outside processes the table and the warnings name per host (the JSON keeps more).
NAMED_PROCESSES = 3
#: An α-β fit whose RMS relative residual exceeds this is flagged (the line misses the points by > 25 %).
RESIDUAL_WARNING = 0.25


def _us(seconds) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.2f}"


def _gbps(bytes_per_s) -> str:
    return "-" if bytes_per_s is None else f"{bytes_per_s / 1e9:.3f}"


def _load_average(values) -> str:
    return "unknown" if not values else " ".join(f"{v:.2f}" for v in values)


def _outside_processes(host: dict) -> str:
    return ", ".join(
        f"{p['name']} (pid {p['pid']}, {p['cores']:.2f} cores)"
        for p in (host.get("outside_processes") or [])[:NAMED_PROCESSES]
    )


def _load_lines(result: dict) -> list[str]:
    """The table's header lines on the machine's load, one per host (``result["load"]``)."""
    lines = []
    for host in result.get("load") or []:
        line = (
            f"# load on {host.get('host')} ({host.get('cores')} cores, {host.get('ranks')} ranks): load average "
            f"{_load_average(host.get('load_average_start'))} (1, 5, 15 min) at the start, "
            f"{_load_average(host.get('load_average_end'))} at the end"
        )
        if host.get("outside_cores") is not None:
            line += (
                f"; during the run {host.get('busy_cores'):.2f} cores busy, {host.get('own_cores'):.2f} of them "
                f"this launch's, other processes {host['outside_cores']:.2f}"
            )
            named = _outside_processes(host)
            line += f" (busiest: {named})" if named else ""
        lines.append(line)
    return lines


def _load_warnings(result: dict) -> list[str]:
    """Other processes that took cores from the ranks, named per host."""
    out = []
    for host in result.get("load") or []:
        start = host.get("load_average_start") or [None]
        outside, cores = host.get("outside_cores"), host.get("cores")
        if outside is not None:
            if outside < OUTSIDE_LOAD_WARNING:
                continue
            named = _outside_processes(host)
            what = f"other processes used {outside:.2f} of the {cores} cores of {host.get('host')} during the run"
            what += f" ({named})" if named else ""
        elif start[0] is not None and start[0] > max(cores - host.get("ranks", 0), 0) + OUTSIDE_LOAD_WARNING:
            what = f"{host.get('host')} was busy before the launch"
        else:
            continue
        load = "" if start[0] is None else f", 1-minute load average {start[0]:.2f} at the start"
        out.append(
            f"WARNING: {what}{load}: the times include waiting for a core, and alpha and beta measured now "
            "describe the machine under that load"
        )
    return out


def report_warnings(result: dict) -> list[str]:
    """Warnings about a result, one line each, starting with ``WARNING:``.

    >>> report_warnings({"command": "pingpong", "n": 2, "residual": 0.4, "environment": {"oversubscribed": False}})
    ['WARNING: the alpha-beta fit misses the ping-pong times by 40% (RMS relative residual > 25%): alpha and beta describe them poorly']
    """
    if not isinstance(result, dict) or "command" not in result:
        raise ValueError("result must be a result dict of python -m ccb_helpers.mpi (with 'command')")
    out = []
    env = result.get("environment") or {}
    if env.get("oversubscribed"):
        out.append(
            f"WARNING: {result.get('n')} ranks on {env.get('cores_rank0_host')} cores (oversubscribed): ranks wait to be "
            "scheduled, times include that wait; use at most one rank per core for timings"
        )
    out += _load_warnings(result)
    fit = result if result["command"] == "pingpong" else (result.get("pingpong") or {})
    residual = fit.get("residual")
    if residual is not None and residual > RESIDUAL_WARNING:
        out.append(
            f"WARNING: the alpha-beta fit misses the ping-pong times by {residual:.0%} (RMS relative residual > "
            f"{RESIDUAL_WARNING:.0%}): alpha and beta describe them poorly"
        )
    if fit.get("fit_error"):
        out.append(f"WARNING: no alpha-beta fit: {fit['fit_error']}")
    if fit.get("received_ok") is False:
        out.append("WARNING: the ping-pong's last messages did not carry the peer's bytes")
    for run in result.get("runs", [result] if result["command"] == "run" else []):
        if not run.get("correct", True) or not run.get("library_correct", True):
            out.append(
                f"WARNING: {run.get('algorithm')} {run.get('primitive')} at M = {run.get('m')} bytes gave a wrong result"
            )
    return out


def format_report(result: dict, warnings: bool = True) -> str:
    """The result as a text table (sizes down, OSU's columns across), then its warnings unless ``warnings=False``.

    Ping-pong: size, one-way time (mean over all round trips, µs) and the lowest and highest of
    its samples' means, bandwidth M / T (GB/s), the fit α + M/β (µs) and time / fit. ``run`` /
    ``sweep``: per algorithm, size, median time of the slowest rank (µs), OSU's summary — each
    rank's mean time, averaged over the ranks, and the fastest and the slowest rank's (µs) —,
    algbw = M / T and nccl-tests' busbw (GB/s), the α-β model and the lower bound (µs), time /
    bound, and the MPI library's median (µs). ``selftest``: the count of correct cases. Under the
    title, one line per host on its load (``load``: load averages, and the cores other processes
    used during the run, the busiest by name).

    >>> print(format_report({"command": "pingpong", "n": 2, "sizes": [0, 1000], "times_s": [1e-6, 2e-6],
    ...                      "min_max_s": [[0.9e-6, 1.2e-6], [1.9e-6, 2.5e-6]],
    ...                      "alpha_s": 1e-6, "beta_Bps": 1e9, "residual": 0.0,
    ...                      "load": [{"host": "node1", "cores": 2, "ranks": 2, "load_average_start": [0.5, 0.25, 0.1],
    ...                                "load_average_end": [1.0, 0.5, 0.2], "busy_cores": 2.0, "own_cores": 1.9,
    ...                                "outside_cores": 0.1, "outside_processes": []}]}))
    # ccb_helpers.mpi pingpong, N = 2: alpha = 1.00 us, beta = 1.000 GB/s, residual 0%
    # load on node1 (2 cores, 2 ranks): load average 0.50 0.25 0.10 (1, 5, 15 min) at the start, 1.00 0.50 0.20 at the end; during the run 2.00 cores busy, 1.90 of them this launch's, other processes 0.10
    #       size   time(us)  min(us)  max(us)  bw(GB/s)  fit(us)  time/fit
               0       1.00     0.90     1.20         -     1.00      1.00
          1000 B       2.00     1.90     2.50     0.500     2.00      1.00
    """
    if not isinstance(result, dict) or result.get("command") not in ("pingpong", "run", "sweep", "selftest"):
        raise ValueError("result must be a result dict of python -m ccb_helpers.mpi (pingpong, run, sweep or selftest)")
    lines = []
    command = result["command"]
    if command == "pingpong":
        alpha, beta = result.get("alpha_s"), result.get("beta_Bps")
        head = f"# ccb_helpers.mpi pingpong, N = {result['n']}"
        if alpha is not None:
            head += f": alpha = {alpha * 1e6:.2f} us, beta = {beta / 1e9:.3f} GB/s, residual {result.get('residual', 0):.0%}"
        lines += [head, *_load_lines(result)]
        lines.append(
            f"# {'size':>10} {'time(us)':>10} {'min(us)':>8} {'max(us)':>8} {'bw(GB/s)':>9} {'fit(us)':>8} {'time/fit':>9}"
        )
        spreads = result.get("min_max_s") or [[None, None]] * len(result["sizes"])
        for size, t, (low, high) in zip(result["sizes"], result["times_s"], spreads):
            fit = None if alpha is None else alpha + size / beta
            lines.append(
                f"{format_bytes(size) if size else '0':>12} {_us(t):>10} {_us(low):>8} {_us(high):>8} "
                f"{_gbps(size / t if size else None):>9} {_us(fit):>8} {'-' if fit is None else f'{t / fit:.2f}':>9}"
            )
    elif command == "selftest":
        cases = result.get("cases", [])
        good = sum(1 for c in cases if c.get("correct") and c.get("library_correct"))
        lines.append(
            f"# ccb_helpers.mpi selftest, N in {result.get('ns')}: {good} of {len(cases)} cases correct "
            f"(book and library), {len(result.get('skipped', []))} pairs skipped"
        )
        lines += _load_lines(result)
    else:
        runs = result.get("runs", [result])
        alpha, beta = result.get("alpha_s"), result.get("beta_Bps")
        lines.append(
            f"# ccb_helpers.mpi {command}, N = {result['n']}"
            + (
                ""
                if alpha is None
                else f": model and bound with alpha = {alpha * 1e6:.2f} us, beta = {beta / 1e9:.3f} GB/s"
            )
        )
        lines += _load_lines(result)
        header = (
            f"# {'size':>10} {'time(us)':>10} {'avg(us)':>10} {'min(us)':>10} {'max(us)':>10} {'algbw':>7} "
            f"{'busbw':>7} {'model(us)':>10} {'bound(us)':>10} {'time/bound':>10} {'MPI lib(us)':>11}"
        )
        current = None
        for run in runs:
            pair = (run["algorithm"], run["primitive"])
            if pair != current:
                current = pair
                lines += [
                    f"# {run['algorithm']}:{run['primitive']}, time: median over runs of the slowest rank; "
                    "avg, min, max: each rank's mean over the runs, over the ranks (OSU); algbw, busbw in GB/s",
                    header,
                ]
            t, m = run["median_s"], run["m"]
            model = bound = None
            if alpha is not None:
                # (not plots.model_and_bound: the ranks print this report and must not import matplotlib)
                ports = run.get("ports", 1)
                model = algorithm_terms(
                    run["algorithm"], run["primitive"], run["n"], m, ports, chunks=run.get("chunks")
                ).time(alpha, beta)
                bound = combined_lower_bound(run["primitive"], run["n"], m, alpha, beta, ports)
            algbw = m / t if m and t > 0 else None
            busbw = bus_bandwidth(run["primitive"], run["n"], m, t) if algbw is not None else None
            ratio = "-" if not bound else f"{t / bound:.2f}"
            flag = "" if run.get("correct", True) else "  WRONG RESULT"
            lines.append(
                f"{format_bytes(m) if m else '0':>12} {_us(t):>10} {_us(run.get('rank_mean_avg_s')):>10} "
                f"{_us(run.get('rank_mean_min_s')):>10} {_us(run.get('rank_mean_max_s')):>10} {_gbps(algbw):>7} "
                f"{_gbps(busbw):>7} {_us(model):>10} {_us(bound):>10} {ratio:>10} {_us(run.get('library_median_s')):>11}{flag}"
            )
    return "\n".join(lines + (report_warnings(result) if warnings else []))
