"""The catalogue attains the bounds for every N (#38): Bruck's reduce-scatter and AllReduce, the
pipelined chain and binary tree, the computation term γ — each pinned by values derived by hand
or counted by brute force here, and byte-checked in the simulator."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ccb_helpers as ccb

LARGE = [48, 64, 96, 100, 127, 128, 255]
NS = list(range(2, 34)) + LARGE


def ceil_log(n, base):
    """Smallest L with base**L >= n, by integer loop."""
    rounds, reach = 0, 1
    while reach < n:
        reach *= base
        rounds += 1
    return rounds


# -- Bruck reduce-scatter and AllReduce ----------------------------------------------------------


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("primitive", ["reduce_scatter", "all_reduce"])
def test_bruck_one_port_byte_exact_with_the_hand_closed_forms(n, primitive):
    # Hand: the all-gather's rounds carry 1, 2, 4, ... blocks, the last N - 2^(L-1): N - 1 blocks of
    # M / N in L = ceil(log2 N) rounds; the reduce-scatter is the same rounds backwards, adding
    # one block per received block: (N - 1) M / N added. AllReduce: both, in a row.
    m = 24 * n
    phases = 2 if primitive == "all_reduce" else 1
    r = ccb.simulate("bruck", primitive, n, m)
    assert r.correct, r.errors
    assert r.rounds == phases * math.ceil(math.log2(n))
    assert r.bandwidth_bytes == phases * (n - 1) * 24
    assert r.reduce_bytes == (n - 1) * 24
    assert r.bytes_sent.tolist() == [phases * (n - 1) * 24] * n  # every node sends exactly its share
    cost = ccb.algorithm_terms("bruck", primitive, n, m)
    assert (cost.steps, cost.bandwidth_bytes, cost.reduce_bytes) == (r.rounds, r.bandwidth_bytes, r.reduce_bytes)


@pytest.mark.parametrize("n", [2, 3, 5, 7, 12, 13, 31, 33, 100])
@pytest.mark.parametrize("m", [0, 1, 5, 1001])
def test_bruck_any_m_including_m_not_divisible_by_n(n, m):
    for primitive in ("reduce_scatter", "all_reduce", "all_gather"):
        assert ccb.simulate("bruck", primitive, n, m).correct


def _k_port_hand(n, k):
    """Blocks on the busiest port per round of the k-port concatenation, by the rule stated in
    the module: holding S blocks, the next r = min(k S, N - S) arrive split as evenly as whole
    blocks allow over k ports; S becomes S + r."""
    held, sizes = 1, []
    while held < n:
        r = min(k * held, n - held)
        sizes.append(-(-r // k))
        held += r
    return sizes


# Hand values of that rule (small cases worked on paper): N = 9, k = 2: S = 1 -> 3 -> 9, one block
# then three a port (4 = (N - 1) / k, the bound); N = 10, k = 2: S = 1 -> 3 -> 9 -> 10, the last
# round's single block on one port (5 blocks, half a block above the bound).
HAND = {(9, 2): [1, 3], (10, 2): [1, 3, 1], (4, 2): [1, 1], (16, 3): [1, 4], (17, 3): [1, 4, 1], (28, 2): [1, 3, 9, 1]}


@pytest.mark.parametrize("n, k", sorted(HAND))
def test_k_port_rule_by_hand(n, k):
    assert _k_port_hand(n, k) == HAND[(n, k)]


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("n", list(range(2, 34)) + [64, 100, 127])
def test_bruck_k_port_byte_exact(n, k):
    sizes = _k_port_hand(n, k)
    m = 12 * n
    for primitive, phases in (("all_gather", 1), ("reduce_scatter", 1), ("all_reduce", 2)):
        r = ccb.simulate("bruck", primitive, n, m, ports=k)
        assert r.correct, (primitive, r.errors)
        assert r.rounds == phases * ceil_log(n, k + 1) == phases * len(sizes)
        assert r.bandwidth_bytes == phases * sum(sizes) * 12
        assert r.reduce_bytes == (0 if primitive == "all_gather" else (n - 1) * 12)
        cost = ccb.algorithm_terms("bruck", primitive, n, m, ports=k)
        assert (cost.steps, cost.bandwidth_bytes, cost.reduce_bytes) == (r.rounds, r.bandwidth_bytes, r.reduce_bytes)
    # Within one block of the k-port bandwidth bound (N - 1) M / (k N), exactly on it when k divides
    # every round's r.
    assert (n - 1) / k <= sum(sizes) < (n - 1) / k + 1


def test_bruck_k_port_cost_model_for_huge_n_and_ports():
    # The counts stay exact integers: no k S formed past N (k up to 2**63 - 1).
    cost = ccb.algorithm_terms("bruck", "all_reduce", 2**62, 2.0**62, ports=2**63 - 1)
    assert cost.steps == 2 and cost.bandwidth_bytes == 2.0  # one round each way, one block a port
    cost = ccb.algorithm_terms("bruck", "all_gather", np.array([3**20, 3**20 + 1]), 3.0**20, ports=2)
    assert cost.steps.tolist() == [20, 21]


def test_the_issue_example_n12():
    # The audit: N = 12, 8 rounds, 1.833 M, beats best_algorithm's old Ring at 1 MiB on the A100 preset.
    preset = ccb.hardware.PRESETS["a100_nvlink"]
    r = ccb.simulate("bruck", "all_reduce", 12, 12 * 2**16)
    assert r.correct and r.rounds == 8 and r.bandwidth_bytes / (12 * 2**16) == pytest.approx(22 / 12)
    bruck = ccb.algorithm_cost("bruck", "all_reduce", 12, 2**20, preset.alpha, preset.beta)
    ring = ccb.algorithm_cost("ring", "all_reduce", 12, 2**20, preset.alpha, preset.beta)
    assert bruck == pytest.approx(8 * preset.alpha + 22 / 12 * 2**20 / preset.beta) and bruck < ring
    assert ccb.best_algorithm("all_reduce", 12, 2**20, preset.alpha, preset.beta)[0] == "bruck"


# -- done when: the best 1-port AllReduce never above the bandwidth-optimal log-round cost --------

SIZES = np.geomspace(1.0, 2.0**40, 161)


@pytest.mark.parametrize("preset", ["a100_nvlink", "h100_nvswitch", "ib_ndr", "pcie_gen4"])
def test_best_all_reduce_is_no_slower_than_2_log_rounds_and_the_bandwidth_bound(preset):
    p = ccb.hardware.PRESETS[preset]
    n = np.arange(2, 129)[:, None]
    levels = np.array([math.ceil(math.log2(v)) for v in range(2, 129)])[:, None]
    target = 2 * levels * p.alpha + 2 * (n - 1) / n * SIZES[None, :] / p.beta
    _, best = ccb.best_algorithm("all_reduce", n, SIZES[None, :], p.alpha, p.beta)
    assert np.all(best <= target * (1 + 1e-12))


@given(n=st.integers(2, 128), m=st.floats(0, 2.0**44), alpha=st.floats(0, 1e-3), beta=st.floats(1e6, 1e13))
def test_best_all_reduce_no_slower_than_the_target_anywhere(n, m, alpha, beta):
    target = 2 * math.ceil(math.log2(n)) * alpha + 2 * (n - 1) / n * m / beta
    assert ccb.best_algorithm("all_reduce", n, m, alpha, beta)[1] <= target * (1 + 1e-12) + 1e-300


# -- pipelined chain and binary tree ------------------------------------------------------------


def _heap_depth2(n):
    """Max over the heap tree's nodes of depth + second-child edges on the path, walking parents."""
    best = 0
    for v in range(1, n):
        depth = seconds = 0
        while v:
            seconds += v % 2 == 0  # node 2p + 2 is the second child of p
            v = (v - 1) // 2
            depth += 1
        best = max(best, depth + seconds)
    return best


@pytest.mark.parametrize("n", range(2, 300))
def test_one_port_tree_depth_against_the_tree(n):
    assert ccb.one_port_tree_depth(n) == _heap_depth2(n)


def _hand_rounds(algorithm, n, s, ports):
    if algorithm == "pipelined_chain" or n == 2:
        return n - 2 + s  # segment s - 1 leaves the root in round s - 1 and needs n - 1 hops
    if ports == 1:
        return 2 * (s - 1) + _heap_depth2(n)  # a segment every other round; D2 rounds for the first
    return (n.bit_length() - 1) + s - 1  # depth floor(log2 N), a segment a round


@pytest.mark.parametrize("algorithm", ["pipelined_chain", "pipelined_binary_tree"])
@pytest.mark.parametrize("ports", [1, 2])
@pytest.mark.parametrize("n", NS)
def test_pipelined_byte_exact_with_hand_rounds(algorithm, ports, n):
    for s in (1, 3, 8):
        rounds = _hand_rounds(algorithm, n, s, ports)
        m = 8 * s
        for primitive in ("broadcast", "reduce"):
            r = ccb.simulate(algorithm, primitive, n, m, ports=ports, chunks=s, root=(n // 3))
            assert r.correct, r.errors
            assert r.rounds == rounds
            assert r.bandwidth_bytes == rounds * 8  # one segment in every round
            cost = ccb.algorithm_terms(algorithm, primitive, n, m, ports=ports, chunks=s)
            assert (cost.steps, cost.bandwidth_bytes, cost.reduce_bytes) == (
                r.rounds,
                r.bandwidth_bytes,
                r.reduce_bytes,
            )
        assert ccb.simulate(algorithm, "reduce", n, m + 5, ports=ports, chunks=s).correct


@pytest.mark.parametrize("algorithm", ["pipelined_chain", "pipelined_binary_tree"])
@pytest.mark.parametrize("ports", [1, 2])
@pytest.mark.parametrize("n", [2, 3, 4, 7, 8, 12, 33, 100])
@pytest.mark.parametrize("ratio", [1e2, 1e4, 1e6, 3e7])
def test_optimal_segments_is_the_brute_force_minimum(algorithm, ports, n, ratio):
    alpha, beta = 5e-6, 25e9
    m = ratio * alpha * beta / 1e3
    for primitive, gamma in (("broadcast", 0.0), ("reduce", 0.0), ("reduce", 4e-11)):
        s = ccb.optimal_segments(algorithm, primitive, n, m, alpha, beta, ports=ports, gamma=gamma)
        every = np.arange(1, int(min(m, 20000)) + 1)  # every count a segment of a byte or more allows
        times = ccb.algorithm_cost(algorithm, primitive, n, m, alpha, beta, ports=ports, chunks=every, gamma=gamma)
        assert s < every[-1]  # the minimum lies inside the range searched
        assert ccb.algorithm_cost(algorithm, primitive, n, m, alpha, beta, ports=ports, chunks=s, gamma=gamma) == (
            pytest.approx(times.min(), rel=1e-12)
        )
        # algorithm_cost without chunks uses that count
        assert ccb.algorithm_cost(algorithm, primitive, n, m, alpha, beta, ports=ports, gamma=gamma) == pytest.approx(
            times.min(), rel=1e-12
        )


@pytest.mark.parametrize("n", [4, 10, 64, 1000])
def test_chain_optimum_closed_form(n):
    # T* = (sqrt((N - 2) alpha) + sqrt(M / beta))^2 at the real optimum s*; the whole s is within
    # the convexity gap of it, and never below it.
    alpha, beta, m = 5e-6, 25e9, 2.0**26
    star = (math.sqrt((n - 2) * alpha) + math.sqrt(m / beta)) ** 2
    best = ccb.algorithm_cost("pipelined_chain", "broadcast", n, m, alpha, beta)
    assert star <= best <= star * 1.01
    s_real = math.sqrt((n - 2) * m / (alpha * beta))
    assert abs(ccb.optimal_segments("pipelined_chain", "broadcast", n, m, alpha, beta) - s_real) <= 1


def test_pipelined_optimum_limits():
    # alpha = 0: as many segments as bytes allow; m = 0 or a chain of two: one segment.
    assert ccb.optimal_segments("pipelined_chain", "broadcast", 8, 1000, 0.0, 1e9) == 1000
    assert ccb.optimal_segments("pipelined_chain", "broadcast", 8, 0, 1e-6, 1e9) == 1
    assert ccb.optimal_segments("pipelined_chain", "broadcast", 2, 2**30, 1e-6, 1e9) == 1
    with pytest.raises(ValueError, match="primitive"):
        ccb.optimal_segments("pipelined_chain", "all_reduce", 8, 10, 1e-6, 1e9)
    with pytest.raises(ValueError, match="n"):
        ccb.optimal_segments("pipelined_chain", "broadcast", 1, 10, 1e-6, 1e9)
    with pytest.raises(ValueError, match="chunks is required"):
        ccb.algorithm_terms("pipelined_chain", "broadcast", 8, 10)
    with pytest.raises(ValueError, match="pipelined algorithms"):
        ccb.algorithm_terms("ring", "all_reduce", 8, 10, chunks=2)


def test_pipelined_algorithms_list():
    assert ccb.pipelined_algorithms() == ["double_binary_tree", "pipelined_chain", "pipelined_binary_tree"]
    assert ccb.pipelined_algorithms("broadcast") == ["pipelined_chain", "pipelined_binary_tree"]


# -- the computation term ------------------------------------------------------------------------


def test_computation_bound_by_hand():
    # (N - 1) / N M gamma: 7/8 of 8 MB at 1 ns a byte = 7 ms; copy primitives pay nothing.
    assert ccb.computation_lower_bound("all_reduce", 8, 8e6, 1e-9) == pytest.approx(7e-3)
    assert ccb.computation_lower_bound("reduce_scatter", 4, 4e6, 1e-9) == pytest.approx(3e-3)
    assert ccb.computation_lower_bound("broadcast", 8, 8e6, 1e-9) == 0.0
    # gamma = 0 leaves the bounds as they were, bit for bit.
    for f in (ccb.combined_lower_bound, ccb.round_lower_bound):
        assert f("all_reduce", 12, 3e6, 2e-6, 5e10, gamma=0.0) == f("all_reduce", 12, 3e6, 2e-6, 5e10)
    # The sum form adds it, the max form takes the largest term.
    lat, bw, comp = 4 * 2e-6, 2 * 11 / 12 * 3e6 / 5e10, 11 / 12 * 3e6 * 1e-10
    assert ccb.round_lower_bound("all_reduce", 12, 3e6, 2e-6, 5e10, gamma=1e-10) == pytest.approx(lat + bw + comp)
    assert ccb.combined_lower_bound("all_reduce", 12, 3e6, 2e-6, 5e10, gamma=1e-9) == pytest.approx(
        max(lat, bw, 11 / 12 * 3e6 * 1e-9)
    )


def test_reduced_bytes_by_hand():
    m = 1680.0
    assert ccb.algorithm_terms("ring", "all_reduce", 8, m).reduce_bytes == 7 * m / 8
    assert ccb.algorithm_terms("binomial_tree", "reduce", 8, m).reduce_bytes == 3 * m  # M a round, 3 rounds
    # 3-nomial on 9 nodes with 2 ports: node 0 adds two children's M in each of 2 rounds.
    assert ccb.algorithm_terms("binomial_tree", "reduce", 9, m, ports=2).reduce_bytes == 4 * m
    assert ccb.algorithm_terms("recursive_doubling", "all_reduce", 8, m).reduce_bytes == 3 * m
    assert ccb.algorithm_terms("recursive_doubling", "all_reduce", 12, m).reduce_bytes == 4 * m  # fold + 3
    assert ccb.algorithm_terms("recursive_halving_doubling", "all_reduce", 12, m).reduce_bytes == m + 7 * m / 8
    assert ccb.algorithm_terms("bruck", "all_gather", 8, m).reduce_bytes == 0.0


@pytest.mark.parametrize(
    "algorithm, primitive, ports",
    [(a, p, m.min_ports) for a, ms in ccb.ALGORITHMS.items() for p, m in ms.items() if p in ("reduce", "all_reduce")],
)
@pytest.mark.parametrize("n", [2, 3, 6, 8, 13, 32])
def test_every_reduction_adds_at_least_the_computation_bound(algorithm, primitive, ports, n):
    if ccb.ALGORITHMS[algorithm][primitive].power_of_two and n & (n - 1):
        return
    chunks = {"chunks": 4} if algorithm in ccb.pipelined_algorithms() else {}
    cost = ccb.algorithm_terms(algorithm, primitive, n, 48.0 * n, ports=ports, **chunks)
    assert cost.reduce_bytes >= (n - 1) * 48.0 * (1 - 1e-12)


def _dbt_two_port_units_on_the_trees(n, chunks):
    from ccb_helpers.double_binary_tree import _dbt_trees, _heights_depths

    height = (n - 1).bit_length()
    starts = np.zeros((n, height + chunks), dtype=int)  # +1 where a child starts sending, -1 after
    for parent in _dbt_trees(n):
        h, _ = _heights_depths(parent)
        child = np.nonzero(parent != -1)[0]
        np.add.at(starts, (parent[child], h[child]), 1)  # chunk c goes up in round c + h(child)
        np.add.at(starts, (parent[child], h[child] + chunks), -1)
    work = np.cumsum(starts, axis=1)[:, : height + chunks - 1]  # chunks a rank adds, per round
    return int(work.max(axis=0).sum())


@pytest.mark.parametrize("chunks", [1, 2, 5])
def test_dbt_two_port_reduced_closed_form_against_the_trees(chunks):
    from ccb_helpers.algorithms.double_tree import _dbt_two_port_reduce_chunks

    ns = list(range(2, 1100)) + [2**12 - 1, 2**12, 2**12 + 1, 2**12 + 2, 3 * 2**10, 3 * 2**10 + 1]
    found = [int(_dbt_two_port_reduce_chunks(n, chunks)) for n in ns]
    assert found == [_dbt_two_port_units_on_the_trees(n, chunks) for n in ns]


def test_gamma_moves_the_map():
    # With a slow adder the bandwidth-optimal reductions gain on those that add M a round.
    a = ccb.algorithm_cost("recursive_doubling", "all_reduce", 64, 2**16, 5e-6, 25e9)
    b = ccb.algorithm_cost("recursive_doubling", "all_reduce", 64, 2**16, 5e-6, 25e9, gamma=1e-9)
    assert b == pytest.approx(a + 6 * 2**16 * 1e-9)
    assert ccb.best_algorithm("all_reduce", 64, 2**16, 5e-6, 25e9)[0] == "recursive_doubling"
    assert ccb.best_algorithm("all_reduce", 64, 2**16, 5e-6, 25e9, gamma=1e-9)[0] != "recursive_doubling"


@pytest.mark.parametrize("algorithm, primitive", [(a, p) for a, ms in ccb.ALGORITHMS.items() for p in ms])
def test_gamma_zero_keeps_the_alpha_beta_numbers_bit_for_bit(algorithm, primitive):
    model = ccb.ALGORITHMS[algorithm][primitive]
    ns = np.array([2, 3, 8, 12, 64])
    if model.power_of_two:
        ns = np.array([2, 8, 64])
    ms = np.array([1.0, 5e3, 3e6, 2.0**33])[:, None]
    plain = ccb.algorithm_cost(algorithm, primitive, ns, ms, 2e-6, 5e10, ports=model.min_ports)
    zero = ccb.algorithm_cost(algorithm, primitive, ns, ms, 2e-6, 5e10, ports=model.min_ports, gamma=0.0)
    assert np.array_equal(plain, zero)
    # A positive gamma adds exactly reduce_bytes * gamma (the pipelined ones at a fixed chunk count).
    options = {"chunks": 5} if model.optimal_chunks is not None else {}
    cost = ccb.algorithm_terms(
        algorithm, primitive, 12 if not model.power_of_two else 16, 3e6, ports=model.min_ports, **options
    )
    n = 12 if not model.power_of_two else 16
    with_gamma = ccb.algorithm_cost(
        algorithm, primitive, n, 3e6, 2e-6, 5e10, ports=model.min_ports, gamma=1e-10, **options
    )
    assert with_gamma == pytest.approx(cost.time(2e-6, 5e10) + cost.reduce_bytes * 1e-10, rel=1e-12)


def test_best_algorithm_with_gamma_zero_is_unchanged():
    n = np.arange(2, 70)[:, None]
    m = np.geomspace(1, 2.0**36, 50)[None, :]
    for primitive in ("all_reduce", "reduce", "broadcast", "reduce_scatter"):
        a = ccb.best_algorithm(primitive, n, m, 3e-6, 4e10)
        b = ccb.best_algorithm(primitive, n, m, 3e-6, 4e10, gamma=0.0)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_adds_in_the_free_prologue_or_epilogue_are_refused():
    # The #38 review's schedule: a 2-node AllReduce of M bytes that copies the peer's buffer into
    # "work" in its one round and adds it in the (uncharged) epilogue ran in alpha + M / beta with
    # 0 bytes added, below the sum bound alpha + M / beta + (1/2) M gamma (by hand: one round, the
    # bandwidth term 2 (N - 1) / N M = M, the computation term (N - 1) / N M gamma = M gamma / 2).
    from ccb_helpers.schedule import Schedule, Transfer

    m, alpha, beta, gamma = 1 << 12, 1e-6, 25e9, 1e-9
    copy_round = [
        Transfer(0, 1, 0, m, "copy", "data", dst_buffer="work"),
        Transfer(1, 0, 0, m, "copy", "data", dst_buffer="work"),
    ]
    adds = [Transfer(v, v, 0, m, "reduce", "work", dst_buffer="data") for v in (0, 1)]
    for where in ("prologue", "epilogue"):
        rounds = [copy_round] if where == "epilogue" else [copy_round, adds]
        schedule = Schedule.from_transfers("all_reduce", 2, m, rounds, **{where: adds})
        with pytest.raises(ccb.ScheduleError, match=f"{where}: transfer 0 .*adds"):
            ccb.run_schedule(schedule)
    # The same adds in a round of their own are charged: 2 rounds, M bytes, M added (each node adds
    # its peer's M), above the bound.
    run = ccb.run_schedule(Schedule.from_transfers("all_reduce", 2, m, [copy_round, adds]))
    assert run.correct and (run.rounds, run.bandwidth_bytes, run.reduce_bytes) == (2, m, m)
    bound = alpha + m / beta + m * gamma / 2
    assert ccb.round_lower_bound("all_reduce", 2, m, alpha, beta, gamma=gamma) == pytest.approx(bound)
    assert run.time(alpha, beta, gamma) == pytest.approx(2 * alpha + m / beta + m * gamma)
    assert run.time(alpha, beta, gamma) > bound


def test_the_computation_term_does_not_shrink_with_the_ports():
    # #38 review: chapter 4 called gamma negligible on GPUs from the 1-port ratio gamma beta / 2 alone.
    # By hand for the A100 preset (2.039 TB/s of HBM, 3 bytes of traffic per byte added; 12 links of
    # 25 GB/s): 1 port, (7/8 M gamma) / (2 * 7/8 M / beta) = gamma beta / 2 = 1.8 %; with its 12 links
    # the bandwidth bound is 12 times smaller and the ratio is 12 gamma beta / 2 = 22 %.
    gamma, beta, m = 3 / 2.039e12, 25e9, 2.0**20
    p = ccb.preset("a100_nvlink")
    assert (p.gamma, p.beta, p.ports) == (pytest.approx(gamma), beta, 12)
    compute = ccb.computation_lower_bound("all_reduce", 8, m, p.gamma)
    assert compute == pytest.approx(7 / 8 * m * gamma)
    one = compute / ccb.bandwidth_lower_bound("all_reduce", 8, m, beta, ports=1)
    twelve = compute / ccb.bandwidth_lower_bound("all_reduce", 8, m, beta, ports=12)
    assert one == pytest.approx(gamma * beta / 2) and round(one, 3) == 0.018
    assert twelve == pytest.approx(12 * gamma * beta / 2) and round(twelve, 2) == 0.22
    # and the sum bound with all 12 links grows by that share of its bandwidth term
    lat = 1 * p.alpha  # ceil(log13 8) = 1 round
    assert ccb.round_lower_bound("all_reduce", 8, m, p.alpha, beta, ports=12, gamma=gamma) == pytest.approx(
        lat + 2 * 7 / 8 * m / (12 * beta) + 7 / 8 * m * gamma
    )


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("ports", [1, 2, 3])
def test_bruck_broadcast_and_reduce_scatter_then_all_gather_by_hand(n, ports):
    # #38 review: van de Geijn's broadcast with Bruck's all-gather. By hand, M = N blocks of b:
    # MPICH's binomial scatter (one port) sends N - 2^(L-1), then 2^(L-2), ..., 1 blocks from the
    # busiest sender, N - 1 blocks in L = ceil(log2 N) rounds; the all-gather's rounds carry the
    # blocks of _k_port_hand. Reduce: the same rounds backwards, adding N - 1 blocks (the
    # reduce-scatter's) and copying in the gather. Root anywhere.
    b = 8
    scatter = ceil_log(n, 2)
    gather = _k_port_hand(n, ports)
    for primitive in ("broadcast", "reduce"):
        run = ccb.simulate("bruck", primitive, n, n * b, ports=ports, root=(2 * n) // 3)
        assert run.correct, run.errors
        assert run.rounds == scatter + len(gather) == scatter + ceil_log(n, ports + 1)
        assert run.bandwidth_bytes == (n - 1) * b + sum(gather) * b
        assert run.reduce_bytes == (0 if primitive == "broadcast" else (n - 1) * b)
        cost = ccb.algorithm_terms("bruck", primitive, n, n * b, ports=ports)
        assert (cost.steps, cost.bandwidth_bytes, cost.reduce_bytes) == (
            run.rounds,
            run.bandwidth_bytes,
            run.reduce_bytes,
        )
    assert ccb.simulate("bruck", "reduce", n, n * b + 5, ports=ports, root=n - 1).correct


def test_bruck_broadcast_closes_the_rooted_gap_of_the_review():
    # #38 review: at N = 64, 1 MiB on the A100 preset the catalogue's best 1-port Broadcast and Reduce
    # (the pipelined binary tree, 159 us) took 1.58x what 2 log2 64 alpha + 2 (63/64) M / beta gives
    # (12 x 1.5 us + 82.6 us = 100.6 us); now that is the best, and it stays above the round bound.
    p = ccb.preset("a100_nvlink")
    m = 2.0**20
    target = 12 * p.alpha + 2 * 63 / 64 * m / p.beta
    assert target == pytest.approx(100.6e-6, abs=0.05e-6)
    for primitive in ("broadcast", "reduce"):
        name, t = ccb.best_algorithm(primitive, 64, m, p.alpha, p.beta)
        assert name == "bruck" and t == pytest.approx(target, rel=1e-12)
        assert ccb.algorithm_cost("pipelined_binary_tree", primitive, 64, m, p.alpha, p.beta) / t == pytest.approx(
            1.58, abs=0.01
        )
        assert t >= ccb.round_lower_bound(primitive, 64, m, p.alpha, p.beta)
