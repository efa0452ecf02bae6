"""Checking a synthesized schedule in the simulator, and its time in the (S, R, C) model."""

from __future__ import annotations

import numpy as np

from .._validation import check_int, check_real
from ..schedule import Schedule
from ..topology import Topology
from .model import _check_topology, _network


def _check_chunk_capacity(schedule: Schedule, topology: Topology) -> None:
    """Every step: chunks (pieces) per link direction <= multiplicity x rounds of the step, in chunks.

    The simulator checks the same limit in bytes (``b * r_s * chunk_bytes``), which lets several
    short pieces share one chunk's bytes when ``m`` does not divide evenly; this counts pieces.
    """
    from ..simulator import ScheduleError

    net = _network(topology, hops=False)
    n = net.n
    capacity = {}
    for arcs, b in net.groups:
        for a in arcs:
            capacity.setdefault(net.arcs[a], []).append((arcs, b))
    for i, (r, rounds) in enumerate(zip(schedule.rounds, schedule.step_rounds)):
        remote = r.src != r.dst
        pairs = r.src[remote] * n + r.dst[remote]
        keys, counts = np.unique(pairs, return_counts=True)
        per_group = {}
        for key, count in zip(keys.tolist(), counts.tolist()):
            arc = (key // n, key % n)
            if arc not in capacity:
                raise ScheduleError(f"step {i + 1}: {arc[0]}->{arc[1]} is not a link of {topology.name}")
            for arcs, b in capacity[arc]:
                per_group[(arcs, b)] = per_group.get((arcs, b), 0) + count
        for (arcs, b), count in per_group.items():
            if count > b * int(rounds):
                u, v = net.arcs[arcs[0]]
                where = (
                    f"link {u}->{v}"
                    if len(arcs) == 1
                    else f"switch port of {u if all(net.arcs[a][0] == u for a in arcs) else v}"
                )
                raise ScheduleError(
                    f"step {i + 1}: {where} carries {count} chunks but {b} link(s) x {rounds} round(s) allow {b * int(rounds)}"
                )


def verify_synthesized(schedule: Schedule, topology: Topology, seed: int = 0):
    """Run a synthesized schedule in the simulator with its link capacities: the result (``.correct``).

    Every node may use all its links at once (``ports = max(n - 1, degree)``: every peer, and every
    one of its parallel links, a port being one link); ``step_rounds`` limits each link:
    in chunks (a step of ``r`` rounds sends at most ``b * r`` chunks over ``b`` parallel links,
    counted here) and in bytes (checked by :func:`ccb_helpers.run_schedule`). A violation raises
    :class:`ccb_helpers.ScheduleError`; a wrong result gives ``.correct == False``.

    >>> import ccb_helpers as ccb
    >>> s = ccb.synthesize(ccb.fully_connected(3), "all_to_all", 1, 1, 1, time_limit=10)
    >>> verify_synthesized(s, ccb.fully_connected(3)).correct
    True
    """
    from ..simulator import run_schedule

    if not isinstance(schedule, Schedule):
        raise TypeError(
            f"schedule must be a Schedule (from synthesize or stored_schedule), got {type(schedule).__name__}"
        )
    topology = _check_topology(topology)
    if topology.n != schedule.n:
        raise ValueError(f"topology has n={topology.n} nodes but the schedule has n={schedule.n}")
    if schedule.step_rounds is None or schedule.chunk_bytes is None:
        raise ValueError("schedule has no step_rounds / chunk_bytes: not a synthesized schedule")
    seed = check_int("seed", seed, minimum=0, scalar=True)
    _check_chunk_capacity(schedule, topology)
    return run_schedule(schedule, ports=_all_ports(topology), topology=topology, seed=seed)


def _all_ports(topology: Topology) -> int:
    """Ports of an all-port node of ``topology``: every peer and every link, ``max(n - 1, degree)``.

    >>> import ccb_helpers as ccb
    >>> _all_ports(ccb.ring(5)), _all_ports(ccb.single_switch(4, links=18))
    (4, 18)
    """
    return max(1, topology.n - 1, topology.degree)


def synthesized_time(schedule: Schedule, alpha, beta) -> float:
    """``eq:cc-synth-cost`` in seconds: ``S alpha + sum(step_rounds) * chunk_bytes / beta`` (β in bytes/s)."""
    from .._validation import check_bandwidth

    if not isinstance(schedule, Schedule):
        raise TypeError(
            f"schedule must be a Schedule (from synthesize or stored_schedule), got {type(schedule).__name__}"
        )
    alpha = check_real("alpha", alpha, maximum=1e9, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    if schedule.step_rounds is None:
        raise ValueError("schedule has no step_rounds: not a synthesized schedule")
    return len(schedule.rounds) * alpha + sum(schedule.step_rounds) * schedule.chunk_bytes / beta
