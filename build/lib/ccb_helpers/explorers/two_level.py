"""Chapter 9's explorer: AllReduce on GPUs in nodes, every algorithm against the two-level bound."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets
import numpy as np

from ..algorithms import ALGORITHM_LABELS
from ..live.figure import panel, series, text
from ..plotting import BOOK_WIDTH, COLORS, SMALL
from ..two_level_network import two_level, two_level_hardware, two_level_lower_bound
from ..two_level_selection import TWO_LEVEL_CANDIDATES, two_level_times
from ..units import format_bytes, format_time
from .base import STYLE, Explorer, slider_args
from .frame import Frame

__all__ = ["TwoLevelExplorer", "two_level_frame", "NODE_COUNTS", "GPUS_PER_NODE"]

#: Node counts the slider offers (powers of two and not), 8 GPUs each.
NODE_COUNTS = (1, 2, 3, 4, 6, 8, 12, 16)
GPUS_PER_NODE = 8
_EXPONENTS = range(10, 33)  # 1 KiB .. 4 GiB
_SIZES = [2.0**e for e in _EXPONENTS]
_M_TICKS = [[2.0**e, format_bytes(2.0**e)] for e in range(10, 33, 6)]
_RATIO_MAX = 6.0
_NIC_LABELS = {"gpu": "每个 GPU 一块网卡（rail）", "node": "每个节点一块网卡"}
_COLORS = {
    "ring": COLORS["ring"],
    "recursive_doubling": COLORS["recursive_doubling"],
    "recursive_halving_doubling": COLORS["recursive_halving_doubling"],
    "swing": "#9467bd",
    "double_binary_tree": COLORS["double_binary_tree"],
    "hierarchical_ring": "#ff7f0e",
    "two_level_tree": "#1f77b4",
}
_SHORT = {
    "ring": "Ring",
    "recursive_doubling": "RD",
    "recursive_halving_doubling": "RHD",
    "swing": "Swing",
    "double_binary_tree": "DBT",
    "hierarchical_ring": "分层环",
    "two_level_tree": "两级树",
}
_HARDWARE = two_level_hardware()  # H100 NVLink (18 x 25 GB/s, 1 us) + NDR 400 Gb/s NICs (3 us)


@lru_cache(maxsize=64)
def _curves(nodes: int, nic: str, ports: int):
    """Times of every candidate and the bound over the size grid (seconds), for one hardware shape."""
    topology = two_level(nodes, GPUS_PER_NODE, nic)
    times = two_level_times(topology, np.array(_SIZES), _HARDWARE, ports=ports)
    bounds = [two_level_lower_bound("all_reduce", topology, m, _HARDWARE, ports) for m in _SIZES]
    return {name: np.atleast_1d(t) for name, t in times.items()}, bounds


def two_level_frame(nodes, m, nic, ports) -> Frame:
    """What :class:`TwoLevelExplorer` shows: readout, FigureSpec and numbers (a pure function).

    ``numbers``: ``times`` (s per algorithm at ``m``), ``bound`` (the
    :class:`~ccb_helpers.TwoLevelBound`), ``best`` (the fastest algorithm) and ``ratio``.

    >>> f = two_level_frame(2, 2.0**30, "gpu", 1)
    >>> f.numbers["best"], round(f.numbers["ratio"], 3)
    ('hierarchical_ring', 1.002)
    """
    index = _SIZES.index(float(m))
    times, bounds = _curves(nodes, nic, ports)
    bound = bounds[index]
    at_m = {name: float(t[index]) for name, t in times.items()}
    best = min(at_m, key=at_m.get)  # ties: the first listed
    ratio = at_m[best] / bound.total
    n = nodes * GPUS_PER_NODE
    left = panel(
        title=f"N = {nodes} × {GPUS_PER_NODE} = {n}，{ports} 个端口：时间 / 下界",
        xlabel="消息大小 M",
        ylabel="时间 / 两级下界",
        xscale="log",
        xlim=(_SIZES[0] / 1.5, _SIZES[-1] * 1.5),
        ylim=(0.9, _RATIO_MAX),
        xticks=_M_TICKS,
        yticks=[[v, f"{v:g}"] for v in (1, 2, 3, 4, 5, 6)],
        legend=True,
        series_list=[
            series("hline", y=[1.0], color=COLORS["bound"], dash=True, width=1.0),
            series("vline", x=[float(m)], color="#999999", width=1.0),
        ]
        + [
            series(
                "line",
                _SIZES,
                [min(float(v), _RATIO_MAX * 1.2) for v in t / np.array([b.total for b in bounds])],
                color=_COLORS[name],
                label=_SHORT[name],
                width=2.2 if name == best else 1.3,
            )
            for name, t in times.items()
        ],
    )
    names = list(TWO_LEVEL_CANDIDATES)
    values = [at_m[name] * 1e3 for name in names]
    top = max(max(values), bound.total * 1e3) * 1.25
    right = panel(
        title=f"M = {format_bytes(m)}：各算法时间（ms）",
        ylabel="时间（ms）",
        xlim=(-0.6, len(names) - 0.4),
        ylim=(0, top),
        xticks=[[i, _SHORT[name]] for i, name in enumerate(names)],
        series_list=[series("bar", [i], [v], color=_COLORS[name]) for i, (name, v) in enumerate(zip(names, values))]
        + [series("hline", y=[bound.total * 1e3], color=COLORS["bound"], dash=True, width=1.2)],
        texts=[text(len(names) - 0.5, bound.total * 1e3, "下界", anchor="end", valign="bottom", size=11)],
    )
    term = (
        "节点割（网卡）"
        if bound.binding == "node"
        else ("GPU 端点（NVLink 与网卡" + ("轮流）" if ports == 1 else "同时）"))
    )
    readout = (
        f"<b>{nodes} 个节点 × {GPUS_PER_NODE} 块 H100（N = {n}），{_NIC_LABELS[nic]}，M = {format_bytes(m)}</b>："
        f"最快的是 <b>{ALGORITHM_LABELS[best]}</b>，{format_time(at_m[best])}；"
        f"两级下界 {format_time(bound.total)}（延迟 {format_time(bound.latency)} + 带宽项，{term}起决定作用），"
        f"比值 <b>{ratio:.2f}</b>。"
    )
    return Frame(readout, {"panels": [left, right]}, {"times": at_m, "bound": bound, "best": best, "ratio": ratio})


class TwoLevelExplorer(Explorer):
    """AllReduce on ``nodes`` x 8 H100 (NVLink 450 GB/s, 400 Gb/s NICs): every algorithm over the two-level bound.

    Controls: ``nodes`` (1-16, powers of two and not), ``m`` (1 KiB-4 GiB), ``nic`` (one NIC per
    GPU or per node) and ``ports`` (1: NVLink and NIC in turn; 2: at once, the hierarchical ring
    may pipeline).

    Examples
    --------
    >>> e = TwoLevelExplorer(nodes=4, m=2**12, nic="gpu", ports=1)
    >>> e.best
    'recursive_doubling'
    >>> e.update(m=2**30); e.best
    'hierarchical_ring'
    >>> e.close()
    """

    figsize = (BOOK_WIDTH, 3.6)
    readout_lines = 3

    def _controls(self) -> dict:
        return {
            "nodes": widgets.SelectionSlider(
                options=[(str(k), k) for k in NODE_COUNTS], value=2, **slider_args("节点数 K")
            ),
            "m": widgets.SelectionSlider(
                options=[(format_bytes(v), v) for v in _SIZES], value=2.0**24, **slider_args("M")
            ),
            "nic": widgets.Dropdown(
                options=[(label, key) for key, label in _NIC_LABELS.items()],
                value="gpu",
                description="网卡",
                style=STYLE,
                layout=widgets.Layout(width="auto"),
            ),
            "ports": widgets.Dropdown(
                options=[("1 个端口（NVLink、网卡轮流）", 1), ("2 个端口（同时）", 2)],
                value=1,
                description="端口",
                style=STYLE,
                layout=widgets.Layout(width="auto"),
            ),
        }

    def setup(self, figure) -> None:
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
        figure.subplots_adjust(left=0.08, right=0.98, bottom=0.2, top=0.86, wspace=0.28)
        self.lines = {
            name: left.plot([], [], color=_COLORS[name], label=_SHORT[name])[0] for name in TWO_LEVEL_CANDIDATES
        }
        left.axhline(1.0, color=COLORS["bound"], linestyle="--", linewidth=1.0)
        self.marker = left.axvline(_SIZES[0], color="#999999", linewidth=1.0)
        left.set_xscale("log", base=2)
        left.set_xlim(_SIZES[0] / 1.5, _SIZES[-1] * 1.5)
        left.set_ylim(0.9, _RATIO_MAX)
        left.set_xticks([v for v, _ in _M_TICKS], [label for _, label in _M_TICKS])
        left.set_xlabel("消息大小 M")
        left.set_ylabel("时间 / 两级下界")
        left.legend(loc="upper right", ncol=2, fontsize=SMALL)
        names = list(TWO_LEVEL_CANDIDATES)
        self.bars = right.bar(range(len(names)), np.ones(len(names)), color=[_COLORS[a] for a in names])
        right.set_xticks(range(len(names)), [_SHORT[a] for a in names], fontsize=SMALL, rotation=30)
        right.set_ylabel("时间（ms）")
        self.bound_line = right.axhline(1.0, color=COLORS["bound"], linestyle="--", linewidth=1.2)
        self.left, self.right = left, right

    def refresh(self, **values) -> str:
        frame = two_level_frame(**values)
        self.best, self.ratio = frame.numbers["best"], frame.numbers["ratio"]
        left_spec, right_spec = frame.figure["panels"]
        for spec in left_spec["series"][2:]:
            name = next(a for a, s in _SHORT.items() if s == spec["label"])
            self.lines[name].set_data(spec["x"], spec["y"])
            self.lines[name].set_linewidth(spec["width"])
        self.marker.set_xdata([values["m"]] * 2)
        self.left.set_title(left_spec["title"], fontsize=10.5)
        for bar, spec in zip(self.bars, right_spec["series"][:-1]):
            bar.set_height(spec["y"][0])
        self.bound_line.set_ydata([right_spec["series"][-1]["y"][0]] * 2)
        self.right.set_ylim(*right_spec["ylim"])
        self.right.set_title(right_spec["title"], fontsize=10.5)
        return frame.readout
