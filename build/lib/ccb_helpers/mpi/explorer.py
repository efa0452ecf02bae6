"""An explorer over a saved MPI result: measured time against the model and the bound, per pair and size."""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from ..explorers import Explorer
from ..explorers.base import STYLE, slider_args
from ..explorers.frame import Frame
from ..live.figure import panel, series
from ..plotting import BOOK_WIDTH, COLORS
from ..units import format_bytes, format_time
from .plots import BOUND_COLOR, LIBRARY_COLOR, model_and_bound, pair_label, runs_by_pair

__all__ = ["MPIResultExplorer", "mpi_frame"]


def _on_grid(value: float) -> float:
    """``value`` rounded to the α/β sliders' grid: a power of ten with a multiple of 0.001 as exponent."""
    return float(10.0 ** round(float(np.log10(value)), 3))


def _nearest_size(sizes: list, old) -> int:
    """The size of ``sizes`` nearest to ``old`` on a log scale (the first of a tie): where ``m`` goes when the pair changes.

    >>> _nearest_size([256, 4096, 65536], 1024), _nearest_size([256, 4096], 1024)
    (256, 256)
    """
    return min(sizes, key=lambda m: abs(np.log2(max(m, 1)) - np.log2(max(old, 1))))


class MPIResultExplorer(Explorer):
    """Browse a ``sweep`` (or ``run``) result: one pair's curves on the left, every pair at one size on the right.

    Controls: ``pair`` (``"algorithm:primitive"``), ``m`` (a measured size), ``alpha_us`` and
    ``beta_gbps`` (the α, β the model and the bound use; they start at the result's measured
    values — move them to see which α, β would explain the measurement), ``ratio`` (plot time
    divided by the bound instead of time).

    Parameters
    ----------
    result : dict or path
        What :func:`~ccb_helpers.mpi.load_mpi_result` accepts (a ``run`` or ``sweep`` result).

    Examples
    --------
    >>> runs = [{"algorithm": "ring", "primitive": "all_reduce", "n": 4, "m": m, "ports": 1, "correct": True,
    ...          "times_s": [t], "median_s": t} for m, t in ((2**10, 1e-4), (2**20, 4e-3))]
    >>> e = MPIResultExplorer({"command": "sweep", "n": 4, "runs": runs, "alpha_s": 1e-5, "beta_Bps": 1e9})
    >>> e.values["m"], round(e.ratio_at_size, 2)   # 1 MiB: 4 ms against max(2 α, 1.5 M / β) = 1.57 ms
    (1048576, 2.54)
    >>> e.update(beta_gbps=0.5); round(e.ratio_at_size, 2)
    1.27
    """

    figsize = (BOOK_WIDTH, 4.0)
    readout_lines = 3

    def __init__(self, result, **values):
        self.by_pair = runs_by_pair(result)
        if not self.by_pair:
            raise ValueError("the result has no runs with M > 0 to show")
        from .results import load_mpi_result

        loaded = load_mpi_result(result)
        self._init_args = (result,)  # what a fresh explorer of the same result is built from
        self.n = loaded["n"]
        # On the sliders' grid (log10 step 0.001, i.e. within 0.12 % of the fit): the page snaps
        # an off-grid value and sends it back, which would redraw before any reader's change.
        self.alpha0 = _on_grid(loaded.get("alpha_s") or 1e-6)
        self.beta0 = _on_grid(loaded.get("beta_Bps") or 1e9)
        super().__init__(**values)

    def _size_options(self, pair_key: str):
        return [(format_bytes(r["m"]), r["m"]) for r in self.by_pair[tuple(pair_key.split(":"))]]

    def _controls(self) -> dict:
        first = next(iter(self.by_pair))
        sizes = self._size_options(":".join(first))
        return {
            "pair": widgets.Dropdown(
                options=[(pair_label(*p), ":".join(p)) for p in self.by_pair],
                value=":".join(first),
                description="算法",
                style=STYLE,
            ),
            "m": widgets.SelectionSlider(
                options=sizes,
                value=sizes[len(sizes) // 2][1] if len(sizes) > 1 else sizes[0][1],
                **slider_args("消息大小 M"),
            ),
            "alpha_us": widgets.FloatLogSlider(
                value=self.alpha0 * 1e6,
                base=10,
                min=-2,
                max=4,
                step=0.001,
                readout_format=".3g",
                **slider_args("α (µs)"),
            ),
            "beta_gbps": widgets.FloatLogSlider(
                value=self.beta0 / 1e9,
                base=10,
                min=-3,
                max=3,
                step=0.001,
                readout_format=".3g",
                **slider_args("β (GB/s)"),
            ),
            "ratio": widgets.Checkbox(value=False, description="画时间 / 下界", style=STYLE),
        }

    def _adjust(self, name: str) -> None:
        if name == "pair":
            slider = self.controls["m"]
            old = slider.value
            options = self._size_options(self.controls["pair"].value)
            slider.options = options
            slider.value = _nearest_size([m for _, m in options], old)

    def setup(self, figure: Figure) -> None:
        # Two panels side by side in the page column; a fixed layout (no tight_layout per update).
        figure.subplots_adjust(left=0.125, right=0.985, bottom=0.13, top=0.91, wspace=0.42)  # "100 µs" ticks
        left, right = self._left, self._right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
        self._fill = None
        self._measured = left.plot([], [], "o-", markersize=4, label="实测")[0]
        self._model = left.plot([], [], "--", label="模型")[0]
        self._bound = left.plot([], [], "-.", color=BOUND_COLOR, label="下界")[0]
        self._library = left.plot([], [], "s:", color=LIBRARY_COLOR, markersize=3, label="MPI 库")[0]
        self._size_line = left.axvline(1.0, color=BOUND_COLOR, linewidth=0.8)
        left.set_xscale("log", base=2)
        left.set_yscale("log")
        left.set_xlabel("消息大小 M（字节）")
        self._left_title = left.set_title("", fontsize=10)
        self._legend, self._legend_handles = None, None
        self._bars, self._bar_names = None, None
        self._library_marks = right.plot([], [], "s", color=LIBRARY_COLOR, markersize=5)[0]
        right.axvline(1, color=BOUND_COLOR, linewidth=1)
        right.set_xscale("log")
        right.set_xlabel("时间 / 下界（条：实测；■：库）")
        # No minor ticks on the three log axes: they were two thirds of every redraw's ticks and
        # carry no label; the decades (and powers of two) stay.
        for axis in (left.xaxis, left.yaxis, right.xaxis):
            axis.set_minor_locator(NullLocator())
        self._right_title = right.set_title("", fontsize=10)

    def frame(self, pair, m, alpha_us, beta_gbps, ratio) -> Frame:
        """What this explorer shows for these control values (see :func:`mpi_frame`)."""
        return mpi_frame(self.by_pair, self.n, pair, m, alpha_us, beta_gbps, ratio)

    def refresh(self, pair, m, alpha_us, beta_gbps, ratio) -> str:
        frame = self.frame(pair, m, alpha_us, beta_gbps, ratio)  # what the live page shows too
        numbers = frame.numbers
        left_spec, right_spec = frame.figure["panels"]
        key = tuple(pair.split(":"))
        left, right = self._left, self._right
        sizes = numbers["sizes"]
        scale = numbers["scale"]
        color = COLORS.get(key[0], COLORS["latency"])
        # The band of the runs' spread, one polygon updated in place (low forward, high back).
        band = np.concatenate(
            [np.column_stack([sizes, numbers["low"]]), np.column_stack([sizes, numbers["high"]])[::-1]]
        )
        if self._fill is None:
            self._fill = left.fill(band[:, 0], band[:, 1], color=color, alpha=0.15, linewidth=0)[0]
        else:
            self._fill.set_xy(band)
            self._fill.set_color(color)
        self._measured.set_data(sizes, numbers["measured"] / scale)
        self._measured.set_color(color)
        self._model.set_data(sizes, numbers["model"] / scale)
        self._model.set_color(color)
        self._bound.set_data(sizes, numbers["bound"] / scale)
        has_library = numbers["has_library"]
        self._library.set_data(sizes, numbers["library"] / scale)
        self._library.set_visible(has_library)
        self._size_line.set_xdata([m, m])
        shown = [self._measured, self._model, self._bound] + ([self._library] if has_library else [])
        left.set_xlim(*left_spec["xlim"])
        left.set_ylim(*left_spec["ylim"])
        left.set_ylabel(left_spec["ylabel"])
        # The page's decade ticks, labelled with their unit (1 ms, 100 µs) under "时间" (#43).
        left.set_yticks([v for v, _ in left_spec["yticks"]], [label for _, label in left_spec["yticks"]])
        self._left_title.set_text(left_spec["title"])
        # The legend copies its entries' styles when made: rebuilt when they or the pair's colour change.
        if self._legend is None or self._legend_handles != (shown, color):
            if self._legend is not None:
                self._legend.remove()
            self._legend = left.legend(handles=shown, loc="best", fontsize=8.5)  # where the data leave room
            self._legend_handles = (shown, color)
        # Right: every pair measured at this size, as a multiple of its own bound.
        names = [label for _, label in right_spec["yticks"]]
        y = np.arange(len(names))
        if self._bars is None or len(self._bars) != len(names):
            if self._bars is not None:
                self._bars.remove()
            self._bars = right.barh(y, numbers["measured_ratio"], color=numbers["colors"], alpha=0.8)
        else:  # the same number of bars: new lengths and colours in place
            for bar, width, bar_color in zip(self._bars, numbers["measured_ratio"], numbers["colors"]):
                bar.set_width(width)
                bar.set_facecolor(bar_color)
                bar.set_alpha(0.8)
        self._library_marks.set_data(numbers["library_ratio"], y)
        right.set_xlim(*right_spec["xlim"])
        right.set_ylim(*right_spec["ylim"])  # first pair on top
        if self._bar_names != names:
            right.set_yticks(y, names, fontsize=8.5)
            self._bar_names = names
        self._right_title.set_text(right_spec["title"])
        self.ratio_at_size = numbers["ratio_at_size"]
        # The left panel depends on the pair, α, β and the mode, not on M but for its marker line
        # (and the legend, whose "best" spot avoids that line): a change of M redraws those and the
        # right panel over the kept pixels of the rest.
        self._keep_background((pair, alpha_us, beta_gbps, bool(ratio)), [self._size_line, self._legend, right])
        return frame.readout


def _decade_ticks(low: float, high: float, label) -> list:
    """``(10**j, label(10**j))`` for every power of ten in ``[low, high]`` (``10**j`` parsed, as the page does)."""
    return [
        (float(f"1e{j}"), label(float(f"1e{j}")))
        for j in range(math.ceil(math.log10(low)), math.floor(math.log10(high)) + 1)
    ]


def mpi_frame(by_pair: dict, n: int, pair: str, m, alpha_us, beta_gbps, ratio) -> Frame:
    """What :class:`MPIResultExplorer` shows for these control values: readout, FigureSpec, numbers.

    A pure function of the result's runs (``by_pair``, from :func:`~ccb_helpers.mpi.plots.runs_by_pair`),
    its ``n`` and the control values: the explorer's redraw and the live page's data come from
    it. The model is the algorithm's α-β cost, the bound ``eq:cc-bound-combined``.

    Examples
    --------
    >>> runs = [{"algorithm": "ring", "primitive": "all_reduce", "n": 4, "m": m, "ports": 1, "correct": True,
    ...          "times_s": [t], "median_s": t} for m, t in ((2**10, 1e-4), (2**20, 4e-3))]
    >>> f = mpi_frame({("ring", "all_reduce"): runs}, 4, "ring:all_reduce", 2**20, 10.0, 1.0, False)
    >>> round(f.numbers["ratio_at_size"], 2), f.figure["panels"][1]["title"]   # 4 ms / (1.5 MiB / 1 GB/s)
    (2.54, 'M = 1 MiB：离下界多远')
    """
    alpha, beta = alpha_us * 1e-6, beta_gbps * 1e9
    key = tuple(pair.split(":"))
    runs = by_pair[key]
    sizes = np.array([r["m"] for r in runs], dtype=float)
    model, bound = np.array([model_and_bound(r, alpha, beta) for r in runs]).T
    measured = np.array([r["median_s"] for r in runs])
    library = np.array([r.get("library_median_s", np.nan) for r in runs], dtype=float)
    scale = bound if ratio else np.ones_like(bound)
    color = COLORS.get(key[0], COLORS["latency"])
    low, high = np.array([min(r["times_s"]) for r in runs]) / scale, np.array([max(r["times_s"]) for r in runs]) / scale
    has_library = bool(np.isfinite(library).any())
    lines = [measured / scale, model / scale, bound / scale] + ([library / scale] if has_library else [])
    ys = np.concatenate([low, high] + lines)
    ys = ys[np.isfinite(ys) & (ys > 0)]
    ylim = (float(ys.min() / 1.5), float(ys.max() * 1.5))
    xs = sizes.tolist()
    left_series = [
        series("band", xs, low.tolist(), y2=high.tolist(), color=color, alpha=0.15),
        series("line", xs, (measured / scale).tolist(), color=color, marker=True, label="实测"),
        series("line", xs, (model / scale).tolist(), color=color, dash="dashed", label="模型"),
        series("line", xs, (bound / scale).tolist(), color=BOUND_COLOR, dash="dashdot", label="下界"),
    ]
    if has_library:
        shown = [
            v if math.isfinite(v) else None for v in (library / scale).tolist()
        ]  # a run without the library's time
        left_series.append(
            {
                **series("line", xs, shown, color=LIBRARY_COLOR, dash="dotted", marker=True, label="MPI 库"),
                "shape": "square",
            }
        )
    left_series.append(series("vline", x=[m], color=BOUND_COLOR, width=0.8))
    left = panel(
        title=f"{pair_label(*key)}，N = {n}",
        xlabel="消息大小 M（字节）",
        ylabel="时间 / 下界" if ratio else "时间",  # the ticks carry their unit (ms, µs)
        xscale="log",
        yscale="log",
        xlim=(sizes.min() / 1.5, sizes.max() * 1.5),
        ylim=ylim,
        xticks=[(v, format_bytes(v)) for v in xs[::2]],
        yticks=_decade_ticks(*ylim, (lambda v: f"{v:g}") if ratio else format_time),
        legend=True,
        series_list=left_series,
    )
    # Right: every pair measured at this size, as a multiple of its own bound.
    names, measured_ratio, library_ratio, colors = [], [], [], []
    for p, pruns in by_pair.items():
        run = next((r for r in pruns if r["m"] == m), None)
        if run is None:
            continue
        b = model_and_bound(run, alpha, beta)[1]
        names.append(pair_label(*p).replace(" ", "\n", 1))
        measured_ratio.append(float(run["median_s"] / b))
        library_ratio.append(float(run.get("library_median_s", np.nan) / b))
        colors.append(COLORS.get(p[0], COLORS["latency"]))
    xs = np.array([1.0] + measured_ratio + library_ratio, dtype=float)
    xs = xs[np.isfinite(xs) & (xs > 0)]
    xlim = (float(xs.min() / 2), float(xs.max() * 2))
    bars = [
        series("band", [xlim[0], r], [i - 0.4, i - 0.4], y2=[i + 0.4, i + 0.4], color=c, alpha=0.8)
        for i, (r, c) in enumerate(zip(measured_ratio, colors))
    ]
    marks = [(i, r) for i, r in enumerate(library_ratio) if np.isfinite(r)]
    right = panel(
        title=f"M = {format_bytes(m)}：离下界多远",
        xlabel="时间 / 下界（条：实测；■：库）",
        xscale="log",
        xlim=xlim,
        ylim=(len(names) - 0.5, -0.5),
        xticks=_decade_ticks(*xlim, lambda v: f"{v:g}"),
        yticks=list(enumerate(names)),
        series_list=bars
        + [
            {
                **series("scatter", [r for _, r in marks], [i for i, _ in marks], color=LIBRARY_COLOR, marker=True),
                "shape": "square",
            },
            series("vline", x=[1.0], color=BOUND_COLOR, width=1),
        ],
    )
    run = next(r for r in runs if r["m"] == m)
    t_model, t_bound = model_and_bound(run, alpha, beta)
    ratio_at_size = run["median_s"] / t_bound
    lib = run.get("library_median_s")
    lib_text = (
        f"，MPI 库 {run.get('library_call', '')} {format_time(lib)}（{lib / t_bound:.2f} × 下界）"
        if lib is not None
        else ""
    )
    # Which term of the bound binds at this size: the other slider moves only the model here.
    alpha_binds = model_and_bound(run, alpha * 1.01, beta)[1] > t_bound
    beta_binds = model_and_bound(run, alpha, beta * 1.01)[1] < t_bound
    if alpha_binds and not beta_binds:
        binds = "此 M 上下界由延迟项（α）决定：β 只改变模型和别的大小处的下界"
    elif beta_binds and not alpha_binds:
        binds = "此 M 上下界由带宽项（β）决定：α 只改变模型和别的大小处的下界"
    else:
        binds = "此 M 上下界的两项相等"
    readout = (
        f"<b>{pair_label(*key)}，M = {format_bytes(m)}</b>：实测 {format_time(run['median_s'])}，"
        f"模型 {format_time(t_model)}，下界 {format_time(t_bound)}；实测 / 下界 = <b>{ratio_at_size:.2f}</b>，"
        f"实测 / 模型 = {run['median_s'] / t_model:.2f}{lib_text}。{binds}。"
    )
    numbers = {
        "sizes": sizes,
        "scale": scale,
        "measured": measured,
        "model": model,
        "bound": bound,
        "library": library,
        "low": low,
        "high": high,
        "has_library": has_library,
        "measured_ratio": measured_ratio,
        "library_ratio": library_ratio,
        "colors": colors,
        "ratio_at_size": ratio_at_size,
    }
    return Frame(readout, {"panels": [left, right]}, numbers)
