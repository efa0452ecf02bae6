"""Chapter 9's invariant: every algorithm of the chapter, run in the simulator for many N (powers of
two and not), lands on its hand-derived rounds and bytes and never below any bound the package
states for it — the latency and volume bounds, the AllToAll trade-off, the two-level bound, the
routed bound."""

from __future__ import annotations

import math

import pytest

import ccb_helpers as ccb

NS = [2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 31, 32, 33]
ALPHA, BETA = 2e-6, 10e9


def _log2(n):
    return math.ceil(math.log2(n))


def _expected(algorithm, primitive, n, m):
    """(rounds, bandwidth bytes) from the algorithms' own descriptions, for m divisible by everything."""
    f = int(math.log2(n))
    p = 2**f
    if algorithm == "swing":
        return 2 * f + 2 * (n != p), 2 * (p - 1) * m // p + 2 * m * (n != p)
    if algorithm == "pat":
        big = 1 << (n - 1).bit_length()
        agg = 1  # PatAGAlgorithm's constructor, large messages: `while (d > 1 && aggFactor < nranks / 2)`, d = 8
        for _ in range(3):
            agg = agg * 2 if agg < n // 2 else agg
        return int(math.log2(agg)) + min(big // agg, n) - 1, (n - 1) * m // n
    if algorithm == "hierarchical_ring":  # one GPU per node: a ring
        return 2 * (n - 1), 2 * (n - 1) * m // n
    if algorithm == "pairwise":
        return n - 1, (n - 1) * m // n
    if algorithm == "bruck" and primitive == "all_to_all":  # blocks whose offset has bit b set
        return _log2(n), sum(bin(j).count("1") for j in range(n)) * m // n
    raise AssertionError(algorithm)


CASES = [
    ("swing", "all_reduce"),
    ("pat", "all_gather"),
    ("pat", "reduce_scatter"),
    ("hierarchical_ring", "all_reduce"),
    ("two_level_tree", "all_reduce"),
    ("bruck", "all_to_all"),
    ("pairwise", "all_to_all"),
]


@pytest.mark.parametrize("algorithm,primitive", CASES)
@pytest.mark.parametrize("n", NS)
def test_flat_runs_hit_their_counts_and_respect_every_bound(algorithm, primitive, n):
    m = n * 2**7 * 3
    r = ccb.simulate(algorithm, primitive, n, m)
    assert r.correct
    if algorithm != "two_level_tree":
        rounds, volume = _expected(algorithm, primitive, n, m)
        assert (r.rounds, int(r.max_message.sum())) == (rounds, volume)
    for alpha in (0.0, ALPHA):
        t = r.time(alpha, BETA)
        assert t >= ccb.round_lower_bound(primitive, n, m, alpha, BETA) * (1 - 1e-12)
        assert t >= ccb.combined_lower_bound(primitive, n, m, alpha, BETA) * (1 - 1e-12)
    if primitive == "all_to_all":
        assert r.max_message.sum() >= ccb.all_to_all_tradeoff_bound(n, m, r.rounds) * (1 - 1e-12)
        t, _ = ccb.all_to_all_tradeoff_time(n, m, ALPHA, BETA)
        assert r.time(ALPHA, BETA) >= t * (1 - 1e-12)
    if primitive == "all_gather":
        assert r.max_message.sum() >= ccb.all_gather_tradeoff_bound(n, m, r.rounds)


@pytest.mark.parametrize("nodes,g", [(2, 2), (3, 2), (2, 4), (3, 3), (4, 4), (5, 2), (2, 8)])
@pytest.mark.parametrize("nic", ["gpu", "node"])
def test_two_level_runs_respect_the_two_level_bound(nodes, g, nic):
    t = ccb.two_level(nodes, g, nic)
    n, m = t.n, 2 * t.n * 4 * 16
    hw = ccb.two_level_hardware()
    bound = ccb.two_level_lower_bound("all_reduce", t, m, hw)
    bound2 = ccb.two_level_lower_bound("all_reduce", t, m, hw, ports=2)
    for name, chunks, ports in (
        ("hierarchical_ring", None, 1),
        ("hierarchical_ring", 3, 2),
        ("two_level_tree", 2, 1),
        ("swing", None, 1),
        ("ring", None, 1),
        ("recursive_doubling", None, 1),
    ):
        if ports == 2 and nic == "node":
            continue  # a GPU reaches a shared NIC through its one link into the switch: no overlap
        r = ccb.simulate(name, "all_reduce", n, m, topology=t, ports=ports, **({"chunks": chunks} if chunks else {}))
        assert r.correct
        time = ccb.two_level_time(r, t, hw)
        assert time >= (bound if ports == 1 else bound2).total * (1 - 1e-12), (name, chunks)
        assert r.time(ALPHA, BETA) >= ccb.bisection_lower_bound("all_reduce", t, m, BETA) * (1 - 1e-12)


@pytest.mark.parametrize("n", [4, 8, 16, 12])
def test_routed_runs_respect_the_routed_bound(n):
    for topology in (ccb.ring(n), ccb.torus(2, n // 2), ccb.mesh(n)):
        for name in ("swing", "ring", "recursive_halving_doubling"):
            r = ccb.simulate(name, "all_reduce", n, 96 * n)
            assert ccb.routed_time(r.schedule, topology, ALPHA, BETA) >= ccb.routed_lower_bound(
                "all_reduce", topology, 96 * n, ALPHA, BETA
            ) * (1 - 1e-12)
