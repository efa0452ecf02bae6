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
from ._validation import check_cap, check_choice, check_int, check_memory
from .topology import Topology, check_topology

__all__ = ["gossip_rounds"]

#: Largest number of endpoints the exhaustive search accepts.
SEARCH_MAX_NODES = 16
#: Largest number of states the search may generate (the first round's are counted before the
#: search starts, the rest as it goes).
SEARCH_MAX_STATES = 30_000
#: Largest number of enumeration steps (one per group of senders tried for a receiver) the search
#: may take, the first round's included: what bounds the time when few of the rounds tried are
#: legal (a complete graph with several ports).
SEARCH_MAX_STEPS = 2_000_000
#: Largest automorphism group used to merge symmetric states.
_MAX_AUTOMORPHISMS = 4096
#: Successor sets larger than this skip the (quadratic, optional) dominance pruning.
_DOMINANCE_MAX = 2048
#: int64 elements per block of the canonical-form computation (32 MiB).
_CANONICAL_BLOCK = 2**22
#: Peak bytes per generated state allowed for (the state tuples, the sets and dicts that hold
#: them, their canonical forms): tracemalloc measured 113-299 bytes per state of the cap, fixed
#: costs included (3 x 4 torus, 4 x 4 mesh, 4-cube, complete graph of 8, at 3,000 and 30,000).
_BYTES_PER_STATE = 512


def _search_memory() -> int:
    """Estimated peak bytes of one search, from its state budget (read at call time): the states,
    three blocks of the canonical form's images and the automorphisms' bit tables (16 MiB at 4096
    automorphisms of 16 nodes), and 4 MiB of the rest."""
    tables = 8 * 256 * 2 * _MAX_AUTOMORPHISMS
    return _BYTES_PER_STATE * SEARCH_MAX_STATES + 3 * 8 * _CANONICAL_BLOCK + tables + 4 * 2**20


class _Budget:
    """States and enumeration steps left to one search (fixed before it starts)."""

    def __init__(self, what: str):
        self.what = what
        self.states = 0
        self.steps = 0

    def step(self) -> None:
        self.steps += 1
        if self.steps > SEARCH_MAX_STEPS:
            check_cap(
                f"{self.what}: enumeration steps (the search stopped there)",
                self.steps,
                SEARCH_MAX_STEPS,
                hint="too large for exhaustive search",
            )

    def add_states(self, count: int) -> None:
        self.states += count
        check_cap(
            f"{self.what}: generated states (the search stopped there)",
            self.states,
            SEARCH_MAX_STATES,
            hint="too large for exhaustive search",
        )


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
        Past the search caps, checked before the search starts: at most
        :data:`SEARCH_MAX_NODES` = 16 endpoints; then the estimate — every search expands the
        start state, so it generates at least the ``F`` states after the first round: ``F`` is
        counted first (the count itself stops at the caps) and refused if above
        :data:`SEARCH_MAX_STATES` = 30,000 states or if enumerating it takes more than
        :data:`SEARCH_MAX_STEPS` = 2,000,000 steps (a 3 x 4 torus has over 10**5 first rounds;
        a 16-node complete graph with 5 ports takes more than 2,000,000 steps to list them). The
        same two budgets, fixed before the search starts, then bound the whole search (first
        round included; about 10 s and a few hundred MiB here); a search that runs past them
        stops there with the same message (rings of 13 and 15 nodes with 1 port do). Rings up
        to 12 nodes, a 3 x 3 torus, a 3 x 4 mesh and DGX-1 fit (1 port).

    Examples
    --------
    >>> from ccb_helpers.topology import ring, torus, fully_connected
    >>> [gossip_rounds(ring(n)) for n in range(3, 9)]
    [2, 2, 4, 3, 5, 4]
    >>> gossip_rounds(ring(5), ports=2), gossip_rounds(fully_connected(7)), gossip_rounds(torus(3, 3))
    (2, 3, 4)
    """
    check_topology(topology)
    ports = check_int("ports", ports, minimum=1, scalar=True)
    method = check_choice("method", method, ("auto", "search"))
    if method == "auto":
        value = _closed_form(topology, ports)
        if value is not None:
            return value
    if topology.switched:
        raise ValueError(
            "topology: method='search' works on direct networks (no switch vertices); "
            "switched networks have a closed form"
        )
    if topology.n > SEARCH_MAX_NODES:
        raise ValueError(
            f"topology: the exhaustive gossip search is limited to n <= {SEARCH_MAX_NODES} endpoints; "
            f"{topology.name} has n={topology.n}"
        )
    if not nx.is_connected(topology.graph):
        raise ValueError(f"topology: {topology.name} is not connected: some inputs can never reach some nodes")
    check_memory(f"topology: gossip search on {topology.name} with ports={ports}", _search_memory())
    budget = _Budget(f"gossip search on {topology.name} with ports={ports}")
    first = _first_round(topology.graph, topology.n, ports, budget)  # the estimate, before the search
    return _search_gossip_rounds(topology.graph, topology.n, ports, budget, first)


def _first_round(graph: nx.Graph, n: int, ports: int, budget: _Budget) -> list[tuple[int, ...]]:
    """The states after the first round (a lower bound on what any search generates), or the cap error."""
    start = tuple(1 << v for v in range(n))
    first = _round_successors(
        start, [sorted(graph.neighbors(v)) for v in range(n)], ports, SEARCH_MAX_STATES + 1, budget
    )
    check_cap(
        f"{budget.what}: states after the first round alone (a lower bound on the search)",
        len(first),
        SEARCH_MAX_STATES,
        hint="too large for exhaustive search",
    )
    return first


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


def _round_successors(state: tuple[int, ...], senders_of: list[list[int]], ports: int, limit: int, budget: _Budget):
    """The states after every maximal round of messages (at most ``limit`` of them).

    A round is a set of messages ``u -> v`` along links with at most ``ports`` sends and
    ``ports`` receives per node; each message merges ``state[u]`` into ``v``. ``senders_of[v]``
    lists only the neighbours whose message would carry something new (a useless message never
    helps). Only maximal rounds are generated — no further message fits: for every left-out
    message either its sender or its receiver is saturated — since adding a message never
    hurts. Receivers are filled in order; a sender that a receiver with a free port skipped
    must be saturated by the time its last possible receiver is done (early pruning). Every
    group of senders tried costs one step of ``budget``.
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
        due = deadline[v]
        step = budget.step
        for size in range(min(ports, len(free)), -1, -1):
            for group in itertools.combinations(free, size):
                step()
                merged = state[v]
                for u in group:
                    out_deg[u] += 1
                    merged |= state[u]
                row[v] = merged
                skipped = [u for u in free if u not in group] if size < ports else ()
                for u in skipped:
                    must_fill[u] += 1
                # A sender skipped earlier must be saturated by its last receiver (a loop, not
                # all() over a generator: this runs once per step, up to 2,000,000 times).
                for u in due:
                    if must_fill[u] and out_deg[u] < ports:
                        break
                else:
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


def _search_gossip_rounds(graph: nx.Graph, n: int, ports: int, budget: _Budget, first: list[tuple[int, ...]]) -> int:
    """Iterative deepening from the start state; ``first`` (its successors) is already counted in ``budget``."""
    if n == 1:
        return 0
    nodes = range(n)
    neighbours = [sorted(graph.neighbors(v)) for v in nodes]
    full = (1 << n) - 1
    start = tuple(1 << v for v in nodes)
    budget.add_states(len(first))

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
        # In blocks of rows: the images of all of them at once would take P x rows x n int64
        # (4096 x 30,000 x 16 x 8 bytes = 15 GiB at the caps).
        rows = max(1, _CANONICAL_BLOCK // (len(perms) * n))
        if len(states) > rows:
            return np.concatenate([canonical(states[i : i + rows]) for i in range(0, len(states), rows)])
        images = np.zeros((len(perms),) + states.shape, dtype=np.int64)
        for byte in range(nbytes):
            images |= np.take_along_axis(
                bit_image[:, byte, :], ((states >> (8 * byte)) & 0xFF).reshape(1, -1), axis=1
            ).reshape(images.shape)
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

    def successors(state: tuple[int, ...]) -> list[tuple[int, ...]]:
        if state == start:
            after = first
        else:
            senders_of = [[u for u in neighbours[v] if state[u] & ~state[v]] for v in nodes]
            after = _round_successors(state, senders_of, ports, SEARCH_MAX_STATES - budget.states + 1, budget)
            budget.add_states(len(after))
        raw = np.array(after, dtype=np.int64)
        # Symmetric successors are the same problem: keep one representative of each.
        reps = np.unique(canonical(raw), axis=0)
        # Drop representatives another one dominates (knows at least as much everywhere):
        # knowledge only grows, so the dominating state finishes at least as early.
        # (Quadratic in the successors, and only a speed-up: skipped for large sets.)
        dominated = np.zeros(len(reps), dtype=bool)
        for begin in range(0, len(reps) if len(reps) <= _DOMINANCE_MAX else 0, 256):
            block = reps[begin : begin + 256]
            covers = np.all((block[:, None, :] & ~reps[None, :, :]) == 0, axis=2)  # reps[j] >= block[i]
            covers[np.arange(len(block)), np.arange(begin, begin + len(block))] = False
            dominated[begin : begin + len(block)] = covers.any(axis=1)
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
