"""The human-readable view of a ``python -m ccb_helpers.mpi`` result: an OSU-shaped table and warnings.

:func:`format_report` turns the result dict (the same data ``--json`` writes) into text, one row
per size as the OSU micro-benchmarks and nccl-tests print them; :func:`report_warnings` lists what
makes the numbers less trustworthy (more ranks than cores, a poor α-β fit, a wrong result). No MPI.
"""

from __future__ import annotations

from ..algorithms import algorithm_terms
from ..bandwidth import bus_bandwidth
from ..bounds import combined_lower_bound
from ..units import format_bytes

__all__ = ["RESIDUAL_WARNING", "format_report", "report_warnings"]

#: An α-β fit whose RMS relative residual exceeds this is flagged (the line misses the points by > 25 %).
RESIDUAL_WARNING = 0.25


def _us(seconds) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.2f}"


def _gbps(bytes_per_s) -> str:
    return "-" if bytes_per_s is None else f"{bytes_per_s / 1e9:.3f}"


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

    Ping-pong: size, one-way time (mean, µs), bandwidth M / T (GB/s), the fit α + M/β (µs) and
    time / fit. ``run`` / ``sweep``: per algorithm, size, median time of the slowest rank (µs),
    algbw = M / T and nccl-tests' busbw (GB/s), the α-β model and the lower bound (µs),
    time / bound, and the MPI library's median (µs). ``selftest``: the count of correct cases.

    >>> print(format_report({"command": "pingpong", "n": 2, "sizes": [0, 1000], "times_s": [1e-6, 2e-6],
    ...                      "alpha_s": 1e-6, "beta_Bps": 1e9, "residual": 0.0}))
    # ccb_helpers.mpi pingpong, N = 2: alpha = 1.00 us, beta = 1.000 GB/s, residual 0%
    #       size   time(us)  bw(GB/s)  fit(us)  time/fit
               0       1.00         -     1.00      1.00
          1000 B       2.00     0.500     2.00      1.00
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
        lines += [head, f"# {'size':>10} {'time(us)':>10} {'bw(GB/s)':>9} {'fit(us)':>8} {'time/fit':>9}"]
        for size, t in zip(result["sizes"], result["times_s"]):
            fit = None if alpha is None else alpha + size / beta
            lines.append(
                f"{format_bytes(size) if size else '0':>12} {_us(t):>10} {_gbps(size / t if size else None):>9} "
                f"{_us(fit):>8} {'-' if fit is None else f'{t / fit:.2f}':>9}"
            )
    elif command == "selftest":
        cases = result.get("cases", [])
        good = sum(1 for c in cases if c.get("correct") and c.get("library_correct"))
        lines.append(
            f"# ccb_helpers.mpi selftest, N in {result.get('ns')}: {good} of {len(cases)} cases correct "
            f"(book and library), {len(result.get('skipped', []))} pairs skipped"
        )
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
        header = (
            f"# {'size':>10} {'time(us)':>10} {'algbw':>7} {'busbw':>7} {'model(us)':>10} {'bound(us)':>10} "
            f"{'time/bound':>10} {'MPI lib(us)':>11}"
        )
        current = None
        for run in runs:
            pair = (run["algorithm"], run["primitive"])
            if pair != current:
                current = pair
                lines += [
                    f"# {run['algorithm']}:{run['primitive']}, time: median over runs of the slowest rank; "
                    "algbw, busbw in GB/s",
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
                f"{format_bytes(m) if m else '0':>12} {_us(t):>10} {_gbps(algbw):>7} {_gbps(busbw):>7} {_us(model):>10} "
                f"{_us(bound):>10} {ratio:>10} {_us(run.get('library_median_s')):>11}{flag}"
            )
    return "\n".join(lines + (report_warnings(result) if warnings else []))
