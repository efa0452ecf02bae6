"""Simulator throughput (bytes moved per second) as a ratio to numpy's copy bandwidth, same run.

For ring AllReduce at M = 64 KiB .. 64 MiB and N = 8, 64, 256 it prints the bytes moved over
the network, the time spent executing the rounds (reads, copies, reductions), the end-to-end
time of ``run_schedule`` (which also fills the inputs with random bytes and checks the result),
and the round throughput as a ratio to ``np.copyto`` of a 64 MiB buffer. Target: ratio >= 0.3
for M >= 1 MiB. Cases whose buffers (N x M bytes) exceed the memory budget are skipped, saying so.
Finally it times ring AllReduce on 1024 nodes at a small M (target: about a second).
"""

from __future__ import annotations

import time

import numpy as np

import ccb_helpers as ccb
from ccb_helpers.simulator import _apply, _initial_state

BUDGET = 8 * 2**30  # bytes per case (24 GiB machine), passed as run_schedule's max_bytes


def numpy_copy_bandwidth(nbytes: int = 64 * 2**20) -> float:
    src = np.ones(nbytes, dtype=np.uint8)
    dst = np.empty_like(src)
    best = np.inf
    for _ in range(5):
        start = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - start)
    return nbytes / best


def main() -> None:
    copy_bw = numpy_copy_bandwidth()
    print(f"numpy copy bandwidth (64 MiB np.copyto): {copy_bw / 1e9:.2f} GB/s")
    print(f"{'N':>5} {'M':>9} {'moved':>10} {'rounds s':>9} {'total s':>8} {'GB/s':>6} {'ratio':>6}")
    for n in (8, 64, 256):
        for m in (64 * 2**10, 2**20, 16 * 2**20, 64 * 2**20):
            if 4 * n * m > BUDGET:  # the simulator's estimate: buffers + result + masks + one round's reads
                print(
                    f"{n:5d} {ccb.format_bytes(m):>9}  skipped: 4 N M = {ccb.format_bytes(4 * n * m)} exceeds the budget"
                )
                continue
            schedule = ccb.generate("ring", "all_reduce", n, m)
            bufs = _initial_state(schedule, np.random.default_rng(0))
            start = time.perf_counter()
            for r in schedule.rounds:
                _apply(r, bufs)
            rounds_time = time.perf_counter() - start
            del bufs
            start = time.perf_counter()
            result = ccb.run_schedule(schedule, max_bytes=BUDGET)
            total_time = time.perf_counter() - start
            moved = int(result.bytes_sent.sum())
            rate = moved / rounds_time
            print(
                f"{n:5d} {ccb.format_bytes(m):>9} {ccb.format_bytes(moved):>10} {rounds_time:9.3f} {total_time:8.3f} "
                f"{rate / 1e9:6.2f} {rate / copy_bw:6.2f}"
            )
    start = time.perf_counter()
    result = ccb.simulate("ring", "all_reduce", 1024, 8 * 2**10)
    print(
        f"ring AllReduce N=1024, M=8 KiB: {result.rounds} rounds, correct={result.correct}, "
        f"{time.perf_counter() - start:.2f} s (generate + run + check)"
    )


if __name__ == "__main__":
    main()
