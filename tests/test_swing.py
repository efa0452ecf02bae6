"""Swing (De Sensi et al., NSDI 2024): peers as in the paper, byte-checked AllReduce, its torus advantage."""

from __future__ import annotations

import numpy as np
import pytest

import ccb_helpers as ccb


def test_rho_and_peers_as_in_the_paper():
    # rho(s) = 1 - 2 + 4 - 8 + ... (the paper's sequence): 1, -1, 3, -5, 11, -21
    assert [ccb.swing_rho(s) for s in range(6)] == [1, -1, 3, -5, 11, -21]
    # even ranks add rho, odd ranks subtract it; partners pair up
    for p in (8, 16, 64):
        for s in range(int(np.log2(p))):
            for r in range(p):
                q = ccb.swing_peer(r, s, p)
                assert ccb.swing_peer(q, s, p) == r
                assert q == ((r + ccb.swing_rho(s)) % p if r % 2 == 0 else (r - ccb.swing_rho(s)) % p)


@pytest.mark.parametrize("n", list(range(1, 41)) + [64, 100])
def test_byte_checked_with_rounds_and_bytes_by_hand(n):
    for variant in ("bandwidth", "latency"):
        for m in (0, 5, 8 * n):
            assert ccb.run_schedule(ccb.swing_schedule(n, m, variant=variant)).correct
    if n > 1:
        f = int(np.log2(n))
        p = 2**f
        m = 8 * p * n
        r = ccb.simulate("swing", "all_reduce", n, m)
        fold = n != p
        assert r.correct and r.rounds == 2 * f + 2 * fold
        assert r.max_message.sum() == 2 * (p - 1) * m // p + 2 * m * fold


@pytest.mark.parametrize("dims", [(2, 2), (4, 4), (2, 8), (8, 4), (2, 2, 2, 2), (4, 4, 4)])
def test_torus_dimensions(dims):
    n = int(np.prod(dims))
    assert ccb.run_schedule(ccb.swing_schedule(n, 16 * n, dims=dims)).correct
    with pytest.raises(ValueError, match="power of two"):
        ccb.swing_schedule(15, 150, dims=(3, 5))


def test_shorter_partners_beat_rhd_on_rings_and_tori():
    """The paper's point: on a torus, Swing's partners are closer than RHD's, so fewer links are shared."""
    for topology, dims in ((ccb.ring(16), None), (ccb.ring(64), None), (ccb.torus(8, 8), (8, 8))):
        n, m = topology.n, 1024 * topology.n
        swing = ccb.routed_time(ccb.swing_schedule(n, m, dims=dims), topology, 0.0, 1.0)
        rhd = ccb.routed_time(ccb.generate("recursive_halving_doubling", "all_reduce", n, m), topology, 0.0, 1.0)
        assert swing < rhd
        assert swing >= ccb.routed_lower_bound("all_reduce", topology, m, 0.0, 1.0)


def test_refuses_store_and_forward_tori():
    with pytest.raises(ValueError, match="routed_time"):
        ccb.simulate("swing", "all_reduce", 16, 160, topology=ccb.torus(4, 4))
