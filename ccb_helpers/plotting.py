"""One figure style for the whole book, with a CJK font so Chinese labels render.

The font comes from the ``cvttf-notosanscjk-regular`` wheel (Noto Sans CJK, on PyPI) when it is
installed, else from any system CJK font matplotlib knows (e.g. Debian's fonts-noto-cjk).
"""

from __future__ import annotations

import glob
import os
from functools import lru_cache

import matplotlib
from matplotlib import font_manager
from matplotlib.ticker import MaxNLocator

__all__ = ["cjk_font_name", "use_book_style", "COLORS", "FAMILY_COLORS"]

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
    """Apply the book's matplotlib style (sizes, grid, CJK font) globally."""
    font = cjk_font_name()
    matplotlib.rcParams.update(
        {
            "figure.figsize": (7.0, 4.2),
            "figure.dpi": 100,
            "savefig.dpi": 150,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "legend.frameon": False,
            "font.size": 10.5,
            "axes.unicode_minus": False,
        }
    )
    if font is not None:
        # A list of families lets matplotlib fall back per glyph (⌈ ⌉ are not in Noto Sans CJK).
        matplotlib.rcParams["font.family"] = [font, "DejaVu Sans"]


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
        Refuse to draw more arrows than this (the picture would be unreadable).
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
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.patches import FancyArrowPatch

    from .schedule import Schedule

    schedule = getattr(schedule, "schedule", schedule)
    if not isinstance(schedule, Schedule):
        raise TypeError(f"schedule must be a Schedule or SimulationResult, got {type(schedule).__name__}")
    messages = []
    for index, r in enumerate(schedule.rounds):
        remote = r.src != r.dst
        if not np.any(remote):
            continue
        pair = r.src[remote] * schedule.n + r.dst[remote]
        keys, inverse = np.unique(pair, return_inverse=True)
        size = np.bincount(inverse, weights=r.length[remote])
        reduce = np.bincount(inverse, weights=r.reduce[remote]) > 0
        messages += [(index, int(k) // schedule.n, int(k) % schedule.n, s, red) for k, s, red in zip(keys, size, reduce)]
    if len(messages) > max_messages:
        raise ValueError(f"schedule has {len(messages)} messages, more than max_messages={max_messages}; draw a smaller n")
    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(min(max(5.0, 1.0 + 0.6 * len(schedule.rounds)), 12), min(max(3.0, 1.0 + 0.35 * schedule.n), 8)))
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
        ax.legend(loc="upper center", fontsize=8, bbox_to_anchor=(0.5, -0.14), ncol=2)
    return ax


def plot_info_steps(ks=(1, 2, 6), n_max: int = 10**6, all_port: bool = True, ax=None):
    """Steps ``ceil(log_{k+1} N)`` against N (log axis) for several port counts k.

    Exact integer steps at every N from 2 to ``n_max`` (drawn as step functions).

    >>> ax = plot_info_steps(n_max=1000)
    >>> [line.get_label() for line in ax.get_lines()]
    ['1-port', '2-port', '6-port', 'all-port (k = N-1)']
    """
    import matplotlib.pyplot as plt
    import numpy as np

    from ._validation import check_int
    from .propagation import info_steps

    n_max = check_int("n_max", n_max, minimum=2)
    use_book_style()
    if ax is None:
        _, ax = plt.subplots()
    n = np.arange(2, n_max + 1, dtype=np.int64)
    palette = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b"]
    for color, k in zip(palette, ks):
        ax.step(n, info_steps(n, k), where="post", color=color, label=f"{k}-port")
    if all_port:
        ax.step(n, np.ones_like(n), where="post", color="#7f7f7f", linestyle="--", label="all-port (k = N-1)")
    ax.set_xscale("log")
    ax.set_xlabel("节点数 N")
    ax.set_ylabel(r"步数下界 $\lceil \log_{k+1} N \rceil$")
    ax.set_title("信息传播步数下界随 N 的增长")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="upper left")
    return ax


def draw_knomial_tree(n: int, k: int = 1, ax=None):
    """Draw the k-nomial broadcast tree on ``n`` nodes; colour = the round a node is informed.

    Nodes sit at height ``-round``; the root is informed at round 0.

    >>> ax = draw_knomial_tree(9, k=2)
    >>> len(ax.collections[0].get_offsets())   # one marker per node
    9
    """
    import matplotlib.pyplot as plt
    import numpy as np

    from ._validation import check_int
    from .generators import knomial_tree

    n = check_int("n", n, minimum=1, maximum=256)
    k = check_int("k", k, minimum=1)
    use_book_style()
    if ax is None:
        _, ax = plt.subplots()
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
    y = -informed.astype(float)
    for parent in range(n):
        for child in children[parent]:
            ax.plot([x[parent], x[child]], [y[parent], y[child]], color="#999999", linewidth=0.8, zorder=1)
    cmap = plt.get_cmap("viridis", max(len(rounds), 1) + 1)
    ax.scatter(x, y, c=informed, cmap=cmap, vmin=-0.5, vmax=len(rounds) + 0.5, s=60 if n <= 32 else 18, zorder=2,
               edgecolors="white", linewidths=0.5)
    if n <= 32:
        for v in range(n):
            ax.annotate(str(v), (x[v], y[v]), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7)
    ax.set_yticks(-np.arange(len(rounds) + 1), [str(t) for t in range(len(rounds) + 1)])
    ax.set_ylabel("被通知的轮次")
    ax.set_xticks([])
    ax.grid(False)
    ax.set_title(f"{k + 1}-nomial 树（{k}-port），N = {n}：{len(rounds)} 轮")
    return ax


def _layout(topology):
    """Positions for drawing: circles, grids (3-D projected), hypercube projection, fat-tree layers."""
    import math

    import numpy as np

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


def draw_topology(topology, root: int = 0, ax=None, max_nodes: int = 600, side=None):
    """Draw a topology with its endpoints coloured by BFS distance (hops) from ``root``.

    Switches are grey squares; wrap-around links of a torus are drawn as dashed arcs. With
    ``side`` (a set of endpoints, e.g. :func:`ccb_helpers.bisection_partition`), endpoints are
    coloured by side instead and the links of the cut are drawn in red.

    >>> import ccb_helpers as ccb
    >>> ax = draw_topology(ccb.torus(4, 4))
    >>> ax.get_title()
    'torus 4x4：从节点 0 出发的 BFS 层（直径 D = 4）'
    """
    import matplotlib.pyplot as plt
    import networkx as nx
    import numpy as np
    from matplotlib.patches import FancyArrowPatch

    from .topology import Topology

    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology, got {type(topology).__name__}")
    if topology.graph.number_of_nodes() > max_nodes:
        raise ValueError(f"{topology.name} has more than max_nodes={max_nodes} vertices to draw")
    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 5))
    g = topology.graph
    pos = _layout(topology)
    dist = nx.single_source_shortest_path_length(g, root)
    coords = {v: pos[v] for v in g.nodes}
    crossing = set()
    if side is not None:
        side = set(side)
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
    for u, v in g.edges:
        a, b = coords[u], coords[v]
        cut = frozenset((u, v)) in crossing
        color, width = (COLORS["bandwidth"], 2.0) if cut else ("#bbbbbb", 0.8)
        width *= g.edges[u, v].get("links", 1)  # parallel links drawn proportionally thicker
        wrap = topology.family == "torus" and np.abs(a - b).max() > 1.5
        if wrap:
            ax.add_patch(FancyArrowPatch(tuple(a), tuple(b), arrowstyle="-", connectionstyle="arc3,rad=0.25",
                                         color=color, linewidth=width * 0.9, linestyle="--", zorder=1))
        else:
            ax.plot([a[0], b[0]], [a[1], b[1]], color=color, linewidth=width, zorder=1)
    ends = [v for v, kind in g.nodes(data="kind") if kind == "endpoint"]
    switches = [v for v, kind in g.nodes(data="kind") if kind == "switch"]
    hops = np.array([dist[v] for v in ends])
    size = 90 if len(ends) <= 32 else (40 if len(ends) <= 128 else 14)
    if side is None:
        ax.scatter([coords[v][0] for v in ends], [coords[v][1] for v in ends], c=hops, cmap="viridis_r", s=size,
                   zorder=3, edgecolors="white", linewidths=0.6)
    else:
        colors = [COLORS["latency"] if v in side else COLORS["ring_b"] for v in ends]
        ax.scatter([coords[v][0] for v in ends], [coords[v][1] for v in ends], c=colors, s=size, zorder=3,
                   edgecolors="white", linewidths=0.6)
    if switches:
        ax.scatter([coords[v][0] for v in switches], [coords[v][1] for v in switches], marker="s", color="#888888",
                   s=size * 0.8, zorder=2)
    if side is None:
        ax.scatter([coords[root][0]], [coords[root][1]], s=size * 2.2, facecolors="none", edgecolors=COLORS["bandwidth"],
                   linewidths=1.5, zorder=4)
    if len(ends) <= 32 and side is None:
        far = max(hops.max(), 1)
        for v in ends:
            # viridis_r is light for small distances: dark digits there, white ones on the dark end.
            ax.annotate(str(dist[v]), coords[v], ha="center", va="center", fontsize=6.5, zorder=5,
                        color="black" if dist[v] < far / 2 else "white")
    ax.set_aspect("equal", adjustable="datalim")
    ax.axis("off")
    if side is None:
        ax.set_title(f"{topology.name.split(' (')[0]}：从节点 {root} 出发的 BFS 层（直径 D = {topology.diameter}）", fontsize=9.5)
    else:
        cut_count = sum(g.edges[tuple(e)].get("links", 1) for e in crossing)
        ax.set_title(f"{topology.name.split(' (')[0]}：平衡割切断 {cut_count} 条链路（红色）", fontsize=9.5)
    return ax


def plot_diameters(families=("ring", "torus2d", "torus3d", "mesh2d", "hypercube", "fat_tree", "fully_connected"),
                   max_n: int = 10**6, ax=None):
    """Latency-relevant diameter (rounds) against N for each family, with the ceil(log2 N) line.

    >>> ax = plot_diameters(families=("ring", "hypercube"), max_n=1024)
    >>> [line.get_label() for line in ax.get_lines()]
    ['Ring', 'Hypercube', '⌈log₂ N⌉（信息下界，1-port）']
    """
    import matplotlib.pyplot as plt
    import numpy as np

    from .diameter import FAMILIES, family_instances
    from .propagation import info_steps

    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 4.6))
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
    ax.set_title("拓扑直径与信息传播下界（曲线高于黑线处，直径更紧）", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    return ax


def plot_regime_map(primitive="all_reduce", preset_keys=("a100_nvlink", "h100_nvswitch", "ib_ndr"), n_max=4096,
                    m_range=(2.0**6, 2.0**34), axes=None):
    """Latency- vs bandwidth-bound regions of the lower bound over (N, M), with the M* curve, per preset.

    Uses each preset's α, β and ``k = ports_for(N)`` capped at 1 for bandwidth when the preset
    shares one NIC (InfiniBand); the M* curve is :func:`ccb_helpers.crossover_size`.

    >>> axes = plot_regime_map(preset_keys=("a100_nvlink",), n_max=256)
    >>> len(axes)
    1
    """
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import ListedColormap

    from .bounds import crossover_size, regime
    from .hardware import PRESETS
    from .units import format_bytes

    use_book_style()
    if axes is None:
        _, axes = plt.subplots(1, len(preset_keys), figsize=(4.2 * len(preset_keys), 3.8), squeeze=False)
        axes = list(axes[0])
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
        ax.set_title(f"{p.label.split(' (')[0]}\nα = {p.alpha * 1e6:g} µs，β = {p.beta / 1e9:g} GB/s，k = {ports}", fontsize=9)
        ax.text(0.04, 0.93, "带宽主导", transform=ax.transAxes, fontsize=9, color=COLORS["bandwidth"])
        ax.text(0.60, 0.06, "延迟主导", transform=ax.transAxes, fontsize=9, color=COLORS["latency"])
        ax.grid(False)
    return axes


def plot_best_algorithm_map(primitive="all_reduce", alpha=1.5e-6, beta=50e9, ports=1, n_max=1024, m_range=(2.0**6, 2.0**32), ax=None):
    """The fastest modelled algorithm over (N, M), with the lower bound's crossover size M*.

    Algorithms that need a power of two compete only at those N (the vertical stripes).

    >>> ax = plot_best_algorithm_map(n_max=64)
    >>> ax.get_xlabel()
    '节点数 N'
    """
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from .algorithms import ALGORITHM_LABELS, applicable_algorithms, best_algorithm
    from .bounds import crossover_size
    from .units import format_bytes

    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 4.6))
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
    ax.set_title(f"每个 (N, M) 上最快的算法；α = {alpha * 1e6:g} µs，β = {beta / 1e9:g} GB/s，{ports}-port", fontsize=9)
    handles = [Patch(color=COLORS.get(a, "#cccccc"), alpha=0.55, label=ALGORITHM_LABELS[a]) for a in present]
    ax.legend(handles=handles + ax.get_legend_handles_labels()[0], fontsize=8, loc="upper left")
    ax.grid(False)
    return ax


def plot_algorithm_times(primitive="all_reduce", n=16, alpha=1.5e-6, beta=50e9, ports=1, m_range=(2.0**6, 2.0**32),
                         efficiency=False, ax=None):
    """Time (or efficiency = bound / time) against M for the lower bound and every applicable algorithm.

    >>> ax = plot_algorithm_times(n=8)
    >>> ax.get_lines()[0].get_label()
    '下界 max(Tα, Tβ)'
    """
    import matplotlib.pyplot as plt
    import numpy as np

    from .algorithms import ALGORITHM_LABELS, algorithm_cost, applicable_algorithms
    from .bounds import combined_lower_bound, crossover_size
    from .units import format_bytes

    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 4.4))
    ms = np.geomspace(*m_range, 200)
    bound = combined_lower_bound(primitive, n, ms, alpha, beta, ports=ports)
    if not efficiency:
        ax.plot(ms, bound, color=COLORS["bound"], linewidth=2.5, label="下界 max(Tα, Tβ)")
    for name in applicable_algorithms(primitive, n=n, ports=ports):
        t = algorithm_cost(name, primitive, n, ms, alpha, beta, ports=ports)
        ax.plot(ms, bound / t if efficiency else t, color=COLORS.get(name), label=ALGORITHM_LABELS[name])
    if n >= 2:
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
    ax.set_title(f"N = {n}，α = {alpha * 1e6:g} µs，β = {beta / 1e9:g} GB/s，{ports}-port", fontsize=10)
    ax.legend(fontsize=8)
    return ax


def plot_bisection_ratio(primitives=("all_reduce", "all_to_all"), families=("ring", "torus2d", "torus3d", "hypercube", "fat_tree"),
                         max_n=2**14, m=2.0**30, beta=50e9, axes=None):
    """Bisection bound / node-level bound against N (node bound with every link, p = degree).

    Above 1 the bisection bound is the tighter one.

    >>> axes = plot_bisection_ratio(primitives=("all_to_all",), families=("ring",), max_n=256)
    >>> axes[0].get_lines()[0].get_label()
    'Ring'
    """
    import matplotlib.pyplot as plt
    import numpy as np

    from .bisection import bisection_lower_bound, node_lower_bound
    from .diameter import FAMILIES, family_instances
    from .primitives import PRIMITIVE_LABELS
    from .topology import ring

    use_book_style()
    if axes is None:
        _, axes = plt.subplots(1, len(primitives), figsize=(5.2 * len(primitives), 4.0), squeeze=False)
        axes = list(axes[0])
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
        ax.legend(fontsize=8)
    return axes


def plot_volume_coefficients(n_max: int = 1024, ax=None):
    """``max(S, R) / M`` of the busiest node against N for all eight primitives.

    >>> ax = plot_volume_coefficients(n_max=64)
    >>> len(ax.get_lines())
    8
    """
    import matplotlib.pyplot as plt
    import numpy as np

    from .bandwidth import volume_coefficient
    from .primitives import PRIMITIVE_LABELS, PRIMITIVES

    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 4.0))
    ns = np.unique(np.geomspace(2, n_max, 120).astype(np.int64))
    styles = ["-", "--", ":", "-."]
    for i, primitive in enumerate(PRIMITIVES):
        ax.plot(ns, volume_coefficient(primitive, ns), linestyle=styles[i % 4], linewidth=1.8,
                label=PRIMITIVE_LABELS[primitive])
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 2.15)
    ax.set_xlabel("节点数 N")
    ax.set_ylabel("最忙节点必传量 max(S, R) / M")
    ax.set_title("带宽下界的系数：(N−1)/N → 1，AllReduce → 2", fontsize=10)
    ax.legend(fontsize=8, ncol=2, loc="lower right")
    return ax
