"""The phone rendering of the book's figures (ccb_helpers.plotting.phone) and its <picture> (ccb_helpers.phone_pictures)."""

from __future__ import annotations

import base64
import hashlib
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import ccb_helpers as ccb  # noqa: E402
from ccb_helpers.phone_pictures import media_query, phone_renderings  # noqa: E402
from ccb_helpers.plotting.phone import (  # noqa: E402
    PHONE_WIDTH,
    phone_layout,
    phone_png,
    png_width,
    smallest_text_pt,
    text_size_of_png,
    with_text_size,
)
from ccb_helpers.plotting.style import _figure_png_2x  # noqa: E402


def _desktop_png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=200, bbox_inches="tight")
    return buffer.getvalue()


@pytest.fixture
def grid():
    axes = ccb.draw_topology_grid([ccb.ring(8), ccb.torus(3, 3), ccb.hypercube(3)])  # 2 x 2 grid, one spare
    yield axes[0].figure
    plt.close(axes[0].figure)


def test_panels_are_stacked_in_reading_order_at_the_phone_width(grid):
    ring_ax, torus_ax, cube_ax = grid.axes[:3]
    with phone_layout(grid) as stacked:
        assert stacked
        width, height = grid.get_size_inches()
        assert width == pytest.approx(PHONE_WIDTH)
        # desktop cells are 6.88/2 x 7.0/2 in; scaled to 3.5 in wide, three of them: 3 x 3.5 x 3.5 / 3.44
        assert height == pytest.approx(3 * 3.5 * 3.5 / 3.44)
        boxes = [ax.get_position() for ax in (ring_ax, torus_ax, cube_ax)]
        assert boxes[0].y0 > boxes[1].y1 and boxes[1].y0 > boxes[2].y1  # ring above torus above hypercube
        assert all(b.x0 < 0.5 < b.x1 for b in boxes)  # each across the middle: one column
        assert not grid.axes[3].get_visible()  # the spare cell is not shown


def test_the_desktop_figure_is_unchanged_after_its_phone_rendering(grid):
    before = _desktop_png(grid)
    assert phone_png(grid) is not None
    assert _desktop_png(grid) == before  # byte for byte: size, layout, legends, titles restored


def test_phone_png_fits_a_390px_phone_with_the_desktop_text_size():
    axes = ccb.plot_bisection_ratio(primitives=("all_reduce", "all_to_all"), families=("ring", "hypercube"), max_n=256)
    figure = axes[0].figure
    try:
        desktop = with_text_size(_desktop_png(figure), figure)
        data, css_width = phone_png(figure)
        assert css_width == png_width(data) // 2 <= 358  # the column of a 390 px phone (390 - 2 x 16)
        assert png_width(desktop) / 2 > 600  # the desktop figure would have been shrunk to 60 %
        assert text_size_of_png(data) == text_size_of_png(desktop) == smallest_text_pt(figure)
        # the figure legend (4 columns, 380 px at 9 pt) went under the panels in fewer columns
        assert figure.legends[0]._ncols == 2  # restored
    finally:
        plt.close(figure)


def test_smallest_text_size_is_recorded_in_the_png():
    figure, ax = plt.subplots()
    ax.set_title("t", fontsize=12)
    ax.set_xlabel("x", fontsize=8.25)
    ax.tick_params(labelsize=10)
    ax.text(0.5, 0.5, "hidden", fontsize=5, visible=False)  # not drawn: does not count
    try:
        data = with_text_size(_desktop_png(figure), figure)
        assert text_size_of_png(data) == 8.25
        assert text_size_of_png(_desktop_png(figure)) is None  # matplotlib's own PNG says nothing
    finally:
        plt.close(figure)


def test_the_png_formatter_stores_the_phone_rendering_with_the_figure(grid):
    png, metadata = _figure_png_2x(grid)
    phone = metadata["ccb_phone"]
    desktop = base64.b64decode(png)
    assert metadata["width"] == png_width(desktop) // 2
    assert phone["width"] == png_width(base64.b64decode(phone["image/png"])) // 2 <= 358
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "outputs": [
                    {"output_type": "display_data", "data": {"image/png": png}, "metadata": {"image/png": metadata}}
                ],
            }
        ]
    }
    key = hashlib.sha256(desktop).hexdigest()  # myst-nb names the written PNG so
    assert phone_renderings(notebook) == {key: (base64.b64decode(phone["image/png"]), metadata["width"])}


def test_media_query_switches_where_the_desktop_figure_stops_fitting():
    # the column is the viewport minus 2 x 16 px below 960 px: a 675 px figure fits from 707 px on
    assert media_query(675) == "(max-width: 706.98px)"
    with pytest.raises(TypeError, match="desktop_width"):
        media_query(675.0)
    with pytest.raises(ValueError, match="desktop_width"):
        media_query(0)


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="figure"):
        with phone_layout("not a figure"):
            pass
    figure = plt.figure()
    try:
        with pytest.raises(ValueError, match="width"):
            with phone_layout(figure, width=1.0):
                pass
        with phone_layout(figure) as stacked:  # no panel: left alone
            assert not stacked
        assert phone_png(figure) is None
    finally:
        plt.close(figure)
    with pytest.raises(ValueError, match="PNG"):
        png_width(b"GIF89a")
    with pytest.raises(TypeError, match="notebook"):
        phone_renderings([])
