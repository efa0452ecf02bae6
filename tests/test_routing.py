"""Routed (cut-through) timing on rings, tori and meshes (ccb.routed_time): loads by hand, and the bound of chapter 9."""

from __future__ import annotations

import pytest

import ccb_helpers as ccb


def test_link_loads_by_hand():
    # Recursive doubling all-gather on a ring of 8, blocks of 100 B: distance 1 (100 on a link),
    # distance 2 (two 200-B messages share a link), distance 4 (a tie: half each way, four halves
    # of 400 B on one link).
    loads = ccb.routed_loads(ccb.generate("recursive_doubling", "all_gather", 8, 800), ccb.ring(8)).link_bytes
    # distance 4 is a tie: every message goes one way round (a deterministic choice), 4 of them
    # meet on a link: 4 x 400 bytes (a split of each message would give 800)
    assert loads.tolist()[:2] == [100.0, 400.0] and loads[2] >= 800.0
    # On a mesh a message to the far end crosses every link of its row, no wrap-around.
    T = ccb.Transfer
    s = ccb.Schedule.from_transfers("broadcast", 4, 10, [[T(0, 3, 0, 10)]])
    assert ccb.routed_loads(s, ccb.mesh(4)).link_bytes.tolist() == [10.0]
    assert ccb.routed_time(s, ccb.torus(4), 1.0, 10.0) == 2.0  # one hop the short way round


def test_neighbour_schedules_cost_what_the_simulator_says():
    for n in (5, 8, 12):
        r = ccb.simulate("ring", "all_reduce", n, 120 * n, topology=ccb.ring(n))
        assert ccb.routed_time(r.schedule, ccb.ring(n), 1e-6, 1e9) == pytest.approx(r.time(1e-6, 1e9))


@pytest.mark.parametrize("topology", [ccb.ring(8), ccb.ring(13), ccb.torus(4, 4), ccb.torus(2, 8), ccb.mesh(4, 4)])
def test_nothing_routed_beats_the_bound(topology):
    n = topology.n
    for name in ("ring", "recursive_halving_doubling", "recursive_doubling", "double_binary_tree", "swing"):
        m = 64 * n
        r = ccb.simulate(name, "all_reduce", n, m)
        for alpha in (0.0, 1e-6):
            t = ccb.routed_time(r.schedule, topology, alpha, 1e9)
            assert t >= ccb.routed_lower_bound("all_reduce", topology, m, alpha, 1e9) * (1 - 1e-12)


def test_the_bound_refuses_switched_networks():
    with pytest.raises(ValueError, match="topology"):
        ccb.routed_lower_bound("all_reduce", ccb.fat_tree(4), 40, 0.0, 1.0)
