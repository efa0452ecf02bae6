"""Chapter 3's :class:`~ccb_helpers.explorers.BandwidthExplorer` on the static site.

β is a continuous log slider, so the states cannot all be precomputed. What a state shows is
linear in M (a power of two: scaling by it is exact) and in 1/β, except where whole-byte blocks
make the busiest node's volume a step function of M (Scatter / Gather when N does not divide M).
So the export holds, per primitive and N, each role's bytes for M = 1
(:func:`~ccb_helpers.bandwidth.role_volumes`), the busiest node's for equal blocks of M/N, and
the busiest node's exact bytes (:func:`~ccb_helpers.bandwidth.forced_volume`) at every size of
the M slider where they differ from that; ``bandwidth_explorer.js`` multiplies by M and divides
by k·β as
:func:`~ccb_helpers.explorers.bandwidth.bandwidth_frame` does (tests/test_live_bandwidth.py
compares the two on random states).
"""

from __future__ import annotations

from ..bandwidth import _forced_volume, forced_volume, role_volumes
from ..explorers.bandwidth import (
    _LIMIT_COLOR,
    _N_CURVE,
    _N_TICKS,
    _ROLE_NAMES,
    _UNITS,
    BandwidthExplorer,
    _coefficients,
)
from ..plotting import COLORS
from ..primitives import PRIMITIVE_LABELS
from .cache import cached
from .controls import controls_spec

__all__ = ["export"]


def _compact(value: float):
    """A whole number of bytes as a JSON integer (shorter), anything else as it is."""
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def export() -> dict:
    """The live page's data: controls, and per primitive the volumes per byte of M for every N.

    ``data["primitives"][p]`` holds ``send`` / ``recv`` (the busiest node per byte of M with
    equal blocks, index ``N - n_min``), ``exact`` (``{N: {index of M: [send, recv]}}`` where the
    bytes are not that times M), ``roles`` (``[[send...], [recv...]]`` per role), the role tick
    labels, the N curve of ``max(S, R) / M`` and its limit with the panel title.

    >>> d = export()["data"]
    >>> d["n_min"], d["primitives"]["all_reduce"]["send"][6]   # N = 8: 2 (N-1)/N
    (2, 1.75)
    >>> d["m_values"][0], d["primitives"]["scatter"]["exact"]["3"]["0"]   # 1 KiB in blocks 342, 341, 341
    (1024.0, [682, 341])
    """
    return cached("bandwidth_explorer", _export)  # the build computes it once; tests read it


def _export() -> dict:
    explorer = BandwidthExplorer()
    try:
        controls = controls_spec(explorer)
    finally:
        explorer.close()
    n_control = next(c for c in controls if c["name"] == "n")
    ns = range(n_control["min"], n_control["max"] + 1)
    m_values = [value for _, value in next(c for c in controls if c["name"] == "m")["options"]]
    primitives = {}
    for primitive, label in PRIMITIVE_LABELS.items():
        roles = list(role_volumes(primitive, 2, 1.0))
        per_n = [(_forced_volume(primitive, n, 1.0, granular=False), role_volumes(primitive, n, 1.0)) for n in ns]
        exact = {}
        for n, (per_byte, _) in zip(ns, per_n):
            for i, m in enumerate(m_values):
                volume = forced_volume(primitive, n, m)
                if volume != (per_byte.send * m, per_byte.recv * m):
                    exact.setdefault(str(n), {})[str(i)] = [_compact(volume.send), _compact(volume.recv)]
        curve, limit = _coefficients(primitive)
        primitives[primitive] = {
            "label": label,
            "send": [v.send for v, _ in per_n],
            "recv": [v.recv for v, _ in per_n],
            "exact": exact,
            "roles": [[[r[role].send for _, r in per_n], [r[role].recv for _, r in per_n]] for role in roles],
            "role_labels": [_ROLE_NAMES[role] for role in roles],
            "curve": curve.tolist(),
            "limit": limit,
            "limit_title": f"系数随 N 增大趋于 {limit:.3g}",
        }
    data = {
        "n_min": n_control["min"],
        "m_values": m_values,
        "primitives": primitives,
        "n_curve": _N_CURVE.tolist(),
        "n_ticks": [[v, f"{v:g}"] for v in _N_TICKS],
        "units": [[unit, scale] for unit, scale in _UNITS],
        "colors": {
            "send": COLORS["latency"],
            "recv": COLORS["bandwidth"],
            "curve": COLORS["bound"],
            "point": COLORS["bandwidth"],
            "limit": _LIMIT_COLOR,
        },
    }
    return {"explorer": "BandwidthExplorer", "args": [], "controls": controls, "data": data}
