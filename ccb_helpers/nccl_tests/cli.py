"""Command line: ``python -m ccb_helpers.nccl_tests LOGFILE …`` (parses arguments, calls the library)."""

from __future__ import annotations

import sys

from ..primitives import PRIMITIVES
from .fit import _fit_or_none
from .formatters import format_report_text
from .plot import plot_report
from .reader import MAX_TEXT_CHARS, read_nccl_tests_runs
from .records import _log_context
from .report import nccl_tests_report

_USAGE_EXAMPLE = "python -m ccb_helpers.nccl_tests all_reduce.log --preset h100_nvswitch --plot report.png"


def _decode(data: bytes) -> str:
    """Log bytes as text: UTF-8 (with or without BOM) or UTF-16 with a BOM (PowerShell's ``>``)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if data[:4000].count(b"\x00") > len(data[:4000]) // 4:
        raise ValueError("the file looks like UTF-16 without a byte-order mark; save it as UTF-8")
    return data.decode("utf-8", errors="replace")


def main(argv=None) -> int:
    """Command line: ``python -m ccb_helpers.nccl_tests LOGFILE [--preset KEY | --alpha S --beta BPS --ports P]``.

    Prints, per message size, the measured busbw, the bound's busbw ceiling, the efficiency
    (bound time / measured time) and the regime, then α and β fitted to the measured times.
    A file with several runs (tables) gets one report per run. ``--node-beta`` adds the network
    cut around each node (``--nodes`` defaults to the hosts the log lists). Returns 0, or 2 on
    bad input (missing file, unparseable log, bad numbers) after printing why.

    >>> main(["/no/such/file.log", "--alpha", "1e-6", "--beta", "1e11"])
    2
    """
    import argparse
    import os

    from ..hardware import PRESETS

    parser = argparse.ArgumentParser(
        prog="python -m ccb_helpers.nccl_tests",
        description="Hold an nccl-tests log against the collective-communication lower bound.",
        epilog=f"Example: {_USAGE_EXAMPLE}",
    )
    parser.add_argument("logfile", help="text printed by all_reduce_perf, all_gather_perf, ... (one run or several)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--preset", choices=sorted(PRESETS), help="hardware preset giving alpha, beta and ports")
    source.add_argument("--alpha", type=float, help="latency per round, seconds (with --beta)")
    parser.add_argument("--beta", type=float, help="bandwidth per link per direction, bytes/s")
    parser.add_argument("--ports", type=int, default=1, help="links used in parallel (default 1)")
    parser.add_argument("--node-beta", type=float, help="network bandwidth per node per direction, bytes/s (adds the node cut)")
    parser.add_argument("--nodes", type=int, help="nodes for --node-beta (default: the hosts the log lists)")
    parser.add_argument("--collective", choices=PRIMITIVES, help="when the log does not name its program")
    parser.add_argument("--ranks", type=int, help="when the log has no '# Rank' lines")
    parser.add_argument("--plot", metavar="OUT.png", help="also draw busbw and efficiency against size")

    def fail(message: str) -> int:
        print(f"error: {message}", file=sys.stderr)
        return 2

    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        size = os.path.getsize(args.logfile)
        if size > 4 * MAX_TEXT_CHARS:
            return fail(f"{args.logfile} has {size} bytes; the reader accepts at most {MAX_TEXT_CHARS} characters "
                        "(split the log into runs)")
        with open(args.logfile, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return fail(f"cannot read {args.logfile}: {error.strerror or error}")
    if args.preset:
        preset = PRESETS[args.preset]
        alpha, beta = preset.alpha, preset.beta
        ports = preset.ports or 1  # all-port presets: many peers at once (latency) through one NIC (bandwidth)
        label = f"preset {preset.key}: {preset.label}"
    else:
        if args.beta is None:
            return fail("--alpha needs --beta (bytes/s), e.g. --alpha 2e-6 --beta 50e9")
        alpha, beta, ports = args.alpha, args.beta, args.ports
        label = "alpha/beta from the command line"
    try:
        runs = read_nccl_tests_runs(_decode(data), collective=args.collective)
        reports = []
        for log in runs:
            if log.collective is None:
                return fail("the log does not name its program (no '..._perf' command, no 'Collective test starting' "
                            f"line) for the table at line {log.header_line}: pass --collective, one of " + ", ".join(PRIMITIVES))
            if log.n_ranks is None and args.ranks is None:
                return fail(f"the table at line {log.header_line} has no '# Rank ... device ...' lines: pass --ranks N")
            n = log.n_ranks if args.ranks is None else args.ranks
            latency_ports = preset.ports_for(n) if args.preset and n >= 2 else ports
            report = nccl_tests_report(log, alpha, beta, ports=ports, latency_ports=latency_ports, n_ranks=n,
                                       n_nodes=args.nodes, node_beta=args.node_beta)
            _, n, primitive = _log_context(log, n, None)
            reports.append((log, n, primitive, latency_ports, report, _fit_or_none(log, n, primitive)))
        for i, (log, n, primitive, latency_ports, report, _) in enumerate(reports):
            if args.plot:
                plot_report(log, n, primitive, alpha, beta, ports, latency_ports, report, _plot_path(args.plot, i, len(reports)))
    except (ValueError, TypeError) as error:
        return fail(str(error))
    except OSError as error:
        return fail(f"cannot write {args.plot}: {error.strerror or error}")

    print(f"nccl-tests log: {args.logfile}" + (f" ({len(reports)} runs)" if len(reports) > 1 else ""))
    for i, (log, n, primitive, latency_ports, report, fit) in enumerate(reports):
        if len(reports) > 1:
            print(f"\n=== run {i + 1} of {len(reports)} (table at line {log.header_line}) ===")
        print(format_report_text(log, n, primitive, alpha, beta, ports, latency_ports, label, report, fit,
                                 node_beta=args.node_beta, n_nodes=args.nodes))
        if args.plot:
            print(f"plot written to {_plot_path(args.plot, i, len(reports))}")
    return 0


def _plot_path(path: str, index: int, count: int) -> str:
    """``OUT.png`` for one run; ``OUT-1.png``, ``OUT-2.png`` … for several."""
    import os

    if count == 1:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}-{index + 1}{ext or '.png'}"
