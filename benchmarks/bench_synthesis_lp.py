"""The two-step LP bound against the solver's proofs it replaces (DGX-1 AllGather).

Chapter 7 proves the two-step frontier point (2, 3, 2) optimal two ways: CP-SAT refutes the five
instances between the cut bound 7/6 and 3/2 with C <= 6 (``ccb.synthesize`` returns None), and
the LP of ``ccb_helpers.synthesis_lp`` bounds R/C by 3/2 for every C at once. Both are timed in
the same run (best of ``REPEAT``); the ratio is LP time over the five proofs' time. The LP is
solved by GLOP, which ships with OR-Tools (already a dependency for CP-SAT), so no solver is added.

Run: ``python benchmarks/bench_synthesis_lp.py``.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import ccb_helpers as ccb  # noqa: E402
from _timing import best_of  # noqa: E402

REPEAT = 3
#: The instances chapter 7 refutes: every ratio in [7/6, 3/2) with C <= 6, at the largest such C.
PROOFS = [(2, 7, 6), (2, 6, 5), (2, 5, 4), (2, 8, 6), (2, 7, 5)]


def main() -> None:
    dgx1 = ccb.dgx1()

    def proofs():
        assert all(ccb.synthesize(dgx1, "all_gather", *i, time_limit=120) is None for i in PROOFS)

    def lp():
        assert ccb.two_step_rounds_per_chunk(dgx1) == 1.5

    t_proofs = best_of(proofs, REPEAT)
    t_lp = best_of(lp, REPEAT)
    load = os.getloadavg()[0]
    print(f"load average {load:.2f}")
    print(f"CP-SAT, five unsat proofs (C <= 6): {t_proofs:.2f} s")
    print(f"GLOP LP + exact dual check (every C): {t_lp:.3f} s  (ratio LP / proofs = {t_lp / t_proofs:.2f})")


if __name__ == "__main__":
    main()
