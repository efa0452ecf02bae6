"""Explorer update time as a ratio to a bare matplotlib redraw of a comparable figure.

The bare redraw clears a Figure of the same size, draws two axes with the same kinds of
artists (bars, a line, a scatter with as many points as the explorer's tree, the same number
of line segments) and renders it to PNG: the cost any explorer has to pay. The ratio shows what
the helpers add on top (computing the numbers, the tree layout, the readout).
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import ccb_helpers as ccb
from _timing import best_of




def bare_redraw(fig: Figure, n: int) -> None:
    fig.clear()
    left, right = fig.subplots(1, 2)
    rounds = np.arange(7)
    left.bar(rounds, 2.0**rounds)
    left.plot(rounds, 2.0**rounds, "o--")
    left.set_yscale("log")
    xs, ys = np.random.default_rng(0).random((2, n))
    for i in range(1, n):
        right.plot([xs[i // 2], xs[i]], [ys[i // 2], ys[i]], color="#999999", linewidth=0.8)
    right.scatter(xs, ys, c=np.arange(n), s=18)
    fig.tight_layout()
    fig.savefig(io.BytesIO(), format="png", dpi=100)


def main() -> None:
    explorer = ccb.PropagationExplorer()
    fig = Figure(figsize=explorer.figsize)
    FigureCanvasAgg(fig)
    for n in (16, 64, 1024):
        explorer.update(n=n)  # warm up
        t_explorer = best_of(lambda: explorer.update(n=n, k=1 + explorer.values["k"] % 3))
        t_bare = best_of(lambda: bare_redraw(fig, min(n, 64)))
        print(f"PropagationExplorer N={n:5d}: update {t_explorer * 1e3:6.1f} ms, bare matplotlib {t_bare * 1e3:6.1f} ms, "
              f"ratio {t_explorer / t_bare:4.2f}")
    topo = ccb.TopologyExplorer()
    for family, size in (("ring", 48), ("torus2d", 10), ("torus3d", 5), ("fat_tree", 64)):
        topo.update(family=family, size=size)
        t_explorer = best_of(lambda: topo.update(k=1 + topo.values["k"] % 2), repeat=5)
        nodes = topo.topology.graph.number_of_nodes()
        t_bare = best_of(lambda: bare_redraw(fig, min(nodes, 200)), repeat=5)
        print(f"TopologyExplorer {family:8s} N={topo.topology.n:4d}: update {t_explorer * 1e3:6.1f} ms, "
              f"bare matplotlib {t_bare * 1e3:6.1f} ms, ratio {t_explorer / t_bare:4.2f}")
    t_bare = best_of(lambda: bare_redraw(fig, 64), repeat=5)
    others = [
        ("BandwidthExplorer", ccb.BandwidthExplorer(), lambda e: e.update(n=8 + e.values["n"] % 64)),
        ("AlgorithmExplorer", ccb.AlgorithmExplorer(), lambda e: e.update(n=16 + e.values["n"] % 64)),
        ("BisectionExplorer", ccb.BisectionExplorer(), lambda e: e.update(size=2 + e.values["size"] % 6)),
    ]
    for name, explorer, move in others:
        t_explorer = best_of(lambda: move(explorer), repeat=5)
        print(f"{name:18s}: update {t_explorer * 1e3:6.1f} ms, bare matplotlib {t_bare * 1e3:6.1f} ms, "
              f"ratio {t_explorer / t_bare:4.2f}")


if __name__ == "__main__":
    main()
