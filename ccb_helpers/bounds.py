"""The combined lower bounds (max and sum forms), the crossover size and the regime.

Any algorithm needs at least ``L = max(ceil(log_{p+1} N), D)`` rounds and must move the busiest
node's forced bytes ``max(S, R)`` over its ``p`` links. How the two combine depends on the model:

* **Synchronous rounds** (the book's α-β model, its cost models and its simulator): a round
  costs ``α`` plus its largest message over ``β``. Every algorithm runs at least ``L`` rounds,
  and the busiest node sends at most ``p`` messages per round, each no larger than the round's
  largest, so the sum of the rounds' largest messages is at least ``max(S, R) / p``. Hence
  ``T >= L α + max(S, R) / (p β)``: the **sum** form, :func:`round_lower_bound`.
* **Overlapping start-up and transfer** (LogP / LogGP, pipelined or asynchronous progress, where
  one message's latency runs while another's bytes flow): each term still bounds the time on its
  own, but they need not add up. Only the **max** form, :func:`combined_lower_bound`
  (``eq:cc-bound-combined``), survives; the latency term must itself use that model's costs.

Since ``max(a, b) <= a + b <= 2 max(a, b)``, the max is at least half the sum: in the round
model the sum is up to 2x tighter, most at ``M = M*`` where the two terms are equal.

**Computation** (``gamma``, seconds per byte combined; ``eq:cc-bound-compute``). Every byte of a
Reduce's, ReduceScatter's or AllReduce's result is a sum of ``N`` inputs, and ``N - 1`` additions
are needed to form it, wherever they run: ``(N - 1) M`` bytes of additions in all (``M`` result
bytes: the root's buffer, the ``N`` blocks, or the one AllReduce vector computed once and then
copied). Spread over ``N`` nodes, some node adds at least ``(N - 1) M / N`` bytes: a third term,
``(N - 1) M / N * gamma``, independent of the ports (a node has one adder however many links it
drives). In the round model a node adds what it received before its round ends, so the term adds
to the other two (the sum form); overlapping adds with transfers only leaves the max. Copy
primitives combine nothing: their term is 0, and ``gamma = 0`` (the default) gives the α-β bounds.
The nodes do the adds here: a switch that adds (NVLS, SHARP, :mod:`ccb_helpers.in_network`) takes
them off the nodes, and its bounds carry no γ term.

**Which distance a primitive must cross.** AllGather, ReduceScatter, AllReduce and AllToAll need
information between every pair of nodes, so they cross the graph's diameter ``D``. A rooted
primitive (Broadcast, Scatter, Gather, Reduce) only connects the root with every node: it crosses
the root's eccentricity ``e(root)``, which can be half the diameter (the centre of a mesh or of a
path). Given only ``diameter=D``, the bounds use ``ceil(D / 2)`` for a rooted primitive (no node's
eccentricity is smaller: ``D <= 2 * radius``); pass ``eccentricity=ccb.eccentricity(topology,
root)`` for the root's own value, or the radius (the smallest eccentricity) when any root may be
chosen. Using ``D`` for a rooted primitive put the "bound" above a verified schedule (issue #28).
"""

from __future__ import annotations

import numpy as np

from ._validation import INT64_MAX, check_bandwidth, check_int, check_seconds, check_shapes, check_size, is_array
from .bandwidth import _bandwidth_lower_bound, _check_ports_degree, _effective_ports, _volume_coefficient
from .primitives import ROOTED_PRIMITIVES, check_primitive
from .propagation import _info_steps

__all__ = [
    "latency_steps_lower_bound",
    "latency_lower_bound",
    "combined_lower_bound",
    "round_lower_bound",
    "computation_lower_bound",
    "cut_through_latency_bound",
    "crossover_size",
    "regime",
]


def latency_steps_lower_bound(primitive, n, ports=1, diameter=0, degree=None, eccentricity=None):
    """Rounds any algorithm needs: ``max(ceil(log_{p+1} N), D)`` (``N >= 2``), 0 for one node.

    Every primitive needs ``ceil(log_{p+1} N)`` rounds: some node's data must reach all nodes
    (Broadcast, Scatter, AllGather, AllReduce, AllToAll) or some node needs data from all
    nodes (Gather, Reduce, ReduceScatter), and either way the set of nodes involved grows at
    most ``(p+1)``-fold per round. The diameter bound (``eq:cc-bound-topo``) is ``D`` rounds.

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES` (all share this bound; validated for clarity).
    n : int or array of int
        Nodes, ``n >= 1``.
    ports : int, default 1
        Ports per node ``k``.
    diameter : int, default 0
        ``D`` in rounds (``Topology.step_diameter``); 0 means no topology constraint. A rooted
        primitive only has to cross ``ceil(D / 2)`` of it (see the module docstring).
    degree : int, optional
        Node degree; ``p = min(ports, degree)``.
    eccentricity : int, optional
        The root's eccentricity in rounds (:func:`ccb_helpers.eccentricity`; the radius when the
        root is free). A rooted primitive then crosses this distance instead of ``ceil(D / 2)``;
        for the other primitives it is a valid bound too, below ``D``. With ``diameter > 0`` it
        must lie in ``[ceil(D / 2), D]``, the range of every node's eccentricity.

    Examples
    --------
    >>> latency_steps_lower_bound("all_reduce", 16), latency_steps_lower_bound("all_reduce", 16, diameter=8)
    (4, 8)
    >>> latency_steps_lower_bound("broadcast", 64, ports=6)
    3

    A path of 9 nodes (``mesh(9)``, D = 8): Broadcast from an end crosses 8 hops, from the centre 4.

    >>> latency_steps_lower_bound("broadcast", 9, diameter=8), latency_steps_lower_bound("broadcast", 9, diameter=8, eccentricity=8)
    (4, 8)
    """
    primitive, n, ports, diameter, degree = _check_latency_args(primitive, n, ports, diameter, degree, eccentricity)
    check_shapes(n=n, ports=ports, diameter=diameter, degree=degree, bytes_per_element=104)  # measured: 87
    return _latency_steps(n, ports, diameter, degree)


def _check_latency_args(primitive, n, ports, diameter, degree, eccentricity=None):
    """Validated arguments; the returned ``diameter`` is the distance ``primitive`` must cross."""
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    ports, degree = _check_ports_degree(ports, degree)
    diameter = check_int("diameter", diameter, minimum=0, maximum=INT64_MAX)
    if eccentricity is not None:
        eccentricity = check_int("eccentricity", eccentricity, minimum=0, maximum=INT64_MAX)
        check_shapes(diameter=diameter, eccentricity=eccentricity)
        given = np.asarray(diameter) > 0
        if np.any(
            given
            & (
                (np.asarray(eccentricity) > np.asarray(diameter))
                | (2 * np.asarray(eccentricity) < np.asarray(diameter))
            )
        ):
            raise ValueError(
                f"eccentricity must lie in [ceil(diameter / 2), diameter] (every node's eccentricity does), "
                f"got eccentricity={_short(eccentricity)} with diameter={_short(diameter)}"
            )
    return primitive, n, ports, _distance(primitive, diameter, eccentricity), degree


def _short(value) -> str:
    text = repr(value.tolist() if isinstance(value, np.ndarray) else value)
    return text if len(text) <= 60 else text[:57] + "..."


def _distance(primitive, diameter, eccentricity):
    """Rounds of topology distance ``primitive`` must cross: the root's eccentricity for a rooted
    primitive (``ceil(D / 2)`` when only ``D`` is known), ``D`` otherwise."""
    rooted = primitive in ROOTED_PRIMITIVES
    if eccentricity is None:
        if not rooted:
            return diameter
        return (diameter + 1) // 2  # int or int64 array: ceil(D / 2) exactly
    if rooted:
        return eccentricity
    if is_array(diameter) or is_array(eccentricity):
        return np.maximum(diameter, eccentricity)
    return max(diameter, eccentricity)


def _latency_steps(n, ports, diameter, degree):
    steps = _info_steps(n, _effective_ports(ports, degree))
    if is_array(steps) or is_array(diameter):
        return np.maximum(steps, np.where(np.asarray(n) > 1, diameter, 0))
    return max(steps, diameter if n > 1 else 0)


def _moving_steps(primitive, n, m, ports, diameter, degree):
    """:func:`_latency_steps` for ``m`` bytes of ``primitive``: the rounds some data must travel.

    The latency bound counts the rounds a node's data needs to reach the nodes that need it; a
    message of ``M`` whole bytes with ``M < N`` leaves blocks empty (#37 audit). ``M = 0``: nothing
    moves, zero rounds. Scatter / Gather with ``M < N``: only the ``M`` nodes with a byte (the root
    may own one) exchange anything, ``ceil(log_{p+1} M)`` rounds, and they may be neighbours.
    AllGather / ReduceScatter with ``M < N``: node ``N - 1`` always owns a byte that all need, but
    the distance to cross is that node's eccentricity, at least ``ceil(D / 2)``, not ``D`` (a star
    whose centre owns the only byte gathers it in one round). Non-integral ``M`` is the continuous
    model (every block non-empty).
    """
    steps = _latency_steps(n, ports, diameter, degree)
    whole = np.mod(m, 1) == 0
    few = whole & (np.asarray(m) < np.asarray(n))
    if primitive in ("scatter", "gather"):
        parties = np.minimum(n, np.maximum(np.asarray(m, dtype=float), 1.0)).astype(np.int64)
        steps = np.where(few, _latency_steps(parties, ports, 0, degree), steps)
    elif primitive in ("all_gather", "reduce_scatter"):
        steps = np.where(few, _latency_steps(n, ports, (np.asarray(diameter) + 1) // 2, degree), steps)
    steps = np.where(np.asarray(m) > 0, steps, 0)
    return steps if steps.ndim else int(steps)


def latency_lower_bound(primitive, n, alpha, ports=1, diameter=0, degree=None, eccentricity=None):
    """:math:`T_\\alpha^{\\min} = \\max(\\lceil \\log_{p+1} N \\rceil, D) \\cdot \\alpha` in seconds.

    Implements ``eq:cc-bound-delay-kport`` combined with ``eq:cc-bound-topo``; ``D`` is the
    distance the primitive must cross (a rooted one: the root's ``eccentricity``, see
    :func:`latency_steps_lower_bound`). Which model: the book's rounds, store-and-forward between
    endpoints (every hop between endpoints is a round, switches forward within one: use
    ``Topology.step_diameter``), the model of :func:`ccb_helpers.simulate` and of the synthesized
    schedules' steps. With cut-through routing see :func:`cut_through_latency_bound`; under LogP
    (no rounds) only the information bound's chain of messages carries over (chapter 6).
    It assumes every block holds data (``M >= N`` bytes): with ``M = 0`` nothing moves, and with
    ``M < N`` some blocks are empty; :func:`round_lower_bound` and :func:`combined_lower_bound`,
    which know ``M``, count only the rounds the data needs (#37 audit).

    >>> latency_lower_bound("all_gather", 8, 1e-6, diameter=4)
    4e-06
    """
    primitive, n, ports, diameter, degree = _check_latency_args(primitive, n, ports, diameter, degree, eccentricity)
    alpha = check_seconds("alpha", alpha)
    check_shapes(n=n, alpha=alpha, ports=ports, diameter=diameter, degree=degree, bytes_per_element=88)  # measured: 75
    return _latency_steps(n, ports, diameter, degree) * alpha


def cut_through_latency_bound(primitive, n, alpha, hop_latency, ports=1, diameter=0, degree=None, eccentricity=None):
    """Latency bound with cut-through routing, seconds: ``max(ceil(log_{p+1} N) alpha, alpha + D h)``.

    ``eq:cc-bound-topo`` (``D alpha``) assumes store-and-forward: a message between
    non-neighbours is relayed by the nodes in between, a round per hop. With cut-through (or
    wormhole) routing, as in TPU ICI tori, the routers forward a message on the fly and a hop
    costs only the router latency ``h``. A message then costs ``alpha + hops * h``; information
    between two nodes ``D`` hops apart needs a chain of ``j >= 1`` messages whose hops add up to
    at least ``D``, so ``j alpha + D h >= alpha + D h``. The information bound
    ``ceil(log_{p+1} N) alpha`` still holds (every round costs at least ``alpha``).

    Parameters
    ----------
    primitive, n, alpha, ports, degree
        As in :func:`latency_lower_bound`.
    hop_latency : float or array
        ``h``, router latency of one hop, seconds.
    diameter : int, default 0
        ``D`` in hops (``Topology.diameter``); a rooted primitive crosses ``ceil(D / 2)`` of it.
    eccentricity : int, optional
        The root's eccentricity in hops (see :func:`latency_steps_lower_bound`).

    Examples
    --------
    A 16 x 16 x 16 torus (D = 24), 1 port, alpha = 1 us: store-and-forward 24 us; with h = 50 ns
    the information bound, 12 us, is the larger; with h = 1 us, 25 us.

    >>> latency_lower_bound("all_reduce", 4096, 1e-6, diameter=24)
    2.4e-05
    >>> cut_through_latency_bound("all_reduce", 4096, 1e-6, 50e-9, diameter=24)
    1.2e-05
    >>> round(cut_through_latency_bound("all_reduce", 4096, 1e-6, 1e-6, diameter=24) * 1e6, 9)
    25.0
    """
    primitive, n, ports, diameter, degree = _check_latency_args(primitive, n, ports, diameter, degree, eccentricity)
    alpha = check_seconds("alpha", alpha)
    hop_latency = check_seconds("hop_latency", hop_latency)
    check_shapes(  # measured: 83 bytes per element
        n=n, alpha=alpha, hop_latency=hop_latency, ports=ports, diameter=diameter, degree=degree, bytes_per_element=96
    )
    information = _latency_steps(n, ports, 0, degree) * alpha
    crossing = np.where(np.asarray(n) > 1, alpha + np.asarray(diameter) * hop_latency, 0.0)
    value = np.maximum(information, crossing)
    return float(value) if np.ndim(value) == 0 else value


def combined_lower_bound(primitive, n, m, alpha, beta, ports=1, diameter=0, degree=None, eccentricity=None, gamma=0.0):
    """:math:`T \\ge \\max(T_\\alpha^{\\min}, T_\\beta^{\\min}, T_\\gamma^{\\min})` in seconds (``eq:cc-bound-combined``).

    ``T_gamma`` is :func:`computation_lower_bound` (0 unless ``gamma > 0`` and the primitive
    combines: Reduce, ReduceScatter, AllReduce).

    Valid in every model the book uses, because each term holds alone: at least ``L`` rounds
    of at least ``alpha`` each, and the busiest node's ``max(S, R)`` bytes through its ``p`` links
    of ``beta`` — whether or not start-up and transfer overlap (LogP / LogGP, pipelining, the
    synchronous rounds of :func:`ccb_helpers.simulate`). In the synchronous round model the sum
    :func:`round_lower_bound` holds too and is up to twice this.

    For AllReduce this is ``eq:cc-bound-allreduce-1port`` / ``eq:cc-bound-allreduce-kport`` with
    the correct forced volume ``2(N-1)M/N`` (the source uses ``(N-1)M/N`` there).

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int or array of int
        Nodes, ``n >= 1``.
    m : float or array
        Message size in bytes (the book's buffer conventions).
    alpha : float or array
        Latency per round, seconds.
    beta : float or array
        Link bandwidth per direction, bytes/s.
    ports : int, default 1
        Ports per node ``k``.
    diameter : int, default 0
        ``D`` in rounds (use ``Topology.step_diameter``); a rooted primitive crosses
        ``ceil(D / 2)`` of it unless ``eccentricity`` says more.
    degree : int, optional
        Node degree ``d``, so that ``p = min(k, d)``.
    eccentricity : int, optional
        The root's eccentricity in rounds (see :func:`latency_steps_lower_bound`).
    gamma : float or array, default 0
        Seconds to combine one byte (``0 <= gamma <= 1e9``).

    Examples
    --------
    >>> t = combined_lower_bound("all_reduce", 8, 2**20, 5e-6, 25e9)
    >>> round(t * 1e6, 3)   # bandwidth-bound: 2 * 7/8 MiB / 25 GB/s
    73.4
    >>> combined_lower_bound("all_reduce", 8, 1024, 5e-6, 25e9)   # latency-bound: 3 alpha
    1.5e-05
    """
    primitive, n, m, alpha, beta, ports, diameter, degree = _check_bound_args(
        primitive, n, m, alpha, beta, ports, diameter, degree, eccentricity
    )
    gamma = _check_gamma(gamma, n, m)
    return _combined_lower_bound(primitive, n, m, alpha, beta, ports, diameter, degree, gamma)


def _check_bound_args(primitive, n, m, alpha, beta, ports, diameter, degree, eccentricity=None):
    primitive, n, ports, diameter, degree = _check_latency_args(primitive, n, ports, diameter, degree, eccentricity)
    m = check_size("m", m)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    check_shapes(  # measured: 114 bytes per element (combined, round, regime)
        n=n, m=m, alpha=alpha, beta=beta, ports=ports, diameter=diameter, degree=degree, bytes_per_element=128
    )
    return primitive, n, m, alpha, beta, ports, diameter, degree


def _check_gamma(gamma, n, m):
    gamma = check_seconds("gamma", gamma)
    check_shapes(n=n, m=m, gamma=gamma, bytes_per_element=128)
    return gamma


#: The primitives whose result is a sum of the nodes' inputs (they pay the computation term).
REDUCING_PRIMITIVES = ("reduce", "reduce_scatter", "all_reduce")


def computation_lower_bound(primitive, n, m, gamma):
    """:math:`T_\\gamma^{\\min} = \\frac{N-1}{N} M \\gamma` for Reduce, ReduceScatter, AllReduce; 0 otherwise.

    ``eq:cc-bound-compute``: the ``M`` bytes of the result are sums of ``N`` inputs, ``N - 1``
    additions each, ``(N - 1) M`` in all; some node of ``N`` does at least ``1/N`` of them. No
    port count or topology changes that (one adder per node). ``gamma`` in seconds per byte.

    >>> computation_lower_bound("all_reduce", 8, 2**20, 1e-12) * 1e6   # 7/8 MiB at 1 TB/s of adds
    0.917504
    >>> computation_lower_bound("all_gather", 8, 2**20, 1e-12)
    0.0
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=INT64_MAX)
    m = check_size("m", m)
    gamma = check_seconds("gamma", gamma)
    check_shapes(n=n, m=m, gamma=gamma, bytes_per_element=96)
    return _computation_lower_bound(primitive, n, m, gamma)


def _computation_lower_bound(primitive, n, m, gamma):
    if primitive not in REDUCING_PRIMITIVES or (np.ndim(gamma) == 0 and gamma == 0):
        value = np.zeros(np.broadcast_shapes(np.shape(n), np.shape(m), np.shape(gamma)))
    else:
        value = (np.asarray(n) - 1) / np.asarray(n) * np.asarray(m) * gamma
    return float(value) if np.ndim(value) == 0 else value


def _combined_lower_bound(primitive, n, m, alpha, beta, ports, diameter, degree, gamma=0.0):
    t_alpha = _moving_steps(primitive, n, m, ports, diameter, degree) * alpha
    if (
        is_array(m)
        and not (is_array(beta) or is_array(ports) or is_array(degree))
        and primitive not in ("scatter", "gather")
    ):
        # max(S, R) = c(N) M exactly (the max picks the same product), so the per-node factor is
        # computed on n's own shape and the grid sees two operations, not six. (Not for Scatter /
        # Gather: their whole-byte blocks make the volume depend on M mod N.)
        t_beta = _volume_coefficient(primitive, n) * m / (_effective_ports(ports, degree) * beta)
    else:
        t_beta = _bandwidth_lower_bound(primitive, n, m, beta, ports, degree)
    if primitive in REDUCING_PRIMITIVES and not (np.ndim(gamma) == 0 and gamma == 0):
        t_beta = np.maximum(t_beta, _computation_lower_bound(primitive, n, m, gamma))
        t_beta = float(t_beta) if np.ndim(t_beta) == 0 and not is_array(t_alpha) else t_beta
    if is_array(t_alpha) or is_array(t_beta):
        return np.maximum(t_alpha, t_beta)
    return max(t_alpha, t_beta)


def round_lower_bound(primitive, n, m, alpha, beta, ports=1, diameter=0, degree=None, eccentricity=None, gamma=0.0):
    """:math:`T \\ge L\\,\\alpha + \\max(S, R)/(p\\,\\beta) + T_\\gamma^{\\min}` in seconds: the sum form of the bound.

    Valid in the synchronous round model (a round costs ``alpha`` plus its largest message over
    ``beta``: the model of :func:`ccb_helpers.algorithm_cost` and :func:`ccb_helpers.simulate`).
    Proof: every algorithm runs at least ``L = max(ceil(log_{p+1} N), D)`` rounds
    (:func:`latency_steps_lower_bound`), each costing at least ``alpha``; the busiest node sends
    ``S`` bytes in messages of which at most ``p`` go out per round, each no longer than that
    round's largest message, so the rounds' largest messages add up to at least ``S / p`` (and
    ``R / p`` likewise). It is at most twice :func:`combined_lower_bound` (the max form), which
    is the one that holds when start-up and transfer overlap (LogP / LogGP, pipelining).
    With ``gamma > 0`` a Reduce, ReduceScatter or AllReduce adds :func:`computation_lower_bound`:
    in the round model a round's adds follow its receives, and the rounds' largest adds sum to at
    least the busiest node's ``(N - 1) M / N`` bytes.

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int or array of int
        Nodes, ``n >= 1``.
    m : float or array
        Message size in bytes (the book's buffer conventions).
    alpha : float or array
        Latency per round, seconds.
    beta : float or array
        Link bandwidth per direction, bytes/s.
    ports : int, default 1
        Ports per node ``k``.
    diameter : int, default 0
        ``D`` in rounds (``Topology.step_diameter``); a rooted primitive crosses ``ceil(D / 2)``
        of it unless ``eccentricity`` says more.
    degree : int, optional
        Node degree ``d``, so that ``p = min(k, d)``.
    eccentricity : int, optional
        The root's eccentricity in rounds (see :func:`latency_steps_lower_bound`).

    Examples
    --------
    1-port AllReduce, N = 8, M = 1 MiB, alpha = 5 us, beta = 25 GB/s: 3 alpha + 2 * 7/8 MiB / beta

    >>> t = round_lower_bound("all_reduce", 8, 2**20, 5e-6, 25e9)
    >>> round(t * 1e6, 3)   # 15 us + 73.4 us
    88.4
    >>> round(t / combined_lower_bound("all_reduce", 8, 2**20, 5e-6, 25e9), 4)
    1.2044
    >>> round_lower_bound("all_gather", [2, 4], 8.0, 1.0, 1.0).tolist()   # 1 and 2 rounds + 4 and 6 bytes
    [5.0, 8.0]

    What moves decides the rounds: nothing at ``M = 0``; a 2-byte Scatter on 4 nodes has two
    blocks of a byte (nodes 1 and 3): rooted at one of them it is one round of one byte, not
    ``ceil(log2 4) = 2`` rounds (the bound takes the most favourable root).

    >>> round_lower_bound("all_gather", 4, 0.0, 1.0, 1.0), round_lower_bound("scatter", 4, 2.0, 1.0, 1.0)
    (0.0, 2.0)
    """
    primitive, n, m, alpha, beta, ports, diameter, degree = _check_bound_args(
        primitive, n, m, alpha, beta, ports, diameter, degree, eccentricity
    )
    gamma = _check_gamma(gamma, n, m)
    return _round_lower_bound(primitive, n, m, alpha, beta, ports, diameter, degree, gamma)


def _round_lower_bound(primitive, n, m, alpha, beta, ports, diameter, degree, gamma=0.0):
    t_alpha = _moving_steps(primitive, n, m, ports, diameter, degree) * alpha
    t_beta = _bandwidth_lower_bound(primitive, n, m, beta, ports, degree)
    if primitive in REDUCING_PRIMITIVES and not (np.ndim(gamma) == 0 and gamma == 0):
        t_beta = np.asarray(t_beta) + _computation_lower_bound(primitive, n, m, gamma)
        t_beta = float(t_beta) if np.ndim(t_beta) == 0 and not is_array(t_alpha) else t_beta
    if is_array(t_alpha) or is_array(t_beta):
        return np.asarray(t_alpha) + np.asarray(t_beta)
    return t_alpha + t_beta


def crossover_size(primitive, n, alpha, beta, ports=1, diameter=0, degree=None, eccentricity=None):
    """Message size ``M*`` in bytes at which the two terms of the bound are equal.

    Below ``M*`` the latency term dominates the lower bound, above it the bandwidth term
    (``eq:cc-bound-crossover``, corrected): with ``c(N) = max(S, R) / M``,

    .. math:: M^* = \\frac{\\max(\\lceil \\log_{p+1} N \\rceil, D)\\,\\alpha \\, p\\,\\beta}{c(N)}.

    For 1-port AllReduce :math:`c = 2(N-1)/N`, so ``M*`` is half the source's value.

    Parameters
    ----------
    primitive, n, alpha, beta, ports, diameter, degree, eccentricity
        As in :func:`combined_lower_bound`; ``n >= 2``.

    Examples
    --------
    >>> crossover_size("all_reduce", 2, 1e-6, 1e9)   # 1 round; c = 1
    1000.0
    >>> crossover_size("all_gather", 4, 1e-6, 1e9)   # 2 alpha * beta / (3/4)
    2666.6666666666665
    """
    primitive, n, ports, diameter, degree = _check_latency_args(primitive, n, ports, diameter, degree, eccentricity)
    check_int("n", n, minimum=2)
    alpha = check_seconds("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    check_shapes(  # measured: 113 bytes per element
        n=n, alpha=alpha, beta=beta, ports=ports, diameter=diameter, degree=degree, bytes_per_element=128
    )
    p = _effective_ports(ports, degree)
    t_alpha = _latency_steps(n, ports, diameter, degree) * alpha
    return t_alpha * p * beta / _volume_coefficient(primitive, n)


def regime(primitive, n, m, alpha, beta, ports=1, diameter=0, degree=None, eccentricity=None):
    """Which term of the lower bound dominates: ``"latency"`` or ``"bandwidth"``.

    Ties (``M == M*``) count as ``"bandwidth"``. Arrays in, array of strings out.

    Examples
    --------
    >>> regime("all_reduce", 8, 1024, 5e-6, 25e9), regime("all_reduce", 8, 2**20, 5e-6, 25e9)
    ('latency', 'bandwidth')
    """
    primitive, n, m, alpha, beta, ports, diameter, degree = _check_bound_args(
        primitive, n, m, alpha, beta, ports, diameter, degree, eccentricity
    )
    t_alpha = _moving_steps(primitive, n, m, ports, diameter, degree) * alpha
    t_beta = _bandwidth_lower_bound(primitive, n, m, beta, ports, degree)
    if is_array(t_alpha) or is_array(t_beta):
        return np.where(np.asarray(t_alpha) > np.asarray(t_beta), "latency", "bandwidth")
    return "latency" if t_alpha > t_beta else "bandwidth"
