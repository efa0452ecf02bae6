"""Chapter 4's explorer: every algorithm of a primitive against the combined lower bound (α, β, γ)."""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.ticker import NullLocator

from ..algorithms import ALGORITHM_LABELS, algorithm_cost, applicable_algorithms
from ..bounds import REDUCING_PRIMITIVES, combined_lower_bound, crossover_size
from ..hardware import PRESETS
from ..live.figure import panel, series
from ..plotting import BOOK_WIDTH, COLORS, SMALL
from ..primitives import PRIMITIVE_LABELS
from ..selection import best_algorithm_bands
from ..units import format_bandwidth, format_bytes, format_time
from .base import STYLE, Explorer, slider_args
from .frame import Frame

__all__ = ["AlgorithmExplorer", "algorithm_frame"]

_PRIMITIVE = "all_reduce"  # the default
#: The primitives the explorer offers: the two the bounds compare most, and the rooted pair of the
#: pipelined chain and tree.
PRIMITIVES = ("all_reduce", "reduce_scatter", "broadcast", "reduce")
_M = np.geomspace(2.0**6, 2.0**32, 160)
_M_TICK_EXPONENTS = range(6, 33, 4)  # 64 B, 1 KiB, 16 KiB ... 1 GiB: room for every label
_BAND_POINTS = 240  # sizes at which the fastest algorithm is sampled for the bands
_BANDS_LISTED = 4  # bands named in the readout at most (the first three, then the last)
_EFFICIENCY_TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
_M_STAR_COLOR = "#999999"
_BAND_ALPHA = 0.9
_NO_COLOR = "#cccccc"  # an algorithm without a colour of its own in COLORS
_CANDIDATES = list(
    dict.fromkeys(
        name for primitive in PRIMITIVES for k in (2, 1) for name in applicable_algorithms(primitive, ports=k)
    )
)
#: γ slider, picoseconds per byte added: 0.1 ps (a fast GPU's HBM) to 1 ns (a CPU core).
_GAMMA_MIN, _GAMMA_MAX = -1, 3
_GAMMA_DEFAULT_PS = 1.0


_STEP = 0.001  # log10 step of the alpha and beta sliders: the page snaps a value to it


def _snap(value: float) -> float:
    """``value`` on the slider's grid, so the page has nothing to snap (and send back)."""
    return float(10 ** (round(np.log10(value) / _STEP) * _STEP))


def _on_preset(preset: str, alpha_us: float, beta_gbps: float) -> bool:
    """Whether the sliders show this preset's alpha and beta (up to the page's snapping to a step)."""
    p = PRESETS[preset]
    close = 0.51 * _STEP + 1e-12
    return abs(np.log10(alpha_us / (p.alpha * 1e6))) <= close and abs(np.log10(beta_gbps / (p.beta / 1e9))) <= close


def _preset_gamma_ps(preset: str):
    """The preset's γ in ps per byte on the slider's grid, or ``None`` (no processor named)."""
    gamma = PRESETS[preset].gamma
    return None if gamma is None else _snap(gamma * 1e12)


class AlgorithmExplorer(Explorer):
    """Time against M for the lower bound and every algorithm of a primitive, with the best one per size band.

    Controls: ``preset`` (sets α and β, and γ when the preset names one; ``"custom"`` leaves
    them to the sliders, and moving the α or β slider switches to it), ``alpha_us``,
    ``beta_gbps``, ``gamma_ps`` (seconds per byte added, in ps) with ``with_gamma`` (count the
    computation at all: γ = 0 otherwise), ``primitive`` (AllReduce, ReduceScatter, Broadcast,
    Reduce), ``n``, ``k`` (ports: 2 brings the bidirectional ring, the two-halves RHD and radix-3
    Bruck in) and ``efficiency`` (plot bound / time instead of time).

    Examples
    --------
    >>> e = AlgorithmExplorer(preset="a100_nvlink", n=64, k=1)
    >>> [name for *_, name in e.bands]
    ['recursive_doubling', 'recursive_halving_doubling']
    >>> e.update(n=48); [name for *_, name in e.bands]   # no power of two: Bruck, not a folded RHD
    ['recursive_doubling', 'bruck']
    >>> e.update(primitive="broadcast"); [name for *_, name in e.bands]   # scatter + Bruck all-gather in the middle
    ['binomial_tree', 'bruck', 'pipelined_chain']
    >>> round(AlgorithmExplorer(preset="ib_ndr").values["alpha_us"], 2)   # the preset sets alpha
    3.0
    >>> e.close()
    """

    figsize = (BOOK_WIDTH, 3.7)
    # Five: at N = 95-931 the bands and the note take three lines and two small ones in JupyterLab
    # (4 were reserved and the figure jumped 28 px; tests/test_explorers.py bounds the worst case).
    readout_lines = 5

    def _controls(self) -> dict:
        first = PRESETS["a100_nvlink"]
        options = [(p.label, key) for key, p in PRESETS.items()] + [("自定义 α、β（用下面两个滑块）", "custom")]
        return {
            "preset": widgets.Dropdown(
                options=options,
                value="a100_nvlink",
                description="硬件",
                style=STYLE,
                layout=widgets.Layout(width="auto"),
            ),
            "alpha_us": widgets.FloatLogSlider(
                value=_snap(first.alpha * 1e6),
                base=10,
                min=-1,
                max=2,
                step=_STEP,
                readout_format=".3g",
                **slider_args("α (µs)"),
            ),
            "beta_gbps": widgets.FloatLogSlider(
                value=_snap(first.beta / 1e9),
                base=10,
                min=0,
                max=3,
                step=_STEP,
                readout_format=".3g",
                **slider_args("β (GB/s)"),
            ),
            "gamma_ps": widgets.FloatLogSlider(
                value=_preset_gamma_ps("a100_nvlink"),
                base=10,
                min=_GAMMA_MIN,
                max=_GAMMA_MAX,
                step=_STEP,
                readout_format=".3g",
                **slider_args("γ (ps/B)"),
            ),
            "with_gamma": widgets.Checkbox(value=False, description="计入归约的计算代价 γ", style=STYLE, indent=False),
            "primitive": widgets.Dropdown(
                options=[(PRIMITIVE_LABELS[p], p) for p in PRIMITIVES],
                value=_PRIMITIVE,
                description="原语",
                style=STYLE,
                layout=widgets.Layout(width="auto"),
            ),
            "n": widgets.IntSlider(value=16, min=2, max=1024, **slider_args("节点数 N")),
            "k": widgets.IntSlider(value=1, min=1, max=2, **slider_args("端口数 k")),
            "efficiency": widgets.Checkbox(value=False, description="画效率（下界 / 时间）", style=STYLE, indent=False),
        }

    def _adjust(self, name: str) -> None:
        preset = self.controls["preset"].value
        if name == "preset" and preset != "custom":
            p = PRESETS[preset]
            self.controls["alpha_us"].value = _snap(p.alpha * 1e6)
            self.controls["beta_gbps"].value = _snap(p.beta / 1e9)
            if _preset_gamma_ps(preset) is not None:
                self.controls["gamma_ps"].value = _preset_gamma_ps(preset)
        elif name in ("alpha_us", "beta_gbps") and preset != "custom":
            if not _on_preset(preset, self.controls["alpha_us"].value, self.controls["beta_gbps"].value):
                self.controls["preset"].value = "custom"

    def _validate(self, values: dict) -> None:
        if values["preset"] != "custom":
            p = PRESETS[values["preset"]]
            if not _on_preset(values["preset"], values["alpha_us"], values["beta_gbps"]):
                raise ValueError(
                    f"alpha_us / beta_gbps contradict preset {values['preset']!r} (α = {format_time(p.alpha)}, "
                    f"β = {format_bandwidth(p.beta)}); pass preset='custom' to set them freely"
                )

    def setup(self, figure) -> None:
        ax = figure.subplots()
        figure.subplots_adjust(left=0.13, right=0.7, bottom=0.14, top=0.9)
        (self.bound_line,) = ax.plot([], [], color=COLORS["bound"], linewidth=2.5, label="下界 max(Tα, Tβ)")
        self.lines = {
            name: ax.plot([], [], color=COLORS.get(name), label=ALGORITHM_LABELS[name])[0] for name in _CANDIDATES
        }
        self.m_star = ax.axvline(1, color=_M_STAR_COLOR, linestyle="--", linewidth=1, label="$M^*$")
        self.band_patches = PolyCollection([], transform=ax.get_xaxis_transform(), alpha=_BAND_ALPHA, zorder=3)
        ax.add_collection(self.band_patches)
        ax.set_xscale("log", base=2)
        ax.set_xlim(_M[0], _M[-1])
        ax.set_xticks([2.0**e for e in _M_TICK_EXPONENTS])
        ax.xaxis.set_major_formatter(lambda v, _pos: format_bytes(v))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("消息大小 M")
        self.ax = ax

    def refresh(self, preset, alpha_us, beta_gbps, gamma_ps, with_gamma, primitive, n, k, efficiency) -> str:
        # What the live page shows too.
        frame = algorithm_frame(preset, alpha_us, beta_gbps, n, k, efficiency, primitive, gamma_ps, with_gamma)
        numbers = frame.numbers
        spec = frame.figure["panels"][0]
        names = numbers["names"]
        ax = self.ax
        self.times = numbers["times"]
        for name, line in self.lines.items():
            line.set_visible(name in names)
            if name in names:
                line.set_data(_M, numbers["bound"] / self.times[name] if efficiency else self.times[name])
        self.bound_line.set_visible(not efficiency)
        self.bound_line.set_data(_M, numbers["bound"])
        self.m_star_value = numbers["m_star"]
        self.m_star.set_xdata([self.m_star_value, self.m_star_value])
        self.bands = numbers["bands"]
        # Each band runs to where the next one starts (the bands are sampled: no white gaps).
        edges = [a for a, _, _ in self.bands] + [_M[-1]]
        self.band_patches.set_verts([[(a, 0), (a, 0.035), (b, 0.035), (b, 0)] for a, b in zip(edges, edges[1:])])
        self.band_patches.set_facecolor([COLORS.get(name, _NO_COLOR) for *_, name in self.bands])
        if efficiency:
            ax.set_yscale("linear")
            ax.yaxis.set_major_formatter(lambda v, _pos: f"{v:g}")
        else:
            ax.set_yscale("log")
            ax.yaxis.set_minor_locator(NullLocator())
            ax.yaxis.set_major_formatter(lambda v, _pos: format_time(v))
        ax.set_ylim(*spec["ylim"])
        ax.set_ylabel(spec["ylabel"])
        handles = ([] if efficiency else [self.bound_line]) + [self.lines[name] for name in names] + [self.m_star]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=SMALL, borderaxespad=0)
        ax.set_title(spec["title"], fontsize=10.5)
        self.m_star_text = numbers["m_star_text"]
        return frame.readout


def _band_series(bands, ylim, log: bool) -> list:
    """The strip of size bands at the foot of the axes (3.5 % of its height), one band series each."""
    low, high = ylim
    top = low * (high / low) ** 0.035 if log else low + 0.035 * (high - low)
    edges = [a for a, _, _ in bands] + [_M[-1]]
    return [
        series("band", [a, b], [low, low], y2=[top, top], color=COLORS.get(name, _NO_COLOR), alpha=_BAND_ALPHA)
        for a, b, (*_, name) in zip(edges, edges[1:], bands)
    ]


def algorithm_frame(
    preset,
    alpha_us,
    beta_gbps,
    n,
    k,
    efficiency,
    primitive=_PRIMITIVE,
    gamma_ps=_GAMMA_DEFAULT_PS,
    with_gamma=False,
) -> Frame:
    """What :class:`AlgorithmExplorer` shows for these control values: readout, FigureSpec, numbers.

    A pure function of the values (no matplotlib): the explorer's redraw and the live page's
    data come from it. ``numbers`` holds ``bound`` (``eq:cc-bound-combined`` on the size grid,
    with the computation term when ``with_gamma``), ``times`` (each applicable algorithm's cost
    on that grid, pipelined ones at their best chunk count), ``m_star`` (``eq:cc-bound-crossover``),
    ``m_star_text``, ``bands`` (fastest algorithm per size band) and ``names`` (the algorithms shown).

    Examples
    --------
    >>> f = algorithm_frame("custom", 1.0, 10.0, 8, 1, False)   # M* = 3 alpha beta / (7/4)
    >>> f.numbers["m_star_text"], [name for *_, name in f.numbers["bands"]]
    ('16.7 KiB', ['recursive_doubling', 'recursive_halving_doubling'])
    >>> f = algorithm_frame("custom", 1.0, 10.0, 8, 1, False, "all_reduce", 1000.0, True)   # 1 ns a byte added
    >>> [name for *_, name in f.numbers["bands"]]
    ['recursive_doubling', 'recursive_halving_doubling']
    """
    if preset == "custom":
        alpha, beta = alpha_us * 1e-6, beta_gbps * 1e9
    else:  # the preset's own numbers, not the slider's (the page snaps a slider to its step)
        alpha, beta = PRESETS[preset].alpha, PRESETS[preset].beta
    gamma = gamma_ps * 1e-12 if with_gamma else 0.0
    bound = combined_lower_bound(primitive, n, _M, alpha, beta, ports=k, gamma=gamma)
    names = applicable_algorithms(primitive, n=n, ports=k)
    times = {name: algorithm_cost(name, primitive, n, _M, alpha, beta, ports=k, gamma=gamma) for name in names}
    m_star = crossover_size(primitive, n, alpha, beta, ports=k)
    bands = best_algorithm_bands(
        primitive, n, alpha, beta, ports=k, m_min=_M[0], m_max=_M[-1], points=_BAND_POINTS, gamma=gamma
    )
    if efficiency:
        ylim, yscale, ylabel = (0, 1.05), "linear", "效率 = 下界 / 时间"
        yticks = [(v, f"{v:g}") for v in _EFFICIENCY_TICKS]
    else:
        everything = np.concatenate([bound] + list(times.values()))
        ylim, yscale, ylabel = (everything.min() / 1.6, everything.max() * 1.6), "log", "时间"
        decades = range(math.ceil(math.log10(ylim[0])), math.floor(math.log10(ylim[1])) + 1)
        yticks = [(float(f"1e{j}"), format_time(float(f"1e{j}"))) for j in decades]
    bound_label = "下界 max(Tα, Tβ, Tγ)" if gamma and primitive in REDUCING_PRIMITIVES else "下界 max(Tα, Tβ)"
    lines = (
        []
        if efficiency
        else [series("line", _M.tolist(), bound.tolist(), color=COLORS["bound"], width=2.5, label=bound_label)]
    )
    lines += [
        series(
            "line",
            _M.tolist(),
            (bound / times[name] if efficiency else times[name]).tolist(),
            color=COLORS.get(name, _NO_COLOR),
            label=ALGORITHM_LABELS[name],
        )
        for name in names
    ]
    lines.append(series("vline", x=[m_star], color=_M_STAR_COLOR, dash=True, width=1, label="M*"))
    figure = {
        "panels": [
            panel(
                title=f"{PRIMITIVE_LABELS[primitive]}，N = {n}，α = {format_time(alpha)}，β = {format_bandwidth(beta)}，{k}-port",
                xlabel="消息大小 M",
                ylabel=ylabel,
                xscale="log",
                yscale=yscale,
                xlim=(_M[0], _M[-1]),
                ylim=(float(ylim[0]), float(ylim[1])),
                xticks=[(2.0**e, format_bytes(2.0**e)) for e in _M_TICK_EXPONENTS],
                yticks=yticks,
                legend=True,
                series_list=lines + _band_series(bands, ylim, not efficiency),
            )
        ]
    }
    m_star_text = format_bytes(m_star)
    texts = [f"{format_bytes(a)}–{format_bytes(b)}：{ALGORITHM_LABELS[name]}" for a, b, name in bands]
    if len(texts) > _BANDS_LISTED:  # two close costs swapping at whole chunk counts: the strip shows them all
        texts = texts[: _BANDS_LISTED - 1] + [f"…（另有 {len(texts) - _BANDS_LISTED} 段交替）", texts[-1]]
    band_text = "；".join(texts)
    if preset == "custom":
        source = f"自定义：α = {format_time(alpha)}、β = {format_bandwidth(beta)}，用 α、β 滑块调节"
    else:
        source = (
            f"{PRESETS[preset].label}：α = {format_time(alpha)}、β = {format_bandwidth(beta)} 取自预设"
            f"（端口数用 k 滑块）"
        )
    missing = [ALGORITHM_LABELS[a] for a in applicable_algorithms(primitive, ports=k) if a not in names]
    notes = [source]
    if missing:
        notes.append(f"N = {n} 不是 2 的幂：{'、'.join(missing)} 不参与")
    two_port = [ALGORITHM_LABELS[a] for a in applicable_algorithms(primitive, ports=2)]
    joined = [a for a in two_port if a not in [ALGORITHM_LABELS[b] for b in applicable_algorithms(primitive, ports=1)]]
    if k == 1:
        notes.append(f"k = 2 加入{'、'.join(joined)}" if joined else "k = 2 时树与 Bruck 用上第二个端口")
    else:
        notes.append(f"2-port：{'、'.join(joined)} 参与比较" if joined else "2-port：树与 Bruck 用上第二个端口")
    if primitive in REDUCING_PRIMITIVES:
        notes.append(f"计入 γ = {gamma * 1e12:.3g} ps/B" if gamma else "γ = 0")
    readout = (
        f"<b>{PRIMITIVE_LABELS[primitive]}，N = {n}，{k}-port</b>：下界的交叉点 M* = <b>{m_star_text}</b>。"
        f"最快的算法（图底色带）：{band_text}。<br><small>{'；'.join(notes)}。</small>"
    )
    return Frame(
        readout,
        figure,
        {"bound": bound, "times": times, "m_star": m_star, "m_star_text": m_star_text, "bands": bands, "names": names},
    )
