"""The lower bound of a schedule timed with routed (cut-through) messages on a ring, torus or mesh.

The book's simulator runs direct networks store-and-forward: a message goes to a neighbour, and
farther nodes cost one round per hop (chapter 2). Torus machines (TPU pods, Fugaku) route instead:
a message to a node ``h`` hops away crosses ``h`` links within one round and shares them with
every other message of the round — the model in which Swing (De Sensi et al., NSDI 2024) is
designed and measured. :func:`ccb_helpers.routed_time` times a schedule so (a round costs ``α``
plus its busiest directed link's bytes over ``β``, ``eq:cc-routed-round``); this module gives the
bound of the same model:

at least ``ceil(log_{d+1} N)`` rounds (``d`` links per node), and a round's busiest link carries at
least the bytes crossing the bisection in it over the cut's links, and at least a node's bytes
over its ``d`` links — so the bandwidth term is ``max(bisection bound, endpoint bound with p = d)``
of chapters 3 and 5. Both cut arguments hold whatever the routing.
"""

from __future__ import annotations

from ._intmath import ceil_log
from ._validation import check_bandwidth, check_seconds, check_size
from .bandwidth import _bandwidth_lower_bound
from .bisection import _bisection_lower_bound
from .primitives import check_primitive
from .topology import Topology, check_topology

__all__ = ["routed_lower_bound", "ROUTED_FAMILIES"]

ROUTED_FAMILIES = ("ring", "torus", "mesh")


def _grid(topology: Topology) -> tuple[tuple[int, ...], bool]:
    check_topology(topology)
    if topology.family not in ROUTED_FAMILIES:
        raise ValueError(
            f"topology: routed timing works on {', '.join(ROUTED_FAMILIES)} (dimension-order routing), not on {topology.name}; "
            "switched networks route in one step already (ccb.simulate charges their links)"
        )
    if topology.family == "ring":
        return (topology.n,), True
    return tuple(topology.dims), topology.family == "torus"


def routed_lower_bound(primitive, topology, m, alpha, beta) -> float:
    """Lower bound with routed messages: ``ceil(log_{d+1} N) α + max(bisection, endpoint)``.

    >>> from ccb_helpers.topology import ring
    >>> routed_lower_bound("all_reduce", ring(8), 800, 0.0, 1.0)   # M over the 2 cut links each way; 7/4 M over 2 links
    700.0
    """
    primitive = check_primitive(primitive)
    _grid(topology)
    m = check_size("m", m, scalar=True)
    alpha = check_seconds("alpha", alpha, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    n, d = topology.n, max(topology.degree, 1)
    if n == 1:
        return 0.0
    rounds = int(ceil_log(n, d + 1))
    bandwidth = max(
        float(_bisection_lower_bound(primitive, topology, m, beta)),
        float(_bandwidth_lower_bound(primitive, n, m, beta, d, d)),
    )
    return rounds * alpha + bandwidth
