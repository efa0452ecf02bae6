"""The book's ping-pong held against ``mpi4py.bench pingpong``, the benchmark that ships with mpi4py.

:func:`read_mpi4py_pingpong` reads what ``mpiexec -n 2 python -m mpi4py.bench pingpong`` prints;
:func:`pingpong_agreement` puts the book's one-way times (``python -m ccb_helpers.mpi pingpong``)
next to it, size by size, as medians over alternating rounds. ``benchmarks/bench_pingpong_vs_mpi4py.py``
runs both and writes the rounds to a JSON file that chapter 6 reads; no MPI is needed here.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

import numpy as np

from .._validation import check_int, check_record
from ..tables import Table
from ..units import format_bytes, format_time

__all__ = [
    "AgreementRow",
    "AgreementSummary",
    "pingpong_agreement",
    "pingpong_agreement_summary",
    "pingpong_agreement_table",
    "read_mpi4py_pingpong",
]

#: Longest ``mpi4py.bench`` output :func:`read_mpi4py_pingpong` reads (characters).
MAX_TEXT_CHARS = 10**6
#: Most rounds :func:`pingpong_agreement` takes.
MAX_ROUNDS = 1000

# "   16384   1288.65 | 1.2714100e-05 ± 1.1115e-04    10000": size, MB/s, then mean ± stdev and samples.
_ROW = re.compile(r"^\s*(\d+)\s+([0-9.eE+-]+|inf|nan)\s*(?:\|\s*([0-9.eE+-]+)\s*\S+\s*([0-9.eE+-]+)\s+(\d+))?\s*$")


def read_mpi4py_pingpong(text: str) -> dict:
    """Sizes and mean one-way times from the output of ``mpi4py.bench pingpong``.

    The benchmark prints one row per size: bytes, bandwidth in MB/s (10⁶ bytes/s) and, unless
    ``--no-stats``, the mean one-way time (half a round trip) ± its standard deviation and the
    number of timed round trips. Without the statistics the time is recovered as size / bandwidth.

    Parameters
    ----------
    text : str
        The printed output (comment lines ``#`` and blank lines are skipped; at most 10⁶ characters).

    Returns
    -------
    dict
        ``sizes`` (bytes), ``times_s`` (mean one-way time, s), ``stdev_s`` and ``samples``
        (``None`` where not printed).

    Raises
    ------
    ValueError
        If a line is neither a comment nor a row, or no row is found.

    Examples
    --------
    >>> out = '''# MPI PingPong Test
    ... # Size [B]  Bandwidth [MB/s] | Time Mean [s] \u00b1 StdDev [s]  Samples
    ...      16384           1288.65 | 1.2714100e-05 \u00b1 1.1115e-04    10000
    ...   16777216           9081.73 | 1.8473593e-03 \u00b1 1.0733e-03       10'''
    >>> r = read_mpi4py_pingpong(out)
    >>> r["sizes"], r["times_s"], r["samples"]
    ([16384, 16777216], [1.27141e-05, 0.0018473593], [10000, 10])
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"text has {len(text)} characters, more than the cap of {MAX_TEXT_CHARS}")
    sizes, times, stdevs, samples = [], [], [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _ROW.match(line)
        if not match:
            raise ValueError(f"text: line {number} is not a row of mpi4py.bench pingpong: {line.strip()[:120]!r}")
        size, bandwidth, mean, stdev, count = match.groups()
        size = int(size)
        if mean is not None:
            time_s = float(mean)
        elif float(bandwidth) > 0 and size > 0:
            time_s = size / (float(bandwidth) * 1e6)
        else:
            raise ValueError(f"text: line {number} has no time (run mpi4py.bench without --no-stats)")
        if not (math.isfinite(time_s) and time_s > 0):
            raise ValueError(f"text: line {number} has no positive finite time: {line.strip()[:120]!r}")
        sizes.append(size)
        times.append(time_s)
        stdevs.append(None if stdev is None else float(stdev))
        samples.append(None if count is None else int(count))
    if not sizes:
        raise ValueError("text: no rows of mpi4py.bench pingpong found")
    return {"sizes": sizes, "times_s": times, "stdev_s": stdevs, "samples": samples}


@check_record(
    size="int", book_s="positive", bench_s="positive", ratio="positive", ratio_min="positive", ratio_max="positive"
)
class AgreementRow(NamedTuple):
    """One size: medians over the rounds (s), their ratio, and the lowest and highest per-round ratio."""

    size: int
    book_s: float
    bench_s: float
    ratio: float
    ratio_min: float
    ratio_max: float


def _by_size(round_, what: str, index: int) -> dict:
    if not isinstance(round_, dict) or "sizes" not in round_ or "times_s" not in round_:
        raise ValueError(f"{what}[{index}] must be a dict with 'sizes' and 'times_s'")
    sizes, times = round_["sizes"], round_["times_s"]
    if not isinstance(sizes, list) or not isinstance(times, list) or len(sizes) != len(times):
        raise ValueError(f"{what}[{index}]: 'sizes' and 'times_s' must be lists of the same length")
    out = {}
    for size, time_s in zip(sizes, times):
        size = check_int(f"{what}[{index}] size", size, minimum=0, scalar=True)
        if (
            isinstance(time_s, bool)
            or not isinstance(time_s, (int, float))
            or not (math.isfinite(time_s) and time_s > 0)
        ):
            raise ValueError(f"{what}[{index}]: time at size {size} must be a finite number > 0, got {time_s!r}")
        out[size] = float(time_s)
    return out


def pingpong_agreement(book_rounds, bench_rounds, min_size: int = 0) -> list[AgreementRow]:
    """The book's one-way time against ``mpi4py.bench pingpong``'s, per size both measured at.

    Each round is one run of each program (alternating, so slow spells of a shared machine hit
    both); per size the median over the rounds of each, their ratio (book / benchmark), and the
    range of the per-round ratios.

    Parameters
    ----------
    book_rounds, bench_rounds : list of dict
        The same number of rounds (1 … 1000), each with ``sizes`` (bytes) and ``times_s`` (s):
        a ``pingpong`` result of ``ccb_helpers.mpi`` and :func:`read_mpi4py_pingpong`'s output.
    min_size : int, default 0
        Leave out smaller sizes (bytes, ≥ 0).

    Returns
    -------
    list of AgreementRow
        Sorted by size; only sizes present in every round of both.

    Examples
    --------
    Two rounds; the medians are the means of two values: book (10 + 14) / 2 = 12 µs against
    (10 + 10) / 2 = 10 µs, ratio 1.2; the per-round ratios are 1.0 and 1.4.

    >>> book = [{"sizes": [0, 64], "times_s": [1e-6, 10e-6]}, {"sizes": [0, 64], "times_s": [1e-6, 14e-6]}]
    >>> bench = [{"sizes": [64, 128], "times_s": [10e-6, 11e-6]}, {"sizes": [64], "times_s": [10e-6]}]
    >>> [tuple(round(x, 9) for x in row) for row in pingpong_agreement(book, bench)]
    [(64, 1.2e-05, 1e-05, 1.2, 1.0, 1.4)]
    """
    if not isinstance(book_rounds, (list, tuple)) or not isinstance(bench_rounds, (list, tuple)):
        raise TypeError("book_rounds and bench_rounds must be lists of rounds")
    if not 1 <= len(book_rounds) <= MAX_ROUNDS or len(bench_rounds) != len(book_rounds):
        raise ValueError(
            f"book_rounds and bench_rounds must hold the same number of rounds (1 … {MAX_ROUNDS}), "
            f"got {len(book_rounds)} and {len(bench_rounds)}"
        )
    min_size = check_int("min_size", min_size, minimum=0, scalar=True)
    book = [_by_size(r, "book_rounds", i) for i, r in enumerate(book_rounds)]
    bench = [_by_size(r, "bench_rounds", i) for i, r in enumerate(bench_rounds)]
    common = set.intersection(*(set(r) for r in book + bench))
    rows = []
    for size in sorted(s for s in common if s >= min_size):
        b = np.array([r[size] for r in book])
        m = np.array([r[size] for r in bench])
        per_round = b / m
        rows.append(
            AgreementRow(
                size,
                float(np.median(b)),
                float(np.median(m)),
                float(np.median(b) / np.median(m)),
                float(per_round.min()),
                float(per_round.max()),
            )
        )
    return rows


@check_record(within="int", total="int", low="real", high="real", tolerance="positive", met="bool")
class AgreementSummary(NamedTuple):
    """Sizes within ``tolerance`` of 1 (``within`` of ``total``), the lowest and highest ratio, and whether all are."""

    within: int
    total: int
    low: float
    high: float
    tolerance: float
    met: bool


def pingpong_agreement_summary(rows, tolerance: float = 0.15) -> AgreementSummary:
    """How many sizes of :func:`pingpong_agreement`'s rows have a ratio within ``tolerance`` of 1.

    Parameters
    ----------
    rows : list of AgreementRow
        At least one row.
    tolerance : float, default 0.15
        Allowed relative deviation, 0 < tolerance < 1 (issue #32's goal: 15 %).

    Returns
    -------
    AgreementSummary
        ``met`` is true when every size is within ``|ratio − 1| ≤ tolerance``.

    Examples
    --------
    >>> rows = [AgreementRow(2**k, 1.0, 1.0, r, r, r) for k, r in ((14, 0.9), (20, 1.15), (24, 1.2))]
    >>> pingpong_agreement_summary(rows)
    AgreementSummary(within=2, total=3, low=0.9, high=1.2, tolerance=0.15, met=False)
    """
    rows = list(rows) if isinstance(rows, (list, tuple)) else rows
    if not isinstance(rows, list) or not rows or not all(isinstance(r, AgreementRow) for r in rows):
        raise TypeError("rows must be a non-empty list of AgreementRow (from pingpong_agreement)")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 < tolerance < 1:
        raise ValueError(f"tolerance must be a number with 0 < tolerance < 1, got {tolerance!r}")
    # A ratio printed as 1.15 counts as within 15 %: compare with a margin of float rounding.
    within = sum(abs(r.ratio - 1) <= tolerance + 1e-12 for r in rows)
    ratios = [r.ratio for r in rows]
    return AgreementSummary(within, len(rows), min(ratios), max(ratios), float(tolerance), within == len(rows))


def pingpong_agreement_table(record: dict) -> Table:
    """The side-by-side table of a record written by ``benchmarks/bench_pingpong_vs_mpi4py.py --json``.

    One row per size, medians over the rounds. When the record has the control runs
    (``bench_written``: ``mpi4py.bench`` with its buffers written before use) the control is the
    reference of the 15 % goal — it differs from the stock benchmark only in sending written
    memory instead of the kernel's zero page — so book / control is the verdict column (second,
    so it stays visible on a phone), followed by both medians, the range of the per-round ratios
    and, last, book / stock ``mpi4py.bench``. Without the control the stock benchmark takes its
    place.

    Parameters
    ----------
    record : dict
        ``book`` and ``bench`` (and optionally ``bench_written``): lists of rounds as
        :func:`pingpong_agreement` takes them; ``rounds``, ``cores``, ``mode`` and the load
        averages (``round_load_averages``, else ``load_average_before``) go into the caption when
        present.

    Examples
    --------
    >>> rounds = [{"sizes": [2**20], "times_s": [t]} for t in (1e-4, 1.2e-4, 1.1e-4)]
    >>> bench = [{"sizes": [2**20], "times_s": [1e-4]}] * 3
    >>> pingpong_agreement_table({"book": rounds, "bench": bench}).rows
    [['1 MiB', '1.10', '110 µs', '100 µs', '1.00–1.20']]
    """
    if not isinstance(record, dict) or "book" not in record or "bench" not in record:
        raise ValueError(
            "record must be a dict with 'book' and 'bench' rounds (benchmarks/bench_pingpong_vs_mpi4py.py --json)"
        )
    rows_stock = pingpong_agreement(record["book"], record["bench"])
    control = record.get("bench_written")
    if control:
        rows_main = pingpong_agreement(record["book"], control)
        headers = [
            "大小",
            "本书 / 对照",
            "本书（单程）",
            "对照（写过缓冲区的 mpi4py.bench）",
            "各轮的比值",
            "本书 / mpi4py.bench",
        ]
        by_size = {row.size: row for row in rows_stock}
    else:
        rows_main = rows_stock
        headers = ["大小", "本书 / mpi4py.bench", "本书（单程）", "mpi4py.bench", "各轮的比值"]
    rows, values = [], []
    for row in rows_main:
        cells = [
            format_bytes(row.size),
            f"{row.ratio:.2f}",
            format_time(row.book_s),
            format_time(row.bench_s),
            f"{row.ratio_min:.2f}–{row.ratio_max:.2f}",
        ]
        if control:
            other = by_size.get(row.size)
            cells.append("—" if other is None else f"{other.ratio:.2f}")
        rows.append(cells)
        values.append(row)
    caption = "各大小为各轮的中位数"
    if "rounds" in record:
        one_job = record.get("mode") == "one-job"
        caption += f"，{record['rounds']} 轮{'在同一个 mpiexec 作业里按大小' if one_job else ''}轮流运行"
    if "cores" in record and record.get("round_load_averages"):
        loads = record["round_load_averages"]
        if len(loads) == 1 and record.get("load_average_after"):  # one job: its start and its end
            caption += f"，{record['cores']} 核，开始与结束时 1 分钟平均负载 {loads[0]:.1f} 与 {record['load_average_after'][0]:.1f}"
        else:
            low, high = min(loads), max(loads)
            span = f"{low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}–{high:.1f}"
            caption += f"，{record['cores']} 核，{'开始时' if len(loads) == 1 else '各轮开始时'} 1 分钟平均负载 {span}"
    elif "cores" in record and "load_average_before" in record:
        caption += f"，{record['cores']} 核，开始时 1 分钟平均负载 {record['load_average_before'][0]:.1f}"
    return Table(headers, rows, caption, values)
