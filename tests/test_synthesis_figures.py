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


@pytest.mark.parametrize(
    "name, steps_bound", [("ring 6", 3), ("hypercube 3-d", 3), ("torus 3x3", 2), ("DGX-1 (V100)", 2)]
)
def test_every_topology_and_the_extremes_of_steps_and_chunks(name, steps_bound):
    e = ccb.SynthesisExplorer()
    e.update(topology=name)
    assert e.controls["steps"].min == steps_bound and e.controls["steps"].max == steps_bound + 2
    assert e.controls["steps"].value == steps_bound
    for steps, chunks in ((steps_bound, 1), (steps_bound + 2, 6)):
        before = e.redraws
        e.update(steps=steps, chunks=chunks, step=steps)
        assert e.redraws == before + 1 and e.correct
        s, r, c = e.instance
        assert (s, c) == (steps, chunks)
        assert Fraction(r, c) >= e.ratio_bound and s >= e.steps_bound
        assert e.controls["step"].max == steps
        assert f"S = {steps}" in e.readout.value


def test_every_chunk_count_is_stored_and_moving_the_step_keeps_the_instance():
    e = ccb.SynthesisExplorer()
    assert e.controls["chunks"].value == 6 and e.controls["chunks"].max == 6
    # SCCL README's 3-step DGX-1 instances (3, 4, 3), (3, 5, 4), (3, 6, 5), (3, 7, 6) are stored
    # with those fewest R (R = C + 1, down to 7/6), so every C of the slider has a schedule
    stored = {
        (e_["steps"], e_["chunks"]): e_["rounds"]
        for e_ in ccb.stored_schedules()
        if e_["topology_name"] == "DGX-1 (V100)" and e_["steps"] == 3
    }
    assert [(3, stored[3, c], c) for c in range(3, 7)] == [(3, 4, 3), (3, 5, 4), (3, 6, 5), (3, 7, 6)]
    assert sorted(c for s_, c in stored) == [1, 2, 3, 4, 5, 6]
    e.update(chunks=4)
    assert e.instance == (3, 5, 4) and e.correct
    e.update(chunks=6, step=2)  # the drawn step changes, the instance does not
    assert e.instance == (3, 7, 6) and "第 2/3 步" in e.figure.axes[0].get_title()


def test_step_slider_follows_the_steps_and_moves_the_drawing():
    e = ccb.SynthesisExplorer(topology="ring 6", steps=5, chunks=2, step=5)
    assert e.instance[0] == 5 and e.controls["step"].value == 5
    first = e.png()
    e.update(step=1)
    assert e.png() != first
    e.update(steps=3)  # the highlighted step is clamped to the new S
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
    ax = ccb.plot_synthesis_plane(
        2, Fraction(7, 6), frontier=[(2, 3, 2), (3, 7, 6)], infeasible=[(2, 7, 6)], current=(3, 7, 6)
    )
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "Pareto 前沿" in labels and "求解器证明不可行" in labels
    s = ccb.stored_schedule(ccb.dgx1(), "all_gather", 3, 6)
    with pytest.raises(ValueError):
        ccb.draw_synthesized_step(s, ccb.dgx1(), 4)


def test_drawing_and_plane_refuse_bad_input():
    s = ccb.stored_schedule(ccb.dgx1(), "all_gather", 3, 6)
    with pytest.raises(TypeError, match="schedule"):
        ccb.draw_synthesized_step("schedule", ccb.dgx1(), 1)
    with pytest.raises(TypeError, match="topology"):
        ccb.draw_synthesized_step(s, "dgx1", 1)
    with pytest.raises(ValueError, match="n=4"):
        ccb.draw_synthesized_step(s, ccb.ring(4), 1)
    with pytest.raises(TypeError, match="steps_bound"):
        ccb.plot_synthesis_plane("2", Fraction(7, 6))
    with pytest.raises(ValueError, match="ratio_bound"):
        ccb.plot_synthesis_plane(2, -1)
    with pytest.raises(ValueError, match=r"\(steps, rounds, chunks\)"):
        ccb.plot_synthesis_plane(2, Fraction(7, 6), frontier=[(2, 3)])


def test_step_drawing_colours_and_labels_only_links_with_room():
    """A full link (b * r_s chunks) is the normal case: grey, unlabelled; a link with room is orange and
    labelled chunks/capacity (#31: 48 red arrows with overlapping counts said nothing).

    DGX-1 (3, 7, 6), step 1: R/C = 7/6 fills all 48 link directions (8 x 7 x 6 = 336 = 48 x 7), so the 32
    arrows (16 pairs, both ways) carry no number. The (2, 5, 3) schedule has 24 directions with room in step 1:
    each gets a label, and their boxes do not overlap one another at the book's 4.6 in.
    """
    import itertools

    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    from ccb_helpers.synthesis_figures import _FULL_COLOR, _SPARE_COLOR

    dgx1 = ccb.dgx1()
    full = ccb.stored_schedule(dgx1, "all_gather", 3, 6)
    ax = ccb.draw_synthesized_step(full, dgx1, 1)
    arrows = [a for a in ax.get_children() if isinstance(a, FancyArrowPatch)]
    assert len(arrows) == 32 and {matplotlib.colors.to_hex(a.get_edgecolor()) for a in arrows} == {_FULL_COLOR}
    assert sorted(t.get_text() for t in ax.texts) == [str(v) for v in range(8)]  # only the GPU numbers
    assert "全部 32 个方向满载：单链路 2、双链路 4 块" in ax.get_title()
    roomy = ccb.stored_schedule(dgx1, "all_gather", 2, 3)
    _, ax = plt.subplots(figsize=(4.6, 4.6))
    ccb.draw_synthesized_step(roomy, dgx1, 1, ax=ax)
    spare = [
        a
        for a in ax.get_children()
        if isinstance(a, FancyArrowPatch) and matplotlib.colors.to_hex(a.get_edgecolor()) == _SPARE_COLOR
    ]
    labels = [t for t in ax.texts if "/" in t.get_text()]
    assert len(spare) == len(labels) == 24 and "满载 8/32" in ax.get_title()
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in labels]
    assert sum(a.overlaps(b) for a, b in itertools.combinations(boxes, 2)) <= 1


def test_schedule_small_multiples_list_every_count():
    dgx1 = ccb.dgx1()
    s = ccb.stored_schedule(dgx1, "all_gather", 3, 6)
    axes = ccb.plot_schedule_steps(s, dgx1)
    assert len(axes) == 4 and axes[0].get_title().startswith("链路根数 b")
    # step 3 of (3, 7, 6): r = 3, so a single link carries 3 chunks and a double link 6, 144 in all
    numbers = sorted(int(t.get_text()) for t in axes[3].texts)
    assert len(numbers) == 32 and sum(numbers) == 144 and set(numbers) == {3, 6}
    assert axes[3].get_title() == "第 3 步：r = 3 轮，144 块，全部满载"
    # a schedule with room: ring 6, (4, 4, 1): steps 3 and 4 move 3 chunks over 12 link directions
    ring = ccb.ring(6)
    axes = ccb.plot_schedule_steps(ccb.stored_schedule(ring, "all_gather", 4, 1), ring)
    assert axes[3].get_title() == "第 3 步：r = 1 轮，3 块，9 处有余量"
    assert sum(t.get_text() == "0/1" for t in axes[3].texts) == 9
    every = [t for ax in axes for t in ax.texts]
    assert min(t.get_fontsize() for t in every) >= 9
    with pytest.raises(ValueError, match="n=4"):
        ccb.plot_schedule_steps(s, ccb.ring(4))
    with pytest.raises(TypeError, match="schedule"):
        ccb.plot_schedule_steps("schedule", dgx1)
