"""One figure style for the whole book, with a CJK font so Chinese labels render.

The font is Noto Sans SC from the ``pylopdf-fonts-zh-cn`` wheel (on PyPI, a dependency) when it is
installed, else ``cvttf-notosanscjk-regular``'s TC face or a system CJK font (e.g. Debian's fonts-noto-cjk).

Readability rules (the page column is 688 CSS px wide at 1280 px; a figure inch is 100 CSS px):

* figures are at most :data:`BOOK_WIDTH` inches wide, so they are shown at their natural size
  and no text is shrunk; no text is smaller than 8 pt (11 CSS px);
* at most two panels side by side (:func:`plot_regime_map` and :func:`draw_topology_grid` wrap
  to a second row);
* PNGs at twice the resolution (retina): :func:`use_book_style` makes Jupyter's inline backend
  emit 2x PNGs with their CSS width as metadata, and ``savefig`` uses 200 dpi.

Every public function validates its arguments (``ValueError`` / ``TypeError`` naming the
parameter) and refuses work above a documented cap before starting it.

One module per concept (the package re-exports every name, so ``ccb_helpers.plotting.X`` works
as before): :mod:`.style` (column width, colours, font, :func:`use_book_style`), :mod:`.phone` (every
figure's phone rendering: panels stacked, 350 CSS px, text at full size, served by the site in a
``<picture>``), :mod:`.schedule`,
:mod:`.propagation` (chapter 1), :mod:`.topology` (drawings of graphs and cuts), :mod:`.diameter`
(chapter 2), :mod:`.bandwidth` (chapter 3), :mod:`.algorithms` (chapter 4), :mod:`.bisection`
(chapter 5), :mod:`.synthesis` (chapter 7); :mod:`._checks` holds the argument checks they share.
"""

from __future__ import annotations

from ._checks import (
    _check_ax,
    _check_axes_list,
    _check_bool,
    _check_m_range,
    _check_names,
    _format_rate,
    _new_axes,
)
from .algorithms import plot_algorithm_times, plot_best_algorithm_map, plot_regime_map
from .bandwidth import plot_volume_coefficients
from .bisection import plot_bisection_ratio
from .diameter import plot_diameters
from .propagation import (
    _knomial_geometry,
    _KnomialTreeArtists,
    draw_knomial_tree,
    plot_info_steps,
)
from .schedule import draw_schedule
from .style import (
    _SYSTEM_CJK,
    BOOK_WIDTH,
    COLORS,
    FAMILY_COLORS,
    SMALL,
    _enable_retina_inline,
    _figure_png_2x,
    cjk_font_name,
    use_book_style,
)
from .synthesis import draw_synthesized_step, plot_schedule_steps, plot_synthesis_plane
from .topology import (
    MAX_DRAWN_ELEMENTS,
    MAX_GRID_PANELS,
    _arc,
    _ByIdentity,
    _cached_geometry,
    _check_drawn_elements,
    _check_side,
    _check_topology,
    _graph_elements,
    _layout,
    _topology_geometry,
    _TopologyArtists,
    draw_topology,
    draw_topology_grid,
)
from .tradeoff import plot_tradeoff
from .two_level import plot_two_level_map

__all__ = [
    "cjk_font_name",
    "use_book_style",
    "COLORS",
    "FAMILY_COLORS",
    "BOOK_WIDTH",
    "draw_schedule",
    "plot_info_steps",
    "draw_knomial_tree",
    "draw_topology",
    "draw_topology_grid",
    "plot_diameters",
    "plot_regime_map",
    "plot_best_algorithm_map",
    "plot_algorithm_times",
    "plot_bisection_ratio",
    "plot_volume_coefficients",
    "plot_tradeoff",
    "plot_two_level_map",
]
