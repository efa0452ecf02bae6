"""Forced volumes and the node-level bandwidth bound, against derivations by hand and brute force."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ccb_helpers as ccb

M = 1200.0  # divisible by every N used below


@pytest.mark.parametrize("n", [2, 3, 4, 6, 8])
def test_bottleneck_volumes(n):
    block = M / n
    expected = {
        "broadcast": (M, M),
        "scatter": ((n - 1) * block, block),
        "gather": (block, (n - 1) * block),
        "reduce": (M, M),
        "reduce_scatter": ((n - 1) * block, (n - 1) * block),
        "all_gather": ((n - 1) * block, (n - 1) * block),
        "all_reduce": (2 * (n - 1) * block, 2 * (n - 1) * block),
        "all_to_all": ((n - 1) * block, (n - 1) * block),
    }
    for primitive, (send, recv) in expected.items():
        got = ccb.forced_volume(primitive, n, M)
        assert got.send == pytest.approx(send)
        assert got.recv == pytest.approx(recv)


def test_single_node_moves_nothing():
    for primitive in ccb.PRIMITIVES:
        assert ccb.forced_volume(primitive, 1, M) == (0.0, 0.0)
        assert ccb.bandwidth_lower_bound(primitive, 1, M, 1e9) == 0.0


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_conservation_lifts_symmetric_primitives(n):
    # Total bytes sent by all nodes = total received. For the symmetric primitives the per-node
    # information-flow volumes differ between S and R; the busiest node must move the average of
    # the larger total.
    for primitive in ("reduce_scatter", "all_gather"):
        (role,) = ccb.role_volumes(primitive, n, M).values()
        total = n * max(role.send, role.recv)
        assert ccb.forced_volume(primitive, n, M).send == pytest.approx(total / n)
        assert ccb.forced_volume(primitive, n, M).recv == pytest.approx(total / n)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_allreduce_gossip_count_by_brute_force(n):
    # One element of AllReduce needs 2(N-1) one-way transmissions (N-1 before the first node knows
    # the sum, N-1 after): the exhaustive search agrees, and so does the forced volume.
    assert ccb.gossip_transmissions(n) == 2 * (n - 1)
    assert ccb.forced_volume("all_reduce", n, M).send * n == pytest.approx(2 * (n - 1) * M)


def test_source_allreduce_row_is_inconsistent():
    # tbl-cc-bound-bw-1port lists S = R = (N-1)M/N for AllReduce yet a bound of 2(N-1)M/(N beta):
    # max(S, R)/beta with its own S and R gives only half of it.
    n, beta = 8, 1e9
    source_s = (n - 1) * M / n
    assert source_s / beta * 2 == pytest.approx(ccb.bandwidth_lower_bound("all_reduce", n, M, beta))


def test_source_1port_bounds_where_right():
    n, beta = 8, 1e9
    assert ccb.bandwidth_lower_bound("broadcast", n, M, beta) == pytest.approx(M / beta)
    assert ccb.bandwidth_lower_bound("reduce", n, M, beta) == pytest.approx(M / beta)
    for primitive in ("reduce_scatter", "all_gather", "all_to_all"):
        assert ccb.bandwidth_lower_bound(primitive, n, M, beta) == pytest.approx((n - 1) * M / (n * beta))
    # Scatter / Gather: the source's M/beta is valid but loose; the root moves (N-1)M/N.
    assert ccb.bandwidth_lower_bound("scatter", n, M, beta) == pytest.approx((n - 1) * M / (n * beta))


def test_ports_and_degree():
    n, beta = 8, 1e9
    one = ccb.bandwidth_lower_bound("all_gather", n, M, beta)
    assert ccb.bandwidth_lower_bound("all_gather", n, M, beta, ports=2) == pytest.approx(one / 2)
    assert ccb.bandwidth_lower_bound("all_gather", n, M, beta, ports=6, degree=2) == pytest.approx(one / 2)
    assert ccb.effective_ports(6, 2) == 2


def test_gib_allgather_2port_example():
    # Exercise from the chapter issue: AllGather of 1 GiB over 8 nodes at 2-port, beta = 100 GB/s.
    t = ccb.bandwidth_lower_bound("all_gather", 8, 2**30, 100e9, ports=2)
    assert t == pytest.approx(7 / 8 * 2**30 / 2 / 100e9)


def test_vectorised_grid():
    n = np.array([2, 4, 8])[:, None]
    m = np.array([1e3, 1e6])[None, :]
    t = ccb.bandwidth_lower_bound("all_reduce", n, m, 1e9)
    assert t.shape == (3, 2)
    for i, nn in enumerate([2, 4, 8]):
        for j, mm in enumerate([1e3, 1e6]):
            assert t[i, j] == pytest.approx(ccb.bandwidth_lower_bound("all_reduce", nn, mm, 1e9))


def test_routing_matrix():
    r = np.array([[0, 3, 1], [2, 0, 2], [0, 5, 0]], dtype=float)
    send, recv = ccb.routing_volumes(r)
    assert send.tolist() == [4, 4, 5]
    assert recv.tolist() == [2, 8, 3]
    assert ccb.routing_lower_bound(r, beta=2.0) == 4.0
    # The diagonal stays local.
    r2 = r + np.eye(3) * 100
    assert ccb.routing_lower_bound(r2, beta=2.0) == 4.0


def test_uniform_routing_equals_all_to_all_bound():
    for n in (2, 4, 8, 16):
        assert ccb.routing_lower_bound(ccb.uniform_routing(n, M), 1e9) == pytest.approx(
            ccb.bandwidth_lower_bound("all_to_all", n, M, 1e9)
        )


def test_hot_expert_triples_the_bound():
    # 4 ranks, uniform M/4 = 300 B per pair; send everything for node 0 three times more.
    n = 4
    uniform = ccb.uniform_routing(n, M)
    skewed = uniform.copy()
    skewed[1:, 0] *= 3
    assert ccb.routing_lower_bound(skewed, 1.0) == pytest.approx(3 * ccb.routing_lower_bound(uniform, 1.0))


@given(st.lists(st.lists(st.floats(0, 1e6), min_size=3, max_size=3), min_size=3, max_size=3))
def test_routing_totals_conserve(rows):
    send, recv = ccb.routing_volumes(rows)
    assert send.sum() == pytest.approx(recv.sum())


@pytest.mark.parametrize(
    "call",
    [
        lambda: ccb.forced_volume("allreduce", 4, M),
        lambda: ccb.forced_volume("all_reduce", 0, M),
        lambda: ccb.forced_volume("all_reduce", 4, -1.0),
        lambda: ccb.forced_volume("all_reduce", 4, float("inf")),
        lambda: ccb.bandwidth_lower_bound("all_reduce", 4, M, 0.0),
        lambda: ccb.bandwidth_lower_bound("all_reduce", 4, M, 1e9, ports=0),
        lambda: ccb.routing_volumes([[1, 2, 3]]),
        lambda: ccb.routing_volumes([[0, -1], [0, 0]]),
    ],
)
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()


def test_bad_types():
    with pytest.raises(TypeError):
        ccb.forced_volume(3, 4, M)
    with pytest.raises(TypeError):
        ccb.forced_volume("all_reduce", 4, "1MB")
    with pytest.raises(TypeError):
        ccb.routing_volumes([["a", "b"], ["c", "d"]])


@pytest.mark.parametrize("n", [2, 3, 8, 17])
def test_displayed_formulas_match_forced_volume(n):
    # ccb_helpers.source.OUR_BW_FORMULAS is what the bandwidth table prints; it must say what forced_volume computes.
    from ccb_helpers.source import OUR_BW_FORMULAS

    for primitive in ccb.PRIMITIVES:
        send, recv = ccb.forced_volume(primitive, n, M)
        shown_send, shown_recv = OUR_BW_FORMULAS[primitive]["S"][1](n, M), OUR_BW_FORMULAS[primitive]["R"][1](n, M)
        if primitive in ("scatter", "gather") and M % n:
            # Whole-byte blocks (issue #28): the formulas' M/N blocks, less the rounding, under a byte.
            assert 0 <= shown_send - send < 1 and 0 <= shown_recv - recv < 1
            continue
        assert shown_send == pytest.approx(send)
        assert shown_recv == pytest.approx(recv)


@pytest.mark.parametrize("n, m", [(2, 1), (3, 1), (4, 10), (5, 7), (8, 1), (8, 3), (7, 700)])
def test_scatter_gather_volume_is_met_by_a_root_owning_the_largest_block(n, m):
    # Issue #28: the root of a Scatter sends every block but its own. Blocks are whole bytes
    # (sizes floor(m/n) and ceil(m/n)); a root owning a largest block sends m - ceil(m/n) bytes,
    # and no root sends less. Brute force over every root of ccb.block_bounds.
    sizes = [int(b) for b in np.diff(ccb.block_bounds(m, n))]
    least_root_send = min(m - sizes[root] for root in range(n))
    least_busiest = min(max(m - sizes[root], max(sizes[:root] + sizes[root + 1 :])) for root in range(n))
    for primitive in ("scatter", "gather"):
        volume = ccb.forced_volume(primitive, n, m)
        root_side = volume.send if primitive == "scatter" else volume.recv
        assert root_side == least_root_send
        assert max(volume) <= least_busiest


# -- issue #15 regressions --------------------------------------------------------------------


def test_regression_uint64_node_counts_do_not_wrap():
    # uint64 2**63 wrapped to -2**63 and gave a negative time.
    with pytest.raises(ValueError, match="n"):
        ccb.bandwidth_lower_bound("all_reduce", np.array([2**63], dtype=np.uint64), 1.0, 1.0)


def test_regression_uniform_routing_caps_its_matrix():
    from _limits import GiB, call_limited

    # 10**5 x 10**5 doubles are 74.5 GiB: refused before allocating, with the estimate and the cap.
    out = call_limited(lambda: ccb.uniform_routing(10**5, 1.0), seconds=10, memory=GiB // 2)
    assert out.clear_error and "n" in out.message and "cap" in out.message, out
    out = call_limited(lambda: ccb.hot_expert_routing(10**5, 1.0), seconds=10, memory=GiB // 2)
    assert out.clear_error, out
