"""A 10**6-point (N, M) grid through the checked public functions, next to bare numpy doing the same.

Each row times a ``ccb_helpers`` call and a plain numpy expression of the same computation in
the same run, and prints the ratio. The goal of issue #15 is ``best_algorithm`` within 2x of
bare numpy computing every applicable algorithm's cost and the argmin (and the winners' names):
validation happens once at the boundary, the internals do not re-check.
"""

from __future__ import annotations

import numpy as np

import ccb_helpers as ccb
from _timing import best_of

ALPHA, BETA = 2e-6, 50e9


def bare_best_algorithm(n, m):
    """best_algorithm("all_reduce", n, m, ALPHA, BETA) written directly in numpy (1 port).

    The four 1-port AllReduce algorithms with their rounds and bytes-per-byte as functions of n
    (floating logs are fine here: the grid has no power where they round wrongly), each cost
    ``steps * alpha + coefficient * m / beta``, then the argmin, the minimum and the names.
    """
    ceil_log2 = np.ceil(np.log2(n))
    floor_log2 = np.floor(np.log2(n))
    pow2 = (n & (n - 1)) == 0
    frac = (n - 1) / n
    low = 2.0**floor_log2
    m_over_beta = m / BETA
    terms = [
        (2 * (n - 1), 2 * frac),  # ring
        (2 * ceil_log2, 2 * ceil_log2),  # binomial tree reduce + broadcast
        (np.where(pow2, 2 * floor_log2, 2 * floor_log2 + 2), np.where(pow2, 2 * frac, 2 + 2 * (low - 1) / low)),  # RHD
        (np.where(pow2, floor_log2, floor_log2 + 2), np.where(pow2, floor_log2, floor_log2 + 2)),  # recursive doubling
    ]
    times = np.stack([steps * ALPHA + coeff * m_over_beta for steps, coeff in terms])
    winner = times.argmin(axis=0)
    names = np.array(["ring", "binomial_tree", "recursive_halving_doubling", "recursive_doubling"])[winner]
    return names, times.min(axis=0)


def main() -> None:
    n = np.arange(2, 1002, dtype=np.int64)[:, None]
    m = np.logspace(0, 10, 1000)[None, :]

    # The two computations agree (names and times) before anything is timed.
    names, times = ccb.best_algorithm("all_reduce", n, m, ALPHA, BETA)
    bare_names, bare_times = bare_best_algorithm(n, m)
    assert np.array_equal(names, bare_names) and np.allclose(times, bare_times, rtol=1e-12)

    def bare_bound():
        steps = np.ceil(np.log2(n))
        return np.maximum(steps * ALPHA, 2 * (n - 1) / n * m / BETA)

    def bare_ring():
        return 2 * (n - 1) * ALPHA + 2 * (n - 1) / n * (m / BETA)

    rows = [
        ("combined_lower_bound", lambda: ccb.combined_lower_bound("all_reduce", n, m, ALPHA, BETA), bare_bound),
        ("algorithm_cost ring", lambda: ccb.algorithm_cost("ring", "all_reduce", n, m, ALPHA, BETA), bare_ring),
        (
            "best_algorithm",
            lambda: ccb.best_algorithm("all_reduce", n, m, ALPHA, BETA),
            lambda: bare_best_algorithm(n, m),
        ),
    ]
    print(f"grid: {n.size * m.size:,} points (N = 2..1001 x 1000 sizes), alpha = {ALPHA:g} s, beta = {BETA:g} B/s")
    print(f"{'computation':24s} {'ccb_helpers':>12s} {'bare numpy':>12s} {'ratio':>7s}")
    for name, ours, bare in rows:
        t_ours, t_bare = best_of(ours, repeat=7), best_of(bare, repeat=7)
        print(f"{name:24s} {t_ours * 1e3:9.1f} ms {t_bare * 1e3:9.1f} ms {t_ours / t_bare:6.2f}x")


if __name__ == "__main__":
    main()
