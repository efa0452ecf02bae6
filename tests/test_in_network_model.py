"""In-network reduction: the bound it lowers (endpoint volume, rounds) and those it cannot."""

from __future__ import annotations

import math

import pytest

import ccb_helpers as ccb


def test_all_reduce_by_hand():
    b = ccb.in_network_bound("all_reduce", 8, 8000, 1e-6, 1e9, cut_links=4, switch_throughput=16e9)
    assert math.isclose(b.endpoint, 8000 / 1e9)  # M each way, not 2 * 7/8 M
    assert math.isclose(b.classic_endpoint, 14000 / 1e9)
    assert math.isclose(b.cut, 8000 / (4 * 1e9))  # a cut still carries M each way: unchanged
    assert math.isclose(b.switch, 8 * 8000 / 16e9)  # the switch reads N M bytes
    assert b.latency == 1e-6 and b.classic_latency == 3e-6
    assert b.binding == "endpoint"


@pytest.mark.parametrize("primitive", ccb.PRIMITIVES)
def test_never_above_the_classic_bound_and_all_to_all_unchanged(primitive):
    for n in (2, 3, 8, 17):
        b = ccb.in_network_bound(primitive, n, 1000.0 * n, 2e-6, 5e9, cut_links=2)
        assert b.total <= b.classic_total * (1 + 1e-12)
        if primitive == "all_to_all":
            assert b.total == b.classic_total


def test_nvls_sits_between_the_two():
    n, m, beta = 8, 2**30, 450e9
    b = ccb.in_network_bound("all_reduce", n, m, 0.0, beta)
    nvls = ccb.nvls_all_reduce_volume(n, m).send / beta
    assert b.endpoint < nvls < b.classic_endpoint
    assert math.isclose(nvls / b.endpoint, (n + 1) / n)
