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
    for m in (0.0, 1e3, 1e6, 1e9):
        assert ccb.round_lower_bound("all_reduce", n, m, alpha, beta) == pytest.approx(4 * alpha + 2 * 15 / 16 * m / beta)
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
        2 * ccb.combined_lower_bound("all_reduce", n, m_star, alpha, beta))


def test_round_bound_broadcasts_arrays():
    n = np.array([2, 4, 8])[:, None]
    m = np.array([0.0, 8e3])[None, :]
    t = ccb.round_lower_bound("all_gather", n, m, 1e-6, 1e9)
    # rounds 1, 2, 3; bytes (N-1)/N * 8000 = 4000, 6000, 7000
    assert np.allclose(t, [[1e-6, 1e-6 + 4e-6], [2e-6, 2e-6 + 6e-6], [3e-6, 3e-6 + 7e-6]])
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
