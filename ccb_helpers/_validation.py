"""Argument checks shared by the public functions.

Every public function validates its inputs once, at the boundary, with these helpers, so a
reader who passes a bad value gets a message naming the parameter and the allowed range.
Scalars stay Python scalars; array-likes become numpy arrays (so formulas broadcast).
"""

from __future__ import annotations

import numbers
from typing import Iterable

import numpy as np

__all__: list[str] = []


def is_array(value) -> bool:
    """Whether ``value`` should be treated as an array (anything but a scalar)."""
    return isinstance(value, (np.ndarray, list, tuple))


def check_int(name: str, value, minimum: int | None = None, maximum: int | None = None):
    """Return ``value`` as a Python int (or an int64 array) after checking its range.

    Booleans and floats are rejected with :class:`TypeError` even when integral: a node
    count of ``8.0`` usually means a formula was evaluated in floating point by mistake.
    """
    if is_array(value):
        array = np.asarray(value)
        if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"{name} must be an integer or an array of integers, got dtype {array.dtype}")
        if array.size == 0:
            raise ValueError(f"{name} must not be empty")
        if minimum is not None and np.any(array < minimum):
            raise ValueError(f"{name} must be >= {minimum}, got min {array.min()}")
        if maximum is not None and np.any(array > maximum):
            raise ValueError(f"{name} must be <= {maximum}, got max {array.max()}")
        return array.astype(np.int64, copy=False)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return value


def check_real(name: str, value, *, minimum: float = 0.0, strict: bool = False):
    """Return a finite real ``value`` >= ``minimum`` (> if ``strict``) as float or float array."""
    if is_array(value):
        array = np.asarray(value)
        if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
            raise TypeError(f"{name} must be a real number or an array of real numbers, got dtype {array.dtype}")
        if array.size == 0:
            raise ValueError(f"{name} must not be empty")
        array = array.astype(float, copy=False)
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} must be finite (no inf or nan)")
        bad = array <= minimum if strict else array < minimum
        if np.any(bad):
            relation = ">" if strict else ">="
            raise ValueError(f"{name} must be {relation} {minimum}, got min {array.min()}")
        return array
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if (value <= minimum) if strict else (value < minimum):
        relation = ">" if strict else ">="
        raise ValueError(f"{name} must be {relation} {minimum}, got {value}")
    return value


def check_size(name: str, value):
    """A message size in bytes: finite and >= 0."""
    return check_real(name, value, minimum=0.0)


def check_bandwidth(name: str, value):
    """A bandwidth in bytes/s: finite and > 0."""
    return check_real(name, value, minimum=0.0, strict=True)


def check_choice(name: str, value, choices: Iterable[str]) -> str:
    """``value`` must be one of ``choices`` (strings)."""
    choices = tuple(choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {', '.join(map(repr, choices))}; got {value!r}")
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}; allowed: {', '.join(map(repr, choices))}")
    return value
