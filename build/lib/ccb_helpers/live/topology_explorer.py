"""Chapter 2's live explorer: :class:`~ccb_helpers.explorers.TopologyExplorer` on the static site.

Fully precomputed: :func:`frame` builds one state's readout
(:func:`~ccb_helpers.explorers.topology.readout_html`) and figure (the topology drawn from the
plotting module's geometry, :func:`~ccb_helpers.live.figure.topology_graph`, and the three bars:
diameter, information bound, minimum broadcast) and :func:`export` tabulates every reachable
state of family x size x k. The size slider's range follows the family (:data:`SIZES`, exported
for the page's ``adjust``).
"""

from __future__ import annotations

from functools import lru_cache

from matplotlib.ticker import MaxNLocator

from ..diameter import FAMILIES
from ..explorers.topology import SIZES, TopologyExplorer, _broadcast, _instance, readout_html
from ..plotting import COLORS
from ..propagation import info_steps
from .cache import cached
from .compress import tabulate
from .controls import controls_spec
from .figure import graph_limits, panel, series, subscript, text, topology_graph

__all__ = ["export", "frame"]


@lru_cache(maxsize=256)
def _drawing(family: str, size: int) -> dict:
    """The left panel: the topology with BFS layers (hop counts) from node 0."""
    topo = _instance(family, size)
    graph, title, _ = topology_graph(topo, 0)
    xlim, ylim = graph_limits(topo, 0)
    return panel(title, xlim=xlim, ylim=ylim, graph=graph, axis=False, aspect_equal=True, weight=1.45)


def frame(state: dict) -> tuple[str, dict] | None:
    """``(readout_html, figure_spec)`` of one state ``{"family", "size", "k"}``; None if unreachable.

    A size outside the family's range (:data:`SIZES`) is a state the controls cannot reach (None);
    an unknown family or a bad ``k`` raises ``ValueError`` / ``TypeError``.
    """
    if not isinstance(state, dict) or set(state) != {"family", "size", "k"}:
        raise TypeError(f"state must be a dict with keys family, size, k, got {state!r}")
    family, size, k = state["family"], state["size"], state["k"]
    if family not in SIZES:
        raise ValueError(f"family must be one of {sorted(SIZES)}, got {family!r}")
    lo, hi, _ = SIZES[family]
    if not lo <= size <= hi:
        return None
    topo = _instance(family, size)
    p = max(1, min(k, topo.degree))
    diameter, info, broadcast = topo.step_diameter, info_steps(topo.n, p), _broadcast(family, size, k)
    heights = [diameter, info, broadcast or 0]
    top = max(heights) * 1.18 + 0.5
    ticks = [float(t) for t in MaxNLocator(integer=True).tick_values(0, top) if 0 <= t <= top]
    bars = panel(
        f"N = {topo.n}，p = min(k, d) = {p}",
        ylabel="轮数",
        xlim=(-0.6, 2.6),
        ylim=(0, top),
        xticks=[[0, "直径 D"], [1, f"⌈log{subscript(p + 1)} N⌉"], [2, "最少\nbroadcast"]],
        yticks=[[t, f"{t:g}"] for t in ticks],
        weight=1.0,
        series_list=[
            series("bar", [i], [h], color=c, alpha=0.8)
            for i, (h, c) in enumerate(zip(heights, [COLORS["bisection"], COLORS["latency"], COLORS["bound"]]))
        ],
        texts=[
            text(i, h, "未知" if v is None else str(v), size=12, valign="bottom")
            for i, (h, v) in enumerate(zip(heights, [diameter, info, broadcast]))
        ],
    )
    return readout_html(family, size, k), {"panels": [_drawing(family, size), bars], "height": 370}


def export() -> dict:
    """The live explorer's data: controls, the family's size ranges and every reachable state.

    >>> readout, figure = frame({"family": "hypercube", "size": 3, "k": 1})
    >>> len(figure["panels"][0]["graph"]["nodes"]), [s["y"][0] for s in figure["panels"][1]["series"]]
    (8, [3, 3, 3])
    """
    explorer = TopologyExplorer()
    try:
        controls = controls_spec(explorer)
    finally:
        explorer.close()
    spec = {c["name"]: c for c in controls}
    families = [value for _, value in spec["family"]["options"]]
    assert set(families) == set(SIZES) == set(FAMILIES), "every family has a size range"
    sizes = range(min(lo for lo, _, _ in SIZES.values()), max(hi for _, hi, _ in SIZES.values()) + 1)
    axes = [("family", families), ("size", list(sizes)), ("k", list(range(spec["k"]["min"], spec["k"]["max"] + 1)))]
    data = cached("topology_explorer", lambda: tabulate(axes, frame))  # a few seconds, once per package version
    data["sizes"] = {family: list(bounds) for family, bounds in SIZES.items()}
    return {"explorer": "TopologyExplorer", "args": [], "controls": controls, "data": data}
