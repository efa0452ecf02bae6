"""An explorer over a saved MPI result: measured time against the model and the bound, per pair and size."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..explorers import Explorer
from ..plotting import COLORS
from ..units import format_bytes, format_time
from .plots import BOUND_COLOR, LIBRARY_COLOR, model_and_bound, pair_label, runs_by_pair

__all__ = ["MPIResultExplorer"]


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

    figsize = (9.0, 4.0)

    def __init__(self, result, **values):
        self.by_pair = runs_by_pair(result)
        if not self.by_pair:
            raise ValueError("the result has no runs with M > 0 to show")
        from . import load_mpi_result

        loaded = load_mpi_result(result)
        self.n = loaded["n"]
        self.alpha0 = loaded.get("alpha_s") or 1e-6
        self.beta0 = loaded.get("beta_Bps") or 1e9
        super().__init__(**values)

    def _size_options(self, pair_key: str):
        return [(format_bytes(r["m"]), r["m"]) for r in self.by_pair[tuple(pair_key.split(":"))]]

    def _controls(self) -> dict:
        style = {"description_width": "initial"}
        first = next(iter(self.by_pair))
        sizes = self._size_options(":".join(first))
        return {
            "pair": widgets.Dropdown(options=[(pair_label(*p), ":".join(p)) for p in self.by_pair], value=":".join(first),
                                     description="算法", style=style),
            "m": widgets.SelectionSlider(options=sizes, value=sizes[len(sizes) // 2][1] if len(sizes) > 1 else sizes[0][1],
                                         description="消息大小 M", style=style, continuous_update=False),
            "alpha_us": widgets.FloatLogSlider(value=self.alpha0 * 1e6, base=10, min=-2, max=4, step=0.05, description="α (µs)",
                                               style=style, continuous_update=False, readout_format=".3g"),
            "beta_gbps": widgets.FloatLogSlider(value=self.beta0 / 1e9, base=10, min=-3, max=3, step=0.05, description="β (GB/s)",
                                                style=style, continuous_update=False, readout_format=".3g"),
            "ratio": widgets.Checkbox(value=False, description="画 时间 / 下界", style=style),
        }

    def _adjust(self, name: str) -> None:
        if name == "pair":
            slider = self.controls["m"]
            old = slider.value
            options = self._size_options(self.controls["pair"].value)
            slider.options = options
            slider.value = min((m for _, m in options), key=lambda m: abs(np.log2(max(m, 1)) - np.log2(max(old, 1))))

    def draw(self, figure: Figure, pair, m, alpha_us, beta_gbps, ratio) -> str:
        alpha, beta = alpha_us * 1e-6, beta_gbps * 1e9
        key = tuple(pair.split(":"))
        runs = self.by_pair[key]
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.35, 1]})
        sizes = np.array([r["m"] for r in runs], dtype=float)
        model, bound = np.array([model_and_bound(r, alpha, beta) for r in runs]).T
        measured = np.array([r["median_s"] for r in runs])
        library = np.array([r.get("library_median_s", np.nan) for r in runs])
        scale = bound if ratio else np.ones_like(bound)
        color = COLORS.get(key[0], COLORS["latency"])
        left.fill_between(sizes, [min(r["times_s"]) for r in runs] / scale, [max(r["times_s"]) for r in runs] / scale,
                          color=color, alpha=0.15, linewidth=0)
        left.plot(sizes, measured / scale, "o-", color=color, markersize=4, label="实测")
        left.plot(sizes, model / scale, "--", color=color, label="模型")
        left.plot(sizes, bound / scale, "-.", color=BOUND_COLOR, label="下界")
        if np.isfinite(library).any():
            left.plot(sizes, library / scale, "s:", color=LIBRARY_COLOR, markersize=3, label="MPI 库")
        left.axvline(m, color=BOUND_COLOR, linewidth=0.8)
        left.set_xscale("log", base=2)
        left.set_yscale("log")
        left.set_xlabel("消息大小 M（字节）")
        left.set_ylabel("时间 / 下界" if ratio else "时间（s）")
        left.set_title(f"{pair_label(*key)}，N = {self.n}", fontsize=10.5)
        left.legend(loc="upper left", fontsize=8.5)
        # Right: every pair measured at this size, as a multiple of its own bound.
        names, measured_ratio, library_ratio, colors = [], [], [], []
        for p, pruns in self.by_pair.items():
            run = next((r for r in pruns if r["m"] == m), None)
            if run is None:
                continue
            b = model_and_bound(run, alpha, beta)[1]
            names.append(pair_label(*p).replace(" ", "\n", 1))
            measured_ratio.append(run["median_s"] / b)
            library_ratio.append(run.get("library_median_s", np.nan) / b)
            colors.append(COLORS.get(p[0], COLORS["latency"]))
        y = np.arange(len(names))
        right.barh(y, measured_ratio, color=colors, alpha=0.8)
        right.plot(library_ratio, y, "s", color=LIBRARY_COLOR, markersize=5)
        right.axvline(1, color=BOUND_COLOR, linewidth=1)
        right.set_xscale("log")
        right.set_yticks(y, names, fontsize=8.5)
        right.invert_yaxis()
        right.set_xlabel("时间 / 下界（条：实测；■：MPI 库）")
        right.set_title(f"M = {format_bytes(m)}：各算法离下界多远", fontsize=10.5)
        figure.tight_layout()
        run = next(r for r in runs if r["m"] == m)
        t_model, t_bound = model_and_bound(run, alpha, beta)
        self.ratio_at_size = run["median_s"] / t_bound
        lib = run.get("library_median_s")
        lib_text = f"，MPI 库 {run.get('library_call', '')} {format_time(lib)}（{lib / t_bound:.2f} × 下界）" if lib is not None else ""
        return (f"<b>{pair_label(*key)}，M = {format_bytes(m)}</b>：实测 {format_time(run['median_s'])}，"
                f"模型 {format_time(t_model)}，下界 {format_time(t_bound)}；实测 / 下界 = <b>{self.ratio_at_size:.2f}</b>，"
                f"实测 / 模型 = {run['median_s'] / t_model:.2f}{lib_text}。")
