"""Chapter tables: the numbers they carry, checked against independent derivations."""

import ccb_helpers as ccb


def test_info_propagation_table_reproduces_the_source():
    # tbl-cc-bound-info-prop as printed in the source (all of its cells are right).
    t = ccb.info_propagation_table(ns=(4, 8, 16, 32, 64), k=2)
    assert [row[1:] for row in t.rows] == [
        ["2", "2", "0%"], ["3", "2", "33%"], ["4", "3", "25%"], ["5", "4", "20%"], ["6", "4", "33%"]
    ]
    md = t._repr_markdown_()
    assert md.startswith("| $N$ |") and md.count("\n|") == 6


def test_preset_steps_table():
    t = ccb.preset_steps_table(ns=(1024,), keys=("sg2260", "a100_nvlink", "ib_ndr"))
    # 3^6 = 729 < 1024 <= 2187: 7 steps; 7^3 = 343 < 1024 <= 2401: 4; InfiniBand: all-port k, but
    # one NIC (d = 1), so p = 1 and 2^10 = 1024: 10 steps (the source's "1 round" needs N - 1 links).
    assert [(v[2], v[3], v[4]) for v in t.values] == [(2, 2, 7), (6, 6, 4), (1023, 1, 10)]


def test_broadcast_attainment_table_runs_the_simulator():
    t = ccb.broadcast_attainment_table(ns=(5, 27), ks=(1, 2), m=270)
    assert t.values == [(5, 1, 3, 3, True), (5, 2, 2, 2, True), (27, 1, 5, 5, True), (27, 2, 3, 3, True)]


def test_exhaustive_table():
    t = ccb.exhaustive_broadcast_table(ns=(2, 3, 4, 5), ks=(1,))
    assert [(n, best) for n, _, best, _ in t.values] == [(2, 1), (3, 2), (4, 2), (5, 3)]


def test_text_repr_is_aligned():
    text = repr(ccb.info_propagation_table(ns=(4,), k=2))
    assert "4" in text.splitlines()[-1]
