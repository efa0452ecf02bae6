"""What the phone rendering of a figure costs (issue #31): the PNG formatter's time with and without it.

Every figure a notebook displays goes through ``ccb_helpers.plotting.style._figure_png_2x``, which
now also renders it for a phone (``ccb_helpers.plotting.phone.phone_png``: panels stacked,
re-laid out, drawn again). For the book's figures, one of each kind, this prints the time of
the desktop PNG alone (IPython's ``print_figure`` at 2x, the baseline, measured in the same run),
of the phone PNG, and their ratio; and the bytes each adds to a notebook.

Usage: python benchmarks/bench_phone_figures.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
sys.path.insert(0, os.path.dirname(__file__))

from _timing import best_of  # noqa: E402


def figures():
    import matplotlib.pyplot as plt

    import ccb_helpers as ccb

    ccb.use_book_style()
    yield "plot_info_steps (1 panel)", ccb.plot_info_steps(ks=(1, 2, 6), n_max=10**6).figure
    yield (
        "draw_topology_grid (3 panels)",
        ccb.draw_topology_grid([ccb.ring(16), ccb.torus(4, 4), ccb.hypercube(4)])[0].figure,
    )
    yield (
        "plot_bisection_ratio (2 panels + legend)",
        ccb.plot_bisection_ratio(primitives=("all_reduce", "all_to_all"), max_n=2**14)[0].figure,
    )
    keys = ("a100_nvlink", "h100_nvswitch", "ib_ndr")
    yield "plot_regime_map (3 panels)", ccb.plot_regime_map("all_reduce", preset_keys=keys, n_max=4096)[0].figure
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.88, 8.6))
    ccb.plot_nccl_pick_map("dgx_h100", ax=top)
    ccb.plot_nccl_pick_map("ib_h100", ax=bottom)
    fig.tight_layout()
    yield "plot_nccl_pick_map x2 (legends beside)", fig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from IPython.core.pylabtools import print_figure

    from ccb_helpers.plotting.phone import phone_png

    print(f"{'figure':42s} {'desktop s':>10s} {'phone s':>8s} {'ratio':>6s} {'desktop KiB':>12s} {'phone KiB':>10s}")
    for name, figure in figures():
        desktop = print_figure(figure, fmt="png", bbox_inches="tight", dpi=2 * figure.dpi)
        phone = phone_png(figure)[0]
        t_desktop = best_of(
            lambda f=figure: print_figure(f, fmt="png", bbox_inches="tight", dpi=2 * f.dpi), args.repeat
        )
        t_phone = best_of(lambda f=figure: phone_png(f), args.repeat)
        print(
            f"{name:42s} {t_desktop:10.2f} {t_phone:8.2f} {t_phone / t_desktop:6.2f} "
            f"{len(desktop) / 1024:12.0f} {len(phone) / 1024:10.0f}"
        )


if __name__ == "__main__":
    main()
