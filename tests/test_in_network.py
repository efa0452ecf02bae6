"""In-network reduction: volumes, bounds and the busbw ceiling, against hand derivations."""

import numpy as np
import pytest

import ccb_helpers as ccb

M = 8000.0


def test_volumes_by_hand():
    # N = 8: a reducing switch takes every input once and hands every node the sum once.
    assert ccb.in_network_volume("all_reduce", 8, M) == (8000.0, 8000.0)
    assert ccb.in_network_volume("reduce_scatter", 8, M) == (7000.0, 1000.0)
    assert ccb.in_network_volume("all_gather", 8, M) == (1000.0, 7000.0)
    # Nothing to add or copy: the same as endpoint reduction.
    for primitive in ("broadcast", "reduce", "scatter", "gather", "all_to_all"):
        assert ccb.in_network_volume(primitive, 8, M) == ccb.forced_volume(primitive, 8, M)
    assert ccb.in_network_volume("all_reduce", 1, M) == (0.0, 0.0)


def test_only_allreduce_changes_the_bottleneck():
    for primitive in ccb.PRIMITIVES:
        ours = max(ccb.in_network_volume(primitive, 16, M))
        endpoint = max(ccb.forced_volume(primitive, 16, M))
        if primitive == "all_reduce":
            assert (ours, endpoint) == (M, 2 * 15 * M / 16)
        else:
            assert ours == endpoint


def test_bound_and_ceiling_for_eight_h100():
    # 18 links x 25 GB/s = 450 GB/s per direction per GPU.
    beta, k = 25e9, 18
    assert ccb.in_network_lower_bound("all_reduce", 8, 2**30, beta, ports=k) == pytest.approx(2**30 / 450e9)
    assert ccb.busbw_limit("all_reduce", 8, beta, ports=k) == pytest.approx(450e9)
    # 2 * 7/8 * 450 = 787.5 GB/s, above the measured ~480 GB/s, itself above 450.
    assert ccb.busbw_limit("all_reduce", 8, beta, ports=k, in_network=True) == pytest.approx(787.5e9)
    for primitive in ("all_gather", "reduce_scatter", "broadcast", "all_to_all"):
        assert ccb.busbw_limit(primitive, 8, beta, ports=k, in_network=True) == pytest.approx(450e9)
    # NCCL's NVLS moves (N + 1)/N M each way: busbw <= 2 (N-1)/(N+1) * 450 = 700 GB/s for N = 8.
    send, _ = ccb.nvls_all_reduce_volume(8, 2**30)
    nvls_busbw = 2 * 7 / 8 * 2**30 / (send / 450e9)
    assert nvls_busbw == pytest.approx(700e9)


def test_arrays():
    n = np.array([2, 4, 8])
    got = ccb.busbw_limit("all_reduce", n, 1.0, in_network=True)
    assert got.tolist() == [1.0, 1.5, 1.75]
    assert ccb.in_network_volume("all_gather", n, 8.0).send.tolist() == [4.0, 2.0, 1.0]


def test_errors():
    with pytest.raises(ValueError, match="n"):
        ccb.busbw_limit("all_reduce", 1, 1e9)
    with pytest.raises(TypeError, match="in_network"):
        ccb.busbw_limit("all_reduce", 8, 1e9, in_network="yes")
    with pytest.raises(ValueError, match="primitive"):
        ccb.in_network_volume("allreduce", 8, 1.0)


def test_nvls_volume_at_the_int64_limit_is_not_negative():
    # Regression (fuzz, #15): (N+1) M / N on an int64 array wrapped N + 1 to -2**63 at N = 2**63 - 1.
    # (N+1) M / N = M + M/N, and 8 / (2**63 - 1) is far below the spacing of floats near 8, so 8.0.
    v = ccb.nvls_all_reduce_volume(np.array([2**63 - 1, 8]), 8000.0)
    assert v.send.tolist() == [8000.0, 9000.0] and v.recv.tolist() == [8000.0, 9000.0]
    with pytest.raises(ValueError, match="n must be <="):  # was OverflowError: int too large to convert to float
        ccb.nvls_all_reduce_volume(10**400, 1.0)


def test_in_network_arguments_are_capped_before_broadcasting():
    # Regression (#15): 2**13 x 2**13 = 2**26 elements is past the broadcast cap of 2**25.
    n, m = np.full((2**13, 1), 8), np.ones(2**13)
    for call in (
        lambda: ccb.in_network_volume("all_reduce", n, m),
        lambda: ccb.in_network_lower_bound("all_reduce", n, m, 1e9),
        lambda: ccb.nvls_all_reduce_volume(n, m),
        lambda: ccb.busbw_limit("all_reduce", n, m * 1e9),
    ):
        with pytest.raises(ValueError, match="cap"):
            call()
    with pytest.raises(TypeError, match="in_network"):
        ccb.busbw_limit("all_reduce", 8, 1e9, in_network="yes")
    with pytest.raises(TypeError, match="ports"):
        ccb.in_network_lower_bound("all_reduce", 8, 1.0, 1e9, ports=2.0)
