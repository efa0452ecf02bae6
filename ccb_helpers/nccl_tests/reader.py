"""Read the text that nccl-tests prints: one :class:`NcclTestsLog` per result table.

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
"""

from __future__ import annotations

import re

from .._validation import check_choice
from ..primitives import PRIMITIVES
from .formats import (
    _DEVICE_RE,
    _FOOTER_AVG_RE,
    _FOOTER_OOB_RE,
    _INT_RE,
    _NCCL_VERSION_RE,
    _PROGRAM_RE,
    _PROGRAMS,
    _RANK_RE,
    _STARTING_RE,
    _TESTS_VERSION_RE,
    _Column,
    _derive_prefix,
    _expected_tokens,
    _is_header,
    _normalize,
    _number,
    _parse_header,
)
from .records import _EXAMPLE, MAX_ROWS, NcclTestsLog, NcclTestsRow  # noqa: F401  (_EXAMPLE: doctests)

#: Largest text the reader accepts (characters, about 10 s of reading here): a run with
#: ``NCCL_DEBUG=INFO`` on a few hundred ranks stays well below; split bigger files by run.
MAX_TEXT_CHARS = 20_000_000


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
