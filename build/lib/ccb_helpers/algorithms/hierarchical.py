"""Hierarchical (two-level) AllReduce: cost models in the single-β model and the two-level model.

``"hierarchical_ring"`` and ``"two_level_tree"`` reduce-scatter inside each node (a ring over its
``G`` GPUs), AllReduce each shard between nodes over the "rail" of GPUs with the same local index
(a ring, or NCCL's double binary tree), and all-gather inside each node. The schedules are in
:mod:`ccb_helpers.generators.hierarchical`; ``ccb.simulate`` takes the node shape from a
``ccb.two_level(nodes, gpus_per_node)`` topology. Without one (any other topology, or none) there
is one GPU per node and only the inter-node part is left: a ring AllReduce, and an unpipelined
double binary tree — that is what :data:`ccb_helpers.ALGORITHMS` models (``topology="two_level"``
keeps them out of the flat selector, where they would only tie with ``ring`` and
``double_binary_tree``).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_cap, check_choice, check_int, check_size
from .core import MAX_CHUNKS, _Model
from .double_tree import (
    DBT_ONE_PORT_MAX_N,
    DBT_ONE_PORT_MAX_WORK,
    _dbt_all_reduce,
    _dbt_one_port_rounds,
    _dbt_reduced,
    _dbt_work,
)
from .ring import _ring_all_reduce, _ring_reduced

HIERARCHICAL_ALGORITHMS = ("hierarchical_ring", "two_level_tree")


def _flat_tree(n, m, ports, opts):
    """One GPU per node: the unpipelined double binary tree (with its caps)."""
    if ports == 1:
        if np.any(np.asarray(n) > DBT_ONE_PORT_MAX_N):
            raise ValueError(
                f"two_level_tree with one GPU per node is the 1-port double binary tree, modelled for n <= "
                f"{DBT_ONE_PORT_MAX_N}; got n={int(np.max(n))}"
            )
        if isinstance(n, np.ndarray) and n.size > 1:
            check_cap(
                "two_level_tree's rounds for every distinct n: sum of the distinct n",
                _dbt_work(n),
                DBT_ONE_PORT_MAX_WORK,
            )
    return _dbt_all_reduce(n, m, ports, {"pipelined": False})


HIERARCHICAL_RING = {
    "all_reduce": _Model(
        _ring_all_reduce,
        reference="2-D ring: intra-node reduce-scatter, inter-node ring per rail, intra-node all-gather",
        topology="two_level",
        reduced=_ring_reduced,
    ),
}
TWO_LEVEL_TREE = {
    "all_reduce": _Model(
        _flat_tree,
        reference="NCCL-style split: rings inside nodes, double binary trees between nodes (NVIDIA/nccl#548)",
        topology="two_level",
        reduced=lambda n, m, ports, opts: _dbt_reduced(n, m, ports, {"pipelined": False}),
    ),
}


def _dbt_rounds(nodes: int, chunks: int) -> int:
    return int(_dbt_one_port_rounds(nodes, chunks)) if nodes > 1 else 0


def _check_name(name):
    check_choice("name", name, HIERARCHICAL_ALGORITHMS)


def hierarchical_terms(name, nodes, gpus_per_node, m, chunks=None):
    """Rounds and bandwidth bytes (sum of each round's largest message) of a hierarchical AllReduce.

    ``hierarchical_ring``: ``2(G-1) + 2(K-1)`` rounds, ``2(G-1)/G M + 2(K-1)/(K G) M`` bytes.
    ``two_level_tree``: ``2(G-1)`` ring rounds plus the 1-port double binary tree's rounds ``R``
    over ``K`` nodes, each carrying one chunk of ``M/(2 G C)``. (Exact for ``m`` divisible by
    ``2 G K C``; otherwise blocks differ by a byte.)

    >>> hierarchical_terms("hierarchical_ring", 3, 4, 4800.0)
    (10, 8800.0)
    >>> hierarchical_terms("two_level_tree", 4, 8, 2**20, chunks=1)
    (20, 2228224.0)
    """
    _check_name(name)
    nodes = check_int("nodes", nodes, minimum=1, maximum=DBT_ONE_PORT_MAX_N, scalar=True)
    g = check_int("gpus_per_node", gpus_per_node, minimum=1, maximum=2**40, scalar=True)
    m = check_size("m", m, scalar=True)
    intra_steps, intra_bytes = 2 * (g - 1), 2 * (g - 1) * m / g
    if name == "hierarchical_ring":
        if chunks is not None:
            raise ValueError("chunks applies only to two_level_tree")
        return intra_steps + 2 * (nodes - 1), intra_bytes + 2 * (nodes - 1) * m / (nodes * g)
    chunks = check_int("chunks", 1 if chunks is None else chunks, minimum=1, maximum=MAX_CHUNKS, scalar=True)
    r = _dbt_rounds(nodes, chunks)
    return intra_steps + r, intra_bytes + r * m / (2 * g * chunks)


def two_level_algorithm_time(name, topology, m, hardware, chunks=None) -> float:
    """Seconds of a hierarchical AllReduce in the two-level model (closed form).

    Every intra-node ring round costs ``α_f + (M/G)/β_f``; every inter-node round
    ``α_n + x/β_n'`` with ``x`` the bytes one rail sends (``M/(K G)`` for the ring, a chunk
    ``M/(2 G C)`` for the tree) and ``β_n' = β_n`` (one NIC per GPU) or ``β_n / G`` (the node's
    ``G`` rails share one NIC). ``tests/test_hierarchical.py`` holds it against the simulated
    rounds timed by :func:`ccb_helpers.two_level_time`.

    >>> from ccb_helpers.two_level_network import two_level, TwoLevelHardware
    >>> hw = TwoLevelHardware(1e-6, 450e9, 3e-6, 50e9)
    >>> round(two_level_algorithm_time("hierarchical_ring", two_level(2, 8), 2**30, hw) * 1e3, 3)
    6.88
    """
    from ..two_level_network import TwoLevelHardware, check_two_level  # here: an MPI rank never loads networkx

    _check_name(name)
    topology = check_two_level(topology)
    m = check_size("m", m, scalar=True)
    if not isinstance(hardware, TwoLevelHardware):
        raise TypeError(f"hardware must be a TwoLevelHardware, got {type(hardware).__name__}")
    if name == "hierarchical_ring" and chunks is not None:
        raise ValueError("chunks applies only to two_level_tree")
    nodes, g = topology.nodes, topology.gpus_per_node
    nic_beta = hardware.nic_beta / (g if topology.nic == "node" else 1)
    time = 2 * (g - 1) * (hardware.fabric_alpha + m / g / hardware.fabric_beta)
    if nodes == 1:
        return time
    if name == "hierarchical_ring":
        return time + 2 * (nodes - 1) * (hardware.nic_alpha + m / (nodes * g) / nic_beta)
    chunks = check_int("chunks", 1 if chunks is None else chunks, minimum=1, maximum=MAX_CHUNKS, scalar=True)
    return time + _dbt_rounds(nodes, chunks) * (hardware.nic_alpha + m / (2 * g * chunks) / nic_beta)
