"""Algorithm selection: crossovers, size bands and optimality verdicts, against hand-derived values."""

import pytest

import ccb_helpers as ccb


def test_crossover_between_closed_form():
    # Binomial (reduce + broadcast) AllReduce on 16 nodes: 8 alpha + 8 M / beta; ring: 30 alpha + 1.875 M / beta.
    alpha, beta = 5e-6, 25e9
    want = 22 * alpha * beta / (8 - 1.875)
    assert ccb.crossover_between("binomial_tree", "ring", "all_reduce", 16, alpha, beta) == pytest.approx(
        want, rel=1e-9
    )
    assert ccb.crossover_between("ring", "ring", "all_reduce", 16, alpha, beta) == 1.0  # equal everywhere
    # Recursive doubling (4 alpha + 4 M/beta) vs RHD (8 alpha + 1.875 M/beta): 4 alpha = 2.125 M / beta.
    assert ccb.crossover_between(
        "recursive_doubling", "recursive_halving_doubling", "all_reduce", 16, alpha, beta
    ) == pytest.approx(4 * alpha * beta / 2.125, rel=1e-9)


def test_no_crossover():
    # Bidirectional ring never beats RHD at N = 4 with 2 ports? Both take 4 rounds; ring's bytes are smaller: ring always wins.
    assert (
        ccb.crossover_between("bidirectional_ring", "recursive_halving_doubling", "all_reduce", 4, 1e-6, 1e9, ports=2)
        is None
    )


def test_bands_are_contiguous_and_cover_the_range():
    bands = ccb.best_algorithm_bands("all_reduce", 24, 2e-6, 50e9, m_min=64.0, m_max=2.0**32)
    assert bands[0][0] == 64.0 and bands[-1][1] == pytest.approx(2.0**32)
    names = [b[2] for b in bands]
    assert len(names) == len(set(names))  # each algorithm wins one contiguous band here
    for (_, end, a), (start, _, b) in zip(bands, bands[1:]):
        assert end < start and a != b


@pytest.mark.parametrize(
    "algorithm, ports, latency, bandwidth",
    [
        ("ring", 1, "grows", "exact"),  # 2(N-1) rounds, 2(N-1)/N M
        ("recursive_halving_doubling", 1, "constant", "exact"),  # 2 log2 N = 2x the bound; optimal bytes (N = 2^m)
        ("recursive_doubling", 1, "exact", "grows"),  # log2 N rounds of M: bytes grow like log N
        ("binomial_tree", 1, "constant", "grows"),  # 2 log2 N rounds of M
        ("bidirectional_ring", 2, "grows", "exact"),
        # 64 chunks, one configuration for both terms: 2 (H + 63) rounds against ceil(log3 N) shrinks
        # towards a factor 2; (H + 63) / 64 M per phase against 2 (N-1) / (2N) M grows like log N.
        ("double_binary_tree", 2, "constant", "grows"),
        ("double_binary_tree", 1, "constant", "grows"),
    ],
)
def test_optimality_verdicts(algorithm, ports, latency, bandwidth):
    o = ccb.optimality(algorithm, "all_reduce", 16, ports=ports)
    assert (o["latency"], o["bandwidth"]) == (latency, bandwidth)


def test_rhd_latency_ratio_is_two_at_powers_of_two():
    for n in (4, 16, 256):
        assert ccb.optimality("recursive_halving_doubling", "all_reduce", n)["steps_ratio"] == 2.0


def test_algorithm_comparison_table_values():
    t = ccb.algorithm_comparison_table(ports=1, ns=(8, 12))
    ring8 = next(v for v in t.values if v[0] == "ring" and v[1] == 8)
    assert ring8[2] == 14 and ring8[3] == pytest.approx(1.75)
    rhd12 = next(v for v in t.values if v[0] == "recursive_halving_doubling" and v[1] == 12)
    assert rhd12[2] == 2 * 3 + 2 and rhd12[3] == pytest.approx(2 + 2 * 7 / 8)  # fold + RHD on 8 + unfold


def test_tree_ring_crossover_grows_with_n():
    t = ccb.tree_ring_crossover_table(ns=(8, 16, 32, 64, 128))
    sizes = [m for _, m in t.values]
    assert all(a < b for a, b in zip(sizes, sizes[1:]))
    assert sizes[0] < 2**20 < sizes[-1]  # no single "~1 MB" threshold fits all N


# -- issue #15 regressions --------------------------------------------------------------------


def test_regression_crossover_range_is_validated():
    # m_min = 0 returned 0.0; m_min > m_max returned a size outside the range.
    with pytest.raises(ValueError, match="m_min"):
        ccb.crossover_between("binomial_tree", "ring", "all_reduce", 16, 5e-6, 25e9, m_min=0)
    with pytest.raises(ValueError, match="m_max"):
        ccb.crossover_between("binomial_tree", "ring", "all_reduce", 16, 5e-6, 25e9, m_min=2.0**40, m_max=2.0**11)


def test_regression_crossover_is_a_point_of_equal_cost():
    # With alpha ~ 1e-11 the double binary tree's chunk count is capped at M // 2 and its cost jumps at
    # M = 4 bytes; the sign change there was returned although the costs differ by 34 %.
    args = (
        "double_binary_tree",
        "recursive_halving_doubling",
        "all_reduce",
        35,
        1.022471329420199e-11,
        1080415.6686529801,
    )
    m = ccb.crossover_between(*args, ports=2)
    if m is not None:
        a = ccb.algorithm_cost(args[0], "all_reduce", 35, m, args[4], args[5], ports=2)
        b = ccb.algorithm_cost(args[1], "all_reduce", 35, m, args[4], args[5], ports=2)
        assert a == pytest.approx(b, rel=1e-6)


def test_regression_optimality_unknown_pair_is_a_value_error():
    # KeyError: 'broadcast'.
    with pytest.raises(ValueError, match="primitive"):
        ccb.optimality("ring", "broadcast", 8)
    with pytest.raises(ValueError, match="algorithm"):
        ccb.optimality("tree", "all_reduce", 8)

    t = ccb.simulated_vs_bound_table(
        cases=(
            ("ring", 8, 2**16),
            ("recursive_halving_doubling", 8, 2**16),
            ("double_binary_tree", 8, 2**16),
            ("double_binary_tree", 8, 2**16, 2),
            ("recursive_halving_doubling_2port", 8, 2**16),
        )
    )
    for _algorithm, _n, _m, _ports, t_sim, t_model, top, total, correct in t.values:
        assert correct and t_sim == pytest.approx(t_model) and t_sim >= total >= top
    assert [v[3] for v in t.values] == [1, 1, 1, 2, 2]


def test_efficiency_table_claims():
    # Against the max, nothing exceeds 1/2 at M*; against the sum, RHD reaches 2/3 there (cost 2a + b, a = b).
    t = ccb.efficiency_table(n=64)
    assert all(at_max <= 0.5 + 1e-12 for _, at_max, *_ in t.values)
    rhd = next(v for v in t.values if v[0] == "recursive_halving_doubling")
    assert rhd[1] == pytest.approx(1 / 3) and rhd[2] == pytest.approx(2 / 3)
    # The worst sum-efficiency of RHD over sizes is its small-message limit a / 2a = 1/2.
    assert rhd[4] == pytest.approx(0.5, abs=1e-3)


def test_ring_gossip_and_source_node_tables():
    assert [v[4] for v in ccb.ring_gossip_table(ns=(5, 7, 8)).values] == [4, 5, 4]
    t = ccb.source_node_bound_table(ns=(64,))
    assert [v[6] for v in t.values] == ["p = d", "都不是", "都不是"]
