"""Two-level hardware (chapter 9): the topology measured on its graph, the model, the bound."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ccb_helpers as ccb
from ccb_helpers.nccl_tests.ceilings import two_level_busbw_ceiling


@pytest.mark.parametrize("nic", ["gpu", "node"])
def test_closed_forms_match_the_graph(nic):
    for nodes in range(1, 6):
        for g in range(1, 5):
            for l_nv, l_nic in ((1, 1), (3, 1), (1, 2), (2, 3)):
                t = ccb.two_level(nodes, g, nic, l_nv, l_nic)
                if t.n < 2 or t.n > 14:
                    continue
                assert t.bisection_links == ccb.measured_bisection(t), (nodes, g, nic, l_nv, l_nic)
                assert t.diameter == ccb.measured_diameter(t)


def test_hand_values_of_the_topology():
    t = ccb.two_level(2, 4)
    # 8 GPUs, one NVLink + one NIC each; the cut between the nodes crosses the 4 + 4 NICs' halves
    assert (t.n, t.degree, t.diameter, t.step_diameter, t.bisection_links) == (8, 2, 2, 1, 4)
    assert ccb.two_level(4, 8, "node").bisection_links == 2  # two nodes' NICs
    with pytest.raises(ValueError, match="nic"):
        ccb.two_level(2, 2, "rail")


def test_round_costs_by_hand():
    t = ccb.two_level(2, 2)
    hw = ccb.TwoLevelHardware(1e-6, 100e9, 5e-6, 10e9)
    T = ccb.Transfer
    s = ccb.Schedule.from_transfers(
        "all_reduce", 4, 400, [[T(0, 1, 0, 100, "reduce")], [T(1, 3, 0, 100)], [T(0, 2, 0, 100), T(1, 3, 100, 100)]]
    )
    costs = ccb.two_level_round_costs(s, t, hw)
    # intra: 1 us + 100 B / 100 GB/s; inter: 5 us + 100 B / 10 GB/s; two GPUs' own NICs at once
    assert np.allclose(costs, [1e-6 + 1e-9, 5e-6 + 1e-8, 5e-6 + 1e-8])
    node_nic = ccb.two_level(2, 2, "node")
    assert np.isclose(ccb.two_level_round_costs(s, node_nic, hw)[2], 5e-6 + 2e-8)  # one NIC shared


def test_bound_by_hand_and_against_chapter_8():
    hw = ccb.two_level_hardware()  # 450 GB/s NVLink, 50 GB/s NIC per GPU, 1 / 3 us
    m = 2**30
    t = ccb.two_level(2, 8)
    b1 = ccb.two_level_lower_bound("all_reduce", t, m, hw)
    v, v_node = 2 * 15 / 16 * m, 2 * 1 / 2 * m
    assert math.isclose(b1.endpoint, (v - v_node / 8) / 450e9 + v_node / 8 / 50e9)
    assert math.isclose(b1.node, v_node / 400e9)
    assert b1.rounds == 4 and b1.network_rounds == 1
    assert math.isclose(b1.latency, 3e-6 + 3 * 1e-6)
    b2 = ccb.two_level_lower_bound("all_reduce", t, m, hw, ports=2)
    assert math.isclose(b2.endpoint, v / 500e9)
    # Chapter 8's corrected large-message ceiling (both egress paths): busbw = c(N) M / max(terms)
    ceiling = two_level_busbw_ceiling("all_reduce", 16, 2, 450e9, rail_beta=50e9)
    assert math.isclose(v / max(b2.endpoint, b2.node), ceiling)


@pytest.mark.parametrize("primitive", ccb.two_level_network.TWO_LEVEL_PRIMITIVES)
def test_generic_time_respects_the_packages_bounds(primitive):
    """On ccb.two_level the simulator charges NVLinks and NICs: nothing beats bisection or rounds."""
    algorithms = [a for a in ccb.ALGORITHMS if primitive in ccb.ALGORITHMS[a]]
    for nodes, g, nic in ((2, 2, "gpu"), (3, 2, "node"), (2, 3, "node"), (4, 1, "gpu")):
        t = ccb.two_level(nodes, g, nic)
        n, m = t.n, 48 * t.n
        for a in algorithms:
            try:
                r = ccb.simulate(a, primitive, n, m, topology=t)
            except ValueError:
                continue  # a power of two only, or a topology the algorithm refuses
            assert r.correct
            time = r.time(1e-6, 1e9)
            assert time >= ccb.bisection_lower_bound(primitive, t, m, 1e9) * (1 - 1e-12), (a, nodes, g, nic)
            assert time >= ccb.round_lower_bound(primitive, n, m, 1e-6, 1e9, degree=t.degree) * (1 - 1e-12)
