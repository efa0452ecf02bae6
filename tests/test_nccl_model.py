"""NCCL 2.21.5's tuning model: values computed by hand from the constants of src/graph/tuning.cc.

Each expected number is worked out in the comment next to it from the tables (baseLat, hwLat,
llMaxBws, perChMax*, treeCorrectionFactor) and the presets' channel counts / bandwidths; times in
µs are lat + nBytes / (1000 * bw[GB/s]).
"""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ccb_helpers as ccb
from ccb_helpers.nccl_model import BASE_LATENCY_US, HW_LATENCY_US, TREE_CORRECTION

US = 1e-6


def test_constants_are_the_2_21_5_tables():
    # Spot checks against the source text of v2.21.5-1 src/graph/tuning.cc.
    assert BASE_LATENCY_US["ring"] == (6.6, 14.0, 8.4) and BASE_LATENCY_US["tree"] == (6.8, 14.0, 0.0)
    assert HW_LATENCY_US["nvlink"]["ring"] == (0.6, 1.9, 3.4) and HW_LATENCY_US["net"]["tree"] == (5.0, 8.5, 28.0)
    assert HW_LATENCY_US["net"]["nvls_tree"][2] == 14.0 and HW_LATENCY_US["nvlink"]["nvls"][2] == 25.0
    assert all(len(v) == 23 for v in TREE_CORRECTION.values()) and ccb.NCCL_MODEL_VERSION == "2.21.5-1"


def test_dgx_h100_allreduce_tuning_by_hand():
    # dgx_h100: ring/tree 12 channels x 30 GB/s -> busBw 360; NVLS 8 x min(40, 60) -> 320. One node, N = 8,
    # AllReduce: nsteps = 14, ratio ring 8/14, tree 1/2, NVLS 5/6. Hopper N1: llMaxBw 141,
    # perChMaxTree 38.7, perChMaxRingLL128 36.7, perChMaxTreeLL128 36.7.
    table = {(a, p): (lat, bw) for a, p, lat, bw in ccb.nccl_tuning_table("all_reduce", 8, 1).values}
    expected = {
        ("ring", "LL"): (6.6 + 14 * 0.6, min(141, 360 * 0.5) * 8 / 14),  # 15.0 us, 80.57 GB/s
        ("ring", "LL128"): (14.0 + 14 * 1.9, min(360 * 0.92, 12 * 36.7) * 8 / 14),  # 40.6 us, 189.26
        ("ring", "Simple"): (8.4 + 14 * 3.4, 360 * 8 / 14),  # 56.0 us, 205.71
        ("tree", "LL"): (6.8 + 2 * (7 * 0.6), min(min(360 * 0.92, 12 * 38.7) / 3.8, 141) / 2),  # 15.2, 43.58
        ("tree", "LL128"): (14.0 + 2 * (7 * 1.25), min(331.2 * 7 / 9, 12 * 36.7) / 2),  # 31.5, 128.8
        ("tree", "Simple"): (0.0 + 2 * (7 * 28), min(360 * 0.92, 12 * 38.7) / 2),  # 392, 165.6
        ("nvls", "Simple"): (25.0, 8 * 40 * 5 / 6),  # 25 us, 266.7 GB/s
    }
    assert set(table) == set(expected)
    for key, (lat, bw) in expected.items():
        assert table[key][0] == pytest.approx(lat * US), key
        assert table[key][1] == pytest.approx(bw * 1e9), key


def test_dgx_h100_picks_by_hand():
    # 1 KiB: Ring/LL 15.0 + 1024/(1000*80.571) = 15.0127 us; Tree/LL 15.2 + 1024/(1000*43.58*0.9)
    # (correction index floor(log2(1024/64)) = 4 -> 0.9) = 15.226 us; NVLS 25.004 us. Ring/LL wins.
    p = ccb.nccl_predict("all_reduce", 8, 1, 1024)
    assert (p.algorithm, p.protocol) == ("ring", "LL")
    assert p.time == pytest.approx((15.0 + 1024 / (1000 * min(141, 360 * 0.5) * 8 / 14)) * US)
    assert p.times["tree", "LL"] == pytest.approx((15.2 + 1024 / (1000 * 331.2 / 3.8 / 2 * 0.9)) * US)
    # 1 GiB: NVLS 25 + 2**30/(1000*266.67) = 4051.5 us; Ring/Simple 56 + 2**30/(1000*205.71) = 5275.6 us.
    p = ccb.nccl_predict("all_reduce", 8, 1, 2**30)
    assert p.label == "NVLS/Simple" and p.time == pytest.approx((25 + 2**30 / (1000 * 800 / 3)) * US)
    assert p.times["ring", "Simple"] == pytest.approx((56 + 2**30 / (1000 * 360 * 8 / 14)) * US)
    # busbw nccl-tests would print: 1.75 * 2**30 / 4051.5 us = 463.8 GB/s (> 450: in-network reduction).
    assert p.bus_bandwidth == pytest.approx(1.75 * 2**30 / p.time)
    # 64 KiB: Ring/LL 15.0 + 65536/80571 = 15.813; Ring/LL128 40.6 + 0.346 = 40.95; Tree/LL
    # 15.2 + 65536/(1000*43.58*0.7) (index 10 -> 0.6? floor(log2(1024)) = 10 -> LL factor .6) = 17.71.
    p = ccb.nccl_predict("all_reduce", 8, 1, 65536)
    assert p.label == "Ring/LL" and p.times["tree", "LL"] == pytest.approx(
        (15.2 + 65536 / (1000 * 43.5789 * 0.6)) * US, rel=1e-4
    )


def test_ib_h100_two_nodes_by_hand():
    # ib_h100, N = 16 on 2 nodes: ring 8 x 48 GB/s (bwIntra, since nNodes <= 2) -> busBw 384.
    # Ring/Simple: nsteps 30, nInterSteps 2*2 = 4; net overhead Intel 1.0 x 3 = 3.0 us;
    # intra hop max(3.4, 3.0) = 3.4; inter hop 14.0: lat = 8.4 + 26*3.4 + 4*14 = 152.8 us;
    # bw = 384 * 16/30 = 204.8 GB/s. 1 GiB: 2**30 / (16 channels * 16 ranks) >= 64, so x1.4:
    # 213.92 + 2**30 / 204800 = 5456.8 us.
    p = ccb.nccl_predict("all_reduce", 16, 2, 2**30, "ib_h100")
    assert p.latencies["ring", "Simple"] == pytest.approx(152.8 * US)
    assert p.bandwidths["ring", "Simple"] == pytest.approx(204.8e9)
    assert p.times["ring", "Simple"] == pytest.approx((152.8 * 1.4 + 2**30 / 204800) * US)
    # NVLS-Tree: graph 8 x 40/48 (two nodes: min(bwIntra, bwInter)) -> 8 x 40 x 5/6 = 266.67;
    # lat 0 + 25 (NVLink hop) + 2*log2(2)*14 = 53 us. 53 + 4026.5 = 4079.5 us < Ring's 5456.8.
    assert p.latencies["nvls_tree", "Simple"] == pytest.approx(53 * US)
    assert p.label == "NVLSTree/Simple" and p.time == pytest.approx((53 + 2**30 / (1000 * 800 / 3)) * US)
    # Tree/LL: lat 6.8 + 2*((16//2 - 1)*0.6 + 1*5.0) = 25.2; bw min(min(384*.92, 8*41.4)/3.8, 39.0 (Intel, 2 nodes)) / 2 = 19.5
    assert p.latencies["tree", "LL"] == pytest.approx(25.2 * US) and p.bandwidths["tree", "LL"] == pytest.approx(19.5e9)
    small = ccb.nccl_predict("all_reduce", 16, 2, 1024, "ib_h100")
    assert small.label == "Tree/LL" and small.time == pytest.approx((25.2 + 1024 / (1000 * 19.5 * 0.9)) * US)
    # NVLS (not -Tree) needs CollNet on several nodes: not offered.
    assert ("nvls", "Simple") not in p.times


def test_ring_latency_rules_for_broadcast_and_many_nodes():
    # Broadcast on one node, sameChannels: one hop. Ring/LL 6.6 + 0.6 = 7.2; Simple 8.4 + 3.4 = 11.8;
    # nsteps = N = 8, ratio 8/8: LL min(141, 180) = 141; Simple 360.
    t = {(a, p): (lat, bw) for a, p, lat, bw in ccb.nccl_tuning_table("broadcast", 8, 1).values}
    assert t["ring", "LL"] == pytest.approx((7.2 * US, 141e9)) and t["ring", "Simple"] == pytest.approx(
        (11.8 * US, 360e9)
    )
    assert set(t) == {("ring", "LL"), ("ring", "LL128"), ("ring", "Simple")}
    # ib_h100 has sameChannels 0: nsteps x network hop; Simple uses the Tree hop (28 us).
    # N = 16 on 2 nodes: LL 6.6 + 16*2.7 = 49.8; Simple 8.4 + 16*28 = 456.4.
    t = {(a, p): lat for a, p, lat, bw in ccb.nccl_tuning_table("broadcast", 16, 2, "ib_h100").values}
    assert t["ring", "LL"] == pytest.approx(49.8 * US) and t["ring", "Simple"] == pytest.approx(456.4 * US)
    # 64 nodes (more than 2: bwInter, llMaxBw Intel N4 = 20.4): Ring/LL AllReduce on 512 ranks:
    # bw min(20.4, 8*48*0.5) * 512/1022; lat 6.6 + (1022 - 128) * max(0.6, 1.0) + 128 * 2.7.
    t = {(a, p): (lat, bw) for a, p, lat, bw in ccb.nccl_tuning_table("all_reduce", 512, 64, "ib_h100").values}
    assert t["ring", "LL"][0] == pytest.approx((6.6 + 894 * 1.0 + 128 * 2.7) * US)
    assert t["ring", "LL"][1] == pytest.approx(20.4 * 512 / 1022 * 1e9)
    # NVLS-Tree beyond 2 nodes halves bwInter: 8 * min(40, 48/2) * 5/6 = 160 GB/s.
    assert t["nvls_tree", "Simple"][1] == pytest.approx(160e9)


def test_overrides_switch_parts_of_the_model():
    # No LL128, no NVLS, PCI instead of NVLink, AMD CPU, the simple TREE pattern.
    t = {
        (a, p): (lat, bw)
        for a, p, lat, bw in ccb.nccl_tuning_table(
            "all_reduce", 4, 1, ll128=False, nvls_channels=0, intra_link="pci", tree_pattern="tree"
        ).values
    }
    assert {p for _, p in t} == {"LL", "Simple"} and {a for a, _ in t} == {"tree", "ring"}
    # Ring/Simple on PCI: 8.4 + 6 * 5.7 = 42.6 us; Tree/Simple: min(360*.92, 12*38.7) * .85 / 2 = 140.76 GB/s.
    assert t["ring", "Simple"][0] == pytest.approx(42.6 * US)
    assert t["tree", "Simple"][1] == pytest.approx(331.2 * 0.85 / 2 * 1e9)
    # AMD CPU on 2 nodes: llMaxBw row AMD-N2 = 22.5; net overhead 2.0 (x3 = 6.0 > 3.4 for Simple).
    p = ccb.nccl_predict("all_reduce", 16, 2, 0, "ib_h100", cpu="amd")
    assert p.bandwidths["tree", "LL"] == pytest.approx(22.5 / 2 * 1e9)
    assert p.latencies["ring", "Simple"] == pytest.approx((8.4 + 26 * 6.0 + 4 * 14.0) * US)
    topo = ccb.NcclTopology(**{**ccb.NCCL_TOPOLOGIES["dgx_h100"].__dict__, "key": "mine"})
    assert ccb.nccl_predict("all_gather", 8, 1, 2**20, topo).topology == "mine"


def test_all_gather_and_reduce_scatter_offer_ring_and_nvls():
    p = ccb.nccl_predict("reduce_scatter", 8, 1, 2**30)
    assert {a for a, _ in p.times} == {"ring", "nvls"}
    # Ring/Simple: 360 * 8/7 = 411.4 GB/s beats NVLS 266.7 for 1 GiB (lat 8.4 + 7*3.4 = 32.2 us).
    assert p.label == "Ring/Simple" and p.time == pytest.approx((32.2 + 2**30 / (1000 * 360 * 8 / 7)) * US)
    assert {a for a, _ in ccb.nccl_predict("all_gather", 16, 2, 2**30, "ib_h100").times} == {"ring"}


@given(
    st.sampled_from(ccb.NCCL_COLLECTIVES),
    st.integers(2, 4096),
    st.integers(0, 2**40),
    st.sampled_from(["dgx_h100", "ib_h100"]),
)
def test_pick_is_the_fastest_estimate(primitive, n_ranks, m, topology):
    n_nodes = max(1, n_ranks // 8)
    p = ccb.nccl_predict(primitive, n_ranks, n_nodes, m, topology)
    assert p.time == min(p.times.values()) and p.times[p.algorithm, p.protocol] == p.time
    assert all(t > 0 and math.isfinite(t) for t in p.times.values())
    assert p.bus_bandwidth >= 0


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        (("all_to_all", 8, 1, 1024), {}, ValueError, "unknown primitive 'all_to_all'"),
        (("all_reduce", 1, 1, 1024), {}, ValueError, "n_ranks must be >= 2"),
        (("all_reduce", 8, 9, 1024), {}, ValueError, "n_nodes must be <= 8"),
        (("all_reduce", 8, 1, 10.5), {}, ValueError, "whole number of bytes"),
        (("all_reduce", 8, 1, 2.0**51), {}, ValueError, "m must be <= "),
        (("all_reduce", 8, 1, -1), {}, ValueError, "m must be >= 0"),
        (("all_reduce", 8.0, 1, 1024), {}, TypeError, "n_ranks must be an integer"),
        (("all_reduce", 8, 1, 1024), {"topology": "dgx_b200"}, ValueError, "unknown topology 'dgx_b200'"),
        (("all_reduce", 8, 1, 1024), {"rings": 3}, TypeError, "unknown topology field"),
        (("all_reduce", 8, 1, 1024), {"gpu": "pascal"}, ValueError, "unknown gpu 'pascal'"),
        (("all_reduce", 8, 1, 1024), {"ring_channels": 0}, ValueError, "ring_channels must be >= 1"),
        (("all_reduce", 8, 1, 1024), {"ring_bw_intra": -1.0}, ValueError, "ring_bw_intra must be >= 0"),
        (("all_reduce", 8, 1, 1024), {"ll128": 1}, TypeError, "ll128 must be True or False"),
    ],
)
def test_bad_arguments(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        ccb.nccl_predict(*args, **kwargs)


def test_all_gather_on_eight_nodes_by_hand():
    # ib_h100, AllGather, 64 ranks on 8 nodes, 64 MiB. More than 2 nodes: bw = bwInter = 48,
    # busBw 8 x 48 = 384; index2 = 2 (N4 column): llMaxBw Intel 20.4, perChMaxRingLL128 Hopper 36.7.
    # nsteps = N - 1 = 63, nInterSteps = nNodes - 1 = 7; Intel net overhead 1.0 us (x3 Simple).
    # Ring/LL:     bw min(20.4, 192) * 64/63 = 20.724; lat 6.6 + 56*max(0.6, 1.0) + 7*2.7 = 81.5
    # Ring/LL128:  bw min(384*0.92, 8*36.7) * 64/63 = 293.6*64/63 = 298.26; lat 14 + 56*1.9 + 7*4.0 = 148.4
    # Ring/Simple: bw 384*64/63 = 390.10; lat 8.4 + 56*max(3.4, 3.0) + 7*14 = 296.8
    # NVLS is single-node only for AllGather. t = lat + 67108864 / (1000 bw):
    # LL 81.5 + 3238.2 = 3319.7; LL128 148.4 + 225.0 = 373.4; Simple 296.8 + 172.0 = 468.8 -> Ring/LL128.
    m = 64 * 2**20
    p = ccb.nccl_predict("all_gather", 64, 8, m, "ib_h100")
    expected = {
        ("ring", "LL"): 6.6 + 56 * 1.0 + 7 * 2.7 + m / (1000 * 20.4 * 64 / 63),
        ("ring", "LL128"): 14.0 + 56 * 1.9 + 7 * 4.0 + m / (1000 * 293.6 * 64 / 63),
        ("ring", "Simple"): 8.4 + 56 * 3.4 + 7 * 14.0 + m / (1000 * 384 * 64 / 63),
    }
    assert set(p.times) == set(expected)
    for key, t in expected.items():
        assert p.times[key] == pytest.approx(t * US), key
    assert p.label == "Ring/LL128" and p.time == pytest.approx(373.4 * US, abs=0.05 * US)


def test_pcie_node_by_hand():
    # 4 Ampere GPUs on PCIe, 2 ring / tree channels of 12 GB/s, no NVLS. LL128 is off: NCCL
    # requires typeIntra <= PATH_NVB (NVLink) even when the ll128 flag allows the generation.
    # N1 Ampere: llMaxBw 87.7, perChMaxTree 24.0; nsteps = 6.
    # Ring/LL: min(87.7, 24*0.5) * 4/6 = 8.0 GB/s, lat 6.6 + 6*1.0 = 12.6
    # Ring/Simple: 24 * 4/6 = 16.0, lat 8.4 + 6*5.7 = 42.6
    # Tree: min(24*0.92, 2*24.0) = 22.08; LL 22.08/3.8/2 = 2.9053, lat 6.8 + 2*3*1.0 = 12.8;
    #       Simple 22.08/2 = 11.04, lat 0 + 2*3*28 = 168.
    # 4 MiB: treeCorrection index log2(4 MiB / 64) = 16: LL 0.7, Simple 0.7.
    # Ring/LL 12.6 + 4194304/8000 = 536.9; Ring/Simple 42.6 + 262.1 = 304.7;
    # Tree/LL 12.8 + 4194304/(2905.3*0.7) = 2075.2; Tree/Simple 168 + 4194304/(11040*0.7) = 710.7.
    m = 4 * 2**20
    pcie = dict(
        gpu="ampere",
        intra_link="pci",
        ring_channels=2,
        ring_bw_intra=12e9,
        ring_bw_inter=12e9,
        tree_channels=2,
        tree_bw_intra=12e9,
        tree_bw_inter=12e9,
        nvls_channels=0,
        comm_channels=4,
    )
    p = ccb.nccl_predict("all_reduce", 4, 1, m, "dgx_h100", **pcie)
    assert set(p.times) == {("ring", "LL"), ("ring", "Simple"), ("tree", "LL"), ("tree", "Simple")}
    assert p.times["ring", "LL"] == pytest.approx((12.6 + m / 8000) * US)
    assert p.times["ring", "Simple"] == pytest.approx((42.6 + m / 16000) * US)
    assert p.times["tree", "LL"] == pytest.approx((12.8 + m / (1000 * 22.08 / 3.8 / 2 * 0.7)) * US)
    assert p.times["tree", "Simple"] == pytest.approx((168 + m / (1000 * 11.04 * 0.7)) * US)
    assert p.label == "Ring/Simple"
    # One GPU per node: typeIntra is PATH_LOC, so LL128 is back (ppn < 2: Ring/LL128 x 0.7).
    two = ccb.nccl_predict("all_reduce", 2, 2, m, "ib_h100", intra_link="pci")
    assert ("ring", "LL128") in two.times


def test_nvls_needs_more_than_two_gpus_per_node():
    # ncclNvlsInit returns without NVLS when the node has at most two GPUs.
    assert {a for a, _ in ccb.nccl_predict("all_reduce", 2, 1, 2**30).times} == {"tree", "ring"}
    assert "nvls" in {a for a, _ in ccb.nccl_predict("all_reduce", 3, 1, 2**30).times}
    assert "nvls_tree" not in {a for a, _ in ccb.nccl_predict("all_reduce", 4, 2, 2**30, "ib_h100").times}
    assert "nvls_tree" in {a for a, _ in ccb.nccl_predict("all_reduce", 6, 2, 2**30, "ib_h100").times}


def test_single_node_communicator_does_not_see_the_nics():
    # ncclTopoTrimSystem removes the NICs when every rank is on one node: ib_h100 becomes dgx_h100.
    on_one = ccb.nccl_predict("all_reduce", 8, 1, 2**20, "ib_h100")
    assert on_one.topology == "dgx_h100" and on_one.times == ccb.nccl_predict("all_reduce", 8, 1, 2**20).times
    assert ccb.nccl_predict("all_reduce", 16, 2, 2**20, "ib_h100").topology == "ib_h100"
    # Overrides apply to the single-node topology.
    assert ccb.nccl_predict("all_reduce", 8, 1, 2**30, "ib_h100", nvls_channels=0).label == "Ring/Simple"


def test_in_network_bound_keeps_the_node_cut():
    # 64 nodes of 8: NVLS-Tree reduces inside each node, not between nodes, so the node cut keeps
    # c(64) M / node_beta = (2 * 63/64) * 2**30 / 384e9 = 5.505 ms (M / 384e9 = 2.796 ms is less).
    r = ccb.nccl_vs_bound("all_reduce", 512, 64, 2**30, "ib_h100")
    assert r.pick == "NVLSTree/Simple" and r.in_network
    assert r.in_network_bound_time == pytest.approx(2 * 63 / 64 * 2**30 / 384e9)
    # NVLS-Tree beyond 2 nodes: bw min(40, 48/2) * 8 * 5/6 = 160 GB/s; lat 25 + 2*6*14 = 193 us.
    assert r.nccl_time == pytest.approx((193 + 2**30 / 160e3) * US)
    assert r.efficiency == pytest.approx(r.in_network_bound_time / r.nccl_time)


def test_estimate_faster_than_the_bound_is_flagged():
    # NVLS credited with 8 x 200 GB/s: 1600 * 5/6 = 1333 GB/s, far above beta = 12 x 30 = 360:
    # NCCL's estimate (25 + 2**30 / 1333333 = 830.3 us) beats the bound M / 360e9 = 2.98 ms.
    r = ccb.nccl_vs_bound("all_reduce", 8, 1, 2**30, nvls_bw_intra=200e9, nvls_bw_inter=200e9)
    assert r.flag == "model_beats_bound" and r.efficiency is None
    assert r.nccl_time == pytest.approx((25 + 2**30 / (1000 * 1600 * 5 / 6)) * US)
    table = ccb.nccl_vs_bound_table([(8, 1, 2**30)], "dgx_h100")
    assert table.values[0].flag is None


def test_no_algorithm_available():
    zero = dict(ring_bw_intra=0.0, ring_bw_inter=0.0, tree_bw_intra=0.0, tree_bw_inter=0.0, nvls_channels=0)
    with pytest.raises(ValueError, match="no algorithm/protocol available"):
        ccb.nccl_predict("all_reduce", 8, 1, 1024, **zero)


@given(
    st.sampled_from(["dgx_h100", "ib_h100"]),
    st.integers(1, 256),
    st.integers(1, 8),
    st.integers(0, 2**40),
    st.sampled_from(ccb.NCCL_COLLECTIVES),
)
def test_presets_never_beat_their_bound(topology, nodes, per_node, m, primitive):
    # The presets credit no graph with more than the ring's beta (NVLS at most 8 x 40 x 5/6 = 267 < 360),
    # so NCCL's estimate is never faster than the bound and the efficiency stays in (0, 1].
    n_ranks = max(2, nodes * per_node)
    nodes = min(nodes, n_ranks)
    r = ccb.nccl_vs_bound(primitive, n_ranks, nodes, m, topology)
    assert r.flag is None and 0 < r.efficiency <= 1 + 1e-12
    assert r.in_network_bound_time <= r.bound_time * (1 + 1e-12)


# -- the NVLS graph, searched per GPU count (src/graph/search.cc of 2.21.5) ------------------------

SM90_INTRA = (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0)  # sm90SpeedArrayIntra, GB/s
SM90_INTER = (48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12)
H100_LINK = 18 * 20.6  # NVLinks x SM90_NVLINK_BW: a GPU's link to the NVSwitch, GB/s


def _nvls_rule(gpus, link=H100_LINK, nic=None):
    """The search rule in closed form (not the module's step-by-step search).

    One node: one channel per GPU, each charging every GPU's link once and its head's twice, so the
    first speed (from the start speed s <= link/(G-1)) with (G+1) s <= link is bwIntra; pass 2 raises
    bwInter alone while it is below 2 bwIntra, i.e. to the first speed >= 2 bwIntra or the top.
    Several nodes (one NIC per GPU, path ``nic``): speeds of the inter array no faster than the NIC,
    the first with (G+1) s <= link gives all G channels; bwInter climbs back to the NIC's speed.
    """
    if gpus <= 2:
        return (0, 0.0, 0.0)
    if nic is None:
        usable = [s for s in SM90_INTRA if s * gpus <= link * gpus / (gpus - 1)]
        intra = next(s for s in usable if (gpus + 1) * s <= link)
        inter = min([s for s in SM90_INTRA if s >= 2 * intra], default=SM90_INTRA[0])
    else:
        usable = [s for s in SM90_INTER if s <= nic]
        intra = next(s for s in usable if (gpus + 1) * s <= link)
        inter = max(s for s in usable if s < 2 * intra)
    return (gpus, intra * 1e9, inter * 1e9)


@pytest.mark.parametrize("gpus", range(1, 9))
def test_nvls_search_follows_the_rule_per_gpu_count(gpus):
    assert tuple(ccb.nvls_graph(gpus, H100_LINK * 1e9)) == pytest.approx(_nvls_rule(gpus))
    assert tuple(ccb.nvls_graph(gpus, H100_LINK * 1e9, 48e9)) == pytest.approx(_nvls_rule(gpus, nic=48.0))


def test_nvls_graph_of_eight_h100_is_the_logged_one():
    # NVIDIA/nccl#1197 prints "Pattern 5, crossNic 0, nChannels 8, bw 40.000000/60.000000" for 8 GPUs
    # (its dump shows 360 GB/s per GPU: 9 x 40 = 360 still fits). 9 x 50 = 450 > 370.8 does not.
    for link in (370.8e9, 360e9):
        assert ccb.nvls_graph(8, link) == (8, 40e9, 60e9)
    # The presets hold that result (and the multi-node one: 8 x 40/48) ...
    dgx, ib = ccb.NCCL_TOPOLOGIES["dgx_h100"], ccb.NCCL_TOPOLOGIES["ib_h100"]
    assert (dgx.nvls_channels, dgx.nvls_bw_intra, dgx.nvls_bw_inter) == (8, 40e9, 60e9)
    assert (ib.nvls_channels, ib.nvls_bw_intra, ib.nvls_bw_inter) == (8, 40e9, 48e9)
    # ... and the model searches again for fewer GPUs: 4 H100 get 4 x 60 GB/s -> 4 * 60 * 5/6 = 200 GB/s.
    t = {(a, p): bw for a, p, lat, bw in ccb.nccl_tuning_table("all_reduce", 4, 1).values}
    assert t["nvls", "Simple"] == pytest.approx(200e9)
    # An override of an nvls_* field is what the caller's log says: no search.
    t = {(a, p): bw for a, p, lat, bw in ccb.nccl_tuning_table("all_reduce", 4, 1, nvls_bw_intra=50e9).values}
    assert t["nvls", "Simple"] == pytest.approx(8 * 50 * 5 / 6 * 1e9)


def test_four_gpus_never_pick_nvls():
    # 4 H100: NVLS 4 x 60 x 5/6 = 200 GB/s, 25 us; Ring/LL128 min(360*.92, 12*36.7) * 4/6 = 220.8 GB/s,
    # 14 + 6*1.9 = 25.4 us; Ring/Simple 360 * 4/6 = 240 GB/s, 8.4 + 6*3.4 = 28.8 us. NVLS is ahead of
    # Ring/LL128 only below 0.4 us / (1/200e3 - 1/220.8e3) = 849 bytes, where Ring/LL (10.2 us) wins.
    picks = {ccb.nccl_predict("all_reduce", 4, 1, 2**k).label for k in range(0, 41)}
    assert "NVLS/Simple" not in picks
    p = ccb.nccl_predict("all_reduce", 4, 1, 2**30)
    assert p.label == "Ring/Simple" and p.times["nvls", "Simple"] == pytest.approx((25 + 2**30 / 200e3) * US)


def test_predicted_nvls_busbw_against_measured_and_chapter_3():
    # 16 GiB on 8 H100: 25 us + 2**34 / 266.67e9 s = 64.4495 ms; busbw 1.75 * 2**34 / 64.4495 ms = 466.5 GB/s,
    # 2.8 % under the ~480 GB/s measured (nccl-tests#212), and under chapter 3's NVLS ceiling
    # 2(N-1)/N / ((N+1)/N) * 370 GB/s = 1.75 / 1.125 * 370 = 575.6 GB/s.
    p = ccb.nccl_predict("all_reduce", 8, 1, 16 * 2**30)
    assert p.label == "NVLS/Simple"
    assert p.bus_bandwidth == pytest.approx(1.75 * 2**34 / (25e-6 + 2**34 / (800e9 / 3)))
    assert p.bus_bandwidth == pytest.approx(466.49e9, rel=1e-4)
    assert 0.02 < 1 - p.bus_bandwidth / 480e9 < 0.03 and p.bus_bandwidth < 1.75 / 1.125 * 370e9


def test_efficiency_against_the_line_rate():
    # NCCL's beta is its own ring bus bandwidth (12 x 30 = 360 GB/s), so Ring/Simple's large-message
    # efficiency is 1 by construction: 16 GiB, no NVLS: bound 1.75 M / 360e9 against 56 us + M / 205.71e9.
    m = 16 * 2**30
    ring = ccb.nccl_vs_bound("all_reduce", 8, 1, m, nvls_channels=0)
    assert ring.pick == "Ring/Simple"
    assert ring.efficiency == pytest.approx((1.75 * m / 360e9) / (56e-6 + m / (360e9 * 8 / 14)))
    assert ring.efficiency > 0.999
    # Against NVLink4's 450 GB/s per direction the same estimate reaches 360/450 = 0.8 (less the 56 us).
    assert ring.line_efficiency == pytest.approx((1.75 * m / 450e9) / (56e-6 + m / (360e9 * 8 / 14)))
    # NVLS, 1 GiB: in-network bound M / 450e9 = 2.386 ms against 4.0515 ms -> 0.589.
    nvls = ccb.nccl_vs_bound("all_reduce", 8, 1, 2**30)
    assert nvls.line_efficiency == pytest.approx((2**30 / 450e9) / (25e-6 + 2**30 / (800e9 / 3)))
    # Several nodes: the node's NICs at 8 x 50 GB/s = 400 GB/s; 64 nodes, 1 GiB, NVLS-Tree:
    # c(64) M / 400e9 = 5.284 ms against 193 us + M / 160e9.
    far = ccb.nccl_vs_bound("all_reduce", 512, 64, 2**30, "ib_h100")
    assert far.line_bound_time == pytest.approx(2 * 63 / 64 * 2**30 / 400e9)
    assert far.line_efficiency == pytest.approx(far.line_bound_time / (193e-6 + 2**30 / 160e9))


def test_chapter_8_numbers_after_the_nvls_fix():
    m = 2**30
    nvls = 25e-6 + m / (800e9 / 3)  # 8 x 40 x 5/6 GB/s, 25 us
    ring = 56e-6 + m / (360e9 * 8 / 14)  # 12 x 30 x 8/14 GB/s, 8.4 + 14 x 3.4 us
    r = ccb.nccl_vs_bound("all_reduce", 8, 1, m)
    # 1 GiB efficiency against the in-network bound M / 360e9: 2.9826 / 4.0515 = 0.736
    assert r.efficiency == pytest.approx((m / 360e9) / nvls)
    # NVLS is 1.30x faster than Ring/Simple (was "~1.6x"); by volume alone it could be (7/4) / (9/8) = 14/9
    off = ccb.nccl_vs_bound("all_reduce", 8, 1, m, nvls_channels=0)
    assert off.nccl_time / r.nccl_time == pytest.approx(ring / nvls) and round(ring / nvls, 2) == 1.30
    # NVLS's bandwidth over Ring/LL's: 266.67 / (min(llMaxBw 141, 360 x 0.5) x 8/14 = 80.57) = 3.31 (was "3.5-4")
    p = ccb.nccl_predict("all_reduce", 8, 1, 2**21)
    assert p.bandwidths["nvls", "Simple"] / p.bandwidths["ring", "LL"] == pytest.approx((800 / 3) / (141 * 8 / 14))
    # 1 KiB: Ring/LL 6.6 + 14 x 0.6 = 15.0 us against the bound's 3 x 0.6 = 1.8 us: the base latency 6.6 and
    # the 11 extra hops (6.6) are half each of the 13.2 us gap.
    small = ccb.nccl_predict("all_reduce", 8, 1, 1024)
    assert small.latencies["ring", "LL"] == pytest.approx(15.0e-6)
    assert (15.0 - 1.8) / 2 == pytest.approx(6.6) == pytest.approx(11 * 0.6)


def test_share_of_the_nvlink_map_within_80_percent():
    # Rows N = 2..8, sizes 2**4..2**34: 7 x 31 = 217 cells. NVLS rows (N >= 5) never reach 0.8: at large M
    # their efficiency tends to algbw / 360 = 250/360, 250/360, 233.3/360, 266.7/360 (<= 0.74). Rings (N <= 4):
    # Ring/Simple's algbw is 360 N / (2(N-1)) = c(N) M's own rate, so efficiency = t_bw / (lat + t_bw) >= 0.8 iff
    # t_bw >= 4 lat: N = 2: lat 8.4 + 2 x 3.4 = 15.2 us -> M >= 4 x 15.2e-6 x 360e9 = 21.9 MB; N = 3: 22 us at
    # 270 GB/s -> 23.8 MB; N = 4: 28.8 us at 240 GB/s -> 27.6 MB. Each: 2**25 .. 2**34, 10 sizes. 30 / 217 = 13.8 %.
    _, grid = ccb.plot_nccl_pick_map("dgx_h100")
    good = grid["efficiency"] >= 0.8
    assert good.sum() == 30 and good.shape == (7, 31)
    assert [int(row.sum()) for row in good] == [10, 10, 10, 0, 0, 0, 0]
    assert grid["sizes"][good[0].argmax()] == 2**25


def test_one_node_preset_over_several_nodes_keeps_its_network():
    # dgx_h100 names no NIC. Stretched over 60 nodes, NVLS-Tree's second search pass must stop at the
    # network its rings cross nodes with (30 GB/s per channel), not at the NVLink speed (60): then
    # bw = min(40, 30 / 2) * 8 channels * 5/6 = 100 GB/s. With 60 it was min(40, 30) * 8 * 5/6 = 200 GB/s,
    # and for M above ~356 MB the estimate 165 us + M / 200e9 beat the node cut c(60) M / 360e9.
    p = ccb.nccl_predict("all_reduce", 480, 60, 2**32, "dgx_h100")
    assert p.bandwidths["nvls_tree", "Simple"] == pytest.approx(100e9)
    r = ccb.nccl_vs_bound("all_reduce", 480, 60, 2**32, "dgx_h100")
    assert r.flag is None and 0 < r.efficiency <= 1
