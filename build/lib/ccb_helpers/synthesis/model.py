"""The synthesis instance: primitives, chunks, the network view, argument checks and caps.

Everything the other modules of :mod:`ccb_helpers.synthesis` share: the caps of a call, the
chunks of a non-combining collective (:class:`_Chunk`), the encoding's view of a topology
(:class:`_Network`: arcs between endpoints and the capacity groups over them), the checks of
``topology``, ``(S, R, C)`` and ``time_limit``, the deadline clock, and the two exceptions.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import networkx as nx
import numpy as np

from .._validation import check_int, check_real
from ..primitives import PRIMITIVES
from ..topology import Topology

#: Primitives :func:`synthesize` handles (every primitive of the book).
SYNTHESIS_PRIMITIVES = PRIMITIVES
_NON_COMBINING = ("all_gather", "broadcast", "scatter", "gather", "all_to_all")
_DUAL = {"reduce_scatter": "all_gather", "reduce": "broadcast"}
#: Largest encoding accepted (send variables, estimated before building it): building one near
#: 300,000 took 25 s before the solver started; near 50,000 it takes a few seconds. The stored
#: schedules need at most 7,776.
MAX_SEND_VARIABLES = 50_000
#: Memory budget of one :func:`synthesize` call, bytes. The CP-SAT model and its workers live
#: outside Python's allocator, so the estimate is of the resident set: per estimated send variable
#: (the encoding, the model, and a copy per worker) and per worker (its thread and arena).
#: Measured at the cap (DGX-1 AllToAll, 49,152 variables): 902 bytes a variable with one worker,
#: 1,624 with 4, 4,023 with 16 (tests/test_memory_caps.py). At the caps (50,000 variables, 64
#: workers) the estimate is 1.6 GB.
MAX_SYNTHESIS_BYTES = 2 * 2**30
_BYTES_PER_VARIABLE = 1024
_BYTES_PER_VARIABLE_AND_WORKER = 320
_BYTES_PER_WORKER = 8 * 2**20
#: Longest time limit one solver call may be given, seconds.
MAX_TIME_LIMIT = 3600.0
#: Largest topology the cut bound enumerates (2**n node sets).
MAX_BOUND_ENDPOINTS = 20
#: Largest topology any function of this module accepts (the steps bound measures all-pairs hop
#: distances: an ``n x n`` table, about 3 s for a ring of 1024 here).
MAX_SYNTHESIS_ENDPOINTS = 1024


class SynthesisTimeout(TimeoutError, ValueError):
    """The solver hit its time limit before deciding the instance (neither a schedule nor a proof).

    Also a :class:`ValueError`: like every cap of the package, the limit is an argument
    (``time_limit``), and the message names it."""


class SolverError(RuntimeError):
    """The solver rejected the model (``MODEL_INVALID``): a bug of the encoding, never "unknown" or "infeasible"."""


# --------------------------------------------------------------------------- collectives


@dataclass(frozen=True)
class _Chunk:
    """One chunk of a non-combining collective: its source node and the nodes that need it."""

    source: int
    needed_by: frozenset
    label: tuple  # (owner or source, destination or -1, piece)


def _chunks(primitive: str, n: int, chunks: int, root: int) -> list[_Chunk]:
    everyone = frozenset(range(n))
    if primitive == "all_gather":
        return [_Chunk(i, everyone, (i, -1, j)) for i in range(n) for j in range(chunks)]
    if primitive == "broadcast":
        return [_Chunk(root, everyone, (root, -1, j)) for j in range(chunks)]
    if primitive == "scatter":
        return [_Chunk(root, frozenset({t}), (root, t, j)) for t in range(n) for j in range(chunks)]
    if primitive == "gather":
        return [_Chunk(s, frozenset({root}), (s, root, j)) for s in range(n) for j in range(chunks)]
    # all_to_all
    return [_Chunk(s, frozenset({t}), (s, t, j)) for s in range(n) for t in range(n) for j in range(chunks)]


# --------------------------------------------------------------------------- topology view


@dataclass(frozen=True)
class _Network:
    """What the encoding needs: directed arcs between endpoints and capacity groups over them.

    ``peers``: groups of arcs of which at most ``limit`` may carry anything in one step (through a
    switch an endpoint with ``b`` links sends to, and receives from, at most ``b`` peers a step: a
    step is one round of the book, #37). ``fan``: the most peers one node reaches in a step.
    """

    n: int
    arcs: tuple  # ((u, v), ...)
    groups: tuple  # ((arc indices), multiplicity)
    hops: np.ndarray | None  # (n, n) rounds-distance between endpoints (None when not measured)
    peers: tuple = ()  # ((arc indices), limit)
    fan: int = 1


def _network(
    topology: Topology, hops: bool = True, deadline: float = math.inf, time_limit: float = math.inf
) -> _Network:
    """The encoding's view of ``topology``; ``hops=False`` skips the all-pairs distances (cut bound).

    With a ``deadline`` the all-pairs distances (one BFS per endpoint: about 1 s for a hypercube
    of 1024, where a 0.05 s limit overran 20-fold, #28) look at the clock after every source.
    """
    from ..user_topology import _is_single_switch, _link_matrix, endpoint_uplinks

    n = topology.n
    if not topology.switched:
        matrix = _link_matrix(topology)
        _check_deadline(deadline, time_limit, "building the network (links)")
        arcs = tuple((int(u), int(v)) for u, v in zip(*np.nonzero(matrix)))
        _check_deadline(deadline, time_limit, "building the network (arcs)")
        groups = tuple(((k,), int(matrix[u, v])) for k, (u, v) in enumerate(arcs))
        table = None
        if hops:
            table = np.full((n, n), np.iinfo(np.int64).max // 4, dtype=np.int64)
            for s in range(n):
                _check_deadline(deadline, time_limit, "building the network (hop distances)")
                lengths = nx.single_source_shortest_path_length(topology.graph, s)
                ends = [t for t in lengths if isinstance(t, int) and not isinstance(t, bool) and t < n]
                table[s, ends] = [lengths[t] for t in ends]
        fan = int(np.count_nonzero(matrix, axis=1).max(initial=1))  # distinct neighbours
        return _Network(n, arcs, groups, table, (), fan)
    if not _is_single_switch(topology):
        raise ValueError(
            f"synthesis works on direct networks and single switches; {topology.name} has several switch levels"
        )
    ups = endpoint_uplinks(topology)
    arcs = tuple((u, v) for u in range(n) for v in range(n) if u != v)
    index = {a: k for k, a in enumerate(arcs)}
    groups = tuple((tuple(index[(u, v)] for v in range(n) if v != u), int(ups[u])) for u in range(n)) + tuple(
        (tuple(index[(u, v)] for u in range(n) if u != v), int(ups[v])) for v in range(n)
    )
    table = np.ones((n, n), dtype=np.int64) - np.eye(n, dtype=np.int64)  # one step through the switch
    # One message per link and step, as on a direct network where a link joins one pair: with
    # b < n - 1 links an endpoint reaches at most b peers in a step (the groups above count chunks).
    peers = tuple((arcs_of, limit) for arcs_of, limit in groups if limit < n - 1)
    fan = int(min(ups.max(), n - 1))
    return _Network(n, arcs, groups, table, peers, fan)


# --------------------------------------------------------------------------- validation


def _check_topology(topology, connected: bool = True) -> Topology:
    """A Topology of 2 to :data:`MAX_SYNTHESIS_ENDPOINTS` endpoints; ``connected`` also builds its
    graph to check it is connected (:func:`synthesize` does that later, under its time limit)."""
    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology (e.g. ccb.dgx1()), got {type(topology).__name__}")
    if topology.n < 2:
        raise ValueError(f"synthesis needs at least 2 nodes, got {topology.name} with n={topology.n}")
    if topology.n > MAX_SYNTHESIS_ENDPOINTS:
        raise ValueError(
            f"topology has n={topology.n} nodes; synthesis and its bounds accept n <= {MAX_SYNTHESIS_ENDPOINTS}"
        )
    if connected:
        _check_connected(topology)
    return topology


def _check_connected(topology: Topology) -> None:
    if not nx.is_connected(topology.graph):
        raise ValueError(f"{topology.name} is disconnected: no collective can complete on it")


def _check_instance(steps, rounds, chunks):
    steps = check_int("steps", steps, minimum=1, maximum=64, scalar=True)
    rounds = check_int("rounds", rounds, minimum=1, maximum=4096, scalar=True)
    chunks = check_int("chunks", chunks, minimum=1, maximum=64, scalar=True)
    if rounds < steps:
        raise ValueError(
            f"rounds must be >= steps (every step takes at least one round), got rounds={rounds} < steps={steps}"
        )
    return steps, rounds, chunks


def _check_time_limit(time_limit) -> float:
    time_limit = check_real("time_limit", time_limit, minimum=0.0, strict=True, scalar=True)
    if time_limit > MAX_TIME_LIMIT:
        raise ValueError(f"time_limit must be <= {MAX_TIME_LIMIT:g} s, got {time_limit:g}")
    return time_limit


def _check_deadline(deadline: float, time_limit: float, what: str) -> float:
    """Seconds left before ``deadline``; :class:`SynthesisTimeout` if none (the limit covers the whole call)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise SynthesisTimeout(
            f"time_limit={time_limit:g} s reached while {what}, before the solver decided; raise time_limit"
        )
    return left
