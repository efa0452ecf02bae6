"""The nccl-tests reader on texts of many runs: is reading linear in the text? (#28)

A file of ``R`` small runs (the 2022+ table of the doctests, two rows each, ~1 kB per run) is read
with ``read_nccl_tests_runs``; the baseline, measured in the same run, is reading one run alone,
times ``R`` (what a linear reader costs). The ratio must stay flat as ``R`` grows; a reader that
re-scans the text before each run grows linearly in ``R`` instead (quadratic in the text).

Usage: ``python benchmarks/bench_nccl_reader.py [R ...]`` (default 500 1000 2000 4000 8000).
"""

from __future__ import annotations

import functools
import sys

import ccb_helpers as ccb
from _timing import best_of
from ccb_helpers.nccl_tests import _EXAMPLE

ONE_RUN = "$ ./build/all_reduce_perf -b 1K -e 1M -f 1024 -g 2\n" + _EXAMPLE


def main(counts) -> None:
    one = best_of(lambda: ccb.read_nccl_tests_runs(ONE_RUN), repeat=50)
    print(f"one run ({len(ONE_RUN)} characters): {one * 1e3:.3f} ms")
    for count in counts:
        text = ONE_RUN * count
        repeat = 3 if count <= 2000 else 1
        many = best_of(functools.partial(ccb.read_nccl_tests_runs, text), repeat=repeat)
        print(
            f"{count:6d} runs ({len(text) / 1e6:.2f} MB): {many:8.2f} s = {many / (count * one):6.2f}x "
            f"{count} x one run"
        )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [500, 1000, 2000, 4000, 8000])
