"""Minimum broadcast rounds: closed forms against exhaustive search, and against the two lower bounds."""

import pytest

import ccb_helpers as ccb


@pytest.mark.parametrize("n", range(1, 15))
@pytest.mark.parametrize("k", [1, 2, 3])
def test_ring_formula_matches_search(n, k):
    topo = ccb.ring(n)
    assert ccb.broadcast_steps(topo, k=k) == ccb.search_broadcast_steps(topo, k=k)


def test_ring_hand_values():
    # 1-port: round 1 informs one neighbour, then the arc grows by 2 per round: 2t nodes after t rounds.
    assert [ccb.broadcast_steps(ccb.ring(n)) for n in range(1, 10)] == [0, 1, 2, 2, 3, 3, 4, 4, 5]
    # 2-port: 1 + 2t nodes after t rounds.
    assert [ccb.broadcast_steps(ccb.ring(n), k=2) for n in range(1, 10)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]


@pytest.mark.parametrize("n", range(1, 10))
@pytest.mark.parametrize("k", [1, 2, 3])
def test_complete_graph_attains_information_bound(n, k):
    topo = ccb.fully_connected(n)
    assert ccb.search_broadcast_steps(topo, k=k) == ccb.info_steps(n, min(k, max(n - 1, 1)))
    assert ccb.broadcast_steps(topo, k=k) == ccb.info_steps(n, min(k, max(n - 1, 1)))


@pytest.mark.parametrize("dim", range(0, 5))
@pytest.mark.parametrize("k", [1, 2])
def test_hypercube(dim, k):
    topo = ccb.hypercube(dim)
    assert ccb.broadcast_steps(topo, k=k) == dim == ccb.search_broadcast_steps(topo, k=k)


@pytest.mark.parametrize(
    "topo", [ccb.torus(3, 3), ccb.torus(4, 4), ccb.mesh(3, 3), ccb.mesh(2, 4), ccb.torus(2, 5)], ids=str
)
@pytest.mark.parametrize("k", [1, 2])
def test_search_respects_both_lower_bounds(topo, k):
    steps = ccb.broadcast_steps(topo, k=k)
    assert steps >= ccb.info_steps(topo.n, min(k, topo.degree))
    assert steps >= ccb.eccentricity(topo, 0)


def test_all_port_is_eccentricity():
    topo = ccb.mesh(3, 3)
    assert ccb.broadcast_steps(topo, k=4, root=4) == 2  # from the centre
    assert ccb.broadcast_steps(topo, k=4, root=0) == 4  # from a corner
    assert ccb.search_broadcast_steps(topo, k=4, root=0) == 4


def test_torus_3x3_one_port():
    # 9 nodes need ceil(log2 9) = 4 rounds and 4 suffice (search); the diameter (2) does not bind.
    assert ccb.broadcast_steps(ccb.torus(3, 3)) == 4


def test_switched_networks():
    assert ccb.broadcast_steps(ccb.single_switch(9)) == 4
    assert ccb.broadcast_steps(ccb.fat_tree(16), k=4) == 4  # one link per host: p = 1


def test_errors():
    with pytest.raises(TypeError):
        ccb.broadcast_steps("ring")
    with pytest.raises(ValueError):
        ccb.broadcast_steps(ccb.ring(8), root=8)
    with pytest.raises(ValueError):
        ccb.broadcast_steps(ccb.torus(5, 5), k=1)  # 25 nodes, no closed form
    with pytest.raises(ValueError):
        ccb.broadcast_steps(ccb.torus(4, 4), method="formula")
    with pytest.raises(ValueError):
        ccb.broadcast_steps(ccb.ring(8), method="guess")


# -- issue #15 regressions --------------------------------------------------------------------


def test_regression_eccentricity_needs_no_graph_for_symmetric_families():
    from _limits import GiB, call_limited

    # eccentricity(hypercube(30)) built a 2**30-node graph (hung).
    out = call_limited(lambda: ccb.eccentricity(ccb.hypercube(30)), seconds=10, memory=GiB // 2)
    assert out.status == "returned" and out.value == "30", out
    # Hand values: a ring's farthest node is floor(n/2) away; a mesh corner is sum(a - 1) away,
    # the centre of a 5x5 mesh 2 + 2.
    assert ccb.eccentricity(ccb.ring(10**9)) == 5 * 10**8
    assert ccb.eccentricity(ccb.mesh(5, 5), root=0) == 8
    assert ccb.eccentricity(ccb.mesh(5, 5), root=12) == 4
    assert ccb.eccentricity(ccb.torus(4, 6), root=7) == 5


def test_regression_non_topology_is_a_type_error():
    # AttributeError: 'str' object has no attribute 'n'.
    for call in (ccb.eccentricity, ccb.search_broadcast_steps, ccb.measured_diameter, ccb.measured_bisection):
        with pytest.raises(TypeError, match="topology"):
            call("ring")


def test_regression_search_is_capped_by_estimated_states():
    from _limits import call_limited

    # K_20 is under the 20-endpoint cap, but the search ran > 120 s.
    out = call_limited(lambda: ccb.broadcast_steps(ccb.fully_connected(20), method="search"), seconds=20)
    assert out.status in ("returned", "raised") and (
        out.status == "returned" and out.value == "5" or out.clear_error
    ), out
    if out.status == "raised":
        assert "estimate" in out.message and "cap" in out.message
