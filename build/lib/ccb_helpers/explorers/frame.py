"""What one state of an explorer shows, as data: the readout HTML, the FigureSpec and named numbers.

An explorer that computes its state in a pure function of the control values (no matplotlib)
returns a :class:`Frame`: its ``refresh()`` draws from it, and the live page of the static site
(:mod:`ccb_helpers.live`) shows the same readout and figure (the FigureSpec of issue #25).
"""

from __future__ import annotations

from typing import NamedTuple

from .._validation import check_record

__all__ = ["Frame"]


@check_record(readout="str", figure="dict", numbers="dict")
class Frame(NamedTuple):
    """Readout HTML, FigureSpec (``{"panels": [...]}``) and the numbers behind them, by name.

    >>> Frame("x = 1", {"panels": []}, {"x": 1}).readout
    'x = 1'
    """

    readout: str
    figure: dict
    numbers: dict
