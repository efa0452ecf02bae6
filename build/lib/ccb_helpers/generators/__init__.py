"""Schedule generators: every algorithm of :mod:`ccb_helpers.algorithms` as runnable rounds.

Each generator returns a :class:`~ccb_helpers.schedule.Schedule` whose rounds and per-node
bytes are exactly those of the algorithm's cost model (the tests run them for many ``n``).
Reductions are obtained from their copy duals by running the rounds backwards
(:meth:`Round.reversed`): a ReduceScatter is an AllGather in reverse, a Reduce a Broadcast in
reverse, a Gather a Scatter in reverse.

The package holds :mod:`.core` (caps, block layout, the registry's records), one module per
algorithm family (:mod:`.rings`, :mod:`.trees`, :mod:`.double_tree`, :mod:`.recursive`,
:mod:`.bruck`, :mod:`.pairwise`), :mod:`.registry` (``GENERATORS``, by algorithm name) and
:mod:`.dispatch` (``generate``: validation, caps, then the registry). Import from here:
``from ccb_helpers.generators import generate``.
"""

from __future__ import annotations

from .core import (
    BYTES_PER_GENERATED_TRANSFER,
    MAX_ROUNDS,
    MAX_TRANSFERS,
    MAX_TREE_NODES,
    Built,
    ScheduleGenerator,
    _generate_memory,
    _tree_memory,
)
from .dispatch import _check_generate, _generate, generate, schedule_size
from .double_tree import nccl_double_binary_tree
from .hierarchical import hierarchical_schedule
from .pat import pat_messages, pat_operations, pat_schedule, pat_terms
from .registry import GENERATORS
from .swing import halving_doubling_schedule, swing_peer, swing_rho, swing_schedule
from .trees import knomial_tree

__all__ = [
    "generate",
    "knomial_tree",
    "nccl_double_binary_tree",
    "hierarchical_schedule",
    "pat_messages",
    "pat_operations",
    "pat_schedule",
    "pat_terms",
    "halving_doubling_schedule",
    "swing_peer",
    "swing_rho",
    "swing_schedule",
]
