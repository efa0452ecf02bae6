"""Two-level hardware: G GPUs per node on a fast switch, nodes on a network (chapter 9).

:func:`two_level` builds the topology — ``nodes`` nodes of ``gpus_per_node`` GPUs, each GPU
joined to its node's switch (NVSwitch) by ``nvlink_links`` links, and the nodes joined through
one network switch either by one NIC per GPU (``nic="gpu"``, "rails": DGX/HGX H100) or by one
NIC per node (``nic="node"``, reached from a GPU through its link into the node's switch) with
``nic_links`` links each. GPU ``g`` of node ``a`` is endpoint
``a * gpus_per_node + g``. Every link of the graph has the same bandwidth β; traffic inside a
node goes through its switch, traffic between nodes through the NICs (the network core is
non-blocking). :func:`ccb_helpers.simulate` charges these links on it (this topology gives the
simulator its own link model, :mod:`ccb_helpers.routing`).

Real hardware has two kinds of links, so chapter 9 times a schedule in the **two-level α-β
model** (:class:`TwoLevelHardware`, :func:`ccb_helpers.two_level_time`): a round costs ``α_f`` (``α_n`` if any
message crosses the network) plus its busiest resource — a GPU's NVLink bytes over its whole
NVLink bandwidth ``β_f`` (chapter 8's ``p β``), a NIC's bytes over ``β_n``. Its lower bound,
:func:`two_level_lower_bound` (``eq:cc-two-level-bound``), adds three terms that each follow from
a cut:

* **latency** — ``ceil(log2 N)`` rounds (1 port), of which at least ``ceil(log_{G+1} K)`` cross
  the network: nodes that know a GPU's data grow at most ``(G+1)``-fold in a network round;
* **endpoint** — the GPUs move the forced volume, ``N V`` in all (``V = max(S, R)`` per GPU on
  average; for AllReduce only the total is forced), over NVLink and the network: in turn with one
  port (``(V - V_node/G)/β_f + (V_node/G)/β_n``), at once with two (``V/(β_f + β_node/G)``,
  chapter 8's corrected ceiling, ``eq:cc-nccl-two-level``);
* **node cut** — the nodes, as super-nodes of a K-node collective, move ``K V_node`` in all
  through their networks (``G β_n`` or ``β_n`` each).

Time in rounds is the sum of the round costs, so ``T >= latency + max(endpoint, node cut)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from ._validation import check_bandwidth, check_choice, check_int, check_real, check_seconds, check_size
from .primitives import check_primitive
from .topology import MAX_GRAPH_ELEMENTS, Topology, check_topology

__all__ = [
    "TwoLevelTopology",
    "two_level",
    "TwoLevelHardware",
    "two_level_hardware",
    "TwoLevelBound",
    "two_level_lower_bound",
    "TWO_LEVEL_PRIMITIVES",
]

NIC_PLACEMENTS = ("gpu", "node")
#: Primitives the two-level bound covers (every node must exchange with every other).
TWO_LEVEL_PRIMITIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")
#: Most GPUs of a two-level topology (its graph has about 2 N + K elements).
MAX_TWO_LEVEL_GPUS = MAX_GRAPH_ELEMENTS // 4


@dataclass(frozen=True)
class TwoLevelTopology(Topology):
    """A :class:`~ccb_helpers.topology.Topology` of GPUs in nodes (made by :func:`two_level`).

    Extra attributes: ``nodes`` (``K``), ``gpus_per_node`` (``G``), ``nic`` (``"gpu"`` or
    ``"node"``), ``nvlink_links`` and ``nic_links`` (multiplicities of β).
    """

    nodes: int = 1
    gpus_per_node: int = 1
    nic: str = "gpu"
    nvlink_links: int = 1
    nic_links: int = 1

    def __post_init__(self):
        super().__post_init__()
        set_ = object.__setattr__
        set_(self, "nodes", check_int("nodes", self.nodes, minimum=1, maximum=MAX_TWO_LEVEL_GPUS, scalar=True))
        g = check_int("gpus_per_node", self.gpus_per_node, minimum=1, maximum=MAX_TWO_LEVEL_GPUS, scalar=True)
        set_(self, "gpus_per_node", g)
        set_(self, "nic", check_choice("nic", self.nic, NIC_PLACEMENTS))
        for name in ("nvlink_links", "nic_links"):
            set_(self, name, check_int(name, getattr(self, name), minimum=1, maximum=1024, scalar=True))
        if self.nodes * self.gpus_per_node != self.n:
            raise ValueError(f"nodes * gpus_per_node must equal n: {self.nodes} * {self.gpus_per_node} != {self.n}")

    def node_of(self, gpu):
        """Node index of GPU (endpoint) ``gpu`` (int or int array)."""
        return np.asarray(gpu) // self.gpus_per_node if isinstance(gpu, np.ndarray) else int(gpu) // self.gpus_per_node

    # -- how the simulator charges a round (ccb_helpers.routing.link_model asks for this) -----

    def _link_model(self) -> _TwoLevelLinks:
        """The simulator's link model of this topology (``ccb_helpers.routing``'s interface)."""
        return _TwoLevelLinks(self)


class _TwoLevelLinks:
    """What each link group of a two-level topology carries in a round.

    Groups: each GPU's NVLink up and down (intra-node messages; with one NIC per node also its
    messages to and from the NIC, which reach it through that link), each NIC's up and down
    (messages between nodes). Multiplicities are ``nvlink_links`` and ``nic_links``."""

    kind = "own"

    def __init__(self, topology: TwoLevelTopology):
        self.t = topology
        n = topology.n
        owners = n if topology.nic == "gpu" else topology.nodes
        self.links = np.concatenate(
            [
                np.full(2 * n, topology.nvlink_links, dtype=np.int64),
                np.full(2 * owners, topology.nic_links, dtype=np.int64),
            ]
        )

    def unroutable(self, keys) -> int:
        return -1

    def loads(self, keys, pair_bytes):
        t = self.t
        n, g = t.n, t.gpus_per_node
        src, dst = keys // n, keys % n
        inter = (src // g) != (dst // g)
        w_intra = pair_bytes if t.nic == "node" else np.where(inter, 0.0, pair_bytes)
        w_inter = np.where(inter, pair_bytes, 0.0)
        fab_out = np.bincount(src, weights=w_intra, minlength=n)
        fab_in = np.bincount(dst, weights=w_intra, minlength=n)
        if t.nic == "gpu":
            nic_out = np.bincount(src, weights=w_inter, minlength=n)
            nic_in = np.bincount(dst, weights=w_inter, minlength=n)
        else:
            nic_out = np.bincount(src // g, weights=w_inter, minlength=t.nodes)
            nic_in = np.bincount(dst // g, weights=w_inter, minlength=t.nodes)
        return np.concatenate([fab_out, fab_in, nic_out, nic_in]), self.links

    def label(self, keys, index: int) -> str:
        n = self.t.n
        owner = "GPU" if self.t.nic == "gpu" else "node"
        owners = n if self.t.nic == "gpu" else self.t.nodes
        if index < 2 * n:
            return f"NVLink {'up' if index < n else 'down'} of GPU {index % n}"
        index -= 2 * n
        return f"NIC of {owner} {index % owners} ({'out' if index < owners else 'in'})"


def _two_level_bisection(nodes: int, g: int, nic: str, l_nv: int, l_nic: int) -> int:
    """Links cut by the best balanced cut (switches on either side), exactly.

    Per node the cost of putting ``x`` of its GPUs on side A is concave in ``x`` (a minimum of two
    linear functions — its switch on A or on B — plus a linear NIC term), so some optimal cut
    splits at most one node: enumerate the network switch's side and that node's ``x``.
    """
    n = nodes * g
    if n <= 1 or nodes == 1:
        return l_nv * (n // 2)
    target = n // 2

    def node_cost(x: int, net_on_a: bool) -> int:
        switch_a = (g - x) * l_nv + (0 if net_on_a else l_nic if nic == "node" else 0)
        switch_b = x * l_nv + (l_nic if net_on_a and nic == "node" else 0)
        cost = min(switch_a, switch_b)
        if nic == "gpu":
            cost += (g - x) * l_nic if net_on_a else x * l_nic  # GPUs on the side away from the network
        return cost

    best = None
    for net_on_a in (True, False):
        whole, x = divmod(target, g)
        cost = whole * node_cost(g, net_on_a) + (nodes - whole - (1 if x else 0)) * node_cost(0, net_on_a)
        if x:
            cost += node_cost(x, net_on_a)
        best = cost if best is None else min(best, cost)
    return best


def two_level(nodes, gpus_per_node, nic="gpu", nvlink_links=1, nic_links=1) -> TwoLevelTopology:
    """``nodes`` nodes of ``gpus_per_node`` GPUs: an NVSwitch per node, NICs into one network.

    Parameters
    ----------
    nodes : int
        ``K >= 1``.
    gpus_per_node : int
        ``G >= 1``; ``K G <= 2**17``.
    nic : {"gpu", "node"}, default "gpu"
        One NIC per GPU ("rails") or one per node.
    nvlink_links, nic_links : int, default 1
        Links of β from a GPU to its switch, and per NIC (``1 <= links <= 1024``).

    Examples
    --------
    >>> t = two_level(2, 4)
    >>> t.n, t.degree, t.diameter, t.step_diameter, t.bisection_links
    (8, 2, 2, 1, 4)
    >>> two_level(3, 2, nic="node").bisection_links   # a whole node and half of another: a NIC + a GPU link
    2
    """
    nodes = check_int("nodes", nodes, minimum=1, maximum=MAX_TWO_LEVEL_GPUS, scalar=True)
    g = check_int("gpus_per_node", gpus_per_node, minimum=1, maximum=MAX_TWO_LEVEL_GPUS, scalar=True)
    nic = check_choice("nic", nic, NIC_PLACEMENTS)
    l_nv = check_int("nvlink_links", nvlink_links, minimum=1, maximum=1024, scalar=True)
    l_nic = check_int("nic_links", nic_links, minimum=1, maximum=1024, scalar=True)
    n = nodes * g
    if n > MAX_TWO_LEVEL_GPUS:
        raise ValueError(f"nodes * gpus_per_node must be <= {MAX_TWO_LEVEL_GPUS}, got {n}")
    networked = nodes > 1

    def build() -> nx.Graph:
        graph = nx.Graph()
        graph.add_nodes_from(range(n), kind="endpoint")
        for a in range(nodes):
            graph.add_node(("node", a), kind="switch")
            graph.add_edges_from(((a * g + i, ("node", a)) for i in range(g)), links=l_nv)
        if networked:
            graph.add_node(("network", 0), kind="switch")
            if nic == "gpu":
                graph.add_edges_from(((v, ("network", 0)) for v in range(n)), links=l_nic)
            else:
                graph.add_edges_from(((("node", a), ("network", 0)) for a in range(nodes)), links=l_nic)
        return graph

    degree = l_nv + (l_nic if networked and nic == "gpu" else 0)
    diameter = 0 if n == 1 else (2 if not networked or nic == "gpu" else 4)
    vertices = n + nodes + (1 if networked else 0)
    edges = n + ((n if nic == "gpu" else nodes) if networked else 0)
    per = "per GPU" if nic == "gpu" else "per node"
    return TwoLevelTopology(
        family="two_level",
        name=f"two-level {nodes}x{g}" + (f" (one NIC {per})" if networked else ""),
        n=n,
        degree=degree,
        diameter=diameter,
        bisection_links=_two_level_bisection(nodes, g, nic, l_nv, l_nic),
        switched=True,
        _builder=build,
        _graph_size=(vertices, edges),
        nodes=nodes,
        gpus_per_node=g,
        nic=nic,
        nvlink_links=l_nv,
        nic_links=l_nic,
    )


def check_two_level(topology, name: str = "topology") -> TwoLevelTopology:
    """``topology`` must come from :func:`two_level`."""
    check_topology(topology, name)
    if not isinstance(topology, TwoLevelTopology):
        raise TypeError(
            f"{name} must be a two-level topology (ccb.two_level(nodes, gpus_per_node)), got {topology.name}"
        )
    return topology


# --------------------------------------------------------------------------- the two-level model


@dataclass(frozen=True)
class TwoLevelHardware:
    """Costs of the two-level α-β model.

    Attributes
    ----------
    fabric_alpha, fabric_beta : float
        Start-up of a round inside nodes (s) and a GPU's whole NVLink bandwidth per direction (bytes/s).
    nic_alpha, nic_beta : float
        Start-up of a round with network messages (s) and one NIC's bandwidth per direction.
    label : str
        Where the numbers come from.
    """

    fabric_alpha: float
    fabric_beta: float
    nic_alpha: float
    nic_beta: float
    label: str = ""

    def __post_init__(self):
        set_ = object.__setattr__
        for name in ("fabric_alpha", "nic_alpha"):
            set_(self, name, check_seconds(name, getattr(self, name), scalar=True))
        for name in ("fabric_beta", "nic_beta"):
            set_(self, name, check_bandwidth(name, getattr(self, name), scalar=True))
        if not isinstance(self.label, str):
            raise TypeError(f"label must be a string, got {type(self.label).__name__}")


def two_level_hardware(gpu="h100_nvswitch", network="ib_ndr_8x400", network_alpha=None) -> TwoLevelHardware:
    """The two-level model from a GPU preset and a network preset (:mod:`ccb_helpers.hardware`).

    ``fabric_beta`` is the GPU's links times β (chapter 8's ``p β``), ``nic_beta`` one NIC of the
    network preset, ``nic_alpha`` the InfiniBand preset's α (``network_alpha`` overrides it).

    >>> hw = two_level_hardware()
    >>> hw.fabric_beta / 1e9, hw.nic_beta / 1e9, hw.fabric_alpha * 1e6, hw.nic_alpha * 1e6
    (450.0, 50.0, 1.0, 3.0)
    """
    from .hardware import NETWORK_PRESETS, PRESETS

    gpu = check_choice("gpu", gpu, tuple(PRESETS))
    network = check_choice("network", network, tuple(NETWORK_PRESETS))
    g, net = PRESETS[gpu], NETWORK_PRESETS[network]
    links = g.links if g.links is not None else (g.ports or 1)
    alpha = (
        PRESETS["ib_ndr"].alpha if network_alpha is None else check_seconds("network_alpha", network_alpha, scalar=True)
    )
    return TwoLevelHardware(g.alpha, links * g.beta, alpha, net.nic_beta, f"{g.label} + {net.label}")


# --------------------------------------------------------------------------- the bound


@dataclass(frozen=True)
class TwoLevelBound:
    """``eq:cc-two-level-bound``: ``latency + max(endpoint, node)`` seconds, and its terms.

    ``endpoint`` is the busiest GPU's term (NVLink and network in turn with one port, at once
    with two or more), ``node`` the cut around a node; ``ports`` the port count it was made for.
    """

    latency: float
    endpoint: float
    node: float
    network_rounds: int
    rounds: int
    ports: int = 1

    def __post_init__(self):
        set_ = object.__setattr__
        for name in ("latency", "endpoint", "node"):
            set_(self, name, check_real(name, getattr(self, name), minimum=0.0, scalar=True))
        for name in ("network_rounds", "rounds"):
            set_(self, name, check_int(name, getattr(self, name), minimum=0, scalar=True))
        set_(self, "ports", check_int("ports", self.ports, minimum=1, maximum=1024, scalar=True))

    @property
    def total(self) -> float:
        return self.latency + max(self.endpoint, self.node)

    @property
    def binding(self) -> str:
        """Which bandwidth term is larger: ``"endpoint"`` or ``"node"``."""
        return "node" if self.node > self.endpoint else "endpoint"


def _ceil_log(n: int, base: int) -> int:
    t, reach = 0, 1
    while reach < n:
        reach *= base
        t += 1
    return t


def _volumes(primitive: str, n: int, nodes: int, g: int, m: float) -> tuple[float, float]:
    """(busiest GPU's forced max(S, R), a node's forced network bytes per direction)."""
    if primitive == "all_reduce":
        gpu, node = 2 * (n - 1) * m / n, 2 * (nodes - 1) * m / nodes
    elif primitive in ("all_gather", "reduce_scatter"):
        gpu, node = (n - 1) * m / n, (nodes - 1) * m / nodes
    else:  # all_to_all: a node's G GPUs each send (N - G) blocks of M/N out
        gpu, node = (n - 1) * m / n, g * (n - g) * m / n
    return gpu, node


def two_level_lower_bound(primitive, topology, m, hardware, ports=1) -> TwoLevelBound:
    """The two-level lower bound ``eq:cc-two-level-bound`` (endpoint reduction).

    With ``p`` ports a GPU sends and receives at most ``p`` messages a round. Latency: at least
    ``ceil(log_{p+1} N)`` rounds, of which ``ceil(log_{pG+1} K)`` cross the network (the nodes
    that know a GPU's data grow at most ``(pG+1)``-fold in a network round). Bandwidth, for the
    busiest GPU (forced volume ``V``) and the cut around a node (``V_node`` through ``β_node``):

    * ``p = 1``: a round carries one message, over NVLink or over the network, so GPU ``g``'s time
      is at least ``F_g/β_f + X_g/β_n``; all GPUs together send ``sum(F_g + X_g) >= N V`` (for
      AllReduce only this total is forced, not each GPU's share), ``sum X_g >= K V_node`` of it
      through the networks, so the average GPU needs ``(V - V_node/G)/β_f + (V_node/G)/β_n`` —
      NVLink and NIC **in turn**;
    * ``p >= 2``: NVLink and the NIC work at once, ``N β_f + K β_node`` for ``N V`` bytes:
      ``V / (β_f + β_node/G)`` (chapter 8's corrected endpoint ceiling, ``eq:cc-nccl-two-level``).

    Parameters
    ----------
    primitive : str
        One of :data:`TWO_LEVEL_PRIMITIVES`.
    topology : TwoLevelTopology
        From :func:`two_level` (``K`` nodes, ``G`` GPUs each, NIC per GPU or per node).
    m : float
        Bytes (the book's buffer conventions), ``0 <= m <= 2**96``.
    hardware : TwoLevelHardware
    ports : int, default 1
        Messages a GPU sends (and receives) per round, ``1 <= ports <= 1024``.

    Returns
    -------
    TwoLevelBound
        ``.total`` seconds; ``.latency``, ``.endpoint``, ``.node`` terms; ``.binding``.

    Examples
    --------
    16 H100 in 2 nodes, one 400 Gb/s NIC per GPU, 1 GiB AllReduce. One port: 2·7/8 GiB over
    NVLink, then 1/8 GiB over the NIC, one after the other. Two ports: 2·15/16 GiB over
    450 + 50 GB/s at once; the node moves 1 GiB over 8 x 50 GB/s.

    >>> b = two_level_lower_bound("all_reduce", two_level(2, 8), 2**30, two_level_hardware())
    >>> round(b.endpoint * 1e3, 3), round(b.node * 1e3, 3), b.binding, b.network_rounds, b.rounds
    (6.86, 2.684, 'endpoint', 1, 4)
    >>> b2 = two_level_lower_bound("all_reduce", two_level(2, 8), 2**30, two_level_hardware(), ports=2)
    >>> round(b2.endpoint * 1e3, 3), b2.network_rounds, b2.rounds
    (4.027, 1, 3)
    """
    primitive = check_choice("primitive", check_primitive(primitive), TWO_LEVEL_PRIMITIVES)
    topology = check_two_level(topology)
    m = check_size("m", m, scalar=True)
    if not isinstance(hardware, TwoLevelHardware):
        raise TypeError(f"hardware must be a TwoLevelHardware, got {type(hardware).__name__}")
    ports = check_int("ports", ports, minimum=1, maximum=1024, scalar=True)
    n, nodes, g = topology.n, topology.nodes, topology.gpus_per_node
    if n == 1:
        return TwoLevelBound(0.0, 0.0, 0.0, 0, 0, ports)
    rounds = _ceil_log(n, ports + 1)
    network_rounds = _ceil_log(nodes, ports * g + 1) if nodes > 1 else 0
    if hardware.nic_alpha >= hardware.fabric_alpha:
        latency = network_rounds * hardware.nic_alpha + (rounds - network_rounds) * hardware.fabric_alpha
    else:  # network rounds are the cheap ones: a schedule could make every round one
        latency = rounds * hardware.nic_alpha if nodes > 1 else rounds * hardware.fabric_alpha
    gpu_bytes, node_bytes = _volumes(primitive, n, nodes, g, m)
    node_bw = hardware.nic_beta * (g if topology.nic == "gpu" else 1)
    if nodes == 1:
        endpoint, node = gpu_bytes / hardware.fabric_beta, 0.0
    elif ports == 1:
        # One message a round: NVLink bytes F and network bytes X in turn, F + X >= V per GPU and
        # X >= V_node / G on average over a node; linear in X, so an end of [V_node / G, V] is least.
        def serial(x):
            return (gpu_bytes - x) / hardware.fabric_beta + x / hardware.nic_beta

        endpoint = min(serial(min(node_bytes / g, gpu_bytes)), serial(gpu_bytes))
        node = node_bytes / node_bw
    else:
        # NVLink and the network at once: a GPU's egress is its NVLink and its share of the node's
        # network (its own NIC, or 1/G of a shared one: averaged over the node's G GPUs).
        endpoint = gpu_bytes / (hardware.fabric_beta + node_bw / g)
        node = node_bytes / node_bw
    return TwoLevelBound(latency, endpoint, node, network_rounds, rounds, ports)
