"""α and β fitted to an nccl-tests log's measured times, with the ring algorithm's step count."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_fields, check_real
from .ceilings import _busbw_factor
from .records import _EXAMPLE, _log_context  # noqa: F401  (_EXAMPLE: doctests)

#: A fitted term counts as determined by the rows when it exceeds this many standard errors.
DETERMINED_SIGMAS = 2.0
#: ... and, for α, when the fitted latency term is at least this share of some row's time (a row
#: the fit calls latency-bound); an intercept that no row's time is mostly made of is extrapolated.
LATENCY_SHARE = 0.5


def _ring_steps(primitive: str, n: int) -> int:
    """Rounds of the algorithm nccl-tests' numbers come from: NCCL's pipelined ring (``2(N-1)`` for
    AllReduce, ``N-1`` for the others), one round for SendRecv (one message to one peer)."""
    if primitive == "sendrecv":
        return 1
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
    alpha_determined, beta_determined : bool
        Whether the rows determine the term: more than two sizes (two are passed through exactly),
        the term above :data:`DETERMINED_SIGMAS` standard errors of the fit, and for α a row whose
        fitted time is at least :data:`LATENCY_SHARE` latency (bandwidth-bound rows alone only
        extrapolate an intercept). An undetermined term is not a measurement.
    why_not : str
        Why a term is not determined (``""`` when both are).
    """

    alpha: float
    beta: float
    steps: int
    intercept_s: float
    seconds_per_byte: float
    rms_relative_error: float
    points: int
    alpha_determined: bool = True
    beta_determined: bool = True
    why_not: str = ""

    def __post_init__(self):
        check_fields(
            self,
            {
                "alpha": "real",
                "beta": "real+inf",  # inf: the times do not grow with M
                "steps": "int",
                "intercept_s": "real",
                "seconds_per_byte": "real",
                "rms_relative_error": "real",
                "points": "int",
                "alpha_determined": "bool",
                "beta_determined": "bool",
                "why_not": "str",
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
    Two rows made from alpha = 1 us, beta = 10 GB/s on 2 ranks (AllReduce: 2 steps, c = 1); two
    sizes determine nothing (the line passes through both):

    >>> from ccb_helpers.nccl_tests import read_nccl_tests
    >>> text = _EXAMPLE.replace("10.24", "2.102").replace("104.9", "106.9")
    >>> fit = fit_alpha_beta(read_nccl_tests(text), collective="all_reduce")
    >>> round(fit.alpha * 1e6, 3), round(fit.beta / 1e9, 2), fit.steps, fit.alpha_determined
    (1.0, 10.0, 2, False)
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
        # the window is named only when the caller narrowed it (the CLI never does)
        window = (
            ""
            if min_size <= 1 and max_size == math.inf
            else f" in [min_size, max_size] = [{min_size:g}, {max_size:g}] bytes"
        )
        kinds = len(set(sizes))
        raise ValueError(
            f"log: need at least two rows of different sizes{window} to fit alpha and beta, got {len(sizes)} "
            f"row{'s' if len(sizes) != 1 else ''} of {kinds} size{'s' if kinds != 1 else ''}"
        )
    return _fit(np.array(sizes), np.array(times), n, primitive)


def _fit(sizes, times, n, primitive) -> AlphaBeta:
    weights = 1.0 / times
    design = np.column_stack([weights, sizes * weights])
    (a, b), *_ = np.linalg.lstsq(design, np.ones_like(times), rcond=None)
    clipped = a < 0
    if clipped:  # no negative latency: refit the slope alone
        a = 0.0
        b = float(np.sum(sizes * weights * weights * times) / np.sum((sizes * weights) ** 2))
    b = max(float(b), 0.0)
    steps = _ring_steps(primitive, n)
    coefficient = _busbw_factor(primitive, n)
    fitted = a + b * sizes
    rms = float(np.sqrt(np.mean(((fitted - times) / times) ** 2)))
    alpha_ok, beta_ok, why = _determined(design, times, a, b, clipped, len(set(sizes.tolist())))
    return AlphaBeta(
        alpha=float(a) / steps,
        beta=coefficient / b if b > 0 else math.inf,
        steps=steps,
        intercept_s=float(a),
        seconds_per_byte=b,
        rms_relative_error=rms,
        points=len(sizes),
        alpha_determined=alpha_ok,
        beta_determined=beta_ok,
        why_not=why,
    )


def _determined(design, times, a, b, clipped, distinct) -> tuple[bool, bool, str]:
    """Whether the rows determine α and β (see :class:`AlphaBeta`), and why not."""
    if distinct < 3:
        return False, b > 0, f"alpha: {distinct} sizes, and the line passes through them exactly: nothing checks it"
    residual = design @ np.array([a, b]) - 1.0
    dof = len(times) - (1 if clipped else 2)
    variance = float(residual @ residual) / max(dof, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        try:
            covariance = variance * np.linalg.inv(design.T @ design)
        except np.linalg.LinAlgError:
            covariance = np.full((2, 2), np.inf)
    se_a, se_b = np.sqrt(np.abs(np.diag(covariance)))
    beta_ok = bool(b > 0 and b > DETERMINED_SIGMAS * se_b)
    reasons = []
    if not beta_ok:
        reasons.append("beta: the times do not grow with size beyond the noise")
    if clipped or a <= 0:
        reasons.append("alpha: the fitted intercept was negative (the rows are bandwidth-bound)")
        return False, beta_ok, "; ".join(reasons)
    if not a > DETERMINED_SIGMAS * se_a:
        reasons.append(f"alpha: the intercept is within {DETERMINED_SIGMAS:g} standard errors of 0")
    elif float(np.max(a / times)) < LATENCY_SHARE:
        reasons.append(
            f"alpha: no row's time is at least {LATENCY_SHARE:.0%} latency (every row is bandwidth-bound; "
            "sizes of a few KiB give alpha)"
        )
    return not any(r.startswith("alpha") for r in reasons), beta_ok, "; ".join(reasons)


def _fit_or_error(log, n, primitive):
    """``(fit, None)``, or ``(None, why)`` when the log cannot be fitted (the message says why)."""
    try:
        return fit_alpha_beta(log, n_ranks=n, collective=primitive), None
    except ValueError as error:
        return None, str(error)
