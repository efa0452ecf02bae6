"""Chapter 9 held to an outside review: values derived by hand or by brute force, not from the package.

* the trade-off theorem against the exhaustive optimum of every 1-port / 2-port schedule on 3-4
  nodes (fractional routing of every block, an LP per communication pattern);
* the circulant index schedule that reaches the bound where Bruck does not (N = 12, N = 10);
* routed timing on tori with dimension-order routing, loads by hand; the k-port rule of the
  routed model (a node has as many peers in a round as links);
* the two-level bound re-derived here, against every schedule the package makes on two-level
  topologies with odd node counts, one GPU per node, a shared NIC and uneven blocks.
"""

from __future__ import annotations

import itertools
import math

import pytest

import ccb_helpers as ccb

# --------------------------------------------------------------------------- the trade-off theorem


def _least_hops(n, rounds, ports):
    """H(N, r, k) by spreading labels: every holder spawns ``ports`` new labels one hop deeper per round."""
    depths = [0]
    for _ in range(rounds):
        depths += [d + 1 for d in depths for _ in range(ports)]
    reach = sorted(d for d in depths if d)
    return sum(reach[: n - 1]) if len(reach) >= n - 1 else None


def _patterns(n, ports):
    """Maximal k-port rounds: sets of directed pairs, out- and in-degree <= ports, no pair addable."""
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v]
    found = []
    for size in range(len(pairs), 0, -1):
        for combo in itertools.combinations(pairs, size):
            out = [0] * n
            inn = [0] * n
            for u, v in combo:
                out[u] += 1
                inn[v] += 1
            if max(out) <= ports and max(inn) <= ports:
                s = frozenset(combo)
                if not any(s < f for f in found):
                    found.append(s)
    return found


def _least_c2(n, rounds):
    """Least sum over rounds of the largest message, every block routed fractionally (an LP)."""
    from ortools.linear_solver import pywraplp

    def walks(i, j):
        out = []

        def go(node, t, path, seen):
            if node == j and path:
                out.append(tuple(path))
                return
            for tt in range(t, len(rounds)):
                for u, v in rounds[tt]:
                    if u == node and v not in seen:
                        go(v, tt + 1, path + [(tt, u, v)], seen | {v})

        go(i, 0, [], {i})
        return out

    solver = pywraplp.Solver.CreateSolver("GLOP")
    z = [solver.NumVar(0, solver.infinity(), "") for _ in rounds]
    load: dict = {}
    for i in range(n):
        for j in range(n):
            if i != j:
                options = walks(i, j)
                if not options:
                    return None
                flows = [solver.NumVar(0, 1, "") for _ in options]
                solver.Add(sum(flows) == 1)
                for f, path in zip(flows, options):
                    for hop in path:
                        load.setdefault(hop, []).append(f)
    for (t, _, _), flows in load.items():
        solver.Add(sum(flows) <= z[t])
    solver.Minimize(sum(z))
    assert solver.Solve() == pywraplp.Solver.OPTIMAL
    return solver.Objective().Value()


@pytest.mark.parametrize("n, ports, rounds", [(3, 1, 2), (4, 1, 2), (4, 2, 2)])
def test_no_schedule_on_few_nodes_beats_the_tradeoff_bound(n, ports, rounds):
    # Every pattern of `rounds` maximal k-port rounds, every routing of every block: the least C2
    # (in blocks) is at least H / k, and the package's H is the label count.
    patterns = _patterns(n, ports)
    least = min(
        (v for combo in itertools.product(patterns, repeat=rounds) if (v := _least_c2(n, list(combo))) is not None),
        default=math.inf,
    )
    h = _least_hops(n, rounds, ports)
    assert ccb.all_to_all_min_hops(n, rounds, ports) == h
    assert least >= h / ports - 1e-9
    # By hand: 4 nodes, 1 port, 2 rounds: 2 destinations at distance 1, 1 at 2 -> 4 blocks, attained;
    # 2 ports: 3 destinations at distance 1 -> 1.5 blocks, but no schedule gets below 5/3.
    expected = {(3, 1, 2): 2.0, (4, 1, 2): 4.0, (4, 2, 2): 5 / 3}[(n, ports, rounds)]
    assert least == pytest.approx(expected)


def test_circulant_schedules_reach_the_bound_where_bruck_does_not():
    # N = 12, 4 rounds: 4 offsets at distance 1 (the steps), 6 at 2, 1 at 3 -> 19 blocks; Bruck's
    # binary offsets 1..11 have 20 ones. Steps (1, 2, 4, 7): singles 1 2 4 7, pairs 3 5 8 6 9 11, 10 = 1+2+7.
    r = ccb.run_schedule(ccb.circulant_index_schedule(12, 12 * 16, (1, 2, 4, 7)))
    assert r.correct and r.rounds == 4 and r.max_message.sum() == 19 * 16
    assert r.max_message.tolist() == [5 * 16, 5 * 16, 4 * 16, 5 * 16]  # blocks that use step 1, 2, 4, 7
    assert sum(bin(j).count("1") for j in range(1, 12)) == 20 == ccb.bruck_index_cost(12, 12, 2)[1]
    # N = 10, steps (1, 2, 3, 6): 4 + 5 x 2 = 14 blocks, Bruck 15.
    r = ccb.run_schedule(ccb.circulant_index_schedule(10, 10 * 8, (1, 2, 3, 6)))
    assert r.correct and r.max_message.sum() == 14 * 8 == ccb.all_to_all_tradeoff_bound(10, 80, 4)
    with pytest.raises(ValueError, match="reach"):
        ccb.circulant_index_schedule(12, 120, (1, 2))


# --------------------------------------------------------------------------- routed tori


def test_dimension_order_routing_by_hand():
    # A ring over a torus numbered row-major: the message at a row's end goes down one row and
    # wraps along it; with dimension-order routing it shares no link, so each of the 2(N-1) rounds
    # costs one block: 2 x 15 x 64 on 4 x 4, 2 x 63 x 64 on 8 x 8.
    for dims in ((4, 4), (8, 8)):
        n = dims[0] * dims[1]
        s = ccb.generate("ring", "all_reduce", n, 64 * n)
        assert ccb.routed_time(s, ccb.torus(*dims), 0.0, 1.0) == 2 * (n - 1) * 64
    # Halving-doubling on a ring of 16, M = 1600, alpha = 0 (a tie half-way round goes the positive way):
    # near first: distance 2^s with M / 2^(s+1) -> 2^s messages on a link, M/2 per step, 8 steps: 4 M;
    # far first: distance 8 with M/2 (8 on a link: 4 M), 4 with M/4 (M), 2 with M/8, 1 with M/16: 2 x 5.3125 M.
    near = ccb.routed_time(ccb.halving_doubling_schedule(16, 1600, "near"), ccb.ring(16), 0.0, 1.0)
    far = ccb.routed_time(ccb.halving_doubling_schedule(16, 1600, "far"), ccb.ring(16), 0.0, 1.0)
    assert (near, far) == (4 * 1600, 2 * 5.3125 * 1600)
    rhd = ccb.generate("recursive_halving_doubling", "all_reduce", 16, 1600)
    assert ccb.routed_time(rhd, ccb.ring(16), 0.0, 1.0) == far
    # Swing beats both orders on the ring and the 8 x 8 torus; a ring in row-major order beats Swing
    # on 8 x 8 (63/32 M against Swing's 2.0625 M with one port: Swing's gain over Ring is its rounds).
    for topology, dims in ((ccb.ring(16), None), (ccb.torus(8, 8), (8, 8))):
        n = topology.n
        m = 64 * n
        swing = ccb.routed_time(ccb.swing_schedule(n, m, dims=dims), topology, 0.0, 1.0)
        near = ccb.routed_time(ccb.halving_doubling_schedule(n, m, "near"), topology, 0.0, 1.0)
        ring = ccb.routed_time(ccb.generate("ring", "all_reduce", n, m), topology, 0.0, 1.0)
        assert ring < swing < near
    for order in ("near", "far"):
        for n in (2, 3, 6, 12, 16):
            assert ccb.run_schedule(ccb.halving_doubling_schedule(n, 7 * n + 3, order)).correct


def test_routed_rounds_keep_the_k_port_rule():
    # One round of Bruck's 7-port AllGather on a ring of 8 would beat ceil(log3 8) = 2 rounds.
    with pytest.raises(ValueError, match="sends to 7 nodes but has 2 link"):
        ccb.routed_time(ccb.generate("bruck", "all_gather", 8, 800, ports=7), ccb.ring(8), 1.0, 1e9)
    # the receiving side too: a 3-port binomial Reduce's root hears 3 children on a line of 4
    with pytest.raises(ValueError, match="receives from 3 nodes"):
        ccb.routed_time(ccb.generate("binomial_tree", "reduce", 4, 40, ports=3), ccb.mesh(4), 1.0, 1e9)


@pytest.mark.parametrize("topology", [ccb.ring(6), ccb.ring(8), ccb.torus(3, 3), ccb.torus(2, 4), ccb.mesh(2, 3)])
def test_nothing_routed_with_at_most_d_peers_beats_the_routed_bound(topology):
    n = topology.n
    checked = 0
    for algorithm, models in ccb.ALGORITHMS.items():
        for primitive in models:
            for ports in (1, 2, 4):
                m = 24 * n
                try:
                    s = ccb.generate(algorithm, primitive, n, m, ports=ports)
                    t = ccb.routed_time(s, topology, 1.0, 1e3)
                except ValueError:
                    continue  # not applicable here, or more peers than links (refused above)
                assert t >= ccb.routed_lower_bound(primitive, topology, m, 1.0, 1e3) * (1 - 1e-12), (algorithm, ports)
                checked += 1
    assert checked >= 20


# --------------------------------------------------------------------------- the two-level bound

HW = ccb.TwoLevelHardware(1e-6, 450e9, 3e-6, 50e9)


def _two_level_bound(nodes, g, nic, m, ports):
    """eq:cc-two-level-bound re-derived: every GPU's share averaged over all N (only AllReduce's total is forced)."""
    n = nodes * g
    rounds = math.ceil(math.log(n, ports + 1) - 1e-12)
    network = math.ceil(math.log(nodes, ports * g + 1) - 1e-12) if nodes > 1 else 0
    latency = network * 3e-6 + (rounds - network) * 1e-6
    v, v_node = 2 * (n - 1) * m / n, 2 * (nodes - 1) * m / nodes
    node_beta = 50e9 * (g if nic == "gpu" else 1)
    if nodes == 1:
        return latency + v / 450e9
    endpoint = (v - v_node / g) / 450e9 + v_node / g / 50e9 if ports == 1 else v / (450e9 + node_beta / g)
    return latency + max(endpoint, v_node / node_beta)


@pytest.mark.parametrize(
    "nodes, g, nic", [(3, 1, "gpu"), (5, 1, "node"), (3, 3, "node"), (5, 2, "gpu"), (7, 2, "node")]
)
def test_two_level_schedules_stay_above_the_rederived_bound(nodes, g, nic):
    t = ccb.two_level(nodes, g, nic)
    n = t.n
    for m in (7, 8 * n + 3):
        schedules = [ccb.generate(a, "all_reduce", n, m) for a in ("ring", "recursive_doubling", "swing")]
        schedules += [ccb.hierarchical_schedule("hierarchical_ring", t, m, chunks=c) for c in (None, 2)]
        schedules += [ccb.hierarchical_schedule("two_level_tree", t, m, chunks=c) for c in (1, 4)]
        for s in schedules:
            assert ccb.run_schedule(s, ports=2).correct
            peers = max(
                (max(len({d for a, d in zip(r.src.tolist(), r.dst.tolist()) if a == v and d != v}) for v in range(n)))
                for r in s.rounds
            )
            ports = max(1, peers)
            bound = _two_level_bound(nodes, g, nic, m, ports)
            assert ccb.two_level_lower_bound("all_reduce", t, m, HW, ports=ports).total == pytest.approx(bound)
            assert ccb.two_level_time(s, t, HW) >= bound * (1 - 1e-12), (s.algorithm, m, ports)


# --------------------------------------------------------------------------- PAT against NCCL's own operations


def test_pat_port_replays_nccls_operations():
    # tests/data/nccl_pat_ops.json: NCCL 2.30.7's getNextOp run on the host (rank 0, parallelFactor 1)
    # for every aggregation NCCL reaches on 3..33 ranks, small messages (postFreq = aggFactor) and
    # large ones (postFreq = 1, aggFactor from the 8 buffer slots).
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "data" / "nccl_pat_ops.json").read_text())
    assert len(data["cases"]) >= 50
    for case in data["cases"]:
        n, agg = case["n"], case["agg_factor"]
        ours = [
            [op.send_dim, op.recv_dim, op.data % n, int(op.post_send)]
            for op in ccb.pat_operations(case["primitive"], n, agg)
            if not op.skip
        ]
        theirs = case["ops"]
        assert [o[:3] for o in ours] == [t[:3] for t in theirs], (case["primitive"], n, case["regime"])
        if case["post_freq"] == agg:  # NCCL's postSend is the book's message boundary
            assert ours == theirs
        if case["regime"] == "large":
            assert ccb.pat_aggregation(n) == agg
            # large messages: a slot per block, N - 1 posted sends, whatever A
            assert sum(1 for t in theirs if t[0] >= 0 and t[3]) == n - 1
