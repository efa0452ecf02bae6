"""Network topologies as real graphs, with closed-form diameter and bisection width.

Each constructor returns a :class:`Topology`. Its ``diameter`` and ``bisection_links`` come
from closed forms; the tests check them against measurements on ``topology.graph`` (BFS
eccentricity, exhaustive balanced min-cut) for every small instance.

Direct networks (ring, torus, mesh, hypercube, fully connected) have only endpoints: a message
between non-neighbours is relayed hop by hop, each hop a round. Switched networks (single
switch, fat-tree) have switch vertices in the graph; switches forward within a round, so a
message crosses the whole network in one round (``step_diameter == 1``) even though the
endpoint-to-endpoint hop count (``diameter``) is 2 or 4.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property, reduce
from operator import mul
from typing import Callable

import networkx as nx

from ._validation import check_int, check_real

__all__ = [
    "Topology",
    "TOPOLOGY_FAMILIES",
    "ring",
    "torus",
    "mesh",
    "hypercube",
    "fat_tree",
    "single_switch",
    "fully_connected",
    "measured_diameter",
    "measured_bisection",
    "endpoints",
]

TOPOLOGY_FAMILIES = ("ring", "torus", "mesh", "hypercube", "fat_tree", "single_switch", "fully_connected")


@dataclass(frozen=True)
class Topology:
    """A network of ``n`` endpoints.

    Attributes
    ----------
    family : str
        One of :data:`TOPOLOGY_FAMILIES`.
    name : str
        Human-readable description, e.g. ``"torus 4x4"``.
    n : int
        Number of endpoints (nodes that run the collective).
    degree : int
        Links per endpoint ``d`` (the maximum over endpoints).
    diameter : int
        Largest shortest-path hop count between two endpoints.
    bisection_links : int
        Links cut by the best balanced cut of the endpoints (sizes ``floor(n/2)`` and
        ``ceil(n/2)``; switches may go to either side).
    switched : bool
        Whether the graph has switch vertices that forward without an extra round.
    """

    family: str
    name: str
    n: int
    degree: int
    diameter: int
    bisection_links: int
    switched: bool = False
    oversubscription: float = 1.0
    _builder: Callable[[], nx.Graph] = field(default=None, repr=False, compare=False)

    @cached_property
    def graph(self) -> nx.Graph:
        """The graph; endpoints are ``0 .. n-1`` with ``kind="endpoint"``, switches ``kind="switch"``.

        An edge may carry ``links`` (parallel links, default 1: see :mod:`ccb_helpers.user_topology`).
        """
        g = self._builder()
        for v in g.nodes:
            g.nodes[v].setdefault("kind", "endpoint")
        return g

    @property
    def step_diameter(self) -> int:
        """Rounds a message needs to cross the network: ``diameter`` for direct networks, 1 if switched.

        This is the ``D`` of ``eq:cc-bound-topo`` (:math:`T_\\alpha \\ge D \\cdot \\alpha`).
        """
        if self.n == 1:
            return 0
        return 1 if self.switched else self.diameter

    def bisection_bandwidth(self, beta) -> float:
        """:math:`B_{\\text{bisection}}` in bytes/s: cut links times the per-link bandwidth ``beta``."""
        beta = check_real("beta", beta, strict=True)
        return self.bisection_links * beta

    def __str__(self) -> str:
        return self.name


# --------------------------------------------------------------------------- helpers


def _prod(values) -> int:
    return reduce(mul, values, 1)


def _check_dims(dims) -> tuple[int, ...]:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    if len(dims) == 0:
        raise ValueError("dims: give at least one side length, e.g. torus(4, 4)")
    return tuple(check_int(f"dims[{i}]", d, minimum=1) for i, d in enumerate(dims))


def _grid_graph(dims: tuple[int, ...], periodic: bool) -> nx.Graph:
    g = nx.Graph()
    coords = list(itertools.product(*[range(a) for a in dims]))
    index = {c: i for i, c in enumerate(coords)}
    g.add_nodes_from(range(len(coords)))
    for c in coords:
        for axis, a in enumerate(dims):
            if a == 1:
                continue
            nxt = list(c)
            if c[axis] + 1 < a:
                nxt[axis] = c[axis] + 1
            elif periodic and a > 2:
                nxt[axis] = 0
            else:
                continue
            g.add_edge(index[c], index[tuple(nxt)])
    for c, i in index.items():
        g.nodes[i]["coord"] = c
    return g


def _grid_cut(dims: tuple[int, ...], periodic: bool) -> tuple[int, int | None]:
    """(links cut, axis) of the best plane / staircase cut of a torus or mesh (see below)."""
    n = _prod(dims)
    if n == 1:
        return 0, None
    best, best_axis = None, None
    for axis, a in enumerate(dims):
        if a == 1:
            continue
        slab = n // a
        crossings = 2 if (periodic and a >= 3) else 1
        cost = crossings * slab
        if a % 2 == 1:
            rest = dims[:axis] + dims[axis + 1:]
            cost += _grid_cut(rest, periodic)[0] if rest else 0
        if best is None or cost < best:
            best, best_axis = cost, axis
    return best, best_axis


def _grid_bisection(dims: tuple[int, ...], periodic: bool) -> int:
    """Closed-form bisection width of a torus / mesh.

    Cut perpendicular to one axis of length ``a``: a plane cut crosses ``N / a`` links once
    (mesh) or twice (torus, wrap-around, ``a >= 3``). For even ``a`` the plane splits the
    nodes exactly in half. For odd ``a`` the middle slab has to be split too (a staircase
    cut): that adds the bisection width of the slab, a grid of the remaining axes. The best
    axis wins. Exact for even sides (the classic ``2 k**(n-1)`` of a k-ary n-cube); for odd
    sides checked against exhaustive search on every instance up to 18 nodes. The cut itself is
    :func:`_grid_partition`.
    """
    return _grid_cut(dims, periodic)[0]


def _grid_partition(dims: tuple[int, ...], periodic: bool) -> set:
    """The coordinates on the small side (``floor(N/2)`` nodes) of the cut of :func:`_grid_bisection`."""
    n = _prod(dims)
    if n == 1:
        return set()
    _, axis = _grid_cut(dims, periodic)
    a = dims[axis]
    h = a // 2
    rest = dims[:axis] + dims[axis + 1:]
    side = set()
    for coord in itertools.product(*[range(x) for x in dims]):
        if coord[axis] < h:
            side.add(coord)
    if a % 2 == 1 and rest:
        for sub in _grid_partition(rest, periodic):
            side.add(sub[:axis] + (h,) + sub[axis:])
    return side


# --------------------------------------------------------------------------- direct networks


def ring(n) -> Topology:
    """Bidirectional ring of ``n`` nodes: degree 2, diameter ``floor(n/2)``, bisection 2.

    Parameters
    ----------
    n : int
        Number of nodes, ``n >= 1`` (``n = 2`` is a single link, ``n = 1`` a lone node).

    Examples
    --------
    >>> r = ring(8)
    >>> r.n, r.degree, r.diameter, r.bisection_links
    (8, 2, 4, 2)
    >>> ring(7).diameter, ring(2).bisection_links
    (3, 1)
    """
    n = check_int("n", n, minimum=1)
    degree = 0 if n == 1 else (1 if n == 2 else 2)
    bisection = 0 if n == 1 else (1 if n == 2 else 2)
    return Topology(
        family="ring",
        name=f"ring {n}",
        n=n,
        degree=degree,
        diameter=n // 2,
        bisection_links=bisection,
        _builder=lambda: nx.cycle_graph(n) if n >= 3 else nx.path_graph(n),
    )


def torus(*dims) -> Topology:
    """n-dimensional torus (wrap-around grid) with side lengths ``dims``.

    Degree ``sum(2 if a >= 3, 1 if a == 2)``, diameter ``sum(floor(a/2))``; bisection by the
    best plane (or staircase) cut, see :func:`_grid_bisection`. A side of 2 has a single link
    (no duplicate wrap-around link).

    Examples
    --------
    >>> t = torus(4, 4)
    >>> t.n, t.degree, t.diameter, t.bisection_links
    (16, 4, 4, 8)
    >>> torus(8, 8, 8).diameter, torus(8, 8, 8).bisection_links
    (12, 128)
    """
    dims = _check_dims(dims)
    n = _prod(dims)
    degree = sum(2 if a >= 3 else (1 if a == 2 else 0) for a in dims)
    return Topology(
        family="torus",
        name="torus " + "x".join(map(str, dims)),
        n=n,
        degree=degree,
        diameter=sum(a // 2 for a in dims),
        bisection_links=_grid_bisection(dims, periodic=True),
        _builder=lambda: _grid_graph(dims, periodic=True),
    )


def mesh(*dims) -> Topology:
    """n-dimensional mesh (grid without wrap-around) with side lengths ``dims``.

    Degree ``sum(2 if a >= 3, 1 if a == 2)`` (interior nodes), diameter ``sum(a - 1)``.

    Examples
    --------
    >>> m = mesh(4, 4)
    >>> m.n, m.degree, m.diameter, m.bisection_links
    (16, 4, 6, 4)
    >>> mesh(3, 3).bisection_links
    4
    """
    dims = _check_dims(dims)
    n = _prod(dims)
    degree = sum(2 if a >= 3 else (1 if a == 2 else 0) for a in dims)
    return Topology(
        family="mesh",
        name="mesh " + "x".join(map(str, dims)),
        n=n,
        degree=degree,
        diameter=sum(a - 1 for a in dims),
        bisection_links=_grid_bisection(dims, periodic=False),
        _builder=lambda: _grid_graph(dims, periodic=False),
    )


def hypercube(dim) -> Topology:
    """Hypercube of dimension ``dim``: ``2**dim`` nodes, degree and diameter ``dim``, bisection ``2**(dim-1)``.

    Examples
    --------
    >>> h = hypercube(4)
    >>> h.n, h.degree, h.diameter, h.bisection_links
    (16, 4, 4, 8)
    """
    dim = check_int("dim", dim, minimum=0, maximum=30)
    n = 2**dim

    def build() -> nx.Graph:
        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from((v, v ^ (1 << b)) for v in range(n) for b in range(dim) if v < v ^ (1 << b))
        return g

    return Topology(
        family="hypercube",
        name=f"hypercube {dim}-d",
        n=n,
        degree=dim,
        diameter=dim,
        bisection_links=n // 2 if dim >= 1 else 0,
        _builder=build,
    )


def fully_connected(n) -> Topology:
    """Complete graph on ``n`` nodes: degree ``n-1``, diameter 1, bisection ``floor(n/2) * ceil(n/2)``.

    Examples
    --------
    >>> f = fully_connected(8)
    >>> f.degree, f.diameter, f.bisection_links
    (7, 1, 16)
    """
    n = check_int("n", n, minimum=1)
    return Topology(
        family="fully_connected",
        name=f"fully connected {n}",
        n=n,
        degree=n - 1,
        diameter=1 if n >= 2 else 0,
        bisection_links=(n // 2) * ((n + 1) // 2),
        _builder=lambda: nx.complete_graph(n),
    )


# --------------------------------------------------------------------------- switched networks


def single_switch(n) -> Topology:
    """``n`` endpoints on one non-blocking switch (a star): degree 1, 2 hops, bisection ``floor(n/2)``.

    Examples
    --------
    >>> s = single_switch(8)
    >>> s.degree, s.diameter, s.step_diameter, s.bisection_links
    (1, 2, 1, 4)
    """
    n = check_int("n", n, minimum=2)

    def build() -> nx.Graph:
        g = nx.Graph()
        g.add_nodes_from(range(n), kind="endpoint")
        g.add_node(("switch", 0), kind="switch")
        g.add_edges_from((v, ("switch", 0)) for v in range(n))
        return g

    return Topology(
        family="single_switch",
        name=f"single switch {n}",
        n=n,
        degree=1,
        diameter=2,
        bisection_links=n // 2,
        switched=True,
        _builder=build,
    )


def _default_hosts_per_leaf(n: int, oversubscription: float) -> int:
    # The divisor of n closest to sqrt(n) (ties: the larger) that leaves at least two leaves
    # and an integral number of spines.
    candidates = [h for h in range(1, n) if n % h == 0 and _spines(h, oversubscription) is not None]
    if not candidates:
        raise ValueError(
            f"no hosts_per_leaf divides n={n} with an integral number of spines at "
            f"oversubscription={oversubscription}; pass hosts_per_leaf explicitly"
        )
    return min(candidates, key=lambda h: (abs(h - math.sqrt(n)), -h))


def _spines(hosts_per_leaf: int, oversubscription: float) -> int | None:
    s = hosts_per_leaf / oversubscription
    r = round(s)
    return r if r >= 1 and abs(s - r) < 1e-9 else None


def fat_tree(n, oversubscription=1, hosts_per_leaf=None) -> Topology:
    """Two-level fat-tree (leaf-spine folded Clos) with ``n`` hosts.

    ``hosts_per_leaf = h`` hosts hang off each of ``L = n / h`` leaf switches; each leaf has one
    link to each of ``S = h / oversubscription`` spine switches. ``oversubscription = 1`` is full
    bisection bandwidth (``n/2`` links cross the best balanced cut); a factor ``o`` leaves
    ``h / o`` uplinks per leaf, so about ``n / (2 o)`` links cross it.

    Parameters
    ----------
    n : int
        Hosts, ``n >= 4``.
    oversubscription : float, default 1
        Downlinks / uplinks of a leaf, ``>= 1``; ``hosts_per_leaf / oversubscription`` must be an integer.
    hosts_per_leaf : int, optional
        Must divide ``n`` and leave at least two leaves; default the divisor closest to ``sqrt(n)``.

    Examples
    --------
    >>> t = fat_tree(16)
    >>> t.degree, t.diameter, t.step_diameter, t.bisection_links
    (1, 4, 1, 8)
    >>> fat_tree(16, oversubscription=2).bisection_links
    4
    """
    n = check_int("n", n, minimum=4)
    o = check_real("oversubscription", oversubscription, minimum=1.0)
    if hosts_per_leaf is None:
        h = _default_hosts_per_leaf(n, o)
    else:
        h = check_int("hosts_per_leaf", hosts_per_leaf, minimum=1, maximum=n // 2)
        if n % h:
            raise ValueError(f"hosts_per_leaf must divide n={n}, got {h}")
    s = _spines(h, o)
    if s is None:
        raise ValueError(
            f"hosts_per_leaf / oversubscription must be a positive integer (spines per leaf), "
            f"got {h} / {o}"
        )
    leaves = n // h

    def build() -> nx.Graph:
        g = nx.Graph()
        g.add_nodes_from(range(n), kind="endpoint")
        for leaf in range(leaves):
            g.add_node(("leaf", leaf), kind="switch")
            g.add_edges_from((leaf * h + i, ("leaf", leaf)) for i in range(h))
            for spine in range(s):
                g.add_node(("spine", spine), kind="switch")
                g.add_edge(("leaf", leaf), ("spine", spine))
        return g

    # A balanced cut puts l of the L leaves on the small side: spine links cut = s * min(l, L-l)
    # (each spine sits with its majority), plus host links for the hosts that must move to
    # balance the sides exactly.
    targets = {n // 2, (n + 1) // 2}
    bisection = min(s * min(l, leaves - l) + abs(t - h * l) for l in range(leaves + 1) for t in targets)
    name = f"fat-tree {n} hosts ({leaves} leaves x {h}, {s} spines" + (f", {o:g}:1 oversubscribed)" if o != 1 else ")")
    return Topology(
        family="fat_tree",
        name=name,
        n=n,
        degree=1,
        diameter=4,
        bisection_links=bisection,
        switched=True,
        oversubscription=o,
        _builder=build,
    )


# --------------------------------------------------------------------------- measurement


def endpoints(topology: Topology) -> list:
    """Endpoint vertices of the graph (``0 .. n-1``)."""
    return [v for v, kind in topology.graph.nodes(data="kind") if kind == "endpoint"]


def measured_diameter(topology: Topology) -> int:
    """Largest endpoint-to-endpoint BFS distance on ``topology.graph`` (the check of ``diameter``).

    >>> measured_diameter(torus(4, 6))
    5
    """
    g = topology.graph
    ends = set(endpoints(topology))
    if len(ends) <= 1:
        return 0
    best = 0
    for source in ends:
        lengths = nx.single_source_shortest_path_length(g, source)
        best = max(best, max(d for v, d in lengths.items() if v in ends))
    return best


def measured_bisection(topology: Topology, max_endpoints: int = 18) -> int:
    """Exact balanced min-cut by exhaustive search over endpoint splits (small graphs only).

    For direct networks every split of the endpoints into ``floor(n/2)`` / ``ceil(n/2)`` is
    counted; with switches, each split's best switch placement is an s-t min cut (max-flow).

    >>> measured_bisection(ring(9)), measured_bisection(torus(3, 3))
    (2, 8)
    """
    n = topology.n
    if n > max_endpoints:
        raise ValueError(f"exhaustive bisection is limited to n <= {max_endpoints} endpoints, got n={n}")
    if n == 1:
        return 0
    if topology.family == "custom":  # parallel links (edge attribute "links") count with multiplicity
        from .user_topology import _measured_bisection

        return _measured_bisection(topology)
    g = topology.graph
    ends = endpoints(topology)
    half = n // 2
    best = math.inf
    if not topology.switched:
        adjacency = [0] * n
        for u, v in g.edges:
            adjacency[u] |= 1 << v
            adjacency[v] |= 1 << u
        full = (1 << n) - 1
        # Fixing node 0 on the side of size ceil(n/2) loses nothing by symmetry of the cut.
        side = n - half
        for rest in itertools.combinations(range(1, n), side - 1):
            mask = 1
            for v in rest:
                mask |= 1 << v
            outside = full & ~mask
            cut = sum(bin(adjacency[v] & outside).count("1") for v in (0, *rest))
            best = min(best, cut)
        return int(best)
    flow = nx.DiGraph()
    for u, v in g.edges:
        flow.add_edge(u, v, capacity=1)
        flow.add_edge(v, u, capacity=1)
    for rest in itertools.combinations(ends[1:], n - half - 1):
        side_a = {ends[0], *rest}
        h = flow.copy()
        for v in ends:
            if v in side_a:
                h.add_edge("_source", v, capacity=math.inf)
            else:
                h.add_edge(v, "_sink", capacity=math.inf)
        value, _ = nx.minimum_cut(h, "_source", "_sink")
        best = min(best, value)
    return int(best)
