"""Hierarchical AllReduce on two-level hardware: byte-checked, rounds and bytes by hand, the model's times."""

from __future__ import annotations

import math

import pytest

import ccb_helpers as ccb

SHAPES = [(1, 2), (2, 1), (2, 2), (3, 2), (2, 3), (4, 4), (5, 3), (3, 8)]


@pytest.mark.parametrize("nodes,g", SHAPES)
@pytest.mark.parametrize("nic", ["gpu", "node"])
def test_byte_checked_with_rounds_and_bytes_by_hand(nodes, g, nic):
    t = ccb.two_level(nodes, g, nic)
    n = t.n
    for m in (0, 7, 2 * n * 8 * 3):
        for name, chunks in (("hierarchical_ring", None), ("two_level_tree", 1), ("two_level_tree", 3)):
            r = ccb.simulate(name, "all_reduce", n, m, topology=t, chunks=chunks)
            assert r.correct, (name, nodes, g, nic, m)
        if m % (2 * n * 3) == 0 and m:
            r = ccb.simulate("hierarchical_ring", "all_reduce", n, m, topology=t)
            # 2(G-1) ring rounds inside the nodes, 2(K-1) between them; 2(G-1)/G M + 2(K-1)/(K G) M
            assert r.rounds == 2 * (g - 1) + 2 * (nodes - 1)
            assert r.max_message.sum() == 2 * (g - 1) * m // g + 2 * (nodes - 1) * m // (nodes * g)


@pytest.mark.parametrize("nodes,g", SHAPES)
def test_two_level_model_times_match_the_closed_forms(nodes, g):
    hw = ccb.TwoLevelHardware(1e-6, 450e9, 3e-6, 50e9)
    for nic in ("gpu", "node"):
        t = ccb.two_level(nodes, g, nic)
        m = 2 * t.n * 4 * 64
        for name, chunks in (("hierarchical_ring", None), ("two_level_tree", 4)):
            s = ccb.hierarchical_schedule(name, t, m, chunks=chunks)
            simulated = ccb.two_level_time(s, t, hw)
            assert math.isclose(simulated, ccb.two_level_algorithm_time(name, t, m, hw, chunks=chunks), rel_tol=1e-12)
            assert simulated >= ccb.two_level_lower_bound("all_reduce", t, m, hw).total * (1 - 1e-12)


def test_one_port_hierarchical_ring_attains_the_one_port_bound():
    hw = ccb.two_level_hardware()
    for nodes in (2, 3, 4, 8):
        t = ccb.two_level(nodes, 8)
        m = 2**32
        ratio = (
            ccb.two_level_algorithm_time("hierarchical_ring", t, m, hw)
            / ccb.two_level_lower_bound("all_reduce", t, m, hw).total
        )
        assert 1 <= ratio < 1.002


@pytest.mark.parametrize("chunks", [2, 3, 5])
def test_pipelined_ring_needs_two_ports_and_is_correct(chunks):
    t = ccb.two_level(3, 4)
    s = ccb.hierarchical_schedule("hierarchical_ring", t, 12 * 40 * chunks, chunks=chunks)
    assert ccb.run_schedule(s, ports=2, topology=t).correct
    with pytest.raises(ccb.ScheduleError, match="ports=1"):
        ccb.run_schedule(s, ports=1, topology=t)
    hw = ccb.two_level_hardware()
    assert ccb.two_level_time(s, t, hw) >= ccb.two_level_lower_bound("all_reduce", t, s.m, hw, ports=2).total


def test_flat_case_is_the_inter_node_algorithm():
    for n in (2, 5, 8, 12):
        assert ccb.algorithm_terms("hierarchical_ring", "all_reduce", n, 1200) == ccb.algorithm_terms(
            "ring", "all_reduce", n, 1200
        )
        assert ccb.algorithm_terms("two_level_tree", "all_reduce", n, 1200) == ccb.algorithm_terms(
            "double_binary_tree", "all_reduce", n, 1200, pipelined=False
        )
        assert ccb.simulate("two_level_tree", "all_reduce", n, 1200).correct
    assert "hierarchical_ring" not in ccb.applicable_algorithms("all_reduce")


def test_refusals_are_clear():
    with pytest.raises(ValueError, match="not neighbours on ring 8"):
        ccb.simulate("two_level_tree", "all_reduce", 8, 80, topology=ccb.ring(8))
    with pytest.raises(ValueError, match="name"):
        ccb.hierarchical_terms("tree", 2, 2, 10.0)
