"""The report drawn: measured busbw against the bound's ceiling, and the efficiency, against size."""

from __future__ import annotations

import numpy as np


def plot_report(log, n, primitive, alpha, beta, ports, latency_ports, report, path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..plotting import COLORS, use_book_style

    use_book_style()
    figure = Figure(figsize=(6.88, 6.4))
    FigureCanvasAgg(figure)
    top, bottom = figure.subplots(2, 1)
    sizes = np.array([v["size"] for v in report.values], dtype=float)
    busbw = np.array([v["busbw"] for v in report.values]) / 1e9
    ceiling = np.array([v["ceiling"] for v in report.values]) / 1e9
    top.plot(sizes, busbw, "o-", color=COLORS["ring"], markersize=3, label="实测 busbw")
    top.plot(sizes, ceiling, color=COLORS["bound"], label="下界给出的上限")
    top.axhline(ports * beta / 1e9, color=COLORS["bound"], linestyle=":", linewidth=1, label="p·β")
    top.set_xscale("log", base=2)
    top.set_yscale("log")
    top.set_xlabel("消息大小 M（字节）")
    top.set_ylabel("busbw（GB/s）")
    top.legend(fontsize=9, loc="lower right")
    efficiency = [v["efficiency"] for v in report.values]
    ok = [i for i, e in enumerate(efficiency) if e is not None]
    flagged = [i for i, e in enumerate(efficiency) if e is None]
    bottom.plot(sizes[ok], [efficiency[i] for i in ok], "o-", color=COLORS["latency"], markersize=3, label="下界时间 / 实测时间")
    if flagged:
        bottom.plot(sizes[flagged], np.ones(len(flagged)), "x", color=COLORS["bandwidth"], label="超过上限（标记）")
    bottom.set_xscale("log", base=2)
    bottom.set_ylim(0, 1.05)
    bottom.set_xlabel("消息大小 M（字节）")
    bottom.set_ylabel("效率")
    bottom.legend(fontsize=9, loc="upper left")
    figure.suptitle(f"{primitive}，N = {n}：α = {alpha * 1e6:.3g} µs，β = {beta / 1e9:.3g} GB/s，p = {ports}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=200)
