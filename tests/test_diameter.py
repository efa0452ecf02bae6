"""Diameter bound across families: which bound binds, from which N on."""

import pytest

import ccb_helpers as ccb


def test_ring_sizes_where_diameter_exceeds_log2():
    # floor(N/2) > ceil(log2 N), checked by hand for N <= 20: N = 8 (4 > 3), N = 9 fails (4 = 4), N >= 10 holds.
    assert ccb.diameter_binding_sizes(20) == [8] + list(range(10, 21))


def test_source_claim_n_greater_than_4_is_false():
    counterexamples = [n for n in range(5, 200) if not n // 2 > ccb.info_steps(n)]
    assert counterexamples == [5, 6, 7, 9]


@pytest.mark.parametrize(
    "family, k, expected",
    [
        ("ring", 1, 10),  # N = 9 is the last tie
        ("torus2d", 1, 64),  # 8x8: D = 8 > 6; 7x7: D = 6 = ceil(log2 49)
        ("torus3d", 1, 512),  # 7^3: D = 9 = ceil(log2 343); 8^3: 12 > 9
        ("mesh2d", 1, 16),  # 4x4: D = 6 > 4; 3x3: 4 = 4
        ("hypercube", 1, None),  # D = log2 N exactly
        ("hypercube", 2, 8),  # 3-cube: D = 3 > ceil(log3 8) = 2
        ("fat_tree", 1, None),
        ("fully_connected", 1, None),
    ],
)
def test_first_diameter_bound(family, k, expected):
    assert ccb.first_diameter_bound(family, max_n=4096, k=k) == expected


def test_binding_uses_degree_capped_ports():
    # A ring has d = 2: k = 6 behaves like k = 2.
    assert ccb.binding_latency_term(ccb.ring(6), k=6) == ccb.binding_latency_term(ccb.ring(6), k=2) == "diameter"


def test_family_instances():
    assert [t.n for t in ccb.family_instances("hypercube", 64)] == [2, 4, 8, 16, 32, 64]
    assert [t.n for t in ccb.family_instances("fat_tree", 64)] == [4, 8, 16, 32, 64]
    with pytest.raises(ValueError):
        ccb.family_instance("dragonfly", 4)


def test_ring_diameter_table_identity_and_broadcast():
    t = ccb.ring_diameter_table(ns=range(2, 15))
    for n, diam, eff, one, two, checked in t.values:
        assert diam == eff  # floor(N/2) == ceil((N-1)/2) for every N
        assert one == (n + 1) // 2 and two == n // 2
        assert checked is True  # matches the exhaustive search


def test_diameter_table_measures():
    t = ccb.diameter_table([ccb.torus(4, 4, 4), ccb.mesh(5, 5), ccb.fat_tree(16)])
    assert [(v[3], v[4]) for v in t.values] == [(6, 6), (8, 8), (4, 4)]
