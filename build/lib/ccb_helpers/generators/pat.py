"""PAT (NCCL 2.23+): AllGather and ReduceScatter on binomial trees with bounded buffers.

NCCL's maintainers describe PAT as "a variation of Bruck's algorithm reordering the schedule to
keep the memory needs limited", supporting "one GPU per node at the moment"
(NVIDIA/nccl#1473), and as "a binomial tree algorithm" (NVIDIA/nccl#1594); the promised paper
is not out (NVIDIA/nccl#1708). This module is built from NCCL's source instead
(``src/include/collectives.h``, classes ``PatAGAlgorithm`` / ``PatRSAlgorithm``, NCCL 2.30.7;
peers in ``src/device/prims_simple.h``; enablement in ``src/graph/tuning.cc``):

* rank ``r`` talks only to ``r ± 2^d`` ("dimension" ``d``); in AllGather it receives from
  ``r + 2^d`` and sends to ``r - 2^d`` (ReduceScatter the other way round);
* every rank's block travels down a binomial tree — to reach offset ``s`` it crosses the bits of
  ``s`` from the highest down, so every block reaches every rank in at most ``ceil(log2 N)``
  hops and every rank sends ``N - 1`` blocks in all (the bandwidth minimum);
* the order of the operations (``as``, ``mirrorInvert``, ``nextAs``) keeps at most
  ``NCCL_STEPS = 8`` buffer slots per peer busy and groups the operations into *aggregated
  steps* of ``A``, the **aggregation factor** (a power of two below ``N``). The constructor sets
  it in two loops, both only while ``aggFactor < nranks / 2`` (integer division): the first
  doubles it while several chunks fit one buffer slot and makes that ``postFreq`` (chunks per
  posted slot: 1 for large messages), the second doubles it while the 8 slots allow (three
  times). Large messages therefore post every block in a slot of its own, with up to
  ``A = min(8, ...)`` slots in flight (:func:`ccb_helpers.pat_aggregation`).

This module replays NCCL's operation sequence (:func:`pat_operations`, a line-by-line port of
``getNextOp`` with ``parallelFactor`` 1, checked operation by operation against the sequences
NCCL's own ``getNextOp`` produces, ``tests/data/nccl_pat_ops.json``) and makes one message of the blocks a rank posts on one
dimension up to each ``postSend`` with ``postFreq = A``: NCCL's own messages when ``A`` chunks
share a slot (small messages); for large messages, where NCCL posts each block in its own slot
and keeps up to ``A`` in flight, the same grouping is the book's synchronous abstraction (a round
carries the slots a rank has in flight to one peer). Round ``t`` of the synchronous model is
every rank's ``t``-th message; the simulator then checks the bytes. With ``A = 1`` PAT sends ``N - 1`` one-block messages (``N - 1`` rounds, as the
ring; the gain in NCCL is the ``log2 N`` depth of every block's path in a pipelined run); with
``A = 2^ceil(log2 N)/2`` it is a Bruck-like schedule in ``ceil(log2 N)`` rounds (distances halving,
blocks doubling).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_bool, check_cap, check_choice, check_int, check_size
from ..algorithms.pat import pat_aggregation
from ..schedule import MAX_BUFFER_BYTES, Round, Schedule, _block_bounds
from .core import ScheduleGenerator

__all__ = ["PatOp", "pat_operations", "pat_messages", "pat_schedule", "pat_terms"]

PAT_PRIMITIVES = ("all_gather", "reduce_scatter")
#: Most ranks of a PAT schedule here (N - 1 messages per rank, up to N blocks each).
MAX_PAT_RANKS = 4096


@dataclass(frozen=True)
class PatOp:
    """One operation of NCCL's PAT loop, as every rank runs it (offsets relative to the rank).

    ``data``: offset of the block's owner (AllGather) or destination (ReduceScatter);
    ``send_dim`` / ``recv_dim``: the peer ``2^d`` away (``-1``: none); ``post_send``: the
    operation completes a network message; ``skip``: NCCL skips it (offset beyond ``N``).
    """

    phase: int
    data: int
    send_dim: int
    recv_dim: int
    post_send: bool
    skip: bool

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "phase", check_int("PatOp.phase", self.phase, minimum=0, maximum=4, scalar=True))
        set_(self, "data", check_int("PatOp.data", self.data, minimum=0, maximum=2 * MAX_PAT_RANKS, scalar=True))
        for name in ("send_dim", "recv_dim"):  # -1: no peer; else the peer 2**d away
            set_(self, name, check_int(f"PatOp.{name}", getattr(self, name), minimum=-1, maximum=62, scalar=True))
        for name in ("post_send", "skip"):
            set_(self, name, check_bool(f"PatOp.{name}", getattr(self, name)))


def _log2_up(n: int) -> int:
    return 0 if n <= 1 else (n - 1).bit_length()


def _first_bit(i: int, default: int) -> int:
    return (i & -i).bit_length() - 1 if i else default


def _mirror_invert(i: int, top: int) -> int:
    out, mask, imask = 0, 1, top // 2
    while mask < top:
        if not i & mask:
            out += imask
        mask, imask = mask << 1, imask >> 1
    return out


def _ag_operations(n: int, agg: int) -> list[PatOp]:
    """``PatAGAlgorithm::getNextOp`` for one chunk and one worker (parallelFactor 1)."""
    pow2 = 1 << _log2_up(n)
    delta = pow2 // agg
    post_freq = agg
    as_dim = _log2_up(delta)
    bit_count = [as_dim - i for i in range(as_dim)]
    bit_zero_step = [1] * as_dim
    state = {"v": 0}

    def next_as() -> int:
        for d in range(as_dim):
            p = 1 << d
            bit_count[d] -= 1
            if bit_count[d] == 0:
                state["v"] ^= p
                bit_count[d] = p
                if not state["v"] & p:
                    bit_count[d] += _first_bit(bit_zero_step[d], as_dim) - 1
                    if bit_count[d] == 0:
                        state["v"] ^= p
                        bit_count[d] = p
                    bit_zero_step[d] += 1
        return state["v"]

    scale = agg // 2
    phase = 2 if scale else 1
    as_ = next_as()
    a, last_a = 0, agg // (2 * scale) if phase >= 2 else agg
    ops: list[PatOp] = []
    while True:
        skip = a >= last_a
        data, send_dim, recv_dim, post = 0, -1, -1, False
        if skip:
            pass
        elif phase == 0:
            s = a * delta + as_
            skip = s >= n
            data, recv_dim = s, 0
        elif phase == 1:
            s = a * delta + as_
            skip = s >= n
            send_dim = _first_bit(s, pow2)
            s -= 1 << send_dim
            recv_dim = _first_bit(s, pow2) if s else -1
            data = s
            post = a % post_freq == post_freq - 1 or (a + 1) * delta + as_ >= n
            if s < n and send_dim == 0 and skip:  # "receive at least once even if we don't send afterwards"
                send_dim, post, skip = -1, False, False
        else:  # phase 2
            s = (2 * a + 1) * scale * delta
            post = a % post_freq == post_freq - 1 or (2 * (a + 1) + 1) * scale * delta >= n
            skip = s >= n
            send_dim = _first_bit(s, pow2)
            s -= 1 << send_dim
            recv_dim = _first_bit(s, pow2) if s else -1
            data = s
        ops.append(PatOp(phase, data, send_dim, recv_dim, bool(post), bool(skip)))
        a += 1
        if a >= last_a:  # parallelFactor 1
            p = phase
            if p == 2:
                scale //= 2
            phase = (2 if scale else 1) if p == 2 else ((0 if as_ % 2 == 1 else 1) if p == 1 else 1)
            if p == 0 or (p == 1 and as_ % 2 == 0):
                as_ = next_as()
            if p == 0 and as_ == delta // 2:
                return ops
            a, last_a = 0, (agg // (2 * scale) if phase >= 2 else agg)


def _rs_operations(n: int, agg: int) -> list[PatOp]:
    """``PatRSAlgorithm::getNextOp`` for one chunk and one worker (parallelFactor 1)."""
    pow2 = 1 << _log2_up(n)
    delta = pow2 // agg
    post_freq = agg
    phase, scale, as_ = 0, 1, delta - 1

    def last(phase_: int) -> int:
        value = agg // (2 * scale) if phase_ >= 2 else agg
        return 1 if phase_ == 4 else value

    a, last_a = 0, last(phase)
    ops: list[PatOp] = []
    while True:
        skip = a >= last_a
        data, send_dim, recv_dim, post = 0, -1, -1, False
        boundary = (a % post_freq) + 1 >= post_freq or a == last_a - 1
        if skip:
            pass
        elif phase == 0:
            s = _mirror_invert(a, last_a) * delta + as_
            skip = s >= n
            data, send_dim, post = s, 0, boundary
        elif phase == 1:
            s = _mirror_invert(a, last_a) * delta + as_
            skip = s >= n
            recv_dim = _first_bit(s, pow2)
            post = recv_dim == 0 and boundary
            s -= 1 << recv_dim
            send_dim = _first_bit(s, pow2) if s else -1
            data = s
            if s < n and skip:
                recv_dim, skip = -1, False
        elif phase == 2:
            s = (2 * _mirror_invert(a, last_a) + 1) * scale * delta + 1
            post = a == last_a - 1 or (a + 1) % post_freq == 0
            skip = s >= n
            recv_dim = 0
            s -= 1
            if s < n and skip:
                recv_dim, skip = -1, False
            send_dim = _first_bit(s, pow2) if s else -1
            data = s
        elif phase == 3:
            s = (2 * _mirror_invert(a, last_a) + 1) * scale * delta
            skip = s >= n
            recv_dim = _first_bit(s, pow2)
            s -= 1 << recv_dim
            send_dim = _first_bit(s, pow2) if s else -1
            data = s
            if s < n and skip:
                recv_dim, skip = -1, False
        else:  # phase 4: the final block lands
            data, recv_dim = 0, 0
        if send_dim < 0:
            post = False
        ops.append(PatOp(phase, data, send_dim, recv_dim, bool(post), bool(skip)))
        a += 1
        if a >= last_a:
            p = phase
            if p == 4:
                return ops
            if p == 1:
                as_ -= 1
            if p == 3:
                scale *= 2
            if p == 0:
                phase = (2 if agg > 1 else 4) if as_ == 1 else 1
            elif p == 1:
                phase = 0 if as_ % 2 == 1 else 1
            elif p == 2:
                phase = 3
            else:
                phase = 2 if scale < agg else 4
            a, last_a = 0, last(phase)


def _check(primitive, n, aggregation):
    primitive = check_choice("primitive", primitive, PAT_PRIMITIVES)
    n = check_int("n", n, minimum=1, maximum=MAX_PAT_RANKS, scalar=True)
    pow2 = 1 << _log2_up(n)
    if aggregation is None:
        aggregation = pat_aggregation(n)
    aggregation = check_int("aggregation", aggregation, minimum=1, maximum=max(1, pow2 // 2), scalar=True)
    if aggregation & (aggregation - 1):
        raise ValueError(f"aggregation must be a power of two (NCCL doubles it), got {aggregation}")
    # (up to P/2 here; NCCL's constructor stops at the first power of two >= floor(N/2), P/4 for N = 2^j + 1)
    return primitive, n, aggregation


def pat_operations(primitive, n, aggregation=None) -> list[PatOp]:
    """NCCL's PAT operation sequence (every rank runs the same one), for ``n`` ranks.

    >>> [(op.data, op.send_dim) for op in pat_operations("all_gather", 4, 1) if op.send_dim >= 0]
    [(0, 1), (2, 0), (0, 0)]
    """
    primitive, n, aggregation = _check(primitive, n, aggregation)
    if n == 1:
        return []
    return (_ag_operations if primitive == "all_gather" else _rs_operations)(n, aggregation)


def pat_messages(primitive, n, aggregation=None) -> list[tuple[int, tuple[int, ...]]]:
    """The network messages of one rank, in order: ``(dimension, block offsets)``.

    The blocks an operation sends on one dimension gather until the operation NCCL flags
    ``postSend`` with ``postFreq = A`` posts them (in ReduceScatter several operations add into
    the same block, counted once).

    >>> pat_messages("all_gather", 8, 4)
    [(2, (0,)), (1, (0, 4)), (0, (0, 2, 4, 6))]
    >>> len(pat_messages("all_gather", 8, 1)), len(pat_messages("reduce_scatter", 8, 1))
    (7, 7)
    """
    ops = pat_operations(primitive, n, aggregation)
    pending: dict[int, list[int]] = {}
    out = []
    for op in ops:
        if op.skip or op.send_dim < 0:
            continue
        blocks = pending.setdefault(op.send_dim, [])
        if op.data not in blocks:
            blocks.append(op.data)
        if op.post_send:
            out.append((op.send_dim, tuple(pending.pop(op.send_dim))))
    if pending:  # pragma: no cover - NCCL posts every slot it fills
        raise AssertionError(f"unposted PAT messages: {pending}")
    return out


def pat_terms(primitive, n, m, aggregation=None) -> tuple[int, float]:
    """Rounds and bandwidth bytes of PAT in the synchronous model (one message per rank per round).

    >>> pat_terms("all_gather", 8, 8000, 4), pat_terms("all_gather", 8, 8000, 1)
    ((3, 7000.0), (7, 7000.0))
    """
    m = check_size("m", m, scalar=True)
    messages = pat_messages(primitive, n, aggregation)
    return len(messages), float(sum(len(b) for _, b in messages) * m / n) if n > 0 else 0.0


def pat_schedule(primitive, n, m, aggregation=None) -> Schedule:
    """PAT as a runnable :class:`~ccb_helpers.schedule.Schedule` (round ``t``: every rank's ``t``-th message).

    AllGather: rank ``r`` sends the blocks of ranks ``r + s`` (``s`` in the message) to
    ``r - 2^d``. ReduceScatter: rank ``r`` adds its partial sums of the blocks of ranks
    ``r + s`` into rank ``r + 2^d``. ``n <= 4096``; ``m`` any size up to ``2**62``.

    Examples
    --------
    >>> from ccb_helpers.simulator import run_schedule
    >>> r = run_schedule(pat_schedule("reduce_scatter", 12, 1200))
    >>> r.correct, r.rounds, int(r.max_message.sum())
    (True, 4, 1100)
    """
    primitive, n, aggregation = _check(primitive, n, aggregation)
    m = check_int("m", m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
    check_cap(f"the PAT schedule on n={n}: transfers", n * n, 2**21)
    if n == 1:
        return Schedule(primitive, 1, m, [], ("data",), 0, "pat")
    bounds = _block_bounds(m, n)
    offset, length = bounds[:-1], np.diff(bounds)
    ranks = np.arange(n, dtype=np.int64)
    rounds = []
    for dim, blocks in pat_messages(primitive, n, aggregation):
        rel = np.array(blocks, dtype=np.int64)
        src = np.repeat(ranks, rel.size)
        blk = (src + np.tile(rel, n)) % n
        if primitive == "all_gather":
            dst = (src - (1 << dim)) % n
            rounds.append(Round(src, dst, offset[blk], length[blk]))
        else:
            dst = (src + (1 << dim)) % n
            rounds.append(Round(src, dst, offset[blk], length[blk], True))
    return Schedule(primitive, n, m, rounds, ("data",), 0, "pat")


def _build_pat(primitive, n, m, ports, root, chunks):
    return pat_schedule(primitive, n, m).rounds


PAT = ScheduleGenerator(_build_pat, lambda primitive, n, ports, chunks: n * n)
