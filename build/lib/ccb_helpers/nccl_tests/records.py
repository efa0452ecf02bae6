"""The records the reader returns: one row of an nccl-tests table, and one parsed run.

Also what every evaluator of a log needs first (:func:`_log_context`): the rank count and the
collective, from the log or from the caller, checked. :data:`COLLECTIVES` are the book's eight
primitives and ``"sendrecv"`` (nccl-tests' point-to-point test).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_choice, check_fields, check_int
from ..primitives import PRIMITIVES

#: Most table rows the reader accepts in one text (a full ``-d all -o all`` sweep has ~2000),
#: and the most a report or a fit evaluates.
MAX_ROWS = 20_000
#: What a log can measure: the book's primitives and nccl-tests' point-to-point ``sendrecv``.
COLLECTIVES = PRIMITIVES + ("sendrecv",)


@dataclass(frozen=True)
class NcclTestsRow:
    """One row of an nccl-tests table: one message size (and type, operator, root).

    Attributes
    ----------
    size : int
        Bytes, as nccl-tests prints them (the book's ``M``: the buffer for AllReduce, Broadcast,
        Reduce; the whole output of AllGather; the whole input of ReduceScatter; each rank's send
        buffer for AllToAll).
    count : int
        Elements, as printed (per rank for AllGather / ReduceScatter / AllToAll).
    type, redop : str or None
        Data type and reduction operator (``None`` when the table has no such column).
    root : int or None
        Root rank (``-1`` for rootless collectives in the 2022+ format; ``None`` if no column).
    time_s, algbw_Bps, busbw_Bps : float
        Out-of-place time (s), algorithm and bus bandwidth (bytes/s).
    wrong : float or None
        The check column: wrong elements (``#wrong``), or the maximum error (``error`` / ``res``
        columns of older versions); ``None`` when printed as ``N/A`` (checks disabled).
    time_s_inplace, algbw_Bps_inplace, busbw_Bps_inplace, wrong_inplace
        The same for the in-place half (``None`` when the table has no in-place half).
    line : int
        Line number (1-based) where the row starts in the text.
    printed : tuple
        The printed ``(time, algbw, busbw)`` numbers of each half, as read
        (:class:`~ccb_helpers._tokens.PrintedNumber`: value, rounding, text; the rounding bounds
        what the log can say about itself); ``()`` for rows not read from text.
    """

    size: int
    count: int
    type: str | None
    redop: str | None
    root: int | None
    time_s: float
    algbw_Bps: float
    busbw_Bps: float
    wrong: float | None
    time_s_inplace: float | None
    algbw_Bps_inplace: float | None
    busbw_Bps_inplace: float | None
    wrong_inplace: float | None
    line: int
    printed: tuple = field(default=(), repr=False, compare=False)

    def __post_init__(self):
        check_fields(
            self,
            {
                "size": "int",
                "count": "int",
                "type": "str?",
                "redop": "str?",
                "time_s": "real",
                "algbw_Bps": "real",
                "busbw_Bps": "real",
                "wrong": "finite?",
                "time_s_inplace": "real?",
                "algbw_Bps_inplace": "real?",
                "busbw_Bps_inplace": "real?",
                "wrong_inplace": "finite?",
                "line": "int",
                "printed": "tuple",
            },
        )
        if self.root is not None:
            object.__setattr__(self, "root", check_int("root", self.root, minimum=-1, scalar=True))


@dataclass(frozen=True)
class NcclTestsLog:
    """A parsed nccl-tests run (see :func:`read_nccl_tests`).

    Attributes
    ----------
    rows : tuple of NcclTestsRow
        The table, in printed order.
    n_ranks : int or None
        Ranks the log determines (``n_ranks_source`` says from what: its ``# Rank`` lines, NCCL's
        ``nranks``, the command line, count against size, or the busbw factor), else the
        caller's value, else ``None``.
    collective : str or None
        One of :data:`COLLECTIVES` (``"all_reduce"``, ``"all_to_all"``, ``"sendrecv"`` …): named by
        the text (``# Collective test starting:`` line or an ``…_perf`` command), or the only one
        its numbers fit, or the caller's; else ``None``.
    hosts : tuple of str
        Distinct host names of the rank lines, in order (``()`` if absent).
    devices : tuple of str
        Device name of each listed rank.
    check_column : str or None
        ``"#wrong"`` (counts), ``"error"`` or ``"res"`` (maximum error), or ``None``.
    time_unit_s : float
        Seconds per printed time unit (1e-6; 1e-3 for the 2017 format).
    nccl_version, tests_version : str or None
        From ``NCCL version x.y.z`` or ``nccl-library=…``, and ``# nccl-tests version …``.
    avg_busbw_Bps : float or None
        The ``# Avg bus bandwidth`` footer (bytes/s), if printed.
    out_of_bounds : int or None
        The ``# Out of bounds values`` footer, if printed.
    program : str or None
        The nccl-tests program named by the text (``"all_reduce_perf"``, ``"hypercube_perf"`` …).
    n_ranks_source : str or None
        Where ``n_ranks`` comes from: ``"rank lines"``, ``"NCCL INFO nranks"``, ``"command line"``,
        ``"count vs size"``, ``"busbw factor"``, ``"caller"``, or ``None``.
    warnings : tuple of str
        What a reviewer of the output would point out (ranks sharing a GPU, unchecked or wrong
        data, rows left out, maxBytes reduced, in-place far from out-of-place, a socket transport,
        rank lines elided …), in the order found.
    collective_candidates : tuple of str
        When ``collective`` is ``None``: the collectives whose busbw/algbw factor and count/size
        relation the rows fit (what the caller must choose among); empty otherwise.
    hosts_complete : bool
        Whether the rank lines list every rank (so ``hosts`` are all the hosts).
    node_count : int or None
        Nodes NCCL's INFO lines state (``nNodes``), if printed.
    nccl : NcclInfo or None
        What the ``NCCL INFO`` lines say (:mod:`~ccb_helpers.nccl_tests.nccl_info`): NVLS, CollNet,
        the network, transports, algorithm and protocol per size.
    """

    rows: tuple
    n_ranks: int | None
    collective: str | None
    hosts: tuple = ()
    devices: tuple = ()
    check_column: str | None = None
    time_unit_s: float = 1e-6
    nccl_version: str | None = None
    tests_version: str | None = None
    avg_busbw_Bps: float | None = None
    out_of_bounds: int | None = None
    header_line: int = field(default=0, repr=False)
    program: str | None = None
    n_ranks_source: str | None = None
    warnings: tuple = ()
    collective_candidates: tuple = ()
    hosts_complete: bool = True
    node_count: int | None = None
    nccl: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        check_fields(
            self,
            {
                "rows": "tuple",
                "n_ranks": "int?",
                "collective": "str?",
                "hosts": "tuple",
                "devices": "tuple",
                "check_column": "str?",
                "time_unit_s": "real",
                "nccl_version": "str?",
                "tests_version": "str?",
                "avg_busbw_Bps": "finite?",
                "out_of_bounds": "int?",
                "header_line": "int",
                "program": "str?",
                "n_ranks_source": "str?",
                "warnings": "tuple",
                "collective_candidates": "tuple",
                "hosts_complete": "bool",
                "node_count": "int?",
            },
        )
        if not all(isinstance(row, NcclTestsRow) for row in self.rows):
            raise TypeError("rows must be a tuple of NcclTestsRow")
        if not all(isinstance(c, str) for c in self.collective_candidates):
            raise TypeError("collective_candidates must be a tuple of collective names (str)")
        from .nccl_info import NcclInfo

        if self.nccl is not None and not isinstance(self.nccl, NcclInfo):
            raise TypeError(f"nccl must be an NcclInfo or None, got {type(self.nccl).__name__}")

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> np.ndarray:
        """One field of every row as a float array (``None`` becomes NaN).

        >>> from ccb_helpers.nccl_tests import read_nccl_tests
        >>> log = read_nccl_tests(_EXAMPLE)
        >>> log.column("size").tolist()
        [1024.0, 1048576.0]
        """
        names = [f for f in NcclTestsRow.__dataclass_fields__ if f not in ("type", "redop")]
        check_choice("name", name, names)
        return np.array([np.nan if getattr(r, name) is None else float(getattr(r, name)) for r in self.rows])

    @property
    def n_hosts(self) -> int | None:
        """Nodes the run used: the hosts of the rank lines when they list every rank, else NCCL's
        ``nNodes``; ``None`` when the log does not tell (elided rank lines, no INFO lines)."""
        if self.hosts and self.hosts_complete:
            return len(self.hosts)
        return self.node_count


# A small table in the 2022+ format, used by the doctests.
_EXAMPLE = """\
# nThread 1 nGpus 1 minBytes 1024 maxBytes 1048576 step: 1024(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid   1001 on      node0 device  0 [0x07] NVIDIA A100-SXM4-40GB
#  Rank  1 Group  0 Pid   1002 on      node0 device  1 [0x0a] NVIDIA A100-SXM4-40GB
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
        1024           256     float     sum      -1    10.24    0.10    0.10      0    10.24    0.10    0.10    N/A
     1048576        262144     float     sum      -1    104.9   10.00   10.00      0    104.9   10.00   10.00    N/A
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 5.05
#
"""


def ratio(numerator: float, denominator: float, what: str) -> float:
    """``numerator / denominator`` in the reader and report path, refused (naming ``what``, the
    input it comes from) when the denominator is not positive or the quotient not finite, so no
    division of a log's numbers ends in ZeroDivisionError, ``inf`` or ``nan``.

    >>> ratio(1.0, 4.0, "row at line 3")
    0.25
    >>> ratio(1.0, 0.0, "the row at line 3 (time 0 s)")
    Traceback (most recent call last):
    ...
    ValueError: the row at line 3 (time 0 s): divides by 0, which no measurement gives
    """
    if not denominator > 0 or not math.isfinite(denominator):
        raise ValueError(f"{what}: divides by {denominator:g}, which no measurement gives")
    quotient = numerator / denominator
    if not math.isfinite(quotient):
        raise ValueError(f"{what}: {numerator:g} / {denominator:g} is beyond a float's range")
    return quotient


def _log_context(log, n_ranks, collective):
    if not isinstance(log, NcclTestsLog):
        raise TypeError(f"log must be an NcclTestsLog (from read_nccl_tests), got {type(log).__name__}")
    n = log.n_ranks if n_ranks is None else check_int("n_ranks", n_ranks, minimum=2, maximum=2**24, scalar=True)
    if n is None:
        raise ValueError("the log has no '# Rank' lines: pass n_ranks")
    if n < 2:
        raise ValueError(
            f"the table at line {log.header_line} lists {n} rank: one GPU measures no communication "
            "(if mpirun started several processes, nccl-tests was built without MPI=1 and each process "
            "ran alone; rebuild with 'make MPI=1' or pass n_ranks)"
        )
    if len(log.rows) > MAX_ROWS:
        raise ValueError(f"the log has {len(log.rows)} rows; at most {MAX_ROWS} are evaluated (split the log)")
    primitive = log.collective if collective is None else check_choice("collective", collective, COLLECTIVES)
    if primitive is None:
        raise ValueError(
            "the log does not name its collective: pass collective (one of " + ", ".join(COLLECTIVES) + ")"
        )
    if log.n_ranks_source not in (None, "caller"):
        if n_ranks is not None and n != log.n_ranks:
            raise ValueError(f"n_ranks={n} contradicts the log: N = {log.n_ranks} from its {log.n_ranks_source}")
    return log, n, primitive
