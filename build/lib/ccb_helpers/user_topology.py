"""Your own topology: graphs and link-count matrices with parallel links, and the DGX-1.

The families of :mod:`ccb_helpers.topology` have one link per neighbour pair. Real machines bond
several links between two GPUs: ``nvidia-smi topo -m`` prints ``NV2`` for two NVLinks, and a
DGX-1 mixes single and double links. Here a link's **multiplicity** ``b`` is its capacity: ``b``
parallel links move ``b`` times the bytes of one link per second (each link full duplex, ``β``
bytes/s per direction, as everywhere in the book). The multiplicity is the edge attribute
``"links"`` of ``topology.graph`` (absent means 1).

* :func:`topology_from_links` — a symmetric matrix, entry ``i, j`` = links between ``i`` and ``j``;
* :func:`topology_from_graph` — a networkx ``Graph`` (edge attribute ``links``) or ``MultiGraph``
  (parallel edges), optionally with switch vertices (``kind="switch"``);
* :func:`dgx1` — NVIDIA's DGX-1 (V100) hybrid cube-mesh.

The printouts of the vendors' tools (``nvidia-smi topo -m``, ``rocm-smi --showtopo``) are read
by :mod:`ccb_helpers.smi`, which builds its topologies with the constructors here.

Degree, diameter and bisection are **measured** on the graph: degree = the largest number of
links at an endpoint (multiplicities summed), diameter by BFS, bisection by exhaustive search over
balanced splits with multiplicities as weights (capped; see :data:`MAX_BISECTION_ENDPOINTS`).
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np

from ._validation import check_cap, check_int
from .topology import _MEASURE_BYTES_PER_VERTEX, MAX_GRAPH_BYTES, Topology, _graph_memory

__all__ = [
    "topology_from_links",
    "topology_from_graph",
    "dgx1",
    "link_matrix",
    "DGX1_LINKS",
    "MAX_BISECTION_ENDPOINTS",
    "MAX_LINKS_PER_PAIR",
]

#: Exhaustive bisection is measured up to this many endpoints (C(20, 10) = 184 756 splits).
MAX_BISECTION_ENDPOINTS = 20
#: Switched graphs need one max-flow per split; measured up to this many endpoints.
MAX_SWITCHED_BISECTION_ENDPOINTS = 12
#: Measuring a switched graph's bisection runs one max-flow per balanced split of the endpoints:
#: about ``splits * (vertices + adjacent pairs)`` units (462 splits at 11 or 12 endpoints). A unit
#: took 7-20 us here (a ring or chain of switches the slowest, a clique of switches the fastest:
#: ``benchmarks/bench_robust_caps.py bisection``), so the cap is 0.9-2.6 CPU-s; checked before
#: anything is built (12 endpoints under a ring of 1268 switches took 23 s before the cap).
#: 12 endpoints each linked to 20 switches are within it.
MAX_SWITCHED_BISECTION_WORK = 2**17
#: Largest topology accepted (endpoints), so a typo cannot start a huge computation.
MAX_ENDPOINTS = 1024
#: Most parallel links accepted between two endpoints (a typo such as 10**9 would otherwise overflow
#: the integer capacities of the bounds and the solver's coefficients).
MAX_LINKS_PER_PAIR = 1024
#: Measuring the diameter runs one BFS per endpoint: about ``n * (n + adjacent pairs)`` steps.
#: Above this estimate the constructors refuse before building anything (a dense 1024-endpoint
#: matrix would take minutes; a ring of 1024 or a dense matrix of 300 take seconds).
MAX_DIAMETER_WORK = 20_000_000
#: Most edges (parallel ones counted) :func:`topology_from_graph` reads from its argument: one
#: Python step each (about 2 s at the cap), checked before the first.
MAX_GRAPH_INPUT_EDGES = 2**21

#: NVLink counts of the DGX-1 with V100 GPUs (hybrid cube-mesh): two quads 0-3 and 4-7, each GPU
#: with 6 NVLinks. GPUs 0-1-3-2 form a double-link chain in the first quad and 4-5-7-6 in the
#: second; 0-4 and 2-6 are double links between the quads, 1-5 and 3-7 single ones; the
#: remaining quad pairs (0-2, 0-3, 1-2 ... ) are single links. Source: the topology definition of
#: Microsoft's SCCL/MSCCL (``msccl/topologies/nvidia.py``, ``dgx1()``), consistent with NVIDIA's
#: DGX-1 (V100) system architecture whitepaper (6 NVLinks per V100, hybrid cube-mesh).
DGX1_LINKS = (
    (0, 2, 1, 1, 2, 0, 0, 0),
    (2, 0, 1, 2, 0, 1, 0, 0),
    (1, 1, 0, 2, 0, 0, 2, 0),
    (1, 2, 2, 0, 0, 0, 0, 1),
    (2, 0, 0, 0, 0, 2, 1, 1),
    (0, 1, 0, 0, 2, 0, 1, 2),
    (0, 0, 2, 0, 1, 1, 0, 2),
    (0, 0, 0, 1, 1, 2, 2, 0),
)


# --------------------------------------------------------------------------- measurement


def _multiplicity(data) -> int:
    return int(data.get("links", 1))


def link_matrix(topology: Topology) -> np.ndarray:
    """Links between every pair of endpoints, ``(n, n)`` ints (multiplicities; 0 = not adjacent).

    Switch vertices are not endpoints: a switched topology gives an all-zero matrix (every pair
    talks through the switch; see :func:`endpoint_uplinks`).

    >>> import ccb_helpers as ccb
    >>> link_matrix(ccb.ring(4)).tolist()
    [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]
    >>> int(link_matrix(dgx1()).sum(axis=1).max())   # 6 NVLinks per V100
    6
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology, got {type(topology).__name__}")
    check_cap(f"link_matrix({topology.name}): memory", _link_matrix_memory(topology.n), 2**30, "bytes")
    return _link_matrix(topology)


def _link_matrix_memory(n: int) -> int:
    """The n x n int64 matrix and the walk over the edges (8 n**2 alone was 56 KB short at n = 1024)."""
    return 8 * n * n + _MEASURE_BYTES_PER_VERTEX * n


def _link_matrix(topology: Topology) -> np.ndarray:
    n = topology.n
    out = np.zeros((n, n), dtype=np.int64)
    for u, v, data in topology.graph.edges(data=True):
        if isinstance(u, int) and isinstance(v, int) and u < n and v < n and not isinstance(u, bool):
            out[u, v] = out[v, u] = _multiplicity(data)
    return out


def endpoint_uplinks(topology: Topology) -> np.ndarray:
    """Links from each endpoint to the switch of a single-switch topology (``(n,)`` ints)."""
    g = topology.graph
    ups = np.zeros(topology.n, dtype=np.int64)
    for v in range(topology.n):
        ups[v] = sum(_multiplicity(d) for _, u, d in g.edges(v, data=True) if g.nodes[u].get("kind") == "switch")
    return ups


def _is_single_switch(topology: Topology) -> bool:
    """One switch vertex, every endpoint attached to it and to nothing else."""
    g = topology.graph
    switches = [v for v, kind in g.nodes(data="kind") if kind == "switch"]
    if len(switches) != 1:
        return False
    return all(set(g.neighbors(v)) == {switches[0]} for v in range(topology.n))


def _weighted_bisection(n: int, edges: list[tuple[int, int, int]]) -> int:
    """Minimum over splits into floor(n/2) / ceil(n/2) endpoints of the links cut (exhaustive)."""
    if n <= 1:
        return 0
    half = n // 2
    if n % 2 == 0:
        # A split and its complement cut the same links: fix node 0 on the counted side.
        combos = (((0,) + c) for c in itertools.combinations(range(1, n), half - 1))
    else:
        combos = itertools.combinations(range(n), half)
    masks = np.fromiter((sum(1 << v for v in c) for c in combos), dtype=np.int64)
    cut = np.zeros(masks.shape, dtype=np.int64)
    for u, v, b in edges:
        cut += b * (((masks >> u) ^ (masks >> v)) & 1)
    return int(cut.min())


def _switched_bisection(g: nx.Graph, n: int) -> int:
    flow = nx.DiGraph()
    for u, v, data in g.edges(data=True):
        b = _multiplicity(data)
        flow.add_edge(u, v, capacity=b)
        flow.add_edge(v, u, capacity=b)
    best = math.inf
    half = n // 2
    # Node 0 on either side: for odd n the sides differ in size, and fixing node 0 on the larger
    # one is only safe when every endpoint looks alike.
    combos = (
        ((0,) + c) for size in sorted({half, n - half} - {0}) for c in itertools.combinations(range(1, n), size - 1)
    )
    for side in combos:
        h = flow.copy()
        chosen = set(side)
        for v in range(n):
            h.add_edge(("_s",) if v in chosen else v, v if v in chosen else ("_t",), capacity=math.inf)
        best = min(best, nx.minimum_cut_value(h, ("_s",), ("_t",)))
    return int(best)


def _measured_bisection(topology: Topology) -> int:
    """Bisection of any custom topology, multiplicities as weights (the measurement behind ``bisection_links``)."""
    g, n = topology.graph, topology.n
    if topology.switched:
        return _switched_bisection(g, n)
    return _weighted_bisection(n, [(u, v, _multiplicity(d)) for u, v, d in g.edges(data=True)])


def _bisection_side(topology: Topology) -> set:
    """The ``floor(n/2)`` endpoints of one side of a minimum balanced cut of a custom direct network."""
    n, g = topology.n, topology.graph
    # Every split as a bit mask, the cut of all of them at once (one numpy pass per edge: a Python
    # loop over splits x edges took 10 s at the cap); argmin keeps the first minimal split.
    combos = list(itertools.combinations(range(n), n // 2))
    masks = np.fromiter((sum(1 << v for v in c) for c in combos), dtype=np.int64, count=len(combos))
    cut = np.zeros(masks.shape, dtype=np.int64)
    for u, v, d in g.edges(data=True):
        cut += _multiplicity(d) * (((masks >> u) ^ (masks >> v)) & 1)
    return set(combos[int(np.argmin(cut))])


def _switched_splits(n: int) -> int:
    """Balanced splits :func:`_switched_bisection` tries: endpoint 0 fixed, on either side for odd ``n``."""
    half = n // 2
    return sum(math.comb(n - 1, size - 1) for size in {half, n - half} - {0})


def _check_bisection(n: int, switched: bool, star: bool, vertices: int, pairs: int, source: str) -> None:
    """Refuse, before any work, a bisection that :func:`_build` could not measure in time.

    ``vertices`` and ``pairs`` (distinct adjacent pairs) may be upper bounds. A single-switch star
    is counted in closed form; other switched graphs need ``n <= 12`` and a max-flow work within
    :data:`MAX_SWITCHED_BISECTION_WORK`; direct ones ``n <= 20`` (the splits' masks).
    """
    hint = "pass bisection_links=... explicitly"
    if source == "text":  # the parsers take no bisection_links
        hint = "build the topology with ccb.topology_from_graph(graph, bisection_links=...)"
    if not switched:
        if n > MAX_BISECTION_ENDPOINTS:
            raise ValueError(
                f"{source}: bisection is measured exhaustively for n <= {MAX_BISECTION_ENDPOINTS} endpoints "
                f"(C(n, n/2) splits); got n={n}: pass bisection_links=... explicitly"
            )
        return
    if star:
        return
    if n > MAX_SWITCHED_BISECTION_ENDPOINTS:
        raise ValueError(
            f"{source}: bisection of a switched graph is measured by max-flow over every split, n <= "
            f"{MAX_SWITCHED_BISECTION_ENDPOINTS} endpoints unless one switch joins them all; got n={n}: {hint}"
        )
    splits = _switched_splits(n)
    work = splits * (vertices + pairs)
    if work > MAX_SWITCHED_BISECTION_WORK:
        raise ValueError(
            f"{source}: measuring the bisection of a switched graph takes one max-flow per split: {splits} splits x "
            f"{vertices + pairs} vertices + adjacent pairs = {work:,} units, at most {MAX_SWITCHED_BISECTION_WORK:,}: "
            f"{hint}, or use fewer switches or links"
        )


#: A given ``bisection_links`` is checked against the graph up to this many endpoints (direct
#: networks: C(16, 8) / 2 = 6435 splits, milliseconds) and on every single-switch star.
MAX_CHECKED_CLAIM_ENDPOINTS = 16


def _check_claimed_bisection(g: nx.Graph, n: int, switched: bool, star: bool, claimed: int, source: str) -> None:
    """Refuse a ``bisection_links`` below the graph's minimum balanced cut, where that is cheap to measure.

    A claim above the minimum only weakens the bisection bound; one below it puts the bound
    above what schedules achieve (#37 audit: a complete graph of 4 declared with 1 link across
    ran an AllToAll in 192 B/β against a "bound" of 256). Larger graphs are taken on trust.
    """
    if star:
        ups = sorted(sum(_multiplicity(d) for _, _, d in g.edges(v, data=True)) for v in range(n))
        measured = sum(ups[: n // 2])
    elif not switched and n <= MAX_CHECKED_CLAIM_ENDPOINTS:
        measured = _weighted_bisection(n, [(u, v, _multiplicity(d)) for u, v, d in g.edges(data=True)])
    else:
        return
    if claimed < measured:
        raise ValueError(
            f"bisection_links={claimed} is below the minimum balanced cut of the {source}, {measured} links: "
            "a bisection bound from it would exceed what schedules on this graph achieve"
        )


def _is_star(g: nx.Graph, n: int) -> bool:
    """One switch vertex, and every endpoint (0 .. n-1) linked to switches only (so to that one)."""
    switches = [v for v, kind in g.nodes(data="kind") if kind == "switch"]
    return len(switches) == 1 and all(g.nodes[u].get("kind") == "switch" for v in range(n) for u in g.neighbors(v))


def _check_work(n: int, pairs: int) -> None:
    """Refuse a topology whose diameter measurement (one BFS per endpoint) would run away."""
    work = n * (n + pairs)
    if work > MAX_DIAMETER_WORK:
        raise ValueError(
            f"measuring the diameter of {n} endpoints with {pairs} adjacent pairs takes about n * (n + pairs) = "
            f"{work:,} BFS steps, cap {MAX_DIAMETER_WORK:,}: use fewer endpoints or a sparser matrix"
        )


def _build(g: nx.Graph, n: int, name: str, bisection_links, source: str = "graph") -> Topology:
    """A Topology of family ``"custom"`` from a finished graph (endpoints 0..n-1, ``links`` attributes).

    ``source`` names the argument the graph came from, for the error messages.
    """
    if n < 2:
        raise ValueError(f"{source}: a topology needs at least 2 endpoints, got {n}")
    if not nx.is_connected(g):
        parts = [sorted(v for v in c if not isinstance(v, tuple)) for c in nx.connected_components(g)]
        raise ValueError(
            f"{source}: the graph is disconnected (components of endpoints: {parts[:4]}); every endpoint must reach every other"
        )
    switched = any(kind == "switch" for _, kind in g.nodes(data="kind"))
    star = switched and _is_star(g, n)
    if bisection_links is None:
        # Before the diameter's BFS: a bisection that cannot be measured is refused first.
        _check_bisection(n, switched, star, g.number_of_nodes(), g.number_of_edges(), source)
    else:
        bisection_links = check_int("bisection_links", bisection_links, minimum=0, scalar=True)
        _check_claimed_bisection(g, n, switched, star, bisection_links, source)
    degree = max(sum(_multiplicity(d) for _, _, d in g.edges(v, data=True)) for v in range(n))
    ends = set(range(n))
    diameter = 0
    for start in range(n):
        lengths = nx.single_source_shortest_path_length(g, start)
        diameter = max(diameter, max(d for v, d in lengths.items() if v in ends))
    if bisection_links is None:
        if star:
            ups = sorted(sum(_multiplicity(d) for _, _, d in g.edges(v, data=True)) for v in range(n))
            bisection_links = sum(ups[: n // 2])  # the switch sits with the heavier side
        elif switched:
            bisection_links = _switched_bisection(g, n)
        else:
            bisection_links = _weighted_bisection(n, [(u, v, _multiplicity(d)) for u, v, d in g.edges(data=True)])
    frozen = g.copy()
    return Topology(
        family="custom",
        name=name,
        n=n,
        degree=int(degree),
        diameter=int(diameter),
        bisection_links=int(bisection_links),
        switched=switched,
        _builder=lambda: frozen.copy(),
    )


def _check_name(name, default: str) -> str:
    if name is None:
        return default
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"name must be a non-empty string, got {name!r}")
    return name


# --------------------------------------------------------------------------- constructors


def topology_from_links(matrix, name=None, bisection_links=None) -> Topology:
    """A direct network from a link-count matrix: entry ``i, j`` = parallel links between ``i`` and ``j``.

    This is what ``nvidia-smi topo -m`` reports between GPUs (``NV2`` = 2 NVLinks). Links are
    full duplex, so the matrix must be symmetric with a zero diagonal. The multiplicity is the
    capacity of the pair (edge attribute ``"links"``).

    Parameters
    ----------
    matrix : array-like of int, shape (n, n)
        Integers ``0 .. 1024``, symmetric, zero diagonal; ``2 <= n <= 1024``.
    name : str, optional
        Display name (default ``"custom n"``).
    bisection_links : int, optional
        Skip the exhaustive bisection search (required above 20 endpoints).

    Returns
    -------
    Topology
        ``family == "custom"``; ``degree`` = most links at one endpoint (row sums), ``diameter``
        by BFS, ``bisection_links`` = fewest links (counted with multiplicity) cut by a split into
        ``floor(n/2)`` and ``ceil(n/2)`` endpoints.

    Raises
    ------
    ValueError
        Not square, negative or non-integer entries, more than :data:`MAX_LINKS_PER_PAIR` (1024)
        links between two endpoints, asymmetric, non-zero diagonal, disconnected, more than 1024
        endpoints, more than 20 without ``bisection_links``, or a diameter measurement above
        :data:`MAX_DIAMETER_WORK` (``n * (n + adjacent pairs)``, checked before building).

    Examples
    --------
    A ring of 4 whose link 0-1 is doubled:

    >>> t = topology_from_links([[0, 2, 0, 1], [2, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]])
    >>> t.n, t.degree, t.diameter, t.bisection_links
    (4, 3, 2, 2)
    >>> t.graph.edges[0, 1]["links"]
    2
    """
    try:
        array = np.asarray(matrix)
    except (TypeError, ValueError, OverflowError) as error:  # ragged input; an int beyond int64 (#28)
        raise ValueError(f"matrix must be a square array of integers: {error}") from None
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"matrix must be square (n x n), got shape {array.shape}")
    if array.size and (array.dtype == bool or not np.issubdtype(array.dtype, np.integer)):
        if (
            np.issubdtype(array.dtype, np.floating)
            and np.all(np.isfinite(array))
            and np.all(array == np.round(array))
            and np.all(np.abs(array) <= 2**53)
        ):
            array = array.astype(np.int64)
        else:
            raise ValueError(f"matrix entries must be integers (link counts), got dtype {array.dtype}")
    n = array.shape[0]
    if n < 2 or n > MAX_ENDPOINTS:
        raise ValueError(f"matrix must have 2 <= n <= {MAX_ENDPOINTS} rows, got n={n}")
    if np.any(array < 0):
        i, j = map(int, np.argwhere(array < 0)[0])
        raise ValueError(f"matrix[{i}][{j}] = {array[i, j]}: link counts must be >= 0")
    if np.any(array > MAX_LINKS_PER_PAIR):
        i, j = map(int, np.argwhere(array > MAX_LINKS_PER_PAIR)[0])
        raise ValueError(
            f"matrix[{i}][{j}] = {array[i, j]}: link counts must be <= {MAX_LINKS_PER_PAIR} (parallel links per pair)"
        )
    if np.any(np.diag(array) != 0):
        i = int(np.nonzero(np.diag(array))[0][0])
        raise ValueError(f"matrix[{i}][{i}] = {array[i, i]}: the diagonal must be 0 (no link from a node to itself)")
    if not np.array_equal(array, array.T):
        i, j = map(int, np.argwhere(array != array.T)[0])
        raise ValueError(
            f"matrix must be symmetric (links are full duplex): matrix[{i}][{j}] = {array[i, j]} but matrix[{j}][{i}] = {array[j, i]}"
        )
    name = _check_name(name, f"custom {n}")
    pairs = int(np.count_nonzero(np.triu(array)))
    _check_work(n, pairs)
    if bisection_links is None:
        _check_bisection(n, False, False, n, pairs, "matrix")
    check_cap(f"topology_from_links({name}): memory", _from_links_memory(n, pairs), MAX_GRAPH_BYTES, "bytes")
    return _build(_links_graph(array), n, name, bisection_links, "matrix")


def _from_links_memory(n: int, pairs: int) -> int:
    """Estimated peak bytes of :func:`topology_from_links`: the matrix's int64 copies (``np.triu``)
    and masks, the graph and its frozen copy, the diameter's BFS (measured at the caps, n = 1024
    with 18,471 pairs: 11 MB of an estimate of 36 MB)."""
    bisection = _bisection_memory(n, False, n, pairs) if n <= MAX_BISECTION_ENDPOINTS else 0
    return 24 * n * n + 2 * _graph_memory(n, pairs) + _MEASURE_BYTES_PER_VERTEX * n + bisection


def _from_graph_memory(vertices: int, pairs: int) -> int:
    """Estimated peak bytes of :func:`topology_from_graph` beyond the caller's graph: the renumbered
    graph and its frozen copy, the index of vertices, the diameter's BFS (bisection: see
    :func:`_bisection_memory`)."""
    return 2 * _graph_memory(vertices, pairs) + 2 * _MEASURE_BYTES_PER_VERTEX * vertices


def _bisection_memory(n: int, switched: bool, vertices: int, pairs: int) -> int:
    """Peak bytes of the bisection measured in :func:`_build` (``bisection_links`` not given).

    Direct: one int64 mask and one cut per split and the temporaries of one edge's update (six
    arrays of the splits). Switched (``n <= 12``, within :data:`MAX_SWITCHED_BISECTION_WORK`):
    networkx's max-flow, whose residual networks tracemalloc measured at 47-80 KB per adjacent
    pair (12 endpoints under 2 to 32 switches), plus 2 MiB of its modules and caches on first use.
    """
    if switched:
        return 96 * 1024 * (pairs + n) + 2 * 2**20
    splits = math.comb(n - 1, n // 2 - 1) if n % 2 == 0 else math.comb(n, n // 2)
    return 48 * splits


#: Bytes per character of text the smi parsers hold while reading (its lines, their tokens, the
#: cells kept per GPU row, the PCIe levels of the pairs): tracemalloc measured up to 70 with
#: every pair at ``PIX`` (n = 440, the level graphs included); rounded up.
_PARSE_BYTES_PER_CHAR = 96


def _parse_memory(chars: int, n: int) -> int:
    """Estimated peak bytes of reading ``chars`` characters of smi output naming ``n`` GPUs into a
    topology: the text's part (:data:`_PARSE_BYTES_PER_CHAR`), the graph of NVLink pairs and one
    PCIe level graph (every pair at most), and the topology built from the links (the pairs
    within :data:`MAX_DIAMETER_WORK`) or the PCIe tree (at most ``2 n`` vertices and edges
    besides the pairs)."""
    pairs = n * (n - 1) // 2
    built = min(pairs, MAX_DIAMETER_WORK // max(n, 1))
    tree = _from_graph_memory(3 * n, built + 3 * n) + _bisection_memory(
        min(n, MAX_SWITCHED_BISECTION_ENDPOINTS), True, 3 * n, 3 * n
    )
    return _PARSE_BYTES_PER_CHAR * chars + 2 * _graph_memory(n, pairs) + max(_from_links_memory(n, built), tree)


def _check_parse_memory(what: str, chars: int, n: int) -> None:
    """Refuse, before reading, an smi printout whose topology would pass :data:`MAX_GRAPH_BYTES`
    (:func:`_parse_memory`; the parsers of :mod:`ccb_helpers.smi` call this, so the budget is read here)."""
    check_cap(what, _parse_memory(chars, n), MAX_GRAPH_BYTES, "bytes")


def _links_graph(array: np.ndarray) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(array.shape[0]), kind="endpoint")
    for i, j in zip(*np.nonzero(np.triu(array))):
        g.add_edge(int(i), int(j), links=int(array[i, j]))
    return g


def topology_from_graph(graph, name=None, bisection_links=None) -> Topology:
    """A topology from a networkx graph, with parallel links.

    Multiplicity: the number of parallel edges of a ``MultiGraph``, or the integer edge attribute
    ``links`` of a ``Graph`` (default 1). Vertices with attribute ``kind="switch"`` are switches
    (they forward within a round, like :func:`ccb_helpers.single_switch`); the other vertices are
    the endpoints, renumbered ``0 .. n-1`` in sorted order (insertion order if they do not sort);
    the original name is kept as the node attribute ``"label"``.

    Parameters
    ----------
    graph : networkx.Graph or networkx.MultiGraph
        Undirected (links are full duplex), no self-loops, connected.
    name : str, optional
        Display name (default ``"custom n"``).
    bisection_links : int, optional
        Skip the bisection search (required above 20 endpoints, above 12 with switches other than
        a single-switch star, and above :data:`MAX_SWITCHED_BISECTION_WORK` max-flow units:
        ``splits * (vertices + adjacent pairs)``, 462 splits at 12 endpoints; checked before
        anything is built).

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.MultiGraph([("a", "b"), ("a", "b"), ("b", "c"), ("c", "a")])
    >>> t = topology_from_graph(g, name="triangle")
    >>> t.degree, t.diameter, t.bisection_links, t.graph.edges[0, 1]["links"]   # cut {c}: 1 + 1 links
    (3, 1, 2, 2)
    """
    if not isinstance(graph, nx.Graph):
        raise TypeError(f"graph must be a networkx Graph or MultiGraph, got {type(graph).__name__}")
    if graph.is_directed():
        raise ValueError("graph must be undirected: links are full duplex (use graph.to_undirected())")
    if graph.number_of_nodes() > MAX_ENDPOINTS + 256:
        raise ValueError(
            f"graph has {graph.number_of_nodes()} vertices; at most {MAX_ENDPOINTS} endpoints are supported"
        )
    if graph.number_of_edges() > MAX_GRAPH_INPUT_EDGES:
        raise ValueError(
            f"graph has {graph.number_of_edges():,} edges (parallel ones counted); at most {MAX_GRAPH_INPUT_EDGES:,} are read"
        )
    loops = list(nx.selfloop_edges(graph))
    if loops:
        raise ValueError(f"graph has a self-loop at {loops[0][0]!r}; a link joins two different vertices")
    switches = [v for v, kind in graph.nodes(data="kind") if kind == "switch"]
    switch_set = set(switches)
    ends = [v for v in graph.nodes if v not in switch_set]
    try:
        ends = sorted(ends)
    except TypeError:
        pass
    n = len(ends)
    if n < 2 or n > MAX_ENDPOINTS:
        raise ValueError(f"graph must have 2 <= n <= {MAX_ENDPOINTS} endpoints (non-switch vertices), got {n}")
    # The work and memory before anything is built: distinct adjacent pairs, parallel edges merged.
    vertices = graph.number_of_nodes()
    pairs = sum(len(graph.adj[v]) for v in graph) // 2
    _check_work(n, pairs)
    if bisection_links is None:  # the bisection's search, before anything is built
        star = len(switches) == 1 and all(u in switch_set for v in ends for u in graph.adj[v])
        _check_bisection(n, bool(switches), star, vertices, pairs, "graph")
    estimate = _from_graph_memory(vertices, pairs)
    if bisection_links is None:
        estimate += _bisection_memory(n, bool(switches), vertices, pairs) if n <= MAX_BISECTION_ENDPOINTS else 0
    check_cap(
        f"topology_from_graph(graph with {vertices} vertices, {pairs} pairs): memory",
        estimate,
        MAX_GRAPH_BYTES,
        "bytes",
    )
    index = {v: i for i, v in enumerate(ends)}
    index.update({v: ("switch", k) for k, v in enumerate(switches)})
    g = nx.Graph()
    for v in ends:
        g.add_node(index[v], kind="endpoint", label=v)
    for v in switches:
        g.add_node(index[v], kind="switch", label=v)
    for u, v, data in graph.edges(data=True):
        b = data.get("links", 1)
        if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 1:
            raise ValueError(f"edge {u!r}-{v!r}: links must be a positive integer, got {b!r}")
        a, c = index[u], index[v]
        previous = g.edges[a, c]["links"] if g.has_edge(a, c) else 0
        if previous + int(b) > MAX_LINKS_PER_PAIR:
            raise ValueError(
                f"edge {u!r}-{v!r}: {previous + int(b)} parallel links, at most {MAX_LINKS_PER_PAIR} per pair"
            )
        g.add_edge(a, c, links=previous + int(b))
    return _build(g, n, _check_name(name, f"custom {n}"), bisection_links)


def dgx1() -> Topology:
    """NVIDIA DGX-1 (V100): 8 GPUs, 6 NVLinks each, hybrid cube-mesh (:data:`DGX1_LINKS`).

    Two quads (GPUs 0-3 and 4-7), each a complete graph, plus a link from each GPU to its mirror
    in the other quad: 16 adjacent pairs, 8 of them with two NVLinks (48 link ends, 6 per GPU).

    >>> t = dgx1()
    >>> t.n, t.degree, t.diameter, t.bisection_links
    (8, 6, 2, 6)
    """
    g = _links_graph(np.array(DGX1_LINKS))
    # Drawn as in NVIDIA's figure: quad 0-3 the outer square (double-link chain 0-1-3-2 on its
    # sides), quad 4-7 the inner one, each GPU joined to its mirror.
    # The inner quad is a flat rectangle so that no diagonal runs through a GPU it does not join.
    outer = {0: (-1, 1), 1: (1, 1), 3: (1, -1), 2: (-1, -1)}
    for v, (x, y) in outer.items():
        g.nodes[v]["pos"] = (x, y)
        g.nodes[v + 4]["pos"] = (0.55 * x, 0.28 * y)
    return _build(g, 8, "DGX-1 (V100)", None)
