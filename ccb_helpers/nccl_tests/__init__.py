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

from .._validation import check_bandwidth, check_choice, check_int, check_real
from ..bandwidth import volume_coefficient
from ..bounds import latency_lower_bound
from ..primitives import PRIMITIVES

__all__ = [
    "NcclTestsRow",
    "NcclTestsLog",
    "read_nccl_tests",
    "read_nccl_tests_runs",
    "nccl_tests_report",
    "fit_alpha_beta",
    "busbw_ceiling",
    "two_level_busbw_ceiling",
    "AlphaBeta",
]

#: Largest text the reader accepts (characters, about 10 s of reading here): a run with
#: ``NCCL_DEBUG=INFO`` on a few hundred ranks stays well below; split bigger files by run.
MAX_TEXT_CHARS = 20_000_000
#: Most table rows the reader accepts in one text (a full ``-d all -o all`` sweep has ~2000).
MAX_ROWS = 20_000
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
# Launcher prefixes: Open MPI --tag-output "[1,0]<stdout>:", --timestamp-output
# "Thu Jul 18 15:41:05 2024<stdout>:" (alone or before the tag), "[0] ", slurm --label "0: ".
_OMPI_TIME = r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]?\d \d{2}:\d{2}:\d{2} \d{4}"
_PREFIX_RE = re.compile(
    rf"^(?:(?:{_OMPI_TIME})?\[\d+(?:,\d+)*\](?:<std(?:out|err)>)?:?\s?|{_OMPI_TIME}<std(?:out|err)>:\s?|\s{{0,3}}\d+:\s)"
)
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


def _strip_prefix(line: str, derived: re.Pattern | None = None) -> tuple[str, bool]:
    match = _PREFIX_RE.match(line)
    if not match and derived is not None:
        match = derived.match(line)
    if not match:
        return line, False
    return line[match.end():], True


def _is_header(body_tokens) -> bool:
    return "algbw" in body_tokens and "busbw" in body_tokens


def _derive_prefix(lines) -> re.Pattern | None:
    """A prefix other launchers put before every line (``pdsh``'s ``host: ``, ``kubectl logs
    --timestamps``), learnt from the table's header line: the text before its ``#``, with digit
    runs generalised (``None`` when the header has no prefix or a known one)."""
    for line in lines:
        at = line.find("#")
        if at <= 0 or "busbw" not in line or _PREFIX_RE.match(line):
            continue
        if not _is_header(line[at + 1:].split()):
            continue
        prefix = line[:at]
        if not prefix.strip():
            return None
        pattern = re.sub(r"\\d\+|\d+", r"\\d+", re.escape(prefix.rstrip()))
        return re.compile("^" + pattern + r"\s?")
    return None


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
        characters and :data:`MAX_ROWS` rows; **one** result table. A file with several runs
        (several programs, or one program run several times, concatenated) is rejected at the
        second table's header: read it with :func:`read_nccl_tests_runs`.
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
        message names the line number and quotes the line), rank lines that are not 0..N-1,
        text or rows above the caps.
    TypeError
        ``text`` is not a string.

    Notes
    -----
    Accepted around the table: ``NCCL INFO`` / ``WARN`` lines (also cut into a row), launcher
    prefixes (Open MPI ``--tag-output`` and ``--timestamp-output``, ``[0]``, slurm ``--label``,
    and any other per-line prefix that the header line carries, such as ``pdsh``'s
    ``host:``), CRLF or CR line ends, tabs, text after the last row (a crash message, a shell
    prompt). A row cut short — by the end of the text, a comment line or an error message —
    raises. ``-c 0`` (no check) prints ``N/A`` in the check column (``wrong = None``); ``-G``
    (CUDA graphs) does not change the table.

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
    ValueError: text: no nccl-tests result table found (no header line with 'time', 'algbw' and 'busbw')
    """
    text, collective = _check_text(text, collective)
    try:
        return _read(text, collective)
    except ValueError as err:  # what is wrong is in the text: say so (messages naming a line already do)
        if str(err).startswith("line "):
            raise
        raise ValueError(f"text: {err}") from None


def _check_text(text, collective):
    if not isinstance(text, str):
        raise TypeError(f"text must be a string (the printed output), got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"text has {len(text)} characters; the reader accepts at most {MAX_TEXT_CHARS} "
                         "(split the log into runs first)")
    if collective is not None:
        collective = check_choice("collective", collective, PRIMITIVES)
    return text, collective


def read_nccl_tests_runs(text, collective=None) -> tuple[NcclTestsLog, ...]:
    """Parse a text holding one or more nccl-tests runs: one :class:`NcclTestsLog` per result table.

    Runs are separated after the last row (or footer) of one table; everything from there to the
    next table's header — the command line, ``# nThread …``, the ``# Rank`` lines, NCCL version
    lines — belongs to the next run, so each run finds its own program name and rank count.
    Line numbers (``row.line``, error messages) count from the start of the whole text.

    Parameters
    ----------
    text : str
        As for :func:`read_nccl_tests` (same caps, counted over the whole text).
    collective : str, optional
        Applied to every run (only when the runs are of one collective).

    Returns
    -------
    tuple of NcclTestsLog
        In the order printed.

    Examples
    --------
    >>> runs = read_nccl_tests_runs("./all_gather_perf\\n" + _EXAMPLE + "./all_reduce_perf -b 8\\n" + _EXAMPLE)
    >>> [(run.collective, len(run.rows), run.rows[0].line) for run in runs]
    [('all_gather', 2, 11), ('all_reduce', 2, 26)]
    """
    text, collective = _check_text(text, collective)
    lines = text.splitlines()
    starts = _run_starts(lines)
    versions = set(_NCCL_VERSION_RE.findall(text))
    default_version = versions.pop() if len(versions) == 1 else None
    logs = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(lines)
        segment = "\n" * start + "\n".join(lines[start:end])  # keep the whole text's line numbers
        logs.append(_read(segment, collective, default_version))
    return tuple(logs)


def _normalize(raw: str, derived) -> tuple[str, str]:
    """A line without launcher prefixes, labels and NCCL log segments; and a host glued to a row."""
    line, labelled = _strip_prefix(raw, derived)
    line, had_log = _cut_nccl_log(line)
    glued_host = ""
    if had_log:
        line, glued_host = _split_host(line)
    if labelled:
        line = _MIDLINE_LABEL_RE.sub(" ", line)
    return line.strip(), glued_host


def _run_starts(lines) -> list[int]:
    """0-based line index where each run's text starts (the first is 0)."""
    derived = _derive_prefix(lines)
    starts = [0]
    in_table = False
    last_table_line = 0
    for index, raw in enumerate(lines):
        if "busbw" not in raw and not in_table:
            continue
        stripped, _ = _normalize(raw, derived)
        if stripped.startswith("#"):
            body = stripped[1:].strip()
            if _is_header(body.split()):
                if in_table:
                    starts.append(last_table_line + 1)
                in_table = True
                last_table_line = index
            elif in_table and (_FOOTER_OOB_RE.match(stripped) or _FOOTER_AVG_RE.match(stripped)):
                last_table_line = index
        elif in_table and stripped and _INT_RE.match(stripped.split()[0]):
            last_table_line = index
    return starts


def _read(text: str, collective: str | None, default_version: str | None = None) -> NcclTestsLog:
    lines = text.splitlines()
    derived = _derive_prefix(lines)
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
        stripped, glued_host = _normalize(raw, derived)
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
                        f"read a text of several runs with read_nccl_tests_runs: {raw.strip()!r}"
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
            if len(rows) >= MAX_ROWS:
                raise ValueError(f"line {pending_line}: more than {MAX_ROWS} rows in one table; the reader "
                                 f"accepts at most {MAX_ROWS} (split the log)")
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
            raise ValueError(f"text: the '# Rank' lines list ranks {sorted(ranks)}, not 0..N-1; cannot tell the rank count")
        n_ranks = len(ranks)
    hosts = tuple(dict.fromkeys(h for h, _ in (ranks[r] for r in sorted(ranks)) if h))
    devices = tuple(ranks[r][1] for r in sorted(ranks))
    if collective is None:
        collective = _collective_from_text(text)
    nccl_version = default_version
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
    n = check_int("n", n, minimum=2, maximum=2**24, scalar=True)
    m = check_real("m", m)
    if np.size(m) > MAX_SIZES:
        raise ValueError(f"m has {np.size(m)} sizes; at most {MAX_SIZES} are evaluated at once")
    alpha = check_real("alpha", alpha, maximum=1e9, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    latency_ports = ports if latency_ports is None else check_int("latency_ports", latency_ports, minimum=1, maximum=2**62, scalar=True)
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
    n_ranks = check_int("n_ranks", n_ranks, minimum=2, maximum=2**24, scalar=True)
    n_nodes = check_int("n_nodes", n_nodes, minimum=1, maximum=n_ranks, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    ceiling = ports * beta
    if n_nodes > 1:
        if node_beta is None:
            raise ValueError(f"node_beta (bytes/s per node) is required for n_nodes = {n_nodes} > 1")
        node_beta = check_bandwidth("node_beta", node_beta, scalar=True)
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
    min_size = check_real("min_size", min_size, scalar=True)
    max_size = math.inf if max_size is None else check_real("max_size", max_size, scalar=True)
    if max_size < min_size:
        raise ValueError(f"max_size must be >= min_size, got min_size={min_size:g}, max_size={max_size:g}")
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
        raise ValueError(f"log: need at least two rows of different sizes in [min_size, max_size] = [{min_size}, {max_size}] "
                         f"bytes to fit alpha and beta, got {len(sizes)}")
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
    n = log.n_ranks if n_ranks is None else check_int("n_ranks", n_ranks, minimum=2, maximum=2**24, scalar=True)
    if n is None:
        raise ValueError("the log has no '# Rank' lines: pass n_ranks")
    if n < 2:
        raise ValueError(f"the table at line {log.header_line} lists {n} rank: one GPU measures no communication "
                         "(if mpirun started several processes, nccl-tests was built without MPI=1 and each process "
                         "ran alone; rebuild with 'make MPI=1' or pass n_ranks)")
    if len(log.rows) > MAX_ROWS:
        raise ValueError(f"the log has {len(log.rows)} rows; at most {MAX_ROWS} are evaluated (split the log)")
    primitive = log.collective if collective is None else check_choice("collective", collective, PRIMITIVES)
    if primitive is None:
        raise ValueError("the log does not name its collective: pass collective (one of " + ", ".join(PRIMITIVES) + ")")
    return log, n, primitive


def _node_context(log, n, n_nodes, node_beta):
    """``(K, node_beta)`` of the network cut, or ``(1, None)`` when it is not asked for."""
    if node_beta is None:
        if n_nodes is not None:
            raise ValueError("n_nodes needs node_beta (the network bandwidth per node, bytes/s)")
        return 1, None
    node_beta = check_bandwidth("node_beta", node_beta)
    if n_nodes is None:
        n_nodes = log.n_hosts
        if n_nodes is None:
            raise ValueError("the log does not list its hosts: pass n_nodes (--nodes) with node_beta")
    n_nodes = check_int("n_nodes", n_nodes, minimum=1, maximum=n)
    return n_nodes, node_beta


def nccl_tests_report(log, alpha, beta, ports=1, latency_ports=None, n_ranks=None, collective=None,
                      n_nodes=None, node_beta=None):
    """Each row of a log against the lower bound: busbw, the bound's ceiling, efficiency, regime.

    Efficiency is bound time / measured time = measured busbw / ceiling (:func:`busbw_ceiling`),
    from the out-of-place half. With ``node_beta`` the bound also has the network cut around each
    of the ``K = n_nodes`` nodes (:func:`two_level_busbw_ceiling`): every node must move
    ``c(K) M`` through ``node_beta``, so ``T >= c(K) M / node_beta``.

    A busbw above the ceiling is never reported as an efficiency above 1; the row is flagged
    instead (``efficiency`` is ``None``):

    * ``"endpoint"``: busbw exceeds ``ports * beta``. No algorithm that only sends and receives
      through the endpoints can do that: the switch reduced in flight (NVLS, SHARP; each endpoint
      then moves only ``M``, so an AllReduce's busbw can reach ``2(N-1)/N * ports * beta``), or
      the traffic had a faster path than β;
    * ``"network"``: busbw exceeds the node cut's ``c(N)/c(K) * node_beta``: the network reduced
      (SHARP) or ``node_beta`` is set below the real one;
    * ``"latency"``: the time is below the latency bound (α is set above this system's).

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
    n_nodes, node_beta : optional
        Nodes (default: the log's host count) and network bandwidth per node per direction,
        bytes/s, for the network cut; without ``node_beta`` only the endpoint bound is used.

    Returns
    -------
    Table
        Columns 大小, 效率, 区间, 实测 busbw, 上限 busbw (the verdict first, so it stays visible on a
        phone); ``values`` holds one dict per row with
        ``size``, ``busbw``, ``ceiling``, ``efficiency`` (``None`` when flagged), ``flag``
        (``None``, ``"endpoint"``, ``"network"`` or ``"latency"``), ``regime`` (``"latency"``,
        ``"bandwidth"`` or ``"network"``: the largest term of the bound) and ``bound_time``.

    Examples
    --------
    >>> t = nccl_tests_report(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce")
    >>> [round(v["efficiency"], 3) for v in t.values], [v["regime"] for v in t.values]
    ([0.098, 0.5], ['latency', 'bandwidth'])

    Two nodes sharing a 12.5 GB/s network (c(2) / c(2) = 1: the node cut caps busbw at 12.5 GB/s):

    >>> t = nccl_tests_report(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce",
    ...                       n_nodes=2, node_beta=12.5e9)
    >>> [v["regime"] for v in t.values], round(t.values[1]["ceiling"] / 1e9, 2), round(t.values[1]["efficiency"], 2)
    (['latency', 'network'], 12.5, 0.8)
    """
    from ..tables import Table
    from ..units import format_bandwidth, format_bytes

    log, n, primitive = _log_context(log, n_ranks, collective)
    alpha = check_real("alpha", alpha, maximum=1e9, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    latency_ports = ports if latency_ports is None else check_int("latency_ports", latency_ports, minimum=1, maximum=2**62, scalar=True)
    n_nodes, node_beta = _node_context(log, n, n_nodes, node_beta)
    coefficient = volume_coefficient(primitive, n)
    node_coefficient = volume_coefficient(primitive, n_nodes) if node_beta is not None and n_nodes > 1 else 0.0
    t_alpha = latency_lower_bound(primitive, n, alpha, ports=latency_ports)
    rows, values = [], []
    for row in log.rows:
        if row.size == 0:
            continue
        busbw = coefficient * row.size / row.time_s
        ceiling = _busbw_ceiling(primitive, n, row.size, alpha, beta, ports, latency_ports)
        t_beta = coefficient * row.size / (ports * beta)
        t_node = node_coefficient * row.size / node_beta if node_coefficient else 0.0
        if t_node:
            ceiling = min(ceiling, coefficient / node_coefficient * node_beta)
        bound_time = max(t_alpha, t_beta, t_node)
        regime = "latency" if t_alpha >= max(t_beta, t_node) else ("network" if t_node > t_beta else "bandwidth")
        flag = None
        efficiency = bound_time / row.time_s
        if efficiency > 1.0 + 1e-9:
            if busbw > ports * beta:
                flag = "endpoint"
            elif t_node and busbw > coefficient / node_coefficient * node_beta:
                flag = "network"
            else:
                flag = "latency"
            efficiency = None
        values.append({"size": row.size, "busbw": busbw, "ceiling": ceiling, "efficiency": efficiency, "flag": flag,
                       "regime": regime, "bound_time": bound_time, "time": row.time_s})
        shown = f"{efficiency:.2f}" if efficiency is not None else _FLAG_LABELS[flag]
        rows.append([_nbsp(format_bytes(row.size)), shown, _REGIME_LABELS[regime],
                     _nbsp(format_bandwidth(busbw)), _nbsp(format_bandwidth(ceiling))])
    headers = ["大小", "效率", "区间", "实测 busbw", "上限 busbw"]
    network = f"，{n_nodes} 个节点各 {node_beta / 1e9:.3g} GB/s" if node_coefficient else ""
    caption = (f"{primitive}，N = {n}：α = {alpha * 1e6:.3g} µs，β = {beta / 1e9:.3g} GB/s，p = {ports}{network}"
               f"（效率 = 下界时间 / 实测时间 = 实测 busbw / 上限）")
    return Table(headers, rows, caption, values)


_FLAG_LABELS = {"endpoint": "超端点上限", "network": "超网络上限", "latency": "快于延迟界"}
_REGIME_LABELS = {"latency": "延迟", "bandwidth": "带宽", "network": "网络"}


# -- command line ------------------------------------------------------------------------------

_USAGE_EXAMPLE = "python -m ccb_helpers.nccl_tests all_reduce.log --preset h100_nvswitch --plot report.png"


def _plot(log, n, primitive, alpha, beta, ports, latency_ports, report, path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..plotting import COLORS, use_book_style

    use_book_style()
    figure = Figure(figsize=(6.88, 6.4))
    FigureCanvasAgg(figure)
    top, bottom = figure.subplots(2, 1)
    sizes = np.array([v["size"] for v in report.values], dtype=float)
    busbw = np.array([v["busbw"] for v in report.values]) / 1e9
    ceiling = np.array([v["ceiling"] for v in report.values]) / 1e9
    top.plot(sizes, busbw, "o-", color=COLORS["ring"], markersize=3, label="实测 busbw")
    top.plot(sizes, ceiling, color=COLORS["bound"], label="下界给出的上限")
    top.axhline(ports * beta / 1e9, color=COLORS["bound"], linestyle=":", linewidth=1, label="p·β")
    top.set_xscale("log", base=2)
    top.set_yscale("log")
    top.set_xlabel("消息大小 M（字节）")
    top.set_ylabel("busbw（GB/s）")
    top.legend(fontsize=9, loc="lower right")
    efficiency = [v["efficiency"] for v in report.values]
    ok = [i for i, e in enumerate(efficiency) if e is not None]
    flagged = [i for i, e in enumerate(efficiency) if e is None]
    bottom.plot(sizes[ok], [efficiency[i] for i in ok], "o-", color=COLORS["latency"], markersize=3, label="下界时间 / 实测时间")
    if flagged:
        bottom.plot(sizes[flagged], np.ones(len(flagged)), "x", color=COLORS["bandwidth"], label="超过上限（标记）")
    bottom.set_xscale("log", base=2)
    bottom.set_ylim(0, 1.05)
    bottom.set_xlabel("消息大小 M（字节）")
    bottom.set_ylabel("效率")
    bottom.legend(fontsize=9, loc="upper left")
    figure.suptitle(f"{primitive}，N = {n}：α = {alpha * 1e6:.3g} µs，β = {beta / 1e9:.3g} GB/s，p = {ports}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=200)


def _decode(data: bytes) -> str:
    """Log bytes as text: UTF-8 (with or without BOM) or UTF-16 with a BOM (PowerShell's ``>``)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if data[:4000].count(b"\x00") > len(data[:4000]) // 4:
        raise ValueError("the file looks like UTF-16 without a byte-order mark; save it as UTF-8")
    return data.decode("utf-8", errors="replace")


def main(argv=None) -> int:
    """Command line: ``python -m ccb_helpers.nccl_tests LOGFILE [--preset KEY | --alpha S --beta BPS --ports P]``.

    Prints, per message size, the measured busbw, the bound's busbw ceiling, the efficiency
    (bound time / measured time) and the regime, then α and β fitted to the measured times.
    A file with several runs (tables) gets one report per run. ``--node-beta`` adds the network
    cut around each node (``--nodes`` defaults to the hosts the log lists). Returns 0, or 2 on
    bad input (missing file, unparseable log, bad numbers) after printing why.

    >>> main(["/no/such/file.log", "--alpha", "1e-6", "--beta", "1e11"])
    2
    """
    import argparse
    import os

    from ..hardware import PRESETS

    parser = argparse.ArgumentParser(
        prog="python -m ccb_helpers.nccl_tests",
        description="Hold an nccl-tests log against the collective-communication lower bound.",
        epilog=f"Example: {_USAGE_EXAMPLE}",
    )
    parser.add_argument("logfile", help="text printed by all_reduce_perf, all_gather_perf, ... (one run or several)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--preset", choices=sorted(PRESETS), help="hardware preset giving alpha, beta and ports")
    source.add_argument("--alpha", type=float, help="latency per round, seconds (with --beta)")
    parser.add_argument("--beta", type=float, help="bandwidth per link per direction, bytes/s")
    parser.add_argument("--ports", type=int, default=1, help="links used in parallel (default 1)")
    parser.add_argument("--node-beta", type=float, help="network bandwidth per node per direction, bytes/s (adds the node cut)")
    parser.add_argument("--nodes", type=int, help="nodes for --node-beta (default: the hosts the log lists)")
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
        size = os.path.getsize(args.logfile)
        if size > 4 * MAX_TEXT_CHARS:
            return fail(f"{args.logfile} has {size} bytes; the reader accepts at most {MAX_TEXT_CHARS} characters "
                        "(split the log into runs)")
        with open(args.logfile, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return fail(f"cannot read {args.logfile}: {error.strerror or error}")
    if args.preset:
        preset = PRESETS[args.preset]
        alpha, beta = preset.alpha, preset.beta
        ports = preset.ports or 1  # all-port presets: many peers at once (latency) through one NIC (bandwidth)
        label = f"preset {preset.key}: {preset.label}"
    else:
        if args.beta is None:
            return fail("--alpha needs --beta (bytes/s), e.g. --alpha 2e-6 --beta 50e9")
        alpha, beta, ports = args.alpha, args.beta, args.ports
        label = "alpha/beta from the command line"
    try:
        runs = read_nccl_tests_runs(_decode(data), collective=args.collective)
        reports = []
        for log in runs:
            if log.collective is None:
                return fail("the log does not name its program (no '..._perf' command, no 'Collective test starting' "
                            f"line) for the table at line {log.header_line}: pass --collective, one of " + ", ".join(PRIMITIVES))
            if log.n_ranks is None and args.ranks is None:
                return fail(f"the table at line {log.header_line} has no '# Rank ... device ...' lines: pass --ranks N")
            n = log.n_ranks if args.ranks is None else args.ranks
            latency_ports = preset.ports_for(n) if args.preset and n >= 2 else ports
            report = nccl_tests_report(log, alpha, beta, ports=ports, latency_ports=latency_ports, n_ranks=n,
                                       n_nodes=args.nodes, node_beta=args.node_beta)
            _, n, primitive = _log_context(log, n, None)
            reports.append((log, n, primitive, latency_ports, report, _fit_or_none(log, n, primitive)))
        for i, (log, n, primitive, latency_ports, report, _) in enumerate(reports):
            if args.plot:
                _plot(log, n, primitive, alpha, beta, ports, latency_ports, report, _plot_path(args.plot, i, len(reports)))
    except (ValueError, TypeError) as error:
        return fail(str(error))
    except OSError as error:
        return fail(f"cannot write {args.plot}: {error.strerror or error}")

    print(f"nccl-tests log: {args.logfile}" + (f" ({len(reports)} runs)" if len(reports) > 1 else ""))
    for i, (log, n, primitive, latency_ports, report, fit) in enumerate(reports):
        if len(reports) > 1:
            print(f"\n=== run {i + 1} of {len(reports)} (table at line {log.header_line}) ===")
        _print_report(log, n, primitive, alpha, beta, ports, latency_ports, label, report, fit, args)
        if args.plot:
            print(f"plot written to {_plot_path(args.plot, i, len(reports))}")
    return 0


def _plot_path(path: str, index: int, count: int) -> str:
    """``OUT.png`` for one run; ``OUT-1.png``, ``OUT-2.png`` … for several."""
    import os

    if count == 1:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}-{index + 1}{ext or '.png'}"


def _print_report(log, n, primitive, alpha, beta, ports, latency_ports, label, report, fit, args) -> None:
    from ..units import format_bytes

    first = log.rows[0]
    hosts = f" on {len(log.hosts)} host{'s' if len(log.hosts) > 1 else ''}" if log.hosts else ""
    print(f"collective {primitive}, {n} ranks{hosts}, {len(log.rows)} rows"
          f"{', NCCL ' + log.nccl_version if log.nccl_version else ''}"
          f"{', type ' + first.type if first.type else ''}{', op ' + first.redop if first.redop else ''}")
    print(f"bound: {label}; alpha = {alpha * 1e6:.4g} us, beta = {beta / 1e9:.4g} GB/s, ports = {ports}"
          f"{f' (latency bound with {latency_ports} ports)' if latency_ports != ports else ''}")
    print(f"endpoint busbw ceiling p*beta = {ports * beta / 1e9:.4g} GB/s")
    if args.node_beta is not None:
        k = args.nodes if args.nodes is not None else log.n_hosts
        if k and k > 1:
            node_ceiling = two_level_busbw_ceiling(primitive, n, k, ports * beta, args.node_beta)
            print(f"network cut: {k} nodes x {args.node_beta / 1e9:.4g} GB/s -> busbw ceiling {node_ceiling / 1e9:.4g} GB/s")
    elif log.n_hosts and log.n_hosts > 1:
        print(f"note: the ranks run on {log.n_hosts} hosts; pass --node-beta BPS (network bandwidth per node) "
              "to add the network cut around each node")
    wrong = [r for r in log.rows if log.check_column == "#wrong" and any(w for w in (r.wrong, r.wrong_inplace) if w)]
    if (log.out_of_bounds or 0) > 0 or wrong:
        print(f"WARNING: the log's own correctness check failed ({log.out_of_bounds or len(wrong)} out-of-bounds "
              "values): these timings come from wrong results and do not measure a working collective")
    print()
    varied = len({(r.type, r.redop, r.root) for r in log.rows if r.size > 0}) > 1
    print(f"{'size':>10}  {'busbw GB/s':>10}  {'ceiling GB/s':>12}  {'efficiency':>10}  regime" + ("     type/op" if varied else ""))
    notes = set()
    described = [r for r in log.rows if r.size > 0]
    shown_flag = {"endpoint": "> p*beta", "network": "> network", "latency": "< latency"}
    for v, row in zip(report.values, described):
        if v["efficiency"] is not None:
            shown = f"{v['efficiency']:.2f}"
        else:
            shown = shown_flag[v["flag"]]
            notes.add(v["flag"])
        extra = f"  {row.type}/{row.redop}" if varied else ""
        print(f"{format_bytes(v['size']):>10}  {v['busbw'] / 1e9:>10.2f}  {v['ceiling'] / 1e9:>12.2f}  {shown:>10}  {v['regime']:<9}{extra}")
    print()
    if "endpoint" in notes:
        in_network = volume_coefficient(primitive, n) * ports * beta if primitive == "all_reduce" else None
        print("> p*beta: busbw exceeds the endpoint ceiling p*beta, which no algorithm that only sends and receives "
              "through the endpoints can reach. Either the network reduces in flight (NVLS, SHARP: each endpoint "
              "then moves only M"
              + (f", so AllReduce's ceiling is 2(N-1)/N*p*beta = {in_network / 1e9:.4g} GB/s" if in_network else "")
              + ") or the traffic has a faster path than beta (e.g. NVLink inside a node when beta is the NIC).")
    if "network" in notes:
        print("> network: busbw exceeds the node cut c(N)/c(K)*node_beta: the network reduces (SHARP) or --node-beta "
              "is below the real network bandwidth per node.")
    if "latency" in notes:
        print("< latency: the time is below the latency bound ceil(log_{k+1} N)*alpha: alpha is set above this system's.")
    if fit is None:
        print("fit: needs at least two non-empty rows of different sizes")
    else:
        print(f"fit (ring, {fit.steps} steps, least squares on relative error over {fit.points} rows): "
              f"alpha = {fit.alpha * 1e6:.3g} us, beta = {fit.beta / 1e9:.4g} GB/s "
              f"(rms relative error {100 * fit.rms_relative_error:.0f} %)")


def _fit_or_none(log, n, primitive):
    try:
        return fit_alpha_beta(log, n_ranks=n, collective=primitive)
    except ValueError:
        return None
