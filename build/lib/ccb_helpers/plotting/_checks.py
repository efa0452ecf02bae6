"""Argument checks and small helpers shared by the drawings (private to :mod:`ccb_helpers.plotting`)."""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_real
from .style import BOOK_WIDTH


def _check_ax(ax, name: str = "ax"):
    from matplotlib.axes import Axes

    if ax is not None and not isinstance(ax, Axes):
        raise TypeError(f"{name} must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def _check_names(name: str, values, choices, max_count: int | None = None) -> tuple:
    # A sequence only: an endless iterator (itertools.count) would never end, a 0-d array has no items.
    if not (isinstance(values, (list, tuple)) or (isinstance(values, np.ndarray) and values.ndim == 1)):
        raise TypeError(f"{name} must be a sequence of names (e.g. a tuple of strings), got {type(values).__name__}")
    if max_count is not None and len(values) > max(max_count, 64):
        raise ValueError(f"{name} may name at most {max_count} entries, got {len(values)}")
    values = tuple(values)
    if not values:
        raise ValueError(f"{name} must name at least one of {', '.join(map(repr, choices))}")
    if max_count is not None and len(values) > max_count:
        raise ValueError(f"{name} may name at most {max_count} entries, got {len(values)}")
    return tuple(check_choice(f"{name}[{i}]", v, choices) for i, v in enumerate(values))


def _check_m_range(m_range) -> tuple[float, float]:
    # Only a list, tuple or 1-d array of two: a 0-d array has __len__ but no length, an iterator none.
    if (
        not (isinstance(m_range, (list, tuple)) or (isinstance(m_range, np.ndarray) and m_range.ndim == 1))
        or len(m_range) != 2
    ):
        raise TypeError(f"m_range must be a pair (m_min, m_max) of sizes in bytes, got {type(m_range).__name__}")
    lo = check_real("m_range[0]", m_range[0], minimum=0.0, strict=True, maximum=2.0**96, scalar=True)
    hi = check_real("m_range[1]", m_range[1], minimum=0.0, strict=True, maximum=2.0**96, scalar=True)
    if not lo < hi:
        raise ValueError(f"m_range must satisfy m_min < m_max, got ({lo:g}, {hi:g})")
    return lo, hi


def _check_axes_list(axes, count: int) -> list | None:
    if axes is None:
        return None
    if not isinstance(axes, (list, tuple, np.ndarray)) or np.ndim(axes) == 0:
        raise TypeError(f"axes must be a sequence of {count} matplotlib Axes or None, got {type(axes).__name__}")
    axes = list(np.ravel(np.asarray(axes, dtype=object)))
    if len(axes) < count:
        raise ValueError(f"axes must hold at least {count} Axes (one per panel), got {len(axes)}")
    for i, ax in enumerate(axes):
        _check_ax(ax, f"axes[{i}]")
    return axes[:count]


def _new_axes(width: float, height: float):
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(min(width, BOOK_WIDTH), height))
    return ax


def _format_rate(beta: float) -> str:
    from ..units import format_bandwidth

    return format_bandwidth(beta)
