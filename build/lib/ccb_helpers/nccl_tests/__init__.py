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

Modules, lowest first (each imports only those above it):

================ ===============================================================================
``formats``      the layouts of the table: program names, header columns, prefixes, numbers
``records``      :class:`NcclTestsRow`, :class:`NcclTestsLog` (what the reader returns)
``command``      the launcher's process count and the program's ``-t`` / ``-g``
``nccl_info``    what ``NCCL_DEBUG=INFO`` lines say (ranks, nodes, NVLS, CollNet, network, algorithms)
``evidence``     what a log says about its own rank count and collective, cross-checked
``runs``         where each run of a text starts (headed tables, headerless rows, ``egrep`` output)
``checks``       the warnings a reviewer would give (failed checks, shared GPUs, rows left out …)
``reader``       :func:`read_nccl_tests`, :func:`read_nccl_tests_runs`
``ceilings``     :func:`busbw_ceiling`, :func:`two_level_busbw_ceiling` (the node cut, rails)
``fit``          :func:`fit_alpha_beta`, :class:`AlphaBeta` (α and β only where the rows determine them)
``report``       :func:`nccl_tests_report`, :func:`run_report`, :func:`compare_runs` (data)
``formatters``   the reports as a terminal table, CSV, JSON
``plot``         the report drawn
``machines``     device names -> presets, nodes -> network presets (``--preset auto``)
``topology_file`` a node's ``nvidia-smi topo -m`` / ``rocm-smi --showtopo``: links and NICs (``--topology``)
``cli_io``       the command line's file and output checks
``cli_bound``    the command line's bound: preset, α/β, topology, network, INFO lines
``cli``          ``python -m ccb_helpers.nccl_tests`` (:func:`main`), ``… compare A.log B.log``, the CI gate
================ ===============================================================================

Every number token is read by :func:`ccb_helpers._tokens.read_number` (one rule for all the
readers of printed output: what a double cannot hold is refused, naming the line).
"""

from .ceilings import MAX_SIZES, TwoLevelCeiling, busbw_ceiling, two_level_busbw_ceiling, two_level_ceiling_terms
from .cli import main
from .fit import AlphaBeta, fit_alpha_beta
from .reader import MAX_TEXT_CHARS, read_nccl_tests, read_nccl_tests_runs
from .records import _EXAMPLE, COLLECTIVES, MAX_ROWS, NcclTestsLog, NcclTestsRow  # noqa: F401  (_EXAMPLE: doctests)
from .report import RunReport, compare_runs, nccl_tests_report, run_report

__all__ = [
    "NcclTestsRow",
    "NcclTestsLog",
    "read_nccl_tests",
    "read_nccl_tests_runs",
    "nccl_tests_report",
    "fit_alpha_beta",
    "busbw_ceiling",
    "two_level_busbw_ceiling",
    "two_level_ceiling_terms",
    "TwoLevelCeiling",
    "AlphaBeta",
    "main",
    "run_report",
    "RunReport",
    "compare_runs",
    "COLLECTIVES",
    "MAX_TEXT_CHARS",
    "MAX_ROWS",
    "MAX_SIZES",
]
