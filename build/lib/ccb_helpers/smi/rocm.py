"""``rocm-smi --showtopo``: AMD's Weight, Hops and Link Type matrices, as a Topology."""

from __future__ import annotations

import math
import re

import networkx as nx
import numpy as np

from .._validation import check_int
from ..topology import Topology
from ..user_topology import (
    MAX_ENDPOINTS,
    _build,
    _check_name,
    _check_parse_memory,
    _check_work,
    link_matrix,  # noqa: F401  (doctests)
    topology_from_links,
)
from .pcie import _ANSI, _GPU, _cell_number, _check_level_links, _check_pcie_bisection, _gpu_index, _pcie_tree

_ROCM_BLOCK = re.compile(r"^=+\s*(Weight|Hops|Link Type) between two GPUs\s*=+\s*$")


def _rocm_blocks(lines) -> dict:
    """``{"Weight" | "Hops" | "Link Type": (line number of the header, {(i, j): cell})}`` of rocm-smi's matrices."""
    blocks, current, columns = {}, None, []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if (m := _ROCM_BLOCK.match(stripped)) is not None:
            current, columns = m.group(1), []
            blocks[current] = (number, {})
            continue
        if stripped.startswith("="):
            current = None
            continue
        if current is None or not stripped:
            continue
        tokens = stripped.split()
        if all(_GPU.match(t) for t in tokens):
            columns = [_gpu_index(t, f"line {number}") for t in tokens]
            continue
        if tokens and _GPU.match(tokens[0]) and columns:
            i = _gpu_index(tokens[0], f"line {number}")
            cells = tokens[1:]
            if len(cells) != len(columns):
                raise ValueError(
                    f"line {number} ({stripped[:80]!r}): {len(cells)} cells for {len(columns)} GPU columns"
                )
            for j, cell in zip(columns, cells):
                if current != "Link Type":  # Weight and Hops hold numbers: read once, here
                    cell = _cell_number(cell, f"line {number}: {current} GPU{i}-GPU{j}")
                blocks[current][1][(i, j)] = cell
    return blocks


def parse_rocm_smi_topo(text, name=None, pcie_links=1, level_links=None) -> Topology:
    """The GPU topology printed by ``rocm-smi --showtopo`` (AMD GPUs), as a Topology.

    The ``Link Type between two GPUs`` matrix says ``XGMI`` or ``PCIE`` for each pair; the
    ``Weight`` matrix tells a direct xGMI link (weight 15, one xGMI hop) from a route through other
    GPUs (a multiple of 15), and the ``Hops`` matrix how far a PCIe pair is (2: through one CPU
    socket, 3: through both). Direct xGMI pairs become links (one each: ``--showtopo`` does not
    count parallel links); when they do not join every GPU, the PCIe pairs become the switch tree
    of :func:`parse_nvidia_smi_topo` (hops 2 as ``NODE``, 3 as ``SYS``).

    Parameters
    ----------
    text : str
        The command's output.
    name : str, optional
        Display name (default ``"rocm-smi: n GPUs"``).
    pcie_links, level_links
        As in :func:`parse_nvidia_smi_topo`.

    Raises
    ------
    ValueError
        No ``Link Type`` matrix, fewer than 2 GPUs, a missing or unknown cell, an asymmetric
        matrix; ``nvidia-smi topo -m`` output (read that with :func:`parse_nvidia_smi_topo`).

    Examples
    --------
    Four GPUs of an MI300X-style hive (every pair one direct xGMI link):

    >>> rows = "\\n".join("GPU%d   " % i + "   ".join("0" if i == j else "%s" for j in range(4)) for i in range(4))
    >>> text = ("=== Weight between two GPUs ===\\n       GPU0   GPU1   GPU2   GPU3\\n" + rows.replace("%s", "15") +
    ...         "\\n=== Link Type between two GPUs ===\\n       GPU0   GPU1   GPU2   GPU3\\n" + rows.replace("%s", "XGMI"))
    >>> t = parse_rocm_smi_topo(text)
    >>> link_matrix(t).tolist()[0], t.degree, t.diameter
    ([0, 1, 1, 1], 3, 1)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be the output of `rocm-smi --showtopo` as a string, got {type(text).__name__}")
    pcie_links = check_int("pcie_links", pcie_links, minimum=1, maximum=64, scalar=True)
    level_links = _check_level_links(level_links)
    if len(text) > 1_000_000:
        raise ValueError(f"text is {len(text)} characters; a `rocm-smi --showtopo` output is a few kB (cap 1 000 000)")
    lines = [_ANSI.sub("", line).replace("\t", " ") for line in text.splitlines()]
    # n is known only after reading: a matrix of n x n cells of at least two characters bounds it.
    gpus = min(MAX_ENDPOINTS, math.isqrt(len(text) // 2) + 1)
    _check_parse_memory(f"text: {len(text)} characters: memory", len(text), gpus)
    blocks = _rocm_blocks(lines)
    if "Link Type" not in blocks:
        if any(line.split()[:2] == ["GPU0", "X"] or "NV#" in line for line in lines if line.split()):
            raise ValueError(
                "text: this is nvidia-smi output, not rocm-smi's: read it with ccb.parse_nvidia_smi_topo(text)"
            )
        raise ValueError("text: no 'Link Type between two GPUs' matrix found: pass the output of `rocm-smi --showtopo`")
    header, links = blocks["Link Type"]
    n = 1 + max(max(pair) for pair in links) if links else 0
    if n < 2:
        raise ValueError(f"text: line {header}: the Link Type matrix lists {n} GPU; a topology needs at least 2")
    if n > MAX_ENDPOINTS:
        raise ValueError(f"text: {n} GPUs; at most {MAX_ENDPOINTS} are supported")
    weights = blocks.get("Weight", (0, {}))[1]
    hops = blocks.get("Hops", (0, {}))[1]
    matrix = np.zeros((n, n), dtype=np.int64)
    levels = {}
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            cell = links.get((i, j))
            if cell is None:
                raise ValueError(f"text: the Link Type matrix (line {header}) has no cell for GPU{i}-GPU{j}")
            if cell == "XGMI":
                weight = weights.get((i, j))
                if weight is None or weight == 15:
                    matrix[i, j] = 1
            elif cell == "PCIE":
                levels[(i, j)] = {2: "NODE", 3: "SYS"}.get(hops.get((i, j)), "PHB")
            else:
                raise ValueError(
                    f"text: the Link Type matrix (line {header}): GPU{i}-GPU{j} is {cell!r}; expected XGMI or PCIE"
                )
    if not np.array_equal(matrix, matrix.T):
        i, j = map(int, np.argwhere(matrix != matrix.T)[0])
        raise ValueError(f"text: xGMI links are not symmetric between GPU{i} and GPU{j}")
    name = _check_name(name, f"rocm-smi: {n} GPUs")
    linked = nx.Graph()
    linked.add_nodes_from(range(n))
    linked.add_edges_from((i, j) for i in range(n) for j in range(i + 1, n) if matrix[i, j])
    if nx.is_connected(linked):
        return topology_from_links(matrix, name=name)
    _check_work(n, linked.number_of_edges() + 2 * n)  # the xGMI pairs and the PCIe tree's edges
    _check_pcie_bisection(n, levels, linked.number_of_edges())
    g = _pcie_tree(n, levels, pcie_links, level_links)
    for i, j in linked.edges:
        g.add_edge(i, j, links=1)
    return _build(g, n, name, None, "text")
