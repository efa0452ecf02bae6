"""Why the book's ping-pong and ``mpi4py.bench pingpong`` disagree: buffer variants A/B'd inside ONE job (#32).

One ``mpiexec -n 2`` job runs the same timed loop (``mpi4py.bench``'s: a barrier per measurement,
its warm-up and loop counts, each round trip timed, the mean) on several kinds of buffer,
alternating the variants per size and per repeat (the order rotates), so a slow spell of the
shared machine hits every variant alike. Per size it prints the median over the repeats of
each variant's time divided by the reference variant's time *of the same repeat*, and how many
of the buffer's bytes the kernel backs with transparent huge pages (``AnonHugePages`` in
``/proc/self/smaps``).

Variants (send and receive buffers of each rank):

- ``fresh``       — ``numpy.empty(size)`` per measurement, written once (the reference: the
  written-buffer control of ``bench_pingpong_vs_mpi4py.py``; numpy asks for huge pages at ≥ 4 MiB);
- ``fresh-pertrip`` — the same buffers, timed as ``mpi4py.bench`` does (each round trip on its own;
  the others time a sample's round trips together, as the book does);
- ``fresh-nohp``  — the same with numpy's huge-page advice switched off;
- ``fresh-zero``  — ``numpy.empty(size)`` never written (stock ``mpi4py.bench``: the send
  buffer is the kernel's shared zero page);
- ``sliced``      — slices of one 16 MiB send and one 16 MiB receive buffer, written once
  (the book's ping-pong before this change);
- ``sliced-nohp`` — the same 16 MiB buffers allocated without huge-page advice;
- ``sliced-huge`` — slices that start at a 2 MiB boundary of huge-paged buffers (on huge pages at every size).

Usage: python benchmarks/bench_pingpong_buffers.py [--repeats 7] [--sizes 16KiB,...] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

SIZES = [2**k for k in range(14, 25)]
VARIANTS = ["fresh", "fresh-pertrip", "fresh-nohp", "fresh-zero", "sliced", "sliced-nohp", "sliced-huge"]
REFERENCE = "fresh"
HUGE = 2**21
SAMPLE_S = 5e-4  # short samples: on a loaded machine many of them run without being preempted


def trips_per_sample(size: int) -> int:
    """Round trips per timed sample: about ``SAMPLE_S`` each on an idle machine (at least 1)."""
    round_trip = 2 * (3e-6 + size / 5e9)
    return max(1, int(SAMPLE_S / round_trip))


def child(sizes: list[int], samples: int) -> None:
    import numpy as np
    from mpi4py import MPI

    from ccb_helpers.mpi._memory import huge_page_bytes, numpy_hugepage_advice

    comm = MPI.COMM_WORLD
    wtime = MPI.Wtime
    rank, peer = comm.rank, 1 - comm.rank
    largest = max(sizes)
    with numpy_hugepage_advice(True):
        sliced = (np.full(largest, 1 + rank, np.uint8), np.full(largest, 0, np.uint8))
        # Twice the largest size plus a frame: a slice starting at a 2 MiB boundary inside it lies
        # on huge pages at every size.
        spare = largest + 2 * HUGE
        wide = (np.full(spare, 1 + rank, np.uint8), np.full(spare, 0, np.uint8))
        huge_at = [(-b.ctypes.data) % HUGE + HUGE for b in wide]
    with numpy_hugepage_advice(False):
        sliced_nohp = (np.full(largest, 1 + rank, np.uint8), np.full(largest, 0, np.uint8))

    def buffers(variant: str, size: int):
        if variant == "sliced-huge":
            return tuple(b[at : at + size] for b, at in zip(wide, huge_at))
        if variant.startswith("sliced"):  # "sliced", "sliced-nohp"
            send, recv = sliced if variant == "sliced" else sliced_nohp
            return send[:size], recv[:size]
        with numpy_hugepage_advice(variant != "fresh-nohp"):
            send, recv = np.empty(size, np.uint8), np.empty(size, np.uint8)
        if variant != "fresh-zero":
            send.fill(1 + rank)
            recv.fill(0)
        return send, recv

    def trips(send, recv, count):
        for _ in range(count):
            if rank == 0:
                comm.Send([send, MPI.BYTE], peer, 0)
                comm.Recv([recv, MPI.BYTE], peer, 0)
            else:
                comm.Recv([recv, MPI.BYTE], peer, 0)
                comm.Send([send, MPI.BYTE], peer, 0)

    def timed_each(send, recv, count):
        # mpi4py.bench's loop: every round trip timed on its own, half of it summed.
        total = 0.0
        for _ in range(count):
            t0 = wtime()
            trips(send, recv, 1)
            total += (wtime() - t0) / 2
        return total

    results = {v: {} for v in VARIANTS}
    huge = {v: {} for v in VARIANTS}
    for index, size in enumerate(sizes):
        # Per size, every variant's buffers are made once (as mpi4py.bench allocates per size),
        # warmed up, then timed in short samples that alternate between the variants.
        bufs = {v: buffers(v, size) for v in VARIANTS}
        count = trips_per_sample(size)
        for v in VARIANTS:
            trips(*bufs[v], 3)
            results[v][size] = []
            huge[v][size] = [huge_page_bytes(b) for b in bufs[v]]
        for k in range(samples):
            shift = (index + k) % len(VARIANTS)
            for v in VARIANTS[shift:] + VARIANTS[:shift]:
                comm.Barrier()
                if v == "fresh-pertrip":
                    results[v][size].append(timed_each(*bufs[v], count) / count)
                    continue
                t0 = wtime()
                trips(*bufs[v], count)
                results[v][size].append((wtime() - t0) / (2 * count))
        del bufs
    if rank == 0:
        json.dump({"times_s": results, "huge_page_bytes": huge}, sys.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument(
        "--percentile", type=float, default=50, help="compare this percentile of the samples (default 50: median)"
    )
    parser.add_argument("--json", help="write the raw times to this file")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    import ccb_helpers as ccb
    from ccb_helpers.mpi._args import parse_size

    sizes = [parse_size(s) for s in args.sizes.split(",")]
    if not 3 <= args.samples <= 1000:
        parser.error("--samples must be between 3 and 1000")
    if args.child:
        child(sizes, args.samples)
        return
    from ccb_helpers.mpi import mpiexec_command, run_with_timeout

    command = mpiexec_command(2)[:4] + [os.path.abspath(__file__), "--child", "--samples", str(args.samples)]
    command += ["--sizes", ",".join(str(s) for s in sizes)]
    load_before = os.getloadavg()[0]
    started = time.time()
    done = run_with_timeout(command, 3600)
    if done.returncode != 0:
        sys.exit(f"the job failed ({done.returncode}): {done.stderr[-3000:]}")
    data = json.loads(done.stdout)
    import numpy as np

    print(
        f"# one job, {args.samples} alternating samples per size, load average {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after, {time.time() - started:.0f} s; "
        f"percentile {args.percentile:g} of the samples relative to {REFERENCE}'s; [huge-page KiB send/recv on rank 0]"
    )
    print("| size | " + " | ".join(VARIANTS) + " |")
    print("|---|" + "---|" * len(VARIANTS))
    for size in sizes:
        ref = np.array(data["times_s"][REFERENCE][str(size)])
        cells = []
        for v in VARIANTS:
            t = np.array(data["times_s"][v][str(size)])
            hp = data["huge_page_bytes"][v][str(size)]
            q = args.percentile
            label = (
                ccb.format_time(float(np.percentile(t, q)))
                if v == REFERENCE
                else f"{np.percentile(t, q) / np.percentile(ref, q):.2f}"
            )
            cells.append(f"{label} [{hp[0] // 1024}/{hp[1] // 1024}]")
        print(f"| {ccb.format_bytes(size)} | " + " | ".join(cells) + " |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"sizes": sizes, "samples": args.samples, "load_before": load_before, **data}, handle)


if __name__ == "__main__":
    main()
