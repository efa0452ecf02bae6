"""The code that runs inside the MPI ranks: ping-pong, a schedule, the library's collective.

Everything here takes an mpi4py communicator; nothing imports mpi4py at module level (the
package's doctests and the notebooks import :mod:`ccb_helpers.mpi` without starting MPI).
Timing follows the OSU micro-benchmarks (Panda et al.): the ping-pong as ``osu_latency`` (see
:func:`pingpong`); a collective as ``osu_allreduce`` and its siblings — warm-up runs first, more
runs for small messages (:func:`collective_counts`), a barrier before each timed run, every rank
times its own runs with ``MPI.Wtime``. A run's time is the slowest rank's (``times_s``,
``median_s`` their median); OSU's summary, each rank's mean over the timed runs reduced over the
ranks, is recorded too (``rank_mean_max_s`` — OSU's "Max Latency" —, ``rank_mean_avg_s``,
``rank_mean_min_s``).
"""

from __future__ import annotations

import os
import socket
import time

import numpy as np

from ..algorithms import algorithm_terms
from ..bounds import combined_lower_bound
from ..generators import generate
from ..schedule import block_bounds
from ._memory import huge_page_bytes, numpy_hugepage_advice_enabled, thp_mode
from ._plan import compile_rank_plan
from ._reference import compare, expected_regions, rank_input

__all__: list[str] = []

LIBRARY_CALLS = {
    "all_reduce": "Allreduce",
    "all_gather": "Allgather",
    "reduce_scatter": "Reduce_scatter_block",
    "broadcast": "Bcast",
    "reduce": "Reduce",
    "scatter": "Scatter",
    "gather": "Gather",
    "all_to_all": "Alltoall",
}


def _mpi():
    from mpi4py import MPI

    return MPI


# --------------------------------------------------------------------------- ping-pong


#: Message sizes above which a ping-pong sample takes fewer round trips and fewer warm-ups, as
#: in ``mpi4py.bench pingpong`` (its ``large_size`` and ``huge_size``) and the OSU
#: micro-benchmarks (``osu_latency``: 10000 iterations after 100 skipped up to 8 KiB, 1000 after
#: 10 above).
PINGPONG_LARGE = 2**14
PINGPONG_HUGE = 2**20


def pingpong_iterations(size: int) -> int:
    """Round trips per timed sample: 1000 up to 16 KiB, 100 up to 1 MiB, 1 above.

    With the default 10 samples that is 10000, 1000 and 10 timed round trips per size, the loop
    counts of ``mpi4py.bench pingpong`` (OSU's ``osu_latency``: 10000 and 1000); even the
    smallest sample lasts far longer than ``MPI_Wtime``'s resolution.

    >>> pingpong_iterations(0), pingpong_iterations(2**14), pingpong_iterations(2**20), pingpong_iterations(2**24)
    (1000, 1000, 100, 1)
    """
    if size <= PINGPONG_LARGE:
        return 1000
    return 100 if size <= PINGPONG_HUGE else 1


def pingpong_warmup(size: int) -> int:
    """Untimed round trips before a size's samples (OSU's "skip"): 100, 10 above 16 KiB, 2 above 1 MiB.

    They fault in the pages, fill the caches and let MPICH set up the protocol (eager or the
    rendezvous with CMA) before anything is timed.

    >>> pingpong_warmup(0), pingpong_warmup(2**16), pingpong_warmup(2**24)
    (100, 10, 2)
    """
    if size <= PINGPONG_LARGE:
        return 100
    return 10 if size <= PINGPONG_HUGE else 2


def _idle_until_all_arrive(comm) -> None:
    """Wait at a barrier without busy-polling: a sleeping rank leaves the cores to those still working.

    (``MPI_Barrier`` polls; with more ranks than cores the idle ranks would slow the ping-pong
    of ranks 0 and 1 several times over.)
    """
    request = comm.Ibarrier()
    while not request.Test():
        time.sleep(0.002)


def pingpong(comm, sizes, repeats: int) -> dict | None:
    """One-way times between ranks 0 and 1 (half a round trip); the other ranks sleep meanwhile.

    The OSU micro-benchmarks' method (``osu_latency``), which ``mpi4py.bench pingpong`` follows
    too: rank 0 sends from one buffer and receives into another (rank 1 likewise), both written
    before any timing so no page is faulted in while the clock runs; per size a barrier, then
    :func:`pingpong_warmup` untimed round trips, then ``repeats`` samples of
    :func:`pingpong_iterations` round trips each, timed with ``MPI_Wtime`` on rank 0. After each
    size both ranks check that their receive buffer holds the other's bytes (``received_ok``).

    The buffers are allocated per size, ``numpy.empty(size)`` as ``mpi4py.bench`` does and as an
    application holds a message of that size, then written. Slices of one buffer of the largest
    size (what this function did before issue #32) would put every size on the pages of a 16 MiB
    allocation, which numpy advises for transparent huge pages (it does so from 4 MiB,
    ``NUMPY_MADVISE_HUGEPAGE``); where THP is ``madvise`` a 128 KiB … 4 MiB message then moved up
    to 3× faster than the same message in its own array, by an amount that depended on where the
    allocation happened to fall (``benchmarks/bench_pingpong_buffers.py``,
    ``benchmarks/README.md``). Per-size arrays get the pages numpy gives any array of that size;
    rank 0 records them (``huge_page_bytes``: bytes of its send and receive buffer on huge pages,
    per size, with ``thp_mode`` and ``numpy_hugepage_advice``). As in ``mpi4py.bench`` a size's
    buffers are freed before the next size's are allocated (at most two buffers alive).

    Returns on rank 0 (``None`` elsewhere): ``times_s``, the mean one-way time over all timed
    round trips of a size — the statistic OSU and ``mpi4py.bench`` report, and what α and β are
    fitted to —, ``samples_s`` (each sample's mean one-way time), ``median_times_s`` and
    ``min_max_s`` over them, the counts used and the buffers' page state.
    """
    MPI = _mpi()
    rank = comm.rank
    pair = comm.Split(0 if rank < 2 else MPI.UNDEFINED, rank)
    means, medians, spreads, all_samples, huge, received_ok = [], [], [], [], [], True
    if pair != MPI.COMM_NULL:
        peer = 1 - rank
        for size in sizes:
            # Separate send and receive buffers of this size, every page written now (first touch
            # outside the timing); different byte values on the two ranks so the check below sees
            # which message arrived. (np.zeros would not do: calloc'd pages stay the kernel's zero
            # page until written, and the zero page is what made mpi4py.bench's stock run fast.)
            out = np.empty(size, dtype=np.uint8)
            out.fill(1 + rank)
            into = np.empty(size, dtype=np.uint8)
            into.fill(0)
            iters, samples = pingpong_iterations(size), []

            def round_trips(count, out=out, into=into):
                for _ in range(count):
                    if rank == 0:
                        pair.Send(out, dest=peer, tag=1)
                        pair.Recv(into, source=peer, tag=2)
                    else:
                        pair.Recv(into, source=peer, tag=1)
                        pair.Send(out, dest=peer, tag=2)

            pair.Barrier()
            round_trips(pingpong_warmup(size))
            for _sample in range(repeats):
                start = MPI.Wtime()
                round_trips(iters)
                samples.append((MPI.Wtime() - start) / (2 * iters))
            received_ok = received_ok and bool(np.all(into == 1 + peer))
            if rank == 0:
                timed = np.array(samples)
                means.append(float(timed.mean()))  # equal samples: the mean over all timed round trips
                medians.append(float(np.median(timed)))
                spreads.append([float(timed.min()), float(timed.max())])
                all_samples.append([float(t) for t in timed])
                huge.append([huge_page_bytes(out), huge_page_bytes(into)])  # read after the timing
            del out, into, round_trips  # freed before the next size's (the closure held them too)
        received_ok = pair.allreduce(received_ok, op=MPI.LAND)
        pair.Free()
    _idle_until_all_arrive(comm)
    if rank != 0:
        return None
    return {
        "sizes": [int(s) for s in sizes],
        "times_s": means,
        "statistic": "mean one-way time over all timed round trips (as osu_latency and mpi4py.bench pingpong)",
        "median_times_s": medians,
        "min_max_s": spreads,
        "samples_s": all_samples,
        "iterations": [pingpong_iterations(s) for s in sizes],
        "warmup_iterations": [pingpong_warmup(s) for s in sizes],
        "repeats": repeats,
        "buffers": "separate send and receive buffers per size (numpy.empty(size), as mpi4py.bench), "
        "written before timing",
        "huge_page_bytes": huge,
        "thp_mode": thp_mode(),
        "numpy_hugepage_advice": numpy_hugepage_advice_enabled(),
        "barrier": "per size",
        "received_ok": received_ok,
    }


# --------------------------------------------------------------------------- the library's collective


def _counts(m: int, n: int):
    bounds = block_bounds(m, n)
    return [int(c) for c in np.diff(bounds)], [int(d) for d in bounds[:-1]]


def library_collective(comm, primitive: str, bufs: dict, m: int, root: int):
    """The MPI library's own collective for ``primitive`` on the same buffers, and its name.

    Returns ``(call, finish, name)``: ``call()`` runs the collective (timed); ``finish()`` moves
    its output into the book's buffer layout (untimed) so the same byte check applies. Equal
    blocks use the plain call (``Allgather``…); unequal blocks its ``v`` variant.
    """
    MPI = _mpi()
    n, rank = comm.size, comm.rank
    counts, displs = _counts(m, n)
    equal = m % n == 0
    B = MPI.BYTE
    data = bufs.get("data")
    mine = slice(displs[rank], displs[rank] + counts[rank])
    if primitive == "all_reduce":
        return (lambda: comm.Allreduce(MPI.IN_PLACE, [data, MPI.UNSIGNED_CHAR], op=MPI.SUM)), None, "Allreduce"
    if primitive == "broadcast":
        return (lambda: comm.Bcast([data, B], root=root)), None, "Bcast"
    if primitive == "reduce":
        if rank == root:
            return (lambda: comm.Reduce(MPI.IN_PLACE, [data, MPI.UNSIGNED_CHAR], op=MPI.SUM, root=root)), None, "Reduce"
        return (lambda: comm.Reduce([data, MPI.UNSIGNED_CHAR], None, op=MPI.SUM, root=root)), None, "Reduce"
    if primitive == "reduce_scatter":
        out = np.empty(counts[rank], dtype=np.uint8)

        def finish():
            data[mine] = out

        if equal:
            return (
                (lambda: comm.Reduce_scatter_block([data, MPI.UNSIGNED_CHAR], [out, MPI.UNSIGNED_CHAR], op=MPI.SUM)),
                finish,
                "Reduce_scatter_block",
            )
        return (
            (
                lambda: comm.Reduce_scatter(
                    [data, MPI.UNSIGNED_CHAR], [out, MPI.UNSIGNED_CHAR], recvcounts=counts, op=MPI.SUM
                )
            ),
            finish,
            "Reduce_scatter",
        )
    if primitive == "all_gather":
        if equal:
            return (lambda: comm.Allgather(MPI.IN_PLACE, [data, B])), None, "Allgather"
        return (lambda: comm.Allgatherv(MPI.IN_PLACE, [data, counts, displs, B])), None, "Allgatherv"
    if primitive == "scatter":
        if equal:
            send = [data, B] if rank == root else None
            recv = MPI.IN_PLACE if rank == root else [data[mine], B]
            return (lambda: comm.Scatter(send, recv, root=root)), None, "Scatter"
        send = [data, counts, displs, B] if rank == root else None
        recv = MPI.IN_PLACE if rank == root else [data[mine], B]
        return (lambda: comm.Scatterv(send, recv, root=root)), None, "Scatterv"
    if primitive == "gather":
        if equal:
            send = MPI.IN_PLACE if rank == root else [data[mine], B]
            recv = [data, B] if rank == root else None
            return (lambda: comm.Gather(send, recv, root=root)), None, "Gather"
        send = MPI.IN_PLACE if rank == root else [data[mine], B]
        recv = [data, counts, displs, B] if rank == root else None
        return (lambda: comm.Gatherv(send, recv, root=root)), None, "Gatherv"
    if primitive == "all_to_all":
        send, recv = bufs["send"], bufs["recv"]
        if equal:
            return (lambda: comm.Alltoall([send, B], [recv, B])), None, "Alltoall"
        return (lambda: comm.Alltoallv([send, counts, displs, B], [recv, counts, displs, B])), None, "Alltoallv"
    raise AssertionError(primitive)  # pragma: no cover - primitives are validated before MPI starts


# --------------------------------------------------------------------------- one case


def _execute(comm, plan) -> None:
    """Run a compiled plan: per round pack, post receives then sends, wait for all, unpack."""
    MPI = _mpi()
    plan.prologue.before()
    plan.prologue.after()
    for tag, rp in enumerate(plan.rounds):
        rp.before()
        tag %= 32768  # MPI guarantees tags up to 32767
        requests = [comm.Irecv(buf, source=peer, tag=tag) for peer, buf in rp.recvs]
        requests += [comm.Isend(buf, dest=peer, tag=tag) for peer, buf in rp.sends]
        MPI.Request.Waitall(requests)
        rp.after()
    plan.epilogue.before()
    plan.epilogue.after()


#: Messages up to this size get :data:`SMALL_MESSAGE_FACTOR` times more runs and warm-ups (OSU's
#: ``LARGE_MESSAGE_SIZE``; its collectives run 1000 iterations after 200 skipped below it, 100 after 10 above).
SMALL_MESSAGE_BYTES = 8192
SMALL_MESSAGE_FACTOR = 10


def collective_counts(m: int, repeats: int, warmup: int) -> tuple[int, int]:
    """Timed runs and warm-up runs of a collective of ``m`` bytes: ``repeats`` and ``warmup``, 10× both up to 8 KiB.

    A small message's run lasts microseconds, so one slow spell moves few runs' median; more
    runs cost little (as OSU's iteration counts by size).

    >>> collective_counts(1024, 5, 1), collective_counts(2**20, 5, 1)
    ((50, 10), (5, 1))
    """
    if m <= SMALL_MESSAGE_BYTES:
        return repeats * SMALL_MESSAGE_FACTOR, warmup * SMALL_MESSAGE_FACTOR
    return repeats, warmup


def _timed(comm, run, reset, check, repeats: int, warmup: int):
    """Warm-up runs, then ``repeats`` barrier-separated timed runs; slowest rank's time each.

    Returns ``(times on rank 0 or None, OSU summary on rank 0 or None, errors of this rank)``;
    every run is checked. The summary is each rank's mean over its timed runs, reduced over the
    ranks: ``{"max": …, "avg": …, "min": …}`` (s).
    """
    MPI = _mpi()
    local = np.zeros(repeats)
    errors: list[str] = []
    for index in range(warmup + repeats):
        reset()
        comm.Barrier()
        start = MPI.Wtime()
        run()
        elapsed = MPI.Wtime() - start
        if index >= warmup:
            local[index - warmup] = elapsed
        if not errors:
            errors = check()
    slowest = np.zeros(repeats) if comm.rank == 0 else None
    comm.Reduce(local, slowest, op=MPI.MAX, root=0)
    mean = float(local.mean())
    summary = {
        "max": comm.reduce(mean, op=MPI.MAX, root=0),
        "avg": comm.reduce(mean, op=MPI.SUM, root=0),
        "min": comm.reduce(mean, op=MPI.MIN, root=0),
    }
    if comm.rank != 0:
        return slowest, None, errors
    summary["avg"] /= comm.size
    return slowest, summary, errors


def run_case(comm, case: dict, repeats: int, warmup: int, seed: int, alpha, beta, library: bool = True) -> dict | None:
    """Run one (algorithm, primitive, m, root, ports, chunks) case on real buffers; rank 0 gets the result.

    ``case`` was validated before MPI started (``_args``, ``_budget``); its schedule is generated here on every
    rank (deterministically, so all ranks agree) and compiled for this rank.
    """
    n, rank = comm.size, comm.rank
    algorithm, primitive, m = case["algorithm"], case["primitive"], case["m"]
    schedule = generate(algorithm, primitive, n, m, ports=case["ports"], root=case["root"], chunks=case.get("chunks"))
    pristine = {name: rank_input(seed, rank, name, m) for name in schedule.buffers}
    bufs = {name: np.empty(m, dtype=np.uint8) for name in schedule.buffers}
    plan = compile_rank_plan(schedule, rank, [bufs[name] for name in schedule.buffers])
    expected = expected_regions(primitive, n, m, schedule.root, rank, seed)

    def reset():
        for name, buf in bufs.items():
            np.copyto(buf, pristine[name])

    def check():
        return compare(expected, bufs)

    times, summary, errors = _timed(comm, lambda: _execute(comm, plan), reset, check, repeats, warmup)
    lib_times = lib_errors = lib_name = lib_summary = None
    if library:
        call, finish, lib_name = library_collective(comm, primitive, bufs, m, schedule.root)

        def lib_check():
            if finish is not None:
                finish()
            return compare(expected, bufs)

        lib_times, lib_summary, lib_errors = _timed(comm, call, reset, lib_check, repeats, warmup)
    # Gather every rank's first error (small Python objects; the runs are over).
    all_errors = comm.gather([f"rank {rank}: {e}" for e in errors[:3]], root=0)
    all_lib_errors = comm.gather([f"rank {rank}: {e}" for e in (lib_errors or [])[:3]], root=0)
    if rank != 0:
        return None
    errors = [e for per_rank in all_errors for e in per_rank]
    lib_errors = [e for per_rank in all_lib_errors for e in per_rank]
    cost = algorithm_terms(algorithm, primitive, n, m, case["ports"], chunks=case.get("chunks"))
    result = {
        "algorithm": algorithm,
        "primitive": primitive,
        "n": n,
        "m": m,
        "ports": case["ports"],
        "root": schedule.root,
        "chunks": case.get("chunks"),
        "rounds": len(schedule.rounds),
        "messages_rank0": plan.messages_sent,
        "correct": not errors,
        "errors": errors[:10],
        "repeats": repeats,
        "warmup": warmup,
        "times_s": [float(t) for t in times],
        "median_s": float(np.median(times)),
        "statistic": "times_s: per timed run, the slowest rank's time; median_s: their median; "
        "rank_mean_*_s: each rank's mean over the timed runs, max / avg / min over the ranks (OSU)",
        "rank_mean_max_s": summary["max"],
        "rank_mean_avg_s": summary["avg"],
        "rank_mean_min_s": summary["min"],
        "model_rounds": int(cost.steps),
        "model_bandwidth_bytes": float(cost.bandwidth_bytes),
    }
    if alpha is not None:
        result["model_s"] = float(cost.time(alpha, beta))
        result["bound_s"] = float(combined_lower_bound(primitive, n, m, alpha, beta, case["ports"]))
    if library:
        result.update(
            {
                "library_call": lib_name,
                "library_correct": not lib_errors,
                "library_errors": lib_errors[:10],
                "library_times_s": [float(t) for t in lib_times],
                "library_median_s": float(np.median(lib_times)),
                "library_rank_mean_max_s": lib_summary["max"],
                "library_rank_mean_avg_s": lib_summary["avg"],
                "library_rank_mean_min_s": lib_summary["min"],
            }
        )
    return result


# --------------------------------------------------------------------------- provenance


def environment(comm) -> dict:
    """Where the numbers came from: MPI library, hosts, cores, oversubscription, MPICH settings."""
    MPI = _mpi()
    import mpi4py

    hosts = comm.gather(socket.gethostname(), root=0)
    if comm.rank != 0:
        return {}
    per_host = {h: hosts.count(h) for h in dict.fromkeys(hosts)}
    cores = os.cpu_count() or 1
    return {
        "mpi_library": MPI.Get_library_version().splitlines()[0].strip(),
        "mpi4py": mpi4py.__version__,
        "hosts": per_host,
        "cores_rank0_host": cores,
        "oversubscribed": max(per_host.values()) > cores,
        "mpich_settings": {k: v for k, v in sorted(os.environ.items()) if k.startswith(("MPIR_CVAR_", "MPICH_"))},
        "wtime_resolution_s": MPI.Wtick(),
    }
