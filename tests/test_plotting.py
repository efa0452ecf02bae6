"""Plotting helpers: input validation, caps checked before work, readable figures, exact step curves."""

from __future__ import annotations

import base64
import io

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image

import ccb_helpers as ccb
from ccb_helpers.plotting import BOOK_WIDTH, _figure_png_2x


def figure_of(result):
    ax = result[0] if isinstance(result, list) else result
    return ax.figure


def readable(fig) -> None:
    """The rules of the book's figures: at most BOOK_WIDTH wide, no text under 7.5 pt, two panels a row."""
    fig.canvas.draw()
    width = fig.get_tightbbox().width  # inches, what the inline backend crops to
    assert width <= BOOK_WIDTH + 0.15
    texts = [
        t
        for t in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "get_text"))
        if t.get_visible() and t.get_text().strip()
    ]
    assert min(t.get_fontsize() for t in texts) >= 7.5  # 7.5 pt = 10.4 CSS px at the natural size
    rows: dict[float, int] = {}
    for ax in fig.axes:
        if ax.get_visible() and ax.axison or ax.collections or ax.lines:
            key = round(ax.get_position().y0, 2)
            rows[key] = rows.get(key, 0) + 1
    assert max(rows.values()) <= 2


FIGURES = [
    lambda: ccb.plot_info_steps(n_max=10**6),
    lambda: ccb.draw_schedule(ccb.generate("binomial_tree", "broadcast", 9, 9 * 64, ports=2)),
    lambda: ccb.draw_knomial_tree(27, k=2),
    lambda: ccb.draw_topology(ccb.torus(4, 4)),
    lambda: ccb.draw_topology_grid([ccb.ring(16), ccb.torus(4, 4), ccb.hypercube(4)]),
    lambda: ccb.draw_topology_grid([ccb.ring(12), ccb.torus(3, 5), ccb.fat_tree(16, oversubscription=2)], cuts=True),
    lambda: ccb.plot_diameters(max_n=10**4),
    lambda: ccb.plot_regime_map(n_max=1024),
    lambda: ccb.plot_best_algorithm_map(n_max=256),
    lambda: ccb.plot_algorithm_times(n=16),
    lambda: ccb.plot_bisection_ratio(max_n=2**10),
    lambda: ccb.plot_volume_coefficients(),
]


@pytest.mark.parametrize("make", FIGURES)
def test_every_figure_is_readable_in_the_column(make):
    fig = figure_of(make())
    readable(fig)
    plt.close(fig)


def test_regime_map_puts_three_presets_on_two_rows():
    axes = ccb.plot_regime_map(n_max=256)
    assert len(axes) == 3
    assert len({round(ax.get_position().y0, 2) for ax in axes}) == 2
    assert "α = 1.5 µs" in axes[0].get_title()  # through format_time, not "1.5 µs" by accident of :g
    plt.close(axes[0].figure)


@pytest.mark.parametrize("k", [1, 2, 6])
def test_info_steps_curve_is_exact_at_every_n(k):
    ax = ccb.plot_info_steps(ks=(k,), n_max=3000, all_port=False)
    x, y = ax.get_lines()[0].get_data()
    for n in range(2, 3001):
        # brute force: the smallest t with (k+1)^t >= n
        t, reach = 0, 1
        while reach < n:
            t, reach = t + 1, reach * (k + 1)
        shown = y[np.searchsorted(x, n, side="right") - 1]  # where="post": the value of the last step at or left of n
        assert shown == t, n
    plt.close(ax.figure)


def test_info_steps_handles_huge_n_max_without_work():
    ax = ccb.plot_info_steps(ks=(1,), n_max=2**62, all_port=False)
    assert ax.get_lines()[0].get_data()[1][-1] == 62
    plt.close(ax.figure)


def test_draw_topology_checks_size_before_building_the_graph():
    big = ccb.ring(10**6)
    with pytest.raises(ValueError, match="max_nodes"):
        ccb.draw_topology(big)
    assert "graph" not in big.__dict__  # never built


def test_topology_figures_refuse_too_many_elements_before_building_the_graph():
    # fully_connected(362): 362 vertices + 362 * 361 / 2 = 65,341 edges = 65,703 > 2**16 = 65,536
    big = ccb.fully_connected(362)
    with pytest.raises(ValueError, match="65,703 exceeds the cap 65,536"):
        ccb.draw_topology(big)
    with pytest.raises(ValueError, match="65,703 exceeds the cap 65,536"):
        ccb.draw_topology_grid([big])
    # summed over the panels: 8 x (128 + 128 * 127 / 2 = 8,256) = 66,048 > 65,536
    with pytest.raises(ValueError, match="66,048 exceeds the cap"):
        ccb.draw_topology_grid([ccb.fully_connected(128)] * 8)
    assert "graph" not in big.__dict__  # never built


def test_draw_topology_grid_stops_reading_an_endless_iterator():
    import itertools

    with pytest.raises(ValueError, match="topologies must hold 1 to 8 topologies, got more than 8"):
        ccb.draw_topology_grid(itertools.count())
    with pytest.raises(ValueError, match="side must hold at most n=4"):
        ccb.draw_topology(ccb.ring(4), side=itertools.count())


def test_draw_topology_grid_cut_error_names_the_panel():
    ring21 = np.zeros((21, 21), dtype=int)
    for i in range(21):
        ring21[i, (i + 1) % 21] = ring21[(i + 1) % 21, i] = 1
    custom = ccb.topology_from_links(ring21, bisection_links=2)
    plt.close("all")
    with pytest.raises(ValueError, match=r"topologies\[1\] \(custom 21\).*n <= 20"):
        ccb.draw_topology_grid([ccb.ring(4), custom], cuts=True)
    assert not plt.get_fignums()  # refused before a figure was made


def test_custom_topologies_that_compare_equal_are_drawn_with_their_own_links():
    # Two 4-cycles with the same name, n, degree, diameter and cut (so a == b as dataclasses):
    # 0-1-2-3-0 and 0-1-3-2-0. The drawing cache must not hand the second one the first's links.
    a = ccb.topology_from_links([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]])
    b = ccb.topology_from_links([[0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]])
    assert a == b
    drawn = []
    for t in (a, b):
        ax = ccb.draw_topology(t)
        pos = {tuple(np.round(p, 9)): v for v, p in enumerate(ax.collections[2 + 1].get_offsets())}  # endpoints 0..3
        segments = ax.collections[0].get_segments()
        drawn.append(sorted(tuple(sorted(pos[tuple(np.round(p, 9))] for p in seg)) for seg in segments))
        plt.close(ax.figure)
    assert drawn == [[(0, 1), (0, 3), (1, 2), (2, 3)], [(0, 1), (0, 2), (1, 3), (2, 3)]]


def test_draw_topology_root_out_of_range():
    with pytest.raises(ValueError, match="root"):
        ccb.draw_topology(ccb.ring(4), root=99)


def test_switched_topology_title_says_one_round():
    ax = ccb.draw_topology(ccb.fat_tree(16))
    assert "D = 1 轮" in ax.get_title() and "4 跳" in ax.get_title()
    plt.close(ax.figure)


BAD = [
    (ccb.plot_info_steps, {"ks": "12"}, TypeError, "ks"),
    (ccb.plot_info_steps, {"ks": (1, 2, 3, 4, 5, 6)}, ValueError, "ks"),
    (ccb.plot_info_steps, {"ks": (0,)}, ValueError, "ks[0]"),
    (ccb.plot_info_steps, {"n_max": 1}, ValueError, "n_max"),
    (ccb.plot_info_steps, {"n_max": 2**70}, ValueError, "n_max"),
    (ccb.plot_info_steps, {"all_port": "no"}, TypeError, "all_port"),
    (ccb.plot_info_steps, {"ax": "left"}, TypeError, "ax"),
    (ccb.draw_knomial_tree, {"n": 0}, ValueError, "n"),
    (ccb.draw_knomial_tree, {"n": 300}, ValueError, "n"),
    (ccb.draw_knomial_tree, {"n": 8, "k": 0}, ValueError, "k"),
    (ccb.draw_topology, {"topology": "ring"}, TypeError, "topology"),
    (ccb.draw_topology, {"topology": ccb.ring(8), "max_nodes": 0}, ValueError, "max_nodes"),
    (ccb.draw_topology, {"topology": ccb.ring(8), "root": -1}, ValueError, "root"),
    (ccb.draw_topology, {"topology": ccb.ring(8), "root": 1.0}, TypeError, "root"),
    (ccb.draw_topology, {"topology": ccb.ring(8), "side": {9}}, ValueError, "side"),
    (ccb.draw_topology, {"topology": ccb.ring(8), "side": "01"}, TypeError, "side"),
    (ccb.draw_topology_grid, {"topologies": []}, ValueError, "topologies"),
    (ccb.draw_topology_grid, {"topologies": [ccb.ring(4), "torus"]}, TypeError, "topologies[1]"),
    (ccb.draw_topology_grid, {"topologies": [ccb.ring(4)], "cuts": 1}, TypeError, "cuts"),
    (ccb.plot_diameters, {"families": ("ring", "dragonfly")}, ValueError, "families[1]"),
    (ccb.plot_diameters, {"families": "ring"}, TypeError, "families"),
    (ccb.plot_diameters, {"max_n": 10**9}, ValueError, "max_n"),
    (ccb.plot_regime_map, {"primitive": "all_reduse"}, ValueError, "primitive"),
    (ccb.plot_regime_map, {"preset_keys": ("b200",)}, ValueError, "preset_keys[0]"),
    (ccb.plot_regime_map, {"n_max": 2**30}, ValueError, "n_max"),
    (ccb.plot_regime_map, {"m_range": (2.0**20, 2.0**10)}, ValueError, "m_range"),
    (ccb.plot_regime_map, {"m_range": 1024}, TypeError, "m_range"),
    (ccb.plot_regime_map, {"axes": [1, 2, 3]}, TypeError, "axes[0]"),
    (ccb.plot_best_algorithm_map, {"alpha": -1.0}, ValueError, "alpha"),
    (ccb.plot_best_algorithm_map, {"beta": 0.0}, ValueError, "beta"),
    (ccb.plot_best_algorithm_map, {"ports": 0}, ValueError, "ports"),
    (ccb.plot_algorithm_times, {"n": 1}, ValueError, "n"),
    (ccb.plot_algorithm_times, {"efficiency": "yes"}, TypeError, "efficiency"),
    (ccb.plot_algorithm_times, {"m_range": (0.0, 1.0)}, ValueError, "m_range"),
    (ccb.plot_bisection_ratio, {"primitives": ()}, ValueError, "primitives"),
    (ccb.plot_bisection_ratio, {"max_n": 2**20}, ValueError, "max_n"),
    (ccb.plot_bisection_ratio, {"m": float("nan")}, ValueError, "m"),
    (ccb.plot_volume_coefficients, {"n_max": 1}, ValueError, "n_max"),
    (ccb.draw_schedule, {"schedule": "ring"}, TypeError, "schedule"),
    (
        ccb.draw_schedule,
        {"schedule": ccb.generate("ring", "all_gather", 4, 64), "max_messages": 0},
        ValueError,
        "max_messages",
    ),
    (ccb.draw_schedule, {"schedule": ccb.generate("ring", "all_gather", 4, 64), "title": 3}, TypeError, "title"),
]


@pytest.mark.parametrize("function, kwargs, error, name", BAD, ids=[f"{f.__name__}-{n}" for f, _, _, n in BAD])
def test_bad_arguments_name_the_parameter(function, kwargs, error, name):
    before = plt.get_fignums()
    with pytest.raises(error) as info:
        function(**kwargs)
    assert name in str(info.value)
    assert plt.get_fignums() == before  # refused before any figure was made


def test_draw_schedule_refuses_too_many_messages_before_drawing():
    schedule = ccb.generate("pairwise", "all_to_all", 16, 16 * 64)  # 15 rounds x 16 messages
    with pytest.raises(ValueError, match="max_messages=100"):
        ccb.draw_schedule(schedule, max_messages=100)


def test_inline_png_is_twice_the_css_width():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1])
    data, metadata = _figure_png_2x(fig)
    width = Image.open(io.BytesIO(base64.b64decode(data))).size[0]
    assert width == 2 * metadata["width"]
    # No height (phones keep the aspect); the phone rendering, where there is one, is a 2x PNG too.
    assert set(metadata) <= {"width", "ccb_phone", "ccb_alt"}
    assert metadata["ccb_alt"].startswith("图")  # the site's <img alt> (#43)
    if "ccb_phone" in metadata:
        phone = Image.open(io.BytesIO(base64.b64decode(metadata["ccb_phone"]["image/png"]))).size[0]
        assert phone == 2 * metadata["ccb_phone"]["width"] and set(metadata["ccb_phone"]) == {"image/png", "width"}
    plt.close(fig)


def test_the_best_algorithm_map_evaluates_every_power_of_two():
    # #38 review: chapter 4 points at the map's stripes where RHD ties Bruck at N = 2^m; the log grid
    # of 140 points skipped 64, 128, 256 and 512 below 1024, so those stripes were missing.
    import matplotlib.pyplot as plt

    from ccb_helpers.plotting.algorithms import _map_node_counts

    ns = _map_node_counts(1024).tolist()
    assert all(2**e in ns for e in range(1, 11)) and ns[0] == 2 and ns[-1] == 1024 and ns == sorted(set(ns))
    ns = _map_node_counts(100).tolist()
    assert [n for n in ns if n & (n - 1) == 0] == [2, 4, 8, 16, 32, 64] and ns[-1] == 100
    # At N = 64 the map's column holds RHD above the small sizes (same rounds and bytes as Bruck,
    # listed first): 2 log2 64 = 12 rounds and 2 * 63/64 M against Bruck's identical pair.
    ax = ccb.plot_best_algorithm_map(n_max=1024, alpha=1.5e-6, beta=25e9)
    labels = [h.get_label() for h in ax.get_legend().legend_handles]
    assert "Recursive halving-doubling" in labels
    plt.close(ax.figure)
