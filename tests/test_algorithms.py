"""Algorithm cost models: hand-derived values, brute-force round sizes, and 'never below the bound'."""

from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ccb_helpers as ccb

M = 1680.0  # divisible by 1..8 and 10, 12, 14, 16 halves


class RoundsBytes(NamedTuple):
    steps: int
    bandwidth_bytes: float


def terms(algorithm, primitive, n, **kw):
    """Rounds and bandwidth bytes (the reduced bytes, the third field of Cost, are tested apart)."""
    cost = ccb.algorithm_terms(algorithm, primitive, n, M, **kw)
    return RoundsBytes(cost.steps, cost.bandwidth_bytes)


def test_ring_hand_values():
    # Ring AllReduce on 4 nodes: RS (3 rounds of M/4) then AG (3 rounds of M/4).
    assert terms("ring", "all_reduce", 4) == (6, 6 * M / 4)
    assert terms("ring", "all_gather", 4) == (3, 3 * M / 4)
    assert terms("ring", "reduce_scatter", 5) == (4, 4 * M / 5)


def test_bidirectional_ring_hand_values():
    # N = 5: blocks go both ways, 2 rounds, each port carries one block M/5 per round.
    assert terms("bidirectional_ring", "all_gather", 5, ports=2) == (2, 2 * M / 5)
    # N = 6: 3 rounds; the antipodal block arrives half from each side in the last round.
    assert terms("bidirectional_ring", "all_gather", 6, ports=2) == (3, 2 * M / 6 + M / 12)
    assert terms("bidirectional_ring", "all_reduce", 6, ports=2) == (6, 2 * (2 * M / 6 + M / 12))


def test_binomial_hand_values():
    assert terms("binomial_tree", "broadcast", 8) == (3, 3 * M)
    assert terms("binomial_tree", "broadcast", 9, ports=2) == (2, 2 * M)  # 3-nomial tree
    assert terms("binomial_tree", "all_reduce", 8) == (6, 6 * M)


def _binomial_scatter_round_sizes(n):
    """Largest message (in blocks) per round of MPICH's binomial scatter, by direct simulation."""
    # Node i < mask holds blocks [i, min(i + 2*mask, n)) and sends the upper half [i+mask, ...) to i+mask.
    sizes = []
    mask = 1 << ((n - 1).bit_length() - 1) if n > 1 else 0
    while mask >= 1:
        round_max = 0
        for i in range(0, n, 2 * mask):
            if i + mask < n:
                round_max = max(round_max, min(i + 2 * mask, n) - (i + mask))
        sizes.append(round_max)
        mask //= 2
    return sizes


@pytest.mark.parametrize("n", range(2, 40))
def test_binomial_scatter_against_simulated_round_sizes(n):
    sizes = _binomial_scatter_round_sizes(n)
    cost = terms("binomial_tree", "scatter", n)
    assert cost.steps == len(sizes)
    assert cost.bandwidth_bytes == pytest.approx(sum(sizes) * M / n)


def _bruck_alltoall_blocks(n):
    """Blocks sent per round of Bruck's all-to-all: round b sends every index j < n with bit b set."""
    rounds = (n - 1).bit_length()
    return [sum(1 for j in range(n) if j >> b & 1) for b in range(rounds)]


@pytest.mark.parametrize("n", range(2, 40))
def test_bruck_all_to_all_by_counting(n):
    blocks = _bruck_alltoall_blocks(n)
    cost = terms("bruck", "all_to_all", n)
    assert cost.steps == len(blocks)
    assert cost.bandwidth_bytes == pytest.approx(sum(blocks) * M / n)


@pytest.mark.parametrize("n", range(2, 40))
def test_bruck_all_gather_round_sizes(n):
    # Round b sends min(2^b, n - 2^b) blocks.
    rounds = (n - 1).bit_length()
    sizes = [min(2**b, n - 2**b) for b in range(rounds)]
    assert terms("bruck", "all_gather", n) == (rounds, pytest.approx(sum(sizes) * M / n))


def test_recursive_halving_doubling():
    # N = 8: 3 halving + 3 doubling rounds, M/2 + M/4 + M/8 each way.
    assert terms("recursive_halving_doubling", "all_reduce", 8) == (6, pytest.approx(2 * (M / 2 + M / 4 + M / 8)))
    # N = 6: fold 2 ranks (one round of M), RHD on 4 (4 rounds, 2 * 3/4 M), unfold (one round of M).
    assert terms("recursive_halving_doubling", "all_reduce", 6) == (6, pytest.approx(2 * M + 1.5 * M))
    assert terms("recursive_halving_doubling", "reduce_scatter", 8) == (3, pytest.approx(7 * M / 8))
    with pytest.raises(ValueError, match="power of two"):
        terms("recursive_halving_doubling", "reduce_scatter", 6)


def test_recursive_doubling():
    assert terms("recursive_doubling", "all_reduce", 8) == (3, 3 * M)
    assert terms("recursive_doubling", "all_reduce", 12) == (5, 5 * M)  # fold + 3 + unfold
    assert terms("recursive_doubling", "all_gather", 16) == (4, pytest.approx(15 * M / 16))


def test_pairwise_and_scatter_allgather():
    assert terms("pairwise", "all_to_all", 7) == (6, pytest.approx(6 * M / 7))
    # Binomial scatter (3 rounds, 7/8 M) then ring all-gather (7 rounds, 7/8 M).
    assert terms("scatter_allgather", "broadcast", 8) == (10, pytest.approx(2 * 7 * M / 8))


def test_double_binary_tree_forms():
    # Unpipelined: reduce then broadcast of M/2 per tree over height ceil(log2 N): 2H rounds of M/2.
    assert terms("double_binary_tree", "all_reduce", 8, ports=2, pipelined=False) == (6, 3 * M)
    assert terms("double_binary_tree", "all_reduce", 5, ports=2, pipelined=False) == (6, 3 * M)
    # Pipelined with C chunks: 2 (H + C - 1) rounds of M / (2C).
    assert terms("double_binary_tree", "all_reduce", 8, ports=2, chunks=4) == (12, pytest.approx(12 * M / 8))


def test_double_binary_tree_one_port_by_hand():
    # N = 8. Trees (NCCL): tree 0 parents [-1, 2, 4, 2, 0, 6, 4, 6], tree 1 its mirror
    # [1, 3, 1, 7, 5, 3, 5, -1]. Edge colours (walk along the paths / cycles of the bipartite
    # child-parent graph): each rank's two up-links differ, each parent's two child-links differ.
    # Reduce levels by colour: colour 0 at heights {0, 1, 2}, colour 1 at heights {0, 1};
    # broadcast: colour 0 at depths-1 {0, 1, 2}, colour 1 at {1, 2}. With C chunks a level is busy
    # C consecutive 2-port rounds, so colour 0 needs C + 2 sub-rounds and colour 1 needs C + 1 in
    # each phase: 2 (2C + 3) = 4C + 6, against 4 (H + C - 1) = 4C + 8 with nothing dropped.
    for chunks in (1, 2, 4, 16):
        assert terms("double_binary_tree", "all_reduce", 8, chunks=chunks) == (
            4 * chunks + 6,
            pytest.approx((4 * chunks + 6) * M / (2 * chunks)),
        )
    # Unpipelined: C = 1, 10 rounds of M/2.
    assert terms("double_binary_tree", "all_reduce", 8, pipelined=False) == (10, pytest.approx(5 * M))


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 16, 21, 64])
def test_double_binary_tree_one_port_takes_at_most_twice_the_rounds(n):
    for chunks in (1, 3, 8):
        one = terms("double_binary_tree", "all_reduce", n, chunks=chunks)
        two = terms("double_binary_tree", "all_reduce", n, ports=2, chunks=chunks)
        # N = 2: one edge per tree, both of colour 0, one message each way per round: nothing to split.
        assert (two.steps < one.steps if n > 2 else two.steps == one.steps) and one.steps <= 2 * two.steps
    # Many chunks: each phase moves M through every node's port, the coefficient tends to 2 (the
    # 1-port bound is 2 (N - 1) / N); for N = 2 both directions share the round: 1 = 2 (N - 1) / N.
    limit = 2 if n > 2 else 1
    assert terms("double_binary_tree", "all_reduce", n, chunks=4096).bandwidth_bytes / M == pytest.approx(
        limit, rel=0.01
    )


def test_two_port_rhd_by_hand():
    # N = 8, two halves, 6 rounds; each half moves 7/8 of M/2 per phase: 7/8 M in all (2-port bound).
    assert terms("recursive_halving_doubling_2port", "all_reduce", 8, ports=2) == (6, pytest.approx(7 * M / 8))
    # N = 2: one dimension, both halves go to the one partner in one message: M/2 per phase.
    assert terms("recursive_halving_doubling_2port", "all_reduce", 2, ports=2) == (2, pytest.approx(M))
    # N = 12 folds 4 ranks: 2 + 2 * 3 rounds, 2M + 7/8 M.
    assert terms("recursive_halving_doubling_2port", "all_reduce", 12, ports=2) == (8, pytest.approx(2 * M + 7 * M / 8))
    with pytest.raises(ValueError, match="ports"):
        terms("recursive_halving_doubling_2port", "all_reduce", 8)


def test_optimal_chunks_is_a_brute_force_minimum():
    for n, m, alpha, beta in [
        (16, 2**20, 5e-6, 25e9),
        (64, 2**26, 2e-6, 50e9),
        (8, 1e3, 1e-5, 1e9),
        (2, 1e6, 1e-6, 1e9),
    ]:
        best = ccb.optimal_chunks(n, m, alpha, beta)
        times = {
            c: ccb.algorithm_terms("double_binary_tree", "all_reduce", n, m, ports=2, chunks=c).time(alpha, beta)
            for c in range(1, 400)
        }
        assert times[best] == pytest.approx(min(times.values()))


def test_tree_height_is_nccl_btree_height():
    # NCCL's btree: rank 0 has one child, the highest power of two below N; heights measured by walking it.
    def height(n):
        def children(rank):
            if rank == 0:
                bit = 1
                while bit < n:
                    bit <<= 1
                return [bit >> 1] if n > 1 else []
            bit = rank & -rank
            low = bit >> 1
            if low == 0:
                return []
            kids = [rank - low]
            while rank + low >= n and low > 0:
                low >>= 1
            if low:
                kids.append(rank + low)
            return kids

        def depth(rank):
            return 1 + max((depth(c) for c in children(rank)), default=-1)

        return depth(0)

    for n in range(2, 70):
        assert ccb.tree_height(n) == height(n), n


ALL_MODELS = [(a, p) for a, models in ccb.ALGORITHMS.items() for p in models]


@given(
    model=st.sampled_from(ALL_MODELS),
    n=st.integers(1, 4096),
    m=st.floats(0, 1e10),
    alpha=st.floats(0, 1e-3),
    beta=st.floats(1e6, 1e12),
    extra_ports=st.integers(0, 6),
)
def test_no_algorithm_beats_the_bound(model, n, m, alpha, beta, extra_ports):
    algorithm, primitive = model
    info = ccb.ALGORITHMS[algorithm][primitive]
    ports = info.min_ports + extra_ports
    if info.power_of_two:
        n = 1 << (n.bit_length() - 1)
    cost = ccb.algorithm_cost(algorithm, primitive, n, m, alpha, beta, ports=ports)
    bound = ccb.combined_lower_bound(primitive, n, m, alpha, beta, ports=ports)
    assert cost >= bound * (1 - 1e-12)


@given(
    model=st.sampled_from(ALL_MODELS),
    n=st.integers(1, 4096),
    m=st.floats(0, 1e10),
    alpha=st.floats(0, 1e-3),
    beta=st.floats(1e6, 1e12),
    extra_ports=st.integers(0, 6),
    chunks=st.integers(1, 300),
)
def test_no_algorithm_beats_the_round_bound(model, n, m, alpha, beta, extra_ports, chunks):
    # The sum form holds in the synchronous round model the cost models are written in.
    algorithm, primitive = model
    info = ccb.ALGORITHMS[algorithm][primitive]
    ports = info.min_ports + extra_ports
    if info.power_of_two:
        n = 1 << (n.bit_length() - 1)
    options = {"chunks": chunks} if info.optimal_chunks is not None else {}
    cost = ccb.algorithm_cost(algorithm, primitive, n, m, alpha, beta, ports=ports, **options)
    bound = ccb.round_lower_bound(primitive, n, m, alpha, beta, ports=ports)
    assert cost >= bound * (1 - 1e-12)
    # With a computation cost too: the model's reduced bytes against (N-1) M / N gamma.
    gamma = alpha * 1e3 / max(m, 1.0)
    with_gamma = ccb.algorithm_cost(algorithm, primitive, n, m, alpha, beta, ports=ports, gamma=gamma, **options)
    assert with_gamma >= ccb.round_lower_bound(primitive, n, m, alpha, beta, ports=ports, gamma=gamma) * (1 - 1e-12)
    steps = ccb.algorithm_terms(algorithm, primitive, n, m, ports=ports, **options)
    assert steps.steps >= ccb.latency_steps_lower_bound(primitive, n, ports=ports)


@given(n=st.integers(2, 2000), m=st.floats(1, 1e10), alpha=st.floats(1e-7, 1e-4), beta=st.floats(1e8, 1e12))
def test_best_algorithm_is_the_minimum(n, m, alpha, beta):
    name, t = ccb.best_algorithm("all_reduce", n, m, alpha, beta)
    others = [
        ccb.algorithm_cost(a, "all_reduce", n, m, alpha, beta) for a in ccb.applicable_algorithms("all_reduce", n=n)
    ]
    assert t == pytest.approx(min(others))
    assert ccb.algorithm_cost(name, "all_reduce", n, m, alpha, beta) == pytest.approx(t)


def test_best_algorithm_vectorised_matches_scalar():
    n = np.array([2, 3, 8, 12, 64])[:, None]
    m = np.array([1e2, 1e5, 1e8])[None, :]
    names, times = ccb.best_algorithm("all_reduce", n, m, 3e-6, 50e9)
    for i, nn in enumerate([2, 3, 8, 12, 64]):
        for j, mm in enumerate([1e2, 1e5, 1e8]):
            name, t = ccb.best_algorithm("all_reduce", nn, mm, 3e-6, 50e9)
            assert names[i, j] == name and times[i, j] == pytest.approx(t)


def test_vectorised_cost_matches_scalar():
    n = np.array([2, 5, 8, 13])
    for algorithm, primitive in ALL_MODELS:
        info = ccb.ALGORITHMS[algorithm][primitive]
        nn = np.array([2, 4, 8, 16]) if info.power_of_two else n
        got = ccb.algorithm_cost(algorithm, primitive, nn, 1e6, 1e-6, 1e9, ports=info.min_ports)
        want = [ccb.algorithm_cost(algorithm, primitive, int(x), 1e6, 1e-6, 1e9, ports=info.min_ports) for x in nn]
        assert np.allclose(got, want), (algorithm, primitive)


def test_efficiency():
    # latency-bound (1 byte, beta so large that its term vanishes): 3 alpha of the bound over 6 alpha
    assert ccb.efficiency("recursive_halving_doubling", "all_reduce", 8, 1.0, 1e-6, 1e15) == pytest.approx(3 / 6)
    # 0 bytes: doing nothing is a correct AllReduce, the bound is 0 (#37 audit)
    assert ccb.efficiency("recursive_halving_doubling", "all_reduce", 8, 0.0, 1e-6, 1e9) == 0.0
    # RHD at M*, N = 64: cost 2a + b with a = b = 6 alpha: 1/3 of the max, 2/3 of the sum.
    n, alpha, beta = 64, 2e-6, 50e9
    m_star = ccb.crossover_size("all_reduce", n, alpha, beta)
    assert ccb.efficiency("recursive_halving_doubling", "all_reduce", n, m_star, alpha, beta) == pytest.approx(1 / 3)
    assert ccb.efficiency(
        "recursive_halving_doubling", "all_reduce", n, m_star, alpha, beta, bound="round"
    ) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="bound"):
        ccb.efficiency("ring", "all_reduce", 8, 1e6, 1e-6, 1e9, bound="sum")
    assert ccb.efficiency("ring", "all_reduce", 1, 1e6, 1e-6, 1e9) == 1.0


def test_errors():
    with pytest.raises(ValueError, match="algorithm"):
        ccb.algorithm_cost("tree", "all_reduce", 8, 1e6, 1e-6, 1e9)
    with pytest.raises(ValueError, match="does not implement"):
        ccb.algorithm_cost("pairwise", "all_reduce", 8, 1e6, 1e-6, 1e9)
    with pytest.raises(ValueError, match="ports"):
        ccb.algorithm_cost("bidirectional_ring", "all_reduce", 8, 1e6, 1e-6, 1e9)
    with pytest.raises(ValueError, match="chunks"):
        ccb.algorithm_cost("ring", "all_reduce", 8, 1e6, 1e-6, 1e9, chunks=3)
    with pytest.raises(TypeError):
        ccb.algorithm_cost("ring", "all_reduce", 8, 1e6, 1e-6, 1e9, pipelined="no")


# -- issue #15 regressions --------------------------------------------------------------------


def test_regression_optimal_chunks_at_extreme_valid_floats():
    # alpha = 5e-324 (the smallest subnormal) made sqrt(...) infinite: OverflowError. With alpha -> 0
    # more chunks always help, so the answer is the cap: min(M // 2, 2**40) = 2**19 chunks here.
    assert ccb.optimal_chunks(16, 2**20, 5e-324, 25e9) == 2**19
    assert ccb.optimal_chunks(16, 2**20, 0.0, 25e9) == 2**19


def test_regression_cost_time_validates_alpha_and_beta():
    # Cost.time(nan, 0) raised ZeroDivisionError.
    with pytest.raises(ValueError, match="alpha"):
        ccb.Cost(1, 1.0).time(float("nan"), 1e9)
    with pytest.raises(ValueError, match="beta"):
        ccb.Cost(1, 1.0).time(1e-6, 0)
    assert ccb.Cost(3, 8.0).time(1.0, 4.0) == 5.0  # 3 * 1 + 8 / 4


def test_regression_efficiency_never_exceeds_one():
    # diameter=100 put 100 alpha into the bound but not into the cost model: efficiency 3.49 (> 1).
    with pytest.raises(ValueError, match="diameter"):
        ccb.efficiency("ring", "all_reduce", 8, 2**20, 5e-6, 25e9, diameter=100)
    assert ccb.efficiency("ring", "all_reduce", 8, 2**20, 5e-6, 25e9, diameter=1) <= 1


def test_regression_huge_n_does_not_overflow_the_step_count():
    # 2 (n - 1) rounds of the ring stay exact up to the documented cap n <= 2**62.
    assert ccb.algorithm_terms("ring", "all_reduce", 2**62, 0.0).steps == 2 * (2**62 - 1)
    with pytest.raises(ValueError, match="n"):
        ccb.algorithm_terms("ring", "all_reduce", 2**63, 0.0)
    # Bruck AllToAll sums ~ (n/2) log2 n blocks: beyond int64 for n near 2**62, so counted in floats.
    cost = ccb.algorithm_terms("bruck", "all_to_all", np.array([2**62]), 2.0**62)
    assert cost.bandwidth_bytes[0] == pytest.approx(2.0**61 * 62, rel=1e-12)
