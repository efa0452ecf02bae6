"""Tree broadcasts in LogP (ccb_helpers.logp): times worked out by hand, the optimal tree against a
brute force over every ordered tree, the star against chapter 1's flat-send formula."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ccb_helpers as ccb
from ccb_helpers.logp import logp_broadcast, logp_tree_broadcast

# Chapter 6's exercise, in µs: o = 2, g = 3, L = 1; a node sends every max(g, o) = 3 and a message
# sent at t is held by its receiver at t + o + L + o = t + 5.
L, O, G = 1.0, 2.0, 3.0


def test_binomial_tree_by_hand():
    # Binomial tree of 9 (round t: v -> v + 2**t): root -> 1, 2, 4, 8; 1 -> 3, 5; 2 -> 6; 3 -> 7.
    # Root sends at 0, 3, 6, 9: 1 at 5, 2 at 8, 4 at 11, 8 at 14. Node 1 (5) sends at 5, 8: 3 at 10,
    # 5 at 13. Node 2 (8) sends at 8: 6 at 13. Node 3 (10) sends at 10: 7 at 15. Done at 15.
    r = logp_broadcast(9, L, O, G)
    assert r.children[:4] == ((1, 2, 4, 8), (3, 5), (6,), (7,))
    assert r.ready == (0.0, 5.0, 8.0, 10.0, 11.0, 13.0, 13.0, 15.0, 14.0)
    assert r.send_start[8] == 9.0 and r.send_start[0] is None and r.time == 15.0


def test_two_port_ternary_tree_by_hand():
    # 3-nomial tree (2 ports): root -> 1, 2 | 3, 6; 1 -> 4, 7; 2 -> 5, 8. Root sends at 0, 3, 6, 9:
    # 1 at 5, 2 at 8, 3 at 11, 6 at 14. Node 1 sends at 5, 8: 4 at 10, 7 at 13. Node 2 at 8, 11:
    # 5 at 13, 8 at 16. Done at 16 -- later than the 1-port binomial tree's 15.
    r = logp_broadcast(9, L, O, G, "knomial", ports=2)
    assert r.children[:3] == ((1, 2, 3, 6), (4, 7), (5, 8))
    assert r.ready == (0.0, 5.0, 8.0, 11.0, 10.0, 13.0, 14.0, 13.0, 16.0)
    assert r.time == 16.0


def test_synchronous_rounds_overcharge_the_tree():
    # The exercise's first version: rounds of o + (k - 1) max(g, o) + L + o: 4 x 5 = 20 for the
    # binomial tree, 2 x 8 = 16 for the ternary one. LogP has no rounds: 15 and 16.
    assert 4 * (O + L + O) == 20 > logp_broadcast(9, L, O, G).time
    assert 2 * (O + G + L + O) == 16 == logp_broadcast(9, L, O, G, "knomial", ports=2).time


def test_optimal_tree_by_hand():
    # Greedy: send slots in time order, each informing the next node. Root: 0, 3, 6, 9 -> 5, 8, 11, 14;
    # node informed at 5: 5, 8 -> 10, 13; at 8: 8 -> 13; at 10: 10 -> 15. The 8 receivers are
    # informed at 5, 8, 10, 11, 13, 13, 14, 15: done at 15, as the binomial tree here.
    r = logp_broadcast(9, L, O, G, "optimal")
    assert sorted(r.ready) == [0.0, 5.0, 8.0, 10.0, 11.0, 13.0, 13.0, 14.0, 15.0]
    # o = 1, g = 1, L = 3: a send every 1, held 5 later. Greedy slots in time order: the root's
    # 0, 1, 2, 3, 4, 5, then the first child's 5 and the root's 6 -> held at 5, 6, 7, 8, 9, 10, 10, 11.
    fast = logp_broadcast(9, 3.0, 1.0, 1.0, "optimal")
    assert sorted(fast.ready) == [0.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 10.0, 11.0] and fast.time == 11.0
    # The binomial tree's path 0 -> 1 -> 3 -> 7 is three first children: 3 x 5 = 15.
    assert logp_broadcast(9, 3.0, 1.0, 1.0).time == 15.0


def _ordered_trees(size):
    """Every ordered rooted tree of ``size`` nodes, as a tuple of child subtrees (Catalan many)."""
    return [tuple(forest) for forest in _forests(size - 1)]


@functools.cache
def _forests(size):
    if size == 0:
        return [()]
    out = []
    for first in range(1, size + 1):
        for tree in _ordered_trees(first):
            for rest in _forests(size - first):
                out.append((tree, *rest))
    return out


def _finish(tree, ready, latency, overhead, gap):
    """Latest time any node of ``tree`` holds the message, its root holding it at ``ready``."""
    step = max(gap, overhead)
    latest = ready
    for j, child in enumerate(tree):
        latest = max(latest, _finish(child, ready + j * step + 2 * overhead + latency, latency, overhead, gap))
    return latest


@pytest.mark.parametrize("latency, overhead, gap", [(1, 2, 3), (3, 1, 1), (1, 3, 2), (0, 0, 1), (5, 0, 0), (2, 1, 4)])
def test_optimal_tree_against_every_ordered_tree(latency, overhead, gap):
    for n in range(1, 9):
        brute = min(_finish(t, 0.0, latency, overhead, gap) for t in _ordered_trees(n))
        assert logp_broadcast(n, latency, overhead, gap, "optimal").time == brute, n


def test_star_is_chapter_one_flat_send():
    # k-nomial with k = N - 1 is the star: the root's N - 1 sends leave every max(o, g); the last is
    # held at (N - 2) max(o, g) + 2o + L -- ccb.flat_send_time (eq:logp-flat-send).
    for n, latency, overhead, gap in [(2, 1e-6, 2e-6, 3e-6), (17, 2e-6, 0.5e-6, 0.5e-6), (64, 1e-6, 1e-6, 0.3e-6)]:
        star = logp_broadcast(n, latency, overhead, gap, "knomial", ports=n - 1)
        assert star.children[0] == tuple(range(1, n))
        assert star.time == pytest.approx(ccb.flat_send_time(n, latency, overhead, gap), rel=1e-12)


def test_given_tree_and_its_errors():
    chain = logp_tree_broadcast([[1], [2], []], 2, 1, 1)
    assert chain.ready == (0.0, 4.0, 8.0) and chain.tree == "given"
    with pytest.raises(ValueError, match="two parents"):
        logp_tree_broadcast([[1, 2], [2], []], 1, 1, 1)
    with pytest.raises(ValueError, match="not reachable"):
        logp_tree_broadcast([[], [2], [1]], 1, 1, 1)
    with pytest.raises(ValueError, match=r"children\[0\] must be <= 2"):
        logp_tree_broadcast([[3], [], []], 1, 1, 1)
    with pytest.raises(TypeError, match="children must be a sequence"):
        logp_tree_broadcast("abc", 1, 1, 1)
    with pytest.raises(ValueError, match="ports applies to tree='knomial' only"):
        logp_broadcast(9, 1, 1, 1, "binomial", ports=2)
    with pytest.raises(ValueError, match="n must be <= 262144"):
        logp_broadcast(2**18 + 1, 1, 1, 1)
    with pytest.raises(ValueError, match="overhead must be >= 0"):
        logp_broadcast(4, 1, -1, 1)
    assert logp_broadcast(1, 1, 1, 1).time == 0.0


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 300),
    latency=st.integers(0, 20),
    overhead=st.integers(0, 20),
    gap=st.integers(0, 20),
    ports=st.integers(1, 6),
)
def test_no_tree_beats_the_optimal_one(n, latency, overhead, gap, ports):
    # Integer costs keep every time exact. The greedy tree is LogP's lower bound for a broadcast.
    best = logp_broadcast(n, latency, overhead, gap, "optimal")
    for tree, k in [("binomial", 1), ("knomial", ports)]:
        r = logp_broadcast(n, latency, overhead, gap, tree, ports=k)
        assert r.time >= best.time
        again = logp_tree_broadcast(r.children, latency, overhead, gap)  # the same tree, timed as given
        assert again.ready == r.ready
    # Every node is informed once, after its parent holds the message.
    parents = {c: v for v, kids in enumerate(best.children) for c in kids}
    assert sorted(parents) == list(range(1, n))
    assert all(
        best.ready[c] == best.send_start[c] + 2 * overhead + latency >= best.ready[p] for c, p in parents.items()
    )


def test_facade_exports():
    assert ccb.logp_broadcast is logp_broadcast and ccb.LOGP_TREES == ("binomial", "knomial", "optimal")
    # The brute force sees every ordered tree: Catalan(n - 1) of them.
    assert [len(_ordered_trees(n)) for n in range(1, 9)] == [1, 1, 2, 5, 14, 42, 132, 429]


def test_chapter_one_binomial_tree_in_logp_is_its_rounds():
    # Chapter 1 compares the flat send with the binomial tree's ceil(log2 N) alpha, alpha = L + 2o.
    # In LogP that is exact when max(g, o) <= 2o + L: every path of the tree through j-th children
    # costs sum (j_i max(g, o) + 2o + L) with sum (j_i + 1) <= ceil(log2 N), at most log2 N x alpha,
    # and the path of first children reaches it. ib_ndr: o = g = 0.5 us, L = alpha - 2o = 2 us.
    ib = ccb.preset("ib_ndr")
    wire = ib.alpha - 2 * ib.overhead
    for n in (8, 64, 1024):
        tree = logp_broadcast(n, wire, ib.overhead, ib.gap)
        assert tree.time == pytest.approx(ccb.info_steps(n) * ib.alpha, rel=1e-12)
