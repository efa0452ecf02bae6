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

The package, one module per concept: :mod:`.model` (the instance, the network view, checks and
caps), :mod:`.bounds` (the two lower bounds), :mod:`.encoding` (the 0-1 model and CP-SAT),
:mod:`.decode` (solver values to a :class:`~ccb_helpers.schedule.Schedule`), :mod:`.solve`
(:func:`synthesize`), :mod:`.verify` (the simulator's check and ``eq:cc-synth-cost``),
:mod:`.frontier` (the Pareto search) and :mod:`.store` (the stored certificates). Every name is
re-exported here, so ``from ccb_helpers.synthesis import X`` works as before.
"""

from __future__ import annotations

from .bounds import _CUT_BLOCK, _capacity_bound, _cut_bound, rounds_per_chunk_bound, steps_lower_bound
from .decode import _decode, _layout, _reverse_schedule, _to_schedule
from .encoding import (
    _check_model_size,
    _encode,
    _Encoding,
    _estimate_variables,
    _no_full_collections,
    _prune,
    _solve_cpsat,
    _synthesis_memory,
)
from .frontier import FrontierPoint, _candidate_ratios, pareto_frontier
from .model import (
    _BYTES_PER_VARIABLE,
    _BYTES_PER_VARIABLE_AND_WORKER,
    _BYTES_PER_WORKER,
    _DUAL,
    _NON_COMBINING,
    MAX_BOUND_ENDPOINTS,
    MAX_SEND_VARIABLES,
    MAX_SYNTHESIS_BYTES,
    MAX_SYNTHESIS_ENDPOINTS,
    MAX_TIME_LIMIT,
    SYNTHESIS_PRIMITIVES,
    SolverError,
    SynthesisTimeout,
    _check_connected,
    _check_deadline,
    _check_instance,
    _check_time_limit,
    _check_topology,
    _Chunk,
    _chunks,
    _Network,
    _network,
)
from .solve import _solve_non_combining, _solve_sends, _synthesize, synthesize
from .store import (
    STORE,
    _cached_topology,
    _entry_schedule,
    _load_store,
    _read_store,
    _topology_from_spec,
    stored_frontier,
    stored_schedule,
    stored_schedules,
)
from .verify import _check_chunk_capacity, synthesized_time, verify_synthesized

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
