"""NCCL's own cost model, re-expressed from one NCCL version: how NCCL picks an algorithm.

**Pinned version: NCCL 2.21.5-1**, file ``src/graph/tuning.cc`` (functions ``ncclTopoTuneModel``
and ``ncclTopoGetAlgoTime``), with the selection loop ``topoGetAlgoInfo`` of ``src/enqueue.cc``
and constants of ``src/graph/topo.h`` / ``src/include/device.h``
(https://github.com/NVIDIA/nccl/tree/v2.21.5-1). That file's constant tables are copied as data
(:mod:`ccb_helpers.nccl_constants`); the formulas are rewritten here, not copied.

NCCL estimates, for each collective, algorithm and protocol, a latency ``lat`` (µs) and a
bandwidth ``bw`` (GB/s, GB = 10^9 bytes) once per communicator, and at each call takes

.. math:: t = \\text{lat} + \\frac{n_{\\text{bytes}}}{1000\\,\\text{bw}} \\quad [\\mu s]

(with a size-dependent correction for Tree, and ×1.4 on the ring latency of large multi-node
AllReduces), and runs the combination with the smallest ``t``. ``n_bytes`` is the book's ``M``
(for AllGather / ReduceScatter NCCL multiplies the per-rank count by the rank count).

How ``bw`` is made (per algorithm *a*, protocol *p*):

1. ``busBw = nChannels * bwPerChannel`` — the **topology search's output** (see below);
   ``bwIntra`` when the job has at most two nodes, ``bwInter`` beyond.
2. Protocol derating: Ring/LL ``min(0.5 busBw, llMaxBw)``, Ring/LL128 ``0.92 busBw`` (0.7 at
   fewer than 2 ranks per node, capped per channel), Tree ``0.92 busBw`` (capped per channel),
   Tree/LL further ``/3.8``, Tree/LL128 ``7/9`` on one node and ``120/128`` beyond, Tree with the
   simple ``TREE`` pattern ``×0.85``.
3. Bus → algorithm bandwidth: Ring ``× N / nsteps``, NVLS ``× 5/6``, Tree ``× 1/2``.

Latency: a base latency per algorithm × protocol plus per-hop hardware latencies per link type
(NVLink, PCI, network): Ring pays ``(nsteps − nInterSteps)`` intra-node hops and ``nInterSteps``
network hops (``nsteps = 2(N−1)`` for AllReduce, ``N−1`` for AllGather / ReduceScatter, ``N`` for
Broadcast / Reduce); Tree ``2((N/nNodes − 1) intra + log2(nNodes) inter)``; NVLS one intra hop
(+ one network hop); NVLS-Tree ``intra + 2 log2(nNodes) inter``.

**Inputs that stand for NCCL's topology search** (channels and bandwidth per channel of each
graph, link types, GPU generation …) are :class:`NcclTopology` fields, with two presets in
:data:`NCCL_TOPOLOGIES` (:mod:`ccb_helpers.nccl_topology`; its docstring says what they stand for).

Availability rules followed (``ncclTopoTuneModel``, ``topoGetAlgoInfo``, ``ncclNvlsInit``):
Broadcast and Reduce run Ring only; AllGather and ReduceScatter Ring and (one node) NVLS;
AllReduce Tree, Ring, NVLS (one node) and NVLS-Tree (several nodes). NVLS needs NVLS channels
(NVSwitch, Hopper) **and more than two GPUs per node** (``ncclNvlsInit`` returns when the node
has at most two). LL128 needs the ``ll128`` flag (NCCL's check of the NIC path and the GPU
generation) **and** an NVLink intra-node path (``typeIntra <= PATH_NVB``): with
``intra_link="pci"`` and more than one GPU per node it is off, as in NCCL. A communicator on one
node does not see the NICs (``ncclTopoTrimSystem`` removes them), so a multi-node preset names
the single-node preset NCCL's search would find instead (``single_node``).

**Simplified / left out**: CollNet (Direct, Chain) is not modelled (it needs the SHARP CollNet
plugin; NCCL disables it without one, and then also disables NVLS on several nodes — with the
plugin, NVLS runs across nodes too); tuner
plugins, ``NCCL_ALGO`` / ``NCCL_PROTO`` overrides, the Power-CPU tree latency tweak, the
CUDA 11.8 exclusion of LL128 (two ranks), the ring-bandwidth backup and the aggregation of
several operations (``numPipeOps = 1``) are left out; NVLS is assumed to support the call's data
type and operator (``ncclNvlsSupported``: sum or min/max on integer, half and bfloat16 types,
sum only on float and double); one intra-node link type, one ``latencyInter`` and one GPU
generation serve every graph (NCCL keeps them per graph); the communicator's channel count
is the ring graph's doubled (``NCCL_MIN_NCHANNELS`` etc. ignored); ranks are spread evenly over
the nodes. NCCL computes in single precision, this module in double (a tie between two
estimates could break differently).

The model is split by concept: NCCL's constant tables in :mod:`ccb_helpers.nccl_constants`, the
topology search's output in :mod:`ccb_helpers.nccl_topology`, the NVLS search in
:mod:`ccb_helpers.nccl_search`, the tuning model and the pick here (every public name of the
others is importable from this module too), the model next to the book's lower bound
(``nccl_vs_bound`` and friends) in :mod:`ccb_helpers.nccl_bound`.

**Validity**: "NCCL would pick X" means *NCCL 2.21.5's default tuner, for a topology search
that produced these graphs*. Other NCCL versions changed the tables (2.23 gave Tree/Simple a
base latency of 8.4 µs and cut its per-hop latencies from 28 µs to 4 / 4 / 14 µs, and added the
PAT algorithm for one GPU per node), a tuner plugin or ``NCCL_ALGO`` overrides the choice, and
the real search may find other channel counts: read them from an
``NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH,TUNING`` log and pass them as overrides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ._validation import check_choice, check_fields, check_int, check_real
from .nccl_constants import (  # noqa: F401  (re-exported: public names and tables stay importable from here)
    _GPU_ROW,
    _LABEL,
    _TREE_PATTERNS,
    BASE_LATENCY_US,
    HW_LATENCY_US,
    LL_MAX_BW,
    MAX_BYTES,
    MAX_RANKS,
    NCCL_ALGORITHMS,
    NCCL_COLLECTIVES,
    NCCL_MODEL_VERSION,
    NCCL_PROTOCOLS,
    NET_OVERHEAD_US,
    PER_CHANNEL_RING_LL128_BW,
    PER_CHANNEL_TREE_BW,
    PER_CHANNEL_TREE_LL128_BW,
    TREE_CORRECTION,
)
from .nccl_topology import (  # noqa: F401  (re-exported)
    _NVLS_FIELDS,
    NCCL_TOPOLOGIES,
    NcclTopology,
    _resolve_topology,
    _with_searched_nvls,
)

__all__ = [
    "NCCL_MODEL_VERSION",
    "NCCL_ALGORITHMS",
    "NCCL_PROTOCOLS",
    "NCCL_COLLECTIVES",
    "NcclTopology",
    "NCCL_TOPOLOGIES",
    "NcclPrediction",
    "nccl_predict",
    "nccl_tuning_table",
    "nccl_nvls_table",
]


@dataclass(frozen=True)
class NcclPrediction:
    """NCCL 2.21.5's estimates for one call and the combination it would run.

    Attributes
    ----------
    primitive : str
    n_ranks, n_nodes : int
    m : int
        Bytes (NCCL's ``nBytes``).
    topology : str
        Key of the :class:`NcclTopology` used.
    times : dict
        ``(algorithm, protocol) -> seconds`` for every combination NCCL considers here.
    latencies : dict
        ``(algorithm, protocol) -> seconds``: the model's latency term (before the ring plateau rule).
    bandwidths : dict
        ``(algorithm, protocol) -> bytes/s``: the model's algorithm bandwidth (before Tree's correction).
    algorithm, protocol : str
        NCCL's pick: the smallest time (NCCL's order breaks ties).
    time : float
        Seconds of the pick.
    version : str
        The NCCL version the model follows.
    """

    primitive: str
    n_ranks: int
    n_nodes: int
    m: int
    topology: str
    times: dict
    latencies: dict
    bandwidths: dict
    algorithm: str
    protocol: str
    time: float
    version: str = NCCL_MODEL_VERSION

    def __post_init__(self):
        check_fields(
            self,
            {
                "primitive": "str",
                "n_ranks": "int",
                "n_nodes": "int",
                "m": "int",
                "topology": "str",
                "algorithm": "str",
                "protocol": "str",
                "time": "real+inf",  # inf: no algorithm/protocol available
                "version": "str",
            },
        )
        for name in ("times", "latencies", "bandwidths"):
            if not isinstance(getattr(self, name), dict):
                raise TypeError(
                    f"{name} must be a dict of (algorithm, protocol) -> number, got {type(getattr(self, name)).__name__}"
                )

    @property
    def label(self) -> str:
        """``"Ring/LL"`` style name of the pick, as NCCL prints it."""
        return f"{_LABEL[self.algorithm]}/{self.protocol}"

    @property
    def bus_bandwidth(self) -> float:
        """The busbw nccl-tests would print for the predicted time, bytes/s."""
        from .bandwidth import volume_coefficient

        return volume_coefficient(self.primitive, self.n_ranks) * self.m / self.time if self.time > 0 else 0.0


def _log2i(n: int) -> int:
    return max(0, int(n).bit_length() - 1)


@lru_cache(maxsize=4096)
def _tuning(primitive: str, n_ranks: int, n_nodes: int, topo: NcclTopology):
    """NCCL's per-communicator (latency µs, bandwidth GB/s) per (algorithm, protocol) that it considers.

    Cached: NCCL too computes these once per communicator.
    """
    node_col = n_nodes - 1 if n_nodes <= 2 else 2
    gpu = topo.gpu
    if n_nodes == 1:
        ll_max = LL_MAX_BW[_GPU_ROW[gpu]][node_col]
    else:
        ll_max = LL_MAX_BW[1 if topo.cpu == "amd" else 0][node_col]
    per_ch_tree = PER_CHANNEL_TREE_BW[gpu][node_col]
    per_ch_ring_ll128 = PER_CHANNEL_RING_LL128_BW[gpu][node_col]
    per_ch_tree_ll128 = PER_CHANNEL_TREE_LL128_BW[gpu][node_col]
    ppn = n_ranks / n_nodes
    intra_hw = topo.intra_link
    if primitive == "all_reduce":
        nsteps, inter_steps = 2 * (n_ranks - 1), (2 * n_nodes if n_nodes > 1 else 0)
    elif primitive in ("all_gather", "reduce_scatter"):
        nsteps, inter_steps = n_ranks - 1, n_nodes - 1
    else:
        nsteps, inter_steps = n_ranks, n_nodes
    graphs = {
        "ring": (topo.ring_channels, topo.ring_bw_intra / 1e9, topo.ring_bw_inter / 1e9),
        "tree": (topo.tree_channels, topo.tree_bw_intra / 1e9, topo.tree_bw_inter / 1e9),
        "nvls": (topo.nvls_channels, topo.nvls_bw_intra / 1e9, topo.nvls_bw_inter / 1e9),
        "nvls_tree": (topo.nvls_channels, topo.nvls_bw_intra / 1e9, topo.nvls_bw_inter / 1e9),
    }
    allowed = {
        "broadcast": ("ring",),
        "reduce": ("ring",),
        "all_gather": ("ring", "nvls"),
        "reduce_scatter": ("ring", "nvls"),
        "all_reduce": ("tree", "ring", "nvls", "nvls_tree"),
    }[primitive]
    # Availability (topoGetAlgoInfo and the enable masks of ncclTopoTuneModel): NVLS needs NVLS
    # channels and more than two GPUs in the node (ncclNvlsInit: "gpuCount <= 2" returns without
    # NVLS); without CollNet, NVLS runs on one node only (and AllGather / ReduceScatter NVLS
    # too); NVLS-Tree runs on several nodes only.
    enabled = []
    for a in NCCL_ALGORITHMS:
        if a not in allowed:
            continue
        if a in ("nvls", "nvls_tree") and (topo.nvls_channels == 0 or n_ranks // n_nodes <= 2):
            continue
        if a == "nvls" and n_nodes > 1:
            continue
        if a == "nvls_tree" and n_nodes == 1:
            continue
        enabled.append(a)
    latency, bandwidth = {}, {}
    for a in enabled:
        channels, bw_intra, bw_inter = graphs[a]
        for pi, p in enumerate(NCCL_PROTOCOLS):
            if a in ("nvls", "nvls_tree") and p != "Simple":
                continue
            # LL128 by default only where NCCL's check passes: the ll128 flag (GPU generation, NIC
            # path) and typeIntra <= PATH_NVB (NVLink inside the node, or one GPU per node).
            if p == "LL128" and (not topo.ll128 or (intra_hw == "pci" and ppn > 1)):
                continue
            bw = bw_intra if n_nodes <= 2 else bw_inter
            if a == "nvls":
                bw = min(bw_intra, bw_inter)
            if a == "nvls_tree":
                bw = min(bw_intra, bw_inter if n_nodes <= 2 else bw_inter / 2)
            bus = channels * bw
            if a == "ring" and p == "LL":
                bus = min(ll_max, bus * 0.5)
            if a == "ring" and p == "LL128":
                bus = min(bus * (0.7 if ppn < 2 else 0.92), channels * per_ch_ring_ll128)
            if a == "tree":
                bus = min(bus * 0.92, channels * per_ch_tree)
            if a == "tree" and p == "LL":
                bus = min(bus / 3.8, ll_max)
            if a == "tree" and p == "LL128":
                bus = min(bus * (7.0 / 9.0 if n_nodes == 1 else 120.0 / 128.0), channels * per_ch_tree_ll128)
            if a == "tree" and topo.tree_pattern == "tree":
                bus *= 0.85
            ratio = n_ranks / nsteps if a == "ring" else (5.0 / 6.0 if a in ("nvls", "nvls_tree") else 0.5)
            bandwidth[a, p] = bus * ratio
            lat = BASE_LATENCY_US[a][pi]
            intra_lat = HW_LATENCY_US[intra_hw][a][pi]
            inter_lat = HW_LATENCY_US["net"][a][pi] + topo.latency_inter * 1e6
            if p == "Simple":
                inter_lat += topo.latency_inter * 1e6
            if a == "ring":
                hop = HW_LATENCY_US[intra_hw if n_nodes == 1 else "net"][a][pi]
                if primitive in ("broadcast", "reduce"):
                    if topo.ring_same_channels:
                        lat += hop
                    else:
                        if p == "Simple":
                            hop = HW_LATENCY_US[intra_hw if n_nodes == 1 else "net"]["tree"][pi]
                        lat += nsteps * hop
                else:
                    overhead = 0.0
                    if n_nodes > 1:
                        overhead = NET_OVERHEAD_US[topo.cpu] * (3 if p == "Simple" else 1)
                    intra_lat = max(intra_lat, overhead)
                    lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat
            elif a == "tree":
                lat += 2 * ((n_ranks // n_nodes - 1) * intra_lat + _log2i(n_nodes) * inter_lat)
            elif a == "nvls":
                lat = intra_lat + (inter_lat if n_nodes > 1 else 0.0)
            elif a == "nvls_tree":
                lat += intra_lat + 2 * _log2i(n_nodes) * inter_lat
            if bandwidth[a, p] <= 0:  # NCCL: bandwidth 0 means "not available" (time -1)
                del bandwidth[a, p]
                continue
            latency[a, p] = lat
    return latency, bandwidth


def _algo_time_us(primitive, n_ranks, n_nodes, m, topo, a, p, lat, bw):
    """ncclTopoGetAlgoTime: µs for ``m`` bytes."""
    log_size = _log2i(m >> 6)
    if a == "tree" and log_size < 23:
        bw *= TREE_CORRECTION[p][log_size]
    if (
        a == "ring"
        and p == "Simple"
        and n_nodes > 1
        and primitive == "all_reduce"
        and m // (topo.channels * n_ranks) >= 64
    ):
        lat *= 1.9 if topo.gpu == "volta" else 1.4  # "plateau effect of ring"
    return lat + m / (1000.0 * bw) if bw > 0 else math.inf


def _check_call(primitive, n_ranks, n_nodes, m):
    primitive = check_choice("primitive", primitive, NCCL_COLLECTIVES)
    n_ranks = check_int("n_ranks", n_ranks, minimum=2, maximum=MAX_RANKS, scalar=True)
    n_nodes = check_int("n_nodes", n_nodes, minimum=1, maximum=n_ranks, scalar=True)
    m = check_real("m", m, scalar=True)
    if m > MAX_BYTES:
        raise ValueError(f"m must be <= {MAX_BYTES} bytes (2**50), got {m}")
    if m != int(m):
        raise ValueError(f"m must be a whole number of bytes (NCCL's nBytes), got {m}")
    return primitive, n_ranks, n_nodes, int(m)


def nccl_predict(primitive, n_ranks, n_nodes, m, topology="dgx_h100", **overrides) -> NcclPrediction:
    """NCCL 2.21.5's time estimate per algorithm × protocol, and the one it would pick.

    Follows ``ncclTopoTuneModel`` / ``ncclTopoGetAlgoTime`` (``src/graph/tuning.cc``) and the
    minimum search of ``topoGetAlgoInfo`` (``src/enqueue.cc``) of NCCL 2.21.5-1; see the module
    docstring for what is simplified.

    Parameters
    ----------
    primitive : str
        One of :data:`NCCL_COLLECTIVES` (``"all_reduce"``, ``"all_gather"``,
        ``"reduce_scatter"``, ``"broadcast"``, ``"reduce"``).
    n_ranks : int
        Ranks (GPUs), ``2 <= n_ranks <= 2**20``.
    n_nodes : int
        Nodes they are spread over, ``1 <= n_nodes <= n_ranks``.
    m : int
        Bytes (the book's ``M``; NCCL's ``nBytes``), ``0 <= m <= 2**50``.
    topology : str or NcclTopology, default ``"dgx_h100"``
        A key of :data:`NCCL_TOPOLOGIES` or an :class:`NcclTopology`: the topology search's output.
    **overrides
        Fields of :class:`NcclTopology` to replace (e.g. ``ring_channels=4``).

    Returns
    -------
    NcclPrediction

    Raises
    ------
    ValueError
        Arguments out of range, or no algorithm × protocol available (every bandwidth 0: NCCL
        fails with "no algorithm/protocol available").

    Examples
    --------
    8 H100 in one node: NCCL's model picks Ring/LL for 1 KiB (15 µs of latency) and NVLS for
    1 GiB (25 µs + 2**30 B / (8 channels × 40 GB/s × 5/6)); on 4 GPUs NVLS is slower than the
    rings (its search finds 4 × 60 GB/s) and never picked:

    >>> nccl_predict("all_reduce", 8, 1, 1024).label
    'Ring/LL'
    >>> p = nccl_predict("all_reduce", 8, 1, 2**30)
    >>> p.label, round(p.time * 1e3, 3)
    ('NVLS/Simple', 4.052)
    >>> nccl_predict("all_reduce", 4, 1, 2**30).label
    'Ring/Simple'
    """
    primitive, n_ranks, n_nodes, m = _check_call(primitive, n_ranks, n_nodes, m)
    topo = _resolve_topology(topology, overrides, n_nodes, n_ranks // n_nodes)
    return _predict(primitive, n_ranks, n_nodes, m, topo)


def _predict(primitive, n_ranks, n_nodes, m, topo) -> NcclPrediction:
    latency, bandwidth = _tuning(primitive, n_ranks, n_nodes, topo)
    times = {}
    best, best_time = None, math.inf
    for key in latency:
        t = _algo_time_us(primitive, n_ranks, n_nodes, m, topo, key[0], key[1], latency[key], bandwidth[key])
        times[key] = t * 1e-6
        if t < best_time:
            best, best_time = key, t
    if best is None:
        raise ValueError(
            f"no algorithm/protocol available for {primitive} on {n_ranks} ranks, {n_nodes} node(s) "
            f"with topology {topo.key!r} (every bandwidth is 0)"
        )
    return NcclPrediction(
        primitive=primitive,
        n_ranks=n_ranks,
        n_nodes=n_nodes,
        m=m,
        topology=topo.key,
        times=times,
        latencies={k: v * 1e-6 for k, v in latency.items()},
        bandwidths={k: v * 1e9 for k, v in bandwidth.items()},
        algorithm=best[0],
        protocol=best[1],
        time=best_time * 1e-6,
    )


def nccl_tuning_table(primitive, n_ranks, n_nodes, topology="dgx_h100", **overrides):
    """NCCL's per-communicator estimates, as its ``NCCL_DEBUG_SUBSYS=TUNING`` table prints them.

    One row per algorithm × protocol NCCL considers: latency (µs) and algorithm bandwidth (GB/s).

    >>> t = nccl_tuning_table("all_reduce", 8, 1)
    >>> t.rows[0]
    ['Tree', 'LL', '15.2', '43.6']
    """
    from .tables import Table

    primitive, n_ranks, n_nodes, _ = _check_call(primitive, n_ranks, n_nodes, 0)
    topo = _resolve_topology(topology, overrides, n_nodes, n_ranks // n_nodes)
    latency, bandwidth = _tuning(primitive, n_ranks, n_nodes, topo)
    rows, values = [], []
    for (a, p), lat in latency.items():
        rows.append([_LABEL[a], p, f"{lat:.1f}", f"{bandwidth[a, p]:.1f}"])
        values.append((a, p, lat * 1e-6, bandwidth[a, p] * 1e9))
    caption = f"NCCL {NCCL_MODEL_VERSION} 的估计：{primitive}，{n_ranks} 个 rank，{n_nodes} 个节点，{topo.label}"
    return Table(["算法", "协议", "延迟 (µs)", "带宽 (GB/s)"], rows, caption, values)


def nccl_nvls_table(gpu_counts=range(3, 9), topology="dgx_h100"):
    """The NVLS graph NCCL's search finds for each GPU count on one node, and what it buys.

    Columns: N; the graph (channels × bwIntra/bwInter, GB/s); the load the search puts on each
    GPU's NVSwitch link, ``(N + 1) bwIntra`` (one channel per GPU, the head charged twice),
    against the link, and the load at the next faster speed, which did not fit; the AllReduce algorithm bandwidths (GB/s) of NVLS, Ring/LL128 and
    Ring/Simple from :func:`nccl_tuning_table`; and the combination NCCL picks for 1 GiB.

    Parameters
    ----------
    gpu_counts : iterable of int
        GPUs on the node, each ``3 <= N <= 32`` (at most 30 values).
    topology : str or NcclTopology, default ``"dgx_h100"``
        A topology that gives its NVSwitch link (``nvswitch_bw > 0``).

    Examples
    --------
    >>> t = nccl_nvls_table([4, 8])
    >>> [row[1] for row in t.rows], [row[3] for row in t.rows], [row[-1] for row in t.rows]
    (['4 × 60/60', '8 × 40/60'], ['200.0', '266.7'], ['Ring/Simple', 'NVLS/Simple'])
    """
    from .nccl_search import MAX_GPUS, SM90_SPEED_ARRAY_INTRA
    from .tables import Table

    topo = _resolve_topology(topology, {}, 1)
    if topo.nvswitch_bw <= 0:
        raise ValueError(
            f"topology {topo.key!r} gives no NVSwitch link (nvswitch_bw = 0): there is no NVLS search to show"
        )
    if isinstance(gpu_counts, (str, bytes)) or not hasattr(gpu_counts, "__iter__"):
        raise TypeError(f"gpu_counts must be an iterable of GPU counts, got {type(gpu_counts).__name__}")
    if getattr(gpu_counts, "ndim", 1) != 1:  # a 0-d numpy array has __iter__ but cannot be iterated (#28)
        raise TypeError(f"gpu_counts must be one-dimensional, got shape {getattr(gpu_counts, 'shape', '?')}")
    counts = []
    for i, n in enumerate(gpu_counts):
        if i == 30:
            raise ValueError("gpu_counts must hold at most 30 values")
        counts.append(check_int(f"gpu_counts[{i}]", n, minimum=3, maximum=MAX_GPUS, scalar=True))
    if not counts:
        raise ValueError("gpu_counts must hold at least one GPU count")
    link = topo.nvswitch_bw
    rows, values = [], []
    for n in counts:
        searched = _resolve_topology(topo, {}, 1, n)
        _, bandwidth = _tuning("all_reduce", n, 1, searched)
        algbw = [bandwidth.get(key, 0.0) for key in (("nvls", "Simple"), ("ring", "LL128"), ("ring", "Simple"))]
        load = (n + 1) * searched.nvls_bw_intra
        pick = _predict("all_reduce", n, 1, 2**30, searched).label
        faster = [speed for speed in SM90_SPEED_ARRAY_INTRA if speed * 1e9 > searched.nvls_bw_intra]
        refused = f"（{faster[-1]:g} 时 {(n + 1) * faster[-1]:g} >）" if faster else ""  # the next speed up did not fit
        rows.append(
            [
                str(n),
                f"{searched.nvls_channels} × {searched.nvls_bw_intra / 1e9:g}/{searched.nvls_bw_inter / 1e9:g}",
                f"{load / 1e9:g} ≤ {link / 1e9:g}{refused}",
                *(f"{bw:.1f}" for bw in algbw),
                pick,
            ]
        )
        values.append(
            {
                "n": n,
                "channels": searched.nvls_channels,
                "bw_intra": searched.nvls_bw_intra,
                "bw_inter": searched.nvls_bw_inter,
                "link_load": load,
                "nvls": algbw[0] * 1e9,
                "ring_ll128": algbw[1] * 1e9,
                "ring_simple": algbw[2] * 1e9,
                "pick_1GiB": pick,
            }
        )
    headers = ["N", "NVLS 图（GB/s）", "每条链路 (N+1)·bwIntra", "NVLS", "Ring/LL128", "Ring/Simple", "1 GiB 时的选择"]
    caption = (
        f"NCCL {NCCL_MODEL_VERSION} 为 N 块 GPU 搜索 NVLS 图（{topo.label}）：每个通道在每块 GPU 的链路上记一次、"
        "在头 GPU 上记两次；后三列是 AllReduce 的算法带宽（GB/s）"
    )
    return Table(headers, rows, caption, values)
