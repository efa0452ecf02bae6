"""The shapes of nccl-tests output: program names, header columns, launcher prefixes, numbers.

`nccl-tests <https://github.com/NVIDIA/nccl-tests>`_ printed its table in several layouts over the
years; the reader takes its columns from the table's own header line. This module knows those
layouts (the column names and what each holds), the text other programs put around and inside the
lines (launcher prefixes, ``NCCL INFO`` log lines), and how one printed token becomes a number.

=================== ============================================================================
era                 what the table looks like
=================== ============================================================================
NCCL 1 / 2017       ``bytes N type op [root] time algbw busbw res``, time in **ms**, no units line
2019 – 2021         ``size count type [redop] [root] time algbw busbw error`` (max. error, or N/A)
2022 on             ``size count type redop root time algbw busbw #wrong`` (wrong elements)
2024 on             optional ``copybw``, per-iteration ``i_min i_max i_p99 i_cv%``, ``timestamp``
=================== ============================================================================
"""

from __future__ import annotations

import math
import re

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
