"""Chapter 9 figure: the two-level map, winner and distance to the bound per (nodes, size)."""

from __future__ import annotations

import numpy as np

from .._validation import check_bool
from ._checks import _check_axes_list
from .style import BOOK_WIDTH, COLORS, SMALL, use_book_style

_ALGORITHM_COLORS = {
    "ring": COLORS["ring"],
    "recursive_doubling": COLORS["recursive_doubling"],
    "recursive_halving_doubling": COLORS["recursive_halving_doubling"],
    "swing": "#9467bd",
    "double_binary_tree": COLORS["double_binary_tree"],
    "hierarchical_ring": "#ff7f0e",
    "two_level_tree": "#1f77b4",
}


def plot_two_level_map(two_level_map, annotate=True, axes=None):
    """Left: the fastest AllReduce per (node count, size); right: its time over the two-level bound.

    Parameters
    ----------
    two_level_map : TwoLevelMap
        From :func:`ccb_helpers.two_level_map`.
    annotate : bool, default True
        Write the ratio in each cell of the right panel.
    axes : two matplotlib Axes, optional

    >>> import ccb_helpers as ccb
    >>> left, right = plot_two_level_map(ccb.two_level_map([1, 2], 8, [2.0**10, 2.0**30], ccb.two_level_hardware()))
    >>> left.get_ylabel()
    '节点数 K'
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from ..algorithms import ALGORITHM_LABELS
    from ..two_level_selection import TwoLevelMap
    from ..units import format_bytes

    if not isinstance(two_level_map, TwoLevelMap):
        raise TypeError(f"two_level_map must be a TwoLevelMap (ccb.two_level_map), got {type(two_level_map).__name__}")
    annotate = check_bool("annotate", annotate)
    axes = _check_axes_list(axes, 2)
    use_book_style()
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(BOOK_WIDTH, 4.2), layout="constrained")
    left, right = axes
    mp = two_level_map
    present = [a for a in _ALGORITHM_COLORS if np.any(mp.winner == a)]
    index = np.vectorize(present.index)(mp.winner)
    x = np.arange(mp.sizes.size)
    y = np.arange(len(mp.nodes))
    cmap = ListedColormap([_ALGORITHM_COLORS[a] for a in present])
    left.pcolormesh(x, y, index, cmap=cmap, vmin=-0.5, vmax=len(present) - 0.5, shading="nearest", alpha=0.75)
    right.pcolormesh(x, y, mp.ratio, cmap="Greys", vmin=1.0, vmax=max(2.0, float(mp.ratio.max())), shading="nearest")
    ticks = x[:: max(1, mp.sizes.size // 5)]
    for ax in (left, right):
        ax.set_xticks(ticks, [format_bytes(mp.sizes[i]) for i in ticks], fontsize=SMALL)
        ax.set_yticks(y, [str(k) for k in mp.nodes], fontsize=SMALL)
        ax.set_xlabel("消息大小 M")
    left.set_ylabel("节点数 K")
    left.set_title("最快的 AllReduce", fontsize=10.5)
    right.set_title("它的时间 / 两级下界（格中数字）", fontsize=10.5)
    if annotate and mp.ratio.size <= 200:
        for (i, j), value in np.ndenumerate(mp.ratio):
            color = "white" if value > 0.6 * max(2.0, float(mp.ratio.max())) + 0.4 else "black"
            right.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7.5, color=color)
    handles = [Patch(color=_ALGORITHM_COLORS[a], alpha=0.75, label=ALGORITHM_LABELS[a]) for a in present]
    left.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=SMALL, frameon=False)
    return left, right
