"""Bisection volumes and bounds; which bound binds on which topology."""

import itertools

import pytest

import ccb_helpers as ccb

M = 2**20


def _alltoall_crossing_brute_force(n):
    # Sum over ordered pairs (i in A, j in B) of M/N, for A = first floor(n/2) nodes.
    a = range(n // 2)
    b = range(n // 2, n)
    return sum(M / n for _i, _j in itertools.product(a, b))


@pytest.mark.parametrize("n", [2, 3, 4, 7, 16])
def test_volumes(n):
    small, large = n // 2, n - n // 2
    assert ccb.bisection_bytes("all_reduce", n, M) == M
    assert ccb.bisection_bytes("broadcast", n, M) == M
    assert ccb.bisection_bytes("all_gather", n, M) == pytest.approx(large * M / n)
    assert ccb.bisection_bytes("reduce_scatter", n, M) == pytest.approx(large * M / n)
    assert ccb.bisection_bytes("scatter", n, M) == pytest.approx(small * M / n)
    assert ccb.bisection_bytes("all_to_all", n, M) == pytest.approx(_alltoall_crossing_brute_force(n))


def test_source_allreduce_volume_is_half_of_what_must_cross():
    # The source takes M/2 crossing; every one of A's M output bytes depends on B, so M must cross.
    assert ccb.bisection_bytes("all_reduce", 16, M) == 2 * (M / 2)


def test_ring_allreduce_never_bisection_bound():
    for n in range(3, 200):
        topo = ccb.ring(n)
        assert ccb.bisection_lower_bound("all_reduce", topo, M, 1e9) <= ccb.node_lower_bound("all_reduce", topo, M, 1e9, ports=2)


def test_torus_2d_allreduce_never_bisection_bound_but_alltoall_is():
    for side in range(2, 40, 2):
        topo = ccb.torus(side, side)
        assert ccb.tighter_bound("all_reduce", topo, M, 1e9, ports=4) == "node"
    # AllToAll on an s x s torus with 4 ports: bisection floor(N/2) ceil(N/2) (M/N) / (2 s beta) against
    # node (N-1) M / (4 N beta), computed directly here.
    for side in (4, 8, 16, 32):
        topo = ccb.torus(side, side)
        n = side * side
        bis = (n // 2) * (n - n // 2) * M / n / (2 * side * 1e9)
        node = (n - 1) * M / n / (4 * 1e9)
        assert ccb.bisection_lower_bound("all_to_all", topo, M, 1e9) == pytest.approx(bis)
        assert ccb.tighter_bound("all_to_all", topo, M, 1e9, ports=4) == ("bisection" if bis > node else "node")


def test_full_bisection_fat_tree_never_binds():
    for n in (4, 8, 16, 64, 256, 1024):
        topo = ccb.fat_tree(n)
        for primitive in ccb.PRIMITIVES:
            assert ccb.tighter_bound(primitive, topo, M, 1e9) == "node", (n, primitive)


def test_oversubscribed_fat_tree_alltoall_binds():
    topo = ccb.fat_tree(64, oversubscription=4)  # 8 links cross the cut
    assert ccb.bisection_lower_bound("all_to_all", topo, M, 1e9) == pytest.approx(32 * 32 * M / 64 / (8 * 1e9))
    assert ccb.tighter_bound("all_to_all", topo, M, 1e9) == "bisection"


def test_errors():
    with pytest.raises(TypeError):
        ccb.bisection_lower_bound("all_reduce", "ring", M, 1e9)
    with pytest.raises(ValueError):
        ccb.bisection_lower_bound("all_reduce", ccb.ring(8), M, 0)
    with pytest.raises(ValueError):
        ccb.bisection_bytes("allreduce", 8, M)
