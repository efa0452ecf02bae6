"""The two lower bounds of the (S, R, C) model: steps (``eq:cc-synth-steps``) and rounds per chunk
(``eq:cc-synth-rounds``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .._intmath import ceil_log_int
from .._validation import check_choice, check_int
from .model import _DUAL, MAX_BOUND_ENDPOINTS, SYNTHESIS_PRIMITIVES, _check_topology, _Network, _network


def steps_lower_bound(topology, primitive, root=0) -> int:
    """Fewest steps any schedule needs: the farthest pair (source, node that needs its data), and
    the doubling bound.

    ``eq:cc-synth-steps``: :math:`S \\ge \\max_{c} \\max_{v \\in \\mathrm{post}(c)} \\mathrm{dist}(\\mathrm{src}(c), v)`
    and :math:`S \\ge \\lceil \\log_{\\Delta + 1} N \\rceil`. A chunk moves one hop per step;
    through a switch one step reaches any endpoint. For the all-to-all primitives the first is the
    diameter, for the rooted ones the root's eccentricity. A step is one round of the book: a
    node sends to (and receives from) at most ``Δ`` peers in it, its distinct neighbours on a
    direct network, its links into a switch (``min(b, N - 1)``), so the nodes a chunk has reached
    (or, for the reductions' duals, whose data a node has heard of) grow at most ``(Δ + 1)``-fold a
    step: chapter 1's bound. On a direct network it never exceeds the distance (Moore's bound); on a
    switch with ``b < N - 1`` links per endpoint it is the larger (#37: one step on
    ``single_switch(3)`` put an AllGather below the round bound of 2 α).

    Which model: the steps/rounds/chunks model of :func:`synthesize`, whose steps are the rounds
    of the book (so :func:`ccb_helpers.latency_steps_lower_bound` with all-port ``p = d`` holds
    for them too, and this bound for every schedule of the round model).

    Parameters
    ----------
    topology : Topology
    primitive : str
        One of :data:`SYNTHESIS_PRIMITIVES`.
    root : int, default 0
        Root of a rooted primitive.

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> steps_lower_bound(ccb.ring(8), "all_gather"), steps_lower_bound(ccb.dgx1(), "all_gather")
    (4, 2)
    >>> steps_lower_bound(ccb.mesh(3, 3), "broadcast", root=4)   # the centre: 2 hops to a corner
    2
    >>> steps_lower_bound(ccb.single_switch(8), "all_gather")   # one link each: log2 8 steps
    3
    """
    topology = _check_topology(topology)
    primitive = check_choice("primitive", primitive, SYNTHESIS_PRIMITIVES)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1, scalar=True)
    net = _network(topology)
    doubling = ceil_log_int(net.n, net.fan + 1)
    if primitive in ("all_gather", "reduce_scatter", "all_reduce", "all_to_all"):
        return max(int(net.hops.max()), doubling)
    return max(int(net.hops[root].max()), doubling)


def _cut_bound(net: _Network, primitive: str, root: int) -> Fraction:
    """max over node sets X of (chunks, per chunk of a block, that must enter X) / (links entering X).

    The 2**n sets are enumerated in blocks of ``_CUT_BLOCK`` (bit masks), the links entering each
    set as one matrix product per block (integers far below 2**53, so exact in floating point);
    the maximum ratio is found in floating point and then checked exactly by integer
    cross-multiplication. (A loop over arcs with a strided column per arc took 8 s at n = 20.)
    """
    n = net.n
    if n > MAX_BOUND_ENDPOINTS:
        raise ValueError(f"the cut bound enumerates all 2**n node sets; n <= {MAX_BOUND_ENDPOINTS}, got n={n}")
    bits = np.arange(n)
    direct = all(len(arcs) == 1 for arcs, _ in net.groups)
    if direct:
        links = np.zeros((n, n))  # links[u, v]: multiplicity of the arc u -> v
        for (k,), b in net.groups:
            u, v = net.arcs[k]
            links[u, v] += b
    else:
        # Single switch: the switch sits on the side that minimises the crossing: either all
        # uplinks of outside nodes or all downlinks of inside nodes are crossed.
        up = np.zeros(n)
        for arcs, b in net.groups[:n]:
            up[net.arcs[arcs[0]][0]] = b
        down = np.zeros(n)
        for arcs, b in net.groups[n:]:
            down[net.arcs[arcs[0]][1]] = b
    best = Fraction(0)
    for start in range(0, 1 << n, _CUT_BLOCK):
        masks = np.arange(start, min(start + _CUT_BLOCK, 1 << n))
        inside = ((masks[:, None] >> bits) & 1).astype(bool)  # (sets, n)
        x = inside.astype(float)
        if direct:
            # links entering X: sum over v in X, u outside X of links[u, v]
            capacity = np.rint((((1.0 - x) @ links) * x).sum(axis=1)).astype(np.int64)
        else:
            capacity = np.rint(np.minimum((1.0 - x) @ up, x @ down)).astype(np.int64)
        # Demand: chunks (one per block) whose source is outside X and that some node of X needs.
        k = inside.sum(axis=1)
        if primitive == "all_gather":
            demand = np.where(k > 0, n - k, 0)
        elif primitive == "broadcast":
            demand = (~inside[:, root] & (k > 0)).astype(np.int64)
        elif primitive == "scatter":
            demand = np.where(inside[:, root], 0, k)
        elif primitive == "gather":
            demand = np.where(inside[:, root], n - k, 0)
        elif primitive == "all_reduce":
            # X needs the sum of the outside's inputs over all N blocks: at least one chunk per piece
            # of the whole vector enters X, however the outside combines them.
            demand = np.where((k > 0) & (k < n), n, 0)
        else:  # all_to_all: pairs (s outside, t inside)
            demand = k * (n - k)
        useful = demand > 0
        if not useful.any():
            continue
        d, c = demand[useful], capacity[useful]
        if np.any(c == 0):
            raise ValueError("some chunk cannot reach a node that needs it: the topology is disconnected")
        i = int(np.argmax(d / c))
        while True:  # settle float near-ties exactly: is any d/c larger than d[i]/c[i]? (small ints)
            larger = np.nonzero(d * c[i] > d[i] * c)[0]
            if not larger.size:
                break
            i = int(larger[np.argmax(d[larger] / c[larger])])
        best = max(best, Fraction(int(d[i]), int(c[i])))
    return best


#: Node sets per block of the cut bound's enumeration (memory ~ 50 bytes x n per set).
_CUT_BLOCK = 1 << 15


def _capacity_bound(net: _Network) -> Fraction:
    """AllReduce's total-capacity bound (chapter 5): ``2 (N-1) N`` blocks over ``sum_v d_v`` links.

    Every element of the vector needs at least ``2 (N-1)`` transmissions of a value for it,
    however the values are combined: replacing each value sent by everything its sender knows
    turns the schedule into a gossip in the one-way (mail) model, which needs ``2N - 2``
    messages. The ``N`` blocks then need ``2 (N-1) N`` chunk transmissions per chunk of a block,
    and a round carries at most one chunk per link into a node: ``sum_v d_v``. On a regular graph
    this is chapter 3's ``2 (N-1) / d``; per node it is not a bound (a node need only receive the
    ``N`` blocks of the result: the cut bound with ``X`` that node), which put it above a
    verified schedule on a path of 3 nodes (#37).
    """
    n = net.n
    into = 0
    for arcs, b in net.groups:
        if len({net.arcs[k][1] for k in arcs}) == 1:  # the links into one node
            into += b
    return Fraction(2 * (n - 1) * n, into)


def rounds_per_chunk_bound(topology, primitive, root=0) -> Fraction:
    """Least rounds per chunk ``R/C`` any schedule needs, exact.

    ``eq:cc-synth-rounds``: for every set ``X`` of nodes, each chunk whose source lies outside
    ``X`` and that some node of ``X`` needs must cross into ``X`` at least once, and in one round
    the links entering ``X`` carry at most their total multiplicity ``cap(X)`` chunks. So

    .. math:: \\frac{R}{C} \\ge \\max_X \\frac{\\mathrm{need}(X)}{\\mathrm{cap}(X)},

    ``need`` counted per chunk of one block. This is the cut form of the flow LP's dual; every
    node set is enumerated (``n <= 20``), in integer arithmetic. On every topology the tests try
    (rings, hypercube, tori, mesh, DGX-1; AllGather, AllToAll, Broadcast) it equals the optimum of
    the multicommodity flow LP (one unit from each source to each node that needs it, multicast
    allowed), solved independently with GLOP; in general the LP can only be larger. With ``X`` a single node it is the
    chapters' per-node bound (AllGather ``(N-1)/d``, Broadcast ``1/d``, AllToAll ``(N-1)/d``).
    ReduceScatter / Reduce / Gather are the reverse of AllGather / Broadcast / Scatter (links are
    full duplex, the bound is the same). AllReduce: the larger of chapter 5's total-capacity
    bound ``2 (N-1) N / sum_v d_v`` (all nodes together receive ``2 (N-1) N`` blocks; on a regular
    graph chapter 3's ``2 (N-1) / d``) and the cut bound with ``need(X) = N`` for every proper
    ``X`` (``X`` needs the outside's sum of all ``N`` blocks: one chunk per piece must enter it,
    however the outside combines; ``X`` one node: it receives the whole result). The cut wins on
    graphs with a thin cut: two 4-cliques joined by one link need ``8`` rounds per chunk, not
    ``2 * 7 * 8 / 26``. ``2 (N-1) / d_min`` is not a bound: on a path of 3 nodes (degrees 1, 2, 1)
    a verified schedule needs ``7/2 < 4`` (#37); the bound there is ``3``.

    Holds in the steps/rounds/chunks model (a link of multiplicity ``b`` carries ``b`` chunks a
    round); the book's round model charges a round its busiest link, which is the same thing on
    the links of the topology.

    Returns
    -------
    fractions.Fraction
        Multiply by ``u / β`` (``u = M/N``, or ``M`` for Broadcast / Reduce) for seconds; when
        ``N`` does not divide ``M``, by the smallest block ``floor(M/N)`` (the blocks that must
        enter ``X`` may be the smallest ones: the #37 audit's triangle needs 3 + 3 bytes, not
        2 x 10/3).

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> rounds_per_chunk_bound(ccb.dgx1(), "all_gather")     # 7 blocks into a GPU with 6 NVLinks
    Fraction(7, 6)
    >>> rounds_per_chunk_bound(ccb.ring(8), "all_to_all")    # the bisection: 16 blocks over 2 links
    Fraction(8, 1)
    >>> rounds_per_chunk_bound(ccb.mesh(3), "all_reduce")    # 2 * 2 * 3 blocks over 4 links; an end: 3 / 1
    Fraction(3, 1)
    """
    topology = _check_topology(topology)
    primitive = check_choice("primitive", primitive, SYNTHESIS_PRIMITIVES)
    root = check_int("root", root, minimum=0, maximum=topology.n - 1, scalar=True)
    if topology.n > MAX_BOUND_ENDPOINTS:  # before building anything
        raise ValueError(f"the cut bound enumerates all 2**n node sets; n <= {MAX_BOUND_ENDPOINTS}, got n={topology.n}")
    net = _network(topology, hops=False)
    if primitive == "all_reduce":
        return max(_capacity_bound(net), _cut_bound(net, "all_reduce", root))
    return _cut_bound(net, _DUAL.get(primitive, primitive), root)
