"""The catalogue: every algorithm's cost models by primitive (``ALGORITHMS``) and its label.

Adding an algorithm: write its ``terms`` functions and its ``{primitive: _Model}`` dict in a
module of this package (one module per family), add one entry below (and its label), and one
entry for its schedule in :data:`ccb_helpers.generators.registry.GENERATORS`. The order of the
entries is the order of ties: :func:`ccb_helpers.best_algorithm` keeps the one listed first.
"""

from __future__ import annotations

from .._validation import check_choice
from ..primitives import check_primitive
from .bruck import BRUCK
from .core import _Model
from .double_tree import DOUBLE_BINARY_TREE
from .hierarchical import HIERARCHICAL_RING, TWO_LEVEL_TREE
from .pairwise import PAIRWISE
from .pat import PAT
from .pipelined import PIPELINED_BINARY_TREE, PIPELINED_CHAIN
from .recursive import RECURSIVE_DOUBLING, RECURSIVE_HALVING_DOUBLING, RECURSIVE_HALVING_DOUBLING_2PORT
from .ring import BIDIRECTIONAL_RING, RING
from .swing import SWING
from .trees import BINOMIAL_TREE, SCATTER_ALLGATHER

ALGORITHMS: dict[str, dict[str, _Model]] = {
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

ALGORITHM_LABELS = {
    "ring": "Ring",
    "bidirectional_ring": "Bidirectional ring",
    "binomial_tree": "Binomial tree",
    "double_binary_tree": "Double binary tree",
    "recursive_halving_doubling": "Recursive halving-doubling",
    "recursive_halving_doubling_2port": "RHD, two halves (2-port)",
    "recursive_doubling": "Recursive doubling",
    "bruck": "Bruck",
    "pairwise": "Pairwise exchange",
    "scatter_allgather": "Scatter + AllGather",
    "pipelined_chain": "Pipelined chain",
    "pipelined_binary_tree": "Pipelined binary tree",
    "swing": "Swing",
    "pat": "PAT (NCCL)",
    "hierarchical_ring": "Hierarchical ring",
    "two_level_tree": "Two-level tree",
}


def _model(algorithm, primitive) -> _Model:
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    primitive = check_primitive(primitive)
    models = ALGORITHMS[algorithm]
    if primitive not in models:
        raise ValueError(
            f"algorithm {algorithm!r} does not implement primitive {primitive!r}; "
            f"it implements: {', '.join(map(repr, models))}"
        )
    return models[primitive]
