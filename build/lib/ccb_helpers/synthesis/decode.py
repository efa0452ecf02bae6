"""From the solver's values to a runnable :class:`~ccb_helpers.schedule.Schedule` (and its reverse)."""

from __future__ import annotations

import numpy as np

from ..schedule import Round, Schedule, block_bounds, buffers_for
from .encoding import _Encoding


def _decode(enc: _Encoding, values) -> tuple[list[list[tuple[int, int, int]]], list[int]]:
    """Per step, the sends ``(chunk, u, v)``; dead relays (received, never needed nor forwarded) pruned."""
    net, chunk_list = enc.net, enc.chunks
    chosen = sorted(
        ((s, c, net.arcs[a][0], net.arcs[a][1]) for i, (c, a, s) in enumerate(enc.sends) if values[i]), reverse=True
    )
    # A relay is dead when its receiver neither needs the chunk nor forwards it in a later step
    # by a live send. Whether a send lives depends only on later steps, so one pass from the last
    # step back finds what the fixed point of repeated pruning found (that was quadratic in the
    # sends, after the solver, outside the time limit).
    last_forward = {}  # (chunk, node) -> latest step of a live send of chunk from node
    active = set()
    for s, c, u, v in chosen:
        if v in chunk_list[c].needed_by or last_forward.get((c, v), -1) > s:
            active.add((c, u, v, s))
            last_forward[(c, u)] = max(last_forward.get((c, u), -1), s)
    per_step = [[] for _ in range(enc.steps)]
    for c, u, v, s in sorted(active):
        per_step[s].append((c, u, v))
    return per_step, _rounds_needed(net, per_step)


def _rounds_needed(net, per_step) -> list[int]:
    """Rounds each step needs: the most ``ceil(chunks / links)`` over its link groups, at least 1.

    The solver's ``r_s`` only has to be large enough; a step of more rounds than its busiest link
    needs would be charged time it does not use (``synthesized_time`` and the simulator charge
    ``r_s`` rounds a step), so the decoded schedule keeps the least.
    """
    index = {arc: k for k, arc in enumerate(net.arcs)}
    out = []
    for sends in per_step:
        count = {}
        for _, u, v in sends:
            k = index[(u, v)]
            count[k] = count.get(k, 0) + 1
        need = 1
        for arcs, b in net.groups:
            total = sum(count.get(a, 0) for a in arcs)
            need = max(need, -(-total // b))
        out.append(need)
    return out


def _layout(primitive: str, n: int, m: int, chunks: int):
    """Byte range (offset, length) of every chunk label in the data / send buffers, and chunk_bytes."""
    parts = chunks if primitive == "broadcast" else n * chunks
    bounds = block_bounds(m, n, parts)
    lengths = np.diff(bounds)
    return bounds, lengths, int(lengths.max()) if lengths.size else 0


def _to_schedule(
    primitive: str, n: int, m: int, chunks: int, root: int, per_step, rounds_used, chunk_list, algorithm: str
) -> Schedule:
    bounds, lengths, chunk_bytes = _layout(primitive, n, m, chunks)
    buffers = buffers_for(primitive)
    prologue = Round.empty()
    work_size = None
    if primitive != "all_to_all":
        rounds = []
        for sends in per_step:
            if not sends:
                rounds.append(Round.empty())
                continue
            c, u, v = (np.array(col, dtype=np.int64) for col in zip(*sends))
            if primitive == "broadcast":
                piece = np.array([chunk_list[k].label[2] for k in c])
            elif primitive in ("all_gather", "gather"):
                piece = np.array([chunk_list[k].label[0] * chunks + chunk_list[k].label[2] for k in c])
            else:  # scatter: the destination's block
                piece = np.array([chunk_list[k].label[1] * chunks + chunk_list[k].label[2] for k in c])
            rounds.append(Round(u, v, bounds[piece], lengths[piece]))
    else:
        # AllToAll: chunk (s, t, j) leaves s's send buffer at block t and lands in t's recv buffer at
        # block s; relays park it in their work buffer, in slots reused once the chunk moved on.
        send, recv, work = 0, 1, 2
        arrive, depart = {}, {}
        for step, sends in enumerate(per_step):
            for c, u, v in sends:
                arrive[(c, v)] = step
                depart[(c, u)] = step
        slot_of, free_at = {}, {}
        for (c, v), a in sorted(arrive.items(), key=lambda kv: kv[1]):
            if v == chunk_list[c].label[1]:
                continue
            d = depart[(c, v)]
            slots = free_at.setdefault(v, [])
            for k, until in enumerate(slots):
                if until <= a:
                    slots[k] = d
                    slot_of[(c, v)] = k
                    break
            else:
                slots.append(d)
                slot_of[(c, v)] = len(slots) - 1
        most = max((len(s) for s in free_at.values()), default=0)
        if most * chunk_bytes > m:
            work_size = most * chunk_bytes
        rounds = []
        for sends in per_step:
            cols = []
            for c, u, v in sends:
                s0, t, j = chunk_list[c].label
                if u == s0:
                    src_buf, src_off = send, bounds[t * chunks + j]
                else:
                    src_buf, src_off = work, slot_of[(c, u)] * chunk_bytes
                if v == t:
                    dst_buf, dst_off = recv, bounds[s0 * chunks + j]
                else:
                    dst_buf, dst_off = work, slot_of[(c, v)] * chunk_bytes
                cols.append((u, v, src_off, lengths[t * chunks + j], src_buf, dst_off, dst_buf))
            if not cols:
                rounds.append(Round.empty())
                continue
            u, v, off, ln, sb, do, db = (np.array(col, dtype=np.int64) for col in zip(*cols))
            rounds.append(Round(u, v, off, ln, False, sb, do, db))
        buffers = buffers + ("work",)
        nodes = np.arange(n)
        blocks = bounds[::chunks]
        prologue = Round(
            nodes, nodes, blocks[nodes], blocks[nodes + 1] - blocks[nodes], False, send, blocks[nodes], recv
        )
    return Schedule(
        primitive,
        n,
        m,
        rounds,
        buffers,
        root,
        algorithm,
        prologue,
        Round.empty(),
        step_rounds=tuple(rounds_used),
        chunk_bytes=chunk_bytes,
        work_size=work_size,
    )


def _reverse_schedule(schedule: Schedule, primitive: str) -> Schedule:
    return Schedule(
        primitive,
        schedule.n,
        schedule.m,
        [r.reversed(True) for r in reversed(schedule.rounds)],
        schedule.buffers,
        schedule.root,
        schedule.algorithm,
        step_rounds=tuple(reversed(schedule.step_rounds)),
        chunk_bytes=schedule.chunk_bytes,
        work_size=schedule.work_size,
    )
