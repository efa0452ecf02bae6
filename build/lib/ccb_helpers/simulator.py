"""Run a schedule on real buffers, enforce the port model and the links, and check the result.

Each node gets real numpy buffers of M bytes (uint8; reductions add modulo 256, which is exact
and order-independent, so the result can be compared bit for bit with a direct numpy
computation). Every round is checked before it runs:

* at most ``ports`` distinct destinations and ``ports`` distinct sources per node (pieces
  between the same two nodes in one round travel as one message, on one port); through switches
  also at most as many as the node has links;
* with a topology, every message uses a link of it, or a path through its switches
  (:mod:`ccb_helpers.routing`);
* every region lies inside its buffer;
* for a schedule with ``step_rounds`` (synthesized, :mod:`ccb_helpers.synthesis`): in round ``i``
  a link of multiplicity ``b`` carries at most ``b * step_rounds[i] * chunk_bytes`` bytes in each
  direction (through a switch: each endpoint's uplink and downlink), and a node at most
  ``min(ports, its links)`` times that (a port drives one link, parallel links included).

**What a round costs** (the book's synchronous round model): ``alpha`` plus
``SimulationResult.charged_bytes`` over ``beta``. A generated schedule's message travels on one
link (one port, the k-port model), so a round is charged its largest message, or the busiest
link's bytes when more: through a switch several messages may share a link (a fat tree's leaf
links to its spines, spread evenly over them). A synthesized schedule (all-port, every link at
once) is charged in its own model, which is the same round model on its links: a step of ``r``
rounds lasts ``r * chunk_bytes`` over ``beta``, and a message between nodes joined by ``b``
parallel links is spread over them (``bytes / (b beta)``), so the run's time equals
:func:`ccb_helpers.synthesized_time`. ``SimulationResult.link_load`` records, per round, the most
bytes any single link carries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_array, check_bandwidth, check_cap, check_int, check_seconds
from .generators import BYTES_PER_GENERATED_TRANSFER
from .routing import check_routing_work, endpoint_links, link_model, routing_bytes, routing_kind
from .schedule import Schedule, _block_bounds, _check_schedule
from .topology import Topology, check_topology

__all__ = ["ScheduleError", "SimulationResult", "run_schedule", "simulate"]

#: Default memory budget of one simulation, bytes (raise it with ``max_bytes=``).
DEFAULT_MAX_BYTES = 2 * 2**30
#: Bytes per transfer of a schedule held in memory (8 int64 / bool columns) and while generating it.
BYTES_PER_TRANSFER = 64
#: Most transfers / rounds :func:`run_schedule` executes (about 1 microsecond and 0.3 ms each here).
MAX_RUN_TRANSFERS = 2**21
MAX_RUN_ROUNDS = 2**13

# Up to this many nodes, per-node blocks are copied / masked slice by slice (no per-byte index arrays).
_LOOP_NODES = 4096
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
        With a topology (or for a synthesized schedule): the most bytes one link carries in each
        round, the bytes of a link group divided by its links (:mod:`ccb_helpers.routing`: a pair's
        parallel links, a switch port, a fat-tree leaf's links to the spines, or any link of a
        switched graph); ``None`` otherwise.
    charged_bytes : ndarray, shape (rounds,), optional
        The bytes each round's time is charged for (:meth:`time` adds them over ``beta``): the
        largest message, or the busiest link's load when that is more; for a synthesized
        schedule ``step_rounds[i] * chunk_bytes`` (its step lasts that many rounds of one chunk per
        link). ``None`` (a result built by hand): :attr:`bandwidth_bytes` falls back to the same rule.
    reduced_per_round : ndarray, shape (rounds,), optional
        The most bytes one node combined (``reduce`` transfers into it) in each round: the
        computation of the α-β-γ model, a node adding what it received before the round ends.
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
    reduced_per_round: np.ndarray | None = None
    charged_bytes: np.ndarray | None = None

    @property
    def reduce_bytes(self) -> float:
        """Sum over rounds of the most bytes one node combined: the γ term's bytes (eq:cc-cost-abg)."""
        return 0.0 if self.reduced_per_round is None else float(self.reduced_per_round.sum())

    @property
    def bandwidth_bytes(self) -> float:
        """Sum over rounds of :attr:`charged_bytes`: the bytes that cost time.

        For a generated schedule a round is charged its largest message, or its busiest link's
        bytes when more: through a switch several messages may share one link (a one-link host's
        uplink on a single switch; a leaf's links to the spines of an oversubscribed fat tree,
        whose neglect put ``simulate`` below the bisection bound, #37). For a synthesized schedule
        a step is charged its ``step_rounds * chunk_bytes``: a message between two nodes joined by
        ``b`` links is spread over them (``bytes / (b beta)``), so on the DGX-1's double NVLinks the
        largest message (twice a link's load) no longer doubles the time (#37), and the run's
        :meth:`time` equals :func:`ccb_helpers.synthesized_time`.
        """
        if self.charged_bytes is not None:  # shapes: checked when the result is built
            return float(self.charged_bytes.sum())
        if self.link_load is None:
            return float(self.max_message.sum())
        return float(np.maximum(self.max_message, self.link_load).sum())

    def __post_init__(self):
        if not isinstance(self.schedule, Schedule):
            raise TypeError(f"schedule must be a Schedule, got {type(self.schedule).__name__}")
        self.rounds = check_int("rounds", self.rounds, minimum=0, scalar=True)
        # Byte counts: finite, >= 0, one per node, per (round, node) or per round.
        n, rounds = self.schedule.n, self.rounds
        shapes = {
            "bytes_sent": (n,),
            "bytes_received": (n,),
            "sent_per_round": (rounds, n),
            "received_per_round": (rounds, n),
            "max_message": (rounds,),
            "link_load": (rounds,),
            "reduced_per_round": (rounds,),
            "charged_bytes": (rounds,),
        }
        for name, shape in shapes.items():
            value = getattr(self, name)
            if value is None and name in ("link_load", "reduced_per_round", "charged_bytes"):
                continue
            check_array(f"SimulationResult.{name}", value, ndim=len(shape))
            if value.shape != shape:
                raise ValueError(f"SimulationResult.{name} must have shape {shape} (rounds, n), got {value.shape}")
        if not isinstance(self.correct, (bool, np.bool_)):
            raise TypeError(f"correct must be True or False, got {type(self.correct).__name__}")
        if not isinstance(self.errors, list):
            raise TypeError(f"errors must be a list of str, got {type(self.errors).__name__}")

    def time(self, alpha, beta, gamma=0.0) -> float:
        """α-β(-γ) time in seconds: ``rounds * alpha + bandwidth_bytes / beta + reduce_bytes * gamma``.

        β in bytes/s, γ in seconds per byte combined (default 0: the α-β time).
        """
        alpha = check_seconds("alpha", alpha, scalar=True)
        beta = check_bandwidth("beta", beta, scalar=True)
        gamma = check_seconds("gamma", gamma, scalar=True)
        time = self.rounds * alpha + self.bandwidth_bytes / beta
        return time + self.reduce_bytes * gamma if gamma else time

    def __repr__(self) -> str:
        return (
            f"SimulationResult({self.schedule.algorithm} {self.schedule.primitive}, n={self.schedule.n}, "
            f"m={self.schedule.m}, rounds={self.rounds}, max bytes sent={int(self.bytes_sent.max(initial=0))}, "
            f"correct={self.correct})"
        )


# --------------------------------------------------------------------------- checking


def _check_round(
    r, index: int, schedule: Schedule, ports: int, topology: Topology | None, sizes, links=None, uplinks=None
):
    """Raise ScheduleError if the round breaks a rule; return the number of distinct messages.

    ``uplinks`` (a single switch, no ``step_rounds``): each endpoint's links to the switch, which
    cap its messages in a round like ``ports`` (one message per link, as on a direct network).
    """
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
            raise ScheduleError(
                f"{label}: transfer {t} ({r.src[t]}->{r.dst[t]}) is not local; only src == dst copies may run here"
            )
        if np.any(r.reduce):
            # The prologue and epilogue cost nothing: an add there escaped the γ term, and a
            # 2-node AllReduce that copied in its round and added in its epilogue ran below
            # round_lower_bound(..., gamma) (#38 review). Adds belong in a round, which charges them.
            t = np.nonzero(r.reduce)[0][0]
            raise ScheduleError(
                f"{label}: transfer {t} ({r.src[t]}->{r.dst[t]}) adds (op 'reduce'); only copies may run here, "
                "adds go in a round (they cost gamma there)"
            )
        return 0
    if not np.any(remote):
        return 0
    keys = np.unique(r.src[remote] * n + r.dst[remote])
    pairs = np.stack([keys // n, keys % n], axis=1)
    for side, col in (("sends to", 0), ("receives from", 1)):
        counts = np.bincount(pairs[:, col], minlength=n)
        # Through a switch an endpoint's links cap its messages too: a node with one link sending
        # two messages in a round put simulate below the degree-1 bound (issue #28).
        limit = ports if uplinks is None else np.minimum(ports, uplinks)
        over = np.nonzero(counts > limit)[0]
        if over.size:
            node = over[0]
            peers = pairs[pairs[:, col] == node][:, 1 - col].tolist()
            first = np.nonzero(remote & ((r.src if col == 0 else r.dst) == node))[0][0]
            cap = f"ports={ports}"
            if uplinks is not None and uplinks[node] < ports:
                cap = f"it has {int(uplinks[node])} link(s) into the switches of {topology.name}"
            raise ScheduleError(
                f"{label}: node {node} {side} {len(peers)} nodes {peers} but {cap} "
                f"(first offending transfer {first}: {r.src[first]}->{r.dst[first]})"
            )
    if links is not None:
        bad = links.unroutable(keys)
        if bad >= 0:
            s, d = divmod(int(keys[bad]), n)
            t = np.nonzero(remote & (r.src == s) & (r.dst == d))[0][0]
            how = "uses no link of" if links.kind == "pairs" else "has no path through the switches of"
            raise ScheduleError(f"{label}: transfer {t} ({s}->{d}) {how} {topology.name}")
    return keys.size


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

    Returns ``(buffer, want, mask, describe)``: after the run, ``bufs[buffer]`` must equal
    ``want`` (an ``(n, m)`` array or one row broadcast to all nodes) wherever ``mask`` is true
    (``None``: everywhere; a row, a column mask or an ``(n, m)`` mask). Inputs are copied before
    the schedule runs, so a schedule that overwrites its inputs is still checked against them.
    Vectorised: one comparison for all nodes, whatever n.
    """
    p, n, root, m = schedule.primitive, schedule.n, schedule.root, schedule.m
    bounds = _block_bounds(m, n)
    names = schedule.buffers

    def block_of() -> np.ndarray:  # block index of every byte, in the smallest integer type (#28:
        # np.searchsorted over np.arange(m) took 16 bytes per byte and set the simulator's peak)
        return np.repeat(np.arange(n, dtype=np.min_scalar_type(max(n - 1, 0))), np.diff(bounds))

    def own_block() -> np.ndarray:  # (n, m): node i's block i, one byte per byte and node
        mask = np.zeros((n, m), dtype=bool)
        if n <= _LOOP_NODES:
            for i in range(n):
                mask[i, bounds[i] : bounds[i + 1]] = True
        else:
            mask[block_of(), np.arange(m)] = True  # m is small here: n * m is within the budget
        return mask

    if p == "all_to_all":
        size = m // n  # equal blocks (checked): recv block i of node j = send block j of node i
        send = bufs[names.index("send")]
        want = np.empty((n, m), dtype=np.uint8)  # one allocation (a copy of the transposed view made two)
        want.reshape(n, n, size)[...] = send.reshape(n, n, size).transpose(1, 0, 2)
        return names.index("recv"), want, None, lambda node, byte: f"block from node {byte // max(size, 1)}"
    data_index = names.index("data")
    data = bufs[data_index]
    if p in ("reduce", "reduce_scatter", "all_reduce"):
        total = data[0].copy()
        for i in range(1, n):
            total += data[i]  # uint8: addition modulo 256, exact in any order
        mask = {"reduce": np.arange(n)[:, None] == root, "all_reduce": None, "reduce_scatter": own_block()}[p]
        return data_index, total[None, :], mask, lambda node, byte: "sum of all inputs"
    if p == "broadcast":
        return data_index, data[root].copy()[None, :], None, lambda node, byte: "root's data"
    if p == "scatter":
        return data_index, data[root].copy()[None, :], own_block(), lambda node, byte: f"root's block {node}"
    gathered = np.empty(m, dtype=np.uint8)  # byte j from the node whose block holds j
    if n <= _LOOP_NODES:
        for i in range(n):
            gathered[bounds[i] : bounds[i + 1]] = data[i, bounds[i] : bounds[i + 1]]
    elif m:
        gathered[:] = data[block_of(), np.arange(m)]
    mask = (np.arange(n)[:, None] == root) if p == "gather" else None
    return data_index, gathered[None, :], mask, lambda node, byte: "every node's block"


def _compare(schedule: Schedule, expected, bufs: list[np.ndarray]) -> list[str]:
    buffer, want, mask, describe = expected
    got = bufs[buffer]
    if got.size == 0:
        return []
    wrong = got != want
    if mask is not None:
        wrong &= mask
    rows = np.nonzero(wrong.any(axis=1))[0][:10]
    name = schedule.buffers[buffer]
    errors = []
    for node in rows:
        byte = int(np.argmax(wrong[node]))
        errors.append(f"node {node}: {name}[{byte}] wrong ({describe(int(node), byte)})")
    return errors


def _memory_estimate(n: int, m: int, buffers: int, transfers: int, rounds: int) -> int:
    """Bytes a run needs: the buffers, the required result and the comparison masks for the final
    check, one round's reads, the schedule, and the per-round, per-node byte counts."""
    return (buffers + 3) * n * m + BYTES_PER_TRANSFER * transfers + 16 * rounds * n


def _check_budget(what: str, estimate: int, max_bytes: int) -> None:
    check_cap(
        f"{what}: memory",
        estimate,
        max_bytes,
        "bytes",
        hint="pass a larger max_bytes= to allow it (the default budget is 2 GiB)",
    )


def run_schedule(
    schedule: Schedule, ports=None, topology: Topology | None = None, seed: int = 0, max_bytes: int = DEFAULT_MAX_BYTES
) -> SimulationResult:
    """Execute ``schedule`` on random inputs and measure it.

    Parameters
    ----------
    schedule : Schedule
        The schedule (hand-written or generated).
    ports : int, optional
        ``k``: distinct destinations (and sources) per node per round, and, for a schedule with
        ``step_rounds``, links a node drives at once (a port is one link). Default 1, except for a
        schedule that carries the topology it was synthesized for (``schedule.topology``, set by
        ``synthesize`` and ``stored_schedule``): there every node uses all its links,
        ``max(n - 1, topology.degree)``.
    topology : Topology, optional
        When given, every message must use one of its links, and its ``n`` must match. Parallel
        links (edge attribute ``links``) are capacity: see ``Schedule.step_rounds``. Default:
        ``schedule.topology`` (``None`` for hand-written and generated schedules).
    seed : int, default 0
        Seed of the random input bytes. A result found correct on them is confirmed on
        ``CONFIRM_DRAWS = 4`` more draws of fresh entropy (one above ``CONFIRM_ALL_BYTES`` =
        16 MiB of buffers), which the caller cannot choose: a wrong byte matches a random one
        with probability 1/256, so a seed could otherwise be searched for (#37 audit).
    max_bytes : int, default 2 GiB
        Memory budget. The estimate ``(buffers + 3) * n * m + 64 * transfers + 16 * rounds * n`` bytes
        (the buffers, the required result and masks to check against, one round's reads, the
        schedule, the per-round byte counts) is
        checked against it before anything is allocated. Independently of it, a run holds at
        most ``MAX_RUN_ROUNDS = 2**13`` rounds and ``MAX_RUN_TRANSFERS = 2**21`` transfers
        (about 10 s here).

    Raises
    ------
    ScheduleError
        Naming the round and the transfer that breaks the port model, a link or a buffer.
    ValueError
        If the estimate exceeds ``max_bytes`` or the schedule exceeds the round / transfer caps.

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
    ccb_helpers.simulator.ScheduleError: round 1: node 0 sends to 2 nodes [1, 2] but ports=1 (first offending transfer 0: 0->1)
    """
    if not isinstance(schedule, Schedule):
        raise TypeError(f"schedule must be a Schedule, got {type(schedule).__name__}")
    _check_schedule(schedule)  # a Schedule is mutable: its fields may have changed since it was made
    carried = schedule.topology is not None and topology is None
    if carried:
        topology = schedule.topology
    if ports is None:
        # A synthesized schedule is made for nodes that drive all their links in a step (#26).
        # (every peer and every link: a port is one link, #37 audit)
        ports = max(1, schedule.n - 1, topology.degree) if carried and schedule.step_rounds is not None else 1
    ports = check_int("ports", ports, minimum=1, scalar=True)
    seed = check_int("seed", seed, minimum=0, maximum=2**64 - 1, scalar=True)
    max_bytes = check_int("max_bytes", max_bytes, minimum=0, scalar=True)
    if topology is not None:
        check_topology(topology)
        if topology.n != schedule.n:
            raise ValueError(f"topology has n={topology.n} nodes but the schedule has n={schedule.n}")
    if schedule.primitive == "all_to_all" and schedule.m % schedule.n:
        raise ValueError(
            f"an all_to_all schedule needs m divisible by n (equal blocks), got m={schedule.m}, n={schedule.n}"
        )
    if schedule.step_rounds is not None:
        if len(schedule.step_rounds) != len(schedule.rounds) or schedule.chunk_bytes is None:
            raise ScheduleError(
                f"step_rounds has {len(schedule.step_rounds)} entries for {len(schedule.rounds)} rounds "
                f"(chunk_bytes={schedule.chunk_bytes}); give one per round and chunk_bytes"
            )
        if topology is not None and routing_kind(topology) not in ("pairs", "switch"):
            # The (S, R, C) capacities are per link group of a direct network or one switch; synthesis
            # makes schedules for those only (it refuses several switch levels).
            raise ScheduleError(
                f"step_rounds (link capacities in the steps/rounds/chunks model) are defined on direct networks "
                f"and single switches, not on {topology.name}; run the schedule without step_rounds to have "
                "every link charged"
            )
    rounds = len(schedule.rounds)
    transfers = sum(len(r) for r in schedule.rounds) + len(schedule.prologue) + len(schedule.epilogue)
    what = f"running {schedule.algorithm} {schedule.primitive} on n={schedule.n}, m={schedule.m}"
    check_cap(f"{what}: rounds", rounds, MAX_RUN_ROUNDS)
    check_cap(f"{what}: transfers", transfers, MAX_RUN_TRANSFERS)
    estimate = _memory_estimate(schedule.n, schedule.m, len(schedule.buffers), transfers, rounds)
    estimate += _capacity_bytes(schedule.n, topology, schedule.step_rounds is not None)
    check_routing_work(topology, transfers, what)
    if "work" in schedule.buffers and schedule.work_size is not None:
        estimate += schedule.n * (schedule.work_size - schedule.m)
    _check_budget(what, estimate, max_bytes)
    try:
        result = _run_schedule(schedule, ports, topology, seed)
    except ScheduleError as error:
        if schedule.step_rounds is not None and "but ports=" in str(error) and schedule.topology is not None:
            raise ScheduleError(
                f"{error}; this schedule carries the topology it was synthesized for "
                f"({schedule.topology.name}), where every node uses all its links in a step: "
                "run_schedule(schedule) without ports runs it so"
            ) from None
        if schedule.step_rounds is not None and topology is None and "but ports=" in str(error):
            # A synthesized schedule uses every link of the topology it was made for (#26).
            raise ScheduleError(
                f"{error}; this schedule was synthesized on a topology whose nodes use all their "
                "links in a round: run it with ccb.verify_synthesized(schedule, topology), or "
                "run_schedule(schedule, ports=max(topology.n - 1, topology.degree), topology=topology)"
            ) from None
        raise
    if result.correct:
        _confirm_on_fresh_inputs(schedule, result)
    return result


#: Extra input draws a correct result is confirmed on (fresh entropy, not the caller's seed), and
#: the buffer bytes up to which all of them run (one draw above it).
CONFIRM_DRAWS = 4
CONFIRM_ALL_BYTES = 2**24


def _confirm_on_fresh_inputs(schedule: Schedule, result: SimulationResult) -> None:
    """Re-run a correct hand-written schedule on inputs the caller cannot choose; a wrong byte fails.

    The check compares random bytes: a wrong output byte matches by chance with probability
    1/256, and the caller picks ``seed``. So a schedule that skipped its last byte, run with
    ``seed`` after ``seed`` until one matched, was "correct" in less time than the bound (#37
    audit: an empty 1-byte Broadcast on 2 nodes passed with seed 374). Fresh draws from the
    operating system's entropy make that a 256**-draws chance per call. Only the data moves here:
    the rules and the time were checked in the first run.
    """
    import secrets

    draws = CONFIRM_DRAWS if schedule.n * schedule.m * len(schedule.buffers) <= CONFIRM_ALL_BYTES else 1
    for _ in range(draws):
        rng = np.random.Generator(np.random.SFC64(secrets.randbits(128)))
        bufs = _initial_state(schedule, rng)
        expected = _expected(schedule, bufs)
        for r in (schedule.prologue, *schedule.rounds, schedule.epilogue):
            _apply(r, bufs)
        errors = _compare(schedule, expected, bufs)
        if errors:
            result.correct = False
            result.errors = [f"on other random inputs: {errors[0]} (the seed's inputs hid it by chance)"] + errors[1:10]
            return


def _simulate_estimate(algorithm: str, primitive: str, n: int, m: int, rounds: int, transfers: int, topology) -> int:
    """Bytes :func:`simulate` may hold at its peak (tests/test_memory_caps.py measures the peak)."""
    from .schedule import buffers_for

    buffers = len(buffers_for(primitive)) + (algorithm == "bruck" and primitive == "all_to_all")
    estimate = _memory_estimate(n, m, buffers, 0, rounds) + BYTES_PER_GENERATED_TRANSFER * transfers
    return estimate + _capacity_bytes(n, topology, False)


def _capacity_bytes(n: int, topology, capacity: bool) -> int:
    """Memory of the link model (:func:`ccb_helpers.routing.link_model`): a link matrix on a direct
    network (or every pair, for a synthesized schedule run without its topology), the shortest-path
    tables of a general switched graph."""
    if topology is None:
        return 16 * n * n if capacity else 0
    return routing_bytes(topology, n)


def _check_driven_links(index, sent, received, driven, ports, schedule) -> None:
    """A node of a step moves at most ``min(ports, its links) * step_rounds * chunk_bytes`` each way."""
    limit = driven * int(schedule.step_rounds[index]) * int(schedule.chunk_bytes)
    for side, volume in (("sends", sent), ("receives", received)):
        over = np.nonzero(volume > limit)[0]
        if over.size:
            v = int(over[0])
            raise ScheduleError(
                f"round {index + 1}: node {v} {side} {int(volume[v])} bytes but it drives {int(driven[v])} link(s) "
                f"(ports={ports}: a port is one link) x {schedule.step_rounds[index]} round(s) x "
                f"{schedule.chunk_bytes} bytes allow {int(limit[v])}"
            )


def _run_schedule(schedule: Schedule, ports: int, topology: Topology | None, seed: int) -> SimulationResult:
    capacity = schedule.step_rounds is not None
    links = link_model(topology, schedule.n, every_pair=capacity)
    rng = np.random.Generator(np.random.SFC64(seed))
    # Through switches an endpoint's own links cap its messages per round, on a single switch and
    # on a fat tree alike (a fat-tree host with one link sent two messages a round, #28), for a
    # synthesized step too: a step is one round of the book, and an endpoint with b links reaches
    # at most b peers in it (#37). (How many chunks a step may put on those links: capacity.)
    uplinks = None
    if topology is not None and topology.switched:
        uplinks = links.ups if links.kind in ("switch", "fat_tree") else endpoint_links(topology)
    driven = None
    if capacity:
        # A port drives one link (the book's k-port model, and the presets' rule): in the steps
        # model a message is spread over a pair's parallel links, so a node with fewer ports than
        # links moves at most ``ports`` links' worth a round, however few peers it talks to. Without
        # this, one "port" to a double NVLink (or to a switch by two links) moved two links' bytes
        # and a 1-port run beat the 1-port bandwidth bound by 2x (#37 audit).
        own = np.full(schedule.n, max(schedule.n - 1, 1)) if topology is None else endpoint_links(topology)
        driven = np.minimum(own, ports)
    bufs = _initial_state(schedule, rng)
    expected = _expected(schedule, bufs)
    sizes = [b.shape[1] for b in bufs]
    n, count = schedule.n, len(schedule.rounds)
    sent = np.zeros((count, n), dtype=np.int64)
    received = np.zeros((count, n), dtype=np.int64)
    max_message = np.zeros(count, dtype=np.int64)
    reduced = np.zeros(count, dtype=np.int64)
    load = np.zeros(count) if links is not None else None
    _check_round(schedule.prologue, -1, schedule, ports, topology, sizes)
    _apply(schedule.prologue, bufs)
    routed = links if links is not None and links.kind in ("pairs", "paths") and topology is not None else None
    for i, r in enumerate(schedule.rounds):
        messages = _check_round(r, i, schedule, ports, topology, sizes, routed, uplinks)
        _apply(r, bufs)
        if np.any(r.reduce):
            reduced[i] = int(np.bincount(r.dst[r.reduce], weights=r.length[r.reduce], minlength=n).max())
        remote = r.src != r.dst
        if not np.any(remote):
            continue
        sent[i] = np.bincount(r.src[remote], weights=r.length[remote], minlength=n)
        received[i] = np.bincount(r.dst[remote], weights=r.length[remote], minlength=n)
        if driven is not None:
            _check_driven_links(i, sent[i], received[i], driven, ports, schedule)
        pair = r.src[remote] * n + r.dst[remote]
        if messages == pair.size and links is None:  # one piece per message
            max_message[i] = int(r.length[remote].max())
            continue
        keys, inverse = np.unique(pair, return_inverse=True)
        pair_bytes = np.bincount(inverse, weights=r.length[remote])
        max_message[i] = int(pair_bytes.max())
        if links is None:
            continue
        volume, mult = links.loads(keys, pair_bytes)
        used = volume > 0
        load[i] = float((volume[used] / mult[used]).max(initial=0.0))  # zero-length pieces: no load
        if capacity:
            limit = mult * int(schedule.step_rounds[i]) * int(schedule.chunk_bytes)
            over = np.nonzero(volume > limit)[0]
            if over.size:
                g = over[0]
                raise ScheduleError(
                    f"round {i + 1}: {links.label(keys, g)} carries {int(volume[g])} bytes but its {int(mult[g])} "
                    f"link(s) x {schedule.step_rounds[i]} round(s) x {schedule.chunk_bytes} bytes allow {int(limit[g])}"
                )
    _check_round(schedule.epilogue, -2, schedule, ports, topology, sizes)
    _apply(schedule.epilogue, bufs)
    errors = _compare(schedule, expected, bufs)
    if capacity:
        # The steps/rounds/chunks model: a step of r rounds lasts r rounds of one chunk per link
        # (its loads were checked against that above), a message spread over its b links.
        charged = np.asarray(schedule.step_rounds, dtype=float) * float(schedule.chunk_bytes)
    else:
        # A message travels on one link (one port); the busiest link may carry more (through switches).
        charged = max_message.astype(float) if load is None else np.maximum(max_message, load)
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
        reduced_per_round=reduced,
        charged_bytes=charged,
    )


def simulate(
    algorithm, primitive, n, m, ports=1, topology=None, seed=0, max_bytes=DEFAULT_MAX_BYTES, **options
) -> SimulationResult:
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
        Message size in bytes (the book's buffer conventions); for ``all_to_all`` a multiple of ``n``.
    ports : int, default 1
        Ports enforced (and used by k-nomial trees).
    topology : Topology, optional
        Enforce its links (ring algorithms need a ring or richer; trees a complete graph or switch).
    seed : int, default 0
        Seed of the random input bytes.
    max_bytes : int, default 2 GiB
        Memory budget, checked before anything is generated or allocated: the estimate is
        ``(buffers + 3) * n * m + 16 * rounds * n`` bytes of buffers, checks and counts plus ``256 * transfers`` for building and
        holding the schedule (transfers from closed forms, see :func:`ccb_helpers.generate`, whose
        round and transfer caps apply too).
    **options
        Generator options, e.g. ``chunks=4`` for ``double_binary_tree``, ``root=2`` for rooted primitives.

    Examples
    --------
    >>> r = simulate("ring", "all_reduce", 4, 4096)
    >>> r.rounds, r.bytes_sent.tolist(), r.correct
    (6, [6144, 6144, 6144, 6144], True)
    """
    from .generators import _check_generate, _generate
    from .generators.placement import placed_schedule

    unknown = set(options) - {"root", "chunks", "pipelined"}
    if unknown:
        raise TypeError(
            f"simulate() got unexpected keyword arguments {sorted(unknown)}; options are root, chunks, pipelined"
        )
    if topology is not None:
        check_topology(topology)
    # Chapter 9: hierarchical algorithms take the node shape of a two-level topology; some
    # algorithms refuse topologies they cannot run on (generators/placement.py).
    placed = placed_schedule(algorithm, primitive, m, topology, options.get("chunks"))
    if placed is not None:
        if topology.n != n:
            raise ValueError(f"topology has n={topology.n} nodes but n={n}")
        seed = check_int("seed", seed, minimum=0, maximum=2**64 - 1, scalar=True)
        ports = check_int("ports", ports, minimum=1, scalar=True)
        return run_schedule(placed, ports=ports, topology=topology, seed=seed, max_bytes=max_bytes)
    n, m, ports, root, chunks, rounds, transfers = _check_generate(
        algorithm, primitive, n, m, ports, options.get("root", 0), options.get("chunks"), options.get("pipelined", True)
    )
    seed = check_int("seed", seed, minimum=0, maximum=2**64 - 1, scalar=True)
    max_bytes = check_int("max_bytes", max_bytes, minimum=0, scalar=True)
    if topology is not None:
        check_topology(topology)
        if topology.n != n:
            raise ValueError(f"topology has n={topology.n} nodes but n={n}")
    estimate = _simulate_estimate(algorithm, primitive, n, m, rounds, transfers, topology)
    what = f"simulating {algorithm} {primitive} on n={n}, m={m}"
    _check_budget(what, estimate, max_bytes)
    check_routing_work(topology, transfers, what)
    schedule = _generate(algorithm, primitive, n, m, ports, root, chunks)
    return _run_schedule(schedule, ports, topology, seed)
