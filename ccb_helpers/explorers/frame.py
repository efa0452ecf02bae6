"""What one state of an explorer shows, as data: the readout HTML, the FigureSpec and named numbers.

An explorer that computes its state in a pure function of the control values (no matplotlib)
returns a :class:`Frame`: its ``refresh()`` draws from it, and the live page of the static site
(:mod:`ccb_helpers.live`) shows the same readout and figure (the FigureSpec of issue #25).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Frame", "panel", "series"]


class Frame(NamedTuple):
    """Readout HTML, FigureSpec (``{"panels": [...]}``) and the numbers behind them, by name.

    >>> Frame("x = 1", {"panels": []}, {"x": 1}).readout
    'x = 1'
    """

    readout: str
    figure: dict
    numbers: dict


# FigureSpec builders with the keys and defaults of ccb_helpers.live.figure (issue #25), kept here
# until that module is on main; then these two go and the explorers import it.
def series(kind: str, x=(), y=(), *, color: str = "#222222", label: str | None = None, dash: bool = False,
           marker: bool = False, width: float = 1.5, y2=None, alpha: float = 1.0) -> dict:
    """One Series of a FigureSpec panel.

    >>> series("hline", y=[1.0], color="#999999")["kind"]
    'hline'
    """
    out = {"kind": kind, "x": list(x), "y": list(y), "color": color, "label": label, "dash": dash,
           "marker": marker, "width": width}
    if alpha != 1.0:
        out["alpha"] = alpha
    if kind == "band":
        out["y2"] = list(y2 or [])
    return out


def panel(title: str = "", *, xlabel: str = "", ylabel: str = "", xscale: str = "linear", yscale: str = "linear",
          xlim=None, ylim=None, xticks=None, yticks=None, legend: bool = False, series_list=()) -> dict:
    """One Panel of a FigureSpec.

    >>> panel("t", xlim=(0, 1))["xlim"]
    [0.0, 1.0]
    """
    return {"title": title, "xlabel": xlabel, "ylabel": ylabel, "xscale": xscale, "yscale": yscale,
            "xlim": None if xlim is None else [float(xlim[0]), float(xlim[1])],
            "ylim": None if ylim is None else [float(ylim[0]), float(ylim[1])],
            "xticks": xticks, "yticks": yticks, "legend": legend, "series": list(series_list),
            "texts": [], "graph": None, "weight": 1.0, "axis": True}
