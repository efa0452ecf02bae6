"""Minimum number of rounds to broadcast on a topology under the k-port model.

Two lower bounds hold on any network: the information bound ``ceil(log_{p+1} N)`` with
``p = min(k, d)`` (``eq:cc-bound-info-kport``) and the root's eccentricity (at most the
diameter, ``eq:cc-bound-topo``). Neither is always attained; :func:`broadcast_steps` returns
the true minimum — by formula where one is proven, by exhaustive search over informed sets on
small graphs.
"""

from __future__ import annotations

import math

import networkx as nx

from ._intmath import ceil_log_int
from ._validation import check_choice, check_int, check_memory
from .topology import Topology, check_topology

__all__ = ["broadcast_steps", "search_broadcast_steps", "eccentricity"]

#: Most endpoints of the exhaustive search (informed sets are bitmasks of at most this many bits).
SEARCH_MAX_ENDPOINTS = 20
#: Most steps of the exhaustive search (one step assigns one newly informed node to a sender
#: while candidate informed sets are built; about 2 microseconds each here, so <= ~10 s).
SEARCH_MAX_STEPS = 2**22
#: Peak bytes per search step allowed for (the successor lists of the states on the recursion's
#: path, the matchings' dicts): tracemalloc measured 98 kB at 2**16 steps and 91 kB at 2**14 (20
#: nodes, k = 3: the peak hardly grows with the steps), so 16 bytes a step is far above it.
_SEARCH_BYTES_PER_STEP = 16
_SEARCH_FIXED_BYTES = 2**20


def eccentricity(topology: Topology, root: int = 0) -> int:
    """Largest BFS distance (in rounds) from ``root`` to any endpoint.

    For switched networks a round crosses the whole network, so this is 1 (``n >= 2``). Rings,
    tori, hypercubes and complete graphs look the same from every node (the eccentricity is the
    diameter); on a mesh it is ``sum(max(c, a - 1 - c))`` over the root's coordinates ``c``.
    Other graphs are measured by BFS (within the graph cap of :class:`Topology`).

    >>> from ccb_helpers.topology import mesh
    >>> eccentricity(mesh(3, 3), root=0), eccentricity(mesh(3, 3), root=4)
    (4, 2)
    """
    check_topology(topology)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1, scalar=True)
    return _eccentricity(topology, root)


def _eccentricity(topology: Topology, root: int) -> int:
    if topology.n == 1:
        return 0
    if topology.switched:
        return 1
    if topology.family in ("ring", "torus", "hypercube", "fully_connected"):
        return topology.diameter
    if topology.family == "mesh" and topology.dims:
        coords, rest = [], root
        for a in reversed(topology.dims):  # row-major: the last side varies fastest
            rest, c = divmod(rest, a)
            coords.append((c, a))
        return sum(max(c, a - 1 - c) for c, a in coords)
    return max(nx.single_source_shortest_path_length(topology.graph, root).values())


def _ring_formula(n: int, k: int) -> int:
    # 1-port: round 1 informs one neighbour; afterwards both ends of the informed arc extend
    # it by one each, so t rounds inform 2t nodes: ceil(n/2). With 2 ports the root sends both
    # ways at once: 1 + 2t >= n, i.e. ceil((n-1)/2) = floor(n/2) = the diameter.
    if n == 1:
        return 0
    return (n + 1) // 2 if k == 1 else n // 2


def broadcast_steps(topology: Topology, k=1, root=0, method="auto") -> int:
    """Minimum number of k-port rounds to broadcast from ``root`` to every endpoint.

    Parameters
    ----------
    topology : Topology
        The network.
    k : int, default 1
        Ports: sends (and receives) per node per round.
    root : int, default 0
        The source node. Ring, torus, hypercube and complete graphs look the same from every
        node; on a mesh the corner is the worst root.
    method : {"auto", "formula", "search"}
        ``"formula"`` raises if no closed form is known for this case; ``"search"`` forces the
        exhaustive search (see :func:`search_broadcast_steps` for its caps); ``"auto"`` uses a
        formula when one exists.

    Returns
    -------
    int
        Rounds.

    Notes
    -----
    Closed forms used:

    * ring: ``ceil(n/2)`` for 1-port, ``floor(n/2)`` for ``k >= 2``;
    * fully connected: ``ceil(log_{p+1} n)`` with ``p = min(k, n-1)``;
    * switched networks (one link per host): ``ceil(log2 n)``;
    * hypercube: ``dim`` (binomial tree; the diameter is ``dim``);
    * any graph with ``k >= degree`` (all-port): the root's eccentricity (flooding).

    Examples
    --------
    >>> from ccb_helpers.topology import ring, fully_connected, torus
    >>> broadcast_steps(ring(7)), broadcast_steps(ring(7), k=2)
    (4, 3)
    >>> broadcast_steps(fully_connected(9), k=2)
    2
    >>> broadcast_steps(torus(3, 3)), broadcast_steps(torus(3, 3), k=4)   # log2 bound 4; diameter 2
    (4, 2)
    """
    check_topology(topology)
    k = check_int("k", k, minimum=1, scalar=True)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1, scalar=True)
    method = check_choice("method", method, ("auto", "formula", "search"))
    if method != "search":
        value = _formula(topology, k, root)
        if value is not None:
            return value
        if method == "formula":
            raise ValueError(f"no closed form for k={k} broadcast on {topology.name}; use method='search'")
    _check_search(topology, k)
    return _search_broadcast_steps(topology, k, root)


def _formula(topology: Topology, k: int, root: int):
    n = topology.n
    if n == 1:
        return 0
    family = topology.family
    if family == "ring":
        return _ring_formula(n, k)
    if family == "fully_connected":
        return ceil_log_int(n, min(k, n - 1) + 1)
    if topology.switched:
        return ceil_log_int(n, min(k, topology.degree) + 1)
    if family == "hypercube":
        return topology.degree
    if k >= topology.degree:
        return _eccentricity(topology, root)
    return None


def _estimated_states(n: int, degree: int, k: int) -> int:
    """Upper bound on the candidate sets the search examines (see :func:`search_broadcast_steps`).

    An informed set of ``j`` nodes is connected and holds the root: at most ``C(n-1, j-1)`` of
    them, and at most ``j`` on a path or cycle (``degree <= 2``), ``(e (d-1))**(j-1)`` in general
    (lattice animals). Its frontier has at most ``min(n - j, j (d - 1) + 1)`` nodes, and the
    candidates are the frontier subsets of at most ``k j`` nodes.
    """
    total = 0
    for j in range(1, n):
        sets = math.comb(n - 1, j - 1)
        if degree <= 2:
            sets = min(sets, j)
        elif degree > 2:
            sets = min(sets, math.ceil((math.e * (degree - 1)) ** (j - 1)))
        frontier = min(n - j, j * max(degree - 1, 1) + 1)
        total += sets * sum(math.comb(frontier, i) for i in range(min(k * j, frontier) + 1))
    return total


def _check_search(topology: Topology, k: int) -> None:
    n = topology.n
    if topology.switched:
        raise ValueError(
            "topology: the broadcast search works on direct networks (no switch vertices); "
            f"{topology.name} is switched (its closed form is ceil(log2 n))"
        )
    if n > SEARCH_MAX_ENDPOINTS:
        raise ValueError(
            f"topology: the exhaustive broadcast search is limited to n <= {SEARCH_MAX_ENDPOINTS} endpoints; "
            f"{topology.name} has n={n}"
        )


def search_broadcast_steps(topology: Topology, k=1, root=0) -> int:
    """Exhaustive search over informed sets: the exact minimum broadcast rounds (small graphs).

    Iterative deepening on the number of rounds ``r``. A state is the set of informed nodes; in
    a round each informed node informs up to ``k`` uninformed neighbours (receivers need one
    message each), so the newly informed sets are the subsets of the frontier that a
    ``k``-to-one matching can reach. Only maximal ones are expanded — informing more nodes never
    hurts — and a state is pruned when ``|S| * (k+1)**r < n`` or some node is farther than ``r``
    hops from ``S``.

    Caps: at most ``SEARCH_MAX_ENDPOINTS = 20`` endpoints (checked first), and a budget of
    ``SEARCH_MAX_STEPS = 2**22`` search steps (about 10 s here), fixed before the search starts
    and counted while it runs. An a-priori count of the candidate sets exists (connected sets
    holding the root times subsets of their frontier) but is loose by many orders of magnitude —
    10**9 for a 20-node complete graph that the pruned search settles in ~10**6 steps — so it
    only appears in the message when the budget runs out.

    >>> from ccb_helpers.topology import ring
    >>> search_broadcast_steps(ring(6)), search_broadcast_steps(ring(7))
    (3, 4)
    """
    check_topology(topology)
    k = check_int("k", k, minimum=1, scalar=True)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1, scalar=True)
    _check_search(topology, k)
    check_memory(f"topology: broadcast search on {topology.name}", _search_memory())
    return _search_broadcast_steps(topology, k, root)


def _search_memory() -> int:
    """Estimated peak bytes of one search, from its step budget (read at call time)."""
    return _SEARCH_BYTES_PER_STEP * SEARCH_MAX_STEPS + _SEARCH_FIXED_BYTES


def _search_broadcast_steps(topology: Topology, k: int, root: int) -> int:
    n = topology.n
    if n == 1:
        return 0
    adjacency = [0] * n
    for u, v in topology.graph.edges:
        adjacency[u] |= 1 << v
        adjacency[v] |= 1 << u
    full = (1 << n) - 1
    examined = 0

    def spread(mask: int) -> int:
        out = mask
        for v in range(n):
            if mask >> v & 1:
                out |= adjacency[v]
        return out

    def hops_to_cover(mask: int) -> int:
        d = 0
        while mask != full:
            grown = spread(mask)
            if grown == mask:  # disconnected: never covered
                return n
            mask = grown
            d += 1
        return d

    def successors(informed: int) -> list[int]:
        frontier = spread(informed) & ~informed
        targets = [v for v in range(n) if frontier >> v & 1]
        senders_of = {t: [u for u in range(n) if informed >> u & 1 and adjacency[u] >> t & 1] for t in targets}
        found: list[int] = []

        def augment(t, load, match, seen) -> bool:
            # Find a sender for t, moving earlier targets to other senders if needed.
            nonlocal examined
            examined += 1
            if examined > SEARCH_MAX_STEPS:
                raise ValueError(
                    f"exhaustive broadcast search on {topology.name} with k={k}: examined more than the cap "
                    f"{SEARCH_MAX_STEPS:,} steps (the a-priori upper-bound estimate for this graph is "
                    f"{_estimated_states(n, max(topology.degree, 1), k):,} candidate sets)"
                )
            for u in senders_of[t]:
                if u in seen:
                    continue
                seen.add(u)
                if load.get(u, 0) < k:
                    load[u] = load.get(u, 0) + 1
                    match[t] = u
                    return True
                for other, owner in list(match.items()):
                    if owner == u and augment(other, load, match, seen):
                        match[t] = u
                        return True
            return False

        def extend(i: int, chosen: int, load: dict, match: dict) -> None:
            if i == len(targets):
                # maximal: no left-out target could still be added
                for t in targets:
                    if not chosen >> t & 1 and augment(t, dict(load), dict(match), set()):
                        return
                found.append(informed | chosen)
                return
            t = targets[i]
            load_with, match_with = dict(load), dict(match)
            if augment(t, load_with, match_with, set()):
                extend(i + 1, chosen | 1 << t, load_with, match_with)
            extend(i + 1, chosen, load, match)

        extend(0, 0, {}, {})
        return sorted(set(found), key=lambda s: -bin(s).count("1"))

    failed: set[tuple[int, int]] = set()

    def feasible(informed: int, rounds: int) -> bool:
        if informed == full:
            return True
        if rounds == 0 or (informed, rounds) in failed:
            return False
        count = bin(informed).count("1")
        if count * (k + 1) ** rounds < n or hops_to_cover(informed) > rounds:
            failed.add((informed, rounds))
            return False
        for nxt in successors(informed):
            if feasible(nxt, rounds - 1):
                return True
        failed.add((informed, rounds))
        return False

    start = 1 << root
    if hops_to_cover(start) >= n:
        raise ValueError(
            f"topology {topology.name} is not connected: a broadcast from root {root} never reaches every node"
        )
    rounds = max(ceil_log_int(n, k + 1), hops_to_cover(start))
    while not feasible(start, rounds):
        rounds += 1
    return rounds
