"""The two-level busbw ceiling with both ways out of a GPU (eq:cc-nccl-two-level), derived by hand.

Every expected value below is worked out in the comment next to it from the link rates alone;
the tightness test builds the schedules that reach the ceiling by counting the bytes each GPU puts
on each kind of link, without the package.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import ccb_helpers as ccb

GB = 1e9


def test_terms_two_h100_nodes_with_one_400g_nic_per_gpu():
    # 16 H100 on 2 nodes, NVLink 450 GB/s, one 400 Gb/s = 50 GB/s NIC per GPU (400 GB/s per node).
    # Endpoint: each GPU sends c(16) M = 1.875 M through 450 + 50 = 500 GB/s -> busbw <= 500.
    # Node cut: each node sends c(2) M = M through 400 GB/s -> busbw <= 1.875 x 400 = 750.
    for network in ({"node_beta": 400 * GB}, {"rail_beta": 50 * GB}):
        t = ccb.two_level_ceiling_terms("all_reduce", 16, 2, 450 * GB, **network)
        assert (t.links, t.nic, t.endpoint) == pytest.approx((450 * GB, 50 * GB, 500 * GB))
        assert t.node_cut == pytest.approx(750 * GB)
        assert t.ceiling == pytest.approx(500 * GB) and t.binding == "endpoint"
        assert ccb.two_level_busbw_ceiling("all_reduce", 16, 2, 450 * GB, **network) == pytest.approx(500 * GB)


def test_node_cut_binds_on_a3_mega_and_endpoint_when_the_nics_double():
    # A3 Mega: 8 x 200 Gb/s = 200 GB/s per node: endpoint 450 + 200/8 = 475; node cut 1.875 x 200 = 375.
    t = ccb.two_level_ceiling_terms("all_reduce", 16, 2, 450 * GB, 200 * GB)
    assert t.endpoint == pytest.approx(475 * GB) and t.ceiling == pytest.approx(375 * GB)
    assert t.binding == "node_cut"
    # NICs doubled: endpoint 450 + 400/8 = 500, node cut 750: the endpoint binds at 500, not 450.
    t = ccb.two_level_ceiling_terms("all_reduce", 16, 2, 450 * GB, 400 * GB)
    assert t.ceiling == pytest.approx(500 * GB) and t.binding == "endpoint"


def test_uneven_nodes_and_other_primitives():
    # 10 ranks on 3 nodes: the fullest node has r = 4 GPUs sharing 100 GB/s -> 25 GB/s each.
    t = ccb.two_level_ceiling_terms("all_gather", 10, 3, 60 * GB, 100 * GB)
    assert t.nic == pytest.approx(25 * GB) and t.endpoint == pytest.approx(85 * GB)
    # Node cut of AllGather: c(10)/c(3) x 100 = (9/10)/(2/3) x 100 = 135 GB/s > 85: endpoint binds.
    assert t.node_cut == pytest.approx(135 * GB) and t.binding == "endpoint"
    # AllToAll keeps its own node cut: 16 on 2, 400 GB/s per node -> 15 x 400 / (8 x 8) = 93.75.
    t = ccb.two_level_ceiling_terms("all_to_all", 16, 2, 450 * GB, 400 * GB)
    assert t.ceiling == pytest.approx(93.75 * GB) and t.binding == "node_cut"
    # Two ports of 100 GB/s and 50 GB/s of network per GPU: 250 GB/s, SendRecv's node cut 8 x 50 = 400.
    t = ccb.two_level_ceiling_terms("sendrecv", 16, 2, 100 * GB, rail_beta=50 * GB, ports=2)
    assert (t.links, t.endpoint, t.node_cut) == pytest.approx((200 * GB, 250 * GB, 400 * GB))


def test_one_node_and_a_nic_behind_the_link_add_nothing():
    t = ccb.two_level_ceiling_terms("all_reduce", 8, 1, 450 * GB)
    assert (t.nic, t.endpoint, t.node_cut, t.binding) == (0.0, 450 * GB, None, "endpoint")
    # PCIe-only GPUs: the NIC hangs off the same PCIe link, so the link is the only way out.
    t = ccb.two_level_ceiling_terms("all_reduce", 16, 2, 15.75 * GB, 400 * GB, nic_shares_link=True)
    assert (t.nic, t.ceiling) == (0.0, 15.75 * GB)
    with pytest.raises(TypeError, match="nic_shares_link must be True or False"):
        ccb.two_level_ceiling_terms("all_reduce", 16, 2, 450 * GB, 400 * GB, nic_shares_link="yes")
    with pytest.raises(ValueError, match="not both"):
        ccb.two_level_ceiling_terms("all_reduce", 16, 2, 450 * GB, 400 * GB, rail_beta=50 * GB)


def _per_gpu_bytes_of_flat_rings(gpus_per_node: int, nodes: int = 2):
    """Eight rings over 16 GPUs, ring i leaving each node on a different GPU; each carries 1/8 of M.

    Returns (NVLink bytes, NIC bytes) sent by the busiest GPU, in units of M (Fractions).
    Ring AllReduce over n ranks: every rank sends 2 (n-1)/n of the ring's data to its successor.
    """
    n = gpus_per_node * nodes
    share = Fraction(1, gpus_per_node)
    per_edge = 2 * Fraction(n - 1, n) * share
    nvlink = {(k, j): Fraction(0) for k in range(nodes) for j in range(gpus_per_node)}
    nic = dict(nvlink)
    for i in range(gpus_per_node):
        order = [(k, (i + j) % gpus_per_node) for k in range(nodes) for j in range(gpus_per_node)]
        for a, b in zip(order, order[1:] + order[:1]):
            if a[0] == b[0]:
                nvlink[a] += per_edge
            else:
                nic[a] += per_edge
    assert len(set(nic.values())) == 1 and len(set(nvlink.values())) == 1  # every GPU alike
    return next(iter(nvlink.values())), next(iter(nic.values()))


def test_the_endpoint_ceiling_is_reached_on_two_h100_nodes():
    # Hierarchical AllReduce on 2 x 8: ReduceScatter inside the node (7/8 M over NVLink), the
    # 1/8 shard exchanged with the other node (M/8 through the NIC), AllGather inside (7/8 M).
    hier_nvlink, hier_nic = Fraction(7, 4), Fraction(1, 8)
    nvlink_rate, nic_rate, c16 = 450, 50, Fraction(15, 8)
    # Alone it is NVLink-bound: busbw = 1.875 M / (1.75 M / 450) = 15/14 x 450 = 482.14 GB/s.
    hier = c16 / max(hier_nvlink / nvlink_rate, hier_nic / nic_rate)
    assert hier == Fraction(15, 14) * 450
    # Flat rings crossing on every GPU's NIC: 15/64 M through the NIC, 105/64 M over NVLink.
    ring_nvlink, ring_nic = _per_gpu_bytes_of_flat_rings(8)
    assert (ring_nvlink, ring_nic) == (Fraction(105, 64), Fraction(15, 64))
    # A fraction f of the data hierarchical, 1 - f on the rings; both paths busy for the same time
    # when NVLink bytes = 9 x NIC bytes: 112 f + 105 (1 - f) = 9 (8 f + 15 (1 - f)) -> f = 3/7.
    f = Fraction(3, 7)
    nvlink = f * hier_nvlink + (1 - f) * ring_nvlink
    nic = f * hier_nic + (1 - f) * ring_nic
    assert nvlink / nvlink_rate == nic / nic_rate
    mixed = c16 / (nvlink / nvlink_rate)
    assert mixed == 500
    ceiling = ccb.two_level_busbw_ceiling("all_reduce", 16, 2, 450 * GB, rail_beta=50 * GB)
    assert ceiling == pytest.approx(float(mixed) * GB)  # reached: the ceiling is tight here
    assert hier * GB < ceiling  # the hierarchical schedule alone does not reach it


def test_in_switch_ceiling_uses_both_ways_out():
    # NVLS-Tree on 2 x 8 H100, 8 x 400 Gb/s: GPU term 1.875 x (450 + 50) = 937.5, node 1.875 x 400 = 750.
    assert ccb.in_switch_busbw_ceiling("all_reduce", 16, 2, 450 * GB, 400 * GB) == pytest.approx(750 * GB)
    # With 8 x 2 x 400 Gb/s (800 GB/s per node): node term 1500, GPU term 1.875 x (450 + 100) = 1031.25.
    assert ccb.in_switch_busbw_ceiling("all_reduce", 16, 2, 450 * GB, 800 * GB) == pytest.approx(1031.25 * GB)
    # AllGather keeps its endpoint volume in the switch: the two-level ceiling, 450 + 50 = 500.
    assert ccb.in_switch_busbw_ceiling("all_gather", 16, 2, 450 * GB, 400 * GB) == pytest.approx(500 * GB)


def test_report_charges_the_endpoint_with_both_ways_out():
    # The A3 Mega log with 400 GB/s per node, NIC-bound nowhere: the endpoint term at 1 GiB and up
    # is 450 + 50 = 500 GB/s, so the ceiling of the largest row is 500 GB/s, not 450.
    log = ccb.read_published_log("a3mega_h100_2node_all_reduce")
    report = ccb.nccl_tests_report(log, 1e-6, 450 * GB, n_nodes=2, node_beta=400 * GB)
    last = report.values[-1]
    assert last["ceiling"] == pytest.approx(500 * GB) and last["regime"] == "bandwidth"
    assert last["bound_time"] == pytest.approx(1.875 * last["size"] / (500 * GB))
    behind = ccb.nccl_tests_report(log, 1e-6, 450 * GB, n_nodes=2, node_beta=400 * GB, nic_shares_link=True)
    assert behind.values[-1]["ceiling"] == pytest.approx(450 * GB)


def test_nccl_units_bound_gives_each_gpu_its_share_of_the_network():
    # ib_h100 on 2 nodes: beta = 384 GB/s (NCCL's ring graph), node_beta = 384 GB/s, 8 GPUs per node:
    # the endpoint term of 1 GiB is 1.875 x 2**30 / (384 + 48) GB/s; the node term 2**30 / 384 GB/s is less.
    alpha, beta, node_beta = ccb.nccl_bound_parameters("ib_h100")
    assert (beta, node_beta) == (384 * GB, 384 * GB)
    r = ccb.nccl_vs_bound("all_reduce", 16, 2, 2**30, "ib_h100")
    assert r.bound_time == pytest.approx(1.875 * 2**30 / (432 * GB))
    # NVLS-Tree: M / (384 + 48) = 2.485 ms against the node's c(2) M / 384 = 2.796 ms: the node binds.
    assert r.in_network_bound_time == pytest.approx(2**30 / (384 * GB))


def test_published_table_efficiencies_with_both_ways_out():
    by_key = {v["key"]: v for v in ccb.published_summary_table().values}
    # OCI A100 on 2 nodes: NVLink 300 GB/s, 16 x 100 Gb/s = 200 GB/s per node -> endpoint 300 + 200/8 =
    # 325 GB/s, node cut 1.875 x 200 = 375: 237.94 GB/s (8 GiB, as printed) is 0.732 of 325 (it was 0.79 of 300).
    oke = by_key["oke_a100_2node_all_reduce"]
    assert oke["ceiling"] == pytest.approx(325 * GB) and oke["efficiency"] == pytest.approx(237.94 / 325, abs=5e-4)
    # nccl-tests#319: endpoint 450 + 50 = 500 GB/s; it ran NVLS-Tree, held against 750.
    issue = by_key["hgx_h100_2node_all_reduce_issue319"]
    assert issue["endpoint_ceiling"] == pytest.approx(500 * GB) and issue["ceiling"] == pytest.approx(750 * GB)
    # One T4 per node behind PCIe: the link is the only way out: min(15.75, 12.5) = 12.5 either way.
    assert ccb.PUBLISHED_LOGS["eks_efa_t4_2node_all_reduce"].nic_shares_link
    assert by_key["eks_efa_t4_2node_all_reduce"]["ceiling"] == pytest.approx(12.5 * GB)
