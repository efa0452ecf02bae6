"""Command line: ``python -m ccb_helpers.nccl_tests LOG …`` and ``… compare A.log B.log …``.

A thin front end: it checks every argument and every path first (one line on stderr and exit
code 2 before any work), then calls the library (:func:`read_nccl_tests_runs`,
:func:`~ccb_helpers.nccl_tests.report.run_report`) and prints a formatter's view.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys

from .._validation import check_bandwidth, check_int, check_real
from .ceilings import check_link
from .evidence import MAX_RANKS
from .formatters import format_compare, format_csv, format_json, format_text
from .reader import MAX_TEXT_CHARS, read_nccl_tests_runs
from .records import COLLECTIVES
from .report import compare_runs, run_report

_USAGE_EXAMPLE = "python -m ccb_helpers.nccl_tests all_reduce.log --preset h100_nvswitch --plot report.png"
#: Most bytes read from a log file (UTF-16 doubles a text's size).
MAX_FILE_BYTES = 4 * MAX_TEXT_CHARS
#: Longest file name (bytes) accepted for --plot (NAME_MAX of common file systems).
MAX_NAME_BYTES = 255


class _Refused(Exception):
    """Bad input found before any work: the CLI prints it on one line and exits with 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        raise _Refused(f"{message} (see {self.prog} --help)")


def _decode(data: bytes) -> str:
    """Log bytes as text: UTF-8 (with or without BOM) or UTF-16 with a BOM (PowerShell's ``>``)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    head = data[:4000]
    if head[:4] == b"\x7fELF":
        raise ValueError("the file is an ELF binary (a program or core file), not a log")
    if head.count(b"\x00"):
        odd = head[1::2]
        if odd.count(b"\x00") > len(odd) * 0.9 and head[0::2].count(b"\x00") < len(head[0::2]) * 0.1:
            raise ValueError("the file looks like UTF-16 without a byte-order mark; save it as UTF-8")
        raise ValueError("the file is binary (it holds NUL bytes), not a log")
    return data.decode("utf-8", errors="replace")


def _kind(mode) -> str | None:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def _read_log(path: str) -> str:
    """A log file's text; devices, FIFOs and directories are refused before they are opened."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise _Refused(f"cannot read {path}: {error.strerror or error}") from None
    kind = _kind(info.st_mode)
    if kind is not None:
        raise _Refused(f"cannot read {path}: it is {kind}, not a file (save the log to a file first)")
    if info.st_size > MAX_FILE_BYTES:
        raise _Refused(
            f"{path} has {info.st_size} bytes; the reader accepts at most {MAX_TEXT_CHARS} characters "
            "(split the log into runs)"
        )
    try:
        # O_NONBLOCK: a regular file that blocks on read (/proc/kmsg hung the CLI, #28) or a path
        # swapped for a FIFO after the stat fails now instead of waiting forever; what was opened
        # is checked again (fstat) before reading.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        with open(fd, "rb", closefd=True) as handle:
            opened = os.fstat(fd)
            kind = _kind(opened.st_mode)
            if kind is not None:
                raise _Refused(f"cannot read {path}: it is {kind}, not a file (save the log to a file first)")
            data = handle.read(MAX_FILE_BYTES + 1)
            if data is None:  # nothing available and the file would block
                raise _Refused(f"cannot read {path}: reading it would block (not a plain file)")
    except OSError as error:
        raise _Refused(f"cannot read {path}: {error.strerror or error}") from None
    if opened.st_size == 0 and data:
        # /proc/kmsg with messages queued (a freshly booted machine): "regular", 0 bytes, yet it
        # yields text and never ends. A saved log has the size it reads as.
        raise _Refused(f"cannot read {path}: it reports 0 bytes yet yields data (a kernel or device file, not a log)")
    if len(data) > MAX_FILE_BYTES:
        raise _Refused(f"{path} grew past {MAX_FILE_BYTES} bytes while being read")
    try:
        return _decode(data)
    except ValueError as error:
        raise _Refused(f"{path}: {error}") from None


def _plot_paths(path: str, count: int) -> list[str]:
    """``OUT.png`` for one run; ``OUT-1.png``, ``OUT-2.png`` … for several; ``.png`` added when missing."""
    root, ext = os.path.splitext(path)
    if not ext:
        root, ext = path, ".png"
    if count == 1:
        return [root + ext]
    return [f"{root}-{i + 1}{ext}" for i in range(count)]


def _check_output(path: str) -> None:
    """Refuse an output path that cannot be written, before any work."""
    name = os.path.basename(path)
    if not name:
        raise _Refused(f"cannot write {path}: it names a directory, not a file")
    if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        raise _Refused(f"cannot write {path[:60]}…: the file name has more than {MAX_NAME_BYTES} bytes")
    if os.path.splitext(name)[1].lower() not in ("", ".png"):
        raise _Refused(f"cannot write {path}: --plot writes PNG; name it OUT.png")
    if os.path.lexists(path):
        try:
            kind = _kind(os.stat(path).st_mode)
        except OSError as error:
            raise _Refused(f"cannot write {path}: {error.strerror or error}") from None
        if kind is not None:
            raise _Refused(f"cannot write {path}: it is {kind}, not a file")
        if not os.access(path, os.W_OK):
            raise _Refused(f"cannot write {path}: permission denied")
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        raise _Refused(f"cannot write {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise _Refused(f"cannot write {path}: the directory {parent} is not writable")


def _bound_options(parser) -> None:
    from ..hardware import NETWORK_PRESETS, PRESETS

    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--preset", choices=sorted(PRESETS), help="hardware preset giving alpha, beta and ports")
    source.add_argument("--alpha", type=float, help="latency per round, seconds (with --beta)")
    parser.add_argument("--beta", type=float, help="bandwidth per link per direction, bytes/s")
    parser.add_argument("--ports", type=int, default=1, help="links used in parallel (default 1)")
    network = parser.add_mutually_exclusive_group()
    network.add_argument(
        "--network", choices=sorted(NETWORK_PRESETS), help="per-node network preset (adds the node cut)"
    )
    network.add_argument(
        "--node-beta", type=float, help="network bandwidth per node per direction, bytes/s (adds the node cut)"
    )
    network.add_argument(
        "--rail-beta", type=float, help="bandwidth of each GPU's own NIC per direction, bytes/s (adds the node cut)"
    )
    parser.add_argument("--nodes", type=int, help="nodes for the network cut (default: the hosts the log lists)")
    parser.add_argument("--collective", choices=COLLECTIVES, help="when the log does not name its program")
    parser.add_argument("--ranks", type=int, help="when the log does not determine its rank count")
    parser.add_argument(
        "--force", action="store_true", help="use --collective / --ranks even where the log contradicts them"
    )
    parser.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output (default: table)")


def _bound(args) -> dict:
    """The bound's parameters, checked with the limits the library enforces (before any work)."""
    from ..hardware import NETWORK_PRESETS, PRESETS

    if args.preset:
        preset = PRESETS[args.preset]
        if args.beta is not None:
            raise _Refused("--preset gives beta; pass --beta only with --alpha")
        alpha, beta = preset.alpha, preset.beta
        ports = preset.ports or 1  # all-port presets: many peers at once (latency) through one NIC (bandwidth)
        label = f"preset {preset.key}: {preset.label}"
    else:
        if args.beta is None:
            raise _Refused("--alpha needs --beta (bytes/s), e.g. --alpha 2e-6 --beta 50e9")
        preset = None
        alpha, beta, ports = args.alpha, args.beta, args.ports
        label = "alpha/beta from the command line"
    try:
        alpha = check_real("alpha", alpha, maximum=1e9, scalar=True)
        beta, ports = check_link(beta, ports)
        node_beta = rail_beta = None
        if args.network:
            node_beta = NETWORK_PRESETS[args.network].node_beta
            label += f"; network {args.network}"
        if args.node_beta is not None:
            node_beta = check_bandwidth("node_beta", args.node_beta, scalar=True)
        if args.rail_beta is not None:
            rail_beta = check_bandwidth("rail_beta", args.rail_beta, scalar=True)
        nodes = (
            None if args.nodes is None else check_int("n_nodes", args.nodes, minimum=1, maximum=MAX_RANKS, scalar=True)
        )
        if nodes is not None and node_beta is None and rail_beta is None:
            raise ValueError("n_nodes needs node_beta (--node-beta, --rail-beta or --network)")
        ranks = (
            None if args.ranks is None else check_int("n_ranks", args.ranks, minimum=2, maximum=MAX_RANKS, scalar=True)
        )
    except (ValueError, TypeError) as error:
        raise _Refused(str(error)) from None
    return {
        "alpha": alpha,
        "beta": beta,
        "ports": ports,
        "preset": preset,
        "label": label,
        "node_beta": node_beta,
        "rail_beta": rail_beta,
        "nodes": nodes,
        "ranks": ranks,
    }


def _reports(path, bound, args):
    runs = read_nccl_tests_runs(_read_log(path), collective=args.collective, n_ranks=bound["ranks"], force=args.force)
    reports = []
    for log in runs:
        if log.collective is None:
            raise _Refused(
                "the log does not name its program (no '..._perf' command, no 'Collective test starting' "
                f"line) and its numbers fit several collectives, for the table at line {log.header_line}: "
                "pass --collective, one of " + ", ".join(log.collective_candidates or COLLECTIVES)
            )
        if log.n_ranks is None:
            raise _Refused(
                f"the table at line {log.header_line} does not determine its rank count (no complete "
                "'# Rank ... device ...' lines, NCCL nranks or command line, and the rows cannot tell): "
                "pass --ranks N"
            )
        n = log.n_ranks
        latency_ports = bound["preset"].ports_for(n) if bound["preset"] is not None and n >= 2 else bound["ports"]
        reports.append(
            run_report(
                log,
                bound["alpha"],
                bound["beta"],
                ports=bound["ports"],
                latency_ports=latency_ports,
                n_nodes=bound["nodes"],
                node_beta=bound["node_beta"],
                rail_beta=bound["rail_beta"],
                label=bound["label"],
            )
        )
    return reports


def main(argv=None) -> int:
    """Command line: ``python -m ccb_helpers.nccl_tests LOG [--preset KEY | --alpha S --beta BPS --ports P]``.

    Prints, per message size, the measured busbw of both halves, the bound's busbw ceiling, the
    efficiency (bound time / measured time) and the regime, the log's warnings, then α and β
    fitted to the measured times; ``--format csv|json`` prints the same data as CSV or JSON. A
    file with several runs gets one report per run. ``--node-beta``, ``--rail-beta`` or
    ``--network`` add the network cut around each node (``--nodes`` defaults to the hosts the log
    lists). ``compare A.log B.log`` prints, per size, busbw before and after, the change and each
    against its bound. Returns 0, or 2 on bad input (missing file, not a file, unparseable log,
    a value the log contradicts, bad numbers) after printing one line saying why — before any work.

    >>> main(["/no/such/file.log", "--alpha", "1e-6", "--beta", "1e11"])
    2
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["compare"]:
            return _compare(argv[1:])
        return _report(argv)
    except _Refused as error:
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


def _report(argv) -> int:
    parser = _Parser(
        prog="python -m ccb_helpers.nccl_tests",
        description="Hold an nccl-tests log against the collective-communication lower bound "
        "(or: python -m ccb_helpers.nccl_tests compare A.log B.log ...).",
        epilog=f"Example: {_USAGE_EXAMPLE}",
    )
    parser.add_argument("logfile", help="text printed by all_reduce_perf, all_gather_perf, ... (one run or several)")
    _bound_options(parser)
    parser.add_argument("--plot", metavar="OUT.png", help="also draw busbw and efficiency against size (PNG)")
    try:
        args = _parse(parser, argv)
    except _Exit as done:
        return done.code
    bound = _bound(args)
    if args.plot:
        if os.path.lexists(args.plot) and not os.path.isfile(args.plot):
            _check_output(args.plot)  # the name as given is a directory, a device or a FIFO: refuse it
        _check_output(_plot_paths(args.plot, 1)[0])
    try:
        reports = _reports(args.logfile, bound, args)
    except (ValueError, TypeError) as error:
        raise _Refused(str(error)) from None
    paths = _plot_paths(args.plot, len(reports)) if args.plot else []
    for path in paths:
        _check_output(path)
    if paths:
        from .plot import plot_report

        for run, path in zip(reports, paths):
            try:
                plot_report(run, path)
            except OSError as error:
                raise _Refused(f"cannot write {path}: {error.strerror or error}") from None
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
    return 0


def _compare(argv) -> int:
    parser = _Parser(
        prog="python -m ccb_helpers.nccl_tests compare",
        description="Compare two nccl-tests logs size by size, each against the bound.",
        epilog="Example: python -m ccb_helpers.nccl_tests compare before.log after.log --preset h100_nvswitch",
    )
    parser.add_argument("before", help="the first log (one run)")
    parser.add_argument("after", help="the second log (one run)")
    _bound_options(parser)
    try:
        args = _parse(parser, argv)
    except _Exit as done:
        return done.code
    bound = _bound(args)
    runs = []
    for path in (args.before, args.after):
        try:
            reports = _reports(path, bound, args)
        except (ValueError, TypeError) as error:
            raise _Refused(f"{path}: {error}") from None
        if len(reports) != 1:
            raise _Refused(f"{path} holds {len(reports)} runs; compare takes one run per file")
        runs.append(reports[0])
    print(format_compare(compare_runs(*runs), *runs, fmt=args.format), end="\n" if args.format != "csv" else "")
    return 0
