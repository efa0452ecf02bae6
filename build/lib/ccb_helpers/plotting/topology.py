"""Topology drawings: one graph (:func:`draw_topology`), a grid of them with their cuts (:func:`draw_topology_grid`)."""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import matplotlib
import numpy as np

from .._validation import check_cap, check_int, check_memory
from ._checks import _check_ax, _check_bool, _new_axes
from .style import BOOK_WIDTH, COLORS, use_book_style

#: Most vertices + edges one topology figure draws (all its panels together): drawing and
#: rendering cost ~30 us per element here (a complete graph on 1000 nodes took 25 s).
MAX_DRAWN_ELEMENTS = 2**16
#: Peak bytes per drawn vertex or edge (its artist, path and layout entry) and of the figure
#: itself: tracemalloc measured 2.8 kB per element for a complete graph on 64 nodes (2080
#: elements, the figure included) and 1.3 kB for a 16 x 16 torus. At the cap: 256 MiB.
_DRAW_BYTES_PER_ELEMENT = 4096
_DRAW_FIXED_BYTES = 16 * 2**20
#: Most panels of :func:`draw_topology_grid`.
MAX_GRID_PANELS = 8


#: Extra dimensions of a hypercube beyond the fourth shift whole 4-cubes: by this multiple of a
#: 4-cube's width (doubling every second dimension), sheared by these shares of the shift (a
#: shift along x moves up a little, one along y left), so that no shift is parallel to another
#: and a long link does not run through the nodes between its ends.
_HYPERCUBE_GAP = 1.2
_HYPERCUBE_SHEARS = (0.25, 0.25, 0.1, 0.1)


def hypercube_basis(dim: int) -> list[tuple[float, float]]:
    """The drawing's vector of each dimension of a ``dim``-cube: node ``v`` is drawn at the sum of
    the vectors of its 1-bits, so every link of dimension ``b`` is a copy of vector ``b``.

    Up to 4 dimensions the classic pictures: a segment, a square, a cube in oblique view
    (the back square up and to the right), the tesseract's octagon (vectors at ``b·45°``).
    Beyond, the 4-cube is repeated on a grid, one dimension along x, the next along y
    (:data:`_HYPERCUBE_GAP`, :data:`_HYPERCUBE_SHEARS`). All ``2**dim`` positions are distinct
    (the evenly spread projection used before put nodes 2 and 5 of the 3-cube both at the centre,
    and collided at 5, 6 and 7 dimensions too; ``tests/test_plotting.py`` measures the gaps).

    >>> [(round(x, 2), round(y, 2)) for x, y in hypercube_basis(3)]
    [(1.0, 0.0), (0.0, 1.0), (0.45, 0.3)]
    """
    dim = check_int("dim", dim, minimum=0, maximum=20)
    if dim <= 2:
        return [(1.0, 0.0), (0.0, 1.0)][:dim]
    if dim == 3:
        return [(1.0, 0.0), (0.0, 1.0), (0.45, 0.3)]
    basis = [(math.cos(math.pi * b / 4), math.sin(math.pi * b / 4)) for b in range(4)]
    width = 1 + 2 * math.cos(math.pi / 4)  # the octagon's width: 1 + cos 45° + cos 45° (cos 90° = 0)
    for j in range(dim - 4):
        w = _HYPERCUBE_GAP * width * 2 ** (j // 2)
        a = _HYPERCUBE_SHEARS[j % len(_HYPERCUBE_SHEARS)]
        basis.append((w, w * a) if j % 2 == 0 else (-w * a, w))
    return basis


def _layout(topology):
    """Positions for drawing: circles, grids (3-D projected), hypercube projection, fat-tree layers."""
    g = topology.graph
    family = topology.family
    pos = {}
    if all("pos" in data for _, data in g.nodes(data=True)):  # the topology brings its own drawing
        return {v: np.asarray(data["pos"], dtype=float) for v, data in g.nodes(data=True)}
    if family in ("torus", "mesh"):
        for v, coord in g.nodes(data="coord"):
            c = list(coord) + [0] * (3 - len(coord))
            pos[v] = (
                (c[0] + 0.45 * c[2], c[1] + 0.3 * c[2]) if len(coord) == 3 else (c[0], c[1] if len(coord) > 1 else 0)
            )
    elif family == "hypercube":
        basis = hypercube_basis(topology.degree)
        for v in g.nodes:
            pos[v] = tuple(sum(basis[b][i] for b in range(len(basis)) if v >> b & 1) for i in (0, 1))
    elif family == "fat_tree":
        hosts = [v for v in g.nodes if not isinstance(v, tuple)]
        leaves = sorted(v for v in g.nodes if isinstance(v, tuple) and v[0] == "leaf")
        spines = sorted(v for v in g.nodes if isinstance(v, tuple) and v[0] == "spine")
        width = max(len(hosts) - 1, 1)
        for i, v in enumerate(sorted(hosts)):
            pos[v] = (i, 0)
        for row, group in ((1, leaves), (2, spines)):
            for i, v in enumerate(group):
                pos[v] = ((i + 0.5) * width / len(group), row * max(2.0, width / 6))
    else:  # ring, fully connected, single switch: a circle (switch in the centre)
        ends = [v for v in g.nodes if not isinstance(v, tuple)]
        for i, v in enumerate(sorted(ends)):
            angle = math.pi / 2 - 2 * math.pi * i / max(len(ends), 1)
            pos[v] = (math.cos(angle), math.sin(angle))
        for v in g.nodes:
            if isinstance(v, tuple):
                pos[v] = (0.0, 0.0)
    return {v: np.asarray(p, dtype=float) for v, p in pos.items()}


def _arc(a, b, rad: float = 0.25, points: int = 16):
    """Points of matplotlib's ``arc3`` connection from a to b (a quadratic Bezier curve)."""
    mid = (a + b) / 2
    d = b - a
    control = mid + rad * np.array([d[1], -d[0]])
    t = np.linspace(0, 1, points)[:, None]
    return (1 - t) ** 2 * a + 2 * (1 - t) * t * control + t**2 * b


class _ByIdentity:
    """Cache key of a topology whose fields do not determine its graph (two custom topologies
    with the same name, n, degree, diameter and cut compare equal but have different links)."""

    __slots__ = ("topology",)

    def __init__(self, topology):
        self.topology = topology  # held, so its id cannot be reused while the key is cached

    def __eq__(self, other):
        return isinstance(other, _ByIdentity) and other.topology is self.topology

    def __hash__(self):
        return id(self.topology)


def _topology_geometry(topology, root: int, side: frozenset | None):
    """Everything a topology drawing needs, computed once per (topology, root, side)."""
    from ..topology import TOPOLOGY_FAMILIES

    key = topology if topology.family in TOPOLOGY_FAMILIES else _ByIdentity(topology)
    return _cached_geometry(key, root, side)


@lru_cache(maxsize=64)
def _cached_geometry(key, root: int, side: frozenset | None):
    import networkx as nx

    topology = key.topology if isinstance(key, _ByIdentity) else key
    g = topology.graph
    pos = _layout(topology)
    dist = nx.single_source_shortest_path_length(g, root)
    crossing = set()
    if side is not None:
        if topology.switched:
            # Switches sit with the side that holds most of their endpoint neighbours (leaves) or
            # of their leaves (spines): the placement that the closed form counts.
            placed = {v: v in side for v in range(topology.n)}
            for level in ("leaf", "spine", "switch"):
                for v in g.nodes:
                    if isinstance(v, tuple) and v[0] == level:
                        votes = [placed[u] for u in g[v] if u in placed]
                        placed[v] = sum(votes) * 2 > len(votes) if votes else False
            crossing = {frozenset((u, v)) for u, v in g.edges if placed[u] != placed[v]}
        else:
            crossing = {frozenset((u, v)) for u, v in g.edges if (u in side) != (v in side)}
    straight, straight_cut, straight_links, arcs, arcs_cut, arcs_links = [], [], [], [], [], []
    for u, v in g.edges:
        a, b = pos[u], pos[v]
        cut = frozenset((u, v)) in crossing
        links = g.edges[u, v].get("links", 1)  # parallel links (a user topology) drawn proportionally thicker
        if topology.family == "torus" and np.abs(a - b).max() > 1.5:  # wrap-around link
            arcs.append(_arc(a, b))
            arcs_cut.append(cut)
            arcs_links.append(links)
        else:
            straight.append(np.array([a, b]))
            straight_cut.append(cut)
            straight_links.append(links)
    ends = [v for v, kind in g.nodes(data="kind") if kind == "endpoint"]
    switches = [v for v, kind in g.nodes(data="kind") if kind == "switch"]
    points = np.array([pos[v] for v in g.nodes] + [p for arc in arcs for p in arc])
    return {
        "ends": np.array([pos[v] for v in ends]),
        "root": np.array([pos[root]]),
        "hops": np.array([dist[v] for v in ends]),
        "in_side": np.array([v in side for v in ends]) if side is not None else None,
        "switches": np.array([pos[v] for v in switches]).reshape(-1, 2),
        "straight": straight,
        "straight_cut": np.array(straight_cut, dtype=bool),
        "straight_links": straight_links,
        "arcs": arcs,
        "arcs_cut": np.array(arcs_cut, dtype=bool),
        "arcs_links": arcs_links,
        "crossing": sum(g.edges[tuple(e)].get("links", 1) for e in crossing),
        "lo": points.min(axis=0),
        "hi": points.max(axis=0),
    }


class _TopologyArtists:
    """A topology drawing made once on ``ax`` and updated in place (:meth:`update`)."""

    LABELS = 32  # hop counts are written on the nodes up to this many endpoints

    def __init__(self, ax):
        from matplotlib.collections import LineCollection

        self.ax = ax
        self.links = LineCollection([], zorder=1)
        self.wraps = LineCollection([], zorder=1, linestyles="--")
        ax.add_collection(self.links)
        ax.add_collection(self.wraps)
        self.switches = ax.scatter([], [], marker="s", color="#888888", zorder=2)
        self.ends = ax.scatter([], [], zorder=3, edgecolors="white", linewidths=0.6)
        self.root = ax.scatter([], [], facecolors="none", edgecolors=COLORS["bandwidth"], linewidths=1.5, zorder=4)
        # 9.5 pt: at least 9 CSS px even when a two-panel figure is shown at 0.7 of its width (#31)
        self.labels = [
            ax.text(0, 0, "", ha="center", va="center", fontsize=9.5, zorder=5, visible=False)
            for _ in range(self.LABELS)
        ]
        ax.set_aspect("equal", adjustable="box")
        ax.axis("off")

    def update(self, topology, root: int = 0, side=None) -> int:
        """Draw ``topology``; returns the number of links the cut crosses (0 without ``side``)."""
        geo = _topology_geometry(topology, root, None if side is None else frozenset(side))
        cut_color, plain = matplotlib.colors.to_rgba(COLORS["bandwidth"]), matplotlib.colors.to_rgba("#bbbbbb")
        for collection, segments, cut, links, scale in (
            (self.links, geo["straight"], geo["straight_cut"], geo["straight_links"], 1.0),
            (self.wraps, geo["arcs"], geo["arcs_cut"], geo["arcs_links"], 0.9),
        ):
            collection.set_segments(segments)
            collection.set_color([cut_color if c else plain for c in cut])
            collection.set_linewidth([(2.0 if c else 0.8) * scale * k for c, k in zip(cut, links)])
        n_ends = len(geo["ends"])
        size = 190 if n_ends <= 32 else (40 if n_ends <= 128 else 14)  # a disc that holds a 9.5 pt digit
        self.ends.set_offsets(geo["ends"])
        self.ends.set_sizes([size])
        hops = geo["hops"]
        far = max(int(hops.max()), 1)
        if side is None:
            self.ends.set_facecolor(matplotlib.colormaps["viridis_r"](hops / far))
        else:
            self.ends.set_facecolor([COLORS["latency"] if s else COLORS["ring_b"] for s in geo["in_side"]])
        self.switches.set_offsets(geo["switches"])
        self.switches.set_sizes([size * 0.8])
        self.root.set_offsets(geo["root"] if side is None else np.empty((0, 2)))
        self.root.set_sizes([size * 2.2])
        show = side is None and n_ends <= self.LABELS
        for v, label in enumerate(self.labels):
            label.set_visible(show and v < n_ends)
            if label.get_visible():
                # viridis_r is light for small distances: dark digits there, white ones on the dark end.
                label.set_text(str(hops[v]))
                label.set_position(geo["ends"][v])
                label.set_color("black" if hops[v] < far / 2 else "white")
        lo, hi = geo["lo"], geo["hi"]
        pad = 0.08 * max(hi - lo) + 0.3
        self.ax.set_xlim(lo[0] - pad, hi[0] + pad)
        self.ax.set_ylim(lo[1] - pad, hi[1] + pad)
        short = topology.name.split(" (")[0]
        if side is not None:
            title = f"{short}：平衡割切断 {geo['crossing']} 条链路（红色）"
        elif topology.switched:
            title = (
                f"{short}：从节点 {root} 出发的跳数\n"
                f"（端点间最多 {topology.diameter} 跳，交换机同轮转发：D = {topology.step_diameter} 轮）"
            )
        else:
            title = f"{short}：从节点 {root} 出发的 BFS 层（直径 D = {topology.step_diameter}）"
        self.ax.set_title(title, fontsize=9.5)
        return geo["crossing"]


def _check_topology(topology, max_nodes: int, name: str = "topology"):
    from ..topology import Topology

    if not isinstance(topology, Topology):
        raise TypeError(f"{name} must be a Topology (e.g. ccb.ring(8)), got {type(topology).__name__}")
    # The endpoints alone decide most cases, before the graph is built; switches are few.
    if topology.n > max_nodes:
        raise ValueError(f"{name} {topology.name} has more than max_nodes={max_nodes} vertices to draw")
    vertices, edges = _graph_elements(topology)
    if vertices > max_nodes:
        raise ValueError(f"{name} {topology.name} has more than max_nodes={max_nodes} vertices to draw")
    return topology


def _graph_elements(topology) -> tuple[int, int]:
    """(vertices, edges) of the topology's graph, from the constructor's count when it has one
    (so a graph too big to draw is refused without being built)."""
    if topology._graph_size is not None:
        return topology._graph_size
    return topology.graph.number_of_nodes(), topology.graph.number_of_edges()


def _check_drawn_elements(topologies) -> None:
    total = sum(sum(_graph_elements(t)) for t in topologies)
    check_cap(
        "drawing the topology figure: vertices + edges",
        total,
        MAX_DRAWN_ELEMENTS,
        hint="draw fewer or smaller topologies (e.g. a complete graph on at most 360 nodes)",
    )
    check_memory(f"topology: a figure of {total:,} vertices + edges", _draw_memory(total))


def _draw_memory(elements: int) -> int:
    return _DRAW_BYTES_PER_ELEMENT * elements + _DRAW_FIXED_BYTES


def _check_side(side, n: int):
    if side is None:
        return None
    if isinstance(side, (str, bytes)) or not hasattr(side, "__iter__"):
        raise TypeError(f"side must be a set of endpoint numbers (e.g. ccb.bisection_partition(t)), got {side!r}")
    if isinstance(side, np.ndarray):
        # a 0-d array has __iter__ but cannot be iterated, a 2-d one yields unhashable rows (#28)
        if side.ndim != 1:
            raise TypeError(f"side must be a set or a 1-d array of endpoint numbers, got shape {side.shape}")
        side = side[: n + 1].tolist()
    items = list(itertools.islice(iter(side), n + 1))  # a set of endpoints has at most n of them
    if len(items) > n:
        raise ValueError(f"side must hold at most n={n} endpoint numbers (one side of a cut)")
    side = frozenset(items)
    for v in side:
        check_int("side element", v, minimum=0, maximum=n - 1)
    return side


def draw_topology(topology, root: int = 0, ax=None, max_nodes: int = 600, side=None):
    """Draw a topology with its endpoints coloured by BFS distance (hops) from ``root``.

    Switches are grey squares; wrap-around links of a torus are drawn as dashed arcs. With
    ``side`` (a set of endpoints, e.g. :func:`ccb_helpers.bisection_partition`), endpoints are
    coloured by side instead and the links of the cut are drawn in red.

    Parameters
    ----------
    topology : Topology
    root : int, default 0
        Endpoint the BFS starts from, ``0 <= root < topology.n``.
    ax : matplotlib Axes, optional
    max_nodes : int, default 600
        Refuse topologies with more vertices (checked on the endpoint count before the graph
        is built); at most 5000.
    side : set of int, optional
        Endpoints of one side of a cut.

    Raises
    ------
    ValueError
        Also when the graph has more than ``MAX_DRAWN_ELEMENTS = 2**16`` vertices + edges
        (checked before it is built).

    >>> import ccb_helpers as ccb
    >>> ax = draw_topology(ccb.torus(4, 4))
    >>> ax.get_title()
    'torus 4x4：从节点 0 出发的 BFS 层（直径 D = 4）'
    """
    max_nodes = check_int("max_nodes", max_nodes, minimum=1, maximum=5000, scalar=True)
    topology = _check_topology(topology, max_nodes)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1, scalar=True)
    side = _check_side(side, topology.n)
    _check_ax(ax)
    _check_drawn_elements([topology])
    use_book_style()
    if ax is None:
        ax = _new_axes(5, 5)
    _TopologyArtists(ax).update(topology, root, side)
    return ax


def draw_topology_grid(topologies, cuts: bool = False, max_nodes: int = 600):
    """Draw several topologies, two per row (the book's column holds two readable panels).

    Parameters
    ----------
    topologies : sequence of Topology
        One to eight (``MAX_GRID_PANELS``) topologies.
    cuts : bool, default False
        Draw each one's minimum balanced cut (:func:`ccb_helpers.bisection_partition`)
        instead of its BFS layers.
    max_nodes : int, default 600
        As in :func:`draw_topology` (per panel).

    Raises
    ------
    ValueError
        Also when the panels together have more than ``MAX_DRAWN_ELEMENTS = 2**16`` vertices +
        edges (checked before any graph is built or drawn), or a cut cannot be computed.

    Returns
    -------
    list of matplotlib Axes, one per topology

    >>> import ccb_helpers as ccb
    >>> axes = draw_topology_grid([ccb.ring(8), ccb.torus(3, 3), ccb.hypercube(3)])
    >>> len(axes), bool(axes[0].figure.get_size_inches()[0] <= BOOK_WIDTH)
    (3, True)
    """
    import matplotlib.pyplot as plt

    from ..bisection import bisection_partition

    if isinstance(topologies, (str, bytes, dict)) or not hasattr(topologies, "__iter__"):
        raise TypeError(f"topologies must be a sequence of Topology, got {type(topologies).__name__}")
    if isinstance(topologies, np.ndarray) and topologies.ndim != 1:
        raise TypeError(f"topologies must be a flat sequence of Topology, got an array of shape {topologies.shape}")
    topologies = list(itertools.islice(iter(topologies), MAX_GRID_PANELS + 1))  # an endless iterator stops here
    if not 1 <= len(topologies) <= MAX_GRID_PANELS:
        more = "more than " if len(topologies) > MAX_GRID_PANELS else ""
        raise ValueError(
            f"topologies must hold 1 to {MAX_GRID_PANELS} topologies, got {more}{len(topologies) - bool(more)}"
        )
    cuts = _check_bool("cuts", cuts)
    max_nodes = check_int("max_nodes", max_nodes, minimum=1, maximum=5000, scalar=True)
    for i, t in enumerate(topologies):
        _check_topology(t, max_nodes, name=f"topologies[{i}]")
    _check_drawn_elements(topologies)
    sides = [None] * len(topologies)
    for i, t in enumerate(topologies if cuts else ()):  # every cut before any figure is made
        try:
            sides[i] = bisection_partition(t)
        except ValueError as err:
            raise ValueError(f"topologies[{i}] ({t.name}): {err}") from None
    use_book_style()
    cols = min(2, len(topologies))
    rows = math.ceil(len(topologies) / cols)
    fig, grid = plt.subplots(rows, cols, figsize=(BOOK_WIDTH if cols == 2 else 3.6, 3.5 * rows), squeeze=False)
    axes = list(grid.ravel())
    for ax, t, side in zip(axes, topologies, sides):
        _TopologyArtists(ax).update(t, 0, side)
    for ax in axes[len(topologies) :]:
        ax.axis("off")
    fig.tight_layout()
    return axes[: len(topologies)]
