"""ccb_helpers.mpi: the α-β fit, the per-rank plan (against the simulator), the command line under mpiexec.

The tests that launch ``mpiexec`` kill the whole job after a timeout, so a stuck rank fails the
test instead of hanging CI. Runs are batched: one launch checks every algorithm x primitive pair
on communicators of 2, 3 and 4 ranks.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ccb_helpers as ccb
from ccb_helpers.algorithms import ALGORITHMS
from ccb_helpers.mpi import _args, _budget, _cli, mpiexec_command, oversubscription_settings, run_with_timeout
from ccb_helpers.mpi._plan import compile_rank_plan, run_loopback, scratch_bytes
from ccb_helpers.mpi._reference import compare, expected_regions, rank_input
from ccb_helpers.simulator import _apply

PAIRS = [(a, p) for a, models in ALGORITHMS.items() for p in models]
POWER_OF_TWO_ONLY = {("recursive_halving_doubling", "reduce_scatter"), ("recursive_doubling", "all_gather")}
TIMEOUT = 240  # s per mpiexec launch on this loaded 2-core machine; a hang fails, never blocks


# --------------------------------------------------------------------------- α-β fit


def test_fit_recovers_exact_alpha_beta():
    alpha, beta = 3e-6, 2.5e9
    sizes = [0] + [4**k for k in range(13)]
    times = [alpha + s / beta for s in sizes]
    fit = ccb.mpi.fit_alpha_beta(sizes, times)
    assert fit.alpha_s == pytest.approx(alpha, rel=1e-9)
    assert fit.beta_Bps == pytest.approx(beta, rel=1e-9)
    assert fit.residual < 1e-9


def test_fit_clamps_a_negative_alpha():
    # Through (1, 1) and (2, 3) the line is T = -1 + 2 M: alpha < 0. With alpha = 0 the relative
    # least squares gives gamma = sum(x/T) / sum(x²/T²) = (1 + 2/3) / (1 + 4/9) = 15/13, beta = 13/15.
    fit = ccb.mpi.fit_alpha_beta([1, 2], [1.0, 3.0])
    assert fit.alpha_s == 0.0
    assert fit.beta_Bps == pytest.approx(13 / 15, rel=1e-12)
    # Residuals (x gamma - T)/T: (15/13 - 1) = 2/13 and (30/13 - 3)/3 = -3/13; RMS = sqrt(13/2)/13.
    assert fit.residual == pytest.approx(np.sqrt(13 / 2) / 13, rel=1e-12)


def test_fit_weights_relative_errors():
    # One point 10 % slow: relative weighting keeps alpha from the small sizes and beta from the
    # large ones, each within a few per cent (plain least squares would let the 16 MiB point set alpha).
    sizes = np.array([0, 64, 1024, 2**16, 2**20, 2**24], dtype=float)
    times = 2e-6 + sizes / 1e9
    times[-1] *= 1.1
    fit = ccb.mpi.fit_alpha_beta(sizes, times)
    assert fit.alpha_s == pytest.approx(2e-6, rel=0.05)
    assert fit.beta_Bps == pytest.approx(1e9, rel=0.1)


@pytest.mark.parametrize(
    "sizes, times, error, words",
    [
        ([1024], [1e-6], ValueError, "two distinct"),
        ([1, 1], [1e-6, 2e-6], ValueError, "two distinct"),
        ([0, 1], [1e-6], ValueError, "same length"),
        ([0, 1], [1e-6, -1.0], ValueError, "times must be > 0"),
        ([0, -5], [1e-6, 2e-6], ValueError, "sizes must be >= 0"),
        ([0, 1000, 2000], [3e-6, 2e-6, 1e-6], ValueError, "do not grow"),
        ("0,1", [1e-6, 2e-6], TypeError, "lists or arrays"),
        ([0, "a"], [1e-6, 2e-6], TypeError, "sizes"),
    ],
)
def test_fit_rejects_bad_input(sizes, times, error, words):
    with pytest.raises(error, match=words):
        ccb.mpi.fit_alpha_beta(sizes, times)


# --------------------------------------------------------------------------- plans: same bytes as the simulator


def _simulated_final(schedule, inputs):
    """Every buffer of every node after the simulator's ``_apply`` of all rounds (the reference semantics)."""
    bufs = [np.stack([inputs[r][b] for r in range(schedule.n)]) for b in range(len(schedule.buffers))]
    for r in (schedule.prologue, *schedule.rounds, schedule.epilogue):
        _apply(r, bufs)
    return bufs


@st.composite
def cases(draw):
    algorithm, primitive = draw(st.sampled_from(PAIRS))
    model = ALGORITHMS[algorithm][primitive]
    n = draw(st.integers(1, 9))
    if model.power_of_two:
        n = 1 << (n.bit_length() - 1)
    m = draw(st.integers(0, 300))
    if primitive == "all_to_all":
        m -= m % n
    root = draw(st.integers(0, n - 1)) if primitive in ccb.ROOTED_PRIMITIVES else 0
    ports = draw(st.integers(model.min_ports, 3)) if algorithm == "binomial_tree" else model.min_ports
    chunks = draw(st.integers(1, 5)) if algorithm == "double_binary_tree" else None
    return algorithm, primitive, n, m, root, ports, chunks


@given(cases(), st.integers(0, 2**32))
def test_rank_plans_leave_the_simulators_bytes_everywhere(case, seed):
    """All ranks' plans run in-process (messages copied) end with exactly the simulator's buffers.

    Every byte of every buffer is compared — also regions the primitive leaves undefined — so
    packing, direct receives, scratch reuse and unpacking are checked against an independent
    implementation of the same round semantics; the primitive's result is then checked against
    the reference computed from the inputs.
    """
    algorithm, primitive, n, m, root, ports, chunks = case
    schedule = ccb.generate(algorithm, primitive, n, m, ports=ports, root=root, chunks=chunks)
    inputs = [[rank_input(seed, r, name, m) for name in schedule.buffers] for r in range(n)]
    reference = _simulated_final(schedule, inputs)
    bufs = [[b.copy() for b in per_rank] for per_rank in inputs]
    plans = [compile_rank_plan(schedule, r, bufs[r]) for r in range(n)]
    # The memory estimate's scratch (computed over empty buffers) is what the plan allocates.
    assert [scratch_bytes(schedule, r) for r in range(n)] == [plan.scratch_bytes for plan in plans]
    run_loopback(plans)
    for r in range(n):
        for b, name in enumerate(schedule.buffers):
            assert np.array_equal(bufs[r][b], reference[b][r]), f"rank {r} buffer {name}"
        errors = compare(expected_regions(primitive, n, m, root, r, seed), dict(zip(schedule.buffers, bufs[r])))
        assert not errors, errors


def test_plan_sends_single_pieces_without_copying():
    # Ring AllGather on 4 ranks: every round sends one block straight from the buffer and
    # receives one straight into place (no scratch); ring AllReduce needs scratch for the adds.
    data = [np.zeros(16, dtype=np.uint8)]
    gather = compile_rank_plan(ccb.generate("ring", "all_gather", 4, 16), 0, data)
    assert gather.scratch_bytes == 0
    assert all(np.shares_memory(buf, data[0]) for r in gather.rounds for _, buf in r.sends + r.recvs)
    reduce = compile_rank_plan(ccb.generate("ring", "all_reduce", 4, 16), 0, data)
    assert reduce.scratch_bytes == 4  # one 4-byte block received per reduce-scatter round


def test_expected_regions_by_hand():
    a, b = rank_input(5, 0, "data", 3), rank_input(5, 1, "data", 3)
    ((name, region, want, _),) = expected_regions("all_reduce", 2, 3, 0, 1, 5)
    assert (name, region) == ("data", slice(0, 3))
    assert want.tolist() == [(int(x) + int(y)) % 256 for x, y in zip(a, b)]
    # AllToAll on 2 ranks, M = 4: rank 1 receives rank 0's block 1 (bytes 2..3) into its block 0.
    regions = expected_regions("all_to_all", 2, 4, 0, 1, 5)
    assert regions[0][1] == slice(0, 2)
    assert regions[0][2].tolist() == rank_input(5, 0, "send", 4)[2:4].tolist()


# --------------------------------------------------------------------------- command line, checked before MPI starts


@pytest.mark.parametrize(
    "argv, words",
    [
        (["run", "--algorithm", "nope", "--primitive", "all_reduce", "--size", "1KiB"], "unknown algorithm 'nope'"),
        (
            ["run", "--algorithm", "ring", "--primitive", "broadcast", "--size", "1KiB"],
            "does not implement 'broadcast'",
        ),
        (["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "12XB"], "not a byte count"),
        (["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "2GiB"], "over the cap"),
        (
            ["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "2TiB"],
            "2199023255552 bytes is over the cap",
        ),
        (
            ["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "8", "--alpha", "1e-6"],
            "both --alpha and --beta",
        ),
        (
            ["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "8", "--repeats", "0"],
            "--repeats must be between",
        ),
        (["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "8", "--root", "1"], "only to rooted"),
        (
            ["run", "--algorithm", "bidirectional_ring", "--primitive", "all_gather", "--size", "8", "--ports", "1"],
            "--ports >= 2",
        ),
        (
            ["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "8", "--chunks", "2"],
            "only to double_binary_tree",
        ),
        (["sweep", "--pairs", "ring", "--sizes", "8"], "not algorithm:primitive"),
        (["selftest", "--ns", "0"], "rank counts >= 1"),
        # One distinct size cannot separate alpha from beta: refused before the launch (#42).
        (["pingpong", "--sizes", "0"], "--sizes needs at least two different sizes"),
        (["pingpong", "--sizes", "4KiB,4096"], "--sizes needs at least two different sizes"),
        (["sweep", "--pairs", "ring:all_reduce", "--sizes", "8", "--pingpong-sizes", "1MiB"], "--pingpong-sizes needs"),
        (
            ["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "1.0000000000000001KiB"],
            "is not a whole number of bytes (1024.0000000000001024 bytes)",
        ),
        (["frobnicate"], "invalid choice"),
        (["run", "--algorithm", "ring"], "required"),
    ],
)
def test_bad_input_fails_before_mpi_in_one_line(argv, words, capsys):
    assert _cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ccb_helpers.mpi: error: "), err
    assert words in err
    assert "mpi4py.MPI" not in sys.modules  # phase 1 never starts MPI


def test_a_failed_fit_is_reported_not_raised():
    # Flat times (a very noisy machine) give no positive beta: the result says so instead of crashing the job.
    out = _cli._fit_or_none({"sizes": [0, 1000, 2000], "times_s": [3e-6, 2e-6, 1e-6]})
    assert out["alpha_s"] is None and out["beta_Bps"] is None and "do not grow" in out["fit_error"]
    assert _cli._fit_or_none({"sizes": [0, 10**6], "times_s": [1e-6, 1e-6 + 1e-3]})["beta_Bps"] == pytest.approx(1e9)


def test_parse_size():
    assert _args.parse_size("16MiB") == 16 * 2**20
    assert _args.parse_size("1MB") == 10**6
    assert _args.parse_size("0") == 0
    assert _args.parse_size("1.5KiB") == 1536
    assert _args.parse_size("0.0009765625MiB") == 1024  # 2**-10 MiB exactly
    # "Whole number of bytes" in exact arithmetic: 1.0000000000000001 KiB is 1024.0000000000001
    # bytes, which float64 rounds to 1024 (#42).
    for bad in ("", "1.3B", "-1", "MiB", "1e3", "1.0000000000000001KiB", "0.1", "1.000000000000000000001GiB"):
        with pytest.raises(_args.InputError):
            _args.parse_size(bad)


def test_memory_limit_and_traffic_are_checked():
    argv = ["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "1GiB"]
    assert _args.parse_static(argv + ["--memory-limit", "3GiB"])["memory_limit"] == 3 * 2**30
    with pytest.raises(_args.InputError, match="--memory-limit: size 'lots' is not a byte count"):
        _args.parse_static(argv + ["--memory-limit", "lots"])
    # 1 GiB ring AllReduce on 4 ranks sends 1.5 GiB per run (2 (N-1)/N M); with the library's
    # runs too, 10000 repeats + 2 warm-ups send 2 * 10002 * 1.5 GiB = 30006 GiB > 1 TiB.
    config = _args.parse_static(argv + ["--repeats", "10000", "--alpha", "1e-6", "--beta", "1e9"])
    with pytest.raises(
        _args.InputError, match=r"about 32218697170944 bytes per rank, more than the cap of 1099511627776"
    ):
        _budget._check_traffic(config, 4)
    config = _args.parse_static(argv + ["--repeats", "300", "--alpha", "1e-6", "--beta", "1e9"])
    _budget._check_traffic(config, 4)  # 2 * 302 * 1.5 GiB = 906 GiB: under the cap
    # A 1 GiB ping-pong (and 0 bytes, which sends none): 2 warm-up round trips, then one per sample: 1000 samples send 1002 GiB (under),
    # 1100 send 1102 GiB (over).
    _budget._check_traffic(_args.parse_static(["pingpong", "--sizes", "0,1GiB", "--repeats", "1000"]), 2)
    with pytest.raises(_args.InputError, match="per rank, more than the cap"):
        _budget._check_traffic(_args.parse_static(["pingpong", "--sizes", "0,1GiB", "--repeats", "1100"]), 2)


def test_rank_memory_estimate_by_hand():
    case = _args._case("bruck", "all_to_all", 12 * 2**20, None, 0, None)
    # Bruck AllToAll has 3 buffers (send, recv, work): (2 * 3 + 3) M = 9 M, plus the scratch of its rank.
    schedule = ccb.generate("bruck", "all_to_all", 4, 12 * 2**20)
    assert _budget.case_rank_bytes(case, 4, 1) == 9 * 12 * 2**20 + scratch_bytes(schedule, 1)
    # Recursive doubling AllReduce on 4 ranks receives the whole M in a round into scratch: 5 M + M.
    case = _args._case("recursive_doubling", "all_reduce", 2**20, None, 0, None)
    assert _budget.case_rank_bytes(case, 4, 0) == 6 * 2**20
    # A sweep's need is its largest case plus the ranks' baseline; ranks 0 and 1 also hold the ping-pong's
    # send and receive buffers, 2 x 4 MiB for the quick ping-pong's largest size.
    config = _args.parse_static(["sweep", "--pairs", "recursive_doubling:all_reduce", "--sizes", "1KiB,1MiB"])
    assert _budget._rank_needs(config, 4, 2) == _budget.RANK_BASELINE_BYTES + 6 * 2**20
    assert _budget._rank_needs(config, 4, 0) == _budget.RANK_BASELINE_BYTES + 8 * 2**20  # 2 x 4 MiB ping-pong > 6 MiB
    assert _budget.available_memory() is None or _budget.available_memory() > 0


def test_pairwise_all_to_all_refuses_unequal_blocks():
    # Rank i's block j (M/N bytes) lands in rank j's block i: with M = 7 on 4 ranks the blocks are
    # 1, 2, 2, 2 bytes and block 0 of rank 1 cannot hold rank 0's 2-byte block 1. It used to run and
    # report a wrong result (4, 7) or crash inside the result check (3, 10).
    for n, m in ((4, 7), (3, 10)):
        with pytest.raises(ValueError, match=f"needs m divisible by n .*m={m}, n={n}"):
            ccb.simulate("pairwise", "all_to_all", n, m)
    assert ccb.simulate("pairwise", "all_to_all", 4, 8).correct


def test_import_is_lazy_about_figures():
    """Every MPI rank imports ccb_helpers: matplotlib and ipywidgets load only when a figure is asked
    for, and networkx (topologies) not at all on a rank."""
    code = (
        "import sys\n"
        "import ccb_helpers.mpi._cli, ccb_helpers.mpi._runner, ccb_helpers.mpi.report\n"  # what a rank runs
        "heavy = [m for m in ('matplotlib', 'ipywidgets', 'networkx') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "import ccb_helpers as ccb\n"
        "heavy = [m for m in ('matplotlib', 'ipywidgets') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "from ccb_helpers import MPIResultExplorer, plot_info_steps\n"
        "assert ccb.plot_pingpong is ccb.mpi.plot_pingpong is ccb.mpi.plots.plot_pingpong\n"
        "assert 'matplotlib' in sys.modules and ccb.nccl_figures.__name__ == 'ccb_helpers.nccl_figures'\n"
        "missing = [n for n in ccb.__all__ if not hasattr(ccb, n)]\n"
        "missing += [f'mpi.{n}' for n in ccb.mpi.__all__ if not hasattr(ccb.mpi, n)]\n"
        "assert not missing, missing\n"
        "assert 'plot_mpi_runs' in dir(ccb) and 'plot_pingpong' in dir(ccb.mpi)\n"
    )
    done = run_with_timeout([sys.executable, "-c", code], 120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 8])
def test_selftest_covers_every_pair_that_runs_on_n(n):
    cases_n, skipped = _budget.selftest_cases(n)
    covered = {(c["algorithm"], c["primitive"]) for c in cases_n}
    power_of_two = n & (n - 1) == 0
    assert covered == {p for p in PAIRS if power_of_two or p not in POWER_OF_TWO_ONLY}
    assert {(s["algorithm"], s["primitive"]) for s in skipped} == (set() if power_of_two else POWER_OF_TWO_ONLY)
    rooted = [c for c in cases_n if c["primitive"] in ccb.ROOTED_PRIMITIVES]
    assert {c["root"] for c in rooted} == {0, n - 1}
    assert all(c["m"] % n == 0 for c in cases_n if c["primitive"] == "all_to_all")


# --------------------------------------------------------------------------- launching helpers


def test_mpiexec_comes_from_the_environment():
    command = mpiexec_command(3, "selftest")
    assert command[0] == os.path.join(os.path.dirname(sys.executable), "mpiexec")
    assert command[1:3] == ["-n", "3"] and command[3] == sys.executable


def test_oversubscription_settings():
    cores = os.cpu_count()
    assert oversubscription_settings(cores) == {}
    assert oversubscription_settings(cores + 1) == {"MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1"}


@pytest.mark.parametrize(
    "arguments, kwargs, error",
    [
        ("pingpong", {}, TypeError),
        (["pingpong", "--json", "x"], {}, ValueError),
        (["pingpong"], {"n": 0}, ValueError),
        (["pingpong"], {"n": 2.0}, TypeError),
        (["pingpong"], {"timeout": 0}, ValueError),
        (["pingpong"], {"timeout": 1e6}, ValueError),
        (["pingpong", 3], {}, TypeError),
    ],
)
def test_launch_validates(arguments, kwargs, error):
    with pytest.raises(error):
        ccb.mpi.launch(arguments, **kwargs)


def _mpi(n, *arguments, timeout=TIMEOUT, json_path=None):
    """Run the command line under mpiexec; returns (exit code, stderr, parsed JSON or None)."""
    args = list(arguments) + (["--json", str(json_path)] if json_path else [])
    env = {**os.environ, **oversubscription_settings(n)}
    done = run_with_timeout(mpiexec_command(n, *args), timeout, env)
    assert not done.timed_out, (
        f"mpiexec -n {n} {' '.join(arguments)} hung for {timeout} s (killed): {done.stderr[-2000:]}"
    )
    result = json.loads(json_path.read_text()) if json_path and json_path.exists() else None
    return done.returncode, done.stderr, result


def test_a_stuck_rank_is_killed_not_waited_for():
    command = mpiexec_command(2)[:3] + [sys.executable, "-c", "import time; time.sleep(120)"]
    done = run_with_timeout(command, 1.0)  # the rank sleeps 120 s: killed after 1 s, not waited for
    assert done.timed_out and done.returncode == -signal.SIGKILL


# --------------------------------------------------------------------------- under mpiexec


def test_every_pair_is_correct_under_mpi_on_2_3_and_4_ranks(tmp_path):
    code, err, result = _mpi(4, "selftest", "--ns", "2,3,4", json_path=tmp_path / "selftest.json")
    assert code == 0, err
    assert result["ns"] == [2, 3, 4]
    for n in (2, 3, 4):
        mine = [c for c in result["cases"] if c["n"] == n]
        bad = [c for c in mine if not (c["correct"] and c["library_correct"])]
        assert not bad, bad[:3]
        covered = {(c["algorithm"], c["primitive"]) for c in mine}
        assert covered == {p for p in PAIRS if n != 3 or p not in POWER_OF_TWO_ONLY}
        # Sizes with empty and unequal blocks were run, and the library's own calls were checked.
        assert {0, 4099} <= {c["m"] for c in mine if c["primitive"] != "all_to_all"}
    assert {c["library_call"] for c in result["cases"]} >= {
        "Allreduce",
        "Allgatherv",
        "Reduce_scatter",
        "Bcast",
        "Reduce",
        "Scatterv",
        "Gatherv",
        "Alltoall",
        "Allgather",
        "Reduce_scatter_block",
    }
    assert result["all_correct"] is True


def test_run_writes_the_issue_fields_on_a_non_power_of_two(tmp_path):
    code, err, r = _mpi(
        3,
        "run",
        "--algorithm",
        "ring",
        "--primitive",
        "all_reduce",
        "--size",
        "4099",
        "--repeats",
        "4",
        "--alpha",
        "1e-6",
        "--beta",
        "1e9",
        json_path=tmp_path / "ring.json",
    )
    assert code == 0, err
    for field in (
        "algorithm",
        "primitive",
        "n",
        "m",
        "correct",
        "times_s",
        "median_s",
        "library_median_s",
        "model_s",
        "bound_s",
    ):
        assert field in r
    assert (r["algorithm"], r["primitive"], r["n"], r["m"], r["correct"], r["library_correct"]) == (
        "ring",
        "all_reduce",
        3,
        4099,
        True,
        True,
    )
    # 4099 bytes is a small message (<= 8 KiB, OSU's split): 10 x 4 timed runs after 10 x 2 warm-ups.
    assert (r["repeats"], r["warmup"]) == (40, 20)
    assert len(r["times_s"]) == 40 and r["median_s"] == statistics.median(r["times_s"])
    assert r["library_call"] == "Allreduce" and len(r["library_times_s"]) == 40
    # OSU's summary: each rank's mean, over the ranks. The mean over runs of the slowest rank is at
    # least the slowest rank's mean, which is at least the average and the fastest rank's mean.
    for prefix in ("", "library_"):
        top, avg, low = (r[f"{prefix}rank_mean_{s}_s"] for s in ("max", "avg", "min"))
        assert statistics.fmean(r[f"{prefix}times_s"]) >= top * (1 - 1e-12) and top >= avg >= low > 0
    # Ring AllReduce on 3 ranks: 2 (N - 1) = 4 rounds; the cost model's bandwidth term is
    # 2 (N-1)/N M / beta = 4/3 * 4099 ns (the schedule's blocks are 1366, 1366, 1367 bytes).
    assert r["rounds"] == 4
    assert r["model_s"] == pytest.approx(4 * 1e-6 + 4 * 4099 / 3 / 1e9, rel=1e-12)
    # Bound: max(ceil(log2 3) alpha, 2 (N-1)/N M / beta) = max(2 µs, 2 * 2/3 * 4099 ns).
    assert r["bound_s"] == pytest.approx(max(2e-6, 4 * 4099 / 3 / 1e9), rel=1e-12)
    assert r["alpha_beta_source"] == "given on the command line"
    assert r["environment"]["mpi_library"].startswith("MPICH")


def test_run_measures_alpha_beta_when_not_given(tmp_path):
    code, err, r = _mpi(
        2,
        "run",
        "--algorithm",
        "binomial_tree",
        "--primitive",
        "broadcast",
        "--root",
        "1",
        "--size",
        "64KiB",
        "--repeats",
        "3",
        json_path=tmp_path / "bcast.json",
    )
    assert code == 0, err
    assert r["correct"] and r["library_call"] == "Bcast" and r["root"] == 1
    assert r["alpha_beta_source"].startswith("measured")
    assert r["alpha_s"] >= 0 and r["beta_Bps"] > 0
    assert r["model_s"] == pytest.approx(r["alpha_s"] + 2**16 / r["beta_Bps"], rel=1e-12)  # 1 round of M
    assert r["pingpong"]["sizes"] == _args.QUICK_PINGPONG_SIZES


def test_pingpong_and_sweep(tmp_path):
    code, err, p = _mpi(2, "pingpong", "--sizes", "0,1KiB,64KiB,1MiB", "--repeats", "3", json_path=tmp_path / "pp.json")
    assert p["sizes"] == [0, 1024, 65536, 2**20] and len(p["times_s"]) == 4 and all(t > 0 for t in p["times_s"])
    if code == 1 and "no alpha-beta fit" in err:
        # Load can leave the four times flat (seen at load average 7): the command says so, exits 1,
        # and writes the result with the fit's refusal, as test_mpi_methodology's launches accept.
        with pytest.raises(ValueError) as refusal:
            ccb.mpi.fit_alpha_beta(p["sizes"], p["times_s"])
        assert p["alpha_s"] is None and p["beta_Bps"] is None and p["fit_error"] == str(refusal.value)
    else:
        assert code == 0, err
        assert p["alpha_s"] >= 0 and p["beta_Bps"] > 0 and p["residual"] >= 0
    code, err, s = _mpi(
        2,
        "sweep",
        "--pairs",
        "ring:all_gather,bruck:all_to_all",
        "--sizes",
        "64,4KiB",
        "--repeats",
        "2",
        "--alpha",
        "1e-6",
        "--beta",
        "1e9",
        json_path=tmp_path / "sweep.json",
    )
    assert code == 0, err
    assert [(r["algorithm"], r["m"]) for r in s["runs"]] == [
        ("ring", 64),
        ("ring", 4096),
        ("bruck", 64),
        ("bruck", 4096),
    ]
    assert s["all_correct"] and all(r["correct"] for r in s["runs"])
    loaded = ccb.load_mpi_result(tmp_path / "sweep.json")
    assert len(ccb.mpi_runs_table(loaded).rows) == 4


BAD = [
    (2, ["run", "--algorithm", "nope", "--primitive", "all_reduce", "--size", "8"], "unknown algorithm"),
    (2, ["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "lots"], "not a byte count"),
    (
        3,
        ["run", "--algorithm", "recursive_halving_doubling", "--primitive", "reduce_scatter", "--size", "96"],
        "power of two",
    ),
    (3, ["run", "--algorithm", "bruck", "--primitive", "all_to_all", "--size", "10"], "divisible by N"),
    (
        2,
        ["run", "--algorithm", "binomial_tree", "--primitive", "broadcast", "--size", "10", "--root", "5"],
        "not a rank",
    ),
    (1, ["pingpong"], "at least 2 ranks"),
    (2, ["pingpong", "--json", "/nonexistent-dir/x.json"], "does not exist"),
    (2, ["pingpong", "--json", os.path.dirname(__file__)], "it is a directory"),  # used to crash after the run
    # Refused before any buffer exists: 2 ranks x (128 MiB + 5 x 64 MiB + 32 MiB scratch, one M/2 block) = 960 MiB > 100 MiB.
    (
        2,
        ["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size", "64MiB", "--memory-limit", "100MiB"],
        "would need about 960 MiB",
    ),
]


def test_bad_input_exits_2_with_one_line_from_every_rank():
    def launch(case):
        n, argv, _ = case
        env = {**os.environ, **oversubscription_settings(n)}
        return run_with_timeout(mpiexec_command(n, *argv), TIMEOUT, env)

    with ThreadPoolExecutor(max_workers=3) as pool:
        outcomes = list(pool.map(launch, BAD))
    for (n, argv, words), done in zip(BAD, outcomes):
        assert not done.timed_out, argv
        assert done.returncode == 2, (argv, done.returncode, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == n, (argv, lines)
        assert all(line.startswith("ccb_helpers.mpi: error: ") and words in line for line in lines), lines
        assert sorted(line.rsplit("(rank ", 1)[1].split(" ")[0] for line in lines) == [str(r) for r in range(n)]


_FAULT = """
import sys
from mpi4py import MPI
from ccb_helpers.mpi import _cli, _runner

mode = sys.argv[1]
if mode == "raise":  # an unexpected exception on rank 1 only, in the middle of the timed runs
    execute = _runner._execute
    def _execute(comm, plan):
        if comm.rank == 1:
            raise RuntimeError("injected failure on rank 1")
        return execute(comm, plan)
    _runner._execute = _execute
else:  # rank 1 alone finds a wrong byte in the reference check
    compare = _runner.compare
    _runner.compare = lambda expected, bufs: compare(expected, bufs) + (["injected wrong byte"] if MPI.COMM_WORLD.rank == 1 else [])
sys.exit(_cli.main(sys.argv[2:]))
"""


def test_a_failure_on_one_rank_ends_the_whole_job(tmp_path):
    """An exception on one rank aborts every rank; a failed check on one rank is reported (exit 1), never a hang."""
    argv = [
        "run",
        "--algorithm",
        "ring",
        "--primitive",
        "all_reduce",
        "--size",
        "4KiB",
        "--repeats",
        "3",
        "--alpha",
        "1e-6",
        "--beta",
        "1e9",
    ]
    script = tmp_path / "fault.py"
    script.write_text(_FAULT)
    env = {**os.environ, **oversubscription_settings(3)}

    def launch(mode):
        command = mpiexec_command(3)[:3] + [
            sys.executable,
            str(script),
            mode,
            *argv,
            "--json",
            str(tmp_path / f"{mode}.json"),
        ]
        return run_with_timeout(command, TIMEOUT, env)

    with ThreadPoolExecutor(max_workers=2) as pool:
        raised, wrong = pool.map(launch, ["raise", "wrong"])
    assert not raised.timed_out and raised.returncode not in (0, 2), raised
    assert "injected failure on rank 1" in raised.stderr and "MPI_Abort" in raised.stderr
    assert not (tmp_path / "raise.json").exists()
    assert not wrong.timed_out and wrong.returncode == 1, wrong
    result = json.loads((tmp_path / "wrong.json").read_text())
    assert result["correct"] is False and result["errors"] == ["rank 1: injected wrong byte"]
    assert result["library_correct"] is False and result["library_errors"] == ["rank 1: injected wrong byte"]


_MEMORY = """
import json, sys, tracemalloc
from mpi4py import MPI
from ccb_helpers.algorithms import ALGORITHMS
from ccb_helpers.mpi import _args, _budget, _runner
from ccb_helpers.primitives import ROOTED_PRIMITIVES

comm, m = MPI.COMM_WORLD, int(sys.argv[1])
tracemalloc.start()
rows = []
for algorithm, models in ALGORITHMS.items():
    for primitive in models:
        case = _args._case(algorithm, primitive, m, None, comm.size - 1 if primitive in ROOTED_PRIMITIVES else 0, None)
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        _runner.run_case(comm, case, 1, 1, 0, None, None)
        rows.append((algorithm, primitive, comm.rank, tracemalloc.get_traced_memory()[1] - before,
                     _budget.case_rank_bytes(case, comm.size, comm.rank)))
rows = comm.gather(rows)
if comm.rank == 0:
    print(json.dumps([r for per_rank in rows for r in per_rank]))
"""


def test_memory_estimate_covers_what_a_rank_allocates(tmp_path):
    """The estimate checked before a launch (``case_rank_bytes``) against what ``run_case`` really allocates.

    tracemalloc counts every numpy buffer of the run (inputs, working copies, scratch, the reference
    and its temporaries; not MPICH's own); the peak may exceed the estimate only by the schedule's
    bookkeeping (index arrays, a few hundred bytes per transfer; 256 KiB here at M = 4 MiB).
    """
    script = tmp_path / "memory.py"
    script.write_text(_MEMORY)
    m = 4 * 2**20
    command = mpiexec_command(4)[:3] + [sys.executable, str(script), str(m)]
    done = run_with_timeout(command, TIMEOUT, {**os.environ, **oversubscription_settings(4)})
    assert done.returncode == 0 and not done.timed_out, done.stderr[-2000:]
    rows = json.loads(done.stdout)
    assert {(a, p) for a, p, *_ in rows} == set(PAIRS) and len(rows) == 4 * len(PAIRS)
    over = [(a, p, rank, peak / m, estimate / m) for a, p, rank, peak, estimate in rows if peak > estimate + 2**18]
    assert not over, over
    # The estimate is not loose either: for every pair some rank comes within 1.5 M of it.
    for pair in PAIRS:
        assert min(estimate - peak for a, p, _, peak, estimate in rows if (a, p) == pair) < 1.5 * m, pair


# --------------------------------------------------------------------------- results, plots, explorer (no MPI)


def _fake_sweep():
    """A sweep result written by hand: ring AllReduce and Bruck AllGather on 4 ranks, two sizes."""
    runs = []
    for algorithm, primitive, call in (("ring", "all_reduce", "Allreduce"), ("bruck", "all_gather", "Allgather")):
        for m, t in ((2**10, 1e-4), (2**20, 4e-3)):
            runs.append(
                {
                    "algorithm": algorithm,
                    "primitive": primitive,
                    "n": 4,
                    "m": m,
                    "ports": 1,
                    "correct": True,
                    "library_correct": True,
                    "times_s": [t, 2 * t, 3 * t],
                    "median_s": 2 * t,
                    "library_call": call,
                    "library_median_s": t,
                    "rounds": 6 if algorithm == "ring" else 2,
                }
            )
    return {"command": "sweep", "n": 4, "runs": runs, "alpha_s": 1e-5, "beta_Bps": 1e9}


def test_load_mpi_result_checks_files(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_fake_sweep()))
    assert len(ccb.load_mpi_result(good)["runs"]) == 4
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not JSON"):
        ccb.load_mpi_result(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="no such result file"):
        ccb.load_mpi_result(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="unknown MPI result command"):
        ccb.load_mpi_result({"command": "frobnicate"})
    broken = _fake_sweep()
    del broken["runs"][1]["median_s"]
    with pytest.raises(ValueError, match="run 1 of the result lacks field"):
        ccb.load_mpi_result(broken)
    with pytest.raises(TypeError):
        ccb.load_mpi_result(42)
    # The machine's load (#41): read back as written, refused by name when malformed.
    host = {"host": "n1", "cores": 2, "ranks": 2, "load_average_start": [1.0, 0.5, 0.2], "load_average_end": None}
    host |= {"busy_cores": 1.5, "own_cores": 1.0, "outside_cores": 0.5}
    host["outside_processes"] = [{"pid": 20, "name": "stress", "cores": 0.5}]
    assert ccb.load_mpi_result({**_fake_sweep(), "load": [host]})["load"] == [host]
    for bad, where in [
        ({**host, "cores": "2"}, "'cores'"),
        ({**host, "load_average_start": [1.0]}, "'load_average_start'"),
        ({**host, "outside_cores": float("nan")}, "'outside_cores'"),
        ({**host, "outside_processes": [{"pid": -1, "name": "x", "cores": 0.1}]}, "'outside_processes'\\[0\\] 'pid'"),
    ]:
        with pytest.raises(ValueError, match=rf"field 'load'\[0\] {where}"):
            ccb.load_mpi_result({**_fake_sweep(), "load": [bad]})


def test_example_result_file_loads_and_is_correct():
    example = ccb.load_mpi_result(
        os.path.join(os.path.dirname(__file__), "..", "ccb_helpers", "data", "mpi", "mpi_sweep_example.json")
    )
    assert example["command"] == "sweep" and example["n"] == 4 and example["all_correct"]
    assert {"ring", "recursive_halving_doubling", "recursive_doubling", "binomial_tree", "bruck"} <= {
        r["algorithm"] for r in example["runs"]
    }
    assert all(r["correct"] and r["library_correct"] for r in example["runs"])


def test_plot_mpi_runs_draws_measured_model_bound_and_library():
    import matplotlib.pyplot as plt

    sweep = _fake_sweep()
    axes = ccb.plot_mpi_runs(sweep)
    lines = axes[0].get_lines()
    measured, model, bound, library = (line.get_ydata() for line in lines[:4])
    assert list(measured) == [2e-4, 8e-3] and list(library) == [1e-4, 4e-3]
    # Ring AllReduce, N = 4, alpha = 10 µs, beta = 1 GB/s: model 6 α + 1.5 M/β, bound max(2 α, 1.5 M/β).
    assert model == pytest.approx([6e-5 + 1.5 * 1024 / 1e9, 6e-5 + 1.5 * 2**20 / 1e9])
    assert bound == pytest.approx([2e-5, 1.5 * 2**20 / 1e9])
    assert "Allreduce" in axes[0].get_title()
    plt.close("all")
    ratios = ccb.plot_mpi_ratios(sweep, alpha=1e-6, beta=2e9)
    assert ratios[0].get_lines()[0].get_ydata()[1] == pytest.approx(8e-3 / (1.5 * 2**20 / 2e9))
    assert ratios[1].get_lines()[0].get_ydata().tolist() == [2.0, 2.0]  # measured / library
    plt.close("all")
    with pytest.raises(ValueError, match="not in the result"):
        ccb.plot_mpi_runs(sweep, pairs=[("ring", "all_gather")])


def test_plot_pingpong_accepts_a_sweep_that_measured_alpha_beta():
    import matplotlib.pyplot as plt

    sweep = _fake_sweep()
    with pytest.raises(ValueError, match="without a ping-pong"):
        ccb.plot_pingpong(sweep)
    sizes = [0, 1024, 2**20]
    sweep["pingpong"] = {
        "sizes": sizes,
        "times_s": [2e-6 + s / 1e9 for s in sizes],
        "alpha_s": 2e-6,
        "beta_Bps": 1e9,
        "residual": 0.0,
    }
    left, right = ccb.plot_pingpong(sweep)
    assert right.get_lines()[0].get_ydata() == pytest.approx([1.0, 1.0])  # measured / fitted, sizes > 0
    plt.close("all")


def test_mpi_runs_table_puts_the_verdict_second():
    t = ccb.mpi_runs_table(_fake_sweep(), m=2**20)
    assert t.headers[:2] == ["算法", "实测 / 下界"]
    # Ring: 8 ms / (1.5 MiB / 1 GB/s) = 8e-3 / 1.572864e-3 = 5.09; Bruck AllGather: bound (N-1)/N M / beta
    # = 0.786432 ms, ratio 10.17, shown with three significant digits.
    assert [row[1] for row in t.rows] == ["5.09", "10.2"]
    with pytest.raises(ValueError, match="no run has m"):
        ccb.mpi_runs_table(_fake_sweep(), m=5)


def test_result_explorer_drives_every_control():
    e = ccb.MPIResultExplorer(_fake_sweep())
    first = bytes(e.image.value)
    assert e.values["m"] == 2**20
    # 1 MiB ring: 8 ms against max(2 α, 1.5 M/β) = 1.572864 ms.
    assert e.ratio_at_size == pytest.approx(8e-3 / 1.572864e-3)
    e.update(m=2**10)  # bound 2 α = 20 µs > 1.5 KiB / 1 GB/s
    assert e.ratio_at_size == pytest.approx(2e-4 / 2e-5)
    assert "1 KiB" in e.readout.value
    e.update(alpha_us=10 ** e.controls["alpha_us"].min)  # smallest α (10 ns): the bandwidth term binds
    assert e.ratio_at_size == pytest.approx(2e-4 / (1.5 * 1024 / 1e9), rel=1e-6)
    e.update(beta_gbps=10 ** e.controls["beta_gbps"].max)  # 1000 GB/s: bound = 2 α = 20 ns
    assert e.ratio_at_size == pytest.approx(2e-4 / max(2e-8, 1.5 * 1024 / 1e12), rel=1e-6)
    e.update(ratio=True)
    assert e.figure.axes[0].get_ylabel() == "时间 / 下界"
    e.update(pair="bruck:all_gather")  # keeps the nearest size
    assert e.values["m"] == 2**10 and "Bruck AllGather" in e.readout.value
    assert bytes(e.image.value) != first and e.redraws >= 6
    with pytest.raises(ValueError, match="no runs"):
        ccb.MPIResultExplorer({"command": "sweep", "n": 4, "runs": [], "alpha_s": 1e-6, "beta_Bps": 1e9})
