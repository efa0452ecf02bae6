"""Run a schedule on real buffers, enforce the port model and the links, and check the result.

Each node gets real numpy buffers of M bytes (uint8; reductions add modulo 256, which is exact
and order-independent, so the result can be compared bit for bit with a direct numpy
computation). Every round is checked before it runs:

* at most ``ports`` distinct destinations and ``ports`` distinct sources per node (pieces
  between the same two nodes in one round travel as one message, on one port);
* with a topology, every message uses a link of it (any pair through a switch);
* every region lies inside its buffer;
* for a schedule with ``step_rounds`` (synthesized, :mod:`ccb_helpers.synthesis`): in round ``i``
  a link of multiplicity ``b`` carries at most ``b * step_rounds[i] * chunk_bytes`` bytes in each
  direction (through a switch: each endpoint's uplink and downlink).

A round costs ``alpha`` plus its largest message over ``beta``. With parallel links a message
spread over ``b`` links takes ``bytes / (b beta)``: ``SimulationResult.link_load`` records, per
round, the most bytes any single link carries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_bandwidth, check_int, check_real
from .schedule import Schedule, block_bounds
from .topology import Topology

__all__ = ["ScheduleError", "SimulationResult", "run_schedule", "simulate"]

# Pieces at least this long are moved slice by slice (no snapshot copy unless the round writes
# into what it reads); shorter ones are batched by fancy indexing (which always copies).
_SLICE_THRESHOLD = 64 * 1024


class ScheduleError(ValueError):
    """A schedule breaks the port model, a link, or a buffer's bounds."""


@dataclass
class SimulationResult:
    """What running a schedule produced.

    Attributes
    ----------
    schedule : Schedule
    rounds : int
        Number of communication rounds.
    bytes_sent, bytes_received : ndarray, shape (n,)
        Bytes each node sent / received over the network (local copies excluded).
    sent_per_round, received_per_round : ndarray, shape (rounds, n)
    max_message : ndarray, shape (rounds,)
        Largest message (bytes between one ordered pair of nodes) in each round.
    correct : bool
        Whether the final buffers are exactly what the primitive requires.
    errors : list of str
        Where the result differs from the required one (empty when correct).
    link_load : ndarray, shape (rounds,), optional
        With a topology (direct or single switch): the most bytes one link carries in each round,
        bytes of a pair (or of a switch port) divided by its multiplicity; ``None`` otherwise.
    """

    schedule: Schedule
    rounds: int
    bytes_sent: np.ndarray
    bytes_received: np.ndarray
    sent_per_round: np.ndarray
    received_per_round: np.ndarray
    max_message: np.ndarray
    correct: bool
    errors: list
    link_load: np.ndarray | None = None

    @property
    def bandwidth_bytes(self) -> float:
        """Sum over rounds of the largest message: the bytes that cost time."""
        return float(self.max_message.sum())

    def time(self, alpha, beta) -> float:
        """α-β time in seconds: ``rounds * alpha + sum(max_message) / beta`` (β in bytes/s)."""
        alpha = check_real("alpha", alpha)
        beta = check_bandwidth("beta", beta)
        return self.rounds * alpha + self.bandwidth_bytes / beta

    def __repr__(self) -> str:
        return (
            f"SimulationResult({self.schedule.algorithm} {self.schedule.primitive}, n={self.schedule.n}, "
            f"m={self.schedule.m}, rounds={self.rounds}, max bytes sent={int(self.bytes_sent.max(initial=0))}, "
            f"correct={self.correct})"
        )


# --------------------------------------------------------------------------- checking


def _check_round(r, index: int, schedule: Schedule, ports: int, topology: Topology | None, sizes, links=None):
    """Raise ScheduleError if the round breaks a rule; return the number of distinct messages."""
    n = schedule.n
    label = "prologue" if index == -1 else ("epilogue" if index == -2 else f"round {index + 1}")
    if len(r) == 0:
        return 0
    for name, col in (("src", r.src), ("dst", r.dst)):
        bad = np.nonzero((col < 0) | (col >= n))[0]
        if bad.size:
            raise ScheduleError(f"{label}: transfer {bad[0]} has {name}={col[bad[0]]}, outside 0..{n - 1}")
    if np.any(r.length < 0):
        bad = np.nonzero(r.length < 0)[0][0]
        raise ScheduleError(f"{label}: transfer {bad} has negative length {r.length[bad]}")
    for name, buf, off in (("source", r.buffer, r.offset), ("destination", r.dst_buffer, r.dst_offset)):
        if np.any((buf < 0) | (buf >= len(sizes))):
            raise ScheduleError(f"{label}: unknown {name} buffer index")
        limit = np.asarray(sizes)[buf]
        bad = np.nonzero((off < 0) | (off + r.length > limit))[0]
        if bad.size:
            t = bad[0]
            raise ScheduleError(
                f"{label}: transfer {t} ({r.src[t]}->{r.dst[t]}) {name} region [{off[t]}, {off[t] + r.length[t]}) "
                f"is outside buffer {schedule.buffers[buf[t]]!r} of {limit[t]} bytes"
            )
    remote = r.src != r.dst
    if index < 0:
        if np.any(remote):
            t = np.nonzero(remote)[0][0]
            raise ScheduleError(f"{label}: transfer {t} ({r.src[t]}->{r.dst[t]}) is not local; only src == dst copies may run here")
        return 0
    if not np.any(remote):
        return 0
    keys = np.unique(r.src[remote] * n + r.dst[remote])
    pairs = np.stack([keys // n, keys % n], axis=1)
    for side, col in (("sends to", 0), ("receives from", 1)):
        counts = np.bincount(pairs[:, col], minlength=n)
        over = np.nonzero(counts > ports)[0]
        if over.size:
            node = over[0]
            peers = pairs[pairs[:, col] == node][:, 1 - col].tolist()
            first = np.nonzero(remote & ((r.src if col == 0 else r.dst) == node))[0][0]
            raise ScheduleError(
                f"{label}: node {node} {side} {len(peers)} nodes {peers} but ports={ports} "
                f"(first offending transfer {first}: {r.src[first]}->{r.dst[first]})"
            )
    if links is not None:
        missing = ~np.isin(keys, links)
        if np.any(missing):
            s, d = divmod(int(keys[np.nonzero(missing)[0][0]]), n)
            t = np.nonzero(remote & (r.src == s) & (r.dst == d))[0][0]
            raise ScheduleError(f"{label}: transfer {t} ({s}->{d}) uses no link of {topology.name}")
    return keys.size


def _capacity_groups(topology: Topology | None, n: int):
    """How the links limit a round: ``("pairs", key -> multiplicity)`` or ``("switch", uplinks)``.

    ``None`` when there is no topology; raises for switched networks other than a single switch.
    """
    if topology is None:
        return None
    from .user_topology import _is_single_switch, _link_matrix, endpoint_uplinks

    if not topology.switched:
        matrix = _link_matrix(topology)
        keys = np.flatnonzero(matrix)
        return ("pairs", keys, matrix.ravel()[keys])
    if _is_single_switch(topology):
        return ("switch", endpoint_uplinks(topology))
    return ("unsupported",)


def _round_load(groups, pair_keys: np.ndarray, pair_bytes: np.ndarray, n: int):
    """(bytes per capacity group, multiplicity per group, label per group) for one round."""
    if groups[0] == "pairs":
        _, keys, mult = groups
        where = np.searchsorted(keys, pair_keys)
        return pair_bytes, mult[where], [f"link {k // n}->{k % n}" for k in pair_keys]
    ups = groups[1]
    out = np.bincount(pair_keys // n, weights=pair_bytes, minlength=n)
    inn = np.bincount(pair_keys % n, weights=pair_bytes, minlength=n)
    labels = [f"uplink of {v}" for v in range(n)] + [f"downlink of {v}" for v in range(n)]
    return np.concatenate([out, inn]), np.concatenate([ups, ups]), labels


def _link_keys(topology: Topology | None):
    """Sorted ``u * n + v`` keys of both directions of every link (None: any pair may talk)."""
    if topology is None or topology.switched:
        return None
    n = topology.n
    edges = np.array(list(topology.graph.edges), dtype=np.int64).reshape(-1, 2)
    return np.sort(np.concatenate([edges[:, 0] * n + edges[:, 1], edges[:, 1] * n + edges[:, 0]]))


# --------------------------------------------------------------------------- execution


def _reads_overlap_writes(r, pieces: np.ndarray) -> np.ndarray:
    """For each piece in ``pieces``, whether some write of round ``r`` touches the region it reads."""
    writes: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for t in np.nonzero(r.length > 0)[0]:
        key = (int(r.dst[t]), int(r.dst_buffer[t]))
        writes.setdefault(key, []).append((int(r.dst_offset[t]), int(r.dst_offset[t] + r.length[t])))
    out = np.zeros(pieces.size, dtype=bool)
    for i, t in enumerate(pieces):
        lo, hi = int(r.offset[t]), int(r.offset[t] + r.length[t])
        out[i] = any(a < hi and lo < b for a, b in writes.get((int(r.src[t]), int(r.buffer[t])), ()))
    return out


def _aligned(buf: np.ndarray, offsets: np.ndarray, length: int) -> bool:
    return buf.shape[1] % length == 0 and not np.any(offsets % length)


def _read(r, sel: np.ndarray, buf: np.ndarray, length: int):
    """The bytes the pieces ``sel`` (all of one length) read: a (pieces, length) array or a list."""
    rows, offsets = r.src[sel], r.offset[sel]
    if length < _SLICE_THRESHOLD and _aligned(buf, offsets, length):
        # Block view: whole rows of `length` bytes, gathered by numpy in C (copies).
        return buf.reshape(buf.shape[0], -1, length)[rows, offsets // length]
    if length < 2048:
        return buf[rows[:, None], offsets[:, None] + np.arange(length)]  # fancy indexing copies
    copy = _reads_overlap_writes(r, sel)
    return [buf[s, o : o + length].copy() if c else buf[s, o : o + length] for s, o, c in zip(rows, offsets, copy)]


def _write(r, sel: np.ndarray, buf: np.ndarray, length: int, data) -> None:
    rows, offsets, reduce = r.dst[sel], r.dst_offset[sel], r.reduce[sel]
    if isinstance(data, list):
        for d, o, red, piece in zip(rows, offsets, reduce, data):
            if red:
                buf[d, o : o + length] += piece
            else:
                buf[d, o : o + length] = piece
        return
    if _aligned(buf, offsets, length):
        view = buf.reshape(buf.shape[0], -1, length)
        index = (rows, offsets // length)
    else:
        view = buf
        index = (rows[:, None], offsets[:, None] + np.arange(length))
    if not np.any(reduce):
        view[index] = data
        return
    if not np.all(reduce):
        copy = ~reduce
        view[tuple(i[copy] for i in index)] = data[copy]
        index, data, rows = tuple(i[reduce] for i in index), data[reduce], rows[reduce]
    if np.bincount(rows).max() == 1:
        view[index] += data
        return
    # Fancy-index += drops repeated targets: add one occurrence of each target node at a time.
    order = np.argsort(rows, kind="stable")
    index, data, rows = tuple(i[order] for i in index), data[order], rows[order]
    occurrence = np.arange(rows.size) - np.searchsorted(rows, rows)
    for k in range(int(occurrence.max()) + 1):
        pick = occurrence == k
        view[tuple(i[pick] for i in index)] += data[pick]


def _apply(r, bufs: list[np.ndarray]) -> None:
    """Run one round: every source region is read as it was at the start of the round, then written."""
    active = np.nonzero(r.length > 0)[0]
    if active.size == 0:
        return
    length, buffer, dst_buffer = r.length[active], r.buffer[active], r.dst_buffer[active]
    if length.min() == length.max() and buffer.min() == buffer.max() and dst_buffer.min() == dst_buffer.max():
        groups = [(active, int(length[0]), int(buffer[0]), int(dst_buffer[0]))]  # the common case
    else:
        key = np.stack([length, buffer, dst_buffer], axis=1)
        uniq, inverse = np.unique(key, axis=0, return_inverse=True)
        groups = [(active[inverse.ravel() == g], int(l), int(b), int(db)) for g, (l, b, db) in enumerate(uniq)]
    reads = [_read(r, sel, bufs[b], l) for sel, l, b, _ in groups]
    for (sel, l, _, db), data in zip(groups, reads):
        _write(r, sel, bufs[db], l, data)


def _initial_state(schedule: Schedule, rng: np.random.Generator) -> list[np.ndarray]:
    """Random bytes in every buffer of every node (regions a primitive ignores hold garbage too)."""
    n = schedule.n
    bufs = []
    for name in schedule.buffers:
        m = schedule.work_size if name == "work" and schedule.work_size is not None else schedule.m
        # Uniform doubles' bit patterns, mixed by an odd multiplier so every byte is random; ~5x
        # faster than Generator.bytes for the 100 MiB+ buffers of the benchmarks.
        words = rng.random(-(-n * m // 8)).view(np.uint64)
        words *= np.uint64(0x9E3779B97F4A7C15)
        words ^= words >> np.uint64(29)
        bufs.append(words.view(np.uint8)[: n * m].reshape(n, m))
    return bufs


def _expected(schedule: Schedule, bufs: list[np.ndarray]):
    """What the primitive requires, computed directly with numpy from the inputs.

    Returns a list of ``(node, buffer, region, required bytes, description)``; the arrays are
    computed (or copied) before the schedule runs, so a schedule that overwrites its inputs is
    still checked against the original inputs.
    """
    p, n, root, m = schedule.primitive, schedule.n, schedule.root, schedule.m
    bounds = block_bounds(m, n)
    blocks = [slice(int(bounds[i]), int(bounds[i + 1])) for i in range(n)]
    everything = slice(0, m)
    names = schedule.buffers
    checks = []
    if p == "all_to_all":
        send = bufs[names.index("send")].copy()
        for j in range(n):
            for i in range(n):
                checks.append((j, "recv", blocks[i], send[i, blocks[j]], f"block from node {i}"))
        return checks
    data = bufs[names.index("data")]
    if p in ("reduce", "reduce_scatter", "all_reduce"):
        total = data[0].copy()
        for i in range(1, n):
            total += data[i]  # uint8: addition modulo 256, exact in any order
        targets = {"reduce": [(root, everything)], "all_reduce": [(i, everything) for i in range(n)],
                   "reduce_scatter": [(i, blocks[i]) for i in range(n)]}[p]
        return [(node, "data", region, total[region], "sum of all inputs") for node, region in targets]
    if p == "broadcast":
        source = data[root].copy()
        return [(i, "data", everything, source, "root's data") for i in range(n)]
    if p == "scatter":
        return [(i, "data", blocks[i], data[root, blocks[i]].copy(), f"root's block {i}") for i in range(n)]
    gathered = np.concatenate([data[i, blocks[i]] for i in range(n)]) if n else data[0, :0]
    if p == "gather":
        return [(root, "data", everything, gathered, "every node's block")]
    return [(j, "data", everything, gathered, "every node's block") for j in range(n)]  # all_gather


def _compare(schedule: Schedule, checks, bufs: list[np.ndarray]) -> list[str]:
    errors = []
    for node, buffer, region, want, what in checks:
        got = bufs[schedule.buffers.index(buffer)][node, region]
        if not np.array_equal(got, want):
            bad = int(np.nonzero(got != want)[0][0]) + (region.start or 0)
            errors.append(f"node {node}: {buffer}[{bad}] wrong ({what})")
    return errors


def run_schedule(schedule: Schedule, ports=1, topology: Topology | None = None, seed: int = 0) -> SimulationResult:
    """Execute ``schedule`` on random inputs and measure it.

    Parameters
    ----------
    schedule : Schedule
        The schedule (hand-written or generated).
    ports : int, default 1
        ``k``: distinct destinations (and sources) per node per round.
    topology : Topology, optional
        When given, every message must use one of its links, and its ``n`` must match. Parallel
        links (edge attribute ``links``) are capacity: see ``Schedule.step_rounds``.
    seed : int, default 0
        Seed of the random input bytes.

    Raises
    ------
    ScheduleError
        Naming the round and the transfer that breaks the port model, a link or a buffer.

    Examples
    --------
    >>> from ccb_helpers.schedule import Schedule, Transfer as T
    >>> s = Schedule.from_transfers("all_reduce", 2, 8, [
    ...     [T(0, 1, 4, 4, "reduce"), T(1, 0, 0, 4, "reduce")],
    ...     [T(0, 1, 0, 4), T(1, 0, 4, 4)]])
    >>> r = run_schedule(s)
    >>> r.rounds, r.bytes_sent.tolist(), r.correct
    (2, [8, 8], True)
    >>> bad = Schedule.from_transfers("all_reduce", 3, 6, [[T(0, 1, 0, 2), T(0, 2, 2, 2)]])
    >>> run_schedule(bad)
    Traceback (most recent call last):
    ...
    ccb_helpers.simulate.ScheduleError: round 1: node 0 sends to 2 nodes [1, 2] but ports=1 (first offending transfer 0: 0->1)
    """
    if not isinstance(schedule, Schedule):
        raise TypeError(f"schedule must be a Schedule, got {type(schedule).__name__}")
    ports = check_int("ports", ports, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    if topology is not None:
        if not isinstance(topology, Topology):
            raise TypeError(f"topology must be a Topology, got {type(topology).__name__}")
        if topology.n != schedule.n:
            raise ValueError(f"topology has n={topology.n} nodes but the schedule has n={schedule.n}")
    capacity = schedule.step_rounds is not None
    if capacity:
        if len(schedule.step_rounds) != len(schedule.rounds) or schedule.chunk_bytes is None:
            raise ScheduleError(
                f"step_rounds has {len(schedule.step_rounds)} entries for {len(schedule.rounds)} rounds "
                f"(chunk_bytes={schedule.chunk_bytes}); give one per round and chunk_bytes"
            )
    groups = _capacity_groups(topology, schedule.n)
    if groups is not None and groups[0] == "unsupported":
        if capacity:
            raise ScheduleError(f"link capacities are checked on direct networks and single switches, not on {topology.name}")
        groups = None
    if capacity and groups is None:
        groups = ("pairs", np.arange(schedule.n * schedule.n), np.ones(schedule.n * schedule.n, dtype=np.int64))
    load = np.zeros(len(schedule.rounds)) if groups is not None else None
    rng = np.random.Generator(np.random.SFC64(seed))
    links = _link_keys(topology)
    bufs = _initial_state(schedule, rng)
    checks = _expected(schedule, bufs)
    sizes = [b.shape[1] for b in bufs]
    n, count = schedule.n, len(schedule.rounds)
    sent = np.zeros((count, n), dtype=np.int64)
    received = np.zeros((count, n), dtype=np.int64)
    max_message = np.zeros(count, dtype=np.int64)
    _check_round(schedule.prologue, -1, schedule, ports, topology, sizes)
    _apply(schedule.prologue, bufs)
    for i, r in enumerate(schedule.rounds):
        messages = _check_round(r, i, schedule, ports, topology, sizes, links)
        _apply(r, bufs)
        remote = r.src != r.dst
        if np.any(remote):
            sent[i] = np.bincount(r.src[remote], weights=r.length[remote], minlength=n)
            received[i] = np.bincount(r.dst[remote], weights=r.length[remote], minlength=n)
            pair = r.src[remote] * n + r.dst[remote]
            if messages == pair.size and groups is None:  # one piece per message
                max_message[i] = int(r.length[remote].max())
            else:
                keys, inverse = np.unique(pair, return_inverse=True)
                pair_bytes = np.bincount(inverse, weights=r.length[remote])
                max_message[i] = int(pair_bytes.max())
                if groups is not None:
                    volume, mult, labels = _round_load(groups, keys, pair_bytes, n)
                    used = volume > 0
                    load[i] = float((volume[used] / mult[used]).max())
                    if capacity:
                        limit = mult * int(schedule.step_rounds[i]) * int(schedule.chunk_bytes)
                        over = np.nonzero(volume > limit)[0]
                        if over.size:
                            g = over[0]
                            raise ScheduleError(
                                f"round {i + 1}: {labels[g]} carries {int(volume[g])} bytes but its {int(mult[g])} link(s) x "
                                f"{schedule.step_rounds[i]} round(s) x {schedule.chunk_bytes} bytes allow {int(limit[g])}"
                            )
    _check_round(schedule.epilogue, -2, schedule, ports, topology, sizes)
    _apply(schedule.epilogue, bufs)
    errors = _compare(schedule, checks, bufs)
    return SimulationResult(
        schedule=schedule,
        rounds=count,
        bytes_sent=sent.sum(axis=0),
        bytes_received=received.sum(axis=0),
        sent_per_round=sent,
        received_per_round=received,
        max_message=max_message,
        correct=not errors,
        errors=errors[:10],
        link_load=load,
    )


def simulate(algorithm, primitive, n, m, ports=1, topology=None, seed=0, **options) -> SimulationResult:
    """Generate ``algorithm``'s schedule for ``primitive`` and run it (see :func:`run_schedule`).

    Parameters
    ----------
    algorithm : str
        A key of :data:`ccb_helpers.ALGORITHMS`.
    primitive : str
        A primitive the algorithm implements.
    n : int
        Nodes.
    m : int
        Message size in bytes (the book's buffer conventions).
    ports : int, default 1
        Ports enforced (and used by k-nomial trees).
    topology : Topology, optional
        Enforce its links (ring algorithms need a ring or richer; trees a complete graph or switch).
    seed : int, default 0
        Seed of the random input bytes.
    **options
        Generator options, e.g. ``chunks=4`` for ``double_binary_tree``, ``root=2`` for rooted primitives.

    Examples
    --------
    >>> r = simulate("ring", "all_reduce", 4, 4096)
    >>> r.rounds, r.bytes_sent.tolist(), r.correct
    (6, [6144, 6144, 6144, 6144], True)
    """
    from .generators import generate

    m = check_int("m", m, minimum=0)
    schedule = generate(algorithm, primitive, n, m, ports=ports, **options)
    return run_schedule(schedule, ports=ports, topology=topology, seed=seed)
