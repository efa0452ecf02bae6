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
    # whole-byte blocks (M mod N of them one byte larger): the root-free half may hold the smallest
    blocks = sorted(M // n + (i < M % n) for i in range(n))
    assert ccb.bisection_bytes("scatter", n, M) == sum(blocks[:small])
    assert ccb.bisection_bytes("all_to_all", n, M) == pytest.approx(_alltoall_crossing_brute_force(n))


def test_source_allreduce_volume_is_half_of_what_must_cross():
    # The source takes M/2 crossing; every one of A's M output bytes depends on B, so M must cross.
    assert ccb.bisection_bytes("all_reduce", 16, M) == 2 * (M / 2)


def test_ring_allreduce_never_bisection_bound():
    for n in range(3, 200):
        topo = ccb.ring(n)
        assert ccb.bisection_lower_bound("all_reduce", topo, M, 1e9) <= ccb.node_lower_bound(
            "all_reduce", topo, M, 1e9, ports=2
        )


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


def _instances():
    import itertools

    yield from (ccb.ring(n) for n in range(2, 24))
    for dims in itertools.product(range(1, 7), repeat=2):
        if dims[0] * dims[1] > 1:
            yield ccb.torus(*dims)
            yield ccb.mesh(*dims)
    for dims in itertools.product(range(2, 5), repeat=3):
        yield ccb.torus(*dims)
        yield ccb.mesh(*dims)
    yield from (ccb.hypercube(d) for d in range(1, 8))
    yield from (ccb.fully_connected(n) for n in range(2, 10))
    for n, h, o in [(8, 4, 1), (8, 4, 2), (12, 4, 2), (16, 4, 4), (18, 6, 2), (64, 8, 4), (6, 2, 1), (9, 3, 1)]:
        yield ccb.fat_tree(n, oversubscription=o, hosts_per_leaf=h)


@pytest.mark.parametrize("topo", list(_instances()), ids=str)
def test_constructed_cut_is_balanced_and_achieves_the_closed_form(topo):
    side = ccb.bisection_partition(topo)
    assert len(side) == topo.n // 2
    assert ccb.cut_links(topo, side) == topo.bisection_links


def test_allreduce_bisection_never_binds_with_a_cut_of_one_link_or_more():
    # AllReduce needs M across the cut but 2(N-1)M/N at every node: with L >= 1 cut links and p = d links
    # per node the bisection bound wins only if L < N d / (2(N-1)); a degree-1 fat-tree never qualifies.
    for o in (1, 2, 4, 8):
        topo = ccb.fat_tree(64, oversubscription=o, hosts_per_leaf=8)
        assert ccb.tighter_bound("all_reduce", topo, M, 1e9) == "node"


def test_oversubscription_threshold_for_alltoall():
    # 64 hosts, 8 per leaf: cut links = 32 / o. AllToAll crosses 32*32*M/64 = 16 M: bisection time
    # 16 M o / (32 beta) = o M / (2 beta) against node (63/64) M / beta: binds once o > 2 * 63/64.
    t = ccb.oversubscription_table(n=64, hosts_per_leaf=8)
    alltoall = [(o, tighter) for o, primitive, *_, tighter in t.values if primitive == "all_to_all"]
    assert [o for o, tighter in alltoall if tighter == "bisection"] == [2.0, 8 / 3, 4.0, 8.0]


def test_scatter_crossing_volume_with_the_root_on_either_side():
    # N = 5: the half without the root has 2 nodes (root on the larger side) or 3 (smaller side).
    assert ccb.bisection_bytes("scatter", 5, 1000) == 400
    assert ccb.bisection_bytes("gather", 5, 1000, root_side="smaller") == 600
    assert ccb.bisection_bytes("scatter", 6, 1200, root_side="smaller") == 600  # even N: same either way
    # Ring of 5 (every node alike): 3 blocks of M/5 over the 2 cut links; mesh 3x3 (not alike): 4 blocks
    # is all one can say for every min cut: 4 * M/9 over the 4 cut links... with the root on the
    # larger side.
    assert ccb.bisection_lower_bound("scatter", ccb.ring(5), 1000, 1.0) == pytest.approx(600 / 2)
    assert ccb.bisection_lower_bound("scatter", ccb.mesh(3, 3), 900, 1.0) == pytest.approx(400 / 4)


def test_mesh_node_bound_counts_corners_and_total_capacity():
    # mesh 4x4: degrees 2 (4 corners), 3 (8 edge nodes), 4 (4 inner): 48 link ends.
    mesh = ccb.mesh(4, 4)
    m = 16000.0
    # AllToAll: a corner sends 15/16 M = 15000 over 2 links.
    assert ccb.node_lower_bound("all_to_all", mesh, m, 1.0, ports=4) == 7500.0
    # AllReduce: per node M / 2 = 8000 at a corner, but all nodes together send 2 * 15 * M = 480000
    # over 48 link ends: 10000.
    assert ccb.node_lower_bound("all_reduce", mesh, m, 1.0, ports=4) == 10000.0
    # One port each: the per-node bound 2 (N-1) M / N would not hold node by node; the total does.
    assert ccb.node_lower_bound("all_reduce", mesh, m, 1.0, ports=1) == pytest.approx(480000 / 16)
    # Broadcast: root at an inner node (4 links), a corner still receives M over 2 links.
    assert ccb.node_lower_bound("broadcast", mesh, m, 1.0, ports=4) == 8000.0


def test_regular_graphs_keep_the_plain_node_bound():
    for topo in (ccb.ring(9), ccb.torus(4, 6), ccb.hypercube(4), ccb.fully_connected(7), ccb.single_switch(6, links=3)):
        for primitive in ccb.PRIMITIVES:
            want = ccb.bandwidth_lower_bound(primitive, topo.n, M, 1e9, ports=8, degree=topo.degree)
            assert ccb.node_lower_bound(primitive, topo, M, 1e9, ports=8) == pytest.approx(want), (topo.name, primitive)


def test_tighter_bound_reports_ties():
    # Fully connected 256, AllToAll, every link: both bounds are M / (256 beta).
    topo = ccb.fully_connected(256)
    assert ccb.tighter_bound("all_to_all", topo, M, 1e9, ports=255) == "tie"
    assert ccb.tighter_bound("all_to_all", topo, M, 1e9, ports=1) == "node"


def test_nvswitch_domain_gains_bisection_not_links_per_node():
    # 8 H100s, 18 NVLink4 links of 25 GB/s each into the switch, against a ring with the same 18 links
    # per GPU (9 to each neighbour, modelled as one link of 9 beta): the same node-level bound ...
    beta = 25e9
    switch = ccb.single_switch(8, links=18)
    ring = ccb.ring(8)
    for primitive in ("all_reduce", "all_gather", "all_to_all"):
        assert ccb.node_lower_bound(primitive, switch, M, beta, ports=18) == pytest.approx(
            ccb.node_lower_bound(primitive, ring, M, 9 * beta, ports=2)
        )
    # ... but 72 links cross the switch's bisection against 18 for the ring: AllToAll crosses 16 M/8.
    assert switch.bisection_links == 72
    assert ccb.bisection_lower_bound("all_to_all", switch, M, beta) == pytest.approx(2 * M / (72 * beta))
    assert ccb.bisection_lower_bound("all_to_all", ring, M, 9 * beta) == pytest.approx(2 * M / (18 * beta))
    assert ccb.tighter_bound("all_to_all", ring, M, 9 * beta, ports=2) == "bisection"
    assert ccb.tighter_bound("all_to_all", switch, M, beta, ports=18) == "node"


# --------------------------------------------------------------------------- uneven blocks (#37 audit)


def _ones(node_pairs_bytes):
    """One-byte copies ``(src, dst, byte)`` grouped by round, as Transfers."""
    return [[ccb.Transfer(s, d, b, 1) for s, d, b in step] for step in node_pairs_bytes]


def test_uneven_blocks_node_bound_on_a_graph_whose_nodes_differ():
    # Leaves 1 and 3 (one link each) hang off hubs 0 and 2, which share a double link. M = 6 over
    # 4 nodes: blocks of 1, 2, 1, 2 bytes (nodes 1 and 3 own the 2-byte ones). A leaf needs only
    # the other 4 bytes, not (N-1) M / N = 4.5. By hand, four rounds of 1-byte messages:
    links = ccb.topology_from_links([[0, 1, 2, 0], [1, 0, 0, 0], [2, 0, 0, 1], [0, 0, 1, 0]], name="two leaves")
    steps = _ones(
        [
            [(1, 0, 1), (3, 2, 4), (0, 1, 0), (2, 3, 3), (0, 2, 0), (2, 0, 3)],
            [(1, 0, 2), (3, 2, 5), (0, 1, 3), (2, 3, 0), (0, 2, 1), (2, 0, 4)],
            [(0, 1, 4), (2, 3, 1), (0, 2, 2), (2, 0, 5)],
            [(0, 1, 5), (2, 3, 2)],
        ]
    )
    run = ccb.run_schedule(ccb.Schedule.from_transfers("all_gather", 4, 6, steps), ports=2, topology=links)
    assert run.correct and run.time(0.0, 1.0) == 4.0
    # the bound, by hand: a leaf needs 6 - 2 = 4 bytes over its one link; a hub 5 over 2 ports
    assert ccb.node_lower_bound("all_gather", links, 6, 1.0, ports=2) == 4.0
    assert ccb.node_lower_bound("reduce_scatter", links, 6, 1.0, ports=2) == 4.0
    # with one port every class holds a node that owns a 1-byte block: 5 bytes over one link
    assert ccb.node_lower_bound("all_gather", links, 6, 1.0, ports=1) >= 4.5


def test_uneven_blocks_bisection_bound_on_a_graph_whose_nodes_differ():
    # A triangle: 0 - 1 by 3 links, 2 joined to each by 1. M = 10 over 3 nodes: blocks of 3, 3, 4
    # bytes. The minimum balanced cut is {2} (2 links); node 2 owns the 4-byte block, so only 3 + 3
    # bytes must cross into it, and 4 out: 6 / 2 links = 3, not ceil(3/2) M / N / 2 = 10/3. By hand,
    # three steps of one round of 1-byte chunks (0 and 1 trade node 2's block over their 3 links):
    import dataclasses

    tri = ccb.topology_from_links([[0, 3, 1], [3, 0, 1], [1, 1, 0]], name="triangle 3-1-1")
    steps = _ones(
        [
            [(0, 2, 0), (1, 2, 3), (2, 0, 6), (2, 1, 8), (0, 1, 0), (0, 1, 1), (0, 1, 2)]
            + [(1, 0, 3), (1, 0, 4), (1, 0, 5)],
            [(0, 2, 1), (1, 2, 4), (2, 0, 7), (2, 1, 9), (0, 1, 6), (1, 0, 8)],
            [(0, 2, 2), (1, 2, 5), (0, 1, 7), (1, 0, 9)],
        ]
    )
    schedule = dataclasses.replace(
        ccb.Schedule.from_transfers("all_gather", 3, 10, steps), step_rounds=(1, 1, 1), chunk_bytes=1
    )
    run = ccb.run_schedule(schedule, ports=4, topology=tri)
    assert run.correct and run.time(0.0, 1.0) == 3.0
    assert tri.bisection_links == 2
    assert ccb.bisection_lower_bound("all_gather", tri, 10, 1.0) == 3.0
    assert ccb.bisection_lower_bound("reduce_scatter", tri, 10, 1.0) == 3.0
    assert ccb.node_lower_bound("all_gather", tri, 10, 1.0, ports=4) == 3.0  # node 2: 6 bytes, 2 links
    # where every node looks alike (a ring of 3) the cut can be turned: ceil(3/2) M / N stays
    assert ccb.bisection_lower_bound("all_gather", ccb.ring(3), 10, 1.0) == pytest.approx(2 * 10 / 3 / 2)
