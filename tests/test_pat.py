"""PAT (NCCL 2.23+): NCCL's operation order replayed, byte-checked, rounds in closed form."""

from __future__ import annotations

import math

import pytest

import ccb_helpers as ccb


def _aggregations(n):
    top = 1 << ((n - 1).bit_length() - 1) if n > 1 else 1
    return [1 << k for k in range(top.bit_length())]


@pytest.mark.parametrize("n", range(2, 41))
def test_every_aggregation_is_byte_correct_and_bandwidth_optimal(n):
    for primitive in ("all_gather", "reduce_scatter"):
        for agg in _aggregations(n):
            for m in (3, 8 * n, 8 * n + 5):
                assert ccb.run_schedule(ccb.pat_schedule(primitive, n, m, agg)).correct, (primitive, n, agg, m)
            # every rank sends N - 1 blocks in all, one binomial-tree edge per destination
            assert sum(len(b) for _, b in ccb.pat_messages(primitive, n, agg)) == n - 1


def test_messages_by_hand_for_eight_ranks():
    # Read off PatAGAlgorithm with aggFactor 4: dimension 2 carries the own block, dimension 1 the
    # own and the one from 4 away, dimension 0 four blocks (Bruck's schedule, distances halving).
    assert ccb.pat_messages("all_gather", 8, 4) == [(2, (0,)), (1, (0, 4)), (0, (0, 2, 4, 6))]
    assert ccb.pat_messages("reduce_scatter", 8, 4) == [(0, (7, 3, 5, 1)), (1, (6, 2)), (2, (4,))]
    # Unaggregated: one block per message, N - 1 messages.
    assert all(len(b) == 1 for _, b in ccb.pat_messages("all_gather", 8, 1))


def test_closed_form_rounds_match_the_replay():
    for n in range(2, 301):
        p = 1 << (n - 1).bit_length()
        for agg in _aggregations(n):
            rounds = int(math.log2(agg)) + min(p // agg, n) - 1
            assert ccb.pat_terms("all_gather", n, n, agg)[0] == rounds
            assert ccb.pat_terms("reduce_scatter", n, n, agg)[0] == rounds
        assert ccb.algorithm_terms("pat", "all_gather", n, n).steps == ccb.pat_terms("all_gather", n, n)[0]


def test_nccl_aggregation_rule():
    # PatAGAlgorithm's constructor (large messages: the chunk fills its slot, so the first loop
    # stops at 1): `while (d > 1 && aggFactor < nranks / 2) { d /= 2; aggFactor *= 2; }` with
    # d = NCCL_STEPS = 8 and C's integer division. By hand: N = 3 -> 3/2 = 1, 1 < 1 fails: 1;
    # N = 5 -> 2: one doubling; N = 9 -> 4: two; N = 17 -> 8: three; N = 8 -> 4 (P/2).
    assert [ccb.pat_aggregation(n) for n in (2, 3, 4, 5, 8, 9, 16, 17, 64, 4096)] == [1, 1, 2, 2, 4, 4, 8, 8, 8, 8]
    # the rounds follow: N = 9 with A = 4 is 2 + min(16 / 4, 9) - 1 = 5 rounds (not 4 with A = 8)
    assert ccb.simulate("pat", "all_gather", 9, 90).rounds == 5
    assert ccb.algorithm_terms("pat", "reduce_scatter", 5, 50).steps == 1 + min(8 // 2, 5) - 1


def test_one_gpu_per_node_only():
    with pytest.raises(ValueError, match="one GPU per node"):
        ccb.simulate("pat", "all_gather", 8, 80, topology=ccb.two_level(4, 2))
    r = ccb.simulate("pat", "reduce_scatter", 8, 80, topology=ccb.two_level(8, 1))
    assert r.correct and r.time(1e-6, 1e9) >= ccb.round_lower_bound("reduce_scatter", 8, 80, 1e-6, 1e9)


def test_pat_op_refuses_what_an_operation_cannot_hold_naming_the_field():
    # #42 (scan): PatOp, the record pat_operations returns, held NaN, arrays and strings.
    import dataclasses

    import numpy as np

    op = ccb.pat_operations("all_gather", 8)[0]
    assert dataclasses.replace(op) == op
    for field, bad in [
        ("phase", float("nan")),
        ("phase", 5),
        ("data", np.ones((2, 2), dtype=int)),
        ("data", -1),
        ("send_dim", "1"),
        ("recv_dim", -2),
        ("post_send", 1),
        ("skip", np.array([True])),
    ]:
        with pytest.raises((ValueError, TypeError), match=rf"PatOp\.{field}\b"):
            dataclasses.replace(op, **{field: bad})
