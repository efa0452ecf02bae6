"""Hardware presets: approximate α, β and port counts of real interconnects.

The figures are rounded public numbers, meant to put the bounds on a realistic scale — not
measurements. ``beta`` is always the bandwidth of **one link in one direction** (bytes/s);
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
        Bandwidth per link per direction, bytes/s.
    ports : int or None
        ``k``: links a node drives at once; ``None`` means all-port (``k = N - 1``).
    topology : str
        The network family the preset usually comes with.
    source : str
        Where the figures come from, and how rough they are.
    """

    key: str
    label: str
    alpha: float
    beta: float
    ports: int | None
    topology: str
    source: str

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
            label="A100 NVLink3 (6 NVSwitch planes, k = 6)",
            alpha=1.5e-6,
            beta=50e9,
            ports=6,
            topology="single_switch",
            source="NVIDIA A100 / DGX A100: 12 NVLink3 links x 25 GB/s per direction per GPU, two to each "
            "of 6 NVSwitches, so 6 planes of 50 GB/s; k = 6 as in the source. alpha is of the order of "
            "NCCL's intra-node step latency (~1-2 us).",
        ),
        HardwarePreset(
            key="h100_nvswitch",
            label="H100 / H200 NVLink4 + NVSwitch",
            alpha=1e-6,
            beta=450e9,
            ports=1,
            topology="single_switch",
            source="NVIDIA H100 / H200 SXM: 18 NVLink4 links, 900 GB/s bidirectional = 450 GB/s per "
            "direction per GPU into the NVSwitch fabric, modelled as one port to a non-blocking switch.",
        ),
        HardwarePreset(
            key="ib_ndr",
            label="InfiniBand NDR 400 Gb/s (multi-QP)",
            alpha=3e-6,
            beta=50e9,
            ports=None,
            topology="fat_tree",
            source="NDR: 400 Gb/s = 50 GB/s per direction per port. Many queue pairs let a node keep "
            "messages to many peers in flight (near all-port, as the source says), but they share the "
            "one NIC: for bandwidth p = 1. alpha ~ a few us end to end.",
        ),
        HardwarePreset(
            key="tpu_torus",
            label="TPU-style 3D torus (ICI, k = 6)",
            alpha=1e-6,
            beta=45e9,
            ports=6,
            topology="torus",
            source="TPU v4 pods: each chip has 6 ICI links forming a 3D torus, ~45 GB/s per link per "
            "direction (rounded public figure); alpha ~ 1 us per hop.",
        ),
    ]
}


def preset(key: str) -> HardwarePreset:
    """Look up a preset by key.

    >>> p = preset("a100_nvlink")
    >>> p.ports, p.beta
    (6, 50000000000.0)
    >>> preset("ib_ndr").ports_for(16)
    15
    """
    return PRESETS[check_choice("key", key, PRESETS)]
