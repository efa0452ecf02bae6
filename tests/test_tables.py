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
    # 3^6 = 729 < 1024 <= 2187: 7 steps; 7^3 = 343 < 1024 <= 2401: 4; all-port: 1.
    assert [v[3] for v in t.values] == [7, 4, 1]


def test_broadcast_attainment_table_runs_the_simulator():
    t = ccb.broadcast_attainment_table(ns=(5, 27), ks=(1, 2), m=270)
    assert t.values == [(5, 1, 3, 3, True), (5, 2, 2, 2, True), (27, 1, 5, 5, True), (27, 2, 3, 3, True)]


def test_exhaustive_table():
    t = ccb.exhaustive_broadcast_table(ns=(2, 3, 4, 5), ks=(1,))
    assert [(n, best) for n, _, best, _ in t.values] == [(2, 1), (3, 2), (4, 2), (5, 3)]


def test_text_repr_is_aligned():
    text = repr(ccb.info_propagation_table(ns=(4,), k=2))
    assert "4" in text.splitlines()[-1]


def test_ratios_are_plain_numbers():
    # 8 hosts per leaf over 7 spines: 8/7 = 1.142857..., shown with three significant digits.
    t = ccb.oversubscription_table(n=64, hosts_per_leaf=8)
    shown = sorted({row[0] for row in t.rows}, key=float)
    assert shown == ["1", "1.14", "1.33", "1.6", "2", "2.67", "4", "8"]  # 8/8, 8/7, 8/6, 8/5, 8/4, 8/3, 8/2, 8/1
    assert not any(":1" in cell for row in t.rows for cell in row)


def test_oversubscription_table_is_narrow_with_the_verdict_last():
    # One row per (o, primitive): 6 columns (it had 8, the verdicts fell off the page).
    t = ccb.oversubscription_table(n=16, hosts_per_leaf=4)
    assert len(t.headers) == 6 and t.headers[-1] == "更紧的是"
    assert len(t.rows) == 4 * 2 and all(len(row) == 6 for row in t.rows)
    # 16 hosts, 4 per leaf, o = 4: one spine; a balanced cut separates two leaves' uplinks: 2 links.
    # AllToAll: 8 * 8 * M/16 = 4M crosses 2 links, 2M/beta, against the node bound 15/16 M/beta.
    assert t.rows[-1][:3] == ["4", "2", "AllToAll"] and t.rows[-1][-1] == "bisection"


def test_2port_table_states_a_constant_ratio_once():
    t = ccb.bandwidth_table_2port(ns=(8, 9))
    assert "÷ 1-port 下界" not in t.headers and len(t.headers) == 7
    assert t.caption.endswith("1-port 的 0.5 倍")  # two ports halve every bandwidth bound
