"""One figure style for the whole book, with a CJK font so Chinese labels render.

The font comes from the ``cvttf-notosanscjk-regular`` wheel (Noto Sans CJK, on PyPI) when it is
installed, else from any system CJK font matplotlib knows (e.g. Debian's fonts-noto-cjk).

Readability rules (the page column is 688 CSS px wide at 1280 px; a figure inch is 100 CSS px):

* figures are at most :data:`BOOK_WIDTH` inches wide, so they are shown at their natural size
  and no text is shrunk; no text is smaller than 8 pt (11 CSS px);
* at most two panels side by side (:func:`plot_regime_map` and :func:`draw_topology_grid` wrap
  to a second row);
* PNGs at twice the resolution (retina): :func:`use_book_style` makes Jupyter's inline backend
  emit 2x PNGs with their CSS width as metadata, and ``savefig`` uses 200 dpi.

Every public function validates its arguments (``ValueError`` / ``TypeError`` naming the
parameter) and refuses work above a documented cap before starting it.
"""

from __future__ import annotations

import base64
import glob
import math
import numbers
import os
import itertools
from functools import lru_cache

import matplotlib
import numpy as np
from matplotlib import font_manager
from matplotlib.ticker import MaxNLocator

from ._validation import check_bandwidth, check_cap, check_choice, check_int, check_real

__all__ = [
    "cjk_font_name",
    "use_book_style",
    "COLORS",
    "FAMILY_COLORS",
    "BOOK_WIDTH",
    "draw_schedule",
    "plot_info_steps",
    "draw_knomial_tree",
    "draw_topology",
    "draw_topology_grid",
    "plot_diameters",
    "plot_regime_map",
    "plot_best_algorithm_map",
    "plot_algorithm_times",
    "plot_bisection_ratio",
    "plot_volume_coefficients",
]

#: Width of the book's text column in inches (688 CSS px at 100 px per inch).
BOOK_WIDTH = 6.88

#: Most vertices + edges one topology figure draws (all its panels together): drawing and
#: rendering cost ~30 us per element here (a complete graph on 1000 nodes took 25 s).
MAX_DRAWN_ELEMENTS = 2**16
#: Most panels of :func:`draw_topology_grid`.
MAX_GRID_PANELS = 8

#: Colour per algorithm / bound, shared by every chapter so a reader learns them once.
COLORS = {
    "bound": "#222222",
    "latency": "#1f77b4",
    "bandwidth": "#d62728",
    "bisection": "#9467bd",
    "ring_b": "#ff7f0e",
    "ring": "#d62728",
    "bidirectional_ring": "#ff7f0e",
    "binomial_tree": "#1f77b4",
    "double_binary_tree": "#17becf",
    "recursive_halving_doubling": "#2ca02c",
    "recursive_doubling": "#8c564b",
    "bruck": "#e377c2",
    "pairwise": "#7f7f7f",
    "scatter_allgather": "#bcbd22",
}

#: Colour per topology family (keys of ccb_helpers.diameter.FAMILIES).
FAMILY_COLORS = {"ring": COLORS["ring"], "torus2d": "#1f77b4", "torus3d": "#2ca02c", "mesh2d": "#ff7f0e",
                 "hypercube": "#9467bd", "fat_tree": "#8c564b", "fully_connected": "#7f7f7f"}

_SYSTEM_CJK = ("Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK JP", "Source Han Sans SC", "WenQuanYi Zen Hei")

#: Smallest font size (points) any figure text uses: 8 pt = 11 CSS px at the natural size.
SMALL = 8.5


@lru_cache(maxsize=1)
def cjk_font_name() -> str | None:
    """Register the bundled CJK font with matplotlib and return its family name (or None)."""
    try:
        import cvttf_NotoSansCJK_Regular as font_pkg  # type: ignore[import-not-found]

        folders = [os.path.dirname(font_pkg.__file__)]
    except ImportError:
        folders = []
    for folder in folders:
        for path in glob.glob(os.path.join(folder, "*.otf")) + glob.glob(os.path.join(folder, "*.ttf")):
            font_manager.fontManager.addfont(path)
            return font_manager.FontProperties(fname=path).get_name()
    available = {f.name for f in font_manager.fontManager.ttflist}
    for name in _SYSTEM_CJK:
        if name in available:
            return name
    return None


def use_book_style() -> None:
    """Apply the book's matplotlib style (sizes, grid, CJK font) globally; 2x PNGs in Jupyter.

    A figure inch is 100 CSS px on the page (``figure.dpi = 100``); PNGs are rendered at twice
    that (``savefig.dpi = 200``, and in IPython the inline backend's PNG formatter is replaced
    by one that renders at 2x and reports the CSS width, as ``retina`` does, but without a
    fixed height so the picture keeps its aspect ratio when a phone shrinks it).
    """
    font = cjk_font_name()
    matplotlib.rcParams.update(
        {
            "figure.figsize": (BOOK_WIDTH, 4.0),
            "figure.dpi": 100,
            "savefig.dpi": 200,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "legend.frameon": False,
            "font.size": 10.5,
            "axes.titlesize": 11,
            "axes.labelsize": 10.5,
            "xtick.labelsize": 9.5,
            "ytick.labelsize": 9.5,
            "legend.fontsize": 9,
            "axes.unicode_minus": False,
        }
    )
    if font is not None:
        # A list of families lets matplotlib fall back per glyph (⌈ ⌉ are not in Noto Sans CJK).
        matplotlib.rcParams["font.family"] = [font, "DejaVu Sans"]
    _enable_retina_inline()


def _figure_png_2x(figure):
    """IPython PNG formatter: the figure at twice its dpi, with its CSS width as metadata."""
    from IPython.core.pylabtools import print_figure

    data = print_figure(figure, fmt="png", bbox_inches="tight", dpi=2 * figure.dpi)
    if data is None:  # an empty figure shows nothing
        return None
    width = int.from_bytes(data[16:20], "big")  # the PNG header's IHDR width
    return base64.b64encode(data).decode("ascii"), {"width": width // 2}


def _enable_retina_inline() -> None:
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    backend = str(matplotlib.rcParams._get("backend"))
    if "inline" not in backend:
        return
    # Importing the inline backend runs its own one-time format set-up (plain PNG); ours must
    # come after it or it would be replaced when the first figure is made.
    import matplotlib_inline.backend_inline  # noqa: F401
    from matplotlib.figure import Figure

    shell.display_formatter.formatters["image/png"].for_type(Figure, _figure_png_2x)


# --------------------------------------------------------------------------- argument checks


def _check_ax(ax, name: str = "ax"):
    from matplotlib.axes import Axes

    if ax is not None and not isinstance(ax, Axes):
        raise TypeError(f"{name} must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def _check_names(name: str, values, choices, max_count: int | None = None) -> tuple:
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence of names (e.g. a tuple of strings), got {values!r}")
    values = tuple(values)
    if not values:
        raise ValueError(f"{name} must name at least one of {', '.join(map(repr, choices))}")
    if max_count is not None and len(values) > max_count:
        raise ValueError(f"{name} may name at most {max_count} entries, got {len(values)}")
    return tuple(check_choice(f"{name}[{i}]", v, choices) for i, v in enumerate(values))


def _check_m_range(m_range) -> tuple[float, float]:
    if isinstance(m_range, str) or not hasattr(m_range, "__len__") or len(m_range) != 2:
        raise TypeError(f"m_range must be a pair (m_min, m_max) of sizes in bytes, got {m_range!r}")
    lo = check_real("m_range[0]", m_range[0], minimum=0.0, strict=True)
    hi = check_real("m_range[1]", m_range[1], minimum=0.0, strict=True)
    if not lo < hi:
        raise ValueError(f"m_range must satisfy m_min < m_max, got ({lo:g}, {hi:g})")
    return lo, hi


def _check_axes_list(axes, count: int) -> list | None:
    if axes is None:
        return None
    if isinstance(axes, str) or not hasattr(axes, "__len__"):
        raise TypeError(f"axes must be a sequence of {count} matplotlib Axes or None, got {type(axes).__name__}")
    axes = list(np.ravel(np.asarray(axes, dtype=object)))
    if len(axes) < count:
        raise ValueError(f"axes must hold at least {count} Axes (one per panel), got {len(axes)}")
    for i, ax in enumerate(axes):
        _check_ax(ax, f"axes[{i}]")
    return axes[:count]


def _new_axes(width: float, height: float):
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(min(width, BOOK_WIDTH), height))
    return ax


def _format_rate(beta: float) -> str:
    from .units import format_bandwidth

    return format_bandwidth(beta)


# --------------------------------------------------------------------------- schedules


def draw_schedule(schedule, ax=None, max_messages: int = 4000, title: str | None = None):
    """Draw a schedule as a time x node diagram: one lane per node, one column per round.

    Each message (all pieces between one ordered pair of nodes in one round) is an arrow from
    its sender's lane at the start of the round to its receiver's lane at the end; blue arrows
    copy, red arrows reduce (add); the line width grows with the message's bytes.

    Parameters
    ----------
    schedule : Schedule or SimulationResult
        What to draw.
    ax : matplotlib Axes, optional
        Where to draw (a new figure otherwise).
    max_messages : int, default 4000
        Refuse to draw more arrows than this (the picture would be unreadable); checked before
        any arrow is made. At most 20,000.
    title : str, optional
        Axes title (default: algorithm, primitive, N, rounds).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> ax = draw_schedule(ccb.generate("binomial_tree", "broadcast", 8, 64))
    >>> len(ax.patches)   # 1 + 2 + 4 messages
    7
    """
    from matplotlib.patches import FancyArrowPatch

    from .schedule import Schedule

    schedule = getattr(schedule, "schedule", schedule)
    if not isinstance(schedule, Schedule):
        raise TypeError(f"schedule must be a Schedule or SimulationResult, got {type(schedule).__name__}")
    max_messages = check_int("max_messages", max_messages, minimum=1, maximum=20_000)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string or None, got {type(title).__name__}")
    _check_ax(ax)
    messages = []
    for index, r in enumerate(schedule.rounds):
        remote = r.src != r.dst
        if not np.any(remote):
            continue
        pair = r.src[remote] * schedule.n + r.dst[remote]
        keys, inverse = np.unique(pair, return_inverse=True)
        if len(messages) + len(keys) > max_messages:
            raise ValueError(f"schedule has more than max_messages={max_messages} messages; draw a smaller n")
        size = np.bincount(inverse, weights=r.length[remote])
        reduce = np.bincount(inverse, weights=r.reduce[remote]) > 0
        messages += [(index, int(k) // schedule.n, int(k) % schedule.n, s, red) for k, s, red in zip(keys, size, reduce)]
    use_book_style()
    if ax is None:
        ax = _new_axes(max(5.0, 1.0 + 0.6 * len(schedule.rounds)), min(max(3.0, 1.0 + 0.35 * schedule.n), 8))
    biggest = max((mm[3] for mm in messages), default=1) or 1
    for index, src, dst, size, red in messages:
        ax.add_patch(
            FancyArrowPatch(
                (index + 0.08, src), (index + 0.92, dst),
                arrowstyle="-|>", mutation_scale=9,
                color=COLORS["bandwidth"] if red else COLORS["latency"],
                linewidth=0.6 + 2.0 * size / biggest, alpha=0.85,
            )
        )
    rounds = len(schedule.rounds)
    ax.set_xlim(0, max(rounds, 1))
    ax.set_ylim(schedule.n - 0.5, -0.5)
    ax.set_xticks(np.arange(rounds) + 0.5, [str(i + 1) for i in range(rounds)] if rounds <= 40 else [""] * rounds)
    ax.set_yticks(range(schedule.n) if schedule.n <= 32 else [])
    ax.set_xlabel("轮次 (round)")
    ax.set_ylabel("节点 (node)")
    ax.grid(False)
    for x in range(rounds + 1):
        ax.axvline(x, color="#dddddd", linewidth=0.6, zorder=0)
    ax.set_title(title or f"{schedule.algorithm} · {schedule.primitive} · N = {schedule.n} · {rounds} 轮")
    kinds = {red for *_, red in messages}
    if False in kinds:
        ax.plot([], [], color=COLORS["latency"], label="copy 复制")
    if True in kinds:
        ax.plot([], [], color=COLORS["bandwidth"], label="reduce 归约（相加）")
    if kinds:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    return ax


# --------------------------------------------------------------------------- propagation


def plot_info_steps(ks=(1, 2, 6), n_max: int = 10**6, all_port: bool = True, ax=None):
    """Steps ``ceil(log_{k+1} N)`` against N (log axis) for several port counts k.

    Exact integer steps at every N from 2 to ``n_max``, drawn as step functions through the
    points where the step count changes (``N = (k+1)^t + 1``), so any ``n_max`` up to
    ``2**62`` costs the same.

    Parameters
    ----------
    ks : sequence of int
        Port counts ``k >= 1``, at most five curves.
    n_max : int, default 10**6
        Largest N, ``2 <= n_max <= 2**62``.
    all_port : bool, default True
        Also draw the all-port line (one step).
    ax : matplotlib Axes, optional

    >>> ax = plot_info_steps(n_max=1000)
    >>> [line.get_label() for line in ax.get_lines()]
    ['1-port', '2-port', '6-port', 'all-port (k = N-1)']
    """
    from .propagation import info_steps

    if isinstance(ks, (str, bytes)) or not hasattr(ks, "__iter__"):
        raise TypeError(f"ks must be a sequence of port counts, got {ks!r}")
    ks = tuple(ks)
    if not 1 <= len(ks) <= 5:
        raise ValueError(f"ks must hold 1 to 5 port counts, got {len(ks)}")
    ks = tuple(check_int(f"ks[{i}]", k, minimum=1) for i, k in enumerate(ks))
    n_max = check_int("n_max", n_max, minimum=2, maximum=2**62)
    all_port = _check_bool("all_port", all_port)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        ax = _new_axes(BOOK_WIDTH, 4.0)
    palette = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b"]
    for color, k in zip(palette, ks):
        xs, power = [2], k + 1
        while power + 1 <= n_max:  # the step count rises at N = (k+1)^t + 1
            xs.append(power + 1)
            power *= k + 1
        xs.append(n_max)
        steps = [info_steps(x, k) for x in xs]
        ax.step(np.array(xs, dtype=float), steps, where="post", color=color, label=f"{k}-port")
    if all_port:
        ax.step([2.0, float(n_max)], [1, 1], where="post", color="#7f7f7f", linestyle="--", label="all-port (k = N-1)")
    ax.set_xscale("log")
    ax.set_xlabel("节点数 N")
    ax.set_ylabel(r"步数下界 $\lceil \log_{k+1} N \rceil$")
    ax.set_title("信息传播步数下界随 N 的增长")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="upper left")
    return ax


@lru_cache(maxsize=128)
def _knomial_geometry(n: int, k: int):
    """x, y of every node, the edges (parent, child) and the number of rounds of the k-nomial tree."""
    from .generators import knomial_tree

    rounds = knomial_tree(n, k)
    informed = np.zeros(n, dtype=int)
    children: dict[int, list[int]] = {v: [] for v in range(n)}
    for t, edges in enumerate(rounds, start=1):
        for parent, child in edges:
            informed[child] = t
            children[parent].append(child)
    # x positions: leaves in depth-first order, parents centred over their subtree.
    x = np.zeros(n)
    counter = [0]

    def place(v: int) -> float:
        if not children[v]:
            x[v] = counter[0]
            counter[0] += 1
        else:
            xs = [place(c) for c in children[v]]
            x[v] = (min(xs) + max(xs)) / 2
        return x[v]

    place(0)
    edges = tuple((p, c) for p in range(n) for c in children[p])
    return x, -informed.astype(float), informed, edges, len(rounds)


class _KnomialTreeArtists:
    """A k-nomial tree drawing made once on ``ax`` and updated in place (:meth:`update`)."""

    LABELS = 32  # nodes are numbered up to this N

    def __init__(self, ax):
        from matplotlib.collections import LineCollection
        from matplotlib.transforms import offset_copy

        self.ax = ax
        self.edges = LineCollection([], colors="#999999", linewidths=0.8, zorder=1)
        ax.add_collection(self.edges)
        self.nodes = ax.scatter([], [], zorder=2, edgecolors="white", linewidths=0.5)
        above = offset_copy(ax.transData, fig=ax.figure, x=0, y=5, units="points")
        self.labels = [ax.text(0, 0, "", ha="center", va="bottom", fontsize=SMALL, visible=False, transform=above)
                       for _ in range(self.LABELS)]
        ax.set_ylabel("被通知的轮次")
        ax.set_xticks([])
        ax.grid(False)

    def update(self, n: int, k: int) -> None:
        x, y, informed, edges, rounds = _knomial_geometry(n, k)
        self.edges.set_segments([((x[p], y[p]), (x[c], y[c])) for p, c in edges])
        self.nodes.set_offsets(np.column_stack([x, y]))
        cmap = matplotlib.colormaps["viridis"].resampled(rounds + 1)
        self.nodes.set_facecolor(cmap(informed))
        self.nodes.set_sizes([60 if n <= 32 else 18])
        for v, label in enumerate(self.labels):
            label.set_visible(n <= self.LABELS and v < n)
            if label.get_visible():
                label.set_text(str(v))
                label.set_position((x[v], y[v]))
        self.ax.set_xlim(-0.6, max(x.max(), 1) + 0.6)
        self.ax.set_ylim(-rounds - 0.45, 0.6)
        self.ax.set_yticks(-np.arange(rounds + 1), [str(t) for t in range(rounds + 1)])
        self.ax.set_title(f"{k + 1}-nomial 树（{k}-port），N = {n}：{rounds} 轮")


def draw_knomial_tree(n: int, k: int = 1, ax=None):
    """Draw the k-nomial broadcast tree on ``n`` nodes; colour = the round a node is informed.

    Nodes sit at height ``-round``; the root is informed at round 0.

    Parameters
    ----------
    n : int
        Nodes, ``1 <= n <= 256`` (a bigger tree is unreadable).
    k : int, default 1
        Ports, ``k >= 1`` (the tree is ``(k+1)``-nomial).
    ax : matplotlib Axes, optional

    >>> ax = draw_knomial_tree(9, k=2)
    >>> len(ax.collections[1].get_offsets())   # one marker per node
    9
    """
    n = check_int("n", n, minimum=1, maximum=256)
    k = check_int("k", k, minimum=1)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        ax = _new_axes(BOOK_WIDTH, 4.0)
    _KnomialTreeArtists(ax).update(n, k)
    return ax


# --------------------------------------------------------------------------- topologies


def _layout(topology):
    """Positions for drawing: circles, grids (3-D projected), hypercube projection, fat-tree layers."""
    g = topology.graph
    family = topology.family
    pos = {}
    if all("pos" in data for _, data in g.nodes(data=True)):  # the topology brings its own drawing
        return {v: np.asarray(data["pos"], dtype=float) for v, data in g.nodes(data=True)}
    if family in ("torus", "mesh"):
        for v, coord in g.nodes(data="coord"):
            c = list(coord) + [0] * (3 - len(coord))
            pos[v] = (c[0] + 0.45 * c[2], c[1] + 0.3 * c[2]) if len(coord) == 3 else (c[0], c[1] if len(coord) > 1 else 0)
    elif family == "hypercube":
        dim = topology.degree
        angles = [math.pi * b / max(dim, 1) for b in range(dim)]
        for v in g.nodes:
            pos[v] = (sum(math.cos(a) for b, a in enumerate(angles) if v >> b & 1),
                      sum(math.sin(a) for b, a in enumerate(angles) if v >> b & 1))
    elif family == "fat_tree":
        hosts = [v for v in g.nodes if not isinstance(v, tuple)]
        leaves = sorted(v for v in g.nodes if isinstance(v, tuple) and v[0] == "leaf")
        spines = sorted(v for v in g.nodes if isinstance(v, tuple) and v[0] == "spine")
        width = max(len(hosts) - 1, 1)
        for i, v in enumerate(sorted(hosts)):
            pos[v] = (i, 0)
        for row, group in ((1, leaves), (2, spines)):
            for i, v in enumerate(group):
                pos[v] = ((i + 0.5) * width / len(group), row * max(2.0, width / 6))
    else:  # ring, fully connected, single switch: a circle (switch in the centre)
        ends = [v for v in g.nodes if not isinstance(v, tuple)]
        for i, v in enumerate(sorted(ends)):
            angle = math.pi / 2 - 2 * math.pi * i / max(len(ends), 1)
            pos[v] = (math.cos(angle), math.sin(angle))
        for v in g.nodes:
            if isinstance(v, tuple):
                pos[v] = (0.0, 0.0)
    return {v: np.asarray(p, dtype=float) for v, p in pos.items()}


def _arc(a, b, rad: float = 0.25, points: int = 16):
    """Points of matplotlib's ``arc3`` connection from a to b (a quadratic Bezier curve)."""
    mid = (a + b) / 2
    d = b - a
    control = mid + rad * np.array([d[1], -d[0]])
    t = np.linspace(0, 1, points)[:, None]
    return (1 - t) ** 2 * a + 2 * (1 - t) * t * control + t**2 * b


class _ByIdentity:
    """Cache key of a topology whose fields do not determine its graph (two custom topologies
    with the same name, n, degree, diameter and cut compare equal but have different links)."""

    __slots__ = ("topology",)

    def __init__(self, topology):
        self.topology = topology  # held, so its id cannot be reused while the key is cached

    def __eq__(self, other):
        return isinstance(other, _ByIdentity) and other.topology is self.topology

    def __hash__(self):
        return id(self.topology)


def _topology_geometry(topology, root: int, side: frozenset | None):
    """Everything a topology drawing needs, computed once per (topology, root, side)."""
    from .topology import TOPOLOGY_FAMILIES

    key = topology if topology.family in TOPOLOGY_FAMILIES else _ByIdentity(topology)
    return _cached_geometry(key, root, side)


@lru_cache(maxsize=64)
def _cached_geometry(key, root: int, side: frozenset | None):
    import networkx as nx

    topology = key.topology if isinstance(key, _ByIdentity) else key
    g = topology.graph
    pos = _layout(topology)
    dist = nx.single_source_shortest_path_length(g, root)
    crossing = set()
    if side is not None:
        if topology.switched:
            # Switches sit with the side that holds most of their endpoint neighbours (leaves) or
            # of their leaves (spines): the placement that the closed form counts.
            placed = {v: v in side for v in range(topology.n)}
            for level in ("leaf", "spine", "switch"):
                for v in g.nodes:
                    if isinstance(v, tuple) and v[0] == level:
                        votes = [placed[u] for u in g[v] if u in placed]
                        placed[v] = sum(votes) * 2 > len(votes) if votes else False
            crossing = {frozenset((u, v)) for u, v in g.edges if placed[u] != placed[v]}
        else:
            crossing = {frozenset((u, v)) for u, v in g.edges if (u in side) != (v in side)}
    straight, straight_cut, straight_links, arcs, arcs_cut, arcs_links = [], [], [], [], [], []
    for u, v in g.edges:
        a, b = pos[u], pos[v]
        cut = frozenset((u, v)) in crossing
        links = g.edges[u, v].get("links", 1)  # parallel links (a user topology) drawn proportionally thicker
        if topology.family == "torus" and np.abs(a - b).max() > 1.5:  # wrap-around link
            arcs.append(_arc(a, b))
            arcs_cut.append(cut)
            arcs_links.append(links)
        else:
            straight.append(np.array([a, b]))
            straight_cut.append(cut)
            straight_links.append(links)
    ends = [v for v, kind in g.nodes(data="kind") if kind == "endpoint"]
    switches = [v for v, kind in g.nodes(data="kind") if kind == "switch"]
    points = np.array([pos[v] for v in g.nodes] + [p for arc in arcs for p in arc])
    return {
        "ends": np.array([pos[v] for v in ends]),
        "root": np.array([pos[root]]),
        "hops": np.array([dist[v] for v in ends]),
        "in_side": np.array([v in side for v in ends]) if side is not None else None,
        "switches": np.array([pos[v] for v in switches]).reshape(-1, 2),
        "straight": straight, "straight_cut": np.array(straight_cut, dtype=bool), "straight_links": straight_links,
        "arcs": arcs, "arcs_cut": np.array(arcs_cut, dtype=bool), "arcs_links": arcs_links,
        "crossing": sum(g.edges[tuple(e)].get("links", 1) for e in crossing),
        "lo": points.min(axis=0), "hi": points.max(axis=0),
    }


class _TopologyArtists:
    """A topology drawing made once on ``ax`` and updated in place (:meth:`update`)."""

    LABELS = 32  # hop counts are written on the nodes up to this many endpoints

    def __init__(self, ax):
        from matplotlib.collections import LineCollection

        self.ax = ax
        self.links = LineCollection([], zorder=1)
        self.wraps = LineCollection([], zorder=1, linestyles="--")
        ax.add_collection(self.links)
        ax.add_collection(self.wraps)
        self.switches = ax.scatter([], [], marker="s", color="#888888", zorder=2)
        self.ends = ax.scatter([], [], zorder=3, edgecolors="white", linewidths=0.6)
        self.root = ax.scatter([], [], facecolors="none", edgecolors=COLORS["bandwidth"], linewidths=1.5, zorder=4)
        # 9.5 pt: at least 9 CSS px even when a two-panel figure is shown at 0.7 of its width (#31)
        self.labels = [ax.text(0, 0, "", ha="center", va="center", fontsize=9.5, zorder=5, visible=False)
                       for _ in range(self.LABELS)]
        ax.set_aspect("equal", adjustable="box")
        ax.axis("off")

    def update(self, topology, root: int = 0, side=None) -> int:
        """Draw ``topology``; returns the number of links the cut crosses (0 without ``side``)."""
        geo = _topology_geometry(topology, root, None if side is None else frozenset(side))
        cut_color, plain = matplotlib.colors.to_rgba(COLORS["bandwidth"]), matplotlib.colors.to_rgba("#bbbbbb")
        for collection, segments, cut, links, scale in (
                (self.links, geo["straight"], geo["straight_cut"], geo["straight_links"], 1.0),
                (self.wraps, geo["arcs"], geo["arcs_cut"], geo["arcs_links"], 0.9)):
            collection.set_segments(segments)
            collection.set_color([cut_color if c else plain for c in cut])
            collection.set_linewidth([(2.0 if c else 0.8) * scale * k for c, k in zip(cut, links)])
        n_ends = len(geo["ends"])
        size = 190 if n_ends <= 32 else (40 if n_ends <= 128 else 14)  # a disc that holds a 9.5 pt digit
        self.ends.set_offsets(geo["ends"])
        self.ends.set_sizes([size])
        hops = geo["hops"]
        far = max(int(hops.max()), 1)
        if side is None:
            self.ends.set_facecolor(matplotlib.colormaps["viridis_r"](hops / far))
        else:
            self.ends.set_facecolor([COLORS["latency"] if s else COLORS["ring_b"] for s in geo["in_side"]])
        self.switches.set_offsets(geo["switches"])
        self.switches.set_sizes([size * 0.8])
        self.root.set_offsets(geo["root"] if side is None else np.empty((0, 2)))
        self.root.set_sizes([size * 2.2])
        show = side is None and n_ends <= self.LABELS
        for v, label in enumerate(self.labels):
            label.set_visible(show and v < n_ends)
            if label.get_visible():
                # viridis_r is light for small distances: dark digits there, white ones on the dark end.
                label.set_text(str(hops[v]))
                label.set_position(geo["ends"][v])
                label.set_color("black" if hops[v] < far / 2 else "white")
        lo, hi = geo["lo"], geo["hi"]
        pad = 0.08 * max(hi - lo) + 0.3
        self.ax.set_xlim(lo[0] - pad, hi[0] + pad)
        self.ax.set_ylim(lo[1] - pad, hi[1] + pad)
        short = topology.name.split(" (")[0]
        if side is not None:
            title = f"{short}：平衡割切断 {geo['crossing']} 条链路（红色）"
        elif topology.switched:
            title = (f"{short}：从节点 {root} 出发的跳数\n"
                     f"（端点间最多 {topology.diameter} 跳，交换机同轮转发：D = {topology.step_diameter} 轮）")
        else:
            title = f"{short}：从节点 {root} 出发的 BFS 层（直径 D = {topology.step_diameter}）"
        self.ax.set_title(title, fontsize=9.5)
        return geo["crossing"]


def _check_topology(topology, max_nodes: int, name: str = "topology"):
    from .topology import Topology

    if not isinstance(topology, Topology):
        raise TypeError(f"{name} must be a Topology (e.g. ccb.ring(8)), got {type(topology).__name__}")
    # The endpoints alone decide most cases, before the graph is built; switches are few.
    if topology.n > max_nodes:
        raise ValueError(f"{name} {topology.name} has more than max_nodes={max_nodes} vertices to draw")
    vertices, edges = _graph_elements(topology)
    if vertices > max_nodes:
        raise ValueError(f"{name} {topology.name} has more than max_nodes={max_nodes} vertices to draw")
    return topology


def _graph_elements(topology) -> tuple[int, int]:
    """(vertices, edges) of the topology's graph, from the constructor's count when it has one
    (so a graph too big to draw is refused without being built)."""
    if topology._graph_size is not None:
        return topology._graph_size
    return topology.graph.number_of_nodes(), topology.graph.number_of_edges()


def _check_drawn_elements(topologies) -> None:
    total = sum(sum(_graph_elements(t)) for t in topologies)
    check_cap("drawing the topology figure: vertices + edges", total, MAX_DRAWN_ELEMENTS,
              hint="draw fewer or smaller topologies (e.g. a complete graph on at most 360 nodes)")


def _check_side(side, n: int):
    if side is None:
        return None
    if isinstance(side, (str, bytes)) or not hasattr(side, "__iter__"):
        raise TypeError(f"side must be a set of endpoint numbers (e.g. ccb.bisection_partition(t)), got {side!r}")
    items = list(itertools.islice(iter(side), n + 1))  # a set of endpoints has at most n of them
    if len(items) > n:
        raise ValueError(f"side must hold at most n={n} endpoint numbers (one side of a cut)")
    side = frozenset(items)
    for v in side:
        check_int("side element", v, minimum=0, maximum=n - 1)
    return side


def draw_topology(topology, root: int = 0, ax=None, max_nodes: int = 600, side=None):
    """Draw a topology with its endpoints coloured by BFS distance (hops) from ``root``.

    Switches are grey squares; wrap-around links of a torus are drawn as dashed arcs. With
    ``side`` (a set of endpoints, e.g. :func:`ccb_helpers.bisection_partition`), endpoints are
    coloured by side instead and the links of the cut are drawn in red.

    Parameters
    ----------
    topology : Topology
    root : int, default 0
        Endpoint the BFS starts from, ``0 <= root < topology.n``.
    ax : matplotlib Axes, optional
    max_nodes : int, default 600
        Refuse topologies with more vertices (checked on the endpoint count before the graph
        is built); at most 5000.
    side : set of int, optional
        Endpoints of one side of a cut.

    Raises
    ------
    ValueError
        Also when the graph has more than ``MAX_DRAWN_ELEMENTS = 2**16`` vertices + edges
        (checked before it is built).

    >>> import ccb_helpers as ccb
    >>> ax = draw_topology(ccb.torus(4, 4))
    >>> ax.get_title()
    'torus 4x4：从节点 0 出发的 BFS 层（直径 D = 4）'
    """
    max_nodes = check_int("max_nodes", max_nodes, minimum=1, maximum=5000)
    topology = _check_topology(topology, max_nodes)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1)
    side = _check_side(side, topology.n)
    _check_ax(ax)
    _check_drawn_elements([topology])
    use_book_style()
    if ax is None:
        ax = _new_axes(5, 5)
    _TopologyArtists(ax).update(topology, root, side)
    return ax


def draw_topology_grid(topologies, cuts: bool = False, max_nodes: int = 600):
    """Draw several topologies, two per row (the book's column holds two readable panels).

    Parameters
    ----------
    topologies : sequence of Topology
        One to eight (``MAX_GRID_PANELS``) topologies.
    cuts : bool, default False
        Draw each one's minimum balanced cut (:func:`ccb_helpers.bisection_partition`)
        instead of its BFS layers.
    max_nodes : int, default 600
        As in :func:`draw_topology` (per panel).

    Raises
    ------
    ValueError
        Also when the panels together have more than ``MAX_DRAWN_ELEMENTS = 2**16`` vertices +
        edges (checked before any graph is built or drawn), or a cut cannot be computed.

    Returns
    -------
    list of matplotlib Axes, one per topology

    >>> import ccb_helpers as ccb
    >>> axes = draw_topology_grid([ccb.ring(8), ccb.torus(3, 3), ccb.hypercube(3)])
    >>> len(axes), bool(axes[0].figure.get_size_inches()[0] <= BOOK_WIDTH)
    (3, True)
    """
    import matplotlib.pyplot as plt

    from .bisection import bisection_partition

    if isinstance(topologies, (str, bytes, dict)) or not hasattr(topologies, "__iter__"):
        raise TypeError(f"topologies must be a sequence of Topology, got {type(topologies).__name__}")
    if isinstance(topologies, np.ndarray) and topologies.ndim != 1:
        raise TypeError(f"topologies must be a flat sequence of Topology, got an array of shape {topologies.shape}")
    topologies = list(itertools.islice(iter(topologies), MAX_GRID_PANELS + 1))  # an endless iterator stops here
    if not 1 <= len(topologies) <= MAX_GRID_PANELS:
        more = "more than " if len(topologies) > MAX_GRID_PANELS else ""
        raise ValueError(f"topologies must hold 1 to {MAX_GRID_PANELS} topologies, got {more}{len(topologies) - bool(more)}")
    cuts = _check_bool("cuts", cuts)
    max_nodes = check_int("max_nodes", max_nodes, minimum=1, maximum=5000)
    for i, t in enumerate(topologies):
        _check_topology(t, max_nodes, name=f"topologies[{i}]")
    _check_drawn_elements(topologies)
    sides = [None] * len(topologies)
    for i, t in enumerate(topologies if cuts else ()):  # every cut before any figure is made
        try:
            sides[i] = bisection_partition(t)
        except ValueError as err:
            raise ValueError(f"topologies[{i}] ({t.name}): {err}") from None
    use_book_style()
    cols = min(2, len(topologies))
    rows = math.ceil(len(topologies) / cols)
    fig, grid = plt.subplots(rows, cols, figsize=(BOOK_WIDTH if cols == 2 else 3.6, 3.5 * rows), squeeze=False)
    axes = list(grid.ravel())
    for ax, t, side in zip(axes, topologies, sides):
        _TopologyArtists(ax).update(t, 0, side)
    for ax in axes[len(topologies):]:
        ax.axis("off")
    fig.tight_layout()
    return axes[: len(topologies)]


def plot_diameters(families=("ring", "torus2d", "torus3d", "mesh2d", "hypercube", "fat_tree", "fully_connected"),
                   max_n: int = 10**6, ax=None):
    """Latency-relevant diameter (rounds) against N for each family, with the ceil(log2 N) line.

    Parameters
    ----------
    families : sequence of str
        Keys of :data:`ccb_helpers.FAMILIES`.
    max_n : int, default 10**6
        Largest N, ``4 <= max_n <= 10**7`` (the families' instances are enumerated).
    ax : matplotlib Axes, optional

    >>> ax = plot_diameters(families=("ring", "hypercube"), max_n=1024)
    >>> [line.get_label() for line in ax.get_lines()]
    ['Ring', 'Hypercube', '⌈log₂ N⌉（信息下界，1-port）']
    """
    from .diameter import FAMILIES, family_instances
    from .propagation import info_steps

    families = _check_names("families", families, FAMILIES)
    max_n = check_int("max_n", max_n, minimum=4, maximum=10**7)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        ax = _new_axes(BOOK_WIDTH, 4.4)
    for family in families:
        if family in ("ring", "fully_connected"):
            ns = np.unique(np.logspace(np.log10(2), np.log10(max_n), 300).astype(int))
            ds = ns // 2 if family == "ring" else np.ones_like(ns)
        else:
            topos = list(family_instances(family, max_n))
            ns = np.array([t.n for t in topos])
            ds = np.array([t.step_diameter for t in topos])
        ax.plot(ns, ds, marker="o" if len(ns) < 40 else None, markersize=3, color=FAMILY_COLORS[family],
                label=FAMILIES[family][0])
    n = np.unique(np.logspace(0.3, np.log10(max_n), 400).astype(np.int64))
    ax.step(n, info_steps(n), where="post", color=COLORS["bound"], linewidth=2, label="⌈log₂ N⌉（信息下界，1-port）")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("节点数 N")
    ax.set_ylabel("直径 D（轮）")
    ax.set_title("拓扑直径与信息传播下界（曲线高于黑线处，直径更紧）", fontsize=10.5)
    ax.legend(loc="upper left", ncol=2)
    return ax


# --------------------------------------------------------------------------- bounds and algorithms


def plot_regime_map(primitive="all_reduce", preset_keys=("a100_nvlink", "h100_nvswitch", "ib_ndr"), n_max=4096,
                    m_range=(2.0**6, 2.0**34), axes=None):
    """Latency- vs bandwidth-bound regions of the lower bound over (N, M), with the M* curve, per preset.

    Uses each preset's α, β and ``k = ports_for(N)`` capped at 1 for bandwidth when the preset
    shares one NIC (InfiniBand); the M* curve is :func:`ccb_helpers.crossover_size`. One panel
    per preset, two per row.

    Parameters
    ----------
    primitive : str
    preset_keys : sequence of str
        Keys of :data:`ccb_helpers.PRESETS`, one to four.
    n_max : int, default 4096
        Largest N, ``4 <= n_max <= 2**20``.
    m_range : (float, float)
        Smallest and largest M in bytes.
    axes : sequence of matplotlib Axes, optional
        One per preset.

    >>> axes = plot_regime_map(preset_keys=("a100_nvlink",), n_max=256)
    >>> len(axes)
    1
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    from .bounds import crossover_size, regime
    from .hardware import PRESETS
    from .primitives import check_primitive
    from .units import format_bytes, format_time

    primitive = check_primitive(primitive)
    preset_keys = _check_names("preset_keys", preset_keys, PRESETS, max_count=4)
    n_max = check_int("n_max", n_max, minimum=4, maximum=2**20)
    m_range = _check_m_range(m_range)
    axes = _check_axes_list(axes, len(preset_keys))
    use_book_style()
    if axes is None:
        cols = min(2, len(preset_keys))
        rows = math.ceil(len(preset_keys) / cols)
        fig, grid = plt.subplots(rows, cols, figsize=(BOOK_WIDTH if cols == 2 else 4.2, 3.4 * rows), squeeze=False)
        axes = list(grid.ravel())
        for spare in axes[len(preset_keys):]:
            spare.axis("off")
        axes = axes[: len(preset_keys)]
    ns = np.unique(np.geomspace(2, n_max, 120).astype(np.int64))
    ms = np.geomspace(*m_range, 160)
    for ax, key in zip(axes, preset_keys):
        p = PRESETS[key]
        ports = 1 if p.ports is None else p.ports
        grid = regime(primitive, ns[:, None], ms[None, :], p.alpha, p.beta, ports=ports)
        ax.pcolormesh(ns, ms, (grid == "bandwidth").T.astype(float), cmap=ListedColormap(["#dbe9f6", "#f8dcdc"]),
                      shading="auto", vmin=0, vmax=1)
        m_star = np.array([crossover_size(primitive, int(n), p.alpha, p.beta, ports=ports) for n in ns])
        ax.plot(ns, m_star, color=COLORS["bound"], linewidth=2, label="$M^*$")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("节点数 N")
        ax.set_ylabel("消息大小 M")
        ax.yaxis.set_major_formatter(lambda v, _pos: format_bytes(v))
        ax.set_title(f"{p.label.split(' (')[0]}\nα = {format_time(p.alpha)}，β = {_format_rate(p.beta)}，k = {ports}",
                     fontsize=9.5)
        ax.text(0.04, 0.92, "带宽主导", transform=ax.transAxes, fontsize=9.5, color=COLORS["bandwidth"])
        ax.text(0.60, 0.05, "延迟主导", transform=ax.transAxes, fontsize=9.5, color=COLORS["latency"])
        ax.grid(False)
    return axes


def plot_best_algorithm_map(primitive="all_reduce", alpha=1.5e-6, beta=50e9, ports=1, n_max=1024, m_range=(2.0**6, 2.0**32), ax=None):
    """The fastest modelled algorithm over (N, M), with the lower bound's crossover size M*.

    Algorithms that need a power of two compete only at those N (the vertical stripes).

    Parameters
    ----------
    primitive : str
    alpha : float
        Latency per step in seconds (``>= 0``).
    beta : float
        Bandwidth of one link in one direction, bytes/s (``> 0``).
    ports : int, default 1
    n_max : int, default 1024
        Largest N, ``4 <= n_max <= 2**20``.
    m_range : (float, float)
    ax : matplotlib Axes, optional

    >>> ax = plot_best_algorithm_map(n_max=64)
    >>> ax.get_xlabel()
    '节点数 N'
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from .algorithms import ALGORITHM_LABELS, applicable_algorithms, best_algorithm
    from .bounds import crossover_size
    from .primitives import check_primitive
    from .units import format_bytes, format_time

    primitive = check_primitive(primitive)
    alpha = check_real("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    ports = check_int("ports", ports, minimum=1)
    n_max = check_int("n_max", n_max, minimum=4, maximum=2**20)
    m_range = _check_m_range(m_range)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        ax = _new_axes(BOOK_WIDTH, 4.4)
    ns = np.unique(np.geomspace(2, n_max, 140).astype(np.int64))
    ms = np.geomspace(*m_range, 160)
    names, times = best_algorithm(primitive, ns[:, None], ms[None, :], alpha, beta, ports)
    candidates = applicable_algorithms(primitive, ports=ports)
    present = [a for a in candidates if np.any(names == a)]
    index = np.vectorize(present.index)(names)
    cmap = ListedColormap([COLORS.get(a, "#cccccc") for a in present])
    ax.pcolormesh(ns, ms, index.T, cmap=cmap, shading="auto", vmin=-0.5, vmax=len(present) - 0.5, alpha=0.55)
    m_star = np.array([crossover_size(primitive, int(n), alpha, beta, ports=ports) for n in ns])
    ax.plot(ns, m_star, color=COLORS["bound"], linewidth=1.5, linestyle="--", label="$M^*$（下界的交叉点）")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_formatter(lambda v, _pos: format_bytes(v))
    ax.set_xlabel("节点数 N")
    ax.set_ylabel("消息大小 M")
    ax.set_title(f"每个 (N, M) 上最快的算法；α = {format_time(alpha)}，β = {_format_rate(beta)}，{ports}-port", fontsize=10)
    handles = [Patch(color=COLORS.get(a, "#cccccc"), alpha=0.55, label=ALGORITHM_LABELS[a]) for a in present]
    ax.legend(handles=handles + ax.get_legend_handles_labels()[0], loc="upper left")
    ax.grid(False)
    return ax


def plot_algorithm_times(primitive="all_reduce", n=16, alpha=1.5e-6, beta=50e9, ports=1, m_range=(2.0**6, 2.0**32),
                         efficiency=False, ax=None):
    """Time (or efficiency = bound / time) against M for the lower bound and every applicable algorithm.

    Parameters
    ----------
    primitive : str
    n : int
        Nodes, ``2 <= n <= 2**20``.
    alpha : float
        Latency per step in seconds (``>= 0``).
    beta : float
        Bandwidth of one link in one direction, bytes/s (``> 0``).
    ports : int, default 1
    m_range : (float, float)
    efficiency : bool, default False
        Plot bound / time instead of time.
    ax : matplotlib Axes, optional

    >>> ax = plot_algorithm_times(n=8)
    >>> ax.get_lines()[0].get_label()
    '下界 max(Tα, Tβ)'
    """
    from .algorithms import ALGORITHM_LABELS, algorithm_cost, applicable_algorithms
    from .bounds import combined_lower_bound, crossover_size
    from .primitives import check_primitive
    from .units import format_bytes, format_time

    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=2, maximum=2**20)
    alpha = check_real("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    ports = check_int("ports", ports, minimum=1)
    m_range = _check_m_range(m_range)
    efficiency = _check_bool("efficiency", efficiency)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        ax = _new_axes(BOOK_WIDTH, 4.3)
    ms = np.geomspace(*m_range, 200)
    bound = combined_lower_bound(primitive, n, ms, alpha, beta, ports=ports)
    if not efficiency:
        ax.plot(ms, bound, color=COLORS["bound"], linewidth=2.5, label="下界 max(Tα, Tβ)")
    for name in applicable_algorithms(primitive, n=n, ports=ports):
        t = algorithm_cost(name, primitive, n, ms, alpha, beta, ports=ports)
        ax.plot(ms, bound / t if efficiency else t, color=COLORS.get(name), label=ALGORITHM_LABELS[name])
    ax.axvline(crossover_size(primitive, n, alpha, beta, ports=ports), color="#999999", linestyle="--", linewidth=1,
               label="$M^*$")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(lambda v, _pos: format_bytes(v))
    if efficiency:
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("效率 = 下界 / 时间")
    else:
        ax.set_yscale("log")
        ax.set_ylabel("时间 (s)")
    ax.set_xlabel("消息大小 M")
    ax.set_title(f"N = {n}，α = {format_time(alpha)}，β = {_format_rate(beta)}，{ports}-port", fontsize=10.5)
    ax.legend()
    return ax


# --------------------------------------------------------------------------- bandwidth and bisection


def plot_bisection_ratio(primitives=("all_reduce", "all_to_all"), families=("ring", "torus2d", "torus3d", "hypercube", "fat_tree"),
                         max_n=2**14, m=2.0**30, beta=50e9, axes=None):
    """Bisection bound / node-level bound against N (node bound with every link, p = degree).

    Above 1 the bisection bound is the tighter one. One panel per primitive (two per row), one
    legend for all panels below them.

    Parameters
    ----------
    primitives : sequence of str
        One to four primitives.
    families : sequence of str
        Keys of :data:`ccb_helpers.FAMILIES`.
    max_n : int, default 2**14
        Largest N, ``4 <= max_n <= 2**16`` (every instance is built).
    m : float
        Message size in bytes (``> 0``).
    beta : float
        Bandwidth of one link in one direction, bytes/s (``> 0``).
    axes : sequence of matplotlib Axes, optional
        One per primitive.

    >>> axes = plot_bisection_ratio(primitives=("all_to_all",), families=("ring",), max_n=256)
    >>> axes[0].get_lines()[0].get_label()
    'Ring'
    """
    import matplotlib.pyplot as plt

    from .bisection import bisection_lower_bound, node_lower_bound
    from .diameter import FAMILIES, family_instances
    from .primitives import PRIMITIVE_LABELS, PRIMITIVES
    from .topology import ring

    primitives = _check_names("primitives", primitives, PRIMITIVES, max_count=4)
    families = _check_names("families", families, FAMILIES)
    max_n = check_int("max_n", max_n, minimum=4, maximum=2**16)
    m = check_real("m", m, minimum=0.0, strict=True)
    beta = check_bandwidth("beta", beta)
    axes = _check_axes_list(axes, len(primitives))
    use_book_style()
    own = axes is None
    if own:
        cols = min(2, len(primitives))
        rows = math.ceil(len(primitives) / cols)
        fig, grid = plt.subplots(rows, cols, figsize=(BOOK_WIDTH if cols == 2 else 4.2, 3.3 * rows + 0.5), squeeze=False,
                                 layout="constrained")
        axes = list(grid.ravel())
        for spare in axes[len(primitives):]:
            spare.axis("off")
        axes = axes[: len(primitives)]
    for ax, primitive in zip(axes, primitives):
        for family in families:
            if family == "ring":
                topos = [ring(int(n)) for n in np.unique(np.geomspace(4, max_n, 60).astype(int))]
            else:
                topos = list(family_instances(family, max_n))
            topos = [t for t in topos if t.n >= 4]
            ns = [t.n for t in topos]
            ratio = [bisection_lower_bound(primitive, t, m, beta) / node_lower_bound(primitive, t, m, beta, ports=max(t.degree, 1))
                     for t in topos]
            ax.plot(ns, ratio, marker="o" if len(ns) < 30 else None, markersize=3, color=FAMILY_COLORS[family], label=FAMILIES[family][0])
        ax.axhline(1.0, color=COLORS["bound"], linewidth=1.2, linestyle="--")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("节点数 N")
        ax.set_ylabel("bisection 下界 / 节点级下界")
        ax.set_title(f"{PRIMITIVE_LABELS[primitive]}：虚线之上 bisection 更紧", fontsize=10)
    if own and len(axes) > 1:  # one legend under the panels (the figure lays itself out: no tight_layout)
        axes[0].figure.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=min(len(families), 5))
    else:
        axes[0].legend()
    return axes


def plot_volume_coefficients(n_max: int = 1024, ax=None):
    """``max(S, R) / M`` of the busiest node against N for all eight primitives.

    Parameters
    ----------
    n_max : int, default 1024
        Largest N, ``2 <= n_max <= 2**40``.
    ax : matplotlib Axes, optional

    >>> ax = plot_volume_coefficients(n_max=64)
    >>> len(ax.get_lines())
    8
    """
    from .bandwidth import volume_coefficient
    from .primitives import PRIMITIVE_LABELS, PRIMITIVES

    n_max = check_int("n_max", n_max, minimum=2, maximum=2**40)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        ax = _new_axes(BOOK_WIDTH, 4.0)
    ns = np.unique(np.geomspace(2, n_max, 120).astype(np.int64))
    styles = ["-", "--", ":", "-."]
    for i, primitive in enumerate(PRIMITIVES):
        ax.plot(ns, volume_coefficient(primitive, ns), linestyle=styles[i % 4], linewidth=1.8,
                label=PRIMITIVE_LABELS[primitive])
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 2.15)
    ax.set_xlabel("节点数 N")
    ax.set_ylabel("最忙节点必传量 max(S, R) / M")
    ax.set_title("带宽下界的系数：(N−1)/N → 1，AllReduce → 2", fontsize=10.5)
    ax.legend(ncol=2, loc="lower right")
    return ax
