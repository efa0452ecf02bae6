"""The machine's load while a launch runs: load averages, the CPU its ranks used, and what else ran.

Timings on a shared machine are only as good as the cores the ranks got. Oversubscription (more
ranks than cores) is flagged from the launch itself; this module names the *outside* load, per
host: the 1-, 5- and 15-minute load averages when the launch starts (the ranks have run for well
under a second then, so the averages are the machine's load before them) and when it ends, how
many cores were busy during the launch (``/proc/stat``), how many of them the launch's own
processes used (each rank's CPU time, and its MPI proxy and ``mpiexec``), the rest — other
processes — and the busiest of those by name and pid (``/proc/<pid>/stat``; the short name the
kernel keeps, never the command line, which may hold secrets). Linux only; elsewhere the
counters are ``None`` and only the load averages are recorded.

One rank per host (the lowest of ``MPI_COMM_TYPE_SHARED``) reads the counters; rank 0 receives
every host's summary (:func:`finish_load`), which goes into the result as ``load`` and into the
table's header and warnings (:mod:`ccb_helpers.mpi.report`).
"""

from __future__ import annotations

import os
import socket
import time

__all__: list[str] = []

#: Other processes' share of a host's cores above which the report warns (cores, averaged over the launch).
OUTSIDE_LOAD_WARNING = 0.25
#: Outside processes recorded per host (the busiest first; the report names the first three).
RECORDED_PROCESSES = 20
#: A process below this many cores over the launch is not named (the noise of the tick counters).
MIN_NAMED_CORES = 0.02


def _clock_ticks() -> int:
    try:
        return int(os.sysconf("SC_CLK_TCK"))
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not Linux
        return 100


def busy_ticks() -> int | None:
    """Clock ticks all cores of this host have spent busy since boot (``/proc/stat``), None if unknown.

    Busy is user + nice + system + irq + softirq + steal; idle and iowait are not.
    """
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 9:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[1:9])
    return user + nice + system + irq + softirq + steal


def process_ticks() -> dict[int, tuple[str, int, int]] | None:
    """``pid -> (name, parent pid, CPU ticks)`` of every process this host lets us see, None if unknown."""
    try:
        pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return None
    out = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:  # gone meanwhile, or hidden
            continue
        # "pid (name) state ppid ... utime stime ...": the name may hold spaces and parentheses.
        head, _, rest = text.rpartition(")")
        fields = rest.split()
        if len(fields) < 13:
            continue
        out[pid] = (head.partition("(")[2], int(fields[1]), int(fields[11]) + int(fields[12]))
    return out


def host_snapshot() -> dict:
    """What the host's counters say now (taken by one rank per host, at the start and at the end)."""
    return {
        "wall": time.monotonic(),
        "load_average": [round(v, 2) for v in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "busy_ticks": busy_ticks(),
        "processes": process_ticks(),
    }


def summarize_host(
    start: dict, end: dict, own_cpu_s: float, rank_pids, helper_pids, cores: int, host: str, ranks: int
) -> dict:
    """One host's load over a launch from two :func:`host_snapshot` and the ranks' own CPU seconds.

    ``rank_pids`` are the launch's ranks on this host (their CPU is ``own_cpu_s``, from their own
    clocks), ``helper_pids`` its other processes there (the MPI proxy, ``mpiexec``: their CPU, from
    the tick counters, is the launch's too); every other process is outside load.

    >>> start = {"wall": 0.0, "load_average": [2.5, 1.0, 0.5], "busy_ticks": 1000,
    ...          "processes": {7: ("rank", 1, 0), 8: ("stress", 1, 50)}}
    >>> end = {"wall": 2.0, "load_average": [3.1, 1.2, 0.6], "busy_ticks": 1000 + 360,
    ...        "processes": {7: ("rank", 1, 180), 8: ("stress", 1, 230)}}
    >>> s = summarize_host(start, end, 1.8, rank_pids={7}, helper_pids=set(), cores=2, host="h", ranks=1)
    >>> s["busy_cores"], s["own_cores"], s["outside_cores"], s["outside_processes"]
    (1.8, 0.9, 0.9, [{'pid': 8, 'name': 'stress', 'cores': 0.9}])
    """
    ticks = _clock_ticks()
    elapsed = max(end["wall"] - start["wall"], 1e-9)
    before, after = start["processes"], end["processes"]

    def used(pid) -> float:
        """Cores ``pid`` used over the launch (a pid new since the start counts from 0)."""
        name, _, total = after[pid]
        earlier = before.get(pid)
        return (total - (earlier[2] if earlier is not None and earlier[0] == name else 0)) / ticks / elapsed

    launch = own_cpu_s / elapsed
    if before is not None and after is not None:
        launch += sum(used(pid) for pid in helper_pids if pid in after)
    summary = {
        "host": host,
        "cores": cores,
        "ranks": ranks,
        "elapsed_s": round(elapsed, 3),
        "load_average_start": start["load_average"],
        "load_average_end": end["load_average"],
        "busy_cores": None,
        "own_cores": round(launch, 2),
        "outside_cores": None,
        "outside_processes": [],
    }
    if start["busy_ticks"] is not None and end["busy_ticks"] is not None:
        busy = (end["busy_ticks"] - start["busy_ticks"]) / ticks / elapsed
        summary["busy_cores"] = round(busy, 2)
        summary["outside_cores"] = round(max(busy - launch, 0.0), 2)
    if before is not None and after is not None:
        ours = set(rank_pids) | set(helper_pids)
        others = [{"pid": pid, "name": after[pid][0], "cores": round(used(pid), 2)} for pid in after if pid not in ours]
        others = sorted((p for p in others if p["cores"] >= MIN_NAMED_CORES), key=lambda p: -p["cores"])
        summary["outside_processes"] = others[:RECORDED_PROCESSES]
    return summary


def start_load(comm) -> dict:
    """Collective, at the start of the work: this rank's CPU clock, and the host's counters on its leader."""
    from mpi4py import MPI

    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    return {"local": local, "cpu": time.process_time(), "snapshot": host_snapshot() if local.rank == 0 else None}


def finish_load(comm, state: dict) -> list[dict] | None:
    """Collective, after the work: every host's :func:`summarize_host`, on rank 0 (None elsewhere)."""
    local = state["local"]
    reports = local.gather((time.process_time() - state["cpu"], os.getpid(), os.getppid()), root=0)
    summary = None
    if local.rank == 0:
        end = host_snapshot()
        processes = end["processes"] or {}
        rank_pids = {pid for _, pid, _ in reports}
        helpers = set()
        for _, _, parent in reports:  # a rank's parent (the MPI proxy) and its parent (mpiexec)
            helpers.add(parent)
            if parent in processes:
                helpers.add(processes[parent][1])
        helpers -= rank_pids | {0, 1}  # init and the kernel are never the launch's
        summary = summarize_host(
            state["snapshot"],
            end,
            sum(cpu for cpu, _, _ in reports),
            rank_pids=rank_pids,
            helper_pids=helpers,
            cores=os.cpu_count() or 1,
            host=socket.gethostname(),
            ranks=local.size,
        )
    local.Free()
    hosts = comm.gather(summary, root=0)
    return None if comm.rank != 0 else [h for h in hosts if h is not None]
