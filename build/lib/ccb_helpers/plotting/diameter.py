"""Chapter 2 figure: the latency-relevant diameter of each family against N (:func:`plot_diameters`)."""

from __future__ import annotations

import numpy as np

from .._validation import check_int
from ._checks import _check_ax, _check_names, _new_axes
from .style import BOOK_WIDTH, COLORS, FAMILY_COLORS, use_book_style


def plot_diameters(
    families=("ring", "torus2d", "torus3d", "mesh2d", "hypercube", "fat_tree", "fully_connected"),
    max_n: int = 10**6,
    ax=None,
):
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
    from ..diameter import FAMILIES, family_instances
    from ..propagation import info_steps

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
        ax.plot(
            ns,
            ds,
            marker="o" if len(ns) < 40 else None,
            markersize=3,
            color=FAMILY_COLORS[family],
            label=FAMILIES[family][0],
        )
    n = np.unique(np.logspace(0.3, np.log10(max_n), 400).astype(np.int64))
    ax.step(n, info_steps(n), where="post", color=COLORS["bound"], linewidth=2, label="⌈log₂ N⌉（信息下界，1-port）")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("节点数 N")
    ax.set_ylabel("直径 D（轮）")
    ax.set_title("拓扑直径与信息传播下界（曲线高于黑线处，直径更紧）", fontsize=10.5)
    ax.legend(loc="upper left", ncol=2)
    return ax
