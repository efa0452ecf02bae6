"""Read the text that nccl-tests prints: one :class:`NcclTestsLog` per result table.

`nccl-tests <https://github.com/NVIDIA/nccl-tests>`_ (``all_reduce_perf``, ``all_gather_perf``,
``reduce_scatter_perf``, ``broadcast_perf``, ``reduce_perf``, ``alltoall_perf``,
``gather_perf``, ``scatter_perf``, ``sendrecv_perf``, ``hypercube_perf``, RCCL's rccl-tests, and
NCCL 1's ``all_reduce_test``) prints one table per run. Its format changed over the years
(:mod:`~ccb_helpers.nccl_tests.formats`); the reader takes its columns from the table's own
header line, with or without its ``#``, or — for the bare rows people paste into issues — from
the rows' token count.

Out-of-place and in-place halves, several data types or reduction operators in one run,
``NCCL INFO`` / ``WARN`` lines interleaved (also in the middle of a row, which the row then
continues after), launcher prefixes (``[1,0]<stdout>:``, ``[0]``, ``0:``), a blank ``redop``
column, the ``# Rank … device …`` header (complete, elided or only its last line) and the
``# Avg bus bandwidth`` footer are handled. Anything that cannot be read — a row cut short by an
error message, a number that is not a number, a second result table — raises
:class:`ValueError` naming the line.

The rank count and the collective come from the log and are cross-checked
(:mod:`~ccb_helpers.nccl_tests.evidence`); what a reviewer would point out is in ``log.warnings``.

Units: nccl-tests prints time in µs (ms in the 2017 format) and bandwidth in GB/s with
GB = 10^9 bytes; the reader returns seconds and bytes/s. busbw is the forced volume of chapter 3
over the time (``doc/PERFORMANCE.md`` of nccl-tests); before June 2020 nccl-tests printed
algbw = ``(N-1)/N · size / time`` for AllGather and ReduceScatter (and busbw = algbw); busbw is
the same number in both conventions.

Reading is linear in the text: every line is split and looked at a bounded number of times,
however many runs the text holds (``benchmarks/bench_nccl_reader.py``).
"""

from __future__ import annotations

import functools
import itertools
import re

from .._validation import check_bool, check_cap, check_choice, check_int
from .evidence import MAX_RANKS, Evidence, find_command, resolve
from .formats import (
    _DEVICE_RE,
    _FLOAT_RE,
    _FOOTER_AVG_RE,
    _FOOTER_OOB_RE,
    _INT_RE,
    _NCCL_VERSION_RE,
    _NO_NVLS_RE,
    _NRANKS_RE,
    _PROGRAM_RE,
    _PROGRAMS,
    _RANK_RE,
    _RCCL_VERSION_RE,
    _REDUCED_MAX_RE,
    _SOCKET_RE,
    _STARTING_RE,
    _TESTS_VERSION_RE,
    _THREADS_RE,
    _VALIDATION_OFF_RE,
    BARE_LAYOUTS,
    _bare_columns,
    _Column,
    _derive_prefix,
    _expected_tokens,
    _half_ulp,
    _header_tokens,
    _normalize,
    _number,
    _parse_header,
    _quote,
)
from .records import _EXAMPLE, COLLECTIVES, MAX_ROWS, NcclTestsLog, NcclTestsRow  # noqa: F401  (_EXAMPLE: doctests)

#: Largest text the reader accepts (characters): a run with ``NCCL_DEBUG=INFO`` on a few hundred
#: ranks stays well below; split bigger files by run. Reading time at the cap: 6.6 s idle for 20 MB
#: of published-log text on the 2-core build machine; every other shape tried reads in at most
#: about that time (``benchmarks/bench_nccl_reader.py --shapes``, CPU time in one run under load:
#: log text 9.7 s; 20 million empty lines 3.6 s, one-character lines 2.9 s, a header then
#: one-character or ``#`` lines 5.3 / 4.7 s, a header then launcher labels ``0: `` 10.1-10.8 s =
#: 1.11-1.13x the log). Before #28's per-line cut the short lines took 2.4-3.4x the log (23-33 s).
MAX_TEXT_CHARS = 20_000_000
#: Memory budget of one read, bytes. The estimate, :data:`_READ_BYTES_PER_CHAR` per character
#: (the lines, their tokens, the rows and runs), is checked before reading; at
#: :data:`MAX_TEXT_CHARS` it is 640 MB, so the budget binds only when lowered.
READ_MAX_BYTES = 2**30
# tracemalloc measured 16.5 bytes per character for a text of empty lines, 11 for a run of
# 1.4 MB of rows, 8 for single-character lines and for published logs (tests/test_memory_caps.py).
_READ_BYTES_PER_CHAR = 32
_READ_FIXED_BYTES = 4 * 2**20
# Per-line work is kept for lines that can matter (issue #28: 20 million empty or one-character
# lines took 24-31 s, four times a 20 MB log): blank lines are dropped at C level
# (:func:`_nonblank`) and a line shorter than these cannot be what the passes look for.
#: Shorter than "NCCL INFO", a program name ("reduce_perf"), a header ("size algbw busbw") and
#: every metadata line but a "#" comment or a units line: nothing outside a table.
_SHORT_LINE = 9
#: Shorter than the fewest tokens of a bare row (11, one character and a blank each).
_SHORT_BARE_ROW = 2 * min(BARE_LAYOUTS) - 1
#: Shorter than three tokens: not even a bare row with the wrong number of values.
_SHORT_THREE_TOKENS = 5
#: First characters of a row (its size); a short line inside a table that does not continue a
#: row, start one or begin with "#" or "(" (a comment, a units line) is nothing the reader keeps.
_ROW_START = frozenset("-0123456789")


def _nonblank(lines, start: int, end: int, first_number: int):
    """``(line number, line)`` of ``lines[start:end]`` that hold more than blanks, chosen at C level
    (no copy of the list: a text of 20 million empty lines is 160 MB of pointers already)."""
    return itertools.compress(
        enumerate(itertools.islice(lines, start, end), start=first_number),
        map(str.strip, itertools.islice(lines, start, end)),
    )


#: In-place and out-of-place busbw further apart than this (relative, rows of 1 MiB and more)
#: get a warning: one of the two halves did not measure what the other did.
INPLACE_GAP = 0.25


def _build_row(columns, tokens, first_line, unit, lines, base) -> NcclTestsRow:
    values: dict = {"type": None, "redop": None, "root": None}
    halves = [dict(), dict()]
    printed = [[None, None, None], [None, None, None]]
    pos = 0
    for col in columns:
        if col.kind == "timestamp":
            pos += 2
            continue
        token, lineno = tokens[pos]
        pos += 1
        if token == "" and col.field == "redop":
            continue  # a blank redop column (alltoall of 2020-2021 prints none)
        value = _number(token, col.kind, col.name, lineno, lines[lineno - 1 - base])
        if col.field is None:
            continue
        if col.half is None:
            values[col.field] = value
        else:
            halves[col.half][col.field] = value
            slot = {"time": 0, "algbw": 1, "busbw": 2}.get(col.field)
            if slot is not None:
                printed[col.half][slot] = token
    if "count" not in values:
        values["count"] = None
    for h, suffix in ((0, ""), (1, "_inplace")):
        half = halves[h]
        if "time" in half and half["time"] == 0 and values.get("size", 0) > 0:
            raise ValueError(
                f"line {first_line}: time {printed[h][0]!r} for a {values['size']}-byte message: the "
                "table printed a time below its resolution, so no bandwidth follows from it: "
                f"{_quote(lines[first_line - 1 - base])}"
            )
        values["time_s" + suffix] = half["time"] * unit if "time" in half else None
        values["algbw_Bps" + suffix] = half["algbw"] * 1e9 if "algbw" in half else None
        values["busbw_Bps" + suffix] = half["busbw"] * 1e9 if "busbw" in half else None
        values["wrong" + suffix] = half.get("wrong")
    shown = tuple(tuple(p) for p in printed if None not in p)
    return NcclTestsRow(line=first_line, printed=shown, **values)


def read_nccl_tests(text, collective=None, n_ranks=None, force=False) -> NcclTestsLog:
    """Parse the output of one nccl-tests run into an :class:`NcclTestsLog`.

    Parameters
    ----------
    text : str
        What the program printed (a log file's content, or rows pasted without their header).
        At most :data:`MAX_TEXT_CHARS` characters and :data:`MAX_ROWS` rows; **one** result
        table. A file with several runs is rejected at the second table's header: read it with
        :func:`read_nccl_tests_runs`.
    collective : str, optional
        One of :data:`~ccb_helpers.nccl_tests.records.COLLECTIVES` when the text does not name
        its program. A value the log contradicts (another program named, busbw factor or
        count/size of another collective) raises :class:`ValueError`.
    n_ranks : int, optional
        The rank count, when the log does not determine it. A value the log contradicts (its
        ``# Rank`` lines, NCCL's ``nranks``, count against size, the busbw factor) raises.
    force : bool, default False
        Use ``collective`` and ``n_ranks`` even where the log contradicts them (a warning says so).

    Returns
    -------
    NcclTestsLog
        ``log.n_ranks`` (what the log determines, ``log.n_ranks_source`` says how), ``log.collective``,
        ``log.rows`` (each with ``size``, ``count``, ``type``, ``redop``, ``root``, ``time_s``,
        ``algbw_Bps``, ``busbw_Bps``, ``wrong`` and the same names with ``_inplace``) in SI units
        (seconds, bytes, bytes/s), and ``log.warnings``.

    Raises
    ------
    ValueError
        No result table, a second table, a row that cannot be read or that stops short (the
        message names the line number and quotes the line, cut to 120 characters), a caller's
        value the log contradicts, text or rows above the caps.
    TypeError
        ``text`` is not a string.

    Notes
    -----
    Accepted around the table: ``NCCL INFO`` / ``WARN`` lines (also cut into a row), launcher
    prefixes (Open MPI ``--tag-output`` and ``--timestamp-output``, ``[0]``, slurm ``--label``,
    and any other per-line prefix that the header line carries, such as ``pdsh``'s
    ``host:``), CRLF or CR line ends, tabs, text after the last row (a crash message, a shell
    prompt), lines whose ``#`` a Markdown renderer removed. A row cut short — by the end of the
    text, a comment line or an error message — raises. ``-c 0`` (no check) prints ``N/A`` in the
    check column (``wrong = None``); ``-G`` (CUDA graphs) does not change the table.

    Examples
    --------
    >>> log = read_nccl_tests(_EXAMPLE)
    >>> log.n_ranks, log.n_ranks_source, log.collective, len(log.rows)
    (2, 'rank lines', None, 2)
    >>> row = log.rows[1]
    >>> row.size, row.type, row.redop, row.root, row.time_s, row.busbw_Bps, row.wrong, row.wrong_inplace
    (1048576, 'float', 'sum', -1, 0.0001049, 10000000000.0, 0.0, None)

    Two ranks, busbw = algbw: AllReduce on 2 ranks, or SendRecv. A caller's AllGather does not fit
    (AllGather prints a count per rank, so its size would be twice count × 4 bytes):

    >>> read_nccl_tests(_EXAMPLE, collective="all_reduce").collective
    'all_reduce'
    >>> read_nccl_tests(_EXAMPLE, collective="all_gather")
    Traceback (most recent call last):
    ...
    ValueError: collective='all_gather' contradicts the log: its rows have size = count × type size (the whole buffer's count), while all_gather prints the count per rank (pass force=True, or --force, to use it anyway)
    >>> read_nccl_tests("nothing here")
    Traceback (most recent call last):
    ...
    ValueError: text: no nccl-tests result table found (no header line with 'time', 'algbw' and 'busbw', and no row of a known layout)
    """
    text, collective, n_ranks, force = _check_args(text, collective, n_ranks, force)
    lines = text.splitlines()
    return _text_errors(lambda: _read(lines, 0, len(lines), collective, n_ranks, force, None))


def _text_errors(read):
    try:
        return read()
    except ValueError as err:  # what is wrong is in the text: say so (messages naming a line already do)
        message = str(err)
        if message.startswith(("line ", "collective=", "n_ranks=")):
            raise
        raise ValueError(f"text: {message}") from None


def _check_args(text, collective, n_ranks, force):
    if not isinstance(text, str):
        raise TypeError(f"text must be a string (the printed output), got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(
            f"text has {len(text)} characters; the reader accepts at most {MAX_TEXT_CHARS} "
            "(split the log into runs first)"
        )
    check_cap(
        f"text: {len(text):,} characters: memory",
        _READ_BYTES_PER_CHAR * len(text) + _READ_FIXED_BYTES,
        READ_MAX_BYTES,
        "bytes",
        hint="split the log into runs first",
    )
    if collective is not None:
        collective = check_choice("collective", collective, COLLECTIVES)
    if n_ranks is not None:
        n_ranks = check_int("n_ranks", n_ranks, minimum=2, maximum=MAX_RANKS, scalar=True)
    return text, collective, n_ranks, check_bool("force", force)


def read_nccl_tests_runs(text, collective=None, n_ranks=None, force=False) -> tuple[NcclTestsLog, ...]:
    """Parse a text holding one or more nccl-tests runs: one :class:`NcclTestsLog` per result table.

    Runs are separated after the last row (or footer) of one table; everything from there to the
    next table's header — the command line, ``# nThread …``, the ``# Rank`` lines, NCCL version
    lines — belongs to the next run, so each run finds its own program name and rank count.
    Headerless rows start a new run where the sizes start again after a line that is not a row
    (``egrep`` output of several runs). Line numbers (``row.line``, error messages) count from
    the start of the whole text. Reading is linear in the text.

    Parameters
    ----------
    text : str
        As for :func:`read_nccl_tests` (same caps, counted over the whole text).
    collective, n_ranks, force
        Applied to every run (only when the runs are of one collective and rank count).

    Returns
    -------
    tuple of NcclTestsLog
        In the order printed.

    Examples
    --------
    >>> runs = read_nccl_tests_runs("./sendrecv_perf\\n" + _EXAMPLE + "./all_reduce_perf -b 8\\n" + _EXAMPLE)
    >>> [(run.collective, len(run.rows), run.rows[0].line) for run in runs]
    [('sendrecv', 2, 11), ('all_reduce', 2, 26)]
    """
    text, collective, n_ranks, force = _check_args(text, collective, n_ranks, force)
    lines = text.splitlines()
    starts = _run_starts(lines)
    versions = set(_NCCL_VERSION_RE.findall(text))
    default_version = versions.pop() if len(versions) == 1 else None
    logs = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(lines)
        logs.append(
            _text_errors(functools.partial(_read, lines, start, end, collective, n_ranks, force, default_version))
        )
    return tuple(logs)


def _run_starts(lines) -> list[int]:
    """0-based line index where each run's text starts (the first is 0)."""
    derived = _derive_prefix(lines)
    starts = [0]
    in_table = False
    seen_header = False
    last_table_line = 0
    for index, raw in _nonblank(lines, 0, len(lines), 0):
        if "busbw" not in raw and not in_table:
            continue
        if len(raw) < _SHORT_LINE:  # shorter than a header or a footer: a row, or nothing
            if in_table:
                stripped = _normalize(raw, derived)[0]
                if stripped[:1] in _ROW_START and _INT_RE.match(stripped.split()[0]):
                    last_table_line = index
            continue
        stripped, _ = _normalize(raw, derived)
        if _header_tokens(stripped) is not None:
            if in_table:
                starts.append(last_table_line + 1)
            in_table = seen_header = True
            last_table_line = index
        elif in_table and (_FOOTER_OOB_RE.match(stripped) or _FOOTER_AVG_RE.match(stripped)):
            last_table_line = index
        elif in_table and stripped and not stripped.startswith("#") and _INT_RE.match(stripped.split()[0]):
            last_table_line = index
    if not seen_header:
        return _bare_run_starts(lines)
    return starts


def _bare_row_tokens(stripped: str):
    tokens = stripped.split()
    if (
        len(tokens) in BARE_LAYOUTS
        and _INT_RE.match(tokens[0])
        and _INT_RE.match(tokens[1])
        and not _FLOAT_RE.match(tokens[2])
    ):
        return tokens
    return None


def _bare_run_starts(lines) -> list[int]:
    """Runs of headerless rows: a new one where sizes start again after a line that is not a row."""
    starts, last = [0], {}
    gap = False
    for index, raw in _nonblank(lines, 0, len(lines), 0):
        if len(raw) < _SHORT_BARE_ROW:  # not a row; a gap unless only a launcher's label
            gap = gap or bool(_normalize(raw, None)[0])
            continue
        stripped, _ = _normalize(raw, None)
        tokens = _bare_row_tokens(stripped) if stripped and not stripped.startswith("#") else None
        if tokens is None:
            gap = gap or bool(stripped)
            continue
        key, size = tuple(tokens[2:5]), int(tokens[0]) if len(tokens[0]) <= 20 else 0
        if gap and key in last and size <= last[key]:
            starts.append(index)
            last = {}
        last[key] = size
        gap = False
    return starts


class _Table:
    """Where one run's table stands while its lines are read."""

    def __init__(self):
        self.columns: list[_Column] | None = None
        self.check = None
        self.header_line = 0
        self.header_names: tuple = ()
        self.unit = None
        self.legacy_names = False
        self.rows: list[NcclTestsRow] = []
        self.pending: list[tuple[str, int]] = []
        self.pending_line = 0
        self.expected = 0
        self.finished = False
        self.last_size: dict = {}
        self.repeated_at = 0


def _read(lines, start, end, collective, n_ranks, force, default_version) -> NcclTestsLog:
    """Read ``lines[start:end]`` (one run); line numbers count from the start of ``lines``."""
    segment = lines[start:end]
    derived = _derive_prefix(segment)
    table = _Table()
    ranks: list[tuple[int, str, str, str, str]] = []
    avg = oob = None
    tests_version = library_code = rccl_version = None
    nranks_info: set = set()
    threads = None
    info = {"socket": 0, "no_nvls": 0, "reduced": None, "validation_off": False, "starting": None, "programs": {}}

    def fail_pending(lineno: int, line: str, why: str):
        raise ValueError(
            f"line {table.pending_line}: the row starting there is cut short ({why} at line {lineno}: {_quote(line)}): "
            f"{_quote(lines[table.pending_line - 1])}"
        )

    for lineno, raw in _nonblank(segment, 0, len(segment), start + 1):
        if len(raw) < _SHORT_LINE:
            if table.columns is None or table.finished:
                continue  # outside a table a short line is nothing the reader looks for
            if not table.pending:
                stripped = _normalize(raw, derived)[0]
                if stripped[:1] in ("#", "("):
                    # a comment; or the units line, which matters until the unit is known
                    if table.unit is None and any(u in stripped for u in ("(us)", "(ms)", "(B)", "(bytes)")):
                        _metadata(stripped, lineno, raw, table, ranks, info)
                    continue
                if not stripped or stripped[0] not in _ROW_START:
                    continue  # not a row's start, and too short for anything else
        if "NCCL INFO" in raw:
            if (m := _NRANKS_RE.search(raw)) is not None:
                nranks_info.add(int(m.group(1)))
            if not info["socket"] and _SOCKET_RE.search(raw):
                info["socket"] = lineno
            if not info["no_nvls"] and _NO_NVLS_RE.search(raw):
                info["no_nvls"] = lineno
        stripped, glued_host = _normalize(raw, derived)
        if not stripped and not glued_host:
            continue
        if "_perf" in stripped or "_test" in stripped:
            if (m := _STARTING_RE.match(stripped)) is not None and info["starting"] is None:
                info["starting"] = (m.group(1), lineno)
            for m in _PROGRAM_RE.finditer(stripped):
                info["programs"].setdefault(m.group(0), lineno)
        header = _header_tokens(stripped)
        if header is not None:
            if table.pending:
                fail_pending(lineno, raw, "a header line follows")
            if table.columns is not None:
                raise ValueError(
                    f"line {lineno}: a second result table starts here (the first began at line {table.header_line}); "
                    f"read a text of several runs with read_nccl_tests_runs: {_quote(raw)}"
                )
            table.columns, table.check = _parse_header(header, lineno, raw)
            table.header_line = lineno
            table.header_names = tuple(header)
            table.legacy_names = "bytes" in header or "res" in header
            table.expected = _expected_tokens(table.columns)
            continue
        if _metadata(stripped, lineno, raw, table, ranks, info):
            if table.pending:
                fail_pending(lineno, raw, "a comment line follows")
            if (m := _FOOTER_OOB_RE.match(stripped)) is not None:
                oob = int(m.group(1))
                table.finished = table.columns is not None
            elif (m := _FOOTER_AVG_RE.match(stripped)) is not None:
                try:
                    avg = float(m.group(1)) * 1e9
                except ValueError:
                    raise ValueError(
                        f"line {lineno}: the average bus bandwidth is not a number: {_quote(raw)}"
                    ) from None
                table.finished = table.columns is not None
            elif (m := _TESTS_VERSION_RE.match(stripped)) is not None:
                tests_version, library_code = m.group(1), m.group(2)
            elif (m := _THREADS_RE.match(stripped)) is not None:
                threads = (int(m.group(1)), int(m.group(2)))
                info["validation_off"] = info["validation_off"] or bool(_VALIDATION_OFF_RE.search(stripped))
            elif (m := _RCCL_VERSION_RE.match(stripped)) is not None:
                rccl_version = m.group(1)
            continue
        tokens = stripped.split()
        if glued_host:
            # A row's prefix followed directly by an NCCL log line ("-1host:pid:tid [0] NCCL INFO"):
            # the digits glued to the host name are the row's last printed value.
            glued = re.match(r"^(-?\d+)(?=[A-Za-z_])", glued_host)
            if glued and table.columns is not None and tokens:
                tokens.append(glued.group(1))
            if not tokens:
                continue
        if table.columns is None or table.finished:
            continue  # command lines, launcher messages, NCCL version lines, text after the footer
        _row_tokens(table, tokens, lineno, lines, 0)
    if table.columns is None:
        _read_bare(table, lines, start, end, derived)
    elif table.pending:
        raise ValueError(
            f"line {table.pending_line}: the text ends inside this row (truncated?): {_quote(lines[table.pending_line - 1])}"
        )
    if not table.rows:
        raise ValueError(f"line {table.header_line}: the result table has a header but no rows (truncated?)")

    evidence = Evidence(
        rows=tuple(table.rows),
        time_unit_s=table.unit if table.unit is not None else 1e-6,
        rank_indices=tuple(r[0] for r in ranks),
        nranks_info=tuple(sorted(nranks_info)),
        header_columns=table.header_names,
    )
    named = None
    if info["starting"] is not None:
        found = _PROGRAM_RE.search(info["starting"][0])
        if found:
            evidence.program, evidence.program_line = found.group(0), info["starting"][1]
    elif len({_PROGRAM_RE.match(p).group(1) for p in info["programs"]}) == 1:
        evidence.program, evidence.program_line = next(iter(info["programs"].items()))
    if evidence.program is not None:
        named = _PROGRAMS[_PROGRAM_RE.match(evidence.program).group(1)]
    command, command_line = find_command(segment, start)
    if command is not None:
        procs, per_thread, per_gpu = command
        if threads is not None:  # the program's own "# nThread T nGpus G" line outranks the options
            per_thread, per_gpu = threads
        evidence.command_ranks, evidence.command_line = procs * per_thread * per_gpu, command_line
    _early_warnings(evidence.warnings, table, ranks, info, avg, oob)
    collective, n, source, warnings, candidates = resolve(evidence, named, collective, n_ranks, force)
    hosts = tuple(dict.fromkeys(r[1] for r in sorted(ranks) if r[1]))
    devices = tuple(r[4] for r in sorted(dict((r[0], r) for r in ranks).values()))
    nccl_version = default_version
    found_versions = {m.group(1) for line in segment if "NCCL version" in line for m in _NCCL_VERSION_RE.finditer(line)}
    if found_versions:
        nccl_version = sorted(found_versions)[0]
    elif rccl_version is not None:
        nccl_version = rccl_version
    elif library_code and library_code.isdigit():
        code = int(library_code)
        nccl_version = (
            f"{code // 10000}.{code // 100 % 100}.{code % 100}"
            if code >= 20900
            else f"{code // 1000}.{code // 100 % 10}.{code % 100}"
        )
    return NcclTestsLog(
        rows=tuple(table.rows),
        n_ranks=n,
        collective=collective,
        hosts=hosts,
        devices=devices,
        check_column=table.check,
        time_unit_s=table.unit if table.unit is not None else 1e-6,
        nccl_version=nccl_version,
        tests_version=tests_version,
        avg_busbw_Bps=avg,
        out_of_bounds=oob,
        header_line=table.header_line,
        program=evidence.program,
        n_ranks_source=source,
        warnings=tuple(dict.fromkeys(warnings)),
        collective_candidates=candidates,
    )


def _metadata(stripped, lineno, raw, table, ranks, info) -> bool:
    """Whether a line is one the table's text carries besides rows (comments, rank lines, footers …);
    rank lines and the units line are taken in here, the rest by the caller."""
    if (m := _RANK_RE.match(stripped)) is not None:
        ranks.append((int(m.group(1)), m.group(2) or "", m.group(3), m.group(4).strip(), m.group(5).strip()))
        return True
    if (m := _DEVICE_RE.match(stripped)) is not None:
        ranks.append((int(m.group(1)), "", m.group(2), "", m.group(3).strip()))
        return True
    if _RCCL_VERSION_RE.match(stripped):
        return True
    if (m := _REDUCED_MAX_RE.match(stripped)) is not None:
        info["reduced"] = (int(m.group(1)), lineno)
        return True
    if stripped.startswith("#"):
        body = stripped[1:].split()
        if table.columns is not None and table.unit is None and ("(us)" in body or "(ms)" in body or "(B)" in body):
            table.unit = 1e-3 if "(ms)" in body else 1e-6
        return True
    if stripped.startswith("(B)") or stripped.startswith("(bytes)"):
        if table.columns is not None and table.unit is None:
            table.unit = 1e-3 if "(ms)" in stripped.split() else 1e-6
        return True
    return bool(_FOOTER_OOB_RE.match(stripped) or _FOOTER_AVG_RE.match(stripped) or _THREADS_RE.match(stripped))


def _row_tokens(table: _Table, tokens, lineno, lines, base):
    """Add one line's tokens to the table: continue the pending row or start one, then check them."""
    columns = table.columns
    if table.pending:
        table.pending.extend((t, lineno) for t in tokens)
    elif _INT_RE.match(tokens[0]):
        table.pending = [(t, lineno) for t in tokens]
        table.pending_line = lineno
    else:
        return  # a message between rows (warnings, launcher noise)
    # Check the tokens seen so far against their columns, so an error message cut into a row
    # is reported at once; a number where redop belongs is a blank redop column.
    pos = 0
    for col in columns:
        width = 2 if col.kind == "timestamp" else 1
        if pos >= len(table.pending):
            break
        if col.kind != "timestamp":
            token, tline = table.pending[pos]
            if col.field == "redop" and token != "" and _FLOAT_RE.match(token):
                table.pending.insert(pos, ("", tline))
                pos += 1
                continue
            try:
                _number(token, col.kind, col.name, tline, lines[tline - 1 - base])
            except ValueError as error:
                if tline == table.pending_line:
                    raise
                raise ValueError(f"{error} (continuing the row that starts at line {table.pending_line})") from None
        pos += width
    if len(table.pending) > table.expected:
        raise ValueError(
            f"line {table.pending_line}: row has {len(table.pending)} values but the header (line {table.header_line}) has "
            f"{table.expected} columns: {_quote(lines[table.pending_line - 1 - base])}"
        )
    if len(table.pending) == table.expected:
        if table.unit is None:
            table.unit = 1e-3 if table.legacy_names else 1e-6
        if len(table.rows) >= MAX_ROWS:
            raise ValueError(
                f"line {table.pending_line}: more than {MAX_ROWS} rows in one table; the reader "
                f"accepts at most {MAX_ROWS} (split the log)"
            )
        row = _build_row(columns, table.pending, table.pending_line, table.unit, lines, base)
        key = (row.type, row.redop, row.root)
        if row.size and key in table.last_size and row.size <= table.last_size[key] and not table.repeated_at:
            table.repeated_at = row.line
        table.last_size[key] = row.size
        table.rows.append(row)
        table.pending = []


def _read_bare(table: _Table, lines, start, end, derived):
    """Rows pasted without their header: the layout from the first row's token count."""
    first = None
    for lineno, raw in _nonblank(lines, start, end, start + 1):
        if len(raw) < (_SHORT_BARE_ROW if first is None else _SHORT_THREE_TOKENS):
            continue  # too short for a first row, or for any row after it
        stripped, _ = _normalize(raw, derived)
        if not stripped or stripped.startswith("#"):
            continue
        tokens = stripped.split()
        if first is None:
            if _bare_row_tokens(stripped) is None:
                continue
            table.columns, table.check = _bare_columns(len(tokens), tokens)
            table.expected = len(tokens)
            table.header_names = tuple(c.name for c in table.columns)
            table.unit = 1e-6
            first = lineno
        if (
            not _INT_RE.match(tokens[0])
            or len(tokens) < 3
            or not _INT_RE.match(tokens[1])
            or _FLOAT_RE.match(tokens[2])
        ):
            continue  # prose, separators, code fences between the pasted rows
        if len(tokens) != table.expected:
            raise ValueError(
                f"line {lineno}: row has {len(tokens)} values but the rows before it (line {first}) have "
                f"{table.expected}: {_quote(raw)}"
            )
        table.header_line = table.header_line or lineno
        _row_tokens(table, tokens, lineno, lines, 0)
    if first is None:
        raise ValueError(
            "no nccl-tests result table found (no header line with 'time', 'algbw' and 'busbw', "
            "and no row of a known layout)"
        )


def _early_warnings(warnings, table, ranks, info, avg, oob):
    rows = table.rows
    where: dict = {}
    for index, host, device, busid, _ in ranks:
        if host or busid:
            where.setdefault((host, busid or device), []).append(index)
    shared = [(key, indices) for key, indices in where.items() if len(set(indices)) > 1]
    if shared:
        (host, gpu), indices = shared[0]
        warnings.append(
            f"ranks {sorted(set(indices))[0]} and {sorted(set(indices))[1]} run on the same GPU "
            f"({host + ' ' if host else ''}[{gpu}]): they share its links, so busbw does not measure them"
        )
    wrong = [r for r in rows if table.check == "#wrong" and any(w for w in (r.wrong, r.wrong_inplace) if w)]
    if (oob or 0) > 0 or wrong:
        if oob:
            count = f"{oob} out-of-bounds values"
        else:
            count = f"{sum(int(w) for r in wrong for w in (r.wrong, r.wrong_inplace) if w)} wrong values (first at line {wrong[0].line})"
        warnings.append(
            f"the log's own correctness check failed ({count}): these timings come from wrong results "
            "and do not measure a working collective"
        )
    if info["validation_off"] or (rows and all(r.wrong is None for r in rows)):
        warnings.append(
            "the data were not checked (-c 0, validation: 0): nothing shows the collective computed the right result"
        )
    if avg is not None and rows:
        values, rounding = [], []
        for row in rows:
            for half in row.printed:
                values.append(float(half[2]))
                rounding.append(_half_ulp(half[2]))
        if values:
            mean = sum(values) / len(values)
            tolerance = sum(rounding) / len(rounding) + 5e-6 * max(mean, avg / 1e9) + 1e-9
            if abs(mean - avg / 1e9) > tolerance:
                warnings.append(
                    f"the footer's average bus bandwidth {avg / 1e9:.6g} GB/s is not the average of the "
                    f"rows shown ({mean:.6g} GB/s): rows were left out of the paste, or it joins several runs"
                )
    if info["reduced"] is not None:
        size, line = info["reduced"]
        warnings.append(
            f"nccl-tests reduced maxBytes to {size} bytes for lack of GPU memory (line {line}): the largest "
            "sizes asked for were not run"
        )
    if table.repeated_at:
        warnings.append(
            f"sizes start again at line {table.repeated_at}: the table holds rows of several runs or cycles "
            "(interleaved output of two processes, or -N repeats); they are kept in printed order"
        )
    gaps = [
        (abs(r.busbw_Bps - r.busbw_Bps_inplace) / max(r.busbw_Bps, r.busbw_Bps_inplace), r)
        for r in rows
        if r.size >= 2**20 and r.busbw_Bps_inplace and r.busbw_Bps and r.busbw_Bps >= 1e9
    ]
    if gaps:
        gap, row = max(gaps, key=lambda g: g[0])
        if gap > INPLACE_GAP:
            warnings.append(
                f"in-place and out-of-place busbw differ by {100 * gap:.0f} % at {row.size} bytes (line "
                f"{row.line}): the two halves did not measure the same thing; compare both"
            )
    if info["socket"]:
        warnings.append(
            f"NCCL used its socket (TCP) transport (line {info['socket']}): network numbers are TCP's, "
            "not the RDMA fabric's (no IB device found, NCCL_IB_DISABLE set, or the net plugin missing)"
        )
    if info["no_nvls"]:
        warnings.append(
            f"NCCL INFO says NVLS (NVLink SHARP) is not available (line {info['no_nvls']}): AllReduce "
            "cannot use in-switch reduction here"
        )
