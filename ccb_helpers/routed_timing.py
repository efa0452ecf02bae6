"""Schedules timed on a torus, ring or mesh with routed (cut-through) messages.

The book's simulator runs direct networks store-and-forward: a message goes to a neighbour, and
farther nodes cost one round per hop (chapter 2). Torus machines (TPU pods, Fugaku) route instead:
a message to a node ``h`` hops away crosses ``h`` links within one round and shares them with
every other message of the round. That is the model in which Swing (De Sensi et al., NSDI 2024)
is designed and measured, so chapter 9 times schedules in it too (``eq:cc-routed-round``):

.. math:: T = \\sum_{\\text{rounds}} \\Big(\\alpha + \\frac{\\max_{\\text{link}} \\text{bytes on it}}{\\beta}\\Big),

routing every message dimension by dimension (dimension-order routing) along the shorter way
round each ring; when both ways are equally short, half the bytes go each way. β is one link
in one direction.

Lower bound in this model (:func:`routed_lower_bound`): at least ``ceil(log_{d+1} N)`` rounds
(``d`` links per node), and a round's busiest link carries at least the bytes crossing the
bisection in it over the cut's links, and at least a node's bytes over its ``d`` links — so the
bandwidth term is ``max(bisection bound, endpoint bound with p = d)`` of chapters 3 and 5.
"""

from __future__ import annotations

import numpy as np

from ._intmath import ceil_log
from ._validation import check_bandwidth, check_seconds, check_size
from .bandwidth import _bandwidth_lower_bound
from .bisection import _bisection_lower_bound
from .primitives import check_primitive
from .topology import Topology, check_topology

__all__ = ["routed_link_loads", "routed_time", "routed_lower_bound", "ROUTED_FAMILIES"]

ROUTED_FAMILIES = ("ring", "torus", "mesh")


def _grid(topology: Topology) -> tuple[tuple[int, ...], bool]:
    check_topology(topology)
    if topology.family not in ROUTED_FAMILIES:
        raise ValueError(
            f"topology: routed timing works on {', '.join(ROUTED_FAMILIES)} (dimension-order routing), not on {topology.name}; "
            "switched networks route in one step already (ccb.simulate charges their links)"
        )
    if topology.family == "ring":
        return (topology.n,), True
    return tuple(topology.dims), topology.family == "torus"


def _coords(ranks: np.ndarray, dims: tuple[int, ...]) -> list[np.ndarray]:
    out, rest = [], ranks.copy()
    for size in reversed(dims):
        out.append(rest % size)
        rest //= size
    return out[::-1]


def _round_link_load(src, dst, volume, dims, periodic) -> float:
    """Largest bytes on one directed link when messages (src, dst, volume) are routed."""
    n_dims = len(dims)
    n = int(np.prod(dims))
    keep = (src != dst) & (volume > 0)
    src, dst, volume = src[keep], dst[keep], volume[keep].astype(float)
    if src.size == 0:
        return 0.0
    cur = _coords(src, dims)
    target = _coords(dst, dims)
    load = np.zeros(n * n_dims * 2)
    strides = [int(np.prod(dims[k + 1 :])) for k in range(n_dims)]
    for k, size in enumerate(dims):
        delta = target[k] - cur[k]
        if periodic and size > 2:
            delta = delta % size
            delta = np.where(delta > size / 2, delta - size, delta)
            tie = (size % 2 == 0) & (np.abs(delta) * 2 == size)
            if np.any(tie):  # equally short both ways: half the bytes each way
                extra = np.nonzero(tie)[0]
                cur = [np.concatenate([c, c[extra]]) for c in cur]
                target = [np.concatenate([t, t[extra]]) for t in target]
                volume = np.concatenate([np.where(tie, volume / 2, volume), volume[extra] / 2])
                delta = np.concatenate([delta, -delta[extra]])
        step = np.sign(delta).astype(np.int64)
        hops = np.abs(delta)
        rank = sum(c * st for c, st in zip(cur, strides))
        for h in range(int(hops.max(initial=0))):
            moving = hops > h
            position = (cur[k] + step * h) % size
            node = rank + (position - cur[k]) * strides[k]
            link = (node * n_dims + k) * 2 + (step > 0)
            load += np.bincount(link[moving], weights=volume[moving], minlength=load.size)
        cur[k] = target[k].copy()
    return float(load.max())


def routed_link_loads(schedule, topology) -> np.ndarray:
    """Bytes on the busiest directed link in each round of ``schedule`` routed on ``topology``.

    ``schedule`` is a :class:`~ccb_helpers.schedule.Schedule` or a
    :class:`~ccb_helpers.simulator.SimulationResult`; its ranks are the topology's nodes (row-major
    coordinates, as :func:`ccb_helpers.torus` numbers them).

    >>> from ccb_helpers.generators import generate
    >>> from ccb_helpers.topology import ring
    >>> routed_link_loads(generate("recursive_doubling", "all_gather", 8, 800), ring(8)).tolist()
    [100.0, 400.0, 800.0]
    """
    from .schedule import Schedule
    from .simulator import SimulationResult

    dims, periodic = _grid(topology)
    if isinstance(schedule, SimulationResult):
        schedule = schedule.schedule
    if not isinstance(schedule, Schedule):
        raise TypeError(f"schedule must be a Schedule or a SimulationResult, got {type(schedule).__name__}")
    if schedule.n != topology.n:
        raise ValueError(f"the schedule has n={schedule.n} but {topology.name} has {topology.n} nodes")
    n = schedule.n
    out = np.zeros(len(schedule.rounds))
    for i, r in enumerate(schedule.rounds):
        remote = r.src != r.dst
        if not np.any(remote):
            continue
        keys, inverse = np.unique(r.src[remote] * n + r.dst[remote], return_inverse=True)
        volume = np.bincount(inverse, weights=r.length[remote])
        out[i] = _round_link_load(keys // n, keys % n, volume, dims, periodic)
    return out


def routed_time(schedule, topology, alpha, beta) -> float:
    """Seconds of a schedule with routed messages: ``Σ (α + busiest link's bytes / β)`` (``eq:cc-routed-round``).

    >>> from ccb_helpers.generators import generate
    >>> from ccb_helpers.topology import ring
    >>> routed_time(generate("recursive_doubling", "all_gather", 8, 800), ring(8), 0.0, 1.0)
    1300.0
    """
    alpha = check_seconds("alpha", alpha, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    loads = routed_link_loads(schedule, topology)
    return float(loads.size * alpha + loads.sum() / beta)


def routed_lower_bound(primitive, topology, m, alpha, beta) -> float:
    """Lower bound with routed messages: ``ceil(log_{d+1} N) α + max(bisection, endpoint)``.

    >>> from ccb_helpers.topology import ring
    >>> routed_lower_bound("all_reduce", ring(8), 800, 0.0, 1.0)   # M over the 2 cut links each way; 7/4 M over 2 links
    700.0
    """
    primitive = check_primitive(primitive)
    _grid(topology)
    m = check_size("m", m, scalar=True)
    alpha = check_seconds("alpha", alpha, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    n, d = topology.n, max(topology.degree, 1)
    if n == 1:
        return 0.0
    rounds = int(ceil_log(n, d + 1))
    bandwidth = max(
        float(_bisection_lower_bound(primitive, topology, m, beta)),
        float(_bandwidth_lower_bound(primitive, n, m, beta, d, d)),
    )
    return rounds * alpha + bandwidth
