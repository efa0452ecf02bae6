"""The store of certificates: schedules found by ``tools/synthesize_schedules.py``, rebuilt and verified."""

from __future__ import annotations

from functools import lru_cache

from .._validation import check_bool, check_choice, check_int
from ..schedule import Schedule
from ..topology import Topology
from .decode import _reverse_schedule, _to_schedule
from .frontier import FrontierPoint
from .model import _DUAL, SYNTHESIS_PRIMITIVES, _check_topology, _chunks
from .verify import verify_synthesized

#: Schedules too slow to synthesize during a book build, found by ``tools/synthesize_schedules.py``.
STORE = "data/synthesized.json"


def _topology_from_spec(spec: dict) -> Topology:
    return _cached_topology(spec["family"], tuple(spec.get("args", ())))


@lru_cache(maxsize=32)
def _cached_topology(family: str, args: tuple) -> Topology:
    from .. import topology as families
    from ..user_topology import dgx1

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
