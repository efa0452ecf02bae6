"""What a log says about itself: its rank count and collective, cross-checked, and how sure it is.

nccl-tests computes every busbw from its own ``nranks`` (src/*.cu ``GetBw``): busbw = c(N) · size
/ time with c(N) = 2(N-1)/N (AllReduce), (N-1)/N (AllGather, ReduceScatter, AllToAll, Gather,
Scatter, and ``hypercube_perf``'s AllGather) or 1 (Broadcast, Reduce, SendRecv) — in both algbw
conventions (before June 2020 AllGather/ReduceScatter printed algbw = busbw). And it prints
``count`` per rank for the collectives whose buffers are split in N parts, so size = count × type
size × N there and size = count × type size otherwise. A printed row therefore carries its own
check: the interval of busbw · time / size over every row (each number known to its printed
rounding) must contain c(N), and size / (count · type size) must be 1 or N.

:func:`resolve` combines that with the ``# Rank`` lines, NCCL's ``nranks``, the command line and
the program name, and with what the caller passes; a caller's value the log contradicts raises
:class:`ValueError` saying what the log shows (or, with ``force``, becomes a warning).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from .command import MAX_RANKS, command_ranks, find_command  # noqa: F401  (re-exported)
from .formats import TYPE_SIZES
from .records import COLLECTIVES

# busbw / (size / time) for each collective: the three families.
_DOUBLE = ("all_reduce",)
_SPLIT = ("all_gather", "reduce_scatter", "all_to_all", "gather", "scatter")
_WHOLE = ("broadcast", "reduce", "sendrecv")
_ROOTED = ("broadcast", "reduce", "gather", "scatter")
_REDUCING = ("all_reduce", "reduce_scatter", "reduce")
# The collectives whose in-place half nccl-tests does not check (N/A beside a checked out-of-place).
_IN_PLACE_UNCHECKED = ("all_to_all", "sendrecv")
# Relative slack on the factor interval: the printed numbers are rounded from doubles.
_SLACK = 1e-9


def busbw_factor(collective: str, n: int) -> float:
    """nccl-tests' busbw / algbw factor c(N) (``doc/PERFORMANCE.md``; 1 for SendRecv).

    >>> busbw_factor("all_reduce", 8), busbw_factor("all_to_all", 16), busbw_factor("sendrecv", 2)
    (1.75, 0.9375, 1.0)
    """
    if collective in _DOUBLE:
        return 2 * (n - 1) / n
    if collective in _SPLIT:
        return (n - 1) / n
    return 1.0


def _ratio_for(collective: str, n: int) -> int:
    """size / (count × type size) that nccl-tests prints for ``collective`` on ``n`` ranks."""
    return n if collective in _SPLIT else 1


def _n_range(collective: str, lo: float, hi: float) -> tuple[int, int | None] | None:
    """Rank counts whose c(N) lies in ``[lo, hi]``: ``(first, last)`` (``last = None``: unbounded)."""
    if collective in _WHOLE:
        return (2, None) if lo <= 1.0 <= hi else None
    top = 2.0 if collective in _DOUBLE else 1.0  # c(N) = top (N-1)/N  <=>  N = top / (top - c)
    if hi <= 0 or lo >= top:
        return None
    first = 2 if lo <= busbw_factor(collective, 2) else math.ceil(top / (top - lo) - 1e-9)
    last = None if hi >= top else math.floor(top / (top - hi) + 1e-9)
    first = max(first, 2)
    if last is not None and last < first:
        return None
    # the integer bounds above come from a division: confirm them on c(N) itself
    while last is not None and last >= first and busbw_factor(collective, last) > hi * (1 + _SLACK):
        last -= 1
    while (last is None or first <= last) and busbw_factor(collective, first) < lo * (1 - _SLACK):
        first += 1
    if (last is not None and last < first) or first > MAX_RANKS:
        return None
    return first, last


@dataclass
class Evidence:
    """Facts one table carries about its run (filled by the reader, read by :func:`resolve`)."""

    rows: tuple = ()
    time_unit_s: float = 1e-6
    rank_indices: tuple = ()  # every '# Rank' index, in order (with repeats)
    nranks_info: tuple = ()  # distinct 'nranks' values of NCCL INFO comm lines
    command_ranks: int | None = None  # from the launcher and the program's -g/-t, or nThread/nGpus
    command_line: int = 0
    program: str | None = None
    program_line: int = 0
    header_columns: tuple = ()
    header_printed: bool = False  # the columns come from a printed header (not guessed from bare rows)
    warnings: list = field(default_factory=list)

    # -- what the rows say -----------------------------------------------------------------------

    def factor_interval(self):
        """``(lo, hi, rows used)`` of busbw · time / size over every row and half, or ``None``."""
        lo, hi, used = 0.0, math.inf, 0
        for row in self.rows:
            if row.size <= 0 or not row.printed:
                continue
            for time_printed, _, busbw_printed in row.printed:  # each number as read, with its rounding
                busbw, time = busbw_printed.value, time_printed.value
                d_busbw, d_time = busbw_printed.half_ulp, time_printed.half_ulp
                if busbw - d_busbw <= 0 or time - d_time <= 0:
                    continue
                scale = 1e9 * self.time_unit_s / row.size
                lo = max(lo, (busbw - d_busbw) * (time - d_time) * scale * (1 - _SLACK))
                hi = min(hi, (busbw + d_busbw) * (time + d_time) * scale * (1 + _SLACK))
                used += 1
        return (lo, hi, used) if used else None

    def algbw_interval(self, raw: bool = False):
        """``(lo, hi)`` of busbw / algbw over every row and half (each to its printed rounding), or ``None``.

        nccl-tests prints busbw = c(N) algbw, except AllGather and ReduceScatter before June 2020
        (busbw = algbw, both ``(N-1)/N`` size / time): :meth:`interval_for` uses this ratio only
        where the convention is known. Rows whose ratios differ by more than their rounding (edited
        numbers, rows of several runs) give an empty interval: ``None`` then, unless ``raw``.
        """
        lo, hi, used = 0.0, math.inf, 0
        for row in self.rows:
            for _, algbw, busbw in row.printed:
                if algbw.value - algbw.half_ulp <= 0 or busbw.value - busbw.half_ulp <= 0:
                    continue
                lo = max(lo, (busbw.value - busbw.half_ulp) / (algbw.value + algbw.half_ulp) * (1 - _SLACK))
                hi = min(hi, (busbw.value + busbw.half_ulp) / (algbw.value - algbw.half_ulp) * (1 + _SLACK))
                used += 1
        if not used or (lo > hi and not raw):
            return None
        return lo, hi

    def interval_for(self, collective: str):
        """The factor interval of :meth:`factor_interval`, narrowed by busbw / algbw where that ratio is
        ``c(N)`` for ``collective`` (not for the split collectives of the pre-2020 convention, where it is 1)."""
        interval = self.factor_interval()
        if interval is None:
            return None
        lo, hi, used = interval
        ratio = self.algbw_interval()
        if ratio is not None and (collective not in _SPLIT or ratio[1] < 1.0):
            lo, hi = max(lo, ratio[0]), min(hi, ratio[1])
        return lo, hi, used

    def size_ratio(self) -> int | None | bool:
        """size / (count × type size), the same on every row; ``None`` if no row tells, ``False``
        if the rows disagree (several runs in one table)."""
        ratios = set()
        for row in self.rows:
            width = TYPE_SIZES.get(row.type or "")
            if row.size > 0 and row.count and width:
                ratio, rest = divmod(row.size, row.count * width)
                ratios.add(ratio if rest == 0 and ratio >= 1 else -1)
        if not ratios:
            return None
        if len(ratios) > 1 or -1 in ratios:
            return False
        return ratios.pop()

    def count_mismatch(self) -> str | None:
        """What is wrong when the rows' size / (count × type size) is not one whole number for all
        (nccl-tests derives count from size), else ``None``."""
        ratios = {}
        for row in self.rows:
            width = TYPE_SIZES.get(row.type or "")
            if row.size > 0 and row.count and width:
                ratio, rest = divmod(row.size, row.count * width)
                if rest or ratio < 1:
                    return (
                        f"line {row.line}: size {row.size} is not a whole multiple of count {row.count} × "
                        f"{width} bytes ({row.type}): nccl-tests derives count from size, so the row was edited"
                    )
                ratios.setdefault(ratio, row.line)
        if len(ratios) > 1:
            (a, line_a), (b, line_b) = sorted(ratios.items(), key=lambda item: item[1])[:2]
            return (
                f"size / (count × type size) is {a} at line {line_a} and {b} at line {line_b}: one run prints "
                "one ratio, so the rows were edited or come from different runs"
            )
        return None

    def in_place_unchecked(self) -> bool:
        """Whether every row's out-of-place half was checked and its in-place half printed ``N/A``:
        nccl-tests (and rccl-tests) skip the in-place check of AllToAll (since 2020) and SendRecv
        (since 2021) only (``args->reportErrors = in_place ? 0 : 1``); ``-c 0`` prints N/A in both."""
        halves = [row for row in self.rows if row.time_s is not None and row.time_s_inplace is not None]
        return bool(halves) and all(row.wrong is not None and row.wrong_inplace is None for row in halves)

    def roots(self) -> set:
        return {row.root for row in self.rows if row.root is not None}

    def redops(self) -> set:
        return {row.redop for row in self.rows}

    # -- one hypothesis against the rows ------------------------------------------------------------

    def contradiction(self, collective: str, n: int | None) -> str | None:
        """Why ``(collective, n)`` cannot have printed these rows, or ``None`` if it can."""
        ratio = self.size_ratio()
        if ratio:
            if collective in _SPLIT and ratio == 1:
                return (
                    f"its rows have size = count × type size (the whole buffer's count), while {collective} "
                    "prints the count per rank"
                )
            if collective not in _SPLIT and ratio > 1:
                return (
                    f"its rows have size = {ratio} × count × type size (a count per rank of {ratio} ranks), "
                    f"while {collective} prints the whole buffer's count"
                )
            if n is not None and collective in _SPLIT and ratio != n:
                return f"its rows have size = {ratio} × count × type size, which means N = {ratio}, not {n}"
        roots = self.roots()
        if roots:
            if collective in _ROOTED and -1 in roots:
                return f"its rows have root -1 (no root), and {collective} has a root"
            if collective not in _ROOTED and any(r >= 0 for r in roots):
                return f"its rows have root {max(roots)}, and {collective} has no root"
        why = self._columns_contradiction(collective)
        if why is not None:
            return why
        interval = self.factor_interval()
        if interval is not None:
            lo, hi, _ = interval
            if lo > hi:
                return None  # the rows contradict each other: no test (a warning says so)
            narrowed = self.interval_for(collective)
            if narrowed[0] > narrowed[1]:
                ratio = self.algbw_interval()
                return (
                    f"busbw / algbw = {_interval_text(*ratio)} and busbw × time / size = {_interval_text(lo, hi)} "
                    f"on its rows: {collective} prints busbw = c(N) algbw, one number for both"
                )
            lo, hi = narrowed[0], narrowed[1]
            if n is not None:
                c = busbw_factor(collective, n)
                if not lo * (1 - _SLACK) <= c <= hi * (1 + _SLACK):
                    return (
                        f"busbw × time / size = {_interval_text(lo, hi)} on its rows, and {collective} on "
                        f"{n} ranks gives {c:.6g}"
                    )
            elif _n_range(collective, lo, hi) is None:
                return f"busbw × time / size = {_interval_text(lo, hi)} on its rows, which no rank count gives {collective}"
        return None

    def _columns_contradiction(self, collective: str) -> str | None:
        """Why the table's columns and its redop values rule ``collective`` out, else ``None``.

        Until 2022 each program printed its own header (nccl-tests ``src/*.cu`` ``print_header``):
        ``size count type`` (AllGather, SendRecv, hypercube), ``… redop`` (AllReduce,
        ReduceScatter, AllToAll with a blank redop), ``… root`` (Broadcast, Gather, Scatter),
        ``… redop root`` (Reduce); NCCL 1's ``bytes N type [op] [root]`` the same. Since then every
        program prints ``redop root``, with ``none`` (or blank) for the collectives that do not
        reduce; only SendRecv passes its ``-o`` operator through. In every era a reduction
        operator in the redop column means a reducing collective (or SendRecv), and a redop column
        left blank or ``none`` means one that does not reduce.
        """
        columns = self.header_columns
        has_redop, has_root = "redop" in columns or "op" in columns, "root" in columns
        if self.header_printed and not (has_redop and has_root):
            family = {
                (False, False): ("all_gather", "sendrecv"),
                (True, False): ("all_reduce", "reduce_scatter", "all_to_all"),
                (False, True): ("broadcast", "gather", "scatter"),
            }[(has_redop, has_root)]
            if collective not in family:
                shown = (
                    " ".join(c for c in columns[: columns.index("time")] if c != "count") if "time" in columns else ""
                )
                return (
                    f"its header's columns ({shown} …) are those nccl-tests printed for "
                    f"{', '.join(family)} only (each program had its own header until 2022)"
                )
        if not has_redop:
            return None
        redops = {r for r in self.redops() if r}
        reducing = sorted(r for r in redops if r != "none")
        if collective in _REDUCING and not reducing:
            shown = "'none'" if redops else "blank"
            return f"its rows have redop {shown}, and {collective} reduces"
        if reducing and collective not in _REDUCING + ("sendrecv",):
            return f"its rows have redop {reducing[0]!r}, and {collective} does not reduce"
        return None

    def ranks_from_rows(self, collective: str) -> tuple[int | None, str | None]:
        """N the rows alone determine for ``collective`` (count vs size, then the factor)."""
        ratio = self.size_ratio()
        if ratio and collective in _SPLIT and ratio >= 2:
            return ratio, "count vs size"
        interval = self.interval_for(collective)
        if interval is not None and interval[0] <= interval[1]:
            span = _n_range(collective, interval[0], interval[1])
            if span is not None and span[1] is not None and span[0] == span[1]:
                return span[0], "busbw factor"
        return None, None


def _interval_text(lo: float, hi: float) -> str:
    middle = (lo + hi) / 2
    return f"{middle:.6g} ± {(hi - lo) / 2:.2g}"


def resolve(
    evidence: Evidence, named: str | None, caller_collective: str | None, caller_n: int | None, force: bool = False
):
    """``(collective, n_ranks, source, warnings, candidates)`` from the evidence and the caller's values.

    ``candidates`` are the collectives the rows fit when they do not decide one (else empty).

    Raises :class:`ValueError` when a caller's value contradicts the log (unless ``force``).
    """
    warnings = evidence.warnings

    def conflict(message: str):
        if force:
            warnings.append(f"forced: {message}")
        else:
            raise ValueError(message + " (pass force=True, or --force, to use it anyway)")

    # -- the collective the text names, against the caller's --------------------------------------------
    collective = named
    if caller_collective is not None and named is not None and caller_collective != named:
        conflict(
            f"collective={caller_collective!r} contradicts the log: it names {evidence.program} "
            f"(line {evidence.program_line}), which measures {named}"
        )
        collective = caller_collective
    elif caller_collective is not None:
        collective = caller_collective

    # -- rank counts the text states --------------------------------------------------------------------
    stated, source = None, None
    indices = evidence.rank_indices
    distinct = sorted(set(indices))
    elided_bound = None
    elided_note = None
    if distinct:
        # counted once (indices.count per index was quadratic: 40,000 rank lines took 93 s)
        repeated = sorted(i for i, k in Counter(indices).items() if k > 1) if len(distinct) < len(indices) else []
        if repeated:
            warnings.append(
                f"the '# Rank' lines list rank {repeated[0]} more than once: several processes each "
                "ran alone (nccl-tests built without MPI=1?) or several runs were pasted together"
            )
        if distinct == list(range(len(distinct))) and not repeated:
            stated, source = len(distinct), "rank lines"
        elif distinct == [0]:  # "Rank 0" from every process: each ran alone (nccl-tests#107, #329)
            stated, source = 1, "rank lines"
        elif not repeated:
            elided_bound = distinct[-1] + 1
            shown = (
                f"only rank {distinct[0]}"
                if len(distinct) == 1
                else "ranks " + ", ".join(map(str, distinct[:3])) + (", …" if len(distinct) > 3 else "")
            )
            elided_note = f"the '# Rank' lines are elided ({shown} of 0..{distinct[-1]} listed)"
    if stated is None and len(evidence.nranks_info) == 1:
        stated, source = evidence.nranks_info[0], "NCCL INFO nranks"
    elif stated is not None and evidence.nranks_info and stated not in evidence.nranks_info:
        warnings.append(
            f"NCCL's INFO lines say nranks {', '.join(map(str, evidence.nranks_info))}, the rank lines {stated}"
        )
    if stated is None and evidence.command_ranks is not None and elided_bound is None:
        stated, source = evidence.command_ranks, "command line"

    # -- the collective the numbers allow -----------------------------------------------------------------
    candidates = [collective] if collective is not None else list(COLLECTIVES)
    # An elided rank list only bounds N from below; a command line is read by heuristics (launcher
    # names and options), so the rows, whose busbw nccl-tests computed from its own N, outrank it.
    n_hint = stated if source != "command line" else None
    fitting = [c for c in candidates if evidence.contradiction(c, n_hint) is None]
    if collective is not None and not fitting:
        why = evidence.contradiction(collective, n_hint)
        if caller_collective is not None and named is None:
            conflict(f"collective={caller_collective!r} contradicts the log: {why}")
        else:
            warnings.append(
                f"the rows do not fit {collective}" + (f" on {n_hint} ranks" if n_hint else "") + f": {why}"
            )
    if collective is None and len(fitting) > 1:
        # the check columns: a clue, not a proof (a later nccl-tests may check more or less), so it
        # narrows the candidates and refuses nothing
        # (not the converse: DeepEP#303's AllToAll rows print a checked in-place half)
        if evidence.in_place_unchecked():
            fitting = [c for c in fitting if c in _IN_PLACE_UNCHECKED] or fitting
    if collective is None:
        if len(fitting) == 1:
            collective = fitting[0]
        elif not fitting and n_hint is not None:
            fitting = [c for c in candidates if evidence.contradiction(c, None) is None]
            if len(fitting) == 1:
                collective = fitting[0]

    # -- the rank count --------------------------------------------------------------------------------
    n, n_source = stated, source
    from_rows, rows_source = None, None
    if collective is not None:
        from_rows, rows_source = evidence.ranks_from_rows(collective)
    elif fitting:  # the collective is not known, but every one that fits may give the same N
        found = {evidence.ranks_from_rows(c) for c in fitting}
        if len(found) == 1:
            from_rows, rows_source = found.pop()
    if elided_note is not None:
        if from_rows is None:
            warnings.append(f"{elided_note}: N = {elided_bound} assumed from the largest rank shown")
        elif from_rows == elided_bound:
            warnings.append(
                f"{elided_note}: N = {elided_bound} from the largest rank shown, as the {rows_source} agrees"
            )
        else:
            warnings.append(
                f"{elided_note}, but the rows give N = {from_rows} ({rows_source}): the rank lines come "
                f"from another run; N = {from_rows} used"
            )
    if collective is not None or from_rows is not None:
        if n is None and from_rows is not None:
            n, n_source = from_rows, rows_source
        elif n is None and elided_bound is not None:
            n, n_source = elided_bound, "rank lines"
        elif n is not None and from_rows is not None and from_rows != n and source == "command line":
            warnings.append(
                f"the command line (line {evidence.command_line}) starts N = {n} ranks, but the rows give "
                f"N = {from_rows} ({rows_source}), which nccl-tests computed its busbw with: N = {from_rows} used"
            )
            n, n_source = from_rows, rows_source
        elif n is not None and from_rows is not None and from_rows != n:
            warnings.append(f"the rows give N = {from_rows} ({rows_source}), but N = {n} from the {source}")
        if (
            collective is not None
            and n is not None
            and evidence.contradiction(collective, n) is not None
            and from_rows is None
        ):
            warnings.append(
                f"the rows do not fit {collective} on {n} ranks ({source}): {evidence.contradiction(collective, n)}"
            )
    elif n is None and elided_bound is not None:
        n, n_source = elided_bound, "rank lines"

    if caller_n is not None:
        guessed = n_source == "rank lines" and stated is None  # only a lower bound: the rank list is elided
        if n is not None and n_source is not None and caller_n != n and not (guessed and caller_n > n):
            conflict(f"n_ranks={caller_n} contradicts the log: N = {n} from its {n_source}")
            n, n_source = caller_n, "caller"
        elif n is None or guessed:
            reasons = [
                evidence.contradiction(c, caller_n) for c in ([collective] if collective else fitting or candidates)
            ]
            if reasons and all(reasons):
                conflict(f"n_ranks={caller_n} contradicts the log: {reasons[0]}")
            elif collective is None:
                fits = [c for c, why in zip(fitting, reasons) if why is None]
                if len(fits) == 1:
                    collective = fits[0]
            n, n_source = caller_n, "caller"
    if (mismatch := evidence.count_mismatch()) is not None:
        warnings.append(mismatch)
    interval = evidence.factor_interval()
    if interval is not None and interval[0] > interval[1]:
        warnings.append(
            "busbw × time / size differs between rows by more than the printed rounding: the table joins "
            "rows of different runs or rank counts"
        )
    else:
        ratio = evidence.algbw_interval(raw=True)
        if ratio is not None and ratio[0] > ratio[1]:
            warnings.append(
                "busbw / algbw differs between rows by more than the printed rounding (nccl-tests prints one "
                "factor for a whole run): numbers in the table were edited, or it joins rows of different runs"
            )
    candidates = tuple(fitting) if collective is None else ()
    return collective, n, n_source, warnings, candidates
