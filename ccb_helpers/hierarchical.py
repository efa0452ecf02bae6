"""Hierarchical (two-level) AllReduce as runnable rounds: rings inside nodes, rings or trees between them.

Both algorithms split the work the way NCCL and Horovod's hierarchical mode do on GPUs in nodes
(:func:`ccb_helpers.two_level`): a **reduce-scatter inside every node** (a ring over its ``G``
GPUs: GPU ``g`` of each node ends with shard ``g`` of the node's sum), an **AllReduce of each
shard between nodes** over the GPUs with the same local index ``g`` — one "rail" per ``g``, so
every GPU's NIC works — and an **all-gather inside every node**.

* ``"hierarchical_ring"`` (the 2-D ring, "tree of rings" of NCCL's early multi-node rings): the
  inter-node AllReduce is a ring over the ``K`` nodes.
  ``2(G-1) + 2(K-1)`` rounds; per GPU ``2(G-1)/G M`` over NVLink and ``2(K-1)/(K G) M`` over its NIC.
* ``"two_level_tree"`` (NCCL's intra/inter split with trees between nodes): the inter-node
  AllReduce is NCCL's double binary tree over the ``K`` nodes, pipelined in ``chunks`` chunks
  (1 port: the trees' edges 2-coloured, chapter 4).

With one NIC per node the ``G`` rails share it: the node sends ``2(K-1)/K M`` — the node-cut
minimum — through it. Cost models in two units: :func:`hierarchical_terms` (rounds and bytes of the
book's single-β model) and :func:`two_level_algorithm_time` (seconds in the two-level model of
:mod:`ccb_helpers.two_level`, checked against the simulator's rounds by the tests).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_int, check_size
from .algorithms import MAX_CHUNKS, _dbt_one_port_rounds
from .generators import _double_binary_tree, _reverse
from .schedule import MAX_BUFFER_BYTES, Round, Schedule, _block_bounds
from .two_level import TwoLevelHardware, TwoLevelTopology, check_two_level

__all__ = [
    "HIERARCHICAL_ALGORITHMS",
    "hierarchical_schedule",
    "hierarchical_terms",
    "two_level_algorithm_time",
]

HIERARCHICAL_ALGORITHMS = ("hierarchical_ring", "two_level_tree")
#: Most transfers of a hierarchical schedule (as :data:`ccb_helpers.generators.MAX_TRANSFERS`).
MAX_HIERARCHICAL_TRANSFERS = 2**21


def _ring_all_gather_groups(groups: np.ndarray, offset: np.ndarray, length: np.ndarray) -> list[Round]:
    """Ring all-gather inside each row of ``groups`` (q groups of p ranks) at once.

    Member ``i`` of group ``q`` starts with block ``i`` (bytes ``offset[q, i]`` ..
    ``+ length[q, i]``) and ends with all ``p`` blocks: round ``s`` member ``i`` sends block
    ``i - s`` to member ``i + 1``."""
    q, p = groups.shape
    members = np.arange(p)
    rounds = []
    for s in range(p - 1):
        blk = (members - s) % p
        rounds.append(
            Round(
                groups[:, members].ravel(),
                groups[:, (members + 1) % p].ravel(),
                offset[:, blk].ravel(),
                length[:, blk].ravel(),
            )
        )
    return rounds


def _shards(m: int, g: int) -> tuple[np.ndarray, np.ndarray]:
    bounds = _block_bounds(m, g)
    return bounds[:-1], np.diff(bounds)


def _intra_groups(nodes: int, g: int) -> np.ndarray:
    return np.arange(nodes * g, dtype=np.int64).reshape(nodes, g)


def _rails(nodes: int, g: int) -> np.ndarray:
    return np.arange(nodes * g, dtype=np.int64).reshape(nodes, g).T.copy()  # row i: GPU i of every node


def _inter_ring(nodes: int, g: int, shard_off: np.ndarray, shard_len: np.ndarray) -> list[Round]:
    rails = _rails(nodes, g)
    offset = np.empty((g, nodes), dtype=np.int64)
    length = np.empty((g, nodes), dtype=np.int64)
    for i in range(g):
        sub = _block_bounds(int(shard_len[i]), nodes)
        offset[i] = shard_off[i] + sub[:-1]
        length[i] = np.diff(sub)
    ag = _ring_all_gather_groups(rails, offset, length)
    return _reverse(ag, True) + ag


def _inter_tree(nodes: int, g: int, shard_off: np.ndarray, shard_len: np.ndarray, chunks: int) -> list[Round]:
    per_rail = []
    for i in range(g):
        rounds = _double_binary_tree(nodes, int(shard_len[i]), chunks, 1)
        per_rail.append(
            [
                Round(
                    r.src * g + i,
                    r.dst * g + i,
                    r.offset + shard_off[i],
                    r.length,
                    r.reduce,
                    r.buffer,
                    r.dst_offset + shard_off[i],
                    r.dst_buffer,
                )
                for r in rounds
            ]
        )
    return [Round.concat(list(parts)) for parts in zip(*per_rail)]


def _check(name, topology, m, chunks):
    if name not in HIERARCHICAL_ALGORITHMS:
        raise ValueError(f"unknown hierarchical algorithm {name!r}; allowed: {', '.join(HIERARCHICAL_ALGORITHMS)}")
    topology = check_two_level(topology)
    m = check_int("m", m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
    if name == "two_level_tree":
        chunks = check_int("chunks", 1 if chunks is None else chunks, minimum=1, maximum=2**16, scalar=True)
    elif chunks is not None:
        raise ValueError("chunks applies only to two_level_tree (its trees between nodes are pipelined)")
    steps, _ = hierarchical_terms(name, topology.nodes, topology.gpus_per_node, 1.0, chunks=chunks)
    g, nodes = topology.gpus_per_node, topology.nodes
    transfers = 2 * nodes * g * (g - 1) + (
        2 * g * nodes * (nodes - 1) if name == "hierarchical_ring" else 4 * g * (chunks or 1) * nodes
    )
    from ._validation import check_cap

    check_cap(f"the {name} schedule on {topology.name}: transfers", transfers, MAX_HIERARCHICAL_TRANSFERS)
    check_cap(f"the {name} schedule on {topology.name}: rounds", int(steps), 2**13)
    return topology, m, chunks


def hierarchical_schedule(name, topology, m, chunks=None) -> Schedule:
    """The AllReduce schedule of ``"hierarchical_ring"`` or ``"two_level_tree"`` on a two-level topology.

    Parameters
    ----------
    name : {"hierarchical_ring", "two_level_tree"}
    topology : TwoLevelTopology
        From :func:`ccb_helpers.two_level`; GPU ``g`` of node ``a`` is rank ``a G + g``.
    m : int
        Bytes per GPU, ``0 <= m <= 2**62`` (any value: shards and chunks may differ by a byte).
    chunks : int, optional
        ``two_level_tree`` only: pipeline chunks per tree between nodes (default 1).

    Examples
    --------
    >>> from ccb_helpers.two_level import two_level
    >>> from ccb_helpers.simulator import run_schedule
    >>> t = two_level(3, 4)
    >>> r = run_schedule(hierarchical_schedule("hierarchical_ring", t, 4800), topology=t)
    >>> r.correct, r.rounds, int(r.bytes_sent.max())     # 2*3 + 2*2 rounds; 2*3/4 M + 2*2/12 M
    (True, 10, 8800)
    """
    topology, m, chunks = _check(name, topology, m, chunks)
    nodes, g = topology.nodes, topology.gpus_per_node
    shard_off, shard_len = _shards(m, g)
    intra = _ring_all_gather_groups(
        _intra_groups(nodes, g), np.tile(shard_off, (nodes, 1)), np.tile(shard_len, (nodes, 1))
    )
    rounds = _reverse(intra, True)
    if nodes > 1:
        if name == "hierarchical_ring":
            rounds += _inter_ring(nodes, g, shard_off, shard_len)
        else:
            rounds += _inter_tree(nodes, g, shard_off, shard_len, chunks)
    rounds += intra
    return Schedule("all_reduce", topology.n, m, rounds, ("data",), 0, name)


def _dbt_rounds(nodes: int, chunks: int) -> int:
    return int(_dbt_one_port_rounds(nodes, chunks)) if nodes > 1 else 0


def hierarchical_terms(name, nodes, gpus_per_node, m, chunks=None):
    """Rounds and bandwidth bytes (sum of each round's largest message) of a hierarchical AllReduce.

    ``hierarchical_ring``: ``2(G-1) + 2(K-1)`` rounds, ``2(G-1)/G M + 2(K-1)/(K G) M`` bytes.
    ``two_level_tree``: ``2(G-1)`` ring rounds plus the 1-port double binary tree's rounds ``R``
    over ``K`` nodes, each carrying one chunk of ``M/(2 G C)``. (Exact for ``m`` divisible by
    ``2 G K C``; otherwise blocks differ by a byte.)

    >>> hierarchical_terms("hierarchical_ring", 3, 4, 4800.0)
    (10, 8800.0)
    >>> hierarchical_terms("two_level_tree", 4, 8, 2**20, chunks=1)
    (20, 2228224.0)
    """
    if name not in HIERARCHICAL_ALGORITHMS:
        raise ValueError(f"unknown hierarchical algorithm {name!r}; allowed: {', '.join(HIERARCHICAL_ALGORITHMS)}")
    nodes = check_int("nodes", nodes, minimum=1, maximum=2**40, scalar=True)
    g = check_int("gpus_per_node", gpus_per_node, minimum=1, maximum=2**40, scalar=True)
    m = check_size("m", m, scalar=True)
    intra_steps, intra_bytes = 2 * (g - 1), 2 * (g - 1) * m / g
    if name == "hierarchical_ring":
        if chunks is not None:
            raise ValueError("chunks applies only to two_level_tree")
        return intra_steps + 2 * (nodes - 1), intra_bytes + 2 * (nodes - 1) * m / (nodes * g)
    chunks = check_int("chunks", 1 if chunks is None else chunks, minimum=1, maximum=MAX_CHUNKS, scalar=True)
    r = _dbt_rounds(nodes, chunks)
    return intra_steps + r, intra_bytes + r * m / (2 * g * chunks)


def two_level_algorithm_time(name, topology, m, hardware, chunks=None) -> float:
    """Seconds of a hierarchical AllReduce in the two-level model (closed form).

    Every intra-node ring round costs ``α_f + (M/G)/β_f``; every inter-node round
    ``α_n + x/β_n'`` with ``x`` the bytes one rail sends (``M/(K G)`` for the ring, a chunk
    ``M/(2 G C)`` for the tree) and ``β_n' = β_n`` (one NIC per GPU) or ``β_n / G`` (the node's
    ``G`` rails share one NIC).

    >>> from ccb_helpers.two_level import two_level, TwoLevelHardware
    >>> hw = TwoLevelHardware(1e-6, 450e9, 3e-6, 50e9)
    >>> round(two_level_algorithm_time("hierarchical_ring", two_level(2, 8), 2**30, hw) * 1e3, 3)
    6.88
    """
    if name not in HIERARCHICAL_ALGORITHMS:
        raise ValueError(f"unknown hierarchical algorithm {name!r}; allowed: {', '.join(HIERARCHICAL_ALGORITHMS)}")
    topology = check_two_level(topology)
    m = check_size("m", m, scalar=True)
    if not isinstance(hardware, TwoLevelHardware):
        raise TypeError(f"hardware must be a TwoLevelHardware, got {type(hardware).__name__}")
    nodes, g = topology.nodes, topology.gpus_per_node
    nic_beta = hardware.nic_beta / (g if topology.nic == "node" else 1)
    time = 2 * (g - 1) * (hardware.fabric_alpha + m / g / hardware.fabric_beta)
    if nodes == 1:
        if chunks is not None and name != "two_level_tree":
            raise ValueError("chunks applies only to two_level_tree")
        return time
    if name == "hierarchical_ring":
        if chunks is not None:
            raise ValueError("chunks applies only to two_level_tree")
        return time + 2 * (nodes - 1) * (hardware.nic_alpha + m / (nodes * g) / nic_beta)
    chunks = check_int("chunks", 1 if chunks is None else chunks, minimum=1, maximum=MAX_CHUNKS, scalar=True)
    return time + _dbt_rounds(nodes, chunks) * (hardware.nic_alpha + m / (2 * g * chunks) / nic_beta)


def _is_two_level(topology) -> bool:
    return isinstance(topology, TwoLevelTopology)
