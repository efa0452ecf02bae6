"""Chapter 3 figure: the forced volume coefficient of every primitive against N (:func:`plot_volume_coefficients`)."""

from __future__ import annotations

import numpy as np

from .._validation import check_int
from ._checks import _check_ax, _new_axes
from .style import BOOK_WIDTH, use_book_style


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
    from ..bandwidth import volume_coefficient
    from ..primitives import PRIMITIVE_LABELS, PRIMITIVES

    n_max = check_int("n_max", n_max, minimum=2, maximum=2**40)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        ax = _new_axes(BOOK_WIDTH, 4.0)
    ns = np.unique(np.geomspace(2, n_max, 120).astype(np.int64))
    styles = ["-", "--", ":", "-."]
    for i, primitive in enumerate(PRIMITIVES):
        ax.plot(
            ns,
            volume_coefficient(primitive, ns),
            linestyle=styles[i % 4],
            linewidth=1.8,
            label=PRIMITIVE_LABELS[primitive],
        )
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 2.15)
    ax.set_xlabel("节点数 N")
    ax.set_ylabel("最忙节点必传量 max(S, R) / M")
    ax.set_title("带宽下界的系数：(N−1)/N → 1，AllReduce → 2", fontsize=10.5)
    ax.legend(ncol=2, loc="lower right")
    return ax
