"""info_steps / coverage: exact integer results, against hand values and the defining inequality."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ccb_helpers as ccb


def test_source_table_info_prop():
    # tbl-cc-bound-info-prop, checked by hand: 2^2=4, 2^3=8, ...; 3^2=9 >= 8, 3^3=27 >= 16, 32 <= 81 -> 4, 64 <= 81 -> 4.
    expected_1port = {4: 2, 8: 3, 16: 4, 32: 5, 64: 6}
    expected_2port = {4: 2, 8: 2, 16: 3, 32: 4, 64: 4}
    for n in expected_1port:
        assert ccb.info_steps(n) == expected_1port[n]
        assert ccb.info_steps(n, k=2) == expected_2port[n]


def test_floating_log_trap():
    # floor/ceil of a floating log is wrong at exact powers; ours is not.
    assert math.ceil(math.log(125, 5)) == 4  # the trap itself
    assert ccb.info_steps(125, k=4) == 3
    assert ccb.info_steps(126, k=4) == 4
    assert ccb.info_steps(3**20, k=2) == 20
    assert ccb.info_steps(1000, k=3) == 5  # 4^4 = 256 < 1000 <= 1024 = 4^5


def test_huge_n_is_exact():
    assert ccb.info_steps(2**63) == 63
    assert ccb.info_steps(2**63 + 1) == 64
    assert ccb.info_steps(2**63 - 1) == 63
    assert ccb.info_steps(7**22, k=6) == 22
    assert ccb.info_steps(7**22 + 1, k=6) == 23
    big = np.array([2**62, 2**62 + 1, 2**63 - 1], dtype=np.int64)
    assert ccb.info_steps(big).tolist() == [62, 63, 63]


def test_trivial_cases():
    assert ccb.info_steps(1) == 0
    assert ccb.info_steps(2) == 1
    assert ccb.info_steps(10, k=9) == 1  # all-port on 10 nodes
    assert ccb.info_steps(11, k=9) == 2


@given(n=st.integers(1, 2**80), k=st.integers(1, 50))
def test_defining_inequality(n, k):
    t = ccb.info_steps(n, k)
    assert (k + 1) ** t >= n
    assert t == 0 or (k + 1) ** (t - 1) < n


@given(st.lists(st.integers(1, 2**63 - 1), min_size=1, max_size=30), st.integers(1, 8))
def test_array_matches_scalar(values, k):
    arr = ccb.info_steps(np.array(values, dtype=np.int64), k)
    assert arr.dtype == np.int64
    assert arr.tolist() == [ccb.info_steps(v, k) for v in values]


def test_array_k_broadcasts():
    got = ccb.info_steps(np.array([[8], [64]]), np.array([1, 2, 6]))
    assert got.tolist() == [[3, 2, 2], [6, 4, 3]]


def test_coverage_doubling():
    assert [ccb.coverage(t) for t in range(6)] == [1, 2, 4, 8, 16, 32]
    assert [ccb.coverage(t, k=2) for t in range(4)] == [1, 3, 9, 27]
    assert ccb.coverage(10, k=1, n=100) == 100
    assert ccb.coverage(10**6, k=1, n=5) == 5  # no huge integer built
    assert ccb.coverage(np.array([0, 1, 2, 3]), k=1, n=6).tolist() == [1, 2, 4, 6]


@given(n=st.integers(1, 10**6), k=st.integers(1, 10))
def test_coverage_and_steps_agree(n, k):
    t = ccb.info_steps(n, k)
    assert ccb.coverage(t, k, n) == n
    if t > 0:
        assert ccb.coverage(t - 1, k, n) < n


def test_info_latency_bound():
    assert ccb.info_latency_bound(1024, 1e-6) == pytest.approx(10e-6)
    assert ccb.info_latency_bound(1024, 1e-6, k=3) == pytest.approx(5e-6)  # 4^5 = 1024


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"n": 0}, ValueError),
        ({"n": -3}, ValueError),
        ({"n": 8.0}, TypeError),
        ({"n": True}, TypeError),
        ({"n": "8"}, TypeError),
        ({"n": 8, "k": 0}, ValueError),
        ({"n": 8, "k": 1.5}, TypeError),
        ({"n": np.array([4, 0])}, ValueError),
        ({"n": np.array([4.0, 8.0])}, TypeError),
    ],
)
def test_bad_input(kwargs, error):
    with pytest.raises(error) as info:
        ccb.info_steps(**kwargs)
    assert ("n" in str(info.value)) or ("k" in str(info.value))


# -- issue #15 regressions --------------------------------------------------------------------


def test_regression_coverage_caps_its_exact_big_integer():
    from _limits import call_limited

    # (k+1)**t for t = 10**9 is a 10**9-bit integer: refused before any work, naming t and the cap.
    out = call_limited(lambda: ccb.coverage(10**9), seconds=10)
    assert out.clear_error and "t" in out.message and "cap" in out.message, out
    # With n the value is min((k+1)**t, n): any t is cheap.
    assert ccb.coverage(10**9, n=1000) == 1000
    assert ccb.coverage(200) == 2**200  # well under the cap: still exact


def test_regression_array_k_plus_one_does_not_overflow():
    # k + 1 wrapped around in int64 for k = 2**63 - 1 (it gave 2 rounds); k >= n - 1 means one round.
    assert ccb.info_steps(8, k=np.array([2**63 - 1])).tolist() == [1]
    assert ccb.info_steps(np.array([1, 2, 2**63 - 1]), k=np.array([2**63 - 1] * 3)).tolist() == [0, 1, 1]


def test_regression_uint64_beyond_int64_is_rejected():
    # uint64 2**63 wrapped to a negative int64.
    with pytest.raises(ValueError, match="n"):
        ccb.info_steps(np.array([2**63], dtype=np.uint64))
    assert ccb.info_steps(np.array([8], dtype=np.uint64)).tolist() == [3]


def test_regression_scalar_only_parameters_reject_arrays():
    with pytest.raises(TypeError, match="k"):
        ccb.coverage(3, k=np.array([2]), n=10)
