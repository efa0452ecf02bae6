"""Hardware presets: approximate α, β and port counts of real interconnects.

The figures are rounded public numbers, meant to put the bounds on a realistic scale — not
measurements. ``beta`` is the bandwidth of **one link (or port) in one direction** (bytes/s);
``alpha`` is a per-step software + hardware start-up latency of the order NCCL / MPI report.
Each preset names where its numbers come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validation import check_bandwidth, check_choice, check_int, check_seconds

__all__ = ["HardwarePreset", "PRESETS", "preset"]


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
        Bandwidth per link (or per port, see ``source``) per direction, bytes/s.
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

    def __post_init__(self):
        for name in ("key", "label", "topology", "source"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string, got {type(getattr(self, name)).__name__}")
        object.__setattr__(self, "alpha", check_seconds("alpha", self.alpha, scalar=True))
        object.__setattr__(self, "beta", check_bandwidth("beta", self.beta, scalar=True))
        if self.ports is not None:
            object.__setattr__(self, "ports", check_int("ports", self.ports, minimum=1, scalar=True))

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
            label="A100 NVLink3 (12 links = 6 NVSwitch planes, k = 6)",
            alpha=1.5e-6,
            beta=50e9,
            ports=6,
            links=6,
            topology="single_switch",
            source="NVIDIA A100: 12 third-generation NVLink links, 600 GB/s in total = 25 GB/s per link "
            "per direction (nvidia.com/data-center/nvlink). In a DGX / HGX A100 each GPU has 2 links to "
            "each of 6 NVSwitches (NCCL topology dump in NVIDIA/nccl#1505), so this preset counts a "
            "switch's two links as one 50 GB/s port: 6 planes. The source's 'A100 6 路 NVLink' counts the "
            "switches, not the 12 links. alpha is of the order of NCCL's intra-node step latency (~1-2 us).",
        ),
        HardwarePreset(
            key="h100_nvswitch",
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
            "costs. o and g are of the order of Netgauge's example LogGP measurement of MPI (o_s = 0.27, "
            "o_r = 0.55, g = 0.45 us; Hoefler et al. 2007); alpha ~ a few us end to end.",
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
    ]
}


def preset(key: str) -> HardwarePreset:
    """Look up a preset by key.

    >>> p = preset("a100_nvlink")
    >>> p.ports, p.beta
    (6, 50000000000.0)
    >>> preset("ib_ndr").ports_for(16), preset("ib_ndr").effective_ports(16)
    (15, 1)
    """
    return PRESETS[check_choice("key", key, PRESETS)]
