"""In-network reduction as a model of its own: which bound it lowers, and which it cannot (chapter 9).

Chapter 8 met NVLS (NVLink SHARP) as a number in NCCL's tuning model; :mod:`ccb_helpers.in_network`
gives the forced volumes when the switch adds and copies. Here the whole bound is restated for a
network that reduces (``eq:cc-in-network-bound``), in the round model:

.. math:: T \\ge \\alpha + \\max\\Big(\\frac{\\max(S, R)_{\\text{in-network}}}{p\\beta},\\
          \\frac{B_{\\text{cut}}}{C\\,\\beta},\\ \\frac{N M}{R_{\\text{switch}}}\\Big)

* **lowered — the endpoint volume**: an AllReduce endpoint sends and receives ``M`` instead of
  ``2(N-1)M/N`` (the switch combines N messages into one, so byte conservation no longer ties what
  goes in to what comes out); ReduceScatter's receive side and AllGather's send side drop to ``M/N``;
* **lowered — the latency count**: one round can combine all ``N`` inputs (the switch fans in), so
  ``ceil(log_{p+1} N)`` rounds no longer bind; at least one round (``α``) remains — data must
  still go to the switch and come back;
* **not lowered — a cut**: whatever crosses a balanced cut of the endpoints still crosses it (an
  AllReduce moves ``M`` each way across the bisection, a partial sum of each half);
* **not lowered — the switch itself**: when it does all the reduction (SHARP, NVLS) it must read
  all ``N M`` input bytes, so its reduction throughput ``R_switch`` bounds the time of those
  algorithms (one that leaves the additions to the endpoints escapes this term and is back to the
  endpoint volumes of chapter 3); its ports are the endpoints' links;
* **not lowered at all — AllToAll**: nothing can be combined or copied.

NCCL's NVLS AllReduce moves ``(N+1)M/N`` per GPU each way (a reduce-scatter through the switch,
then a multicast all-gather; :func:`ccb_helpers.nvls_all_reduce_volume`), a factor ``(N+1)/N``
above the in-network endpoint bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._intmath import ceil_log_int
from ._validation import INT64_MAX, check_bandwidth, check_int, check_real, check_seconds, check_size
from .bandwidth import _forced_volume
from .bisection import _bisection_bytes
from .in_network import _in_network_volume
from .primitives import check_primitive

__all__ = ["InNetworkBound", "in_network_bound"]


@dataclass(frozen=True)
class InNetworkBound:
    """The terms of ``eq:cc-in-network-bound`` next to the endpoint-reduction bound (seconds).

    ``latency``, ``endpoint``, ``cut`` and ``switch`` with in-network reduction; ``classic_latency``
    and ``classic_endpoint`` the same terms with reduction at the endpoints (chapters 1 and 3).
    """

    latency: float
    endpoint: float
    cut: float
    switch: float
    classic_latency: float
    classic_endpoint: float

    def __post_init__(self):
        for name in ("latency", "endpoint", "cut", "switch", "classic_latency", "classic_endpoint"):
            object.__setattr__(self, name, check_real(name, getattr(self, name), minimum=0.0, scalar=True))

    @property
    def total(self) -> float:
        """With in-network reduction: ``latency + max(endpoint, cut, switch)``."""
        return self.latency + max(self.endpoint, self.cut, self.switch)

    @property
    def classic_total(self) -> float:
        """With endpoint reduction: ``classic_latency + max(classic_endpoint, cut)``."""
        return self.classic_latency + max(self.classic_endpoint, self.cut)

    @property
    def binding(self) -> str:
        """Which bandwidth term of the in-network bound is largest."""
        terms = {"endpoint": self.endpoint, "cut": self.cut, "switch": self.switch}
        return max(terms, key=terms.get)


def in_network_bound(
    primitive, n, m, alpha, beta, ports=1, degree=None, cut_links=None, switch_throughput=None
) -> InNetworkBound:
    """The lower bound with a reducing network (``eq:cc-in-network-bound``) and the classic one.

    Parameters
    ----------
    primitive : str
        One of :data:`ccb_helpers.PRIMITIVES`.
    n : int
        Endpoints, ``1 <= n <= 2**40``.
    m : float
        Bytes (the book's buffer conventions).
    alpha, beta : float
        Seconds per round; bytes/s of one link per direction.
    ports, degree : int
        ``p = min(ports, degree)`` links an endpoint drives.
    cut_links : int, optional
        Links across the best balanced cut (``Topology.bisection_links``); ``None``: no cut term
        (a single non-blocking switch, whose cut is the endpoints' own links).
    switch_throughput : float, optional
        Bytes/s of input the reducing switch can combine (``None``: unlimited). The ``switch``
        term ``N M / R_switch`` bounds algorithms that reduce everything in the switch.

    Examples
    --------
    8 H100 on NVSwitch (18 links of 25 GB/s), 1 GiB AllReduce: the endpoint term drops from
    2·7/8 GiB to 1 GiB over 450 GB/s (18 ports reach 8 GPUs in one round either way).

    >>> b = in_network_bound("all_reduce", 8, 2**30, 1e-6, 25e9, ports=18)
    >>> round(b.classic_endpoint * 1e3, 3), round(b.endpoint * 1e3, 3), b.classic_latency * 1e6, b.latency * 1e6
    (4.176, 2.386, 1.0, 1.0)

    64 nodes with one 50 GB/s NIC each on a SHARP switch: one round instead of six.

    >>> s = in_network_bound("all_reduce", 64, 2**20, 3e-6, 50e9)
    >>> round(s.classic_latency * 1e6, 1), round(s.latency * 1e6, 1)
    (18.0, 3.0)
    >>> a = in_network_bound("all_to_all", 8, 2**30, 1e-6, 25e9, ports=18)   # nothing to combine
    >>> a.endpoint == a.classic_endpoint, a.latency == a.classic_latency
    (True, True)
    """
    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=1, maximum=2**40, scalar=True)
    m = check_size("m", m, scalar=True)
    alpha = check_seconds("alpha", alpha, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=INT64_MAX, scalar=True)
    if degree is not None:
        degree = check_int("degree", degree, minimum=1, maximum=INT64_MAX, scalar=True)
    p = ports if degree is None else min(ports, degree)
    if cut_links is not None:
        cut_links = check_int("cut_links", cut_links, minimum=1, maximum=2**62, scalar=True)
    if switch_throughput is not None:
        switch_throughput = check_bandwidth("switch_throughput", switch_throughput, scalar=True)
    if n == 1:
        return InNetworkBound(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    send, recv = _in_network_volume(primitive, n, m)
    classic_send, classic_recv = _forced_volume(primitive, n, m)
    cut = float(_bisection_bytes(primitive, n, m)) / (cut_links * beta) if cut_links is not None else 0.0
    reduces = primitive in ("all_reduce", "reduce_scatter", "reduce")
    switch = n * m / switch_throughput if (switch_throughput is not None and reduces) else 0.0
    # One round when the switch can fan in (or out) every endpoint's data; AllToAll gains nothing.
    latency = alpha * (ceil_log_int(n, p + 1) if primitive == "all_to_all" else 1)
    return InNetworkBound(
        latency=latency,
        endpoint=max(float(send), float(recv)) / (p * beta),
        cut=cut,
        switch=switch,
        classic_latency=alpha * ceil_log_int(n, p + 1),
        classic_endpoint=max(float(classic_send), float(classic_recv)) / (p * beta),
    )
