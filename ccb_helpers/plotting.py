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
        matplotlib.rcParams["font.sans-serif"] = [font, "DejaVu Sans"]
        matplotlib.rcParams["font.family"] = "sans-serif"


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
        _, ax = plt.subplots(figsize=(min(1.0 + 0.6 * max(len(schedule.rounds), 1), 12), min(1.0 + 0.35 * schedule.n, 8)))
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
    ax.plot([], [], color=COLORS["latency"], label="copy 复制")
    ax.plot([], [], color=COLORS["bandwidth"], label="reduce 归约")
    ax.legend(loc="upper right", fontsize=8, bbox_to_anchor=(1.0, 1.12), ncol=2)
    return ax
