"""Chapter 6's :class:`~ccb_helpers.mpi.MPIResultExplorer` on the static site (one result file).

α and β are continuous log sliders, so the states cannot all be precomputed. The model of a run
is ``rounds · α + bytes / β`` (:func:`~ccb_helpers.algorithms.algorithm_terms`) and its bound
``max(L · α, max(S, R) / (k · β))`` (:func:`~ccb_helpers.bounds.combined_lower_bound`), so the
export holds, per run of the result, its measured times, the model's rounds and bytes, the
bound's rounds L and the busiest node's bytes max(S, R); ``mpi_result_explorer.js`` combines
them with α and β as :func:`~ccb_helpers.mpi.explorer.mpi_frame` does (tests/test_live_mpi.py
compares the two on random states). Where the size goes when the pair changes is precomputed
with the explorer's own rule for every (pair, size).
"""

from __future__ import annotations

from ..algorithms import algorithm_terms
from ..bandwidth import forced_volume
from ..bounds import latency_steps_lower_bound
from ..mpi.explorer import MPIResultExplorer, _nearest_size
from ..mpi.plots import BOUND_COLOR, LIBRARY_COLOR, pair_label
from ..plotting import COLORS
from ..units import format_bytes
from .controls import controls_spec

__all__ = ["export"]


def _run(run: dict) -> dict:
    """What the page needs of one run: its times, the model's and the bound's coefficients."""
    n, m, ports = run["n"], run["m"], run.get("ports", 1)
    cost = algorithm_terms(run["algorithm"], run["primitive"], n, m, ports, chunks=run.get("chunks"))
    return {
        "m": m,
        "m_label": format_bytes(m),
        "median": run["median_s"],
        "min": min(run["times_s"]),
        "max": max(run["times_s"]),
        "library": run.get("library_median_s"),
        "library_call": run.get("library_call", ""),
        "steps": int(cost.steps),
        "bytes": float(cost.bandwidth_bytes),
        "bound_steps": int(latency_steps_lower_bound(run["primitive"], n, ports=ports)),
        "max_sr": float(max(forced_volume(run["primitive"], n, m))),
        "ports": ports,
    }


def export(result) -> dict:
    """The live page's data for one result (a path, as the notebook's call names it).

    ``data["pairs"]`` maps ``"algorithm:primitive"`` to its label, colour, size options and runs
    (sorted by size); ``data["next_m"][pair][m]`` is the size the M slider shows after switching
    to ``pair`` from size ``m``.

    >>> d = export("ccb_helpers/data/mpi/mpi_sweep_example.json")["data"]
    >>> run = d["pairs"]["ring:all_reduce"]["runs"][0]
    >>> d["n"], run["m"], run["steps"], run["bytes"], run["bound_steps"], run["max_sr"]   # 2 (N-1) rounds, 2 (N-1) M / N
    (4, 256, 6, 384.0, 2, 384.0)
    """
    explorer = MPIResultExplorer(result)
    try:
        controls = controls_spec(explorer)
        options = {":".join(key): explorer._size_options(":".join(key)) for key in explorer.by_pair}
        by_pair, n = explorer.by_pair, explorer.n
    finally:
        explorer.close()
    sizes = sorted({m for opts in options.values() for _, m in opts})
    pairs = {}
    for (algorithm, primitive), runs in by_pair.items():
        label = pair_label(algorithm, primitive)
        pairs[f"{algorithm}:{primitive}"] = {
            "label": label,
            "tick": label.replace(" ", "\n", 1),
            "color": COLORS.get(algorithm, COLORS["latency"]),
            "options": [[text, m] for text, m in options[f"{algorithm}:{primitive}"]],
            "runs": [_run(r) for r in runs],
        }
    next_m = {key: {str(m): _nearest_size([v for _, v in opts], m) for m in sizes} for key, opts in options.items()}
    data = {"n": n, "pairs": pairs, "next_m": next_m, "bound_color": BOUND_COLOR, "library_color": LIBRARY_COLOR}
    return {"explorer": "MPIResultExplorer", "args": [str(result)], "controls": controls, "data": data}
