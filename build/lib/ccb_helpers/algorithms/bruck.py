"""Bruck et al. (1997): log-round all-gather, reduce-scatter, AllReduce and all-to-all for every N.

The all-gather concatenates: after round ``b`` a node holds the ``S`` blocks that start at its
own, ``S`` multiplying by ``k + 1`` each round with ``k`` ports. In a round a node receives the
``r = min(k S, N - S)`` blocks that follow those it holds, split as evenly as whole blocks allow
over its ``k`` ports: ``ceil(r / k)`` blocks on the busiest. Every round but the last has
``r = k S``, so the bandwidth bytes are ``(N - 1) M / (k N)`` plus less than one block
(``M / N``) when ``k`` does not divide the last round's ``r``; with one port exactly
``(N - 1) M / N``, for every N (``eq:cc-bruck-allgather``).

Running those rounds backwards, each message *added* into its sender (a tree per block, leaves
first), is a reduce-scatter in the same rounds and bytes (the reversed Bruck of the issue #38
audit); reduce-scatter then all-gather is an AllReduce in ``2 ceil(log_{k+1} N)`` rounds and
``2 (N - 1) M / N`` bytes with one port, for every N — the bandwidth of the ring and the rounds
of recursive halving-doubling, where the fold of MPICH's halving-doubling costs ``2 M`` more.

The rooted pair follows van de Geijn's broadcast with Bruck's all-gather in place of the ring's:
a binomial scatter (one port, ``ceil(log2 N)`` rounds, ``(N - 1) M / N`` bytes) then the
all-gather is a Broadcast in ``2 ceil(log2 N)`` rounds and ``2 (N - 1) M / N`` bytes for every N
(``ceil(log2 N) + ceil(log_{k+1} N)`` rounds with ``k`` ports); the reduce-scatter then the
binomial gather is the Reduce, adding ``(N - 1) M / N`` (the #38 review: without it the
catalogue's best 1-port Broadcast and Reduce at N = 64, 1 MiB on the A100 preset were 1.58x this).
"""

from __future__ import annotations

import numpy as np

from .._intmath import ceil_log, ceil_log2
from .core import _THAKUR, _frac_bytes, _Model


def _concatenation_blocks(n, ports):
    """Rounds and the blocks on the busiest port summed over rounds, of the k-port concatenation.

    ``n`` an int or int64 array (``n >= 1``), ``ports`` a Python int. Exact integers, no overflow
    (``S`` never grows past ``n``).
    """
    k = ports
    radix = min(k + 1, 2**62)  # past 2**62 every n <= 2**62 is covered in one round anyway
    n = np.asarray(n, dtype=np.int64)
    held = np.ones_like(n)
    blocks = np.zeros_like(n)
    while np.any(held < n):
        live = held < n
        missing = n - held
        fits = held >= -(-missing // k)  # k S >= N - S: the rest arrives this round
        r = np.where(fits, missing, held * np.where(fits, 1, min(k, 2**62)))  # never k S past N
        blocks += np.where(live, -(-r // k), 0)
        done = held >= -(-n // radix)
        held = np.where(live, np.where(done, n, held * np.where(done, 1, radix)), held)
    return ceil_log(n, k + 1), blocks


def _bruck_all_gather(n, m, ports, opts):
    # Round b sends min(2^b, N - 2^b) blocks (one port); with k ports ceil(r / k) on the busiest.
    if ports == 1:
        return ceil_log2(n), _frac_bytes(n, m)
    steps, blocks = _concatenation_blocks(n, ports)
    return steps, blocks * (m / n) if np.ndim(blocks) else int(blocks) * m / n


def _bruck_all_reduce(n, m, ports, opts):
    steps, volume = _bruck_all_gather(n, m, ports, opts)
    return 2 * steps, 2 * volume


def _bruck_reduced(n, m, ports, opts):
    # Every round a node adds the r blocks it receives (on all its ports): N - 1 blocks in all,
    # exactly the computation bound (N - 1) M / N.
    return _frac_bytes(n, m)


def _bruck_rooted(n, m, ports, opts):
    # Broadcast: MPICH's binomial scatter (one port, ceil(log2 N) rounds, (N - 1) M / N from the
    # root), then Bruck's all-gather; Reduce: Bruck's reduce-scatter, then the binomial gather.
    steps, volume = _bruck_all_gather(n, m, ports, opts)
    return ceil_log2(n) + steps, _frac_bytes(n, m) + volume


def _bruck_all_to_all(n, m, ports, opts):
    # Round b sends every block whose (rotated) index j in [0, N) has bit b set.
    steps = ceil_log2(n)
    # The total reaches ~ (N/2) log2 N blocks: beyond int64 near N = 2**62, so it is summed in floats
    # (each round's count is an exact int64).
    blocks = np.zeros(np.shape(n), dtype=float)
    top = int(np.max(steps))
    for b in range(top):
        period = 1 << (b + 1)
        half = 1 << b
        blocks = blocks + ((n // period) * half + np.maximum(0, n % period - half))
    return steps, blocks * m / n


_BRUCK = "Bruck et al. 1997; " + _THAKUR
_REVERSED = "reversed Bruck all-gather (this book, #38; Bruck et al. 1997)"
_ROOTED = "binomial scatter + Bruck all-gather, and its reverse (van de Geijn's broadcast with Bruck's all-gather)"

BRUCK = {
    "all_gather": _Model(_bruck_all_gather, reference=_BRUCK + "; k-port concatenation"),
    "all_to_all": _Model(_bruck_all_to_all, reference=_BRUCK),
    "reduce_scatter": _Model(_bruck_all_gather, reference=_REVERSED, reduced=_bruck_reduced),
    "all_reduce": _Model(_bruck_all_reduce, reference=_REVERSED + " + Bruck all-gather", reduced=_bruck_reduced),
    "broadcast": _Model(_bruck_rooted, reference=_ROOTED),
    "reduce": _Model(_bruck_rooted, reference=_ROOTED, reduced=_bruck_reduced),
}
