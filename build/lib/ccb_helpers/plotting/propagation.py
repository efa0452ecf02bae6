"""Chapter 1 figures: steps against N (:func:`plot_info_steps`) and the k-nomial tree (:func:`draw_knomial_tree`)."""

from __future__ import annotations

from functools import lru_cache

import matplotlib
import numpy as np
from matplotlib.ticker import MaxNLocator

from .._validation import INT64_MAX, _short, check_int
from ._checks import _check_ax, _check_bool, _new_axes
from .style import BOOK_WIDTH, SMALL, use_book_style


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
    from ..propagation import info_steps

    if isinstance(ks, (str, bytes)) or not hasattr(ks, "__iter__") or getattr(ks, "ndim", 1) != 1:
        raise TypeError(f"ks must be a one-dimensional sequence of port counts, got {_short(ks)}")
    ks = tuple(ks)
    if not 1 <= len(ks) <= 5:
        raise ValueError(f"ks must hold 1 to 5 port counts, got {len(ks)}")
    ks = tuple(check_int(f"ks[{i}]", k, minimum=1, maximum=INT64_MAX, scalar=True) for i, k in enumerate(ks))
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
    from ..generators import knomial_tree

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
        self.labels = [
            ax.text(0, 0, "", ha="center", va="bottom", fontsize=SMALL, visible=False, transform=above)
            for _ in range(self.LABELS)
        ]
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
    n = check_int("n", n, minimum=1, maximum=256, scalar=True)
    k = check_int("k", k, minimum=1, maximum=INT64_MAX, scalar=True)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        ax = _new_axes(BOOK_WIDTH, 4.0)
    _KnomialTreeArtists(ax).update(n, k)
    return ax
