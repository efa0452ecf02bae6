"""Chapter 8's live explorer: :class:`~ccb_helpers.nccl_figures.NcclExplorer` on the static page.

The controls are discrete (preset x N x log2 M x efficiency): 263 (preset, N) communicators x 32
sizes. The readout of every state is precomputed here from
:func:`~ccb_helpers.nccl_figures.nccl_state` (the function the Jupyter explorer's ``refresh``
draws) and packed (:func:`ccb_helpers.live.compress.compress_texts`); it does not depend on the efficiency box.

The curves -- 160 sizes x 8 algorithm/protocol pairs and two bounds per communicator, 420 000
numbers in all -- are not stored: per communicator this exports the model's coefficients (NCCL's
latency and bandwidth of each pair from ``_tuning``, the channel count, the bound's α-term and
volume coefficients), and ``_static/live/nccl_explorer.js`` evaluates NCCL 2.21.5's
``ncclTopoGetAlgoTime`` (:func:`~ccb_helpers.nccl_model._algo_time_us`: tree correction, ring
plateau) and the two-level bounds (:func:`~ccb_helpers.nccl_bound._two_level_bound`,
``_in_network_bound``) with the same floating-point operations in the same order, so the page's
numbers equal Python's bit for bit -- pinned by ``tests/test_live_nccl.py`` on >= 1000 random states.
"""

from __future__ import annotations

from ..bandwidth import volume_coefficient
from ..nccl_bound import _bound_parameters, _egress
from ..nccl_figures import NCCL_PICK_COLORS, NcclExplorer, _explorer_curves, _label, _nccl_point
from ..nccl_model import NCCL_MODEL_VERSION, NCCL_TOPOLOGIES, TREE_CORRECTION, _resolve_topology, _tuning
from ..plotting import COLORS
from ..propagation import info_steps
from ..units import format_bytes
from .cache import cached
from .compress import compress_texts
from .controls import controls_spec

__all__ = ["export", "data", "rank_counts"]

LOG2_M = range(3, 35)


def rank_counts(preset: str) -> range:
    """The N the control offers for ``preset`` (the ranges of ``NcclExplorer._adjust``).

    >>> list(rank_counts("dgx_h100")), len(rank_counts("ib_h100")), rank_counts("ib_h100")[-1]
    ([2, 3, 4, 5, 6, 7, 8], 256, 2048)
    """
    if preset not in NCCL_TOPOLOGIES:
        raise ValueError(f"preset must be one of {sorted(NCCL_TOPOLOGIES)}, got {preset!r}")
    return range(2, 9) if preset == "dgx_h100" else range(8, 2049, 8)


def _communicator(preset: str, n: int) -> dict:
    """The coefficients the page evaluates the curves of one (preset, N) with."""
    nodes = 1 if preset == "dgx_h100" else n // 8
    topo = _resolve_topology(preset, {}, nodes, n // nodes)
    latency, bandwidth = _tuning("all_reduce", n, nodes, topo)
    alpha, beta, node_beta = _bound_parameters(topo)
    return {
        "nodes": nodes,
        "channels": topo.channels,
        "plateau": 1.9 if topo.gpu == "volta" else 1.4,
        # [label, algorithm, protocol, latency µs, bandwidth GB/s] in NCCL's order (the pick's tie rule)
        "pairs": [[_label(key), key[0], key[1], float(latency[key]), float(bandwidth[key])] for key in latency],
        "t_alpha": info_steps(n, 1) * alpha,
        "alpha": alpha,
        "beta": _egress(n, nodes, beta, node_beta),  # the GPU's links and its share of the network
        "node_beta": node_beta,
        "c_n": float(volume_coefficient("all_reduce", n)),
        "c_k": float(volume_coefficient("all_reduce", nodes)),
    }


def data() -> dict:
    """Every state's data (:func:`_data`), cached on disk for this version of the package."""
    return cached("nccl_explorer", _data)


def _data() -> dict:
    """Readouts of every state and the coefficients of every communicator (module docstring)."""
    states, readouts, groups = {}, [], {}
    for preset in NCCL_TOPOLOGIES:
        states[preset], groups[preset] = {}, {}
        for n in rank_counts(preset):
            first = len(readouts)
            for log2_m in LOG2_M:
                readouts.append(_nccl_point(preset, n, log2_m)["readout"])  # nccl_state's readout, without its curves
            states[preset][str(n)] = first
            groups[preset][str(n)] = _communicator(preset, n)
    version, sizes, *_ = _explorer_curves("dgx_h100", 8, 1)
    return {
        "states": states,
        "readouts": compress_texts(readouts),
        "communicators": groups,
        "version": version,
        "model_version": NCCL_MODEL_VERSION,
        "sizes": [int(m) for m in sizes],
        "tree_correction": {p: list(v) for p, v in TREE_CORRECTION.items()},
        "size_labels": {str(e): format_bytes(2**e) for e in LOG2_M},
        "xticks": [[2.0**e, format_bytes(2.0**e)] for e in (4, 10, 20, 30)],
        "colors": dict(NCCL_PICK_COLORS, bound=COLORS["bound"]),
        "labels": {
            "x": "消息大小 M",
            "time": "时间（µs）",
            "efficiency": "效率 = 下界 / NCCL 估计",
            "bound": "下界",
            "in_network": "下界（网内归约）",
        },
    }


def export(*args) -> dict:
    """The live element's JSON: explorer name, constructor arguments, controls and :func:`data`."""
    explorer = NcclExplorer(*args)
    try:
        controls = controls_spec(explorer)
    finally:
        explorer.close()
    return {"explorer": "NcclExplorer", "args": list(args), "controls": controls, "data": data()}
