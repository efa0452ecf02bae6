"""Chapter 8's helpers against baselines measured in the same run.

* Reader: parsing a published nccl-tests log (with NCCL INFO lines) as a ratio to merely
  splitting the same text into whitespace tokens (the least any parser does); five runs in one
  text (``read_nccl_tests_runs``) as a ratio to reading the five texts one by one.
* NCCL model: one ``nccl_predict`` call, and the (N, M) pick map of the chapter (279 cells).
* Explorer: one update of ``NcclExplorer`` (controls -> model -> figure -> PNG -> readout) as a
  ratio to a bare matplotlib redraw of a figure with the same number of lines on log axes.
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import ccb_helpers as ccb
from _timing import best_of


def bare_redraw(fig: Figure) -> None:
    fig.clear()
    ax = fig.subplots()
    sizes = np.geomspace(8, 2**34, 160)
    for i in range(9):
        ax.plot(sizes, (i + 1) * 1e-6 + sizes / (1e9 * (i + 1)))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.legend([str(i) for i in range(9)], ncol=2)
    fig.tight_layout()
    fig.savefig(io.BytesIO(), format="png", dpi=100)


def main() -> None:
    text = ccb.published_log_text("eks_efa_t4_2node_all_reduce")
    split = best_of(lambda: [line.split() for line in text.splitlines()], repeat=20)
    parse = best_of(lambda: ccb.read_nccl_tests(text, collective="all_reduce"), repeat=20)
    print(
        f"reader, {len(text.splitlines())} lines (NCCL INFO interleaved): {parse * 1e3:.2f} ms, "
        f"{parse / split:.1f}x splitting the text"
    )

    runs = [
        ccb.published_log_text(f"dgx2_v100_{name}")
        for name in ("all_gather", "all_reduce", "broadcast", "reduce", "reduce_scatter")
    ]
    whole = "".join(runs)
    apart = best_of(lambda: [ccb.read_nccl_tests(text) for text in runs], repeat=10)
    together = best_of(lambda: ccb.read_nccl_tests_runs(whole), repeat=10)
    print(
        f"five runs in one text: read_nccl_tests_runs {together * 1e3:.2f} ms = {together / apart:.2f}x "
        f"reading the five texts one by one"
    )

    ccb.nccl_model._tuning.cache_clear()
    one = best_of(lambda: ccb.nccl_predict("all_reduce", 512, 64, 2**30, "ib_h100"), repeat=50)
    print(f"nccl_predict (cached tuning after the first call): {one * 1e6:.0f} us")
    pick_map = best_of(
        lambda: ccb.nccl_figures._pick_grid(
            "all_reduce", "ib_h100", [(8 * k, k) for k in (1, 2, 4, 8, 16, 32, 64, 128, 256)], 2.0 ** np.arange(4, 35)
        ),
        repeat=3,
    )
    print(f"pick map, 9 x 31 cells: {pick_map:.2f} s")

    explorer = ccb.NcclExplorer()
    fig = Figure(figsize=explorer.figsize)
    FigureCanvasAgg(fig)
    bare = best_of(lambda: bare_redraw(fig), repeat=3)
    sizes = iter([10, 20, 30] * 10)
    update = best_of(lambda: explorer.update(log2_m=next(sizes)), repeat=3)
    print(f"NcclExplorer update: {update:.2f} s = {update / bare:.1f}x a bare redraw ({bare:.2f} s)")


if __name__ == "__main__":
    main()
