"""The nccl-tests reader and CLI on published logs a practitioner reviewer brought (round 5).

Each log is in tests/data/nccl_tests/ with its source in SOURCES ("Round 5"). Expected values are
worked by hand from the logs' own text in the comments: N from busbw / algbw = c(N) (nccl-tests'
doc/PERFORMANCE.md) or from size / (count x 4 bytes) where the collective prints a count per rank;
averages are the footer's own numbers.
"""

from pathlib import Path

import pytest

import ccb_helpers as ccb
from ccb_helpers.nccl_tests import main
from ccb_helpers.nccl_tests.command import find_command

CORPUS = Path(__file__).parent / "data" / "nccl_tests"


def _runs(name, **kwargs):
    return ccb.read_nccl_tests_runs((CORPUS / name).read_text(), **kwargs)


# -- each run's footer is its own ------------------------------------------------------------------


def test_each_footer_belongs_to_its_own_run():
    # Two runs of eunomia-bpf/nccl-eBPF, each ending "# Out of bounds values", "# Avg bus bandwidth",
    # "# Collective test concluded". The second footer line went to the next run: run 2 was held
    # against run 1's average (1.57614) and warned of rows "left out of the paste".
    runs = _runs("ebpf_rtx5090_2rank_one_gpu_two_runs_excerpt.txt")
    assert [r.avg_busbw_Bps for r in runs] == [1.57614e9, 1.58183e9]
    for run in runs:
        assert run.collective == "all_reduce" and run.n_ranks == 2 and len(run.rows) == 8
        assert not any("footer" in w for w in run.warnings), run.warnings
        # two processes on device 0, bus 0000:02:00, of host "lab": one GPU, and the log says so
        assert any("ranks 0 and 1 run on the same GPU" in w for w in run.warnings)


def test_concluded_line_names_its_own_run():
    # OCI's MI355X page: six runs, AllReduce and AllToAll alternating, no program named but the
    # "# Collective test concluded: X" after each footer. That line went to the next run, which then
    # read as the other collective (the AllToAll runs as AllReduce, "the rows do not fit").
    runs = _runs("oci_mi355x_pollara_six_runs_excerpt.txt")
    # busbw / algbw: 407.79 / 233.02 = 1.75 = 2 x 7/8; 368.78 / 196.68 = 1.875 = 2 x 15/16;
    # 370.24 / 191.09 = 1.9375 = 2 x 31/32. AllToAll count per rank: 8589934592 / (268435456 x 4) = 8,
    # / (134217728 x 4) = 16, / (67108864 x 4) = 32.
    assert [(r.collective, r.n_ranks) for r in runs] == [
        ("all_reduce", 8),
        ("all_to_all", 8),
        ("all_reduce", 16),
        ("all_to_all", 16),
        ("all_reduce", 32),
        ("all_to_all", 32),
    ]
    assert [r.avg_busbw_Bps / 1e9 for r in runs] == [169.455, 133.643, 135.701, 35.7757, 117.167, 20.8042]
    for run in runs:
        assert not any("do not fit" in w for w in run.warnings), run.warnings


# -- the command line: continued lines and MPMD ------------------------------------------------------


def test_command_continued_over_lines_is_read_whole():
    # OCI's GB200 page: "mpirun --bind-to none \" ... "--np 8 \" ... ".../alltoall_perf ... -g 1".
    # Read line by line, the program's line has no launcher: N = 1, and the CLI said "one GPU
    # measures no communication" for an 8-rank run.
    runs = _runs("oci_gb200_nine_runs_edited_rows_excerpt.txt")
    six = runs[5]
    assert (six.collective, six.n_ranks, six.n_ranks_source) == ("all_to_all", 8, "command line")
    # the AllReduce under the same kind of command: its rows say 2 x 63/64 (855.95 / 434.77 = 1.96875)
    two = runs[1]
    assert (two.n_ranks, two.n_ranks_source) == (64, "busbw factor")
    assert any("starts N = 8 ranks, but the rows give N = 64" in w for w in two.warnings), two.warnings


def test_find_command_joins_backslash_lines_and_sums_mpmd_contexts():
    lines = ["mpirun --bind-to none \\", " --mca coll ^hcoll \\", " --np 8 \\", " -x A=1 \\", " ./alltoall_perf -g 1"]
    assert find_command(lines, 10) == ((8, 1, 1), 15, None)  # the program's physical line, 1-based
    assert find_command(["./all_reduce_perf \\", "  -b 8 -e 1G \\", "  -g 4"], 0)[0] == (1, 1, 4)
    # eunomia-bpf's MPMD launch: two contexts of one process each, same -g
    mpmd = (
        "mpirun --oversubscribe --tag-output -np 1 /usr/bin/env A=0 ./all_reduce_perf_mpi -b 1M -g 1 "
        ": -np 1 /usr/bin/env A=1 ./all_reduce_perf_mpi -b 1M -g 1"
    )
    assert find_command([mpmd], 0)[0] == (2, 1, 1)
    # contexts with different -g: not one (processes, threads, GPUs) triple: not read
    assert find_command([mpmd.replace("-g 1 :", "-g 2 :")], 0)[0] is None
    # a trailing backslash on the last line of the text ends the command
    assert find_command(["./all_reduce_perf -g 2 \\"], 0)[0] == (1, 1, 2)


# -- rows that contradict each other -----------------------------------------------------------------


def test_edited_rows_are_named_not_blamed_on_the_collective():
    runs = _runs("oci_gb200_nine_runs_edited_rows_excerpt.txt")
    # "4294967296  107374124": 107374124 x 4 = 429496496 does not divide 4294967296 (a digit lost).
    first = runs[0]
    assert any(
        w.startswith("line 29: size 4294967296 is not a whole multiple of count 107374124") for w in first.warnings
    ), first.warnings
    # Run 6: 8589934592 / (2147483648 x 4) = 1 but 17179869184 / (536870912 x 4) = 8; and its in-place
    # 658.30 / 752.324 = 0.87503 is outside out-of-place 662.27 / 756.88 = 0.87500 +- 0.00001: edited.
    six = runs[5]
    assert any("size / (count × type size) is 1 at line 143 and 8 at line 144" in w for w in six.warnings)
    assert any("busbw / algbw differs between rows by more than the printed rounding" in w for w in six.warnings)
    assert not any("do not fit" in w or "± -" in w for w in six.warnings), six.warnings


def test_in_place_na_beside_a_checked_out_of_place_is_alltoall_or_sendrecv():
    # nccl-tests src/alltoall.cu and src/sendrecv.cu: "args->reportErrors = in_place ? 0 : 1"; every
    # other program checks both halves. GB200's AllToAll runs name no program and their redop 'none'
    # fits AllGather too; their in-place "N/A" decides.
    runs = _runs("oci_gb200_nine_runs_edited_rows_excerpt.txt")
    assert [r.collective for r in runs[6:]] == ["all_to_all"] * 3
    # 566.30 / 575.29 = 0.98437 = 63/64; 88.63 / 89.33 = 0.99216 = 127/128
    assert [r.n_ranks for r in runs[6:8]] == [64, 128]
    assert runs[8].n_ranks is None  # 60.90 / 61.22 fits 191/192 and its neighbours: the caller says


def test_cli_names_the_run_to_pick_and_reads_it_alone(capsys):
    path = str(CORPUS / "oci_gb200_nine_runs_edited_rows_excerpt.txt")
    assert main([path, "--preset", "b200_nvlink5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.endswith("pass --run 9 --ranks N") and "(run 9 of 9, all_to_all)" in err
    # --ranks for run 9 only: runs 1-8, whose rows give other N, are not read against it
    assert main([path, "--preset", "b200_nvlink5", "--run", "9", "--ranks", "192"]) == 0
    out = capsys.readouterr().out
    assert "collective all_to_all, 192 ranks (caller), 2 rows" in out
    assert main([path, "--preset", "b200_nvlink5", "--run", "10"]) == 2
    assert capsys.readouterr().err.strip() == f"error: --run 10: {path} holds 9 runs (1 to 9)"


def test_read_runs_picks_one_run():
    text = (CORPUS / "oci_mi355x_pollara_six_runs_excerpt.txt").read_text()
    (four,) = ccb.read_nccl_tests_runs(text, run=4)
    assert (four.collective, four.n_ranks, four.header_line) == ("all_to_all", 16, 50)
    # the caller's values apply to that run alone
    (two,) = ccb.read_nccl_tests_runs(text, collective="all_to_all", run=2)
    assert two.n_ranks == 8
    with pytest.raises(ValueError, match=r"^run=7: the text holds 6 runs$"):
        ccb.read_nccl_tests_runs(text, run=7)
    with pytest.raises(ValueError, match=r"run must be"):
        ccb.read_nccl_tests_runs(text, run=0)
    with pytest.raises(TypeError, match=r"run"):
        ccb.read_nccl_tests_runs(text, run="2")


# -- logs that read right: pinned so they stay so -------------------------------------------------


@pytest.mark.parametrize(
    "name, expected",
    [
        # B300: no rank lines. Run 1: "-g 8" in nThread; run 2: 766.54 / 408.82 = 1.875 (N = 16);
        # run 3: AllToAll count 268435456 x 4 x 8 = 8589934592; run 4: x 16.
        (
            "oci_b300_four_runs_excerpt.txt",
            [("all_reduce", 8), ("all_reduce", 16), ("all_to_all", 8), ("all_to_all", 16)],
        ),
        # GB300: 4 GPUs a node; rank lines elided ("...") after ranks 0, 1 and before the last two.
        (
            "oci_gb300_elided_rank_lines_eight_runs_excerpt.txt",
            [("all_reduce", 4), ("all_reduce", 8), ("all_reduce", 64), ("all_reduce", 128)]
            + [("all_to_all", 4), ("all_to_all", 8), ("all_to_all", 64), ("all_to_all", 128)],
        ),
        # MI355X, one node: eight rank lines each
        ("oci_mi355x_two_runs_excerpt.txt", [("all_reduce", 8), ("all_to_all", 8)]),
    ],
)
def test_published_multi_run_pages_read_right(name, expected):
    runs = _runs(name)
    assert [(r.collective, r.n_ranks) for r in runs] == expected
    for run in runs:
        # every page pasted only its largest sizes ("<smaller message sizes truncated>"): the footer says so
        assert any("rows were left out of the paste" in w for w in run.warnings), run.warnings
        assert not any("do not fit" in w for w in run.warnings), run.warnings


def test_one_row_fit_message_names_no_parameter_the_user_never_set(capsys):
    # B300's single-node AllReduce pasted one row: the fit cannot run, and the line said
    # "in [min_size, max_size] = [1.0, inf] bytes … got 1 rows of 1 size".
    path = str(CORPUS / "oci_b300_four_runs_excerpt.txt")
    assert main([path, "--preset", "b200_nvlink5", "--run", "1"]) == 0
    out = capsys.readouterr().out
    assert (
        "fit: not possible: log: need at least two rows of different sizes to fit alpha and beta, got 1 row of 1 size"
        in out
    )
    assert "min_size" not in out
    one = _runs("oci_b300_four_runs_excerpt.txt")[0]
    with pytest.raises(
        ValueError, match=r"in \[min_size, max_size\] = \[1e\+06, 2e\+06\] bytes .* got 0 rows of 0 sizes"
    ):
        ccb.fit_alpha_beta(one, min_size=1e6, max_size=2e6)


# -- topology printouts --------------------------------------------------------------------------

TOPO = Path(__file__).parent / "data"


def test_published_topology_printouts_parse():
    h100 = ccb.parse_nvidia_smi_topo((TOPO / "nvidia_smi" / "h100_stas_ml_engineering_with_prompt.txt").read_text())
    assert h100.n == 8 and h100.switched  # NV18 to every other GPU: an NVSwitch
    pair = ccb.parse_nvidia_smi_topo((TOPO / "nvidia_smi" / "two_gpu_nv2_stas_ml_engineering.txt").read_text())
    assert pair.n == 2 and pair.degree == 2  # NV2: two links to the one peer
    mi300a = ccb.parse_rocm_smi_topo((TOPO / "rocm_smi" / "mi300a_4apu_gpu_benchmarks_hip.txt").read_text())
    assert (mi300a.n, mi300a.degree, mi300a.diameter) == (4, 3, 1)  # XGMI between every pair of 4


def test_topology_of_another_machine_is_named(capsys):
    # The 4-APU MI300A printout held against RCCL's 8 x MI300X run on one host: 3 links per GPU would
    # be used silently, for a node of 8 GPUs. 8 ranks on 1 host > 4 GPUs: not this run's node.
    topo = str(TOPO / "rocm_smi" / "mi300a_4apu_gpu_benchmarks_hip.txt")
    log = str(CORPUS / "rccl_mi300x_1node_all_reduce.txt")
    assert main([log, "--preset", "auto", "--topology", topo]) == 0
    out = capsys.readouterr().out
    assert "note: --topology lists 4 GPUs, but the log runs 8 ranks on 1 host (8 on a host)" in out
    # an NVIDIA preset with a rocm-smi printout: links of one vendor counted at the other's rate
    assert main([log, "--preset", "h100_nvswitch", "--topology", topo]) == 0
    out = capsys.readouterr().out
    assert "note: --topology is rocm-smi --showtopo output, and preset h100_nvswitch is for NVIDIA GPUs" in out
    # PCIe presets fit either vendor; the right node says nothing of the kind
    assert main([log, "--preset", "pcie_gen5", "--topology", topo]) == 0
    assert "output, and preset" not in capsys.readouterr().out
    h100 = str(TOPO / "nvidia_smi" / "h100_stas_ml_engineering_with_prompt.txt")
    a3 = str(Path(ccb.__file__).parent / "data" / "nccl_tests" / "a3mega_h100_2node_all_reduce.txt")
    assert main([a3, "--preset", "auto", "--topology", h100]) == 0
    out = capsys.readouterr().out
    assert "18 links per GPU at 25 GB/s = 450 GB/s per GPU" in out and "another machine" not in out


def test_a_footer_that_is_not_a_number_is_named_and_left_out():
    runs = _runs("ebpf_rtx5090_reduce_scatter_edited_footers_excerpt.txt")
    # busbw / algbw = 0.24 / 0.48 = 1/2 = (N-1)/N: N = 2, as the two rank lines say
    assert [(r.collective, r.n_ranks, len(r.rows)) for r in runs] == [("reduce_scatter", 2, 8)] * 2 + [
        ("reduce_scatter", 2, 3)
    ]
    assert runs[0].avg_busbw_Bps == 1.73537e9  # "1.73537 GB/s": a unit after the number is fine
    assert runs[1].avg_busbw_Bps is None and runs[2].avg_busbw_Bps is None
    assert any(w.startswith("line 44: the average bus bandwidth needs a number, got '~2.0'") for w in runs[1].warnings)
    assert any("got '~0.06'" in w and w.endswith("the footer is not used") for w in runs[2].warnings)
    # and a footer beyond a double: named too, the rows still read
    text = (CORPUS / "ebpf_rtx5090_reduce_scatter_edited_footers_excerpt.txt").read_text().replace("~2.0", "1e400")
    runs = ccb.read_nccl_tests_runs(text)
    assert any("'1e400' is beyond the largest double" in w for w in runs[1].warnings)


def test_a_continued_command_with_shell_variables_says_nothing_of_n():
    # dstack's Lambda task: "mpirun \ … -n $DSTACK_GPUS_NUM \ … all_reduce_perf … -g 1". Read line by
    # line it was a command without a launcher (N = 1, and a warning against the rows' N = 16); read
    # whole, "$DSTACK_GPUS_NUM" is no number, so the command says nothing and the rows decide.
    log = ccb.read_nccl_tests((CORPUS / "dstack_lambda_b200_2node_continued_command_excerpt.txt").read_text())
    assert (log.collective, log.n_ranks, log.n_ranks_source) == ("all_reduce", 16, "busbw factor")
    assert not any("command line" in w for w in log.warnings), log.warnings
    assert log.tests_version == "2.17.6" and log.nccl_version == "2.26.2"  # nccl-library=22602


@pytest.mark.parametrize(
    "name, collective, root",
    [
        ("superbench_a100_8gpu_broadcast_2020_format.txt", "broadcast", 0),
        ("superbench_a100_8gpu_reduce_2020_format.txt", "reduce", 0),
    ],
)
def test_rooted_collectives_of_2020_without_a_program_name(name, collective, root):
    # Header "size count type root" (broadcast) / "size count type redop root" (reduce): each program
    # printed its own columns until 2022; size = count x 4 (the whole buffer); 8 rank lines.
    log = ccb.read_nccl_tests((CORPUS / name).read_text())
    assert (log.collective, log.n_ranks, log.n_ranks_source, len(log.rows)) == (collective, 8, "rank lines", 34)
    assert {r.root for r in log.rows} == {root} and log.check_column == "error"
    assert any("the data were not checked" in w for w in log.warnings)
    assert not any("same GPU" in w for w in log.warnings)  # "[0x00]" eight times: the old bus byte


def test_256_ranks_from_the_launcher_with_checks_off():
    log = ccb.read_nccl_tests((CORPUS / "issue78_256rank_all_reduce_c0_2021_format_excerpt.txt").read_text())
    assert (log.collective, log.n_ranks, log.n_ranks_source, len(log.rows)) == ("all_reduce", 256, "command line", 6)
    assert log.nccl_version == "2.8.4" and any("-c 0" in w for w in log.warnings)
    assert not any("rows give" in w for w in log.warnings)  # 45.65 / 22.92 = 2 x 255/256 agrees


def test_readme_multi_run_example_is_what_the_cli_prints(capsys):
    # README's "Your own nccl-tests output" pastes the GB200 page's two commands: every line it shows
    # (but "...") is a line the CLI prints, in order.
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    block = readme.split("oci_gb200_nine_runs_edited_rows_excerpt.txt --preset b200_nvlink5\n", 1)[1].split("```", 1)[0]
    first, second = block.split("$ python -m ccb_helpers.nccl_tests ")
    root = Path(__file__).parents[1]
    assert (
        main(
            [
                str(root / "tests/data/nccl_tests/oci_gb200_nine_runs_edited_rows_excerpt.txt"),
                "--preset",
                "b200_nvlink5",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err.strip() == first.strip()
    argv = second.splitlines()[0].split()
    shown = [line for line in second.splitlines()[1:] if line.strip() and line != "..."]
    assert main([str(root / argv[0])] + argv[1:]) == 0
    printed = capsys.readouterr().out.splitlines()
    positions = [printed.index(line) for line in shown]
    assert positions == sorted(positions)


def test_preset_auto_without_device_names_says_which_keys(capsys):
    # OCI's B300 page prints no rank lines: a practitioner's first "--preset auto" is told what to pass.
    assert main([str(CORPUS / "oci_b300_four_runs_excerpt.txt"), "--preset", "auto"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the log names no devices" in err
    assert "pass --preset KEY, or --alpha and --beta (KEY one of a100_nvlink, b200_nvlink5," in err


def test_an_alltoall_without_its_program_name_told_by_its_check_columns():
    # nccl-tests#314: 1048576 / (32768 x 4) = 8 = N for AllGather and AllToAll alike; 15.78 / 18.04 =
    # 0.875 = 7/8 for both. The in-place half says N/A, the out-of-place one 0: alltoall_perf.
    log = ccb.read_nccl_tests((CORPUS / "nccl_tests314_h20_8gpu_alltoall_excerpt.txt").read_text())
    assert (log.collective, log.n_ranks, log.n_ranks_source, len(log.rows)) == ("all_to_all", 8, "rank lines", 3)
    assert [r.wrong for r in log.rows] == [0, 0, 0] and [r.wrong_inplace for r in log.rows] == [None] * 3


def test_rows_below_a_table_without_footer_start_again_as_a_run_of_their_own():
    # nccl-tests#232's five headed rows (2 ranks, no footer in the paste), then Mooncake#3484's
    # rows under "```" and a sentence: they were appended to the 2-rank table, and the report held
    # 8-rank rows against N = 2 (two warnings said the table joined runs).
    headed = (CORPUS / "issue232_h100_2node_tree_all_reduce_excerpt.txt").read_text()
    bare = (CORPUS / "mooncake3484_8gpu_all_reduce_rows_excerpt.txt").read_text()
    for between in ("\n", "\nand on the other cluster:\n"):
        runs = ccb.read_nccl_tests_runs(headed + between + bare)
        # 3.07 / 1.76 = 1.74 ~ 2 x 7/8: the Mooncake rows are 8 ranks' (SOURCES: busbw factor 1.75)
        assert [(len(r.rows), r.n_ranks) for r in runs] == [(5, 2), (len(ccb.read_nccl_tests(bare).rows), 8)]
        assert not any(r.warnings for r in runs)
    # rows that go on growing after a line of text stay in their table; sizes that start again
    # with no text between (cycles, two processes' rows) stay too
    lines = headed.splitlines()
    last = max(i for i, line in enumerate(lines) if line.strip()[:1].isdigit())
    grown = lines[: last + 1] + ["some launcher noise"] + [lines[last].replace("33554432", "67108864", 1)]
    assert [len(r.rows) for r in ccb.read_nccl_tests_runs("\n".join(grown) + "\n")] == [6]
    again = lines[: last + 1] + [lines[last - 4]]
    assert [len(r.rows) for r in ccb.read_nccl_tests_runs("\n".join(again) + "\n")] == [6]
