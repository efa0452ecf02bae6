"""Timing a schedule in the two-level α-β model (chapter 9, ``eq:cc-two-level-round``).

A round of a schedule on :func:`ccb_helpers.two_level` hardware costs ``α_n`` if any message
crosses the network (``α_f`` otherwise) plus its busiest resource: a GPU's NVLink bytes (sent or
received inside its node; with one NIC per node also what it sends to or gets from the NIC
through its link into the switch) over ``β_f``, or a NIC's bytes (its own GPU's, or the node's sum with
one NIC per node) over ``β_n``. NVLink and NICs work at the same time. The lower bound of the
same model is :func:`ccb_helpers.two_level_lower_bound`.
"""

from __future__ import annotations

import numpy as np

from .schedule import Schedule
from .simulator import SimulationResult
from .two_level_network import TwoLevelHardware, TwoLevelTopology, check_two_level

__all__ = ["two_level_time", "two_level_round_costs"]


def _round_costs(schedule, topology: TwoLevelTopology, hardware: TwoLevelHardware) -> np.ndarray:
    n, g = topology.n, topology.gpus_per_node
    costs = np.zeros(len(schedule.rounds))
    for i, r in enumerate(schedule.rounds):
        remote = r.src != r.dst
        if not np.any(remote):
            costs[i] = hardware.fabric_alpha  # a round without messages still pays its start-up (as in the simulator)
            continue
        src, dst, length = r.src[remote], r.dst[remote], r.length[remote].astype(float)
        inter = (src // g) != (dst // g)
        on_link = length if topology.nic == "node" else np.where(inter, 0.0, length)  # see _round_load
        intra_load = max(
            np.bincount(src, weights=on_link, minlength=n).max(),
            np.bincount(dst, weights=on_link, minlength=n).max(),
        )
        owner_src, owner_dst = (src, dst) if topology.nic == "gpu" else (src // g, dst // g)
        w = np.where(inter, length, 0.0)
        nic_load = max(np.bincount(owner_src, weights=w).max(), np.bincount(owner_dst, weights=w).max())
        alpha = hardware.nic_alpha if np.any(inter) else hardware.fabric_alpha
        costs[i] = alpha + max(intra_load / hardware.fabric_beta, nic_load / hardware.nic_beta)
    return costs


def two_level_round_costs(result, topology, hardware) -> np.ndarray:
    """Seconds of each round of a run (a :class:`~ccb_helpers.simulator.SimulationResult` or a
    :class:`~ccb_helpers.schedule.Schedule`) in the two-level model (see :func:`two_level_time`)."""
    topology = check_two_level(topology)
    if not isinstance(hardware, TwoLevelHardware):
        raise TypeError(f"hardware must be a TwoLevelHardware, got {type(hardware).__name__}")
    schedule = result.schedule if isinstance(result, SimulationResult) else result
    if not isinstance(schedule, Schedule):
        raise TypeError(f"result must be a SimulationResult or a Schedule, got {type(result).__name__}")
    if schedule.n != topology.n:
        raise ValueError(f"the schedule has n={schedule.n} but the topology has {topology.n} GPUs")
    return _round_costs(schedule, topology, hardware)


def two_level_time(result, topology, hardware) -> float:
    """Seconds of a run in the two-level α-β model.

    Each round costs ``nic_alpha`` if a message crosses the network (else ``fabric_alpha``) plus
    the busiest resource: a GPU's NVLink bytes (sent or received inside its node; with one NIC per
    node also its network bytes, which reach the NIC through that link) over ``fabric_beta``, or a NIC's bytes (one NIC per GPU, or the node's sum) over ``nic_beta``.
    NVLink and NIC work at the same time.

    Examples
    --------
    A flat ring AllReduce on 2 nodes x 4 GPUs: two of its eight ring links cross the network.

    >>> from ccb_helpers.simulator import simulate
    >>> from ccb_helpers.two_level_network import two_level
    >>> t = two_level(2, 4)
    >>> hw = TwoLevelHardware(1e-6, 400e9, 3e-6, 50e9)
    >>> r = simulate("ring", "all_reduce", 8, 8 * 2**20, topology=t)
    >>> round(two_level_time(r, t, hw) * 1e6, 1)     # 14 rounds of 1 MiB over one 50 GB/s NIC
    335.6
    """
    return float(two_level_round_costs(result, topology, hardware).sum())
