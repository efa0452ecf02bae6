"""A machine's own topology for the CLI's ``--topology FILE``: its GPUs' links and its NICs.

The file holds what ``nvidia-smi topo -m`` or ``rocm-smi --showtopo`` printed on one node
(:mod:`ccb_helpers.smi` reads the GPU block), optionally followed by ``ibstat`` (its ``Rate: 400``
lines) or ``ethtool`` (``Speed: 400000Mb/s``) output for the NICs' speed. From it:

* the **GPUs' links**: the topology of one node (NVLink / xGMI links per GPU, an NVSwitch, or
  the PCIe tree) — the endpoint ceiling is the GPU's links times the per-link rate of its
  interconnect (:data:`~ccb_helpers.nccl_tests.machines.LINK_RATES`), and on one node the
  bisection of a direct or PCIe topology may bind lower (:func:`single_node_ceiling`);
* the **NICs** of ``nvidia-smi topo -m``'s ``NIC#`` (or ``mlx5_#``) columns that sit at ``PIX`` or
  ``PXB`` of a GPU (GPUDirect RDMA rails; a management NIC ``SYS`` to every GPU is not one): their
  count gives each GPU's share of the node's network, and with the NICs' speed the node's
  network bandwidth (:func:`~ccb_helpers.nccl_tests.ceilings.two_level_ceiling_terms`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._tokens import read_number
from ..smi import parse_nvidia_smi_topo, parse_rocm_smi_topo
from ..smi.pcie import _ANSI

_NIC = re.compile(r"^(NIC\d+|mlx5_\d+|bnxt_re\d+|ionic_\d+|rdma\d+|efa_\d+)$")
_RAILS = {"PIX", "PXB"}
_RATE = re.compile(r"^\s*Rate:\s*(\d+(?:\.\d+)?)\s*$")
_SPEED = re.compile(r"^\s*Speed:\s*(\d+)\s*Mb/s\s*$")


@dataclass(frozen=True)
class MachineTopology:
    """One node as its printout describes it.

    Attributes
    ----------
    topology : Topology
        The GPUs and their links (:func:`~ccb_helpers.parse_nvidia_smi_topo` / ``parse_rocm_smi_topo``).
    source : str
        ``"nvidia-smi topo -m"`` or ``"rocm-smi --showtopo"``.
    direct_links : bool
        Whether the GPUs have links of their own (NVLink, xGMI), not only PCIe.
    nics : int
        NICs at ``PIX`` / ``PXB`` of some GPU (0: none listed, or the printout lists none).
    nic_rate : float or None
        One NIC's bandwidth per direction, bytes/s, from ``Rate:`` / ``Speed:`` lines; ``None`` without.
    """

    topology: object
    source: str
    direct_links: bool
    nics: int
    nic_rate: float | None

    @property
    def gpus(self) -> int:
        return self.topology.n

    @property
    def links_per_gpu(self) -> int:
        """The most links of a GPU (parallel links counted; a PCIe GPU's one link to its switch)."""
        return self.topology.degree


def read_topology_file(text: str) -> MachineTopology:
    """Read a topology printout (see the module); ``ValueError`` naming the line when it cannot.

    Two GPUs joined by 4 NVLinks, each with its own NIC (PIX) of 400 Gb/s (``ibstat``'s ``Rate:``):

    >>> m = read_topology_file('''
    ...         GPU0    GPU1    NIC0    NIC1
    ... GPU0     X      NV4     PIX     SYS
    ... GPU1    NV4      X      SYS     PIX
    ... NIC0    PIX     SYS      X      SYS
    ... NIC1    SYS     PIX     SYS      X
    ...         Rate: 400
    ...         Rate: 400
    ... ''')
    >>> m.gpus, m.links_per_gpu, m.direct_links, m.nics, m.nic_rate / 1e9
    (2, 4, True, 2, 50.0)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a topology printout as a string, got {type(text).__name__}")
    if "Link Type between two GPUs" in text or "ROCm System Management Interface" in text:
        topology = parse_rocm_smi_topo(text)
        return MachineTopology(topology, "rocm-smi --showtopo", not topology.switched, 0, _nic_rate(text))
    topology = parse_nvidia_smi_topo(text)
    direct = "NV" in {cell[:2] for line in text.splitlines() for cell in line.split()} and not _pcie_only(topology)
    return MachineTopology(topology, "nvidia-smi topo -m", direct, _rail_nics(text, topology.n), _nic_rate(text))


def _pcie_only(topology) -> bool:
    return topology.switched and topology.name.endswith("(PCIe)")


def _rail_nics(text: str, gpus: int) -> int:
    """NIC columns of the GPU block at PIX or PXB of some GPU row."""
    lines = [_ANSI.sub("", line).replace("\t", " ") for line in text.splitlines()]
    header = next((line.split() for line in lines if line.split()[:1] == ["GPU0"] and line.split()[1:2] != ["X"]), None)
    if header is None:
        return 0
    columns = [i for i, token in enumerate(header) if _NIC.match(token)]
    rails = set()
    for line in lines:
        tokens = line.split()
        if not tokens or not re.match(r"^GPU\d+$", tokens[0]) or tokens[1:2] == [header[1]]:
            continue
        cells = tokens[1:]
        rails.update(i for i in columns if i < len(cells) and cells[i] in _RAILS)
    return len(rails)


def _nic_rate(text: str) -> float | None:
    """One NIC's bytes/s per direction from ``ibstat`` ``Rate:`` (Gb/s) or ``ethtool`` ``Speed:`` (Mb/s) lines."""
    rates = []
    for number, line in enumerate(text.splitlines(), start=1):
        if (m := _RATE.match(line)) is not None:
            rates.append(read_number(m.group(1), f"line {number}: Rate").value * 1e9 / 8)
        elif (m := _SPEED.match(line)) is not None:
            rates.append(read_number(m.group(1), f"line {number}: Speed", integer=True).value * 1e6 / 8)
    rates = [r for r in rates if r > 0]
    return max(set(rates), key=rates.count) if rates else None


def single_node_ceiling(primitive: str, machine: MachineTopology, link_rate: float) -> tuple[float, str]:
    """Large-message busbw ceiling of a run on all the machine's GPUs (bytes/s), and which bound binds.

    ``c(N) M`` over the larger of the node bound (every GPU through its own links) and the
    bisection bound (``bisection_bytes`` through the bisection's links), both with ``link_rate``
    per link: both are linear in ``M``, so the ceiling is one number.
    """
    from ..bandwidth import volume_coefficient
    from ..bisection import bisection_lower_bound, node_lower_bound

    topology, m = machine.topology, 2.0**30
    node = node_lower_bound(primitive, topology, m, link_rate, ports=max(topology.degree, 1))
    cut = bisection_lower_bound(primitive, topology, m, link_rate)
    volume = volume_coefficient(primitive, topology.n) * m
    if cut > node:
        return volume / cut, f"the bisection ({topology.bisection_links} links)"
    return volume / node, f"each GPU's {topology.degree} link{'s' if topology.degree != 1 else ''}"
