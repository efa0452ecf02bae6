"""The diameter bound: when the topology, not information spreading, sets the latency.

A message between the two farthest endpoints needs ``D`` hops, each a round on a direct network,
so ``T_alpha >= D * alpha`` (``eq:cc-bound-topo``) and, with the information bound,
``T_alpha >= max(ceil(log_{p+1} N), D) * alpha``. This module compares the two across topology
families and sizes, from closed forms (the graphs are never built here).
"""

from __future__ import annotations

from typing import Iterator

from ._intmath import ceil_log_int
from ._validation import check_choice, check_int
from .topology import Topology, fat_tree, fully_connected, hypercube, mesh, ring, torus

__all__ = ["FAMILIES", "family_instance", "family_instances", "binding_latency_term", "diameter_binding_sizes", "first_diameter_bound"]

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
    if family == "hypercube":
        return hypercube(check_int("size", size, minimum=1, maximum=30))
    if family in ("torus2d", "torus3d", "mesh2d"):
        size = check_int("size", size, minimum=2)
        dims = (size,) * (3 if family == "torus3d" else 2)
        return mesh(*dims) if family == "mesh2d" else torus(*dims)
    size = check_int("size", size, minimum=4 if family == "fat_tree" else 2)
    return {"ring": ring, "fat_tree": fat_tree, "fully_connected": fully_connected}[family](size)


def family_instances(family: str, max_n: int) -> Iterator[Topology]:
    """Every instance of ``family`` with ``n <= max_n``, by increasing ``n`` (fat-trees: powers of two).

    >>> [t.n for t in family_instances("torus3d", 100)]
    [8, 27, 64]
    """
    family = check_choice("family", family, FAMILIES)
    max_n = check_int("max_n", max_n, minimum=2)
    if family in ("ring", "fully_connected"):
        sizes = range(2, max_n + 1)
    elif family == "fat_tree":
        sizes = (2**e for e in range(2, max_n.bit_length()) if 2**e <= max_n)
    elif family == "hypercube":
        sizes = range(1, max_n.bit_length())
    else:
        power = 3 if family == "torus3d" else 2
        sizes = [s for s in range(2, max_n + 1) if s**power <= max_n]
    for size in sizes:
        yield family_instance(family, size)


def binding_latency_term(topology: Topology, k: int = 1) -> str:
    """Which latency bound is larger on ``topology``: ``"diameter"``, ``"information"`` or ``"tie"``.

    The information bound uses ``p = min(k, degree)`` ports.

    >>> binding_latency_term(ring(8)), binding_latency_term(ring(9)), binding_latency_term(ring(4))
    ('diameter', 'tie', 'tie')
    >>> binding_latency_term(fat_tree(64))
    'information'
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology, got {type(topology).__name__}")
    k = check_int("k", k, minimum=1)
    if topology.n == 1:
        return "tie"
    p = max(1, min(k, topology.degree))
    info = ceil_log_int(topology.n, p + 1)
    d = topology.step_diameter
    return "diameter" if d > info else ("information" if info > d else "tie")


def diameter_binding_sizes(n_max: int = 64, k: int = 1) -> list[int]:
    """The ring sizes ``N <= n_max`` whose diameter ``floor(N/2)`` exceeds ``ceil(log_{p+1} N)``.

    >>> diameter_binding_sizes(20)
    [8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
    """
    n_max = check_int("n_max", n_max, minimum=2)
    return [n for n in range(2, n_max + 1) if binding_latency_term(ring(n), k) == "diameter"]


def first_diameter_bound(family: str, max_n: int = 10**4, k: int = 1):
    """Smallest ``N`` from which on every instance of ``family`` (up to ``max_n``) is diameter-bound.

    Returns ``None`` when the largest instance is not diameter-bound (e.g. hypercube, fat-tree).

    >>> first_diameter_bound("ring"), first_diameter_bound("torus2d"), first_diameter_bound("hypercube")
    (10, 64, None)
    """
    first = None
    for topo in family_instances(family, max_n):
        if binding_latency_term(topo, k) == "diameter":
            first = topo.n if first is None else first
        else:
            first = None
    return first
