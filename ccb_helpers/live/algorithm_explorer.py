"""Chapter 4's :class:`~ccb_helpers.explorers.AlgorithmExplorer` on the static site.

α and β are continuous log sliders, so the states cannot all be precomputed. Every cost model is
``rounds · α + bytes / β``, so the export holds, per port count k and node count N, each
algorithm's rounds and bytes per byte of M (:func:`~ccb_helpers.algorithms.algorithm_terms` at
M = 1), the bound's rounds and volume coefficient; for the pipelined double binary tree, whose
rounds depend on its chunk count C, the rounds as ``a·C + b + Σ min(C, g)`` over a few gaps g,
derived from the model and checked against it at the export. ``algorithm_explorer.js`` combines
them with α, β and M as :func:`~ccb_helpers.explorers.algorithm.algorithm_frame` does
(tests/test_live_algorithm.py compares the two on random states).
"""

from __future__ import annotations

import numpy as np

from ..algorithms import ALGORITHM_LABELS, MAX_CHUNKS, algorithm_terms, applicable_algorithms, tree_height
from ..bandwidth import volume_coefficient
from ..bounds import latency_steps_lower_bound
from ..explorers.algorithm import (
    _BAND_ALPHA,
    _BAND_POINTS,
    _EFFICIENCY_TICKS,
    _M,
    _M_STAR_COLOR,
    _M_TICK_EXPONENTS,
    _NO_COLOR,
    _PRIMITIVE,
    _STEP,
    AlgorithmExplorer,
    _snap,
)
from ..hardware import PRESETS
from ..plotting import COLORS
from ..units import format_bytes
from .cache import cached
from .controls import controls_spec

__all__ = ["export"]

_DBT = "double_binary_tree"
#: Chunk counts at which the double binary tree's rounds are read off the model to find a, b and
#: the gaps (every gap is below it: the trees of N <= 1024 have at most 11 levels), then checked.
_CHUNKS_READ = 64
_CHUNKS_CHECKED = (100, 1000, 10**6, 2**30, MAX_CHUNKS)


def _dbt_rounds_form(n: int, ports: int) -> tuple[int, int, list[int]]:
    """``(a, b, gaps)`` with rounds(C) = a·C + b + Σ min(C, g) for the double binary tree's model.

    >>> _dbt_rounds_form(8, 2)   # 2 (H + C - 1) with H = 3
    (2, 4, [])
    """
    read = np.arange(1, _CHUNKS_READ + 2)
    chunks = np.concatenate([read, np.array(_CHUNKS_CHECKED, dtype=np.int64)])
    measured = algorithm_terms(_DBT, _PRIMITIVE, n, 1.0, ports=ports, chunks=chunks).steps.tolist()
    r = measured[: len(read)]  # r[c - 1] = rounds(c)
    a = r[_CHUNKS_READ] - r[_CHUNKS_READ - 1]
    greater = [r[c] - r[c - 1] - a for c in range(1, _CHUNKS_READ + 1)]  # greater[c - 1] = #{g > c}
    gaps = []
    for c in range(1, _CHUNKS_READ):
        gaps += [c + 1] * (greater[c - 1] - greater[c])
    b = r[0] - a - len(gaps)  # every gap (> 1) adds min(1, g) = 1 at C = 1
    for c, rounds in zip(chunks.tolist(), measured):
        if a * c + b + sum(min(c, g) for g in gaps) != rounds:
            raise AssertionError(
                f"double binary tree rounds at n={n}, ports={ports}, chunks={c} do not fit a·C + b + Σ min(C, g)"
            )
    return a, b, gaps


def export() -> dict:
    """The live page's data: controls, presets, and per k and N the cost models' coefficients.

    ``data["ports"][k]`` holds ``names`` (the algorithms that implement AllReduce with k ports),
    ``applicable`` (per N a bit mask over ``names``), ``latency_steps`` (the bound's rounds),
    ``steps`` / ``per_byte`` per algorithm and ``dbt`` (``a``, ``b``, ``gaps``); index ``N - n_min``.

    >>> d = export()["data"]
    >>> k1 = d["ports"]["1"]
    >>> k1["steps"]["ring"][6], k1["per_byte"]["ring"][6], k1["latency_steps"][6]   # N = 8: 2 (N-1) rounds, 2 (N-1)/N
    (14, 1.75, 3)
    """
    return cached("algorithm_explorer", _export)  # the build computes it once; tests read it


def _export() -> dict:
    explorer = AlgorithmExplorer()
    try:
        controls = controls_spec(explorer)
    finally:
        explorer.close()
    by_name = {c["name"]: c for c in controls}
    ns = range(by_name["n"]["min"], by_name["n"]["max"] + 1)
    ports = {}
    for k in range(by_name["k"]["min"], by_name["k"]["max"] + 1):
        names = applicable_algorithms(_PRIMITIVE, ports=k)
        linear = [name for name in names if name != _DBT]
        terms = {name: [algorithm_terms(name, _PRIMITIVE, n, 1.0, ports=k) for n in ns] for name in linear}
        forms = [_dbt_rounds_form(n, k) for n in ns]
        present = [set(applicable_algorithms(_PRIMITIVE, n=n, ports=k)) for n in ns]
        ports[str(k)] = {
            "names": names,
            "applicable": [sum(1 << j for j, name in enumerate(names) if name in here) for here in present],
            "latency_steps": [int(latency_steps_lower_bound(_PRIMITIVE, n, ports=k)) for n in ns],
            "steps": {name: [int(t.steps) for t in terms[name]] for name in linear},
            "per_byte": {name: [float(t.bandwidth_bytes) for t in terms[name]] for name in linear},
            "dbt": {"a": [f[0] for f in forms], "b": [f[1] for f in forms], "gaps": [f[2] for f in forms]},
        }
    band_grid = np.geomspace(float(_M[0]), float(_M[-1]), _BAND_POINTS)  # best_algorithm_bands' own grid
    every = list(dict.fromkeys(name for k in ports.values() for name in k["names"]))
    data = {
        "n_min": by_name["n"]["min"],
        "ports": ports,
        "coefficient": [float(volume_coefficient(_PRIMITIVE, n)) for n in ns],
        "height": [int(tree_height(n)) for n in ns],
        "max_chunks": MAX_CHUNKS,
        "m_grid": _M.tolist(),
        "band_grid": band_grid.tolist(),
        "band_labels": [format_bytes(m) for m in band_grid],
        "m_ticks": [[2.0**e, format_bytes(2.0**e)] for e in _M_TICK_EXPONENTS],
        "efficiency_ticks": [[v, f"{v:g}"] for v in _EFFICIENCY_TICKS],
        "presets": {
            key: {
                "label": p.label,
                "alpha": p.alpha,
                "beta": p.beta,
                "alpha_us": _snap(p.alpha * 1e6),
                "beta_gbps": _snap(p.beta / 1e9),
            }
            for key, p in PRESETS.items()
        },
        "step": _STEP,
        "labels": {name: ALGORITHM_LABELS[name] for name in every},
        "colors": {name: COLORS.get(name, _NO_COLOR) for name in every},
        "bound_color": COLORS["bound"],
        "m_star_color": _M_STAR_COLOR,
        "no_color": _NO_COLOR,
        "band_alpha": _BAND_ALPHA,
    }
    return {"explorer": "AlgorithmExplorer", "args": [], "controls": controls, "data": data}
