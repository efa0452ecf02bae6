"""Where each run of a text starts: headed tables, headerless rows beside them, rows of ``egrep``.

A text people paste can hold several runs: tables one after another (a loop over collectives),
the rows of one table printed twice by two processes that each ran alone (interleaved, each with
its own header), headerless rows before a headed table or after its footer (a "before / after"
comparison where only one half kept its header), and the ``egrep`` output of several runs (rows
only). :func:`run_starts` finds where each run's text begins, in one pass over the lines; every
line between two runs — command line, ``# nThread``, ``# Rank`` lines — belongs to the next run.

Reading is linear in the text: blank lines are dropped at C level (:func:`nonblank`) and short
lines are looked at only where a row could be.
"""

from __future__ import annotations

import itertools

from .._tokens import read_number
from .formats import (
    _CONCLUDED_RE,
    _FLOAT_RE,
    _FOOTER_AVG_RE,
    _FOOTER_OOB_RE,
    _INT_RE,
    _PROGRAM_RE,
    _RANK_RE,
    _THREADS_RE,
    BARE_LAYOUTS,
    _derive_prefix,
    _header_tokens,
    _normalize,
)

# Per-line work is kept for lines that can matter (issue #28: 20 million empty or one-character
# lines took 24-31 s, four times a 20 MB log): blank lines are dropped at C level
# (:func:`nonblank`) and a line shorter than these cannot be what the passes look for.
#: Shorter than "NCCL INFO", a program name ("reduce_perf"), a header ("size algbw busbw") and
#: every metadata line but a "#" comment or a units line: nothing outside a table.
SHORT_LINE = 9
#: Shorter than the fewest tokens of a bare row (11, one character and a blank each).
SHORT_BARE_ROW = 2 * min(BARE_LAYOUTS) - 1
#: Shorter than three tokens: not even a bare row with the wrong number of values.
SHORT_THREE_TOKENS = 5
#: First characters of a row (its size); a short line inside a table that does not continue a
#: row, start one or begin with "#" or "(" (a comment, a units line) is nothing the reader keeps.
ROW_START = frozenset("-0123456789")
#: First characters of a line that may hold a headerless row (its size, or a launcher's label).
_MAYBE_ROW = ROW_START | frozenset("[ \t")


def nonblank(lines, start: int, end: int, first_number: int):
    """``(line number, line)`` of ``lines[start:end]`` that hold more than blanks, chosen at C level
    (no copy of the list: a text of 20 million empty lines is 160 MB of pointers already)."""
    return itertools.compress(
        enumerate(itertools.islice(lines, start, end), start=first_number),
        map(str.strip, itertools.islice(lines, start, end)),
    )


def bare_row_tokens(stripped: str):
    """The tokens of a headerless row of a known layout (:data:`BARE_LAYOUTS`), else ``None``."""
    tokens = stripped.split()
    if (
        len(tokens) in BARE_LAYOUTS
        and _INT_RE.match(tokens[0])
        and _INT_RE.match(tokens[1])
        and not _FLOAT_RE.match(tokens[2])
    ):
        return tokens
    return None


def _is_bare_row(raw: str, derived) -> bool:
    if len(raw) < SHORT_BARE_ROW or raw[:1] not in _MAYBE_ROW:
        return False
    stripped = _normalize(raw, derived)[0]
    return bool(stripped) and not stripped.startswith("#") and bare_row_tokens(stripped) is not None


def _ends_a_table(raw: str, derived) -> bool:
    """A line of a table's end after its first footer line: ``# Out of bounds values``, ``# Avg bus
    bandwidth`` (also another process's) and ``# Collective test concluded: …``."""
    if "bandwidth" not in raw and "Out of bounds" not in raw and "concluded" not in raw:
        return False  # most lines between runs: one C-level scan each
    stripped = _normalize(raw, derived)[0]
    return bool(_FOOTER_OOB_RE.match(stripped) or _FOOTER_AVG_RE.match(stripped) or _CONCLUDED_RE.match(stripped))


def _starts_a_run(stripped: str) -> bool:
    """A line that belongs to the start of a run (its command, ``# nThread`` or rank lines)."""
    return bool(_RANK_RE.match(stripped) or _THREADS_RE.match(stripped) or _PROGRAM_RE.search(stripped))


def run_starts(lines) -> list[int]:
    """0-based line index where each run's text starts (the first is 0).

    A headed table runs from its header to its last row or footer. A second header right after
    the first, with no row and no line that starts a run between them, is the same table printed
    by another process (two single-rank processes, nccl-tests#329), not a new run. Headerless rows
    before the first header, or after a footer, form a run of their own; so do rows whose sizes
    start again after a line of text below a table without a footer (a "Before:" table and the
    "After:" rows pasted under it; nccl-tests prints no text between its rows, and its cycles,
    ``-N``, and the rows of two processes follow each other without any).
    """
    derived = _derive_prefix(lines)
    starts = [0]
    state = "before"  # "before" the first header, in a "table", "after" its footer, in "bare" rows
    seen_header = False
    last_table_line = 0
    rows = 0  # rows of the current table
    new_run_since_header = False
    bare_last = 0
    last_size, gap = -1, False  # the table's last row's size; text seen since that row
    for index, raw in nonblank(lines, 0, len(lines), 0):
        if state in ("before", "after", "bare") and "busbw" not in raw:
            if state == "after" and _ends_a_table(raw, derived):
                last_table_line = index  # the footer's other line, or "Collective test concluded"
                continue
            if _is_bare_row(raw, derived):
                if state == "after":
                    starts.append(last_table_line + 1)
                state, bare_last = "bare", index
            continue
        if len(raw) < SHORT_LINE:  # shorter than a header or a footer: a row, or nothing
            if state == "table":
                stripped = _normalize(raw, derived)[0]
                if stripped[:1] in ROW_START and _INT_RE.match(stripped.split()[0]):
                    last_table_line, rows = index, rows + 1
                elif rows and stripped and not stripped.startswith("#"):
                    gap = True  # a code fence, a word
            continue
        stripped, _ = _normalize(raw, derived)
        if _header_tokens(stripped) is not None:
            if state == "bare":
                starts.append(bare_last + 1)
            elif state == "after" or (state == "table" and (rows or new_run_since_header)):
                starts.append(last_table_line + 1)
            state, seen_header, rows, new_run_since_header = "table", True, 0, False
            last_table_line, last_size, gap = index, -1, False
        elif state == "table" and (_FOOTER_OOB_RE.match(stripped) or _FOOTER_AVG_RE.match(stripped)):
            last_table_line, state = index, "after"
        elif state == "table" and stripped and not stripped.startswith("#") and _INT_RE.match(stripped.split()[0]):
            size = _size_of(stripped)
            if gap and rows and size is not None and size <= last_size and bare_row_tokens(stripped) is not None:
                starts.append(index)  # sizes start again after text: another run's rows
                state, bare_last = "bare", index
                continue
            last_table_line, rows, last_size, gap = index, rows + 1, size if size is not None else last_size, False
        elif state == "table" and not rows and _starts_a_run(stripped):
            new_run_since_header = True
        elif state == "table" and rows and stripped and not stripped.startswith("#") and "NCCL" not in raw:
            gap = True  # text below the rows (not NCCL's own lines, which can cut into a row)
    if not seen_header:
        return _bare_run_starts(lines)
    return starts


def _size_of(stripped: str) -> int | None:
    """The size a row starts with, when it is a plain decimal (the row's reader checks the rest)."""
    token = stripped.split()[0]
    return int(token) if token.isascii() and token.isdigit() and len(token) <= 20 else None


def _bare_run_starts(lines) -> list[int]:
    """Runs of headerless rows: a new one where sizes start again after a line that is not a row."""
    starts, last = [0], {}
    gap = False
    for index, raw in nonblank(lines, 0, len(lines), 0):
        if len(raw) < SHORT_BARE_ROW:  # not a row; a gap unless only a launcher's label
            gap = gap or bool(_normalize(raw, None)[0])
            continue
        stripped, _ = _normalize(raw, None)
        tokens = bare_row_tokens(stripped) if stripped and not stripped.startswith("#") else None
        if tokens is None:
            gap = gap or bool(stripped)
            continue
        key, size = tuple(tokens[2:5]), read_number(tokens[0], f"line {index + 1}: column 'size'", integer=True).value
        if gap and key in last and size <= last[key]:
            starts.append(index)
            last = {}
        last[key] = size
        gap = False
    return starts
