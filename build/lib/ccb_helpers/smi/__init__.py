"""Topology printouts of the vendors' tools, read into a :class:`~ccb_helpers.topology.Topology`.

* :func:`parse_nvidia_smi_topo` — the text ``nvidia-smi topo -m`` prints (NVLink, NVSwitch, and
  PCIe-only or NVLink-bridge boxes, whose PCIe levels become switch vertices);
* :func:`parse_rocm_smi_topo` — the text ``rocm-smi --showtopo`` prints (AMD xGMI and PCIe).

Modules: ``pcie`` (what both share: GPU names, terminal escapes, the PCIe levels as a switch
tree), ``nvidia``, ``rocm``. The topologies are built by the constructors of
:mod:`ccb_helpers.user_topology` (the layer below).
"""

from .nvidia import MAX_NVLINKS_PER_GPU, parse_nvidia_smi_topo
from .pcie import PCIE_LEVEL_LINKS
from .rocm import parse_rocm_smi_topo

__all__ = ["parse_nvidia_smi_topo", "parse_rocm_smi_topo", "PCIE_LEVEL_LINKS", "MAX_NVLINKS_PER_GPU"]
