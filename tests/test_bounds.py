"""Combined bound, crossover size and regime."""

import numpy as np
import pytest

import ccb_helpers as ccb


def test_combined_is_max_of_terms():
    n, alpha, beta = 16, 2e-6, 50e9
    for m in (1.0, 1e3, 1e5, 1e7, 1e9):
        t_alpha = 4 * alpha  # ceil(log2 16)
        t_beta = 2 * 15 / 16 * m / beta
        assert ccb.combined_lower_bound("all_reduce", n, m, alpha, beta) == pytest.approx(max(t_alpha, t_beta))


def test_diameter_raises_latency_term():
    # Ring of 16: D = 8 > log2 16 = 4.
    assert ccb.latency_steps_lower_bound("all_reduce", 16, diameter=ccb.ring(16).step_diameter) == 8
    assert ccb.latency_lower_bound("all_reduce", 16, 1e-6, diameter=8) == pytest.approx(8e-6)


def test_kport_tightens_both_terms():
    n, m, alpha, beta = 64, 1e6, 1e-6, 1e9
    one = ccb.combined_lower_bound("all_gather", n, m, alpha, beta)
    two = ccb.combined_lower_bound("all_gather", n, m, alpha, beta, ports=2)
    assert two == pytest.approx(one / 2)  # bandwidth-bound here
    assert ccb.latency_steps_lower_bound("all_gather", n, ports=2) == 4  # ceil(log3 64)


def test_degree_caps_ports():
    # k = 6 on a ring (d = 2): p = 2 for both terms.
    assert ccb.latency_steps_lower_bound("broadcast", 9, ports=6, degree=2) == 2  # 3^2 = 9
    assert ccb.latency_steps_lower_bound("broadcast", 9, ports=6) == 2  # 7^2 >= 9
    assert ccb.latency_steps_lower_bound("broadcast", 50, ports=6, degree=2) == 4  # 3^4 = 81 >= 50


def test_crossover_is_half_the_source_value_for_allreduce():
    n, alpha, beta = 64, 5e-6, 25e9
    source = n * beta * 6 * alpha / (n - 1)  # eq:cc-bound-crossover as printed
    ours = ccb.crossover_size("all_reduce", n, alpha, beta)
    assert ours == pytest.approx(source / 2)
    # At M* both terms are equal.
    t_alpha = ccb.latency_lower_bound("all_reduce", n, alpha)
    t_beta = ccb.bandwidth_lower_bound("all_reduce", n, ours, beta)
    assert t_alpha == pytest.approx(t_beta)


def test_regime():
    n, alpha, beta = 8, 5e-6, 25e9
    m_star = ccb.crossover_size("all_reduce", n, alpha, beta)
    assert ccb.regime("all_reduce", n, m_star * 0.9, alpha, beta) == "latency"
    assert ccb.regime("all_reduce", n, m_star * 1.1, alpha, beta) == "bandwidth"
    grid = ccb.regime("all_reduce", n, np.array([m_star / 10, m_star * 10]), alpha, beta)
    assert grid.tolist() == ["latency", "bandwidth"]


def test_one_node_costs_nothing():
    assert ccb.combined_lower_bound("all_reduce", 1, 1e9, 1e-6, 1e9) == 0.0
    assert ccb.latency_steps_lower_bound("all_reduce", 1, diameter=3) == 0


def test_grid_in_one_call():
    n = np.arange(2, 1002, dtype=np.int64)[:, None]
    m = np.logspace(0, 10, 1000)[None, :]
    t = ccb.combined_lower_bound("all_reduce", n, m, 2e-6, 50e9)
    assert t.shape == (1000, 1000)
    assert t[0, 0] == pytest.approx(ccb.combined_lower_bound("all_reduce", 2, 1.0, 2e-6, 50e9))
    assert t[-1, -1] == pytest.approx(ccb.combined_lower_bound("all_reduce", 1001, 1e10, 2e-6, 50e9))


def test_errors():
    with pytest.raises(ValueError):
        ccb.crossover_size("all_reduce", 1, 1e-6, 1e9)
    with pytest.raises(ValueError):
        ccb.combined_lower_bound("all_reduce", 8, 1e6, -1e-6, 1e9)
    with pytest.raises(ValueError):
        ccb.combined_lower_bound("all_reduce", 8, 1e6, 1e-6, 1e9, diameter=-1)
    with pytest.raises(TypeError):
        ccb.combined_lower_bound("all_reduce", 8, 1e6, 1e-6, 1e9, ports=1.0)


def test_round_bound_is_the_sum_of_the_terms():
    # N = 16, 1 port: 4 rounds; 2 * 15/16 * M / beta.
    n, alpha, beta = 16, 2e-6, 50e9
    for m in (1.0, 1e3, 1e6, 1e9):
        assert ccb.round_lower_bound("all_reduce", n, m, alpha, beta) == pytest.approx(
            4 * alpha + 2 * 15 / 16 * m / beta
        )
    # M = 0: nothing moves (an empty schedule is a correct 0-byte AllReduce), so no round either
    assert ccb.round_lower_bound("all_reduce", n, 0.0, alpha, beta) == 0.0
    # Ring of 8 with 2 ports: D = 4 rounds; AllGather 7/8 M over 2 links.
    assert ccb.round_lower_bound("all_gather", 8, 8e6, 1e-6, 1e9, ports=2, diameter=4) == pytest.approx(4e-6 + 3.5e-3)


def test_round_bound_is_between_max_and_twice_max():
    n, alpha, beta = 64, 2e-6, 50e9
    m_star = ccb.crossover_size("all_reduce", n, alpha, beta)
    for m in (m_star / 100, m_star, m_star * 100):
        top = ccb.combined_lower_bound("all_reduce", n, m, alpha, beta)
        total = ccb.round_lower_bound("all_reduce", n, m, alpha, beta)
        assert top <= total <= 2 * top
    # At M* the terms are equal: the sum is exactly twice the max.
    assert ccb.round_lower_bound("all_reduce", n, m_star, alpha, beta) == pytest.approx(
        2 * ccb.combined_lower_bound("all_reduce", n, m_star, alpha, beta)
    )


def test_round_bound_broadcasts_arrays():
    n = np.array([2, 4, 8])[:, None]
    m = np.array([0.0, 8e3])[None, :]
    t = ccb.round_lower_bound("all_gather", n, m, 1e-6, 1e9)
    # rounds 1, 2, 3; bytes (N-1)/N * 8000 = 4000, 6000, 7000; M = 0 moves nothing: 0
    assert np.allclose(t, [[0.0, 1e-6 + 4e-6], [0.0, 2e-6 + 6e-6], [0.0, 3e-6 + 7e-6]])
    assert ccb.round_lower_bound("all_reduce", 1, 1e9, 1e-6, 1e9) == 0.0
    with pytest.raises(ValueError, match="alpha"):
        ccb.round_lower_bound("all_reduce", 8, 1e6, -1.0, 1e9)


def test_cut_through_latency_bound():
    # Ring of 16 (D = 8), alpha = 1 us. Store-and-forward: 8 us. Cut-through with h = 0.1 us:
    # max(4 * 1, 1 + 8 * 0.1) = 4 us; with h = 1 us: 9 us (one start-up plus 8 hops).
    assert ccb.latency_lower_bound("all_gather", 16, 1e-6, diameter=8) == pytest.approx(8e-6)
    assert ccb.cut_through_latency_bound("all_gather", 16, 1e-6, 0.1e-6, diameter=8) == pytest.approx(4e-6)
    assert ccb.cut_through_latency_bound("all_gather", 16, 1e-6, 1e-6, diameter=8) == pytest.approx(9e-6)
    assert ccb.cut_through_latency_bound("all_gather", 1, 1e-6, 1e-6, diameter=8) == 0.0
    got = ccb.cut_through_latency_bound("all_gather", np.array([16, 1024]), 1e-6, 0.1e-6, diameter=np.array([8, 512]))
    assert np.allclose(got, [4e-6, 1e-6 + 51.2e-6])
    with pytest.raises(ValueError, match="hop_latency"):
        ccb.cut_through_latency_bound("all_gather", 16, 1e-6, -1.0)


def test_flat_send_time():
    # 8 nodes, L = 2, o = 0.5, g = 0.3 (us): 6 * 0.5 + 1 + 2 = 6 us; g = 1: 6 * 1 + 1 + 2 = 9 us.
    assert ccb.flat_send_time(8, 2e-6, 0.5e-6, 0.3e-6) == pytest.approx(6e-6)
    assert ccb.flat_send_time(8, 2e-6, 0.5e-6, 1e-6) == pytest.approx(9e-6)
    assert ccb.flat_send_time(1, 2e-6, 0.5e-6, 1e-6) == 0.0


# -- issue #28: a rooted primitive crosses the root's eccentricity, not the diameter ---------------

ALPHA, BETA = 1e-6, 1e9


def _tree_rounds(topology, root, ports):
    """A k-port broadcast tree grown greedily on ``topology``'s graph from ``root``: per round, every
    informed node informs up to ``ports`` uninformed neighbours (the deepest BFS subtrees first).
    Returns the tree edges ``(parent, child)`` per round. Direct networks only (no switches)."""
    import networkx as nx

    graph = topology.graph
    depth = nx.single_source_shortest_path_length(graph, root)
    bfs = nx.bfs_tree(graph, root)
    height = {v: max(nx.single_source_shortest_path_length(bfs, v).values()) for v in graph}
    informed, rounds = {root}, []
    while len(informed) < topology.n:
        edges, taken = [], set()
        for u in sorted(informed, key=lambda v: depth[v]):
            free = sorted((v for v in graph[u] if v not in informed and v not in taken), key=lambda v: -height[v])
            for v in free[:ports]:
                edges.append((u, v))
                taken.add(v)
        assert edges, "the graph is disconnected"
        informed |= taken
        rounds.append(edges)
    return rounds


def _rooted_schedule(primitive, topology, root, ports, m):
    """A verified-by-construction schedule of a rooted primitive along the greedy tree."""
    T = ccb.Transfer
    n = topology.n
    tree = _tree_rounds(topology, root, ports)
    children = {}
    for edges in tree:
        for u, v in edges:
            children.setdefault(u, []).append(v)

    def subtree(v):
        out = [v]
        for c in children.get(v, []):
            out += subtree(c)
        return out

    bounds = ccb.block_bounds(m, n).tolist()
    if primitive in ("broadcast", "reduce"):
        rounds = [[T(u, v, 0, m) for u, v in edges] for edges in tree]
        if primitive == "reduce":
            rounds = [[T(t.dst, t.src, 0, m, "reduce") for t in r] for r in reversed(rounds)]
    else:
        rounds = [
            [T(u, v, bounds[b], bounds[b + 1] - bounds[b]) for u, v in edges for b in subtree(v)] for edges in tree
        ]
        if primitive == "gather":
            rounds = [[T(t.dst, t.src, t.offset, t.length) for t in r] for r in reversed(rounds)]
    return ccb.Schedule.from_transfers(primitive, n, m, rounds, root=root)


ROOTED_TOPOLOGIES = [ccb.mesh(5), ccb.mesh(2, 3), ccb.mesh(3, 3), ccb.ring(5), ccb.torus(2, 3)]


@pytest.mark.parametrize("topology", ROOTED_TOPOLOGIES, ids=str)
@pytest.mark.parametrize("primitive", ["broadcast", "reduce", "scatter", "gather"])
def test_no_bound_above_a_verified_rooted_schedule_from_any_root(topology, primitive):
    # Before #28 the bounds charged a rooted primitive the whole diameter: 4 rounds on mesh(5)
    # where the centre broadcasts in 3. Every root, tiny M and M not divisible by N.
    n = topology.n
    for ports in (1, 2):
        for root in range(n):
            for m in (1, n + 1, 3 * n + 2):
                run = ccb.run_schedule(
                    _rooted_schedule(primitive, topology, root, ports, m), ports=ports, topology=topology
                )
                assert run.correct, run.errors
                took = run.time(ALPHA, BETA)
                ecc = ccb.eccentricity(topology, root)
                for extra in ({}, {"eccentricity": ecc}):
                    kw = dict(ports=ports, diameter=topology.step_diameter, degree=topology.degree, **extra)
                    assert ccb.round_lower_bound(primitive, n, m, ALPHA, BETA, **kw) <= took * (1 + 1e-12), (
                        root,
                        m,
                        ports,
                        extra,
                    )
                    assert ccb.combined_lower_bound(primitive, n, m, ALPHA, BETA, **kw) <= took * (1 + 1e-12), (
                        root,
                        m,
                        ports,
                        extra,
                    )
                    assert ccb.latency_steps_lower_bound(primitive, n, **kw) <= run.rounds


def test_the_issue_example_centre_of_mesh5():
    # combined_lower_bound('broadcast', 5, 8, 1e-6, 1e9, diameter=D) gave 4 us; the centre
    # broadcasts in 3 rounds (2->1; 2->3, 1->0; 3->4): 3 us + 3 * 8 B / 1 GB/s = 3.024 us.
    topo = ccb.mesh(5)
    T = ccb.Transfer
    s = ccb.Schedule.from_transfers(
        "broadcast", 5, 8, [[T(2, 1, 0, 8)], [T(2, 3, 0, 8), T(1, 0, 0, 8)], [T(3, 4, 0, 8)]], root=2
    )
    run = ccb.run_schedule(s, topology=topo)
    assert run.correct and run.time(1e-6, 1e9) == pytest.approx(3.024e-6)
    assert ccb.combined_lower_bound("broadcast", 5, 8, 1e-6, 1e9, diameter=topo.step_diameter) == pytest.approx(3e-6)
    # From an end the root's eccentricity, 4 rounds, is a valid (and tight) bound.
    assert ccb.latency_steps_lower_bound("broadcast", 5, diameter=4, eccentricity=ccb.eccentricity(topo, 0)) == 4
    # Non-rooted primitives still cross the whole diameter.
    assert ccb.latency_steps_lower_bound("all_gather", 5, diameter=4) == 4


@pytest.mark.parametrize("primitive", ccb.ROOTED_PRIMITIVES)
@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_generated_rooted_schedules_from_every_root_with_tiny_m_never_beat_the_bound(primitive, n):
    # The fuzzer's 1-byte Scatter: the byte was the root's own block, nothing was sent, and
    # (N-1)M/N bytes put round_lower_bound above the run.
    for algorithm in ccb.applicable_algorithms(primitive, n=n):
        ports = ccb.ALGORITHMS[algorithm][primitive].min_ports
        for root in range(n):
            for m in sorted({0, 1, 2, 3, n - 1, n + 1, 2 * n + 3}):
                run = ccb.simulate(algorithm, primitive, n, m, ports=ports, root=root)
                assert run.correct
                for alpha, beta in ((1e-6, 1e9), (0.0, 1e9), (1e-6, 1e3)):
                    took = run.time(alpha, beta)
                    assert ccb.round_lower_bound(primitive, n, m, alpha, beta, ports=ports) <= took * (1 + 1e-12), (
                        algorithm,
                        root,
                        m,
                    )
                    assert ccb.combined_lower_bound(primitive, n, m, alpha, beta, ports=ports) <= took * (1 + 1e-12), (
                        algorithm,
                        root,
                        m,
                    )


def test_eccentricity_must_fit_the_diameter():
    with pytest.raises(ValueError, match="eccentricity"):
        ccb.combined_lower_bound("broadcast", 9, 8, 1e-6, 1e9, diameter=8, eccentricity=9)
    with pytest.raises(ValueError, match="eccentricity"):
        ccb.latency_steps_lower_bound("broadcast", 9, diameter=8, eccentricity=3)
    with pytest.raises(TypeError, match="eccentricity"):
        ccb.latency_steps_lower_bound("broadcast", 9, eccentricity=2.0)
    # Without a diameter the eccentricity alone is the distance; for a non-rooted primitive the larger one counts.
    assert ccb.latency_steps_lower_bound("broadcast", 9, eccentricity=8) == 8
    assert ccb.latency_steps_lower_bound("all_reduce", 9, diameter=8, eccentricity=4) == 8
    assert ccb.latency_steps_lower_bound("reduce", [9, 9], diameter=[8, 7]).tolist() == [4, 4]
    assert ccb.cut_through_latency_bound("scatter", 2, 1e-6, 1e-6, diameter=3) == pytest.approx(3e-6)  # alpha + 2 h


# --------------------------------------------------------------------------- what moves decides the rounds (#37 audit)


def test_the_latency_term_counts_only_what_must_move():
    T = ccb.Transfer
    # A star whose centre is node 4: a 1-byte AllGather's only byte is node 4's (blocks 0,0,0,0,1),
    # so one round of the centre sending it to every leaf (4 ports) does it: alpha + 1 / beta. The
    # old bound took the diameter, 2 rounds: 2 alpha + (4/5) / 4 beta = 2.2 > 2.
    n = 5
    links = np.zeros((n, n), dtype=int)
    links[n - 1, : n - 1] = links[: n - 1, n - 1] = 1
    star = ccb.topology_from_links(links, name="star, centre 4")
    run = ccb.run_schedule(
        ccb.Schedule.from_transfers("all_gather", n, 1, [[T(n - 1, v, 0, 1) for v in range(n - 1)]]),
        ports=n - 1,
        topology=star,
    )
    assert run.correct and run.time(1.0, 1.0) == 2.0
    common = dict(ports=n - 1, diameter=star.step_diameter, degree=star.degree)
    # by hand: 1 round (ceil(log_5 5) = 1, the centre's eccentricity 1) + 4/5 byte over 4 ports
    assert ccb.round_lower_bound("all_gather", n, 1, 1.0, 1.0, **common) == pytest.approx(1 + 0.8 / 4)
    assert ccb.round_lower_bound("reduce_scatter", n, 1, 1.0, 1.0, **common) == pytest.approx(1 + 0.8 / 4)
    # with every block non-empty the diameter counts again: 2 rounds
    assert ccb.round_lower_bound("all_gather", n, 5, 1.0, 1e15, **common) == pytest.approx(2.0)
    # A 2-byte Scatter on 4 nodes: blocks of 0, 1, 0, 1 bytes; root 1 sends node 3 its byte.
    scatter = ccb.Schedule.from_transfers("scatter", 4, 2, [[T(1, 3, 1, 1)]], root=1)
    run = ccb.run_schedule(scatter)
    assert run.correct and run.time(1.0, 1.0) == 2.0
    assert ccb.round_lower_bound("scatter", 4, 2, 1.0, 1.0) == 2.0  # was 2 rounds + 1 byte = 3
    assert ccb.combined_lower_bound("gather", 4, 2, 1.0, 1e15) == 1.0
    # 0 bytes: an empty schedule is correct, and no bound may exceed its time of 0
    for primitive in ccb.PRIMITIVES:
        empty = ccb.Schedule.from_transfers(primitive, 4, 0, [], root=0)
        assert ccb.run_schedule(empty).correct
        assert ccb.round_lower_bound(primitive, 4, 0, 1.0, 1.0) == 0.0
        assert ccb.combined_lower_bound(primitive, 4, 0, 1.0, 1.0) == 0.0
        assert ccb.regime(primitive, 4, 0, 1.0, 1.0) == "bandwidth"  # both terms 0: a tie
