"""Read the text that nccl-tests prints, and hold each measurement against the lower bound.

`nccl-tests <https://github.com/NVIDIA/nccl-tests>`_ (``all_reduce_perf``, ``all_gather_perf``,
``reduce_scatter_perf``, ``broadcast_perf``, ``reduce_perf``, ``alltoall_perf``, and NCCL 1's
``all_reduce_test``) prints one table per run. Its format changed over the years; the reader
takes its columns from the table's own header line, so all of these parse:

=================== ============================================================================
era                 what the table looks like
=================== ============================================================================
NCCL 1 / 2017       ``bytes N type op [root] time algbw busbw res``, time in **ms**, no units line
2019 – 2021         ``size count type [redop] [root] time algbw busbw error`` (max. error, or N/A)
2022 on             ``size count type redop root time algbw busbw #wrong`` (wrong elements)
2024 on             optional ``copybw``, per-iteration ``i_min i_max i_p99 i_cv%``, ``timestamp``
=================== ============================================================================

Out-of-place and in-place halves, several data types or reduction operators in one run,
``NCCL INFO`` / ``WARN`` lines interleaved (also in the middle of a row, which the row then
continues after), launcher prefixes (``[1,0]<stdout>:``, ``[0]``, ``0:``), the ``# Rank … device …``
header and the ``# Avg bus bandwidth`` footer are handled. Anything that cannot be read — a row
cut short by an error message, a number that is not a number, a second result table — raises
:class:`ValueError` naming the line.

Units: nccl-tests prints time in µs (ms in the 2017 format) and bandwidth in GB/s with
GB = 10^9 bytes; the reader returns seconds and bytes/s.

busbw is the forced volume of chapter 3 over the time: nccl-tests multiplies algbw = size / time
by ``2(N-1)/N`` (AllReduce), ``(N-1)/N`` (AllGather, ReduceScatter, AllToAll, Gather, Scatter)
or 1 (Broadcast, Reduce), which is :func:`ccb_helpers.volume_coefficient`
(``doc/PERFORMANCE.md`` of nccl-tests). Before June 2020 nccl-tests printed
algbw = ``(N-1)/N · size / time`` for AllGather and ReduceScatter (and busbw = algbw); busbw is
the same number in both conventions.

The report (``python -m ccb_helpers.nccl_tests LOG``) compares each measured time with the
combined lower bound of chapter 4 (``eq:cc-bound-combined``).
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, field

import numpy as np

from ._validation import check_bandwidth, check_choice, check_int, check_real
from .bandwidth import volume_coefficient
from .bounds import latency_lower_bound
from .primitives import PRIMITIVES

__all__ = [
    "NcclTestsRow",
    "NcclTestsLog",
    "read_nccl_tests",
    "nccl_tests_report",
    "fit_alpha_beta",
    "busbw_ceiling",
    "two_level_busbw_ceiling",
    "AlphaBeta",
]

#: Largest text the reader accepts (characters): real logs with NCCL_DEBUG=INFO stay far below.
MAX_TEXT_CHARS = 50_000_000
#: Most message sizes :func:`busbw_ceiling` evaluates in one call (an array of 10^7 floats is 80 MB).
MAX_SIZES = 10_000_000

# nccl-tests program name -> the book's primitive (None: not a collective of the book).
_PROGRAMS = {
    "all_reduce": "all_reduce",
    "all_gather": "all_gather",
    "reduce_scatter": "reduce_scatter",
    "broadcast": "broadcast",
    "reduce": "reduce",
    "alltoall": "all_to_all",
    "gather": "gather",
    "scatter": "scatter",
    "sendrecv": None,
    "hypercube": None,
}
_PROGRAM_RE = re.compile(
    r"(?<![A-Za-z0-9_])(all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|gather|scatter|sendrecv|hypercube)"
    r"_(?:perf|test)(?:_mpi)?(?![A-Za-z0-9_])"
)
_STARTING_RE = re.compile(r"#\s*Collective test starting:\s*(\S+)")
_NCCL_VERSION_RE = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
_TESTS_VERSION_RE = re.compile(r"#\s*nccl-tests version (\S+)(?:.*?nccl-library=(\d+))?")
_RANK_RE = re.compile(r"^#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?(?:Pid\s+\d+\s+)?on\s+(?:(\S+)\s+)?device\s+(\d+)\s+\[[^\]]*\]\s*(.*)$")
_DEVICE_RE = re.compile(r"^#\s*Device\s+(\d+)\s+->\s+(\d+)\s+\[[^\]]*\]\s*(.*)$")
_FOOTER_OOB_RE = re.compile(r"^#?\s*Out of bounds values\s*:\s*(\d+)")
_FOOTER_AVG_RE = re.compile(r"^#?\s*Avg bus bandwidth\s*:\s*(\S+)")
# Launcher prefixes: Open MPI --tag-output "[1,0]<stdout>:", "[0] ", slurm --label "0: ".
_PREFIX_RE = re.compile(r"^(?:\[\d+(?:,\d+)*\](?:<std(?:out|err)>)?:?\s?|\s{0,3}\d+:\s)")
_MIDLINE_LABEL_RE = re.compile(r"\[\d+(?:,\d+)*\](?:<std(?:out|err)>:)?")
# An NCCL log line: "host:pid:tid [dev] NCCL INFO ..."; the host token is found by walking back.
_NCCL_LOG_RE = re.compile(r":\d+:\d+ \[\d+\] NCCL (?:INFO|WARN|TRACE|ABORT|VERSION)\b")

# Column names of the header line -> (field, kind). Kinds: int, word, float, check, skip.
_PREFIX_COLUMNS = {
    "size": ("size", "int"), "bytes": ("size", "int"),
    "count": ("count", "int"), "N": ("count", "int"),
    "type": ("type", "word"),
    "redop": ("redop", "word"), "op": ("redop", "word"),
    "root": ("root", "int"),
}
_HALF_COLUMNS = {
    "time": ("time", "float"), "cputime": ("time", "float"),
    "algbw": ("algbw", "float"), "busbw": ("busbw", "float"),
    "#wrong": ("wrong", "check"), "error": ("wrong", "check"), "res": ("wrong", "check"),
    "copybw": (None, "float"), "sidebw": (None, "float"),
    "i_min": (None, "float"), "i_max": (None, "float"), "i_p99": (None, "float"), "i_cv%": (None, "float"),
}
_INT_RE = re.compile(r"^-?\d+$")
_FLOAT_RE = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


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


@dataclass(frozen=True)
class NcclTestsLog:
    """A parsed nccl-tests run (see :func:`read_nccl_tests`).

    Attributes
    ----------
    rows : tuple of NcclTestsRow
        The table, in printed order.
    n_ranks : int or None
        Ranks listed by the ``# Rank … device …`` header (NCCL 1: ``# Device …``), ``None`` if absent.
    collective : str or None
        The book's primitive name (``"all_reduce"``, ``"all_to_all"`` …) when the text names the
        program (``# Collective test starting:`` line or an ``…_perf`` command), else ``None``.
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

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> np.ndarray:
        """One field of every row as a float array (``None`` becomes NaN).

        >>> log = read_nccl_tests(_EXAMPLE)
        >>> log.column("size").tolist()
        [1024.0, 1048576.0]
        """
        names = [f for f in NcclTestsRow.__dataclass_fields__ if f not in ("type", "redop")]
        check_choice("name", name, names)
        return np.array([np.nan if getattr(r, name) is None else float(getattr(r, name)) for r in self.rows])

    @property
    def n_hosts(self) -> int | None:
        """Distinct hosts in the rank lines (a proxy for the node count), ``None`` if unknown."""
        return len(self.hosts) or None


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


class _Column:
    __slots__ = ("name", "field", "kind", "half")

    def __init__(self, name, field_, kind, half):
        self.name, self.field, self.kind, self.half = name, field_, kind, half


def _parse_header(tokens: list[str], lineno: int, text: str) -> tuple[list[_Column], str | None]:
    columns: list[_Column] = []
    half = -1
    check = None
    for token in tokens:
        if token in _PREFIX_COLUMNS and half < 0:
            f, kind = _PREFIX_COLUMNS[token]
            columns.append(_Column(token, f, kind, None))
        elif token in ("time", "cputime"):
            half += 1
            if half > 1:
                raise ValueError(f"line {lineno}: header has more than two time columns: {text.strip()!r}")
            columns.append(_Column(token, "time", "float", half))
        elif token in _HALF_COLUMNS and half >= 0:
            f, kind = _HALF_COLUMNS[token]
            if kind == "check":
                check = token
            columns.append(_Column(token, f, kind, half))
        elif token == "timestamp":
            columns.append(_Column(token, None, "timestamp", None))
        else:
            raise ValueError(f"line {lineno}: unknown column {token!r} in the header {text.strip()!r}")
    if half < 0 or not any(c.field == "size" for c in columns) or not any(c.field == "busbw" for c in columns):
        raise ValueError(f"line {lineno}: header lacks size, time or busbw: {text.strip()!r}")
    return columns, check


def _strip_prefix(line: str) -> tuple[str, bool]:
    match = _PREFIX_RE.match(line)
    if not match:
        return line, False
    return line[match.end():], True


def _cut_nccl_log(line: str) -> tuple[str, bool]:
    """Text before an NCCL log segment (the segment runs to the end of the line), and whether one was cut."""
    match = _NCCL_LOG_RE.search(line)
    if not match:
        return line, False
    return line[: match.start()], True


def _split_host(before: str) -> tuple[str, str]:
    """``before`` ends with the NCCL log line's host name; return (text before the host, host token)."""
    stripped = before.rstrip()
    i = len(stripped)
    while i > 0 and not stripped[i - 1].isspace():
        i -= 1
    return stripped[:i], stripped[i:]


def _number(token: str, kind: str, column: str, lineno: int, line: str):
    if kind == "int":
        if not _INT_RE.match(token):
            raise ValueError(f"line {lineno}: column {column!r} needs an integer, got {token!r}: {line.strip()!r}")
        return int(token)
    if kind == "word":
        if _FLOAT_RE.match(token):
            raise ValueError(f"line {lineno}: column {column!r} needs a name, got the number {token!r}: {line.strip()!r}")
        return token
    if kind == "check" and token.upper() == "N/A":
        return None
    if not _FLOAT_RE.match(token):
        raise ValueError(f"line {lineno}: column {column!r} needs a number, got {token!r}: {line.strip()!r}")
    value = float(token)
    if not math.isfinite(value) or (kind == "float" and value < 0):
        raise ValueError(f"line {lineno}: column {column!r} needs a finite number >= 0, got {token!r}: {line.strip()!r}")
    return value


def _expected_tokens(columns: list[_Column]) -> int:
    return sum(2 if c.kind == "timestamp" else 1 for c in columns)


def _build_row(columns, tokens, first_line, unit, lines) -> NcclTestsRow:
    values: dict = {"type": None, "redop": None, "root": None}
    halves = [dict(), dict()]
    pos = 0
    for col in columns:
        if col.kind == "timestamp":
            pos += 2
            continue
        token, lineno = tokens[pos]
        pos += 1
        value = _number(token, col.kind, col.name, lineno, lines[lineno - 1])
        if col.field is None:
            continue
        if col.half is None:
            values[col.field] = value
        else:
            halves[col.half][col.field] = value
    if "count" not in values:
        values["count"] = None
    for h, suffix in ((0, ""), (1, "_inplace")):
        half = halves[h]
        values["time_s" + suffix] = half["time"] * unit if "time" in half else None
        values["algbw_Bps" + suffix] = half["algbw"] * 1e9 if "algbw" in half else None
        values["busbw_Bps" + suffix] = half["busbw"] * 1e9 if "busbw" in half else None
        values["wrong" + suffix] = half.get("wrong")
    return NcclTestsRow(line=first_line, **values)


def read_nccl_tests(text, collective=None) -> NcclTestsLog:
    """Parse the output of one nccl-tests run into an :class:`NcclTestsLog`.

    Parameters
    ----------
    text : str
        What the program printed (a log file's content). At most :data:`MAX_TEXT_CHARS`
        characters; one result table (split concatenated runs first).
    collective : str, optional
        The primitive (one of :data:`ccb_helpers.PRIMITIVES`) when the text does not name its
        program; overrides what the text says.

    Returns
    -------
    NcclTestsLog
        ``log.n_ranks``, ``log.collective`` and ``log.rows`` (each with ``size``, ``count``,
        ``type``, ``redop``, ``root``, ``time_s``, ``algbw_Bps``, ``busbw_Bps``, ``wrong`` and the
        same names with ``_inplace``), in SI units (seconds, bytes, bytes/s).

    Raises
    ------
    ValueError
        No result table, a second table, a row that cannot be read or that stops short (the
        message names the line number and quotes the line), rank lines that are not 0..N-1.
    TypeError
        ``text`` is not a string.

    Examples
    --------
    >>> log = read_nccl_tests(_EXAMPLE)
    >>> log.n_ranks, log.collective, len(log.rows)
    (2, None, 2)
    >>> row = log.rows[1]
    >>> row.size, row.type, row.redop, row.root, row.time_s, row.busbw_Bps, row.wrong, row.wrong_inplace
    (1048576, 'float', 'sum', -1, 0.0001049, 10000000000.0, 0.0, None)
    >>> read_nccl_tests("nothing here")
    Traceback (most recent call last):
    ...
    ValueError: no nccl-tests result table found (no header line with 'time', 'algbw' and 'busbw')
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string (the printed output), got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"text has {len(text)} characters; the reader accepts at most {MAX_TEXT_CHARS}")
    if collective is not None:
        collective = check_choice("collective", collective, PRIMITIVES)
    return _read(text, collective)


def _read(text: str, collective: str | None) -> NcclTestsLog:
    lines = text.splitlines()
    columns: list[_Column] | None = None
    check = None
    header_line = 0
    unit = None
    legacy_names = False
    rows: list[NcclTestsRow] = []
    pending: list[tuple[str, int]] = []
    pending_line = 0
    expected = 0
    ranks: dict[int, tuple[str, str]] = {}
    finished = False
    avg = oob = None
    tests_version = None
    library_code = None

    def fail_pending(lineno: int, line: str, why: str):
        raise ValueError(
            f"line {pending_line}: the row starting there is cut short ({why} at line {lineno}: {line.strip()!r}): "
            f"{lines[pending_line - 1].strip()!r}"
        )

    for lineno, raw in enumerate(lines, start=1):
        line, labelled = _strip_prefix(raw)
        line, had_log = _cut_nccl_log(line)
        glued_host = ""
        if had_log:
            line, glued_host = _split_host(line)
        if labelled:
            line = _MIDLINE_LABEL_RE.sub(" ", line)
        stripped = line.strip()
        if not stripped and not glued_host:
            continue
        if stripped.startswith("#"):
            body = stripped[1:].strip()
            if pending:
                fail_pending(lineno, raw, "a comment line follows")
            tokens = body.split()
            if "algbw" in tokens and "busbw" in tokens:
                if columns is not None:
                    raise ValueError(
                        f"line {lineno}: a second result table starts here (the first began at line {header_line}); "
                        f"split the text into one run per call: {raw.strip()!r}"
                    )
                columns, check = _parse_header(tokens, lineno, raw)
                header_line = lineno
                legacy_names = "bytes" in tokens or "res" in tokens
                expected = _expected_tokens(columns)
                continue
            if columns is not None and unit is None and ("(us)" in tokens or "(ms)" in tokens or "(B)" in tokens):
                unit = 1e-3 if "(ms)" in tokens else 1e-6
                continue
            if (m := _RANK_RE.match(stripped)) is not None:
                ranks[int(m.group(1))] = (m.group(2) or "", m.group(4).strip())
                continue
            if (m := _DEVICE_RE.match(stripped)) is not None:
                ranks[int(m.group(1))] = ("", m.group(3).strip())
                continue
            if (m := _FOOTER_OOB_RE.match(stripped)) is not None:
                oob = int(m.group(1))
                finished = columns is not None
                continue
            if (m := _FOOTER_AVG_RE.match(stripped)) is not None:
                try:
                    avg = float(m.group(1)) * 1e9
                except ValueError:
                    raise ValueError(f"line {lineno}: the average bus bandwidth is not a number: {raw.strip()!r}") from None
                finished = columns is not None
                continue
            if (m := _TESTS_VERSION_RE.match(stripped)) is not None:
                tests_version = m.group(1)
                library_code = m.group(2)
            continue
        tokens = stripped.split()
        if glued_host:
            # A row's prefix followed directly by an NCCL log line ("-1host:pid:tid [0] NCCL INFO"):
            # the digits glued to the host name are the row's last printed value.
            glued = re.match(r"^(-?\d+)(?=[A-Za-z_])", glued_host)
            if glued and columns is not None and tokens:
                tokens.append(glued.group(1))
            if not tokens:
                continue
        if columns is None or finished:
            continue  # command lines, launcher messages, NCCL version lines, text after the footer
        if pending:
            pending.extend((t, lineno) for t in tokens)
        elif _INT_RE.match(tokens[0]):
            pending = [(t, lineno) for t in tokens]
            pending_line = lineno
        else:
            continue  # a message between rows (warnings, launcher noise)
        # Check the tokens seen so far against their columns, so an error message cut into a row
        # is reported at once.
        pos = 0
        for col in columns:
            width = 2 if col.kind == "timestamp" else 1
            if pos >= len(pending):
                break
            if col.kind != "timestamp":
                token, tline = pending[pos]
                try:
                    _number(token, col.kind, col.name, tline, lines[tline - 1])
                except ValueError as error:
                    if tline == pending_line:
                        raise
                    raise ValueError(f"{error} (continuing the row that starts at line {pending_line})") from None
            pos += width
        if len(pending) > expected:
            raise ValueError(
                f"line {pending_line}: row has {len(pending)} values but the header (line {header_line}) has "
                f"{expected} columns: {lines[pending_line - 1].strip()!r}"
            )
        if len(pending) == expected:
            if unit is None:
                unit = 1e-3 if legacy_names else 1e-6
            rows.append(_build_row(columns, pending, pending_line, unit, lines))
            pending = []
    if columns is None:
        raise ValueError("no nccl-tests result table found (no header line with 'time', 'algbw' and 'busbw')")
    if pending:
        raise ValueError(
            f"line {pending_line}: the text ends inside this row (truncated?): {lines[pending_line - 1].strip()!r}"
        )
    if not rows:
        raise ValueError(f"line {header_line}: the result table has a header but no rows (truncated?)")
    n_ranks = None
    if ranks:
        if sorted(ranks) != list(range(len(ranks))):
            raise ValueError(f"rank lines list ranks {sorted(ranks)}, not 0..N-1; cannot tell the rank count")
        n_ranks = len(ranks)
    hosts = tuple(dict.fromkeys(h for h, _ in (ranks[r] for r in sorted(ranks)) if h))
    devices = tuple(ranks[r][1] for r in sorted(ranks))
    if collective is None:
        collective = _collective_from_text(text)
    nccl_version = None
    if (m := _NCCL_VERSION_RE.search(text)) is not None:
        nccl_version = m.group(1)
    elif library_code and library_code.isdigit():
        code = int(library_code)
        nccl_version = f"{code // 10000}.{code // 100 % 100}.{code % 100}" if code >= 20900 else f"{code // 1000}.{code // 100 % 10}.{code % 100}"
    return NcclTestsLog(
        rows=tuple(rows), n_ranks=n_ranks, collective=collective, hosts=hosts, devices=devices,
        check_column=check, time_unit_s=unit if unit is not None else 1e-6, nccl_version=nccl_version,
        tests_version=tests_version, avg_busbw_Bps=avg, out_of_bounds=oob, header_line=header_line,
    )


def _collective_from_text(text: str) -> str | None:
    match = _STARTING_RE.search(text)
    if match:
        found = _PROGRAM_RE.search(match.group(1))
        return _PROGRAMS[found.group(1)] if found else None
    names = {m.group(1) for m in _PROGRAM_RE.finditer(text)}
    if len(names) == 1:
        return _PROGRAMS[names.pop()]
    return None


# -- holding a log against the bound -------------------------------------------------------------


def _nbsp(text: str) -> str:
    """Keep a number and its unit on one line in narrow tables."""
    return text.replace(" ", "\u00a0")


def _ring_steps(primitive: str, n: int) -> int:
    """Rounds of the ring algorithms nccl-tests' numbers come from (NCCL's ring, pipelined)."""
    return 2 * (n - 1) if primitive == "all_reduce" else n - 1


def busbw_ceiling(primitive, n, m, alpha, beta, ports=1, latency_ports=None):
    """The largest busbw any algorithm can show at size ``m``: ``c(N) M / T_min`` in bytes/s.

    ``T_min`` is the combined lower bound (``eq:cc-bound-combined``) with the bandwidth term over
    ``ports`` links of ``beta`` bytes/s and the latency term ``ceil(log_{k+1} N) alpha`` with
    ``k = latency_ports`` (default ``ports``; all-port networks drive many peers at once but
    share one NIC's bandwidth). ``c(N)`` is nccl-tests' busbw factor, which is
    :func:`~ccb_helpers.volume_coefficient`. Large messages: the ceiling tends to ``ports * beta``;
    measured busbw / ceiling = bound time / measured time (the efficiency).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int
        Ranks, ``n >= 2``.
    m : float or array
        Message size in bytes (nccl-tests' ``size`` column), ``>= 0``.
    alpha : float
        Latency per round, seconds (``>= 0``).
    beta : float
        Bandwidth of one link in one direction, bytes/s (``> 0``).
    ports, latency_ports : int
        Links used in parallel for bandwidth, and for the latency bound.

    Raises
    ------
    ValueError
        Arguments out of range, or more than :data:`MAX_SIZES` sizes at once.

    Examples
    --------
    8 ranks, AllReduce, 1 µs, 100 GB/s: 1 GiB is bandwidth-bound, so the ceiling is β:

    >>> round(busbw_ceiling("all_reduce", 8, 2**30, 1e-6, 100e9) / 1e9, 6)
    100.0
    >>> busbw_ceiling("all_reduce", 8, 1000, 1e-6, 100e9) / 1e9   # 1.75 kB / (3 us)
    0.5833333333333334
    """
    n = check_int("n", n, minimum=2, maximum=2**24)
    m = check_real("m", m)
    if np.size(m) > MAX_SIZES:
        raise ValueError(f"m has {np.size(m)} sizes; at most {MAX_SIZES} are evaluated at once")
    alpha = check_real("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    ports = check_int("ports", ports, minimum=1)
    latency_ports = ports if latency_ports is None else check_int("latency_ports", latency_ports, minimum=1)
    return _busbw_ceiling(check_choice("primitive", primitive, PRIMITIVES), n, m, alpha, beta, ports, latency_ports)


def _busbw_ceiling(primitive, n, m, alpha, beta, ports, latency_ports):
    coefficient = volume_coefficient(primitive, n)
    volume = coefficient * np.asarray(m, dtype=float)
    t_alpha = latency_lower_bound(primitive, n, alpha, ports=latency_ports)
    # Bandwidth-bound sizes reach the link rate exactly: dividing c M by c M / (p beta) would
    # round (for tiny M by more than an ulp), so that branch returns p beta itself.
    bandwidth_bound = volume >= t_alpha * (ports * beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        ceiling = np.where(bandwidth_bound, ports * beta, volume / np.where(bandwidth_bound, 1.0, t_alpha))
    return float(ceiling) if np.ndim(ceiling) == 0 else ceiling


def two_level_busbw_ceiling(primitive, n_ranks, n_nodes, beta, node_beta=None, ports=1):
    """Large-message busbw ceiling of GPUs in nodes: endpoint links and each node's network.

    Two cuts bound the time (chapter 3's endpoint bound, chapter 5's cut around a node): every
    GPU moves ``c(N) M`` over ``ports * beta``, and every node — its GPUs together — must move
    the forced volume of the same primitive among ``K = n_nodes`` nodes, ``c(K) M``, through its
    network bandwidth ``node_beta``. So

    .. math:: \\text{busbw} = \\frac{c(N) M}{T} \\le \\min\\Big(p\\beta,\\ \\frac{c(N)}{c(K)}\\,\\beta_{\\text{node}}\\Big).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n_ranks, n_nodes : int
        GPUs and nodes, ``2 <= n_ranks``, ``1 <= n_nodes <= n_ranks``.
    beta : float
        Per-GPU link bandwidth per direction, bytes/s (NVLink: the GPU's total into the switch).
    node_beta : float, optional
        Network bandwidth per node per direction, bytes/s (required when ``n_nodes > 1``).
    ports : int, default 1
        Links of ``beta`` a GPU drives at once.

    Examples
    --------
    16 H100 on 2 nodes (450 GB/s NVLink each, 8 x 200 Gb/s NICs = 200 GB/s per node):
    AllReduce's node term is 1.875 / 1 * 200 = 375 GB/s, below NVLink's 450.

    >>> two_level_busbw_ceiling("all_reduce", 16, 2, 450e9, 200e9) / 1e9
    375.0
    >>> two_level_busbw_ceiling("all_reduce", 8, 1, 450e9) / 1e9
    450.0
    """
    primitive = check_choice("primitive", primitive, PRIMITIVES)
    n_ranks = check_int("n_ranks", n_ranks, minimum=2, maximum=2**24)
    n_nodes = check_int("n_nodes", n_nodes, minimum=1, maximum=n_ranks)
    beta = check_bandwidth("beta", beta)
    ports = check_int("ports", ports, minimum=1)
    ceiling = ports * beta
    if n_nodes > 1:
        if node_beta is None:
            raise ValueError(f"node_beta (bytes/s per node) is required for n_nodes = {n_nodes} > 1")
        node_beta = check_bandwidth("node_beta", node_beta)
        ceiling = min(ceiling, volume_coefficient(primitive, n_ranks) / volume_coefficient(primitive, n_nodes) * node_beta)
    return float(ceiling)


@dataclass(frozen=True)
class AlphaBeta:
    """A least-squares fit of ``t(M) = steps * alpha + c(N) M / beta`` to measured times.

    Attributes
    ----------
    alpha : float
        Seconds per round (the fitted intercept over ``steps``).
    beta : float
        Bytes/s per link (``c(N)`` over the fitted slope), ``inf`` if the times do not grow with M.
    steps : int
        Rounds of the ring algorithm assumed (``2(N-1)`` for AllReduce, ``N-1`` otherwise).
    intercept_s, seconds_per_byte : float
        The fitted line ``t = intercept + slope * M``.
    rms_relative_error : float
        Root-mean-square of ``(t_fit - t) / t`` over the rows used.
    points : int
        Rows used (size > 0).
    """

    alpha: float
    beta: float
    steps: int
    intercept_s: float
    seconds_per_byte: float
    rms_relative_error: float
    points: int


def fit_alpha_beta(log, n_ranks=None, collective=None, min_size=1, max_size=None, inplace=False) -> AlphaBeta:
    """Fit α and β to a log's measured times, with the ring algorithm's step count.

    NCCL's large-message algorithms are pipelined rings, whose cost in the α-β model is
    ``t(M) = steps * alpha + c(N) M / beta`` (``steps = 2(N-1)`` for AllReduce, ``N-1`` for the
    others; ``c(N)`` the busbw factor, since the ring moves exactly the forced volume). The line
    ``t = a + b M`` is fitted by least squares on the *relative* error (weights ``1/t^2``), so
    microsecond and second-long rows count alike; a negative intercept is clipped to 0.

    Parameters
    ----------
    log : NcclTestsLog
        From :func:`read_nccl_tests`.
    n_ranks, collective : optional
        Override (or supply) what the log says.
    min_size, max_size : float, optional
        Rows with ``min_size <= size <= max_size`` bytes are used (default: every non-empty row).
    inplace : bool, default False
        Fit the in-place half instead of the out-of-place one.

    Returns
    -------
    AlphaBeta

    Raises
    ------
    ValueError
        Fewer than two usable rows of different sizes, or rank count / collective unknown.

    Examples
    --------
    Two rows made from alpha = 1 us, beta = 10 GB/s on 2 ranks (AllReduce: 2 steps, c = 1):

    >>> text = _EXAMPLE.replace("10.24", "2.102").replace("104.9", "106.9")
    >>> fit = fit_alpha_beta(read_nccl_tests(text), collective="all_reduce")
    >>> round(fit.alpha * 1e6, 3), round(fit.beta / 1e9, 2), fit.steps
    (1.0, 10.0, 2)
    """
    log, n, primitive = _log_context(log, n_ranks, collective)
    min_size = check_real("min_size", min_size)
    max_size = math.inf if max_size is None else check_real("max_size", max_size)
    if not isinstance(inplace, bool):
        raise TypeError(f"inplace must be True or False, got {inplace!r}")
    suffix = "_inplace" if inplace else ""
    sizes, times = [], []
    for row in log.rows:
        t = getattr(row, "time_s" + suffix)
        if row.size > 0 and min_size <= row.size <= max_size and t is not None and t > 0:
            sizes.append(float(row.size))
            times.append(t)
    if len(set(sizes)) < 2:
        raise ValueError(f"need at least two rows of different sizes in [{min_size}, {max_size}] bytes to fit alpha and beta, got {len(sizes)}")
    return _fit(np.array(sizes), np.array(times), n, primitive)


def _fit(sizes, times, n, primitive) -> AlphaBeta:
    weights = 1.0 / times
    design = np.column_stack([weights, sizes * weights])
    (a, b), *_ = np.linalg.lstsq(design, np.ones_like(times), rcond=None)
    if a < 0:  # no negative latency: refit the slope alone
        a = 0.0
        b = float(np.sum(sizes * weights * weights * times) / np.sum((sizes * weights) ** 2))
    b = max(float(b), 0.0)
    steps = _ring_steps(primitive, n)
    coefficient = volume_coefficient(primitive, n)
    fitted = a + b * sizes
    rms = float(np.sqrt(np.mean(((fitted - times) / times) ** 2)))
    return AlphaBeta(
        alpha=float(a) / steps, beta=coefficient / b if b > 0 else math.inf, steps=steps,
        intercept_s=float(a), seconds_per_byte=b, rms_relative_error=rms, points=len(sizes),
    )


def _log_context(log, n_ranks, collective):
    if not isinstance(log, NcclTestsLog):
        raise TypeError(f"log must be an NcclTestsLog (from read_nccl_tests), got {type(log).__name__}")
    n = log.n_ranks if n_ranks is None else check_int("n_ranks", n_ranks, minimum=2, maximum=2**24)
    if n is None:
        raise ValueError("the log has no '# Rank' lines: pass n_ranks")
    if n < 2:
        raise ValueError(f"the bound needs at least 2 ranks, the log has {n}")
    primitive = log.collective if collective is None else check_choice("collective", collective, PRIMITIVES)
    if primitive is None:
        raise ValueError("the log does not name its collective: pass collective (one of " + ", ".join(PRIMITIVES) + ")")
    return log, n, primitive


def nccl_tests_report(log, alpha, beta, ports=1, latency_ports=None, n_ranks=None, collective=None):
    """Each row of a log against the lower bound: busbw, the bound's ceiling, efficiency, regime.

    Efficiency is bound time / measured time = measured busbw / ceiling (:func:`busbw_ceiling`),
    from the out-of-place half. A busbw above the ceiling is not reported as an efficiency above
    1: the row is flagged instead, ``"endpoint"`` when busbw exceeds ``ports * beta`` (only
    in-network reduction — NVLS, SHARP — or a faster path than β can do that; with in-network
    reduction each endpoint sends and receives just ``M``, so AllReduce's ceiling becomes
    ``2(N-1)/N * ports * beta``) and ``"latency"`` when the time is below the latency bound
    (α is set above this system's).

    Parameters
    ----------
    log : NcclTestsLog
        From :func:`read_nccl_tests`.
    alpha : float
        Latency per round, seconds.
    beta : float
        Bandwidth per link per direction, bytes/s.
    ports, latency_ports : int
        As in :func:`busbw_ceiling`.
    n_ranks, collective : optional
        Override (or supply) what the log says.

    Returns
    -------
    Table
        Columns 大小, 效率, 区间, 实测 busbw, 上限 busbw (the verdict first, so it stays visible on a
        phone); ``values`` holds one dict per row with
        ``size``, ``busbw``, ``ceiling``, ``efficiency`` (``None`` when flagged), ``flag``
        (``None``, ``"endpoint"`` or ``"latency"``), ``regime`` and ``bound_time``.

    Examples
    --------
    >>> t = nccl_tests_report(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce")
    >>> [round(v["efficiency"], 3) for v in t.values], [v["regime"] for v in t.values]
    ([0.098, 0.5], ['latency', 'bandwidth'])
    """
    from .tables import Table
    from .units import format_bandwidth, format_bytes

    log, n, primitive = _log_context(log, n_ranks, collective)
    alpha = check_real("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    ports = check_int("ports", ports, minimum=1)
    latency_ports = ports if latency_ports is None else check_int("latency_ports", latency_ports, minimum=1)
    coefficient = volume_coefficient(primitive, n)
    t_alpha = latency_lower_bound(primitive, n, alpha, ports=latency_ports)
    rows, values = [], []
    for row in log.rows:
        if row.size == 0:
            continue
        busbw = coefficient * row.size / row.time_s
        ceiling = _busbw_ceiling(primitive, n, row.size, alpha, beta, ports, latency_ports)
        t_beta = coefficient * row.size / (ports * beta)
        bound_time = max(t_alpha, t_beta)
        regime = "latency" if t_alpha > t_beta else "bandwidth"
        flag = None
        efficiency = bound_time / row.time_s
        if efficiency > 1.0 + 1e-9:
            flag = "endpoint" if busbw > ports * beta else "latency"
            efficiency = None
        values.append({"size": row.size, "busbw": busbw, "ceiling": ceiling, "efficiency": efficiency, "flag": flag,
                       "regime": regime, "bound_time": bound_time, "time": row.time_s})
        shown = f"{efficiency:.2f}" if efficiency is not None else ("超端点上限" if flag == "endpoint" else "快于延迟界")
        rows.append([_nbsp(format_bytes(row.size)), shown, "延迟" if regime == "latency" else "带宽",
                     _nbsp(format_bandwidth(busbw)), _nbsp(format_bandwidth(ceiling))])
    headers = ["大小", "效率", "区间", "实测 busbw", "上限 busbw"]
    caption = (f"{primitive}，N = {n}：α = {alpha * 1e6:.3g} µs，β = {beta / 1e9:.3g} GB/s，p = {ports}"
               f"（效率 = 下界时间 / 实测时间 = 实测 busbw / 上限）")
    return Table(headers, rows, caption, values)


# -- command line ------------------------------------------------------------------------------

_USAGE_EXAMPLE = "python -m ccb_helpers.nccl_tests all_reduce.log --preset h100_nvswitch --plot report.png"


def _plot(log, n, primitive, alpha, beta, ports, latency_ports, report, path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from .plotting import COLORS, use_book_style

    use_book_style()
    figure = Figure(figsize=(9.0, 3.8))
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2)
    sizes = np.array([v["size"] for v in report.values], dtype=float)
    busbw = np.array([v["busbw"] for v in report.values]) / 1e9
    grid = np.geomspace(sizes.min(), sizes.max(), 200)
    left.plot(sizes, busbw, "o-", color=COLORS["ring"], markersize=3, label="实测 busbw")
    left.plot(grid, _busbw_ceiling(primitive, n, grid, alpha, beta, ports, latency_ports) / 1e9, color=COLORS["bound"],
              label="下界给出的上限")
    left.axhline(ports * beta / 1e9, color=COLORS["bound"], linestyle=":", linewidth=1, label="p·β")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("消息大小 M（字节）")
    left.set_ylabel("busbw（GB/s）")
    left.legend(fontsize=9, loc="lower right")
    efficiency = [v["efficiency"] for v in report.values]
    ok = [i for i, e in enumerate(efficiency) if e is not None]
    flagged = [i for i, e in enumerate(efficiency) if e is None]
    right.plot(sizes[ok], [efficiency[i] for i in ok], "o-", color=COLORS["latency"], markersize=3, label="下界时间 / 实测时间")
    if flagged:
        right.plot(sizes[flagged], np.ones(len(flagged)), "x", color=COLORS["bandwidth"], label="超过上限（标记）")
    right.set_xscale("log", base=2)
    right.set_ylim(0, 1.05)
    right.set_xlabel("消息大小 M（字节）")
    right.set_ylabel("效率")
    right.legend(fontsize=9, loc="upper left")
    figure.suptitle(f"{primitive}，N = {n}：α = {alpha * 1e6:.3g} µs，β = {beta / 1e9:.3g} GB/s，p = {ports}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=200)


def main(argv=None) -> int:
    """Command line: ``python -m ccb_helpers.nccl_tests LOGFILE [--preset KEY | --alpha S --beta BPS --ports P]``.

    Prints, per message size, the measured busbw, the bound's busbw ceiling, the efficiency
    (bound time / measured time) and the regime, then α and β fitted to the measured times.
    Returns 0, or 2 on bad input (missing file, unparseable log, bad numbers) after printing why.

    >>> main(["/no/such/file.log", "--alpha", "1e-6", "--beta", "1e11"])
    2
    """
    import argparse

    from .hardware import PRESETS
    from .units import format_bytes

    parser = argparse.ArgumentParser(
        prog="python -m ccb_helpers.nccl_tests",
        description="Hold an nccl-tests log against the collective-communication lower bound.",
        epilog=f"Example: {_USAGE_EXAMPLE}",
    )
    parser.add_argument("logfile", help="text printed by all_reduce_perf, all_gather_perf, ... (one run)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--preset", choices=sorted(PRESETS), help="hardware preset giving alpha, beta and ports")
    source.add_argument("--alpha", type=float, help="latency per round, seconds (with --beta)")
    parser.add_argument("--beta", type=float, help="bandwidth per link per direction, bytes/s")
    parser.add_argument("--ports", type=int, default=1, help="links used in parallel (default 1)")
    parser.add_argument("--collective", choices=PRIMITIVES, help="when the log does not name its program")
    parser.add_argument("--ranks", type=int, help="when the log has no '# Rank' lines")
    parser.add_argument("--plot", metavar="OUT.png", help="also draw busbw and efficiency against size")

    def fail(message: str) -> int:
        print(f"error: {message}", file=sys.stderr)
        return 2

    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        with open(args.logfile, encoding="utf-8", errors="replace") as handle:
            text = handle.read(MAX_TEXT_CHARS + 1)
    except OSError as error:
        return fail(f"cannot read {args.logfile}: {error.strerror or error}")
    try:
        log = read_nccl_tests(text, collective=args.collective)
        if log.collective is None:
            return fail("the log does not name its program (no '..._perf' command, no 'Collective test starting' line): "
                        "pass --collective, one of " + ", ".join(PRIMITIVES))
        if log.n_ranks is None and args.ranks is None:
            return fail("the log has no '# Rank ... device ...' lines: pass --ranks N")
        n = log.n_ranks if args.ranks is None else args.ranks
        if args.preset:
            preset = PRESETS[args.preset]
            alpha, beta = preset.alpha, preset.beta
            # All-port presets drive many peers at once (latency) through one NIC (bandwidth).
            ports = preset.ports or 1
            latency_ports = preset.ports_for(n) if (n is not None and n >= 2) else ports
            label = f"preset {preset.key}: {preset.label}"
        else:
            if args.beta is None:
                return fail("--alpha needs --beta (bytes/s), e.g. --alpha 2e-6 --beta 50e9")
            alpha, beta, ports = args.alpha, args.beta, args.ports
            latency_ports = ports
            label = "alpha/beta from the command line"
        report = nccl_tests_report(log, alpha, beta, ports=ports, latency_ports=latency_ports, n_ranks=n,
                                   collective=log.collective if args.collective is None else args.collective)
        log, n, primitive = _log_context(log, n, args.collective)
        fit = _fit_or_none(log, n, primitive)
        if args.plot:
            _plot(log, n, primitive, alpha, beta, ports, latency_ports, report, args.plot)
    except (ValueError, TypeError) as error:
        return fail(str(error))
    except OSError as error:
        return fail(f"cannot write {args.plot}: {error.strerror or error}")

    first = log.rows[0]
    hosts = f" on {len(log.hosts)} hosts" if log.hosts else ""
    print(f"nccl-tests log: {args.logfile}")
    print(f"collective {primitive}, {n} ranks{hosts}, {len(log.rows)} rows"
          f"{', NCCL ' + log.nccl_version if log.nccl_version else ''}"
          f"{', type ' + first.type if first.type else ''}{', op ' + first.redop if first.redop else ''}")
    print(f"bound: {label}; alpha = {alpha * 1e6:.4g} us, beta = {beta / 1e9:.4g} GB/s, ports = {ports}"
          f"{f' (latency bound with {latency_ports} ports)' if latency_ports != ports else ''}")
    print(f"endpoint busbw ceiling p*beta = {ports * beta / 1e9:.4g} GB/s")
    print()
    varied = len({(r.type, r.redop, r.root) for r in log.rows if r.size > 0}) > 1
    print(f"{'size':>10}  {'busbw GB/s':>10}  {'ceiling GB/s':>12}  {'efficiency':>10}  regime" + ("     type/op" if varied else ""))
    notes = set()
    described = [r for r in log.rows if r.size > 0]
    for v, row in zip(report.values, described):
        if v["efficiency"] is not None:
            shown = f"{v['efficiency']:.2f}"
        elif v["flag"] == "endpoint":
            shown = "> p*beta"
            notes.add("endpoint")
        else:
            shown = "< latency"
            notes.add("latency")
        extra = f"  {row.type}/{row.redop}" if varied else ""
        print(f"{format_bytes(v['size']):>10}  {v['busbw'] / 1e9:>10.2f}  {v['ceiling'] / 1e9:>12.2f}  {shown:>10}  {v['regime']:<9}{extra}")
    print()
    if "endpoint" in notes:
        in_network = volume_coefficient(primitive, n) * ports * beta if primitive in ("all_reduce",) else None
        print("> p*beta: busbw exceeds the endpoint ceiling p*beta, which no algorithm that only sends and receives "
              "through the endpoints can reach. Either the network reduces in flight (NVLS, SHARP: each endpoint "
              "then moves only M"
              + (f", so AllReduce's ceiling is 2(N-1)/N*p*beta = {in_network / 1e9:.4g} GB/s" if in_network else "")
              + ") or the traffic has a faster path than beta (e.g. NVLink inside a node when beta is the NIC).")
    if "latency" in notes:
        print("< latency: the time is below the latency bound ceil(log_{k+1} N)*alpha: alpha is set above this system's.")
    if fit is None:
        print("fit: needs at least two non-empty rows of different sizes")
    else:
        print(f"fit (ring, {fit.steps} steps, least squares on relative error over {fit.points} rows): "
              f"alpha = {fit.alpha * 1e6:.3g} us, beta = {fit.beta / 1e9:.4g} GB/s "
              f"(rms relative error {100 * fit.rms_relative_error:.0f} %)")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def _fit_or_none(log, n, primitive):
    try:
        return fit_alpha_beta(log, n_ranks=n, collective=primitive)
    except ValueError:
        return None


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess in the tests
    sys.exit(main())
