"""Binomial (k-nomial) trees and van de Geijn's scatter + all-gather broadcast (cost models)."""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log, ceil_log2
from .core import _THAKUR, _frac_bytes, _Model


def _knomial_rounds(n, ports):
    return ceil_log(n, ports + 1)


def _binomial_rooted(n, m, ports, opts):
    steps = _knomial_rounds(n, ports)
    return steps, steps * m


def _binomial_all_reduce(n, m, ports, opts):
    steps = _knomial_rounds(n, ports)
    return 2 * steps, 2 * steps * m


def _binomial_scatter(n, m, ports, opts):
    # Round sizes N - 2^(L-1), 2^(L-2), ..., 1 blocks of M/N: they sum to N - 1 blocks.
    return ceil_log2(n), _frac_bytes(n, m)


def _scatter_allgather_broadcast(n, m, ports, opts):
    # Binomial scatter of N blocks, then a ring all-gather (van de Geijn).
    return ceil_log2(n) + n - 1, 2 * _frac_bytes(n, m)


def _knomial_reduced(n, m, ports, opts):
    # Reduce (and the reduce half of AllReduce): in the round of span s = (k+1)^t node 0 adds the
    # messages of its children j s < N, j = 1..k, each M; no node has more children in a round.
    k = ports
    radix = min(k + 1, 2**62)
    n = np.asarray(n, dtype=np.int64)
    span = np.ones_like(n)
    messages = np.zeros_like(n)
    while np.any(span < n):
        live = span < n
        messages += np.where(live, np.minimum(k, (n - 1) // span), 0)
        done = span >= -(-n // radix)
        span = np.where(live, np.where(done, n, span * np.where(done, 1, radix)), span)
    return messages * m if np.ndim(messages) else int(messages) * m


BINOMIAL_TREE = {
    "broadcast": _Model(_binomial_rooted, reference=_THAKUR + "; k-nomial for k ports"),
    "reduce": _Model(_binomial_rooted, reference=_THAKUR + "; k-nomial for k ports", reduced=_knomial_reduced),
    "scatter": _Model(_binomial_scatter, reference=_THAKUR),
    "gather": _Model(_binomial_scatter, reference=_THAKUR),
    "all_reduce": _Model(_binomial_all_reduce, reference="reduce + broadcast, " + _THAKUR, reduced=_knomial_reduced),
}
SCATTER_ALLGATHER = {
    "broadcast": _Model(_scatter_allgather_broadcast, reference="van de Geijn; " + _THAKUR),
}
