"""Shared timing helper of the benchmark scripts."""

from __future__ import annotations

import time


def best_of(fn, repeat: int = 5) -> float:
    """Fastest of ``repeat`` runs of ``fn()``, in seconds (the least disturbed by other load)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)
