"""The Pareto search: the least rounds per chunk for every number of steps, each rejection a proof."""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import NamedTuple

from .._validation import check_choice, check_int
from ..schedule import Schedule
from .bounds import rounds_per_chunk_bound, steps_lower_bound
from .model import SYNTHESIS_PRIMITIVES, _check_instance, _check_time_limit, _check_topology
from .solve import synthesize


class _FrontierFields(NamedTuple):
    steps: int
    rounds: int
    chunks: int
    schedule: Schedule


class FrontierPoint(_FrontierFields):
    """One Pareto-optimal instance: ``steps`` (latency), ``rounds / chunks`` (bandwidth) and its schedule.

    A tuple ``(steps, rounds, chunks, schedule)``, checked when made (also by ``_make`` and
    ``_replace``): integers in the ranges of :func:`synthesize` (``1 <= steps <= 64``,
    ``steps <= rounds <= 4096``, ``1 <= chunks <= 64``; NaN, infinities, floats and arrays are
    refused naming the field), and a synthesized :class:`~ccb_helpers.schedule.Schedule` of
    ``steps`` steps using at most ``rounds`` rounds.

    >>> import ccb_helpers as ccb
    >>> p = ccb.stored_frontier(ccb.dgx1(), "all_gather")[0]
    >>> p.steps, p.rounds_per_chunk
    (2, Fraction(3, 2))
    >>> p._replace(rounds=float("nan"))
    Traceback (most recent call last):
    ...
    TypeError: rounds must be an integer, got float nan
    """

    __slots__ = ()

    def __new__(cls, steps, rounds, chunks, schedule):
        steps, rounds, chunks = _check_instance(steps, rounds, chunks)
        if not isinstance(schedule, Schedule):
            raise TypeError(f"schedule must be a Schedule (a synthesized one), got {type(schedule).__name__}")
        if schedule.step_rounds is None or len(schedule.rounds) != steps or sum(schedule.step_rounds) > rounds:
            raise ValueError(
                f"schedule must be a synthesized schedule of steps={steps} steps and at most rounds={rounds} rounds, "
                f"got {len(schedule.rounds)} steps with step_rounds={schedule.step_rounds}"
            )
        return super().__new__(cls, steps, rounds, chunks, schedule)

    @classmethod
    def _make(cls, iterable):
        return cls(*iterable)

    def _replace(self, **changes):
        return type(self)(**{**self._asdict(), **changes})

    @property
    def rounds_per_chunk(self) -> Fraction:
        return Fraction(self.rounds, self.chunks)


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
