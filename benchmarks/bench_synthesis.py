"""Schedule synthesis speed: three solvers on the DGX-1 AllGather instances, and the whole frontier.

Part 1 (solver choice): the same 0-1 encoding (``ccb_helpers.synthesis._encode``) handed to
OR-Tools CP-SAT, HiGHS (MIP, highspy) and z3 (z3-solver); each call capped at ``CAP`` seconds.
HiGHS and z3 are not dependencies of the book: ``pip install highspy==1.15.1 z3-solver==5.4.1.0``
to include them (a missing one is reported and skipped).

Part 2 (against SCCL): per instance, our solve time next to the time SCCL's README reports for
the same instance on the DGX-1 (``msccl solve pareto-optimal DGX1 Allgather``, SYNTHESIS.md of
microsoft/msccl-tools, formerly microsoft/sccl), and the whole Pareto frontier (goal ≤ 5 min).
Their times come from their machine, ours from this 2-core one, so the ratio is indicative.

Part 3: the chapter's explorer update time as a ratio to a bare matplotlib redraw.

Run: ``python benchmarks/bench_synthesis.py [--skip-solvers]``.
"""

from __future__ import annotations

import math
import sys
import time

import ccb_helpers as ccb
from ccb_helpers.synthesis import _encode, _solve_cpsat

CAP = 120.0

#: (steps, rounds, chunks) -> (verdict, seconds) reported by SCCL's README for DGX-1 AllGather.
SCCL_REPORTED = {
    (2, 2, 1): ("sat", 0.5),
    (2, 3, 2): ("sat", 0.9),
    (2, 4, 3): ("unsat", 1.1),
    (3, 4, 3): ("sat", 2.9),
    (3, 5, 4): ("sat", 6.5),
    (3, 6, 5): ("sat", 44.0),
    (3, 7, 6): ("sat", 56.1),
}
#: Their whole pareto-optimal run (the sum of the calls above).
SCCL_FRONTIER_SECONDS = sum(t for _, t in SCCL_REPORTED.values())


def solve_highs(enc, time_limit):
    import highspy
    import numpy as np

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("threads", 1)
    inf = highspy.kHighsInf
    nv = enc.num_vars
    h.addVars(nv, np.array(enc.lower, dtype=float), np.array(enc.upper, dtype=float))
    h.changeColsIntegrality(nv, np.arange(nv, dtype=np.int32), np.full(nv, highspy.HighsVarType.kInteger))
    for terms, lo, hi in enc.constraints:
        if not terms:
            if not lo <= 0 <= hi:
                return "unsat"
            continue
        idx = np.array([v for v, _ in terms], dtype=np.int32)
        val = np.array([c for _, c in terms], dtype=float)
        h.addRow(-inf if lo == -math.inf else float(lo), inf if hi == math.inf else float(hi), len(idx), idx, val)
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kOptimal:
        return "sat"
    if status == highspy.HighsModelStatus.kInfeasible:
        return "unsat"
    return "unknown"


def solve_z3(enc, time_limit):
    import z3

    s = z3.Solver()
    s.set("timeout", int(time_limit * 1000))
    nsend = len(enc.sends)
    x = [z3.Bool(f"x{i}") for i in range(nsend)] + [z3.Int(f"r{i}") for i in range(enc.num_vars - nsend)]

    def term(v, c):
        return c * z3.If(x[v], 1, 0) if v < nsend else c * x[v]

    for v in range(nsend, enc.num_vars):
        s.add(x[v] >= enc.lower[v], x[v] <= enc.upper[v])
    for terms, lo, hi in enc.constraints:
        if not terms:
            if not lo <= 0 <= hi:
                return "unsat"
            continue
        if all(v < nsend for v, _ in terms) and all(c == 1 for _, c in terms):
            pb = [(x[v], 1) for v, _ in terms]
            if lo == hi:
                s.add(z3.PbEq(pb, int(lo)))
                continue
            if lo != -math.inf:
                s.add(z3.PbGe(pb, int(lo)))
            if hi != math.inf:
                s.add(z3.PbLe(pb, int(hi)))
            continue
        expr = z3.Sum([term(v, c) for v, c in terms])
        if lo != -math.inf:
            s.add(expr >= int(lo))
        if hi != math.inf:
            s.add(expr <= int(hi))
    result = s.check()
    return "sat" if result == z3.sat else ("unsat" if result == z3.unsat else "unknown")


def solve_cpsat(enc, time_limit):
    return _solve_cpsat(enc, time_limit, workers=1)[0]


SOLVERS = {"CP-SAT": solve_cpsat, "HiGHS": solve_highs, "z3": solve_z3}


def solver_times(name, topology):
    """[(instance, vars, verdict, seconds)] for one solver (run in its own process: see compare_solvers)."""
    solve = SOLVERS[name]
    enc = _encode(topology, "all_gather", 2, 2, 1, root=0)
    solve(enc, CAP)  # warm-up: load the library before timing
    rows = []
    for inst in SCCL_REPORTED:
        enc = _encode(topology, "all_gather", *inst, root=0)
        start = time.perf_counter()
        verdict = solve(enc, CAP)
        rows.append((inst, enc.num_vars, verdict, time.perf_counter() - start))
    return rows


def compare_solvers(topology):
    """Each solver in a fresh process: OR-Tools bundles its own HiGHS, whose symbols clash with highspy's."""
    import json
    import subprocess

    print(f"Part 1: the same encoding, three solvers, DGX-1 AllGather (cap {CAP:g} s per call, one process each)")
    table = {}
    for name in SOLVERS:
        proc = subprocess.run([sys.executable, __file__, "--solver", name], capture_output=True, text=True)
        if proc.returncode:
            last = (proc.stderr.strip().splitlines() or ["?"])[-1]
            table[name] = {
                inst: ("not installed" if "ModuleNotFoundError" in proc.stderr else last[:16]) for inst in SCCL_REPORTED
            }
            continue
        rows = json.loads(proc.stdout.strip().splitlines()[-1])
        table[name] = {tuple(inst): f"{verdict} {seconds:7.2f} s" for inst, _, verdict, seconds in rows}
        sizes = {tuple(inst): nv for inst, nv, _, _ in rows}
    print(f"{'instance':>10} {'vars':>6} " + " ".join(f"{name:>16}" for name in SOLVERS))
    for inst in SCCL_REPORTED:
        print(f"{str(inst):>10} {sizes.get(inst, ''):>6} " + " ".join(f"{table[name][inst]:>16}" for name in SOLVERS))


def against_sccl(topology):
    print("\nPart 2: ccb.synthesize (CP-SAT, 1 worker) vs the times SCCL's README reports")
    print(f"{'instance':>10} {'verdict':>8} {'ours':>8} {'SCCL':>8} {'ratio':>6}  simulator")
    worst = 0.0
    for inst, (verdict, theirs) in SCCL_REPORTED.items():
        start = time.perf_counter()
        schedule = ccb.synthesize(topology, "all_gather", *inst, time_limit=CAP)
        ours = time.perf_counter() - start
        got = "sat" if schedule is not None else "unsat"
        check = ccb.verify_synthesized(schedule, topology).correct if schedule is not None else "-"
        worst = max(worst, ours / theirs)
        flag = "" if got == verdict else "  (verdict differs!)"
        print(f"{str(inst):>10} {got:>8} {ours:7.2f}s {theirs:7.1f}s {ours / theirs:6.2f}  {check}{flag}")
    print(f"largest ratio ours/SCCL: {worst:.2f} (goal <= 2)")
    start = time.perf_counter()
    frontier = ccb.pareto_frontier(topology, "all_gather", max_steps=4, max_chunks=6, time_limit=CAP)
    total = time.perf_counter() - start
    print(
        f"\nwhole DGX-1 AllGather frontier: {[(p.steps, p.rounds, p.chunks) for p in frontier]} in {total:.1f} s "
        f"(SCCL README: {SCCL_FRONTIER_SECONDS:.1f} s; goal <= 300 s here)"
    )


def explorer_update():
    """SynthesisExplorer: one control change (load + verify a stored schedule, redraw, PNG) vs a bare redraw."""
    import io

    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from _timing import best_of

    explorer = ccb.SynthesisExplorer()
    states = iter([dict(step=2), dict(step=3), dict(step=1)] * 10)
    update = best_of(lambda: explorer.update(**next(states)), repeat=3)
    figure = Figure(figsize=explorer.figsize, dpi=100)
    FigureCanvasAgg(figure)
    rng = np.random.default_rng(0)

    def bare():  # two panels, ~100 arrows and ~50 labels, then PNG: what the explorer draws
        figure.clear()
        left, right = figure.subplots(1, 2)
        for _ in range(100):
            x, y = rng.random(2)
            left.annotate("", (x, y), (x + 0.1, y + 0.1), arrowprops={"arrowstyle": "-|>"})
        for i in range(50):
            left.text(*rng.random(2), str(i), fontsize=9)
        right.step(range(10), rng.random(10))
        right.scatter(rng.random(20), rng.random(20))
        figure.tight_layout()
        figure.savefig(io.BytesIO(), format="png")

    baseline = best_of(bare, repeat=3)
    print(
        f"\nPart 3: SynthesisExplorer update {update:.2f} s, bare matplotlib redraw {baseline:.2f} s, "
        f"ratio {update / baseline:.2f}"
    )


def main():
    topology = ccb.dgx1()
    if "--solver" in sys.argv:
        import json

        rows = solver_times(sys.argv[sys.argv.index("--solver") + 1], topology)
        print(json.dumps([[list(inst), nv, verdict, seconds] for inst, nv, verdict, seconds in rows]))
        return
    ccb.synthesize(topology, "all_gather", 2, 2, 1, time_limit=CAP)  # warm-up (library load)
    if "--skip-solvers" not in sys.argv:
        compare_solvers(topology)
    against_sccl(topology)
    explorer_update()


if __name__ == "__main__":
    main()
