"""The nccl-tests reader on texts of many runs: is reading linear in the text? (#28)

A file of ``R`` small runs (the 2022+ table of the doctests, two rows each, ~1 kB per run) is read
with ``read_nccl_tests_runs``; the baseline, measured in the same run, is reading one run alone,
times ``R`` (what a linear reader costs). The ratio must stay flat as ``R`` grows; a reader that
re-scans the text before each run grows linearly in ``R`` instead (quadratic in the text).

Usage: ``python benchmarks/bench_nccl_reader.py [R ...]`` (default 500 1000 2000 4000 8000).

``--shapes [CHARS]`` (default the 20 MB cap, :data:`~ccb_helpers.nccl_tests.reader.MAX_TEXT_CHARS`)
reads texts of one size but different shapes — published-log text (the baseline, measured in the
same run), a run's rows, 20 million empty lines, one-character lines, a header followed by
one-character, ``#`` or launcher-label lines — and prints each as a ratio to the log text. Before
#28's per-line cut the short lines were 3.6-4.7x the log (24-31 s against 6.6 s, idle).
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


def shapes(size: int) -> None:
    import time
    from importlib.resources import files

    log = (files("ccb_helpers") / "data" / "nccl_tests" / "a3mega_h100_2node_all_reduce.txt").read_text()
    rows = [line for line in log.splitlines() if line.split() and line.split()[0].isdigit()]
    head = log[: log.index(rows[0])]

    def fill(unit: str, chars: int = size) -> str:
        return unit * (chars // len(unit))

    texts = {
        "published log text": fill(log + "\n"),
        "rows of one run (refused at MAX_ROWS)": head
        + "\n".join(rows * ((size - len(head)) // (len(rows[0]) + 1) // len(rows))),
        "empty lines": fill("\n"),
        "one-character lines": fill("a\n"),
        "header + one-character lines": head + fill("a\n", size - len(head)),
        "header + '#' lines": head + fill("#\n", size - len(head)),
        "header + '0: ' label lines": head + fill("0: \n", size - len(head)),
        "nine-character lines": fill("abcdefghi\n"),
        # round 5: the repeated-rank check counted each index over all of them (40,000 lines: 93 s)
        "'# Rank 0' lines + the log": fill(
            "#  Rank  0 Group  0 Pid 1 on node0 device  0 [0x07] NVIDIA H100\n", size - len(log)
        )
        + log,
        "distinct '# Rank' lines + the log": "".join(
            f"#  Rank {k:7d} Group  0 Pid {k} on node{k // 8} device {k % 8} [0x07] NVIDIA H100\n"
            for k in range((size - len(log)) // 76)
        )
        + log,
    }
    baseline = None
    for name, text in texts.items():
        start = time.process_time()
        try:
            ccb.read_nccl_tests_runs(text)
        except ValueError:
            pass  # the shapes without a table are refused after reading
        seconds = time.process_time() - start
        baseline = baseline or seconds
        print(f"{name:40s} {len(text) / 1e6:6.2f} MB {seconds:7.2f} CPU-s = {seconds / baseline:5.2f}x the log text")
        del text


if __name__ == "__main__":
    if sys.argv[1:2] == ["--shapes"]:
        from ccb_helpers.nccl_tests.reader import MAX_TEXT_CHARS

        shapes(int(sys.argv[2]) if len(sys.argv) > 2 else MAX_TEXT_CHARS)
    else:
        main([int(a) for a in sys.argv[1:]] or [500, 1000, 2000, 4000, 8000])
