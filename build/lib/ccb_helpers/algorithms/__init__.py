"""α-β cost models of the algorithms the chapters compare.

Every model is written as *rounds* and *bandwidth bytes*: the algorithm runs ``steps``
rounds and a round costs ``alpha`` plus its largest message over ``beta`` (ports work in
parallel, so a round with a message on each of two links costs one message time). The
bandwidth bytes are the sum over rounds of the largest message, and the time is

.. math:: T = \\text{steps} \\cdot \\alpha + \\frac{\\text{bandwidth bytes}}{\\beta}.

The bandwidth coefficient is ``bandwidth bytes / M``. Sources: MPICH's cost comments and
Thakur, Rabenseifner & Gropp (2005) for ring, binomial, recursive doubling / halving-doubling
(Rabenseifner 2004), Bruck et al. (1997) for Bruck, Sanders, Speck & Träff (2009) and NCCL
(Jeaugey 2019) for the double binary tree. ``tests/test_simulate.py`` runs each algorithm's
schedule and checks these numbers.

The package holds one module per concept: :mod:`.core` (``Cost``, the model record),
one module per algorithm family (:mod:`.ring`, :mod:`.trees`, :mod:`.double_tree`,
:mod:`.recursive`, :mod:`.bruck`, :mod:`.pairwise`), :mod:`.registry` (``ALGORITHMS``, the
catalogue), :mod:`.evaluate` (``algorithm_terms``, ``algorithm_cost``, applicability) and
:mod:`.best` (``best_algorithm``, ``efficiency``). Import from here:
``from ccb_helpers.algorithms import ALGORITHMS, algorithm_cost``.
"""

from __future__ import annotations

from .best import BEST_ALGORITHM_MAX_BYTES, _best_algorithm, _best_memory, best_algorithm, efficiency
from .core import MAX_CHUNKS, MAX_NODES, Cost, _Model, tree_height
from .double_tree import DBT_ONE_PORT_MAX_N, _dbt_one_port_rounds, _optimal_chunks, optimal_chunks
from .evaluate import (
    _applicable,
    _check_applicable,
    _check_model_args,
    _cost,
    _evaluate,
    _raw_terms,
    _terms,
    algorithm_cost,
    algorithm_terms,
    applicable_algorithms,
    pipelined_algorithms,
)
from .hierarchical import hierarchical_terms, two_level_algorithm_time
from .pat import pat_aggregation
from .pipelined import one_port_tree_depth, optimal_segments, pipeline_constants
from .registry import ALGORITHM_LABELS, ALGORITHMS, _model
from .swing import swing_terms

__all__ = [
    "ALGORITHMS",
    "ALGORITHM_LABELS",
    "Cost",
    "algorithm_terms",
    "algorithm_cost",
    "applicable_algorithms",
    "best_algorithm",
    "efficiency",
    "optimal_chunks",
    "tree_height",
    "DBT_ONE_PORT_MAX_N",
    "pipelined_algorithms",
    "optimal_segments",
    "pipeline_constants",
    "one_port_tree_depth",
    "hierarchical_terms",
    "two_level_algorithm_time",
    "pat_aggregation",
    "swing_terms",
]
