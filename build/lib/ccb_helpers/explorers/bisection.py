"""Chapter 5's explorer: the bisection bound against the node-level bound, with the cut drawn."""

from __future__ import annotations

import math
from functools import lru_cache

import ipywidgets as widgets
import numpy as np

from ..bisection import bisection_lower_bound, bisection_partition, node_lower_bound
from ..diameter import FAMILIES, family_instance, family_instances
from ..plotting import BOOK_WIDTH, COLORS, SMALL, _TopologyArtists
from ..primitives import PRIMITIVE_LABELS
from ..topology import fat_tree, ring
from ..units import format_bandwidth, format_bytes, format_time
from .bandwidth import primitive_dropdown
from .base import STYLE, Explorer, slider_args
from .topology import SIZES, family_dropdown

__all__ = ["BisectionExplorer", "bisection_state"]

M, BETA = 2.0**30, 50e9  # the message and link bandwidth of the comparison (the ratio does not depend on them)


@lru_cache(maxsize=256)
def _topology(family: str, size: int, oversubscription: float):
    """The drawn topology and the oversubscription actually applied (1 where the factor cannot be built)."""
    if family != "fat_tree":
        return family_instance(family, size), None
    try:
        return fat_tree(size, oversubscription=oversubscription), oversubscription
    except ValueError:
        return fat_tree(size), 1.0


@lru_cache(maxsize=64)
def _curves(family: str, primitive: str, oversubscription: float | None):
    """N, bisection bound and node-level bound (p = d) for the family's instances up to N = 4096."""
    topos = _curve_topologies(family, oversubscription)
    ns = np.array([t.n for t in topos], dtype=float)
    bis = np.array([bisection_lower_bound(primitive, t, M, BETA) for t in topos])
    node = np.array([node_lower_bound(primitive, t, M, BETA, ports=max(t.degree, 1)) for t in topos])
    return ns, bis, node


@lru_cache(maxsize=16)
def _curve_topologies(family: str, oversubscription: float | None) -> tuple:
    """The family's instances up to N = 4096 the curves run over (built once for all primitives)."""
    if family == "fat_tree":
        topos = []
        for n in (2**e for e in range(2, 13)):
            try:
                topos.append(fat_tree(n, oversubscription=oversubscription))
            except ValueError:
                continue
    elif family in ("ring", "fully_connected"):
        build = ring if family == "ring" else (lambda n: family_instance("fully_connected", n))
        topos = [build(int(n)) for n in np.unique(np.geomspace(2 if family != "ring" else 3, 4096, 80).astype(int))]
    else:
        topos = [t for t in family_instances(family, 4096) if t.n >= 2]
    return tuple(topos)


class BisectionExplorer(Explorer):
    """Bisection vs node-level bound: the cut drawn on the graph, and both bounds against N.

    Controls: ``family``, ``size`` (as in :class:`TopologyExplorer`), ``primitive`` and
    ``oversubscription`` (fat-tree only, leaf downlinks / uplinks; disabled for other
    families, and the readout says when a factor cannot be built at this size). The node-level
    bound uses every link of a node (``p = degree``), as the bisection bound uses every link of
    the cut. M = 1 GiB and β = 50 GB/s (which bound is tighter does not depend on them).

    Examples
    --------
    >>> e = BisectionExplorer(family="torus2d", size=4, primitive="all_to_all")
    >>> e.tighter, e.topology.bisection_links
    ('bisection', 8)
    >>> e.update(primitive="all_reduce"); e.tighter
    'node'
    >>> BisectionExplorer(family="ring", size=2)
    Traceback (most recent call last):
    ...
    ValueError: size must be between 3 and 48 here, got 2
    >>> e.close()
    """

    SIZES = SIZES
    figsize = (BOOK_WIDTH, 3.7)
    readout_lines = 3

    def _controls(self) -> dict:
        lo, hi, default = SIZES["torus2d"]
        return {
            "family": family_dropdown("torus2d"),
            "size": widgets.IntSlider(value=default, min=lo, max=hi, **slider_args("规模")),
            "primitive": primitive_dropdown("all_to_all"),
            "oversubscription": widgets.Dropdown(
                options=[("1:1", 1.0), ("2:1", 2.0), ("4:1", 4.0)],
                value=1.0,
                description="oversubscription（仅 fat-tree）",
                style=STYLE,
                disabled=True,
                layout=widgets.Layout(width="auto"),
            ),
        }

    def _adjust(self, name: str) -> None:
        if name == "family":
            family = self.controls["family"].value
            lo, hi, default = SIZES[family]
            self._set_range("size", lo, hi, default)
            # The factor only means something for a fat-tree: grey it out elsewhere (no silent control).
            self.controls["oversubscription"].disabled = family != "fat_tree"

    def setup(self, figure) -> None:
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1]})
        figure.subplots_adjust(left=0.01, right=0.98, bottom=0.14, top=0.86, wspace=0.32)
        self.drawing = _TopologyArtists(left)
        (self.bis_line,) = right.plot([], [], color=COLORS["bisection"], label="bisection 下界")
        (self.node_line,) = right.plot([], [], color=COLORS["latency"], label="节点级下界（p = d）")
        self.points = right.scatter([], [], zorder=3)
        right.set_xscale("log", base=2)
        right.xaxis.set_major_formatter(lambda v, _pos: f"{v:g}")  # 4, 16 ... 4096: plain text draws faster than 2^k
        right.set_yscale("log")
        right.set_xlabel("节点数 N")
        right.yaxis.set_major_formatter(lambda v, _pos: format_time(v))
        right.set_ylabel(f"时间下界（M = {format_bytes(M)}）")
        right.legend(loc="upper left", fontsize=SMALL)
        self.right = right

    def refresh(self, family, size, primitive, oversubscription) -> str:
        state = bisection_state(family, size, primitive, oversubscription)
        self.topology, self.bisection, self.node, self.tighter = (
            state["topology"],
            state["bisection"],
            state["node"],
            state["tighter"],
        )
        self.drawing.update(state["topology"], 0, state["side"])
        ns, bis, node = state["curves"]
        self.bis_line.set_data(ns, bis)
        self.node_line.set_data(ns, node)
        self.points.set_offsets(state["points"])
        self.points.set_facecolor([COLORS["bisection"], COLORS["latency"]])
        self.right.set_xlim(*state["xlim"])
        self.right.set_ylim(*state["ylim"])
        self.right.set_title(state["title"], fontsize=10.5)
        return state["readout"]


def bisection_state(family: str, size: int, primitive: str, oversubscription: float) -> dict:
    """What :class:`BisectionExplorer` shows for these control values (no drawing; cached).

    The readout HTML and every number of the figure: the topology (``topology``, the
    oversubscription ``applied``), the partition ``side`` of the cut drawn, both bounds
    (``bisection``, ``node``, eq. ``eq:cc-bound-bisection``) and which is tighter, the curves
    ``(N, bisection bound, node-level bound)`` of the family, the two marked ``points`` and the
    axis limits and ``title`` of the right panel. The explorer's ``refresh`` draws exactly this,
    and the book's static page exports it (:mod:`ccb_helpers.live.bisection`), so both agree.
    The values are trusted (the explorer's controls have checked them); treat the dict as read-only.

    Examples
    --------
    >>> s = bisection_state("torus2d", 4, "all_to_all", 1.0)
    >>> s["tighter"], s["topology"].bisection_links, s["points"][0][0]
    ('bisection', 8, 16)
    """
    return _state(family, size, primitive, float(oversubscription) if family == "fat_tree" else 1.0)


@lru_cache(maxsize=512)
def _state(family, size, primitive, oversubscription) -> dict:
    topo, applied = _topology(family, size, oversubscription)
    bisection = bisection_lower_bound(primitive, topo, M, BETA)
    node = node_lower_bound(primitive, topo, M, BETA, ports=max(topo.degree, 1))
    if math.isclose(bisection, node, rel_tol=1e-9):
        tighter, verdict = "tie", "两个下界相等"
    elif bisection > node:
        tighter, verdict = "bisection", "bisection 下界更紧"
    else:
        tighter, verdict = "node", "节点级下界更紧"
    ns, bis, nodes = _curves(family, primitive, applied)
    low = min(bis[bis > 0].min(initial=np.inf), nodes[nodes > 0].min(initial=np.inf))
    note = ""
    if family == "fat_tree":
        if applied != oversubscription:
            note = (
                f"<br>{oversubscription:g}:1 在 N = {topo.n} 时造不出来（每个叶交换机的主机数不能被 "
                f"{oversubscription:g} 整除成整数条上行链路），图按 1:1 画。"
            )
        label = f"（oversubscription {applied:g}:1）"
    else:
        label = ""
    readout = (
        f"<b>{topo.name.split(' (')[0]}{label}</b>：割上 {topo.bisection_links} 条链路；"
        f"{PRIMITIVE_LABELS[primitive]} 的 bisection 下界 {format_time(bisection)}，"
        f"节点级下界 {format_time(node)}：<b>{verdict}</b>"
        f"（M = {format_bytes(M)}，β = {format_bandwidth(BETA)}）。{note}"
    )
    return {
        "topology": topo,
        "applied": applied,
        "side": bisection_partition(topo),
        "bisection": bisection,
        "node": node,
        "tighter": tighter,
        "curves": (ns, bis, nodes),
        "points": [[topo.n, bisection], [topo.n, node]],
        "xlim": (ns.min() / 1.3, ns.max() * 1.3),
        "ylim": (low / 2, max(bis.max(), nodes.max()) * 3),
        "title": f"{FAMILIES[family][0]} · {PRIMITIVE_LABELS[primitive]}",
        "readout": readout,
    }
