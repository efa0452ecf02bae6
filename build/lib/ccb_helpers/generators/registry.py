"""Every algorithm's schedule generator, by the names of :data:`ccb_helpers.ALGORITHMS`.

Adding an algorithm: its cost models go in :mod:`ccb_helpers.algorithms` (a module and one
entry of its registry), its rounds in a module of this package (a :class:`ScheduleGenerator`)
and one entry here under the same name. ``tests/test_simulate.py`` runs every (algorithm,
primitive) pair of the catalogue against its cost model, so the two registries stay in step.
"""

from __future__ import annotations

from .bruck import BRUCK
from .core import ScheduleGenerator
from .double_tree import DOUBLE_BINARY_TREE
from .hierarchical import HIERARCHICAL_RING, TWO_LEVEL_TREE
from .pairwise import PAIRWISE
from .pat import PAT
from .pipelined import PIPELINED_BINARY_TREE, PIPELINED_CHAIN
from .recursive import RECURSIVE_DOUBLING, RECURSIVE_HALVING_DOUBLING, RECURSIVE_HALVING_DOUBLING_2PORT
from .rings import BIDIRECTIONAL_RING, RING
from .swing import SWING
from .trees import BINOMIAL_TREE, SCATTER_ALLGATHER

GENERATORS: dict[str, ScheduleGenerator] = {
    "ring": RING,
    "bidirectional_ring": BIDIRECTIONAL_RING,
    "binomial_tree": BINOMIAL_TREE,
    "double_binary_tree": DOUBLE_BINARY_TREE,
    "recursive_halving_doubling": RECURSIVE_HALVING_DOUBLING,
    "recursive_halving_doubling_2port": RECURSIVE_HALVING_DOUBLING_2PORT,
    "recursive_doubling": RECURSIVE_DOUBLING,
    "bruck": BRUCK,
    "pairwise": PAIRWISE,
    "scatter_allgather": SCATTER_ALLGATHER,
    "pipelined_chain": PIPELINED_CHAIN,
    "pipelined_binary_tree": PIPELINED_BINARY_TREE,
    "swing": SWING,
    "pat": PAT,
    "hierarchical_ring": HIERARCHICAL_RING,
    "two_level_tree": TWO_LEVEL_TREE,
}
