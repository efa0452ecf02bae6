"""The two-level map: profiles equal the simulated schedules' times; winners and ratios by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ccb_helpers as ccb


@pytest.mark.parametrize("nodes,g,nic", [(2, 4, "gpu"), (3, 2, "node"), (2, 3, "gpu")])
def test_profiles_time_the_real_rounds(nodes, g, nic):
    t = ccb.two_level(nodes, g, nic)
    hw = ccb.TwoLevelHardware(1e-6, 400e9, 4e-6, 40e9)
    n = t.n
    m = math.lcm(n, 2 * 4 * n * (1 << (n.bit_length() - 1))) * 8
    for name in ccb.TWO_LEVEL_CANDIDATES:
        chunks = 4 if name in ("double_binary_tree", "two_level_tree") else None
        profile = ccb.round_profile(name, t, chunks)
        if name in ("hierarchical_ring", "two_level_tree"):
            schedule = ccb.hierarchical_schedule(name, t, m, chunks=chunks)
        elif name == "swing":
            schedule = ccb.swing_schedule(n, m)
        else:
            schedule = ccb.generate(name, "all_reduce", n, m, **({"chunks": chunks} if chunks else {}))
        assert math.isclose(profile.time(m, hw), ccb.two_level_time(schedule, t, hw), rel_tol=1e-12)


def test_map_winners_and_ratios():
    hw = ccb.two_level_hardware()
    mp = ccb.two_level_map([1, 2, 4], 8, [2**10, 2**32], hw)
    # Small: recursive doubling (log2 N rounds); large: the hierarchical ring, on the 1-port bound.
    assert mp.winner[:, 0].tolist() == ["recursive_doubling"] * 3
    assert mp.winner[1:, 1].tolist() == ["hierarchical_ring"] * 2
    assert np.all(mp.ratio >= 1 - 1e-12)
    assert np.all(mp.ratio[:, 1] < 1.01)
    two = ccb.two_level_map([2], 8, [2**32], hw, ports=2)
    assert two.bound[0, 0] < mp.bound[1, 1]  # NVLink and NIC at once: a lower bound
    assert np.all(two.ratio >= 1 - 1e-12)
