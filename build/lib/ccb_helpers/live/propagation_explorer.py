"""Chapter 1's live explorer: :class:`~ccb_helpers.explorers.PropagationExplorer` on the static site.

Fully precomputed: :func:`frame` runs the library (``info_steps``, ``coverage``, the k-nomial
tree of :mod:`ccb_helpers.plotting.propagation`) and the explorer's own
:func:`~ccb_helpers.explorers.propagation.readout_html` for one state, and :func:`export`
tabulates every state of ``n`` x ``k`` x ``all_port`` (:func:`ccb_helpers.live.compress.tabulate`).
"""

from __future__ import annotations

from functools import lru_cache

from ..explorers.propagation import TREE_MAX, PropagationExplorer, readout_html
from ..plotting import COLORS
from ..plotting.propagation import _knomial_geometry
from ..propagation import coverage, info_steps
from .cache import cached
from .compress import tabulate
from .controls import controls_spec
from .figure import colormap_hex, log_ticks, panel, series, subscript, text

__all__ = ["export", "frame"]

LABELS = 32  # nodes are numbered up to this N, as in the PNG


@lru_cache(maxsize=1024)
def _tree_panel(n: int, k: int) -> dict:
    """The right panel: the (k+1)-nomial tree, or the note that it is too big to draw."""
    if n > TREE_MAX:
        note = f"N = {n} > {TREE_MAX}：树太大，不画\n（把 N 调到 {TREE_MAX} 以下\n可看到 {k + 1}-nomial 树）"
        return panel(axis=False, texts=[text(0.5, 0.5, note, coords="axes")], weight=1.1)
    x, y, informed, edges, rounds = _knomial_geometry(n, k)
    colors = colormap_hex("viridis", informed, rounds) if rounds else ["#440154"] * n
    radius = 4.5 if n <= LABELS else 2.5  # matplotlib's marker areas 60 and 18 pt², as CSS px
    nodes = [
        {"x": float(x[v]), "y": float(y[v]), "label": str(v) if n <= LABELS else "", "color": colors[v], "r": radius}
        for v in range(n)
    ]
    graph = {
        "nodes": nodes,
        "edges": [
            {"a": int(p), "b": int(c), "color": "#999999", "width": 0.8, "arrow": False, "label": ""} for p, c in edges
        ],
    }
    return panel(
        f"{k + 1}-nomial 树（{k}-port），N = {n}：{rounds} 轮",
        ylabel="被通知的轮次",
        xlim=(-0.6, max(float(x.max()), 1.0) + 0.6),
        ylim=(-rounds - 0.45, 0.6),
        xticks=[],
        yticks=[[-t, str(t)] for t in range(rounds + 1)],
        graph=graph,
        weight=1.1,
    )


def frame(state: dict) -> tuple[str, dict]:
    """``(readout_html, figure_spec)`` of one state ``{"n", "k", "all_port"}`` of the explorer.

    The values are checked by :func:`~ccb_helpers.explorers.propagation.readout_html` (``n >= 2``,
    ``k >= 1``, ``all_port`` a bool); ``TypeError`` if ``state`` is not a dict of exactly these keys.
    """
    if not isinstance(state, dict) or set(state) != {"n", "k", "all_port"}:
        raise TypeError(f"state must be a dict with keys n, k, all_port, got {state!r}")
    n, k_slider, all_port = state["n"], state["k"], state["all_port"]
    readout = readout_html(n, k_slider, all_port)
    k = n - 1 if all_port else k_slider
    steps = info_steps(n, k)
    rounds = list(range(steps + 1))
    informed = [coverage(t, k, n) for t in rounds]
    ideal = [(k + 1) ** t for t in rounds]  # exact integers: (k+1)^t
    ylim = (0.7, max(n, ideal[-1]) * 12)
    left = panel(
        f"⌈log{subscript(k + 1)} {n}⌉ = {steps} 轮覆盖全部节点",
        xlabel="轮次 t",
        ylabel="持有数据的节点数",
        yscale="log",
        xlim=(-0.6, steps + 0.6),
        ylim=ylim,
        xticks=[[t, str(t)] for t in rounds],
        yticks=log_ticks(*ylim),
        legend=True,
        series_list=[
            series("bar", rounds, informed, color=COLORS["latency"], label="已通知节点数", alpha=0.75),
            series("line", rounds, ideal, color=COLORS["bandwidth"], label=f"(k+1)ᵗ，k = {k}", dash=True, marker=True),
            series("hline", [], [n], color=COLORS["bound"], label=f"N = {n}", width=1.0),
        ],
    )
    return readout, {"panels": [left, _tree_panel(n, k)]}


def export() -> dict:
    """The live explorer's data: controls and every state's readout and figure (JSON-serialisable).

    The table spans n x k x all_port = 1023 x 8 x 2 states (a few seconds); one state of it:

    >>> readout, figure = frame({"n": 9, "k": 2, "all_port": False})
    >>> [s["y"] for s in figure["panels"][0]["series"][:2]]   # informed nodes and (k+1)^t per round
    [[1, 3, 9], [1, 3, 9]]
    """
    explorer = PropagationExplorer()
    try:
        controls = controls_spec(explorer)
    finally:
        explorer.close()
    spec = {c["name"]: c for c in controls}
    axes = [(name, list(range(spec[name]["min"], spec[name]["max"] + 1, spec[name]["step"]))) for name in ("n", "k")]
    axes.append(("all_port", [False, True]))
    return {
        "explorer": "PropagationExplorer",
        "args": [],
        "controls": controls,
        "data": cached("propagation_explorer", lambda: tabulate(axes, frame)),
    }
