"""Command line: ``python -m ccb_helpers.nccl_tests LOG …`` and ``… compare A.log B.log …``.

A thin front end: it checks every argument and every path first (one line on stderr and exit
code 2 before any work), then calls the library (:func:`read_nccl_tests_runs`,
:func:`~ccb_helpers.nccl_tests.report.run_report`) and prints a formatter's view.

Exit codes: 0 done (and the gate passed); 2 bad input, with one line saying why;
:data:`GATE_FAILED` (3) when ``--fail-below`` / ``--fail-below-busbw`` found a row below the
threshold — for a cluster's acceptance test in a CI pipeline.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from .._validation import check_real, check_size
from .cli_bound import add_bound_options, bound_for_run, check_bound
from .cli_io import MAX_FILE_BYTES, MAX_NAME_BYTES, Parser, Refused, check_output, plot_paths, read_log  # noqa: F401
from .formatters import format_compare, format_csv, format_json, format_text
from .reader import read_nccl_tests_runs
from .records import COLLECTIVES
from .report import compare_runs, run_report
from .runs import run_starts

_USAGE_EXAMPLE = "python -m ccb_helpers.nccl_tests all_reduce.log --preset h100_nvswitch --plot report.png"
#: Exit code of a run whose gate (``--fail-below``, ``--fail-below-busbw``) failed.
GATE_FAILED = 3
# The names tests and older callers use.
_Refused, _read_log, _check_output, _plot_paths = Refused, read_log, check_output, plot_paths


def _reports(path, bound, args, run=None):
    text = read_log(path)
    if run is None:
        runs = read_nccl_tests_runs(text, collective=args.collective, n_ranks=bound.ranks, force=args.force)
        selected, total = list(enumerate(runs, 1)), len(runs)
    else:  # --collective / --ranks for that run alone; the other runs are not read
        total = len(run_starts(text.splitlines()))
        if not 1 <= run <= total:
            raise Refused(f"--run {run}: {path} holds {total} run{'s' if total != 1 else ''} (1 to {total})")
        log = read_nccl_tests_runs(text, collective=args.collective, n_ranks=bound.ranks, force=args.force, run=run)
        selected = [(run, log[0])]
    reports = []
    for index, log in selected:
        # In a file of several runs, --collective / --ranks hold for every run: name the one to pick.
        which = f"run {index} of {total}, " if total > 1 else ""
        pick = f"--run {index} " if total > 1 and run is None else ""
        if log.collective is None:
            raise Refused(
                "the log does not name its program (no '..._perf' command, no 'Collective test starting' "
                f"line) and its numbers fit several collectives, for the table at line {log.header_line} "
                f"({which}{log.n_ranks or 'unknown'} ranks): pass {pick}--collective C, C one of "
                + ", ".join(log.collective_candidates or COLLECTIVES)
            )
        if log.n_ranks is None:
            raise Refused(
                f"the table at line {log.header_line} ({which}{log.collective}) does not determine its rank "
                "count (no complete '# Rank ... device ...' lines, NCCL nranks or command line, and the rows "
                f"cannot tell): pass {pick}--ranks N"
            )
        this = bound_for_run(log, bound)
        report = run_report(
            log,
            this.alpha,
            this.beta,
            ports=this.ports,
            latency_ports=this.latency_ports,
            n_nodes=this.nodes,
            node_beta=this.node_beta,
            rail_beta=this.rail_beta,
            label=this.label,
            in_network=this.in_network,
            notes=this.notes,
        )
        reports.append(report)
    return reports


def main(argv=None) -> int:
    """Command line: ``python -m ccb_helpers.nccl_tests LOG [--preset KEY|auto | --alpha S --beta BPS --ports P]``.

    Prints, per message size, the measured busbw of both halves, the bound's busbw ceiling, the
    efficiency (bound time / measured time) and the regime, the log's warnings, then α and β
    fitted to the measured times where the rows determine them; ``--format csv|json`` prints the
    same data as CSV or JSON. A file with several runs gets one report per run (``--run K``: the
    K-th only). ``--node-beta``, ``--rail-beta`` or ``--network`` add the network cut around each
    node (``--nodes`` defaults to the hosts the log lists); ``--topology FILE`` takes the links
    and NICs from the node's ``nvidia-smi topo -m`` / ``rocm-smi --showtopo``. ``compare A.log
    B.log`` prints, per size, busbw before and after, the change and each against its bound
    (``--before-preset`` / ``--after-preset`` for two kinds of hardware). Returns 0, 2 on bad
    input (one line saying why, before any work), or :data:`GATE_FAILED` when
    ``--fail-below EFFICIENCY`` or ``--fail-below-busbw GBPS`` finds a row below it.

    >>> main(["/no/such/file.log", "--alpha", "1e-6", "--beta", "1e11"])
    2
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["compare"]:
            return _compare(argv[1:])
        return _report(argv)
    except Refused as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def _parse(parser, argv):
    try:
        return parser.parse_args(argv)
    except SystemExit as exit_:  # --help
        raise _Exit(int(exit_.code or 0)) from None


class _Exit(Exception):
    def __init__(self, code):
        self.code = code


def _gate_options(parser) -> None:
    parser.add_argument("--run", type=int, metavar="K", help="only the K-th run of a file holding several (1-based)")
    gate = parser.add_argument_group(
        f"CI gate (exit code {GATE_FAILED} when a row is below the threshold; 0 when none is, 2 on bad input)"
    )
    gate.add_argument(
        "--fail-below", type=float, metavar="EFFICIENCY", help="fail if a row's efficiency is below it (0..1)"
    )
    gate.add_argument("--fail-below-busbw", type=float, metavar="GBPS", help="fail if a row's busbw is below it (GB/s)")
    gate.add_argument(
        "--gate-from",
        type=_gate_size,
        metavar="SIZE",
        help="rows of at least this size are gated, in bytes or as nccl-tests' -b/-e take it (1M = 2**20, "
        "also K, G, T) (default: the rows of the largest size)",
    )


#: nccl-tests' size suffixes (its ``parsesize``: binary, either case), as ``-b 8 -e 8G`` takes them.
_SIZE_SUFFIXES = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _gate_size(text: str) -> float:
    """``--gate-from``: bytes, plain (``1048576``, ``1e6``) or with nccl-tests' binary suffix (``1M``, ``8G``)."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*([kKmMgGtT]?)\s*", text[:64], flags=re.ASCII)
    if len(text) > 64 or not match:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a size (bytes, or with K, M, G, T as nccl-tests' -b/-e: 1M)"
        )
    return float(match.group(1)) * _SIZE_SUFFIXES[match.group(2).upper()]


def _check_gate(args):
    try:
        efficiency = (
            None if args.fail_below is None else check_real("fail_below", args.fail_below, maximum=1.0, scalar=True)
        )
        busbw = (
            None
            if args.fail_below_busbw is None
            else check_real("fail_below_busbw", args.fail_below_busbw, scalar=True)
        )
        start = None if args.gate_from is None else check_size("gate_from", args.gate_from, scalar=True)
    except (ValueError, TypeError) as error:
        raise Refused(str(error)) from None
    if args.run is not None and args.run < 1:
        raise Refused(f"--run must be >= 1 (the first run is 1), got {args.run}")
    return efficiency, busbw, start


def gate(report, efficiency=None, busbw=None, start=None) -> str | None:
    """Why a run fails the gate (its worst row), or ``None`` when it passes.

    The rows gated are those of at least ``start`` bytes, or (default) those of the largest size:
    an acceptance test asks what the fabric gives a large message, and a small message's
    efficiency measures latency. A row above its ceiling (flagged) passes.
    """
    values = report.table.values
    largest = max((v["size"] for v in values), default=0)
    gated = [v for v in values if v["size"] >= (start if start is not None else largest)]
    failures = []
    for v in gated:
        if efficiency is not None and v["efficiency"] is not None and v["efficiency"] < efficiency:
            failures.append((v["efficiency"] / efficiency, v, f"efficiency {v['efficiency']:.3f} < {efficiency:g}"))
        if busbw is not None and v["busbw"] / 1e9 < busbw:
            failures.append((v["busbw"] / 1e9 / busbw, v, f"busbw {v['busbw'] / 1e9:.2f} GB/s < {busbw:g} GB/s"))
    if not gated:
        return f"no row is gated (none of at least {start:g} bytes): the gate checks nothing"
    if not failures:
        return None
    _, worst, why = min(failures, key=lambda f: f[0])
    return f"{len({id(f[1]) for f in failures})} of {len(gated)} gated rows fail; worst at {worst['size']} bytes (line {worst['line']}): {why}"


def _report(argv) -> int:
    parser = Parser(
        prog="python -m ccb_helpers.nccl_tests",
        description="Hold an nccl-tests log against the collective-communication lower bound "
        "(or: python -m ccb_helpers.nccl_tests compare A.log B.log ...).",
        epilog=f"Example: {_USAGE_EXAMPLE}",
    )
    parser.add_argument("logfile", help="text printed by all_reduce_perf, all_gather_perf, ... (one run or several)")
    add_bound_options(parser)
    parser.add_argument("--plot", metavar="OUT.png", help="also draw busbw and efficiency against size (PNG)")
    _gate_options(parser)
    try:
        args = _parse(parser, argv)
    except _Exit as done:
        return done.code
    bound = check_bound(args)
    limits = _check_gate(args)
    if args.plot:
        if os.path.lexists(args.plot) and not os.path.isfile(args.plot):
            check_output(args.plot)  # the name as given is a directory, a device or a FIFO: refuse it
        check_output(plot_paths(args.plot, 1)[0])
    try:
        reports = _reports(args.logfile, bound, args, args.run)
    except (ValueError, TypeError) as error:
        raise Refused(str(error)) from None
    paths = plot_paths(args.plot, len(reports)) if args.plot else []
    for path in paths:
        check_output(path)
    if paths:
        from .plot import plot_report

        for run, path in zip(reports, paths):
            try:
                plot_report(run, path)
            except OSError as error:
                raise Refused(f"cannot write {path}: {error.strerror or error}") from None
    if args.format == "csv":
        print(format_csv(reports), end="")
    elif args.format == "json":
        print(format_json(reports))
    else:
        print(f"nccl-tests log: {args.logfile}" + (f" ({len(reports)} runs)" if len(reports) > 1 else ""))
        for i, run in enumerate(reports):
            if len(reports) > 1:
                print(f"\n=== run {i + 1} of {len(reports)} (table at line {run.log.header_line}) ===")
            print(format_text(run))
            if paths:
                print(f"plot written to {paths[i]}")
    if paths and args.format != "table":
        print("plots written to " + ", ".join(paths), file=sys.stderr)
    return _gate_exit(reports, *limits, to=sys.stdout if args.format == "table" else sys.stderr)


def _gate_exit(reports, efficiency, busbw, start, to) -> int:
    if efficiency is None and busbw is None:
        return 0
    failed = False
    for i, run in enumerate(reports):
        why = gate(run, efficiency, busbw, start)
        name = f"run {i + 1} (line {run.log.header_line})" if len(reports) > 1 else "the run"
        print(f"gate: {'FAIL' if why else 'PASS'}: {name}" + (f": {why}" if why else ""), file=to)
        failed = failed or why is not None
    return GATE_FAILED if failed else 0


def _compare(argv) -> int:
    from ..hardware import PRESETS

    parser = Parser(
        prog="python -m ccb_helpers.nccl_tests compare",
        description="Compare two nccl-tests logs size by size, each against its bound.",
        epilog="Example: python -m ccb_helpers.nccl_tests compare before.log after.log --preset h100_nvswitch "
        "(or --before-preset a100_nvlink --after-preset h100_nvswitch)",
    )
    parser.add_argument("before", help="the first log")
    parser.add_argument("after", help="the second log")
    add_bound_options(parser, side="compare")
    for side in ("before", "after"):
        parser.add_argument(
            f"--{side}-preset", choices=sorted(PRESETS) + ["auto"], help=f"the {side} log's preset (default: --preset)"
        )
        parser.add_argument(f"--{side}-run", type=int, metavar="K", help=f"the K-th run of the {side} log (1-based)")
    parser.add_argument("--run", type=int, metavar="K", help="the K-th run of both logs (1-based)")
    try:
        args = _parse(parser, argv)
    except _Exit as done:
        return done.code
    runs = []
    for side, path in (("before", args.before), ("after", args.after)):
        preset = getattr(args, f"{side}_preset") or args.preset
        if preset is None and args.alpha is None:
            raise Refused(f"the {side} log needs a bound: pass --preset, --{side}-preset, or --alpha and --beta")
        args_side = _with(args, preset=preset, alpha=None if preset else args.alpha)
        bound = check_bound(args_side)
        run = getattr(args, f"{side}_run") or args.run
        if run is not None and run < 1:
            raise Refused(f"--{side}-run must be >= 1 (the first run is 1), got {run}")
        try:
            reports = _reports(path, bound, args_side, run)
        except (ValueError, TypeError) as error:
            raise Refused(f"{path}: {error}") from None
        if len(reports) != 1:
            raise Refused(f"{path} holds {len(reports)} runs: pick one with --{side}-run K (or --run K)")
        runs.append(reports[0])
    print(format_compare(compare_runs(*runs), *runs, fmt=args.format), end="\n" if args.format != "csv" else "")
    return 0


def _with(args, **changes):
    """A copy of the parsed arguments with some changed."""
    import argparse

    values = vars(args).copy()
    values.update(changes)
    return argparse.Namespace(**values)
