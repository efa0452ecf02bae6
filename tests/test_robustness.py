"""Issue #28 (robustness, round 3): regressions of the outside fuzzer's findings, library side.

Each test failed before its fix. The rooted-primitive bounds are in tests/test_bounds.py and
tests/test_bandwidth.py; the memory caps in tests/test_memory_caps.py.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest

import ccb_helpers as ccb

# -- every public dataclass validates in __post_init__ --------------------------------------------


def _preset(**changes):
    return ccb.HardwarePreset("k", "label", 1e-6, 1e9, 2, "ring", "source", **changes)


@pytest.mark.parametrize(
    "field, value, error",
    [
        ("links", -3, ValueError),
        ("links", 0, ValueError),
        ("links", 2.0, TypeError),
        ("links", [2], TypeError),
        ("overhead", -1e-6, ValueError),
        ("overhead", "1us", TypeError),
        ("gap", float("nan"), ValueError),
        ("gap", np.array([1e-6]), TypeError),
        ("hop_latency", 1e30, ValueError),
        ("hop_latency", True, TypeError),
    ],
)
def test_hardware_preset_validates_every_field(field, value, error):
    # HardwarePreset(..., links=-3).effective_ports(16) returned -3.
    with pytest.raises(error, match=field):
        _preset(**{field: value})


def test_hardware_preset_keeps_good_values():
    p = _preset(links=4, overhead=1e-6, gap=2e-6, hop_latency=5e-8)
    assert p.effective_ports(16) == 2 and (p.links, p.gap) == (4, 2e-6)
    assert _preset(links=None).effective_ports(16) == 2


@pytest.mark.parametrize("override, n_nodes", [({"ring_bw_intra": 0}, 1), ({"ring_bw_inter": 0.0}, 2)])
def test_nccl_vs_bound_refuses_a_zero_ring_bandwidth(override, n_nodes):
    # nccl_vs_bound(..., ring_bw_intra=0) divided by zero.
    name = next(iter(override))
    with pytest.raises(ValueError, match=name):
        ccb.nccl_vs_bound("all_reduce", 8 * n_nodes, n_nodes, 2**20, **override)


def _records():
    from ccb_helpers.nccl_tests import read_nccl_tests
    from ccb_helpers.nccl_tests.records import _EXAMPLE

    log = read_nccl_tests(_EXAMPLE)
    return {
        "NcclTestsRow": (log.rows[0], {"size": -1, "time_s": float("nan"), "type": 3, "root": -2, "line": 1.5}),
        "NcclTestsLog": (log, {"rows": [1], "n_ranks": -1, "collective": 4, "time_unit_s": -1.0}),
        "PublishedLog": (
            ccb.PUBLISHED_LOGS[next(iter(ccb.PUBLISHED_LOGS))],
            {"n_nodes": 0, "gpu_beta": -1.0, "in_switch_reduction": 1},
        ),
        "NcclPrediction": (ccb.nccl_predict("all_reduce", 8, 1, 1024), {"n_ranks": -8, "times": [], "time": "1"}),
        "AlphaBeta": (ccb.fit_alpha_beta(log, collective="all_reduce"), {"steps": -1, "points": 2.0, "alpha": "1"}),
    }


@pytest.mark.parametrize("name", ["NcclTestsRow", "NcclTestsLog", "PublishedLog", "NcclPrediction", "AlphaBeta"])
def test_result_records_validate_their_fields(name):
    record, bad = _records()[name]
    dataclasses.replace(record)  # the good record passes its own checks
    for field, value in bad.items():
        with pytest.raises((ValueError, TypeError), match=field):
            dataclasses.replace(record, **{field: value})


def test_every_public_dataclass_has_a_post_init():
    import inspect

    missing = [
        name
        for name in ccb.__all__
        if inspect.isclass(getattr(ccb, name))
        and dataclasses.is_dataclass(getattr(ccb, name))
        and "__post_init__" not in vars(getattr(ccb, name))
    ]
    assert not missing, f"public dataclasses that do not validate their fields: {missing}"


# -- time and memory caps ------------------------------------------------------------------------


def test_one_port_double_binary_tree_refuses_too_many_distinct_n_before_working():
    # 4095 distinct n took minutes (each n's trees counted, and a mask over the grid per n).
    with pytest.raises(ValueError, match="distinct n"):
        ccb.best_algorithm("all_reduce", np.arange(2, 4097), 1e6, 5e-6, 25e9)
    with pytest.raises(ValueError, match="distinct n"):
        ccb.algorithm_cost("double_binary_tree", "all_reduce", np.arange(2, 4097), 1e6, 5e-6, 25e9)
    assert ccb.best_algorithm("all_reduce", np.arange(2, 4097), 1e6, 5e-6, 25e9, ports=2)[0].size == 4095


def test_grouped_round_counts_match_one_n_at_a_time():
    rng = np.random.default_rng(3)
    n = rng.choice([1, 2, 3, 5, 8, 13, 100], size=(7, 9))
    m = rng.uniform(0, 2**24, size=(7, 9))
    grid = ccb.algorithm_cost("double_binary_tree", "all_reduce", n, m, 5e-6, 25e9)
    one_by_one = [
        [ccb.algorithm_cost("double_binary_tree", "all_reduce", int(a), float(b), 5e-6, 25e9) for a, b in zip(r, s)]
        for r, s in zip(n, m)
    ]
    assert grid.tolist() == one_by_one


def test_best_algorithm_refuses_a_grid_whose_names_alone_exceed_the_budget():
    # 2**25 elements of 26-character names are 3.5 GB: refused before any work, naming the cap.
    with pytest.raises(ValueError, match="memory"):
        ccb.best_algorithm("all_reduce", 64, np.broadcast_to(1.0, (2**25,)), 5e-6, 25e9)


# -- synthesis: the time limit covers the whole call; scalars are scalars ---------------------------


class _FakeClock:
    """time.monotonic advancing 0.3 s per reading: any phase of the call that looks at the clock
    sees the limit pass (no sleeping, no measured speed)."""

    def __init__(self):
        self.now = 0.0

    def monotonic(self):
        self.now += 0.3
        return self.now

    def perf_counter(self):
        return self.monotonic()


def test_synthesize_time_limit_covers_building_the_model(monkeypatch):
    # Before #28 the limit started with the solver: 11-42 s and 0.9 GB went into building first.
    from ccb_helpers.synthesis import encoding, frontier, model, solve

    clock = _FakeClock()
    for module in (encoding, frontier, model, solve):  # every module of the package that reads the clock
        monkeypatch.setattr(module, "time", clock)
    with pytest.raises(ccb.SynthesisTimeout, match="time_limit=1 s"):
        ccb.synthesize(ccb.ring(6), "all_gather", 3, 3, 1, time_limit=1.0)


def test_synthesize_checks_the_model_size_before_building_anything(monkeypatch):
    from ccb_helpers.synthesis import encoding, model

    def built(*args, **kwargs):
        raise AssertionError("the network was built before the size cap was checked")

    for module in (encoding, model):  # where the solve path looks _network up
        monkeypatch.setattr(module, "_network", built)
    with pytest.raises(ValueError, match="send variables"):
        ccb.synthesize(ccb.single_switch(1024), "broadcast", 1, 1, 1, time_limit=0.01)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: ccb.synthesize(ccb.ring(4), "all_gather", np.array([2]), 2, 1, time_limit=1), "steps"),
        (lambda: ccb.synthesize(ccb.ring(4), "all_gather", 2, 2, 1, time_limit=np.array([1.0])), "time_limit"),
        (lambda: ccb.synthesize(ccb.ring(4), "all_gather", 2, 2, 1, time_limit=1, root=[0]), "root"),
        (lambda: ccb.pareto_frontier(ccb.ring(4), "all_gather", [2]), "max_steps"),
        (lambda: ccb.pareto_frontier(ccb.ring(4), "all_gather", 2, log=0), "log"),
        (lambda: ccb.pareto_frontier(ccb.ring(4), "all_gather", 2, workers=[1]), "workers"),
        (lambda: ccb.stored_schedule(ccb.dgx1(), "all_gather", [3], 6), "steps"),
        (lambda: ccb.stored_schedule(ccb.dgx1(), "all_gather", 3, 6, rounds=[7]), "rounds"),
        (lambda: ccb.stored_schedule(ccb.dgx1(), "all_gather", 3, 6, m=np.array(8)), "m"),
        (lambda: ccb.stored_schedule(ccb.dgx1(), "all_gather", 3, 6, verify=1), "verify"),
        (lambda: ccb.attainment_table([ccb.dgx1()], "all_gather", time_limit=[1.0]), "time_limit"),
    ],
)
def test_synthesis_scalars_refuse_arrays(call, name):
    # Lists and arrays reached OR-Tools or numpy ("only integer scalar arrays ...", "'int' object is not callable").
    with pytest.raises(TypeError, match=name):
        call()


# -- scalars, iterators and wrong names in plots, explorers and loaders ------------------------------


@pytest.mark.parametrize(
    "call, error, name",
    [
        (
            lambda: ccb.plot_bisection_ratio(primitives=("all_to_all",), families=("ring",), max_n=16, m=1e-320),
            ValueError,
            "m",
        ),
        (lambda: ccb.plot_bisection_ratio(primitives=iter(["all_to_all"])), TypeError, "primitives"),
        (lambda: ccb.plot_algorithm_times(m_range=np.array(5)), TypeError, "m_range"),
        (lambda: ccb.plot_algorithm_times(m_range=(np.array([1.0, 2.0]), 2.0**20)), TypeError, r"m_range\[0\]"),
        (lambda: ccb.plot_nccl_times(mark=-1), ValueError, "mark"),
        (lambda: ccb.nccl_bound_parameters(n_nodes=[2]), TypeError, "n_nodes"),
    ],
)
def test_plot_and_parameter_arguments(call, error, name):
    import matplotlib.pyplot as plt

    try:
        with pytest.raises(error, match=name):
            call()
    finally:
        plt.close("all")


def test_load_mpi_result_refuses_deep_json_long_names_and_devices(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="source: .*too deeply"):
        ccb.load_mpi_result(deep)  # RecursionError before #28
    with pytest.raises(ValueError, match="source"):
        ccb.load_mpi_result("a" * 5000 + ".json")  # OSError: file name too long
    with pytest.raises(ValueError, match="source"):
        ccb.load_mpi_result("/dev/zero")  # a device, not a file
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="source"):
        ccb.load_mpi_result(fifo)  # opening a FIFO for reading would block


@pytest.mark.parametrize("value", [10**400, [1], np.array([2.0]), np.array(3)])
def test_explorer_controls_take_scalars_only(value):
    import matplotlib

    matplotlib.use("Agg")
    with ccb.PropagationExplorer() as e:
        for name in e.controls:
            with pytest.raises((ValueError, TypeError), match=name):
                e.update(**{name: value})


# -- the MPI command line: one validation, up front, with the later limits (mpi/_args.py, mpi/_budget.py) --


def _mpi_check(argv, n=4):
    from ccb_helpers.mpi._args import parse_static
    from ccb_helpers.mpi._budget import _check_traffic, check_case_for

    config = parse_static(argv)
    for case in config.get("cases", []):
        check_case_for(case, n, config.get("alpha"), config.get("beta"))
    _check_traffic(config, n)
    return config


RUN = ["run", "--algorithm", "ring", "--primitive", "all_reduce", "--size"]


@pytest.mark.parametrize(
    "argv, words",
    [
        (RUN + ["1" * 400], "characters"),  # OverflowError on every rank before #28
        (RUN + ["1KiB", "--alpha", "1e-6", "--beta", "1e-300"], "--beta"),  # ran the job, then MPI_Abort
        (RUN + ["1KiB", "--alpha", "1e30", "--beta", "1e9"], "--alpha"),
        (
            [
                "run",
                "--algorithm",
                "binomial_tree",
                "--primitive",
                "broadcast",
                "--size",
                "1KiB",
                "--alpha",
                "1e-6",
                "--beta",
                "1e29",
                "--ports",
                "100",
            ],
            "--ports",
        ),
        (
            [
                "sweep",
                "--pairs",
                "ring:all_reduce",
                "--sizes",
                ",".join(["0"] * 2000),
                "--repeats",
                "10000",
                "--alpha",
                "1e-6",
                "--beta",
                "1e9",
            ],
            "collective calls",
        ),  # zero bytes passed the 1 TiB cap: hours of calls
    ],
)
def test_mpi_cli_refuses_up_front(argv, words):
    from ccb_helpers.mpi._args import InputError

    with pytest.raises(InputError, match=words):
        _mpi_check(argv)


def test_mpi_cli_accepts_a_good_launch():
    config = _mpi_check(RUN + ["1KiB", "--alpha", "1e-6", "--beta", "1e9"])
    assert config["cases"][0]["m"] == 1024


def test_mpi_cli_json_target_must_be_a_regular_file(tmp_path):
    from ccb_helpers.mpi._budget import _json_target_problem

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "not a regular file" in _json_target_problem(str(fifo))  # the write blocked after the run
    assert "not a regular file" in _json_target_problem("/dev/full")  # the write failed after the run
    assert "longer" in _json_target_problem(str(tmp_path / ("a" * 300)))  # OSError after the run
    assert _json_target_problem(str(tmp_path / "ok.json")) is None


def test_a_string_that_equals_everything_is_no_choice():
    # Found by the extended fuzz test: first_diameter_bound(family=<str equal to everything>)
    # passed check_choice and failed deep inside ("dim must be <= 62").
    class Evil(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    with pytest.raises(ValueError, match="family"):
        ccb.first_diameter_bound(Evil("all_reduce"))
    with pytest.raises(ValueError, match="primitive"):
        ccb.combined_lower_bound(Evil("allreduce"), 4, 1.0, 1e-6, 1e9)
    assert ccb.combined_lower_bound(np.str_("all_reduce"), 4, 4.0, 1e-6, 1e9) == ccb.combined_lower_bound(
        "all_reduce", 4, 4.0, 1e-6, 1e9
    )


@pytest.mark.parametrize("plot", ["plot_algorithm_times", "plot_best_algorithm_map"])
@pytest.mark.parametrize("name, value", [("alpha", np.array([1e-6])), ("beta", [1e9]), ("ports", [1])])
def test_plots_name_the_parameter_given_an_array(plot, name, value):
    # The message said "seconds" / "bytes_per_second" (format_time's and format_bandwidth's names).
    import matplotlib.pyplot as plt

    try:
        with pytest.raises(TypeError, match=name):
            getattr(ccb, plot)(**{name: value})
    finally:
        plt.close("all")


@pytest.mark.parametrize("bad", [5, "x", np.array(3), [1, 2], iter([1]), np.zeros((2, 2))])
def test_mpi_and_synthesis_plots_check_axes_and_fit(bad):
    # An int, a 0-d array or an iterator reached matplotlib ("'int' object has no attribute 'plot'").
    import matplotlib.pyplot as plt

    result = ccb.load_mpi_result(
        Path(__file__).parent.parent / "ccb_helpers" / "data" / "mpi" / "mpi_sweep_example.json"
    )
    calls = [
        (lambda: ccb.plot_mpi_ratios(result, axes=bad), "axes"),
        (lambda: ccb.plot_pingpong(result, axes=bad), "axes"),
        (lambda: ccb.plot_pingpong(result, fit=bad), "fit"),
        (lambda: ccb.plot_synthesis_plane(3, 1.5, ax=bad), "ax"),
    ]
    try:
        for call, name in calls:
            with pytest.raises((TypeError, ValueError), match=name):
                call()
    finally:
        plt.close("all")


# -- issue #42: errors name the parameter ------------------------------------------------------


def _mpi_example():
    return ccb.load_mpi_result(Path(__file__).parent.parent / "ccb_helpers" / "data" / "mpi" / "mpi_sweep_example.json")


@pytest.mark.parametrize(
    "call, parameter",
    [
        (lambda: ccb.draw_knomial_tree(8, k=np.array(5)), "k"),  # was "unhashable type"
        (lambda: ccb.draw_knomial_tree(np.array([8, 9]), k=1), "n"),
        (
            lambda: ccb.draw_schedule(ccb.generate("ring", "all_reduce", 4, 8), max_messages=np.ones((2, 2), int)),
            "max_messages",
        ),
        (lambda: ccb.plot_mpi_runs(_mpi_example(), ncols=[1, 2]), "ncols"),  # was numpy's "inhomogeneous shape"
        (lambda: ccb.block_bounds(100, 7, parts=np.uint64(2**63)), "parts"),  # named "blocks"
        (lambda: ccb.block_bounds(100, 2**40), "n"),  # parts defaults to n: the cap is n's
    ],
)
def test_errors_name_the_parameter(call, parameter):
    with pytest.raises((ValueError, TypeError), match=rf"^{parameter}\b"):
        call()
