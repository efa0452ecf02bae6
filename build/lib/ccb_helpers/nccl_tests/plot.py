"""The report drawn: measured busbw against the bound's ceilings, and the efficiency, against size."""

from __future__ import annotations

import numpy as np


def plot_report(run, path=None):
    """Draw a :class:`~ccb_helpers.nccl_tests.report.RunReport`; save it to ``path`` (PNG, 200 dpi) if given.

    Top: busbw of both halves, the size-dependent ceiling, ``p·β`` and — with a network cut —
    the node cut's ceiling; bottom: the efficiency, with flagged rows (busbw above a ceiling) as
    crosses at 1. Returns the matplotlib ``Figure``.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..plotting import COLORS, use_book_style

    use_book_style()
    figure = Figure(figsize=(6.88, 6.4))
    FigureCanvasAgg(figure)
    top, bottom = figure.subplots(2, 1)
    values = run.table.values
    sizes = np.array([v["size"] for v in values], dtype=float)
    busbw = np.array([v["busbw"] for v in values]) / 1e9
    ceiling = np.array([v["ceiling"] for v in values]) / 1e9
    top.plot(sizes, busbw, "o-", color=COLORS["ring"], markersize=3, label="实测 busbw")
    inplace = [i for i, v in enumerate(values) if v["busbw_inplace"] is not None]
    if inplace:
        top.plot(
            sizes[inplace],
            [values[i]["busbw_inplace"] / 1e9 for i in inplace],
            "s",
            color=COLORS["ring"],
            markersize=2.5,
            alpha=0.5,
            label="实测 busbw（in-place）",
        )
    top.plot(sizes, ceiling, color=COLORS["bound"], label="下界给出的上限")
    top.axhline(run.ports * run.beta / 1e9, color=COLORS["bound"], linestyle=":", linewidth=1, label="p·β")
    if run.node_ceiling is not None:
        top.axhline(
            run.node_ceiling / 1e9,
            color=COLORS["bandwidth"],
            linestyle="--",
            linewidth=1,
            label=f"节点割（{run.n_nodes} 个节点）",
        )
    top.set_xscale("log", base=2)
    top.set_yscale("log")
    top.set_xlabel("消息大小 M（字节）")
    top.set_ylabel("busbw（GB/s）")
    top.legend(fontsize=9, loc="lower right")
    efficiency = [v["efficiency"] for v in values]
    ok = [i for i, e in enumerate(efficiency) if e is not None]
    flagged = [i for i, e in enumerate(efficiency) if e is None]
    bottom.plot(
        sizes[ok], [efficiency[i] for i in ok], "o-", color=COLORS["latency"], markersize=3, label="下界时间 / 实测时间"
    )
    if flagged:
        bottom.plot(sizes[flagged], np.ones(len(flagged)), "x", color=COLORS["bandwidth"], label="超过上限（标记）")
    bottom.set_xscale("log", base=2)
    bottom.set_ylim(0, 1.05)
    bottom.set_xlabel("消息大小 M（字节）")
    bottom.set_ylabel("效率")
    bottom.legend(fontsize=9, loc="upper left")
    figure.suptitle(
        f"{run.collective}，N = {run.n_ranks}：α = {run.alpha * 1e6:.3g} µs，β = {run.beta / 1e9:.3g} GB/s，"
        f"p = {run.ports}",
        fontsize=10,
    )
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, dpi=200, format="png")
    return figure
