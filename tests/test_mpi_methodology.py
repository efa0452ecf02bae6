"""How ``ccb_helpers.mpi`` measures (issue #32): the OSU method, checked on a real launch, and the
comparison with ``mpi4py.bench pingpong`` (:mod:`ccb_helpers.mpi.agreement`).

No timing is asserted (a shared 2-core machine); what is checked is what was done: warm-up and
loop counts by size, separate buffers that carried the peer's bytes, the statistic, and that the
fitted α and β are physically sane.
"""

from __future__ import annotations

import json
import os
import statistics

import pytest

import ccb_helpers as ccb
from ccb_helpers.mpi import mpiexec_command, oversubscription_settings, run_with_timeout
from ccb_helpers.mpi._runner import collective_counts, pingpong_iterations, pingpong_warmup

TIMEOUT = 240  # s per mpiexec launch on this loaded machine; a hang fails, never blocks


def _launch(n, tmp_path, *arguments):
    out = tmp_path / "result.json"
    env = {**os.environ, **oversubscription_settings(n)}
    done = run_with_timeout(mpiexec_command(n, *arguments, "--json", str(out)), TIMEOUT, env)
    assert not done.timed_out, f"mpiexec -n {n} {' '.join(arguments)} hung for {TIMEOUT} s: {done.stderr[-2000:]}"
    # Exit code 1 with "no alpha-beta fit": the machine's load left the times flat; the result is written.
    failed_fit = done.returncode == 1 and "no alpha-beta fit" in done.stderr
    assert done.returncode == 0 or failed_fit, done.stderr[-2000:]
    return json.loads(out.read_text())


def test_loop_counts_follow_mpi4py_bench_and_osu():
    # mpi4py.bench pingpong: 10000 timed round trips after 100 up to 16 KiB, 1000 after 10 up to
    # 1 MiB, 10 after 1 above; the book's default 10 samples give the same totals.
    for size, total, skip in [
        (0, 10000, 100),
        (16384, 10000, 100),
        (16385, 1000, 10),
        (2**20, 1000, 10),
        (2**20 + 1, 10, 2),
    ]:
        assert 10 * pingpong_iterations(size) == total and pingpong_warmup(size) == skip
    # OSU collectives: 10x the iterations and warm-ups up to 8 KiB.
    assert collective_counts(8192, 3, 2) == (30, 20) and collective_counts(8193, 3, 2) == (3, 2)


def test_pingpong_reports_its_method_and_a_sane_fit(tmp_path):
    # Three ranks: rank 2 sleeps while 0 and 1 ping-pong on their own communicator.
    sizes = [0, 1024, 16384, 65536, 2**20, 2**21]
    p = _launch(3, tmp_path, "pingpong", "--sizes", ",".join(map(str, sizes)), "--repeats", "3")
    assert p["sizes"] == sizes and p["repeats"] == 3
    assert p["iterations"] == [1000, 1000, 1000, 100, 100, 1]
    assert p["warmup_iterations"] == [100, 100, 100, 10, 10, 2]
    assert p["buffers"].startswith("separate send and receive buffers") and p["barrier"] == "per size"
    # Rank 0 ended with rank 1's bytes in its receive buffer and rank 1 with rank 0's: the
    # buffers are separate (a shared one would hold the rank's own bytes after its send).
    assert p["received_ok"] is True
    # The statistic is the mean over all timed round trips: equal samples, so the mean of the samples.
    assert "mean" in p["statistic"]
    for samples, mean, median, (low, high) in zip(p["samples_s"], p["times_s"], p["median_times_s"], p["min_max_s"]):
        assert len(samples) == 3
        assert mean == pytest.approx(statistics.fmean(samples), rel=1e-12)
        assert median == statistics.median(samples) and (low, high) == (min(samples), max(samples))
    # Physics no load can break: 2 MiB cannot cross in less than 2 MiB / (1 TB/s) = 2.1 µs.
    assert all(t > 0 for t in p["times_s"]) and p["times_s"][-1] > 2**21 / 1e12
    # The fit is the library's fit of the reported times (or, if the load left them flat, its refusal).
    try:
        fit = ccb.mpi.fit_alpha_beta(p["sizes"], p["times_s"])
    except ValueError as error:
        assert p["alpha_s"] is None and p["fit_error"] == str(error)
        return
    assert (fit.alpha_s, fit.beta_Bps) == (p["alpha_s"], p["beta_Bps"])
    # Sane for two processes on one machine: α below 5 ms (idle ≈ 2 µs; this shared machine's load
    # has pushed the mean to ≈ 0.4 ms), β between 10 MB/s and 10 TB/s.
    assert 0 <= p["alpha_s"] < 5e-3 and 1e7 < p["beta_Bps"] < 1e13


def test_pingpong_allocates_per_size_and_records_huge_pages(tmp_path):
    # Each size gets its own numpy.empty(size) buffers (as mpi4py.bench), so its pages are what numpy
    # gives any array of that size: under THP "madvise" numpy advises huge pages from 4 MiB only
    # (numpy's alloc.c, 1 << 22). Slices of one 8 MiB buffer — the old ping-pong — put the 3 MiB
    # message partly on the big buffer's huge pages; an array of its own has none.
    sizes = [16384, 3 * 2**20, 8 * 2**20]
    p = _launch(2, tmp_path, "pingpong", "--sizes", ",".join(map(str, sizes)), "--repeats", "1")
    assert "per size" in p["buffers"] and "numpy.empty(size)" in p["buffers"]
    huge = p["huge_page_bytes"]
    assert len(huge) == len(sizes)
    for size, pair in zip(sizes, huge):
        assert len(pair) == 2 and all(0 <= b <= size for b in pair), (size, pair)
    if p["thp_mode"] == "never":
        assert huge == [[0, 0]] * 3
    elif p["thp_mode"] == "madvise" and p["numpy_hugepage_advice"]:
        assert huge[0] == [0, 0] and huge[1] == [0, 0], huge
        # An 8 MiB mapping holds at least three whole 2 MiB frames; numpy advised them and they were written.
        assert all(b >= 3 * 2**21 for b in huge[2]), f"no huge pages at 8 MiB (memory fragmented?): {huge}"


def test_collective_timing_reports_osu_summary_and_counts(tmp_path):
    s = _launch(
        2,
        tmp_path,
        "sweep",
        "--pairs",
        "ring:all_reduce",
        "--sizes",
        "1KiB,64KiB",
        "--repeats",
        "3",
        "--warmup",
        "1",
        "--alpha",
        "1e-6",
        "--beta",
        "1e9",
    )
    small, large = s["runs"]
    assert (small["repeats"], small["warmup"], len(small["times_s"])) == (30, 10, 30)
    assert (large["repeats"], large["warmup"], len(large["times_s"])) == (3, 1, 3)
    for run in (small, large):
        for prefix in ("", "library_"):
            top, avg, low = (run[f"{prefix}rank_mean_{k}_s"] for k in ("max", "avg", "min"))
            # Mean over runs of the slowest rank >= slowest rank's mean >= average >= fastest rank's mean.
            assert statistics.fmean(run[f"{prefix}times_s"]) >= top * (1 - 1e-12) and top >= avg >= low > 0


# --------------------------------------------------------------------------- mpi4py.bench output and the table

BENCH = """# MPI PingPong Test
# Size [B]  Bandwidth [MB/s] | Time Mean [s] \u00b1 StdDev [s]  Samples
     16384           1288.65 | 1.2714100e-05 \u00b1 1.1115e-04    10000
     32768           1489.18 | 2.2004100e-05 \u00b1 1.6944e-04     1000
"""


def test_read_mpi4py_pingpong():
    r = ccb.mpi.read_mpi4py_pingpong(BENCH)
    assert r == {
        "sizes": [16384, 32768],
        "times_s": [1.27141e-05, 2.20041e-05],
        "stdev_s": [1.1115e-04, 1.6944e-04],
        "samples": [10000, 1000],
    }
    # With --no-stats only the bandwidth in MB/s is printed: 16384 B / (1288.65e6 B/s) = 12.714 µs.
    bare = ccb.mpi.read_mpi4py_pingpong("     16384           1288.65\n")
    assert bare["times_s"][0] == pytest.approx(16384 / 1288.65e6, rel=1e-12) and bare["samples"] == [None]


@pytest.mark.parametrize(
    "text, error, words",
    [
        ("", ValueError, "no rows"),
        ("# only a header\n", ValueError, "no rows"),
        ("16384 lots | x\n", ValueError, "line 1 is not a row"),
        ("     0              0.00\n", ValueError, "no time"),
        (b"16384 1.0", TypeError, "must be a str"),
        ("1 1\n" * 400_000, ValueError, "cap"),
    ],
)
def test_read_mpi4py_pingpong_rejects(text, error, words):
    with pytest.raises(error, match=words):
        ccb.mpi.read_mpi4py_pingpong(text)


def test_agreement_table_by_hand():
    # Three rounds at 1 MiB: book 100, 130, 90 µs (median 100), benchmark 80, 100, 100 µs (median 100):
    # ratio 1.0; per round 1.25, 1.3, 0.9. 2 MiB is missing from one benchmark round: left out.
    book = [
        {"sizes": [2**20, 2**21], "times_s": [100e-6, 200e-6]},
        {"sizes": [2**20, 2**21], "times_s": [130e-6, 200e-6]},
        {"sizes": [2**20, 2**21], "times_s": [90e-6, 200e-6]},
    ]
    bench = [
        {"sizes": [2**20, 2**21], "times_s": [80e-6, 1e-4]},
        {"sizes": [2**20], "times_s": [100e-6]},
        {"sizes": [2**20, 2**21], "times_s": [100e-6, 1e-4]},
    ]
    (row,) = ccb.mpi.pingpong_agreement(book, bench)
    assert row.size == 2**20 and row.book_s == pytest.approx(100e-6) and row.bench_s == pytest.approx(100e-6)
    assert row.ratio == pytest.approx(1.0) and (row.ratio_min, row.ratio_max) == (
        pytest.approx(0.9),
        pytest.approx(1.3),
    )
    assert ccb.mpi.pingpong_agreement(book, bench, min_size=2**20 + 1) == []


@pytest.mark.parametrize(
    "book, bench, error, words",
    [
        ([], [], ValueError, "same number of rounds"),
        ([{"sizes": [1], "times_s": [1.0]}], [], ValueError, "same number of rounds"),
        ({"sizes": [1]}, [], TypeError, "lists of rounds"),
        ([{"sizes": [1]}], [{"sizes": [1], "times_s": [1.0]}], ValueError, "book_rounds\\[0\\] must be a dict"),
        ([{"sizes": [1], "times_s": [0.0]}], [{"sizes": [1], "times_s": [1.0]}], ValueError, "finite number > 0"),
        ([{"sizes": [-1], "times_s": [1.0]}], [{"sizes": [1], "times_s": [1.0]}], ValueError, "size"),
        ([{"sizes": [1, 2], "times_s": [1.0]}], [{"sizes": [1], "times_s": [1.0]}], ValueError, "same length"),
    ],
)
def test_agreement_rejects(book, bench, error, words):
    with pytest.raises(error, match=words):
        ccb.mpi.pingpong_agreement(book, bench)


def test_shipped_comparison_loads():
    path = os.path.join(os.path.dirname(__file__), "..", "ccb_helpers", "data", "mpi", "pingpong_vs_mpi4py.json")
    record = json.loads(open(path, encoding="utf-8").read())
    rows = ccb.mpi.pingpong_agreement(record["book"], record["bench"])
    assert [row.size for row in rows] == [2**k for k in range(14, 25)]
    assert len(record["book"]) == record["rounds"] >= 3


def test_agreement_table_puts_the_verdict_second_and_adds_the_control():
    # One round: book 120 µs, mpi4py.bench 100 µs (1.20), the control 150 µs (0.80).
    record = {
        "book": [{"sizes": [2**20], "times_s": [120e-6]}],
        "bench": [{"sizes": [2**20], "times_s": [100e-6]}],
        "rounds": 1,
        "cores": 2,
        "load_average_before": [3.04, 2, 1],
    }
    table = ccb.mpi.pingpong_agreement_table(record)
    assert table.headers[1] == "本书 / mpi4py.bench"
    assert table.rows == [["1 MiB", "1.20", "120 µs", "100 µs", "1.20–1.20"]]
    assert "1 轮" in table.caption and "2 核" in table.caption and "3.0" in table.caption
    # With the control it is the reference (verdict second); the stock benchmark's ratio moves last.
    record["bench_written"] = [{"sizes": [2**20], "times_s": [150e-6]}]
    table = ccb.mpi.pingpong_agreement_table(record)
    assert table.headers[1] == "本书 / 对照" and table.headers[-1] == "本书 / mpi4py.bench"
    assert table.rows == [["1 MiB", "0.80", "120 µs", "150 µs", "0.80–0.80", "1.20"]]
    record["round_load_averages"] = [1.25, 2.5]
    assert "各轮开始时 1 分钟平均负载 1.2–2.5" in ccb.mpi.pingpong_agreement_table(record).caption
    record.update(mode="one-job", round_load_averages=[1.5])
    caption = ccb.mpi.pingpong_agreement_table(record).caption
    assert "同一个 mpiexec 作业" in caption and "开始时 1 分钟平均负载 1.5" in caption
    record["load_average_after"] = [2.25, 1, 1]
    assert "开始与结束时 1 分钟平均负载 1.5 与 2.2" in ccb.mpi.pingpong_agreement_table(record).caption
    with pytest.raises(ValueError, match="'book' and 'bench'"):
        ccb.mpi.pingpong_agreement_table({"book": []})


def test_agreement_summary_counts_sizes_within_the_tolerance():
    # Ratios 0.85, 1.0, 1.15 are within 15 % (the bounds included); 1.16 is not.
    rows = [ccb.mpi.AgreementRow(2**k, 1.0, 1.0, r, r, r) for k, r in ((14, 0.85), (15, 1.0), (16, 1.15))]
    assert ccb.mpi.pingpong_agreement_summary(rows) == (3, 3, 0.85, 1.15, 0.15, True)
    rows.append(ccb.mpi.AgreementRow(2**17, 1.0, 1.0, 1.16, 1.16, 1.16))
    summary = ccb.mpi.pingpong_agreement_summary(rows)
    assert (summary.within, summary.total, summary.high, summary.met) == (3, 4, 1.16, False)
    assert ccb.mpi.pingpong_agreement_summary(rows, tolerance=0.2).met
    with pytest.raises(TypeError, match="rows must be a non-empty list"):
        ccb.mpi.pingpong_agreement_summary([])
    with pytest.raises(ValueError, match="tolerance must be"):
        ccb.mpi.pingpong_agreement_summary(rows, tolerance=1.5)


# --------------------------------------------------------------------------- the command line's own output


def test_without_mpiexec_it_says_the_command_to_use():
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI", "SLURM_", "OMPI_", "HYDRA"))}
    done = run_with_timeout(
        [
            sys.executable,
            "-m",
            "ccb_helpers.mpi",
            "run",
            "--algorithm",
            "ring",
            "--primitive",
            "all_reduce",
            "--size",
            "1KiB",
        ],
        TIMEOUT,
        env,
    )
    assert done.returncode == 2, done.stderr
    assert "started without mpiexec" in done.stderr
    assert (
        "mpiexec -n 4 " in done.stderr
        and "-m ccb_helpers.mpi run --algorithm ring --primitive all_reduce --size 1KiB" in done.stderr
    )


def test_pingpong_prints_a_table_without_json():
    # Exit code 1 only if the machine's load left the two times flat (no fit); the table is printed anyway.
    env = {**os.environ, **oversubscription_settings(2)}
    done = run_with_timeout(mpiexec_command(2, "pingpong", "--sizes", "0,16MiB", "--repeats", "2"), TIMEOUT, env)
    assert done.returncode == 0 or "no alpha-beta fit" in done.stderr, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[1].startswith("# load on ")  # the machine's load under the title (#41)
    del lines[1]
    assert lines[0].startswith("# ccb_helpers.mpi pingpong, N = 2") and "time(us)" in lines[1]
    assert [line.split()[0] for line in lines[2:]] == ["0", "16"] and lines[3].split()[1] == "MiB"
    done = run_with_timeout(
        mpiexec_command(2, "pingpong", "--sizes", "0,16MiB", "--repeats", "2", "--json", "-"), TIMEOUT, env
    )
    assert json.loads(done.stdout)["sizes"] == [0, 2**24]


def test_report_of_a_sweep_by_hand():
    from ccb_helpers.mpi.report import format_report, report_warnings

    run = {
        "algorithm": "ring",
        "primitive": "all_reduce",
        "n": 4,
        "m": 4 * 10**6,
        "ports": 1,
        "correct": True,
        "times_s": [0.012],
        "median_s": 0.012,
        "library_median_s": 0.01,
        "library_correct": True,
        "rank_mean_avg_s": 0.011,
        "rank_mean_min_s": 0.0105,
        "rank_mean_max_s": 0.0125,
    }
    sweep = {
        "command": "sweep",
        "n": 4,
        "runs": [run],
        "alpha_s": 1e-6,
        "beta_Bps": 1e9,
        "environment": {"oversubscribed": True, "cores_rank0_host": 2},
        "pingpong": {"residual": 0.1},
    }
    text = format_report(sweep)
    row = [line for line in text.splitlines() if not line.startswith(("#", "WARNING"))][0].split()
    # 4e6 B in 12 ms: algbw 0.333 GB/s, busbw 2 (N-1)/N = 1.5 times that = 0.5 GB/s; model 6 alpha + 1.5 M/beta
    # = 6006 µs, bound max(2 alpha, 1.5 M/beta) = 6000 µs, 12000 / 6000 = 2.00; the library 10000 µs.
    # OSU's avg / min / max of the ranks' mean times come after the median (#41).
    assert row == [
        "3.8",
        "MiB",
        "12000.00",
        "11000.00",
        "10500.00",
        "12500.00",
        "0.333",
        "0.500",
        "6006.00",
        "6000.00",
        "2.00",
        "10000.00",
    ]
    assert report_warnings(sweep) == [
        "WARNING: 4 ranks on 2 cores (oversubscribed): ranks wait to be scheduled, times include "
        "that wait; use at most one rank per core for timings"
    ]
    sweep["pingpong"]["residual"] = 0.3
    run["correct"] = False
    warnings = report_warnings(sweep)
    assert len(warnings) == 3 and "30%" in warnings[1] and "wrong result" in warnings[2]
    with pytest.raises(ValueError, match="result dict"):
        format_report({"command": "nope"})


# --------------------------------------------------------------------------- the machine's load (#41)


def _snapshot(wall, load, busy, processes):
    return {"wall": wall, "load_average": load, "busy_ticks": busy, "processes": processes}


def test_load_summary_separates_the_launch_from_other_processes_by_hand():
    from ccb_helpers.mpi._load import _clock_ticks, summarize_host

    hz = _clock_ticks()
    # 4 s on 2 cores. Ranks 10 and 11 used 3.2 CPU-s (their own clocks), the MPI proxy 9 used
    # 0.4 s, "stress" 20 used 2.0 s, "sshd" 21 0.04 s (0.01 cores: below the named threshold),
    # pid 30 was "cron" at the start and is "make" at the end (reused): all 1.0 s counts.
    # Busy: 3.2 + 0.4 + 2.0 + 0.04 + 1.0 = 6.64 CPU-s = 1.66 cores; the launch's 3.6 s = 0.9 cores;
    # outside 0.76 cores.
    start = _snapshot(
        100.0,
        [3.0, 2.0, 1.0],
        10_000,
        {9: ("hydra_pmi_proxy", 8, 5), 20: ("stress", 1, 70), 21: ("sshd", 1, 0), 30: ("cron", 1, 50)},
    )
    end = _snapshot(
        104.0,
        [3.5, 2.2, 1.1],
        10_000 + round(6.64 * hz),
        {
            9: ("hydra_pmi_proxy", 8, 5 + round(0.4 * hz)),
            10: ("python", 9, 999),
            11: ("python", 9, 999),
            20: ("stress", 1, 70 + round(2.0 * hz)),
            21: ("sshd", 1, round(0.04 * hz)),
            30: ("make", 1, round(1.0 * hz)),
        },
    )
    s = summarize_host(start, end, 3.2, rank_pids={10, 11}, helper_pids={9}, cores=2, host="n1", ranks=2)
    assert (s["busy_cores"], s["own_cores"], s["outside_cores"]) == (1.66, 0.9, 0.76)
    assert s["outside_processes"] == [
        {"pid": 20, "name": "stress", "cores": 0.5},
        {"pid": 30, "name": "make", "cores": 0.25},
    ]
    assert (s["load_average_start"], s["load_average_end"], s["elapsed_s"]) == ([3.0, 2.0, 1.0], [3.5, 2.2, 1.1], 4.0)
    # Without /proc (not Linux): the load averages and the launch's own CPU only.
    bare = summarize_host(
        _snapshot(0.0, [1.0, 1.0, 1.0], None, None),
        _snapshot(2.0, [1.0, 1.0, 1.0], None, None),
        1.0,
        {1},
        set(),
        2,
        "m",
        2,
    )
    assert (bare["busy_cores"], bare["outside_cores"], bare["own_cores"], bare["outside_processes"]) == (
        None,
        None,
        0.5,
        [],
    )


def _loaded(outside, processes=(), load=(2.4, 1.5, 1.0), cores=2, ranks=2):
    return {
        "host": "n1",
        "cores": cores,
        "ranks": ranks,
        "load_average_start": list(load),
        "load_average_end": [2.5, 1.6, 1.0],
        "busy_cores": None if outside is None else 2.0,
        "own_cores": 1.0,
        "outside_cores": outside,
        "outside_processes": [{"pid": p, "name": n, "cores": c} for p, n, c in processes],
    }


def test_report_names_the_outside_load():
    from ccb_helpers.mpi.report import format_report, report_warnings

    pingpong = {"command": "pingpong", "n": 2, "sizes": [0, 1000], "times_s": [1e-6, 2e-6], "alpha_s": None}
    busy = _loaded(1.0, [(20, "stress", 0.7), (31, "make", 0.2), (40, "cc1", 0.05), (41, "ld", 0.05)])
    lines = format_report({**pingpong, "load": [busy]}, warnings=False).splitlines()
    assert lines[1] == (
        "# load on n1 (2 cores, 2 ranks): load average 2.40 1.50 1.00 (1, 5, 15 min) at the start, 2.50 1.60 1.00 "
        "at the end; during the run 2.00 cores busy, 1.00 of them this launch's, other processes 1.00 (busiest: "
        "stress (pid 20, 0.70 cores), make (pid 31, 0.20 cores), cc1 (pid 40, 0.05 cores))"
    )
    assert "time(us)" in lines[2]
    assert report_warnings({**pingpong, "load": [busy]}) == [
        "WARNING: other processes used 1.00 of the 2 cores of n1 during the run (stress (pid 20, 0.70 cores), "
        "make (pid 31, 0.20 cores), cc1 (pid 40, 0.05 cores)), 1-minute load average 2.40 at the start: the times "
        "include waiting for a core, and alpha and beta measured now describe the machine under that load"
    ]
    assert report_warnings({**pingpong, "load": [_loaded(0.1)]}) == []  # a quiet machine: nothing to say
    # No CPU counters (not Linux): the load average before the launch tells, when it exceeds the free cores.
    assert (
        "n1 was busy before the launch, 1-minute load average 2.40"
        in report_warnings({**pingpong, "load": [_loaded(None)]})[0]
    )
    assert report_warnings({**pingpong, "load": [_loaded(None, load=(0.2, 0.2, 0.2))]}) == []


def test_a_launch_names_a_busy_process_beside_it(tmp_path):
    """The way #41 found it: α and β measured while something else runs. A busy loop started next
    to the ping-pong is named in the result's load, with its pid, and the report warns."""
    import subprocess
    import sys

    busy = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.time() + 120\nwhile time.time() < end:\n    pass"]
    )
    try:
        out = tmp_path / "result.json"
        env = {**os.environ, **oversubscription_settings(2)}
        command = mpiexec_command(2, "pingpong", "--sizes", "0,64KiB", "--repeats", "3", "--json", str(out))
        done = run_with_timeout(command, TIMEOUT, env)
    finally:
        busy.kill()
        busy.wait()
    assert done.returncode in (0, 1) and not done.timed_out, done.stderr[-2000:]
    (host,) = json.loads(out.read_text())["load"]
    assert host["cores"] == os.cpu_count() and host["ranks"] == 2 and len(host["load_average_start"]) == 3
    named = {p["pid"]: p for p in host["outside_processes"]}
    assert busy.pid in named and named[busy.pid]["cores"] > 0, host
    assert host["outside_cores"] >= named[busy.pid]["cores"] - 0.05, host  # tick rounding
    assert "WARNING: other processes used" in done.stderr, done.stderr
    assert done.stdout.splitlines()[1].startswith("# load on ")
