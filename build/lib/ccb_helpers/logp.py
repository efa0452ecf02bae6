"""Tree broadcasts in the LogP model: no rounds, each send as early as the model allows.

LogP (Culler et al., 1993) charges a short message ``o`` of the sender's processor, ``L`` in the
network and ``o`` of the receiver's processor, and lets one processor start a message at most
every ``g`` (and not while it is busy with an overhead, so every ``max(g, o)``). There are no
rounds: a node that has received the message starts forwarding it the moment its receive
overhead ends, while nodes informed earlier are still sending. So a tree broadcast takes

.. math:: r_{\\text{root}} = 0,\\qquad r_{c_j} = r_v + j\\,\\max(g, o) + 2o + L

for the ``j``-th child (``j = 0, 1, …``) of a node ``v`` informed at ``r_v``
(``eq:mpi-logp-broadcast``), and the broadcast ends at ``max_v r_v``. Forcing the same tree into
synchronous rounds of ``o + (k - 1) max(g, o) + L + o`` (chapter 6's exercise in its first
version) overcharges it: a node informed early in a round waits for the round's slowest message.

The optimal LogP broadcast tree (Karp, Sahay, Santos and Schauser, 1993) is greedy: every
informed node keeps sending, one message every ``max(g, o)``, and each send informs the next
uninformed node. No tree broadcast in LogP finishes earlier (:func:`logp_broadcast` with
``tree="optimal"`` is the LogP lower bound for broadcasting one short message); it is a bound
in the LogP model only, not in the book's round model, where ``ceil(log_{k+1} N)`` rounds is
the bound.
"""

from __future__ import annotations

import heapq
from typing import NamedTuple

from ._validation import check_choice, check_int, check_memory, check_record, check_seconds

__all__ = ["LOGP_TREES", "LogPBroadcast", "logp_broadcast", "logp_tree_broadcast"]

#: Trees :func:`logp_broadcast` builds: k-nomial (``"binomial"`` is ``ports=1``) and LogP-optimal.
LOGP_TREES = ("binomial", "knomial", "optimal")
#: Most nodes of one broadcast: a pure-Python loop over the nodes, about 1 s at the cap here.
MAX_LOGP_NODES = 2**18
#: Peak bytes per node (children lists, times as Python floats, the optimal tree's heap):
#: tracemalloc measured 288 (optimal), 209 (binomial) and 190 (3-nomial) at n = 2**16.
_BYTES_PER_NODE = 512


@check_record(tree="str", children="tuple", send_start="tuple", ready="tuple", time="real")
class LogPBroadcast(NamedTuple):
    """A tree broadcast timed in LogP (seconds).

    Attributes
    ----------
    tree : str
        ``"binomial"``, ``"knomial"``, ``"optimal"`` or ``"given"`` (:func:`logp_tree_broadcast`).
    children : tuple of tuple of int
        Each node's children, in the order it sends to them; node 0 is the root.
    send_start : tuple of float or None
        When each node's parent starts sending to it (``None`` for the root).
    ready : tuple of float
        When each node holds the message (its receive overhead over); 0 for the root.
    time : float
        ``max(ready)``: the broadcast's time.
    """

    tree: str
    children: tuple
    send_start: tuple
    ready: tuple
    time: float


def _check_costs(latency, overhead, gap):
    latency = check_seconds("latency", latency, scalar=True)
    overhead = check_seconds("overhead", overhead, scalar=True)
    gap = check_seconds("gap", gap, scalar=True)
    return latency, overhead, gap


def logp_broadcast(n, latency, overhead, gap, tree="binomial", ports=1) -> LogPBroadcast:
    """A broadcast of one short message from node 0 to ``n`` nodes, timed in LogP (``eq:mpi-logp-broadcast``).

    Parameters
    ----------
    n : int
        Nodes, ``1 <= n <= 2**18``.
    latency, overhead, gap : float
        LogP's ``L``, ``o`` and ``g`` in seconds (``>= 0``).
    tree : str, default "binomial"
        ``"binomial"`` (the 1-port tree of the round model), ``"knomial"`` (the tree of
        :func:`~ccb_helpers.knomial_tree` with ``ports`` sends per round: node ``v`` sends, in
        order, to ``v + j (k+1)^t`` for ``t`` from the round it was informed in and ``j = 1..k``)
        or ``"optimal"`` (the greedy tree of Karp et al.: the LogP lower bound).
    ports : int, default 1
        ``k`` of the k-nomial tree (``tree="knomial"`` only; ``"binomial"`` is ``k = 1``).

    Returns
    -------
    LogPBroadcast

    Raises
    ------
    ValueError
        Arguments out of range, or ``ports`` given for a tree that has none.

    Examples
    --------
    Chapter 6's exercise: ``o = 2``, ``g = 3``, ``L = 1`` (µs), ``N = 9``. The binomial tree's root
    sends at 0, 3, 6, 9; its first child, informed at 0 + 2 + 1 + 2 = 5, sends at 5 and 8 …

    >>> us = 1e-6
    >>> [round(logp_broadcast(9, 1 * us, 2 * us, 3 * us, tree).time / us, 9) for tree in ("binomial", "optimal")]
    [15.0, 15.0]
    >>> round(logp_broadcast(9, 1 * us, 2 * us, 3 * us, "knomial", ports=2).time / us, 9)   # 2-port tree
    16.0
    """
    n = check_int("n", n, minimum=1, maximum=MAX_LOGP_NODES, scalar=True)
    latency, overhead, gap = _check_costs(latency, overhead, gap)
    tree = check_choice("tree", tree, LOGP_TREES)
    ports = check_int("ports", ports, minimum=1, maximum=MAX_LOGP_NODES, scalar=True)
    if tree != "knomial" and ports != 1:
        raise ValueError(f"ports applies to tree='knomial' only; tree={tree!r} takes ports=1, got {ports}")
    check_memory(f"n: a LogP broadcast of {n:,} nodes", _BYTES_PER_NODE * n)
    interval = max(gap, overhead)
    if tree == "optimal":
        return _optimal(n, latency, overhead, interval)
    children = _knomial_children(n, ports)
    return _time_tree(tree, children, latency, overhead, interval)


def logp_tree_broadcast(children, latency, overhead, gap) -> LogPBroadcast:
    """Time a given broadcast tree in LogP: ``children[v]`` lists ``v``'s children in sending order.

    Node 0 is the root; every other node must have exactly one parent and be reachable from 0.

    Parameters
    ----------
    children : sequence of sequences of int
        ``children[v]`` for ``v = 0 .. n-1`` (``1 <= n <= 2**18``).
    latency, overhead, gap : float
        LogP's ``L``, ``o`` and ``g`` in seconds (``>= 0``).

    Examples
    --------
    A root that sends to both others (a star) against a chain, ``o = g = 1``, ``L = 2``:

    >>> logp_tree_broadcast([[1, 2], [], []], 2, 1, 1).ready
    (0.0, 4.0, 5.0)
    >>> logp_tree_broadcast([[1], [2], []], 2, 1, 1).time
    8.0
    """
    latency, overhead, gap = _check_costs(latency, overhead, gap)
    if not isinstance(children, (list, tuple)):
        raise TypeError(f"children must be a sequence (list or tuple) of child lists, got {type(children).__name__}")
    n = len(children)
    if not 1 <= n <= MAX_LOGP_NODES:
        raise ValueError(f"children must list 1 to {MAX_LOGP_NODES} nodes, got {n}")
    check_memory(f"children: a LogP broadcast of {n:,} nodes", _BYTES_PER_NODE * n)
    tree = []
    parent = [None] * n
    for v, kids in enumerate(children):
        if isinstance(kids, (str, bytes)) or not hasattr(kids, "__iter__"):
            raise TypeError(f"children[{v}] must be a list of node numbers, got {type(kids).__name__}")
        kids = tuple(check_int(f"children[{v}]", c, minimum=1, maximum=n - 1, scalar=True) for c in kids)
        for c in kids:
            if parent[c] is not None:
                raise ValueError(f"children: node {c} has two parents ({parent[c]} and {v}): a broadcast tree has one")
            parent[c] = v
        tree.append(kids)
    result = _time_tree("given", tuple(tree), latency, overhead, max(gap, overhead))
    unreached = [v for v, t in enumerate(result.ready) if t is None]
    if unreached:
        raise ValueError(
            f"children: nodes {unreached[:5]} are not reachable from the root 0 (a cycle or a detached part)"
        )
    return result


def _knomial_children(n: int, ports: int) -> tuple:
    """Children of the k-nomial tree in sending order (by round, then ``j``)."""
    from .generators import knomial_tree

    children = [[] for _ in range(n)]
    for round_edges in knomial_tree(n, ports):
        for parent, child in round_edges:
            children[parent].append(child)
    return tuple(tuple(c) for c in children)


def _time_tree(name, children, latency, overhead, interval) -> LogPBroadcast:
    n = len(children)
    ready = [None] * n
    send_start = [None] * n
    ready[0] = 0.0
    stack = [0]
    while stack:  # parents before children; a node's time depends on its parent's only
        v = stack.pop()
        for j, c in enumerate(children[v]):
            if ready[c] is not None:
                continue  # a cycle back to an informed node: reported by the caller
            send_start[c] = ready[v] + j * interval
            ready[c] = send_start[c] + 2 * overhead + latency
            stack.append(c)
    finish = max(t for t in ready if t is not None)
    return LogPBroadcast(name, children, tuple(send_start), tuple(ready), finish)


def _optimal(n, latency, overhead, interval) -> LogPBroadcast:
    """Karp et al.'s greedy tree: the earliest free send slot of any informed node informs the next node."""
    children = [[] for _ in range(n)]
    ready = [0.0] + [None] * (n - 1)
    send_start = [None] * n
    slots = [(0.0, 0)]  # (time a node can start its next send, node)
    for child in range(1, n):
        start, sender = heapq.heappop(slots)
        children[sender].append(child)
        send_start[child] = start
        ready[child] = start + 2 * overhead + latency
        heapq.heappush(slots, (start + interval, sender))
        heapq.heappush(slots, (ready[child], child))
    return LogPBroadcast("optimal", tuple(tuple(c) for c in children), tuple(send_start), tuple(ready), max(ready))
