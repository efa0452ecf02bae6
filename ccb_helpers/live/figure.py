"""Builders of FigureSpec dicts: the JSON figures ``ccb-live.js`` draws as SVG (issue #25 contract).

A FigureSpec is ``{"panels": [Panel, ...]}``; these helpers fill every key of a Panel and a Series
with its default so the page never guesses, and convert matplotlib colours (names, RGBA tuples,
colormap samples) to ``#rrggbb``. Colours come from :data:`ccb_helpers.plotting.COLORS`.
"""

from __future__ import annotations

import math

import matplotlib

__all__ = ["panel", "series", "text", "hex_color", "colormap_hex", "subscript", "log_ticks"]

_SERIES_KINDS = {"line", "scatter", "bar", "step", "hline", "vline", "band"}
_SUBSCRIPT = str.maketrans("0123456789+-", "₀₁₂₃₄₅₆₇₈₉₊₋")


def hex_color(color) -> str:
    """``#rrggbb`` of a matplotlib colour (alpha dropped).

    >>> hex_color("C0"), hex_color((1.0, 0.5, 0.0, 1.0))
    ('#1f77b4', '#ff8000')
    """
    return matplotlib.colors.to_hex(color, keep_alpha=False)


def colormap_hex(name: str, values, vmax: float) -> list[str]:
    """Colours of ``values`` on colormap ``name`` scaled to ``[0, vmax]`` (matplotlib's own sampling).

    >>> colormap_hex("viridis", [0, 1], 1)
    ['#440154', '#fde725']
    """
    cmap = matplotlib.colormaps[name]
    scale = vmax if vmax > 0 else 1
    return [hex_color(cmap(v / scale)) for v in values]


def subscript(value) -> str:
    """Digits as Unicode subscripts (``log₂``): SVG text needs no markup for them.

    >>> "log" + subscript(10)
    'log₁₀'
    """
    return str(value).translate(_SUBSCRIPT)


def log_ticks(lo: float, hi: float) -> list[list]:
    """Decade ticks ``[[value, label], ...]`` inside ``[lo, hi]``, labelled like ``f"{v:g}"``.

    >>> log_ticks(0.7, 7680)
    [[1, '1'], [10, '10'], [100, '100'], [1000, '1000']]
    """
    if not 0 < lo < hi:
        raise ValueError(f"log ticks need 0 < lo < hi, got {lo}, {hi}")
    first, last = math.ceil(math.log10(lo) - 1e-12), math.floor(math.log10(hi) + 1e-12)
    return [[10**e if e >= 0 else 10.0**e, f"{10.0**e:g}"] for e in range(first, last + 1)]


def series(
    kind: str,
    x=(),
    y=(),
    *,
    color: str = "#222222",
    label: str | None = None,
    dash: bool = False,
    marker: bool = False,
    width: float = 1.5,
    y2=None,
    alpha: float = 1.0,
) -> dict:
    """One Series of a panel (``kind`` one of line, scatter, bar, step, hline, vline, band)."""
    if kind not in _SERIES_KINDS:
        raise ValueError(f"kind must be one of {sorted(_SERIES_KINDS)}, got {kind!r}")
    if len(x) != len(y) and kind not in ("hline", "vline"):
        raise ValueError(f"x and y must have the same length, got {len(x)} and {len(y)}")
    out = {
        "kind": kind,
        "x": list(x),
        "y": list(y),
        "color": color,
        "label": label,
        "dash": dash,
        "marker": marker,
        "width": width,
    }
    if alpha != 1.0:
        out["alpha"] = alpha
    if kind == "band":
        out["y2"] = list(y2 or [])
    return out


def text(
    x, y, value: str, *, coords: str = "data", anchor: str = "middle", color: str = "#222222", size: float | None = None
) -> dict:
    """A text of a panel at ``(x, y)`` in data or axes (0..1) coordinates; ``\\n`` breaks lines."""
    if coords not in ("data", "axes") or anchor not in ("start", "middle", "end"):
        raise ValueError(f"coords must be data|axes and anchor start|middle|end, got {coords!r}, {anchor!r}")
    out = {"x": x, "y": y, "text": value, "coords": coords, "anchor": anchor, "color": color}
    if size is not None:
        out["size"] = size
    return out


def panel(
    title: str = "",
    *,
    xlabel: str = "",
    ylabel: str = "",
    xscale: str = "linear",
    yscale: str = "linear",
    xlim=None,
    ylim=None,
    xticks=None,
    yticks=None,
    legend: bool = False,
    series_list=(),
    texts=(),
    graph=None,
    weight: float = 1.0,
    axis: bool = True,
    aspect_equal: bool = False,
) -> dict:
    """One Panel; ``weight`` is its share of a row's width, ``axis=False`` hides the frame and ticks."""
    for name, scale in (("xscale", xscale), ("yscale", yscale)):
        if scale not in ("linear", "log"):
            raise ValueError(f"{name} must be 'linear' or 'log', got {scale!r}")
    out = {
        "title": title,
        "xlabel": xlabel,
        "ylabel": ylabel,
        "xscale": xscale,
        "yscale": yscale,
        "xlim": None if xlim is None else [float(xlim[0]), float(xlim[1])],
        "ylim": None if ylim is None else [float(ylim[0]), float(ylim[1])],
        "xticks": xticks,
        "yticks": yticks,
        "legend": legend,
        "series": list(series_list),
        "texts": list(texts),
        "graph": graph,
        "weight": weight,
        "axis": axis,
    }
    if aspect_equal:
        out["aspect"] = "equal"
    return out
