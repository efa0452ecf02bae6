"""The 0-1 encoding of an instance ``(S, R, C)`` and its solve by OR-Tools CP-SAT, with the size caps."""

from __future__ import annotations

import contextlib
import gc
import math
import time
from dataclasses import dataclass

from .._validation import check_cap
from ..topology import Topology
from .model import (
    _BYTES_PER_VARIABLE,
    _BYTES_PER_VARIABLE_AND_WORKER,
    _BYTES_PER_WORKER,
    MAX_SEND_VARIABLES,
    MAX_SYNTHESIS_BYTES,
    SolverError,
    _check_deadline,
    _Chunk,
    _chunks,
    _Network,
    _network,
)


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
    num_vars = _encode_peers(net, steps, by_arc_step, nv + steps, lower, upper, constraints, deadline, time_limit)
    return _Encoding(sends, rounds_vars, num_vars, lower, upper, constraints, chunk_list, net, steps, rounds)


def _encode_peers(net, steps, by_arc_step, num_vars, lower, upper, constraints, deadline, time_limit) -> int:
    """Through a switch, at most ``limit`` peers per node and step: a 0-1 indicator per (arc, step)
    that some chunk crosses it, and a limit on their sum per group (:attr:`_Network.peers`).

    Returns the number of variables with the indicators appended (after the rounds variables, so
    the decoding's indices do not move)."""
    indicator = {}
    for s in range(steps):
        for g, (arcs, limit) in enumerate(net.peers):
            if g % 64 == 0:
                _check_deadline(deadline, time_limit, "encoding the peer limits")
            used = [a for a in arcs if by_arc_step.get((a, s))]
            if len(used) <= limit:  # cannot bind
                continue
            for a in used:
                if (a, s) not in indicator:
                    y = indicator[(a, s)] = num_vars
                    num_vars += 1
                    lower.append(0)
                    upper.append(1)
                    for i in by_arc_step[(a, s)]:
                        constraints.append(([(i, 1), (y, -1)], -math.inf, 0))
            constraints.append(([(indicator[(a, s)], 1) for a in used], -math.inf, limit))
    return num_vars


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
