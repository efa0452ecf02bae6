"""NCCL 2.21.5-1's constant tables of its tuning model, copied as data (µs and GB/s).

From ``src/graph/tuning.cc`` (``baseLat``, ``hwLat``, ``llMaxBws``, the per-channel caps,
``treeCorrectionFactor``, ``getNetOverhead``) of https://github.com/NVIDIA/nccl/tree/v2.21.5-1;
the formulas that use them are in :mod:`ccb_helpers.nccl_model`.
"""

from __future__ import annotations

NCCL_MODEL_VERSION = "2.21.5-1"
#: NCCL's algorithms, in NCCL's order (the order breaks ties).
NCCL_ALGORITHMS = ("tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree")
#: NCCL's protocols, in NCCL's order.
NCCL_PROTOCOLS = ("LL", "LL128", "Simple")
#: The collectives NCCL's tuner models (AllToAll, Scatter, Gather are point-to-point in NCCL).
NCCL_COLLECTIVES = ("broadcast", "reduce", "all_gather", "reduce_scatter", "all_reduce")

_LABEL = {
    "tree": "Tree",
    "ring": "Ring",
    "collnet_direct": "CollNetDirect",
    "collnet_chain": "CollNetChain",
    "nvls": "NVLS",
    "nvls_tree": "NVLSTree",
}

# --- constants of src/graph/tuning.cc, NCCL 2.21.5-1 (µs and GB/s) -----------------------------
#: ``baseLat``: base latency per algorithm, per protocol (LL, LL128, Simple), µs.
BASE_LATENCY_US = {
    "tree": (6.8, 14.0, 0.0),
    "ring": (6.6, 14.0, 8.4),
    "collnet_direct": (0.0, 0.0, 0.0),
    "collnet_chain": (0.0, 0.0, 0.0),
    "nvls": (0.0, 0.0, 0.0),
    "nvls_tree": (0.0, 0.0, 0.0),
}
#: ``hwLat``: latency per hop by link type (NVLink, PCI, network), algorithm and protocol, µs.
HW_LATENCY_US = {
    "nvlink": {
        "tree": (0.6, 1.25, 28.0),
        "ring": (0.6, 1.9, 3.4),
        "collnet_direct": (0.0, 0.0, 3.7),
        "collnet_chain": (0.0, 0.0, 2.8),
        "nvls": (0.0, 0.0, 25.0),
        "nvls_tree": (0.0, 0.0, 25.0),
    },
    "pci": {
        "tree": (1.0, 1.9, 28.0),
        "ring": (1.0, 2.5, 5.7),
        "collnet_direct": (0.0, 0.0, 3.7),
        "collnet_chain": (0.0, 0.0, 2.8),
        "nvls": (0.0, 0.0, 0.0),
        "nvls_tree": (0.0, 0.0, 0.0),
    },
    "net": {
        "tree": (5.0, 8.5, 28.0),
        "ring": (2.7, 4.0, 14.0),
        "collnet_direct": (0.0, 0.0, 31.0),
        "collnet_chain": (0.0, 0.0, 30.0),
        "nvls": (0.0, 0.0, 18.0),
        "nvls_tree": (0.0, 0.0, 14.0),
    },
}
#: ``llMaxBws``: LL bandwidth cap, GB/s. Rows: one node by GPU (volta, ampere, hopper); several
#: nodes by CPU (row 0 Intel, row 1 AMD). Columns: 1 node, 2 nodes, more.
LL_MAX_BW = ((39.0, 39.0, 20.4), (87.7, 22.5, 19.0), (141.0, 45.0, 35.0))
#: ``perChMaxRingLL128Bws``, ``perChMaxTreeLL128Bws``, ``perChMaxTreeBws``: per-channel caps,
#: GB/s, by GPU generation; columns 1 node, 2 nodes, more.
PER_CHANNEL_RING_LL128_BW = {"volta": (20.0, 20.0, 20.0), "ampere": (20.0, 20.0, 20.0), "hopper": (36.7, 36.7, 36.7)}
PER_CHANNEL_TREE_LL128_BW = {"volta": (20.0, 20.0, 20.0), "ampere": (20.0, 20.0, 20.0), "hopper": (36.7, 36.7, 29.0)}
PER_CHANNEL_TREE_BW = {"volta": (26.5, 18.5, 10.0), "ampere": (24.0, 23.6, 17.8), "hopper": (38.7, 41.4, 36.0)}
#: ``treeCorrectionFactor``: Tree bandwidth multiplier per protocol, indexed by
#: ``floor(log2(n_bytes / 64))`` (64 B … 256 MiB; 1 beyond).
# fmt: off
TREE_CORRECTION = {
    "LL": (1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0),
    "LL128": (1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9, 1.0, 1.0),
    "Simple": (0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9),
}
# fmt: on
#: ``getNetOverhead``: network post overhead per ring step on several nodes, µs (×3 for Simple).
NET_OVERHEAD_US = {"intel": 1.0, "amd": 2.0, "other": 1.0}
_GPU_ROW = {"volta": 0, "ampere": 1, "hopper": 2}
_TREE_PATTERNS = ("balanced_tree", "split_tree", "tree")

#: Largest communicator and message the model accepts (the arithmetic is O(1); the caps keep
#: inputs physical).
MAX_RANKS = 2**20
MAX_BYTES = 2**50
