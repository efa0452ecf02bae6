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
import re
import sys

from .._tokens import read_number
from .._validation import check_bool, check_cap, check_choice, check_int
from .checks import early_warnings, error_column_failures
from .evidence import MAX_RANKS, Evidence, find_command, resolve
from .formats import (
    _DEVICE_RE,
    _FLOAT_RE,
    _FOOTER_AVG_RE,
    _FOOTER_OOB_RE,
    _INT_RE,
    _NCCL_VERSION_RE,
    _NCCOM_RE,
    _PROGRAM_RE,
    _PROGRAMS,
    _RANK_RE,
    _RCCL_VERSION_RE,
    _REDUCED_MAX_RE,
    _STARTING_RE,
    _TESTS_VERSION_RE,
    _THREADS_RE,
    _VALIDATION_OFF_RE,
    _bare_columns,
    _Column,
    _derive_prefix,
    _expected_tokens,
    _header_tokens,
    _normalize,
    _number,
    _parse_header,
    _quote,
)
from .nccl_info import NcclInfo, read_info_line
from .records import _EXAMPLE, COLLECTIVES, MAX_ROWS, NcclTestsLog, NcclTestsRow  # noqa: F401  (_EXAMPLE: doctests)
from .runs import ROW_START, SHORT_BARE_ROW, SHORT_LINE, SHORT_THREE_TOKENS, bare_row_tokens, nonblank, run_starts

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
# Per-line work is kept for lines that can matter (blank and short lines: see runs.py).
_SHORT_LINE, _SHORT_BARE_ROW, _SHORT_THREE_TOKENS, _ROW_START = (
    SHORT_LINE,
    SHORT_BARE_ROW,
    SHORT_THREE_TOKENS,
    ROW_START,
)


#: Largest bandwidth a row may imply (bytes/s): the package's bandwidth range (``_validation``),
#: a million times any link built. A row whose size over its time is above it has a misprinted time.
MAX_ROW_BANDWIDTH = 1e30


def _build_row(columns, tokens, first_line, unit, lines, base) -> NcclTestsRow:
    """A row from its tokens ``[text, line, value]``, each value read once by :func:`_row_tokens`."""
    values: dict = {"type": None, "redop": None, "root": None}
    halves = [dict(), dict()]
    printed = [[None, None, None], [None, None, None]]
    pos = 0
    for col in columns:
        if col.kind == "timestamp":
            pos += 2
            continue
        token, _, value = tokens[pos]
        pos += 1
        if token == "" and col.field == "redop":
            continue  # a blank redop column (alltoall of 2020-2021 prints none)
        if col.field is None:
            continue
        if col.half is None:
            values[col.field] = value
        else:
            halves[col.half][col.field] = value
            slot = {"time": 0, "algbw": 1, "busbw": 2}.get(col.field)
            if slot is not None:
                printed[col.half][slot] = value
    if "count" not in values:
        values["count"] = None
    quoted = _quote(lines[first_line - 1 - base])
    size = values.get("size", 0)
    for h, suffix in ((0, ""), (1, "_inplace")):
        half = halves[h]
        time = half.get("time")
        if time is not None and time.value == 0 and size > 0:
            raise ValueError(
                f"line {first_line}: time {time.text!r} for a {size}-byte message: the table printed a time "
                f"below its resolution, so no bandwidth follows from it: {quoted}"
            )
        time_s = None if time is None else time.value * unit
        if time_s is not None and size > 0 and (time_s < sys.float_info.min or size / time_s > MAX_ROW_BANDWIDTH):
            raise ValueError(
                f"line {first_line}: time {time.text!r} for a {size}-byte message implies {size} bytes in "
                f"{time_s:.3g} s, above {MAX_ROW_BANDWIDTH:g} bytes/s (any link's rate a million times over): "
                f"the time is misprinted: {quoted}"
            )
        values["time_s" + suffix] = time_s
        for field in ("algbw", "busbw"):
            number = half.get(field)
            if number is not None and number.value * 1e9 > MAX_ROW_BANDWIDTH:
                raise ValueError(
                    f"line {first_line}: {field} {number.text!r} GB/s is above {MAX_ROW_BANDWIDTH / 1e9:g} GB/s "
                    f"(any link's rate a million times over): {quoted}"
                )
            values[f"{field}_Bps{suffix}"] = None if number is None else number.value * 1e9
        wrong = half.get("wrong")
        values["wrong" + suffix] = None if wrong is None else wrong.value
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
    (2, 'rank lines', 'sendrecv', 2)
    >>> row = log.rows[1]
    >>> row.size, row.type, row.redop, row.root, row.time_s, row.busbw_Bps, row.wrong, row.wrong_inplace
    (1048576, 'float', 'sum', -1, 0.0001049, 10000000000.0, 0.0, None)

    Two ranks, busbw = algbw: AllReduce on 2 ranks, or SendRecv; its in-place check printed ``N/A``
    beside a checked out-of-place half, which nccl-tests does for SendRecv and AllToAll only, so the
    reader takes SendRecv. A caller's AllReduce is taken; a caller's AllGather does not fit
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
    _refuse_other_tools(text, lines)
    return _text_errors(lambda: _read(lines, 0, len(lines), collective, n_ranks, force, None))


def _refuse_other_tools(text: str, lines) -> None:
    """Refuse, naming it, the output of a tool whose table looks like nccl-tests' but is not."""
    if "(GB/s)" not in text and "count(elems)" not in text:  # C-level scans first
        return
    found = next((i for i, line in enumerate(lines) if _NCCOM_RE.search(line)), None)
    if found is None or any(_header_tokens(line.strip().lstrip("# ")) for line in lines if "busbw" in line):
        return
    raise ValueError(
        f"line {found + 1}: this is AWS Neuron's nccom-test output (columns size(B) count(elems) … busbw(GB/s)), "
        f"not nccl-tests output: the reader reads the tables of nccl-tests and rccl-tests: {_quote(lines[found])}"
    )


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


def read_nccl_tests_runs(text, collective=None, n_ranks=None, force=False, *, run=None) -> tuple[NcclTestsLog, ...]:
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
        Applied to every run read (only when the runs are of one collective and rank count, or
        with ``run``).
    run : int, optional
        Read only the ``run``-th run (1-based, as printed) and apply ``collective`` / ``n_ranks``
        to it alone; the other runs are not read. ``ValueError`` if the text holds fewer runs.

    Returns
    -------
    tuple of NcclTestsLog
        In the order printed (one, with ``run``).

    Examples
    --------
    >>> runs = read_nccl_tests_runs("./sendrecv_perf\\n" + _EXAMPLE + "./all_reduce_perf -b 8\\n" + _EXAMPLE)
    >>> [(run.collective, len(run.rows), run.rows[0].line) for run in runs]
    [('sendrecv', 2, 11), ('all_reduce', 2, 26)]

    One run alone, with the caller's values for it only:

    >>> text = "./sendrecv_perf\\n" + _EXAMPLE + "./all_reduce_perf -b 8\\n" + _EXAMPLE
    >>> [(run.collective, run.n_ranks) for run in read_nccl_tests_runs(text, n_ranks=2, run=2)]
    [('all_reduce', 2)]
    """
    text, collective, n_ranks, force = _check_args(text, collective, n_ranks, force)
    lines = text.splitlines()
    _refuse_other_tools(text, lines)
    starts = run_starts(lines)
    if run is not None:
        run = check_int("run", run, minimum=1, scalar=True)
        if run > len(starts):
            raise ValueError(f"run={run}: the text holds {len(starts)} run{'s' if len(starts) != 1 else ''}")
    versions = set(_NCCL_VERSION_RE.findall(text))
    default_version = versions.pop() if len(versions) == 1 else None
    logs = []
    for i, start in enumerate(starts):
        if run is not None and i != run - 1:
            continue
        end = starts[i + 1] if i + 1 < len(starts) else len(lines)
        logs.append(
            _text_errors(functools.partial(_read, lines, start, end, collective, n_ranks, force, default_version))
        )
    return tuple(logs)


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
        self.header_printed = False  # a header line was read (not columns guessed from bare rows)


def _read(lines, start, end, collective, n_ranks, force, default_version) -> NcclTestsLog:
    """Read ``lines[start:end]`` (one run); line numbers count from the start of ``lines``."""
    segment = lines[start:end]
    derived = _derive_prefix(segment)
    table = _Table()
    ranks: list[tuple[int, str, str, str, str, int]] = []  # index, host, device, bus id, name, line
    avg = oob = None
    tests_version = library_code = rccl_version = None
    threads = None
    nccl = NcclInfo()
    notes: list[str] = []  # warnings found while reading (counts the log states but cannot be)
    info = {"reduced": None, "validation_off": False, "starting": None, "programs": {}, "outside": []}

    def fail_pending(lineno: int, line: str, why: str):
        raise ValueError(
            f"line {table.pending_line}: the row starting there is cut short ({why} at line {lineno}: {_quote(line)}): "
            f"{_quote(lines[table.pending_line - 1])}"
        )

    for lineno, raw in nonblank(segment, 0, len(segment), start + 1):
        if len(raw) < _SHORT_LINE:
            if table.columns is None or table.finished:
                continue  # outside a table a short line is nothing the reader looks for
            if not table.pending:
                stripped = _normalize(raw, derived)[0]
                if stripped[:1] in ("#", "("):
                    # a comment; or the units line, which matters until the unit is known
                    if table.unit is None and any(u in stripped for u in ("(us)", "(ms)", "(B)", "(bytes)")):
                        _metadata(stripped, lineno, raw, table, ranks, info, notes)
                    continue
                if not stripped or stripped[0] not in _ROW_START:
                    continue  # not a row's start, and too short for anything else
        if "NCCL INFO" in raw:
            read_info_line(raw, lineno, nccl)
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
                if not table.rows and tuple(header) == table.header_names:
                    continue  # the same header again before any row: another process's (nccl-tests#329)
                raise ValueError(
                    f"line {lineno}: a second result table starts here (the first began at line {table.header_line}); "
                    f"read a text of several runs with read_nccl_tests_runs: {_quote(raw)}"
                )
            table.columns, table.check = _parse_header(header, lineno, raw)
            table.header_line = lineno
            table.header_names = tuple(header)
            table.legacy_names = "bytes" in header or "res" in header
            table.expected = _expected_tokens(table.columns)
            table.header_printed = True
            continue
        if _metadata(stripped, lineno, raw, table, ranks, info, notes):
            if table.pending:
                fail_pending(lineno, raw, "a comment line follows")
            if (m := _FOOTER_OOB_RE.match(stripped)) is not None:
                oob = read_number(m.group(1), f"line {lineno}: out-of-bounds count", integer=True).value
                table.finished = table.columns is not None
            elif (m := _FOOTER_AVG_RE.match(stripped)) is not None:
                # the footer only checks the rows: a value that is not a number (an edited paste's
                # "~2.0 GB/s (approx)", an overflowing token) is named and left out, not fatal
                try:
                    avg = read_number(m.group(1), f"line {lineno}: the average bus bandwidth", context=_quote(raw))
                    avg = _footer_average(avg, lineno, raw)
                except ValueError as error:
                    notes.append(f"{error}: the footer is not used")
                    avg = None
                table.finished = table.columns is not None
            elif (m := _TESTS_VERSION_RE.match(stripped)) is not None:
                tests_version, library_code = m.group(1), m.group(2)
            elif (m := _THREADS_RE.match(stripped)) is not None:
                threads = _threads(m, lineno, raw, notes)
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
            # Command lines, launcher messages, NCCL version lines, text after the footer; a row of
            # a known layout here belongs to no table (read_nccl_tests_runs makes it a run of its own).
            if len(raw) >= _SHORT_BARE_ROW and bare_row_tokens(stripped) is not None:
                info["outside"].append((lineno, table.columns is not None))
            continue
        _row_tokens(table, tokens, lineno, lines, 0)
    if table.columns is None:
        _read_bare(table, lines, start, end, derived)
    elif table.pending:
        raise ValueError(
            f"line {table.pending_line}: the text ends inside this row (truncated?): {_quote(lines[table.pending_line - 1])}"
        )
    elif info["outside"]:
        _refuse_rows_outside(info["outside"], table)
    if not table.rows:
        alone = len(ranks) > 1 and {r[0] for r in ranks} == {0}
        if alone or nccl.nranks == {1}:
            raise ValueError(
                f"line {table.header_line}: the result table has a header but no rows, and every process ran alone "
                f"({'its rank lines all say rank 0' if alone else 'NCCL INFO says nranks 1'}): one GPU measures no "
                "communication (if mpirun started several processes, nccl-tests was built without MPI=1; rebuild "
                "with 'make MPI=1')"
            )
        raise ValueError(f"line {table.header_line}: the result table has a header but no rows (truncated?)")

    rank_indices = tuple(r[0] for r in ranks if r[0] <= MAX_RANKS)
    if len(rank_indices) < len(ranks):
        late = next(r for r in ranks if r[0] > MAX_RANKS)
        notes.append(f"line {late[5]}: rank {late[0]} is above {MAX_RANKS} ranks: that rank line is not used")
    evidence = Evidence(
        rows=tuple(table.rows),
        time_unit_s=table.unit if table.unit is not None else 1e-6,
        rank_indices=rank_indices,
        nranks_info=_counts(nccl.nranks, "NCCL INFO nranks", notes),
        header_columns=table.header_names,
        header_printed=table.header_printed,
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
    command, command_line, command_note = find_command(segment, start)
    if command_note:
        notes.append(command_note)
    if command is not None:
        procs, per_thread, per_gpu = command
        if threads is not None:  # the program's own "# nThread T nGpus G" line outranks the options
            per_thread, per_gpu = threads
        count = procs * per_thread * per_gpu
        if 1 <= count <= MAX_RANKS:
            evidence.command_ranks, evidence.command_line = count, command_line
        else:
            notes.append(
                f"line {command_line}: the command line starts {procs} x {per_thread} x {per_gpu} = {count} ranks, "
                f"outside 1 to {MAX_RANKS}: not used for the rank count"
            )
    evidence.warnings.extend(notes)
    early_warnings(evidence.warnings, table, ranks, info, None if avg is None else avg, oob, nccl)
    collective, n, source, warnings, candidates = resolve(evidence, named, collective, n_ranks, force)
    failed = error_column_failures(table.rows, table.check, n, collective)
    if failed:
        warnings.append(failed)
    hosts = tuple(dict.fromkeys(r[1] for r in sorted(ranks) if r[1]))
    listed = sorted({r[0] for r in ranks})
    hosts_complete = bool(hosts) and n is not None and listed == list(range(n))
    nodes = _counts(nccl.nodes, "NCCL INFO nNodes", warnings)
    node_count = nodes[0] if len(nodes) == 1 and n is not None and nodes[0] <= n else None
    if hosts and not hosts_complete and node_count is None:
        shown = f"ranks {listed[0]} .. {listed[-1]}" if len(listed) > 1 else f"rank {listed[0]}"
        warnings.append(
            f"the '# Rank' lines list {len(listed)} of the {n or 'unknown number of'} ranks ({shown}) on "
            f"{len(hosts)} host{'s' if len(hosts) > 1 else ''}: the node count is not known from the log "
            "(pass n_nodes, --nodes, for the network cut)"
        )
    devices = tuple(r[4] for r in sorted(dict((r[0], r) for r in ranks).values()))
    return NcclTestsLog(
        rows=tuple(table.rows),
        n_ranks=n,
        collective=collective,
        hosts=hosts,
        devices=devices,
        check_column=table.check,
        time_unit_s=table.unit if table.unit is not None else 1e-6,
        nccl_version=_library_version(segment, default_version, rccl_version, library_code),
        tests_version=tests_version,
        avg_busbw_Bps=avg,
        out_of_bounds=oob,
        header_line=table.header_line,
        program=evidence.program,
        n_ranks_source=source,
        warnings=tuple(dict.fromkeys(warnings)),
        collective_candidates=candidates,
        hosts_complete=hosts_complete,
        node_count=node_count,
        nccl=nccl,
    )


def _footer_average(number, lineno: int, raw: str) -> float:
    """The footer's average busbw in bytes/s (its GB/s number read by ``read_number``)."""
    if number.value < 0 or number.value * 1e9 > MAX_ROW_BANDWIDTH:
        raise ValueError(
            f"line {lineno}: the average bus bandwidth {number.text!r} GB/s is outside 0 to "
            f"{MAX_ROW_BANDWIDTH / 1e9:g} GB/s: {_quote(raw)}"
        )
    return number.value * 1e9


def _threads(match, lineno: int, raw: str, notes: list):
    """``(threads, GPUs per thread)`` of a ``# nThread T nGpus G`` line, or ``None`` (with a note)
    when they start no rank or more than :data:`MAX_RANKS` (a log the program cannot have printed)."""
    where = f"line {lineno}:"
    per_thread = read_number(match.group(1), f"{where} nThread", integer=True).value
    per_gpu = read_number(match.group(2), f"{where} nGpus", integer=True).value
    if not 1 <= per_thread * per_gpu <= MAX_RANKS:
        notes.append(
            f"line {lineno}: '# nThread {per_thread} nGpus {per_gpu}' starts {per_thread * per_gpu} GPUs per "
            f"process, outside 1 to {MAX_RANKS}: not used for the rank count"
        )
        return None
    return per_thread, per_gpu


def _counts(values, what: str, notes: list) -> tuple:
    """Rank or node counts a log states, those from 1 to :data:`MAX_RANKS` (a note for the others)."""
    kept = tuple(sorted(v for v in values if 1 <= v <= MAX_RANKS))
    if len(kept) < len(values):
        bad = sorted(v for v in values if not 1 <= v <= MAX_RANKS)[0]
        notes.append(f"{what} {bad} is outside 1 to {MAX_RANKS}: not used")
    return kept


def _library_version(segment, default_version, rccl_version, library_code):
    found_versions = {m.group(1) for line in segment if "NCCL version" in line for m in _NCCL_VERSION_RE.finditer(line)}
    if found_versions:
        return sorted(found_versions)[0]
    if rccl_version is not None:
        return rccl_version
    if library_code and library_code.isascii() and library_code.isdigit() and len(library_code) <= 9:
        code = read_number(library_code, "nccl-library", integer=True).value
        if code >= 20900:
            return f"{code // 10000}.{code // 100 % 100}.{code % 100}"
        return f"{code // 1000}.{code // 100 % 10}.{code % 100}"
    return default_version


def _refuse_rows_outside(outside, table):
    """Rows of a known layout before the table's header or after its footer: another run's rows."""
    first, after = outside[0]
    last = outside[-1][0]
    where = "after its footer" if after else "before its header"
    span = f"line {first}" if first == last else f"lines {first}-{last}"
    raise ValueError(
        f"line {first}: {len(outside)} rows without a header {where} ({span}) belong to no table of this run: "
        f"read a text of several runs with read_nccl_tests_runs, which reads them as a run of their own "
        f"(the table's header is at line {table.header_line})"
    )


def _metadata(stripped, lineno, raw, table, ranks, info, notes) -> bool:
    """Whether a line is one the table's text carries besides rows (comments, rank lines, footers …);
    rank lines and the units line are taken in here, the rest by the caller."""
    if (m := _RANK_RE.match(stripped)) is not None:
        index = read_number(m.group(1), f"line {lineno}: rank", integer=True).value
        device = read_number(m.group(3), f"line {lineno}: device", integer=True).text
        ranks.append((index, m.group(2) or "", device, m.group(4).strip(), m.group(5).strip(), lineno))
        return True
    if (m := _DEVICE_RE.match(stripped)) is not None:
        index = read_number(m.group(1), f"line {lineno}: device", integer=True).value
        ranks.append((index, "", m.group(2), "", m.group(3).strip(), lineno))
        return True
    if _RCCL_VERSION_RE.match(stripped):
        return True
    if (m := _REDUCED_MAX_RE.match(stripped)) is not None:
        info["reduced"] = (read_number(m.group(1), f"line {lineno}: maxBytes", integer=True).value, lineno)
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
    return bool(
        _FOOTER_OOB_RE.match(stripped)
        or _FOOTER_AVG_RE.match(stripped)
        or _THREADS_RE.match(stripped)
        or _TESTS_VERSION_RE.match(stripped)  # also when a Markdown renderer ate its "#"
    )


def _row_tokens(table: _Table, tokens, lineno, lines, base):
    """Add one line's tokens to the table: continue the pending row or start one, then check them."""
    columns = table.columns
    if table.pending:
        table.pending.extend([t, lineno] for t in tokens)
    elif _INT_RE.match(tokens[0]):
        table.pending = [[t, lineno] for t in tokens]
        table.pending_line = lineno
    else:
        return  # a message between rows (warnings, launcher noise)
    # Read the tokens seen so far against their columns (each once: its value is kept with it),
    # so an error message cut into a row is reported at once; a number where redop belongs is a
    # blank redop column.
    pos = 0
    for col in columns:
        width = 2 if col.kind == "timestamp" else 1
        if pos >= len(table.pending):
            break
        if col.kind != "timestamp":
            item = table.pending[pos]
            token, tline = item[0], item[1]
            if col.field == "redop" and token != "" and _FLOAT_RE.match(token):
                table.pending.insert(pos, ["", tline, ""])
                pos += 1
                continue
            if len(item) == 2:
                try:
                    item.append(_number(token, col.kind, col.name, tline, lines[tline - 1 - base]))
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
    for lineno, raw in nonblank(lines, start, end, start + 1):
        if len(raw) < (_SHORT_BARE_ROW if first is None else _SHORT_THREE_TOKENS):
            continue  # too short for a first row, or for any row after it
        stripped, _ = _normalize(raw, derived)
        if not stripped or stripped.startswith("#"):
            continue
        tokens = stripped.split()
        if first is None:
            if bare_row_tokens(stripped) is None:
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
