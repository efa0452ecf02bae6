"""Schedules: a collective written as plain data, round by round.

A :class:`Schedule` is a list of rounds; a round is a set of :class:`Transfer` s that happen at
the same time. A transfer moves ``length`` bytes from a region of a buffer on node ``src`` to a
region of a buffer on node ``dst``, either overwriting it (``"copy"``) or adding into it
(``"reduce"``). All transfers of a round read the buffers as they were at the start of the
round, then write — like real synchronous rounds.

Buffers: every node has a ``"data"`` buffer of M bytes (``"send"`` and ``"recv"`` for AllToAll),
and may use a ``"work"`` scratch buffer of M bytes. Block ``i`` of a buffer is the bytes
``[i*M//N, (i+1)*M//N)`` (see :func:`block_bounds`).

Internally each round is stored as numpy columns, so generated schedules with millions of
transfers stay fast; ``Schedule.from_transfers`` builds one from hand-written transfers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from ._validation import _as_array, check_cap, check_choice, check_int, check_memory
from .primitives import check_primitive

if TYPE_CHECKING:  # networkx comes with Topology: an MPI rank runs schedules without one
    from .topology import Topology

__all__ = ["Transfer", "Round", "Schedule", "block_bounds", "buffers_for", "OPS"]

OPS = ("copy", "reduce")
#: Largest buffer size in bytes of a schedule (offsets are int64; ``block_bounds`` stays exact).
MAX_BUFFER_BYTES = 2**62
#: Most blocks :func:`block_bounds` returns (an int64 array of ``parts + 1`` offsets).
MAX_PARTS = 2**26
BUFFER_NAMES = ("data", "send", "recv", "work")


def buffers_for(primitive: str) -> tuple[str, ...]:
    """Standard buffer names of a primitive (``"work"`` scratch is always allowed too)."""
    return ("send", "recv") if primitive == "all_to_all" else ("data",)


def block_bounds(m: int, n: int, parts: int | None = None) -> np.ndarray:
    """Start offsets of ``parts`` (default ``n``) nearly equal blocks of ``m`` bytes, plus ``m``.

    Block ``i`` is ``[i*m // parts, (i+1)*m // parts)``, computed exactly in int64 for every
    ``m <= 2**63 - 1`` (``i*m`` itself would overflow); ``parts <= 2**26``.

    >>> block_bounds(10, 4).tolist()
    [0, 2, 5, 7, 10]
    """
    m = check_int("m", m, minimum=0, maximum=2**63 - 1, scalar=True)
    n = check_int("n", n, minimum=1, scalar=True)
    name = "n" if parts is None else "parts"  # the count of blocks, named as the caller gave it
    parts = n if parts is None else check_int("parts", parts, minimum=1, scalar=True)
    check_cap(f"{name}: block_bounds' blocks", parts, MAX_PARTS)
    check_memory(f"{name}: block_bounds of {parts:,} blocks", _block_bounds_memory(parts))
    return _block_bounds(m, parts)


def _block_bounds_memory(parts: int) -> int:
    """Two int64 arrays of ``parts + 1`` (the result and one temporary; tracemalloc measured
    16 bytes a block, 1 GiB at :data:`MAX_PARTS`), and 4 KiB."""
    return 16 * (parts + 1) + 4096


def _block_bounds(m: int, parts: int) -> np.ndarray:
    # i*m // parts = i*q + (i*r) // parts with m = q*parts + r: no product exceeds int64
    # (i*r < parts**2 <= 2**52). In place: two arrays of parts + 1 at the peak, not four.
    q, r = divmod(m, parts)
    i = np.arange(parts + 1, dtype=np.int64)
    out = i * q
    i *= r
    i //= parts
    out += i
    return out


@dataclass(frozen=True)
class Transfer:
    """One message piece: ``length`` bytes from ``src``'s buffer region to ``dst``'s.

    Parameters
    ----------
    src, dst : int
        Sending and receiving node. ``src == dst`` is a local copy (free, no port used).
    offset : int
        Start byte in the source buffer.
    length : int
        Bytes moved.
    op : {"copy", "reduce"}
        Overwrite the destination region, or add into it (elementwise, uint8 wrap-around).
    buffer : str
        Source buffer name (``"data"``, ``"send"``, ``"recv"``, ``"work"``).
    dst_offset : int, optional
        Start byte in the destination buffer (default ``offset``).
    dst_buffer : str, optional
        Destination buffer (default ``buffer``).
    """

    src: int
    dst: int
    offset: int
    length: int
    op: str = "copy"
    buffer: str = "data"
    dst_offset: int | None = None
    dst_buffer: str | None = None

    def __post_init__(self):
        set_ = object.__setattr__
        for name in ("src", "dst", "offset", "length"):
            set_(self, name, check_int(name, getattr(self, name), minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True))
        if self.dst_offset is not None:
            set_(
                self,
                "dst_offset",
                check_int("dst_offset", self.dst_offset, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True),
            )
        check_choice("op", self.op, OPS)
        check_choice("buffer", self.buffer, BUFFER_NAMES)
        if self.dst_buffer is not None:
            check_choice("dst_buffer", self.dst_buffer, BUFFER_NAMES)

    def __str__(self) -> str:
        target = self.dst_buffer or self.buffer
        doff = self.offset if self.dst_offset is None else self.dst_offset
        arrow = "+=" if self.op == "reduce" else "<-"
        return (
            f"{self.dst}.{target}[{doff}:{doff + self.length}] {arrow} "
            f"{self.src}.{self.buffer}[{self.offset}:{self.offset + self.length}]"
        )


class Round:
    """The transfers of one round, as numpy columns (all int64 arrays of one length)."""

    __slots__ = ("src", "dst", "offset", "length", "reduce", "buffer", "dst_offset", "dst_buffer")

    def __init__(self, src, dst, offset, length, reduce=False, buffer=0, dst_offset=None, dst_buffer=None):
        src = np.atleast_1d(self._column_values("src", src, np.int64))
        if src.ndim != 1:
            raise ValueError(f"src must be one-dimensional (one entry per transfer), got shape {src.shape}")
        size = src.shape[0]

        def column(value, dtype=np.int64, name=""):
            array = self._column_values(name, value, dtype)
            try:
                return np.broadcast_to(array, (size,)).copy()
            except ValueError:
                raise ValueError(
                    f"{name} must be a scalar or have one entry per transfer ({size}), got shape {array.shape}"
                ) from None

        self.src = src
        self.dst = column(dst, name="dst")
        self.offset = column(offset, name="offset")
        self.length = column(length, name="length")
        self.reduce = column(reduce, bool, name="reduce")
        self.buffer = column(buffer, name="buffer")
        self.dst_offset = self.offset.copy() if dst_offset is None else column(dst_offset, name="dst_offset")
        self.dst_buffer = self.buffer.copy() if dst_buffer is None else column(dst_buffer, name="dst_buffer")

    @staticmethod
    def _column_values(name: str, value, dtype) -> np.ndarray:
        """A column as an int64 (or bool) array: integers only, never a silent float or wrap-around cast."""
        if isinstance(value, np.ndarray) and value.dtype == dtype:
            return value
        array = _as_array(name, value)
        if array.size == 0 and array.dtype.kind == "f":
            return array.astype(dtype)  # an empty list
        if dtype is bool:
            if array.dtype.kind != "b":
                raise TypeError(f"{name} must hold True / False, got dtype {array.dtype}")
            return array
        if array.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integers, got dtype {array.dtype}")
        if array.dtype == np.uint64 and array.size and array.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name} must fit int64")
        return array.astype(np.int64, copy=False)

    @classmethod
    def empty(cls) -> Round:
        return cls(np.zeros(0, dtype=np.int64), 0, 0, 0)

    @classmethod
    def concat(cls, rounds: Sequence[Round]) -> Round:
        rounds = [r for r in rounds if len(r)]
        if not rounds:
            return cls.empty()
        return cls(
            np.concatenate([r.src for r in rounds]),
            np.concatenate([r.dst for r in rounds]),
            np.concatenate([r.offset for r in rounds]),
            np.concatenate([r.length for r in rounds]),
            np.concatenate([r.reduce for r in rounds]),
            np.concatenate([r.buffer for r in rounds]),
            np.concatenate([r.dst_offset for r in rounds]),
            np.concatenate([r.dst_buffer for r in rounds]),
        )

    def reversed(self, reduce: bool) -> Round:
        """The same pieces flowing back (``dst -> src``), as reductions or as copies.

        Running a broadcast-like copy schedule backwards with ``reduce=True`` gives its dual
        reduction (AllGather -> ReduceScatter, Broadcast -> Reduce); with ``reduce=False`` a
        Scatter becomes a Gather.
        """
        return Round(
            self.dst, self.src, self.dst_offset, self.length, reduce, self.dst_buffer, self.offset, self.buffer
        )

    def __len__(self) -> int:
        return int(self.src.shape[0])

    def transfers(self, buffer_names: Sequence[str]) -> list[Transfer]:
        """The round as :class:`Transfer` objects (for printing and inspection)."""
        return [
            Transfer(
                int(s),
                int(d),
                int(o),
                int(l),
                "reduce" if r else "copy",
                buffer_names[b],
                int(do),
                buffer_names[db],
            )
            for s, d, o, l, r, b, do, db in zip(
                self.src, self.dst, self.offset, self.length, self.reduce, self.buffer, self.dst_offset, self.dst_buffer
            )
        ]


@dataclass
class Schedule:
    """A collective as data: ``rounds`` of transfers on ``n`` nodes for a message of ``m`` bytes.

    Attributes
    ----------
    primitive : str
        What the schedule claims to compute (checked by the simulator).
    n : int
        Nodes.
    m : int
        Message size in bytes (the book's buffer conventions).
    rounds : list of Round
        The communication rounds, in order.
    buffers : tuple of str
        Buffer names the columns index into (standard buffers first, ``"work"`` if used).
    root : int
        Root of a rooted primitive.
    algorithm : str
        Name of the generator (``"custom"`` for hand-written schedules).
    prologue, epilogue : Round
        Local copies (``src == dst``, op ``"copy"``) before the first / after the last round; they cost
        nothing, so the simulator refuses an add (``"reduce"``) there: adds go in a round, which charges γ.
    step_rounds : tuple of int, optional
        Link capacity of each round in the steps/rounds/chunks model of schedule synthesis
        (:mod:`ccb_helpers.synthesis`): in round ``i`` a link of multiplicity ``b`` may carry at
        most ``b * step_rounds[i] * chunk_bytes`` bytes in each direction. ``None`` (hand-written
        and generated schedules): no capacity limit beyond the port model.
    chunk_bytes : int, optional
        Bytes one link carries in one such round (the largest chunk); required with ``step_rounds``.
    work_size : int, optional
        Bytes of the ``"work"`` scratch buffer (default ``m``).
    topology : Topology, optional
        The network a synthesized schedule was made for (set by ``synthesize`` and
        ``stored_schedule``): :func:`ccb_helpers.run_schedule` then runs it on that topology with
        every node using all its links, without the caller repeating them. Not compared by ``==``.
    """

    primitive: str
    n: int
    m: int
    rounds: list[Round]
    buffers: tuple[str, ...] = ("data",)
    root: int = 0
    algorithm: str = "custom"
    prologue: Round = field(default_factory=Round.empty)
    epilogue: Round = field(default_factory=Round.empty)
    step_rounds: tuple | None = None
    chunk_bytes: int | None = None
    work_size: int | None = None
    topology: Topology | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        _check_schedule(self)

    @classmethod
    def from_transfers(
        cls,
        primitive: str,
        n: int,
        m: int,
        rounds: Iterable[Iterable[Transfer]],
        root: int = 0,
        prologue: Iterable[Transfer] = (),
        epilogue: Iterable[Transfer] = (),
    ) -> Schedule:
        """Build a schedule from hand-written :class:`Transfer` lists, one list per round.

        Examples
        --------
        Two nodes AllReduce 8 bytes: swap halves and add, then swap the sums back.

        >>> T = Transfer
        >>> s = Schedule.from_transfers("all_reduce", 2, 8, [
        ...     [T(0, 1, 4, 4, "reduce"), T(1, 0, 0, 4, "reduce")],
        ...     [T(0, 1, 0, 4), T(1, 0, 4, 4)],
        ... ])
        >>> len(s.rounds), s.rounds[0].length.tolist()
        (2, [4, 4])
        >>> print(s)
        all_reduce on 2 nodes, 8 B, 2 rounds (custom)
        round 1: 1.data[4:8] += 0.data[4:8]; 0.data[0:4] += 1.data[0:4]
        round 2: 1.data[0:4] <- 0.data[0:4]; 0.data[4:8] <- 1.data[4:8]
        """
        primitive = check_primitive(primitive)
        n = check_int("n", n, minimum=1, maximum=MAX_BUFFER_BYTES, scalar=True)
        m = check_int("m", m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
        root = check_int("root", root, minimum=0, maximum=n - 1, scalar=True)
        names = list(buffers_for(primitive))
        for name, value in (("rounds", rounds), ("prologue", prologue), ("epilogue", epilogue)):
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"{name} must be a list (of lists of Transfer for rounds), got {type(value).__name__}")
        if not all(isinstance(r, (list, tuple)) for r in rounds):
            raise TypeError("rounds must be a list of lists of Transfer (one list per round)")
        all_rounds = [list(r) for r in rounds]
        pro, epi = list(prologue), list(epilogue)
        for i, t in enumerate(t for r in all_rounds + [pro, epi] for t in r):
            if not isinstance(t, Transfer):
                raise TypeError(f"rounds: transfer {i} must be a Transfer, got {type(t).__name__}")
            for name in (t.buffer, t.dst_buffer or t.buffer):
                if name not in names:
                    if name != "work":
                        raise ValueError(
                            f"rounds: unknown buffer {name!r} for {primitive}; allowed: {names + ['work']}"
                        )
                    names.append("work")
            check_choice("op", t.op, OPS)

        def to_round(transfers: list[Transfer]) -> Round:
            if not transfers:
                return Round.empty()
            return Round(
                [t.src for t in transfers],
                [t.dst for t in transfers],
                [t.offset for t in transfers],
                [t.length for t in transfers],
                [t.op == "reduce" for t in transfers],
                [names.index(t.buffer) for t in transfers],
                [t.offset if t.dst_offset is None else t.dst_offset for t in transfers],
                [names.index(t.dst_buffer or t.buffer) for t in transfers],
            )

        return cls(
            primitive,
            n,
            m,
            [to_round(r) for r in all_rounds],
            tuple(names),
            root,
            prologue=to_round(pro),
            epilogue=to_round(epi),
        )

    def __str__(self) -> str:
        lines = [f"{self.primitive} on {self.n} nodes, {self.m} B, {len(self.rounds)} rounds ({self.algorithm})"]
        for i, r in enumerate(self.rounds, start=1):
            lines.append(f"round {i}: " + "; ".join(str(t) for t in r.transfers(self.buffers)))
        return "\n".join(lines)


def _check_schedule(schedule: Schedule) -> None:
    """The fields of a schedule have the right types and ranges (rounds are checked when run)."""
    check_primitive(schedule.primitive)
    schedule.n = check_int("n", schedule.n, minimum=1, maximum=MAX_BUFFER_BYTES, scalar=True)
    schedule.m = check_int("m", schedule.m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
    schedule.root = check_int("root", schedule.root, minimum=0, maximum=schedule.n - 1, scalar=True)
    if not isinstance(schedule.rounds, list) or not all(isinstance(r, Round) for r in schedule.rounds):
        raise TypeError("rounds must be a list of Round")
    for name in ("prologue", "epilogue"):
        if not isinstance(getattr(schedule, name), Round):
            raise TypeError(f"{name} must be a Round, got {type(getattr(schedule, name)).__name__}")
    if not isinstance(schedule.algorithm, str):
        raise TypeError(f"algorithm must be a string, got {type(schedule.algorithm).__name__}")
    if schedule.step_rounds is not None:
        if not isinstance(schedule.step_rounds, (tuple, list)):
            raise TypeError(
                f"step_rounds must be a tuple of ints (one per round) or None, got {type(schedule.step_rounds).__name__}"
            )
        schedule.step_rounds = tuple(
            check_int(f"step_rounds[{i}]", v, minimum=0, maximum=2**31, scalar=True)
            for i, v in enumerate(schedule.step_rounds)
        )
    if schedule.chunk_bytes is not None:
        schedule.chunk_bytes = check_int(
            "chunk_bytes", schedule.chunk_bytes, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True
        )
    if schedule.work_size is not None:
        schedule.work_size = check_int(
            "work_size", schedule.work_size, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True
        )
    if schedule.topology is not None:
        from .topology import Topology  # here, not at the top: see the TYPE_CHECKING import

        if not isinstance(schedule.topology, Topology):
            raise TypeError(f"topology must be a Topology or None, got {type(schedule.topology).__name__}")
        if schedule.topology.n != schedule.n:
            raise ValueError(f"topology has n={schedule.topology.n} nodes but the schedule has n={schedule.n}")
    buffers = schedule.buffers
    if not isinstance(buffers, tuple) or not all(isinstance(b, str) for b in buffers):
        raise TypeError("buffers must be a tuple of buffer names")
    standard = buffers_for(schedule.primitive)
    if (
        buffers[: len(standard)] != standard
        or not set(buffers[len(standard) :]) <= {"work"}
        or len(set(buffers)) != len(buffers)
    ):
        raise ValueError(f"buffers must be {standard} (plus 'work' if used) for {schedule.primitive}, got {buffers}")
