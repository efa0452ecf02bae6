"""Chapter 4's :class:`~ccb_helpers.explorers.AlgorithmExplorer` on the static site.

α, β and γ are continuous log sliders, so the states cannot all be precomputed. Every linear
cost model is ``rounds · α + bytes / β + added bytes · γ``, so the export holds, per primitive,
port count k and node count N, each algorithm's rounds, bytes and added bytes per byte of M
(:func:`~ccb_helpers.algorithms.algorithm_terms` at M = 1) and the bound's rounds and volume
coefficient. The pipelined algorithms' rounds depend on their chunk count C: for the double
binary tree as ``a·C + b + Σ min(C, g)`` over a few gaps g (its rounds, and the chunks it adds on
the reduce path), derived from the model and checked against it at the export; for the
pipelined chain and tree as ``A + B·C`` with the added segments ``mul · rounds - sub`` and the
fill ``C`` of :func:`~ccb_helpers.algorithms.optimal_segments`. ``algorithm_explorer.js``
combines them with α, β, γ and M as :func:`~ccb_helpers.explorers.algorithm.algorithm_frame`
does (tests/test_live_algorithm.py compares the two on random states).
"""

from __future__ import annotations

import numpy as np

from ..algorithms import ALGORITHM_LABELS, ALGORITHMS, MAX_CHUNKS, algorithm_terms, applicable_algorithms, tree_height
from ..algorithms.pipelined import _pipeline, _reduce_fill
from ..bandwidth import volume_coefficient
from ..bounds import REDUCING_PRIMITIVES, latency_steps_lower_bound
from ..explorers.algorithm import (
    _BAND_ALPHA,
    _BAND_POINTS,
    _BANDS_LISTED,
    _EFFICIENCY_TICKS,
    _M,
    _M_STAR_COLOR,
    _M_TICK_EXPONENTS,
    _NO_COLOR,
    _STEP,
    PRIMITIVES,
    AlgorithmExplorer,
    _preset_gamma_ps,
    _snap,
)
from ..hardware import PRESETS
from ..plotting import COLORS
from ..primitives import PRIMITIVE_LABELS
from ..units import format_bytes
from .cache import cached
from .controls import controls_spec

__all__ = ["export"]

_DBT = "double_binary_tree"
#: Chunk counts at which the double binary tree's counts are read off the model to find a, b and
#: the gaps (every gap is below it: the trees of N <= 1024 have at most 11 levels), then checked.
_CHUNKS_READ = 64
_CHUNKS_CHECKED = (100, 1000, 10**6, 2**30, MAX_CHUNKS)


def _chunk_form(measure, what: str) -> tuple[int, int, list[int]]:
    """``(a, b, gaps)`` with ``measure(C) = a·C + b + Σ min(C, g)``, read off and checked.

    ``measure`` maps an int64 array of chunk counts to the integer counts.
    """
    read = np.arange(1, _CHUNKS_READ + 2)
    chunks = np.concatenate([read, np.array(_CHUNKS_CHECKED, dtype=np.int64)])
    measured = [int(v) for v in measure(chunks)]
    r = measured[: len(read)]  # r[c - 1] = measure(c)
    a = r[_CHUNKS_READ] - r[_CHUNKS_READ - 1]
    greater = [r[c] - r[c - 1] - a for c in range(1, _CHUNKS_READ + 1)]  # greater[c - 1] = #{g > c}
    gaps = []
    for c in range(1, _CHUNKS_READ):
        gaps += [c + 1] * (greater[c - 1] - greater[c])
    b = r[0] - a - len(gaps)  # every gap (> 1) adds min(1, g) = 1 at C = 1
    for c, value in zip(chunks.tolist(), measured):
        if a * c + b + sum(min(c, g) for g in gaps) != value:
            raise AssertionError(f"{what} at chunks={c} do not fit a·C + b + Σ min(C, g)")
    return a, b, gaps


def _dbt_rounds_form(n: int, ports: int) -> tuple[int, int, list[int]]:
    """``(a, b, gaps)`` with rounds(C) = a·C + b + Σ min(C, g) for the double binary tree's model.

    >>> _dbt_rounds_form(8, 2)   # 2 (H + C - 1) with H = 3
    (2, 4, [])
    """
    return _chunk_form(
        lambda c: algorithm_terms(_DBT, "all_reduce", n, 1.0, ports=ports, chunks=c).steps,
        f"double binary tree rounds at n={n}, ports={ports}",
    )


def _dbt_added_form(n: int, ports: int) -> tuple[int, int, list[int]]:
    """The same form for the chunks the double binary tree adds on its reduce path (γ).

    >>> _dbt_added_form(8, 2)   # 2 (H + C - 1) - 1 with H = 3
    (2, 3, [])
    """

    def added(c):
        reduced = algorithm_terms(_DBT, "all_reduce", n, 1.0, ports=ports, chunks=c).reduce_bytes
        return np.rint(reduced * 2 * c).astype(np.int64)  # chunks of M / (2C), M = 1

    return _chunk_form(added, f"double binary tree added chunks at n={n}, ports={ports}")


def _port_data(primitive: str, k: int, ns) -> dict:
    """Per N: the applicable algorithms and each one's coefficients, for one primitive and port count."""
    names = applicable_algorithms(primitive, ports=k)
    present = [set(applicable_algorithms(primitive, n=n, ports=k)) for n in ns]
    reducing = primitive in REDUCING_PRIMITIVES
    linear, pipelined = {}, {}
    for name in names:
        model = ALGORITHMS[name][primitive]
        if name == _DBT:
            continue
        if model.optimal_chunks is None:
            # Per byte as _best_algorithm reads them (the power-of-two models only where they apply).
            terms = [
                algorithm_terms(name, primitive, n if name in here else 2, 1.0, ports=k) for n, here in zip(ns, present)
            ]
            linear[name] = {
                "steps": [int(t.steps) for t in terms],
                "per_byte": [float(t.bandwidth_bytes) for t in terms],
                "reduced": [float(t.reduce_bytes) for t in terms] if reducing else None,
            }
        else:
            fill, per = _pipeline(name, np.array(list(ns)), k)
            entry = {"fill": fill.tolist(), "per": per.tolist()}
            if reducing:
                added = _reduce_fill(name, np.array(list(ns)), k)
                two = (name == "pipelined_binary_tree") and k >= 2
                single = [int(n >= 4 and n & (n - 1) == 0) for n in ns]
                entry.update(
                    added=[int(v) for v in added],
                    mul=[2 if two and n != 2 else 1 for n in ns],
                    sub=[s if two and n != 2 else 0 for s, n in zip(single, ns)],
                )
            pipelined[name] = entry
    out = {
        "names": names,
        "applicable": [sum(1 << j for j, name in enumerate(names) if name in here) for here in present],
        "linear": linear,
        "pipelined": pipelined,
    }
    if _DBT in names:
        rounds = [_dbt_rounds_form(n, k) for n in ns]
        added = [_dbt_added_form(n, k) for n in ns]
        out["dbt"] = {
            "a": [f[0] for f in rounds],
            "b": [f[1] for f in rounds],
            "gaps": [f[2] for f in rounds],
            "ra": [f[0] for f in added],
            "rb": [f[1] for f in added],
            "rgaps": [f[2] for f in added],
        }
    return out


def export() -> dict:
    """The live page's data: controls, presets, and per primitive, k and N the cost models' coefficients.

    ``data["primitives"][p]["ports"][k]`` holds ``names`` (the algorithms that implement ``p``
    with k ports), ``applicable`` (per N a bit mask over ``names``), ``linear`` (per algorithm
    ``steps`` / ``per_byte`` / ``reduced``), ``pipelined`` (per algorithm ``fill`` / ``per``, and
    for a Reduce ``added`` / ``mul`` / ``sub``) and for AllReduce ``dbt`` (rounds ``a``, ``b``,
    ``gaps``; added chunks ``ra``, ``rb``, ``rgaps``); index ``N - n_min``.

    >>> d = export()["data"]
    >>> k1 = d["primitives"]["all_reduce"]["ports"]["1"]["linear"]
    >>> k1["ring"]["steps"][6], k1["ring"]["per_byte"][6], k1["ring"]["reduced"][6], d["latency_steps"]["1"][6]
    (14, 1.75, 0.875, 3)
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
    ks = range(by_name["k"]["min"], by_name["k"]["max"] + 1)
    primitives = {
        primitive: {
            "coefficient": [float(volume_coefficient(primitive, n)) for n in ns],
            "ports": {str(k): _port_data(primitive, k, ns) for k in ks},
        }
        for primitive in PRIMITIVES
    }
    band_grid = np.geomspace(float(_M[0]), float(_M[-1]), _BAND_POINTS)  # best_algorithm_bands' own grid
    every = list(dict.fromkeys(name for p in primitives.values() for k in p["ports"].values() for name in k["names"]))
    data = {
        "n_min": by_name["n"]["min"],
        "primitives": primitives,
        "primitive_labels": {p: PRIMITIVE_LABELS[p] for p in PRIMITIVES},
        "reducing": [p for p in PRIMITIVES if p in REDUCING_PRIMITIVES],
        "latency_steps": {str(k): [int(latency_steps_lower_bound("all_reduce", n, ports=k)) for n in ns] for k in ks},
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
                "gamma_ps": _preset_gamma_ps(key),
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
        "bands_listed": _BANDS_LISTED,
    }
    return {"explorer": "AlgorithmExplorer", "args": [], "controls": controls, "data": data}
