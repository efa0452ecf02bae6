"""Chapter 7's live explorer: :class:`~ccb_helpers.synthesis_figures.SynthesisExplorer` on the static page.

Its controls are discrete (topology x steps x chunks x step): every state is precomputed here
from :func:`~ccb_helpers.synthesis_figures.synthesis_state`, the function the Jupyter explorer's
``refresh`` draws. Shared parts are stored once: the node positions and links per topology, the
(S, R/C) plane per instance, the arrows of each drawn step, one readout per instance.

The step drawing is made for a phone first (issue #31): a full arrow is the normal case and is
grey and unlabelled (the title says how many chunks a full link carries); only an arrow with
room left is coloured and labelled ``chunks/capacity``, and its label is placed where it
overlaps no node and no other label at the panel's size on the page (about 340 CSS px wide,
both side by side on a desktop column and stacked on a 390 px phone).
"""

from __future__ import annotations

import numpy as np

from ..plotting import COLORS
from ..synthesis_figures import (
    _FULL_COLOR,
    _SPARE_COLOR,
    ARC_RAD,
    SynthesisExplorer,
    _arc_control,
    _plane_limits,
    synthesis_state,
)
from ..synthesis_figures import _explorer_topology as _topology
from .cache import cached
from .compress import compress_texts
from .controls import controls_spec

__all__ = ["export", "data"]

#: The step panel's drawing size on the page in CSS px (square; about 320 px both side by side in
#: a desktop column and stacked at 390 px, where it asks for that height) and its label font size.
PANEL_PX, LABEL_PX = 320, 12
#: Node disc radius in CSS px (the Python drawing's s = 300 pt^2 disc: 9.8 pt).
NODE_PX = 13


def _round(values, digits: int = 4) -> list:
    return [round(float(v), digits) for v in np.asarray(values, dtype=float).ravel()]


def _extent(pos, arrows) -> tuple:
    """Data box of the drawing: nodes and the arcs' control points, padded for the discs."""
    points = [pos[v] for v in pos] + [_arc_control(pos[u], pos[v]) for u, v, *_ in arrows]
    pts = np.array(points)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = max(hi - lo)
    pad = span * NODE_PX * 1.6 / PANEL_PX
    mid = (lo + hi) / 2
    half = span / 2 + pad  # square: the panel keeps the aspect
    return [mid[0] - half, mid[0] + half], [mid[1] - half, mid[1] + half]


def _label_spots(labels, nodes, per_px) -> list:
    """Where each ``(text, a, control, b)`` label goes, or None where it would overlap.

    Each label tries spots along its arc (the rule of the Python drawing's ``_place_arc_labels``,
    from a third of the way out, then further along in both directions) at the page panel's
    scale (``per_px`` data units per CSS px) and takes the first whose box clears every node and
    every label already placed. A label with no free spot is not drawn on the arc (``None``): the
    caller lists it under the drawing instead, so no two counts ever overlap (issue #31).
    """
    half_h = 0.62 * LABEL_PX * per_px
    node_r = (NODE_PX + 1) * per_px
    placed, spots_out = [], []
    ts = (1 / 3, 0.25, 0.42, 0.18, 0.5, 0.58, 0.12, 0.66, 0.72)
    for text, a, control, b in labels:
        half_w = (0.3 * LABEL_PX * len(text) + 2) * per_px
        for t in ts:
            spot = (1 - t) ** 2 * a + 2 * t * (1 - t) * control + t**2 * b
            clear = all(abs(spot[0] - p[0]) > half_w + w or abs(spot[1] - p[1]) > 2 * half_h for p, w in placed)
            clear = clear and all(
                abs(spot[0] - n[0]) > half_w + node_r or abs(spot[1] - n[1]) > half_h + node_r for n in nodes
            )
            if clear:
                placed.append((spot, half_w))
                spots_out.append(_round(spot))
                break
        else:
            spots_out.append(None)
    return spots_out


def _step(state, topology_name) -> dict:
    drawing = state["drawing"]
    pos = drawing["pos"]
    xlim, ylim = _extent(pos, drawing["arrows"])
    per_px = (xlim[1] - xlim[0]) / PANEL_PX
    labels = [
        (f"{c}/{cap}", pos[u], _arc_control(pos[u], pos[v]), pos[v]) for u, v, c, cap in drawing["arrows"] if c < cap
    ]
    spots = _label_spots(labels, [pos[v] for v in range(len(pos))], per_px)
    spare = [(u, v, c, cap) for u, v, c, cap in drawing["arrows"] if c < cap]
    unplaced = [f"{u}→{v} {c}/{cap}" for (u, v, c, cap), spot in zip(spare, spots) if spot is None]
    note = drawing["note"] + (f"\n另有余量：{'，'.join(unplaced)}" if unplaced else "")
    return {
        "arrows": [list(map(int, a)) for a in drawing["arrows"]],
        "biggest": int(drawing["biggest"]),
        "spots": spots,
        "xlim": _round(xlim),
        "ylim": _round(ylim),
        "title": drawing["title"],
        "note": note,
    }


def _plane(state) -> dict:
    """The (S, R/C) plane of one instance: what ``plot_synthesis_plane`` draws."""
    steps_bound, ratio_bound = state["steps_bound"], state["ratio_bound"]
    frontier, others, current = state["frontier"], state["others"], state["instance"]
    smax, ymax = _plane_limits(steps_bound, ratio_bound, list(frontier) + list(others) + [current])
    return {
        "steps_bound": steps_bound,
        "ratio_bound": float(ratio_bound),
        "ratio_text": str(ratio_bound),
        "frontier": [[s, r / c, f"({s}, {r}, {c})"] for s, r, c in frontier],
        "others": [[s, r / c] for s, r, c in others],
        "current": [current[0], current[1] / current[2]],
        "current_text": f"当前 (S, R, C) = ({current[0]}, {current[1]}, {current[2]})",
        "xlim": [max(0, steps_bound - 1.5), smax],
        "ylim": [0, ymax],
        "xticks": list(range(max(1, steps_bound - 1), int(smax) + 1)),
    }


def data() -> dict:
    """Every state's data (:func:`_data`), cached on disk for this version of the package."""
    return cached("synthesis_explorer", _data)


def _data() -> dict:
    """Every state's readout and figure parts (see the module docstring)."""
    from ..synthesis import steps_lower_bound

    topologies, instances, planes, steps_out, readouts = {}, {}, {}, {}, []
    for name in SynthesisExplorer.TOPOLOGIES:
        topo = _topology(name)
        low = steps_lower_bound(topo, "all_gather")
        first = None
        for steps in range(low, low + 3):
            for chunks in range(1, 7):
                for step in range(1, steps + 1):
                    s = synthesis_state(name, steps, chunks, step)
                    if first is None:
                        first = s
                    key = f"{name}|{steps}|{chunks}"
                    if key not in instances:
                        instances[key] = len(readouts)
                        readouts.append(s["readout"])
                        planes[key] = _plane(s)
                    steps_out[f"{key}|{step}"] = _step(s, name)
        pos = first["drawing"]["pos"]
        topologies[name] = {
            "low": low,
            "pos": _round([pos[v] for v in range(len(pos))]),
            "links": [[int(u), int(v), int(k)] for u, v, k in first["drawing"]["links"]],
        }
    return {
        "topologies": topologies,
        "instances": instances,
        "readouts": compress_texts(readouts),
        "planes": planes,
        "steps": steps_out,
        "style": {
            "full": _FULL_COLOR,
            "spare": _SPARE_COLOR,
            "link": "#dddddd",
            "bend": ARC_RAD,
            "node_px": NODE_PX,
            "latency": COLORS["latency"],
            "bandwidth": COLORS["bandwidth"],
            "bound": COLORS["bound"],
            "current": COLORS["ring_b"],
            "other": "#999999",
            "label": "#7a3b00",
        },
        "labels": {
            "x": "步数 S（延迟：S·α）",
            "y": "每块轮数 R/C（带宽：×(M/N)/β）",
            "others": "其他已解实例（最少 R）",
            "frontier": "Pareto 前沿",
            "s_bound": "S 下界 = ",
            "r_bound": "R/C 下界 = ",
        },
    }


def export(*args) -> dict:
    """The live element's JSON: explorer name, constructor arguments, controls and :func:`data`."""
    explorer = SynthesisExplorer(*args)
    try:
        controls = controls_spec(explorer)
    finally:
        explorer.close()
    return {"explorer": "SynthesisExplorer", "args": list(args), "controls": controls, "data": data()}
