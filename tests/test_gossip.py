"""gossip_rounds: exact AllReduce / AllGather latency on small graphs.

Expected values come from a separate brute force written here (breadth-first over every legal
round, no symmetry reduction, no restriction to maximal rounds) and from known results.
"""

import itertools

import networkx as nx
import pytest

import ccb_helpers as ccb
from ccb_helpers.gossip import SEARCH_MAX_STATES


def brute_gossip(graph: nx.Graph, ports: int = 1, telephone: bool = False) -> int:
    """Rounds until every node knows every input: BFS over all rounds, undominated states kept.

    ``telephone=True`` is the classical model: a round is a matching of two-way calls.
    Otherwise a node sends to at most ``ports`` neighbours and receives from at most ``ports``.
    """
    n = graph.number_of_nodes()
    nbrs = [sorted(graph.neighbors(v)) for v in range(n)]
    full = (1 << n) - 1
    if telephone:
        edges = list(graph.edges())
        matchings = [
            m
            for r in range(len(edges) + 1)
            for m in itertools.combinations(edges, r)
            if len({x for e in m for x in e}) == 2 * len(m)
        ]
        rounds = [[(u, v) for a, b in m for u, v in ((a, b), (b, a))] for m in matchings]
    else:
        options = [
            [()] + [c for r in range(1, ports + 1) for c in itertools.combinations(nbrs[u], r)] for u in range(n)
        ]
        rounds = []
        for pick in itertools.product(*options):
            msgs = [(u, v) for u, targets in enumerate(pick) for v in targets]
            indeg = [0] * n
            for _, v in msgs:
                indeg[v] += 1
            if max(indeg) <= ports:
                rounds.append(msgs)
    level = [tuple(1 << v for v in range(n))]
    depth = 0
    while not any(all(k == full for k in s) for s in level):
        after = set()
        for s in level:
            for msgs in rounds:
                new = list(s)
                for u, v in msgs:
                    new[v] |= s[u]
                after.add(tuple(new))
        # A state that knows at least as much everywhere finishes at least as early. Each state is
        # also packed into one integer, n bits per node, so "t knows everything s knows" is one
        # test: no bit of s missing from t (a generator over the nodes per pair cost 1.4 CPU-s here).
        packed = {s: sum(k << (n * v) for v, k in enumerate(s)) for s in after}
        ordered = sorted(after, key=lambda s: -bin(packed[s]).count("1"))
        level, kept = [], []
        for s in ordered:
            if not any(packed[s] & ~t == 0 for t in kept):
                level.append(s)
                kept.append(packed[s])
        depth += 1
    return depth


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_ring_matches_brute_force(n):
    assert ccb.gossip_rounds(ccb.ring(n)) == brute_gossip(nx.cycle_graph(n))


def test_ring_values_pinned():
    # Brute force above (n <= 7 here; n = 9 gives 6 in about 12 minutes, run by hand): even rings
    # reach the diameter n/2, odd rings from 5 on need two rounds more than the diameter.
    assert [ccb.gossip_rounds(ccb.ring(n)) for n in range(3, 13)] == [2, 2, 4, 3, 5, 4, 6, 5, 7, 6]


def test_odd_rings_are_not_attainable():
    # Chapter 2: N = 5, 7, 9 satisfy floor(N/2) <= ceil(log2 N), but the bound is still not reached.
    for n in (5, 7, 9):
        bound = max(n // 2, ccb.info_steps(n))
        assert ccb.gossip_rounds(ccb.ring(n)) == bound + (1 if n == 5 else 2)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_complete_graph_search_matches_brute_force_and_dissemination(n):
    # Our model: the dissemination pattern (i -> i + 2^t) reaches ceil(log2 n) for every n.
    expected = brute_gossip(nx.complete_graph(n))
    assert expected == (n - 1).bit_length()
    assert ccb.gossip_rounds(ccb.fully_connected(n), method="search") == expected
    assert ccb.gossip_rounds(ccb.fully_connected(n)) == expected


@pytest.mark.parametrize("n, telephone", [(2, 1), (3, 3), (4, 2)])
def test_telephone_model_differs_for_odd_n(n, telephone):
    # Knödel (1975): two-way calls, complete graph: ceil(log2 n) for even n, ceil(log2 n) + 1 for odd n.
    assert brute_gossip(nx.complete_graph(n), telephone=True) == telephone


def test_two_ports_on_complete_graph():
    # ceil(log3 n): 4 -> 2, 5 -> 2, 9 -> 2, 10 -> 3
    assert (
        ccb.gossip_rounds(ccb.fully_connected(4), ports=2, method="search")
        == brute_gossip(nx.complete_graph(4), ports=2)
        == 2
    )
    assert ccb.gossip_rounds(ccb.fully_connected(5), ports=2, method="search") == 2
    assert [ccb.gossip_rounds(ccb.fully_connected(n), ports=2) for n in (9, 10)] == [2, 3]


def test_mesh_matches_brute_force():
    topo = ccb.mesh(2, 3)
    assert ccb.gossip_rounds(topo) == brute_gossip(topo.graph) == 3


def test_larger_tori_and_meshes():
    # 3x3 torus: ceil(log2 9) = 4 > D = 2 and a 1-port schedule of 4 rounds exists, so 4; a 3x4 mesh:
    # D = 5 > ceil(log2 12) = 4, reached. 2x4 torus: ceil(log2 8) = 3 = D.
    assert ccb.gossip_rounds(ccb.torus(3, 3)) == 4
    assert ccb.gossip_rounds(ccb.mesh(3, 4)) == 5
    assert ccb.gossip_rounds(ccb.torus(2, 4)) == 3
    # 2x3 torus (a prism): ceil(log2 6) = 3 > D = 2; node (i, j) sends along the ring in rounds 1
    # and 2 (knowing its whole triangle) and across in round 3.
    assert ccb.gossip_rounds(ccb.torus(2, 3)) == 3


def test_closed_forms():
    assert ccb.gossip_rounds(ccb.hypercube(5)) == 5
    assert ccb.gossip_rounds(ccb.hypercube(3), method="search") == 3
    assert ccb.gossip_rounds(ccb.ring(9), ports=2) == 4  # flooding both ways: the diameter
    assert ccb.gossip_rounds(ccb.torus(8, 8), ports=4) == 8
    assert ccb.gossip_rounds(ccb.single_switch(9)) == 4  # one link per host: ceil(log2 9)
    assert ccb.gossip_rounds(ccb.fat_tree(16)) == 4
    assert ccb.gossip_rounds(ccb.ring(1)) == 0 and ccb.gossip_rounds(ccb.ring(2)) == 1


def test_never_below_the_two_lower_bounds():
    for topo in (ccb.ring(8), ccb.ring(9), ccb.mesh(3, 3), ccb.torus(2, 2, 2)):
        bound = max(ccb.info_steps(topo.n), topo.diameter)
        assert ccb.gossip_rounds(topo) >= bound


def test_caps_refuse_large_graphs_quickly():
    with pytest.raises(ValueError, match=f"cap {SEARCH_MAX_STATES:,}"):
        ccb.gossip_rounds(ccb.torus(4, 4))
    with pytest.raises(ValueError, match="n <= 16"):
        ccb.gossip_rounds(ccb.ring(17))
    with pytest.raises(ValueError, match="direct networks"):
        ccb.gossip_rounds(ccb.single_switch(4), method="search")


def test_bad_arguments():
    with pytest.raises(TypeError, match="topology"):
        ccb.gossip_rounds(8)
    with pytest.raises(ValueError, match="ports"):
        ccb.gossip_rounds(ccb.ring(4), ports=0)
    with pytest.raises(ValueError, match="method"):
        ccb.gossip_rounds(ccb.ring(4), method="fast")


def test_search_with_many_ports_stops_at_the_step_cap():
    # Regression (fuzz, #15): listing the first rounds of a 16-node complete graph with 5 ports
    # ran for minutes (almost every group of senders tried is later pruned, so the state cap never
    # fired). The enumeration-step cap refuses it within seconds, before the search proper.
    from ccb_helpers.gossip import SEARCH_MAX_STEPS

    with pytest.raises(ValueError, match=f"cap {SEARCH_MAX_STEPS:,}"):
        ccb.gossip_rounds(ccb.fully_connected(16), ports=5, method="search")


def test_scalar_arguments():
    # Regression (#15): an array of ports reached min(ports, degree) ("truth value of an array").
    with pytest.raises(TypeError, match="ports"):
        ccb.gossip_rounds(ccb.ring(6), ports=[1, 2])
    with pytest.raises(TypeError, match="method"):
        ccb.gossip_rounds(ccb.ring(6), method=None)
