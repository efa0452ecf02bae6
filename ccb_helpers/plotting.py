"""One figure style for the whole book, with a CJK font so Chinese labels render.

The font comes from the ``cvttf-notosanscjk-regular`` wheel (Noto Sans CJK, on PyPI) when it is
installed, else from any system CJK font matplotlib knows (e.g. Debian's fonts-noto-cjk).
"""

from __future__ import annotations

import glob
import os
from functools import lru_cache

import matplotlib
from matplotlib import font_manager

__all__ = ["cjk_font_name", "use_book_style", "COLORS"]

#: Colour per algorithm / bound, shared by every chapter so a reader learns them once.
COLORS = {
    "bound": "#222222",
    "latency": "#1f77b4",
    "bandwidth": "#d62728",
    "bisection": "#9467bd",
    "ring": "#d62728",
    "bidirectional_ring": "#ff7f0e",
    "binomial_tree": "#1f77b4",
    "double_binary_tree": "#17becf",
    "recursive_halving_doubling": "#2ca02c",
    "recursive_doubling": "#8c564b",
    "bruck": "#e377c2",
    "pairwise": "#7f7f7f",
    "scatter_allgather": "#bcbd22",
}

_SYSTEM_CJK = ("Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK JP", "Source Han Sans SC", "WenQuanYi Zen Hei")


@lru_cache(maxsize=1)
def cjk_font_name() -> str | None:
    """Register the bundled CJK font with matplotlib and return its family name (or None)."""
    try:
        import cvttf_NotoSansCJK_Regular as font_pkg  # type: ignore[import-not-found]

        folders = [os.path.dirname(font_pkg.__file__)]
    except ImportError:
        folders = []
    for folder in folders:
        for path in glob.glob(os.path.join(folder, "*.otf")) + glob.glob(os.path.join(folder, "*.ttf")):
            font_manager.fontManager.addfont(path)
            return font_manager.FontProperties(fname=path).get_name()
    available = {f.name for f in font_manager.fontManager.ttflist}
    for name in _SYSTEM_CJK:
        if name in available:
            return name
    return None


def use_book_style() -> None:
    """Apply the book's matplotlib style (sizes, grid, CJK font) globally."""
    font = cjk_font_name()
    matplotlib.rcParams.update(
        {
            "figure.figsize": (7.0, 4.2),
            "figure.dpi": 100,
            "savefig.dpi": 150,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "legend.frameon": False,
            "font.size": 10.5,
            "axes.unicode_minus": False,
        }
    )
    if font is not None:
        matplotlib.rcParams["font.sans-serif"] = [font, "DejaVu Sans"]
        matplotlib.rcParams["font.family"] = "sans-serif"
