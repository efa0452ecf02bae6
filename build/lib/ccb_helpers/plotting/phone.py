"""A phone-width rendering of a book figure: its panels stacked in one column, its text at full size.

A figure of the book is drawn for the desktop column (688 CSS px, two panels side by side). On a
390 px phone the column is 358 px: shrunk to it, the figure's 7.5-pt text is 5-6 CSS px. So every
figure the notebooks display is also rendered a second time for a phone (:func:`phone_layout`,
called by the book's PNG formatter in :mod:`.style`): the same figure — same artists, same data,
nothing recomputed — with its panels laid out one under the other for the time of the rendering,
each the full phone width, every text at its own point size. The site serves it in a ``<picture>`` to
screens too narrow for the desktop figure (``ccb_helpers.sphinxext``).

Both renderings record the smallest text they draw (:func:`smallest_text_pt`) in the PNG, so a
test can measure the CSS size of every figure's text on the built page.
"""

from __future__ import annotations

import contextlib
import io
import zlib

from .._validation import check_real
from .page import BOOK_WIDTH

#: Width of the phone rendering in inches (350 CSS px: inside the 358 px column of a 390 px phone,
#: and shrunk to a 360 px phone's 328 px column its 7.5-pt text is still 9.8 CSS px).
PHONE_WIDTH = 3.5
#: A phone panel is at least this tall (inches), or as tall as on the desktop if that is less:
#: its title, tick labels and axis label take the same room as there.
MIN_PANEL_HEIGHT = 2.9
#: How much wider than ``width`` (inches) a phone PNG may come out before it is laid out again
#: narrower: 8 CSS px, so 358 px at most, the column of a 390 px phone.
SLACK = 0.08
#: More panels than this are not re-laid out (the book's largest figure has 6).
MAX_PANELS = 16
#: PNG text key holding the smallest text size of the figure, in points.
TEXT_KEY = "ccb:smallest-text-pt"


def _check_figure(figure):
    from matplotlib.figure import Figure

    if not isinstance(figure, Figure):
        raise TypeError(f"figure must be a matplotlib Figure, got {type(figure).__name__}")
    return figure


def smallest_text_pt(figure) -> float | None:
    """The smallest font size (points) of any visible, non-empty text of ``figure``; None if it has none.

    Tick labels, titles, axis labels, legend entries, annotations and figure texts all count.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_title("title", fontsize=12)
    >>> _ = ax.text(0.5, 0.5, "small", fontsize=6.5)
    >>> smallest_text_pt(fig)
    6.5
    >>> plt.close(fig)
    """
    figure = _check_figure(figure)
    figure.canvas.draw()  # tick labels get their text only when the figure is drawn
    return _smallest_drawn(figure)


def _smallest_drawn(figure) -> float | None:
    """:func:`smallest_text_pt` of a figure just drawn (no drawing of its own)."""
    sizes = [float(text.get_fontsize()) for text in _visible_texts(figure) if text.get_text().strip()]
    return min(sizes) if sizes else None


def _visible_texts(artist):
    """Every Text under ``artist`` that is drawn: a hidden axes, axis or legend hides its texts."""
    from matplotlib.text import Text

    if not artist.get_visible():
        return
    if isinstance(artist, Text):
        yield artist
    for child in artist.get_children():
        yield from _visible_texts(child)


def _panels(figure) -> tuple[list, list]:
    """The figure's grid panels in reading order (row by row), and its empty spare cells."""
    panels, spares = [], []
    for ax in figure.axes:
        spec = ax.get_subplotspec()
        if spec is None or not ax.get_visible():
            continue
        if not ax.axison and ax.get_legend() is None and not ax.has_data() and not ax.texts:
            spares.append(ax)  # a spare cell of the grid: nothing to show on a phone either
        else:
            panels.append(ax)
    order = sorted(panels, key=lambda ax: (ax.get_subplotspec().rowspan.start, ax.get_subplotspec().colspan.start))
    return order, spares


def _legends(figure) -> list:
    return [*figure.legends, *(ax.get_legend() for ax in figure.axes if ax.get_legend() is not None)]


def _outside(legend, renderer) -> bool:
    """Whether a legend is the figure's or stands mostly outside its axes (beside the plot)."""
    if legend.axes is None:
        return True
    box, area = legend.get_window_extent(renderer), legend.axes.get_window_extent(renderer)
    inside = max(0.0, min(box.x1, area.x1) - max(box.x0, area.x0)) * max(
        0.0, min(box.y1, area.y1) - max(box.y0, area.y0)
    )
    return inside < 0.5 * box.width * box.height


def _set_columns(legend, ncols: int) -> None:
    """Lay the legend's entries out again in ``ncols`` columns (``set_ncols`` alone keeps the old box)."""
    handles, labels = list(legend.legend_handles), [t.get_text() for t in legend.texts]
    legend._ncols = ncols
    legend._init_legend_box(handles, labels, markerfirst=True)  # the book's legends: marker first (the default)
    legend._loc = legend._loc  # (a property) places the new box where the old one was


def _fit_columns(legend, renderer, limit_px: float) -> None:
    while legend._ncols > 1 and legend.get_window_extent(renderer).width > limit_px:
        _set_columns(legend, legend._ncols - 1)


_BREAK_AFTER = "，、；：。！？）」』》,;:!?)] "
_BREAK_BEFORE = "（「『《(["
_NO_LINE_START = "，、；：。！？）」』》,;:!?)]…"  # Chinese line-breaking rules: never at the start of a line


def _break_points(line: str) -> tuple[list[int], list[int]]:
    """Where ``line`` may break: (good places: at spaces and punctuation, any place between CJK characters)."""
    good, anywhere, in_math = [], [], False
    for i in range(1, len(line)):
        in_math ^= line[i - 1] == "$"
        if in_math:
            continue
        before, after = line[i - 1], line[i]
        if before in _BREAK_AFTER or after in _BREAK_BEFORE:
            good.append(i)
        elif (
            (ord(before) > 0x2E80 or ord(after) > 0x2E80)
            and after not in _NO_LINE_START
            and before not in _BREAK_BEFORE
        ):
            anywhere.append(i)
    return good, sorted(good + anywhere)


def _wrap(text, renderer, limit_px: float) -> None:
    """Break a text wider than ``limit_px`` into lines that fit, at punctuation where it can."""
    if not text.get_text().strip() or text.get_window_extent(renderer).width <= limit_px:
        return
    lines = []
    for line in text.get_text().split("\n"):
        while line:
            good, anywhere = _break_points(line)
            fits = []
            for i in anywhere:
                text.set_text(line[:i].rstrip())
                if text.get_window_extent(renderer).width > limit_px:
                    break
                fits.append(i)
            if not fits:
                lines.append(line)
                break
            best = max([i for i in good if i in fits] or [0])
            cut = best if best >= 0.6 * fits[-1] else fits[-1]
            text.set_text(line)
            if text.get_window_extent(renderer).width <= limit_px:
                lines.append(line)
                break
            lines.append(line[:cut].rstrip())
            line = line[cut:].lstrip()
    text.set_text("\n".join(lines))


def _titles(figure) -> list:
    titles = [figure._suptitle] if getattr(figure, "_suptitle", None) is not None else []
    for ax in figure.axes:
        titles += [ax.title, ax._left_title, ax._right_title]
    return titles


def _lay_out(figure, panels, spares, width: float, panel_height: float) -> None:
    from matplotlib.gridspec import GridSpec
    from matplotlib.text import Text

    figure.canvas.draw()  # legends find their place when drawn
    renderer = figure.canvas.get_renderer()
    moved = [lg for lg in _legends(figure) if _outside(lg, renderer)]  # measured in the desktop layout
    figure.set_layout_engine("none")

    def grid_of(heights):  # one column; spare cells keep a hidden, flat row each (a tight layout
        # needs every axes in a cell of one grid)
        figure.set_size_inches(width, sum(heights))
        return GridSpec(len(heights) + len(spares), 1, figure=figure, height_ratios=[*heights, *[1e-3] * len(spares)])

    grid = grid_of([panel_height] * len(panels))
    for i, ax in enumerate([*panels, *spares]):
        ax.set_subplotspec(grid[i])
    for ax in spares:
        ax.set_visible(False)
    limit = 0.97 * width * figure.dpi
    for title in _titles(figure):
        _wrap(title, renderer, limit)
    for legend in _legends(figure):
        _fit_columns(legend, renderer, limit)
    if len(panels) == 1:  # a legend filling much of a phone-sized plot hides its data: under it instead
        figure.canvas.draw()
        for legend in _legends(figure):
            if legend not in moved and legend.axes is not None:
                box, area = legend.get_window_extent(renderer), legend.axes.get_window_extent(renderer)
                if box.width * box.height > 0.25 * area.width * area.height:
                    moved.append(legend)
    # Beside the plot there is no room: a moved legend gets a row of its own under its panel (a
    # legend of the whole figure, under all panels), as tall as it is.
    rows = []  # (height in inches, the panel or legend of the row)
    for ax in panels:
        rows.append((panel_height, ax))
        rows += [(lg.get_window_extent(renderer).height / figure.dpi, lg) for lg in moved if lg.axes is ax]
    rows += [(lg.get_window_extent(renderer).height / figure.dpi, lg) for lg in moved if lg.axes not in panels]
    for text in _figure_texts(figure):  # a note of the whole figure (placed in figure coordinates): under it all
        _wrap(text, renderer, limit)
        rows.append((text.get_window_extent(renderer).height / figure.dpi + 0.05, text))
        moved.append(text)
    for item in moved:
        item.set_visible(False)  # laid out by hand below, not by tight_layout
    heights = [h for h, _ in rows]
    for _ in range(2):  # the gaps tight_layout puts between rows come out of the rows' heights: add them back
        grid = grid_of(heights)
        for i, (_, item) in enumerate(rows):
            if item in panels:
                item.set_subplotspec(grid[i])
        for i, ax in enumerate(spares):
            ax.set_subplotspec(grid[len(rows) + i])
        figure.tight_layout(h_pad=1.2)
        tall = figure.get_size_inches()[1]
        short = [
            max(0.0, h - grid[i].get_position(figure).height * tall)
            for i, (h, item) in enumerate(rows)
            if item in moved
        ]
        if sum(short) < 0.02:
            break
        heights = [
            h
            + (h - grid[i].get_position(figure).height * tall if item in moved else 0.0) * 1.1
            + 0.02 * (item in moved)
            for i, (h, item) in enumerate(rows)
        ]
    for i, (_, item) in enumerate(rows):
        if item not in moved:
            continue
        item.set_visible(True)
        top = grid[i].get_position(figure).y1
        if isinstance(item, Text):
            item.set_transform(figure.transFigure)
            item.set_position((0.5, top))
            item.set_horizontalalignment("center")
            item.set_verticalalignment("top")
        else:
            item._loc = 9  # "upper center" (set_loc refuses an axes legend's figure anchor)
            item.set_bbox_to_anchor((0.5, top), transform=figure.transFigure)


def _figure_texts(figure) -> list:
    """The figure's own visible texts (notes placed in figure coordinates), not its suptitle."""
    suptitle = getattr(figure, "_suptitle", None)
    return [t for t in figure.texts if t is not suptitle and t.get_visible() and t.get_text().strip()]


@contextlib.contextmanager
def phone_layout(figure, width=PHONE_WIDTH):
    """Lay ``figure`` out for a phone inside a ``with`` block: panels stacked, ``width`` inches wide.

    The same artists and data, nothing recomputed, every text at its own size: the figure's grid
    panels are put one under the other in reading order, each ``width`` wide and as tall as its
    desktop panel scaled to that width (at least :data:`MIN_PANEL_HEIGHT`, or the desktop height
    if less); a legend beside its panel goes under it (one of the whole figure, and a note placed
    in figure coordinates, under all panels),
    a legend wider than the figure gets fewer columns, a long title is broken into lines (at
    punctuation where it can), empty spare cells of the grid are hidden. On leaving the block the figure
    is laid out as before (size, layout engine, margins, grid cells, positions, legends).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The desktop figure.
    width : float
        Width of the phone figure in inches, from 2 to ``BOOK_WIDTH`` (6.88).

    Yields
    ------
    bool
        Whether the figure was re-laid out (False: it has no grid panel and is left as it is).

    Raises
    ------
    TypeError
        If ``figure`` is not a Figure or ``width`` not a number.
    ValueError
        If ``width`` is outside [2, 6.88] or the figure has more than :data:`MAX_PANELS` axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, (left, right) = plt.subplots(1, 2, figsize=(6.88, 3.4))
    >>> with phone_layout(fig) as stacked:
    ...     size = [round(float(v), 2) for v in fig.get_size_inches()]
    ...     above = bool(left.get_position().y0 > right.get_position().y1)
    >>> stacked, size, above  # the left panel above the right one, each 3.5 in wide, 3.4 x 3.5 / 3.44 tall
    (True, [3.5, 6.92], True)
    >>> [round(float(v), 2) for v in fig.get_size_inches()]  # and back
    [6.88, 3.4]
    >>> plt.close(fig)
    """
    figure = _check_figure(figure)
    width = check_real("width", width, minimum=2.0, maximum=BOOK_WIDTH, scalar=True)
    if len(figure.axes) > MAX_PANELS:
        raise ValueError(f"figure may have at most {MAX_PANELS} axes to be re-laid out, got {len(figure.axes)}")
    panels, spares = _panels(figure)
    if not panels:
        yield False
        return
    pars = figure.subplotpars
    saved = {
        "size": tuple(figure.get_size_inches()),
        "engine": figure.get_layout_engine(),
        "pars": {k: getattr(pars, k) for k in ("left", "right", "bottom", "top", "wspace", "hspace")},
        "axes": [
            (ax, ax.get_subplotspec(), ax.get_position(original=True), ax.get_position(), ax.get_visible())
            for ax in figure.axes
        ],
        "legends": [(lg, lg._loc, lg._bbox_to_anchor, lg._ncols, lg.get_visible()) for lg in _legends(figure)],
        "titles": [(t, t.get_text()) for t in _titles(figure)],
        "texts": [
            (t, t.get_text(), t.get_position(), t.get_transform(), t.get_ha(), t.get_va())
            for t in _figure_texts(figure)
        ],
    }
    desk_w, desk_h = saved["size"]
    rows, cols = panels[0].get_subplotspec().get_gridspec().get_geometry()
    cell_w, cell_h = desk_w / cols, desk_h / rows
    panel_height = max(cell_h * width / cell_w, min(cell_h, MIN_PANEL_HEIGHT))
    try:
        _lay_out(figure, panels, spares, width, panel_height)
        yield True
    finally:
        figure.set_layout_engine("none")
        figure.set_size_inches(*saved["size"])
        figure.subplotpars.update(**saved["pars"])
        for ax, spec, original, active, visible in saved["axes"]:
            if spec is not None:
                ax.set_subplotspec(spec)
            ax._set_position(original, which="original")
            ax._set_position(active, which="active")
            ax.set_visible(visible)
        for legend, loc, anchor, ncols, visible in saved["legends"]:
            legend._loc, legend._bbox_to_anchor = loc, anchor
            if legend._ncols != ncols:
                _set_columns(legend, ncols)
            legend.set_visible(visible)
        for title, text in saved["titles"]:
            title.set_text(text)
        for note, text, position, transform, ha, va in saved["texts"]:
            note.set_text(text)
            note.set_transform(transform)
            note.set_position(position)
            note.set_horizontalalignment(ha)
            note.set_verticalalignment(va)
            note.set_visible(True)
        figure.set_layout_engine(saved["engine"])


def with_text_size(data: bytes, figure) -> bytes:
    """The PNG ``data`` of ``figure``, just rendered, with its smallest text size in a ``tEXt`` chunk.

    The chunk (key :data:`TEXT_KEY`, value in points) goes right after the PNG header; the figure
    is not drawn again (its tick labels have the text of the rendering).
    """
    figure = _check_figure(figure)
    png_width(data)  # checks that it is a PNG
    smallest = _smallest_drawn(figure)
    if smallest is None:
        return bytes(data)
    body = TEXT_KEY.encode("latin-1") + b"\0" + f"{smallest:g}".encode("ascii")
    chunk = len(body).to_bytes(4, "big") + b"tEXt" + body + zlib.crc32(b"tEXt" + body).to_bytes(4, "big")
    end_of_header = 8 + 25  # signature, then IHDR: length, type, 13 bytes, CRC
    return bytes(data[:end_of_header]) + chunk + bytes(data[end_of_header:])


def text_size_of_png(data: bytes) -> float | None:
    """The smallest text size (points) a PNG made by :func:`with_text_size` records; None if none.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import io, matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_xlabel("x", fontsize=7.5); _ = ax.tick_params(labelsize=11)
    >>> buffer = io.BytesIO(); fig.savefig(buffer, format="png")
    >>> text_size_of_png(with_text_size(buffer.getvalue(), fig))
    7.5
    >>> plt.close(fig)
    """
    png_width(data)
    at = 8
    while at + 8 <= len(data):
        length, kind = int.from_bytes(data[at : at + 4], "big"), data[at + 4 : at + 8]
        if kind == b"tEXt":
            key, _, value = data[at + 8 : at + 8 + length].partition(b"\0")
            if key == TEXT_KEY.encode("latin-1"):
                return float(value)
        if kind == b"IDAT":
            return None  # text chunks of ours come before the image data
        at += 12 + length
    return None


def _png(figure, dpi: float) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", facecolor="white")
    return with_text_size(buffer.getvalue(), figure)


def png_width(data: bytes) -> int:
    """Pixel width of a PNG (its IHDR chunk)."""
    if not isinstance(data, (bytes, bytearray)) or data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 24:
        raise ValueError("data must be the bytes of a PNG")
    return int.from_bytes(data[16:20], "big")


def phone_png(figure, width=PHONE_WIDTH, tries: int = 3) -> tuple[bytes, int] | None:
    """The phone rendering of ``figure`` (:func:`phone_layout`) as a 2x PNG and its CSS width, or None.

    The PNG is cropped to what is drawn, as the desktop one is; if text reaching past the axes
    makes it wider than ``width``, the figure is laid out again that much narrower (``tries`` times).
    None: the figure has no grid panel.
    """
    figure = _check_figure(figure)
    width = check_real("width", width, minimum=2.0, maximum=BOOK_WIDTH, scalar=True)
    target, data = width, None
    for _ in range(max(1, int(tries))):
        with phone_layout(figure, target) as stacked:
            if not stacked:
                return None
            data = _png(figure, 2 * figure.dpi)
        excess = png_width(data) / (2 * figure.dpi) - width
        if excess <= SLACK or target - excess < 2.0:
            break
        target = max(2.0, target - excess - 0.02)
    return data, png_width(data) // 2
