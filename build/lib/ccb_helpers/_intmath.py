"""Exact integer logarithms, for scalars (any size) and int64 arrays.

Floating ``log`` is wrong at exact powers: ``math.ceil(math.log(125, 5))`` is 4, not 3. These
helpers never leave integer arithmetic.
"""

from __future__ import annotations

import math

import numpy as np

_INT64_MAX = np.iinfo(np.int64).max


def ceil_log_int(n: int, base: int) -> int:
    """Smallest t >= 0 with base**t >= n, for Python ints n >= 1, base >= 2.

    Starts from a floating estimate just below the answer (from bit lengths, so any size of
    ``n`` works) and corrects it with exact integer powers: a few big multiplications, not one
    per step.

    >>> ceil_log_int(125, 5), ceil_log_int(126, 5), ceil_log_int(1, 7), ceil_log_int(2**4000 + 1, 2)
    (3, 4, 0, 4001)
    """
    if n <= 1:
        return 0
    if base >= n:
        return 1
    if base & (base - 1) == 0:  # a power of two: exact from bit lengths
        shift = base.bit_length() - 1
        return -(-(n - 1).bit_length() // shift)
    # log2(n - 1) is within 1 of bit_length; the estimate below undershoots by a step or two at most.
    estimate = max(0, int(((n - 1).bit_length() - 1) / math.log2(base)) - 1)
    steps, reach = estimate, base**estimate
    while reach < n:
        reach *= base
        steps += 1
    return steps


def _ceil_log_array_fixed_base(n: np.ndarray, base: int) -> np.ndarray:
    # Powers base**0, base**1, ... up to the first one >= max(n); the last one is clipped to
    # the int64 range, where it still is >= every n.
    powers = [1]
    top = int(n.max())
    while powers[-1] < top:
        powers.append(powers[-1] * base)
    table = np.array([min(p, _INT64_MAX) for p in powers], dtype=np.int64)
    # number of powers strictly below n == smallest t with base**t >= n
    return np.searchsorted(table, n, side="left").astype(np.int64)


def ceil_log(n, base):
    """Vectorised :func:`ceil_log_int`: ``n`` and ``base`` may be int64 arrays (broadcast).

    >>> ceil_log(np.array([1, 2, 3, 4, 5]), 2).tolist()
    [0, 1, 2, 2, 3]
    """
    if not isinstance(n, np.ndarray) and not isinstance(base, np.ndarray):
        return ceil_log_int(int(n), int(base))
    if not isinstance(base, np.ndarray):
        n_arr = np.asarray(n, dtype=np.int64)
        return _ceil_log_array_fixed_base(n_arr, int(base)) if n_arr.size else np.zeros(n_arr.shape, dtype=np.int64)
    n_arr, base_arr = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(base, dtype=np.int64))
    out = np.empty(n_arr.shape, dtype=np.int64)
    for b in np.unique(base_arr):
        mask = base_arr == b
        out[mask] = _ceil_log_array_fixed_base(n_arr[mask], int(b))
    return out


def floor_log2(n):
    """Largest t with 2**t <= n (n >= 1); exact for ints and int64 arrays.

    >>> floor_log2(1), floor_log2(7), floor_log2(8)
    (0, 2, 3)
    """
    if not isinstance(n, np.ndarray):
        return int(n).bit_length() - 1
    out = np.zeros(n.shape, dtype=np.int64)
    x = n.astype(np.int64) >> 1
    while np.any(x > 0):
        out += x > 0
        x >>= 1
    return out


def ceil_log2(n):
    """Smallest t with 2**t >= n (n >= 1); exact for ints and int64 arrays.

    >>> ceil_log2(1), ceil_log2(5), ceil_log2(8), ceil_log2(2**63)
    (0, 3, 3, 63)
    """
    if not isinstance(n, np.ndarray):
        return (int(n) - 1).bit_length()
    return np.where(n <= 1, 0, floor_log2(np.maximum(n - 1, 1)) + 1)


def is_power_of_two(n):
    """Whether n (>= 1) is a power of two; works on ints and int64 arrays."""
    if not isinstance(n, np.ndarray):
        n = int(n)
        return n >= 1 and n & (n - 1) == 0
    return (n >= 1) & ((n & (n - 1)) == 0)
