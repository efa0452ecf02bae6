"""The bisection lower bound: bytes that must cross a balanced cut, over the cut's bandwidth.

Split the nodes into halves ``A`` (``floor(N/2)`` nodes) and ``B`` (``ceil(N/2)``). Whatever a
node of one half needs from the other must cross the cut, whose links carry
:math:`B_{\\text{bisection}}` bytes/s in each direction (links are full duplex). So
(``eq:cc-bound-bisection``, with the corrected volumes)

.. math:: T_{\\text{bisection}} \\ge \\frac{V_{\\text{cross}}}{B_{\\text{bisection}}},

where ``V_cross`` is the larger of the two directions:

================ ==========================================================
primitive        bytes that must cross in the busier direction
================ ==========================================================
broadcast        M (the root's half to the other half)
scatter, gather  floor(N/2) M / N (the blocks of the half without the root)
reduce           M
reduce_scatter   ceil(N/2) M / N (each output block needs the other half)
all_gather       ceil(N/2) M / N (one copy of each block crosses)
all_reduce       M (every output element depends on the other half)
all_to_all       floor(N/2) ceil(N/2) M / N
================ ==========================================================

The source's ``M/2`` for AllReduce is too small: ``A``'s M output bytes all depend on ``B``'s
inputs, so at least ``M`` bytes cross from ``B`` to ``A`` (and ``M`` the other way).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_bandwidth, check_int, check_size, is_array
from .bandwidth import bandwidth_lower_bound
from .primitives import check_primitive
from .topology import Topology

__all__ = ["bisection_bytes", "bisection_lower_bound", "node_lower_bound", "tighter_bound", "bisection_partition", "cut_links"]


def bisection_bytes(primitive, n, m):
    """Bytes that must cross a balanced cut in its busier direction (see module table).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int or array of int
        Nodes, ``n >= 1``.
    m : float or array
        Message size in bytes (the book's buffer conventions).

    Examples
    --------
    >>> bisection_bytes("all_reduce", 16, 1024), bisection_bytes("all_to_all", 16, 1024)
    (1024.0, 4096.0)
    >>> bisection_bytes("all_gather", 5, 1000)
    600.0
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1)
    m = check_size("m", m)
    small, large = n // 2, (n + 1) // 2
    if primitive in ("broadcast", "reduce", "all_reduce"):
        value = np.where(n > 1, m, 0.0) * np.ones_like(np.asarray(m, dtype=float))
    elif primitive in ("scatter", "gather"):
        value = small * m / n
    elif primitive in ("reduce_scatter", "all_gather"):
        value = np.where(n > 1, large * m / n, 0.0)
    else:  # all_to_all
        value = small * large * m / n
    value = np.asarray(value, dtype=float)
    return value if value.ndim else float(value)


def bisection_lower_bound(primitive, topology, m, beta):
    """Bisection lower bound in seconds: ``bisection_bytes / (bisection_links * beta)``.

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    topology : Topology
        The network (its ``bisection_links`` and ``n`` are used).
    m : float or array
        Message size in bytes.
    beta : float
        Bandwidth of one link in one direction, bytes/s.

    Examples
    --------
    >>> from ccb_helpers.topology import ring, torus
    >>> bisection_lower_bound("all_reduce", ring(8), 2**20, 1e9) * 2e9 == 2**20
    True
    >>> round(bisection_lower_bound("all_to_all", torus(16, 16), 2**20, 1e9) * 1e3, 4)  # 64 M / (32 links)
    2.0972
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology (e.g. ccb.ring(8)), got {type(topology).__name__}")
    beta = check_bandwidth("beta", beta)
    volume = bisection_bytes(primitive, topology.n, m)
    if topology.bisection_links == 0:
        return np.zeros_like(volume) if is_array(volume) else 0.0
    return volume / (topology.bisection_links * beta)


def node_lower_bound(primitive, topology, m, beta, ports=1):
    """Node-level bandwidth bound on ``topology``: ``p = min(ports, topology.degree)``.

    >>> from ccb_helpers.topology import ring
    >>> node_lower_bound("all_gather", ring(8), 8000, 1.0, ports=4)   # p = 2
    3500.0
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology, got {type(topology).__name__}")
    if topology.n == 1:
        return 0.0
    return bandwidth_lower_bound(primitive, topology.n, m, beta, ports=ports, degree=max(topology.degree, 1))


def tighter_bound(primitive, topology, m, beta, ports=1) -> str:
    """``"bisection"`` if the bisection bound is strictly larger than the node-level bound, else ``"node"``.

    >>> from ccb_helpers.topology import torus
    >>> tighter_bound("all_reduce", torus(16, 16), 2**20, 1e9), tighter_bound("all_to_all", torus(16, 16), 2**20, 1e9)
    ('node', 'bisection')
    """
    bis = bisection_lower_bound(primitive, topology, m, beta)
    node = node_lower_bound(primitive, topology, m, beta, ports)
    return "bisection" if bis > node else "node"


def bisection_partition(topology: Topology) -> set:
    """The endpoints on one side (``floor(N/2)`` of them) of a minimum balanced cut.

    Built from the same construction as the closed-form ``bisection_links`` (so the cut drawn in
    the book is the one the number counts): the first half of a ring or complete graph, a plane
    or staircase cut of a torus / mesh, one address bit of a hypercube, half the leaves of a
    fat-tree (hosts moved to balance when the leaf count is odd).

    >>> from ccb_helpers.topology import ring, torus
    >>> sorted(bisection_partition(ring(6)))
    [0, 1, 2]
    >>> cut_links(torus(3, 3), bisection_partition(torus(3, 3)))
    8
    """
    from .topology import _grid_partition

    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology, got {type(topology).__name__}")
    n = topology.n
    family = topology.family
    if family == "custom":
        if topology.switched:
            ups = sorted(range(n), key=lambda v: sum(d.get("links", 1) for _, _, d in topology.graph.edges(v, data=True)))
            return set(ups[: n // 2])  # a single switch: the endpoints with the fewest links
        from .user_topology import MAX_BISECTION_ENDPOINTS, _bisection_side

        if n > MAX_BISECTION_ENDPOINTS:
            raise ValueError(f"the minimum cut of a custom topology is searched exhaustively, n <= {MAX_BISECTION_ENDPOINTS}; got n={n}")
        return _bisection_side(topology)
    if family in ("ring", "fully_connected", "single_switch"):
        return set(range(n // 2))
    if family == "hypercube":
        dim = topology.degree
        return {v for v in range(n) if dim and not v >> (dim - 1) & 1}
    if family in ("torus", "mesh"):
        coords = dict(topology.graph.nodes(data="coord"))
        dims = tuple(max(c[i] for c in coords.values()) + 1 for i in range(len(next(iter(coords.values())))))
        small = _grid_partition(dims, periodic=family == "torus")
        return {v for v, c in coords.items() if c in small}
    # fat tree: the leaf count l and host moves that the closed form minimised
    g = topology.graph
    leaves = sorted(v for v in g.nodes if isinstance(v, tuple) and v[0] == "leaf")
    spines = [v for v in g.nodes if isinstance(v, tuple) and v[0] == "spine"]
    per_leaf = n // len(leaves)
    target = n // 2
    best = min(range(len(leaves) + 1),
               key=lambda l: len(spines) * min(l, len(leaves) - l) + abs(target - per_leaf * l))
    side = set(range(best * per_leaf))  # hosts of the first `best` leaves
    extra = target - len(side)
    if extra > 0:
        side |= set(range(best * per_leaf, best * per_leaf + extra))
    elif extra < 0:
        side -= set(range(best * per_leaf + extra, best * per_leaf))
    return side


def cut_links(topology: Topology, side) -> int:
    """Links crossing between ``side`` (endpoints) and the rest; switches are placed optimally.

    >>> from ccb_helpers.topology import ring
    >>> cut_links(ring(8), {0, 1, 2, 3})
    2
    """
    import math

    import networkx as nx

    side = set(side)
    g = topology.graph
    if not topology.switched:  # parallel links (edge attribute "links") count with multiplicity
        return sum(d.get("links", 1) for u, v, d in g.edges(data=True) if (u in side) != (v in side))
    flow = nx.DiGraph()
    for u, v, d in g.edges(data=True):
        flow.add_edge(u, v, capacity=d.get("links", 1))
        flow.add_edge(v, u, capacity=d.get("links", 1))
    for v in range(topology.n):
        flow.add_edge("_s", v, capacity=math.inf) if v in side else flow.add_edge(v, "_t", capacity=math.inf)
    return int(nx.minimum_cut_value(flow, "_s", "_t"))
