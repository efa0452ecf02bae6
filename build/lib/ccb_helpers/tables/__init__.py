"""Tables the chapters show, computed from the helpers (never typed).

A :class:`Table` renders as Markdown in Jupyter and on the book's pages (so ``$...$`` math in
headers works) and as aligned text elsewhere.

One module per chapter's concept (the package re-exports every name, so
``ccb_helpers.tables.X`` works as before): :mod:`.table` (the :class:`Table` itself, no other
import, so any module may use it), :mod:`.propagation` (chapter 1), :mod:`.diameter` (chapter 2),
:mod:`.bandwidth` (chapter 3), :mod:`.algorithms` and :mod:`.catalogue` (chapter 4), :mod:`.bisection` (chapter 5), :mod:`.synthesis` (chapter 7);
:mod:`._common` holds the argument checks they share.
"""

from __future__ import annotations

from ._common import (
    MAX_ROWS,
    _choices,
    _ints,
    _percent,
    _preset,
    _ratio,
    _simulate,
    _simulations,
    _topologies,
)
from .algorithms import (
    _VERDICTS,
    algorithm_comparison_table,
    efficiency_table,
    simulated_vs_bound_table,
    tree_ring_crossover_table,
)
from .bandwidth import (
    _bound_latex,
    _verdict,
    bandwidth_attainment_table,
    bandwidth_table,
    bandwidth_table_2port,
    busbw_table,
    in_network_table,
)
from .bisection import (
    _TIGHTER,
    _short_name,
    bisection_comparison_table,
    bisection_width_table,
    oversubscription_table,
    source_bisection_table,
    source_node_bound_table,
)
from .catalogue import computation_table, fat_tree_allreduce_table, non_power_of_two_table, pipelined_rooted_table
from .diameter import (
    RING_GOSSIP_MAX_SEARCHES,
    diameter_table,
    first_diameter_bound_table,
    kport_ring_table,
    ring_diameter_table,
    ring_gossip_table,
)
from .propagation import (
    broadcast_attainment_table,
    exhaustive_broadcast_table,
    info_propagation_table,
    preset_steps_table,
)
from .synthesis import attainment_table, synthesis_bounds_table
from .table import Table

__all__ = [
    "Table",
    "info_propagation_table",
    "preset_steps_table",
    "broadcast_attainment_table",
    "exhaustive_broadcast_table",
]
