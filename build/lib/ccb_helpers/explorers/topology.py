"""Chapter 2's explorer: a topology's diameter against the information bound."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets
from matplotlib.ticker import MaxNLocator

from .._validation import check_int
from ..broadcast import broadcast_steps
from ..diameter import FAMILIES, binding_latency_term, family_instance
from ..plotting import BOOK_WIDTH, COLORS, _TopologyArtists
from ..propagation import info_steps
from .base import STYLE, Explorer, slider_args

__all__ = ["TopologyExplorer", "family_dropdown", "readout_html"]

#: family -> (min size, max size, default size). The caps keep every drawing readable and
#: every graph small (hypercube 7 = 128 nodes, 3D torus 5 = 125, fat-tree 64 hosts); a size
#: outside them is refused before anything is built.
SIZES = {
    "ring": (3, 48, 12),
    "torus2d": (2, 10, 4),
    "torus3d": (2, 5, 3),
    "mesh2d": (2, 10, 4),
    "hypercube": (1, 7, 4),
    "fat_tree": (4, 64, 16),
    "fully_connected": (2, 16, 8),
}


def family_dropdown(value: str) -> widgets.Dropdown:
    """The topology-family control shared by the topology and bisection explorers."""
    return widgets.Dropdown(
        options=[(f"{label}（{meaning}）", key) for key, (label, meaning) in FAMILIES.items()],
        value=value,
        description="拓扑",
        style=STYLE,
        layout=widgets.Layout(width="auto"),
    )


@lru_cache(maxsize=256)
def _instance(family: str, size: int):
    return family_instance(family, size)


@lru_cache(maxsize=512)
def _broadcast(family: str, size: int, k: int):
    try:
        return broadcast_steps(_instance(family, size), k=k)
    except ValueError:  # no closed form and too large for the exhaustive search
        return None


def readout_html(family: str, size: int, k: int) -> str:
    """The readout of :class:`TopologyExplorer` for these control values (eq. ``eq:cc-bound-diameter``).

    A pure function of the controls: the explorer's refresh and the static site's live element
    (precomputed from it, :mod:`ccb_helpers.live.topology_explorer`) show exactly this text.

    Parameters
    ----------
    family : str
        A key of :data:`ccb_helpers.diameter.FAMILIES`.
    size : int
        N, a side length or a dimension, within :data:`SIZES` of the family.
    k : int
        Ports per node, ``k >= 1``.

    Examples
    --------
    >>> readout_html("ring", 12, 1)
    '<b>Ring，N = 12，度 d = 2</b>：直径 D = <b>6</b> 轮，⌈log<sub>2</sub> N⌉ = <b>4</b>；直径更紧：这个拓扑的延迟受直径限制。最少 broadcast：6 轮。'
    """
    if family not in SIZES:
        raise ValueError(f"family must be one of {sorted(SIZES)}, got {family!r}")
    lo, hi, _ = SIZES[family]
    size = check_int("size", size, minimum=lo, maximum=hi)
    k = check_int("k", k, minimum=1)
    topo = _instance(family, size)
    p = max(1, min(k, topo.degree))
    diameter, info = topo.step_diameter, info_steps(topo.n, p)
    binding, broadcast = binding_latency_term(topo, k), _broadcast(family, size, k)
    verdict = {
        "diameter": "直径更紧：这个拓扑的延迟受直径限制",
        "information": "信息传播下界更紧",
        "tie": "两个下界相等",
    }[binding]
    rounds = "—（规模超出穷举范围）" if broadcast is None else f"{broadcast} 轮"
    notes = []
    if k > topo.degree:
        notes.append(f"p = min(k, d) = {p}：端口数受度数限制（d = {topo.degree}），k 再大也不变")
    if topo.switched:
        notes.append(f"交换网络：端点间最多 {topo.diameter} 跳，但交换机在同一轮内转发，所以 D = {diameter} 轮")
    return (
        f"<b>{FAMILIES[family][0]}，N = {topo.n}，度 d = {topo.degree}</b>：直径 D = <b>{diameter}</b> 轮，"
        f"⌈log<sub>{p + 1}</sub> N⌉ = <b>{info}</b>；{verdict}。最少 broadcast：{rounds}。"
        + (f"<br>{'；'.join(notes)}。" if notes else "")
    )


class TopologyExplorer(Explorer):
    """Topology diameter against the information bound: the graph with BFS layers from node 0.

    Controls: ``family`` (ring, 2D/3D torus, 2D mesh, hypercube, fat-tree, fully connected), ``size``
    (its meaning follows the family: N, a side length or a dimension; its range follows the
    family, see :data:`SIZES`) and ``k`` (ports; where ``p = min(k, d)`` stops growing the
    readout says so).

    Examples
    --------
    >>> e = TopologyExplorer(family="ring", size=12)
    >>> e.diameter, e.info, e.binding
    (6, 4, 'diameter')
    >>> e.update(family="hypercube"); e.topology.n, e.binding
    (16, 'tie')
    >>> TopologyExplorer(family="hypercube", size=30)
    Traceback (most recent call last):
    ...
    ValueError: size must be between 1 and 7 here, got 30
    >>> e.close()
    """

    SIZES = SIZES
    figsize = (BOOK_WIDTH, 3.7)
    readout_lines = 3

    def _controls(self) -> dict:
        lo, hi, default = SIZES["ring"]
        return {
            "family": family_dropdown("ring"),
            "size": widgets.IntSlider(value=default, min=lo, max=hi, **slider_args("规模")),
            "k": widgets.IntSlider(value=1, min=1, max=6, **slider_args("端口数 k")),
        }

    def _adjust(self, name: str) -> None:
        if name == "family":
            lo, hi, default = SIZES[self.controls["family"].value]
            self._set_range("size", lo, hi, default)

    def setup(self, figure) -> None:
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.45, 1]})
        figure.subplots_adjust(left=0.01, right=0.98, bottom=0.16, top=0.84, wspace=0.22)
        self.drawing = _TopologyArtists(left)
        self.bars = right.bar(
            [0, 1, 2], [1, 1, 1], color=[COLORS["bisection"], COLORS["latency"], COLORS["bound"]], alpha=0.8
        )
        self.values_text = [right.text(i, 0, "", ha="center", va="bottom", fontsize=10) for i in range(3)]
        right.set_ylabel("轮数")
        right.yaxis.set_major_locator(MaxNLocator(integer=True))
        self.right = right

    def refresh(self, family, size, k) -> str:
        topo = _instance(family, size)
        self.topology = topo
        p = max(1, min(k, topo.degree))
        self.diameter = topo.step_diameter
        self.info = info_steps(topo.n, p)
        self.binding = binding_latency_term(topo, k)
        self.broadcast = _broadcast(family, size, k)
        self.drawing.update(topo, 0)
        heights = [self.diameter, self.info, self.broadcast or 0]
        for bar, text, height, value in zip(
            self.bars, self.values_text, heights, [self.diameter, self.info, self.broadcast]
        ):
            bar.set_height(height)
            text.set_position((bar.get_x() + bar.get_width() / 2, height))
            text.set_text("未知" if value is None else str(value))
        top = max(heights)
        self.right.set_ylim(0, top * 1.18 + 0.5)
        self.right.set_xticks([0, 1, 2], ["直径 D", rf"$\lceil \log_{{{p + 1}}} N \rceil$", "最少\nbroadcast"])
        self.right.set_title(f"N = {topo.n}，p = min(k, d) = {p}", fontsize=10)
        return readout_html(family, size, k)
