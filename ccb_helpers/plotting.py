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

__all__ = ["cjk_font_name", "use_book_style", "COLORS"]

#: Colour per algorithm / bound, shared by every chapter so a reader learns them once.
COLORS = {
    "bound": "#222222",
    "latency": "#1f77b4",
    "bandwidth": "#d62728",
    "bisection": "#9467bd",
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
