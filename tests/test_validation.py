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


# -- the package's NamedTuple records check their fields (#42) -------------------------------


def _records():
    """One valid instance of every NamedTuple record outside synthesis and nccl_tests, built by hand."""
    from ccb_helpers.algorithms import Cost
    from ccb_helpers.bandwidth import Volume
    from ccb_helpers.explorers.frame import Frame
    from ccb_helpers.logp import LogPBroadcast
    from ccb_helpers.mpi import AgreementRow, AgreementSummary, AlphaBetaFit
    from ccb_helpers.nccl_bound import NcclVsBound
    from ccb_helpers.nccl_search import NvlsGraph

    return [
        Cost(3, 8.0),
        Volume(1.0, 2.0),
        NvlsGraph(8, 40e9, 60e9),
        Frame("x", {"panels": []}, {"x": 1}),
        NcclVsBound("ring/simple", 2e-5, 1e-5, 1e-5, 0.5, False, "ring", 1.5e-5, "a flag", 1e-5, 0.5),
        AgreementRow(64, 1.2e-5, 1e-5, 1.2, 1.0, 1.4),
        AgreementSummary(2, 3, 0.9, 1.2, 0.15, False),
        AlphaBetaFit(2e-6, 1e9, 0.01),
        LogPBroadcast("binomial", ((1,), ()), (None, 0.0), (0.0, 5.0), 5.0),
    ]


#: NamedTuples that are not records a user meets, and why.
NOT_RECORDS = {
    "Built": "generators.core: what a schedule generator returns to the dispatcher, never a public value",
}


def test_every_namedtuple_record_is_listed_here():
    """A new NamedTuple elsewhere in the package must join _records() (or say why not)."""
    import ast
    import pathlib

    root = pathlib.Path(ccb.__file__).parent
    found = set()
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).parts
        if any(part.startswith("synthesis") for part in parts) or "nccl_tests" in parts:
            continue  # their records belong to the synthesis and nccl-tests readers' own checks
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(getattr(b, "id", None) == "NamedTuple" for b in node.bases):
                if not node.name.startswith("_") and node.name not in NOT_RECORDS:
                    found.add(node.name)
    assert found == {type(r).__name__ for r in _records()}


HOSTILE_FIELD_VALUES = [
    float("nan"),
    float("inf"),
    float("-inf"),
    np.float64("nan"),
    np.array([[1.0, 2.0], [3.0, 4.0]]),
    [1, 2],
    10**400,
    "7",
    object(),
]


@pytest.mark.parametrize("record", _records(), ids=lambda r: type(r).__name__)
def test_records_refuse_nan_inf_and_arrays_naming_the_field(record):
    cls = type(record)
    for field in cls._fields:
        for bad in HOSTILE_FIELD_VALUES:
            if isinstance(getattr(record, field), str) and isinstance(bad, str):
                continue  # a string field takes a string
            if cls.__name__ in ("Cost", "Volume") and isinstance(bad, (list, np.ndarray)) and np.isfinite(bad).all():
                continue  # a record of a broadcast formula holds arrays (test below)
            values = record._asdict() | {field: bad}
            with pytest.raises((ValueError, TypeError), match=rf"{cls.__name__}\.{field}\b"):
                cls(**values)
            with pytest.raises((ValueError, TypeError), match=rf"{cls.__name__}\.{field}\b"):
                record._replace(**{field: bad})
        # The valid record rebuilds to itself (by keyword, by _make and through pickle).
        import pickle

        assert cls(**record._asdict()) == record == cls._make(tuple(record)) == pickle.loads(pickle.dumps(record))


def test_array_records_keep_finite_arrays_and_refuse_nan_inside():
    """Cost and Volume of a broadcast formula hold arrays (documented); NaN inside one is still refused."""
    cost = ccb.algorithm_terms("ring", "all_reduce", np.array([2, 4]), 1000)
    assert cost.steps.tolist() == [2, 6] and cost.bandwidth_bytes.tolist() == [1000.0, 1500.0]
    with pytest.raises(ValueError, match=r"Cost\.bandwidth_bytes must be finite"):
        cost._replace(bandwidth_bytes=np.array([1.0, np.nan]))
    with pytest.raises(TypeError, match=r"Volume\.send must be a real number or an array"):
        type(ccb.forced_volume("all_reduce", 4, 8))(np.array(["a"]), 1.0)
    assert type(cost)(np.array(3), np.array(2.5)) == (3, 2.5, 0.0)  # 0-d arrays are numbers (no reduced bytes)
