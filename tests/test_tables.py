"""Chapter tables: the numbers they carry, checked against independent derivations."""

import pytest

import ccb_helpers as ccb


def test_info_propagation_table_reproduces_the_source():
    # tbl-cc-bound-info-prop as printed in the source (all of its cells are right).
    t = ccb.info_propagation_table(ns=(4, 8, 16, 32, 64), k=2)
    assert [row[1:] for row in t.rows] == [
        ["2", "2", "0%"],
        ["3", "2", "33%"],
        ["4", "3", "25%"],
        ["5", "4", "20%"],
        ["6", "4", "33%"],
    ]
    md = t._repr_markdown_()
    assert md.startswith("| $N$ |") and md.count("\n|") == 6


def test_preset_steps_table():
    t = ccb.preset_steps_table(ns=(1024,), keys=("sg2260", "a100_nvlink", "ib_ndr"))
    # 3^6 = 729 < 1024 <= 2187: 7 steps; A100's 12 links: 13^2 = 169 < 1024 <= 2197: 3; InfiniBand:
    # all-port k, but one NIC (d = 1), so p = 1 and 2^10 = 1024: 10 steps (the source's "1 round"
    # needs N - 1 links).
    assert [(v[2], v[3], v[4]) for v in t.values] == [(2, 2, 7), (12, 12, 3), (1023, 1, 10)]


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


# -- issue #15 regressions --------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: ccb.preset_steps_table(keys=("nope",)),
        lambda: ccb.busbw_table(preset_key="nope"),
        lambda: ccb.simulated_vs_bound_table(preset_key="nope"),
        lambda: ccb.tree_ring_crossover_table(preset_key="nope"),
    ],
)
def test_regression_unknown_preset_is_a_value_error(call):
    # KeyError: 'nope'. Now the message names the parameter (keys[0] or preset_key).
    with pytest.raises(ValueError, match=r"keys\[0\]|preset_key"):
        call()


def test_regression_busbw_table_names_its_own_parameter():
    # n = 1 gave "seconds must be > 0.0" (an internal parameter).
    with pytest.raises(ValueError, match=r"\bn\b"):
        ccb.busbw_table(n=1)


def test_new_tables_validate_their_arguments():
    # Regression (fuzz, #15): these tables used their arguments unchecked.
    with pytest.raises(TypeError, match="ns"):
        ccb.source_node_bound_table(ns=None)  # was: 'NoneType' object is not iterable
    with pytest.raises(ValueError, match="ns"):
        ccb.source_node_bound_table(ns=(20,))  # the torus row needs a square
    with pytest.raises(ValueError, match="m must be >= 1"):
        ccb.source_node_bound_table(m=0.0)
    with pytest.raises(ValueError, match="ns must have 1 to 64 items"):
        ccb.ring_gossip_table(ns=range(0, 10**9))  # was: "n must be >= 2" (no such parameter)
    with pytest.raises(ValueError, match=r"ns\[0\] must be >= 2"):
        ccb.ring_gossip_table(ns=(0, 5))
    with pytest.raises(ValueError, match=r"ns\[0\] must be <= 16"):
        ccb.ring_gossip_table(ns=(17,))  # the search's limit, checked up front
    with pytest.raises(ValueError, match="cap 16"):
        ccb.ring_gossip_table(ns=[5] * 17)
    assert ccb.ring_gossip_table(ns=(17,), ports=2).values == [(17, 8, 3, 8, 8)]  # 2 ports: flooding, the diameter 8
    with pytest.raises(TypeError, match="span"):
        ccb.efficiency_table(span=None)  # was: unsupported operand type(s) for /
    with pytest.raises(ValueError, match="span"):
        ccb.efficiency_table(span=1e30)  # was: "m must be <= ..." (no such parameter)
    with pytest.raises(ValueError, match="alpha must be > 0"):
        ccb.efficiency_table(alpha=0.0)
