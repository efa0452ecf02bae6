"""Synthesizing schedules that provably meet (or cannot meet) a latency/bandwidth target.

The model is the one of Cai et al., "Synthesizing Optimal Collective Algorithms" (PPoPP 2021,
the SCCL tool), encoded here in our own way. A collective on ``n`` nodes is cut into **chunks**
(``C`` per node's block); a schedule is ``S`` **steps**; in each step every link carries chunks
in parallel, and step ``s`` may take ``r_s >= 1`` **rounds**: a link of multiplicity ``b`` then
carries at most ``b * r_s`` chunks. With ``R = sum(r_s)`` the time is

.. math:: T = S\\,\\alpha + \\frac{R}{C}\\,u\\,\\beta^{-1}
   :label: eq:cc-synth-cost

where ``u`` is the bytes a node contributes (``M/N``; ``M`` for Broadcast / Reduce) and ``β`` is the
bandwidth of one link in bytes/s. ``S`` is the latency cost (the book's rounds), ``R/C`` the
bandwidth cost (rounds per chunk).

* :func:`steps_lower_bound` — the farthest source–destination pair (``eq:cc-synth-steps``);
* :func:`rounds_per_chunk_bound` — the best cut: chunks that must enter a node set over the links
  entering it (``eq:cc-synth-rounds``), an exact :class:`fractions.Fraction`;
* :func:`synthesize` — a :class:`~ccb_helpers.schedule.Schedule` meeting ``(S, R, C)``, or ``None``
  when the solver **proves** that no schedule does; a time-out raises :class:`SynthesisTimeout`;
* :func:`pareto_frontier` — the Pareto-optimal ``(S, R, C)`` points, from the fewest steps until
  the rounds bound is met.

The encoding: boolean ``x[c, u, v, s]`` = chunk ``c`` crosses link ``u -> v`` in step ``s``; a node
holds ``c`` after step ``s`` iff it started with it or received it in a step ``<= s`` (each node
receives each chunk at most once, so holding is a linear sum); a node sends only what it holds;
every destination receives; per step and link ``sum_c x <= b * r_s``; ``sum_s r_s <= R``. The
solver is OR-Tools CP-SAT (chosen by measurement: ``benchmarks/bench_synthesis.py``).

Reductions are the reverse of their non-combining duals (ReduceScatter = AllGather backwards with
additions, Reduce = Broadcast backwards); AllReduce is ReduceScatter followed by AllGather.
"""

from __future__ import annotations

import contextlib
import gc
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

import networkx as nx
import numpy as np

from ._validation import check_bool, check_cap, check_choice, check_int, check_real
from .primitives import PRIMITIVES
from .schedule import Round, Schedule, block_bounds, buffers_for
from .topology import Topology

__all__ = [
    "SYNTHESIS_PRIMITIVES",
    "SynthesisTimeout",
    "SolverError",
    "FrontierPoint",
    "steps_lower_bound",
    "rounds_per_chunk_bound",
    "synthesize",
    "pareto_frontier",
    "verify_synthesized",
    "synthesized_time",
    "MAX_SEND_VARIABLES",
    "MAX_SYNTHESIS_BYTES",
    "MAX_TIME_LIMIT",
    "MAX_SYNTHESIS_ENDPOINTS",
    "stored_schedules",
    "stored_schedule",
    "stored_frontier",
]

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


class FrontierPoint(NamedTuple):
    """One Pareto-optimal instance: ``steps`` (latency), ``rounds / chunks`` (bandwidth) and its schedule."""

    steps: int
    rounds: int
    chunks: int
    schedule: Schedule

    @property
    def rounds_per_chunk(self) -> Fraction:
        return Fraction(self.rounds, self.chunks)


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
    """What the encoding needs: directed arcs between endpoints and capacity groups over them."""

    n: int
    arcs: tuple  # ((u, v), ...)
    groups: tuple  # ((arc indices), multiplicity)
    hops: np.ndarray | None  # (n, n) rounds-distance between endpoints (None when not measured)


def _network(
    topology: Topology, hops: bool = True, deadline: float = math.inf, time_limit: float = math.inf
) -> _Network:
    """The encoding's view of ``topology``; ``hops=False`` skips the all-pairs distances (cut bound).

    With a ``deadline`` the all-pairs distances (one BFS per endpoint: about 1 s for a hypercube
    of 1024, where a 0.05 s limit overran 20-fold, #28) look at the clock after every source.
    """
    from .user_topology import _is_single_switch, _link_matrix, endpoint_uplinks

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
        return _Network(n, arcs, groups, table)
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
    return _Network(n, arcs, groups, table)


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


# --------------------------------------------------------------------------- bounds


def steps_lower_bound(topology, primitive, root=0) -> int:
    """Fewest steps any schedule needs: the farthest pair (source, node that needs its data).

    ``eq:cc-synth-steps``: :math:`S \\ge \\max_{c} \\max_{v \\in \\mathrm{post}(c)} \\mathrm{dist}(\\mathrm{src}(c), v)`.
    A chunk moves one hop per step; through a switch one step reaches any endpoint. For the
    all-to-all primitives this is the diameter; for the rooted ones the root's eccentricity.

    Parameters
    ----------
    topology : Topology
    primitive : str
        One of :data:`SYNTHESIS_PRIMITIVES`.
    root : int, default 0
        Root of a rooted primitive.

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> steps_lower_bound(ccb.ring(8), "all_gather"), steps_lower_bound(ccb.dgx1(), "all_gather")
    (4, 2)
    >>> steps_lower_bound(ccb.mesh(3, 3), "broadcast", root=4)   # the centre: 2 hops to a corner
    2
    """
    topology = _check_topology(topology)
    primitive = check_choice("primitive", primitive, SYNTHESIS_PRIMITIVES)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1, scalar=True)
    hops = _network(topology).hops
    if primitive in ("all_gather", "reduce_scatter", "all_reduce", "all_to_all"):
        return int(hops.max())
    return int(hops[root].max())


def _cut_bound(net: _Network, primitive: str, root: int) -> Fraction:
    """max over node sets X of (chunks, per chunk of a block, that must enter X) / (links entering X).

    The 2**n sets are enumerated in blocks of ``_CUT_BLOCK`` (bit masks), the links entering each
    set as one matrix product per block (integers far below 2**53, so exact in floating point);
    the maximum ratio is found in floating point and then checked exactly by integer
    cross-multiplication. (A loop over arcs with a strided column per arc took 8 s at n = 20.)
    """
    n = net.n
    if n > MAX_BOUND_ENDPOINTS:
        raise ValueError(f"the cut bound enumerates all 2**n node sets; n <= {MAX_BOUND_ENDPOINTS}, got n={n}")
    bits = np.arange(n)
    direct = all(len(arcs) == 1 for arcs, _ in net.groups)
    if direct:
        links = np.zeros((n, n))  # links[u, v]: multiplicity of the arc u -> v
        for (k,), b in net.groups:
            u, v = net.arcs[k]
            links[u, v] += b
    else:
        # Single switch: the switch sits on the side that minimises the crossing: either all
        # uplinks of outside nodes or all downlinks of inside nodes are crossed.
        up = np.zeros(n)
        for arcs, b in net.groups[:n]:
            up[net.arcs[arcs[0]][0]] = b
        down = np.zeros(n)
        for arcs, b in net.groups[n:]:
            down[net.arcs[arcs[0]][1]] = b
    best = Fraction(0)
    for start in range(0, 1 << n, _CUT_BLOCK):
        masks = np.arange(start, min(start + _CUT_BLOCK, 1 << n))
        inside = ((masks[:, None] >> bits) & 1).astype(bool)  # (sets, n)
        x = inside.astype(float)
        if direct:
            # links entering X: sum over v in X, u outside X of links[u, v]
            capacity = np.rint((((1.0 - x) @ links) * x).sum(axis=1)).astype(np.int64)
        else:
            capacity = np.rint(np.minimum((1.0 - x) @ up, x @ down)).astype(np.int64)
        # Demand: chunks (one per block) whose source is outside X and that some node of X needs.
        k = inside.sum(axis=1)
        if primitive == "all_gather":
            demand = np.where(k > 0, n - k, 0)
        elif primitive == "broadcast":
            demand = (~inside[:, root] & (k > 0)).astype(np.int64)
        elif primitive == "scatter":
            demand = np.where(inside[:, root], 0, k)
        elif primitive == "gather":
            demand = np.where(inside[:, root], n - k, 0)
        elif primitive == "all_reduce":
            # X needs the sum of the outside's inputs over all N blocks: at least one chunk per piece
            # of the whole vector enters X, however the outside combines them.
            demand = np.where((k > 0) & (k < n), n, 0)
        else:  # all_to_all: pairs (s outside, t inside)
            demand = k * (n - k)
        useful = demand > 0
        if not useful.any():
            continue
        d, c = demand[useful], capacity[useful]
        if np.any(c == 0):
            raise ValueError("some chunk cannot reach a node that needs it: the topology is disconnected")
        i = int(np.argmax(d / c))
        while True:  # settle float near-ties exactly: is any d/c larger than d[i]/c[i]? (small ints)
            larger = np.nonzero(d * c[i] > d[i] * c)[0]
            if not larger.size:
                break
            i = int(larger[np.argmax(d[larger] / c[larger])])
        best = max(best, Fraction(int(d[i]), int(c[i])))
    return best


#: Node sets per block of the cut bound's enumeration (memory ~ 50 bytes x n per set).
_CUT_BLOCK = 1 << 15


def _node_bound(net: _Network) -> Fraction:
    """AllReduce's per-node bound (chapter 3): 2 (N-1) blocks in and out of every node."""
    n = net.n
    into = np.zeros(n, dtype=np.int64)
    for arcs, b in net.groups:
        targets = {net.arcs[k][1] for k in arcs}
        if len(targets) == 1:
            into[targets.pop()] += b
    return max(Fraction(2 * (n - 1), int(c)) for c in into if c > 0)


def rounds_per_chunk_bound(topology, primitive, root=0) -> Fraction:
    """Least rounds per chunk ``R/C`` any schedule needs, exact.

    ``eq:cc-synth-rounds``: for every set ``X`` of nodes, each chunk whose source lies outside
    ``X`` and that some node of ``X`` needs must cross into ``X`` at least once, and in one round
    the links entering ``X`` carry at most their total multiplicity ``cap(X)`` chunks. So

    .. math:: \\frac{R}{C} \\ge \\max_X \\frac{\\mathrm{need}(X)}{\\mathrm{cap}(X)},

    ``need`` counted per chunk of one block. This is the cut form of the flow LP's dual; every
    node set is enumerated (``n <= 20``), in integer arithmetic. On every topology the tests try
    (rings, hypercube, tori, mesh, DGX-1; AllGather, AllToAll, Broadcast) it equals the optimum of
    the multicommodity flow LP (one unit from each source to each node that needs it, multicast
    allowed), solved independently with GLOP; in general the LP can only be larger. With ``X`` a single node it is the
    chapters' per-node bound (AllGather ``(N-1)/d``, Broadcast ``1/d``, AllToAll ``(N-1)/d``).
    ReduceScatter / Reduce / Gather are the reverse of AllGather / Broadcast / Scatter (links are
    full duplex, the bound is the same). AllReduce: the larger of chapter 3's node bound
    ``2 (N-1) / d_min`` (every node receives ``2 (N-1)`` blocks) and the cut bound with
    ``need(X) = N`` for every proper ``X`` (``X`` needs the outside's sum of all ``N`` blocks: one
    chunk per piece must enter it, however the outside combines). The latter wins on graphs with a
    thin cut: two 4-cliques joined by one link need ``8`` rounds per chunk, not ``2 * 7 / 3``.

    Returns
    -------
    fractions.Fraction
        Multiply by ``u / β`` (``u = M/N``, or ``M`` for Broadcast / Reduce) for seconds.

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> rounds_per_chunk_bound(ccb.dgx1(), "all_gather")     # 7 blocks into a GPU with 6 NVLinks
    Fraction(7, 6)
    >>> rounds_per_chunk_bound(ccb.ring(8), "all_to_all")    # the bisection: 16 blocks over 2 links
    Fraction(8, 1)
    """
    topology = _check_topology(topology)
    primitive = check_choice("primitive", primitive, SYNTHESIS_PRIMITIVES)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1, scalar=True)
    if topology.n > MAX_BOUND_ENDPOINTS:  # before building anything
        raise ValueError(f"the cut bound enumerates all 2**n node sets; n <= {MAX_BOUND_ENDPOINTS}, got n={topology.n}")
    net = _network(topology, hops=False)
    if primitive == "all_reduce":
        return max(_node_bound(net), _cut_bound(net, "all_reduce", root))
    return _cut_bound(net, _DUAL.get(primitive, primitive), root)


# --------------------------------------------------------------------------- encoding


@dataclass
class _Encoding:
    """A 0-1 linear model: send variables, rounds variables, linear constraints."""

    sends: list  # (chunk index, arc index, step) per variable
    rounds_vars: list  # variable index of r_s
    num_vars: int
    lower: list
    upper: list
    constraints: list  # (list of (var, coef), lo, hi)
    chunks: list
    net: _Network
    steps: int
    rounds: int


def _prune(
    net: _Network, chunk_list: list[_Chunk], steps: int, deadline: float = math.inf, time_limit: float = math.inf
):
    """Send variables worth creating: (c, arc, s) with the sender able to hold c by step s and the
    receiver able to deliver it (be a destination, or reach one in the steps left)."""
    hops = net.hops
    out = []
    for c, ch in enumerate(chunk_list):
        _check_deadline(deadline, time_limit, "listing the send variables")
        dist_from = hops[ch.source]
        need = sorted(ch.needed_by - {ch.source})
        if not need:
            continue
        to_need = hops[:, need].min(axis=1)  # steps from v to the nearest node needing c
        for a, (u, v) in enumerate(net.arcs):
            if a % 1024 == 1023:  # one chunk may face 50,000 arcs
                _check_deadline(deadline, time_limit, "listing the send variables")
            if v == ch.source:
                continue
            for s in range(int(dist_from[u]), steps):
                if to_need[v] <= steps - 1 - s:
                    out.append((c, a, s))
    return out


def _estimate_variables(topology: Topology, primitive: str, steps: int, chunks: int, root: int) -> int:
    """Upper estimate of send variables, without building the encoding's network (building the
    arcs of ``single_switch(1024)`` alone took 7 s, #28): arcs x steps x chunks that matter."""
    n = topology.n
    if topology.switched:
        arcs = n * (n - 1)
    elif topology._graph_size is not None:  # the closed form: fully_connected(1000) took 1.5 s to build
        arcs = 2 * topology._graph_size[1]
    else:
        arcs = 2 * topology.graph.number_of_edges()
    count = {"all_gather": n, "broadcast": 1, "scatter": n, "gather": n, "all_to_all": n * n}
    return arcs * steps * chunks * count[primitive]


@contextlib.contextmanager
def _no_full_collections():
    """Hold the cyclic garbage collector off while the model is built and solved.

    Building the encoding allocates hundreds of thousands of tuples and lists, enough to start a
    full collection, which walks every object of the process: in a large process (a notebook, a
    test run) one took 0.8-1.1 s between two clock checks and broke the time limit (#28). The
    build makes no reference cycles worth collecting, and its memory is capped by
    :data:`MAX_SEND_VARIABLES`. It stays off through the solve too (turned back on there, the
    first allocation after the build could start that full collection; the solver itself makes
    no Python objects): reference counting still frees everything else, and cycles other threads
    make meanwhile are collected when the call ends, at most ``time_limit`` later. Only a
    collector that was on is turned back on, so nested or concurrent calls (explorer callbacks on
    several threads) leave it as they found it.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _check_deadline(deadline: float, time_limit: float, what: str) -> float:
    """Seconds left before ``deadline``; :class:`SynthesisTimeout` if none (the limit covers the whole call)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise SynthesisTimeout(
            f"time_limit={time_limit:g} s reached while {what}, before the solver decided; raise time_limit"
        )
    return left


def _encode(
    topology: Topology,
    primitive: str,
    steps: int,
    rounds: int,
    chunks: int,
    root: int,
    deadline: float = math.inf,
    time_limit: float = math.inf,
) -> _Encoding:
    net = _network(topology, True, deadline, time_limit)
    _check_deadline(deadline, time_limit, "building the network")
    chunk_list = _chunks(primitive, net.n, chunks, root)
    sends = _prune(net, chunk_list, steps, deadline, time_limit)
    nv = len(sends)
    lower, upper = [0] * nv, [1] * nv
    rounds_vars = list(range(nv, nv + steps))
    lower += [1] * steps
    upper += [rounds - steps + 1] * steps
    constraints = []
    incoming = {}  # (c, v) -> [(var, step)]
    by_arc_step = {}
    for i, (c, a, s) in enumerate(sends):
        if i % 1024 == 0:
            _check_deadline(deadline, time_limit, "indexing the send variables")
        u, v = net.arcs[a]
        incoming.setdefault((c, v), []).append((i, s))
        by_arc_step.setdefault((a, s), []).append(i)
    for i, (c, a, s) in enumerate(sends):
        if i % 256 == 0:
            _check_deadline(deadline, time_limit, "encoding the relay constraints")
        u, _ = net.arcs[a]
        if u == chunk_list[c].source:
            continue
        # u must hold c at the start of step s: it received c in an earlier step.
        earlier = [(j, -1) for j, s2 in incoming.get((c, u), []) if s2 < s]
        constraints.append(([(i, 1)] + earlier, -math.inf, 0))
    _check_deadline(deadline, time_limit, "encoding the relay constraints")
    for c, ch in enumerate(chunk_list):
        _check_deadline(deadline, time_limit, "encoding the delivery constraints")
        for v in range(net.n):
            if v == ch.source:
                continue
            terms = [(j, 1) for j, _ in incoming.get((c, v), [])]
            if v in ch.needed_by:
                if not terms:
                    constraints.append(([], 1, 1))  # infeasible: nothing can bring c to v in time
                else:
                    constraints.append((terms, 1, 1))
            elif len(terms) > 1:
                constraints.append((terms, 0, 1))
    for s in range(steps):
        for g, (arcs, b) in enumerate(net.groups):
            if g % 256 == 0:
                _check_deadline(deadline, time_limit, "encoding the link constraints")
            terms = [(i, 1) for a in arcs for i in by_arc_step.get((a, s), [])]
            if len(terms) > b:  # with fewer sends than links the limit cannot bind
                constraints.append((terms + [(rounds_vars[s], -b)], -math.inf, 0))
    constraints.append(([(r, 1) for r in rounds_vars], steps, rounds))
    _check_deadline(deadline, time_limit, "encoding the link constraints")
    return _Encoding(sends, rounds_vars, nv + steps, lower, upper, constraints, chunk_list, net, steps, rounds)


class SolverError(RuntimeError):
    """The solver rejected the model (``MODEL_INVALID``): a bug of the encoding, never "unknown" or "infeasible"."""


def _solve_cpsat(enc: _Encoding, time_limit: float, workers: int = 1, seed: int = 0, deadline: float | None = None):
    """("sat", values) | ("unsat", None) | ("unknown", None) from OR-Tools CP-SAT.

    Only ``INFEASIBLE`` is a proof ("unsat"); ``UNKNOWN`` (time limit reached) is "unknown";
    ``MODEL_INVALID`` raises :class:`SolverError` (it must never read as either). With a
    ``deadline`` (``time.monotonic()``), the solver gets what is left of ``time_limit`` after
    building the model.
    """
    from ortools.sat.python import cp_model

    if deadline is None:
        deadline = time.monotonic() + time_limit
    model = cp_model.CpModel()
    x = []
    for i, (lo, hi) in enumerate(zip(enc.lower, enc.upper)):
        if i % 1024 == 0:
            _check_deadline(deadline, time_limit, "building the CP-SAT model")
        x.append(model.NewIntVar(lo, hi, ""))
    for k, (terms, lo, hi) in enumerate(enc.constraints):
        if k % 256 == 0:
            _check_deadline(deadline, time_limit, "building the CP-SAT model")
        # WeightedSum builds one linear expression (a Python sum of products made one per term).
        expr = cp_model.LinearExpr.WeightedSum([x[v] for v, _ in terms], [coef for _, coef in terms]) if terms else 0
        if not terms:
            if not (lo <= 0 <= hi):
                return "unsat", None
            continue
        if lo == hi:
            model.Add(expr == lo)
        else:
            if lo != -math.inf:
                model.Add(expr >= int(lo))
            if hi != math.inf:
                model.Add(expr <= int(hi))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = _check_deadline(deadline, time_limit, "building the CP-SAT model")
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    status = solver.Solve(model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return "sat", [solver.Value(v) for v in x]
    if status == cp_model.INFEASIBLE:
        return "unsat", None
    if status == cp_model.UNKNOWN:
        return "unknown", None
    raise SolverError(
        f"CP-SAT returned {solver.StatusName(status)} ({model.Validate() or 'no detail'}): the encoding is at fault"
    )


# --------------------------------------------------------------------------- decoding


def _decode(enc: _Encoding, values) -> tuple[list[list[tuple[int, int, int]]], list[int]]:
    """Per step, the sends ``(chunk, u, v)``; dead relays (received, never needed nor forwarded) pruned."""
    net, chunk_list = enc.net, enc.chunks
    chosen = sorted(
        ((s, c, net.arcs[a][0], net.arcs[a][1]) for i, (c, a, s) in enumerate(enc.sends) if values[i]), reverse=True
    )
    # A relay is dead when its receiver neither needs the chunk nor forwards it in a later step
    # by a live send. Whether a send lives depends only on later steps, so one pass from the last
    # step back finds what the fixed point of repeated pruning found (that was quadratic in the
    # sends, after the solver, outside the time limit).
    last_forward = {}  # (chunk, node) -> latest step of a live send of chunk from node
    active = set()
    for s, c, u, v in chosen:
        if v in chunk_list[c].needed_by or last_forward.get((c, v), -1) > s:
            active.add((c, u, v, s))
            last_forward[(c, u)] = max(last_forward.get((c, u), -1), s)
    per_step = [[] for _ in range(enc.steps)]
    for c, u, v, s in sorted(active):
        per_step[s].append((c, u, v))
    rounds_used = [int(values[r]) for r in enc.rounds_vars]
    return per_step, rounds_used


def _layout(primitive: str, n: int, m: int, chunks: int):
    """Byte range (offset, length) of every chunk label in the data / send buffers, and chunk_bytes."""
    parts = chunks if primitive == "broadcast" else n * chunks
    bounds = block_bounds(m, n, parts)
    lengths = np.diff(bounds)
    return bounds, lengths, int(lengths.max()) if lengths.size else 0


def _to_schedule(
    primitive: str, n: int, m: int, chunks: int, root: int, per_step, rounds_used, chunk_list, algorithm: str
) -> Schedule:
    bounds, lengths, chunk_bytes = _layout(primitive, n, m, chunks)
    buffers = buffers_for(primitive)
    prologue = Round.empty()
    work_size = None
    if primitive != "all_to_all":
        rounds = []
        for sends in per_step:
            if not sends:
                rounds.append(Round.empty())
                continue
            c, u, v = (np.array(col, dtype=np.int64) for col in zip(*sends))
            if primitive == "broadcast":
                piece = np.array([chunk_list[k].label[2] for k in c])
            elif primitive in ("all_gather", "gather"):
                piece = np.array([chunk_list[k].label[0] * chunks + chunk_list[k].label[2] for k in c])
            else:  # scatter: the destination's block
                piece = np.array([chunk_list[k].label[1] * chunks + chunk_list[k].label[2] for k in c])
            rounds.append(Round(u, v, bounds[piece], lengths[piece]))
    else:
        # AllToAll: chunk (s, t, j) leaves s's send buffer at block t and lands in t's recv buffer at
        # block s; relays park it in their work buffer, in slots reused once the chunk moved on.
        send, recv, work = 0, 1, 2
        arrive, depart = {}, {}
        for step, sends in enumerate(per_step):
            for c, u, v in sends:
                arrive[(c, v)] = step
                depart[(c, u)] = step
        slot_of, free_at = {}, {}
        for (c, v), a in sorted(arrive.items(), key=lambda kv: kv[1]):
            if v == chunk_list[c].label[1]:
                continue
            d = depart[(c, v)]
            slots = free_at.setdefault(v, [])
            for k, until in enumerate(slots):
                if until <= a:
                    slots[k] = d
                    slot_of[(c, v)] = k
                    break
            else:
                slots.append(d)
                slot_of[(c, v)] = len(slots) - 1
        most = max((len(s) for s in free_at.values()), default=0)
        if most * chunk_bytes > m:
            work_size = most * chunk_bytes
        rounds = []
        for sends in per_step:
            cols = []
            for c, u, v in sends:
                s0, t, j = chunk_list[c].label
                if u == s0:
                    src_buf, src_off = send, bounds[t * chunks + j]
                else:
                    src_buf, src_off = work, slot_of[(c, u)] * chunk_bytes
                if v == t:
                    dst_buf, dst_off = recv, bounds[s0 * chunks + j]
                else:
                    dst_buf, dst_off = work, slot_of[(c, v)] * chunk_bytes
                cols.append((u, v, src_off, lengths[t * chunks + j], src_buf, dst_off, dst_buf))
            if not cols:
                rounds.append(Round.empty())
                continue
            u, v, off, ln, sb, do, db = (np.array(col, dtype=np.int64) for col in zip(*cols))
            rounds.append(Round(u, v, off, ln, False, sb, do, db))
        buffers = buffers + ("work",)
        nodes = np.arange(n)
        blocks = bounds[::chunks]
        prologue = Round(
            nodes, nodes, blocks[nodes], blocks[nodes + 1] - blocks[nodes], False, send, blocks[nodes], recv
        )
    return Schedule(
        primitive,
        n,
        m,
        rounds,
        buffers,
        root,
        algorithm,
        prologue,
        Round.empty(),
        step_rounds=tuple(rounds_used),
        chunk_bytes=chunk_bytes,
        work_size=work_size,
    )


def _reverse_schedule(schedule: Schedule, primitive: str) -> Schedule:
    return Schedule(
        primitive,
        schedule.n,
        schedule.m,
        [r.reversed(True) for r in reversed(schedule.rounds)],
        schedule.buffers,
        schedule.root,
        schedule.algorithm,
        step_rounds=tuple(reversed(schedule.step_rounds)),
        chunk_bytes=schedule.chunk_bytes,
        work_size=schedule.work_size,
    )


# --------------------------------------------------------------------------- public API


def _synthesis_memory(variables: int, workers: int) -> int:
    """Estimated peak resident bytes of one solve with ``variables`` send variables and ``workers``."""
    per_variable = _BYTES_PER_VARIABLE + _BYTES_PER_VARIABLE_AND_WORKER * workers
    return variables * per_variable + _BYTES_PER_WORKER * workers


def _check_model_size(topology, primitive, steps, chunks, root, workers=1) -> None:
    estimate = _estimate_variables(topology, primitive, steps, chunks, root)
    if estimate > MAX_SEND_VARIABLES:
        raise ValueError(
            f"instance too large: about {estimate} send variables (chunks x arcs x steps), cap {MAX_SEND_VARIABLES}; "
            f"use fewer steps or chunks"
        )
    check_cap(
        f"synthesize with {estimate} send variables and workers={workers}: memory",
        _synthesis_memory(estimate, workers),
        MAX_SYNTHESIS_BYTES,
        "bytes",
        hint="use fewer steps, chunks or workers",
    )


def _solve_non_combining(topology, primitive, steps, rounds, chunks, root, m, time_limit, workers, deadline=None):
    _check_model_size(topology, primitive, steps, chunks, root, workers)
    deadline = time.monotonic() + time_limit if deadline is None else deadline
    found = _solve_sends(topology, primitive, steps, rounds, chunks, root, time_limit, workers, deadline)
    if found is None:
        return None
    per_step, rounds_used, chunk_list = found
    name = f"synthesized S={steps} R={rounds} C={chunks}"
    return _to_schedule(primitive, topology.n, m, chunks, root, per_step, rounds_used, chunk_list, name)


def _solve_sends(topology, primitive, steps, rounds, chunks, root, time_limit, workers=1, deadline=None):
    """(sends per step, rounds per step, chunk list), or None if proved infeasible; raises on time-out."""
    deadline = time.monotonic() + time_limit if deadline is None else deadline
    enc = _encode(topology, primitive, steps, rounds, chunks, root, deadline, time_limit)
    status, values = _solve_cpsat(enc, time_limit, workers=workers, deadline=deadline)
    if status == "unknown":
        raise SynthesisTimeout(
            f"CP-SAT reached time_limit={time_limit:g} s on {primitive} steps={steps} rounds={rounds} chunks={chunks} "
            f"on {topology.name} without a schedule or a proof; raise time_limit"
        )
    if status == "unsat":
        return None
    per_step, rounds_used = _decode(enc, values)
    return per_step, rounds_used, enc.chunks


def synthesize(topology, primitive, steps, rounds, chunks, *, time_limit, root=0, m=None, workers=1):
    """A schedule with ``steps`` steps, at most ``rounds`` rounds and ``chunks`` chunks per block, or a proof there is none.

    Parameters
    ----------
    topology : Topology
        A direct network (parallel links = capacity) or a single switch.
    primitive : str
        One of :data:`SYNTHESIS_PRIMITIVES`.
    steps, rounds, chunks : int
        The instance ``(S, R, C)``: ``1 <= S <= 64``, ``S <= R <= 4096``, ``1 <= C <= 64``.
        AllReduce splits them evenly between ReduceScatter and AllGather (``S`` and ``R`` even).
    time_limit : float
        Seconds the whole call may spend, ``0 < time_limit <= 3600`` (required: nothing runs
        away): building the graph, the network and the model counts, the solver gets what is
        left; the call ends within about 0.1 s of the limit (measured by a test on 1024-endpoint
        topologies). Not counted: loading OR-Tools, once per process (about 1.5 s).
    workers : int, default 1
        CP-SAT search workers, 1 to 64. Each holds its own copy of the model: the memory estimate
        (per send variable and per worker) must stay within :data:`MAX_SYNTHESIS_BYTES`.
    root : int, default 0
        Root of a rooted primitive.
    m : int, optional
        Buffer size of the returned schedule in bytes (default: one byte per chunk piece,
        ``n * chunks``, or ``chunks`` for Broadcast / Reduce).

    Returns
    -------
    Schedule or None
        The schedule (``step_rounds`` = rounds each step uses, ``chunk_bytes`` = the chunk size),
        runnable in :func:`ccb_helpers.run_schedule` with ``topology``; ``None`` only when the
        solver proved that no schedule meets the instance.

    Raises
    ------
    SynthesisTimeout
        ``time_limit`` ran out (while building the model or solving) without a decision.
    ValueError
        Unknown primitive, ``rounds < steps``, ``chunks < 1``, a disconnected topology, or an
        encoding above :data:`MAX_SEND_VARIABLES` (estimated before building it).

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> s = synthesize(ccb.ring(4), "all_gather", 2, 2, 1, time_limit=10)
    >>> s.step_rounds, ccb.run_schedule(s, ports=3, topology=ccb.ring(4)).correct
    ((1, 1), True)
    >>> synthesize(ccb.ring(4), "all_gather", 2, 2, 2, time_limit=10) is None   # R/C = 1 < 3/2
    True
    """
    topology = _check_topology(topology, connected=False)
    primitive = check_choice("primitive", primitive, SYNTHESIS_PRIMITIVES)
    steps, rounds, chunks = _check_instance(steps, rounds, chunks)
    time_limit = _check_time_limit(time_limit)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1, scalar=True)
    workers = check_int("workers", workers, minimum=1, maximum=64, scalar=True)
    n = topology.n
    default_m = chunks if primitive in ("broadcast", "reduce") else n * chunks
    m = default_m if m is None else check_int("m", m, minimum=1, maximum=1 << 30, scalar=True)
    if primitive == "all_reduce" and (steps % 2 or rounds % 2):
        raise ValueError(
            f"all_reduce is ReduceScatter + AllGather with equal halves: steps and rounds must be even, got {steps}, {rounds}"
        )
    base = {"all_reduce": "all_gather"}.get(primitive, _DUAL.get(primitive, primitive))
    # The size cap first (from the topology's closed form, nothing built), then the clock: the
    # time limit covers the network, the encoding, the model and the solver (#28: 11-42 s and
    # 0.9 GB went into building before a 0.01 s limit started).
    _check_model_size(topology, base, steps // 2 if primitive == "all_reduce" else steps, chunks, root, workers)
    from ortools.sat.python import cp_model  # noqa: F401 - loaded once per process (~1.5 s), before the clock

    deadline = time.monotonic() + time_limit
    with _no_full_collections():
        return _synthesize(topology, primitive, steps, rounds, chunks, root, m, time_limit, workers, deadline)


def _synthesize(topology, primitive, steps, rounds, chunks, root, m, time_limit, workers, deadline):
    """:func:`synthesize` on checked arguments, from the start of its clock."""
    n = topology.n
    _check_connected(topology)  # builds the graph: at most 25,000 edges under the size cap
    _check_deadline(deadline, time_limit, "building the graph")
    if primitive == "all_reduce":
        half = _solve_non_combining(
            topology, "all_gather", steps // 2, rounds // 2, chunks, root, m, time_limit, workers, deadline
        )
        if half is None:
            return None
        rs = _reverse_schedule(half, "reduce_scatter")
        return Schedule(
            "all_reduce",
            n,
            m,
            rs.rounds + half.rounds,
            half.buffers,
            root,
            f"synthesized S={steps} R={rounds} C={chunks} (ReduceScatter + AllGather)",
            step_rounds=rs.step_rounds + half.step_rounds,
            chunk_bytes=half.chunk_bytes,
            topology=topology,
        )
    if primitive in _DUAL:
        dual = _solve_non_combining(
            topology, _DUAL[primitive], steps, rounds, chunks, root, m, time_limit, workers, deadline
        )
        schedule = None if dual is None else _reverse_schedule(dual, primitive)
    else:
        schedule = _solve_non_combining(
            topology, primitive, steps, rounds, chunks, root, m, time_limit, workers, deadline
        )
    if schedule is not None:
        schedule.topology = topology  # the schedule carries its network: run_schedule(schedule) just works (#26)
    return schedule


def _check_chunk_capacity(schedule: Schedule, topology: Topology) -> None:
    """Every step: chunks (pieces) per link direction <= multiplicity x rounds of the step, in chunks.

    The simulator checks the same limit in bytes (``b * r_s * chunk_bytes``), which lets several
    short pieces share one chunk's bytes when ``m`` does not divide evenly; this counts pieces.
    """
    from .simulator import ScheduleError

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

    Every node may use all its links at once (``ports = n - 1``); ``step_rounds`` limits each link:
    in chunks (a step of ``r`` rounds sends at most ``b * r`` chunks over ``b`` parallel links,
    counted here) and in bytes (checked by :func:`ccb_helpers.run_schedule`). A violation raises
    :class:`ccb_helpers.ScheduleError`; a wrong result gives ``.correct == False``.

    >>> import ccb_helpers as ccb
    >>> s = synthesize(ccb.fully_connected(3), "all_to_all", 1, 1, 1, time_limit=10)
    >>> verify_synthesized(s, ccb.fully_connected(3)).correct
    True
    """
    from .simulator import run_schedule

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
    return run_schedule(schedule, ports=max(1, topology.n - 1), topology=topology, seed=seed)


def synthesized_time(schedule: Schedule, alpha, beta) -> float:
    """``eq:cc-synth-cost`` in seconds: ``S alpha + sum(step_rounds) * chunk_bytes / beta`` (β in bytes/s)."""
    from ._validation import check_bandwidth

    if not isinstance(schedule, Schedule):
        raise TypeError(
            f"schedule must be a Schedule (from synthesize or stored_schedule), got {type(schedule).__name__}"
        )
    alpha = check_real("alpha", alpha, maximum=1e9, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    if schedule.step_rounds is None:
        raise ValueError("schedule has no step_rounds: not a synthesized schedule")
    return len(schedule.rounds) * alpha + sum(schedule.step_rounds) * schedule.chunk_bytes / beta


def _candidate_ratios(bound: Fraction, below: Fraction, max_chunks: int, steps: int):
    """Ratios q = R/C in [bound, below) with C <= max_chunks and R >= steps, ascending."""
    out = set()
    for c in range(1, max_chunks + 1):
        r = max(steps, math.ceil(bound * c))
        while Fraction(r, c) < below:
            out.add(Fraction(r, c))
            r += 1
    return sorted(out)


def pareto_frontier(topology, primitive, max_steps, *, max_chunks=6, time_limit=60.0, root=0, workers=1, log=None):
    """Pareto-optimal ``(steps, rounds, chunks, schedule)`` points, fewest steps first.

    For ``S`` from :func:`steps_lower_bound` up to ``max_steps`` it finds the least ``R/C`` (with
    ``C <= max_chunks``) strictly below the best of fewer steps: candidate ratios are tried in
    ascending order; a ratio is rejected when every ``C`` with that ratio that divides no other
    such ``C`` is proved infeasible (a schedule with ``C`` chunks splits into one with ``kC``, so
    this covers every ``C <= max_chunks``). Every rejection is an unsatisfiability **proof**, so
    the frontier is exact for ``C <= max_chunks``. The smallest ``C`` meeting the winning ratio is
    reported. It stops when ``R/C`` reaches :func:`rounds_per_chunk_bound`.

    Parameters
    ----------
    topology, primitive, root
        As in :func:`synthesize` (AllReduce is not searched: it is ReduceScatter + AllGather).
    max_steps : int
        Largest ``S`` tried, ``<= 16``.
    max_chunks : int, default 6
        Largest ``C`` tried, ``<= 16``.
    time_limit : float, default 60
        Seconds per solver call (each call is capped; a time-out raises :class:`SynthesisTimeout`).
    log : callable, optional
        Called with one line per solver call (instance, verdict, seconds).

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> [(p.steps, p.rounds, p.chunks) for p in pareto_frontier(ccb.ring(4), "all_gather", max_steps=4, time_limit=20)]
    [(2, 3, 2)]
    """
    topology = _check_topology(topology)
    primitive = check_choice("primitive", primitive, SYNTHESIS_PRIMITIVES)
    if primitive == "all_reduce":
        raise ValueError(
            "pareto_frontier: primitive='all_reduce' is ReduceScatter + AllGather; take all_gather's frontier"
        )
    max_steps = check_int("max_steps", max_steps, minimum=1, maximum=16, scalar=True)
    max_chunks = check_int("max_chunks", max_chunks, minimum=1, maximum=16, scalar=True)
    time_limit = _check_time_limit(time_limit)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1, scalar=True)
    workers = check_int("workers", workers, minimum=1, maximum=64, scalar=True)
    if log is not None and not callable(log):
        raise TypeError(f"log must be a function taking one line of text, or None; got {type(log).__name__}")
    bound = rounds_per_chunk_bound(topology, primitive, root)
    first = steps_lower_bound(topology, primitive, root)
    frontier: list[FrontierPoint] = []
    best = None

    def attempt(s, r, c):
        start = time.perf_counter()
        schedule = synthesize(topology, primitive, s, r, c, time_limit=time_limit, root=root, workers=workers)
        if log is not None:
            log(
                f"steps={s} rounds={r} chunks={c}: {'sat' if schedule is not None else 'unsat'} ({time.perf_counter() - start:.2f} s)"
            )
        return schedule

    for s in range(first, max_steps + 1):
        if best is not None and best <= bound:
            break
        fallback = None
        below = best
        if below is None:
            # A first feasible point with one chunk: double the rounds until the steps suffice.
            r = s
            while fallback is None:
                schedule = attempt(s, r, 1)
                if schedule is not None:
                    fallback = FrontierPoint(s, r, 1, schedule)
                elif r * 2 > 4096:
                    break
                r *= 2
            if fallback is None:
                continue
            below = fallback.rounds_per_chunk
        found = None
        for q in _candidate_ratios(bound, below, max_chunks, s):
            multiples = [q.denominator * k for k in range(1, max_chunks // q.denominator + 1)]
            # A schedule with C chunks splits into one with kC: testing the multiples that divide no
            # other multiple covers every C <= max_chunks with this ratio.
            maximal = [c for c in multiples if not any(o != c and o % c == 0 for o in multiples)]
            for c in sorted(maximal, reverse=True):
                if q * c >= s:
                    schedule = attempt(s, int(q * c), c)
                    if schedule is not None:
                        found = FrontierPoint(s, int(q * c), c, schedule)
                        break
            if found is None:
                continue  # proved: no C <= max_chunks reaches q in s steps
            for c in multiples:
                if c < found.chunks and q * c >= s:
                    smaller = attempt(s, int(q * c), c)
                    if smaller is not None:
                        found = FrontierPoint(s, int(q * c), c, smaller)
                        break
            break
        point = found or fallback
        if point is not None:
            frontier.append(point)
            best = point.rounds_per_chunk
    return frontier


# --------------------------------------------------------------------------- stored certificates

#: Schedules too slow to synthesize during a book build, found by ``tools/synthesize_schedules.py``.
STORE = "data/synthesized.json"


def _topology_from_spec(spec: dict) -> Topology:
    return _cached_topology(spec["family"], tuple(spec.get("args", ())))


@lru_cache(maxsize=32)
def _cached_topology(family: str, args: tuple) -> Topology:
    from . import topology as families
    from .user_topology import dgx1

    return dgx1() if family == "dgx1" else getattr(families, family)(*args)


def _load_store() -> list:
    return _read_store()


@lru_cache(maxsize=1)
def _read_store() -> list:
    import json
    from importlib import resources

    return json.loads(resources.files("ccb_helpers").joinpath(STORE).read_text())["schedules"]


def _entry_schedule(entry: dict, m=None, primitive=None) -> tuple[Topology, Schedule]:
    """Rebuild a stored schedule; ``primitive`` may ask for the reduction dual of the stored one."""
    topology = _topology_from_spec(entry["topology"])
    primitive = entry["primitive"] if primitive is None else primitive
    chunks, root = entry["chunks"], entry.get("root", 0)
    base = _DUAL.get(primitive, primitive)
    n = topology.n
    default_m = chunks if base == "broadcast" else n * chunks
    m = default_m if m is None else m
    chunk_list = _chunks(base, n, chunks, root)
    per_step = [[tuple(send) for send in step] for step in entry["sends"]]
    schedule = _to_schedule(
        base,
        n,
        m,
        chunks,
        root,
        per_step,
        entry["step_rounds"],
        chunk_list,
        f"synthesized S={entry['steps']} R={entry['rounds']} C={chunks} (stored)",
    )
    if primitive in _DUAL:
        schedule = _reverse_schedule(schedule, primitive)
    return topology, schedule


def stored_schedules() -> list:
    """Metadata of every stored synthesized schedule: topology name, primitive, (S, R, C), solve seconds.

    >>> any(e["topology_name"] == "DGX-1 (V100)" and (e["steps"], e["rounds"], e["chunks"]) == (3, 7, 6)
    ...     for e in stored_schedules())
    True
    """
    out = []
    for entry in _load_store():
        meta = {k: v for k, v in entry.items() if k not in ("sends",)}
        meta["topology_name"] = _topology_from_spec(entry["topology"]).name
        out.append(meta)
    return out


def stored_schedule(topology, primitive, steps, chunks, rounds=None, m=None, verify=True) -> Schedule:
    """A stored synthesized schedule, rebuilt for ``m`` bytes and checked in the simulator.

    Parameters
    ----------
    topology : Topology
        Matched by name against the stored ones (DGX-1, ring 6, hypercube 3-d, torus 3x3).
    primitive : str
    steps, chunks : int
    rounds : int, optional
        Default: the fewest rounds stored for ``(steps, chunks)``.
    m : int, optional
        Bytes of the rebuilt schedule (default one byte per chunk piece).
    verify : bool, default True
        Run it in :func:`ccb_helpers.run_schedule` with the topology's link capacities and raise
        if the result is not byte-exact (a stored certificate is checked, never trusted).

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> s = stored_schedule(ccb.dgx1(), "all_gather", 3, 6)
    >>> len(s.rounds), sum(s.step_rounds)
    (3, 7)
    """
    topology = _check_topology(topology)
    primitive = check_choice("primitive", primitive, SYNTHESIS_PRIMITIVES)
    steps = check_int("steps", steps, minimum=1, maximum=64, scalar=True)
    chunks = check_int("chunks", chunks, minimum=1, maximum=64, scalar=True)
    if rounds is not None:
        rounds = check_int("rounds", rounds, minimum=1, maximum=4096, scalar=True)
    if m is not None:
        m = check_int("m", m, minimum=1, maximum=1 << 30, scalar=True)
    verify = check_bool("verify", verify)
    base = _DUAL.get(primitive, primitive)  # ReduceScatter / Reduce: the stored dual, reversed
    matches = [
        e
        for e in _load_store()
        if _topology_from_spec(e["topology"]).name == topology.name
        and e["primitive"] == base
        and e["steps"] == steps
        and e["chunks"] == chunks
        and (rounds is None or e["rounds"] == rounds)
    ]
    if not matches:
        raise ValueError(
            f"no stored schedule for {primitive} on {topology.name} with steps={steps}, chunks={chunks}"
            + (f", rounds={rounds}" if rounds is not None else "")
            + "; see ccb.stored_schedules()"
        )
    entry = min(matches, key=lambda e: e["rounds"])
    stored_topology, schedule = _entry_schedule(entry, m, primitive)
    schedule.topology = stored_topology
    if verify:
        result = verify_synthesized(schedule, stored_topology)
        if not result.correct:
            raise ValueError(f"stored schedule {schedule.algorithm} is wrong: {result.errors[:3]}")
    return schedule


def stored_frontier(topology, primitive) -> list:
    """The stored Pareto frontier of ``primitive`` on ``topology`` (``FrontierPoint`` list, verified).

    >>> import ccb_helpers as ccb
    >>> [(p.steps, p.rounds, p.chunks) for p in stored_frontier(ccb.dgx1(), "all_gather")]
    [(2, 3, 2), (3, 7, 6)]
    """
    topology = _check_topology(topology)
    primitive = check_choice("primitive", primitive, SYNTHESIS_PRIMITIVES)
    points = [
        e
        for e in _load_store()
        if e.get("frontier")
        and e["primitive"] == _DUAL.get(primitive, primitive)
        and _topology_from_spec(e["topology"]).name == topology.name
    ]
    if not points:
        raise ValueError(f"topology, primitive: no stored frontier for {primitive} on {topology.name}")
    return [
        FrontierPoint(
            e["steps"],
            e["rounds"],
            e["chunks"],
            stored_schedule(topology, primitive, e["steps"], e["chunks"], e["rounds"]),
        )
        for e in sorted(points, key=lambda e: e["steps"])
    ]
