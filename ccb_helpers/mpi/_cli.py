"""Command line of ``python -m ccb_helpers.mpi`` (run under ``mpiexec``; see the package docstring).

Input is checked in two phases, both before any communication, so a bad argument can never
leave one rank waiting for another:

1. before MPI starts: everything that does not depend on the number of ranks (algorithm,
   primitive, size, counts, α/β) — every rank parses the same argv, so every rank fails alike;
2. right after ``MPI_Init``: what depends on N (power of two, divisibility, root < N, N ≥ 2
   for ping-pong, the bytes a rank will send — :data:`MAX_TRAFFIC_BYTES`), again the same on
   every rank; then, in one exchange every rank reaches (``allgather``), each rank's memory
   estimate summed over the ranks of its host against that host's available memory
   (``--memory-limit``) and rank 0's check that it can write ``--json``.

A failure prints one line ``ccb_helpers.mpi: error: …`` from every rank and exits with code 2
after a clean ``MPI_Finalize`` (never ``MPI_Abort``). An unexpected exception inside a run is a
bug: that rank prints the traceback and aborts the job so no other rank hangs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import sys
import time
import traceback

from .._validation import MAX_BANDWIDTH, MAX_SECONDS, MIN_BANDWIDTH
from ..algorithms import ALGORITHMS, algorithm_terms
from ..bounds import combined_lower_bound
from ..generators import generate
from ..primitives import ROOTED_PRIMITIVES

__all__: list[str] = []

PROG = "ccb_helpers.mpi"
#: Largest message a case may use (bytes). A rank holds about 5 buffers of M (inputs, work,
#: scratch, reference) — 5 GiB at the cap.
MAX_SIZE = 2**30
MAX_REPEATS = 10_000
MAX_CASES = 2_000
#: Most bytes one launch may send per rank, over all its runs (warm-up, timed, the library's):
#: a bound on its running time — 1 TiB is minutes to an hour at memory-copy or network speed.
MAX_TRAFFIC_BYTES = 2**40
#: Longest file name and path of --json (NAME_MAX and PATH_MAX of Linux).
NAME_MAX, PATH_MAX = 255, 4096
#: Bytes a rank holds besides its buffers (interpreter, numpy, MPI), added to the memory estimate.
RANK_BASELINE_BYTES = 128 * 2**20
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


#: Rank and size variables the launchers set (MPICH's Hydra and PMI, Slurm, Open MPI, PMIx).
_LAUNCHER_VARIABLES = (
    ("PMI_RANK", "PMI_SIZE"),
    ("SLURM_PROCID", "SLURM_NTASKS"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
    ("PMIX_RANK", "PMIX_SIZE"),
)


def _rank_label() -> str:
    """``" (rank r of n)"`` from the launcher's environment, before MPI is up (empty if unknown)."""
    for rank_var, size_var in _LAUNCHER_VARIABLES:
        if rank_var in os.environ:
            return f" (rank {os.environ[rank_var]} of {os.environ.get(size_var, '?')})"
    return ""


def _fail(message: str, label: str) -> int:
    # One write() of the whole line: mpiexec merges the ranks' stderr, and print() may write the
    # text and its newline separately, so another rank's line could land in between.
    sys.stderr.flush()
    line = f"{PROG}: error: {message}{label}\n".encode()
    try:
        os.write(sys.stderr.fileno(), line)
    except (AttributeError, OSError, ValueError):  # no real file descriptor (e.g. captured in a test)
        sys.stderr.write(line.decode())
        sys.stderr.flush()
    return 2


def parse_size(text: str, cap: int = MAX_SIZE) -> int:
    """Bytes from ``"4096"``, ``"16MiB"``, ``"1 KiB"``, ``"2M"`` (binary K/M/G) or ``"1MB"`` (decimal), at most ``cap``.

    >>> parse_size("16MiB"), parse_size("4096"), parse_size("1.5KiB")
    (16777216, 4096, 1536)
    >>> parse_size("-3")
    Traceback (most recent call last):
    ...
    ccb_helpers.mpi._cli.InputError: size '-3' is not a byte count (e.g. 4096, 64KiB, 16MiB)
    """
    if len(text) > 40:  # a 400-digit size became float inf and raised OverflowError on every rank (#28)
        raise InputError(f"size {text[:20]!r}... has {len(text)} characters; a byte count has at most 40")
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text)
    if not match or match.group(2) not in _UNITS:
        raise InputError(f"size {text!r} is not a byte count (e.g. 4096, 64KiB, 16MiB)")
    value = float(match.group(1)) * _UNITS[match.group(2)]
    if not math.isfinite(value) or value > 2**62:
        raise InputError(f"size {text!r} is over the cap of {cap} bytes")
    if value != int(value):
        raise InputError(f"size {text!r} is not a whole number of bytes")
    value = int(value)
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


def _sizes(text: str) -> list[int]:
    sizes = [parse_size(s) for s in text.split(",") if s.strip()]
    if not sizes:
        raise InputError(f"no sizes in {text!r}")
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


def check_case_for(case: dict, n: int, alpha=None, beta=None) -> None:
    """Phase 2: can this case run on ``n`` ranks? (Raises InputError; no communication.)"""
    what = f"{case['algorithm']} {case['primitive']} with M = {case['m']} bytes on N = {n}"
    if case["root"] >= n:
        raise InputError(f"--root {case['root']} is not a rank of N = {n}")
    if case["primitive"] == "all_to_all" and case["m"] % n:
        raise InputError(
            f"{what}: all_to_all needs M divisible by N (M/N bytes to every rank), got M mod N = {case['m'] % n}"
        )
    try:
        generate(
            case["algorithm"],
            case["primitive"],
            n,
            case["m"],
            ports=case["ports"],
            root=case["root"],
            chunks=case["chunks"],
        )
    except (ValueError, TypeError) as error:
        raise InputError(f"{what}: {error}") from None
    if alpha is not None:
        # Evaluate the model and the bound the run will report, now: what they refuse must stop
        # the launch before any buffer exists, not after the timing (#28).
        try:
            cost = algorithm_terms(
                case["algorithm"], case["primitive"], n, case["m"], case["ports"], chunks=case["chunks"]
            )
            values = (
                cost.time(alpha, beta),
                combined_lower_bound(case["primitive"], n, case["m"], alpha, beta, case["ports"]),
            )
        except (ValueError, TypeError, OverflowError) as error:
            raise InputError(f"{what}: --alpha {alpha:g} / --beta {beta:g}: {error}") from None
        if not all(math.isfinite(v) for v in values):
            raise InputError(f"{what}: --alpha {alpha:g} / --beta {beta:g} give a model or bound that is not finite")


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
        config["sizes"] = _sizes(args.sizes) if args.sizes else list(DEFAULT_PINGPONG_SIZES)
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
    config["pingpong_sizes"] = _sizes(args.pingpong_sizes) if args.pingpong_sizes else list(QUICK_PINGPONG_SIZES)
    config["pingpong_repeats"] = _check_count("pingpong-repeats", args.pingpong_repeats, 1, MAX_REPEATS)
    return config


def selftest_cases(n: int, sizes=None) -> tuple[list[dict], list[dict]]:
    """Every algorithm x primitive pair that runs on ``n`` ranks: (cases, skipped pairs with the reason).

    Sizes: 0, 1, N - 1 (empty blocks), 4099 (blocks of unequal length), multiples of N for AllToAll;
    rooted primitives at root 0 and N - 1; binomial trees also 2-nomial (``ports=2``).

    >>> cases, skipped = selftest_cases(3)
    >>> sorted({(c["algorithm"], c["primitive"]) for c in cases}) == sorted(
    ...     (a, p) for a, ps in ALGORITHMS.items() for p in ps if (a, p) not in
    ...     {("recursive_halving_doubling", "reduce_scatter"), ("recursive_doubling", "all_gather")})
    True
    >>> [(s["algorithm"], s["primitive"]) for s in skipped]
    [('recursive_halving_doubling', 'reduce_scatter'), ('recursive_doubling', 'all_gather')]
    """
    default = sizes is None
    cases, skipped = [], []
    for algorithm, models in ALGORITHMS.items():
        for primitive, model in models.items():
            if primitive == "all_to_all":
                ms = sorted({0, n, 7 * n, 1000 * n}) if default else [m for m in sizes if m % n == 0]
            else:
                ms = sorted({0, 1, max(n - 1, 0), 4099}) if default else list(sizes)
            roots = sorted({0, n - 1}) if primitive in ROOTED_PRIMITIVES else [0]
            ports_list = [model.min_ports] + (
                [2] if algorithm == "binomial_tree" and primitive in ("broadcast", "reduce", "all_reduce") else []
            )
            first = _case(algorithm, primitive, 0, model.min_ports, 0, None)
            try:
                check_case_for(first, n)
            except InputError as error:
                skipped.append({"algorithm": algorithm, "primitive": primitive, "reason": str(error)})
                continue
            for m in ms:
                for root in roots:
                    for ports in ports_list:
                        cases.append(_case(algorithm, primitive, m, ports, root, None))
    return cases, skipped


# --------------------------------------------------------------------------- time and memory, before any buffer exists


def case_traffic_bytes(case: dict, n: int, runs: int) -> int:
    """Bytes a rank sends for ``case`` on ``n`` ranks over ``runs`` runs (the cost model's volume, at least M each).

    >>> case = {"algorithm": "ring", "primitive": "all_reduce", "m": 4096, "ports": 1, "chunks": None}
    >>> case_traffic_bytes(case, 4, 10)   # 2 (N - 1) / N M = 6144 bytes per run
    61440
    """
    from ..algorithms import algorithm_terms

    volume = algorithm_terms(
        case["algorithm"], case["primitive"], n, case["m"], case["ports"], chunks=case["chunks"]
    ).bandwidth_bytes
    return runs * max(int(volume), case["m"])


def pingpong_traffic_bytes(sizes, repeats: int) -> int:
    """Bytes rank 0 sends in a ping-pong: per size its warm-up round trips and ``repeats`` samples of several.

    >>> from ccb_helpers.mpi._runner import pingpong_iterations, pingpong_warmup
    >>> pingpong_traffic_bytes([2**20], 3) == (pingpong_warmup(2**20) + 3 * pingpong_iterations(2**20)) * 2**20
    True
    """
    from ._runner import pingpong_iterations, pingpong_warmup

    return sum((pingpong_warmup(size) + repeats * pingpong_iterations(size)) * size for size in sizes)


def case_rank_bytes(case: dict, n: int, rank: int) -> int:
    """Peak bytes ``rank`` holds while ``case`` runs on ``n`` ranks, estimated before anything is allocated.

    ``(2 B + 3) M`` plus the rank's scratch (:func:`~ccb_helpers.mpi._plan.scratch_bytes`): each of
    the schedule's ``B`` buffers twice (pristine input and working copy), one ``M`` for the expected
    result and two for an input regenerated while the reference is computed (its bytes and one
    temporary); the MPI library's temporaries come later, when the regenerated input is gone. What
    a run allocates (traced at N = 4 for every algorithm × primitive pair, ``tests/test_mpi.py``)
    stays within this estimate plus the schedule's bookkeeping (the baseline covers it).

    >>> case = {"algorithm": "ring", "primitive": "all_reduce", "m": 3 * 2**20, "ports": 1, "root": 0, "chunks": None}
    >>> case_rank_bytes(case, 3, 0) == 5 * 3 * 2**20 + 2**20   # B = 1; scratch: one 1 MiB block
    True
    """
    from ._plan import scratch_bytes

    schedule = generate(
        case["algorithm"],
        case["primitive"],
        n,
        case["m"],
        ports=case["ports"],
        root=case["root"],
        chunks=case["chunks"],
    )
    return (2 * len(schedule.buffers) + 3) * case["m"] + scratch_bytes(schedule, rank)


def available_memory() -> int | None:
    """Bytes this host can still give its processes: Linux ``MemAvailable``, lowered by a cgroup v2 limit; None if unknown."""
    available = None
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
    except (OSError, ValueError):
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, OSError, ValueError):
            available = None
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as handle:
            limit = handle.read().strip()
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as handle:
            current = int(handle.read().strip())
        if limit != "max":
            room = max(int(limit) - current, 0)
            available = room if available is None else min(available, room)
    except (OSError, ValueError):
        pass
    return available


def _rank_needs(config: dict, n: int, rank: int) -> int:
    """Peak bytes this rank will hold during the launch (the largest case; cases run one after another)."""
    if config["command"] == "pingpong":
        return RANK_BASELINE_BYTES + (
            2 * max(config["sizes"], default=0) if rank < 2 else 0
        )  # send and receive buffers
    measures = config["command"] in ("run", "sweep") and config["alpha"] is None  # a ping-pong of ranks 0 and 1 first
    need = 2 * max(config.get("pingpong_sizes", QUICK_PINGPONG_SIZES)) if measures and rank < 2 else 0
    if config["command"] == "selftest":
        per_n = [(k, cases) for k, (cases, _) in config["per_n"].items() if rank < k]
    else:
        per_n = [(n, config["cases"])]
    for k, cases in per_n:
        for case in cases:
            need = max(need, case_rank_bytes(case, k, rank))
    return RANK_BASELINE_BYTES + need


def _check_traffic(config: dict, n: int) -> None:
    """Phase 2 (the same on every rank): the bytes a rank will send, capped by MAX_TRAFFIC_BYTES."""
    if config["command"] == "pingpong":
        total = pingpong_traffic_bytes(config["sizes"], config["repeats"])
    elif config["command"] == "selftest":
        total = sum(case_traffic_bytes(case, k, 2) for k, (cases, _) in config["per_n"].items() for case in cases)
    else:
        from ._runner import collective_counts

        total = sum(
            case_traffic_bytes(
                case,
                n,
                sum(collective_counts(case["m"], config["repeats"], config["warmup"]))
                * (2 if config["library"] else 1),
            )
            for case in config["cases"]
        )
        if config["alpha"] is None:
            total += pingpong_traffic_bytes(
                config.get("pingpong_sizes", QUICK_PINGPONG_SIZES), config.get("pingpong_repeats", 5)
            )
    if total > MAX_TRAFFIC_BYTES:
        raise InputError(
            f"this launch would send about {total} bytes per rank, more than the cap of {MAX_TRAFFIC_BYTES} "
            "(1 TiB); lower --repeats or the sizes, or split it into several launches"
        )
    # Bytes do not bound the time of zero-byte cases: 2000 of them x 100,000 runs passed the 1 TiB
    # cap and would have run for hours (#28). Each collective call costs at least a few microseconds.
    calls = _collective_calls(config)
    if calls > MAX_COLLECTIVE_CALLS:
        raise InputError(
            f"this launch would make about {calls} collective calls, more than the cap of {MAX_COLLECTIVE_CALLS}; "
            "lower --repeats or the number of sizes, or split it into several launches"
        )


#: Most collective calls (timed, warm-up and the library's own) of one launch: a bound on its
#: running time that bytes alone do not give (a zero-byte call still costs microseconds).
MAX_COLLECTIVE_CALLS = 2_000_000


def _collective_calls(config: dict) -> int:
    if config["command"] in ("pingpong", "selftest"):
        return 0  # their counts are bounded by their sizes and repeats (pingpong) or by N (selftest)
    from ._runner import collective_counts

    return sum(
        sum(collective_counts(case["m"], config["repeats"], config["warmup"])) * (2 if config["library"] else 1)
        for case in config["cases"]
    )


def _setup_problem(comm, config: dict) -> str | None:
    """One exchange every rank reaches: memory per host against its limit, and rank 0's --json target.

    Each rank estimates its own peak (:func:`_rank_needs`); the ranks of a host (``MPI_COMM_TYPE_SHARED``)
    add theirs up and compare the sum with the host's limit. Every rank returns the same answer.
    """
    from mpi4py import MPI

    need = _rank_needs(config, comm.size, comm.rank)
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    host_need, host_ranks = local.allreduce(need, op=MPI.SUM), local.size
    local.Free()
    problem = None
    if config["memory_limit"] is not None:
        limit, what = config["memory_limit"], "--memory-limit"
    else:
        available = available_memory()
        limit, what = (
            (None, "")
            if available is None
            else (int(MEMORY_SHARE * available), f"{MEMORY_SHARE:.0%} of its available memory")
        )
    if limit is not None and host_need > limit:
        problem = (
            f"the {host_ranks} rank(s) on this host would need about {host_need / 2**20:.0f} MiB (estimate, up to "
            f"{need / 2**20:.0f} MiB per rank), more than the cap of {limit / 2**20:.0f} MiB ({what}); use smaller sizes, "
            "fewer ranks per host, or --memory-limit"
        )
    if problem is None and comm.rank == 0:
        problem = _json_target_problem(config["json"])
    return next((p for p in comm.allgather(problem) if p), None)


# --------------------------------------------------------------------------- main


def _write(config: dict, result: dict) -> None:
    """Rank 0's output: the OSU-shaped table on stdout (or the JSON with ``--json -``), the JSON
    file, and the warnings on stderr."""
    from .report import format_report, report_warnings

    text = json.dumps(result, indent=1)
    if config["json"] == "-":
        print(text, flush=True)
    else:
        if config["json"]:
            with open(config["json"], "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
        print(format_report(result, warnings=False), flush=True)
    for line in report_warnings(result):
        print(line, file=sys.stderr, flush=True)


def _json_target_problem(path) -> str | None:
    if path is None or path == "-":
        return None
    shown = path if len(path) <= 200 else path[:197] + "..."
    if len(os.fsencode(os.path.basename(path))) > NAME_MAX or len(os.fsencode(os.path.abspath(path))) > PATH_MAX:
        return f"cannot write --json {shown}: the name is longer than the file system allows ({NAME_MAX} bytes a name)"
    if os.path.isdir(path):
        return f"cannot write --json {shown}: it is a directory; give a file name"
    if os.path.lexists(path) and not os.path.isfile(path):
        # A FIFO blocked the write after the run, /dev/full failed it (#28): refuse before the work.
        return f"cannot write --json {shown}: it exists and is not a regular file (a device, a FIFO or a socket)"
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        return f"cannot write --json {path}: directory {directory} does not exist"
    if not os.access(directory, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        return f"cannot write --json {path}: not writable"
    return None


def main(argv=None) -> int:
    """Entry point of ``python -m ccb_helpers.mpi``; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        config = parse_static(argv)
    except InputError as error:
        return _fail(str(error), _rank_label())

    # mpi4py's default thread level (MPI_THREAD_MULTIPLE) on purpose: with "single", MPICH's
    # progress loop never releases the core, and with more ranks than cores (N = 4 on this 2-core
    # machine) an MPI_Allreduce of 1 MiB took ~1 s instead of ~15 ms.
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    n, rank = comm.size, comm.rank
    label = f" (rank {rank} of {n})"
    try:
        if n == 1 and not _rank_label():
            ranks = 2 if config["command"] == "pingpong" else 4
            raise InputError(
                f"started without mpiexec (one rank); run it as: mpiexec -n {ranks} {sys.executable} -m {PROG} "
                + " ".join(shlex.quote(a) for a in argv)
            )
        if config["command"] == "pingpong" and n < 2:
            raise InputError(f"pingpong needs at least 2 ranks, got N = {n} (run it with mpiexec -n 2)")
        if config["command"] == "selftest":
            config["ns"] = config["ns"] or [n]
            if max(config["ns"]) > n:
                raise InputError(f"--ns {max(config['ns'])} is more than the N = {n} ranks started")
            config["per_n"] = {k: selftest_cases(k, config["sizes"]) for k in config["ns"]}
        for case in config.get("cases", []):
            check_case_for(case, n, config.get("alpha"), config.get("beta"))
        _check_traffic(config, n)
    except InputError as error:
        MPI.Finalize()
        return _fail(str(error), label)
    problem = _setup_problem(comm, config)
    if problem:
        MPI.Finalize()
        return _fail(problem, label)

    code = 1
    try:
        result, code = _dispatch(comm, config)
        if rank == 0:
            _write(config, result)
    except Exception:  # a bug, not bad input: do not leave the other ranks waiting
        traceback.print_exc()
        sys.stderr.flush()
        comm.Abort(1)
    MPI.Finalize()
    return code


def _measure_alpha_beta(comm, sizes, repeats: int) -> dict | None:
    from ._runner import pingpong

    if comm.size < 2:
        return None
    measured = pingpong(comm, sizes, repeats=repeats)
    if comm.rank == 0:
        measured.update(_fit_or_none(measured))
    return measured


def _fit_or_none(measured: dict) -> dict:
    """α, β and residual of a ping-pong, or ``None`` values and the reason (noise can make times flat)."""
    from .fit import fit_alpha_beta

    try:
        fit = fit_alpha_beta(measured["sizes"], measured["times_s"])
    except ValueError as error:
        return {"alpha_s": None, "beta_Bps": None, "residual": None, "fit_error": str(error)}
    return {"alpha_s": fit.alpha_s, "beta_Bps": fit.beta_Bps, "residual": fit.residual}


def _dispatch(comm, config: dict) -> tuple[dict | None, int]:
    from ._runner import _idle_until_all_arrive, collective_counts, environment, pingpong, run_case

    started = time.time()
    env = environment(comm)
    rank0 = comm.rank == 0
    header = {
        "command": config["command"],
        "n": comm.size,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "note": config["note"],
        "environment": env,
    }
    if config["command"] == "pingpong":
        measured = pingpong(comm, config["sizes"], config["repeats"])
        if not rank0:
            return None, 0
        fit = _fit_or_none(measured)
        return {**header, **measured, **fit, "elapsed_s": time.time() - started}, 0 if fit["alpha_s"] is not None else 1

    if config["command"] == "selftest":
        from mpi4py import MPI

        outcomes, skipped = [], []
        for k in config["ns"]:
            cases, skipped_k = config["per_n"][k]
            # Ranks 0..k-1 form a communicator of size k; the others sleep until they are done.
            sub = comm.Split(0 if comm.rank < k else MPI.UNDEFINED, comm.rank)
            if sub != MPI.COMM_NULL:
                for index, case in enumerate(cases):
                    r = run_case(sub, case, repeats=1, warmup=0, seed=index, alpha=None, beta=None)
                    if rank0:
                        outcomes.append(
                            {
                                key: r[key]
                                for key in (
                                    "n",
                                    "algorithm",
                                    "primitive",
                                    "m",
                                    "root",
                                    "ports",
                                    "correct",
                                    "errors",
                                    "library_call",
                                    "library_correct",
                                    "library_errors",
                                )
                            }
                        )
                sub.Free()
            skipped += [{"n": k, **s} for s in skipped_k]
            _idle_until_all_arrive(comm)
        all_correct = comm.bcast(
            all(o["correct"] and o["library_correct"] for o in outcomes) if rank0 else None, root=0
        )
        if not rank0:
            return None, 0 if all_correct else 1
        result = {
            **header,
            "ns": config["ns"],
            "cases": outcomes,
            "skipped": skipped,
            "all_correct": all_correct,
            "elapsed_s": time.time() - started,
        }
        return result, 0 if all_correct else 1

    alpha, beta, source, measured = config["alpha"], config["beta"], "given on the command line", None
    if alpha is None:
        measured = _measure_alpha_beta(
            comm, config.get("pingpong_sizes", QUICK_PINGPONG_SIZES), config.get("pingpong_repeats", 5)
        )
        if comm.size < 2:  # the same decision on every rank (``measured`` is None on ranks > 0)
            source = "not measured (one rank)"
        else:
            alpha, beta = comm.bcast((measured["alpha_s"], measured["beta_Bps"]) if rank0 else None, root=0)
            source = "measured: ping-pong between ranks 0 and 1 in this launch"
            if alpha is None:
                source = "measurement failed (see pingpong.fit_error): no model or bound"
    runs = []
    for case in config["cases"]:
        repeats, warmup = collective_counts(case["m"], config["repeats"], config["warmup"])
        r = run_case(comm, case, repeats, warmup, config["seed"], alpha, beta, library=config["library"])
        runs.append(r)
    correct = comm.bcast(all(r["correct"] and r.get("library_correct", True) for r in runs) if rank0 else None, root=0)
    if not rank0:
        return None, 0 if correct else 1
    extra = {"alpha_s": alpha, "beta_Bps": beta, "alpha_beta_source": source}
    if measured is not None:
        extra["pingpong"] = measured
    if config["command"] == "run":
        return {**header, **runs[0], **extra, "elapsed_s": time.time() - started}, 0 if correct else 1
    return {
        **header,
        **extra,
        "runs": runs,
        "all_correct": correct,
        "elapsed_s": time.time() - started,
    }, 0 if correct else 1
