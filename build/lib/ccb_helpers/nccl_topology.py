"""What NCCL's topology search found, as the tuning model's inputs: :class:`NcclTopology` and its presets.

**Inputs that stand for NCCL's topology search** (``src/graph/search.cc``; they appear in an
``NCCL_DEBUG_SUBSYS=GRAPH`` log as ``Pattern …, nChannels …, bw …/…, type …``): channels and
bandwidth per channel of the ring, tree and NVLS graphs, the intra-node link type (NVLink or
PCI), whether LL128 is enabled (NCCL's check of link types and GPU architecture), whether NVLS
is available, the GPU generation (Volta / Ampere / Hopper: it selects the per-channel caps), the
CPU vendor (LL caps and network overhead on several nodes), and the communicator's channel
count. :data:`NCCL_TOPOLOGIES` holds two presets whose values follow our reading of the search
(speed arrays, channel duplication); they are illustrative, not measured — a real system's log
gives the real ones. The ring and tree graphs of an NVSwitch node do not depend on the GPU
count; the NVLS graph does (one channel per GPU, each charged twice on its head GPU's link), so
a preset that gives its NVSwitch link (``nvswitch_bw``) has its NVLS graph searched again for the
GPUs each node has in the communicator (:mod:`ccb_helpers.nccl_search`): 8 H100 get
``8 × 40/60 GB/s``, 4 get ``4 × 60/60``.

:func:`_resolve_topology` turns a preset key (or a topology) and overrides into the topology
NCCL would use for a communicator: on one node the preset without NICs, and with the NVLS graph
searched again for the GPUs each node has (:mod:`ccb_helpers.nccl_search`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

from ._validation import check_choice, check_fields, check_int, check_real
from .nccl_constants import _GPU_ROW, _TREE_PATTERNS, NET_OVERHEAD_US

__all__ = ["NcclTopology", "NCCL_TOPOLOGIES"]


@dataclass(frozen=True)
class NcclTopology:
    """What NCCL's topology search found, as the tuning model's inputs (bandwidths in bytes/s).

    Attributes
    ----------
    key, label, source : str
        Identifier, display name, and where the values come from.
    gpu : str
        ``"volta"``, ``"ampere"`` or ``"hopper"``: the row of NCCL's per-generation tables
        (``compCapIndex``: compute capability >= 90 Hopper, >= 80 Ampere, else Volta — so an
        sm_86 / sm_89 part uses the Ampere row and an sm_75 T4 the Volta row).
    cpu : str
        ``"intel"``, ``"amd"`` or ``"other"`` (LL caps and network overhead on several nodes).
    intra_link : str
        ``"nvlink"`` or ``"pci"``: the ring/tree graphs' intra-node path type.
    ring_channels, tree_channels, nvls_channels : int
        Channels of each graph (``graph->nChannels``); ``nvls_channels = 0`` means no NVLS.
    ring_bw_intra, ring_bw_inter, tree_bw_intra, tree_bw_inter, nvls_bw_intra, nvls_bw_inter : float
        Bandwidth per channel (``graph->bwIntra`` / ``bwInter``), bytes/s.
    tree_pattern : str
        ``"balanced_tree"``, ``"split_tree"`` or ``"tree"`` (the last costs Tree 15 %).
    ring_same_channels : bool
        ``graph->sameChannels`` of the ring graph (Broadcast / Reduce latency).
    comm_channels : int
        The communicator's channel count (twice the ring graph's, at most 32); enters the
        multi-node ring AllReduce plateau rule.
    ll128 : bool
        NCCL's default LL128 check apart from the intra-node path: all GPUs of the same compute
        capability, exactly 7.0, 8.0 or 9.0 (so never on sm_75 / sm_86 / sm_89 parts), and the
        NIC reached through PCIe switches only (``typeInter <= PATH_PXB``; ``PATH_PXN`` allowed on
        Hopper). The intra-node condition (NVLink, ``typeIntra <= PATH_NVB``) is applied from
        ``intra_link``.
    latency_inter : float
        ``graph->latencyInter``: extra network latency from the topology, seconds (0 for IB).
    single_node : str
        Key of the preset NCCL's search finds when the communicator lives on one node (the NICs
        are then removed from the topology, ``ncclTopoTrimSystem``), or ``""`` to use this one.
    nvswitch_bw : float
        A GPU's link to the NVSwitch per direction as NCCL's topology counts it (NVLinks ×
        20.6 GB/s on Hopper), bytes/s; 0 when unknown. When set, the NVLS graph is **searched for
        the GPUs each node has in the communicator** (:func:`~ccb_helpers.nccl_search.nvls_graph`)
        and ``nvls_channels`` / ``nvls_bw_*`` are the full node's result (what its log prints);
        passing any ``nvls_*`` field as an override imposes it instead.
    nic_bw : float
        On several nodes, the bandwidth of the path from a GPU to its own NIC (the smaller of
        the NIC's rate and the PCIe path), bytes/s, for the NVLS search; 0 for a one-node preset.
    gpu_line_rate, node_line_rate : float
        The hardware's published rates per direction, bytes/s: one GPU's links (NVLink4: 18 ×
        25 GB/s = 450 GB/s) and one node's NICs together (0 when unknown). NCCL's own β
        (:func:`~ccb_helpers.nccl_bound_parameters`) comes from its ring graph; these give the efficiency
        against the physical links (``ccb_helpers.NcclVsBound.line_efficiency``).
    """

    key: str
    label: str
    source: str
    gpu: str
    cpu: str
    intra_link: str
    ring_channels: int
    ring_bw_intra: float
    ring_bw_inter: float
    tree_channels: int
    tree_bw_intra: float
    tree_bw_inter: float
    nvls_channels: int
    nvls_bw_intra: float
    nvls_bw_inter: float
    tree_pattern: str = "balanced_tree"
    ring_same_channels: bool = True
    comm_channels: int = 0
    ll128: bool = True
    latency_inter: float = 0.0
    single_node: str = ""
    nvswitch_bw: float = 0.0
    nic_bw: float = 0.0
    gpu_line_rate: float = 0.0
    node_line_rate: float = 0.0

    def __post_init__(self):
        check_fields(self, {"key": "str", "label": "str", "source": "str"})
        check_choice("gpu", self.gpu, _GPU_ROW)
        check_choice("cpu", self.cpu, NET_OVERHEAD_US)
        check_choice("intra_link", self.intra_link, ("nvlink", "pci"))
        check_choice("tree_pattern", self.tree_pattern, _TREE_PATTERNS)
        for name in ("ring_channels", "tree_channels"):
            check_int(name, getattr(self, name), minimum=1, maximum=64, scalar=True)
        check_int("nvls_channels", self.nvls_channels, minimum=0, maximum=64, scalar=True)
        check_int("comm_channels", self.comm_channels, minimum=0, maximum=64, scalar=True)
        for name in (
            "ring_bw_intra",
            "ring_bw_inter",
            "tree_bw_intra",
            "tree_bw_inter",
            "nvls_bw_intra",
            "nvls_bw_inter",
            "nvswitch_bw",
            "nic_bw",
        ):
            value = check_real(name, getattr(self, name), scalar=True)
            if value > 1e13:
                raise ValueError(f"{name} must be <= 1e13 bytes/s per channel, got {value}")
        check_real("latency_inter", self.latency_inter, maximum=1e9, scalar=True)
        for name in ("gpu_line_rate", "node_line_rate"):
            check_real(name, getattr(self, name), maximum=1e15, scalar=True)
        if not isinstance(self.single_node, str):
            raise TypeError(f"single_node must be a preset key or '', got {self.single_node!r}")
        for name in ("ring_same_channels", "ll128"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")

    @property
    def channels(self) -> int:
        """The communicator's channels (``comm_channels``, or twice the ring graph's, at most 32)."""
        return self.comm_channels or min(32, 2 * self.ring_channels)

    @property
    def ring_bus_bandwidth(self) -> float:
        """``ring_channels * ring_bw_intra``: the per-GPU bandwidth NCCL credits a node's ring with, bytes/s."""
        return self.ring_channels * self.ring_bw_intra

    @property
    def node_bandwidth(self) -> float:
        """``ring_channels * ring_bw_inter``: the network bandwidth per node NCCL's rings use, bytes/s."""
        return self.ring_channels * self.ring_bw_inter


NCCL_TOPOLOGIES: dict[str, NcclTopology] = {
    t.key: t
    for t in [
        NcclTopology(
            key="dgx_h100",
            label="DGX H100 节点（8 × H100，NVSwitch）",
            source="8 H100 SXM, 18 NVLink4 x 20.6 GB/s (SM90_NVLINK_BW) = 370.8 GB/s per GPU into NVSwitch "
            "(an NCCL topology dump of an H100/H20 node shows NVL[370.8], NVIDIA/nccl#1189). "
            "Search (sm90SpeedArrayIntra): rings at 60 GB/s, 6 channels, duplicated (ncclTopoDupChannels) "
            "to 12 x 30 GB/s; the communicator doubles them to 24 (8-H100 logs list trees [0]..[23], "
            "NVIDIA/nccl#2094). NVLS: one channel per GPU, each charging its bandwidth on every GPU's "
            "NVSwitch link and twice on its head's (ncclTopoSearchTryNvls), so 9 x bw <= 370.8: 40 GB/s; "
            "pass 2 raises bwInter alone to 60 (nccl_search.nvls_graph, searched again for fewer GPUs). "
            "An 8-GPU log prints the same graphs: 'Pattern 4, ... nChannels 12, bw 30.000000/30.000000' and "
            "'Pattern 5, crossNic 0, nChannels 8, bw 40.000000/60.000000' (NVIDIA/nccl#1197).",
            gpu="hopper",
            cpu="intel",
            intra_link="nvlink",
            ring_channels=12,
            ring_bw_intra=30e9,
            ring_bw_inter=30e9,
            tree_channels=12,
            tree_bw_intra=30e9,
            tree_bw_inter=30e9,
            nvls_channels=8,
            nvls_bw_intra=40e9,
            nvls_bw_inter=60e9,
            ring_same_channels=True,
            comm_channels=24,
            ll128=True,
            nvswitch_bw=370.8e9,
            gpu_line_rate=450e9,
        ),
        NcclTopology(
            key="ib_h100",
            label="H100 集群（每节点 8 × H100 + 8 × 400 Gb/s InfiniBand）",
            source="Nodes of 8 H100 with one 400 Gb/s NDR NIC per GPU: NET[50.0] per NIC and a 48 GB/s "
            "PCIe Gen5 path from GPU to NIC, as an NCCL topology dump shows (NVIDIA/nccl#1189). Search "
            "(sm90SpeedArrayInter, capped by the 48 GB/s path): 8 ring channels x 48 GB/s, not duplicated "
            "(Hopper, below 50 GB/s, more than 4 channels); the communicator has 16 (H100 cluster logs "
            "print 'Channel 05/16', NVIDIA/nccl#1453). NVLS(-Tree) graph: 6 channels fit at 48 GB/s, 7 at 45, "
            "8 at 40 (9 x 40 <= 370.8 on each NVSwitch link); pass 2 raises bwInter to 48: 8 x 40/48 "
            "(nccl_search.nvls_graph). No CollNet (no SHARP plugin). On one node NCCL drops the NICs and "
            "finds the dgx_h100 graphs. Our reading of search.cc, not a measured log.",
            gpu="hopper",
            cpu="intel",
            intra_link="nvlink",
            ring_channels=8,
            ring_bw_intra=48e9,
            ring_bw_inter=48e9,
            tree_channels=8,
            tree_bw_intra=48e9,
            tree_bw_inter=48e9,
            nvls_channels=8,
            nvls_bw_intra=40e9,
            nvls_bw_inter=48e9,
            ring_same_channels=False,
            comm_channels=16,
            ll128=True,
            single_node="dgx_h100",
            nvswitch_bw=370.8e9,
            nic_bw=48e9,
            gpu_line_rate=450e9,
            node_line_rate=400e9,
        ),
    ]
}


#: The fields that describe the NVLS graph: an override of any of them imposes it (no search).
_NVLS_FIELDS = frozenset({"nvls_channels", "nvls_bw_intra", "nvls_bw_inter"})


def _resolve_topology(topology, overrides, n_nodes=None, gpus_per_node=None) -> NcclTopology:
    """The topology NCCL's search yields for a communicator on ``n_nodes`` nodes, with ``overrides``.

    On one node a preset with ``single_node`` is replaced by the preset it names (NCCL removes
    the NICs of a single-node communicator, ``ncclTopoTrimSystem``); overrides apply after that.
    With ``gpus_per_node`` and a topology that knows its NVSwitch link (``nvswitch_bw``), the
    NVLS graph is searched for that many GPUs (:func:`~ccb_helpers.nccl_search.nvls_graph`;
    with NICs on several nodes), unless an ``nvls_*`` field is overridden.
    """
    if isinstance(topology, NcclTopology):
        topo = topology
    else:
        topo = NCCL_TOPOLOGIES[check_choice("topology", topology, NCCL_TOPOLOGIES)]
    if n_nodes == 1 and topo.single_node:
        topo = NCCL_TOPOLOGIES[check_choice("single_node", topo.single_node, NCCL_TOPOLOGIES)]
    if overrides:
        fields = {f.name for f in dataclasses.fields(NcclTopology)} - {"key", "label", "source"}
        unknown = set(overrides) - fields
        if unknown:
            raise TypeError(f"unknown topology field(s) {sorted(unknown)}; fields are {sorted(fields)}")
        topo = dataclasses.replace(topo, **overrides)  # re-validated by __post_init__
    if gpus_per_node is not None and topo.nvswitch_bw > 0 and not _NVLS_FIELDS & set(overrides or ()):
        # Between nodes the NVLS-Tree graph's second pass is capped by the network path: the NIC, or,
        # for a preset that names no NIC (dgx_h100 stretched over nodes), the bandwidth its rings
        # cross nodes with. Uncapped, it took the NVLink speed (60 GB/s per channel, 480 per node),
        # above the node's 360 GB/s that the bound charges, and NCCL's estimate beat the bound.
        network = (topo.nic_bw or topo.ring_bw_inter) if (n_nodes or 1) > 1 else 0.0
        topo = _with_searched_nvls(topo, gpus_per_node, network)
    return topo


@lru_cache(maxsize=256)
def _with_searched_nvls(topo: NcclTopology, gpus: int, nic_bw: float) -> NcclTopology:
    """``topo`` with the NVLS graph NCCL's search finds for ``gpus`` GPUs per node (none above 32)."""
    from .nccl_search import MAX_GPUS, nvls_graph

    graph = nvls_graph(gpus, topo.nvswitch_bw, nic_bw) if gpus <= MAX_GPUS else (0, 0.0, 0.0)
    return dataclasses.replace(topo, nvls_channels=graph[0], nvls_bw_intra=graph[1], nvls_bw_inter=graph[2])
