"""``nvidia-smi topo -m``: the GPU x GPU block of NVIDIA's topology matrix, as a Topology."""

from __future__ import annotations

import itertools
import re

import networkx as nx
import numpy as np

from .._validation import check_int
from ..topology import Topology
from ..user_topology import (
    MAX_ENDPOINTS,
    MAX_LINKS_PER_PAIR,
    _build,
    _check_name,
    _check_parse_memory,
    _check_work,
    link_matrix,  # noqa: F401  (doctests)
    topology_from_links,
)
from .pcie import (
    _ANSI,
    _GPU,
    _LEVEL_ALIASES,
    _PCIE_LEVELS,
    PCIE_LEVEL_LINKS,  # noqa: F401  (docstrings)
    _cell_number,
    _check_level_links,
    _check_pcie_bisection,
    _gpu_index,
    _pcie_tree,
)

_NV = re.compile(r"NV(\d{1,4})")
#: No GPU has more NVLinks than this (H100 and B200 have 18): a complete, uniform ``NV#`` matrix
#: whose per-GPU total would exceed it can only be an NVSwitch fabric.
MAX_NVLINKS_PER_GPU = 18


def parse_nvidia_smi_topo(text, name=None, nvswitch="auto", pcie_links=1, level_links=None) -> Topology:
    """The GPU topology printed by ``nvidia-smi topo -m`` (``--matrix``), as a Topology.

    Only the GPU x GPU block is read. ``NV#`` = ``#`` bonded NVLinks between the two GPUs. NIC
    columns, CPU/NUMA affinity and the legend are ignored. When NVLinks join every GPU, the PCIe
    levels (``SYS``, ``NODE``, ``PHB``, ``PXB``, ``PIX``) are left out (NCCL uses the NVLinks).
    When they do not — a PCIe-only box, or NVLink bridges joining pairs — the PCIe levels become
    switch vertices: GPUs at ``PIX`` share a PCIe switch, at ``PXB`` a branch of bridges, at ``PHB``
    a host bridge, at ``NODE`` a NUMA node, and ``SYS`` joins the sockets. Each GPU's PCIe link
    has ``pcie_links`` links (the unit is one link of ``β``: 1 on a PCIe-only box; on an
    NVLink-bridge box, a GPU's PCIe x16 link in NVLink links, e.g. 2), and each group's uplink
    ``level_links[level] * pcie_links`` (:data:`PCIE_LEVEL_LINKS`).

    NVSwitch machines (DGX/HGX A100, H100) print ``NV12`` / ``NV18`` between *every* pair: those
    are the GPU's links into the switch fabric, not links per pair. With ``nvswitch="auto"`` a
    complete matrix with one value ``k`` is read as a single non-blocking switch with ``k`` links
    per GPU when ``(n - 1) * k`` exceeds :data:`MAX_NVLINKS_PER_GPU` (no GPU has that many
    links); otherwise as direct links (e.g. four A100 with ``NV4`` to each other). Pass
    ``nvswitch=True`` / ``False`` to decide yourself.

    Parameters
    ----------
    text : str
        The command's output (a header line with ``GPU0 GPU1 ...`` then one row per device).
    name : str, optional
        Display name (default ``"nvidia-smi: n GPUs"``).
    nvswitch : {"auto", True, False}
    pcie_links : int, default 1
        Links (of the topology's ``β``) in one GPU's PCIe connection, 1 to 64.
    level_links : dict, optional
        Uplink of each PCIe level's group, in GPU PCIe links (default :data:`PCIE_LEVEL_LINKS`).

    Raises
    ------
    ValueError
        No GPU header, fewer than 2 GPUs, a missing, repeated, truncated or malformed GPU row, an
        unknown cell, an asymmetric matrix, or ``rocm-smi`` output (read that with
        :func:`parse_rocm_smi_topo`); a message about a row names its line number and text.
        Terminal escape sequences (recent drivers underline the header) are ignored, and so is what
        follows the matrix's legend or a second header (``nvidia-smi topo -p2p r`` pasted after it).

    Examples
    --------
    >>> text = '''
    ...         GPU0    GPU1    GPU2    CPU Affinity
    ... GPU0     X      NV2     NV1     0-11
    ... GPU1    NV2      X      SYS     0-11
    ... GPU2    NV1     SYS      X      0-11
    ... '''
    >>> t = parse_nvidia_smi_topo(text)
    >>> link_matrix(t).tolist(), t.degree
    ([[0, 2, 1], [2, 0, 0], [1, 0, 0]], 3)

    A PCIe-only box: two PCIe switches of two GPUs each, under one CPU:

    >>> pcie = parse_nvidia_smi_topo('''
    ...         GPU0    GPU1    GPU2    GPU3
    ... GPU0     X      PIX     NODE    NODE
    ... GPU1    PIX      X      NODE    NODE
    ... GPU2    NODE    NODE     X      PIX
    ... GPU3    NODE    NODE    PIX      X
    ... ''')
    >>> pcie.switched, pcie.degree, pcie.diameter, pcie.bisection_links
    (True, 1, 4, 1)
    """
    try:
        return _parse_nvidia_smi_topo(text, name, nvswitch, pcie_links, level_links)
    except ValueError as err:  # what is wrong is in the text (or says which argument it is about)
        message = str(err)
        if message.startswith(("text", "name", "nvswitch", "matrix", "bisection_links")):
            raise
        raise ValueError(f"text: {message}") from None


def _parse_nvidia_smi_topo(text, name, nvswitch, pcie_links=1, level_links=None) -> Topology:
    if not isinstance(text, str):
        raise TypeError(f"text must be the output of `nvidia-smi topo -m` as a string, got {type(text).__name__}")
    # ``in`` compares with ==: 1, 1.0 and np.True_ passed and then acted as False (``is True``
    # below), a str equal to everything as "auto" (#28). Only the three values themselves.
    if isinstance(nvswitch, (bool, np.bool_)):
        nvswitch = bool(nvswitch)
    elif isinstance(nvswitch, str) and str.__str__(nvswitch) == "auto":  # the plain str's data
        nvswitch = "auto"
    else:
        raise ValueError(f"nvswitch must be 'auto', True or False, got {nvswitch!r}"[:200])
    pcie_links = check_int("pcie_links", pcie_links, minimum=1, maximum=64, scalar=True)
    level_links = _check_level_links(level_links)
    if len(text) > 1_000_000:
        raise ValueError(f"text is {len(text)} characters; an `nvidia-smi topo -m` output is a few kB (cap 1 000 000)")
    if "Link Type between two GPUs" in text or "ROCm System Management Interface" in text:
        raise ValueError(
            "text is rocm-smi output (AMD GPUs), not nvidia-smi's: read it with ccb.parse_rocm_smi_topo(text)"
        )
    # Recent drivers underline the header with terminal escapes even in a pipe; drop them.
    lines = [_ANSI.sub("", line).replace("\t", " ") for line in text.splitlines()]
    header_at, gpus = None, []
    for i, line in enumerate(lines):
        tokens = line.split()
        # The header starts "GPU0 GPU1 ..." ("GPU0 CPU Affinity ..." on a 1-GPU machine); rows start "GPU0 X ...".
        if tokens and tokens[0] == "GPU0" and (len(tokens) == 1 or tokens[1] != "X"):
            header_at = i
            gpus = list(itertools.takewhile(lambda t: _GPU.match(t) is not None, tokens))
            break
    if header_at is None:
        raise ValueError("no header line with GPU0 GPU1 ... found: pass the output of `nvidia-smi topo -m`")
    n = len(gpus)
    if n < 2:
        raise ValueError(f"line {header_at + 1}: the header lists {n} GPU; an NVLink topology needs at least 2 GPUs")
    if [_gpu_index(g, f"line {header_at + 1}") for g in gpus] != list(range(n)):
        raise ValueError(f"GPU columns must be GPU0 .. GPU{n - 1} in order, got {gpus}")
    if n > MAX_ENDPOINTS:
        raise ValueError(f"{n} GPUs; at most {MAX_ENDPOINTS} are supported")
    _check_parse_memory(f"text: {len(text)} characters, {n} GPUs: memory", len(text), n)
    rows = {}  # GPU index -> (line number, the line, its GPU cells)
    for number, line in enumerate(lines[header_at + 1 :], start=header_at + 2):
        tokens = line.split()
        if tokens and (tokens[0].startswith("Legend") or (tokens[0] == "GPU0" and tokens[1:2] != ["X"])):
            break  # the matrix ends at its legend, or where another printout (topo -p2p …) begins
        if tokens and _GPU.match(tokens[0]):
            i = _gpu_index(tokens[0], f"line {number}")
            where = f"line {number} ({line.strip()[:80]!r})"
            if i >= n:
                raise ValueError(f"{where}: row GPU{i} but the header has only GPU0 .. GPU{n - 1}")
            if i in rows:
                raise ValueError(f"{where}: row GPU{i} appears twice (first on line {rows[i][0]})")
            rows[i] = (number, where, tokens[1 : n + 1])
    matrix = np.zeros((n, n), dtype=np.int64)
    levels: dict[tuple[int, int], str] = {}
    for i in range(n):
        if i not in rows:
            raise ValueError(f"row GPU{i} is missing (header on line {header_at + 1} lists {n} GPUs)")
        _, where, cells = rows[i]
        if len(cells) < n:
            raise ValueError(f"{where}: row GPU{i} has {len(cells)} cells for {n} GPU columns (truncated?)")
        for j, cell in enumerate(cells):
            if i == j:
                if cell != "X":
                    raise ValueError(f"{where}: column GPU{j} should be 'X' on the diagonal, got {cell!r}")
                continue
            if cell in _PCIE_LEVELS:  # the common cell first: a set lookup, no regex
                levels[(i, j)] = _LEVEL_ALIASES.get(cell, cell)
            elif match := _NV.fullmatch(cell):
                matrix[i, j] = _cell_number(match.group(1), f"{where}: column GPU{j}")
                if matrix[i, j] > MAX_LINKS_PER_PAIR:
                    raise ValueError(f"{where}: column GPU{j}: {cell} exceeds {MAX_LINKS_PER_PAIR} links per pair")
            else:
                raise ValueError(f"{where}: column GPU{j}: unknown cell {cell!r} (expected NV#, X or a PCIe level)")
    if not np.array_equal(matrix, matrix.T):
        i, j = map(int, np.argwhere(matrix != matrix.T)[0])
        raise ValueError(
            f"NVLink counts are not symmetric: GPU{i}-GPU{j} is NV{matrix[i, j]} but GPU{j}-GPU{i} is NV{matrix[j, i]}"
        )
    off = matrix[~np.eye(n, dtype=bool)]
    uniform = n >= 2 and off.size and off.min() == off.max() and off.min() > 0
    switched = nvswitch is True or (nvswitch == "auto" and uniform and (n - 1) * int(off.max()) > MAX_NVLINKS_PER_GPU)
    named = name is not None
    name = _check_name(name, f"nvidia-smi: {n} GPUs" + (" (NVSwitch)" if switched else ""))
    if switched:
        if not uniform:
            raise ValueError("nvswitch=True needs the same NV# between every pair of GPUs")
        g = nx.Graph()
        g.add_nodes_from(range(n), kind="endpoint")
        g.add_node(("switch", 0), kind="switch")
        for v in range(n):
            g.add_edge(v, ("switch", 0), links=int(off.max()))
        return _build(g, n, name, None, "text")
    nvlinked = nx.Graph()
    nvlinked.add_nodes_from(range(n))
    nvlinked.add_edges_from((i, j) for i in range(n) for j in range(i + 1, n) if matrix[i, j])
    if nx.is_connected(nvlinked):
        return topology_from_links(matrix, name=name)
    # NVLinks do not join every GPU (a PCIe-only box, NVLink bridges on pairs): the PCIe tree does.
    _check_work(n, nvlinked.number_of_edges() + 2 * n)  # the NVLink pairs and the PCIe tree's edges
    _check_pcie_bisection(n, levels, nvlinked.number_of_edges())
    g = _pcie_tree(n, levels, pcie_links, level_links)
    for i, j in nvlinked.edges:
        g.add_edge(i, j, links=int(matrix[i, j]))
    kind = "PCIe" if not nvlinked.number_of_edges() else "NVLink bridges + PCIe"
    return _build(g, n, name if named else f"nvidia-smi: {n} GPUs ({kind})", None, "text")
