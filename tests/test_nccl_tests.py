"""The nccl-tests reader on published outputs of every format era, the report, the fit and the CLI.

Expected values are typed from the data files' own text (see ccb_helpers/data/nccl_tests/SOURCES for
the logs chapter 8 reads, tests/data/nccl_tests/SOURCES for the further published outputs) or
worked by hand in the comments; busbw is recomputed from each row's printed time with the
collective's factor from nccl-tests' doc/PERFORMANCE.md.
"""

import csv
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ccb_helpers as ccb
from ccb_helpers.nccl_tests import main

DATA = Path(ccb.__file__).parent / "data" / "nccl_tests"  # the logs chapter 8 reads (package data)
CORPUS = Path(__file__).parent / "data" / "nccl_tests"  # further published outputs, tests only

# The factors of nccl-tests' doc/PERFORMANCE.md, written out (not taken from the helpers).
PERFORMANCE_MD_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
}

# file -> (collective to pass or None, n_ranks, collective, rows, first (size, count, type, redop, root),
#          last row's printed (time, algbw, busbw) out-of-place, check column, time unit, NCCL version)
REAL = {
    "nccl1_titanx_all_reduce.txt": (
        None,
        4,
        "all_reduce",
        20,
        (10000000, 10000000, "char", "sum", None),
        ("1.622", "6.16", "9.25"),
        "res",
        1e-3,
        None,
    ),
    "dgx2_v100_all_gather.txt": (
        None,
        12,
        "all_gather",
        31,
        (0, 0, "float", None, None),
        ("106773", "73.75", "73.75"),
        "error",
        1e-6,
        None,
    ),
    "dgx2_v100_all_reduce.txt": (
        None,
        12,
        "all_reduce",
        31,
        (8, 2, "float", "sum", None),
        ("127453", "67.40", "123.56"),
        "error",
        1e-6,
        None,
    ),
    "dgx2_v100_broadcast.txt": (
        None,
        12,
        "broadcast",
        31,
        (8, 2, "float", None, 0),
        ("70321", "122.15", "122.15"),
        "error",
        1e-6,
        None,
    ),
    "dgx2_v100_reduce.txt": (
        None,
        12,
        "reduce",
        31,
        (8, 2, "float", "sum", 0),
        ("69989", "122.73", "122.73"),
        "error",
        1e-6,
        None,
    ),
    "dgx2_v100_reduce_scatter.txt": (
        None,
        12,
        "reduce_scatter",
        31,
        (0, 0, "float", "sum", None),
        ("122722", "64.16", "64.16"),
        "error",
        1e-6,
        None,
    ),
    "eks_efa_t4_2node_all_reduce.txt": (
        "all_reduce",
        2,
        "all_reduce",
        31,
        (0, 0, "float", "sum", -1),
        ("344981", "3.11", "3.11"),
        "#wrong",
        1e-6,
        "2.12.7",
    ),
    "oke_a100_2node_all_reduce.txt": (
        "all_reduce",
        16,
        "all_reduce",
        31,
        (8, 2, "float", "sum", -1),
        ("67689", "126.90", "237.94"),
        "#wrong",
        1e-6,
        None,
    ),
    "a3mega_h100_2node_all_reduce.txt": (
        None,
        16,
        "all_reduce",
        31,
        (8, 2, "float", "sum", -1),
        ("47535", "180.71", "338.82"),
        "#wrong",
        1e-6,
        None,
    ),
    "hgx_h100_2node_all_reduce_issue319.txt": (
        None,
        16,
        "all_reduce",
        32,
        (8, 2, "float", "sum", -1),
        ("360942", "47.60", "89.24"),
        "#wrong",
        1e-6,
        "2.26.2",
    ),
}


def _read(name):
    given_collective = REAL[name][0]
    return ccb.read_nccl_tests((DATA / name).read_text(), collective=given_collective)


def _half_ulp(token: str) -> float:
    decimals = len(token.split(".")[1]) if "." in token else 0
    return 0.5 * 10.0**-decimals


def _printed_halves(line: str):
    """(time, algbw, busbw) tokens of both halves, from the raw printed line."""
    tokens = re.sub(r"^\[\d+,\d+\]<stdout>:", "", line).split()
    return tokens[-8:-5], tokens[-4:-1]


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_outputs_parse(name):
    _, n_ranks, collective, n_rows, first, last, check, unit, version = REAL[name]
    log = _read(name)
    assert (log.n_ranks, log.collective, len(log.rows)) == (n_ranks, collective, n_rows)
    row = log.rows[0]
    assert (row.size, row.count, row.type, row.redop, row.root) == first
    time, algbw, busbw = last
    assert log.rows[-1].time_s == pytest.approx(float(time) * unit, rel=1e-12)
    assert log.rows[-1].algbw_Bps == pytest.approx(float(algbw) * 1e9, rel=1e-12)
    assert log.rows[-1].busbw_Bps == pytest.approx(float(busbw) * 1e9, rel=1e-12)
    assert (log.check_column, log.time_unit_s, log.nccl_version) == (check, unit, version)
    assert all(r.time_s_inplace is not None for r in log.rows)


@pytest.mark.parametrize("name", sorted(REAL))
def test_busbw_recomputed_from_time(name):
    """busbw = factor * size / time for every row and both halves, within the printed rounding."""
    log = _read(name)
    lines = (DATA / name).read_text().splitlines()
    factor = PERFORMANCE_MD_FACTOR[log.collective](log.n_ranks)
    checked = 0
    for row in log.rows:
        for printed, suffix in zip(_printed_halves(lines[row.line - 1]), ("", "_inplace")):
            t = getattr(row, "time_s" + suffix)
            busbw = getattr(row, "busbw_Bps" + suffix)
            recomputed = factor * row.size / t
            # Printed busbw is rounded to its last digit; the time too, which moves the recomputed value.
            tolerance = _half_ulp(printed[2]) * 1e9 + recomputed * _half_ulp(printed[0]) * log.time_unit_s / t
            assert abs(recomputed - busbw) <= tolerance, (row.line, recomputed, busbw)
            checked += 1
    assert checked == 2 * len(log.rows)


@pytest.mark.parametrize("name", sorted(REAL))
def test_algbw_is_size_over_time(name):
    """algbw = size / time, except AllGather/ReduceScatter before June 2020 ((N-1)/N * size / time)."""
    log = _read(name)
    lines = (DATA / name).read_text().splitlines()
    old_convention = name.startswith("dgx2_") and log.collective in ("all_gather", "reduce_scatter")
    scale = (log.n_ranks - 1) / log.n_ranks if old_convention else 1.0
    for row in log.rows:
        printed = _printed_halves(lines[row.line - 1])[0]
        expected = scale * row.size / row.time_s
        tolerance = _half_ulp(printed[1]) * 1e9 + expected * _half_ulp(printed[0]) * log.time_unit_s / row.time_s
        assert abs(expected - row.algbw_Bps) <= tolerance, row.line


def test_hosts_devices_and_footer():
    log = _read("hgx_h100_2node_all_reduce_issue319.txt")
    assert log.hosts == ("lccn09", "lccn19") and log.n_hosts == 2
    assert log.devices[0] == "NVIDIA H100 80GB HBM3"
    assert log.avg_busbw_Bps == pytest.approx(33.4128e9) and log.out_of_bounds == 0
    nccl1 = _read("nccl1_titanx_all_reduce.txt")
    assert nccl1.devices == ("GeForce GTX TITAN X",) * 4 and nccl1.hosts == ()
    # Several data types and operators in one run: char/int/half/float/double x sum/prod/max/min.
    assert [(r.type, r.redop) for r in nccl1.rows[::4]] == [
        ("char", "sum"),
        ("int", "sum"),
        ("half", "sum"),
        ("float", "sum"),
        ("double", "sum"),
    ]
    assert nccl1.rows[8].wrong == pytest.approx(4e-3)  # the "res" (maximum error) column, half sum


def test_column_array():
    log = _read("a3mega_h100_2node_all_reduce.txt")
    sizes = log.column("size")
    assert sizes[0] == 8 and sizes[-1] == 2**33 and np.all(np.diff(sizes) > 0)
    assert np.isnan(ccb.read_nccl_tests(_SYNTH).column("wrong_inplace")).all()
    with pytest.raises(ValueError, match="name"):
        log.column("type")


def test_real_failed_run_is_rejected_naming_the_line():
    text = (DATA / "h800_2node_alltoall_failed_issue355.txt").read_text()
    with pytest.raises(ValueError, match=r"^line 27: .*'time'.*node0: Test CUDA failure"):
        ccb.read_nccl_tests(text)


# -- synthetic texts, built from nccl-tests' print formats (src/common.cu, src/util.cu) -----------

_HEADER = """\
# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid   1001 on      node0 device  0 [0x07] NVIDIA A100-SXM4-40GB
#  Rank  1 Group  0 Pid   1002 on      node0 device  1 [0x0a] NVIDIA A100-SXM4-40GB
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
"""
_ROW1 = "        1024           256     float     sum      -1    10.24    0.10    0.10      0    10.24    0.10    0.10    N/A"
_ROW2 = "        2048           512     float     sum      -1    20.48    0.10    0.10      0    20.48    0.10    0.10    N/A"
_SYNTH = _HEADER + _ROW1 + "\n" + _ROW2 + "\n# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.1\n"


def test_na_and_footer_synthetic():
    log = ccb.read_nccl_tests(_SYNTH)
    assert [r.wrong for r in log.rows] == [0.0, 0.0] and [r.wrong_inplace for r in log.rows] == [None, None]
    # busbw = algbw on 2 ranks fits AllReduce and SendRecv; the in-place check printed N/A beside a
    # checked out-of-place half, which nccl-tests does for alltoall and sendrecv only (src/sendrecv.cu,
    # src/alltoall.cu: "args->reportErrors = in_place ? 0 : 1"): SendRecv.
    assert log.collective == "sendrecv" and log.n_ranks == 2
    checked = _SYNTH.replace("    N/A", "      0")
    log = ccb.read_nccl_tests(checked)
    assert log.collective is None and set(log.collective_candidates) >= {"all_reduce", "sendrecv"}


def test_nccl_info_glued_into_a_row():
    # NCCL prints "Launch mode Parallel" right after the row's prefix, without a newline.
    cut = _ROW1.index("-1") + 2
    prefix, rest = _ROW1[:cut], _ROW1[cut:]
    text = _HEADER + prefix + "node0:1001:1001 [0] NCCL INFO Launch mode Parallel\n" + rest + "\n"
    log = ccb.read_nccl_tests(text, collective="all_reduce")
    assert log.rows[0].root == -1 and log.rows[0].time_s == pytest.approx(10.24e-6)


def test_labelled_lines_with_labels_inside_rows():
    # Launchers that label every write: "[0]" before each piece of the row (pattern of NVIDIA/nccl#1453).
    head = "".join("[0] " + line + "\n" for line in _HEADER.splitlines())
    pieces = _ROW1.split("    10.24")
    row = (
        f"[0] {pieces[0]}[0] host-a:1:1 [0] NCCL INFO 1024 Bytes -> Algo 1 proto 0 time 15.0\n"
        f"[0]     10.24{pieces[1]}[0]     10.24{pieces[2]}\n"
    )
    log = ccb.read_nccl_tests(head + row)
    assert len(log.rows) == 1 and log.rows[0].time_s_inplace == pytest.approx(10.24e-6)
    slurm = "".join("0: " + line + "\n" for line in (_HEADER + _ROW1).splitlines())
    assert ccb.read_nccl_tests(slurm).rows[0].size == 1024


def test_per_iteration_timestamp_and_copybw_columns():
    header = _HEADER.replace(
        "time   algbw   busbw #wrong     time   algbw   busbw #wrong",
        "time   algbw   busbw  copybw #wrong  i_min  i_max  i_p99  i_cv%     time   algbw   busbw  copybw #wrong  i_min  i_max  i_p99  i_cv% timestamp",
    )
    row = (
        "        1024           256     float     sum      -1    10.24    0.10    0.10   1.00      0   9.00  11.00  11.00   2.50"
        "    10.24    0.10    0.10   1.00      0   9.00  11.00  11.00   2.50  2025-10-28 12:00:00"
    )
    log = ccb.read_nccl_tests(header + row + "\n")
    assert log.rows[0].busbw_Bps_inplace == pytest.approx(0.1e9) and log.rows[0].wrong_inplace == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ("hello", r"no nccl-tests result table"),
        (_HEADER, r"header but no rows"),
        (_HEADER + _ROW1[:70] + "\n", r"^line 10: the text ends inside this row"),
        (_HEADER + _ROW1[:70] + "\n# Out of bounds values : 0 OK\n", r"^line 10: the row starting there is cut short"),
        (
            _HEADER + _ROW1.replace("0.10    0.10      0", "0.10    abc      0", 1) + "\n",
            r"line 10: column 'busbw' needs a number, got 'abc'",
        ),
        (_HEADER + _ROW1.replace("float", "42", 1) + "\n", r"line 10: column 'type' needs a name"),
        (_HEADER + _ROW1 + "   7\n", r"line 10: row has 14 values but the header \(line 8\) has 13"),
        (_HEADER + _ROW1.replace("10.24", "-1.0", 1) + "\n", r"line 10: column 'time' needs a finite number >= 0"),
        (_SYNTH + _SYNTH, r"line 21: a second result table starts here \(the first began at line 8\)"),
        (_SYNTH.replace("#wrong     time", "#wrong  flops    time"), r"line 8: unknown column 'flops'"),
    ],
)
def test_bad_text_is_rejected_naming_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        ccb.read_nccl_tests(text)


def test_argument_checks():
    with pytest.raises(TypeError, match="text must be a string"):
        ccb.read_nccl_tests(b"bytes")
    with pytest.raises(ValueError, match="unknown collective 'allreduce'"):
        ccb.read_nccl_tests(_SYNTH, collective="allreduce")
    # _SYNTH prints size = count x 4 bytes (1024 = 256 x 4): the count of the whole buffer, as AllReduce,
    # Broadcast, Reduce and SendRecv print it; AllGather prints the count per rank (size = N x count x 4).
    with pytest.raises(ValueError, match=r"^collective='all_gather' contradicts the log: its rows have size = count"):
        ccb.read_nccl_tests(_SYNTH, collective="all_gather")
    forced = ccb.read_nccl_tests(_SYNTH, collective="all_gather", force=True)
    assert forced.collective == "all_gather" and forced.warnings[0].startswith("forced: collective='all_gather'")
    with pytest.raises(TypeError, match="force must be True or False"):
        ccb.read_nccl_tests(_SYNTH, force="yes")
    with pytest.raises(ValueError, match="n_ranks must be >= 2"):
        ccb.read_nccl_tests(_SYNTH, n_ranks=1)


def test_collective_from_the_text():
    assert ccb.read_nccl_tests("./build/alltoall_perf -b 8\n" + _SYNTH).collective == "all_to_all"
    assert (
        ccb.read_nccl_tests("# Collective test starting: reduce_scatter_perf\n" + _SYNTH).collective == "reduce_scatter"
    )
    # Two different programs named: the text does not say which one printed the table (and rows
    # whose in-place half is checked do not either).
    checked = _SYNTH.replace("    N/A", "      0")
    assert ccb.read_nccl_tests("all_gather_perf and all_reduce_perf\n" + checked).collective is None
    assert ccb.read_nccl_tests("mpirun ./sendrecv_perf\n" + _SYNTH).collective == "sendrecv"
    # A named program is what ran, even when its rows do not fit it (then a warning says so).
    named = ccb.read_nccl_tests("./build/alltoall_perf -b 8\n" + _SYNTH)
    assert named.program == "alltoall_perf" and any("do not fit all_to_all" in w for w in named.warnings)


# -- the bound, the report and the fit ---------------------------------------------------------


def test_busbw_ceiling_by_hand():
    # AllReduce, N = 4, alpha = 2 us, beta = 10 GB/s, 1 port: c = 1.5; latency bound 2 rounds = 4 us.
    # M = 8000 B: T_beta = 1.5 * 8000 / 1e10 = 1.2 us < 4 us, ceiling = 1.5 * 8000 / 4e-6 = 3e9.
    assert ccb.busbw_ceiling("all_reduce", 4, 8000, 2e-6, 10e9) == pytest.approx(3e9)
    # M = 1e6 B: T_beta = 150 us > 4 us: ceiling = beta.
    assert ccb.busbw_ceiling("all_reduce", 4, 1e6, 2e-6, 10e9) == pytest.approx(10e9)
    # Two ports double the bandwidth ceiling; latency_ports = 3 (all-port) gives 1 round.
    assert ccb.busbw_ceiling("all_reduce", 4, 1e6, 2e-6, 10e9, ports=2) == pytest.approx(20e9)
    assert ccb.busbw_ceiling("all_reduce", 4, 8000, 2e-6, 10e9, latency_ports=3) == pytest.approx(6e9)
    assert ccb.busbw_ceiling("all_reduce", 4, 0, 2e-6, 10e9) == 0.0
    with pytest.raises(ValueError, match="n must be >= 2"):
        ccb.busbw_ceiling("all_reduce", 1, 10, 1e-6, 1e9)


@given(
    st.sampled_from(["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all"]),
    st.integers(2, 512),
    st.floats(0, 2**40),
    st.floats(0, 1e-4),
    st.floats(1e6, 1e12),
    st.integers(1, 8),
)
def test_ceiling_never_above_p_beta(primitive, n, m, alpha, beta, ports):
    assert ccb.busbw_ceiling(primitive, n, m, alpha, beta, ports=ports) <= ports * beta * (1 + 1e-12)


def _log_from_ring(primitive, n, alpha, beta, sizes):
    """A synthetic nccl-tests log whose times are the ring's alpha-beta cost (steps alpha + c M / beta)."""
    coefficient = PERFORMANCE_MD_FACTOR[primitive](n)
    steps = 2 * (n - 1) if primitive == "all_reduce" else n - 1
    rows = []
    for m in sizes:
        t = steps * alpha + coefficient * m / beta
        algbw = m / t / 1e9
        rows.append(
            ccb.NcclTestsRow(
                m, m // 4, "float", "sum", -1, t, algbw * 1e9, coefficient * algbw * 1e9, 0, None, None, None, None, 1
            )
        )
    return ccb.NcclTestsLog(rows=tuple(rows), n_ranks=n, collective=primitive)


@given(
    st.sampled_from(["all_reduce", "all_gather", "reduce_scatter", "broadcast"]),
    st.integers(2, 256),
    st.floats(1e-7, 1e-4),
    st.floats(1e8, 1e12),
)
def test_nothing_beats_the_bound(primitive, n, alpha, beta):
    """A ring run at the bound's own alpha and beta is never above the ceiling (efficiency <= 1)."""
    sizes = [2**k for k in range(3, 34, 3)]
    report = ccb.nccl_tests_report(_log_from_ring(primitive, n, alpha, beta, sizes), alpha, beta)
    assert all(v["flag"] is None and 0 < v["efficiency"] <= 1 + 1e-9 for v in report.values)


def test_fit_recovers_alpha_beta_of_a_ring():
    # Times made from alpha = 2 us, beta = 25 GB/s on 8 ranks (AllReduce: 14 steps, c = 1.75).
    log = _log_from_ring("all_reduce", 8, 2e-6, 25e9, [2**k for k in range(3, 31)])
    fit = ccb.fit_alpha_beta(log)
    assert fit.steps == 14 and fit.points == 28
    assert fit.alpha == pytest.approx(2e-6, rel=1e-9) and fit.beta == pytest.approx(25e9, rel=1e-9)
    assert fit.rms_relative_error < 1e-9


def test_fit_on_published_small_messages():
    # DGX-2 AllReduce, 12 ranks: the 8..4096 B rows take 60-63 us. A ring has 22 steps, so
    # alpha ~ 61 us / 22 ~ 2.8 us; the fit over <= 64 KiB must land there.
    fit = ccb.fit_alpha_beta(_read("dgx2_v100_all_reduce.txt"), max_size=65536)
    assert fit.steps == 22 and 2.5e-6 < fit.alpha < 3.0e-6
    with pytest.raises(ValueError, match="at least two rows"):
        ccb.fit_alpha_beta(_read("nccl1_titanx_all_reduce.txt"))  # one size only
    with pytest.raises(ValueError, match="pass n_ranks"):
        ccb.fit_alpha_beta(ccb.NcclTestsLog(rows=(), n_ranks=None, collective="all_reduce"))
    with pytest.raises(TypeError, match="NcclTestsLog"):
        ccb.fit_alpha_beta("log")


def test_report_flags_busbw_above_the_endpoint_ceiling():
    # Issue 319: 16 H100 on 2 hosts; with beta = one 400G NIC (50 GB/s) the large rows show busbw
    # 57-89 GB/s > p beta: flagged, no efficiency above 1.
    report = ccb.nccl_tests_report(_read("hgx_h100_2node_all_reduce_issue319.txt"), 3e-6, 50e9)
    flagged = [v for v in report.values if v["flag"] == "endpoint"]
    assert len(flagged) == 12 and flagged[0]["size"] == 8 * 2**20
    assert all(v["efficiency"] is None for v in flagged)
    assert all(v["efficiency"] <= 1 for v in report.values if v["flag"] is None)
    assert report.rows[-1][1] == "超端点上限"


def test_report_by_hand():
    # A3 Mega 8 GiB row: 47535 us. With alpha 1 us, beta 450 GB/s, 1 port, N = 16: bound time is
    # 1.875 * 2**33 / 450e9 = 35.79 ms, efficiency 35.79 / 47.535 = 0.753.
    report = ccb.nccl_tests_report(_read("a3mega_h100_2node_all_reduce.txt"), 1e-6, 450e9)
    last = report.values[-1]
    assert last["bound_time"] == pytest.approx(1.875 * 2**33 / 450e9)
    assert last["efficiency"] == pytest.approx(1.875 * 2**33 / 450e9 / 0.047535)
    assert last["regime"] == "bandwidth" and report.values[0]["regime"] == "latency"


# -- command line ----------------------------------------------------------------------------


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "ccb_helpers.nccl_tests", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_on_published_logs(tmp_path):
    out = tmp_path / "report.png"
    done = _cli(str(DATA / "hgx_h100_2node_all_reduce_issue319.txt"), "--preset", "ib_ndr", "--plot", str(out))
    assert done.returncode == 0, done.stderr
    assert "collective all_reduce, 16 ranks on 2 hosts, 32 rows, NCCL 2.26.2" in done.stdout
    assert "> p*beta" in done.stdout and "fit (ring, 30 steps" in done.stdout
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    done = _cli(
        str(DATA / "oke_a100_2node_all_reduce.txt"), "--alpha", "2e-6", "--beta", "300e9", "--collective", "all_reduce"
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"8 GiB\s+237\.9\d\s+300\.00\s+0\.79\s+bandwidth", done.stdout)


def test_cli_main_in_process(capsys):
    # In-process, so coverage sees it: NCCL 1's README, 4 ranks, one size; several types and ops.
    assert main([str(DATA / "nccl1_titanx_all_reduce.txt"), "--alpha", "5e-6", "--beta", "12e9", "--ports", "1"]) == 0
    out = capsys.readouterr().out
    assert "type/op" in out and "char/sum" in out
    assert "fit: not possible: log: need at least two rows of different sizes" in out and "got 20 rows of 1 size" in out


def test_cli_says_what_a_fit_cannot_tell_and_which_collectives_fit(capsys):
    # nccl-tests#78's AllToAll: 2 sizes, both bandwidth-bound, no program name, no rank lines. Its
    # 2019-2021 header has a redop column and the rows leave it blank: nccl-tests printed that for
    # AllToAll only (AllReduce and ReduceScatter print their operator), so no --collective is needed.
    log = str(DATA / "issue78_v100_8node_alltoall.txt")
    assert main([log, "--alpha", "1e-6", "--beta", "150e9"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].startswith("collective all_to_all, 64 ranks (count vs size)")
    fit = next(line for line in out.splitlines() if line.startswith("fit"))
    assert "beta = 0.5072 GB/s" in fit and "alpha" not in fit
    assert "not determined: alpha: 2 sizes, and the line passes through them exactly" in out
    # redop 'none' and root -1 with size = 8 x count x 4: AllGather or AllToAll, which rows cannot tell.
    rows = str(CORPUS / "deepep303_h20_8gpu_alltoall_rows_excerpt.txt")
    assert main([rows, "--alpha", "1e-6", "--beta", "150e9"]) == 2
    offered = capsys.readouterr().err.rsplit("one of ", 1)[1].strip().split(", ")
    assert sorted(offered) == ["all_gather", "all_to_all"]
    # A log with a latency regime determines both.
    assert main([str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--alpha", "1e-6", "--beta", "450e9"]) == 0
    out = capsys.readouterr().out
    assert "fit (ring" in out and "alpha = " in out and "beta = " in out and "not determined" not in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["/no/such/file.log", "--alpha", "1e-6", "--beta", "1e9"], "cannot read /no/such/file.log"),
        ([str(DATA / "h800_2node_alltoall_failed_issue355.txt"), "--preset", "ib_ndr"], "line 27"),
        ([str(DATA / "eks_efa_t4_2node_all_reduce.txt"), "--preset", "ib_ndr"], "pass --collective"),
        ([str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--alpha", "-1", "--beta", "1e9"], "alpha must be >= 0"),
        ([str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--alpha", "1e-6"], "--alpha needs --beta"),
        ([str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--alpha", "1e-6", "--beta", "nan"], "beta must be finite"),
        (
            [str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--alpha", "1e-6", "--beta", "1e9", "--ports", "0"],
            "ports must be >= 1",
        ),
        (
            [str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--preset", "ib_ndr", "--plot", "/no/such/dir/x.png"],
            "cannot write",
        ),
    ],
)
def test_cli_bad_input_exits_2(args, message, capsys):
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_cli_usage_errors_exit_2():
    done = _cli(str(DATA / "a3mega_h100_2node_all_reduce.txt"))
    assert done.returncode == 2 and "one of the arguments --preset --alpha is required" in done.stderr
    done = _cli(str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--preset", "no_such")
    assert done.returncode == 2 and "invalid choice: 'no_such'" in done.stderr
    assert math.isfinite(ccb.PRESETS["ib_ndr"].beta)


# -- text variants a practitioner's log comes in ------------------------------------------------


def _same_rows(log, reference):
    fields = (
        "size",
        "count",
        "type",
        "redop",
        "root",
        "time_s",
        "busbw_Bps",
        "wrong",
        "time_s_inplace",
        "wrong_inplace",
    )
    return [[getattr(r, f) for f in fields] for r in log.rows] == [
        [getattr(r, f) for f in fields] for r in reference.rows
    ]


@pytest.mark.parametrize(
    "variant",
    [
        "crlf",
        "cr",
        "tabs",
        "trailing_crash",
        "bom",
        "ompi_timestamp",
        "ompi_timestamp_tag",
        "pdsh",
        "kubectl_timestamps",
        "graph_mode",
    ],
)
def test_text_variants_read_like_the_original(variant):
    reference = ccb.read_nccl_tests(_SYNTH)
    lines = _SYNTH.splitlines()
    text = {
        "crlf": "\r\n".join(lines) + "\r\n",
        "cr": "\r".join(lines),
        "tabs": "\n".join(line.replace("    ", "\t") for line in lines),
        "trailing_crash": _SYNTH + "Segmentation fault (core dumped)\n[node0:1001] *** Process received signal ***\n$ ",
        "bom": "\ufeff" + _SYNTH,
        # Open MPI --timestamp-output, alone and with --tag-output (NVIDIA/nccl#1368 shows the first).
        "ompi_timestamp": "".join(
            f"Thu Jul 18 15:41:{i % 60:02d} 2024<stdout>:{line}\n" for i, line in enumerate(lines)
        ),
        "ompi_timestamp_tag": "".join(f"Thu Jul  8 15:41:05 2024[1,0]<stdout>:{line}\n" for line in lines),
        # pdsh / clush put "host: " before every line; kubectl logs --timestamps an RFC 3339 time.
        "pdsh": "".join(f"gpu-node-17: {line}\n" for line in lines),
        "kubectl_timestamps": "".join(
            f"2025-01-02T03:04:{i % 60:02d}.{i:09d}Z {line}\n" for i, line in enumerate(lines)
        ),
        # -G 1 (CUDA graphs) only changes the parameter line.
        "graph_mode": _SYNTH.replace("graph: 0", "graph: 1"),
    }[variant]
    log = ccb.read_nccl_tests(text)
    assert _same_rows(log, reference) and log.n_ranks == 2 and log.avg_busbw_Bps == pytest.approx(0.1e9)


def test_no_check_run_prints_na():
    # -c 0: nccl-tests prints N/A in the check column of both halves.
    text = _HEADER + _ROW1.replace("      0    10.24", "    N/A    10.24") + "\n"
    row = ccb.read_nccl_tests(text).rows[0]
    assert row.wrong is None and row.wrong_inplace is None and row.time_s == pytest.approx(10.24e-6)


def test_several_runs_in_one_text():
    # The DGX-2 README printed five runs one after another; read together they give the five logs.
    names = ["all_gather", "all_reduce", "broadcast", "reduce", "reduce_scatter"]
    texts = [(DATA / f"dgx2_v100_{name}.txt").read_text() for name in names]
    runs = ccb.read_nccl_tests_runs("".join(texts))
    assert [run.collective for run in runs] == names and all(run.n_ranks == 12 for run in runs)
    offset = 0
    for run, text, name in zip(runs, texts, names):
        alone = _read(f"dgx2_v100_{name}.txt")
        assert _same_rows(run, alone) and run.out_of_bounds == alone.out_of_bounds
        assert run.rows[0].line == alone.rows[0].line + offset  # line numbers of the whole text
        offset += len(text.splitlines())
    # read_nccl_tests refuses the same text at the second header and says what to use instead.
    with pytest.raises(ValueError, match=r"^line 73: a second result table .*read_nccl_tests_runs"):
        ccb.read_nccl_tests("".join(texts))
    # An error in a later run names its line in the whole text (54 lines of AllGather + line 51).
    broken = texts[0] + texts[1].replace("127453", "12x453")
    with pytest.raises(ValueError, match=r"^line 105: column 'time' needs a number, got '12x453'"):
        ccb.read_nccl_tests_runs(broken)
    # One run: the same log as read_nccl_tests.
    (single,) = ccb.read_nccl_tests_runs(_SYNTH)
    assert _same_rows(single, ccb.read_nccl_tests(_SYNTH))


def test_caps_are_checked(monkeypatch):
    from ccb_helpers.nccl_tests import reader

    monkeypatch.setattr(reader, "MAX_ROWS", 1)
    with pytest.raises(ValueError, match=r"line 11: more than 1 rows in one table; the reader accepts at most 1"):
        ccb.read_nccl_tests(_SYNTH)
    monkeypatch.setattr(reader, "MAX_TEXT_CHARS", 100)
    with pytest.raises(ValueError, match=r"text has \d+ characters; the reader accepts at most 100"):
        ccb.read_nccl_tests_runs(_SYNTH)


def test_report_with_the_network_cut_by_hand():
    # A3 Mega, 16 ranks on its 2 hosts, beta 450 GB/s, node 200 GB/s: the node cut caps busbw at
    # c(16)/c(2) * 200 = 1.875 * 200 = 375 GB/s; the 8 GiB row (47535 us) has bound time
    # c(2) * 2**33 / 200e9 = 42.95 ms, efficiency 42.95 / 47.535 = 0.904, regime "network".
    log = _read("a3mega_h100_2node_all_reduce.txt")
    report = ccb.nccl_tests_report(log, 1e-6, 450e9, node_beta=200e9)
    last = report.values[-1]
    assert last["ceiling"] == pytest.approx(375e9) and last["regime"] == "network"
    assert last["efficiency"] == pytest.approx(2**33 / 200e9 / 0.047535)
    assert "2 个节点各 200 GB/s" in report.caption
    # A node bandwidth below what the run reached is flagged, not turned into an efficiency > 1:
    # 1.875 * 150 = 281 GB/s < 338.8 GB/s measured at 8 GiB.
    low = ccb.nccl_tests_report(log, 1e-6, 450e9, n_nodes=2, node_beta=150e9)
    assert low.values[-1]["flag"] == "network" and low.values[-1]["efficiency"] is None
    assert low.rows[-1][1] == "超网络上限"
    with pytest.raises(ValueError, match="n_nodes needs node_beta"):
        ccb.nccl_tests_report(log, 1e-6, 450e9, n_nodes=2)
    with pytest.raises(ValueError, match=r"does not list its hosts: pass n_nodes"):
        ccb.nccl_tests_report(_read("nccl1_titanx_all_reduce.txt"), 1e-6, 12e9, node_beta=1e9)
    with pytest.raises(ValueError, match="n_nodes must be <= 16"):
        ccb.nccl_tests_report(log, 1e-6, 450e9, n_nodes=17, node_beta=200e9)


def test_cli_several_runs_utf16_and_failed_checks(tmp_path, capsys):
    names = ["all_gather", "all_reduce"]
    text = "".join((DATA / f"dgx2_v100_{name}.txt").read_text() for name in names)
    path = tmp_path / "two_runs.log"
    path.write_text(text, encoding="utf-16")  # PowerShell's ">" writes UTF-16 with a BOM
    plot = tmp_path / "report.png"
    assert main([str(path), "--alpha", "1e-6", "--beta", "150e9", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "(2 runs)" in out and "=== run 2 of 2 (table at line 73) ===" in out
    assert out.count("collective ") == 2 and "collective all_reduce, 12 ranks on 1 host," in out
    # The AllGather run's footer says "Out of bounds values : 4 FAILED": the CLI says so.
    assert out.count("WARNING: the log's own correctness check failed (4 out-of-bounds values)") == 1
    assert (tmp_path / "report-1.png").exists() and (tmp_path / "report-2.png").exists() and not plot.exists()
    raw = tmp_path / "no_bom.log"
    raw.write_bytes(text.encode("utf-16-le"))
    assert main([str(raw), "--alpha", "1e-6", "--beta", "150e9"]) == 2
    assert "UTF-16 without a byte-order mark" in capsys.readouterr().err


def test_cli_runs_without_runpy_warning():
    done = _cli(str(DATA / "dgx2_v100_broadcast.txt"), "--alpha", "1e-6", "--beta", "150e9")
    assert done.returncode == 0 and done.stderr == ""
    done = _cli(
        str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--alpha", "1e-6", "--beta", "450e9", "--node-beta", "200e9"
    )
    assert done.returncode == 0 and "network cut: 2 nodes x 200 GB/s -> busbw ceiling 375 GB/s" in done.stdout
    assert re.search(r"8 GiB\s+338\.8\d\s+375\.00\s+0\.90\s+network", done.stdout)
    done = _cli(str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--alpha", "1e-6", "--beta", "450e9")
    assert "note: the ranks run on 2 hosts; pass --node-beta" in done.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--alpha", "1e-6", "--beta", "1e9", "--nodes", "2"], "n_nodes needs node_beta"),
        (["--alpha", "1e-6", "--beta", "1e9", "--node-beta", "-5"], "node_beta must be >= 1e-09"),
        (["--alpha", "1e-6", "--beta", "1e9", "--node-beta", "1e9", "--nodes", "99"], "n_nodes must be <= 16"),
        (["--alpha", "1e-6", "--beta", "1e9", "--ranks", "1"], "n_ranks must be >= 2"),
    ],
)
def test_cli_node_and_rank_arguments(args, message, capsys):
    assert main([str(DATA / "a3mega_h100_2node_all_reduce.txt"), *args]) == 2
    assert message in capsys.readouterr().err


def test_cli_empty_and_binary_files(tmp_path, capsys):
    empty = tmp_path / "empty.log"
    empty.write_text("")
    assert main([str(empty), "--alpha", "1e-6", "--beta", "1e9"]) == 2
    assert "no nccl-tests result table found" in capsys.readouterr().err
    binary = tmp_path / "core"
    binary.write_bytes(bytes(range(256)) * 40)
    assert main([str(binary), "--alpha", "1e-6", "--beta", "1e9"]) == 2
    assert "error:" in capsys.readouterr().err
    assert main([str(tmp_path), "--alpha", "1e-6", "--beta", "1e9"]) == 2  # a directory
    assert "cannot read" in capsys.readouterr().err


def test_one_rank_tables_explain_the_missing_mpi_build():
    # mpirun -np 2 of a build without MPI=1: every process runs alone and prints a one-rank table.
    alone = _SYNTH.replace("#  Rank  1 Group  0 Pid   1002 on      node0 device  1 [0x0a] NVIDIA A100-SXM4-40GB\n", "")
    runs = ccb.read_nccl_tests_runs(alone + alone)
    assert [run.n_ranks for run in runs] == [1, 1]
    with pytest.raises(ValueError, match=r"table at line 7 lists 1 rank: .*built without MPI=1"):
        ccb.nccl_tests_report(runs[0], 1e-6, 1e9, collective="all_reduce")


def test_rank_lines_not_from_zero_are_an_elided_list():
    # Regression (fuzz, #15, then #26): a run whose '# Rank' lines start at 1 is an elided list, as large
    # runs are pasted: N = largest rank + 1, with a warning (the A3 Mega log: ranks 1..15 of 16).
    text = ccb.published_log_text("a3mega_h100_2node_all_reduce")
    lines = [line for line in text.splitlines() if not line.lstrip("#").strip().startswith("Rank  0 ")]
    assert len(lines) == len(text.splitlines()) - 1
    (run,) = ccb.read_nccl_tests_runs("\n".join(lines) + "\n")
    assert run.n_ranks == 16 and run.n_ranks_source == "busbw factor"  # 1.875 = 2 x 15/16 on every row
    assert run.warnings[0].startswith("the '# Rank' lines are elided (ranks 1, 2, 3, … of 0..15 listed): N = 16")
    # Two rank lines 0 and 3 of a two-rank table: elided too, N = 4 assumed (nothing in the rows says 2:
    # busbw = algbw fits AllReduce on 2 ranks and SendRecv on any number).
    elided = ccb.read_nccl_tests(_SYNTH.replace("Rank  1", "Rank  3"))
    assert elided.n_ranks == 4 and "N = 4 assumed from the largest rank shown" in elided.warnings[0]


# -- further published outputs (#26): tests/data/nccl_tests, every shape people paste ----------------

# file -> (collective, n_ranks passed (None: the log must determine it), expected n_ranks, n_ranks_source,
#          collective the log determines by itself (None: ambiguous), rows, first (size, count, type,
#          redop, root), last row's printed (time, algbw, busbw), a warning expected (or None))
# Every value is typed from the file (see its SOURCES entry) or worked in the comment.
REAL_MORE = {
    # RCCL, 8 x MI300X, rank lines 0..7, the program named on the command line.
    "rccl_mi300x_1node_all_reduce.txt": (
        "all_reduce",
        None,
        8,
        "rank lines",
        "all_reduce",
        31,
        (8, 2, "float", "sum", -1),
        ("47617", "180.40", "315.69"),
        None,
    ),
    # RCCL 2.22.3, 16 ranks on gpu-53/gpu-56; the program is not named: 2 x 15/16 = 1.875 only fits AllReduce.
    "rccl_mi300x_2node_all_reduce.txt": (
        "all_reduce",
        None,
        16,
        "rank lines",
        "all_reduce",
        32,
        (8, 2, "float", "sum", -1),
        ("90115", "190.64", "357.46"),
        None,
    ),
    # MI355X: no nThread line, no device names, "# Testing 1 cycle.", no footer.
    "rccl_mi355x_pollara_2node_all_reduce.txt": (
        "all_reduce",
        None,
        16,
        "rank lines",
        "all_reduce",
        31,
        (8, 2, "float", "sum", -1),
        ("43643", "196.82", "369.04"),
        None,
    ),
    # Only "# Rank 71": N = 72, and busbw x time / size = 834.57 x 20299 / 8589934592 ... = 1.97222 = 2 x 71/72.
    "coreweave_gb200_nvl72_1rack_all_reduce.txt": (
        "all_reduce",
        None,
        72,
        "busbw factor",
        "all_reduce",
        5,
        (536870912, 134217728, "float", "sum", -1),
        ("20299", "423.16", "834.57"),
        "as the busbw factor agrees",
    ),
    # Only "# Rank 143", but 810.41e9 x 42067e-6 / 17179869184 = 1.98437 = 2 x 127/128: N = 128.
    "coreweave_gb200_2rack_all_reduce.txt": (
        "all_reduce",
        None,
        128,
        "busbw factor",
        "all_reduce",
        6,
        (536870912, 134217728, "float", "sum", -1),
        ("42067", "408.40", "810.41"),
        "the rank lines come from another run; N = 128 used",
    ),
    # Only "# Rank 1439": N = 1440 (the factor 1.99861 allows 1416..1466, so it cannot decide).
    "coreweave_gb200_20rack_1440rank_all_reduce.txt": (
        "all_reduce",
        None,
        1440,
        "rank lines",
        "all_reduce",
        6,
        (536870912, 134217728, "float", "sum", -1),
        ("84625", "203.01", "405.74"),
        "N = 1440 assumed",
    ),
    # Rank lines elided as "...": 386.56e9 x 43980e-6 / 8589934592 = 1.97917 = 2 x 95/96 (95: 1.97895, 97: 1.97938).
    "coreweave_h100_sharp_elided_all_reduce.txt": (
        "all_reduce",
        None,
        96,
        "busbw factor",
        "all_reduce",
        5,
        (536870912, 134217728, "float", "sum", -1),
        ("43980", "195.31", "386.56"),
        None,
    ),
    # 2019-2021 format, no rank lines: 4.33 x 122131 / 268435456 x 1e3 = 1.970 +- 0.0025 fits N = 62..72.
    "issue78_v100_64rank_all_reduce_2021.txt": (
        "all_reduce",
        64,
        64,
        "caller",
        "all_reduce",
        2,
        (268435456, 67108864, "float", "sum", None),
        ("244833", "2.19", "4.32"),
        None,
    ),
    # Blank redop: 268435456 = 64 x 1048576 x 4, so N = 64 (AllGather, ReduceScatter, AllToAll ... all fit).
    "issue78_v100_64rank_alltoall_blank_redop_2021.txt": (
        "all_to_all",
        None,
        64,
        "count vs size",
        "all_to_all",
        2,
        (268435456, 1048576, "float", None, None),
        ("1041974", "0.52", "0.51"),
        None,
    ),
    # "mpirun ... -np 2 ./all_reduce_perf ... -g 1": N = 2.
    "issue232_h100_2node_tree_all_reduce_excerpt.txt": (
        "all_reduce",
        None,
        2,
        "command line",
        "all_reduce",
        5,
        (2097152, 524288, "float", "sum", -1),
        ("812.3", "41.31", "41.31"),
        None,
    ),
    # SendRecv on 2 x A40: busbw = algbw, as AllReduce on 2 ranks; the in-place check N/A beside a
    # checked out-of-place half is sendrecv_perf's (or alltoall_perf's, whose factor is 1/2 here).
    "issue214_a40_2node_sendrecv_excerpt.txt": (
        "sendrecv",
        None,
        2,
        "rank lines",
        "sendrecv",
        5,
        (256, 64, "float", "sum", -1),
        ("30.74", "0.13", "0.13"),
        None,
    ),
    # Two runs' rows interleaved: sizes start again at line 8 (8 after 256). As AllReduce: 0.02 x 47.44 /
    # 1024 x 1e3 = 0.93 +- 0.23 fits only N = 2 (c = 1; N = 3 gives 1.33).
    "issue182_interleaved_rows_excerpt.txt": (
        "all_reduce",
        None,
        2,
        "busbw factor",
        None,
        10,
        (8, 2, "float", "sum", -1),
        ("47.44", "0.02", "0.02"),
        "sizes start again at line 8",
    ),
    # Bare rows after the units line: 0.22 x 16.49 / 2048 x 1e3 = 1.771 +- 0.04, only N = 8 (1.75) fits.
    "deepep303_h20_8gpu_all_reduce_rows_excerpt.txt": (
        "all_reduce",
        None,
        8,
        "busbw factor",
        "all_reduce",
        10,
        (4, 1, "float", "sum", -1),
        ("16.49", "0.12", "0.22"),
        None,
    ),
    # 128 = 8 x 4 x 4: N = 8; redop none, root -1: AllGather or AllToAll (the issue's table is AllToAll).
    "deepep303_h20_8gpu_alltoall_rows_excerpt.txt": (
        "all_to_all",
        None,
        8,
        "count vs size",
        None,
        10,
        (0, 0, "float", "none", -1),
        ("11.08", "0.18", "0.16"),
        None,
    ),
    # Root 0, redop sum, 8 = 2 x 4: Reduce (Broadcast prints "none"); busbw = algbw says nothing of N.
    "rccl2075_strix_halo_reduce_2rank_excerpt.txt": (
        "reduce",
        2,
        2,
        "caller",
        "reduce",
        9,
        (8, 2, "float", "sum", 0),
        ("17.25", "0.12", "0.12"),
        None,
    ),
    # Root 0, redop none, 32 = 2 x 4 x 4: N = 2, Gather or Scatter.
    "rccl2075_strix_halo_rooted_2rank_excerpt.txt": (
        "gather",
        None,
        2,
        "count vs size",
        None,
        10,
        (0, 0, "float", "none", 0),
        ("11.64", "0.35", "0.18"),
        None,
    ),
    # "./build/all_gather_perf ... -g 2": N = 2; 16777216 = 2 x 4194304 x 2 (bfloat16) agrees.
    "nccl1435_2gpu_all_gather_bf16_excerpt.txt": (
        "all_gather",
        None,
        2,
        "command line",
        "all_gather",
        7,
        (16777216, 4194304, "bfloat16", "none", -1),
        ("490.8", "239.27", "119.64"),
        None,
    ),
    # Bare 2020 rows (no root column): 0.62 x 406.8 / 131072 x 1e3 = 1.924 +- 0.016: AllReduce, N = 22..33.
    "nccl527_ec2_2020_rows_excerpt.txt": (
        "all_reduce",
        32,
        32,
        "caller",
        "all_reduce",
        12,
        (64, 16, "float", "sum", None),
        ("406.8", "0.32", "0.62"),
        None,
    ),
    # The out-of-place line lost its '#'; 2 nodes x 8 H20 = 16 (the issue says so; the tiny rows cannot).
    "nccl1244_h20_2node_nvlstree_2021_format_excerpt.txt": (
        "all_reduce",
        16,
        16,
        "caller",
        "all_reduce",
        8,
        (4, 1, "float", "sum", None),
        ("46.58", "0.01", "0.02"),
        None,
    ),
    # 300.51 x 195.40 / 33554432 x 1e3 = 1.75000: N = 8.
    "mooncake3484_8gpu_all_reduce_rows_excerpt.txt": (
        "all_reduce",
        None,
        8,
        "busbw factor",
        "all_reduce",
        11,
        (32768, 8192, "float", "sum", -1),
        ("195.40", "171.72", "300.51"),
        None,
    ),
    "dgxspark103_gb10_2node_all_reduce_excerpt.txt": (
        "all_reduce",
        None,
        2,
        "rank lines",
        "all_reduce",
        4,
        (8192, 2048, "float", "sum", -1),
        ("67.93", "0.96", "0.96"),
        None,
    ),
    # Every line tagged "[1,0]<stdout>:"; busbw 0.00 throughout: nothing to infer N from.
    "awsk8s503_p5_tagged_all_reduce_excerpt.txt": (
        "all_reduce",
        None,
        None,
        None,
        None,
        3,
        (8, 2, "float", "sum", -1),
        ("22.25", "0.00", "0.00"),
        None,
    ),
}


def _read_more(name, **kwargs):
    collective, n_ranks = REAL_MORE[name][:2]
    return ccb.read_nccl_tests((CORPUS / name).read_text(), collective=collective, n_ranks=n_ranks, **kwargs)


def test_corpus_has_its_sources():
    files = {p.name for p in CORPUS.glob("*.txt")}
    round4 = {
        "rccl929_mi250x_16rank_mpich_all_reduce_2021_format_excerpt.txt",
        "rccl930_mi250x_16rank_mpich_all_gather_2021_format_excerpt.txt",
        "issue37_v100_8gpu_all_gather_error_column_2020.txt",
        "nccl583_a100_8rank_bus_0x00_rank_lines_excerpt.txt",
        "issue107_two_single_rank_processes_excerpt.txt",
        "neuron_nccom_test_allr_doc.txt",
        "nccl_info_lines_excerpts.txt",
    }  # read by the "#41" tests below
    published = Path(__file__).with_name("test_nccl_tests_published.py").read_text()
    round5 = {name for name in files if f'"{name}"' in published}  # read there
    assert len(round5) >= 6
    assert files == set(REAL_MORE) | {"rccl_mi325x_egrep_rows_1_2_4_8_nodes.txt"} | round4 | round5
    sources = (CORPUS / "SOURCES").read_text()
    assert all(name in sources for name in files)


@pytest.mark.parametrize("name", sorted(REAL_MORE))
def test_more_published_outputs_read_right(name):
    collective, _, n_ranks, source, by_itself, n_rows, first, last, warning = REAL_MORE[name]
    log = _read_more(name)
    assert (log.collective, log.n_ranks, log.n_ranks_source, len(log.rows)) == (collective, n_ranks, source, n_rows)
    assert (log.rows[0].size, log.rows[0].count, log.rows[0].type, log.rows[0].redop, log.rows[0].root) == first
    time, algbw, busbw = last
    assert log.rows[-1].time_s == pytest.approx(float(time) * 1e-6, rel=1e-12)
    assert log.rows[-1].algbw_Bps == pytest.approx(float(algbw) * 1e9, rel=1e-12, abs=1e-3)
    assert log.rows[-1].busbw_Bps == pytest.approx(float(busbw) * 1e9, rel=1e-12, abs=1e-3)
    if warning is not None:
        assert any(warning in w for w in log.warnings), log.warnings
    # What the text determines by itself, without the caller's collective and rank count:
    alone = ccb.read_nccl_tests((CORPUS / name).read_text())
    assert alone.collective == by_itself
    if source not in ("caller", None) and (by_itself is not None or source != "busbw factor"):
        assert (alone.n_ranks, alone.n_ranks_source) == (n_ranks, source)
    else:
        assert alone.n_ranks in (None, n_ranks)


@pytest.mark.parametrize("name", sorted(n for n in REAL_MORE if REAL_MORE[n][2] is not None))
def test_more_published_busbw_recomputed_from_time(name):
    """busbw = c(N) size / time on every row and half of the further outputs, within the printed rounding."""
    log = _read_more(name)
    lines = (CORPUS / name).read_text().splitlines()
    factor = PERFORMANCE_MD_FACTOR.get(log.collective, lambda n: (n - 1) / n)(log.n_ranks)  # gather: (N-1)/N
    if log.collective == "sendrecv":
        factor = 1.0
    for row in log.rows:
        if row.size == 0:
            continue
        for printed, suffix in zip(_printed_halves(lines[row.line - 1]), ("", "_inplace")):
            t, busbw = getattr(row, "time_s" + suffix), getattr(row, "busbw_Bps" + suffix)
            recomputed = factor * row.size / t
            tolerance = _half_ulp(printed[2]) * 1e9 + recomputed * _half_ulp(printed[0]) * 1e-6 / t
            assert abs(recomputed - busbw) <= tolerance, (row.line, recomputed, busbw)


def test_egrep_of_four_runs_gives_four_runs_and_their_rank_counts():
    # Three bare rows per run under "====== N-node ======": the sizes start again after each separator.
    # busbw x time / size: 316.88 x 23719 / 4294967296 x 1e3 = 1.74998 (N = 8: 1.75), 347.23 x 23192 / ... =
    # 1.87498 (16: 1.875), 348.12 x 23904 / ... = 1.93752 (32: 1.9375), 344.13 x 24572 / ... = 1.96883 (64: 1.96875).
    text = (CORPUS / "rccl_mi325x_egrep_rows_1_2_4_8_nodes.txt").read_text()
    runs = ccb.read_nccl_tests_runs(text)
    assert [(run.n_ranks, run.n_ranks_source, run.collective, len(run.rows)) for run in runs] == [
        (n, "busbw factor", "all_reduce", 3) for n in (8, 16, 32, 64)
    ]
    assert runs[1].rows[-1].busbw_Bps == pytest.approx(350.24e9) and runs[3].rows[0].line == 16
    # Read as one text, the rows contradict each other and the reader says so.
    whole = ccb.read_nccl_tests(text)
    assert whole.n_ranks is None and any("differs between rows" in w for w in whole.warnings)


@pytest.mark.parametrize(
    "name, caller, message",
    [
        # An 8-rank log told 4 ranks: its rank lines say 8.
        (
            "rccl_mi300x_1node_all_reduce.txt",
            {"n_ranks": 4},
            r"n_ranks=4 contradicts the log: N = 8 from its rank lines",
        ),
        # An AllReduce log told AllGather: it names all_reduce_perf.
        (
            "rccl_mi300x_1node_all_reduce.txt",
            {"collective": "all_gather"},
            r"collective='all_gather' contradicts the log: it names all_reduce_perf \(line 1\)",
        ),
        # No program named: busbw factor 1.875 and size = count x 4 cannot be AllGather.
        (
            "rccl_mi300x_2node_all_reduce.txt",
            {"collective": "all_gather"},
            r"collective='all_gather' contradicts the log",
        ),
        # No rank lines: 1.97917 is 2 x 95/96, not 2 x 63/64 = 1.96875 (the README's 64 GPUs).
        (
            "coreweave_h100_sharp_elided_all_reduce.txt",
            {"n_ranks": 64},
            r"n_ranks=64 contradicts the log: N = 96 from its busbw factor",
        ),
        # count vs size says 64; 16 would print size = 16 x count x 4.
        (
            "issue78_v100_64rank_alltoall_blank_redop_2021.txt",
            {"n_ranks": 16, "collective": "all_to_all"},
            r"n_ranks=16 contradicts the log: N = 64 from its count vs size",
        ),
        # The factor range 62..72 of the 2021 AllReduce excludes 8 (1.75).
        (
            "issue78_v100_64rank_all_reduce_2021.txt",
            {"n_ranks": 8},
            r"n_ranks=8 contradicts the log: busbw × time / size = 1.97\d* ± 0.00\d* on its rows, and all_reduce on 8 ranks gives 1.75",
        ),
    ],
)
def test_caller_values_the_log_contradicts_are_refused(name, caller, message):
    text = (CORPUS / name).read_text()
    with pytest.raises(ValueError, match=message):
        ccb.read_nccl_tests(text, **caller)
    forced = ccb.read_nccl_tests(text, force=True, **caller)
    assert forced.warnings[0].startswith("forced: ")
    assert forced.n_ranks == caller.get("n_ranks", forced.n_ranks)
    assert forced.collective == caller.get("collective", forced.collective)


# -- shapes built from real logs: what Markdown renderers and pastes do to them -------------------


def test_table_whose_hashes_were_lost():
    # A docs site strips the leading '#' of every comment line; '#wrong' in the middle stays.
    text = (CORPUS / "rccl_mi300x_1node_all_reduce.txt").read_text()
    stripped = "\n".join(line[1:] if line.startswith("#") else line for line in text.splitlines())
    assert "       size         count      type   redop    root     time   algbw   busbw #wrong" in stripped
    log, reference = ccb.read_nccl_tests(stripped), ccb.read_nccl_tests(text)
    assert _same_rows(log, reference) and (log.n_ranks, log.collective) == (8, "all_reduce")
    assert log.avg_busbw_Bps == pytest.approx(110.464e9) and log.out_of_bounds == 0


def test_header_with_hash_wrong_is_not_a_prefix():
    # Before #26: "size ... busbw #wrong ..." without the leading '#' gave "unknown column 'wrong'"
    # (the text before '#wrong' was taken for a launcher prefix).
    header = "       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
    log = ccb.read_nccl_tests(header + "\n" + _ROW1 + "\n" + _ROW2 + "\n", collective="all_reduce", n_ranks=2)
    assert [r.size for r in log.rows] == [1024, 2048] and log.check_column == "#wrong"


def test_hypercube_perf_is_an_allgather():
    # hypercube.cu: busbw = algbw = count x typesize x (N-1) / time with count per rank, so
    # busbw x time / size = (N-1)/N, as AllGather; its redop column is blank. 4 ranks, 1 MiB: count
    # 65536 floats per rank; time 100 us; busbw = 65536 x 4 x 3 / 100e-6 = 7.86432 GB/s.
    header = _HEADER.replace("maxBytes 2048", "maxBytes 1048576")
    ranks = "".join(
        f"#  Rank  {r} Group  0 Pid   100{r} on      node0 device  {r} [0x0{r}] NVIDIA A100-SXM4-40GB\n"
        for r in range(2, 4)
    )
    header = header.replace(
        "#\n#                                                              out-of-place",
        ranks + "#\n#                                                              out-of-place",
        1,
    )
    row = "     1048576         65536     float              -1    100.0    7.86    7.86      0    100.0    7.86    7.86      0\n"
    log = ccb.read_nccl_tests("# Collective test starting: hypercube_perf\n" + header + row)
    assert (log.program, log.collective, log.n_ranks) == ("hypercube_perf", "all_gather", 4)
    assert log.rows[0].redop is None and log.rows[0].busbw_Bps == pytest.approx(7.86e9)


# -- #28: rows that used to crash or hang, messages that echoed megabytes ---------------------------


def test_row_with_time_zero_is_a_clean_error():
    # Before #28 the report divided by it (ZeroDivisionError traceback, exit 1).
    text = _HEADER + _ROW1.replace("    10.24    0.10    0.10      0", "     0.00    0.10    0.10      0", 1) + "\n"
    with pytest.raises(
        ValueError,
        match=r"^line 10: time '0.00' for a 1024-byte message: the table printed a time "
        r"below its resolution",
    ):
        ccb.read_nccl_tests(text)
    # A 0-byte row may take 0.00 us: it is kept (and skipped by the report, which needs size > 0).
    empty = (
        _HEADER
        + "           0             0     float     sum      -1     0.00    0.00    0.00      0     0.00    0.00    0.00      0\n"
    )
    assert ccb.read_nccl_tests(empty + _ROW1 + "\n", collective="all_reduce").rows[0].time_s == 0.0


def test_huge_tokens_and_lines_get_a_line_number_and_a_short_message():
    digits = "7" * 5_000_000  # before #28: int() refused it with no line number ("Exceeds the limit ...")
    with pytest.raises(ValueError) as caught:
        ccb.read_nccl_tests(_HEADER + digits + _ROW1[12:] + "\n")
    message = str(caught.value)
    assert message.startswith("line 10: column 'size' has a 5000000-character token") and len(message) < 400
    long_line = _ROW1.replace("float", "x" * 10_000_000, 1)  # a 10 MB row: quoted as 120 characters
    with pytest.raises(ValueError) as caught:
        ccb.read_nccl_tests(_HEADER + long_line + "  junk\n")
    assert str(caught.value).startswith("line 10: row has 14 values") and len(str(caught.value)) < 400
    assert str(caught.value).endswith(" … (10000109 characters)")


@pytest.mark.parametrize("size", ["10000000000000000000000000000000000000000", str(2**60)])
def test_row_sizes_are_range_checked(size):
    # 1e40 bytes was accepted and gave an absurd fit; a row reports at most 2**50 bytes (1 PiB).
    row = f"{size:>12}           256     float     sum      -1    10.24    0.10    0.10      0    10.24    0.10    0.10    N/A"
    with pytest.raises(ValueError, match=r"^line 10: column 'size' is \d+; a table row has 0 to 1125899906842624"):
        ccb.read_nccl_tests(_HEADER + row + "\n")


def test_not_a_table_names_what_is_missing():
    with pytest.raises(ValueError, match="no nccl-tests result table found"):
        ccb.read_nccl_tests("\x7fELF\x02\x01\x01" + "\x00" * 50 + "garbage")


# -- warnings a reviewer of nccl-tests output gives --------------------------------------------------


def _warned(text, fragment, **kwargs):
    log = ccb.read_nccl_tests(text, **kwargs)
    assert any(fragment in w for w in log.warnings), log.warnings
    return log


def test_warning_two_ranks_on_one_gpu():
    same = _SYNTH.replace("device  1 [0x0a]", "device  0 [0x07]")
    _warned(same, "ranks 0 and 1 run on the same GPU (node0 device 0 [0x07])")
    assert not any("same GPU" in w for w in ccb.read_nccl_tests(_SYNTH).warnings)


def test_warning_wrong_values_and_unchecked_data():
    wrong = _SYNTH.replace("    0.10      0    20.48", "    0.10     12    20.48")
    _warned(wrong, "correctness check failed (12 wrong values (first at line 11))".replace(" (first", " (first"))
    unchecked = _SYNTH.replace("      0    10.24", "    N/A    10.24").replace("      0    20.48", "    N/A    20.48")
    _warned(unchecked, "the data were not checked (-c 0")
    _warned(_SYNTH.replace("validation: 1", "validation: 0"), "the data were not checked")


def test_warning_footer_average_that_does_not_match_the_rows():
    # Rows 0.10 GB/s on both halves: the mean is 0.10. A footer of 5.0 means rows were left out.
    _warned(
        _SYNTH.replace("Avg bus bandwidth    : 0.1", "Avg bus bandwidth    : 5.0"),
        "the footer's average bus bandwidth 5 GB/s is not the average of the rows shown (0.1 GB/s)",
    )
    assert ccb.read_nccl_tests(_SYNTH).warnings == ()


def test_warning_maxbytes_reduced_inplace_gap_socket_and_nvls():
    reduced = _SYNTH.replace(
        "#\n# Using devices", "#\n# Reducing maxBytes to 1024 due to memory limitation\n# Using devices"
    )
    _warned(reduced, "nccl-tests reduced maxBytes to 1024 bytes for lack of GPU memory (line 3)")
    # In-place 2.00 GB/s against out-of-place 1.00 GB/s at 1 MiB: 50 %.
    big = "     1048576        262144     float     sum      -1   1048.6    1.00    1.00      0    524.3    2.00    2.00      0\n"
    _warned(_HEADER + big, "in-place and out-of-place busbw differ by 50 % at 1048576 bytes (line 10)")
    socket = "node0:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
    _warned(socket + _SYNTH, "NCCL used its socket (TCP) transport (line 1)")
    nvls = "node0:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 0\n"
    _warned(nvls + _SYNTH, "NVLS (NVLink SHARP) is not available (line 1)")


def test_nranks_from_nccl_info_and_the_command_line():
    info = "".join(
        f"node0:1:1 [{r}] NCCL INFO comm 0x1 rank {r} nranks 2 cudaDev {r} busId 7000 - Init COMPLETE\n"
        for r in range(2)
    )
    bare = _HEADER.splitlines()[0] + "\n"  # the nThread line: 1 thread, 1 GPU per process
    rows = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    text = info + rows + _ROW1 + "\n"
    log = ccb.read_nccl_tests(text)
    assert (log.n_ranks, log.n_ranks_source) == (2, "NCCL INFO nranks")
    command = "mpirun -np 2 ./build/all_reduce_perf -b 1K -e 2K -g 1\n" + bare + rows + _ROW1 + "\n"
    log = ccb.read_nccl_tests(command)
    assert (log.n_ranks, log.n_ranks_source, log.collective) == (2, "command line", "all_reduce")


# -- bounds: the node cut of AllToAll, rails, sendrecv -----------------------------------------------


def test_alltoall_node_cut_by_hand():
    # 16 ranks on 2 nodes, r = 8 ranks per node, 400 GB/s out of each node. AllToAll: each rank sends
    # M/16 to each of the 8 ranks on the other node, so a node sends 8 x 8 x M/16 = 4 M; T >= 4 M / 400 GB/s
    # and busbw = (15/16) M / T <= (15/16) x 400 / 4 = 93.75 GB/s (= (N-1) beta_node / (r (N-r)) = 15 x 400 / 64).
    assert ccb.two_level_busbw_ceiling("all_to_all", 16, 2, 450e9, node_beta=400e9) == pytest.approx(93.75e9)
    # One 50 GB/s NIC per GPU: the node has 8 x 50 = 400 GB/s, the same ceiling.
    assert ccb.two_level_busbw_ceiling("all_to_all", 16, 2, 450e9, rail_beta=50e9) == pytest.approx(93.75e9)
    # 64 ranks on 8 nodes: r = 8, a node sends 8 x 56 x M/64 = 7 M; busbw <= (63/64) x beta_node / 7.
    assert ccb.two_level_busbw_ceiling("all_to_all", 64, 8, 450e9, node_beta=12.5e9) == pytest.approx(
        63 / 64 * 12.5e9 / 7
    )
    # AllReduce keeps c(N)/c(K): 1.875 / 1 x 200 = 375 GB/s; SendRecv: one rank per node sends M off it.
    assert ccb.two_level_busbw_ceiling("all_reduce", 16, 2, 450e9, rail_beta=25e9) == pytest.approx(375e9)
    assert ccb.two_level_busbw_ceiling("sendrecv", 16, 2, 450e9, node_beta=50e9) == pytest.approx(50e9)
    with pytest.raises(ValueError, match="not both"):
        ccb.two_level_busbw_ceiling("all_to_all", 16, 2, 450e9, node_beta=400e9, rail_beta=50e9)
    with pytest.raises(ValueError, match=r"ports \* beta must be <= 1e\+18"):
        ccb.two_level_busbw_ceiling("all_reduce", 16, 1, 1e29, ports=100)


def test_multi_node_alltoall_report_is_honest():
    # NVIDIA/nccl-tests#78: AllToAll on 8 nodes x 8 V100, 100 Gb/s InfiniBand (12.5 GB/s) per node, busbw
    # 0.51 GB/s at 512 MiB. The node cut (63/64 x 12.5 / 7 = 1.758 GB/s) puts it at 0.29 of what the
    # network allows; the old c(N)/c(K) ceiling (0.984/0.875 x 12.5 = 14.1 GB/s) said 0.036.
    log = _read_more("issue78_v100_64rank_alltoall_blank_redop_2021.txt")
    report = ccb.nccl_tests_report(log, 5e-6, 150e9, n_nodes=8, node_beta=12.5e9)
    last = report.values[-1]
    assert last["regime"] == "network" and last["ceiling"] == pytest.approx(63 / 64 * 12.5e9 / 7)
    busbw = 63 / 64 * 536870912 / 1041974e-6
    assert last["efficiency"] == pytest.approx(busbw / (63 / 64 * 12.5e9 / 7)) and 0.28 < last["efficiency"] < 0.30
    assert last["busbw_inplace"] == pytest.approx(63 / 64 * 536870912 / 1041299e-6)


def test_sendrecv_report_is_one_link():
    # SendRecv, 2 x A40, 4 KiB in 30.74 us: busbw = algbw = 4096 / 30.74e-6 = 0.1332 GB/s; the bound is one
    # message: max(alpha, M / (p beta)) = max(5 us, 4096 / 12.5e9) = 5 us, ceiling 4096 / 5 us = 0.819 GB/s.
    log = _read_more("issue214_a40_2node_sendrecv_excerpt.txt")
    report = ccb.nccl_tests_report(log, 5e-6, 12.5e9)
    last = report.values[-1]
    assert last["busbw"] == pytest.approx(4096 / 30.74e-6) and last["ceiling"] == pytest.approx(4096 / 5e-6)
    assert last["efficiency"] == pytest.approx(5e-6 / 30.74e-6)
    assert ccb.busbw_ceiling("sendrecv", 2, 2**30, 5e-6, 12.5e9) == 12.5e9


def test_new_presets_carry_sources():
    for key, beta, ports in (
        ("b200_nvlink5", 50e9, 18),
        ("mi300x_xgmi", 64e9, 7),
        ("mi355x_xgmi", 76.8e9, 7),
        ("v100_nvlink2", 25e9, 6),
        ("pcie_gen4", 31.5e9, 1),
        ("pcie_gen5", 63e9, 1),
    ):
        p = ccb.PRESETS[key]
        assert (p.beta, p.ports) == (beta, ports) and "http" not in p.label and len(p.source) > 80
    # 900 GB/s per B200 = 18 links x 50 GB/s; PCIe Gen5 x16 = 32 GT/s x 16 lanes x 128/130 / 8 = 63.0 GB/s.
    assert ccb.PRESETS["b200_nvlink5"].ports * ccb.PRESETS["b200_nvlink5"].beta == 900e9
    assert 32e9 * 16 * 128 / 130 / 8 == pytest.approx(ccb.PRESETS["pcie_gen5"].beta, rel=1e-3)
    networks = ccb.NETWORK_PRESETS
    assert networks["efa_p5_3200"].node_beta == 400e9 and networks["ib_xdr_8x800"].node_beta == 800e9
    with pytest.raises(ValueError, match="nics must be >= 1"):
        ccb.hardware.NetworkPreset("x", "x", 1e9, 0, "x")


# -- command line: formats, compare, refusals before work (#26, #28) ----------------------------------


def test_cli_formats_table_csv_json(capsys):
    path = str(CORPUS / "rccl_mi300x_1node_all_reduce.txt")
    assert main([path, "--preset", "mi300x_xgmi"]) == 0
    table = capsys.readouterr().out
    # 8 GiB: busbw 315.69, ceiling p beta = 7 x 64 = 448 GB/s, efficiency 0.70; in-place 315.91 -> 0.71.
    assert re.search(r"8 GiB\s+315\.69\s+448\.00\s+0\.70\s+bandwidth\s+315\.91\s+0\.71", table)
    assert main([path, "--preset", "mi300x_xgmi", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    # busbw recomputed from the printed time: 1.75 x 8589934592 / 47584e-6 = 315.913 GB/s (printed 315.91).
    assert len(rows) == 31 and rows[-1]["size"] == "8589934592" and rows[-1]["busbw_inplace_GBps"] == "315.913"
    assert main([path, "--preset", "mi300x_xgmi", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"][0]["n_ranks"] == 8 and data["runs"][0]["bound"]["ports"] == 7
    assert data["runs"][0]["rows"][-1]["efficiency"] == pytest.approx(315.69 / 448, abs=2e-4)


def test_cli_compare(capsys):
    # MI300X on 1 node (8 ranks) against 2 nodes (16 ranks): 8 GiB busbw 315.69 -> 356.14 GB/s, +13 %.
    one, two = str(CORPUS / "rccl_mi300x_1node_all_reduce.txt"), str(CORPUS / "rccl_mi300x_2node_all_reduce.txt")
    assert main(["compare", one, two, "--preset", "mi300x_xgmi"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"8 GiB\s+315\.69\s+356\.14\s+\+13%\s+0\.70\s+0\.79", out)
    assert main(["compare", one, two, "--preset", "mi300x_xgmi", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 31 and float(rows[-1]["change"]) == pytest.approx(356.14 / 315.69 - 1, abs=1e-4)
    assert main(["compare", one, "--preset", "mi300x_xgmi"]) == 2
    assert "error: the following arguments are required: after" in capsys.readouterr().err


def test_cli_plot_without_extension_says_what_it_wrote(tmp_path, capsys):
    out = tmp_path / "report"
    assert (
        main(
            [
                str(DATA / "a3mega_h100_2node_all_reduce.txt"),
                "--preset",
                "h100_nvswitch",
                "--network",
                "roce_8x200",
                "--plot",
                str(out),
            ]
        )
        == 0
    )
    assert f"plot written to {out}.png" in capsys.readouterr().out
    assert (tmp_path / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and not out.exists()


def test_cli_contradicting_overrides_exit_2_unless_forced(capsys):
    path = str(CORPUS / "rccl_mi300x_1node_all_reduce.txt")
    assert main([path, "--preset", "mi300x_xgmi", "--ranks", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "n_ranks=4 contradicts the log: N = 8 from its rank lines" in err
    assert main([path, "--preset", "mi300x_xgmi", "--collective", "all_gather"]) == 2
    assert "it names all_reduce_perf" in capsys.readouterr().err
    assert main([path, "--preset", "mi300x_xgmi", "--ranks", "4", "--force"]) == 0
    assert "WARNING: forced: n_ranks=4 contradicts the log" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        # --beta 1e29 --ports 100 passed the checks and crashed later; 1e-300 is below any bandwidth.
        (["--alpha", "1e-6", "--beta", "1e29", "--ports", "100"], "ports * beta must be <= 1e+18 bytes/s"),
        (["--alpha", "1e-6", "--beta", "1e-300"], "beta must be >= 1e-09"),
        (["--alpha", "1e-6", "--beta", "1e9", "--rail-beta", "-1"], "rail_beta must be >= 1e-09"),
        (["--alpha", "1e-6", "--beta", "1e9", "--ranks", "99999999999"], "n_ranks must be <= 16777216"),
        (["--preset", "ib_ndr", "--beta", "1e9"], "--preset gives beta"),
        (
            ["--alpha", "1e-6", "--beta", "1e9", "--network", "ib_ndr_8x400", "--node-beta", "1e9"],
            "not allowed with argument",
        ),
    ],
)
def test_cli_numbers_checked_before_reading(args, message, capsys, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # a LOG that would block if it were opened: the numbers are refused first
    assert main([str(fifo), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: "/dev/zero", "it is a character device, not a file"),
        (lambda d: "/dev/urandom", "it is a character device, not a file"),
        (lambda d: (os.mkfifo(d / "fifo"), str(d / "fifo"))[1], "it is a FIFO (named pipe), not a file"),
        (lambda d: str(d), "it is a directory, not a file"),
        (
            lambda d: ((d / "core").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(200)), str(d / "core"))[1],
            "an ELF binary",
        ),
    ],
)
def test_cli_inputs_that_are_not_log_files(make, message, tmp_path, capsys):
    # /dev/zero was read until memory ran out, /dev/urandom never ended, a FIFO blocked forever.
    done = subprocess.run(
        [sys.executable, "-m", "ccb_helpers.nccl_tests", make(tmp_path), "--preset", "ib_ndr"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: "/dev/full", "it is a character device, not a file"),
        (lambda d: str(d / ("x" * 300 + ".png")), "the file name has more than 255 bytes"),
        (lambda d: str(d / "missing" / "out.png"), "does not exist"),
        (lambda d: (os.mkfifo(d / "out.png"), str(d / "out.png"))[1], "it is a FIFO (named pipe), not a file"),
        (lambda d: str(d / "out.svg"), "--plot writes PNG"),
    ],
)
def test_cli_plot_targets_refused_before_the_work(make, message, tmp_path, capsys):
    # /dev/full and a 300-character name failed after the report was computed, losing it.
    assert main([str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--preset", "ib_ndr", "--plot", make(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_plot_draws_the_node_cut_and_explanations_fit_the_collective():
    from ccb_helpers.nccl_tests.formatters import flag_explanation
    from ccb_helpers.nccl_tests.plot import plot_report

    log = ccb.read_published_log("a3mega_h100_2node_all_reduce")
    run = ccb.nccl_tests.run_report(log, 1e-6, 25e9, ports=18, node_beta=200e9)
    top = plot_report(run).axes[0]
    # The node cut of 16 ranks on 2 hosts at 200 GB/s: 1.875 / 1 x 200 = 375 GB/s, drawn as a horizontal line.
    cut = [line for line in top.get_lines() if line.get_label().startswith("节点割")]
    assert len(cut) == 1 and set(cut[0].get_ydata()) == {375.0}
    assert "NVLS, SHARP" in flag_explanation("endpoint", run)
    alltoall = ccb.nccl_tests.run_report(_read_more("deepep303_h20_8gpu_alltoall_rows_excerpt.txt"), 1e-6, 25e9)
    text = flag_explanation("endpoint", alltoall)
    assert "in-network reduction or multicast does not lower that" in text and "NVLS" not in text
    assert "point-to-point" in flag_explanation(
        "endpoint", ccb.nccl_tests.run_report(_read_more("issue214_a40_2node_sendrecv_excerpt.txt"), 1e-6, 25e9)
    )


def test_short_and_blank_lines_read_as_before_the_per_line_cut():
    # #28: blank lines are dropped at C level and short lines skipped where they cannot be a
    # header, metadata or row. What a short line still does: continue a row (one value per line
    # after an NCCL INFO cut), start one, end a row with a "#" comment (an error), set the unit.
    from ccb_helpers.nccl_tests.records import _EXAMPLE

    whole = ccb.read_nccl_tests(_EXAMPLE)
    lines = _EXAMPLE.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["1048576"])
    tokens = lines[at].split()
    split = (
        lines[:at]
        + ["", "  ", "a", "\t"]  # blank and junk lines between rows change nothing
        + [" ".join(tokens[:5]) + " node0:1:1 [0] NCCL INFO Launch mode Parallel"]
        + tokens[5:]  # the rest of the row one value per (short) line
        + lines[at + 1 :]
        + ["\r", "x"] * 50
    )
    log = ccb.read_nccl_tests("\n".join(split))
    assert log.rows[0].line == whole.rows[0].line  # before the inserted lines
    assert [(r.size, r.time_s, r.busbw_Bps, r.wrong) for r in log.rows] == [
        (r.size, r.time_s, r.busbw_Bps, r.wrong) for r in whole.rows
    ]
    assert log.rows[1].line == at + 5  # 1-based, after the four inserted lines
    cut = split[: at + 6] + ["#"] + split[at + 6 :]
    with pytest.raises(ValueError, match=rf"^line {at + 5}: the row starting there is cut short \(a comment line"):
        ccb.read_nccl_tests("\n".join(cut))
    # A units line of a few characters still sets the unit (ms: the 2017 format's time column).
    header = "#  size count type redop time algbw busbw res time algbw busbw res"
    rows = "1024 256 float sum 1.0 0.0 0.0 0e+00 1.0 0.0 0.0 0e+00"
    assert ccb.read_nccl_tests(f"{header}\n#(ms)\n{rows}").rows[0].time_s == pytest.approx(1e-3)
    assert ccb.read_nccl_tests(f"{header}\n#(us)\n{rows}").rows[0].time_s == pytest.approx(1e-6)


# --------------------------------------------------------------------------- #42: number tokens, zero counts, rows outside a run
# Each case is a published log with one line changed the way the outside fuzzer changed it.


def _a3mega():
    return (DATA / "a3mega_h100_2node_all_reduce.txt").read_text()


def _row_line(text, size):
    """The 0-based index and text of the row of ``size`` bytes (first half's busbw is token -6)."""
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if line.split()[:1] == [str(size)])
    return lines, index


def _with_token(text, size, position, token):
    lines, i = _row_line(text, size)
    tokens = lines[i].split()
    tokens[position] = token
    lines[i] = "   ".join(tokens)
    return "\n".join(lines) + "\n", i + 1


@pytest.mark.parametrize("footer", [True, False])
def test_zero_with_a_huge_exponent_is_refused_naming_the_line(footer, capsys, tmp_path):
    # '0e400' is a finite zero, but printed to the place 1e400: its rounding (which the footer's
    # average and the busbw-factor interval use) overflowed 10.0 ** 400 in both places (#42).
    text, line = _with_token(_a3mega(), 1048576, 7, "0e400")
    if not footer:
        text = "\n".join(x for x in text.splitlines() if "Avg bus bandwidth" not in x) + "\n"
    with pytest.raises(ValueError, match=rf"^line {line}: column 'busbw': '0e400' is printed to a place of 1e400"):
        ccb.read_nccl_tests(text)
    path = tmp_path / "log.txt"
    path.write_text(text)
    assert main([str(path), "--preset", "h100_nvswitch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: line {line}: column 'busbw'")


@pytest.mark.parametrize("token", ["1e-320", "1e-310", "2e-308"])
def test_subnormal_times_are_refused_naming_the_line(token, capsys, tmp_path):
    # 1e-320 us was accepted, became 0.0 s after the unit conversion and the report divided by it;
    # 1e-310 made the CLI name an internal parameter ("bytes_per_second must be finite").
    text, line = _with_token(_a3mega(), 1048576, 5, token)
    with pytest.raises(
        ValueError, match=rf"^line {line}: column 'time': '{token}' is below the smallest normal double"
    ):
        ccb.read_nccl_tests(text)
    path = tmp_path / "log.txt"
    path.write_text(text)
    assert main([str(path), "--preset", "h100_nvswitch"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: line {line}: column 'time'") and "bytes_per_second" not in err


def test_a_normal_but_tiny_time_is_refused_before_any_division():
    # 1e-300 us is a normal double; 8 GiB in 1e-306 s is 8.6e315 bytes/s, beyond any float.
    text, line = _with_token(_a3mega(), 8589934592, 5, "1e-300")
    with pytest.raises(ValueError, match=rf"^line {line}: time '1e-300' for a 8589934592-byte message implies"):
        ccb.read_nccl_tests(text)
    text, line = _with_token(_a3mega(), 8589934592, 7, "1e300")
    with pytest.raises(ValueError, match=rf"^line {line}: busbw '1e300' GB/s is above"):
        ccb.read_nccl_tests(text)


def _issue232_with(line):
    text = (CORPUS / "issue232_h100_2node_tree_all_reduce_excerpt.txt").read_text().splitlines()
    return "\n".join(text[:2] + [line] + text[2:]) + "\n"


@pytest.mark.parametrize(
    "threads, note",
    [
        ("# nThread 1 nGpus 0 minBytes 2097152 maxBytes 17179869184", "starts 0 GPUs per process"),
        ("# nThread 0 nGpus 1 minBytes 2097152 maxBytes 17179869184", "starts 0 GPUs per process"),
        ("# nThread 1 nGpus 99999999999 minBytes 2097152 maxBytes 17179869184", "starts 99999999999 GPUs per process"),
    ],
)
def test_thread_line_counts_outside_the_rank_range_are_not_used(threads, note):
    # nccl-tests#232's run: "mpirun ... -np 2 ./all_reduce_perf ... -g 1" and busbw = algbw (c = 1,
    # N = 2). A "# nThread" line giving 0 GPUs per process divided by zero (#42); one giving
    # 99999999999 made N = 2e11, above MAX_RANKS, and outranked the rows.
    log = ccb.read_nccl_tests(_issue232_with(threads))
    assert (log.collective, log.n_ranks) == ("all_reduce", 2)
    assert any(w.startswith("line 3: '# nThread") and note in w for w in log.warnings), log.warnings
    run = ccb.nccl_tests.run_report(log, 1e-6, 50e9)
    assert run.n_ranks == 2


def test_nranks_zero_from_nccl_info_is_not_used():
    text = _issue232_with("host:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 0 cudaDev 0 busId 1000 - Init COMPLETE")
    log = ccb.read_nccl_tests(text)
    assert log.n_ranks == 2 and any("NCCL INFO nranks 0 is outside 1 to" in w for w in log.warnings)


def test_headerless_rows_after_a_footer_are_a_run_of_their_own():
    # 31 headed rows of the A3 Mega log, then nccl-tests#214's five rows pasted under it without a
    # header: the five vanished (#42). They are a second run; read_nccl_tests names their lines.
    rows = [line for line in (CORPUS / "issue214_a40_2node_sendrecv_excerpt.txt").read_text().splitlines()]
    bare = [line for line in rows if line.strip()[:1].isdigit()]
    assert len(bare) == 5
    text = _a3mega().rstrip("\n") + "\n\nand the other cluster:\n" + "\n".join(bare) + "\n"
    runs = ccb.read_nccl_tests_runs(text)
    assert [len(r.rows) for r in runs] == [31, 5]
    assert runs[1].rows[0].size == 256 and runs[1].rows[-1].size == 4096
    first = len(_a3mega().splitlines()) + 3
    with pytest.raises(
        ValueError, match=rf"^line {first}: 5 rows without a header after its footer \(lines {first}-{first + 4}\)"
    ):
        ccb.read_nccl_tests(text)


def test_headerless_rows_before_a_headed_table_are_a_run_of_their_own():
    # nccl-tests#232's five headed rows under ten headerless rows of Mooncake#3484 (#42: 10 + 5 came back as 5).
    bare = (CORPUS / "mooncake3484_8gpu_all_reduce_rows_excerpt.txt").read_text()
    headed = (CORPUS / "issue232_h100_2node_tree_all_reduce_excerpt.txt").read_text()
    n_bare = len(ccb.read_nccl_tests(bare).rows)
    runs = ccb.read_nccl_tests_runs(bare + "\n" + headed)
    assert [len(r.rows) for r in runs] == [n_bare, 5]
    assert runs[1].n_ranks == 2 and runs[1].rows[0].size == 2097152
    with pytest.raises(ValueError, match=r"rows without a header before its header"):
        ccb.read_nccl_tests(bare + "\n" + headed)


def test_sendrecv_logs_are_fitted_with_one_round(capsys, tmp_path):
    # nccl-tests#214 (sendrecv_perf on 2 x A40): fit_alpha_beta refused 'sendrecv' ("unknown
    # primitive") and the CLI then printed "needs at least two non-empty rows of different sizes"
    # for five distinct sizes (#42). A SendRecv is one message: one round, busbw factor 1.
    log = ccb.read_nccl_tests((CORPUS / "issue214_a40_2node_sendrecv_excerpt.txt").read_text(), collective="sendrecv")
    fit = ccb.fit_alpha_beta(log)
    assert fit.steps == 1 and fit.points == 5
    # The times fall from 34.24 to 30.74 us as the size grows: no slope, so no beta.
    assert not fit.beta_determined
    path = tmp_path / "sendrecv.txt"
    path.write_text((CORPUS / "issue214_a40_2node_sendrecv_excerpt.txt").read_text())
    assert main([str(path), "--preset", "pcie_gen4", "--collective", "sendrecv"]) == 0
    out = capsys.readouterr().out
    assert "fit (one round" in out and "needs at least two" not in out
    assert "beta: the times do not grow with size" in out


def test_each_fit_failure_says_its_own_reason(capsys):
    # NCCL 1's README run: 20 rows, all of 1 size (5 types x 4 operators).
    assert main([str(DATA / "nccl1_titanx_all_reduce.txt"), "--alpha", "5e-6", "--beta", "12e9"]) == 0
    out = capsys.readouterr().out
    assert "fit: not possible: log: need at least two rows of different sizes" in out and "got 20 rows of 1 size" in out


# --------------------------------------------------------------------------- #41: what real logs showed wrong


def _corpus(name):
    return (CORPUS / name).read_text()


@pytest.mark.parametrize(
    "name, collective",
    [
        ("rccl929_mi250x_16rank_mpich_all_reduce_2021_format_excerpt.txt", "all_reduce"),
        ("rccl930_mi250x_16rank_mpich_all_gather_2021_format_excerpt.txt", "all_gather"),
    ],
)
def test_launchers_with_a_suffix_start_their_process_count(name, collective, capsys):
    # "mpirun.mpich -np 16 ... -g 1" (ROCm/rccl#929, #930): the suffix hid the launcher, so the
    # line read as one process, N = 1, and the true --ranks 16 was refused as a contradiction.
    log = ccb.read_nccl_tests(_corpus(name))
    assert (log.collective, log.n_ranks, log.n_ranks_source) == (collective, 16, "command line")
    assert main([str(CORPUS / name), "--preset", "mi300x_xgmi", "--ranks", "16"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    "line, expected",
    [
        ("mpirun.openmpi -np 8 ./build/all_reduce_perf -g 1", (8, 1, 1)),
        ("/usr/bin/mpirun.openmpi --allow-run-as-root -np 4 ./all_reduce_perf -g 2", (4, 1, 2)),
        ("mpiexec.hydra -n 16 -ppn 8 ./all_reduce_perf -g 1", (16, 1, 1)),
        ("mpiexec.hydra -ppn 8 -hosts a,b ./all_reduce_perf -g 1", (16, 1, 1)),
        ("srun -N 2 --ntasks-per-node=8 ./all_reduce_perf -g 1", (16, 1, 1)),
        ("user@host:~/nccl-tests$ ./build/all_reduce_perf -b 8 -g 8", (1, 1, 8)),
        ("NCCL_DEBUG=INFO numactl --interleave=all ./build/all_reduce_perf -g 4", (1, 1, 4)),
        ("ibrun ./build/all_reduce_perf -g 1", None),  # TACC's launcher: its count is the allocation's
        ("charmrun +p4 ./build/all_reduce_perf -g 1", None),
    ],
)
def test_command_lines_by_hand(line, expected):
    from ccb_helpers.nccl_tests.command import _PROGRAM_TOKEN_RE, command_ranks

    assert command_ranks(line, _PROGRAM_TOKEN_RE.search(line).start(1)) == expected


def test_an_unknown_launcher_does_not_win_over_the_rows():
    # nccl-tests#232's two ranks run by a launcher the reader does not know: the line is no evidence,
    # and busbw = algbw (c = 2(N-1)/N = 1) gives N = 2. Before: one process, N = 1.
    text = _corpus("issue232_h100_2node_tree_all_reduce_excerpt.txt").replace("$ mpirun ", "$ ibrun ", 1)
    log = ccb.read_nccl_tests(text)
    assert (log.n_ranks, log.n_ranks_source) == (2, "busbw factor")


def test_old_pci_bus_byte_shared_by_several_gpus_is_not_one_gpu():
    # NVIDIA/nccl#583: eight A100 on one host, each rank line "[0x00]" (the bus byte only): devices
    # 0..7 are eight GPUs. Two ranks on one host with the same bus byte *and* device are one GPU.
    from ccb_helpers.nccl_tests.checks import _same_gpu
    from ccb_helpers.nccl_tests.formats import _RANK_RE

    ranks = []
    for number, line in enumerate(_corpus("nccl583_a100_8rank_bus_0x00_rank_lines_excerpt.txt").splitlines(), 1):
        if m := _RANK_RE.match(line.strip()):
            ranks.append((int(m.group(1)), m.group(2), m.group(3), m.group(4), m.group(5), number))
    assert len(ranks) == 8 and {r[3] for r in ranks} == {"0x00"}
    assert _same_gpu(ranks) is None
    assert _same_gpu(ranks + [(8, "AI-A100-Beethoven01", "3", "0x00", "A100", 99)]) == (
        3,
        8,
        "AI-A100-Beethoven01 device 3 [0x00]",
    )


def test_error_column_of_2020_is_checked_against_nccl_tests_own_limit():
    # nccl-tests#37: all_gather_perf -g 8, error 1e+00 in both halves; nccl-tests' limit for float
    # is DeltaMaxValue(float) x (N-1) = 1e-5 x 7 = 7e-05 (src/common.cu of 2019-2021).
    log = ccb.read_nccl_tests(_corpus("issue37_v100_8gpu_all_gather_error_column_2020.txt"))
    assert (log.collective, log.n_ranks) == ("all_gather", 8)
    failed = [w for w in log.warnings if "DeltaMaxValue(float) x (N-1) = 7e-05" in w]
    assert len(failed) == 1 and "2 results (in-place and out-of-place)" in failed[0]
    # An AllToAll's in-place column of that era is not checked (nccl-tests did not check it either).
    assert not any("DeltaMaxValue" in w for w in ccb.read_published_log("issue78_v100_8node_alltoall").warnings)


def test_rank_zero_from_every_process_is_one_rank_each():
    from ccb_helpers.nccl_tests.evidence import Evidence, resolve

    # Two processes that each ran alone print "Rank 0" each: N = 1 per process (the CLI then
    # says nccl-tests was built without MPI=1), not an unknown rank count.
    rows = ccb.read_published_log("a3mega_h100_2node_all_reduce").rows
    _, n, source, warnings, _ = resolve(Evidence(rows=rows, rank_indices=(0, 0)), "all_reduce", None, None)
    assert (n, source) == (1, "rank lines") and any("rank 0 more than once" in w for w in warnings)


def test_two_processes_that_each_ran_alone_get_the_one_rank_message():
    # nccl-tests#107 (and #329): two single-rank processes, "Rank 0" twice, the header printed twice.
    with pytest.raises(ValueError, match=r"every process ran alone \(its rank lines all say rank 0\).*make MPI=1"):
        ccb.read_nccl_tests(_corpus("issue107_two_single_rank_processes_excerpt.txt"))


def test_elided_rank_lines_do_not_count_hosts(capsys):
    # CoreWeave's "2 Racks" GB200 run: 128 ranks, one rank line (rank 143, from another run). It was
    # reported "on 1 host", and --node-beta then applied no network cut, silently.
    path = CORPUS / "coreweave_gb200_2rack_all_reduce.txt"
    log = ccb.read_nccl_tests(path.read_text())
    assert log.n_ranks == 128 and log.n_hosts is None and not log.hosts_complete
    assert any("the node count is not known from the log" in w for w in log.warnings)
    assert main([str(path), "--preset", "b200_nvlink5", "--node-beta", "400e9"]) == 2
    assert "pass n_nodes (--nodes)" in capsys.readouterr().err
    assert main([str(path), "--preset", "b200_nvlink5", "--node-beta", "400e9", "--nodes", "2"]) == 0
    out = capsys.readouterr().out
    assert "network cut: 2 nodes" in out and " host" not in out.splitlines()[1]


def test_the_redop_column_narrows_the_collective():
    # rccl#929's table without its command line: a 'redop' column (no root) holding 'sum' is
    # AllReduce or ReduceScatter (AllToAll leaves it blank, AllGather has none); count vs size = 1
    # rules out ReduceScatter.
    rows = _corpus("rccl929_mi250x_16rank_mpich_all_reduce_2021_format_excerpt.txt").split("\n", 1)[1]
    log = ccb.read_nccl_tests(rows)
    assert log.collective == "all_reduce"
    with pytest.raises(ValueError, match=r"collective='all_gather' contradicts the log"):
        ccb.read_nccl_tests(rows, collective="all_gather")
    from ccb_helpers.nccl_tests.evidence import Evidence

    evidence = Evidence(rows=log.rows, header_columns=("size", "count", "type", "redop", "time"), header_printed=True)
    assert "its header's columns (size type redop …) are those nccl-tests printed for all_reduce" in (
        evidence._columns_contradiction("all_gather")
    )
    assert "are those nccl-tests printed for all_reduce, reduce_scatter, all_to_all" in evidence._columns_contradiction(
        "broadcast"
    )
    assert evidence._columns_contradiction("all_to_all") == "its rows have redop 'sum', and all_to_all does not reduce"
    # rccl#930's AllGather table without its command line: "size count type" is AllGather's (or
    # SendRecv's) header, and size = 16 x count x 4.
    rows = _corpus("rccl930_mi250x_16rank_mpich_all_gather_2021_format_excerpt.txt").split("\n", 1)[1]
    log = ccb.read_nccl_tests(rows)
    assert (log.collective, log.n_ranks, log.n_ranks_source) == ("all_gather", 16, "count vs size")


def test_alpha_is_not_printed_from_bandwidth_bound_rows(capsys):
    # The A3 Mega log's rows of 1 GiB and more are bandwidth-bound: an intercept fitted to them is
    # an extrapolation, not a latency.
    log = ccb.read_published_log("a3mega_h100_2node_all_reduce")
    fit = ccb.fit_alpha_beta(log, min_size=2**30)
    assert fit.points == 4 and not fit.alpha_determined and fit.beta_determined
    full = ccb.fit_alpha_beta(log)
    assert full.alpha_determined and full.beta_determined


def test_topo_m_with_topo_p2p_pasted_after_it(tmp_path):
    # aikitoria/open-gpu-kernel-modules#13: "nvidia-smi topo -m" then "nvidia-smi topo -p2p p":
    # the second matrix repeated GPU0 .. GPU4 ("row GPU0 appears twice").
    text = (Path(__file__).parent / "data" / "nvidia_smi" / "rtx5060ti_topo_m_then_p2p_p.txt").read_text()
    topology = ccb.parse_nvidia_smi_topo(text)
    assert (topology.n, topology.switched) == (5, True)


def test_nccom_test_output_is_named():
    with pytest.raises(ValueError, match=r"^line 2: this is AWS Neuron's nccom-test output .*not nccl-tests output"):
        ccb.read_nccl_tests(_corpus("neuron_nccom_test_allr_doc.txt"))


def test_wrong_column_whose_hash_was_lost():
    text = ccb.published_log_text("a3mega_h100_2node_all_reduce")
    assert "#wrong" in text
    lost = ccb.read_nccl_tests(text.replace("#wrong", "wrong"))
    assert lost.rows == ccb.read_nccl_tests(text).rows and lost.check_column == "#wrong"


def test_busbw_over_algbw_narrows_the_factor_only_where_its_convention_is_known():
    from ccb_helpers.nccl_tests.evidence import Evidence

    # DGX-2 AllGather of 2019: busbw = algbw (the old convention), so the ratio (1) is not c(N).
    old = Evidence(rows=ccb.read_published_log("dgx2_v100_all_gather").rows)
    assert old.interval_for("all_gather")[:2] == old.factor_interval()[:2]
    assert ccb.read_published_log("dgx2_v100_all_gather").n_ranks == 12
    # A3 Mega AllReduce: both intervals hold 2 x 15/16 = 1.875; the narrowed one is inside the other.
    new = Evidence(rows=ccb.read_published_log("a3mega_h100_2node_all_reduce").rows)
    lo, hi, _ = new.factor_interval()
    nlo, nhi, _ = new.interval_for("all_reduce")
    assert lo <= nlo <= 1.875 <= nhi <= hi


# --------------------------------------------------------------------------- #41: what a practitioner builds on


SMI_DATA = Path(__file__).parent / "data" / "nvidia_smi"


def test_preset_auto_from_the_devices_and_a_warning_when_a_preset_contradicts_them(capsys):
    assert main([str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--preset", "auto"]) == 0
    out = capsys.readouterr().out
    assert "preset h100_nvswitch chosen from the devices the rank lines name (NVIDIA H100 80GB HBM3)" in out
    assert main([str(CORPUS / "rccl_mi300x_1node_all_reduce.txt"), "--preset", "auto"]) == 0
    assert "bound: preset mi300x_xgmi" in capsys.readouterr().out
    # An A100 log held against an MI355X preset: said, not silently bounded by other links.
    assert (
        main([str(DATA / "oke_a100_2node_all_reduce.txt"), "--preset", "mi355x_xgmi", "--collective", "all_reduce"])
        == 0
    )
    assert "--preset mi355x_xgmi is not the hardware the log names (NVIDIA A100-SXM4-40GB: preset a100_nvlink)" in (
        capsys.readouterr().out
    )
    # T4 (PCIe Gen3) has no preset; a log without device names has nothing to choose from.
    assert main([str(DATA / "eks_efa_t4_2node_all_reduce.txt"), "--preset", "auto", "--collective", "all_reduce"]) == 2
    assert "--preset auto: a PCIe Gen3 card, no preset" in capsys.readouterr().err
    assert main([str(CORPUS / "deepep303_h20_8gpu_all_reduce_rows_excerpt.txt"), "--preset", "auto"]) == 2
    assert "the log names no devices" in capsys.readouterr().err


def test_nccl_info_lines_read_from_real_logs():
    from ccb_helpers.nccl_tests.nccl_info import NcclInfo, in_network_from_info, network_kind, read_info_line

    blocks = (CORPUS / "nccl_info_lines_excerpts.txt").read_text().split("# https://github.com/NVIDIA/nccl/issues/")[1:]
    infos = {}
    for block in blocks:
        info = NcclInfo()
        for number, line in enumerate(block.splitlines()[1:], start=2):
            read_info_line(line, number, info)
        infos[block.split()[0]] = info
    assert (infos["1357"].nranks, infos["1357"].nodes, infos["1357"].local_ranks, infos["1357"].nvls) == (
        {16},
        {2},
        {8},
        True,
    )
    assert (infos["1814"].nranks, infos["1814"].nvls, infos["1814"].collnet) == ({64}, True, False)
    assert (infos["1706"].nvls, infos["1706"].collnet) == (False, True)
    assert network_kind(infos["1291"]) == "InfiniBand" and infos["1291"].nics == ("[0]mlx5_2:1/IB/SHARP",)
    assert infos["1453"].nvls and "NET/IBext_v8" in infos["1453"].transports
    assert network_kind(ccb.read_published_log("eks_efa_t4_2node_all_reduce").nccl) == "EFA"
    # NVLS on: an AllReduce may reduce in the NVSwitch; CollNet counts on several nodes only.
    assert in_network_from_info(infos["1814"], "all_reduce", True)[0] == "nvls"
    assert in_network_from_info(infos["1706"], "all_reduce", False) == (None, "")
    assert in_network_from_info(infos["1814"], "all_gather", True) == (None, "")


def test_nvls_on_raises_the_allreduce_ceiling_by_c_of_n():
    # The A3 Mega log (16 x H100, 2 nodes) with nccl#1453's "NVLS comm ... headRank" line after
    # it: each GPU then moves M, not 2 x 15/16 M, so the large-message endpoint term is
    # 1.875 x (450 + 25) = 890.625 GB/s and the node cut (375) binds as before.
    line = (CORPUS / "nccl_info_lines_excerpts.txt").read_text().splitlines()[-2]
    assert "NVLS comm" in line
    log = ccb.read_nccl_tests(ccb.published_log_text("a3mega_h100_2node_all_reduce") + line + "\n")
    assert log.nccl.nvls
    run = ccb.nccl_tests.run_report(log, 1e-6, 25e9, ports=18, node_beta=200e9, in_network="nvls")
    big = run.table.values[-1]
    assert big["in_network"] == "nvls" and big["ceiling"] == pytest.approx(375e9, rel=1e-12)
    alone = ccb.nccl_tests.run_report(log, 1e-6, 25e9, ports=18, in_network="nvls")
    assert alone.table.values[-1]["ceiling"] == pytest.approx(1.875 * 450e9, rel=1e-12)
    # per size: the tuner's lines name the algorithm (NCCL's "%s: %ld Bytes -> Algo %s proto %s" format)
    tuned = ccb.read_nccl_tests(
        ccb.published_log_text("a3mega_h100_2node_all_reduce")
        + "host:1:1 [0] NCCL INFO AllReduce: 8589934592 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}\n"
        + "host:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Algo 1 proto 0 time 12.345000\n"
    )
    assert tuned.nccl.algorithms == {("all_reduce", 8589934592): ("NVLS", "SIMPLE"), ("all_reduce", 8): ("RING", "LL")}


def test_topology_file_gives_the_endpoint_and_nic_ceilings(capsys, tmp_path):
    # nccl-tests#319's 2 x 8 H100 with the H100 node of nccl#1453 (NV18, 8 NICs each PIX to one
    # GPU) and 400 Gb/s NICs: 18 x 25 = 450 GB/s of NVLink and 8 x 50 / 8 = 50 GB/s of network per
    # GPU: endpoint 500 GB/s; the node cut 2 x 15/16 / 1 x 400 = 750 GB/s does not bind.
    topo = str(SMI_DATA / "h100_nics_nccl1453_excerpt.txt")
    log = str(DATA / "hgx_h100_2node_all_reduce_issue319.txt")
    assert main([log, "--preset", "auto", "--topology", topo, "--nic-gbps", "400", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)["runs"][0]
    assert data["bound"]["ports"] == 18 and data["bound"]["beta_Bps"] == 25e9
    assert data["bound"]["node_beta_Bps"] == pytest.approx(400e9) and data["bound"][
        "node_ceiling_Bps"
    ] == pytest.approx(750e9)
    assert data["rows"][-1]["ceiling"] == pytest.approx(500e9, rel=1e-12)
    # Without a NIC rate: said, and no network cut invented.
    assert main([log, "--preset", "auto", "--topology", topo]) == 0
    assert "8 NICs at PIX/PXB of the GPUs, but no rate (no 'Rate:' lines): pass --nic-gbps" in capsys.readouterr().out
    # One node, all its GPUs: the topology's own ceiling (p5.48xlarge: 18 links x 25 GB/s).
    rows = str(CORPUS / "deepep303_h20_8gpu_all_reduce_rows_excerpt.txt")
    assert main([rows, "--preset", "h100_nvswitch", "--topology", str(SMI_DATA / "h100_p5_48xlarge.txt")]) == 0
    assert "one node: the ceiling is 450 GB/s, set by each GPU's 18 links" in capsys.readouterr().out
    # rocm-smi --showtopo of an MI300X hive (7 xGMI links per GPU at 64 GB/s) with RCCL's one-node run.
    rows = "\n".join(f"GPU{i}   " + "   ".join("0" if i == j else "%s" for j in range(8)) for i in range(8))
    head = "       " + "   ".join(f"GPU{i}" for i in range(8))
    rocm = tmp_path / "rocm.txt"
    rocm.write_text(
        f"=== Weight between two GPUs ===\n{head}\n"
        + rows.replace("%s", "15")
        + f"\n=== Link Type between two GPUs ===\n{head}\n"
        + rows.replace("%s", "XGMI")
        + "\n"
    )
    assert main([str(CORPUS / "rccl_mi300x_1node_all_reduce.txt"), "--preset", "auto", "--topology", str(rocm)]) == 0
    assert "one node: the ceiling is 448 GB/s, set by each GPU's 7 links" in capsys.readouterr().out
    assert main([log, "--preset", "auto", "--topology", str(CORPUS / "SOURCES")]) == 2
    assert "no header line with GPU0 GPU1" in capsys.readouterr().err


def test_ci_gate_exit_codes(capsys):
    # A3 Mega, 8 x 200 Gb/s per node: the 8 GiB row's efficiency is 338.83 / 375 = 0.904, its busbw
    # 338.83 GB/s; the 1 GiB row's 297.86 / 375 = 0.794.
    log = [str(DATA / "a3mega_h100_2node_all_reduce.txt"), "--preset", "h100_nvswitch", "--network", "roce_8x200"]
    assert main(log + ["--fail-below", "0.95"]) == 3
    assert (
        "gate: FAIL: the run: 1 of 1 gated rows fail; worst at 8589934592 bytes (line 60): efficiency 0.904 < 0.95"
        in (capsys.readouterr().out)
    )
    assert main(log + ["--fail-below", "0.85"]) == 0 and "gate: PASS" in capsys.readouterr().out
    assert main(log + ["--fail-below", "0.85", "--gate-from", str(2**30)]) == 3
    assert "worst at 1073741824 bytes" in capsys.readouterr().out
    # As nccl-tests' -b / -e take a size (binary suffixes, either case): 1G is 2**30, 8g is 2**33.
    assert main(log + ["--fail-below", "0.85", "--gate-from", "1G"]) == 3
    assert "worst at 1073741824 bytes" in capsys.readouterr().out
    assert main(log + ["--fail-below", "0.85", "--gate-from", "8g"]) == 0 and "gate: PASS" in capsys.readouterr().out
    # Binary, not decimal: 1025M = 1,074,790,400 bytes is past the 1 GiB row (2**30 = 1,073,741,824),
    # 1025 MB would not be; the 2 GiB row (busbw 318.40 / 375 = 0.849) is then the worst.
    assert main(log + ["--fail-below", "0.85", "--gate-from", "1025M"]) == 3
    assert "1 of 3 gated rows fail; worst at 2147483648 bytes" in capsys.readouterr().out
    assert main(log + ["--fail-below", "0.85", "--gate-from", "1X"]) == 2
    assert "argument --gate-from: '1X' is not a size" in capsys.readouterr().err
    assert main(log + ["--fail-below-busbw", "350", "--format", "json"]) == 3
    captured = capsys.readouterr()
    assert json.loads(captured.out)["runs"] and "busbw 338.83 GB/s < 350 GB/s" in captured.err
    assert main(log + ["--fail-below", "1.5"]) == 2 and "fail_below must be <= 1" in capsys.readouterr().err


def test_run_k_picks_one_run(capsys):
    egrep = str(CORPUS / "rccl_mi325x_egrep_rows_1_2_4_8_nodes.txt")
    assert main([egrep, "--preset", "mi300x_xgmi", "--run", "2", "--collective", "all_reduce"]) == 0
    out = capsys.readouterr().out
    assert "16 ranks" in out and "=== run" not in out
    assert main([egrep, "--preset", "mi300x_xgmi", "--run", "5", "--collective", "all_reduce"]) == 2
    assert "--run 5: " in (err := capsys.readouterr().err) and "holds 4 runs (1 to 4)" in err


def test_compare_across_collectives_runs_and_presets(capsys):
    # DGX-2 AllReduce against Reduce (same sizes; roots and operators differ): matched by size.
    before, after = str(DATA / "dgx2_v100_all_reduce.txt"), str(DATA / "dgx2_v100_reduce.txt")
    assert main(["compare", before, after, "--preset", "v100_nvlink2"]) == 0
    out = capsys.readouterr().out
    assert "all_reduce against reduce, matched by size" in out and "(no size appears in both logs)" not in out
    # Two kinds of hardware, one preset each; the K-th run of a file of several.
    egrep = str(CORPUS / "rccl_mi325x_egrep_rows_1_2_4_8_nodes.txt")
    mi355x = str(CORPUS / "rccl_mi355x_pollara_2node_all_reduce.txt")
    args = ["compare", egrep, mi355x, "--before-preset", "mi300x_xgmi", "--after-preset", "mi355x_xgmi"]
    assert (
        main(args + ["--collective", "all_reduce"]) == 2 and "pick one with --before-run K" in capsys.readouterr().err
    )
    assert main(args + ["--collective", "all_reduce", "--before-run", "2"]) == 0
    out = capsys.readouterr().out
    assert "bound before: preset mi300x_xgmi" in out and "bound after:  preset mi355x_xgmi" in out
