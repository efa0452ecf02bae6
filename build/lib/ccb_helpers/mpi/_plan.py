"""One rank's share of a schedule, compiled once into buffer views, so a round costs little Python.

:class:`~ccb_helpers.schedule.Schedule` lists every transfer of every node. A rank needs only
its own: per round, one message to each peer it sends to (the pieces for that peer, in schedule
order) and one from each peer it receives from. The semantics are the simulator's: every piece
reads the buffers as they were at the start of the round, then writes (copy or uint8 add).

At run time a round is: pack the multi-piece messages (and snapshot local reads), post the
receives and the sends, wait for all of them, unpack (add or copy the received bytes, write the
local copies). The plan makes that order safe without copying more than needed:

* a single-piece message is sent straight from its buffer region (nothing writes a buffer
  before the round's sends have completed);
* a single-piece *copy* is received straight into its destination unless that region overlaps
  something this rank reads in the same round; everything else lands in a scratch area first.

The transport is separate (:mod:`ccb_helpers.mpi._runner` uses MPI; :func:`run_loopback`
delivers the messages in-process), so the same plan is tested without MPI.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..schedule import Round, Schedule

__all__: list[str] = []


@dataclass
class RoundPlan:
    """What one rank does in one round (views into its buffers and its scratch pool)."""

    sends: list = field(default_factory=list)  # (peer, ndarray to send)
    recvs: list = field(default_factory=list)  # (peer, ndarray to receive into)
    packs: list = field(default_factory=list)  # (source view, scratch view): copied before posting
    unpacks: list = field(default_factory=list)  # (scratch view, destination view, reduce)

    def before(self) -> None:
        """Pack outgoing pieces and snapshot local reads (the start-of-round state)."""
        for source, scratch in self.packs:
            np.copyto(scratch, source)

    def after(self) -> None:
        """Apply what arrived (and the local copies): add or overwrite."""
        for scratch, destination, reduce in self.unpacks:
            if reduce:
                np.add(destination, scratch, out=destination)  # uint8: modulo 256, like the simulator
            else:
                np.copyto(destination, scratch)


@dataclass
class RankPlan:
    """A rank's whole schedule: prologue, rounds, epilogue (the first and last are local only)."""

    rank: int
    prologue: RoundPlan
    rounds: list
    epilogue: RoundPlan
    scratch_bytes: int

    @property
    def messages_sent(self) -> int:
        return sum(len(r.sends) for r in self.rounds)


def _regions_overlap(a_lo: int, a_hi: int, regions) -> bool:
    return any(lo < a_hi and a_lo < hi for lo, hi in regions)


def _round_plan(r: Round, rank: int, bufs: list[np.ndarray], pool: np.ndarray) -> tuple[RoundPlan, int]:
    """Compile round ``r`` for ``rank``; scratch views are taken from the start of ``pool``.

    Returns the plan and the scratch bytes it uses.
    """
    plan = RoundPlan()
    src, dst = r.src, r.dst
    mine_out = np.nonzero(src == rank)[0]
    mine_in = np.nonzero(dst == rank)[0]
    # Regions this rank reads this round, per buffer: a direct receive must not overwrite them.
    reads: dict[int, list[tuple[int, int]]] = {}
    for t in mine_out:
        reads.setdefault(int(r.buffer[t]), []).append((int(r.offset[t]), int(r.offset[t] + r.length[t])))
    used = 0

    def scratch(length: int) -> np.ndarray:
        nonlocal used
        view = pool[used : used + length]
        used += length
        return view

    def source_view(t) -> np.ndarray:
        off = int(r.offset[t])
        return bufs[int(r.buffer[t])][off : off + int(r.length[t])]

    def destination_view(t) -> np.ndarray:
        off = int(r.dst_offset[t])
        return bufs[int(r.dst_buffer[t])][off : off + int(r.length[t])]

    # Outgoing messages: one per destination peer, pieces in schedule order.
    remote_out = mine_out[dst[mine_out] != rank]
    for peer in dict.fromkeys(int(p) for p in np.sort(dst[remote_out], kind="stable")):
        pieces = remote_out[dst[remote_out] == peer]
        if pieces.size == 1:
            plan.sends.append((peer, source_view(pieces[0])))
            continue
        message = scratch(int(r.length[pieces].sum()))
        pos = 0
        for t in pieces:
            length = int(r.length[t])
            plan.packs.append((source_view(t), message[pos : pos + length]))
            pos += length
        plan.sends.append((peer, message))
    # Local pieces (src == dst == rank): snapshot now, write after the round.
    local = mine_out[dst[mine_out] == rank]
    for t in local:
        snapshot = scratch(int(r.length[t]))
        plan.packs.append((source_view(t), snapshot))
        plan.unpacks.append((snapshot, destination_view(t), bool(r.reduce[t])))
    # Incoming messages: one per source peer, pieces in the same (schedule) order as the sender's.
    remote_in = mine_in[src[mine_in] != rank]
    for peer in dict.fromkeys(int(p) for p in np.sort(src[remote_in], kind="stable")):
        pieces = remote_in[src[remote_in] == peer]
        if pieces.size == 1 and not r.reduce[pieces[0]]:
            t = pieces[0]
            lo = int(r.dst_offset[t])
            if not _regions_overlap(lo, lo + int(r.length[t]), reads.get(int(r.dst_buffer[t]), ())):
                plan.recvs.append((peer, destination_view(t)))
                continue
        message = scratch(int(r.length[pieces].sum()))
        pos = 0
        for t in pieces:
            length = int(r.length[t])
            plan.unpacks.append((message[pos : pos + length], destination_view(t), bool(r.reduce[t])))
            pos += length
        plan.recvs.append((peer, message))
    return plan, used


def compile_rank_plan(schedule: Schedule, rank: int, bufs: list[np.ndarray]) -> RankPlan:
    """Compile ``schedule`` for ``rank`` over its buffers ``bufs`` (one per ``schedule.buffers``).

    The scratch pool is sized for the most demanding round and shared by all rounds (rounds run
    one after another, and a round's scratch is dead once it has been unpacked).

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> s = ccb.generate("ring", "all_reduce", 3, 6)
    >>> bufs = [np.zeros(6, dtype=np.uint8)]
    >>> plan = compile_rank_plan(s, 0, bufs)
    >>> [(len(r.sends), len(r.recvs)) for r in plan.rounds]   # one peer each way per round
    [(1, 1), (1, 1), (1, 1), (1, 1)]
    >>> plan.scratch_bytes   # the reduce-scatter half receives 2-byte blocks into scratch to add them
    2
    """
    sizes = []
    probe = np.empty(0, dtype=np.uint8)
    for r in (schedule.prologue, *schedule.rounds, schedule.epilogue):
        sizes.append(_round_plan(r, rank, bufs, probe)[1] if len(r) else 0)
    pool = np.empty(max(sizes, default=0), dtype=np.uint8)
    compiled = [
        _round_plan(r, rank, bufs, pool)[0] if len(r) else RoundPlan()
        for r in (schedule.prologue, *schedule.rounds, schedule.epilogue)
    ]
    return RankPlan(rank, compiled[0], compiled[1:-1], compiled[-1], int(pool.size))


def scratch_bytes(schedule: Schedule, rank: int) -> int:
    """Scratch bytes :func:`compile_rank_plan` would allocate for ``rank``, computed without allocating.

    The plan is compiled over empty buffers (views of length 0), which sizes every round's
    scratch from the transfer lengths alone.

    >>> import ccb_helpers as ccb
    >>> s = ccb.generate("ring", "all_reduce", 3, 6)
    >>> scratch_bytes(s, 0) == compile_rank_plan(s, 0, [np.zeros(6, dtype=np.uint8)]).scratch_bytes == 2
    True
    """
    empty = [np.empty(0, dtype=np.uint8)] * len(schedule.buffers)
    probe = np.empty(0, dtype=np.uint8)
    return max(
        (
            _round_plan(r, rank, empty, probe)[1]
            for r in (schedule.prologue, *schedule.rounds, schedule.epilogue)
            if len(r)
        ),
        default=0,
    )


def run_loopback(plans: list[RankPlan]) -> None:
    """Run every rank's plan in this process, delivering messages by copying (no MPI).

    Each rank's round is split as the MPI runner splits it (``before``, transfer, ``after``), so
    the packing, the direct receives and the unpacking are exercised exactly as under MPI. A
    message whose size differs from what the receiver expects raises ``AssertionError``.
    """
    for plan in plans:
        plan.prologue.before()
        plan.prologue.after()
    for index in range(len(plans[0].rounds) if plans else 0):
        rounds = [plan.rounds[index] for plan in plans]
        for rp in rounds:
            rp.before()
        outgoing = {}
        for rank, rp in enumerate(rounds):
            for peer, data in rp.sends:
                outgoing[(rank, peer)] = data.copy()  # in flight: what was sent at the start of the round
        for rank, rp in enumerate(rounds):
            for peer, target in rp.recvs:
                data = outgoing.pop((peer, rank))
                assert data.size == target.size, (
                    f"round {index + 1}: {peer}->{rank} sends {data.size} B, receiver expects {target.size} B"
                )
                np.copyto(target, data)
        assert not outgoing, f"round {index + 1}: messages nobody receives: {sorted(outgoing)}"
        for rp in rounds:
            rp.after()
    for plan in plans:
        plan.epilogue.before()
        plan.epilogue.after()
