"""Minimum number of rounds to broadcast on a topology under the k-port model.

Two lower bounds hold on any network: the information bound ``ceil(log_{p+1} N)`` with
``p = min(k, d)`` (``eq:cc-bound-info-kport``) and the root's eccentricity (at most the
diameter, ``eq:cc-bound-topo``). Neither is always attained; :func:`broadcast_steps` returns
the true minimum — by formula where one is proven, by exhaustive search over informed sets on
small graphs.
"""

from __future__ import annotations

import itertools

import networkx as nx

from ._intmath import ceil_log_int
from ._validation import check_choice, check_int
from .topology import Topology

__all__ = ["broadcast_steps", "search_broadcast_steps", "eccentricity"]

_SEARCH_LIMIT = 20


def eccentricity(topology: Topology, root: int = 0) -> int:
    """Largest BFS distance (in rounds) from ``root`` to any endpoint.

    For switched networks a round crosses the whole network, so this is 1 (``n >= 2``).

    >>> from ccb_helpers.topology import mesh
    >>> eccentricity(mesh(3, 3), root=0), eccentricity(mesh(3, 3), root=4)
    (4, 2)
    """
    root = check_int("root", root, minimum=0, maximum=topology.n - 1)
    if topology.n == 1:
        return 0
    if topology.switched:
        return 1
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
        exhaustive search (at most 20 endpoints); ``"auto"`` uses a formula when one exists.

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
    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology (e.g. ccb.ring(8)), got {type(topology).__name__}")
    k = check_int("k", k, minimum=1)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1)
    method = check_choice("method", method, ("auto", "formula", "search"))
    n = topology.n
    if method != "search":
        value = _formula(topology, k, root)
        if value is not None:
            return value
        if method == "formula":
            raise ValueError(f"no closed form for k={k} broadcast on {topology.name}; use method='search' (n <= {_SEARCH_LIMIT})")
    if n > _SEARCH_LIMIT:
        raise ValueError(
            f"exact broadcast search is limited to n <= {_SEARCH_LIMIT} endpoints; {topology.name} has n={n} "
            f"and no closed form for k={k}"
        )
    return search_broadcast_steps(topology, k=k, root=root)


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
        return eccentricity(topology, root)
    return None


def search_broadcast_steps(topology: Topology, k=1, root=0) -> int:
    """Exhaustive search over informed sets: the exact minimum broadcast rounds (small graphs).

    Iterative deepening on the number of rounds ``r``. A state is the set of informed nodes;
    in a round each informed node informs up to ``k`` uninformed neighbours (receivers need
    one message each). Only maximal next states are expanded — informing more nodes never
    hurts — and a state is pruned when ``|S| * (k+1)**r < n`` or some node is farther than
    ``r`` hops from ``S``.

    >>> from ccb_helpers.topology import ring
    >>> search_broadcast_steps(ring(6)), search_broadcast_steps(ring(7))
    (3, 4)
    """
    if topology.switched:
        raise ValueError("search_broadcast_steps works on direct networks (no switch vertices)")
    n = topology.n
    k = check_int("k", k, minimum=1)
    root = check_int("root", root, minimum=0, maximum=n - 1)
    if n > _SEARCH_LIMIT:
        raise ValueError(f"exhaustive search is limited to n <= {_SEARCH_LIMIT}, got n={n}")
    if n == 1:
        return 0
    adjacency = [0] * n
    for u, v in topology.graph.edges:
        adjacency[u] |= 1 << v
        adjacency[v] |= 1 << u
    full = (1 << n) - 1
    neighbours = [[v for v in range(n) if adjacency[u] >> v & 1] for u in range(n)]

    def spread(mask: int) -> int:
        out = mask
        for v in range(n):
            if mask >> v & 1:
                out |= adjacency[v]
        return out

    def hops_to_cover(mask: int) -> int:
        d = 0
        while mask != full:
            mask = spread(mask)
            d += 1
        return d

    def successors(informed: int):
        senders = [u for u in range(n) if informed >> u & 1 and adjacency[u] & ~informed]
        results = set()

        def assign(i: int, targeted: int):
            if i == len(senders):
                results.add(informed | targeted)
                return
            u = senders[i]
            avail = [v for v in neighbours[u] if not (informed | targeted) >> v & 1]
            if not avail:
                assign(i + 1, targeted)
                return
            for choice in itertools.combinations(avail, min(k, len(avail))):
                extra = 0
                for v in choice:
                    extra |= 1 << v
                assign(i + 1, targeted | extra)

        assign(0, 0)
        # keep only maximal sets
        ordered = sorted(results, key=lambda s: -bin(s).count("1"))
        maximal: list[int] = []
        for s in ordered:
            if not any(s & m == s for m in maximal):
                maximal.append(s)
        return maximal

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
    rounds = max(ceil_log_int(n, k + 1), hops_to_cover(start))
    while not feasible(start, rounds):
        rounds += 1
    return rounds
