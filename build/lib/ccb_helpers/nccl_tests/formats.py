"""The shapes of nccl-tests output: program names, header columns, launcher prefixes, numbers.

`nccl-tests <https://github.com/NVIDIA/nccl-tests>`_ printed its table in several layouts over the
years; the reader takes its columns from the table's own header line, or, when a paste has no
header, from the rows' token count (:data:`BARE_LAYOUTS`). This module knows those layouts (the
column names and what each holds), the text other programs put around and inside the lines
(launcher prefixes, ``NCCL INFO`` log lines), and how one printed token becomes a number.

=================== ============================================================================
era                 what the table looks like
=================== ============================================================================
NCCL 1 / 2017       ``bytes N type op [root] time algbw busbw res``, time in **ms**, no units line
2019 – 2021         ``size count type [redop] [root] time algbw busbw error`` (max. error, or N/A)
2022 on             ``size count type redop root time algbw busbw #wrong`` (wrong elements)
2024 on             optional ``copybw``, per-iteration ``i_min i_max i_p99 i_cv%``, ``timestamp``
=================== ============================================================================

Where the ``#`` characters were lost (a Markdown renderer, a documentation site), the header,
rank and footer lines are recognised without them. nccl-tests prints numbers with ``%.2f`` and
falls back to fewer decimals, then to ``%.1e``, when a value does not fit its column
(``src/util.cu``); every number token is read by :func:`~ccb_helpers._tokens.read_number`, which
keeps the rounding of the printed token with its value.
"""

from __future__ import annotations

import re

from .._tokens import MAX_TOKEN_CHARS, read_number  # noqa: F401  (MAX_TOKEN_CHARS: documented cap)

# nccl-tests program name -> the collective whose bound applies. ``hypercube_perf`` is an AllGather
# done by recursive doubling with send/receive (src/hypercube.cu), ``sendrecv_perf`` point to point.
_PROGRAMS = {
    "all_reduce": "all_reduce",
    "all_gather": "all_gather",
    "reduce_scatter": "reduce_scatter",
    "broadcast": "broadcast",
    "reduce": "reduce",
    "alltoall": "all_to_all",
    "gather": "gather",
    "scatter": "scatter",
    "sendrecv": "sendrecv",
    "hypercube": "all_gather",
}
_PROGRAM_RE = re.compile(
    r"(?<![A-Za-z0-9_])(all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|gather|scatter|sendrecv|hypercube)"
    r"_(?:perf|test)(?:_mpi)?(?![A-Za-z0-9_])"
)
#: AWS Neuron's nccom-test prints a table much like nccl-tests' with units in its column names.
_NCCOM_RE = re.compile(r"\bsize\(B\)\s+count\(elems\)|\bbusbw\(GB/s\)")
_STARTING_RE = re.compile(r"#?\s*Collective test starting:\s*(\S+)")
_CONCLUDED_RE = re.compile(r"#?\s*Collective test concluded:\s*(\S+)")
_NCCL_VERSION_RE = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
_RCCL_VERSION_RE = re.compile(r"^RCCL version\s*:\s*(\d+\.\d+\.\d+)")
_TESTS_VERSION_RE = re.compile(r"#?\s*nccl-tests version (\S+)(?:.*?nccl-library=(\d+))?")
_THREADS_RE = re.compile(r"^#?\s*nThread (\d+) nGpus (\d+) minBytes (\d+) maxBytes (\d+)")
_VALIDATION_OFF_RE = re.compile(r"\bvalidation: 0\b")
_REDUCED_MAX_RE = re.compile(r"^#?\s*Reducing maxBytes to (\d+) due to memory limitation")
# "#  Rank  0 Group  0 Pid 1001 on node0 device  0 [0x07] NVIDIA A100" (2022+), "#   Rank  0 Pid ..."
# (2019-2021, RCCL), with or without the device name; the "#" may have been lost.
_RANK_RE = re.compile(
    r"^#?\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?(?:Pid\s+\d+\s+)?on\s+(?:(\S+)\s+)?device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$"
)
_DEVICE_RE = re.compile(r"^#?\s*Device\s+(\d+)\s+->\s+(\d+)\s+\[[^\]]*\]\s*(.*)$")
_FOOTER_OOB_RE = re.compile(r"^#?\s*Out of bounds values\s*:\s*(\d+)")
_FOOTER_AVG_RE = re.compile(r"^#?\s*Avg bus bandwidth\s*:\s*(\S+)")
# NCCL's communicator line: "... NCCL INFO comm 0x... rank 3 nranks 16 cudaDev 3 ... Init COMPLETE".
_NRANKS_RE = re.compile(r"NCCL INFO comm \S+ rank \d+ nranks (\d+)\b")
_SOCKET_RE = re.compile(r"NCCL INFO .*(?:via NET/Socket|Using network Socket|NET/Socket : Using)")
_NO_NVLS_RE = re.compile(r"NCCL INFO .*NVLS multicast support is not available")
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
    "size": ("size", "int"),
    "bytes": ("size", "int"),
    "count": ("count", "int"),
    "N": ("count", "int"),
    "type": ("type", "word"),
    "redop": ("redop", "word"),
    "op": ("redop", "word"),
    "root": ("root", "int"),
}
_HALF_COLUMNS = {
    "time": ("time", "float"),
    "cputime": ("time", "float"),
    "algbw": ("algbw", "float"),
    "busbw": ("busbw", "float"),
    "#wrong": ("wrong", "check"),
    "wrong": ("wrong", "check"),  # "#wrong" whose "#" a Markdown renderer or a copy lost
    "error": ("wrong", "check"),
    "res": ("wrong", "check"),
    "copybw": (None, "float"),
    "sidebw": (None, "float"),
    "i_min": (None, "float"),
    "i_max": (None, "float"),
    "i_p99": (None, "float"),
    "i_cv%": (None, "float"),
}
_INT_RE = re.compile(r"^-?\d+$")
_FLOAT_RE = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")

#: Bytes per element of the data types nccl-tests prints (src/common.cu ``test_typenames``).
TYPE_SIZES = {
    "int8": 1,
    "char": 1,
    "uint8": 1,
    "int32": 4,
    "int": 4,
    "uint32": 4,
    "int64": 8,
    "uint64": 8,
    "half": 2,
    "float16": 2,
    "float": 4,
    "float32": 4,
    "double": 8,
    "float64": 8,
    "bfloat16": 2,
    "f8e4m3": 1,
    "f8e5m2": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
}
#: Largest message a row may report (bytes): 1 PiB, far above any GPU's memory, so a larger
#: ``size`` is a misread or corrupted line, not a measurement.
MAX_ROW_BYTES = 2**50
#: Largest root rank a row may name (the reader's rank cap, ``evidence.MAX_RANKS``).
MAX_ROOT = 2**24
#: Characters of a line quoted in an error message (the rest is elided with its length).
QUOTE_CHARS = 120

# Headerless pastes: the layout from the number of tokens in a row (2 halves of 4 values each).
# 13 = size count type redop root (2022+, and 2019-2021 reduce); 12 = size count type redop, or
# size count type root (2019-2021 all_reduce / broadcast); 11 = size count type (2019-2021
# all_gather, and alltoall with a blank redop).
_HALF = ("time", "algbw", "busbw", "check")
BARE_LAYOUTS = {
    13: ("size", "count", "type", "redop", "root") + _HALF + _HALF,
    12: ("size", "count", "type", "redop") + _HALF + _HALF,
    11: ("size", "count", "type") + _HALF + _HALF,
}


class _Column:
    __slots__ = ("name", "field", "kind", "half")

    def __init__(self, name, field_, kind, half):
        self.name, self.field, self.kind, self.half = name, field_, kind, half


def _quote(line: str) -> str:
    """A line for an error message: stripped, and cut to :data:`QUOTE_CHARS` characters."""
    line = line.strip()
    if len(line) <= QUOTE_CHARS:
        return repr(line)
    return repr(line[:QUOTE_CHARS]) + f" … ({len(line)} characters)"


def _short_token(token: str) -> str:
    return repr(token) if len(token) <= 40 else repr(token[:20]) + f" … ({len(token)} characters)"


def _is_header(body_tokens) -> bool:
    return "algbw" in body_tokens and "busbw" in body_tokens


def _header_tokens(line: str) -> list[str] | None:
    """The column names of a header line (with or without its leading ``#``), else ``None``.

    A header starts with ``size`` or ``bytes`` once the ``#`` is removed, so a ``#wrong`` column
    name is never taken for the start of the line.
    """
    body = line[1:] if line.startswith("#") else line
    tokens = body.split()
    if not tokens or tokens[0] not in ("size", "bytes") or not _is_header(tokens):
        return None
    return tokens


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
                raise ValueError(f"line {lineno}: header has more than two time columns: {_quote(text)}")
            columns.append(_Column(token, "time", "float", half))
        elif token in _HALF_COLUMNS and half >= 0:
            f, kind = _HALF_COLUMNS[token]
            if kind == "check":
                check = "#wrong" if token == "wrong" else token
            columns.append(_Column(token, f, kind, half))
        elif token == "timestamp":
            columns.append(_Column(token, None, "timestamp", None))
        else:
            raise ValueError(f"line {lineno}: unknown column {_short_token(token)} in the header {_quote(text)}")
    if half < 0 or not any(c.field == "size" for c in columns) or not any(c.field == "busbw" for c in columns):
        raise ValueError(f"line {lineno}: header lacks size, time or busbw: {_quote(text)}")
    return columns, check


def _bare_columns(count: int, tokens: list[str]) -> tuple[list[_Column], str | None] | None:
    """Columns of a headerless row of ``count`` tokens (:data:`BARE_LAYOUTS`), or ``None``."""
    names = BARE_LAYOUTS.get(count)
    if names is None:
        return None
    if count == 12 and _INT_RE.match(tokens[3]):
        names = names[:3] + ("root",) + names[4:]  # 2019-2021 broadcast: a root column, no redop
    columns, half = [], -1
    for name in names:
        if name == "time":
            half += 1
        if name in _PREFIX_COLUMNS:
            f, kind = _PREFIX_COLUMNS[name]
            columns.append(_Column(name, f, kind, None))
        else:
            f, kind = _HALF_COLUMNS["#wrong" if name == "check" else name]
            columns.append(_Column("#wrong" if name == "check" else name, f, kind, half))
    check_token = tokens[len(names) - 1]
    check = "error" if ("e" in check_token.lower() and check_token.upper() != "N/A") or "." in check_token else "#wrong"
    return columns, check


def _strip_prefix(line: str, derived: re.Pattern | None = None) -> tuple[str, bool]:
    match = _PREFIX_RE.match(line)
    if not match and derived is not None:
        match = derived.match(line)
    if not match:
        return line, False
    return line[match.end() :], True


def _derive_prefix(lines) -> re.Pattern | None:
    """A prefix other launchers put before every line (``pdsh``'s ``host: ``, ``kubectl logs
    --timestamps``), learnt from the table's header line: the text before its ``#``, with digit
    runs generalised (``None`` when the header has no prefix or a known one)."""
    for line in lines:
        if "busbw" not in line:
            continue
        at = line.find("#")
        if at <= 0 or _PREFIX_RE.match(line):
            continue
        if _header_tokens(line[at:]) is None:
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
    """One table cell as a value: an ``int`` (``kind`` int), a name (word), ``None`` (a check
    printed ``N/A``), or a :class:`~ccb_helpers._tokens.PrintedNumber` (float, check) — every number
    through :func:`~ccb_helpers._tokens.read_number`, which refuses what a double cannot hold."""
    where = f"line {lineno}: column {column!r}"
    if kind == "word":
        if _FLOAT_RE.match(token):
            raise ValueError(f"{where} needs a name, got the number {_short_token(token)}: {_quote(line)}")
        return token
    if kind == "check" and token.upper() == "N/A":
        return None
    if kind == "int":
        value = _read(token, where, line, integer=True).value
        if column in ("size", "bytes", "count", "N") and not 0 <= value <= MAX_ROW_BYTES:
            raise ValueError(
                f"{where} is {value}; a table row has 0 to {MAX_ROW_BYTES} (2**50) bytes or elements: {_quote(line)}"
            )
        if column == "root" and not -1 <= value <= MAX_ROOT:
            raise ValueError(f"{where} is {value}; a root is -1 (none) or a rank 0 to {MAX_ROOT}: {_quote(line)}")
        return value
    number = _read(token, where, line)
    if kind == "float" and number.value < 0:
        raise ValueError(f"{where} needs a finite number >= 0, got {_short_token(token)}: {_quote(line)}")
    return number


def _read(token: str, where: str, line: str, integer: bool = False):
    """:func:`~ccb_helpers._tokens.read_number`, the line quoted only in a refusal (not for every token)."""
    try:
        return read_number(token, where, integer=integer)
    except ValueError as error:
        raise ValueError(f"{error}: {_quote(line)}") from None


def _expected_tokens(columns: list[_Column]) -> int:
    return sum(2 if c.kind == "timestamp" else 1 for c in columns)


def _normalize(raw: str, derived) -> tuple[str, str]:
    """A line without launcher prefixes, labels and NCCL log segments; and a host glued to a row."""
    if derived is None and ":" not in raw and "[" not in raw:
        # Every launcher prefix, label and NCCL log segment holds a ':' or a '[': two C-level
        # scans instead of two regular expressions (most lines of a log, and of a text of junk).
        return raw.strip(), ""
    line, labelled = _strip_prefix(raw, derived)
    line, had_log = _cut_nccl_log(line)
    glued_host = ""
    if had_log:
        line, glued_host = _split_host(line)
    if labelled:
        line = _MIDLINE_LABEL_RE.sub(" ", line)
    return line.strip(), glued_host
