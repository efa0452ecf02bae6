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
from functools import cached_property, lru_cache, reduce
from operator import mul
from typing import Callable

import networkx as nx

from ._validation import check_bool, check_cap, check_int, check_real

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

#: Most endpoints a topology constructor accepts (closed forms only; the graph has its own cap).
MAX_ENDPOINTS = 2**62
#: Most hosts of :func:`fat_tree` (its default leaf size is found among the divisors of n).
MAX_FAT_TREE_HOSTS = 2**40
#: Most side lengths of a torus / mesh.
MAX_DIMS = 64
#: Most vertices + edges of ``Topology.graph`` (networkx builds ~5e4 per second on this machine).
MAX_GRAPH_ELEMENTS = 2**19
#: Most work units (one BFS edge visit, one bit operation per node and split) of the measurements.
MAX_MEASURE_WORK = 2**22
#: Memory budget of a graph and of the measurements on it, bytes. The estimate (networkx's dicts:
#: bytes per vertex and per edge, :func:`_graph_memory`) is checked before building, with
#: :data:`MAX_GRAPH_ELEMENTS`; at that cap it is at most 370 MB. tracemalloc at the cap measured
#: 584 bytes per vertex + edge for ring(262144), 776 for single_switch(262143), 983 per vertex
#: (with its 2 edges) for the largest fat tree, 137 per edge for fully_connected(1023); the
#: resident set grew by 218 MB for that single switch (estimate 252 MB), 177 MB for that fat tree
#: (estimate 213 MB). tests/test_memory_caps.py checks peak <= estimate at a lowered cap.
MAX_GRAPH_BYTES = 2**30
_GRAPH_BYTES_PER_VERTEX = 704
_GRAPH_BYTES_PER_EDGE = 256
#: Bytes per vertex the measurements add to the graph (one BFS's distances, the search's sets).
_MEASURE_BYTES_PER_VERTEX = 256


def _graph_memory(vertices: int, edges: int) -> int:
    """Estimated peak bytes of building a networkx graph of ``vertices`` and ``edges``."""
    return _GRAPH_BYTES_PER_VERTEX * vertices + _GRAPH_BYTES_PER_EDGE * edges


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
    #: (vertices, edges) of the graph the builder makes, when known in advance (for the cap).
    _graph_size: tuple | None = field(default=None, repr=False, compare=False)
    #: Side lengths of a torus or mesh (empty otherwise).
    dims: tuple = field(default=(), repr=False, compare=False)

    def __post_init__(self):
        for name in ("family", "name"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string, got {type(getattr(self, name)).__name__}")
        set_ = object.__setattr__
        set_(self, "n", check_int("n", self.n, minimum=1, maximum=MAX_ENDPOINTS, scalar=True))
        for name in ("degree", "diameter", "bisection_links"):
            set_(self, name, check_int(name, getattr(self, name), minimum=0, scalar=True))
        set_(self, "switched", check_bool("switched", self.switched))
        set_(self, "oversubscription", check_real("oversubscription", self.oversubscription, minimum=1.0, scalar=True))
        if self._builder is not None and not callable(self._builder):
            raise TypeError("_builder must be a function returning a networkx graph")
        if not isinstance(self.dims, tuple):
            raise TypeError(f"dims must be a tuple of side lengths, got {type(self.dims).__name__}")
        if self._graph_size is not None:  # (vertices, edges): what the graph's cap is checked on
            if not (isinstance(self._graph_size, tuple) and len(self._graph_size) == 2):
                raise TypeError(f"_graph_size must be None or a (vertices, edges) tuple, got {self._graph_size!r:.60}")
            for i, count in enumerate(self._graph_size):
                check_int(f"_graph_size[{i}]", count, minimum=0, scalar=True)

    @cached_property
    def graph(self) -> nx.Graph:
        """The graph; endpoints are ``0 .. n-1`` with ``kind="endpoint"``, switches ``kind="switch"``.

        An edge may carry ``links`` (parallel links, default 1: see :mod:`ccb_helpers.user_topology`).
        Built on first use, at most ``MAX_GRAPH_ELEMENTS = 2**19`` vertices + edges (checked
        before building; the closed-form attributes work at any size).
        """
        if self._builder is None:
            raise ValueError(f"topology {self.name!r} has no graph (it was made without a builder)")
        if self._graph_size is not None:
            vertices, edges = self._graph_size
            check_cap(
                f"the graph of {self.name}: vertices + edges",
                vertices + edges,
                MAX_GRAPH_ELEMENTS,
                hint="the closed-form attributes (diameter, bisection_links, ...) need no graph",
            )
            check_cap(f"the graph of {self.name}: memory", _graph_memory(vertices, edges), MAX_GRAPH_BYTES, "bytes")
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
        from ._validation import check_bandwidth

        beta = check_bandwidth("beta", beta)
        return self.bisection_links * beta

    def __str__(self) -> str:
        return self.name


# --------------------------------------------------------------------------- helpers


def _prod(values) -> int:
    return reduce(mul, values, 1)


def check_topology(topology, name: str = "topology") -> Topology:
    """``topology`` must be a :class:`Topology` (a clear TypeError otherwise)."""
    if not isinstance(topology, Topology):
        raise TypeError(f"{name} must be a Topology (e.g. ccb.ring(8)), got {type(topology).__name__}")
    return topology


def _check_dims(dims) -> tuple[int, ...]:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    if len(dims) == 0:
        raise ValueError("dims: give at least one side length, e.g. torus(4, 4)")
    if len(dims) > MAX_DIMS:
        raise ValueError(f"dims: at most {MAX_DIMS} side lengths, got {len(dims)}")
    dims = tuple(check_int(f"dims[{i}]", d, minimum=1, maximum=MAX_ENDPOINTS, scalar=True) for i, d in enumerate(dims))
    if _prod(dims) > MAX_ENDPOINTS:
        raise ValueError(f"dims: the product of the side lengths (the node count) must be <= 2**62, got {_prod(dims)}")
    return dims


def _grid_edges(dims: tuple[int, ...], periodic: bool) -> int:
    n = _prod(dims)
    return sum((n // a) * (a if periodic and a > 2 else a - 1) for a in dims if a > 1)


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


@lru_cache(maxsize=4096)
def _grid_cut_value(dims: tuple[int, ...], periodic: bool) -> int:
    """Links cut by the best plane / staircase cut; ``dims`` sorted, sides of 1 dropped (memoised:
    the recursion over odd sides would otherwise visit every order of them)."""
    return _grid_cut(dims, periodic)[0]


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
            rest = tuple(sorted(x for i, x in enumerate(dims) if i != axis and x > 1))
            cost += _grid_cut_value(rest, periodic) if rest else 0
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
    rest = dims[:axis] + dims[axis + 1 :]
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
    n = check_int("n", n, minimum=1, maximum=MAX_ENDPOINTS, scalar=True)
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
        _graph_size=(n, n if n >= 3 else n - 1),
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
        _graph_size=(n, _grid_edges(dims, periodic=True)),
        dims=dims,
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
        _graph_size=(n, _grid_edges(dims, periodic=False)),
        dims=dims,
    )


def hypercube(dim) -> Topology:
    """Hypercube of dimension ``dim``: ``2**dim`` nodes, degree and diameter ``dim``, bisection ``2**(dim-1)``.

    Examples
    --------
    >>> h = hypercube(4)
    >>> h.n, h.degree, h.diameter, h.bisection_links
    (16, 4, 4, 8)
    """
    dim = check_int("dim", dim, minimum=0, maximum=62, scalar=True)
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
        _graph_size=(n, n * dim // 2),
    )


def fully_connected(n) -> Topology:
    """Complete graph on ``n`` nodes: degree ``n-1``, diameter 1, bisection ``floor(n/2) * ceil(n/2)``.

    Examples
    --------
    >>> f = fully_connected(8)
    >>> f.degree, f.diameter, f.bisection_links
    (7, 1, 16)
    """
    n = check_int("n", n, minimum=1, maximum=MAX_ENDPOINTS, scalar=True)
    return Topology(
        family="fully_connected",
        name=f"fully connected {n}",
        n=n,
        degree=n - 1,
        diameter=1 if n >= 2 else 0,
        bisection_links=(n // 2) * ((n + 1) // 2),
        _builder=lambda: nx.complete_graph(n),
        _graph_size=(n, n * (n - 1) // 2),
    )


# --------------------------------------------------------------------------- switched networks


def single_switch(n, links=1) -> Topology:
    """``n`` endpoints on one non-blocking switch (a star): ``links`` links per endpoint, 2 hops.

    An NVSwitch domain is this topology: an H100 has 18 NVLink4 links into the switch fabric
    (an A100 12 NVLink3 links), however many GPUs share it. The endpoint's degree is ``links``
    whatever ``n`` is; what the switch adds is full bisection (``links * floor(n/2)`` links cross
    any balanced cut) and one round between any two endpoints, not more links per node. The
    graph keeps one edge per endpoint with the link count in its ``links`` attribute.

    Parameters
    ----------
    n : int
        Endpoints, ``n >= 2``.
    links : int, default 1
        Parallel links from each endpoint to the switch (its degree ``d``).

    Examples
    --------
    >>> s = single_switch(8)
    >>> s.degree, s.diameter, s.step_diameter, s.bisection_links
    (1, 2, 1, 4)
    >>> h100 = single_switch(8, links=18)
    >>> h100.degree, h100.bisection_links   # 4 GPUs x 18 links on each side of the cut
    (18, 72)
    """
    n = check_int("n", n, minimum=2, maximum=MAX_ENDPOINTS, scalar=True)
    links = check_int("links", links, minimum=1, maximum=1024, scalar=True)

    def build() -> nx.Graph:
        g = nx.Graph()
        g.add_nodes_from(range(n), kind="endpoint")
        g.add_node(("switch", 0), kind="switch")
        g.add_edges_from(((v, ("switch", 0)) for v in range(n)), links=links)
        return g

    return Topology(
        family="single_switch",
        name=f"single switch {n}" + (f" ({links} links per node)" if links > 1 else ""),
        n=n,
        degree=links,
        diameter=2,
        bisection_links=links * (n // 2),
        switched=True,
        _builder=build,
        _graph_size=(n + 1, n),
    )


def _default_hosts_per_leaf(n: int, oversubscription: float) -> int:
    # The divisor of n closest to sqrt(n) (ties: the larger) that leaves at least two leaves
    # and an integral number of spines. Divisors come in pairs (d, n // d) with d <= sqrt(n).
    divisors = set()
    for d in range(1, math.isqrt(n) + 1):
        if n % d == 0:
            divisors.update((d, n // d))
    candidates = [h for h in divisors if h < n and _spines(h, oversubscription) is not None]
    if not candidates:
        raise ValueError(
            f"no hosts_per_leaf divides n={n} with an integral number of spines at "
            f"oversubscription={oversubscription}; pass hosts_per_leaf explicitly"
        )
    return min(candidates, key=lambda h: (abs(h - math.sqrt(n)), -h))


def _fat_tree_bisection(n: int, h: int, s: int) -> int:
    """min over l leaves on the small side of ``s * min(l, L - l) + |t - h l|`` (t = floor or ceil n/2).

    The function of ``l`` is piecewise linear with breaks at ``L / 2`` and ``t / h``, so its
    minimum over the integers of ``[0, L]`` is at an end or next to a break: no scan over l.
    """
    leaves = n // h
    best = None
    for t in {n // 2, (n + 1) // 2}:
        candidates = {0, leaves}
        for base in (t // h, -(-t // h), leaves // 2, (leaves + 1) // 2):
            candidates.update(l for l in (base - 1, base, base + 1) if 0 <= l <= leaves)
        value = min(s * min(l, leaves - l) + abs(t - h * l) for l in candidates)
        best = value if best is None else min(best, value)
    return best


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
    n = check_int("n", n, minimum=4, maximum=MAX_FAT_TREE_HOSTS, scalar=True)
    o = check_real("oversubscription", oversubscription, minimum=1.0, maximum=float(n), scalar=True)
    if hosts_per_leaf is None:
        h = _default_hosts_per_leaf(n, o)
    else:
        h = check_int("hosts_per_leaf", hosts_per_leaf, minimum=1, maximum=n // 2, scalar=True)
        if n % h:
            raise ValueError(f"hosts_per_leaf must divide n={n}, got {h}")
    s = _spines(h, o)
    if s is None:
        raise ValueError(
            f"hosts_per_leaf / oversubscription must be a positive integer (spines per leaf), got {h} / {o}"
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
    bisection = _fat_tree_bisection(n, h, s)
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
        _graph_size=(n + leaves + s, n + leaves * s),
    )


# --------------------------------------------------------------------------- measurement


def endpoints(topology: Topology) -> list:
    """Endpoint vertices of the graph (``0 .. n-1``)."""
    check_topology(topology)
    return _endpoints(topology)


def _endpoints(topology: Topology) -> list:
    return [v for v, kind in topology.graph.nodes(data="kind") if kind == "endpoint"]


def _graph_elements(topology: Topology) -> int:
    """Vertices + edges, from the closed form when known (the graph is not built for this)."""
    if topology._graph_size is not None:
        return sum(topology._graph_size)
    g = topology.graph
    return g.number_of_nodes() + g.number_of_edges()


def _measure_memory(topology: Topology) -> int:
    """Estimated peak bytes of a measurement (:func:`measured_diameter`, :func:`measured_bisection`):
    the graph, if not built yet, and the search's per-vertex state."""
    if topology._graph_size is not None:
        vertices, edges = topology._graph_size
    else:
        g = topology.graph
        vertices, edges = g.number_of_nodes(), g.number_of_edges()
    return _graph_memory(vertices, edges) + _MEASURE_BYTES_PER_VERTEX * vertices


def measured_diameter(topology: Topology) -> int:
    """Largest endpoint-to-endpoint BFS distance on ``topology.graph`` (the check of ``diameter``).

    One BFS per endpoint: the estimated work ``n * (vertices + edges)`` must stay within
    ``MAX_MEASURE_WORK = 2**22`` (checked before the graph is built; about 5 s here).

    >>> measured_diameter(torus(4, 6))
    5
    """
    check_topology(topology)
    check_cap(
        f"measured_diameter({topology.name}): BFS work n * (vertices + edges)",
        topology.n * _graph_elements(topology),
        MAX_MEASURE_WORK,
    )
    check_cap(f"measured_diameter({topology.name}): memory", _measure_memory(topology), MAX_GRAPH_BYTES, "bytes")
    return _measured_diameter(topology)


def _measured_diameter(topology: Topology) -> int:
    g = topology.graph
    ends = set(_endpoints(topology))
    if len(ends) <= 1:
        return 0
    best = 0
    for source in ends:
        lengths = nx.single_source_shortest_path_length(g, source)
        best = max(best, max(d for v, d in lengths.items() if v in ends))
    return best


def _bisection_plan(topology: Topology, max_endpoints: int):
    """(method, estimated work) of the cheapest exact balanced min-cut search."""
    n = topology.n
    if n > max_endpoints:
        raise ValueError(f"exhaustive bisection is limited to n <= max_endpoints={max_endpoints} endpoints, got n={n}")
    elements = _graph_elements(topology)
    check_cap(f"measured_bisection({topology.name}): vertices + edges", elements, MAX_GRAPH_ELEMENTS)
    # node 0 on the large side, and for odd n on the small side too
    splits = sum(math.comb(n - 1, size - 1) for size in {n // 2, n - n // 2} - {0})
    if not topology.switched:
        return "splits", splits * n
    g = topology.graph
    switches = [v for v, kind in g.nodes(data="kind") if kind == "switch"]
    plans = [("flow", splits * 100 * elements)]  # one max-flow (~100 units per element) per split
    if not any(g.nodes[u]["kind"] == g.nodes[v]["kind"] == "endpoint" for u, v in g.edges):
        plans.append(("switches", 2 ** len(switches) * elements))
    return min(plans, key=lambda plan: plan[1])


def measured_bisection(topology: Topology, max_endpoints: int = 64) -> int:
    """Exact balanced min-cut by exhaustive search (small graphs only).

    Direct networks: every split of the endpoints into ``floor(n/2)`` / ``ceil(n/2)`` is counted.
    Switched networks: whichever is cheaper of (a) every endpoint split, each completed by an s-t
    min cut (max-flow) that places the switches, or (b) when no two endpoints are linked directly,
    every placement of the switches, each completed by putting on the small side the
    ``floor(n/2)`` endpoints with the fewest links into the other side.

    The estimated work (splits x n, or placements x graph size, or splits x max-flow size) must stay
    within ``MAX_MEASURE_WORK = 2**22`` (checked before any search; about 5 s here); ``max_endpoints``
    is an extra limit of your own.

    >>> measured_bisection(ring(9)), measured_bisection(torus(3, 3)), measured_bisection(fat_tree(18))
    (2, 8, 9)
    """
    check_topology(topology)
    max_endpoints = check_int("max_endpoints", max_endpoints, minimum=1, scalar=True)
    method, work = _bisection_plan(topology, max_endpoints)
    check_cap(f"measured_bisection({topology.name}): search work ({method})", work, MAX_MEASURE_WORK)
    check_cap(f"measured_bisection({topology.name}): memory", _measure_memory(topology), MAX_GRAPH_BYTES, "bytes")
    return _measured_bisection(topology, method)


def _measured_bisection(topology: Topology, method: str) -> int:
    n = topology.n
    if n == 1:
        return 0
    # Parallel links (edge attribute "links", custom topologies and single_switch(links=)) count
    # with their multiplicity in every method below. (Custom topologies used to go to the flow
    # search of user_topology whatever the plan said, so a star of 24 GPUs on one NVSwitch, planned
    # as 2 switch placements, ran 2.7 million max-flows.)
    g = topology.graph
    ends = _endpoints(topology)
    half = n // 2
    best = math.inf
    # Node 0 may sit on either side; for odd n the sides differ in size, so both sizes are tried
    # for the side holding node 0 (fixing it on the larger side is only safe on graphs where every
    # node looks alike, e.g. not on a complete graph with a pendant node).
    sizes = {half, n - half} - {0}
    if method == "splits":
        # adjacency[c][u]: neighbours joined to u by c or more parallel links, as a bit mask, so a
        # cut is a sum of popcounts.
        most = max((count for *_, count in g.edges(data="links", default=1)), default=1)
        adjacency = [[0] * n for _ in range(most + 1)]
        for u, v, count in g.edges(data="links", default=1):
            for c in range(1, count + 1):
                adjacency[c][u] |= 1 << v
                adjacency[c][v] |= 1 << u
        full = (1 << n) - 1
        for size in sizes:
            for rest in itertools.combinations(range(1, n), size - 1):
                mask = 1
                for v in rest:
                    mask |= 1 << v
                outside = full & ~mask
                cut = sum(bin(layer[v] & outside).count("1") for layer in adjacency[1:] for v in (0, *rest))
                best = min(best, cut)
        return int(best)
    if method == "switches":
        switches = [v for v, kind in g.nodes(data="kind") if kind == "switch"]
        index = {v: i for i, v in enumerate(switches)}
        # parallel links (edge attribute "links") count with their multiplicity
        # (as weights, not repeated entries: the work is then the graph size the plan estimated,
        # not n x links)
        switch_links = [
            (index[u], index[v], count) for u, v, count in g.edges(data="links", default=1) if u in index and v in index
        ]
        ups = [[(index[w], data.get("links", 1)) for w, data in g[v].items()] for v in ends]
        for placement in range(1 << len(switches)):  # bit i set: switch i on the small side
            cut = sum(count for a, b, count in switch_links if (placement >> a & 1) != (placement >> b & 1))
            # An endpoint on the small side cuts its links to large-side switches, and vice versa.
            small_cost, large_cost = [], []
            for links in ups:
                on_small = sum(count for i, count in links if placement >> i & 1)
                small_cost.append(sum(count for _, count in links) - on_small)
                large_cost.append(on_small)
            gains = sorted(sc - lc for sc, lc in zip(small_cost, large_cost))
            best = min(best, cut + sum(large_cost) + sum(gains[:half]))
        return int(best)
    flow = nx.DiGraph()
    for u, v, count in g.edges(data="links", default=1):
        flow.add_edge(u, v, capacity=count)
        flow.add_edge(v, u, capacity=count)
    for size in sizes:
        for rest in itertools.combinations(ends[1:], size - 1):
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
