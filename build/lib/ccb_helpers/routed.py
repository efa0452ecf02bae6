"""A schedule's messages routed over a network's links: the bytes each directed link carries per round.

The simulator checks that a message has a way (a link, or endpoints of one switched network) and
caps an endpoint's messages per round by its links; it does not follow a message through the
switches. Here each message takes one shortest path of the topology's graph and every directed
link adds the message's bytes (divided by the link's multiplicity):

* on rings, tori and meshes, **dimension-order routing** — the deterministic minimal routing of
  such networks: the first coordinate is corrected first, each along the shorter way round (on a
  tie, half-way round an even side, the positive way). A schedule whose ranks are numbered
  row-major (a ring over all nodes of a torus, say) then crosses the wrap-around at the end of a
  row without meeting the row's own messages;
* elsewhere (fat trees, switched graphs) one of the equal shortest paths, the
  ``(src + dst) mod count``-th: a deterministic ECMP spread.

A round then costs ``alpha`` plus its busiest link's bytes over ``beta``: the α-β time with link
contention (``eq:cc-routed-round``), which is what an oversubscribed fat tree charges an algorithm
whose messages share the uplinks. As in the book's k-port model, a node sends to and receives from
at most as many nodes in a round as it has links (:func:`routed_time` refuses more: one round
would otherwise reach every node, below ``ccb_helpers.routed_lower_bound``'s latency term).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_array, check_bandwidth, check_cap, check_seconds
from .routing import endpoint_links
from .schedule import Schedule
from .topology import Topology, check_topology

__all__ = ["RoutedLoads", "routed_loads", "routed_time"]

#: Most (pair, round) messages routed in one call (each is a Python dict lookup and a path walk).
MAX_ROUTED_MESSAGES = 2**20


@dataclass(frozen=True)
class RoutedLoads:
    """Per round: the most bytes one directed link carries and the most messages sharing one.

    Attributes
    ----------
    link_bytes : ndarray, shape (rounds,)
        Bytes on the busiest directed link (a link of multiplicity ``b`` carries ``bytes / b``).
    link_messages : ndarray, shape (rounds,)
        The most messages crossing one directed link in that round.
    busiest : list
        The busiest link of each round, as ``(u, v)`` vertices of the topology's graph (``None``
        in a round without messages).
    """

    link_bytes: np.ndarray
    link_messages: np.ndarray
    busiest: list

    def __post_init__(self):
        # A record of one routing: one entry per round in each field, finite non-negative loads.
        check_array("RoutedLoads.link_bytes", self.link_bytes, ndim=1)
        check_array("RoutedLoads.link_messages", self.link_messages, ndim=1, kind="int")
        if not isinstance(self.busiest, (list, tuple)):
            raise TypeError(
                f"RoutedLoads.busiest must be a list of (u, v) links or None, got {type(self.busiest).__name__}"
            )
        rounds = len(self.link_bytes)
        if not len(self.link_messages) == len(self.busiest) == rounds:
            raise ValueError(
                "RoutedLoads.link_messages and RoutedLoads.busiest must have one entry per round of "
                f"RoutedLoads.link_bytes ({rounds}), got {len(self.link_messages)} and {len(self.busiest)}"
            )
        for i, link in enumerate(self.busiest):
            if link is None:
                if self.link_messages[i] != 0:
                    raise ValueError(f"RoutedLoads.busiest[{i}] is None (no message) but link_messages[{i}] > 0")
            elif not (isinstance(link, tuple) and len(link) == 2):
                raise TypeError(f"RoutedLoads.busiest[{i}] must be a (u, v) link or None, got {link!r:.60}")
        object.__setattr__(self, "busiest", list(self.busiest))

    @property
    def bandwidth_bytes(self) -> float:
        """Sum over rounds of the busiest link's bytes: the β term with contention."""
        return float(self.link_bytes.sum())


#: Families routed dimension by dimension (their endpoints are numbered row-major, last axis fastest).
DIMENSION_ORDER_FAMILIES = ("ring", "torus", "mesh")


def _grid_shape(topology: Topology) -> tuple[tuple[int, ...], bool]:
    if topology.family == "ring":
        return (topology.n,), True
    return tuple(topology.dims), topology.family == "torus"


def _dimension_order_path(src: int, dst: int, dims: tuple[int, ...], periodic: bool) -> list:
    """Vertices from ``src`` to ``dst``: correct axis 0 first, each the shorter way (ties: positive)."""
    here = list(np.unravel_index(src, dims))
    there = list(np.unravel_index(dst, dims))
    path = [src]
    for axis, side in enumerate(dims):
        if periodic:
            ahead = (there[axis] - here[axis]) % side
            step, hops = (1, ahead) if ahead <= side - ahead else (-1, side - ahead)
        else:
            step, hops = (1 if there[axis] >= here[axis] else -1), abs(there[axis] - here[axis])
        for _ in range(hops):
            here[axis] = (here[axis] + step) % side
            path.append(int(np.ravel_multi_index(here, dims)))
    return path


def _paths(topology: Topology):
    """``path(src, dst)``: the vertices of the chosen shortest path (cached per pair)."""
    import networkx as nx

    graph = topology.graph
    cache: dict = {}
    grid = _grid_shape(topology) if topology.family in DIMENSION_ORDER_FAMILIES else None

    def path(src: int, dst: int) -> list:
        key = (src, dst)
        if key not in cache:
            if grid is not None:
                cache[key] = _dimension_order_path(src, dst, *grid)
            else:
                options = sorted(nx.all_shortest_paths(graph, src, dst), key=lambda p: [str(v) for v in p])
                cache[key] = options[(src + dst) % len(options)]
        return cache[key]

    return graph, path


def _check_peers(schedule: Schedule, links: int) -> None:
    """Every node sends to, and receives from, at most ``links`` nodes in a round (the k-port rule, k = d)."""
    n = schedule.n
    for i, r in enumerate(schedule.rounds):
        remote = r.src != r.dst
        if not np.any(remote):
            continue
        pairs = np.unique(r.src[remote] * n + r.dst[remote])
        for side, nodes in (("sends to", pairs // n), ("receives from", pairs % n)):
            count = np.bincount(nodes, minlength=n)
            if count.max() > links:
                v = int(np.argmax(count))
                raise ValueError(
                    f"schedule: round {i + 1}: node {v} {side} {int(count[v])} nodes but has {links} link(s); "
                    "in the routed model a node drives at most one message per link in a round "
                    "(generate the schedule with ports <= the topology's degree)"
                )


def routed_loads(schedule: Schedule, topology: Topology) -> RoutedLoads:
    """Route every message of ``schedule`` over ``topology`` and count the load of each directed link.

    Pieces between the same two endpoints in one round travel as one message. Direct networks
    (no switches) route a message over its own link when there is one, else over a shortest path.
    An endpoint starts or ends at most as many messages a round as it has links (parallel links
    counted), the port rule of the routed model whose bound is :func:`ccb_helpers.routed_lower_bound`
    (``ceil(log_{d+1} N)`` rounds): a round that breaks it raises :class:`ccb_helpers.ScheduleError`.
    The schedule is not run: check its result with :func:`ccb_helpers.run_schedule`.

    Examples
    --------
    Ring AllGather on a ring of 4: every round each link carries one block in one direction.

    >>> from ccb_helpers.generators import generate
    >>> from ccb_helpers.topology import ring
    >>> loads = routed_loads(generate("ring", "all_gather", 4, 64), ring(4))
    >>> loads.link_bytes.tolist(), loads.link_messages.tolist()
    ([16.0, 16.0, 16.0], [1, 1, 1])
    """
    if not isinstance(schedule, Schedule):
        raise TypeError(f"schedule must be a Schedule, got {type(schedule).__name__}")
    check_topology(topology)
    if topology.n != schedule.n:
        raise ValueError(f"topology has n={topology.n} nodes but the schedule has n={schedule.n}")
    messages = sum(int(np.count_nonzero(r.src != r.dst)) for r in schedule.rounds)
    check_cap("routed_loads: messages (pieces between two nodes in a round)", messages, MAX_ROUTED_MESSAGES)
    graph, path = _paths(topology)
    links = endpoint_links(topology)
    link_bytes = np.zeros(len(schedule.rounds))
    link_messages = np.zeros(len(schedule.rounds), dtype=np.int64)
    busiest: list = []
    n = schedule.n
    for i, r in enumerate(schedule.rounds):
        remote = r.src != r.dst
        if not np.any(remote):
            busiest.append(None)
            continue
        keys, inverse = np.unique(r.src[remote] * n + r.dst[remote], return_inverse=True)
        _check_links_per_round(keys, n, links, i, topology)
        pair_bytes = np.bincount(inverse, weights=r.length[remote])
        load: dict = {}
        count: dict = {}
        for key, size in zip(keys.tolist(), pair_bytes.tolist()):
            vertices = path(*divmod(key, n))
            for u, v in zip(vertices, vertices[1:]):
                multiplicity = graph.edges[u, v].get("links", 1)
                load[(u, v)] = load.get((u, v), 0.0) + size / multiplicity
                count[(u, v)] = count.get((u, v), 0) + 1
        link = max(load, key=load.get)
        link_bytes[i] = load[link]
        link_messages[i] = max(count.values())
        busiest.append(link)
    return RoutedLoads(link_bytes, link_messages, busiest)


def _check_links_per_round(keys: np.ndarray, n: int, links: np.ndarray, index: int, topology: Topology) -> None:
    """Raise ScheduleError when an endpoint sends to (or receives from) more peers than it has links.

    Without it a root that sent to all 7 others of a ring of 8 in one round (its two links shared
    by the messages) was timed at one round, below ``routed_lower_bound``'s ``ceil(log3 8) = 2``
    (#38 review).
    """
    from .simulator import ScheduleError

    for side, peers in (("sends to", keys // n), ("receives from", keys % n)):
        counts = np.bincount(peers, minlength=n)
        over = np.nonzero(counts > links)[0]
        if over.size:
            v = int(over[0])
            raise ScheduleError(
                f"round {index + 1}: node {v} {side} {int(counts[v])} nodes but has {int(links[v])} link(s) in "
                f"{topology.name}: a routed round starts and ends at most one message per link"
            )


def routed_time(schedule: Schedule, topology: Topology, alpha, beta) -> float:
    """α-β time with link contention: ``rounds * alpha + sum of the busiest link's bytes / beta``.

    Raises
    ------
    ValueError
        A node sends to (or receives from) more nodes in a round than it has links
        (``topology.degree``): the routed model's rounds are the k-port rounds with ``k = d``, the
        rule :func:`ccb_helpers.routed_lower_bound`'s ``ceil(log_{d+1} N)`` rounds rest on.

    Examples
    --------
    >>> from ccb_helpers.generators import generate
    >>> from ccb_helpers.topology import fat_tree, ring
    >>> routed_time(generate("ring", "all_reduce", 16, 1600), fat_tree(16), 1e-6, 1e9)   # 30 (alpha + 100 B / beta)
    3.3e-05
    >>> routed_time(generate("bruck", "all_gather", 8, 800, ports=7), ring(8), 1e-6, 1e9)
    Traceback (most recent call last):
    ...
    ccb_helpers.simulator.ScheduleError: round 1: node 0 sends to 7 nodes but has 2 link(s) in ring 8: a routed round starts and ends at most one message per link
    """
    alpha = check_seconds("alpha", alpha, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    loads = routed_loads(schedule, topology)
    _check_peers(schedule, max(1, topology.degree))
    return len(schedule.rounds) * alpha + loads.bandwidth_bytes / beta
