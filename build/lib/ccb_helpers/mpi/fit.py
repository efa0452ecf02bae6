"""The α-β model fitted to measured one-way times (:func:`fit_alpha_beta`).

Used by the ping-pong command and by :mod:`ccb_helpers.mpi`'s readers; no MPI needed."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validation import check_memory, check_real, check_record

#: Most points :func:`fit_alpha_beta` accepts (a ping-pong sweep has a few dozen).
MAX_FIT_POINTS = 10**6
#: Peak bytes per point of :func:`fit_alpha_beta` (the arrays converted from lists, the
#: least-squares matrix and its workspace): tracemalloc measured 32-48 (arrays or lists of
#: 10**5 and 10**6 points).
_FIT_BYTES_PER_POINT = 64


def _fit_memory(points: int) -> int:
    return _FIT_BYTES_PER_POINT * points + 2**20


@check_record(alpha_s="real", beta_Bps="positive", residual="real")
class AlphaBetaFit(NamedTuple):
    """``T = alpha_s + M / beta_Bps`` fitted to measured times; ``residual`` is the RMS relative error."""

    alpha_s: float
    beta_Bps: float
    residual: float


def fit_alpha_beta(sizes, times) -> AlphaBetaFit:
    """Least-squares fit of ``T = α + M/β`` to one-way times (the α-β model, ``eq:cc-bound-combined``'s terms).

    Relative errors are minimised (each point weighted by ``1/T²``), so the microsecond times of
    small messages fix α as much as the millisecond times of large ones fix β. α is kept ≥ 0: if
    the unconstrained fit gives α < 0, α = 0 and β is refitted.

    Parameters
    ----------
    sizes : array of float
        Message sizes in bytes (≥ 0, at least two distinct values, at most 10⁶ points).
    times : array of float
        One-way times in seconds (> 0), same length.

    Returns
    -------
    AlphaBetaFit
        ``alpha_s`` (s), ``beta_Bps`` (bytes/s), ``residual`` (RMS of ``(model - T) / T``).

    Raises
    ------
    ValueError
        If the times do not grow with the size (no positive β fits).

    Examples
    --------
    Exact α-β data (α = 2 µs, β = 1 GB/s) is recovered:

    >>> fit = fit_alpha_beta([0, 10**6, 2 * 10**6], [2e-6, 2e-6 + 1e-3, 2e-6 + 2e-3])
    >>> round(fit.alpha_s * 1e6, 6), round(fit.beta_Bps / 1e9, 6), fit.residual < 1e-12
    (2.0, 1.0, True)
    """
    if not isinstance(sizes, (list, tuple, np.ndarray)) or not isinstance(times, (list, tuple, np.ndarray)):
        raise TypeError("sizes and times must be lists or arrays of numbers")
    x = np.atleast_1d(check_real("sizes", list(sizes) if not isinstance(sizes, np.ndarray) else sizes))
    t = np.atleast_1d(check_real("times", list(times) if not isinstance(times, np.ndarray) else times, strict=True))
    if x.ndim != 1 or t.shape != x.shape:
        raise ValueError(f"sizes and times must be 1-d and of the same length, got shapes {x.shape} and {t.shape}")
    if x.size > MAX_FIT_POINTS:
        raise ValueError(f"{x.size} points exceed the cap of {MAX_FIT_POINTS}")
    check_memory(f"sizes: a fit of {x.size:,} points", _fit_memory(x.size))
    if np.unique(x).size < 2:
        raise ValueError("sizes must contain at least two distinct values to separate alpha from beta")
    return _fit_alpha_beta(x, t)


def _fit_alpha_beta(x: np.ndarray, t: np.ndarray) -> AlphaBetaFit:
    rows = np.column_stack([1 / t, x / t])  # (alpha + x * gamma) / t ≈ 1, gamma = 1 / beta
    (alpha, gamma), *_ = np.linalg.lstsq(rows, np.ones_like(t), rcond=None)
    if alpha < 0:
        alpha = 0.0
        gamma = np.sum(x / t) / np.sum((x / t) ** 2)
    if not gamma > 0:
        raise ValueError("the times do not grow with the size: no positive bandwidth beta fits these points")
    residual = float(np.sqrt(np.mean(((alpha + gamma * x) - t) ** 2 / t**2)))
    return AlphaBetaFit(float(alpha), float(1 / gamma), residual)
