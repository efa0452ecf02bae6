"""The latency–bandwidth trade-off of AllToAll (index) and AllGather (concatenation).

Chapter 4's combined bound adds two separate minima: at least ``ceil(log_{k+1} N)`` rounds, and
at least ``(N-1)M/(N k)`` bandwidth bytes. For AllToAll no algorithm reaches both at once. Bruck,
Ho, Kipnis, Upfal & Weathersby (1997) defined the k-port model with the two measures ``C1``
(rounds) and ``C2`` (the sum over rounds of the largest message) and gave a family of index
algorithms between the two ends (radix 2: fewest rounds; radix N: least data). This module
states the trade-off as a function — the least ``C2`` of any AllToAll in ``r`` rounds — with the
book's own proof (chapter 9, ``eq:cc-tradeoff-index``):

**Theorem.** In the k-port store-and-forward model (messages carry copies of bytes; a node sends
to at most ``k`` nodes per round), an AllToAll of ``N`` blocks of ``b = M/N`` bytes per node in
``r`` rounds has

.. math:: C_2 \\ge \\frac{b}{k} H(N, r, k), \\qquad
          H = \\min \\sum_{j=1}^{N-1} h_j \\text{ with at most } \\binom{r}{h} k^h
          \\text{ of the } h_j \\text{ equal to } h.

*Proof.* Fix a source ``i``. A byte of its block for ``j`` moves along a time-respecting path
(one hop per round, rounds increasing) of some length ``h``. A path of length ``h`` within ``r``
rounds is fixed by its ``h`` rounds (``C(r, h)`` choices) and, at each hop, one of the at most
``k`` messages its current holder sends in that round: at most ``C(r, h) k^h`` paths, so at most
that many destinations are at distance ``h``. The ``N - 1`` destinations' distances therefore sum
to at least ``H`` (fill the shortest distances first). Every byte of block ``(i, j)`` is sent at
least ``h_j`` times, so all nodes together send at least ``N b H`` bytes, some node at least
``b H``; a node sends at most ``k`` messages per round, each no larger than the round's largest,
so ``C2 >= b H / k``. ∎

At ``r = ceil(log_{k+1} N)`` with ``N = (k+1)^r`` every capacity is filled: ``H = r k N/(k+1)``
and ``C2 >= b r N/(k+1)`` — the radix-``(k+1)`` Bruck index sends exactly that. At the other end,
``C2 = (N-1)b/k`` forces every destination to distance 1, ``r k >= N - 1``: at least
``ceil((N-1)/k)`` rounds — pairwise exchange (k = 1). For AllGather the two minima are
compatible (1 port: Bruck's concatenation has ``ceil(log2 N)`` rounds and ``(N-1)b``, the
minimum of both, for every N), so its trade-off curve is flat.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ._intmath import ceil_log_int
from ._validation import check_bandwidth, check_cap, check_int, check_seconds, check_size
from .schedule import MAX_BUFFER_BYTES, Round, Schedule

__all__ = [
    "all_to_all_min_hops",
    "all_to_all_tradeoff_bound",
    "all_to_all_tradeoff_rounds",
    "all_to_all_tradeoff_curve",
    "all_to_all_tradeoff_time",
    "all_gather_tradeoff_bound",
    "bruck_index_cost",
    "bruck_index_schedule",
    "circulant_index_schedule",
]

#: Largest N of the trade-off functions (the curve has about N/k points; the bound alone is O(log N)).
MAX_TRADEOFF_NODES = 2**40
#: Largest N of a whole curve or of the time bound, which visit every round count up to (N-1)/k.
MAX_CURVE_NODES = 2**20
#: Largest N of :func:`bruck_index_schedule` (N * N transfers at most, each ~256 bytes).
MAX_SCHEDULE_NODES = 1024


def _check_nk(n, ports, maximum=MAX_TRADEOFF_NODES):
    n = check_int("n", n, minimum=1, maximum=maximum, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**20, scalar=True)
    return n, ports


def _min_rounds(n: int, ports: int) -> int:
    return ceil_log_int(n, ports + 1) if n > 1 else 0


def _min_hops(n: int, rounds: int, ports: int) -> int | None:
    """Least sum of distances of the n - 1 destinations within ``rounds`` rounds (None: impossible)."""
    need = n - 1
    total = 0
    capacity = 1  # C(rounds, h) * ports**h, built up exactly
    for h in range(1, rounds + 1):
        capacity = capacity * (rounds - h + 1) // h * ports if h > 1 else rounds * ports
        take = min(need, capacity)
        total += take * h
        need -= take
        if need == 0:
            return total
    return None if need > 0 else total


def all_to_all_min_hops(n, rounds, ports=1):
    """Least total hop count ``H(N, r, k)`` of one source's ``N - 1`` blocks in ``r`` rounds.

    At most ``C(r, h) k^h`` destinations can lie ``h`` hops away (``eq:cc-tradeoff-index``); ``H``
    fills the shortest distances first. Exact integer arithmetic.

    Parameters
    ----------
    n : int
        Nodes, ``1 <= n <= 2**40``.
    rounds : int
        Rounds ``r``, at least ``ceil(log_{k+1} n)`` (fewer cannot reach every node).
    ports : int, default 1
        ``k``.

    Examples
    --------
    >>> all_to_all_min_hops(8, 3), all_to_all_min_hops(8, 7), all_to_all_min_hops(12, 4)
    (12, 7, 19)
    """
    n, ports = _check_nk(n, ports)
    rounds = check_int("rounds", rounds, minimum=0, maximum=2**62, scalar=True)
    least = _min_rounds(n, ports)
    if rounds < least:
        raise ValueError(f"rounds must be >= ceil(log_{ports + 1} {n}) = {least} (fewer rounds reach fewer nodes)")
    if n == 1:
        return 0
    return _min_hops(n, min(rounds, n - 1), ports)


def all_to_all_tradeoff_bound(n, m, rounds, ports=1):
    """Least bandwidth bytes ``C2`` (sum of each round's largest message) of an AllToAll in ``rounds`` rounds.

    ``C2 >= (M/N) H(N, r, k) / k`` (``eq:cc-tradeoff-index``, store-and-forward k-port model).
    Decreases with ``rounds`` down to the plain volume bound ``(N-1)M/(N k)``, reached from
    ``r = ceil((N-1)/k)`` on.

    Parameters
    ----------
    n : int
        Nodes, ``1 <= n <= 2**40``.
    m : float
        Bytes each node sends in all (``N`` blocks of ``M/N``), ``0 <= m <= 2**96``.
    rounds : int
        ``r >= ceil(log_{k+1} n)``.
    ports : int, default 1
        ``k``.

    Returns
    -------
    float
        Bytes.

    Examples
    --------
    Eight nodes, 8 KiB each: in 3 rounds at least 12 blocks of 1 KiB (Bruck's index sends
    exactly that); in 7 rounds 7 blocks (pairwise).

    >>> all_to_all_tradeoff_bound(8, 8192, 3), all_to_all_tradeoff_bound(8, 8192, 7)
    (12288.0, 7168.0)
    """
    hops = all_to_all_min_hops(n, rounds, ports)
    m = check_size("m", m, scalar=True)
    return float(Fraction(hops, ports) * Fraction(m) / n)


def all_to_all_tradeoff_rounds(n, m, volume, ports=1):
    """Fewest rounds of any AllToAll whose bandwidth bytes do not exceed ``volume``.

    The inverse of :func:`all_to_all_tradeoff_bound`. At the minimum volume ``(N-1)M/(N k)`` it is
    ``ceil((N-1)/k)``: the least data forces direct sends only.

    >>> all_to_all_tradeoff_rounds(8, 8192, 7168.0), all_to_all_tradeoff_rounds(8, 8192, 12288.0)
    (7, 3)
    """
    n, ports = _check_nk(n, ports)
    m = check_size("m", m, scalar=True)
    volume = check_size("volume", volume, scalar=True)
    if n == 1:
        return 0
    floor_volume = Fraction(n - 1, ports) * Fraction(m) / n
    if Fraction(volume) < floor_volume:
        raise ValueError(
            f"volume must be >= (n - 1) m / (n ports) = {float(floor_volume):g} bytes for n={n}, m={m:g}, "
            f"ports={ports} (the least any AllToAll sends), got {volume:g}"
        )
    if m == 0:
        return _min_rounds(n, ports)
    # H(N, r, k) is non-increasing in r: bisect on r in [r_min, ceil((N-1)/k)].
    lo, hi = _min_rounds(n, ports), -(-(n - 1) // ports)
    target = Fraction(volume) * ports * n / Fraction(m)
    while lo < hi:
        mid = (lo + hi) // 2
        if _min_hops(n, mid, ports) <= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def all_to_all_tradeoff_curve(n, m, ports=1):
    """The trade-off curve: ``[(r, least C2 in r rounds), ...]`` for ``r`` from the fewest rounds
    to ``ceil((N-1)/k)``, where it meets the volume floor; ``n <= 2**20``.

    >>> all_to_all_tradeoff_curve(4, 4096)
    [(2, 4096.0), (3, 3072.0)]
    """
    n, ports = _check_nk(n, ports, MAX_CURVE_NODES)
    m = check_size("m", m, scalar=True)
    if n == 1:
        return [(0, 0.0)]
    last = -(-(n - 1) // ports)
    return [
        (r, float(Fraction(_min_hops(n, r, ports), ports) * Fraction(m) / n))
        for r in range(_min_rounds(n, ports), last + 1)
    ]


def all_to_all_tradeoff_time(n, m, alpha, beta, ports=1):
    """Lower bound on the time of any AllToAll in the round model: ``min_r r α + C2_min(r)/β``.

    Every schedule runs some number of rounds ``r`` and then pays at least the trade-off
    volume of that ``r``; the minimum over ``r`` bounds them all. It is never below chapter 4's
    sum form ``ceil(log_{k+1} N) α + (N-1)M/(N k β)`` and exceeds it where neither end wins.
    ``n <= 2**20``.

    Returns
    -------
    (float, int)
        Seconds, and the round count ``r`` that attains the minimum.

    Examples
    --------
    >>> t, r = all_to_all_tradeoff_time(64, 64 * 2**10, 2e-6, 10e9)
    >>> round(t * 1e6, 2), r
    (29.77, 7)
    """
    n, ports = _check_nk(n, ports, MAX_CURVE_NODES)
    m = check_size("m", m, scalar=True)
    alpha = check_seconds("alpha", alpha, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    best = (math.inf, 0)
    for r, volume in all_to_all_tradeoff_curve(n, m, ports):
        t = r * alpha + volume / beta
        if t < best[0]:
            best = (t, r)
    return (0.0, 0) if n == 1 else best


def all_gather_tradeoff_bound(n, m, rounds, ports=1):
    """Least bandwidth bytes of an AllGather in ``rounds`` rounds: ``(N-1)M/(N k)`` — no trade-off.

    The volume floor holds for every schedule, and for ``k = 1`` Bruck's concatenation reaches
    it in the fewest rounds ``ceil(log2 N)`` for every N (chapter 4), so more rounds cannot help:
    the curve is flat from the first feasible ``r``. (For ``k >= 2`` Bruck et al. 1997 give a
    concatenation optimal in both measures "for most values of n"; the floor stays a bound.)

    >>> all_gather_tradeoff_bound(12, 12000, 4)
    11000.0
    """
    n, ports = _check_nk(n, ports)
    m = check_size("m", m, scalar=True)
    rounds = check_int("rounds", rounds, minimum=0, maximum=2**62, scalar=True)
    least = _min_rounds(n, ports)
    if rounds < least:
        raise ValueError(f"rounds must be >= ceil(log_{ports + 1} {n}) = {least} (fewer rounds reach fewer nodes)")
    return float(Fraction(n - 1, ports) * Fraction(m) / n) if n > 1 else 0.0


# --------------------------------------------------------------------------- Bruck's radix family


def _digit_counts(n: int, radix: int) -> list[list[int]]:
    """``counts[x][z]``: how many offsets j in [0, n) have base-``radix`` digit z at position x."""
    counts = []
    place = 1
    while place < n:
        period = place * radix
        row = [0] * radix
        full, rest = divmod(n, period)
        for z in range(radix):
            row[z] = full * place + min(max(rest - z * place, 0), place)
        counts.append(row)
        place = period
    return counts


def _radix_rounds(n: int, radix: int, ports: int) -> list[tuple[int, list[int]]]:
    """The rounds of the radix index: (digit position x, digit values z sent in that round).

    Digit position x, values z = 1 .. radix-1 that occur among the offsets; ``ports`` values per
    round (one message per value, each to a different node)."""
    plan = []
    for x, row in enumerate(_digit_counts(n, radix)):
        values = [z for z in range(1, radix) if row[z]]
        for start in range(0, len(values), ports):
            plan.append((x, values[start : start + ports]))
    return plan


def _check_radix(n, radix, ports):
    n, ports = _check_nk(n, ports)
    radix = check_int("radix", radix, minimum=2, maximum=max(2, n), scalar=True)
    return n, radix, ports


def bruck_index_cost(n, m, radix=2, ports=1):
    """Rounds and bandwidth bytes of Bruck et al.'s index (AllToAll) with radix ``r``.

    Offsets ``j`` in ``[0, N)`` are written in base ``r``; for each digit position and each
    digit value ``z`` one message carries every block whose digit there is ``z`` to the node
    ``z r^x`` ahead (``k`` values per round with ``k`` ports). Radix 2 is chapter 4's Bruck,
    radix ``N`` sends every block directly (pairwise exchange's volume).

    Returns
    -------
    (int, float)
        Rounds ``C1`` and bandwidth bytes ``C2`` (``M`` = bytes each node sends in all).

    Examples
    --------
    >>> bruck_index_cost(8, 8192, 2), bruck_index_cost(8, 8192, 8), bruck_index_cost(9, 9 * 1024, 3)
    ((3, 12288.0), (7, 7168.0), (4, 12288.0))
    """
    n, radix, ports = _check_radix(n, radix, ports)
    m = check_size("m", m, scalar=True)
    if n == 1:
        return 0, 0.0
    counts = _digit_counts(n, radix)
    plan = _radix_rounds(n, radix, ports)
    blocks = sum(max(counts[x][z] for z in values) for x, values in plan)
    return len(plan), float(Fraction(blocks) * Fraction(m) / n)


def bruck_index_schedule(n, m, radix=2, ports=1) -> Schedule:
    """The radix-``r`` Bruck index as a runnable :class:`~ccb_helpers.schedule.Schedule` (AllToAll).

    A local rotation puts the block for node ``i + j`` in slot ``j`` of a work buffer; each round
    moves the slots whose digit ``x`` is ``z`` by ``z r^x``; a final rotation delivers slot ``j``
    of node ``d`` (from node ``d - j``) into ``recv``. Run it with :func:`ccb_helpers.run_schedule`
    (``ports=ports``): its rounds and bytes are :func:`bruck_index_cost`'s.

    Parameters
    ----------
    n : int
        Nodes, ``1 <= n <= 1024``.
    m : int
        Bytes per node, a multiple of ``n`` (equal blocks), ``<= 2**62``.
    radix : int, default 2
        ``2 <= radix <= max(2, n)``.
    ports : int, default 1
        Messages per node per round.

    Examples
    --------
    >>> from ccb_helpers.simulator import run_schedule
    >>> r = run_schedule(bruck_index_schedule(6, 6 * 64, radix=3), ports=1)
    >>> r.correct, r.rounds, int(r.max_message.sum())
    (True, 3, 448)
    """
    n, radix, ports = _check_radix(n, radix, ports)
    check_cap("bruck_index_schedule: n", n, MAX_SCHEDULE_NODES, hint="the schedule holds up to n * n transfers")
    m = check_int("m", m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
    if m % n:
        raise ValueError(f"m must be a multiple of n (equal blocks of the AllToAll), got m={m}, n={n}")
    size = m // n
    send, recv, work = 0, 1, 2
    nodes = np.repeat(np.arange(n, dtype=np.int64), n)
    slot = np.tile(np.arange(n, dtype=np.int64), n)
    prologue = Round(nodes, nodes, ((nodes + slot) % n) * size, size, False, send, slot * size, work)
    epilogue = Round(nodes, nodes, slot * size, size, False, work, ((nodes - slot) % n) * size, recv)
    offsets = np.arange(n, dtype=np.int64)
    rounds = []
    for x, values in _radix_rounds(n, radix, ports) if n > 1 else []:
        place = radix**x
        digit = (offsets // place) % radix
        parts = []
        for z in values:
            slots = offsets[digit == z]
            src = np.repeat(np.arange(n, dtype=np.int64), slots.size)
            sl = np.tile(slots, n)
            parts.append(Round(src, (src + z * place) % n, sl * size, size, False, work))
        rounds.append(Round.concat(parts))
    return Schedule("all_to_all", n, m, rounds, ("send", "recv", "work"), 0, f"bruck_radix{radix}", prologue, epilogue)


# --------------------------------------------------------------------------- circulant index schedules

#: Most steps of :func:`circulant_index_schedule` (the search over subsets of steps is 2**steps).
MAX_CIRCULANT_STEPS = 16


def circulant_index_schedule(n, m, steps) -> Schedule:
    """A circulant AllToAll (index) with one step per round: round ``t`` moves blocks ``steps[t]`` ahead.

    Every offset ``j`` in ``[1, N)`` is written as a sum (mod ``N``) of a subset of ``steps`` with as
    few terms as possible (the first such subset in bit order); its blocks take those steps in
    round order. Each round every node sends one message — the blocks whose subset holds that
    round's step — so ``C2 = (M/N) x`` the sum of the subsets' sizes. Bruck's index is
    ``steps = (1, 2, 4, ...)``; for ``N`` not a power of two other steps can do better, down to the
    trade-off bound (``eq:cc-tradeoff-index``): ``N = 12`` in 4 rounds reaches 19 blocks with steps
    ``(1, 2, 4, 7)``, where Bruck sends 20.

    Parameters
    ----------
    n : int
        Nodes, ``2 <= n <= 1024``.
    m : int
        Bytes per node, a multiple of ``n``, ``<= 2**62``.
    steps : sequence of int
        One step per round, each in ``[1, n)``, at most 16; every offset must be reachable.

    Examples
    --------
    >>> from ccb_helpers.simulator import run_schedule
    >>> r = run_schedule(circulant_index_schedule(12, 12 * 8, (1, 2, 4, 7)))
    >>> r.correct, r.rounds, int(r.max_message.sum()) // 8
    (True, 4, 19)
    """
    n = check_int("n", n, minimum=2, maximum=MAX_SCHEDULE_NODES, scalar=True)
    m = check_int("m", m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
    if m % n:
        raise ValueError(f"m must be a multiple of n (equal blocks of the AllToAll), got m={m}, n={n}")
    if isinstance(steps, (str, bytes)) or not hasattr(steps, "__len__") or getattr(steps, "ndim", 1) != 1:
        raise TypeError(f"steps must be a sequence of ints, got {type(steps).__name__}")
    check_cap("circulant_index_schedule: steps", len(steps), MAX_CIRCULANT_STEPS)
    steps = [check_int(f"steps[{i}]", s, minimum=1, maximum=n - 1, scalar=True) for i, s in enumerate(steps)]
    best: dict[int, int] = {}  # offset -> bit mask of the fewest steps that reach it
    for mask in range(1, 1 << len(steps)):
        offset = sum(s for i, s in enumerate(steps) if mask >> i & 1) % n
        if offset and (offset not in best or bin(mask).count("1") < bin(best[offset]).count("1")):
            best[offset] = mask
    missing = sorted(set(range(1, n)) - set(best))
    if missing:
        raise ValueError(
            f"steps {tuple(steps)} reach no subset sum = {missing[0]} (mod {n}); every offset must be reachable"
        )
    size = m // n
    send, recv, work = 0, 1, 2
    nodes = np.repeat(np.arange(n, dtype=np.int64), n)
    slot = np.tile(np.arange(n, dtype=np.int64), n)
    prologue = Round(nodes, nodes, ((nodes + slot) % n) * size, size, False, send, slot * size, work)
    epilogue = Round(nodes, nodes, slot * size, size, False, work, ((nodes - slot) % n) * size, recv)
    rounds = []
    for t, step in enumerate(steps):
        moved = np.array(sorted(j for j, mask in best.items() if mask >> t & 1), dtype=np.int64)
        src = np.repeat(np.arange(n, dtype=np.int64), moved.size)
        sl = np.tile(moved, n)
        rounds.append(Round(src, (src + step) % n, sl * size, size, False, work))
    return Schedule("all_to_all", n, m, rounds, ("send", "recv", "work"), 0, "circulant", prologue, epilogue)
