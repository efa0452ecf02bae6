"""The command line's words and the checks that need no rank count (phase 1 of the MPI CLI).

Every rank parses the same argv with :func:`parse_static` before MPI starts, so every rank fails
alike on bad input (:class:`InputError`: one line, exit code 2, see :mod:`ccb_helpers.mpi._cli`):
sizes (:func:`parse_size`, exact), counts, the algorithm and primitive of each case, α and β.
What depends on N is checked after ``MPI_Init`` (:mod:`ccb_helpers.mpi._budget`).
"""

from __future__ import annotations

import argparse
import re
from decimal import Context
from fractions import Fraction

from .._validation import MAX_BANDWIDTH, MAX_SECONDS, MIN_BANDWIDTH
from ..algorithms import ALGORITHMS
from ..primitives import ROOTED_PRIMITIVES

__all__: list[str] = []

PROG = "ccb_helpers.mpi"
#: Largest message a case may use (bytes). A rank holds about 5 buffers of M (inputs, work,
#: scratch, reference) — 5 GiB at the cap.
MAX_SIZE = 2**30
MAX_REPEATS = 10_000
MAX_CASES = 2_000
#: Share of a host's available memory its ranks may plan to use (the default ``--memory-limit``).
MEMORY_SHARE = 0.9
DEFAULT_PINGPONG_SIZES = [0] + [4**k for k in range(13)]  # 0, 1 B, 4 B, ..., 16 MiB
QUICK_PINGPONG_SIZES = [0, 2**10, 2**14, 2**18, 2**20, 2**22]
_UNITS = {
    "": 1,
    "B": 1,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
    "K": 2**10,
    "M": 2**20,
    "G": 2**30,
    "T": 2**40,
    "kB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
}


class InputError(Exception):
    """Bad command-line input: reported in one line, exit code 2."""


def parse_size(text: str, cap: int = MAX_SIZE) -> int:
    """Bytes from ``"4096"``, ``"16MiB"``, ``"1 KiB"``, ``"2M"`` (binary K/M/G) or ``"1MB"`` (decimal), at most ``cap``.

    >>> parse_size("16MiB"), parse_size("4096"), parse_size("1.5KiB")
    (16777216, 4096, 1536)
    >>> parse_size("-3")
    Traceback (most recent call last):
    ...
    ccb_helpers.mpi._args.InputError: size '-3' is not a byte count (e.g. 4096, 64KiB, 16MiB)
    """
    if len(text) > 40:  # a 400-digit size became float inf and raised OverflowError on every rank (#28)
        raise InputError(f"size {text[:20]!r}... has {len(text)} characters; a byte count has at most 40")
    # ASCII digits only: re's \d (and int()) also take other scripts' digits ("١KiB" read as 1 KiB).
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", text, flags=re.ASCII)
    if not match or match.group(2) not in _UNITS:
        raise InputError(f"size {text!r} is not a byte count (e.g. 4096, 64KiB, 16MiB)")
    # Exact arithmetic: in float64 1.0000000000000001 KiB is 1024 bytes (#42). 40 characters
    # keep the fraction small.
    exact = Fraction(match.group(1)) * _UNITS[match.group(2)]
    if exact.denominator != 1:
        whole, rest = divmod(exact.numerator, exact.denominator)  # a decimal times an integer: it terminates
        fraction = format(Context(prec=100).divide(rest, exact.denominator), "f").lstrip("0")
        raise InputError(f"size {text!r} is not a whole number of bytes ({whole}{fraction} bytes)")
    value = int(exact)
    if value > cap:
        raise InputError(
            f"size {text!r} = {value} bytes is over the cap of {cap} bytes"
            + (" (1 GiB; each rank holds several buffers of that size)" if cap == MAX_SIZE else "")
        )
    return value


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors in one line (and exits 2, as argparse does)."""

    def error(self, message):  # noqa: D102 - argparse API
        raise InputError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=f"mpiexec -n N python -m {PROG}", description="Run the book's schedules as MPI programs.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def common(p, repeats_default, what="timed runs per case"):
        p.add_argument(
            "--json",
            metavar="OUT",
            help="file rank 0 writes the result to, '-' for standard output instead of the table "
            "(default: only the table)",
        )
        p.add_argument("--repeats", type=int, default=repeats_default, help=f"{what} (default {repeats_default})")
        p.add_argument("--note", default="", help="free text stored in the JSON (machine, job id, settings)")
        p.add_argument(
            "--memory-limit",
            metavar="BYTES",
            help=f"most memory the ranks of one host may use (default: {round(MEMORY_SHARE * 100)}%% of its available memory)",
        )

    p = sub.add_parser("pingpong", help="ping-pong between ranks 0 and 1; fit T = alpha + M / beta")
    common(p, 10, "timed samples per size, each of 1000 round trips up to 16 KiB, 100 up to 1 MiB, 1 above")
    p.add_argument("--sizes", help="comma-separated sizes (default 0, 1 B, 4 B, ..., 16 MiB)")

    def case_args(p):
        p.add_argument("--primitive", required=True, help="e.g. all_reduce, all_gather, broadcast")
        p.add_argument(
            "--ports", type=int, help="k of the cost model and of k-nomial trees (default: the algorithm's minimum)"
        )
        p.add_argument("--root", type=int, default=0, help="root of rooted primitives (default 0)")
        p.add_argument(
            "--chunks",
            type=int,
            help="pipeline chunks (double_binary_tree: per tree; pipelined_chain, pipelined_binary_tree: segments; default 4)",
        )

    def model_args(p):
        p.add_argument(
            "--warmup",
            type=int,
            default=2,
            help="untimed runs before the timed ones (default 2; 10x for M <= 8 KiB, as --repeats)",
        )
        p.add_argument(
            "--alpha", type=float, help="latency alpha in s for the model and the bound (default: measured now)"
        )
        p.add_argument("--beta", type=float, help="bandwidth beta in bytes/s (default: measured now)")
        p.add_argument("--seed", type=int, default=0, help="seed of the input bytes (default 0)")
        p.add_argument("--no-library", action="store_true", help="skip timing the MPI library's own collective")

    p = sub.add_parser("run", help="run one algorithm's schedule, check it, time it against the library")
    common(p, 10, "timed runs per case, 10x for M <= 8 KiB")
    p.add_argument("--algorithm", required=True, help=", ".join(ALGORITHMS))
    case_args(p)
    p.add_argument("--size", required=True, help="message size M in bytes (suffixes KiB, MiB, GiB)")
    model_args(p)

    p = sub.add_parser("sweep", help="several algorithm:primitive pairs over several sizes in one launch")
    common(p, 10, "timed runs per case, 10x for M <= 8 KiB")
    p.add_argument(
        "--pairs", required=True, help="comma-separated algorithm:primitive, e.g. ring:all_reduce,bruck:all_gather"
    )
    p.add_argument("--sizes", required=True, help="comma-separated sizes")
    p.add_argument("--ports", type=int, help="k (default: each algorithm's minimum)")
    p.add_argument("--root", type=int, default=0)
    p.add_argument("--chunks", type=int)
    model_args(p)
    p.add_argument("--pingpong-sizes", help="sizes of the ping-pong that measures alpha and beta (when not given)")
    p.add_argument("--pingpong-repeats", type=int, default=5, help="samples per ping-pong size (default 5)")

    p = sub.add_parser(
        "selftest", help="every algorithm x primitive pair that runs on N ranks, several sizes and roots: correctness"
    )
    common(p, 1)
    p.add_argument("--sizes", help="comma-separated sizes (default 0, 1, N-1, 4099 and multiples of N for AllToAll)")
    p.add_argument("--ns", help="run on communicators of these sizes (each <= N, ranks 0..n-1; default: N)")
    return parser


def _check_count(name: str, value, minimum: int, maximum: int) -> int:
    if value is None or not minimum <= value <= maximum:
        raise InputError(f"--{name} must be between {minimum} and {maximum}, got {value}")
    return value


def _sizes(text: str, option: str | None = None) -> list[int]:
    """The sizes of a comma-separated list; ``option`` names a ping-pong's list, which needs two
    different sizes (α and β are the intercept and the slope of a line through them)."""
    sizes = [parse_size(s) for s in text.split(",") if s.strip()]
    if not sizes:
        raise InputError(f"no sizes in {text!r}")
    if option is not None and len(set(sizes)) < 2:
        raise InputError(
            f"{option} needs at least two different sizes to fit alpha and beta (T = alpha + M / beta), "
            f"got {text!r} = {sorted(set(sizes))} bytes"
        )
    return sizes


def _pair(algorithm: str, primitive: str) -> None:
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; allowed: {', '.join(ALGORITHMS)}")
    if primitive not in ALGORITHMS[algorithm]:
        raise InputError(
            f"algorithm {algorithm!r} does not implement {primitive!r}; it implements: {', '.join(ALGORITHMS[algorithm])}"
        )


def _case(algorithm, primitive, m, ports, root, chunks) -> dict:
    """A case checked for everything but N."""
    _pair(algorithm, primitive)
    model = ALGORITHMS[algorithm][primitive]
    ports = model.min_ports if ports is None else ports
    if ports < model.min_ports:
        raise InputError(f"algorithm {algorithm!r} needs --ports >= {model.min_ports}, got {ports}")
    _check_count("ports", ports, 1, 64)
    if root < 0:
        raise InputError(f"--root must be >= 0, got {root}")
    if root and primitive not in ROOTED_PRIMITIVES:
        raise InputError(
            f"--root applies only to rooted primitives ({', '.join(ROOTED_PRIMITIVES)}), not {primitive!r}"
        )
    if model.optimal_chunks is not None:  # pipelined (double_binary_tree first): chunks, default 4
        chunks = 4 if chunks is None else _check_count("chunks", chunks, 1, 1024)
    elif chunks is not None:
        pipelined = [a for a, ps in ALGORITHMS.items() if any(m.optimal_chunks for m in ps.values())]
        raise InputError(f"--chunks applies only to {', '.join(pipelined)}")
    return {"algorithm": algorithm, "primitive": primitive, "m": m, "ports": ports, "root": root, "chunks": chunks}


def parse_static(argv) -> dict:
    """Phase 1: parse and check everything that does not depend on N."""
    args = build_parser().parse_args(argv)
    config = {
        "command": args.command,
        "json": args.json,
        "repeats": _check_count("repeats", args.repeats, 1, MAX_REPEATS),
        "note": args.note,
    }
    if len(args.note) > 2000:
        raise InputError(f"--note is {len(args.note)} characters; keep it under 2000")
    if args.json is not None and not args.json.strip():
        raise InputError("--json needs a file name")
    try:
        config["memory_limit"] = parse_size(args.memory_limit, cap=2**60) if args.memory_limit is not None else None
    except InputError as error:
        raise InputError(f"--memory-limit: {error}") from None
    if args.command == "pingpong":
        config["sizes"] = _sizes(args.sizes, "--sizes") if args.sizes else list(DEFAULT_PINGPONG_SIZES)
        return config
    if args.command == "selftest":
        config["sizes"] = _sizes(args.sizes) if args.sizes else None
        config["ns"] = None
        if args.ns:
            try:
                config["ns"] = [int(v) for v in args.ns.split(",") if v.strip()]
            except ValueError:
                raise InputError(f"--ns must be comma-separated rank counts, got {args.ns!r}") from None
            if not config["ns"] or min(config["ns"]) < 1:
                raise InputError(f"--ns must be rank counts >= 1, got {args.ns!r}")
        return config
    config["warmup"] = _check_count("warmup", args.warmup, 0, 1000)
    config["seed"] = _check_count("seed", args.seed, 0, 2**63 - 1)
    config["library"] = not args.no_library
    if (args.alpha is None) != (args.beta is None):
        raise InputError("give both --alpha and --beta, or neither (then they are measured by a ping-pong first)")
    if args.alpha is not None:
        # The ranges the cost model and the bound enforce after the run (#28: --beta 1e-300 passed
        # here, ran the job, then MPI_Abort lost the results): one validation, up front.
        if not (0 <= args.alpha <= MAX_SECONDS):
            raise InputError(f"--alpha must be a number of seconds in [0, {MAX_SECONDS:g}], got {args.alpha}")
        if not (MIN_BANDWIDTH <= args.beta <= MAX_BANDWIDTH):
            raise InputError(
                f"--beta must be a bandwidth in [{MIN_BANDWIDTH:g}, {MAX_BANDWIDTH:g}] bytes/s, got {args.beta}"
            )
    config["alpha"], config["beta"] = args.alpha, args.beta
    if args.command == "run":
        config["cases"] = [
            _case(args.algorithm, args.primitive, parse_size(args.size), args.ports, args.root, args.chunks)
        ]
        return config
    pairs = [p.strip() for p in args.pairs.split(",") if p.strip()]
    if not pairs:
        raise InputError("--pairs is empty; give e.g. ring:all_reduce")
    cases = []
    for pair in pairs:
        if pair.count(":") != 1:
            raise InputError(f"--pairs entry {pair!r} is not algorithm:primitive")
        algorithm, primitive = pair.split(":")
        for m in _sizes(args.sizes):
            cases.append(_case(algorithm, primitive, m, args.ports, args.root, args.chunks))
    if len(cases) > MAX_CASES:
        raise InputError(f"{len(cases)} cases exceed the cap of {MAX_CASES} per launch")
    config["cases"] = cases
    config["pingpong_sizes"] = (
        _sizes(args.pingpong_sizes, "--pingpong-sizes") if args.pingpong_sizes else list(QUICK_PINGPONG_SIZES)
    )
    config["pingpong_repeats"] = _check_count("pingpong-repeats", args.pingpong_repeats, 1, MAX_REPEATS)
    return config
