"""Hardware presets: approximate α, β and port counts of real interconnects.

The figures are rounded public numbers, meant to put the bounds on a realistic scale — not
measurements. ``alpha`` is a per-step software + hardware start-up latency of the order NCCL /
MPI report. Each preset names where its numbers come from.

**One rule for ports, every preset**: a port is one physical link — an NVLink, an xGMI link, a
PCIe link, a NIC port — and ``beta`` is that link's rate **in one direction** (bytes/s);
``links`` (``d``) counts a GPU's links into the fabric and ``ports`` (``k``) the links it drives
at once. The switches the links go to are not counted: an HGX A100's 12 NVLinks go two to each
of 6 NVSwitches and an HGX H100's 18 go to 4 NVSwitch chips, and the presets have 12 × 25 GB/s
and 18 × 25 GB/s. (The A100 preset counted 6 switch planes of 50 GB/s until issue #37; ``p β`` is
the same 300 GB/s either way, the rounds ``ceil(log_{k+1} N)`` and the 1-port ``beta`` are not.)
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validation import INT64_MAX, check_bandwidth, check_choice, check_int, check_seconds

__all__ = ["HardwarePreset", "PRESETS", "preset", "NetworkPreset", "NETWORK_PRESETS"]


@dataclass(frozen=True)
class HardwarePreset:
    """One interconnect.

    Attributes
    ----------
    key : str
        Identifier used by :func:`preset`.
    label : str
        Display name.
    alpha : float
        Latency per step, seconds.
    beta : float
        Bandwidth of one link (one NIC port) per direction, bytes/s: the module's rule for ports.
    ports : int or None
        ``k``: links a node drives at once; ``None`` means all-port (``k = N - 1``).
    topology : str
        The network family the preset usually comes with.
    source : str
        Where the figures come from, and how rough they are.
    links : int or None, default None
        ``d``: links from a node into the fabric, when the hardware fixes it (an NVSwitch domain,
        one NIC); ``None`` when the topology decides (a ring has 2, a 3D torus 6).
    overhead, gap : float or None, default None
        LogP per-message costs (seconds): ``o`` the processor time to inject or receive one
        message, ``g`` the minimum time between two messages from one network interface.
    hop_latency : float or None, default None
        Router latency of one hop under cut-through routing (seconds).
    gamma : float or None, default None
        Seconds to add one byte (the computation term of Reduce, ReduceScatter and AllReduce),
        with ``gamma_source``; ``None`` where the preset names no processor.
    gamma_source : str, default ""
        Where ``gamma`` comes from.
    """

    key: str
    label: str
    alpha: float
    beta: float
    ports: int | None
    topology: str
    source: str
    links: int | None = None
    overhead: float | None = None
    gap: float | None = None
    hop_latency: float | None = None
    gamma: float | None = None
    gamma_source: str = ""

    def __post_init__(self):
        for name in ("key", "label", "topology", "source"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string, got {type(getattr(self, name)).__name__}")
        object.__setattr__(self, "alpha", check_seconds("alpha", self.alpha, scalar=True))
        object.__setattr__(self, "beta", check_bandwidth("beta", self.beta, scalar=True))
        if self.ports is not None:
            object.__setattr__(self, "ports", check_int("ports", self.ports, minimum=1, maximum=INT64_MAX, scalar=True))
        # Issue #28: links=-3 made effective_ports() return -3; LogP times were never checked.
        if self.links is not None:
            object.__setattr__(self, "links", check_int("links", self.links, minimum=1, maximum=INT64_MAX, scalar=True))
        if not isinstance(self.gamma_source, str) or (self.gamma is not None and not self.gamma_source):
            raise TypeError("gamma_source must be a string naming where gamma comes from")
        for name in ("overhead", "gap", "hop_latency", "gamma"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, check_seconds(name, getattr(self, name), scalar=True))

    def ports_for(self, n: int) -> int:
        """``k`` for ``n`` nodes (all-port means ``n - 1``, at least 1).

        >>> PRESETS["ib_ndr"].ports_for(16), PRESETS["sg2260"].ports_for(16)
        (15, 2)
        """
        n = check_int("n", n, minimum=1, scalar=True)
        return max(1, n - 1) if self.ports is None else self.ports

    def effective_ports(self, n: int) -> int:
        """:math:`p = \\min(k, d)` for ``n`` nodes: the links a node really uses at once.

        >>> preset("ib_ndr").effective_ports(1024), preset("h100_nvswitch").effective_ports(8)
        (1, 18)
        """
        k = self.ports_for(n)
        return k if self.links is None else min(k, self.links)


PRESETS: dict[str, HardwarePreset] = {
    p.key: p
    for p in [
        HardwarePreset(
            key="sg2260",
            label="SG2260 (CDMA + VSDMA, k = 2)",
            alpha=2e-6,
            beta=32e9,
            ports=2,
            topology="ring",
            source="k = 2 from the source chapter (two DMA engines). alpha and beta are illustrative "
            "values of PCIe-class chip-to-chip links, not vendor figures.",
        ),
        HardwarePreset(
            key="a100_nvlink",
            gamma=3 / 2.039e12,
            gamma_source="roofline of an add on the GPU's memory: 3 bytes of HBM traffic per byte added (two operands read, the sum written) at the datasheet's 2.039 TB/s (A100 80GB SXM): 3 / 2.039 TB/s (A100 80GB SXM) = 0.00147 ns a byte (NVIDIA A100 datasheet); a real add kernel reaches 80-90 % of the peak, so gamma is a little larger.",
            label="A100 NVLink3 + NVSwitch (12 links)",
            alpha=1.5e-6,
            beta=25e9,
            ports=12,
            links=12,
            topology="single_switch",
            source="NVIDIA A100: 12 third-generation NVLink links, 600 GB/s in total = 25 GB/s per link "
            "per direction, 300 GB/s per GPU (nvidia.com/data-center/nvlink). In a DGX / HGX A100 each GPU "
            "has 2 links to each of 6 NVSwitches (NCCL topology dump in NVIDIA/nccl#1505); like every "
            "preset this one counts links, not switches (the module's rule). The source's 'A100 6 路 "
            "NVLink' counts the switches. alpha is of the order of NCCL's intra-node step latency (~1-2 us).",
        ),
        HardwarePreset(
            key="h100_nvswitch",
            gamma=3 / 3.35e12,
            gamma_source="roofline of an add on the GPU's memory: 3 bytes of HBM traffic per byte added (two operands read, the sum written) at the datasheet's 3.35 TB/s (H100 SXM; H200: 4.8 TB/s): 3 / 3.35 TB/s (H100 SXM; H200: 4.8 TB/s) = 0.000896 ns a byte (NVIDIA H100 datasheet); a real add kernel reaches 80-90 % of the peak, so gamma is a little larger.",
            label="H100 / H200 NVLink4 + NVSwitch (18 links)",
            alpha=1e-6,
            beta=25e9,
            ports=18,
            links=18,
            topology="single_switch",
            source="NVIDIA H100 / H200 SXM: fourth-generation NVLink, 900 GB/s bidirectional per GPU over "
            "18 links (nvidia-smi topo -m shows NV18 between every pair of an HGX H100, NVIDIA/nccl#1264), "
            "so 25 GB/s per link per direction and 450 GB/s per GPU; the links go to 4 NVSwitches. "
            "An NVSwitch domain is a single switch with 18 links per GPU whatever the GPU count "
            "(ccb.single_switch(n, links=18)). NCCL reaches about 370 GB/s of it (protocol overhead, "
            "NVIDIA/nccl-tests#212).",
        ),
        HardwarePreset(
            key="ib_ndr",
            label="InfiniBand NDR 400 Gb/s (one NIC, multi-QP)",
            alpha=3e-6,
            beta=50e9,
            ports=None,
            links=1,
            overhead=0.5e-6,
            gap=0.5e-6,
            topology="fat_tree",
            source="NDR: 400 Gb/s = 50 GB/s per direction per port. Many queue pairs keep messages to many "
            "peers in flight (the source's 'near all-port'), but they leave through one NIC: d = 1, so "
            "p = min(k, d) = 1 for bandwidth and for rounds, and every message pays the LogP per-message "
            "costs. o and g are not NDR measurements: they are the order of a 2007 LogGP measurement of "
            "MPI on the InfiniBand of that time (Netgauge's example: o_s = 0.27, o_r = 0.55, g = 0.45 us; "
            "Hoefler et al. 2007), kept as an order of magnitude; alpha ~ a few us end to end.",
        ),
        HardwarePreset(
            key="tpu_torus",
            label="TPU-style 3D torus (ICI, k = 6)",
            alpha=1e-6,
            beta=45e9,
            ports=6,
            links=6,
            hop_latency=1e-6,
            topology="torus",
            source="TPU v4 / v5p pods: each chip has 6 ICI links forming a 3D torus, 4.5e10 bytes/s per link "
            "per direction and about 1 us of intrinsic overhead per hop (How to Scale Your Model, "
            "sharding.md and tpus.md).",
        ),
        HardwarePreset(
            key="b200_nvlink5",
            gamma=3 / 8e12,
            gamma_source="roofline of an add on the GPU's memory: 3 bytes of HBM traffic per byte added (two operands read, the sum written) at the datasheet's 8 TB/s (B200 HBM3e): 3 / 8 TB/s (B200 HBM3e) = 0.000375 ns a byte (NVIDIA DGX B200 datasheet: 64 TB/s for 8 GPUs); a real add kernel reaches 80-90 % of the peak, so gamma is a little larger.",
            label="B200 / GB200 / GB300 NVLink5 + NVSwitch (18 links)",
            alpha=1e-6,
            beta=50e9,
            ports=18,
            links=18,
            topology="single_switch",
            source="NVIDIA Blackwell (B200, GB200 and GB300 NVL72): fifth-generation NVLink, 1.8 TB/s "
            "bidirectional per GPU over 18 links (nvidia.com/data-center/nvlink: 'Fifth-generation NVLink "
            "... 1.8 terabytes per second'), so 50 GB/s per link per direction and 900 GB/s per GPU into "
            "the NVSwitch fabric (a whole NVL72 rack is one switch domain). alpha as for H100.",
        ),
        HardwarePreset(
            key="mi300x_xgmi",
            gamma=3 / 5.3e12,
            gamma_source="roofline of an add on the GPU's memory: 3 bytes of HBM traffic per byte added (two operands read, the sum written) at the datasheet's 5.3 TB/s (MI300X HBM3): 3 / 5.3 TB/s (MI300X HBM3) = 0.000566 ns a byte (AMD MI300X data sheet); a real add kernel reaches 80-90 % of the peak, so gamma is a little larger.",
            label="AMD MI300X, 7 xGMI (Infinity Fabric) links, fully connected",
            alpha=2e-6,
            beta=64e9,
            ports=7,
            links=7,
            topology="fully_connected",
            source="AMD Instinct MI300X platform: 8 GPUs fully connected by 7 AMD Infinity Fabric (xGMI) "
            "links per GPU, 128 GB/s peak bidirectional each, 896 GB/s per GPU (AMD MI300X data sheet, "
            "amd.com/en/products/accelerators/instinct/mi300/mi300x.html): 64 GB/s per link per direction. "
            "Unlike NVSwitch, a pair of GPUs has one link: a point-to-point transfer gets 64 GB/s, a "
            "collective that uses all 7 peers 448 GB/s. alpha is of the order RCCL reports.",
        ),
        HardwarePreset(
            key="mi355x_xgmi",
            gamma=3 / 8e12,
            gamma_source="roofline of an add on the GPU's memory: 3 bytes of HBM traffic per byte added (two operands read, the sum written) at the datasheet's 8 TB/s (MI355X HBM3E): 3 / 8 TB/s (MI355X HBM3E) = 0.000375 ns a byte (AMD MI355X product page); a real add kernel reaches 80-90 % of the peak, so gamma is a little larger.",
            label="AMD MI355X, 7 xGMI (Infinity Fabric) links, fully connected",
            alpha=2e-6,
            beta=76.8e9,
            ports=7,
            links=7,
            topology="fully_connected",
            source="AMD Instinct MI355X (CDNA 4) platform: 8 GPUs fully connected by 7 Infinity Fabric links "
            "of 153.6 GB/s bidirectional each, 1075 GB/s per GPU (AMD MI355X product page, "
            "amd.com/en/products/accelerators/instinct/mi350/mi355x.html): 76.8 GB/s per link per direction.",
        ),
        HardwarePreset(
            key="v100_nvlink2",
            gamma=3 / 900e9,
            gamma_source="roofline of an add on the GPU's memory: 3 bytes of HBM traffic per byte added (two operands read, the sum written) at the datasheet's 900 GB/s (V100 SXM2 HBM2): 3 / 900 GB/s (V100 SXM2 HBM2) = 0.00333 ns a byte (NVIDIA Tesla V100 datasheet); a real add kernel reaches 80-90 % of the peak, so gamma is a little larger.",
            label="V100 NVLink2, DGX-1 hybrid cube-mesh (6 links)",
            alpha=2e-6,
            beta=25e9,
            ports=6,
            links=6,
            topology="dgx1",
            source="NVIDIA Tesla V100 SXM2: six second-generation NVLink links, 300 GB/s bidirectional in "
            "total, 25 GB/s per link per direction (NVIDIA Tesla V100 GPU architecture white paper, 2017). "
            "In a DGX-1 they form the hybrid cube-mesh of chapter 7 (ccb.dgx1(): 4 peers per GPU, 2 of "
            "them over two links); there is no switch, so a GPU's 150 GB/s reach only its neighbours.",
        ),
        HardwarePreset(
            key="pcie_gen4",
            label="PCIe Gen4 x16 (GPUs without NVLink)",
            alpha=5e-6,
            beta=31.5e9,
            ports=1,
            links=1,
            topology="single_switch",
            source="PCI Express 4.0: 16 GT/s per lane, 128b/130b encoding: 16 x 16 x 128/130 / 8 = 31.5 GB/s per "
            "direction for x16 (PCI-SIG). Every GPU has one such link to its switch or root complex; "
            "traffic between CPU sockets (SYS in nvidia-smi topo -m) is slower still.",
        ),
        HardwarePreset(
            key="pcie_gen5",
            label="PCIe Gen5 x16 (GPUs without NVLink)",
            alpha=5e-6,
            beta=63e9,
            ports=1,
            links=1,
            topology="single_switch",
            source="PCI Express 5.0: 32 GT/s per lane, 128b/130b: 32 x 16 x 128/130 / 8 = 63.0 GB/s per "
            "direction for x16 (PCI-SIG).",
        ),
    ]
}


def preset(key: str) -> HardwarePreset:
    """Look up a preset by key.

    >>> p = preset("a100_nvlink")
    >>> p.ports, p.beta
    (12, 25000000000.0)
    >>> preset("ib_ndr").ports_for(16), preset("ib_ndr").effective_ports(16)
    (15, 1)
    """
    return PRESETS[check_choice("key", key, PRESETS)]


@dataclass(frozen=True)
class NetworkPreset:
    """A node's network: ``nics`` NICs of ``nic_beta`` bytes/s per direction each.

    ``node_beta`` is the node's total (the cut around a node in
    :func:`~ccb_helpers.two_level_ceiling_terms`); ``nic_beta`` the rail of one GPU when each
    GPU has its own NIC — beside its NVLink, a second way out of the GPU (the ``nic`` term of
    the endpoint ceiling). ``source`` names where the figures come from.
    """

    key: str
    label: str
    nic_beta: float
    nics: int
    source: str

    def __post_init__(self):
        for name in ("key", "label", "source"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string, got {type(getattr(self, name)).__name__}")
        object.__setattr__(self, "nic_beta", check_bandwidth("nic_beta", self.nic_beta, scalar=True))
        object.__setattr__(self, "nics", check_int("nics", self.nics, minimum=1, maximum=1024, scalar=True))

    @property
    def node_beta(self) -> float:
        """Bytes/s per direction out of one node.

        >>> NETWORK_PRESETS["ib_ndr_8x400"].node_beta / 1e9
        400.0
        """
        return self.nics * self.nic_beta


NETWORK_PRESETS: dict[str, NetworkPreset] = {
    p.key: p
    for p in [
        NetworkPreset(
            "ib_ndr_8x400",
            "InfiniBand NDR, 8 x 400 Gb/s per node (one per GPU)",
            50e9,
            8,
            "NDR: 400 Gb/s = 50 GB/s per direction per port; DGX H100 / HGX H100 nodes have 8 "
            "ConnectX-7 NICs, one per GPU (NVIDIA DGX H100 user guide).",
        ),
        NetworkPreset(
            "ib_xdr_8x800",
            "InfiniBand XDR, 8 x 800 Gb/s per node (one per GPU)",
            100e9,
            8,
            "XDR: 800 Gb/s = 100 GB/s per direction per port (NVIDIA Quantum-X800 / ConnectX-8 "
            "SuperNIC), one per GPU on B300 / GB300 nodes.",
        ),
        NetworkPreset(
            "efa_p5_3200",
            "AWS EFA on p5.48xlarge, 3200 Gb/s per node",
            12.5e9,
            32,
            "AWS p5.48xlarge (8 x H100): 32 EFA interfaces of 100 Gb/s = 3200 Gb/s = 400 GB/s per "
            "direction per node, 4 per GPU (aws.amazon.com/ec2/instance-types/p5).",
        ),
        NetworkPreset(
            "efa_p4d_400",
            "AWS EFA on p4d.24xlarge, 400 Gb/s per node",
            12.5e9,
            4,
            "AWS p4d.24xlarge (8 x A100): 4 x 100 Gb/s EFA = 50 GB/s per direction per node "
            "(aws.amazon.com/ec2/instance-types/p4).",
        ),
        NetworkPreset(
            "roce_8x400",
            "RoCE, 8 x 400 GbE per node (one per GPU)",
            50e9,
            8,
            "400 Gb Ethernet with RDMA (RoCE v2), one NIC per GPU: 50 GB/s per direction each, "
            "400 GB/s per 8-GPU node (e.g. OCI BM.GPU.H100.8, Azure ND MI300X v5: 8 x 400 Gb/s).",
        ),
        NetworkPreset(
            "roce_8x200",
            "RoCE / TCPXO, 8 x 200 Gb/s per node (one per GPU)",
            25e9,
            8,
            "200 Gb/s per GPU: Google Cloud A3 Mega (GPUDirect-TCPXO, 8 x 200 Gb/s) and 200 GbE "
            "RoCE clusters; 25 GB/s per direction per NIC, 200 GB/s per node.",
        ),
    ]
}
