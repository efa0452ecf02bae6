"""Which AllReduce is closest to the two-level bound, at every N and M: the map of chapter 9.

Every algorithm is timed in the two-level model (:mod:`ccb_helpers.two_level_model`) from its
real rounds: the schedule is generated once per (algorithm, node shape, chunk count) at a size
``M_ref`` where every block is whole, and each round is reduced to its *profile* — whether a
message crosses the network, and the busiest GPU's NVLink bytes and the busiest NIC's bytes as
fractions of ``M``. A round of ``M`` bytes then costs ``α + max(f M / β_f, g M / β_n)``, exactly
what :func:`ccb_helpers.two_level_time` gives for the generated schedule at ``M_ref`` (the tests
check it) and, for other sizes, the same schedule with blocks scaled. Pipelined trees take the
best chunk count of :data:`CHUNK_CHOICES` at each size.

:func:`two_level_map` compares the candidates with :func:`ccb_helpers.two_level_lower_bound`
over a grid of node counts and sizes: the winner, and how far it is from the bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ._validation import check_array, check_cap, check_choice, check_int, check_sequence, check_size
from .generators import generate, hierarchical_schedule, swing_schedule
from .two_level_network import TwoLevelHardware, check_two_level, two_level, two_level_lower_bound

__all__ = [
    "TWO_LEVEL_CANDIDATES",
    "CHUNK_CHOICES",
    "RoundProfile",
    "round_profile",
    "two_level_times",
    "two_level_map",
    "TwoLevelMap",
]

#: AllReduce algorithms the map compares (flat ones see the GPUs as one list of N ranks).
TWO_LEVEL_CANDIDATES = (
    "ring",
    "recursive_doubling",
    "recursive_halving_doubling",
    "swing",
    "double_binary_tree",
    "hierarchical_ring",
    "two_level_tree",
)
#: Chunk counts tried for the pipelined trees (double binary tree, two-level tree) and, with two
#: ports, for the pipelined hierarchical ring.
CHUNK_CHOICES = (1, 4, 16, 64)
_CHUNKED = ("double_binary_tree", "two_level_tree")
#: With ports >= 2 the hierarchical ring overlaps its parts (NVLink and NIC in the same round).
PIPELINE_CHOICES = (1, 2, 4, 8, 16)
#: Most GPUs of a profiled topology (schedules of up to ~2**20 transfers).
MAX_MAP_GPUS = 512


@dataclass(frozen=True)
class RoundProfile:
    """Per round: ``network`` (a message crosses nodes), ``fabric`` and ``nic`` (busiest bytes / M)."""

    network: np.ndarray
    fabric: np.ndarray
    nic: np.ndarray

    def __post_init__(self):
        check_array("RoundProfile.network", self.network, ndim=1, kind="bool")
        for name in ("fabric", "nic"):  # fractions of M on the busiest link: finite, >= 0
            check_array(f"RoundProfile.{name}", getattr(self, name), ndim=1)
        if not self.network.shape == self.fabric.shape == self.nic.shape:
            raise ValueError(
                "RoundProfile.network, fabric and nic must have one entry per round each, got shapes "
                f"{self.network.shape}, {self.fabric.shape}, {self.nic.shape}"
            )

    def time(self, m, hardware: TwoLevelHardware):
        """Seconds for ``m`` bytes (scalar or array) in the two-level model."""
        m = np.asarray(m, dtype=float)[..., None]
        alpha = np.where(self.network, hardware.nic_alpha, hardware.fabric_alpha)
        load = np.maximum(self.fabric * m / hardware.fabric_beta, self.nic * m / hardware.nic_beta)
        return (alpha + load).sum(axis=-1)


def _schedule(algorithm, nodes, g, nic, chunks, m):
    topology = two_level(nodes, g, nic)
    n = topology.n
    if algorithm in ("hierarchical_ring", "two_level_tree"):
        return hierarchical_schedule(algorithm, topology, m, chunks=chunks), topology
    if algorithm == "swing":
        return swing_schedule(n, m), topology
    if algorithm == "double_binary_tree":
        return generate(algorithm, "all_reduce", n, m, chunks=chunks), topology
    return generate(algorithm, "all_reduce", n, m), topology


@lru_cache(maxsize=512)
def _profile(algorithm: str, nodes: int, g: int, nic: str, chunks) -> RoundProfile:
    n = nodes * g
    p = 1 << (n.bit_length() - 1)
    m_ref = math.lcm(n, p, 2 * (chunks or 1) * g * nodes) * 8
    schedule, topology = _schedule(algorithm, nodes, g, nic, chunks, m_ref)
    rounds = len(schedule.rounds)
    sizes = [len(r) for r in schedule.rounds]
    which = np.repeat(np.arange(rounds), sizes)
    if which.size == 0:
        empty = np.zeros(rounds)
        return RoundProfile(np.zeros(rounds, dtype=bool), empty, empty.copy())
    src = np.concatenate([r.src for r in schedule.rounds])
    dst = np.concatenate([r.dst for r in schedule.rounds])
    length = np.concatenate([r.length for r in schedule.rounds]).astype(float)
    remote = src != dst
    which, src, dst, length = which[remote], src[remote], dst[remote], length[remote]
    inter = (src // g) != (dst // g)
    w_in = length if nic == "node" else np.where(inter, 0.0, length)  # as two_level_time
    w_out = np.where(inter, length, 0.0)
    owners = n if nic == "gpu" else nodes
    owner_src, owner_dst = (src, dst) if nic == "gpu" else (src // g, dst // g)

    def busiest(key, weights, width):
        return np.bincount(which * width + key, weights=weights, minlength=rounds * width).reshape(rounds, width).max(1)

    fabric = np.maximum(busiest(src, w_in, n), busiest(dst, w_in, n)) / m_ref
    nic_load = np.maximum(busiest(owner_src, w_out, owners), busiest(owner_dst, w_out, owners)) / m_ref
    network = np.bincount(which, weights=inter.astype(float), minlength=rounds) > 0
    return RoundProfile(network, fabric, nic_load)


def round_profile(algorithm, topology, chunks=None) -> RoundProfile:
    """The :class:`RoundProfile` of an AllReduce algorithm of :data:`TWO_LEVEL_CANDIDATES` on a
    :func:`ccb_helpers.two_level` topology (``chunks`` for the pipelined trees, default 1).

    >>> import ccb_helpers as ccb
    >>> p = round_profile("hierarchical_ring", ccb.two_level(2, 4))
    >>> p.network.tolist(), p.fabric.tolist()[:3], p.nic.tolist()[3:5]
    ([False, False, False, True, True, False, False, False], [0.25, 0.25, 0.25], [0.125, 0.125])
    """
    algorithm = check_choice("algorithm", algorithm, TWO_LEVEL_CANDIDATES)
    topology = check_two_level(topology)
    check_cap("topology: GPUs of a profiled schedule", topology.n, MAX_MAP_GPUS)
    if algorithm in _CHUNKED or (algorithm == "hierarchical_ring" and chunks is not None):
        chunks = check_int("chunks", 1 if chunks is None else chunks, minimum=1, maximum=256, scalar=True)
    elif chunks is not None:
        raise ValueError(f"chunks applies only to {', '.join(_CHUNKED)} and hierarchical_ring")
    return _profile(algorithm, topology.nodes, topology.gpus_per_node, topology.nic, chunks)


def two_level_times(topology, m, hardware, algorithms=TWO_LEVEL_CANDIDATES, ports=1) -> dict:
    """Seconds of each AllReduce of ``algorithms`` on ``topology`` for sizes ``m`` (scalar or 1-d array).

    Pipelined trees take the best chunk count of :data:`CHUNK_CHOICES` at each size; with
    ``ports >= 2`` the hierarchical ring may overlap its parts (best of :data:`PIPELINE_CHOICES`).

    >>> import ccb_helpers as ccb
    >>> t = two_level_times(ccb.two_level(2, 8), 2**30, ccb.two_level_hardware())
    >>> min(t, key=t.get), round(t["hierarchical_ring"] * 1e3, 3)
    ('hierarchical_ring', 6.88)
    """
    topology = check_two_level(topology)
    m = check_size("m", m)
    if not isinstance(hardware, TwoLevelHardware):
        raise TypeError(f"hardware must be a TwoLevelHardware, got {type(hardware).__name__}")
    algorithms = [
        check_choice("algorithms", a, TWO_LEVEL_CANDIDATES)
        for a in check_sequence("algorithms", algorithms, max_length=16)
    ]
    if np.ndim(m) > 1:
        raise ValueError(f"m must be a scalar or a 1-d array of sizes, got shape {np.shape(m)}")
    check_cap("m: sizes", np.size(m), 4096)
    ports = check_int("ports", ports, minimum=1, maximum=2, scalar=True)
    out = {}
    for name in algorithms:
        choices = CHUNK_CHOICES if name in _CHUNKED else (None,)
        if name == "hierarchical_ring" and ports >= 2:
            choices = PIPELINE_CHOICES
        times = [round_profile(name, topology, c).time(m, hardware) for c in choices]
        best = np.min(np.stack(times), axis=0)
        out[name] = float(best) if np.ndim(best) == 0 else best
    return out


@dataclass(frozen=True)
class TwoLevelMap:
    """The map: ``nodes`` x ``sizes`` grid, per cell the winner, its time, the bound and their ratio."""

    nodes: tuple
    sizes: np.ndarray
    winner: np.ndarray
    best: np.ndarray
    bound: np.ndarray
    times: dict

    def __post_init__(self):
        if not isinstance(self.nodes, tuple):
            raise TypeError(f"TwoLevelMap.nodes must be a tuple of node counts, got {type(self.nodes).__name__}")
        for i, k in enumerate(self.nodes):
            check_int(f"TwoLevelMap.nodes[{i}]", k, minimum=1, scalar=True)
        check_array("TwoLevelMap.sizes", self.sizes, ndim=1)
        grid = (len(self.nodes), self.sizes.size)
        for name, kind in (("winner", "str"), ("best", "real"), ("bound", "real")):
            value = check_array(f"TwoLevelMap.{name}", getattr(self, name), ndim=2, kind=kind)
            if value.shape != grid:
                raise ValueError(f"TwoLevelMap.{name} must have shape (nodes, sizes) = {grid}, got {value.shape}")
        if not isinstance(self.times, dict) or set(self.times) != set(self.nodes):
            raise TypeError("TwoLevelMap.times must be a dict with one entry per node count of TwoLevelMap.nodes")
        for k, per in self.times.items():
            if not isinstance(per, dict):
                raise TypeError(
                    f"TwoLevelMap.times[{k}] must be a dict of algorithm -> times, got {type(per).__name__}"
                )
            for name, value in per.items():
                value = check_array(f"TwoLevelMap.times[{k}][{name!r}]", np.atleast_1d(value), ndim=1)
                if value.shape != self.sizes.shape:
                    raise ValueError(f"TwoLevelMap.times[{k}][{name!r}] must have one time per size, got {value.shape}")

    @property
    def ratio(self) -> np.ndarray:
        """Best time over the lower bound (1 = on the bound)."""
        return self.best / self.bound


def two_level_map(
    nodes, gpus_per_node, sizes, hardware, nic="gpu", algorithms=TWO_LEVEL_CANDIDATES, ports=1
) -> TwoLevelMap:
    """For every node count and size: the fastest AllReduce on two-level hardware and its distance to the bound.

    Parameters
    ----------
    nodes : sequence of int
        Node counts ``K`` (at most 32 of them); ``K G <= 512``.
    gpus_per_node : int
        ``G``.
    sizes : sequence of float
        Bytes ``M`` (at most 256 sizes).
    hardware : TwoLevelHardware
    nic : {"gpu", "node"}
    algorithms : sequence of str
        Candidates (default :data:`TWO_LEVEL_CANDIDATES`).
    ports : {1, 2}
        Messages per GPU per round: 1 (the bound with NVLink and NIC in turn), or 2 (at once; the
        hierarchical ring may then overlap its parts).

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> mp = two_level_map([2, 4], 8, [2**10, 2**30], ccb.two_level_hardware())
    >>> mp.winner.tolist()
    [['recursive_doubling', 'hierarchical_ring'], ['recursive_doubling', 'hierarchical_ring']]
    """
    nodes = tuple(
        check_int("nodes", k, minimum=1, maximum=MAX_MAP_GPUS, scalar=True)
        for k in check_sequence("nodes", nodes, max_length=32)
    )
    g = check_int("gpus_per_node", gpus_per_node, minimum=1, maximum=MAX_MAP_GPUS, scalar=True)
    sizes = np.array([check_size("sizes", s, scalar=True) for s in check_sequence("sizes", sizes, max_length=256)])
    nic = check_choice("nic", nic, ("gpu", "node"))
    winner = np.empty((len(nodes), sizes.size), dtype=object)
    best = np.empty((len(nodes), sizes.size))
    bound = np.empty((len(nodes), sizes.size))
    times = {}
    for i, k in enumerate(nodes):
        check_cap(f"nodes: {k} nodes of {g} GPUs", k * g, MAX_MAP_GPUS)
        topology = two_level(k, g, nic)
        per = two_level_times(topology, sizes, hardware, algorithms, ports)
        names = list(per)
        stack = np.stack([np.atleast_1d(per[a]) for a in names])
        pick = np.argmin(stack, axis=0)  # ties: the first listed
        winner[i] = [names[j] for j in pick]
        best[i] = stack[pick, np.arange(sizes.size)]
        bound[i] = [two_level_lower_bound("all_reduce", topology, float(s), hardware, ports).total for s in sizes]
        times[k] = per
    return TwoLevelMap(nodes, sizes, winner.astype(str), best, bound, times)
