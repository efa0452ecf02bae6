"""The book's ring AllReduce run as an MPI program vs the MPI library's own Allreduce, same launch.

1. Ratio: ``python -m ccb_helpers.mpi`` ring AllReduce median / ``MPI_Allreduce`` median on the
   same buffers, N = 4 ranks on this machine, M = 16, 32, 64 MiB (target: ratio <= 1.5 for
   M >= 16 MiB).
2. Per-round overhead of the Python runner over the ping-pong alpha: ring AllReduce at M = 0
   (every round still sends its zero-byte messages), median time / rounds, against the alpha of
   a ping-pong in the same launch; on N = 2 (one rank per core) and N = 4 (oversubscribed).

3. The result explorer (chapter 6): one update (controls -> figure -> PNG -> readout) over the
   shipped example file, as a ratio to a bare matplotlib redraw of a comparable two-panel figure.

Prints tables; results go to benchmarks/README.md. Nothing is asserted (shared 2-core machine).
Usage: python benchmarks/bench_mpi.py [--repeats R]
"""

from __future__ import annotations

import argparse
import io
import os
import pathlib
import sys

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import ccb_helpers as ccb

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _timing import best_of  # noqa: E402

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "ccb_helpers" / "data" / "mpi" / "mpi_sweep_example.json"


def bare_redraw() -> None:
    """A comparable figure drawn with plain matplotlib: 5 log-log lines + 7 bars, saved as PNG."""
    figure = Figure(figsize=(9.0, 4.0), dpi=100)
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2)
    x = np.geomspace(256, 2**26, 10)
    for k in range(5):
        left.plot(x, (k + 1) * 1e-6 + x / 1e9, "o-")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    right.barh(np.arange(7), np.arange(1, 8))
    right.set_xscale("log")
    figure.tight_layout()
    figure.savefig(io.BytesIO(), format="png", dpi=100)


def explorer_benchmark() -> None:
    explorer = ccb.MPIResultExplorer(EXAMPLE)
    pairs = [value for _, value in explorer.controls["pair"].options]
    state = {"i": 0}

    def update():
        state["i"] += 1
        explorer.update(pair=pairs[state["i"] % len(pairs)])

    t_explorer = best_of(update, repeat=5)
    t_bare = best_of(bare_redraw, repeat=5)
    print(
        f"MPIResultExplorer update {t_explorer * 1e3:.0f} ms, bare matplotlib redraw {t_bare * 1e3:.0f} ms, "
        f"ratio {t_explorer / t_bare:.2f}"
    )


SIZES = [16 * 2**20, 32 * 2**20, 64 * 2**20]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    repeats = str(args.repeats)

    print(f"load average before the runs: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("== ring AllReduce through ccb_helpers.mpi vs MPI_Allreduce, N = 4 (one machine) ==")
    big = ccb.mpi.launch(
        [
            "sweep",
            "--pairs",
            "ring:all_reduce",
            "--sizes",
            ",".join(map(str, SIZES)),
            "--repeats",
            repeats,
            "--warmup",
            "2",
            "--alpha",
            "1e-6",
            "--beta",
            "1e9",
        ],
        n=4,
        timeout=1800,
    )
    env = big["environment"]
    print(
        f"{env['mpi_library']}, mpi4py {env['mpi4py']}, {env['cores_rank0_host']} cores, oversubscribed: {env['oversubscribed']}, "
        f"settings: {env['mpich_settings']}"
    )
    print(f"{'M':>8} {'book ring':>10} {'MPI lib':>10} {'ratio':>6} {'target':>7}  correct")
    for r in big["runs"]:
        ratio = r["median_s"] / r["library_median_s"]
        print(
            f"{ccb.format_bytes(r['m']):>8} {ccb.format_time(r['median_s']):>10} {ccb.format_time(r['library_median_s']):>10} "
            f"{ratio:6.2f} {'<= 1.5':>7}  {r['correct'] and r['library_correct']}"
        )

    print()
    print("== per-round overhead at M = 0 vs the ping-pong alpha of the same launch ==")
    print(
        f"{'N':>2} {'rounds':>6} {'ring M=0':>10} {'per round':>10} {'alpha':>9} {'per round / alpha':>18} {'Allreduce(0)':>13}"
    )
    for n in (2, 4):
        zero = ccb.mpi.launch(
            [
                "sweep",
                "--pairs",
                "ring:all_reduce",
                "--sizes",
                "0",
                "--repeats",
                str(10 * args.repeats),
                "--warmup",
                "5",
                "--pingpong-sizes",
                "0,64,1024,16384,262144,1048576",
                "--pingpong-repeats",
                "20",
            ],
            n=n,
            timeout=1800,
        )
        r = zero["runs"][0]
        per_round = r["median_s"] / r["rounds"]
        alpha = zero["alpha_s"]  # fitted to the fastest ping-pong samples
        print(
            f"{n:2d} {r['rounds']:6d} {ccb.format_time(r['median_s']):>10} {ccb.format_time(per_round):>10} "
            f"{ccb.format_time(alpha):>9} {per_round / alpha:18.1f} {ccb.format_time(r['library_median_s']):>13}"
        )
    print("(alpha: fitted to the fastest of 20 ping-pong samples per size between ranks 0 and 1, other ranks asleep)")
    print()
    print("== result explorer update vs a bare matplotlib redraw ==")
    explorer_benchmark()


if __name__ == "__main__":
    main()
