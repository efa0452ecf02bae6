"""Issue #28: the time caps that replaced hangs, each as a ratio to a baseline of the same run.

1. The 1-port double binary tree on a grid with many distinct ``n``: ``algorithm_cost`` (grouped
   by n with one sort) against the former loop (a boolean mask over the whole grid per distinct n),
   re-implemented here as the baseline; both on the same cached trees.
2. ``synthesize(time_limit=T)``: the wall time of the whole call over ``T`` (1 = the limit holds;
   before #28 the limit started with the solver, after seconds of building the model).

Run: ``python benchmarks/bench_robust_caps.py``. Nothing is asserted.
"""

from __future__ import annotations

import time

import numpy as np

import ccb_helpers as ccb
from _timing import best_of
from ccb_helpers.algorithms import _dbt_one_port_rounds


def _masked_rounds(n, chunks):
    """The loop before #28: one mask over the grid per distinct n."""
    out = np.empty(n.shape, dtype=np.int64)
    unique, inverse = np.unique(n, return_inverse=True)
    inverse = inverse.reshape(n.shape)
    for i, value in enumerate(unique.tolist()):
        where = inverse == i
        out[where] = _dbt_one_port_rounds(value, chunks[where])
    return out


def dbt_grid() -> None:
    rng = np.random.default_rng(0)
    for distinct, size in ((64, 10**5), (256, 10**5), (512, 4 * 10**5)):
        n = rng.choice(np.arange(2, 2 + distinct), size)
        chunks = rng.integers(1, 64, size)
        _dbt_one_port_rounds(n, chunks)  # fill the tree cache for both
        grouped = best_of(lambda n=n, chunks=chunks: _dbt_one_port_rounds(n, chunks), 3)
        masked = best_of(lambda n=n, chunks=chunks: _masked_rounds(n, chunks), 1)
        assert np.array_equal(_dbt_one_port_rounds(n, chunks), _masked_rounds(n, chunks))
        print(
            f"1-port DBT rounds, {distinct} distinct n x {size} elements: grouped {grouped * 1e3:.0f} ms, "
            f"masked (before) {masked * 1e3:.0f} ms, ratio {grouped / masked:.3f}"
        )


def synthesis_deadline() -> None:
    ccb.synthesize(ccb.ring(4), "all_gather", 2, 2, 1, time_limit=10)  # load OR-Tools once (not counted)
    cases = [
        (ccb.fully_connected(36), "all_gather", 1, 1, 1),
        (ccb.ring(100), "all_gather", 2, 2, 1),
        (ccb.torus(6, 6), "all_gather", 6, 6, 1),
        (ccb.torus(5, 5), "all_gather", 4, 8, 2),
    ]
    for limit in (0.05, 0.2, 1.0):
        for topology, primitive, s, r, c in cases:
            start = time.monotonic()
            try:
                ccb.synthesize(topology, primitive, s, r, c, time_limit=limit)
                outcome = "decided"
            except ccb.SynthesisTimeout:
                outcome = "timeout"
            took = time.monotonic() - start
            print(
                f"synthesize {topology.name} {primitive} S={s} R={r} C={c} time_limit={limit:g} s: {took:.2f} s "
                f"= {took / limit:.2f} x the limit ({outcome})"
            )


if __name__ == "__main__":
    dbt_grid()
    synthesis_deadline()
