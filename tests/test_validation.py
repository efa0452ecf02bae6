"""Random bad inputs to every public function raise ValueError or TypeError, never anything else."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ccb_helpers as ccb
from ccb_helpers._validation import check_int, check_real

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.sampled_from(ccb.PRIMITIVES + tuple(ccb.ALGORITHMS) + ("allreduce", "")),
    st.lists(st.integers(-5, 5), max_size=3),
    st.just(np.array([1.5, -2.0])),
    st.just(np.array([], dtype=np.int64)),
)

CALLS = [
    lambda a, b, c, d, e: ccb.info_steps(a, b),
    lambda a, b, c, d, e: ccb.coverage(a, b, c),
    lambda a, b, c, d, e: ccb.ring(a),
    lambda a, b, c, d, e: ccb.torus(a, b),
    lambda a, b, c, d, e: ccb.mesh(a, b, c),
    lambda a, b, c, d, e: ccb.hypercube(a),
    lambda a, b, c, d, e: ccb.fat_tree(a, b),
    lambda a, b, c, d, e: ccb.fully_connected(a),
    lambda a, b, c, d, e: ccb.forced_volume(a, b, c),
    lambda a, b, c, d, e: ccb.bandwidth_lower_bound(a, b, c, d, e),
    lambda a, b, c, d, e: ccb.combined_lower_bound(a, b, c, d, e),
    lambda a, b, c, d, e: ccb.crossover_size(a, b, c, d),
    lambda a, b, c, d, e: ccb.regime(a, b, c, d, e),
    lambda a, b, c, d, e: ccb.algorithm_cost(a, b, c, d, e, 1e9),
    lambda a, b, c, d, e: ccb.algorithm_terms(a, b, c, d),
    lambda a, b, c, d, e: ccb.best_algorithm(a, b, c, d, e),
    lambda a, b, c, d, e: ccb.bisection_bytes(a, b, c),
    lambda a, b, c, d, e: ccb.bisection_lower_bound(a, ccb.ring(4), c, d),
    lambda a, b, c, d, e: ccb.broadcast_steps(ccb.ring(6), a, b),
    lambda a, b, c, d, e: ccb.routing_lower_bound(a, b),
    lambda a, b, c, d, e: ccb.preset(a),
    lambda a, b, c, d, e: ccb.format_bytes(a),
    lambda a, b, c, d, e: ccb.optimal_chunks(a, b, c, d),
]


@given(st.sampled_from(range(len(CALLS))), junk, junk, junk, junk, junk)
def test_only_clear_errors(index, a, b, c, d, e):
    try:
        CALLS[index](a, b, c, d, e)
    except (ValueError, TypeError) as err:
        assert str(err)  # a message is always given


# -- issue #15 regressions --------------------------------------------------------------------


def test_regression_uint64_and_huge_python_ints_in_arrays():
    with pytest.raises(ValueError, match="x"):
        check_int("x", np.array([2**63], dtype=np.uint64))
    with pytest.raises(ValueError, match="x"):
        check_int("x", [2**63])
    with pytest.raises(ValueError, match="x"):
        check_int("x", [2**70])
    assert check_int("x", np.array([2**63 - 1], dtype=np.uint64)).tolist() == [2**63 - 1]


def test_regression_scalar_only_rejects_arrays_and_ragged_lists_are_named():
    with pytest.raises(TypeError, match="x must be a scalar"):
        check_int("x", np.array([4]), scalar=True)
    with pytest.raises(TypeError, match="x"):
        check_int("x", [[1, 2], [3]])
    with pytest.raises(TypeError, match="x must be a scalar"):
        check_real("x", [1.0], scalar=True)


def test_regression_huge_int_as_real_is_a_value_error():
    with pytest.raises(ValueError, match="x"):
        check_real("x", 10**400)
