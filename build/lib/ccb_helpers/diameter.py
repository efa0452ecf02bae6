"""The diameter bound: when the topology, not information spreading, sets the latency.

A message between the two farthest endpoints needs ``D`` hops, each a round on a direct network,
so ``T_alpha >= D * alpha`` (``eq:cc-bound-topo``) and, with the information bound,
``T_alpha >= max(ceil(log_{p+1} N), D) * alpha``. This module compares the two across topology
families and sizes, from closed forms (the graphs are never built here).
"""

from __future__ import annotations

import math
from typing import Iterator

from ._intmath import ceil_log_int
from ._validation import check_cap, check_choice, check_int, check_memory
from .topology import (
    MAX_ENDPOINTS,
    MAX_FAT_TREE_HOSTS,
    Topology,
    check_topology,
    fat_tree,
    fully_connected,
    hypercube,
    mesh,
    ring,
    torus,
)

__all__ = [
    "FAMILIES",
    "family_instance",
    "family_instances",
    "binding_latency_term",
    "diameter_binding_sizes",
    "first_diameter_bound",
]

#: Most topologies :func:`family_instances` yields (about 30 microseconds each).
MAX_INSTANCES = 2**16
#: Largest ``n_max`` of :func:`diameter_binding_sizes` (one closed form per ring size).
MAX_RING_SIZES = 2**20
#: Peak bytes per ring size of :func:`diameter_binding_sizes` (the list it returns): tracemalloc
#: measured 40.5 (2**16 sizes, most of them binding); 64 MiB at the cap.
_BYTES_PER_RING_SIZE = 64

#: Families compared in the diameter chapter: name -> (label, how the size parameter maps to a topology)
FAMILIES = {
    "ring": ("Ring", "N 个节点"),
    "torus2d": ("2D Torus", "边长 s，N = s²"),
    "torus3d": ("3D Torus", "边长 s，N = s³"),
    "mesh2d": ("2D Mesh", "边长 s，N = s²"),
    "hypercube": ("Hypercube", "维数 d，N = 2^d"),
    "fat_tree": ("Fat-tree", "N 个主机"),
    "fully_connected": ("全连接", "N 个节点"),
}


def family_instance(family: str, size: int) -> Topology:
    """The topology of ``family`` for a size parameter (see :data:`FAMILIES`).

    >>> family_instance("torus2d", 8).n, family_instance("hypercube", 5).n
    (64, 32)
    """
    family = check_choice("family", family, FAMILIES)
    low, high = _size_range(family)
    return _family_instance(family, check_int("size", size, minimum=low, maximum=high, scalar=True))


def _size_range(family: str) -> tuple[int, int]:
    """Allowed size parameters of a family (the node count stays within the topology caps)."""
    if family == "hypercube":
        return 1, 62
    if family in ("torus2d", "mesh2d"):
        return 2, math.isqrt(MAX_ENDPOINTS)
    if family == "torus3d":
        return 2, 2**20
    if family == "fat_tree":
        return 4, MAX_FAT_TREE_HOSTS
    return 2, MAX_ENDPOINTS


def _family_instance(family: str, size: int) -> Topology:
    if family == "hypercube":
        return hypercube(size)
    if family in ("torus2d", "torus3d", "mesh2d"):
        dims = (size,) * (3 if family == "torus3d" else 2)
        return mesh(*dims) if family == "mesh2d" else torus(*dims)
    return {"ring": ring, "fat_tree": fat_tree, "fully_connected": fully_connected}[family](size)


def family_instances(family: str, max_n: int) -> Iterator[Topology]:
    """Every instance of ``family`` with ``n <= max_n``, by increasing ``n`` (fat-trees: powers of two).

    At most ``MAX_INSTANCES = 2**16`` topologies (checked before the first is built).

    >>> [t.n for t in family_instances("torus3d", 100)]
    [8, 27, 64]
    """
    family = check_choice("family", family, FAMILIES)
    max_n = check_int("max_n", max_n, minimum=2, maximum=MAX_ENDPOINTS, scalar=True)
    sizes = _family_sizes(family, max_n)
    check_cap(f"family_instances({family!r}, max_n={max_n}): topologies", len(sizes), MAX_INSTANCES)
    return (_family_instance(family, size) for size in sizes)


def _family_sizes(family: str, max_n: int) -> range | list:
    """Size parameters of every instance with ``n <= max_n`` (a range: its length is known up front)."""
    if family in ("ring", "fully_connected"):
        return range(2, max_n + 1)
    if family == "fat_tree":
        return [2**e for e in range(2, min(max_n.bit_length(), 41)) if 2**e <= max_n]
    if family == "hypercube":
        return range(1, min(max_n.bit_length(), 63))
    power = 3 if family == "torus3d" else 2
    top = int(round(max_n ** (1 / power)))  # integer root, corrected to be exact
    while top**power > max_n:
        top -= 1
    while (top + 1) ** power <= max_n:
        top += 1
    return range(2, top + 1)


def binding_latency_term(topology: Topology, k: int = 1) -> str:
    """Which latency bound is larger on ``topology``: ``"diameter"``, ``"information"`` or ``"tie"``.

    The information bound uses ``p = min(k, degree)`` ports.

    >>> binding_latency_term(ring(8)), binding_latency_term(ring(9)), binding_latency_term(ring(4))
    ('diameter', 'tie', 'tie')
    >>> binding_latency_term(fat_tree(64))
    'information'
    """
    check_topology(topology)
    k = check_int("k", k, minimum=1, scalar=True)
    return _binding(topology.n, topology.degree, topology.step_diameter, k)


def _binding(n: int, degree: int, step_diameter: int, k: int) -> str:
    if n == 1:
        return "tie"
    info = ceil_log_int(n, max(1, min(k, degree)) + 1)
    return "diameter" if step_diameter > info else ("information" if info > step_diameter else "tie")


def diameter_binding_sizes(n_max: int = 64, k: int = 1) -> list[int]:
    """The ring sizes ``N <= n_max`` whose diameter ``floor(N/2)`` exceeds ``ceil(log_{p+1} N)``.

    >>> diameter_binding_sizes(20)
    [8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
    """
    n_max = check_int("n_max", n_max, minimum=2, maximum=MAX_RING_SIZES, scalar=True)
    k = check_int("k", k, minimum=1, scalar=True)
    check_memory(f"n_max: {n_max:,} ring sizes", _BYTES_PER_RING_SIZE * n_max + 2**16)
    # ring n: degree 1 for n = 2, else 2; step diameter floor(n/2)
    return [n for n in range(2, n_max + 1) if _binding(n, 1 if n == 2 else 2, n // 2, k) == "diameter"]


def first_diameter_bound(family: str, max_n: int = 10**4, k: int = 1):
    """Smallest ``N`` from which on every instance of ``family`` (up to ``max_n``) is diameter-bound.

    Returns ``None`` when the largest instance is not diameter-bound (e.g. hypercube, fat-tree).

    >>> first_diameter_bound("ring"), first_diameter_bound("torus2d"), first_diameter_bound("hypercube")
    (10, 64, None)
    """
    k = check_int("k", k, minimum=1, scalar=True)
    first = None
    for topo in family_instances(family, max_n):
        if _binding(topo.n, topo.degree, topo.step_diameter, k) == "diameter":
            first = topo.n if first is None else first
        else:
            first = None
    return first
