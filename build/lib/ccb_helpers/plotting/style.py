"""The book's figure style: column width, colours, the CJK font, 2x PNGs in Jupyter."""

from __future__ import annotations

import base64
import glob
import os
from functools import lru_cache

import matplotlib
from matplotlib import font_manager

from .page import BOOK_WIDTH  # re-exported: the figures' modules take it from here

#: Colour per algorithm / bound, shared by every chapter so a reader learns them once.
COLORS = {
    "bound": "#222222",
    "latency": "#1f77b4",
    "bandwidth": "#d62728",
    "bisection": "#9467bd",
    "ring_b": "#ff7f0e",
    "ring": "#d62728",
    "bidirectional_ring": "#ff7f0e",
    "binomial_tree": "#1f77b4",
    "double_binary_tree": "#17becf",
    "recursive_halving_doubling": "#2ca02c",
    "recursive_halving_doubling_2port": "#9467bd",
    "recursive_doubling": "#8c564b",
    "bruck": "#e377c2",
    "pairwise": "#7f7f7f",
    "scatter_allgather": "#bcbd22",
    "pipelined_chain": "#393b79",
    "pipelined_binary_tree": "#637939",
}

#: Colour per topology family (keys of ccb_helpers.diameter.FAMILIES).
FAMILY_COLORS = {
    "ring": COLORS["ring"],
    "torus2d": "#1f77b4",
    "torus3d": "#2ca02c",
    "mesh2d": "#ff7f0e",
    "hypercube": "#9467bd",
    "fat_tree": "#8c564b",
    "fully_connected": "#7f7f7f",
}

#: System fonts tried when no font package is installed: the Simplified Chinese faces first.
_SYSTEM_CJK = (
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "WenQuanYi Zen Hei",
    "Noto Sans CJK TC",
    "Noto Sans CJK JP",
)

#: Smallest font size (points) any figure text uses: 8 pt = 11 CSS px at the natural size.
SMALL = 8.5


def _packaged_cjk_fonts() -> list[str]:
    """Font files of the installed font packages, the Simplified Chinese face first.

    ``pylopdf-fonts-zh-cn`` (a dependency) ships Noto Sans SC: the book is in Simplified Chinese,
    and the TC face of ``cvttf-notosanscjk-regular`` (the only Noto Sans CJK wheel on PyPI, used
    before) draws some characters differently (e.g. 这, 递, 骨). The TC face stays a fallback
    for an environment that has only that package.
    """
    paths = []
    try:
        import pylopdf_fonts_zh_cn as sc  # type: ignore[import-not-found]

        paths.append(str(sc.sans_path()))
    except ImportError:
        pass
    try:
        import cvttf_NotoSansCJK_Regular as tc  # type: ignore[import-not-found]

        folder = os.path.dirname(tc.__file__)
        paths += sorted(glob.glob(os.path.join(folder, "*.otf")) + glob.glob(os.path.join(folder, "*.ttf")))
    except ImportError:
        pass
    return [p for p in paths if os.path.isfile(p)]


@lru_cache(maxsize=1)
def cjk_font_name() -> str | None:
    """Register the packaged CJK font with matplotlib and return its family name (or None).

    Noto Sans SC when ``pylopdf-fonts-zh-cn`` is installed (a dependency of the package), else
    another packaged or system CJK font, SC faces first.
    """
    for path in _packaged_cjk_fonts():
        font_manager.fontManager.addfont(path)
        return font_manager.FontProperties(fname=path).get_name()
    available = {f.name for f in font_manager.fontManager.ttflist}
    for name in _SYSTEM_CJK:
        if name in available:
            return name
    return None


def use_book_style() -> None:
    """Apply the book's matplotlib style (sizes, grid, CJK font) globally; 2x PNGs in Jupyter.

    A figure inch is 100 CSS px on the page (``figure.dpi = 100``); PNGs are rendered at twice
    that (``savefig.dpi = 200``, and in IPython the inline backend's PNG formatter is replaced
    by one that renders at 2x and reports the CSS width, as ``retina`` does, but without a
    fixed height so the picture keeps its aspect ratio when a phone shrinks it).
    """
    font = cjk_font_name()
    matplotlib.rcParams.update(
        {
            "figure.figsize": (BOOK_WIDTH, 4.0),
            "figure.dpi": 100,
            "savefig.dpi": 200,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "legend.frameon": False,
            "font.size": 10.5,
            "axes.titlesize": 11,
            "axes.labelsize": 10.5,
            "xtick.labelsize": 9.5,
            "ytick.labelsize": 9.5,
            "legend.fontsize": 9,
            "axes.unicode_minus": False,
        }
    )
    if font is not None:
        # A list of families lets matplotlib fall back per glyph (⌈ ⌉ are not in Noto Sans CJK).
        matplotlib.rcParams["font.family"] = [font, "DejaVu Sans"]
    _enable_retina_inline()


def _figure_png_2x(figure):
    """IPython PNG formatter: the figure at twice its dpi, with its CSS width as metadata.

    The PNG records its smallest text size (:func:`.phone.with_text_size`), and the metadata
    carries the figure's phone rendering (``ccb_phone``: a 2x PNG and its CSS width, panels
    stacked, :func:`.phone.phone_png`), which the site serves to phones in a ``<picture>``.
    """
    from IPython.core.pylabtools import print_figure

    from .alt_text import figure_alt_text
    from .phone import phone_png, with_text_size

    data = print_figure(figure, fmt="png", bbox_inches="tight", dpi=2 * figure.dpi)
    if data is None:  # an empty figure shows nothing
        return None
    data = with_text_size(data, figure)  # the figure was just drawn: its tick labels have their text
    width = int.from_bytes(data[16:20], "big")  # the PNG header's IHDR width
    metadata = {"width": width // 2, "ccb_alt": figure_alt_text(figure)}  # the site's <img alt> (#43)
    phone = phone_png(figure)
    if phone is not None:
        metadata["ccb_phone"] = {"image/png": base64.b64encode(phone[0]).decode("ascii"), "width": phone[1]}
    return base64.b64encode(data).decode("ascii"), metadata


def _enable_retina_inline() -> None:
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    backend = str(matplotlib.rcParams._get("backend"))
    if "inline" not in backend:
        return
    # Importing the inline backend runs its own one-time format set-up (plain PNG); ours must
    # come after it or it would be replaced when the first figure is made.
    import matplotlib_inline.backend_inline  # noqa: F401
    from matplotlib.figure import Figure

    shell.display_formatter.formatters["image/png"].for_type(Figure, _figure_png_2x)
