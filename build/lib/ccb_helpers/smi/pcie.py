"""What both smi printouts share: GPU names, terminal escapes, and PCIe levels as a switch tree.

``nvidia-smi topo -m`` prints a PCIe relation for every pair of GPUs that NVLink does not join
(``PIX``, ``PXB``, ``PHB``, ``NODE``, ``SYS``); ``rocm-smi --showtopo`` prints hop counts that
map onto the same levels. When the direct links (NVLink, xGMI) do not join every GPU, those
levels become switch vertices (:func:`_pcie_tree`), sized by :data:`PCIE_LEVEL_LINKS`.
"""

from __future__ import annotations

import re

import networkx as nx

from .._tokens import read_number
from .._validation import check_int
from ..user_topology import _check_bisection

_GPU = re.compile(r"^GPU(\d+)$")


def _gpu_index(token: str, where: str) -> int:
    """The index of a ``GPU<i>`` token (read by :func:`~ccb_helpers._tokens.read_number`)."""
    return read_number(_GPU.match(token).group(1), f"{where}: GPU index", integer=True).value


def _cell_number(cell: str, where: str) -> int | None:
    """An integer cell of a printout (a weight, a hop count, an NVLink count); ``None`` for ``N/A``."""
    if cell.upper() == "N/A":
        return None
    return read_number(cell, where, integer=True).value


#: Terminal control sequences: recent drivers underline the header (``ESC[4m GPU0 ... ESC[0m``).
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_PCIE_LEVELS = {"SYS", "NODE", "PHB", "PXB", "PIX", "SOC", "PSB"}
# nvidia-smi's PCIe relations from nearest to farthest (SOC: older drivers' name of SYS; PSB: a
# PCIe switch board, bridged like PXB).
_LEVEL_ORDER = ("PIX", "PXB", "PHB", "NODE", "SYS")
_LEVEL_ALIASES = {"SOC": "SYS", "PSB": "PXB"}
#: Uplink of a group of GPUs at each PCIe level to the next level up, in links of one GPU's PCIe
#: x16 link (the unit of a PCIe-only topology): a PCIe switch (PIX) has one x16 uplink, as does a
#: multi-bridge branch (PXB); a host bridge (PHB) and a NUMA node (NODE) reach the CPU's fabric and
#: the other socket with about two x16 worth (e.g. 3 UPI links x 20.8 GB/s = 62 GB/s against 31.5
#: GB/s of PCIe Gen4 x16). Rough defaults: pass ``level_links`` with your machine's figures.
PCIE_LEVEL_LINKS = {"PIX": 1, "PXB": 1, "PHB": 2, "NODE": 2}


def _check_level_links(level_links) -> dict:
    if level_links is None:
        return dict(PCIE_LEVEL_LINKS)
    if not isinstance(level_links, dict):
        raise TypeError(f"level_links must be a dict of PCIe level -> links, got {type(level_links).__name__}")
    merged = dict(PCIE_LEVEL_LINKS)
    for level, links in level_links.items():
        if level not in PCIE_LEVEL_LINKS:
            raise ValueError(f"level_links: unknown level {level!r}; allowed: {', '.join(PCIE_LEVEL_LINKS)}")
        merged[level] = check_int(f"level_links[{level!r}]", links, minimum=1, maximum=1024, scalar=True)
    return merged


def _pcie_is_star(n: int, levels: dict) -> bool:
    """Whether :func:`_pcie_tree` makes one switch for all ``n`` GPUs, read from the levels alone.

    The tree's first switch is made at the nearest level any pair has; it holds every GPU (and no
    other switch follows) exactly when the pairs at that level join all of them. Every pair at
    ``SYS``: the ``SYS`` vertex alone.
    """
    if not levels:
        return False
    nearest = min(_LEVEL_ORDER.index(level) for level in levels.values())
    if nearest == len(_LEVEL_ORDER) - 1:
        return True
    parent = list(range(n))  # union-find over the pairs at the nearest level (no graph built)

    def root(v):
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    groups = n
    name = _LEVEL_ORDER[nearest]
    for (i, j), level in levels.items():
        if level == name and (a := root(i)) != (b := root(j)):
            parent[a] = b
            groups -= 1
    return groups == 1


def _check_pcie_bisection(n: int, levels: dict, direct_pairs: int) -> None:
    """Refuse a PCIe tree whose bisection cannot be measured before building it or its diameter.

    The tree has at most ``2 n - 1`` vertices (each switch joins two tops or more) and as many
    edges, besides the ``direct_pairs`` (NVLink / xGMI) links; at ``n <= 12`` that is always within
    :data:`MAX_SWITCHED_BISECTION_WORK`, so what is refused is more than 12 GPUs not on one switch.
    """
    star = direct_pairs == 0 and _pcie_is_star(n, levels)
    _check_bisection(n, True, star, 2 * n, 2 * n + direct_pairs, "text")


def _pcie_tree(n: int, levels: dict, pcie_links: int, level_links: dict) -> nx.Graph:
    """GPUs under switch vertices, one per group of GPUs that are at most a PCIe level apart.

    Groups grow level by level (PIX, then PXB, PHB, NODE): a group is a connected component of the
    pairs at that level or nearer. A new vertex joins the groups' tops; the remaining tops meet at
    a ``SYS`` vertex. Pairs joined by NVLink print no PCIe level and only group through others.
    """
    g = nx.Graph()
    g.add_nodes_from(range(n), kind="endpoint")
    top = list(range(n))  # each GPU's current top vertex
    uplink = {v: pcie_links for v in range(n)}  # links from a top vertex to its parent
    for rank, level in enumerate(_LEVEL_ORDER[:-1]):
        near = nx.Graph()
        near.add_nodes_from(range(n))
        near.add_edges_from(pair for pair, lv in levels.items() if _LEVEL_ORDER.index(lv) <= rank)
        for index, group in enumerate(nx.connected_components(near)):
            tops = sorted({top[v] for v in group}, key=str)
            if len(tops) < 2:
                continue
            switch = (level, index)
            g.add_node(switch, kind="switch")
            for t in tops:
                g.add_edge(t, switch, links=uplink[t])
            uplink[switch] = level_links[level] * pcie_links
            for v in group:
                top[v] = switch
    tops = sorted(set(top), key=str)
    if len(tops) > 1:
        g.add_node(("SYS", 0), kind="switch")
        for t in tops:
            g.add_edge(t, ("SYS", 0), links=uplink[t])
    return g
