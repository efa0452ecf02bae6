"""Chapter 7 figures, tables and the SynthesisExplorer (every control, extremes included)."""

from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import pytest

import ccb_helpers as ccb


def test_explorer_default_is_the_dgx1_bandwidth_optimal_schedule():
    e = ccb.SynthesisExplorer()
    assert e.instance == (3, 7, 6) and e.correct
    assert e.ratio_bound == Fraction(7, 6) and e.steps_bound == 2
    assert "7/6" in e.readout.value and "通过" in e.readout.value
    assert e.png()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("name, steps_bound", [("ring 6", 3), ("hypercube 3-d", 3), ("torus 3x3", 2), ("DGX-1 (V100)", 2)])
def test_every_topology_and_the_extremes_of_steps_and_chunks(name, steps_bound):
    e = ccb.SynthesisExplorer()
    e.update(topology=name)
    assert e.controls["steps"].min == steps_bound and e.controls["steps"].max == steps_bound + 2
    assert e.controls["steps"].value == steps_bound
    for steps, chunks in ((steps_bound, 1), (steps_bound + 2, 3)):
        before = e.redraws
        e.update(steps=steps, chunks=chunks, step=steps)
        assert e.redraws == before + 1 and e.correct
        s, r, c = e.instance
        assert (s, c) == (steps, chunks)
        assert Fraction(r, c) >= e.ratio_bound and s >= e.steps_bound
        assert e.controls["step"].max == steps
        assert f"S = {steps}" in e.readout.value


def test_step_slider_follows_the_steps_and_moves_the_drawing():
    e = ccb.SynthesisExplorer(topology="ring 6", steps=5, chunks=2, step=5)
    assert e.instance[0] == 5 and e.controls["step"].value == 5
    first = e.png()
    e.update(step=1)
    assert e.png() != first
    e.update(steps=3)                     # the highlighted step is clamped to the new S
    assert e.controls["step"].value == 1 and e.controls["step"].max == 3


def test_bounds_table_values_match_the_bounds():
    t = ccb.synthesis_bounds_table([ccb.ring(6), ccb.dgx1()], ["all_gather", "all_to_all"])
    # ring 6: AllGather 5 blocks over 2 links = 5/2 (node); AllToAll 3 x 3 = 9 blocks over 2 links = 9/2 (bisection)
    assert [v[3] for v in t.values] == [Fraction(5, 2), Fraction(9, 2), Fraction(7, 6), Fraction(8, 3)]
    assert [row[-1].split("（")[0] for row in t.rows] == ["= 节点界", "= 平衡割界", "= 节点界", "= 平衡割界"]


def test_attainment_table_proves_the_dgx1_gap():
    t = ccb.attainment_table([ccb.ring(6), ccb.dgx1()])
    ring_row, dgx_row = t.values
    assert ring_row[3] == [(3, 5, 2)] and ring_row[4] is None
    assert dgx_row[3] == [(2, 3, 2), (3, 7, 6)] and dgx_row[4] == (2, 7, 6)


def test_plane_plot_and_step_drawing_validate():
    ax = ccb.plot_synthesis_plane(2, Fraction(7, 6), frontier=[(2, 3, 2), (3, 7, 6)], infeasible=[(2, 7, 6)], current=(3, 7, 6))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "Pareto 前沿" in labels and "求解器证明不可行" in labels
    s = ccb.stored_schedule(ccb.dgx1(), "all_gather", 3, 6)
    with pytest.raises(ValueError):
        ccb.draw_synthesized_step(s, ccb.dgx1(), 4)
