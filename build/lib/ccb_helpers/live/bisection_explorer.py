"""Chapter 5's live explorer: :class:`~ccb_helpers.explorers.bisection.BisectionExplorer` on the static page.

Its controls are discrete (family x size x primitive x oversubscription), so every state is
precomputed here by running :func:`~ccb_helpers.explorers.bisection.bisection_state`, the
function the Jupyter explorer's ``refresh`` draws: one readout per state (packed, see
:func:`ccb_helpers.live.compress.compress_texts`), one drawing of the cut per topology and one pair of curves per
(family, primitive, oversubscription) -- shared by every state that shows them. The page's
``_static/live/bisection_explorer.js`` assembles the FigureSpec of a state from these parts.
"""

from __future__ import annotations

import numpy as np

from ..explorers.bisection import BisectionExplorer, M, bisection_state
from ..plotting import COLORS
from ..primitives import PRIMITIVE_LABELS
from ..units import format_bytes, format_time
from .cache import cached
from .compress import compress_texts
from .controls import controls_spec
from .figure import graph_limits, topology_graph

__all__ = ["export", "data"]

#: Oversubscription factors of the control (its options' values).
FACTORS = (1.0, 2.0, 4.0)


def _round(values, digits: int = 3) -> list:
    """Drawing coordinates, rounded (positions on the page: 3 decimals are far below a pixel)."""
    return [round(float(v), digits) for v in np.asarray(values, dtype=float).ravel()]


def _significant(values, digits: int = 5) -> list:
    """Curve points to 5 significant digits (a curve drawn 300 px high cannot show more)."""
    return [float(f"{float(v):.{digits}g}") for v in values]


def _graph(state) -> dict:
    """The cut drawn on the topology, by :func:`ccb_helpers.live.figure.topology_graph` (the plotting
    module's own geometry, as chapter 2's live explorer draws it), with its limits and title."""
    topo = state["topology"]
    graph, title, _ = topology_graph(topo, 0, state["side"])
    xlim, ylim = graph_limits(topo, 0, state["side"])
    return {"graph": graph, "title": title, "xlim": _round(xlim), "ylim": _round(ylim), "n": topo.n}


def _ticks(lo: float, hi: float) -> list:
    """Ticks of the log time axis inside [lo, hi], labelled as the Python figure labels them
    (``format_time``): decades, or 1-2-5 (then every digit) when fewer than two decades fit."""
    first, last = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    for mantissas in ((1,), (1, 2, 5), tuple(range(1, 10))):
        values = [m * 10.0**e for e in range(first, last + 1) for m in mantissas]
        values = [v for v in values if lo <= v <= hi]
        if len(values) >= 2:
            break
    return [[v, format_time(v)] for v in values]


def data() -> dict:
    """Every state's data (:func:`_data`), cached on disk for this version of the package."""
    return cached("bisection_explorer", _data)


def _data() -> dict:
    """Every state's readout and figure parts (see the module docstring).

    A state's index in ``readouts`` is ``first[family] + ((size - low) * P + p) * F + f`` with ``p``
    the primitive's and ``f`` the factor's position in ``primitives`` / ``factors[family]``;
    ``applied[family][size - low][f]`` is the oversubscription its drawing and curves use and
    ``points[i]`` its two bounds (s), exact: the figure marks them at N.
    """
    sizes = BisectionExplorer.SIZES
    primitives = list(PRIMITIVE_LABELS)
    graphs, curves, ns, first, applied_out, readouts, points = {}, {}, {}, {}, {}, [], []
    for family, (lo, hi, _) in sizes.items():
        factors = FACTORS if family == "fat_tree" else (1.0,)
        first[family] = len(readouts)
        applied_out[family] = []
        for size in range(lo, hi + 1):
            row = []
            for primitive in primitives:
                for factor in factors:
                    s = bisection_state(family, size, primitive, factor)
                    applied = 1.0 if s["applied"] is None else s["applied"]
                    if primitive == primitives[0]:
                        row.append(applied)
                    gkey = f"{family}|{size}|{applied:g}"
                    if gkey not in graphs:
                        graphs[gkey] = _graph(s)
                    nkey = f"{family}|{applied:g}"
                    ckey = f"{family}|{primitive}|{applied:g}"
                    if ckey not in curves:
                        n, bis, node = s["curves"]
                        ns.setdefault(nkey, [int(v) for v in n])
                        curves[ckey] = {
                            "bis": _significant(bis),
                            "node": _significant(node),
                            "xlim": _significant(s["xlim"]),
                            "ylim": _significant(s["ylim"]),
                            "yticks": _ticks(*s["ylim"]),
                            "title": s["title"],
                        }
                    readouts.append(s["readout"])
                    points.append([s["bisection"], s["node"]])
            applied_out[family].append(row)
    return {
        "primitives": primitives,
        "factors": {f: list(FACTORS if f == "fat_tree" else (1.0,)) for f in sizes},
        "low": {f: lo for f, (lo, _, _) in sizes.items()},
        "first": first,
        "applied": applied_out,
        "readouts": compress_texts(readouts),
        "points": points,
        "sizes": {f: list(v) for f, v in sizes.items()},
        "graphs": graphs,
        "ns": ns,
        "curves": curves,
        "xticks": [[4**e, f"{4**e:g}"] for e in range(1, 7)],
        "colors": {"bisection": COLORS["bisection"], "node": COLORS["latency"]},
        "labels": {
            "bisection": "bisection 下界",
            "node": "节点级下界（p = d）",
            "x": "节点数 N",
            "y": f"时间下界（M = {format_bytes(M)}）",
        },
    }


def export(*args) -> dict:
    """The live element's JSON: explorer name, constructor arguments, controls and :func:`data`."""
    explorer = BisectionExplorer(*args)
    try:
        controls = controls_spec(explorer)
    finally:
        explorer.close()
    return {"explorer": "BisectionExplorer", "args": list(args), "controls": controls, "data": data()}
