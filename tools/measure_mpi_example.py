"""Re-measure chapter 6's shipped example run, ``ccb_helpers/data/mpi/mpi_sweep_example.json``.

One launch on this machine, N = 4 ranks: the ping-pong between ranks 0 and 1 (ranks 2 and 3
asleep) that gives α and β, then the sweep of seven algorithm × primitive pairs over ten sizes,
15 timed runs per case after 2 warm-ups (10× both up to 8 KiB), the MPI library's collective on
the same buffers. It takes about 5 minutes on a loaded 2-core machine; run it when the machine is
quiet, then re-execute chapter 6 (``python tools/execute_notebooks.py notebooks/06_mpi_runs.ipynb``).

Usage: python tools/measure_mpi_example.py [--out ccb_helpers/data/mpi/mpi_sweep_example.json]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ccb_helpers as ccb  # noqa: E402

PAIRS = (
    "ring:all_reduce,recursive_halving_doubling:all_reduce,recursive_doubling:all_reduce,"
    "binomial_tree:all_reduce,binomial_tree:broadcast,bruck:all_gather,ring:all_gather"
)
SIZES = "256,1KiB,4KiB,16KiB,64KiB,256KiB,1MiB,4MiB,16MiB,64MiB"
PINGPONG_SIZES = "0,1,4,16,64,256,1KiB,4KiB,16KiB,64KiB,256KiB,1MiB,4MiB,16MiB"
NOTE = (
    "Example result shipped with the book (not a cluster run): N = 4 ranks on the 2-core machine that "
    "builds the book, shared with other jobs (oversubscribed, MPICH progress throttling on); 15 timed runs "
    "per case after 2 warm-up runs, 10 times both up to 8 KiB (OSU micro-benchmarks method); alpha and "
    "beta fitted to a ping-pong between ranks 0 and 1 in the same launch (ranks 2 and 3 asleep; OSU "
    "osu_latency method: separate written buffers allocated per size, warm-up, 10 samples per size, the "
    "mean). Replace it with your own cluster run."
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "ccb_helpers" / "data" / "mpi" / "mpi_sweep_example.json"))
    args = parser.parse_args()
    arguments = ["sweep", "--pairs", PAIRS, "--sizes", SIZES, "--repeats", "15", "--warmup", "2"]
    arguments += ["--pingpong-sizes", PINGPONG_SIZES, "--pingpong-repeats", "10", "--note", NOTE]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; mpiexec -n 4 ... (about 5 min)")
    result = ccb.mpi.launch(arguments, n=4, timeout=1800)
    import json

    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1)
        handle.write("\n")
    print(
        f"wrote {args.out}: alpha {ccb.format_time(result['alpha_s'])}, beta {ccb.format_bandwidth(result['beta_Bps'])}"
    )


if __name__ == "__main__":
    main()
