"""Chapter 5 figure: the bisection bound against the node-level bound (:func:`plot_bisection_ratio`)."""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_bandwidth, check_int, check_real
from ._checks import _check_axes_list, _check_names
from .style import BOOK_WIDTH, COLORS, FAMILY_COLORS, use_book_style


def plot_bisection_ratio(
    primitives=("all_reduce", "all_to_all"),
    families=("ring", "torus2d", "torus3d", "hypercube", "fat_tree"),
    max_n=2**14,
    m=2.0**30,
    beta=50e9,
    axes=None,
):
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
        Message size in bytes, ``1 <= m <= 2**96``.
    beta : float
        Bandwidth of one link in one direction, bytes/s (``> 0``).
    axes : sequence of matplotlib Axes, optional
        One per primitive.

    >>> axes = plot_bisection_ratio(primitives=("all_to_all",), families=("ring",), max_n=256)
    >>> axes[0].get_lines()[0].get_label()
    'Ring'
    """
    import matplotlib.pyplot as plt

    from ..bisection import bisection_lower_bound, node_lower_bound
    from ..diameter import FAMILIES, family_instances
    from ..primitives import PRIMITIVE_LABELS, PRIMITIVES
    from ..topology import ring

    primitives = _check_names("primitives", primitives, PRIMITIVES, max_count=4)
    families = _check_names("families", families, FAMILIES)
    max_n = check_int("max_n", max_n, minimum=4, maximum=2**16, scalar=True)
    # At least a byte: the ratio divides the node bound, which m = 1e-320 made 0 (#28).
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    axes = _check_axes_list(axes, len(primitives))
    use_book_style()
    own = axes is None
    if own:
        cols = min(2, len(primitives))
        rows = math.ceil(len(primitives) / cols)
        fig, grid = plt.subplots(
            rows,
            cols,
            figsize=(BOOK_WIDTH if cols == 2 else 4.2, 3.3 * rows + 0.5),
            squeeze=False,
            layout="constrained",
        )
        axes = list(grid.ravel())
        for spare in axes[len(primitives) :]:
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
            ratio = [
                bisection_lower_bound(primitive, t, m, beta)
                / node_lower_bound(primitive, t, m, beta, ports=max(t.degree, 1))
                for t in topos
            ]
            ax.plot(
                ns,
                ratio,
                marker="o" if len(ns) < 30 else None,
                markersize=3,
                color=FAMILY_COLORS[family],
                label=FAMILIES[family][0],
            )
        ax.axhline(1.0, color=COLORS["bound"], linewidth=1.2, linestyle="--")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("节点数 N")
        ax.set_ylabel("bisection 下界 / 节点级下界")
        ax.set_title(f"{PRIMITIVE_LABELS[primitive]}：虚线之上 bisection 更紧", fontsize=10)
    if own and len(axes) > 1:  # one legend under the panels (the figure lays itself out: no tight_layout)
        axes[0].figure.legend(
            *axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=min(len(families), 5)
        )
    else:
        axes[0].legend()
    return axes
