"""Phase 2 of the MPI CLI: can N ranks run the launch, and what will it cost — before any buffer exists.

Right after ``MPI_Init`` every rank runs the same checks on the same input (so all fail alike,
with no communication): what depends on N (:func:`check_case_for`: power of two, divisibility,
root < N, α and β giving a finite model and bound), the bytes a rank will send and the collective
calls it will make (:data:`MAX_TRAFFIC_BYTES`, :data:`MAX_COLLECTIVE_CALLS`: bounds on the running
time); then, in one exchange every rank reaches (:func:`_setup_problem`), each host's memory
estimate summed over its ranks against its available memory (``--memory-limit``), and rank 0's
check that it can write ``--json``.
"""

from __future__ import annotations

import math
import os

from ..algorithms import ALGORITHMS, algorithm_terms
from ..bounds import combined_lower_bound
from ..generators import generate
from ..primitives import ROOTED_PRIMITIVES
from ._args import MEMORY_SHARE, QUICK_PINGPONG_SIZES, InputError, _case

__all__: list[str] = []

#: Most bytes one launch may send per rank, over all its runs (warm-up, timed, the library's):
#: a bound on its running time — 1 TiB is minutes to an hour at memory-copy or network speed.
MAX_TRAFFIC_BYTES = 2**40
#: Longest file name and path of --json (NAME_MAX and PATH_MAX of Linux).
NAME_MAX, PATH_MAX = 255, 4096
#: Bytes a rank holds besides its buffers (interpreter, numpy, MPI), added to the memory estimate.
RANK_BASELINE_BYTES = 128 * 2**20


def _schedule(case: dict, n: int):
    """The schedule ``case`` runs on ``n`` ranks (what every rank generates)."""
    return generate(
        case["algorithm"],
        case["primitive"],
        n,
        case["m"],
        ports=case["ports"],
        root=case["root"],
        chunks=case["chunks"],
    )


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
        _schedule(case, n)
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

    schedule = _schedule(case, n)
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
