"""Topologies: closed-form degree / diameter / bisection against measurement on the graphs."""

import itertools

import networkx as nx
import numpy as np
import pytest

import ccb_helpers as ccb


def small_topologies():
    yield from (ccb.ring(n) for n in range(1, 17))
    for dims in itertools.chain(
        itertools.product(range(1, 6), repeat=2), [(2, 2, 2), (2, 2, 3), (3, 3, 2), (2, 2, 4), (2, 3, 3), (2, 8)]
    ):
        if 1 < ccb.torus(*dims).n <= 18:
            yield ccb.torus(*dims)
            yield ccb.mesh(*dims)
    yield from (ccb.hypercube(d) for d in range(0, 5))
    yield from (ccb.fully_connected(n) for n in range(1, 11))
    yield from (ccb.single_switch(n) for n in range(2, 11))
    yield ccb.fat_tree(4)
    yield ccb.fat_tree(8, hosts_per_leaf=2)
    yield ccb.fat_tree(8, hosts_per_leaf=4)
    yield ccb.fat_tree(8, oversubscription=2, hosts_per_leaf=4)
    yield ccb.fat_tree(8, oversubscription=4, hosts_per_leaf=4)
    yield ccb.fat_tree(6, hosts_per_leaf=2)  # three leaves: an odd number of leaves
    yield ccb.fat_tree(9, hosts_per_leaf=3)  # odd n


TOPOLOGIES = list(small_topologies())


@pytest.mark.parametrize("topo", TOPOLOGIES, ids=str)
def test_node_count_and_degree(topo):
    ends = ccb.topology.endpoints(topo)
    assert len(ends) == topo.n
    assert sorted(ends) == list(range(topo.n))
    measured_degree = max((topo.graph.degree(v) for v in ends), default=0)
    assert topo.degree == measured_degree


@pytest.mark.parametrize("topo", TOPOLOGIES, ids=str)
def test_diameter_closed_form_matches_bfs(topo):
    assert topo.diameter == ccb.measured_diameter(topo)


@pytest.mark.parametrize("topo", TOPOLOGIES, ids=str)
def test_bisection_closed_form_matches_exhaustive_min_cut(topo):
    assert topo.bisection_links == ccb.measured_bisection(topo)


def test_hand_values():
    # Hand-derived: an 8-ring has antipodes 4 hops apart and any balanced cut of a cycle cuts 2 edges.
    assert (ccb.ring(8).diameter, ccb.ring(8).bisection_links) == (4, 2)
    # 8x8x8 torus: 4 + 4 + 4 hops; cutting one axis in half crosses 2 planes of 64 links.
    t = ccb.torus(8, 8, 8)
    assert (t.n, t.degree, t.diameter, t.bisection_links) == (512, 6, 12, 128)
    # 16x16 torus: 2 * 16 links; 16x16 mesh: 16 links.
    assert ccb.torus(16, 16).bisection_links == 32
    assert ccb.mesh(16, 16).bisection_links == 16
    assert ccb.mesh(16, 16).diameter == 30
    # Hypercube of dimension 10: 512 links cross the cut of one address bit.
    assert ccb.hypercube(10).bisection_links == 512
    # K_9: 4 * 5 edges between halves of 4 and 5.
    assert ccb.fully_connected(9).bisection_links == 20
    # Full-bisection fat-tree of 64 hosts: 32 links; 4:1 oversubscribed: 8.
    assert ccb.fat_tree(64).bisection_links == 32
    assert ccb.fat_tree(64, oversubscription=4).bisection_links == 8


def test_odd_grid_staircase():
    # 3x3 torus: a 2x2 block has 4 internal edges among its 16 edge-ends: 16 - 2*4 = 8 cut links.
    assert ccb.torus(3, 3).bisection_links == 8
    # 3x3 mesh: the staircase (a row plus one node) cuts 4 edges.
    assert ccb.mesh(3, 3).bisection_links == 4


def test_switched_step_diameter():
    assert ccb.fat_tree(16).step_diameter == 1
    assert ccb.single_switch(8).step_diameter == 1
    assert ccb.torus(4, 4).step_diameter == 4
    assert ccb.ring(1).step_diameter == 0


def test_graph_is_lazy_and_large_sizes_are_cheap():
    big = ccb.ring(10**6)
    assert big.diameter == 500_000
    assert "graph" not in big.__dict__


def test_bisection_bandwidth():
    assert ccb.ring(8).bisection_bandwidth(50e9) == 100e9


def test_fat_tree_graph_structure():
    t = ccb.fat_tree(16, oversubscription=2)
    switches = [v for v, kind in t.graph.nodes(data="kind") if kind == "switch"]
    leaves = [v for v in switches if v[0] == "leaf"]
    spines = [v for v in switches if v[0] == "spine"]
    assert len(leaves) == 4 and len(spines) == 2
    for leaf in leaves:
        hosts = [u for u in t.graph[leaf] if not isinstance(u, tuple)]
        ups = [u for u in t.graph[leaf] if isinstance(u, tuple)]
        assert len(hosts) / len(ups) == 2  # 2:1 oversubscription
    assert nx.is_connected(t.graph)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: ccb.ring(0), ValueError),
        (lambda: ccb.ring(2.5), TypeError),
        (lambda: ccb.torus(), ValueError),
        (lambda: ccb.torus(4, 0), ValueError),
        (lambda: ccb.mesh(4, "4"), TypeError),
        (lambda: ccb.hypercube(-1), ValueError),
        (lambda: ccb.fat_tree(16, oversubscription=0.5), ValueError),
        (lambda: ccb.fat_tree(16, oversubscription=3), ValueError),
        (lambda: ccb.fat_tree(16, hosts_per_leaf=3), ValueError),
        (lambda: ccb.fat_tree(3), ValueError),
        (lambda: ccb.single_switch(1), ValueError),
        (lambda: ccb.measured_bisection(ccb.ring(40)), ValueError),
    ],
)
def test_bad_input(call, error):
    with pytest.raises(error):
        call()


# -- issue #15 regressions --------------------------------------------------------------------


def test_regression_fat_tree_of_a_huge_prime_is_quick():
    from _limits import call_limited

    # fat_tree(2**31 - 1) looped over every divisor candidate and every leaf count (hung).
    out = call_limited(lambda: ccb.fat_tree(2**31 - 1), seconds=10)
    assert out.status in ("returned", "raised") and out.seconds < 10, out
    assert out.status == "returned" or out.clear_error, out
    # 2**31 - 1 is prime: one host per leaf, 2**31 - 1 leaves, one spine; a balanced cut of the
    # leaves cuts floor(n/2) spine links.
    t = ccb.fat_tree(2**31 - 1)
    assert (t.bisection_links, t.diameter) == ((2**31 - 1) // 2, 4)


def test_regression_fat_tree_bisection_closed_form_matches_the_leaf_scan():
    # The closed form replaced a scan over every leaf count; the scan, written out again here, agrees.
    for n in range(4, 121):
        for h in [d for d in range(1, n // 2 + 1) if n % d == 0]:
            for spines in range(1, h + 1):
                if h % spines:
                    continue
                t = ccb.fat_tree(n, oversubscription=h // spines, hosts_per_leaf=h)
                leaves = n // h
                scan = min(
                    spines * min(l, leaves - l) + abs(target - h * l)
                    for l in range(leaves + 1)
                    for target in (n // 2, (n + 1) // 2)
                )
                assert t.bisection_links == scan, (n, h, spines)


def test_regression_measured_bisection_of_fat_tree_18_is_fast():
    from _limits import call_limited

    # 24,310 max-flow runs took 100 s.
    out = call_limited(lambda: ccb.measured_bisection(ccb.fat_tree(18)), seconds=20)
    assert out.status == "returned" and int(out.value) == ccb.fat_tree(18).bisection_links, out


def test_regression_exhaustive_searches_cap_by_estimated_work():
    with pytest.raises(ValueError, match="cap"):
        ccb.measured_bisection(ccb.ring(40), max_endpoints=40)  # C(39, 19) splits
    with pytest.raises(ValueError, match="cap"):
        ccb.measured_diameter(ccb.ring(10**6))


def test_regression_graph_builders_cap_node_count():
    from _limits import GiB, call_limited

    out = call_limited(lambda: ccb.hypercube(30).graph, seconds=10, memory=GiB // 2)
    assert out.clear_error and "cap" in out.message, out
    out = call_limited(lambda: ccb.ring(10**8).graph, seconds=10, memory=GiB // 2)
    assert out.clear_error and "cap" in out.message, out
    assert ccb.ring(10**8).diameter == 5 * 10**7  # closed forms stay available


@pytest.mark.parametrize(
    "call",
    [
        lambda: ccb.torus(np.array([4, 4])),  # "truth value of an array is ambiguous"
        lambda: ccb.ring(np.array([[4]])),  # accepted and named "ring [[4]]"
        lambda: ccb.hypercube(np.array([3])),
        lambda: ccb.fat_tree(np.array([16])),
        lambda: ccb.fully_connected([4]),
    ],
)
def test_regression_scalar_only_builders_reject_arrays(call):
    with pytest.raises(TypeError, match="scalar"):
        call()


def test_regression_many_odd_sides_do_not_explode():
    from _limits import call_limited

    # The staircase-cut recursion visited every order of the odd sides: 14! calls for 14 sides of 3.
    out = call_limited(lambda: ccb.torus(*[3] * 14).bisection_links, seconds=10)
    assert out.status in ("returned", "raised") and (out.status == "returned" or out.clear_error), out


def test_measured_bisection_does_not_assume_symmetry():
    # K4 on {1, 2, 3, 4} plus a leaf 0 hanging off 1. Balanced cuts are 2 / 3. {0, 1} against
    # {2, 3, 4} cuts 1-2, 1-3, 1-4: 3 links. With node 0 forced onto the 3-side, the best is
    # {0, 1, x} against two K4 nodes: 4 links. The true minimum puts node 0 on the smaller side.
    import networkx as nx

    g = nx.complete_graph([1, 2, 3, 4])
    g.add_edge(0, 1)
    topo = ccb.Topology(
        family="custom", name="K4 plus a leaf", n=5, degree=4, diameter=2, bisection_links=3, _builder=lambda: g.copy()
    )
    assert ccb.measured_bisection(topo) == 3


def test_single_switch_with_parallel_links():
    s = ccb.single_switch(7, links=18)
    assert (s.degree, s.bisection_links, s.step_diameter) == (18, 54, 1)
    assert ccb.measured_bisection(s) == 54  # 3 hosts x 18 links on the small side
    assert ccb.cut_links(s, {0, 1, 2}) == 54
    with pytest.raises(ValueError, match="links"):
        ccb.single_switch(4, links=0)


def test_measured_bisection_of_a_switched_custom_topology_tries_both_sides():
    # One switch, endpoint 0 with 1 link, endpoints 1-4 with 3 links each. Balanced cuts are 2 / 3
    # endpoints, the switch on either side: {0, x} against the rest with the switch there cuts
    # 1 + 3 = 4 links; with node 0 forced onto the 3-side the best is two 3-link hosts: 6.
    import networkx as nx

    g = nx.Graph()
    g.add_node("s", kind="switch")
    for v, links in enumerate([1, 3, 3, 3, 3]):
        g.add_edge(v, "s", links=links)
    topo = ccb.topology_from_graph(g, name="uneven star")
    assert topo.bisection_links == 4
    assert ccb.measured_bisection(topo) == 4


def _nvswitch_star(n, link="NV12"):
    names = [f"GPU{i}" for i in range(n)]
    rows = ["\t" + "\t".join(names)] + [
        names[i] + "\t" + "\t".join(" X " if i == j else link for j in range(n)) for i in range(n)
    ]
    return ccb.parse_nvidia_smi_topo("\n".join(rows) + "\n", nvswitch=True)


def test_measured_bisection_of_a_custom_switched_star_follows_its_plan():
    # Regression (#15): custom topologies went to a max-flow per endpoint split whatever the plan
    # said; 24 GPUs on one NVSwitch (planned: 2 switch placements) ran C(23,11) + C(23,12) max-flows.
    # By hand: 12 GPUs on each side, the switch on one of them, so 12 GPUs x 12 links cross.
    topo = _nvswitch_star(24)
    assert ccb.measured_bisection(topo) == 12 * 12 == topo.bisection_links
    # Odd n: 3 GPUs on the small side, the switch with the other 4: 3 x 12 links.
    assert ccb.measured_bisection(_nvswitch_star(7)) == 3 * 12


def test_measured_bisection_counts_parallel_links_as_weights():
    # Regression (#15): parallel links were expanded one list entry per link (n x links items);
    # 50,000 hosts x 1024 links is 5 * 10**7 entries. By hand: 25,000 hosts x 1024 links cross.
    assert ccb.measured_bisection(ccb.single_switch(50_000, links=1024), max_endpoints=50_000) == 25_000 * 1024
