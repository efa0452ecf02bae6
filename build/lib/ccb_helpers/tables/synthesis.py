"""Chapter 7's tables: the synthesis bounds beside the chapters' bounds, and whether they are attained."""

from __future__ import annotations

from fractions import Fraction

from .._validation import check_cap, check_choice, check_memory
from .table import Table

__all__ = ["synthesis_bounds_table", "attainment_table"]


def _as_fraction(value: float) -> Fraction:
    return Fraction(value).limit_denominator(10_000)


def _check_topologies(topologies) -> list:
    from ..topology import check_topology

    if not isinstance(topologies, (list, tuple)) or not 1 <= len(topologies) <= 16:
        raise TypeError(f"topologies must be a list of 1 to 16 Topology objects, got {type(topologies).__name__}")
    return [check_topology(t, f"topologies[{i}]") for i, t in enumerate(topologies)]


#: Most node sets the cut bounds of one table enumerate (sum over topologies and primitives of
#: 2**n): about 1.3 s per 2**20 on this machine under load, so a table stays under ~3 s.
MAX_TABLE_CUT_SETS = 2**21
#: Peak bytes of one table: the cut bounds enumerate the 2**n node sets in blocks of 2**15 (so
#: memory does not grow with the sets), the rows are small. tracemalloc measured 14-18 MB for a
#: topology of up to 20 nodes and 44 MB for the first table of a process (its caches filled).
_TABLE_FIXED_BYTES = 64 * 2**20
_TABLE_BYTES_PER_ROW = 2**20


def _check_bound_topologies(topologies) -> list:
    """Every topology fit for the synthesis bounds, checked before any bound is computed; an
    error names the entry (``topologies[i]``)."""
    from ..synthesis import MAX_BOUND_ENDPOINTS, _check_topology, _network

    topologies = _check_topologies(topologies)
    for i, t in enumerate(topologies):
        try:
            if t.n > MAX_BOUND_ENDPOINTS:  # before the graph is built
                raise ValueError(
                    f"the cut bound enumerates all 2**n node sets; n <= {MAX_BOUND_ENDPOINTS}, got n={t.n}"
                )
            _check_topology(t)
            _network(t, hops=False)  # refuses several switch levels
        except (ValueError, TypeError) as err:
            raise type(err)(f"topologies[{i}] ({t.name}): {err}") from None
    return topologies


def _check_primitives(primitives) -> list:
    from .._validation import check_choice
    from ..primitives import PRIMITIVES

    if not isinstance(primitives, (list, tuple)) or not 1 <= len(primitives) <= len(PRIMITIVES):
        raise TypeError(f"primitives must be a list of primitive names, got {type(primitives).__name__}")
    return [check_choice(f"primitives[{i}]", p, PRIMITIVES) for i, p in enumerate(primitives)]


def synthesis_bounds_table(topologies, primitives=("all_gather", "all_to_all")):
    """Both synthesis bounds next to the chapters' bounds, all in rounds per chunk (units of ``u / β``).

    The chapter-3 node bound and the chapter-5 balanced-cut bound are converted from seconds by
    ``× β / u`` (``u = M/N``, or ``M`` for Broadcast / Reduce). ``values``: ``(topology name,
    primitive, steps bound, R/C bound, node bound, bisection bound)`` with Fractions.

    >>> import ccb_helpers as ccb
    >>> t = synthesis_bounds_table([ccb.torus(3, 3)], ["all_to_all"])
    >>> t.values[0][3:]    # a row cut (3 x 6 blocks over 6 links) beats the balanced cut's 2.5
    (Fraction(3, 1), Fraction(2, 1), Fraction(5, 2))
    """
    from ..bisection import bisection_lower_bound, node_lower_bound
    from ..primitives import PRIMITIVE_LABELS
    from ..synthesis import rounds_per_chunk_bound, steps_lower_bound

    topologies, primitives = _check_bound_topologies(topologies), _check_primitives(primitives)
    check_cap(
        "synthesis_bounds_table: node sets the cut bounds enumerate (len(primitives) x 2**n per topology)",
        len(primitives) * sum(2**t.n for t in topologies),
        MAX_TABLE_CUT_SETS,
        hint="fewer or smaller topologies or primitives",
    )
    check_memory(
        f"topologies: synthesis_bounds_table of {len(topologies) * len(primitives)} rows",
        _TABLE_FIXED_BYTES + _TABLE_BYTES_PER_ROW * len(topologies) * len(primitives),
    )
    rows, values = [], []
    for topology in topologies:
        for primitive in primitives:
            unit = 1.0 if primitive in ("broadcast", "reduce") else 1.0 / topology.n
            s = steps_lower_bound(topology, primitive)
            ours = rounds_per_chunk_bound(topology, primitive)
            node = _as_fraction(node_lower_bound(primitive, topology, 1.0, 1.0, ports=topology.degree) / unit)
            bis = _as_fraction(bisection_lower_bound(primitive, topology, 1.0, 1.0) / unit)
            if ours == node:
                which = "= 节点界" + ("、平衡割界" if ours == bis else "")
            elif ours == bis:
                which = f"= 平衡割界（节点界 {node}）"
            else:
                which = f"更紧（节点 {node}，平衡割 {bis}）"
            rows.append([topology.name, PRIMITIVE_LABELS[primitive], str(s), f"**{ours}**", which])
            values.append((topology.name, primitive, s, ours, node, bis))
    headers = ["拓扑", "原语", "S ≥", "R/C ≥", "与第 3、5 章的下界比"]
    return Table(headers, rows, "两个下界（R/C 以 u/β 为单位，u = M/N；Broadcast 为 M）", values)


def attainment_table(topologies, primitive="all_gather", time_limit=60.0):
    """Is the pair (steps bound, rounds bound) attained together? From the stored frontiers, with proofs.

    For each topology: the bounds, the stored Pareto frontier (each point verified in the
    simulator), and a verdict. When the frontier's fewest-steps point misses the rounds bound, the
    instance ``(S_min, q * C, C)`` with ``q`` the rounds bound and the largest ``C <= 6`` is solved
    **live**: the solver's "infeasible" proves the gap (for every ``C`` dividing that one).

    ``values``: ``(name, S bound, R/C bound, frontier [(S, R, C)], proved gap instance or None)``.

    Every topology is checked as in :func:`synthesis_bounds_table` and must have a stored
    frontier for ``primitive`` before any bound is computed; each live proof runs at most
    ``time_limit`` seconds (``<= 3600``).
    """
    from ..synthesis import (
        SYNTHESIS_PRIMITIVES,
        _check_time_limit,
        rounds_per_chunk_bound,
        steps_lower_bound,
        stored_frontier,
        synthesize,
    )

    topologies = _check_bound_topologies(topologies)
    primitive = check_choice("primitive", primitive, SYNTHESIS_PRIMITIVES)
    frontiers = []
    for i, topology in enumerate(topologies):  # the stored frontiers exist (cheap) before any bound is computed
        try:
            frontiers.append(stored_frontier(topology, primitive))
        except ValueError as err:
            raise ValueError(f"topologies[{i}] ({topology.name}): {err}") from None
    time_limit = _check_time_limit(time_limit)
    rows, values = [], []
    for topology, frontier in zip(topologies, frontiers):
        s_min = steps_lower_bound(topology, primitive)
        bound = rounds_per_chunk_bound(topology, primitive)
        first = frontier[0]
        proof = None
        if first.steps == s_min and first.rounds_per_chunk == bound:
            verdict = "能"
        else:
            chunks = bound.denominator * (6 // bound.denominator) or bound.denominator
            proof = (s_min, int(bound * chunks), chunks)
            if synthesize(topology, primitive, *proof, time_limit=time_limit) is not None:
                raise AssertionError(f"{proof} is feasible on {topology.name}: the stored frontier is not optimal")
            verdict = f"不能：{proof} 不可行（已证明）"
        points = "，".join(f"({p.steps}, {p.rounds}, {p.chunks})" for p in frontier)
        rows.append([topology.name, str(s_min), str(bound), points, verdict])
        values.append((topology.name, s_min, bound, [(p.steps, p.rounds, p.chunks) for p in frontier], proof))
    headers = ["拓扑", "S ≥", "R/C ≥", "Pareto 前沿 (S, R, C)", "同时达到？"]
    return Table(headers, rows, "AllGather：每个前沿调度都在模拟器中按链路容量运行并逐字节校验", values)
