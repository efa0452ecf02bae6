"""NCCL's topology search for the NVLS graph: how many NVLS channels, at what bandwidth.

**Pinned version: NCCL 2.21.5-1**, ``src/graph/search.cc`` (``ncclTopoCompute``,
``ncclTopoSearchTryNvls``, ``ncclTopoCompareGraphs``) and the NVLink speeds of
``src/graph/topo.h`` (https://github.com/NVIDIA/nccl/tree/v2.21.5-1). The speed arrays below are
that file's tables, copied as data; the search is re-expressed, not copied.

The tuning model (:mod:`ccb_helpers.nccl_model`) takes the search's output — channels and
bandwidth per channel of each graph — as input. For the ring and tree graphs of an NVSwitch node
that output does not depend on the GPU count (every ring or chain passes through each GPU once);
for the NVLS graph it does, which is why this module exists:

* An NVLS channel has a *head* GPU; the search charges the channel's bandwidth ``bw`` on every
  GPU's link to the NVSwitch and back, and **twice on the head's** (``ncclTopoSearchTryNvls``
  follows the NVSwitch↔GPU path with multiplier 2 for ``d == g``).
* On one node the search must find exactly one channel per GPU (``minChannels = maxChannels =
  ngpus``: "Force intra-node NVLS algorithm to pull evenly from all GPUs"), so with ``G`` GPUs each
  GPU↔NVSwitch link carries ``(G + 1) bw``: the search lowers ``bw`` through
  ``sm90SpeedArrayIntra`` until ``(G + 1) bw`` fits the link (18 NVLink4 × 20.6 GB/s = 370.8 GB/s
  on an H100). It starts at the first speed with ``G bw <= 370.8 G/(G-1)`` (``totalBw`` scaled for
  non-ring patterns).
* Pass 2 then raises **only** ``bwInter`` (``ncclTopoCompute``: the NVLS branch sets
  ``tmpGraph.bwInter = speedArray[--speedIndex]``) while it is below twice ``bwIntra``; on one
  node no link is charged ``bwInter``, so it climbs to the top of the array.
* ``tuning.cc`` uses ``min(bwIntra, bwInter)`` for NVLS.

For 8 H100: 60 and 50 GB/s fail (9 × 50 = 450 > 370.8), 40 fits (360), pass 2 raises bwInter to
60: ``nChannels 8, bw 40/60``, the line a real 8-GPU log prints (``Pattern 5, crossNic 0,
nChannels 8, bw 40.000000/60.000000``, NVIDIA/nccl#1197).

On several nodes the NICs enter (the search starts from a NIC, ``ncclTopoSearchRecNet``):
``sm90SpeedArrayInter`` replaces the intra array, ``minChannels`` is 1, each channel also needs
``bwInter`` on its head's NIC and PCIe path, and the search keeps the best graph while it lowers
the speed. With one 400 Gb/s NIC per GPU behind a 48 GB/s PCIe path: 6 channels at 48, 7 at 45,
then all 8 at 40 (9 × 40 <= 370.8), and pass 2 raises bwInter back to 48: ``8 × 40/48``.

**Simplified**: the search's path types (``typeIntra`` / ``typeInter`` loops), timeouts and
``crossNic`` are not modelled (they do not change a bandwidth-limited NVLS result); on several
nodes every GPU of the communicator is assumed to have its own NIC (NCCL picks the NIC closest
to each head; a communicator using part of a node's GPUs is not modelled beyond that).
"""

from __future__ import annotations

from typing import NamedTuple

from ._validation import check_int, check_real, check_record

__all__ = ["SM90_NVLINK_BW", "SM90_SPEED_ARRAY_INTRA", "SM90_SPEED_ARRAY_INTER", "NvlsGraph", "nvls_graph"]

#: ``SM90_NVLINK_BW``: bandwidth NCCL's topology credits one NVLink4 with, GB/s (``topo.h``).
SM90_NVLINK_BW = 20.6
#: ``sm90SpeedArrayIntra``: per-channel speeds the search tries on one node (Hopper), GB/s.
SM90_SPEED_ARRAY_INTRA = (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0)
#: ``sm90SpeedArrayInter``: per-channel speeds the search tries with NICs (Hopper), GB/s.
SM90_SPEED_ARRAY_INTER = (
    48.0,
    45.0,
    42.0,
    40.0,
    30.0,
    24.0,
    22.0,
    20.0,
    17.5,
    15.0,
    12.0,
    6.0,
    3.0,
    2.4,
    1.2,
    0.24,
    0.12,
)

#: Largest GPU count per node the search accepts (NCCL's MAXCHANNELS is 32).
MAX_GPUS = 32


@check_record(channels="int", bw_intra="real", bw_inter="real")
class NvlsGraph(NamedTuple):
    """The NVLS graph NCCL's search finds: ``graph->nChannels``, ``bwIntra``, ``bwInter`` (bytes/s).

    ``channels = 0`` means no NVLS graph (two GPUs or fewer, or no speed fits).
    """

    channels: int
    bw_intra: float
    bw_inter: float


def _sub_round(remaining: float, bw: float) -> float:
    """``SUB_ROUND``: NCCL subtracts and rounds to 1/1000 GB/s (``roundf``, half away from zero)."""
    value = (remaining - bw) * 1000
    rounded = int(value + 0.5) if value >= 0 else -int(-value + 0.5)
    return rounded / 1000


def _channels_that_fit(gpus: int, link: float, nic: float, bw_intra: float, bw_inter: float, max_channels: int) -> int:
    """Channels the recursive search adds, head GPU ``c`` for channel ``c``, before a link runs out.

    Every channel charges ``bw_intra`` on each GPU's NVSwitch link in both directions, twice on
    its head (``ncclTopoSearchTryNvls``); with NICs (``nic > 0``) its head's NIC must also carry
    ``bw_inter`` (``net->net.bw < bw`` compares with the integer part of ``bwInter``, the PCIe
    path with the float).
    """
    if nic > 0 and (nic < int(bw_inter) or nic < bw_inter):
        return 0
    up = [link] * gpus  # GPU -> NVSwitch, GB/s left
    down = [link] * gpus  # NVSwitch -> GPU
    channels = 0
    while channels < max_channels:
        head = channels
        charge = [bw_intra * (2 if d == head else 1) for d in range(gpus)]
        if any(down[d] < charge[d] for d in range(gpus)) or any(up[d] < charge[d] for d in range(gpus)):
            break
        down = [_sub_round(down[d], charge[d]) for d in range(gpus)]
        up = [_sub_round(up[d], charge[d]) for d in range(gpus)]
        channels += 1
    return channels


def nvls_graph(gpus, nvswitch_bw, nic_bw=0.0) -> NvlsGraph:
    """The NVLS graph NCCL 2.21.5's search finds for ``gpus`` Hopper GPUs on one NVSwitch.

    Follows ``ncclTopoCompute`` for the NVLS pattern (see the module docstring): the first pass
    lowers the speed until the channels fit, the second raises ``bwInter``.

    Parameters
    ----------
    gpus : int
        GPUs of the communicator on one node, ``1 <= gpus <= 32``. Two or fewer get no NVLS graph
        (``ncclNvlsInit`` does not search then).
    nvswitch_bw : float
        Bandwidth of one GPU's link to the NVSwitch per direction, as NCCL's topology counts it
        (NVLinks × :data:`SM90_NVLINK_BW`: 18 × 20.6 GB/s = 370.8e9 on an H100), bytes/s.
    nic_bw : float, default 0
        0 for a communicator on one node (NCCL removes the NICs, ``ncclTopoTrimSystem``);
        otherwise each GPU has its own NIC and this is the bandwidth of the path to it (the
        smaller of the NIC's rate and the PCIe path), bytes/s.

    Returns
    -------
    NvlsGraph
        ``(channels, bw_intra, bw_inter)``, bandwidths in bytes/s.

    Examples
    --------
    Eight H100 on one node: 9 × 40 GB/s fits 370.8, 9 × 50 does not; pass 2 raises bwInter to 60
    (the log line ``nChannels 8, bw 40.000000/60.000000``). Four fit 5 × 60:

    >>> nvls_graph(8, 370.8e9)
    NvlsGraph(channels=8, bw_intra=40000000000.0, bw_inter=60000000000.0)
    >>> nvls_graph(4, 370.8e9)
    NvlsGraph(channels=4, bw_intra=60000000000.0, bw_inter=60000000000.0)

    With one NIC per GPU behind a 48 GB/s path (several nodes):

    >>> nvls_graph(8, 370.8e9, nic_bw=48e9)
    NvlsGraph(channels=8, bw_intra=40000000000.0, bw_inter=48000000000.0)
    """
    gpus = check_int("gpus", gpus, minimum=1, maximum=MAX_GPUS, scalar=True)
    nvswitch_bw = check_real("nvswitch_bw", nvswitch_bw, strict=True, maximum=1e13, scalar=True)
    nic_bw = check_real("nic_bw", nic_bw, maximum=1e13, scalar=True)
    if gpus <= 2:
        return NvlsGraph(0, 0.0, 0.0)
    channels, bw_intra, bw_inter = _search(gpus, nvswitch_bw / 1e9, nic_bw / 1e9)
    return NvlsGraph(channels, bw_intra * 1e9, bw_inter * 1e9)


def _search(gpus: int, link: float, nic: float) -> tuple[int, float, float]:
    """``ncclTopoCompute`` for the NVLS pattern, in GB/s: returns (channels, bwIntra, bwInter)."""
    speeds = SM90_SPEED_ARRAY_INTER if nic > 0 else SM90_SPEED_ARRAY_INTRA
    last = len(speeds) - 1
    max_bw = nic if nic > 0 else link  # system->maxBw: best GPU->NET (or GPU->GPU) path
    total_bw = link  # system->totalBw: a GPU's NVLink total
    scaled_total = total_bw * gpus / (gpus - 1)  # non-ring patterns
    min_channels = gpus if nic == 0 else 1  # one node: "pull evenly from all GPUs"
    max_channels = gpus
    index = 0
    while (speeds[index] > max_bw or speeds[index] * min_channels > scaled_total) and index < last:
        index += 1
    tmp_intra = tmp_inter = speeds[index]
    saved = (0, 0.0, 0.0)  # the best graph so far: channels, bwIntra, bwInter
    pass_ = 1
    while True:
        # search: the channels found at the trial speeds, kept if better (ncclTopoCompareGraphs)
        found = _channels_that_fit(gpus, link, nic, tmp_intra, tmp_inter, max_channels)
        copied = found >= min_channels and (
            (found > saved[0] and found <= gpus) or found * tmp_inter > saved[0] * saved[2]
        )
        if copied:
            saved = (found, tmp_intra, tmp_inter)
        perfect = copied and found == max_channels  # the search's time = -1: stop lowering
        if pass_ == 1 and not perfect and saved[0] * saved[2] < total_bw:
            # first pass without an optimal graph: try the next lower speed
            if index < last and (saved[0] == 0 or speeds[index + 1] / saved[2] > 0.49):
                index += 1
                tmp_intra = tmp_inter = speeds[index]
                continue
        if pass_ == 1:
            # done: start pass 2 from the solution (ncclTopoDupChannels skips NVLS)
            pass_ = 2
            index = 0
            while speeds[index] > saved[2] and index < last:
                index += 1
            tmp_intra = tmp_inter = speeds[index]
            min_channels = max_channels = saved[0]
            if saved[0] == 0:
                return saved
        # pass 2: raise bwInter (NVLS), else bwIntra, while the last raise was kept
        if index > 0:
            if tmp_inter == saved[2] and tmp_inter < tmp_intra * 2:
                index -= 1
                tmp_inter = speeds[index]
                continue
            if tmp_intra == saved[1] and tmp_intra < tmp_inter * 2:
                index -= 1
                tmp_intra = speeds[index]
                continue
        return saved
