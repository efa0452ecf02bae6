"""Chapter 8's figures, explorer and published-log helpers.

The explorer test drives every control (including the extremes) and checks that the readout and
figure follow NCCL's model; expected picks come from the hand computations of test_nccl_model.py.
"""

import pytest

import ccb_helpers as ccb


def _titles(explorer):
    return [ax.get_title() for ax in explorer.figure.axes]


def test_explorer_follows_every_control():
    e = ccb.NcclExplorer(preset="dgx_h100", n=8, log2_m=10)
    assert e.result.pick == "Ring/LL" and "Ring/LL" in e.readout.value and "N = 8" in _titles(e)[0]
    png = bytes(e.image.value)
    e.update(log2_m=30)
    assert e.result.pick == "NVLS/Simple" and bytes(e.image.value) != png and "1 GiB" in e.readout.value
    # NVLS at 1 GiB on 8 GPUs: 4.0515 ms against M / 450 GB/s = 2.386 ms of NVLink4 -> "对照物理线速 0.59".
    assert "对照物理线速 0.59" in e.readout.value
    e.update(n=4)  # 4 GPUs: the NVLS graph is searched again (4 x 60 GB/s) and loses to the rings
    assert e.n == 4 and e.result.pick == "Ring/Simple"
    e.update(n=2)  # smallest node: no NVLS for two GPUs at 1 GiB (Ring/Simple, test_nccl_model's table)
    assert e.n == 2 and e.result.pick == "Ring/Simple"
    e.update(log2_m=3)  # smallest size
    assert e.result.pick == "Ring/LL" and "8 B" in e.readout.value
    e.update(efficiency=True)
    assert e.figure.axes[0].get_ylabel() == "效率 = 下界 / NCCL 估计"
    e.update(preset="ib_h100")  # the N slider switches to multiples of 8, default 16 (2 nodes)
    assert (e.controls["n"].min, e.controls["n"].max, e.controls["n"].step) == (8, 2048, 8)
    assert e.n_nodes == 2 and e.result.pick == "Tree/LL"
    e.update(n=2048, log2_m=34)  # largest cluster, largest message
    assert e.n_nodes == 256 and e.result.pick in {"Ring/Simple", "NVLSTree/Simple"} and 0 < e.result.efficiency <= 1
    e.update(preset="dgx_h100")
    assert (e.controls["n"].min, e.controls["n"].max) == (2, 8) and e.n == 8
    assert e.redraws == 9  # the first draw and one per update call


def test_explorer_static_bundle_has_png():
    bundle, _metadata = ccb.NcclExplorer()._repr_mimebundle_()
    assert "image/png" in bundle and bundle["text/plain"].startswith("<NcclExplorer")


def test_pick_map_grid_matches_predictions():
    _, grid = ccb.plot_nccl_pick_map("ib_h100")
    (n, k), m = grid["rows"][1], grid["sizes"][0]
    assert (n, k) == (16, 2) and grid["labels"][1, 0] == ccb.nccl_predict("all_reduce", n, k, int(m), "ib_h100").label
    assert ((grid["efficiency"] > 0) & (grid["efficiency"] <= 1 + 1e-12)).all()
    with pytest.raises(ValueError, match="unknown topology"):
        ccb.plot_nccl_pick_map("dgx_b200")


def test_times_plot_and_busbw_plot():
    ax = ccb.plot_nccl_times("all_reduce", 16, 2, "ib_h100", efficiency=True, mark=2**20)
    labels = {line.get_label() for line in ax.get_lines()}
    assert {"Tree/LL", "Ring/Simple", "NVLSTree/Simple"} <= labels
    assert all(
        0 < y <= 1 + 1e-12 for line in ax.get_lines() if not line.get_label().startswith("_") for y in line.get_ydata()
    )
    log = ccb.read_published_log("dgx2_v100_broadcast")
    ax = ccb.plot_busbw_against_bound(log, 1e-6, 150e9)
    assert ax.get_lines()[0].get_ydata().max() == pytest.approx(122.15, abs=0.01)


def test_published_logs_and_summary():
    assert set(ccb.PUBLISHED_LOGS) | {"h800_2node_alltoall_failed_issue355"} == {
        p.name[:-4] for p in ccb.nccl_published.DATA_DIR.iterdir() if p.name.endswith(".txt")
    }
    table = ccb.published_summary_table()
    by_key = {v["key"]: v for v in table.values}
    # A3 Mega: 338.82 GB/s against min(450 + 200/8, 1.875 * 200) = 375 GB/s.
    assert by_key["a3mega_h100_2node_all_reduce"]["ceiling"] == pytest.approx(375e9)
    assert by_key["a3mega_h100_2node_all_reduce"]["efficiency"] == pytest.approx(338.82 / 375)
    # One node: the ceiling is the GPU's link rate.
    assert by_key["dgx2_v100_broadcast"]["ceiling"] == 150e9
    assert all(0 < v["efficiency"] < 1 for v in table.values)
    with pytest.raises(ValueError, match="unknown key"):
        ccb.read_published_log("no_such_log")


def test_two_level_ceiling_by_hand():
    # AllGather, 32 GPUs on 4 nodes: c(32) / c(4) = (31/32) / (3/4) = 31/24; node 100 GB/s -> 129.17 GB/s.
    assert ccb.two_level_busbw_ceiling("all_gather", 32, 4, 450e9, 100e9) == pytest.approx(31 / 24 * 100e9)
    # 16 GPUs on 2 nodes, 400 GB/s per node: endpoint 450 + 400/8 = 500 (NVLink and the GPU's NIC), node 750.
    assert ccb.two_level_busbw_ceiling("all_reduce", 16, 2, 450e9, 400e9) == pytest.approx(500e9)
    with pytest.raises(ValueError, match="node_beta .* is required"):
        ccb.two_level_busbw_ceiling("all_reduce", 16, 2, 450e9)
    with pytest.raises(ValueError, match="n_nodes must be <= 4"):
        ccb.two_level_busbw_ceiling("all_reduce", 4, 8, 450e9, 1e9)


def test_vs_bound_never_beats_the_bound():
    for topology in ccb.NCCL_TOPOLOGIES:
        for n, k in ((2, 1), (8, 1), (16, 2), (512, 64)):
            if topology == "dgx_h100" and k > 1:
                continue
            for m in (0, 1, 4096, 2**20, 2**30, 2**40):
                r = ccb.nccl_vs_bound("all_reduce", n, k, m, topology)
                assert 0 < r.efficiency <= 1 + 1e-12, (topology, n, k, m, r)
                assert r.in_network_bound_time <= r.bound_time + 1e-18
    table = ccb.nccl_vs_bound_table([(8, 1, 1024)], "dgx_h100")
    assert table.rows[0][2] == "Ring/LL"


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: ccb.plot_nccl_times(m_range=(0, 10)), ValueError, r"m_range\[0\] must be > 0"),
        (lambda: ccb.plot_nccl_times(m_range=(10, 5)), ValueError, "0 < min < max"),
        (lambda: ccb.plot_nccl_times(m_range=8), TypeError, "m_range must be a"),
        (lambda: ccb.plot_nccl_times(efficiency="yes"), TypeError, "efficiency must be True or False"),
        (lambda: ccb.plot_nccl_times(mark=1.5), ValueError, "whole number of bytes"),
        (lambda: ccb.plot_nccl_pick_map(threshold=2), ValueError, "threshold must be an efficiency"),
        (lambda: ccb.nccl_vs_bound_table([]), ValueError, "1 to 1000"),
        (lambda: ccb.nccl_vs_bound_table([(8, 1)]), TypeError, "triples"),
        (lambda: ccb.busbw_ceiling("all_reduce", 8, [1.0] * 10_000_001, 1e-6, 1e9), ValueError, "at most 10000000"),
    ],
)
def test_figure_and_table_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_axes_and_keys_are_checked():
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        ccb.plot_nccl_times(ax="left")
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        ccb.plot_nccl_pick_map(ax=1)
    with pytest.raises(TypeError, match="keys must be a list"):
        ccb.published_summary_table("a3mega_h100_2node_all_reduce")
    with pytest.raises(ValueError, match="must not repeat"):
        ccb.published_summary_table(["a3mega_h100_2node_all_reduce"] * 2)


def test_published_link_rates_by_hand():
    # PCIe Gen3 x16: 8 GT/s x 16 lanes x 128/130 / 8 bits = 15.75 GB/s per direction.
    assert ccb.PUBLISHED_LOGS["nccl1_titanx_all_reduce"].gpu_beta == pytest.approx(8e9 * 16 * 128 / 130 / 8, rel=1e-3)
    table = ccb.published_summary_table(["eks_efa_t4_2node_all_reduce", "dgx2_v100_all_gather"])
    t4, gather = table.values
    # T4 behind one 100 Gb/s EFA NIC: min(15.75, c(2)/c(2) * 12.5) = 12.5 GB/s; 3.11 / 12.5 = 0.249.
    assert t4["ceiling"] == pytest.approx(12.5e9) and t4["efficiency"] == pytest.approx(3.11 / 12.5)
    # The DGX-2 AllGather log's footer reports 4 out-of-bounds values: marked, in-place kept.
    assert gather["check_failed"] and "校验失败" in table.rows[1][0]
    assert gather["busbw_inplace"] == pytest.approx(112.34e9)


def test_logs_that_ran_nvls_tree_are_held_against_the_in_switch_ceiling():
    # 2 nodes x 8 H100, 8 x 400 Gb/s: endpoint ceiling min(450 + 50, 1.875/1 * 400) = 500 GB/s; with
    # NVLS-Tree the GPU term becomes 2 * 15/16 * 500 = 937.5 and the node term 1.875 * 400 = 750 binds.
    assert ccb.nccl_published.in_switch_busbw_ceiling("all_reduce", 16, 2, 450e9, 400e9) == pytest.approx(750e9)
    # nccl-tests#309 measured ~470 GB/s on such nodes: inside the endpoint ceiling 500 (and 750).
    assert 470e9 < ccb.two_level_busbw_ceiling("all_reduce", 16, 2, 450e9, 400e9) < 750e9
    # Primitives other than AllReduce keep their endpoint volume in the switch (chapter 3).
    assert ccb.nccl_published.in_switch_busbw_ceiling("all_gather", 16, 2, 450e9, 400e9) == pytest.approx(
        ccb.two_level_busbw_ceiling("all_gather", 16, 2, 450e9, 400e9)
    )
    by_key = {v["key"]: v for v in ccb.published_summary_table().values}
    issue = by_key["hgx_h100_2node_all_reduce_issue319"]
    assert (
        issue["in_switch"]
        and issue["ceiling"] == pytest.approx(750e9)
        and issue["endpoint_ceiling"] == pytest.approx(500e9)
    )
    assert issue["efficiency"] == pytest.approx(89.24 / 750, abs=5e-4)
    # A3 Mega: the node term 1.875 * 200 = 375 binds either way.
    assert (
        by_key["a3mega_h100_2node_all_reduce"]["ceiling"] == by_key["a3mega_h100_2node_all_reduce"]["endpoint_ceiling"]
    )
    # V100 / A100 switches cannot reduce.
    assert not by_key["dgx2_v100_all_reduce"]["in_switch"] and not by_key["oke_a100_2node_all_reduce"]["in_switch"]


def test_nvls_table_per_gpu_count():
    t = ccb.nccl_nvls_table()
    by_n = {v["n"]: v for v in t.values}
    # (N+1) bwIntra on each link: 8 GPUs 9 x 40 = 360 <= 370.8 (9 x 50 = 450 did not fit); 4 GPUs 5 x 60 = 300.
    assert by_n[8]["link_load"] == pytest.approx(360e9) and by_n[4]["link_load"] == pytest.approx(300e9)
    assert "50 时 450 >" in t.rows[-1][2]
    # NVLS loses to the rings below 5 GPUs: 4 x 60 x 5/6 = 200 < Ring/LL128 220.8 < Ring/Simple 240.
    assert [v["pick_1GiB"] for v in t.values] == ["Ring/Simple"] * 2 + ["NVLS/Simple"] * 4
    assert by_n[4]["nvls"] == pytest.approx(200e9) and by_n[4]["ring_ll128"] == pytest.approx(220.8e9)
    with pytest.raises(ValueError, match=r"gpu_counts\[0\] must be >= 3"):
        ccb.nccl_nvls_table([2])
    with pytest.raises(ValueError, match="no NVSwitch link"):
        ccb.nccl_nvls_table([4], ccb.NcclTopology(**{**ccb.NCCL_TOPOLOGIES["dgx_h100"].__dict__, "nvswitch_bw": 0.0}))
    with pytest.raises(TypeError, match="gpu_counts must be an iterable"):
        ccb.nccl_nvls_table(8)


def test_one_cluster_two_collectives_against_their_node_cuts():
    # nccl-tests#78: 8 nodes x 8 V100, 100 Gb/s = 12.5 GB/s per node, 64 ranks (no rank lines:
    # the entry gives N). AllReduce: the node moves c(8) M, busbw <= (126/64) / (14/8) x 12.5
    # = 14.0625 GB/s. AllToAll: the node's 8 ranks each send 56/64 of M off-node, T >= 8 x 56/64
    # x M / 12.5 GB/s and busbw = 63/64 x M / T <= 63 x 12.5 / (8 x 56) = 1.7578125 GB/s.
    by_key = {
        v["key"]: v
        for v in ccb.published_summary_table(["issue78_v100_8node_all_reduce", "issue78_v100_8node_alltoall"]).values
    }
    reduce, alltoall = by_key["issue78_v100_8node_all_reduce"], by_key["issue78_v100_8node_alltoall"]
    assert reduce["ceiling"] == pytest.approx(126 / 64 / (14 / 8) * 12.5e9)
    assert alltoall["ceiling"] == pytest.approx(63 * 12.5e9 / (8 * 56))
    assert (reduce["busbw"], alltoall["busbw"]) == (4.32e9, 0.51e9)  # the 512 MiB rows as printed
    # Against their own cuts both run the network at about 0.3 of line rate; held against the
    # AllReduce-style term (c(64)/c(8) x 12.5 GB/s, 8x too high) the AllToAll would read 0.036.
    assert abs(reduce["efficiency"] - alltoall["efficiency"]) < 0.05
    assert 0.51e9 / (63 / 64 / (7 / 8) * 12.5e9) < 0.04
    assert ccb.read_published_log("issue78_v100_8node_alltoall").n_ranks == 64
