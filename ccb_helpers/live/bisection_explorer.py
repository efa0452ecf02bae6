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
from ..plotting.topology import _layout, _topology_geometry
from ..primitives import PRIMITIVE_LABELS
from ..units import format_bytes, format_time
from .cache import cached
from .compress import compress_texts
from .controls import controls_spec

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
    """The cut drawn on the topology: what ``_TopologyArtists.update`` draws with a side.

    Nodes are the endpoints then the switches; each link is a pair of node indices, ``wrap`` marks the torus's
    wrap-around links (drawn as a dashed ``arc3`` of bend 0.25) and ``cut`` those the cut crosses.
    """
    topo = state["topology"]
    geo = _topology_geometry(topo, 0, frozenset(state["side"]))
    g = topo.graph
    pos = _layout(topo)
    ends = [v for v, kind in g.nodes(data="kind") if kind == "endpoint"]  # the order the geometry uses
    switches = [v for v, kind in g.nodes(data="kind") if kind == "switch"]
    index = {v: i for i, v in enumerate(ends + switches)}
    points = [pos[v] for v in ends + switches]
    # The geometry lists the links in the graph's order, straight ones and wrap-around arcs apart:
    # walk the graph's links in that order and take each from the list whose next entry it is.
    straight, arcs = [], []
    for u, v in g.edges:
        k = len(straight)
        if k < len(geo["straight"]) and np.array_equal(geo["straight"][k], np.array([pos[u], pos[v]])):
            straight.append((index[u], index[v]))
        else:
            arc = geo["arcs"][len(arcs)]
            if not (np.array_equal(arc[0], pos[u]) and np.array_equal(arc[-1], pos[v])):
                raise AssertionError(f"{topo.name}: link {u}-{v} is not where the drawing has it")
            arcs.append((index[u], index[v]))
    segments = straight + arcs
    cut = list(geo["straight_cut"]) + list(geo["arcs_cut"])
    links = list(geo["straight_links"]) + list(geo["arcs_links"])
    n_ends = len(geo["ends"])
    # Disc areas of the Python drawing (190 / 40 / 14 pt^2) as radii in CSS px (1 pt = 4/3 px).
    area = 190 if n_ends <= 32 else (40 if n_ends <= 128 else 14)
    lo, hi = geo["lo"], geo["hi"]
    pad = 0.08 * max(hi - lo) + 0.3
    return {
        "xy": _round(points), "ends": n_ends, "side": "".join("1" if s else "0" for s in geo["in_side"]),
        "edges": [i for pair in segments for i in pair],
        "cut": "".join("1" if c else "0" for c in cut),
        "links": [int(k) for k in links] if any(k != 1 for k in links) else None,
        "wrap": len(geo["straight"]),  # links from this index on are wrap-around arcs
        "r": round(float(np.sqrt(area / np.pi)) * 4 / 3, 2),
        "xlim": _round([lo[0] - pad, hi[0] + pad]), "ylim": _round([lo[1] - pad, hi[1] + pad]),
        "title": f"{topo.name.split(' (')[0]}：平衡割切断 {geo['crossing']} 条链路（红色）",
    }


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
                        curves[ckey] = {"bis": _significant(bis), "node": _significant(node),
                                        "xlim": _significant(s["xlim"]), "ylim": _significant(s["ylim"]),
                                        "yticks": _ticks(*s["ylim"]), "title": s["title"]}
                    readouts.append(s["readout"])
                    points.append([s["bisection"], s["node"]])
            applied_out[family].append(row)
    return {
        "primitives": primitives, "factors": {f: list(FACTORS if f == "fat_tree" else (1.0,)) for f in sizes},
        "low": {f: lo for f, (lo, _, _) in sizes.items()}, "first": first, "applied": applied_out,
        "readouts": compress_texts(readouts), "points": points, "sizes": {f: list(v) for f, v in sizes.items()}, "graphs": graphs, "ns": ns, "curves": curves,
        "xticks": [[4**e, f"{4**e:g}"] for e in range(1, 7)],
        "colors": {"cut": COLORS["bandwidth"], "plain": "#bbbbbb", "side": COLORS["latency"], "other": COLORS["ring_b"],
                   "switch": "#888888", "bisection": COLORS["bisection"], "node": COLORS["latency"]},
        "labels": {"bisection": "bisection 下界", "node": "节点级下界（p = d）", "x": "节点数 N",
                   "y": f"时间下界（M = {format_bytes(M)}）"},
    }


def export(*args) -> dict:
    """The live element's JSON: explorer name, constructor arguments, controls and :func:`data`."""
    explorer = BisectionExplorer(*args)
    try:
        controls = controls_spec(explorer)
    finally:
        explorer.close()
    return {"explorer": "BisectionExplorer", "args": list(args), "controls": controls, "data": data()}
