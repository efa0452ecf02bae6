"""Where a round's messages travel and what each link carries: the simulator's link model.

A round's pieces between the same ordered pair of endpoints ``(u, v)`` travel as one message.
Links are full duplex (``β`` bytes/s per direction each); ``b`` parallel links between two
vertices share what crosses them (``bytes / b`` each). What a message loads:

* **no topology**: its own link (every pair of nodes has one);
* **a direct network**: the link ``u - v``; a message between non-neighbours uses no link and is
  refused (relaying takes rounds);
* **a single switch**: ``u``'s links into the switch carry everything ``u`` sends in the round,
  ``v``'s links out of it everything ``v`` receives;
* **a two-level fat tree** (:func:`ccb_helpers.fat_tree`): the host links as on a single switch,
  and a leaf's links up to the spines carry what its hosts send to other leaves (the spines'
  links down to it what they receive), spread evenly over the spines. No routing can put less on
  the busiest link of a leaf: all of it must leave through those links. On an oversubscribed
  tree these links are the bottleneck the bisection bound counts (issue #37);
* **any other switched graph** (:func:`ccb_helpers.topology_from_graph` with switches): each
  message split evenly over all its shortest paths whose inner vertices are switches (endpoints
  do not forward within a round); a pair without such a path is refused. Any routing is a valid
  choice here: the bytes crossing a cut in a round never exceed the cut's links times the
  busiest link's load, whatever the routing, so the bisection bound holds for the simulated time.

:func:`link_model` builds the model once per run; its ``loads(keys, bytes)`` gives, for one
round, the bytes of every link group and the links in it (the busiest link carries at least
``volume / links`` of its group, exactly that when the group shares its bytes evenly).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ._validation import check_cap
from .topology import Topology

__all__ = ["link_model", "endpoint_links", "MAX_ROUTING_WORK"]

#: Most (message x directed edge) pairs a run on a general switched graph examines to route its
#: messages over their shortest paths (one numpy element each; about 1 s per 2**26 here).
MAX_ROUTING_WORK = 2**28
#: Elements of one block of that routing (memory: about 40 bytes each).
_ROUTING_BLOCK = 2**20


def endpoint_links(topology: Topology) -> np.ndarray:
    """Links at each endpoint, parallel links counted (``(n,)`` ints): its ports into a switched network.

    >>> import ccb_helpers as ccb
    >>> endpoint_links(ccb.single_switch(3, links=2)).tolist()
    [2, 2, 2]
    """
    g = topology.graph
    return np.array(
        [sum(count for *_, count in g.edges(v, data="links", default=1)) for v in range(topology.n)], dtype=np.int64
    )


class _Pairs:
    """Every message on the link between its two nodes (a direct network, or no topology)."""

    kind = "pairs"

    def __init__(self, n: int, keys: np.ndarray, mult: np.ndarray):
        self.n, self.keys, self.mult = n, keys, mult

    def unroutable(self, keys: np.ndarray) -> int:
        missing = ~np.isin(keys, self.keys)
        return int(np.nonzero(missing)[0][0]) if missing.any() else -1

    def loads(self, keys, pair_bytes):
        return pair_bytes, self.mult[np.searchsorted(self.keys, keys)]

    def label(self, keys, g: int) -> str:
        key = int(keys[g])
        return f"link {key // self.n}->{key % self.n}"


class _Switch:
    """One switch: an endpoint's links into it carry what it sends, its links out what it receives."""

    kind = "switch"

    def __init__(self, n: int, ups: np.ndarray):
        self.n, self.ups = n, ups

    def unroutable(self, keys) -> int:
        return -1

    def loads(self, keys, pair_bytes):
        n = self.n
        out = np.bincount(keys // n, weights=pair_bytes, minlength=n)
        inn = np.bincount(keys % n, weights=pair_bytes, minlength=n)
        return np.concatenate([out, inn]), np.concatenate([self.ups, self.ups])

    def label(self, keys, g: int) -> str:
        return f"uplink of {g}" if g < self.n else f"downlink of {g - self.n}"


class _FatTree(_Switch):
    """A two-level fat tree: host links as on one switch, plus each leaf's links to the spines."""

    kind = "fat_tree"

    def __init__(self, n: int, ups: np.ndarray, leaf: np.ndarray, leaf_links: np.ndarray):
        super().__init__(n, ups)
        self.leaf, self.leaf_links = leaf, leaf_links

    def loads(self, keys, pair_bytes):
        hosts, mult = super().loads(keys, pair_bytes)
        src, dst = self.leaf[keys // self.n], self.leaf[keys % self.n]
        across = src != dst
        leaves = self.leaf_links.size
        up = np.bincount(src[across], weights=pair_bytes[across], minlength=leaves)
        down = np.bincount(dst[across], weights=pair_bytes[across], minlength=leaves)
        return np.concatenate([hosts, up, down]), np.concatenate([mult, self.leaf_links, self.leaf_links])

    def label(self, keys, g: int) -> str:
        if g < 2 * self.n:
            return super().label(keys, g)
        g -= 2 * self.n
        leaves = self.leaf_links.size
        if g < leaves:
            return f"the {int(self.leaf_links[g])} links from leaf {g} up to the spines"
        return f"the {int(self.leaf_links[g - leaves])} links from the spines down to leaf {g - leaves}"


class _Paths:
    """Any switched graph: a message split evenly over its shortest switch-interior paths."""

    kind = "paths"

    def __init__(self, n, dist, paths, edge_a, edge_b, edge_mult, is_switch, names):
        self.n, self.dist, self.paths = n, dist, paths
        self.edge_a, self.edge_b, self.edge_mult, self.is_switch, self.names = (
            edge_a,
            edge_b,
            edge_mult,
            is_switch,
            names,
        )

    def unroutable(self, keys) -> int:
        bad = self.dist[keys // self.n, keys % self.n] < 0
        return int(np.nonzero(bad)[0][0]) if bad.any() else -1

    def loads(self, keys, pair_bytes):
        n, a, b = self.n, self.edge_a, self.edge_b
        volume = np.zeros(a.size)
        step = max(1, _ROUTING_BLOCK // max(a.size, 1))
        for lo in range(0, keys.size, step):
            s, t = keys[lo : lo + step] // n, keys[lo : lo + step] % n
            da, db = self.dist[s][:, a], self.dist[t][:, b]
            inner_a = self.is_switch[a][None, :] | (a[None, :] == s[:, None])
            inner_b = self.is_switch[b][None, :] | (b[None, :] == t[:, None])
            on = inner_a & inner_b & (da >= 0) & (db >= 0) & (da + 1 + db == self.dist[s, t][:, None])
            share = np.where(on, self.paths[s][:, a] * self.paths[t][:, b], 0.0) / self.paths[s, t][:, None]
            volume += pair_bytes[lo : lo + step] @ share
        return volume, self.edge_mult

    def label(self, keys, g: int) -> str:
        return f"link {self.names[self.edge_a[g]]}->{self.names[self.edge_b[g]]}"


def _paths_model(topology: Topology) -> _Paths:
    """Distances and shortest-path counts from every endpoint, through switches only (cached)."""
    cached = topology.__dict__.get("_routing_paths")
    if cached is not None:
        return cached
    g = topology.graph
    n = topology.n
    switches = [v for v, kind in g.nodes(data="kind") if kind == "switch"]
    names = list(range(n)) + switches
    index = {v: i for i, v in enumerate(names)}
    size = len(names)
    is_switch = np.zeros(size, dtype=bool)
    is_switch[n:] = True
    adjacency = [[] for _ in range(size)]
    a, b, mult = [], [], []
    for u, v, count in g.edges(data="links", default=1):
        i, j = index[u], index[v]
        adjacency[i].append(j)
        adjacency[j].append(i)
        a += [i, j]
        b += [j, i]
        mult += [count, count]
    dist = np.full((n, size), -1, dtype=np.int64)
    paths = np.zeros((n, size))
    for s in range(n):
        d, p = dist[s], paths[s]
        d[s], p[s] = 0, 1.0
        queue = deque([s])
        while queue:
            x = queue.popleft()
            if x != s and not is_switch[x]:
                continue  # an endpoint is reached, never passed through
            for y in adjacency[x]:
                if d[y] < 0:
                    d[y] = d[x] + 1
                    queue.append(y)
                if d[y] == d[x] + 1:
                    p[y] += p[x]
    model = _Paths(
        n,
        dist,
        paths,
        np.array(a, dtype=np.int64),
        np.array(b, dtype=np.int64),
        np.array(mult, dtype=np.int64),
        is_switch,
        names,
    )
    topology.__dict__["_routing_paths"] = model
    return model


def _fat_tree_model(topology: Topology) -> _FatTree:
    g = topology.graph
    n = topology.n
    leaf = np.empty(n, dtype=np.int64)
    leaves = sorted(v for v in g.nodes if isinstance(v, tuple) and v[0] == "leaf")
    position = {v: i for i, v in enumerate(leaves)}
    for v in range(n):
        (above,) = [u for u in g.neighbors(v)]
        leaf[v] = position[above]
    leaf_links = np.array(
        [sum(c for _, u, c in g.edges(v, data="links", default=1) if isinstance(u, tuple)) for v in leaves],
        dtype=np.int64,
    )  # a leaf's links to the spines (its other neighbours are hosts, 0 .. n-1)
    return _FatTree(n, endpoint_links(topology), leaf, leaf_links)


def link_model(topology: Topology | None, n: int, every_pair: bool = False):
    """The link model of ``topology`` for a run of ``n`` nodes (see the module docstring).

    ``None`` without a topology, unless ``every_pair``: then every ordered pair has one link of
    its own (a synthesized schedule run without its topology). The model's ``loads(keys,
    pair_bytes)`` takes one round's messages (``keys = src * n + dst``, sorted, and their bytes)
    and returns ``(volume, links)`` per link group; ``unroutable(keys)`` the index of the first
    message with no link or switch path (``-1``: none); ``label(keys, g)`` names group ``g``.

    Examples
    --------
    A 2:1 fat tree of 8 hosts (4 leaves of 2, one spine): hosts 0 and 1 (leaf 0) both send 100
    bytes to leaf 1; the leaf's one uplink carries both messages.

    >>> import numpy as np, ccb_helpers as ccb
    >>> model = link_model(ccb.fat_tree(8, oversubscription=2), 8)
    >>> volume, links = model.loads(np.array([0 * 8 + 2, 1 * 8 + 3]), np.array([100.0, 100.0]))
    >>> model.kind, float((volume / links).max())
    ('fat_tree', 200.0)
    """
    from .user_topology import _link_matrix, endpoint_uplinks

    if topology is None:
        if not every_pair:
            return None
        return _Pairs(n, np.arange(n * n), np.ones(n * n, dtype=np.int64))
    kind = routing_kind(topology)
    if kind == "own":
        return topology._link_model()
    if kind == "pairs":
        matrix = _link_matrix(topology)
        keys = np.flatnonzero(matrix)
        return _Pairs(n, keys, matrix.ravel()[keys])
    if kind == "switch":
        return _Switch(n, endpoint_uplinks(topology))
    if kind == "fat_tree":
        return _fat_tree_model(topology)
    return _paths_model(topology)


def routing_kind(topology: Topology) -> str:
    """``"pairs"`` (direct network), ``"switch"`` (one switch), ``"fat_tree"``, ``"paths"`` (any other
    switched graph) or ``"own"`` (a topology that routes its own messages, :func:`ccb_helpers.two_level`)."""
    if hasattr(topology, "_link_model"):
        return "own"
    if not topology.switched:
        return "pairs"
    if topology.family == "single_switch":
        return "switch"
    if topology.family == "fat_tree":
        return "fat_tree"
    from .user_topology import _is_single_switch

    return "switch" if _is_single_switch(topology) else "paths"


def check_routing_work(topology: Topology | None, transfers: int, what: str) -> None:
    """Refuse a run whose shortest-path routing would examine more than :data:`MAX_ROUTING_WORK` elements."""
    if topology is None or routing_kind(topology) != "paths":
        return
    edges = topology._graph_size[1] if topology._graph_size is not None else topology.graph.number_of_edges()
    check_cap(
        f"{what}: routing every message over the shortest paths of {topology.name} (messages x directed links)",
        transfers * 2 * edges,
        MAX_ROUTING_WORK,
        hint="use fewer nodes or rounds",
    )


def routing_bytes(topology: Topology | None, n: int) -> int:
    """Memory of the link model: an n x n link matrix, or the shortest-path tables and one block."""
    if topology is None or not topology.switched:
        return 16 * n * n
    if routing_kind(topology) != "paths":
        return 64 * n
    vertices = topology._graph_size[0] if topology._graph_size is not None else topology.graph.number_of_nodes()
    return 16 * n * vertices + 48 * _ROUTING_BLOCK
