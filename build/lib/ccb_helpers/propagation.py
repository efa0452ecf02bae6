"""Information propagation: how fast one node's data can reach N nodes.

In one round of the k-port model every node that already holds the data can hand it to at
most k new nodes, so the number of informed nodes grows at most by a factor k + 1 per round
(a factor 2 for 1-port). That gives the latency lower bounds ``eq:cc-bound-info-1port`` and
``eq:cc-bound-info-kport`` of the source chapter.
"""

from __future__ import annotations

import numpy as np

from ._intmath import ceil_log
from ._validation import INT64_MAX, check_cap, check_int, check_seconds, check_shapes

__all__ = ["info_steps", "coverage", "info_latency_bound", "flat_send_time"]

#: Largest exact value :func:`coverage` builds without ``n``: ``(k+1)**t`` of at most this many bits.
COVERAGE_MAX_BITS = 2**16


def info_steps(n, k=1):
    """Minimum number of rounds for one node's data to reach ``n`` nodes (k-port model).

    Implements ``eq:cc-bound-info-kport``, :math:`t_{\\min} = \\lceil \\log_{k+1} N \\rceil`,
    and ``eq:cc-bound-info-1port`` for ``k = 1``. Computed with integer arithmetic only, so it
    is exact for every ``n`` (Python ints of any size; int64 arrays up to 2**63 - 1).

    Parameters
    ----------
    n : int or array of int
        Number of nodes, ``n >= 1``.
    k : int or array of int, default 1
        Ports per node (sends per round), ``k >= 1``. All-port on N nodes is ``k = n - 1``.

    Returns
    -------
    int or ndarray of int64
        The smallest ``t`` with ``(k + 1) ** t >= n``.

    Examples
    --------
    >>> info_steps(8), info_steps(8, k=2), info_steps(125, k=4), info_steps(1000, k=3)
    (3, 2, 3, 5)
    >>> info_steps([4, 8, 16, 32, 64], k=2).tolist()
    [2, 2, 3, 4, 4]
    """
    k = check_int("k", k, minimum=1)
    # With an array k the answer is an int64 array, so n must fit int64 too.
    n = check_int("n", n, minimum=1, maximum=INT64_MAX if isinstance(k, np.ndarray) else None)
    check_shapes(n=n, k=k)
    return _info_steps(n, k)


def _info_steps(n, k):
    """:func:`info_steps` on validated ``n``, ``k`` (ints or int64 arrays)."""
    if isinstance(k, np.ndarray):
        # k >= n - 1 gives base >= n: one round (zero for n = 1). Clipping k to n - 1 keeps the
        # answer and keeps k + 1 inside int64 (k = 2**63 - 1 would wrap around).
        n_arr, k_arr = np.broadcast_arrays(np.asarray(n, dtype=np.int64), k)
        return ceil_log(n_arr, np.minimum(k_arr, np.maximum(n_arr - 1, 1)) + 1)
    if isinstance(n, np.ndarray):
        return ceil_log(n, min(k, INT64_MAX - 1) + 1)
    return ceil_log(n, k + 1)


def coverage(t, k=1, n=None):
    """Upper bound on the number of informed nodes after ``t`` rounds: ``min((k+1)**t, n)``.

    This is the doubling argument behind ``eq:cc-bound-info-1port`` (``k = 1``: at most
    ``2**t`` nodes after ``t`` rounds).

    Parameters
    ----------
    t : int or array of int
        Rounds, ``t >= 0``.
    k : int, default 1
        Ports per node, ``k >= 1``.
    n : int, optional
        Total number of nodes; caps the coverage when given.

    Raises
    ------
    ValueError
        Without ``n``, if ``(k+1)**t`` would have more than ``COVERAGE_MAX_BITS = 2**16`` bits
        (the exact big-integer cap; decided before any work).

    Returns
    -------
    int or ndarray of int64
        Python int for scalar ``t`` (exact, any size); int64 array for array ``t`` (then
        ``n`` is required so the values stay in range).

    Examples
    --------
    >>> [coverage(t) for t in range(5)]
    [1, 2, 4, 8, 16]
    >>> coverage(3, k=2, n=20)
    20
    >>> coverage(np.arange(4), k=6, n=100).tolist()
    [1, 7, 49, 100]
    """
    t = check_int("t", t, minimum=0)
    k = check_int("k", k, minimum=1, scalar=True)
    if n is not None:
        n = check_int("n", n, minimum=1, maximum=INT64_MAX if isinstance(t, np.ndarray) else None, scalar=True)
    if isinstance(t, np.ndarray):
        check_shapes(t=t)
        if n is None:
            raise ValueError("n is required when t is an array (it caps the int64 values)")
    elif n is None:
        # (k+1)**t has about t * log2(k+1) bits: refuse before building a huge integer.
        check_cap(
            "coverage(t, k) builds (k+1)**t exactly: bits of the result",
            t * (k + 1).bit_length(),
            COVERAGE_MAX_BITS,
            hint="pass n (the number of nodes) to cap the value, or use a smaller t",
        )
    return _coverage(t, k, n)


def _coverage(t, k, n):
    if isinstance(t, np.ndarray):
        # (k+1)**i for i = 0, 1, ... up to the first value >= n (at most 64 entries), then look up.
        powers = [1]
        while powers[-1] < n:
            powers.append(powers[-1] * (k + 1))
        table = np.array([min(p, n) for p in powers], dtype=np.int64)
        return table[np.minimum(t, len(table) - 1)]
    if n is None:
        return (k + 1) ** t
    # Multiply step by step so that huge t with a cap never builds a huge integer.
    reach = 1
    for _ in range(t):
        if reach >= n:
            break
        reach *= k + 1
    return min(reach, n)


def info_latency_bound(n, alpha, k=1):
    """Latency lower bound :math:`\\lceil \\log_{k+1} N \\rceil \\cdot \\alpha` in seconds.

    Implements ``eq:cc-bound-delay-1port`` (``k = 1``) and ``eq:cc-bound-delay-kport``.

    Parameters
    ----------
    n : int or array of int
        Number of nodes, ``n >= 1``.
    alpha : float or array
        Per-round start-up latency in seconds, ``alpha >= 0``.
    k : int, default 1
        Ports per node, ``k >= 1``.

    Examples
    --------
    >>> info_latency_bound(64, 2e-6)
    1.2e-05
    >>> info_latency_bound(64, 2e-6, k=2)
    8e-06
    """
    k = check_int("k", k, minimum=1)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX if isinstance(k, np.ndarray) else None)
    alpha = check_seconds("alpha", alpha)
    check_shapes(n=n, alpha=alpha, k=k)
    return _info_steps(n, k) * alpha


def flat_send_time(n, latency, overhead, gap):
    """LogP time for one node to send a message to each of the other ``n - 1`` nodes, seconds.

    The "all-port in one round" of a node with many queue pairs but one network interface: its
    ``n - 1`` messages leave one after another, ``max(o, g)`` apart (the processor's overhead
    ``o`` per message, the interface's gap ``g``), and the last arrives ``L`` later and is
    received in another ``o`` (Culler et al. 1993):

    .. math:: T = (N - 2)\\,\\max(o, g) + 2o + L .

    Parameters
    ----------
    n : int or array of int
        Nodes, ``1 <= n <= 2**62`` (one node: 0).
    latency : float
        ``L``, wire and switch latency of one message, seconds.
    overhead : float
        ``o``, processor time to send or to receive one message, seconds.
    gap : float
        ``g``, minimum interval between two messages from one interface, seconds.

    Examples
    --------
    1024 nodes, L = 2 us, o = g = 0.5 us: 1022 * 0.5 + 1 + 2 us.

    >>> round(flat_send_time(1024, 2e-6, 0.5e-6, 0.5e-6) * 1e6, 6)
    514.0
    >>> flat_send_time(2, 2e-6, 0.5e-6, 0.5e-6) == 2e-6 + 2 * 0.5e-6
    True
    """
    n = check_int("n", n, minimum=1, maximum=2**62)
    latency = check_seconds("latency", latency, scalar=True)
    overhead = check_seconds("overhead", overhead, scalar=True)
    gap = check_seconds("gap", gap, scalar=True)
    steps = np.maximum(np.asarray(n) - 2, 0) * max(overhead, gap) + 2 * overhead + latency
    value = np.where(np.asarray(n) > 1, steps, 0.0)
    return float(value) if np.ndim(value) == 0 else value
