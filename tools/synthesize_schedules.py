"""Solve the synthesis instances the book shows and store the schedules (certificates).

Finding a schedule can take seconds to minutes; checking one in the simulator takes
milliseconds. So the chapter and the tests load these stored schedules and **verify** each in
the simulator (``ccb.stored_schedule`` refuses a wrong one) instead of re-solving.

Stored (``ccb_helpers/data/synthesized.json``):

* the AllGather Pareto frontiers of the DGX-1, ring 6, hypercube 3-d and torus 3x3;
* for the chapter's explorer, on the same four topologies: for steps S in {S_min, S_min + 1,
  S_min + 2} and chunks C in 1 .. 6, the schedule with the fewest rounds R (every smaller R
  proved infeasible);
* ``proved_infeasible``: every instance the solver proved infeasible on the way (the frontier
  search's rejections and the rounds below each stored fewest R), so the chapter can cite them.

Run: ``python tools/synthesize_schedules.py`` (a few minutes here).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import ortools

import ccb_helpers as ccb
from ccb_helpers.synthesis import _solve_sends

OUT = Path(__file__).resolve().parents[1] / "ccb_helpers" / "data" / "synthesized.json"
TOPOLOGIES = [
    ({"family": "dgx1"}, ccb.dgx1()),
    ({"family": "ring", "args": [6]}, ccb.ring(6)),
    ({"family": "hypercube", "args": [3]}, ccb.hypercube(3)),
    ({"family": "torus", "args": [3, 3]}, ccb.torus(3, 3)),
]
TIME_LIMIT = 600.0


def entry(spec, topology, primitive, steps, rounds, chunks, frontier=False):
    start = time.perf_counter()
    found = _solve_sends(topology, primitive, steps, rounds, chunks, 0, TIME_LIMIT)
    seconds = time.perf_counter() - start
    if found is None:
        return None, seconds
    per_step, rounds_used, _ = found
    return {
        "topology": spec,
        "primitive": primitive,
        "root": 0,
        "steps": steps,
        "rounds": rounds,
        "chunks": chunks,
        "frontier": frontier,
        "step_rounds": rounds_used,
        "solve_seconds": round(seconds, 2),
        "sends": [[list(map(int, send)) for send in step] for step in per_step],
    }, seconds


MAX_CHUNKS = 6


def unique(items: list) -> list:
    seen, out = set(), []
    for item in items:
        key = json.dumps(item, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def main():
    schedules, infeasible = [], []
    for spec, topology in TOPOLOGIES:
        start = time.perf_counter()

        def record(line, spec=spec):
            print("   ", line)
            if ": unsat" in line:
                s, r, c = (int(part.split("=")[1]) for part in line.split(":")[0].split())
                infeasible.append({"topology": spec, "primitive": "all_gather", "steps": s, "rounds": r, "chunks": c})

        frontier = ccb.pareto_frontier(
            topology, "all_gather", max_steps=6, max_chunks=MAX_CHUNKS, time_limit=TIME_LIMIT, log=record
        )
        print(
            f"{topology.name}: frontier {[(p.steps, p.rounds, p.chunks) for p in frontier]} "
            f"in {time.perf_counter() - start:.1f} s"
        )
        for p in frontier:
            e, _ = entry(spec, topology, "all_gather", p.steps, p.rounds, p.chunks, frontier=True)
            schedules.append(e)
        bound = ccb.rounds_per_chunk_bound(topology, "all_gather")
        first = ccb.steps_lower_bound(topology, "all_gather")
        for steps in range(first, first + 3):
            for chunks in range(1, MAX_CHUNKS + 1):
                rounds = max(steps, math.ceil(bound * chunks))
                while True:
                    e, seconds = entry(spec, topology, "all_gather", steps, rounds, chunks)
                    if e is not None:
                        break
                    infeasible.append(
                        {
                            "topology": spec,
                            "primitive": "all_gather",
                            "steps": steps,
                            "rounds": rounds,
                            "chunks": chunks,
                        }
                    )
                    rounds += 1
                print(f"  S={steps} C={chunks}: fewest rounds R={rounds} ({seconds:.2f} s)")
                if not any(
                    x["steps"] == steps and x["rounds"] == rounds and x["chunks"] == chunks and x["topology"] == spec
                    for x in schedules
                ):
                    schedules.append(e)
    OUT.write_text(
        json.dumps(
            {
                "about": "Synthesized schedules (sends per step: [chunk, from, to]); written by tools/synthesize_schedules.py, "
                "verified in the simulator whenever loaded (ccb.stored_schedule).",
                "solver": f"OR-Tools CP-SAT {ortools.__version__}, 1 worker",
                "schedules": schedules,
                "proved_infeasible": unique(infeasible),
            },
            separators=(",", ":"),
        )
        + "\n"
    )
    print(f"wrote {len(schedules)} schedules to {OUT}")


if __name__ == "__main__":
    main()
