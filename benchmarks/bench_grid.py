"""Evaluate the bounds on a 1000 x 1000 (N, M) grid; print time and ratio to bare numpy."""

from __future__ import annotations


import numpy as np

import ccb_helpers as ccb
from _timing import best_of




def main() -> None:
    n = np.arange(2, 1002, dtype=np.int64)[:, None]
    m = np.logspace(0, 10, 1000)[None, :]
    alpha, beta = 2e-6, 50e9

    def bare_numpy():
        steps = np.ceil(np.log2(n))  # the float formula (wrong at some powers in general; fine as a timing baseline)
        return np.maximum(steps * alpha, 2 * (n - 1) / n * m / beta)

    baseline = best_of(bare_numpy)
    rows = [
        ("combined_lower_bound", lambda: ccb.combined_lower_bound("all_reduce", n, m, alpha, beta)),
        ("algorithm_cost ring", lambda: ccb.algorithm_cost("ring", "all_reduce", n, m, alpha, beta)),
        ("algorithm_cost RHD", lambda: ccb.algorithm_cost("recursive_halving_doubling", "all_reduce", n, m, alpha, beta)),
        ("best_algorithm", lambda: ccb.best_algorithm("all_reduce", n, m, alpha, beta)),
    ]
    print(f"grid: {n.size * m.size:,} points; bare numpy max(alpha term, beta term): {baseline * 1e3:.1f} ms")
    for name, fn in rows:
        t = best_of(fn, repeat=3)
        print(f"{name:24s} {t * 1e3:8.1f} ms   ratio to bare numpy {t / baseline:6.1f}x")


if __name__ == "__main__":
    main()
