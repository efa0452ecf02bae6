"""Chapter 3's explorer: the bytes the busiest node must move, and the bandwidth bound."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets
import numpy as np

from ..bandwidth import bandwidth_lower_bound, forced_volume, role_volumes, volume_coefficient
from ..live.figure import panel, series
from ..plotting import BOOK_WIDTH, COLORS, SMALL
from ..primitives import PRIMITIVE_LABELS
from ..units import format_bandwidth, format_bytes, format_time
from .base import STYLE, Explorer, slider_args
from .frame import Frame

__all__ = ["BandwidthExplorer", "bandwidth_frame", "primitive_dropdown", "size_slider"]

_ROLE_NAMES = {"root": "root", "non_root": "非 root", "every_node": "每个节点"}
_N_CURVE = np.unique(np.geomspace(2, 1024, 200).astype(np.int64))
_N_TICKS = (4, 16, 64, 256, 1024)  # the live page's ticks on the N axis (room for each label on a phone)
_LIMIT_COLOR = "#999999"  # the coefficient's limit for large N
_UNITS = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("B", 1))


def primitive_dropdown(value: str) -> widgets.Dropdown:
    """The primitive control shared by the bandwidth and bisection explorers."""
    return widgets.Dropdown(
        options=[(label, key) for key, label in PRIMITIVE_LABELS.items()],
        value=value,
        description="原语",
        style=STYLE,
        layout=widgets.Layout(width="auto"),
    )


def size_slider(value: float, low: int = 10, high: int = 34) -> widgets.SelectionSlider:
    """Message size M in bytes, powers of two from ``2**low`` to ``2**high``, shown as "1 GiB"."""
    return widgets.SelectionSlider(
        options=[(format_bytes(2.0**e), 2.0**e) for e in range(low, high + 1)], value=value, **slider_args("M")
    )


@lru_cache(maxsize=16)
def _coefficients(primitive: str):
    curve = np.asarray(volume_coefficient(primitive, _N_CURVE), dtype=float)
    return curve, float(volume_coefficient(primitive, 2**40))


class BandwidthExplorer(Explorer):
    """Bandwidth lower bound: per-node forced bytes by role, the bound, and ``max(S, R)/M`` against N.

    Controls: ``primitive``, ``n`` (2-256), ``k`` (ports, ``p = k`` links used in parallel),
    ``m`` (bytes, a power of two from 1 KiB to 16 GiB) and ``beta_gbps`` (link bandwidth per
    direction, GB/s).

    Examples
    --------
    >>> e = BandwidthExplorer(primitive="all_gather", n=8, k=2, m=2**30, beta_gbps=100)
    >>> round(e.bound * 1e3, 3)   # 7/8 GiB over 2 x 100 GB/s
    4.698
    >>> e.close()
    """

    figsize = (BOOK_WIDTH, 3.5)

    def _controls(self) -> dict:
        return {
            "primitive": primitive_dropdown("all_reduce"),
            "n": widgets.IntSlider(value=8, min=2, max=256, **slider_args("节点数 N")),
            "k": widgets.IntSlider(value=1, min=1, max=8, **slider_args("端口数 k")),
            "m": size_slider(2.0**30),
            "beta_gbps": widgets.FloatLogSlider(
                value=100, base=10, min=0, max=3, step=0.01, readout_format=".3g", **slider_args("β (GB/s)")
            ),
        }

    def setup(self, figure) -> None:
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.15, 1]})
        figure.subplots_adjust(left=0.1, right=0.98, bottom=0.2, top=0.86, wspace=0.3)
        x = np.arange(3)
        self.send = left.bar(x - 0.2, np.ones(3), width=0.4, color=COLORS["latency"], label="发送 S")
        self.recv = left.bar(x + 0.2, np.ones(3), width=0.4, color=COLORS["bandwidth"], label="接收 R")
        left.legend(loc="upper left", ncol=2, fontsize=SMALL)
        (self.curve,) = right.plot([], [], color=COLORS["bound"])
        (self.point,) = right.plot([], [], "o", color=COLORS["bandwidth"], zorder=3)
        self.limit = right.axhline(1, color=_LIMIT_COLOR, linestyle="--", linewidth=0.8)
        right.set_xscale("log", base=2)
        right.xaxis.set_major_formatter(lambda v, _pos: f"{v:g}")  # 4, 16 ... 1024: plain text draws faster than 2^k
        right.set_xlim(_N_CURVE[0] / 1.2, _N_CURVE[-1] * 1.2)
        right.set_ylim(0, 2.3)  # every primitive's coefficient is at most 2: one scale for all
        right.set_xlabel("节点数 N")
        right.set_ylabel("max(S, R) / M")
        self.left, self.right = left, right

    def refresh(self, **values) -> str:
        frame = bandwidth_frame(**values)  # the numbers the live page shows too
        self.bound, self.volume = frame.numbers["bound"], frame.numbers["volume"]
        left_spec, right_spec = frame.figure["panels"]
        send, recv = left_spec["series"]
        groups = len(send["y"])
        for i in range(3):
            for bars, spec in ((self.send, send), (self.recv, recv)):
                bars[i].set_visible(i < groups)
                bars[i].set_height(spec["y"][i] if i < groups else 0)
        left = self.left
        left.set_xlim(*left_spec["xlim"])
        left.set_ylim(*left_spec["ylim"])  # head room for the legend above the tallest bar
        left.set_xticks(
            [x for x, _ in left_spec["xticks"]], [label for _, label in left_spec["xticks"]], fontsize=SMALL
        )
        left.set_ylabel(left_spec["ylabel"])
        left.set_title(left_spec["title"], fontsize=10.5)
        curve, point, limit = right_spec["series"]
        self.curve.set_data(curve["x"], curve["y"])
        self.point.set_data(point["x"], point["y"])
        self.limit.set_ydata(limit["y"] * 2)
        self.right.set_title(right_spec["title"], fontsize=10.5)
        return frame.readout


def _bars(x, y, color: str, label: str) -> dict:
    """Bars 0.4 wide (data units: two per group side by side), as the figure draws them (``bar_width``)."""
    return {**series("bar", x, y, color=color, label=label, width=0.4), "bar_width": 0.4}


def bandwidth_frame(primitive, n, k, m, beta_gbps) -> Frame:
    """What :class:`BandwidthExplorer` shows for these control values: readout, FigureSpec, numbers.

    A pure function of the values (no matplotlib): the explorer's redraw and the live page's
    data come from it. ``numbers`` holds ``bound`` (s, ``eq:cc-bound-bw-general``), ``volume``
    (the busiest node's :class:`~ccb_helpers.bandwidth.Volume`) and ``coefficient`` (max(S, R) / M).

    Examples
    --------
    >>> f = bandwidth_frame("all_gather", 8, 2, 2.0**30, 100.0)
    >>> round(f.numbers["bound"] * 1e3, 3)   # 7/8 GiB over 2 x 100 GB/s
    4.698
    >>> f.figure["panels"][0]["series"][0]["y"]   # MiB sent: M/N by information flow, 7M/8 by conservation
    [128.0, 896.0]
    """
    beta = beta_gbps * 1e9
    bound = bandwidth_lower_bound(primitive, n, m, beta, ports=k)
    volume = forced_volume(primitive, n, m)
    roles = role_volumes(primitive, n, m)
    sends = [v.send for v in roles.values()] + [volume.send]
    recvs = [v.recv for v in roles.values()] + [volume.recv]
    top = max(max(sends), max(recvs), 1.0)
    unit, scale = next((u, s) for u, s in _UNITS if top >= s)
    groups = len(sends)
    labels = [_ROLE_NAMES[r] + "\n（单节点必传）" for r in roles] + ["最忙节点\n（守恒 / 计数）"]
    left = panel(
        title=f"{PRIMITIVE_LABELS[primitive]}，N = {n}，M = {format_bytes(m)}",
        ylabel=f"字节（{unit}）",
        xlim=(-0.6, groups - 0.4),
        ylim=(0, top / scale * 1.35),
        xticks=list(enumerate(labels)),
        legend=True,
        series_list=[
            _bars([i - 0.2 for i in range(groups)], [v / scale for v in sends], COLORS["latency"], "发送 S"),
            _bars([i + 0.2 for i in range(groups)], [v / scale for v in recvs], COLORS["bandwidth"], "接收 R"),
        ],
    )
    curve, limit = _coefficients(primitive)
    coefficient = float(volume_coefficient(primitive, n))
    right = panel(
        title=f"系数随 N 增大趋于 {limit:.3g}",
        xlabel="节点数 N",
        ylabel="max(S, R) / M",
        xscale="log",
        xlim=(_N_CURVE[0] / 1.2, _N_CURVE[-1] * 1.2),
        ylim=(0, 2.3),  # every coefficient is at most 2: one scale
        xticks=[(v, f"{v:g}") for v in _N_TICKS],
        series_list=[
            series("line", _N_CURVE.tolist(), curve.tolist(), color=COLORS["bound"]),
            series("scatter", [n], [coefficient], color=COLORS["bandwidth"], marker=True),
            series("hline", y=[limit], color=_LIMIT_COLOR, dash=True, width=0.8),
        ],
    )
    readout = (
        f"<b>{PRIMITIVE_LABELS[primitive]}，N = {n}，M = {format_bytes(m)}</b>：最忙节点至少发送 "
        f"{format_bytes(volume.send)}、接收 {format_bytes(volume.recv)}。<br>"
        f"k = {k} 条链路同时收发，每条 β = {format_bandwidth(beta)} ⇒ 带宽下界 "
        f"T<sub>β</sub> ≥ max(S, R) / (k·β) = <b>{format_time(bound)}</b>。"
    )
    return Frame(readout, {"panels": [left, right]}, {"bound": bound, "volume": volume, "coefficient": coefficient})
