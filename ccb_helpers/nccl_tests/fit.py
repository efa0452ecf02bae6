"""α and β fitted to an nccl-tests log's measured times, with the ring algorithm's step count."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_fields, check_real
from ..bandwidth import volume_coefficient
from .records import _EXAMPLE, _log_context  # noqa: F401  (_EXAMPLE: doctests)


def _ring_steps(primitive: str, n: int) -> int:
    """Rounds of the ring algorithms nccl-tests' numbers come from (NCCL's ring, pipelined)."""
    return 2 * (n - 1) if primitive == "all_reduce" else n - 1


@dataclass(frozen=True)
class AlphaBeta:
    """A least-squares fit of ``t(M) = steps * alpha + c(N) M / beta`` to measured times.

    Attributes
    ----------
    alpha : float
        Seconds per round (the fitted intercept over ``steps``).
    beta : float
        Bytes/s per link (``c(N)`` over the fitted slope), ``inf`` if the times do not grow with M.
    steps : int
        Rounds of the ring algorithm assumed (``2(N-1)`` for AllReduce, ``N-1`` otherwise).
    intercept_s, seconds_per_byte : float
        The fitted line ``t = intercept + slope * M``.
    rms_relative_error : float
        Root-mean-square of ``(t_fit - t) / t`` over the rows used.
    points : int
        Rows used (size > 0).
    """

    alpha: float
    beta: float
    steps: int
    intercept_s: float
    seconds_per_byte: float
    rms_relative_error: float
    points: int

    def __post_init__(self):
        check_fields(
            self,
            {
                "alpha": "number",
                "beta": "number",
                "steps": "int",
                "intercept_s": "number",
                "seconds_per_byte": "number",
                "rms_relative_error": "number",
                "points": "int",
            },
        )


def fit_alpha_beta(log, n_ranks=None, collective=None, min_size=1, max_size=None, inplace=False) -> AlphaBeta:
    """Fit α and β to a log's measured times, with the ring algorithm's step count.

    NCCL's large-message algorithms are pipelined rings, whose cost in the α-β model is
    ``t(M) = steps * alpha + c(N) M / beta`` (``steps = 2(N-1)`` for AllReduce, ``N-1`` for the
    others; ``c(N)`` the busbw factor, since the ring moves exactly the forced volume). The line
    ``t = a + b M`` is fitted by least squares on the *relative* error (weights ``1/t^2``), so
    microsecond and second-long rows count alike; a negative intercept is clipped to 0.

    Parameters
    ----------
    log : NcclTestsLog
        From :func:`read_nccl_tests`.
    n_ranks, collective : optional
        Override (or supply) what the log says.
    min_size, max_size : float, optional
        Rows with ``min_size <= size <= max_size`` bytes are used (default: every non-empty row).
    inplace : bool, default False
        Fit the in-place half instead of the out-of-place one.

    Returns
    -------
    AlphaBeta

    Raises
    ------
    ValueError
        Fewer than two usable rows of different sizes, or rank count / collective unknown.

    Examples
    --------
    Two rows made from alpha = 1 us, beta = 10 GB/s on 2 ranks (AllReduce: 2 steps, c = 1):

    >>> from ccb_helpers.nccl_tests import read_nccl_tests
    >>> text = _EXAMPLE.replace("10.24", "2.102").replace("104.9", "106.9")
    >>> fit = fit_alpha_beta(read_nccl_tests(text), collective="all_reduce")
    >>> round(fit.alpha * 1e6, 3), round(fit.beta / 1e9, 2), fit.steps
    (1.0, 10.0, 2)
    """
    log, n, primitive = _log_context(log, n_ranks, collective)
    min_size = check_real("min_size", min_size, scalar=True)
    max_size = math.inf if max_size is None else check_real("max_size", max_size, scalar=True)
    if max_size < min_size:
        raise ValueError(f"max_size must be >= min_size, got min_size={min_size:g}, max_size={max_size:g}")
    if not isinstance(inplace, bool):
        raise TypeError(f"inplace must be True or False, got {inplace!r}")
    suffix = "_inplace" if inplace else ""
    sizes, times = [], []
    for row in log.rows:
        t = getattr(row, "time_s" + suffix)
        if row.size > 0 and min_size <= row.size <= max_size and t is not None and t > 0:
            sizes.append(float(row.size))
            times.append(t)
    if len(set(sizes)) < 2:
        raise ValueError(
            f"log: need at least two rows of different sizes in [min_size, max_size] = [{min_size}, {max_size}] "
            f"bytes to fit alpha and beta, got {len(sizes)}"
        )
    return _fit(np.array(sizes), np.array(times), n, primitive)


def _fit(sizes, times, n, primitive) -> AlphaBeta:
    weights = 1.0 / times
    design = np.column_stack([weights, sizes * weights])
    (a, b), *_ = np.linalg.lstsq(design, np.ones_like(times), rcond=None)
    if a < 0:  # no negative latency: refit the slope alone
        a = 0.0
        b = float(np.sum(sizes * weights * weights * times) / np.sum((sizes * weights) ** 2))
    b = max(float(b), 0.0)
    steps = _ring_steps(primitive, n)
    coefficient = volume_coefficient(primitive, n)
    fitted = a + b * sizes
    rms = float(np.sqrt(np.mean(((fitted - times) / times) ** 2)))
    return AlphaBeta(
        alpha=float(a) / steps,
        beta=coefficient / b if b > 0 else math.inf,
        steps=steps,
        intercept_s=float(a),
        seconds_per_byte=b,
        rms_relative_error=rms,
        points=len(sizes),
    )


def _fit_or_none(log, n, primitive):
    try:
        return fit_alpha_beta(log, n_ranks=n, collective=primitive)
    except ValueError:
        return None
