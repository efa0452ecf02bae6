"""Patarasuk & Yuan (2009): the bandwidth-optimal AllReduce on tree-shaped networks.

Number the endpoints in the order a depth-first walk of the switches meets them and run the ring
AllReduce (reduce-scatter, then all-gather, ``2 (N - 1)`` rounds of ``M / N``) on that ring. Each
ring edge between consecutive endpoints goes down into a subtree and comes back out once, so a
directed link of the tree carries at most one ring edge: no two messages of a round share a
link, and every round costs ``alpha + M / (N beta)`` however few links cross the middle. The time
``2 (N - 1)(alpha + M / (N beta))`` meets the per-node bound ``2 (N - 1) M / (N beta)`` of an
endpoint with one link (chapter 3) — and on a fat tree with oversubscribed spines, where the
bisection bound of chapter 5 (``ccb.bisection_lower_bound``) is far below it, the algorithm that
ignores the topology (Bruck, halving-doubling) queues on the uplinks instead. The book's fat trees
are not trees (several spines); routing every leaf-to-leaf message through any one spine keeps a
ring edge on its own links, so the argument holds (:func:`ccb_helpers.routed_loads` counts it).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_cap, check_int
from .generators.core import _reverse
from .generators.rings import _ring_all_gather
from .schedule import Round, Schedule
from .topology import Topology, check_topology

__all__ = ["tree_ring_order", "patarasuk_yuan", "place"]

#: Most endpoints of :func:`patarasuk_yuan` (its ring has ``2 n (n - 1)`` transfers).
MAX_RING_NODES = 1024


def tree_ring_order(topology: Topology) -> list[int]:
    """The endpoints in depth-first order of a spanning tree of the network, from switch (or node) 0.

    The spanning tree is the breadth-first tree from the first switch (from endpoint 0 on a
    network without switches); its depth-first preorder visits each subtree's endpoints together.

    >>> from ccb_helpers.topology import fat_tree
    >>> tree_ring_order(fat_tree(8, hosts_per_leaf=2))
    [0, 1, 2, 3, 4, 5, 6, 7]
    """
    import networkx as nx

    check_topology(topology)
    check_cap("tree_ring_order: endpoints", topology.n, MAX_RING_NODES)
    graph = topology.graph
    switches = [v for v, kind in graph.nodes(data="kind") if kind == "switch"]
    start = switches[0] if switches else 0
    tree = nx.bfs_tree(graph, start)
    order = [v for v in nx.dfs_preorder_nodes(tree, start) if not (isinstance(v, tuple) or v in switches)]
    if sorted(order) != list(range(topology.n)):
        raise ValueError(f"topology: its endpoints 0..{topology.n - 1} are not all reachable from {start!r}")
    return order


def patarasuk_yuan(topology: Topology, m: int) -> Schedule:
    """The ring AllReduce on the endpoints in :func:`tree_ring_order`: contention-free on a tree.

    Parameters
    ----------
    topology : Topology
        The network (``n <= 1024`` endpoints).
    m : int
        Bytes, ``0 <= m <= 2**40``.

    Examples
    --------
    >>> from ccb_helpers.topology import fat_tree
    >>> s = patarasuk_yuan(fat_tree(8, oversubscription=2), 8 * 64)
    >>> len(s.rounds), s.algorithm
    (14, 'patarasuk_yuan')
    """
    check_topology(topology)
    m = check_int("m", m, minimum=0, maximum=2**40, scalar=True)
    n = topology.n
    check_cap("patarasuk_yuan: endpoints", n, MAX_RING_NODES)
    order = np.asarray(tree_ring_order(topology), dtype=np.int64)
    # The ring's rounds on positions 0..n-1 (block p ends reduced at position p), relabelled.
    gather = _ring_all_gather(n, m)
    rounds = [
        Round(order[r.src], order[r.dst], r.offset, r.length, r.reduce, r.buffer, r.dst_offset, r.dst_buffer)
        for r in _reverse(gather, True) + gather
    ]
    return Schedule("all_reduce", n, m, rounds, algorithm="patarasuk_yuan")


def place(schedule: Schedule, hosts) -> Schedule:
    """The same schedule with rank ``r`` running on endpoint ``hosts[r]`` (a permutation of ``0..n-1``).

    How ranks are placed decides which messages share links: a ring in rank order over ranks
    placed round-robin across the leaves crosses the spines on every edge.

    >>> from ccb_helpers.generators import generate
    >>> s = place(generate("ring", "all_reduce", 4, 8), [0, 2, 1, 3])
    >>> s.rounds[0].src.tolist(), s.rounds[0].dst.tolist()   # rank r -> r - 1 reversed: hosts of ranks 1, 2, 3, 0
    ([2, 1, 3, 0], [0, 2, 1, 3])
    """
    if not isinstance(schedule, Schedule):
        raise TypeError(f"schedule must be a Schedule, got {type(schedule).__name__}")
    given = repr(hosts)[:80]
    try:
        hosts = np.asarray(hosts)
    except (ValueError, TypeError):  # ragged or unconvertible
        hosts = np.zeros(0)
    if (
        hosts.shape != (schedule.n,)
        or hosts.dtype.kind not in "iu"
        or sorted(hosts.tolist()) != list(range(schedule.n))
    ):
        raise ValueError(f"hosts must be a permutation of 0..{schedule.n - 1} (one host per rank), got {given}")
    hosts = hosts.astype(np.int64)
    rounds = [
        Round(hosts[r.src], hosts[r.dst], r.offset, r.length, r.reduce, r.buffer, r.dst_offset, r.dst_buffer)
        for r in schedule.rounds
    ]
    # The primitive's buffers follow their ranks: a rank-order result checked on hosts needs the
    # blocks relabelled too, which only an AllReduce (one result everywhere) does not.
    if schedule.primitive != "all_reduce":
        raise ValueError(f"place relabels AllReduce schedules (one result on every node), got {schedule.primitive!r}")
    return Schedule(schedule.primitive, schedule.n, schedule.m, rounds, schedule.buffers, algorithm=schedule.algorithm)
