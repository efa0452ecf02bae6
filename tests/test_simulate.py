"""Executable schedules: every generator against its cost model, the bounds, and the port / link rules."""

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ccb_helpers as ccb
from ccb_helpers.schedule import Transfer as T

NS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 31, 32]
MODELS = [(a, p) for a, models in ccb.ALGORITHMS.items() for p in models]


def cases():
    for algorithm, primitive in MODELS:
        info = ccb.ALGORITHMS[algorithm][primitive]
        for n in NS:
            if info.power_of_two and n & (n - 1):
                continue
            yield algorithm, primitive, n


def options(algorithm):
    return {"chunks": 3} if algorithm in ccb.pipelined_algorithms() else {}


@pytest.mark.parametrize("algorithm, primitive, n", list(cases()))
def test_generator_matches_cost_model_and_is_correct(algorithm, primitive, n):
    ports = ccb.ALGORITHMS[algorithm][primitive].min_ports
    m = 96 * n * (1 << n.bit_length())  # divisible by n, by 2n, by the 6 chunk halves and by 2 * 2^floor(log2 n)
    result = ccb.simulate(algorithm, primitive, n, m, ports=ports, **options(algorithm))
    model = ccb.algorithm_terms(algorithm, primitive, n, m, ports=ports, **options(algorithm))
    assert result.correct, result.errors
    assert result.rounds == model.steps
    assert result.bandwidth_bytes == pytest.approx(model.bandwidth_bytes)
    assert result.reduce_bytes == pytest.approx(model.reduce_bytes)  # the γ term, counted on the rounds
    assert result.bytes_sent.sum() == result.bytes_received.sum()


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 8, 9, 13, 16, 32, 33])
@pytest.mark.parametrize("ports", [1, 2])
@pytest.mark.parametrize("chunks", [1, 4])
def test_double_binary_tree_both_port_models(n, ports, chunks):
    m = 16 * n * chunks
    r = ccb.simulate("double_binary_tree", "all_reduce", n, m, ports=ports, chunks=chunks)
    model = ccb.algorithm_terms("double_binary_tree", "all_reduce", n, m, ports=ports, chunks=chunks)
    assert r.correct, r.errors
    assert (r.rounds, r.bandwidth_bytes) == (model.steps, pytest.approx(model.bandwidth_bytes))
    # Every round moves exactly one chunk M / (2C) per message.
    assert set(r.max_message.tolist()) == {m // (2 * chunks)}


@pytest.mark.parametrize("n", [2, 4, 8, 16, 32, 64, 128, 6, 12, 24])
def test_two_port_rhd_runs_with_two_partners_per_round(n):
    p = 1 << (n.bit_length() - 1)
    m = 2 * p * 24
    r = ccb.simulate("recursive_halving_doubling_2port", "all_reduce", n, m, ports=2)
    assert r.correct, r.errors
    model = ccb.algorithm_terms("recursive_halving_doubling_2port", "all_reduce", n, m, ports=2)
    assert (r.rounds, r.bandwidth_bytes) == (model.steps, pytest.approx(model.bandwidth_bytes))
    # With 1 port the simulator refuses it (two partners per round) once there are two dimensions.
    if p >= 4:
        with pytest.raises(ccb.ScheduleError, match="ports=1"):
            ccb.run_schedule(r.schedule, ports=1)
    # Powers of two run on the hypercube's links only.
    if n == p and n >= 4:
        ccb.run_schedule(r.schedule, ports=2, topology=ccb.hypercube(p.bit_length() - 1))


def test_reversed_order_would_collide_at_the_middle_dimension():
    # The erratum's scheme: second half in reversed order. For 3 dimensions, round 2 uses dimension 1
    # in both orders, so a node would send both halves to one partner: no second port used.
    order = [2, 1, 0]
    assert [a == b for a, b in zip(order, order[::-1])] == [False, True, False]
    shifted = order[1:] + order[:1]
    assert not any(a == b for a, b in zip(order, shifted))


@pytest.mark.parametrize("n", [2, 3, 5, 8, 12, 16])
def test_per_node_bytes_of_bandwidth_optimal_algorithms(n):
    m = 48 * n
    forced = 2 * (n - 1) * m / n
    for algorithm, ports in (("ring", 1), ("bidirectional_ring", 2)):
        r = ccb.simulate(algorithm, "all_reduce", n, m, ports=ports)
        assert r.bytes_sent.tolist() == [forced] * n
        assert r.bytes_received.tolist() == [forced] * n
    if n & (n - 1) == 0:
        r = ccb.simulate("recursive_halving_doubling", "all_reduce", n, m)
        assert r.bytes_sent.tolist() == [forced] * n
    for algorithm in ("pairwise", "bruck"):
        r = ccb.simulate(algorithm, "all_to_all", n, m)
        if algorithm == "pairwise":
            assert r.bytes_sent.tolist() == [(n - 1) * m / n] * n  # exactly the forced volume
        else:
            assert r.bytes_sent.min() >= (n - 1) * m / n  # Bruck relays: more than forced


@pytest.mark.parametrize("root", [0, 3, 6])
@pytest.mark.parametrize("primitive", ["broadcast", "reduce", "scatter", "gather"])
def test_rooted_primitives_any_root(root, primitive):
    r = ccb.simulate("binomial_tree", primitive, 7, 7 * 16, root=root)
    assert r.correct, r.errors


@pytest.mark.parametrize("n", [2, 5, 9, 16, 27, 30])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_knomial_broadcast_attains_the_kport_bound(n, k):
    r = ccb.simulate("binomial_tree", "broadcast", n, 64, ports=k, topology=ccb.fully_connected(n))
    assert r.correct
    assert r.rounds == ccb.info_steps(n, k)


@pytest.mark.parametrize("n", range(2, 10))
def test_exhaustive_search_confirms_binomial_is_optimal_on_complete_graphs(n):
    topo = ccb.fully_connected(n)
    assert ccb.simulate("binomial_tree", "broadcast", n, 8, topology=topo).rounds == ccb.search_broadcast_steps(topo)


@pytest.mark.parametrize("n", range(2, 15))
def test_ring_broadcast_bound_tight_only_for_even_n(n):
    # The minimum 1-port broadcast on a ring (exhaustive search) is ceil(n/2): it meets max(log2 N, D)
    # for even n (and for n = 3, 5, where ceil(log2 n) = ceil(n/2)) and misses it by one round for odd n >= 7.
    topo = ccb.ring(n)
    best = ccb.search_broadcast_steps(topo)
    bound = max(ccb.info_steps(n), topo.diameter)
    assert best == (n + 1) // 2
    assert best - bound == (1 if n % 2 == 1 and n >= 7 else 0)


def test_ring_algorithms_use_only_ring_links():
    for n in (3, 4, 7, 8):
        topo = ccb.ring(n)
        assert ccb.simulate("ring", "all_reduce", n, 8 * n, topology=topo).correct
        assert ccb.simulate("bidirectional_ring", "all_reduce", n, 8 * n, ports=2, topology=topo).correct


def test_recursive_doubling_uses_only_hypercube_links():
    for dim in range(1, 6):
        topo = ccb.hypercube(dim)
        assert ccb.simulate("recursive_doubling", "all_gather", topo.n, 4 * topo.n, topology=topo).correct
        assert ccb.simulate("recursive_halving_doubling", "all_reduce", topo.n, 4 * topo.n, topology=topo).correct


def test_link_violation_names_round_and_transfer():
    with pytest.raises(ccb.ScheduleError, match=r"round 2: transfer \d+ \(\d+->\d+\) uses no link of ring 8"):
        ccb.simulate("binomial_tree", "broadcast", 8, 64, topology=ccb.ring(8))


def test_port_violation_names_round_and_node():
    with pytest.raises(ccb.ScheduleError, match="round 1: node .* but ports=1"):
        # A 2-port schedule run under the 1-port model.
        ccb.run_schedule(ccb.generate("bidirectional_ring", "all_gather", 8, 64, ports=2), ports=1)
    with pytest.raises(ccb.ScheduleError, match="receives from 2 nodes"):
        ccb.run_schedule(ccb.Schedule.from_transfers("all_gather", 3, 3, [[T(1, 0, 1, 1), T(2, 0, 2, 1)]]))


def test_buffer_bounds_are_checked():
    with pytest.raises(ccb.ScheduleError, match="outside buffer 'data' of 8 bytes"):
        ccb.run_schedule(ccb.Schedule.from_transfers("broadcast", 2, 8, [[T(0, 1, 4, 8)]]))
    with pytest.raises(ccb.ScheduleError, match="outside 0..1"):
        ccb.run_schedule(ccb.Schedule.from_transfers("broadcast", 2, 8, [[T(0, 2, 0, 8)]]))


def test_wrong_schedule_is_reported_incorrect():
    # A "broadcast" that forgets node 2.
    s = ccb.Schedule.from_transfers("broadcast", 3, 8, [[T(0, 1, 0, 8)]])
    r = ccb.run_schedule(s)
    assert not r.correct and "node 2" in r.errors[0]
    # A reduce that copies instead of adding.
    s = ccb.Schedule.from_transfers("reduce", 2, 8, [[T(1, 0, 0, 8, "copy")]])
    assert not ccb.run_schedule(s).correct


def test_hand_written_two_node_allreduce():
    s = ccb.Schedule.from_transfers(
        "all_reduce",
        2,
        8,
        [[T(0, 1, 4, 4, "reduce"), T(1, 0, 0, 4, "reduce")], [T(0, 1, 0, 4), T(1, 0, 4, 4)]],
    )
    r = ccb.run_schedule(s, seed=7)
    assert r.correct and r.rounds == 2
    assert r.time(1.0, 4.0) == pytest.approx(2 * 1.0 + (4 + 4) / 4.0)


def test_pieces_to_the_same_peer_are_one_message():
    # Two pieces 0 -> 1 in one round use one port and cost as one 8-byte message.
    s = ccb.Schedule.from_transfers("broadcast", 2, 8, [[T(0, 1, 0, 4), T(0, 1, 4, 4)]])
    r = ccb.run_schedule(s)
    assert r.correct and r.max_message.tolist() == [8]


def test_unequal_blocks_still_correct():
    for algorithm, primitive in [
        ("ring", "all_reduce"),
        ("bruck", "all_gather"),
        ("recursive_halving_doubling", "all_reduce"),
        ("binomial_tree", "scatter"),
        ("bidirectional_ring", "all_reduce"),
    ]:
        ports = ccb.ALGORITHMS[algorithm][primitive].min_ports
        assert ccb.simulate(algorithm, primitive, 6, 101, ports=ports).correct, algorithm


def test_ring_allreduce_1024_nodes_runs():
    r = ccb.simulate("ring", "all_reduce", 1024, 8192)
    assert r.correct and r.rounds == 2046


@given(
    model=st.sampled_from(MODELS),
    n=st.integers(1, 24),
    blocks=st.integers(0, 8),
    alpha=st.floats(0, 1e-4),
    beta=st.floats(1e6, 1e11),
)
def test_simulated_time_never_below_the_bound(model, n, blocks, alpha, beta):
    algorithm, primitive = model
    info = ccb.ALGORITHMS[algorithm][primitive]
    if info.power_of_two:
        n = 1 << (n.bit_length() - 1)
    m = blocks * 6 * n
    r = ccb.simulate(algorithm, primitive, n, m, ports=info.min_ports, **options(algorithm))
    assert r.correct
    bound = ccb.combined_lower_bound(primitive, n, m, alpha, beta, ports=info.min_ports)
    assert r.time(alpha, beta) >= bound * (1 - 1e-12)
    # The sum form, in the round model the simulator measures.
    total = ccb.round_lower_bound(primitive, n, m, alpha, beta, ports=info.min_ports)
    assert r.time(alpha, beta) >= total * (1 - 1e-12)


@given(
    n=st.integers(2, 20),
    blocks=st.integers(0, 6),
    alpha=st.floats(0, 1e-4),
    beta=st.floats(1e6, 1e11),
    family=st.sampled_from(["ring", "bidirectional_ring"]),
    primitive=st.sampled_from(["all_gather", "reduce_scatter", "all_reduce"]),
)
def test_ring_schedules_on_a_ring_never_below_the_round_bound_with_diameter(n, blocks, alpha, beta, family, primitive):
    ports = 1 if family == "ring" else 2
    topo = ccb.ring(n)
    m = blocks * 2 * n
    r = ccb.simulate(family, primitive, n, m, ports=ports, topology=topo)
    bound = ccb.round_lower_bound(
        primitive, n, m, alpha, beta, ports=ports, diameter=topo.step_diameter, degree=topo.degree
    )
    assert r.time(alpha, beta) >= bound * (1 - 1e-12)


def test_schedule_printing_and_errors():
    s = ccb.generate("pairwise", "all_to_all", 3, 6)
    assert "recv" in str(s)
    with pytest.raises(TypeError):
        ccb.run_schedule("not a schedule")
    with pytest.raises(ValueError, match="n=4 nodes"):
        ccb.run_schedule(s, topology=ccb.ring(4))
    with pytest.raises(ValueError, match="divisible"):
        ccb.generate("bruck", "all_to_all", 3, 7)
    with pytest.raises(ValueError, match="chunks"):
        ccb.generate("ring", "all_reduce", 4, 8, chunks=2)
    with pytest.raises(ValueError, match="unknown buffer"):
        ccb.Schedule.from_transfers("broadcast", 2, 8, [[T(0, 1, 0, 8, buffer="tmp")]])
    with pytest.raises(TypeError):
        ccb.Schedule.from_transfers("broadcast", 2, 8, [[(0, 1, 0, 8)]])


def test_draw_schedule():
    import matplotlib.pyplot as plt

    ax = ccb.draw_schedule(ccb.simulate("ring", "all_gather", 4, 64))
    assert len(ax.patches) == 3 * 4
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="max_messages"):
        ccb.draw_schedule(ccb.generate("ring", "all_reduce", 64, 64), max_messages=100)


@pytest.mark.parametrize(
    "algorithm, primitive, ports",
    [
        ("ring", "all_reduce", 1),
        ("recursive_doubling", "all_reduce", 1),
        ("bidirectional_ring", "reduce_scatter", 2),
        ("binomial_tree", "reduce", 2),
        ("bruck", "all_to_all", 1),
    ],
)
def test_long_pieces_take_the_slice_path_and_stay_correct(algorithm, primitive, ports):
    # 4 nodes x 512 KiB: pieces of >= 64 KiB are moved slice by slice; recursive doubling reads and
    # writes the same region in one round, which needs the snapshot copy.
    r = ccb.simulate(algorithm, primitive, 4, 512 * 1024, ports=ports)
    assert r.correct, r.errors


# -- issue #15 regressions --------------------------------------------------------------------


def test_regression_knomial_tree_k0_is_refused():
    from _limits import call_limited

    # k = 0 looped forever (span *= k + 1 never grows).
    out = call_limited(lambda: ccb.knomial_tree(8, k=0), seconds=10)
    assert out.clear_error and "k" in out.message, out


def test_regression_simulate_checks_memory_before_allocating():
    from _limits import GiB, call_limited

    # N = 1024, M = 1 MiB: 1 GiB of buffers plus checks and schedule; M = 1 GiB died inside numpy.
    for m in (2**20, 2**30):
        out = call_limited(lambda m=m: ccb.simulate("ring", "all_reduce", 1024, m), seconds=10, memory=GiB // 2)
        assert out.clear_error and "estimate" in out.message and "max_bytes" in out.message, (m, out)
    with pytest.raises(ValueError, match="max_bytes"):
        ccb.simulate("ring", "all_reduce", 4, 4096, max_bytes=1000)
    with pytest.raises(ValueError, match="max_bytes"):
        ccb.run_schedule(ccb.generate("ring", "all_reduce", 4, 4096), max_bytes=1000)
    # A budget is a keyword: raising it lets a bigger run go ahead.
    assert ccb.simulate("ring", "all_reduce", 4, 4096, max_bytes=2**40).correct


def test_regression_simulate_caps_transfers():
    from _limits import call_limited

    # Bruck AllToAll on 4096 nodes: 12 rounds but ~1.3e8 transfers would run for minutes.
    out = call_limited(lambda: ccb.simulate("bruck", "all_to_all", 4096, 4096), seconds=10)
    assert out.clear_error and "transfers" in out.message and "cap" in out.message, out
    # A ring AllReduce on 10**4 nodes: 19,998 rounds.
    out = call_limited(lambda: ccb.simulate("ring", "all_reduce", 10**4, 10**4), seconds=10)
    assert out.clear_error and "rounds" in out.message and "cap" in out.message, out


def test_regression_double_binary_tree_chunks_are_capped():
    from _limits import call_limited

    # chunks = 10**9 built 4 * 10**9 * (n - 1) Python tuples (hung).
    out = call_limited(
        lambda: ccb.generate("double_binary_tree", "all_reduce", 8, 64, ports=2, chunks=10**9), seconds=10
    )
    assert out.clear_error and "chunks" in out.message, out


def test_regression_all_to_all_needs_equal_blocks():
    # simulate("pairwise", "all_to_all", 4, 7) returned correct=False: with blocks of 1, 2, 2, 2 bytes
    # block j of node i (|block j| bytes) cannot fill recv block i (|block i| bytes).
    with pytest.raises(ValueError, match="divisible"):
        ccb.simulate("pairwise", "all_to_all", 4, 7)
    assert ccb.simulate("pairwise", "all_to_all", 4, 8).correct


def test_regression_block_bounds_do_not_overflow():
    # (arange(5) * 2**62) // 4 wrapped around in int64.
    assert ccb.block_bounds(2**62, 4).tolist() == [0, 2**60, 2**61, 3 * 2**60, 2**62]
    assert ccb.block_bounds(2**63 - 1, 3).tolist() == [0, (2**63 - 1) // 3, 2 * (2**63 - 1) // 3, 2**63 - 1]
    with pytest.raises(ValueError, match="m"):
        ccb.block_bounds(-1, 4)


def test_regression_modules_are_not_shadowed_by_functions():
    import importlib
    import pkgutil
    import types

    # `import ccb_helpers.simulate as m` gave the function ccb.simulate; the module is now simulator.
    import ccb_helpers.simulator as m

    assert isinstance(m, types.ModuleType) and callable(ccb.simulate) and ccb.simulate is m.simulate
    for info in pkgutil.iter_modules(ccb.__path__):
        module = importlib.import_module(f"ccb_helpers.{info.name}")
        assert getattr(ccb, info.name, module) is module, f"ccb.{info.name} shadows the module ccb_helpers.{info.name}"


@pytest.mark.parametrize("algorithm, primitive, n", list(cases()))
def test_schedule_size_closed_forms_bound_the_generated_schedules(algorithm, primitive, n):
    # The caps of generate / simulate are decided from these closed forms before any round is built.
    from ccb_helpers.generators import schedule_size

    ports = ccb.ALGORITHMS[algorithm][primitive].min_ports
    chunks = 3 if algorithm in ccb.pipelined_algorithms() else None
    s = ccb.generate(algorithm, primitive, n, 96 * n, ports=ports, **options(algorithm))
    rounds, transfers = schedule_size(algorithm, primitive, n, ports, chunks)
    assert rounds == len(s.rounds)
    assert transfers >= sum(len(r) for r in s.rounds) + len(s.prologue) + len(s.epilogue)


def test_regression_empty_messages_on_a_topology():
    # m = 0 on a topology: every piece has length 0 and the link-load maximum had no elements
    # ("zero-size array to reduction operation maximum", found by the fuzz test).
    r = ccb.simulate("binomial_tree", "broadcast", 4, 0, topology=ccb.fully_connected(4))
    assert r.correct and r.link_load.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("algorithm", ["pairwise", "bruck"])
def test_all_to_all_with_m_not_divisible_by_n_is_a_clear_error(algorithm):
    # An earlier report said IndexError: simulate refuses before generating, and run_schedule
    # refuses a schedule whose m was changed after generation (10 bytes cannot split into 4 blocks).
    with pytest.raises(ValueError, match="m divisible by n.*m=10, n=4"):
        ccb.simulate(algorithm, "all_to_all", 4, 10)
    stale = dataclasses.replace(ccb.generate(algorithm, "all_to_all", 4, 12), m=10)
    with pytest.raises(ValueError, match="m divisible by n.*m=10, n=4"):
        ccb.run_schedule(stale)


def test_switch_step_time_counts_the_uplink():
    """Issue #28 (outside fuzzer): a synthesized-style step on a single switch sends three 1-byte
    blocks into the root's one downlink; run.time counted the largest message (1 byte), a third
    of synthesized_time and below the gather's bandwidth bound of 3 B over one link. Issue #37:
    such a step is not one round of the book either (a one-link node hears one peer a round), so
    it is refused; as three steps of one round it costs 3 alpha + 3 B / beta, above the round bound."""
    import dataclasses

    T = ccb.Transfer
    gather = ccb.Schedule.from_transfers("gather", 4, 4, [[T(1, 0, 1, 1), T(2, 0, 2, 1), T(3, 0, 3, 1)]])
    step = dataclasses.replace(gather, step_rounds=(3,), chunk_bytes=1)
    with pytest.raises(ccb.ScheduleError, match="receives from 3 nodes .* 1 link"):
        ccb.run_schedule(step, ports=3, topology=ccb.single_switch(4))
    with pytest.raises(ccb.ScheduleError, match="1 link"):  # without steps: one message per link
        ccb.run_schedule(gather, ports=3, topology=ccb.single_switch(4))
    one_by_one = ccb.Schedule.from_transfers("gather", 4, 4, [[T(1, 0, 1, 1)], [T(2, 0, 2, 1)], [T(3, 0, 3, 1)]])
    steps = dataclasses.replace(one_by_one, step_rounds=(1, 1, 1), chunk_bytes=1)
    run = ccb.run_schedule(steps, ports=3, topology=ccb.single_switch(4))
    assert run.correct and run.bandwidth_bytes == 3  # 3 bytes through one link, one after another
    assert run.time(1.0, 1.0) == 6.0 == ccb.synthesized_time(steps, 1.0, 1.0)  # by hand: 3 x (1 + 1)
    bound = ccb.round_lower_bound("gather", 4, 4, 1.0, 1.0, ports=3, diameter=1, degree=1)
    assert bound == 2.0 + 3.0  # ceil(log2 4) rounds + 3 bytes over one link
    assert run.time(1.0, 1.0) >= bound


# --------------------------------------------------------------------------- links beyond the endpoints (#37)


def _pairwise_fat_tree_bytes(n, hosts_per_leaf, spines, block):
    """By hand: in round k of pairwise AllToAll host i sends one block to i + k mod n. A leaf's
    hosts whose peer sits under another leaf send through its `spines` uplinks, spread evenly;
    a round costs its largest message (one block) or that share, whichever is more."""
    total = 0
    for k in range(1, n):
        crossing = sum((i + k) % n // hosts_per_leaf != i // hosts_per_leaf for i in range(hosts_per_leaf))
        total += max(block, crossing * block / spines)
    return total


@pytest.mark.parametrize("oversubscription, spines", [(1, 4), (2, 2), (4, 1)])
def test_oversubscribed_fat_tree_charges_the_leaf_links(oversubscription, spines):
    # Issue #37: 2:1 simulated 15,360 below the bisection bound 16,384 (4:1: 15,360 vs 32,768).
    tree = ccb.fat_tree(16, oversubscription=oversubscription)
    run = ccb.simulate("pairwise", "all_to_all", 16, 16384, topology=tree)
    assert run.correct
    assert run.time(0.0, 1.0) == _pairwise_fat_tree_bytes(16, 4, spines, 1024)
    assert run.time(0.0, 1.0) == {1: 15360, 2: 25600, 4: 49152}[oversubscription]
    assert run.time(0.0, 1.0) >= ccb.bisection_lower_bound("all_to_all", tree, 16384, 1.0)
    # run_schedule is the same run (no step_rounds): the same charge
    again = ccb.run_schedule(ccb.generate("pairwise", "all_to_all", 16, 16384), topology=tree)
    assert again.time(0.0, 1.0) == run.time(0.0, 1.0)


def test_fat_tree_closed_form_equals_shortest_path_routing():
    # The same fat tree as a user graph goes through the general router (every shortest path
    # through the switches, split evenly): the two link models agree.
    tree = ccb.fat_tree(16, oversubscription=2)
    custom = ccb.topology_from_graph(tree.graph, name="fat tree by hand", bisection_links=tree.bisection_links)
    for algorithm, primitive in (("pairwise", "all_to_all"), ("ring", "all_reduce"), ("bruck", "all_gather")):
        a = ccb.simulate(algorithm, primitive, 16, 16 * 64, topology=tree)
        b = ccb.simulate(algorithm, primitive, 16, 16 * 64, topology=custom)
        assert a.time(0.0, 1.0) == b.time(0.0, 1.0) and a.correct and b.correct


def _pcie_tree():
    """Two PCIe switches of two GPUs each under one root switch: one link between the halves."""
    import networkx as nx

    g = nx.Graph()
    for v in ("A", "B", "root"):
        g.add_node(v, kind="switch")
    g.add_edges_from([(0, "A"), (1, "A"), (2, "B"), (3, "B"), ("A", "root"), ("B", "root")])
    return ccb.topology_from_graph(g, name="PCIe tree")


def test_switch_to_switch_links_of_any_graph_are_charged():
    # Before #37 only the GPUs' own links counted: 3 blocks, below the bisection bound of 4.
    tree = _pcie_tree()
    assert tree.bisection_links == 1
    run = ccb.simulate("pairwise", "all_to_all", 4, 4096, topology=tree)
    # By hand: round 1 (i -> i+1) sends one block A -> B (1 -> 2) and one B -> A (3 -> 0); round 2
    # (i -> i+2) two blocks each way over the one link; round 3 one block each way.
    assert run.link_load.tolist() == [1024.0, 2048.0, 1024.0]
    assert run.time(0.0, 1.0) == 4096 == ccb.bisection_lower_bound("all_to_all", tree, 4096, 1.0)


def test_a_pair_without_a_switch_path_is_refused():
    import networkx as nx

    g = nx.Graph()
    g.add_node("s", kind="switch")
    g.add_edges_from([(0, "s"), (1, "s"), (1, 2)])  # 2 hangs off endpoint 1, which does not forward
    t = ccb.topology_from_graph(g, name="pendant")
    schedule = ccb.Schedule.from_transfers("broadcast", 3, 4, [[T(0, 2, 0, 4)]])
    with pytest.raises(ccb.ScheduleError, match=r"0->2\) has no path through the switches of pendant"):
        ccb.run_schedule(schedule, topology=t)


def test_step_rounds_are_refused_on_several_switch_levels_with_the_reason():
    s = ccb.Schedule.from_transfers("broadcast", 16, 16, [[T(0, 5, 0, 16)]])
    s = dataclasses.replace(s, step_rounds=(1,), chunk_bytes=16)
    with pytest.raises(ccb.ScheduleError, match="direct networks and single switches.*without step_rounds"):
        ccb.run_schedule(s, ports=15, topology=ccb.fat_tree(16, oversubscription=2))


def test_routing_work_is_capped_before_the_run(monkeypatch):
    from ccb_helpers import routing

    monkeypatch.setattr(routing, "MAX_ROUTING_WORK", 10)
    with pytest.raises(ValueError, match="routing every message"):
        ccb.simulate("pairwise", "all_to_all", 4, 4096, topology=_pcie_tree())


@pytest.mark.parametrize("steps, chunks, rounds", [(2, 2, 3), (3, 6, 7)])
def test_synthesized_time_and_the_simulator_agree_on_parallel_links(steps, chunks, rounds):
    # Issue #37: on the DGX-1's double NVLinks the simulator charged the largest message (twice a
    # link's load): 6.0 against synthesized_time's 3.0 for (2, 3, 2), 14 against 7 for (3, 7, 6).
    # By SCCL's cost model the bandwidth time is R chunks: 3 and 7 (chunk_bytes = 1 here).
    t = ccb.dgx1()
    s = ccb.stored_schedule(t, "all_gather", steps, chunks)
    run = ccb.verify_synthesized(s, t)
    assert s.chunk_bytes == 1 and run.correct
    assert run.time(0.0, 1.0) == ccb.synthesized_time(s, 0.0, 1.0) == rounds
    assert run.time(1.0, 1.0) == ccb.synthesized_time(s, 1.0, 1.0) == steps + rounds
    # and the measured busiest link fills the declared rounds exactly (no padding)
    assert run.link_load.tolist() == [float(r) for r in s.step_rounds]


@pytest.mark.parametrize("oversubscription, spines", [(1, 4), (2, 2), (4, 1)])
def test_all_reduce_on_an_oversubscribed_fat_tree_pays_only_for_its_link_conflicts(oversubscription, spines):
    # Chapter 5's table (16 hosts, 4 per leaf, M = 16 KiB, alpha = 0, beta = 1), by hand.
    n, m, per_leaf = 16, 16384, 4
    tree = ccb.fat_tree(n, oversubscription=oversubscription)
    # Ring: in every round one host per leaf sends out of it, one message per uplink: 2 (N-1) M / N.
    ring = ccb.simulate("ring", "all_reduce", n, m, topology=tree)
    assert ring.time(0.0, 1.0) == 2 * (n - 1) * m / n == ccb.node_lower_bound("all_reduce", tree, m, 1.0)
    # Recursive halving: partners N/2, N/4, N/8, N/16 away exchange M/2, M/4, M/8, M/16; the
    # first two cross leaves (all 4 hosts of a leaf share its `spines` uplinks), the last two stay
    # inside; the AllGather mirrors the ReduceScatter.
    halving = [(m / 2, True), (m / 4, True), (m / 8, False), (m / 16, False)]
    expected = 2 * sum(max(size, per_leaf * size / spines) if across else size for size, across in halving)
    rhd = ccb.simulate("recursive_halving_doubling", "all_reduce", n, m, topology=tree)
    assert rhd.time(0.0, 1.0) == expected == {1: 30720, 2: 55296, 4: 104448}[oversubscription]


def test_every_algorithm_of_the_catalogue_has_a_schedule_generator():
    # The two registries are kept in step by name: a cost model without rounds (or rounds without
    # a cost model) would leave a pair unchecked by the tests above.
    from ccb_helpers.generators import GENERATORS

    assert list(GENERATORS) == list(ccb.ALGORITHMS)
