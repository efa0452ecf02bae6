"""FigureSpec: an explorer's figure as plain data (JSON), the form the live pages draw as SVG.

A FigureSpec is ``{"panels": [Panel, ...]}``; a Panel holds its title, axis labels and scales,
limits, ticks, series and texts; a Series is one line, set of markers, bars or reference line
(the contract of issue #25, shared by every live explorer). An explorer whose state is computed
by a pure function can return it as a FigureSpec: the page's JavaScript builds the same dict from
the exported coefficients, and the tests compare the two. Only builders live here (no matplotlib).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Frame", "panel", "series"]


class Frame(NamedTuple):
    """What one state of an explorer shows: the readout HTML, the FigureSpec, and named numbers."""

    readout: str
    figure: dict
    numbers: dict

_SERIES_KINDS = ("line", "scatter", "bar", "step", "hline", "vline", "band")


def _floats(name: str, values) -> list:
    try:
        return [float(v) for v in values]
    except TypeError:
        raise TypeError(f"{name} must be a sequence of numbers, got {type(values).__name__}") from None


def series(kind: str, x=(), y=(), *, color: str = "#222222", label: str = "", dash: bool = False,
           marker: bool = False, width: float = 1.5, y2=None) -> dict:
    """One Series of a FigureSpec panel (numbers as Python floats, JSON-ready).

    ``width`` is the line width in points, or for ``kind="bar"`` the bar width in data units.

    >>> series("hline", y=[1], color="#999999", dash=True)["y"]
    [1.0]
    >>> series("pie")
    Traceback (most recent call last):
    ...
    ValueError: kind must be one of line, scatter, bar, step, hline, vline, band; got 'pie'
    """
    if kind not in _SERIES_KINDS:
        raise ValueError(f"kind must be one of {', '.join(_SERIES_KINDS)}; got {kind!r}")
    out = {"kind": kind, "x": _floats("x", x), "y": _floats("y", y), "color": color, "label": label,
           "dash": bool(dash), "marker": bool(marker), "width": float(width)}
    if y2 is not None:
        out["y2"] = _floats("y2", y2)
    return out


def panel(*, title: str = "", xlabel: str = "", ylabel: str = "", xscale: str = "linear", yscale: str = "linear",
          xlim=None, ylim=None, xticks=None, yticks=None, legend: bool = False, series_list=(), texts=()) -> dict:
    """One Panel of a FigureSpec.

    >>> p = panel(title="t", xlim=(0, 1), xticks=[(0, "0"), (1, "1")])
    >>> p["xlim"], p["xticks"], p["graph"]
    ([0.0, 1.0], [[0.0, '0'], [1.0, '1']], None)
    """
    for name, scale in (("xscale", xscale), ("yscale", yscale)):
        if scale not in ("linear", "log"):
            raise ValueError(f"{name} must be 'linear' or 'log', got {scale!r}")

    def ticks(values):
        return None if values is None else [[float(v), str(label)] for v, label in values]

    return {"title": title, "xlabel": xlabel, "ylabel": ylabel, "xscale": xscale, "yscale": yscale,
            "xlim": None if xlim is None else _floats("xlim", xlim), "ylim": None if ylim is None else _floats("ylim", ylim),
            "xticks": ticks(xticks), "yticks": ticks(yticks), "legend": bool(legend), "series": list(series_list),
            "texts": list(texts), "graph": None}
