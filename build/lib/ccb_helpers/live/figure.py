"""Builders of FigureSpec dicts: the JSON figures ``ccb-live.js`` draws as SVG (issue #25 contract).

A FigureSpec is ``{"panels": [Panel, ...]}``; these helpers fill every key of a Panel and a Series
with its default so the page never guesses, and convert matplotlib colours (names, RGBA tuples,
colormap samples) to ``#rrggbb``. Colours come from :data:`ccb_helpers.plotting.COLORS`.

Compatible extensions of the contract that ``ccb-live.js`` draws (all optional):

- FigureSpec ``"height"``: CSS px of the row of panels on a desktop (default 320).
- Panel ``"weight"`` (share of the row's width), ``"axis": false`` (no frame or ticks),
  ``"aspect": "equal"`` (one data unit is as long on both axes), ``"stackedHeight"`` (live-c:
  height as a share of the width when stacked on a phone).
- Series ``"tip"``: its name in the crosshair when it has no ``label`` (no legend entry).
- Series ``"alpha"``, ``"r"`` (marker radius, px), ``"shape": "square"``, ``"hollow"`` (an open
  marker), ``"dash"`` as a style: ``True`` / ``"dashed"``, ``"dotted"``, ``"dashdot"``, ``"longdash"``
  (matplotlib's ``--``, ``:``, ``-.``; issue #43: all were drawn dashed).
- Panel ``"xunit"`` / ``"yunit"``: how the crosshair (``ccb-live-hover.js``) writes a value of that
  axis: ``"s"``, ``"ms"``, ``"µs"`` (as ``format_time``), ``"bytes"`` (``format_bytes``), ``"GB/s"``,
  ``"B/s"`` or ``""`` (a plain number); by default read off the axis label and tick labels.
- FigureSpec ``"label"``: the figure's accessible name (default: "图：" and the panels' titles).
- Text ``"size"`` (px), ``"valign"`` (``"center"``, ``"bottom"``: the text sits above y, ``"top"``);
  ``"\\n"`` breaks lines in texts, titles and tick labels.
- Graph node ``"r"`` (px), ``"shape": "square"``, ``"ring"`` (colour of a circle around it),
  ``"labelInside"`` and ``"labelColor"``, ``"stroke"``; edge ``"curve"`` (matplotlib's arc3 ``rad``),
  ``"dash"``, ``"shrink"`` / ``"arrow"`` / ``"labelAt"`` (live-c).
- The explorer script's ``adjust(name, state, controls, data)`` also gets the exported ``data``.
"""

from __future__ import annotations

import math

import matplotlib

__all__ = [
    "panel",
    "series",
    "text",
    "hex_color",
    "colormap_hex",
    "subscript",
    "log_ticks",
    "topology_graph",
    "graph_limits",
]

_SERIES_KINDS = {"line", "scatter", "bar", "step", "hline", "vline", "band"}
#: Dash styles of a Series (``True`` is ``"dashed"``), as ``ccb-live-svg.js`` draws them.
DASH_STYLES = {"dashed", "dotted", "dashdot", "longdash"}
#: Units the crosshair writes values in (``xunit`` / ``yunit`` of a Panel).
UNITS = {"", "s", "ms", "µs", "bytes", "GB/s", "B/s"}
_SUBSCRIPT = str.maketrans("0123456789+-", "₀₁₂₃₄₅₆₇₈₉₊₋")


def hex_color(color) -> str:
    """``#rrggbb`` of a matplotlib colour (alpha dropped).

    >>> hex_color("C0"), hex_color((1.0, 0.5, 0.0, 1.0))
    ('#1f77b4', '#ff8000')
    """
    return matplotlib.colors.to_hex(color, keep_alpha=False)


def colormap_hex(name: str, values, vmax: float) -> list[str]:
    """Colours of ``values`` on colormap ``name`` scaled to ``[0, vmax]`` (matplotlib's own sampling).

    >>> colormap_hex("viridis", [0, 1], 1)
    ['#440154', '#fde725']
    """
    cmap = matplotlib.colormaps[name]
    scale = vmax if vmax > 0 else 1
    return [hex_color(cmap(v / scale)) for v in values]


def subscript(value) -> str:
    """Digits as Unicode subscripts (``log₂``): SVG text needs no markup for them.

    >>> "log" + subscript(10)
    'log₁₀'
    """
    return str(value).translate(_SUBSCRIPT)


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def log_ticks(lo: float, hi: float) -> list[list]:
    """Decade ticks ``[[value, label], ...]`` inside ``[lo, hi]``, all labelled alike: like
    ``f"{v:g}"`` while every decade is written plainly (1e-4 ... 1e5), else as powers of ten
    (``f"{v:g}"`` alone wrote "100000" next to "1e+06", #43).

    >>> log_ticks(0.7, 7680)
    [[1, '1'], [10, '10'], [100, '100'], [1000, '1000']]
    >>> [label for _, label in log_ticks(5e4, 2e6)]
    ['10⁵', '10⁶']
    """
    if not 0 < lo < hi:
        raise ValueError(f"log ticks need 0 < lo < hi, got {lo}, {hi}")
    first, last = math.ceil(math.log10(lo) - 1e-12), math.floor(math.log10(hi) + 1e-12)
    plain = -4 <= first and last <= 5
    return [
        [10**e if e >= 0 else 10.0**e, f"{10.0**e:g}" if plain else "10" + str(e).translate(_SUPERSCRIPT)]
        for e in range(first, last + 1)
    ]


def series(
    kind: str,
    x=(),
    y=(),
    *,
    color: str = "#222222",
    label: str | None = None,
    dash: bool | str = False,
    marker: bool = False,
    width: float = 1.5,
    y2=None,
    alpha: float = 1.0,
    hollow: bool = False,
) -> dict:
    """One Series of a panel (``kind`` one of line, scatter, bar, step, hline, vline, band).

    ``dash``: ``False`` (solid), ``True`` or a style of :data:`DASH_STYLES`; ``hollow``: open markers.

    >>> series("line", [1, 2], [3, 4], dash="dotted")["dash"]
    'dotted'
    """
    if kind not in _SERIES_KINDS:
        raise ValueError(f"kind must be one of {sorted(_SERIES_KINDS)}, got {kind!r}")
    if not isinstance(dash, bool) and dash not in DASH_STYLES:
        raise ValueError(f"dash must be True, False or one of {sorted(DASH_STYLES)}, got {dash!r}")
    if len(x) != len(y) and kind not in ("hline", "vline"):
        raise ValueError(f"x and y must have the same length, got {len(x)} and {len(y)}")
    out = {
        "kind": kind,
        "x": list(x),
        "y": list(y),
        "color": color,
        "label": label,
        "dash": dash,
        "marker": marker,
        "width": width,
    }
    if alpha != 1.0:
        out["alpha"] = alpha
    if hollow:
        out["hollow"] = True
    if kind == "band":
        out["y2"] = list(y2 or [])
    return out


def text(
    x,
    y,
    value: str,
    *,
    coords: str = "data",
    anchor: str = "middle",
    color: str = "#222222",
    size: float | None = None,
    valign: str = "center",
) -> dict:
    """A text of a panel at ``(x, y)`` in data or axes (0..1) coordinates; ``\\n`` breaks lines.

    ``valign``: where ``y`` is on the text: ``"center"``, ``"bottom"`` (the text sits above ``y``) or ``"top"``.
    """
    if (
        coords not in ("data", "axes")
        or anchor not in ("start", "middle", "end")
        or valign not in ("center", "bottom", "top")
    ):
        raise ValueError(
            f"coords must be data|axes, anchor start|middle|end and valign center|bottom|top; "
            f"got {coords!r}, {anchor!r}, {valign!r}"
        )
    out = {"x": x, "y": y, "text": value, "coords": coords, "anchor": anchor, "color": color}
    if size is not None:
        out["size"] = size
    if valign != "center":
        out["valign"] = valign
    return out


def panel(
    title: str = "",
    *,
    xlabel: str = "",
    ylabel: str = "",
    xscale: str = "linear",
    yscale: str = "linear",
    xlim=None,
    ylim=None,
    xticks=None,
    yticks=None,
    legend: bool = False,
    series_list=(),
    texts=(),
    graph=None,
    weight: float = 1.0,
    axis: bool = True,
    aspect_equal: bool = False,
    xunit: str | None = None,
    yunit: str | None = None,
) -> dict:
    """One Panel; ``weight`` is its share of a row's width, ``axis=False`` hides the frame and ticks;
    ``xunit`` / ``yunit`` (one of :data:`UNITS`): how the crosshair writes that axis's values."""
    for name, scale in (("xscale", xscale), ("yscale", yscale)):
        if scale not in ("linear", "log"):
            raise ValueError(f"{name} must be 'linear' or 'log', got {scale!r}")
    for name, unit in (("xunit", xunit), ("yunit", yunit)):
        if unit is not None and unit not in UNITS:
            raise ValueError(f"{name} must be one of {sorted(UNITS)} or None, got {unit!r}")
    out = {
        "title": title,
        "xlabel": xlabel,
        "ylabel": ylabel,
        "xscale": xscale,
        "yscale": yscale,
        "xlim": None if xlim is None else [float(xlim[0]), float(xlim[1])],
        "ylim": None if ylim is None else [float(ylim[0]), float(ylim[1])],
        "xticks": xticks,
        "yticks": yticks,
        "legend": legend,
        "series": list(series_list),
        "texts": list(texts),
        "graph": graph,
        "weight": weight,
        "axis": axis,
    }
    if aspect_equal:
        out["aspect"] = "equal"
    if xunit is not None:
        out["xunit"] = xunit
    if yunit is not None:
        out["yunit"] = yunit
    return out


def _marker_radius(area_pt2: float) -> float:
    """CSS px radius of a matplotlib scatter marker of ``area_pt2`` (the PNG is 100 px per inch)."""
    return round(math.sqrt(area_pt2) / 2 * 100 / 72, 2)


#: Most vertices a page drawing holds (the explorers' caps stay far below: 128 hosts + switches).
MAX_GRAPH_NODES = 1024


def _check_drawable(topology, root) -> None:
    from .._validation import check_int
    from ..topology import Topology

    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology (e.g. ccb.ring(8)), got {type(topology).__name__}")
    if topology.n > MAX_GRAPH_NODES:
        raise ValueError(f"topology {topology.name} has more than {MAX_GRAPH_NODES} endpoints to draw on a page")
    check_int("root", root, minimum=0, maximum=topology.n - 1)


def topology_graph(topology, root: int = 0, side=None) -> tuple[dict, str, int]:
    """``(graph, title, crossing)`` of a topology drawn as :func:`ccb_helpers.plotting.draw_topology` draws it.

    Positions, hop counts, colours, which links wrap around (drawn as arcs) and which links a cut
    crosses all come from the plotting module's own geometry (``_topology_geometry``), so the page
    and the PNG draw the same picture. ``side``: the endpoints of one side of a cut (colours the
    sides and the crossing links, as the bisection figures do), or None (hop counts from ``root``).

    >>> from ccb_helpers.topology import ring
    >>> graph, title, crossing = topology_graph(ring(4))
    >>> [n["label"] for n in graph["nodes"]], len(graph["edges"]), title
    (['0', '1', '2', '1'], 4, 'ring 4：从节点 0 出发的 BFS 层（直径 D = 2）')
    """
    from ..plotting import COLORS
    from ..plotting.topology import _layout, _topology_geometry

    _check_drawable(topology, root)
    geo = _topology_geometry(topology, root, None if side is None else frozenset(side))
    g = topology.graph
    pos = _layout(topology)
    ends = [v for v, kind in g.nodes(data="kind") if kind == "endpoint"]
    switches = [v for v, kind in g.nodes(data="kind") if kind == "switch"]
    index = {v: i for i, v in enumerate(ends + switches)}
    n_ends = len(ends)
    area = 190 if n_ends <= 32 else (40 if n_ends <= 128 else 14)  # as _TopologyArtists
    radius = _marker_radius(area)
    hops = [int(h) for h in geo["hops"]]
    far = max(max(hops), 1)
    if side is None:
        colors = colormap_hex("viridis_r", hops, far)
    else:
        colors = [COLORS["latency"] if s else COLORS["ring_b"] for s in geo["in_side"]]
    show = side is None and n_ends <= 32
    nodes = []
    for i, v in enumerate(ends):
        node = {
            "x": round(float(pos[v][0]), 4),
            "y": round(float(pos[v][1]), 4),
            "label": str(hops[i]) if show else "",
            "color": colors[i],
            "r": radius,
        }
        if show:
            node.update(labelInside=True, labelColor="#000000" if hops[i] < far / 2 else "#ffffff")
        if side is None and v == root:
            node["ring"] = COLORS["bandwidth"]
        # What the crosshair says over the node (ccb-live-hover.js).
        if side is None:
            node["tip"] = f"节点 {v}：起点" if v == root else f"节点 {v}：离节点 {root} {hops[i]} 跳"
        else:
            node["tip"] = f"节点 {v}：在割的{'这一' if geo['in_side'][i] else '另一'}侧"
        nodes.append(node)
    for v in switches:
        nodes.append(
            {
                "x": round(float(pos[v][0]), 4),
                "y": round(float(pos[v][1]), 4),
                "label": "",
                "color": "#888888",
                "r": _marker_radius(area * 0.8),
                "shape": "square",
                "tip": "交换机",
            }
        )
    # Edges in the geometry's order: straight links, then wrap-around arcs, each with its cut flag.
    straight_cut, arcs_cut = iter(geo["straight_cut"]), iter(geo["arcs_cut"])
    edges = []
    for u, v in g.edges:
        a, b = pos[u], pos[v]
        links = g.edges[u, v].get("links", 1)
        arc = topology.family == "torus" and abs(a - b).max() > 1.5  # the geometry's wrap-around test
        cut = bool(next(arcs_cut if arc else straight_cut))
        edge = {
            "a": index[u],
            "b": index[v],
            "color": COLORS["bandwidth"] if cut else "#bbbbbb",
            "width": (2.0 if cut else 0.8) * (0.9 if arc else 1.0) * links,
            "arrow": False,
            "label": "",
        }
        if arc:
            edge.update(curve=0.25, dash=True)
        edges.append(edge)
    short = topology.name.split(" (")[0]
    if side is not None:
        title = f"{short}：平衡割切断 {geo['crossing']} 条链路（红色）"
    elif topology.switched:
        title = (
            f"{short}：从节点 {root} 出发的跳数\n"
            f"（端点间最多 {topology.diameter} 跳，交换机同轮转发：D = {topology.step_diameter} 轮）"
        )
    else:
        title = f"{short}：从节点 {root} 出发的 BFS 层（直径 D = {topology.step_diameter}）"
    return {"nodes": nodes, "edges": edges}, title, int(geo["crossing"])


def graph_limits(topology, root: int = 0, side=None) -> tuple[list[float], list[float]]:
    """The axes limits the PNG uses for a topology drawing (a pad around every node and arc)."""
    from ..plotting.topology import _topology_geometry

    _check_drawable(topology, root)
    geo = _topology_geometry(topology, root, None if side is None else frozenset(side))
    lo, hi = geo["lo"], geo["hi"]
    pad = 0.08 * max(hi - lo) + 0.3
    return [float(lo[0] - pad), float(hi[0] + pad)], [float(lo[1] - pad), float(hi[1] + pad)]
