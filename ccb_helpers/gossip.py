"""Gossip: the exact minimum number of rounds of AllReduce / AllGather on a graph.

Every node starts with its own input; after the last round every node must hold (a combination
of) every node's input. Message sizes do not matter here, so a message carries everything its
sender knows: a node's knowledge is a set of inputs, and a message ``u -> v`` merges ``u``'s set
(as it was at the start of the round) into ``v``'s. The minimum number of rounds is the latency
of AllReduce and AllGather on that graph.

**The port model** is the book's (the one :func:`ccb_helpers.run_schedule` enforces): in a round
each node sends to at most ``p`` neighbours and receives from at most ``p`` neighbours, and the
two need not be the same nodes (send to the right, receive from the left). This is *not* the
classical telephone model of the gossip literature, where a round pairs nodes into two-way calls
(exchange with one partner): there the complete graph on an odd number of nodes needs
``ceil(log2 N) + 1`` rounds (Knödel 1975), while in our model the dissemination pattern of
Bruck et al. (1997) (node ``i`` sends to ``i + (p+1)^t j``) needs only ``ceil(log_{p+1} N)`` for
every ``N``.

Closed forms (no search) where they are proven: complete graphs and switched networks
``ceil(log_{p+1} N)`` with ``p = min(ports, degree)`` (dissemination attains the information
bound); ``ports >= degree`` (flooding attains the diameter); hypercubes ``dim`` (dimension
exchange attains the diameter). Everything else is searched exhaustively.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np

from ._intmath import ceil_log_int
from ._validation import check_int
from .topology import Topology

__all__ = ["gossip_rounds"]

#: Largest number of endpoints the exhaustive search accepts.
SEARCH_MAX_NODES = 16
#: Largest number of states the search may generate (about 10 s here; the first round's states
#: are counted before the search starts, the rest as it goes).
SEARCH_MAX_STATES = 30_000
#: Largest automorphism group used to merge symmetric states.
_MAX_AUTOMORPHISMS = 4096


def gossip_rounds(topology, ports=1, method="auto") -> int:
    """Exact minimum rounds until every node holds (a combination of) every node's input.

    The latency of AllReduce / AllGather on ``topology`` in the book's port model: per round a
    node sends to at most ``ports`` neighbours and receives from at most ``ports`` neighbours
    (possibly different ones). Lower bounds: ``ceil(log_{p+1} N)`` and the diameter ``D``; this
    function returns the true minimum, which can exceed both (a ring of 5 nodes needs 4 rounds
    where both bounds say 3).

    Parameters
    ----------
    topology : Topology
        The network. Switched networks count one round per message between any two endpoints.
    ports : int, default 1
        ``k``; a node uses ``p = min(k, degree)`` links at once.
    method : {"auto", "search"}
        ``"auto"`` uses a closed form where one is proven (see the module docstring) and
        searches otherwise; ``"search"`` always searches (direct networks only).

    Returns
    -------
    int
        Rounds.

    Raises
    ------
    ValueError
        Past the search caps: at most :data:`SEARCH_MAX_NODES` endpoints, and at most
        :data:`SEARCH_MAX_STATES` generated states (about 10 s here). The states after the
        first round are counted before the search starts, which refuses large graphs at once
        (a 3 x 4 torus has over 10**5 first rounds); a search that runs past the cap later stops
        there. Rings up to 12 nodes, a 3 x 3 torus and a 3 x 4 mesh fit (1 port).

    Examples
    --------
    >>> from ccb_helpers.topology import ring, torus, fully_connected
    >>> [gossip_rounds(ring(n)) for n in range(3, 9)]
    [2, 2, 4, 3, 5, 4]
    >>> gossip_rounds(ring(5), ports=2), gossip_rounds(fully_connected(7)), gossip_rounds(torus(3, 3))
    (2, 3, 4)
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology (e.g. ccb.ring(8)), got {type(topology).__name__}")
    ports = check_int("ports", ports, minimum=1)
    if method not in ("auto", "search"):
        raise ValueError(f"unknown method {method!r}; allowed: 'auto', 'search'")
    if method == "auto":
        value = _closed_form(topology, ports)
        if value is not None:
            return value
    if topology.switched:
        raise ValueError("method='search' works on direct networks (no switch vertices); switched networks have a closed form")
    if topology.n > SEARCH_MAX_NODES:
        raise ValueError(f"exhaustive gossip search is limited to n <= {SEARCH_MAX_NODES} endpoints; {topology.name} has n={topology.n}")
    if not nx.is_connected(topology.graph):
        raise ValueError(f"{topology.name} is not connected: some inputs can never reach some nodes")
    return _search_gossip_rounds(topology.graph, topology.n, ports)


def _closed_form(topology: Topology, ports: int):
    n = topology.n
    if n == 1:
        return 0
    p = min(ports, max(topology.degree, 1))
    if topology.switched or topology.family == "fully_connected":
        return ceil_log_int(n, p + 1)
    if topology.family == "hypercube":
        return topology.degree
    if ports >= topology.degree:
        return topology.diameter
    return None


def _automorphisms(graph: nx.Graph, n: int) -> list[tuple[int, ...]]:
    """Node permutations that preserve the graph (at most ``_MAX_AUTOMORPHISMS``; identity first)."""
    matcher = nx.algorithms.isomorphism.GraphMatcher(graph, graph)
    perms = []
    for mapping in matcher.isomorphisms_iter():
        perms.append(tuple(mapping[v] for v in range(n)))
        if len(perms) > _MAX_AUTOMORPHISMS:
            return [tuple(range(n))]
    return perms


def _round_successors(state: tuple[int, ...], senders_of: list[list[int]], ports: int, limit: int):
    """The states after every maximal round of messages (at most ``limit`` of them).

    A round is a set of messages ``u -> v`` along links with at most ``ports`` sends and
    ``ports`` receives per node; each message merges ``state[u]`` into ``v``. ``senders_of[v]``
    lists only the neighbours whose message would carry something new (a useless message never
    helps). Only maximal rounds are generated — no further message fits: for every left-out
    message either its sender or its receiver is saturated — since adding a message never
    hurts. Receivers are filled in order; a sender that a receiver with a free port skipped
    must be saturated by the time its last possible receiver is done (early pruning).
    """
    n = len(state)
    last = [-1] * n  # last receiver that could take a message from each sender
    for v in range(n):
        for u in senders_of[v]:
            last[u] = max(last[u], v)
    deadline = [[] for _ in range(n)]
    for u in range(n):
        if last[u] >= 0:
            deadline[last[u]].append(u)
    out_deg = [0] * n
    must_fill = [0] * n  # > 0: a receiver skipped this sender, so it must end saturated
    row = list(state)
    results: list[tuple[int, ...]] = []

    def receiver(v: int) -> None:
        if v == n:
            results.append(tuple(row))
            return
        free = [u for u in senders_of[v] if out_deg[u] < ports]
        for size in range(min(ports, len(free)), -1, -1):
            for group in itertools.combinations(free, size):
                merged = state[v]
                for u in group:
                    out_deg[u] += 1
                    merged |= state[u]
                row[v] = merged
                skipped = [u for u in free if u not in group] if size < ports else ()
                for u in skipped:
                    must_fill[u] += 1
                if all(not must_fill[u] or out_deg[u] >= ports for u in deadline[v]):
                    receiver(v + 1)
                for u in skipped:
                    must_fill[u] -= 1
                for u in group:
                    out_deg[u] -= 1
                if len(results) >= limit:
                    return
        row[v] = state[v]

    receiver(0)
    return results


def _popcount(masks: np.ndarray) -> np.ndarray:
    """Number of set bits of each entry (masks below 2**16)."""
    return _POPCOUNT16[masks]


_POPCOUNT16 = np.array([bin(v).count("1") for v in range(1 << 16)], dtype=np.int64)


def _search_gossip_rounds(graph: nx.Graph, n: int, ports: int) -> int:
    if n == 1:
        return 0
    nodes = range(n)
    neighbours = [sorted(graph.neighbors(v)) for v in nodes]
    full = (1 << n) - 1
    start = tuple(1 << v for v in nodes)

    first = _round_successors(start, neighbours, ports, SEARCH_MAX_STATES + 1)
    if len(first) > SEARCH_MAX_STATES:
        raise ValueError(
            f"gossip search: more than {SEARCH_MAX_STATES} possible first rounds on this graph with ports={ports} "
            f"(estimate >= {len(first)} states, cap {SEARCH_MAX_STATES}); too large for exhaustive search"
        )

    distance = dict(nx.all_pairs_shortest_path_length(graph))
    diameter = max(max(d.values()) for d in distance.values())
    # ball[r][w]: nodes within r hops of w, as a mask
    ball = [[sum(1 << v for v in nodes if distance[w][v] <= r) for w in nodes] for r in range(diameter + 1)]

    perms = np.array(_automorphisms(graph, n), dtype=np.int64)  # (P, n): v -> perms[j, v]
    # bit_image[j, byte, value]: the bits of `value` (byte `byte` of a mask) moved by perm j
    nbytes = (n + 7) // 8
    bit_image = np.zeros((len(perms), nbytes, 256), dtype=np.int64)
    for j, perm in enumerate(perms):
        for byte in range(nbytes):
            for bit in range(min(8, n - 8 * byte)):
                has = (np.arange(256) >> bit) & 1
                bit_image[j, byte] |= has * (1 << int(perm[8 * byte + bit]))
    inverse = np.argsort(perms, axis=1)  # column v of an image comes from node inverse[j, v]

    def canonical(states: np.ndarray) -> np.ndarray:
        """Lexicographically smallest image of each row (a state) under the automorphisms."""
        images = np.zeros((len(perms),) + states.shape, dtype=np.int64)
        for byte in range(nbytes):
            images |= np.take_along_axis(bit_image[:, byte, :], ((states >> (8 * byte)) & 0xFF).reshape(1, -1),
                                         axis=1).reshape(images.shape)
        images = np.take_along_axis(images, np.broadcast_to(inverse[:, None, :], images.shape), axis=2)
        alive = np.ones(images.shape[:2], dtype=bool)
        for v in range(n):
            column = np.where(alive, images[:, :, v], np.iinfo(np.int64).max)
            alive &= column == column.min(axis=0)
        best = alive.argmax(axis=0)
        return images[best, np.arange(states.shape[0])]

    def hopeless(state: tuple[int, ...], rounds: int) -> bool:
        # Knowledge grows at most (p+1)-fold per round.
        if max(bin(k).count("1") for k in state) * (ports + 1) ** rounds < n:
            return True
        # Every input must be within `rounds` hops of every node from some holder.
        reach = ball[min(rounds, diameter)]
        for i in nodes:
            bit = 1 << i
            cover = 0
            for w in nodes:
                if state[w] & bit:
                    cover |= reach[w]
            if cover != full:
                return True
        return False

    failed: dict[tuple[int, ...], int] = {}  # state -> most rounds known not to suffice
    generated = 0

    def successors(state: tuple[int, ...]) -> list[tuple[int, ...]]:
        nonlocal generated
        senders_of = [[u for u in neighbours[v] if state[u] & ~state[v]] for v in nodes]
        budget = SEARCH_MAX_STATES - generated
        after = _round_successors(state, senders_of, ports, budget + 1)
        generated += len(after)
        if generated > SEARCH_MAX_STATES:
            raise ValueError(
                f"gossip search generated more than {SEARCH_MAX_STATES} states (cap {SEARCH_MAX_STATES}) "
                f"before finishing; too large for exhaustive search"
            )
        raw = np.array(after, dtype=np.int64)
        # Symmetric successors are the same problem: keep one representative of each.
        reps = np.unique(canonical(raw), axis=0)
        # Drop representatives another one dominates (knows at least as much everywhere):
        # knowledge only grows, so the dominating state finishes at least as early.
        dominated = np.zeros(len(reps), dtype=bool)
        for first in range(0, len(reps), 256):
            block = reps[first:first + 256]
            covers = np.all((block[:, None, :] & ~reps[None, :, :]) == 0, axis=2)  # reps[j] >= block[i]
            covers[np.arange(len(block)), np.arange(first, first + len(block))] = False
            dominated[first:first + len(block)] = covers.any(axis=1)
        kept = reps[~dominated]
        knowledge = _popcount(kept).sum(axis=1)
        return [tuple(row) for row in kept[np.argsort(-knowledge, kind="stable")].tolist()]  # most knowledge first

    def feasible(state: tuple[int, ...], rounds: int) -> bool:
        if all(k == full for k in state):
            return True
        if rounds == 0 or failed.get(state, -1) >= rounds:
            return False
        if hopeless(state, rounds):
            failed[state] = rounds
            return False
        for nxt in successors(state):
            if feasible(nxt, rounds - 1):
                return True
        failed[state] = rounds
        return False

    rounds = max(ceil_log_int(n, ports + 1), diameter)
    begin = tuple(canonical(np.array([start], dtype=np.int64))[0].tolist())
    while not feasible(begin, rounds):
        rounds += 1
    return rounds
