"""Which hardware preset a log's devices are, and which network its nodes have (``--preset auto``).

nccl-tests names each rank's device in its ``# Rank … device …`` lines (``NVIDIA H100 80GB HBM3``,
``AMD Instinct MI300X``, ``Tesla V100-SXM2-16GB`` …). :func:`preset_for_devices` maps those names
to the book's presets (:data:`ccb_helpers.hardware.PRESETS`) where a preset describes the part;
parts with another interconnect (H800 and A800 with 400 GB/s of NVLink, MI250X, PCIe cards of
PCIe Gen3) get no preset and a message saying why. :func:`network_for` picks a network preset
(:data:`ccb_helpers.hardware.NETWORK_PRESETS`) for common nodes from the transport NCCL's INFO
lines name and the GPUs; :func:`preset_contradiction` says when an explicit preset is for other
hardware than the log's devices.

:data:`LINK_RATES` are the bandwidths of one link per direction (bytes/s) of each preset's
interconnect, so that a machine's own link count (``nvidia-smi topo -m``) gives its endpoint ceiling.
"""

from __future__ import annotations

import re

#: Device-name patterns (matched case-insensitively, first match wins) -> preset key, or ``None``
#: with the reason no preset describes the part.
DEVICE_PRESETS = (
    (
        r"\bH100\b.*\bPCIe\b|\bH100 NVL\b",
        None,
        "H100 PCIe / NVL: PCIe Gen5 and NVLink bridges, no NVSwitch: pass --preset pcie_gen5 or --topology",
    ),
    (r"\bH800\b", None, "H800: 8 NVLinks (400 GB/s), no preset: pass --alpha and --beta (e.g. --beta 25e9 --ports 8)"),
    (r"\bA800\b", None, "A800: 8 NVLinks (400 GB/s), no preset: pass --alpha and --beta"),
    (r"\bH100\b|\bH200\b|\bH20\b", "h100_nvswitch", ""),
    (r"\bA100\b.*\bPCIE\b", "pcie_gen4", ""),
    (r"\bA100\b|\bPG506", "a100_nvlink", ""),
    (r"\bB200\b|\bGB200\b|\bGB300\b|\bB300\b", "b200_nvlink5", ""),
    (r"\bMI300X\b|\bMI325X\b", "mi300x_xgmi", ""),
    (r"\bMI355X\b|\bMI350X\b", "mi355x_xgmi", ""),
    (r"\bV100\b.*\bSXM", "v100_nvlink2", ""),
    (r"\bRTX 50\d0\b|\bRTX PRO 6000\b", "pcie_gen5", ""),
    (r"\bA40\b|\bA10\b|\bL40S?\b|\bL4\b|\bRTX [34]0\d0\b|\bRTX A6000\b|\bA6000\b", "pcie_gen4", ""),
    (r"\bMI250X?\b", None, "MI250X: xGMI between its two dies and the node's GPUs, no preset: pass --alpha and --beta"),
    (
        r"\bT4\b|\bV100\b.*\bPCIE\b|\bP100\b",
        None,
        "a PCIe Gen3 card, no preset: pass --alpha and --beta (Gen3 x16: 15.75e9)",
    ),
    (r"\bGB10\b", None, "GB10 (DGX Spark): no preset: pass --alpha and --beta"),
)
#: One link's bandwidth per direction of each preset's interconnect (bytes/s): NVLink 2-4 25 GB/s,
#: NVLink 5 50 GB/s, xGMI of MI300X 64 and of MI355X 76.8 GB/s, a PCIe x16 link (sources: the presets').
LINK_RATES = {
    "v100_nvlink2": 25e9,
    "a100_nvlink": 25e9,  # 12 links of 25 GB/s (the preset counts a switch's two links as one port)
    "h100_nvswitch": 25e9,
    "b200_nvlink5": 50e9,
    "mi300x_xgmi": 64e9,
    "mi355x_xgmi": 76.8e9,
    "pcie_gen4": 31.5e9,
    "pcie_gen5": 63e9,
}
#: (network kind NCCL names, preset of the GPUs) -> network preset of the common node with them.
NODE_NETWORKS = {
    ("EFA", "h100_nvswitch"): "efa_p5_3200",
    ("EFA", "a100_nvlink"): "efa_p4d_400",
    ("InfiniBand", "h100_nvswitch"): "ib_ndr_8x400",
    ("InfiniBand", "b200_nvlink5"): "ib_xdr_8x800",
    ("RoCE", "h100_nvswitch"): "roce_8x400",
    ("RoCE", "mi300x_xgmi"): "roce_8x400",
    ("RoCE", "mi355x_xgmi"): "roce_8x400",
    ("GPUDirect-TCPX", "h100_nvswitch"): "roce_8x200",
}


def preset_for_device(name: str) -> tuple[str | None, str]:
    """``(preset key, "")`` for a device name, or ``(None, why)`` when no preset describes it.

    >>> preset_for_device("NVIDIA H100 80GB HBM3"), preset_for_device("AMD Instinct MI300X")[0]
    (('h100_nvswitch', ''), 'mi300x_xgmi')
    >>> preset_for_device("NVIDIA H800")[0] is None
    True
    """
    for pattern, key, why in DEVICE_PRESETS:
        if re.search(pattern, name, re.IGNORECASE):
            return key, why
    return None, f"no preset matches the device {name!r}: pass --preset KEY, or --alpha and --beta"


def preset_for_devices(devices) -> tuple[str | None, str]:
    """``(preset key, how)`` for the devices of a log's rank lines, or ``(None, why not)``.

    Every named device must map to the same preset (a log of two kinds of GPU has none).
    """
    names = sorted({d for d in devices if d})
    if not names:
        return None, "the log names no devices (no '# Rank … device …' lines with a name)"
    found = {name: preset_for_device(name) for name in names}
    keys = {key for key, _ in found.values()}
    if None in keys:
        name, (_, why) = next((n, f) for n, f in found.items() if f[0] is None)
        return None, why
    if len(keys) > 1:
        return None, "the log names devices of several kinds (" + ", ".join(names) + "): pass --preset"
    key = keys.pop()
    return key, f"chosen from the devices the rank lines name ({', '.join(names)})"


def preset_contradiction(preset_key: str, devices) -> str | None:
    """A warning when ``preset_key`` is for other hardware than the log's devices, else ``None``."""
    names = sorted({d for d in devices if d})
    if not names:
        return None
    keys = {preset_for_device(name)[0] for name in names} - {None}
    if not keys or preset_key in keys:
        return None
    return (
        f"--preset {preset_key} is not the hardware the log names ({', '.join(names)}: preset "
        f"{', '.join(sorted(keys))}): the bound is for other links than the ones measured"
    )


def network_for(kind: str | None, preset_key: str | None) -> str | None:
    """The network preset of the common node with these GPUs and this transport, else ``None``."""
    if kind is None or preset_key is None:
        return None
    return NODE_NETWORKS.get((kind, preset_key))
