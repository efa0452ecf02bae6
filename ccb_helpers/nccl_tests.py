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
]

#: Largest text the reader accepts (characters): real logs with NCCL_DEBUG=INFO stay far below.
MAX_TEXT_CHARS = 50_000_000

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
