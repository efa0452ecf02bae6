"""Hierarchical (two-level) AllReduce as runnable rounds: rings inside nodes, rings or trees between them.

Both algorithms split the work the way Horovod's hierarchical mode does on GPUs in nodes
(:func:`ccb_helpers.two_level`; horovod/horovod#411, and NCCL's maintainers describe its Tree with
a head GPU per NIC the same way, NVIDIA/nccl#530): a **reduce-scatter inside every node** (a ring
over its ``G`` GPUs: GPU ``g`` of each node ends with shard ``g`` of the node's sum), an **AllReduce of each
shard between nodes** over the GPUs with the same local index ``g`` — one "rail" per ``g``, so
every GPU's NIC works — and an **all-gather inside every node**.

* ``"hierarchical_ring"`` (the 2-D ring): the inter-node AllReduce is a ring over the ``K`` nodes
  (NCCL's own rings are flat, one ring through every GPU of every node, NVIDIA/nccl#530).
  ``2(G-1) + 2(K-1)`` rounds; per GPU ``2(G-1)/G M`` over NVLink and ``2(K-1)/(K G) M`` over its NIC.
* ``"two_level_tree"`` (inside nodes rings, not NCCL's chains): the inter-node AllReduce is
  NCCL's double binary tree over the ``K`` nodes, pipelined in ``chunks`` chunks
  (1 port: the trees' edges 2-coloured, chapter 4).

With one NIC per node the ``G`` rails share it: the node sends ``2(K-1)/K M`` — the node-cut
minimum — through it. Cost models in two units: :func:`ccb_helpers.hierarchical_terms` (rounds and bytes of the
book's single-β model) and :func:`ccb_helpers.two_level_algorithm_time` (seconds in the
two-level model, checked against the simulator's rounds by the tests), in
:mod:`ccb_helpers.algorithms.hierarchical`.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_cap, check_choice, check_int, check_memory
from ..algorithms.hierarchical import HIERARCHICAL_ALGORITHMS, hierarchical_terms
from ..schedule import MAX_BUFFER_BYTES, Round, Schedule, _block_bounds
from .core import MAX_ROUNDS, ScheduleGenerator, _generate_memory, _reverse
from .double_tree import _double_binary_tree
from .rings import _ring_all_gather

__all__ = ["hierarchical_schedule"]

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
    """The double binary tree over the nodes on every rail at once (rails with equal shards share one tree)."""
    per_length = []
    for length in np.unique(shard_len):
        rails = np.nonzero(shard_len == length)[0]
        tree = _double_binary_tree(nodes, int(length), chunks, 1)
        base = shard_off[rails][:, None]
        per_length.append(
            [
                Round(
                    (r.src[None, :] * g + rails[:, None]).ravel(),
                    (r.dst[None, :] * g + rails[:, None]).ravel(),
                    (r.offset[None, :] + base).ravel(),
                    np.broadcast_to(r.length, (rails.size, r.length.size)).ravel(),
                    np.broadcast_to(r.reduce, (rails.size, r.reduce.size)).ravel(),
                    0,
                    (r.dst_offset[None, :] + base).ravel(),
                    0,
                )
                for r in tree
            ]
        )
    return [Round.concat(list(parts)) for parts in zip(*per_length)]


def _check(name, topology, m, chunks):
    check_choice("name", name, HIERARCHICAL_ALGORITHMS)
    from ..two_level_network import check_two_level  # here: an MPI rank never loads networkx

    topology = check_two_level(topology)
    m = check_int("m", m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
    if chunks is not None or name == "two_level_tree":
        chunks = check_int("chunks", 1 if chunks is None else chunks, minimum=1, maximum=2**16, scalar=True)
    g, nodes = topology.gpus_per_node, topology.nodes
    if name == "two_level_tree":
        steps, _ = hierarchical_terms(name, nodes, g, 1.0, chunks=chunks)
        transfers = 2 * nodes * g * (g - 1) + 4 * g * chunks * nodes
    else:  # pipelined parts: at most every part's rounds one after the other
        parts = chunks or 1
        steps = parts * hierarchical_terms(name, nodes, g, 1.0)[0]
        transfers = parts * (2 * nodes * g * (g - 1) + 2 * g * nodes * (nodes - 1))
    check_cap(f"the {name} schedule on {topology.name}: transfers", transfers, MAX_HIERARCHICAL_TRANSFERS)
    check_cap(f"the {name} schedule on {topology.name}: rounds", int(steps), MAX_ROUNDS)
    check_memory(f"topology: the {name} schedule on {topology.name}", _generate_memory(int(steps), transfers))
    return topology, m, chunks


def _stages(name: str, nodes: int, g: int, base: int, length: int, tree_chunks: int):
    """(intra reduce-scatter, between nodes, intra all-gather) rounds for bytes [base, base + length)."""
    shard_off, shard_len = _shards(length, g)
    shard_off = shard_off + base
    groups = _intra_groups(nodes, g)
    offset, size = np.tile(shard_off, (nodes, 1)), np.tile(shard_len, (nodes, 1))
    intra = _ring_all_gather_groups(groups, offset, size)
    # The reduce-scatter is an all-gather run backwards; built on the ring in the other order it
    # flows the same way as the all-gather (GPU i to i + 1), so overlapped parts of the pipeline
    # send to one neighbour inside the node. GPU i still ends with shard i.
    scatter = _reverse(_ring_all_gather_groups(groups[:, ::-1], offset[:, ::-1], size[:, ::-1]), True)
    between: list[Round] = []
    if nodes > 1:
        if name == "hierarchical_ring":
            between = _inter_ring(nodes, g, shard_off, shard_len)
        else:
            between = _inter_tree(nodes, g, shard_off, shard_len, tree_chunks)
    return scatter, between, intra


def _pipeline(stages_per_chunk: list[tuple[list[Round], ...]]) -> list[Round]:
    """Overlap the chunks' stages: each stage serves one chunk at a time, chunks in order.

    Chunk ``c`` starts stage ``s`` when it has finished stage ``s - 1`` and chunk ``c - 1`` has
    finished stage ``s``; rounds that run at the same time are merged (their pieces are disjoint
    bytes, and inside a node both rings send to the same neighbour, one message)."""
    finish = [0] * len(stages_per_chunk[0])
    timeline: dict[int, list[Round]] = {}
    for stages in stages_per_chunk:
        ready = 0
        for s, rounds in enumerate(stages):
            start = max(ready, finish[s])
            for i, r in enumerate(rounds):
                timeline.setdefault(start + i, []).append(r)
            finish[s] = ready = start + len(rounds)
    return [Round.concat(timeline[t]) for t in range(max(timeline) + 1)] if timeline else []


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
        ``two_level_tree``: pipeline chunks per tree between nodes (default 1).
        ``hierarchical_ring``: ``chunks >= 2`` splits ``M`` into that many parts and overlaps
        their stages (one part's ring between nodes while the next reduce-scatters inside the
        node), so a GPU sends over NVLink and its NIC in the same round: run it with ``ports=2``.

    Examples
    --------
    >>> from ccb_helpers.two_level_network import two_level
    >>> from ccb_helpers.simulator import run_schedule
    >>> t = two_level(3, 4)
    >>> r = run_schedule(hierarchical_schedule("hierarchical_ring", t, 4800), topology=t)
    >>> r.correct, r.rounds, int(r.bytes_sent.max())     # 2*3 + 2*2 rounds; 2*3/4 M + 2*2/12 M
    (True, 10, 8800)
    >>> r = run_schedule(hierarchical_schedule("hierarchical_ring", t, 4800, chunks=4), ports=2, topology=t)
    >>> r.correct, r.rounds                               # 3 + 4 * 4 + 3: the rings between nodes set the pace
    (True, 22)
    """
    topology, m, chunks = _check(name, topology, m, chunks)
    nodes, g = topology.nodes, topology.gpus_per_node
    if name == "two_level_tree" or chunks in (None, 1):
        a, b, c = _stages(name, nodes, g, 0, m, chunks or 1)
        rounds = a + b + c
    else:
        bounds = _block_bounds(m, chunks)
        parts = [_stages(name, nodes, g, int(bounds[i]), int(bounds[i + 1] - bounds[i]), 1) for i in range(chunks)]
        rounds = _pipeline(parts)
    return Schedule("all_reduce", topology.n, m, rounds, ("data",), 0, name)


# --------------------------------------------------------------------------- the registry's entries


def _build_flat_ring(primitive, n, m, ports, root, chunks):
    """One GPU per node (no two-level topology): the hierarchy is its ring between nodes."""
    ag = _ring_all_gather(n, m)
    return _reverse(ag, True) + ag


def _build_flat_tree(primitive, n, m, ports, root, chunks):
    """One GPU per node: the unpipelined double binary tree between nodes."""
    return _double_binary_tree(n, m, 1, ports)


HIERARCHICAL_RING = ScheduleGenerator(_build_flat_ring, lambda primitive, n, ports, chunks: 2 * n * (n - 1))
TWO_LEVEL_TREE = ScheduleGenerator(_build_flat_tree, lambda primitive, n, ports, chunks: 4 * (n - 1))
