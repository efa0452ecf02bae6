"""The public solve: :func:`synthesize` a schedule for ``(S, R, C)``, or prove there is none."""

from __future__ import annotations

import time

from .._validation import check_choice, check_int
from ..schedule import Schedule
from .decode import _decode, _reverse_schedule, _to_schedule
from .encoding import _check_model_size, _encode, _no_full_collections, _solve_cpsat
from .model import (
    _DUAL,
    SYNTHESIS_PRIMITIVES,
    SynthesisTimeout,
    _check_connected,
    _check_deadline,
    _check_instance,
    _check_time_limit,
    _check_topology,
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
