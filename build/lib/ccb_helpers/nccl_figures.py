"""Figures and the explorer of chapter 8: NCCL's model, the lower bound and published measurements.

Kept apart from :mod:`ccb_helpers.plotting` and :mod:`ccb_helpers.explorers` (one concept per
module): everything here draws :mod:`ccb_helpers.nccl_model`, :mod:`ccb_helpers.nccl_bound` and :mod:`ccb_helpers.nccl_tests`.
"""

from __future__ import annotations

import functools

import numpy as np

from ._validation import check_choice, check_int, check_real
from .explorers import Explorer
from .nccl_bound import _bound_parameters, _in_network_bound, _two_level_bound, _vs_bound
from .nccl_model import NCCL_COLLECTIVES, NCCL_MODEL_VERSION, NCCL_TOPOLOGIES, _check_call, _predict, _resolve_topology

__all__ = [
    "NCCL_PICK_COLORS",
    "plot_nccl_times",
    "plot_nccl_pick_map",
    "plot_busbw_against_bound",
    "NcclExplorer",
    "nccl_state",
]

#: One colour per NCCL algorithm/protocol, shared by the chapter's figures.
NCCL_PICK_COLORS = {
    "Ring/LL": "#fdae6b",
    "Ring/LL128": "#e6550d",
    "Ring/Simple": "#a63603",
    "Tree/LL": "#9ecae1",
    "Tree/LL128": "#4292c6",
    "Tree/Simple": "#08519c",
    "NVLS/Simple": "#31a354",
    "NVLSTree/Simple": "#74c476",
}
_LINESTYLE = {"LL": ":", "LL128": "--", "Simple": "-"}
_SIZES = 2.0 ** np.arange(3, 35)
#: The book's text column in inches (688 CSS px at 100 px per inch): figures no wider are shown
#: at their natural size, so no text is shrunk.
_COLUMN = 6.88


def _ranks_for(topology, nodes: int) -> int:
    return 8 * nodes


def _check_ax(ax):
    from matplotlib.axes import Axes

    if ax is not None and not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")


def plot_nccl_times(
    primitive="all_reduce",
    n_ranks=8,
    n_nodes=1,
    topology="dgx_h100",
    m_range=(2.0**3, 2.0**34),
    efficiency=False,
    mark=None,
    ax=None,
):
    """NCCL's estimated time of every algorithm × protocol against M, with the lower bound.

    Parameters
    ----------
    primitive, n_ranks, n_nodes, topology
        As in :func:`~ccb_helpers.nccl_predict`.
    m_range : (float, float)
        Sizes in bytes (log axis).
    efficiency : bool
        Plot bound / time (each combination against the bound NCCL's pick is held to) instead.
    mark : int, optional
        A size to mark with NCCL's pick.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_nccl_times("all_reduce", 8, 1)
    >>> sorted(line.get_label() for line in ax.get_lines())[:3]
    ['NVLS/Simple', 'Ring/LL', 'Ring/LL128']
    """
    import matplotlib.pyplot as plt

    from .plotting import COLORS, use_book_style
    from .units import format_bytes

    primitive, n_ranks, n_nodes, _ = _check_call(primitive, n_ranks, n_nodes, 0)
    topo = _resolve_topology(topology, {}, n_nodes, n_ranks // n_nodes)
    if not (isinstance(m_range, (tuple, list)) and len(m_range) == 2):
        raise TypeError(f"m_range must be a (min, max) pair of sizes in bytes, got {m_range!r}")
    lo, hi = (check_real(name, v, strict=True, scalar=True) for name, v in zip(("m_range[0]", "m_range[1]"), m_range))
    if not lo < hi <= 2.0**50:
        raise ValueError(f"m_range must satisfy 0 < min < max <= 2**50 bytes, got {m_range!r}")
    if not isinstance(efficiency, bool):
        raise TypeError(f"efficiency must be True or False, got {efficiency!r}")
    if mark is not None:  # its own name in the message (_check_call would call it "m", #28)
        mark = check_real("mark", mark, maximum=2.0**50, scalar=True)
        if mark != int(mark):
            raise ValueError(f"mark must be a whole number of bytes (NCCL's nBytes), got {mark}")
    _check_ax(ax)
    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(_COLUMN, 4.2))
    sizes = np.unique(np.geomspace(*m_range, 160).astype(np.int64))
    predictions = [_predict(primitive, n_ranks, n_nodes, int(m), topo) for m in sizes]
    alpha, beta, node_beta = _bound_parameters(topo)
    bound = np.array([_two_level_bound(primitive, n_ranks, n_nodes, int(m), alpha, beta, node_beta) for m in sizes])
    in_network = np.array(
        [_in_network_bound(primitive, n_ranks, n_nodes, int(m), alpha, beta, node_beta) for m in sizes]
    )
    for key in predictions[0].times:
        label = _label(key)
        t = np.array([p.times[key] for p in predictions])
        ref = in_network if key[0].startswith("nvls") else bound
        ax.plot(
            sizes,
            ref / t if efficiency else t * 1e6,
            _LINESTYLE[key[1]],
            color=NCCL_PICK_COLORS[label],
            linewidth=1.6,
            label=label,
        )
    if not efficiency:
        ax.plot(sizes, bound * 1e6, color=COLORS["bound"], linewidth=2.2, label="下界")
        if primitive == "all_reduce":
            ax.plot(
                sizes, in_network * 1e6, color=COLORS["bound"], linewidth=1.2, linestyle="-.", label="下界（网内归约）"
            )
        ax.set_yscale("log")
        ax.set_ylabel("时间（µs）")
    else:
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("效率 = 下界 / NCCL 估计")
    if mark is not None:
        p = _predict(primitive, n_ranks, n_nodes, int(mark), topo)
        y = (
            _vs_bound(primitive, n_ranks, n_nodes, int(mark), topo, book=False).efficiency
            if efficiency
            else p.time * 1e6
        )
        y = 1.0 if y is None else y  # NCCL's estimate beats the bound: flagged, drawn at 1
        ax.plot(
            [mark], [y], "o", markersize=9, markerfacecolor="none", markeredgecolor=COLORS["bound"], markeredgewidth=2
        )
        ax.annotate(
            f"{p.label}，{format_bytes(mark)}",
            (mark, y),
            textcoords="offset points",
            xytext=(10, -16),
            fontsize=10,
            bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
        )
    _size_axis(ax, *m_range)
    ax.set_xlabel("消息大小 M")
    ax.set_title(f"NCCL {predictions[0].version} 的估计：{primitive}，N = {n_ranks}，{n_nodes} 个节点", fontsize=10)
    ax.legend(fontsize=9, ncol=2, loc="upper left" if not efficiency else "lower right")
    return ax


def _size_axis(ax, lo=2.0**3, hi=2.0**34) -> None:
    """Log-2 size axis with a few labelled ticks (1 KiB, 1 MiB, ...) and no minor ticks."""
    from matplotlib.ticker import FixedLocator, NullLocator

    from .units import format_bytes

    ticks = [t for t in (2.0**4, 2.0**10, 2.0**20, 2.0**30) if lo <= t <= hi]
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([format_bytes(t) for t in ticks])


@functools.lru_cache(maxsize=64)
def _explorer_curves(preset: str, n_ranks: int, n_nodes: int):
    """The explorer's curves for one system and rank count (AllReduce over 2^3 .. 2^34 bytes), cached.

    Returns ``(version, sizes, times, refs, bound, in_network)``: ``times[label]`` is NCCL's
    estimate in s, ``refs[label]`` the bound that combination is held to (in-network for NVLS).
    """
    topo = _resolve_topology(preset, {}, n_nodes, n_ranks // n_nodes)
    sizes = np.unique(np.geomspace(2.0**3, 2.0**34, 160).astype(np.int64))
    predictions = [_predict("all_reduce", n_ranks, n_nodes, int(m), topo) for m in sizes]
    alpha, beta, node_beta = _bound_parameters(topo)
    bound = np.array([_two_level_bound("all_reduce", n_ranks, n_nodes, int(m), alpha, beta, node_beta) for m in sizes])
    in_network = np.array(
        [_in_network_bound("all_reduce", n_ranks, n_nodes, int(m), alpha, beta, node_beta) for m in sizes]
    )
    times, refs = {}, {}
    for key in predictions[0].times:
        times[_label(key)] = np.array([p.times[key] for p in predictions])
        refs[_label(key)] = in_network if key[0].startswith("nvls") else bound
    return predictions[0].version, sizes, times, refs, bound, in_network


def _label(key) -> str:
    from .nccl_model import _LABEL

    return f"{_LABEL[key[0]]}/{key[1]}"


def _pick_grid(primitive, topology, rows, sizes):
    """NCCL's pick label, efficiency and line-rate efficiency on a grid: rows are (n_ranks, n_nodes).

    NaN where the estimate beats the bound (flagged) or the topology gives no line rate.
    """
    labels = np.empty((len(rows), len(sizes)), dtype=object)
    eff = np.empty((len(rows), len(sizes)))
    line = np.empty((len(rows), len(sizes)))
    for i, (n, k) in enumerate(rows):
        topo = _resolve_topology(topology, {}, k, n // k)  # the NVLS graph searched for n // k GPUs per node
        for j, m in enumerate(sizes):
            r = _vs_bound(primitive, n, k, int(m), topo, book=False)
            labels[i, j] = r.pick
            eff[i, j] = np.nan if r.efficiency is None else r.efficiency
            line[i, j] = np.nan if r.line_efficiency is None else r.line_efficiency
    return labels, eff, line


def plot_nccl_pick_map(topology="dgx_h100", primitive="all_reduce", threshold=0.8, ax=None):
    """Which algorithm/protocol NCCL's model picks over (N, M), and where it is within ``threshold`` of the bound.

    ``dgx_h100``: one node, N = 2 … 8 (the NVLS graph searched for each N). ``ib_h100``: 8 GPUs
    per node, 1 … 256 nodes (N = 8 … 2048).
    Hatched cells: NCCL's estimate is slower than ``bound / threshold`` (efficiency below it);
    the efficiency is taken against the in-network bound where NCCL picks NVLS. The returned
    grid also holds the efficiency against the hardware's line rate (``line_efficiency``).

    Returns
    -------
    (matplotlib.axes.Axes, dict)
        The axes and ``{"labels": 2-d array, "efficiency": 2-d array, "line_efficiency": 2-d array,
        "rows": [(N, nodes)], "sizes": array}``.

    Examples
    --------
    >>> ax, grid = plot_nccl_pick_map("dgx_h100")
    >>> grid["labels"][-1, 0], grid["labels"][-1, -1]
    ('Ring/LL', 'NVLS/Simple')
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from .plotting import use_book_style

    check_choice("topology", topology, NCCL_TOPOLOGIES)
    primitive = check_choice("primitive", primitive, NCCL_COLLECTIVES)
    threshold = check_real("threshold", threshold, scalar=True)
    if threshold > 1:
        raise ValueError(f"threshold must be an efficiency in [0, 1], got {threshold}")
    _check_ax(ax)
    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(_COLUMN, 4.0))
    sizes = 2.0 ** np.arange(4, 35)
    if topology == "dgx_h100":
        rows = [(n, 1) for n in range(2, 9)]
        ylabels = [str(n) for n, _ in rows]
        ytitle = "GPU 数 N（一个节点）"
    else:
        nodes = [1, 2, 4, 8, 16, 32, 64, 128, 256]
        rows = [(_ranks_for(topology, k), k) for k in nodes]
        ylabels = [f"{k}" for k in nodes]
        ytitle = "节点数（每节点 8 GPU）"
    labels, eff, line = _pick_grid(primitive, topology, rows, sizes)
    names = [n for n in NCCL_PICK_COLORS if n in set(labels.ravel())]
    index = np.vectorize(names.index)(labels)
    cmap = ListedColormap([NCCL_PICK_COLORS[n] for n in names])
    x_edges = 2.0 ** (np.arange(4, 36) - 0.5)
    y_edges = np.arange(len(rows) + 1) - 0.5
    ax.pcolormesh(x_edges, y_edges, index, cmap=cmap, vmin=-0.5, vmax=len(names) - 0.5, shading="flat")
    from matplotlib.patches import Rectangle

    for i, j in zip(*np.nonzero(eff < threshold)):
        ax.add_patch(
            Rectangle(
                (x_edges[j], y_edges[i]),
                x_edges[j + 1] - x_edges[j],
                1.0,
                fill=False,
                hatch="///",
                edgecolor="#333333",
                linewidth=0.0,
            )
        )
    _size_axis(ax, 2.0**4, 2.0**34)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(ylabels)
    ax.set_xlabel("消息大小 M")
    ax.set_ylabel(ytitle)
    handles = [Patch(facecolor=NCCL_PICK_COLORS[n], label=n) for n in names]
    handles.append(Patch(facecolor="white", edgecolor="#444444", hatch="///", label=f"效率 < {threshold:.0%}"))
    ax.legend(
        handles=handles,
        fontsize=9,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.2),
        ncol=4,
        borderaxespad=0,
        handlelength=1.6,
        columnspacing=1.0,
    )
    title = NCCL_TOPOLOGIES[topology].label
    ax.set_title(title, fontsize=10)
    return ax, {"labels": labels, "efficiency": eff, "line_efficiency": line, "rows": rows, "sizes": sizes}


def plot_busbw_against_bound(log, alpha, beta, ports=1, label=None, ax=None, n_ranks=None, collective=None):
    """A published log's busbw against the bound's ceiling (:func:`~ccb_helpers.busbw_ceiling`).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from ccb_helpers.nccl_tests import read_nccl_tests, _EXAMPLE
    >>> ax = plot_busbw_against_bound(read_nccl_tests(_EXAMPLE), 1e-6, 20e9, collective="all_reduce")
    >>> len(ax.get_lines())
    3
    """
    import matplotlib.pyplot as plt

    from .nccl_tests.ceilings import _busbw_ceiling
    from .nccl_tests.records import _log_context
    from .nccl_tests.report import nccl_tests_report
    from .plotting import COLORS, use_book_style

    if label is not None and not isinstance(label, str):  # matplotlib took len() of a generator (#28)
        raise TypeError(f"label must be a string or None, got {type(label).__name__}")
    label = None if label is None else str.__str__(label)
    report = nccl_tests_report(log, alpha, beta, ports=ports, n_ranks=n_ranks, collective=collective)
    _, n, primitive = _log_context(log, n_ranks, collective)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(_COLUMN / 2, 3.6))
    sizes = np.array([v["size"] for v in report.values], dtype=float)
    busbw = np.array([v["busbw"] for v in report.values]) / 1e9
    grid = np.geomspace(sizes.min(), sizes.max(), 200)
    ax.plot(sizes, busbw, "o-", color=COLORS["ring"], markersize=3, linewidth=1.4, label=label or "实测 busbw")
    ax.plot(
        grid,
        _busbw_ceiling(primitive, n, grid, alpha, beta, ports, ports) / 1e9,
        color=COLORS["bound"],
        linewidth=1.8,
        label="下界给出的上限",
    )
    ax.axhline(
        ports * beta / 1e9,
        color=COLORS["bound"],
        linestyle=":",
        linewidth=1,
        label=f"p·β = {ports * beta / 1e9:.3g} GB/s",
    )
    _size_axis(ax, sizes.min(), sizes.max())
    ax.set_yscale("log")
    ax.set_xlabel("消息大小 M")
    ax.set_ylabel("busbw（GB/s）")
    ax.legend(fontsize=9, loc="lower right")
    return ax


class NcclExplorer(Explorer):
    """NCCL's pick, the lower bound and the efficiency for a preset, a rank count and a size.

    Controls: ``preset`` (a key of :data:`~ccb_helpers.NCCL_TOPOLOGIES`), ``n`` (ranks: 2 … 8 on
    the NVLink node, multiples of 8 up to 2048 on the InfiniBand cluster), ``log2_m`` (message
    size 2^3 … 2^34 bytes) and ``efficiency`` (plot bound / time instead of time).

    Examples
    --------
    >>> e = NcclExplorer(preset="dgx_h100", n=8, log2_m=30)
    >>> e.result.pick, round(e.result.efficiency, 2)
    ('NVLS/Simple', 0.74)
    >>> e.update(preset="ib_h100"); e.n_nodes, e.result.pick
    (2, 'NVLSTree/Simple')
    """

    figsize = (_COLUMN, 4.6)
    readout_lines = 3  # the longest readout (with the book's pick) takes three lines at 688 px

    def _controls(self) -> dict:
        import ipywidgets as widgets

        from .explorers.base import STYLE, slider_args

        return {
            "preset": widgets.Dropdown(
                options=[(t.label, key) for key, t in NCCL_TOPOLOGIES.items()],
                value="dgx_h100",
                description="系统",
                style=STYLE,
                layout=widgets.Layout(width="auto"),
            ),
            "n": widgets.IntSlider(value=8, min=2, max=8, step=1, **slider_args("GPU 数 N")),
            "log2_m": widgets.IntSlider(value=20, min=3, max=34, **slider_args("log₂ M（字节）")),
            "efficiency": widgets.Checkbox(value=False, description="画效率（下界 / 时间）", style=STYLE),
        }

    def _adjust(self, name: str) -> None:
        if name != "preset":
            return
        slider = self.controls["n"]
        slider.min, slider.max = 0, max(slider.max, 2048)  # widen first so every value below is valid
        if self.controls["preset"].value == "dgx_h100":
            slider.step, slider.value = 1, 8
            slider.min, slider.max = 2, 8
        else:
            slider.step, slider.value = 8, 16
            slider.min, slider.max = 8, 2048

    def setup(self, figure) -> None:
        from .plotting import COLORS

        figure.subplots_adjust(left=0.1, right=0.98, bottom=0.11, top=0.93)
        ax = self._ax = figure.add_subplot()
        self._curves = {
            label: ax.plot([], [], _LINESTYLE[label.split("/")[1]], color=color, linewidth=1.6, label=label)[0]
            for label, color in NCCL_PICK_COLORS.items()
        }
        self._bound = ax.plot([], [], color=COLORS["bound"], linewidth=2.2, label="下界")[0]
        self._in_network = ax.plot(
            [], [], color=COLORS["bound"], linewidth=1.2, linestyle="-.", label="下界（网内归约）"
        )[0]
        self._mark = ax.plot(
            [], [], "o", markersize=9, markerfacecolor="none", markeredgecolor=COLORS["bound"], markeredgewidth=2
        )[0]
        self._note = ax.annotate(
            "",
            (1.0, 1.0),
            textcoords="offset points",
            xytext=(10, -16),
            fontsize=10,
            bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
        )
        self._title = ax.set_title("", fontsize=10)
        self._legend, self._legend_handles = None, None
        _size_axis(ax)
        ax.set_xlim(2.0**3 / 1.4, 2.0**34 * 1.4)
        ax.set_xlabel("消息大小 M")

    def refresh(self, preset, n, log2_m, efficiency) -> str:
        state = nccl_state(preset, n, log2_m, efficiency)
        self.n_nodes, self.n, self.result = state["n_nodes"], state["n"], state["result"]
        ax = self._ax
        shown = []
        for label, line in self._curves.items():
            line.set_visible(label in state["lines"])
            if label in state["lines"]:
                line.set_data(state["sizes"], state["lines"][label])
                shown.append(line)
        self._bound.set_visible(not efficiency)
        self._in_network.set_visible(not efficiency)
        self._bound.set_data(state["sizes"], state["bound_us"])
        self._in_network.set_data(state["sizes"], state["in_network_us"])
        if efficiency:
            ax.set_yscale("linear")
            ax.set_ylabel("效率 = 下界 / NCCL 估计")
        else:
            shown += [self._bound, self._in_network]
            ax.set_yscale("log")
            ax.set_ylabel("时间（µs）")
        ax.set_ylim(*state["ylim"])
        _size_axis(ax)
        ax.set_xlim(2.0**3 / 1.4, 2.0**34 * 1.4)
        m, y = state["mark"]
        self._mark.set_data([m], [y])
        self._note.xy = (m, y)
        right_half = state["note_side"] == "left"  # the label goes on the side of the mark that has room
        self._note.set_position((-12 if right_half else 10, -16))
        self._note.set_horizontalalignment("right" if right_half else "left")
        self._note.set_text(state["note"])
        self._title.set_text(state["title"])
        if self._legend is None or self._legend_handles != shown:  # rebuilt only when its entries change
            if self._legend is not None:
                self._legend.remove()
            self._legend = ax.legend(handles=shown, fontsize=9, ncol=2, loc="upper left")  # empty in both modes
            self._legend_handles = shown
        # Everything but the mark and its label depends on the system, N and the mode only: a
        # change of M redraws those two over the figure's kept pixels (Explorer._keep_background).
        self._keep_background((preset, n, bool(efficiency)), [self._mark, self._note])
        return state["readout"]


def nccl_state(preset: str, n: int, log2_m: int, efficiency: bool) -> dict:
    """What :class:`NcclExplorer` shows for these control values (no drawing).

    ``n`` / ``n_nodes`` (N rounded down to whole 8-GPU nodes on the cluster, ``note`` saying so),
    NCCL's pick against the bound at M = 2^log2_m (``result``, :func:`~ccb_helpers.nccl_vs_bound`),
    the curves over ``sizes`` (``lines[label]``: NCCL's estimate in µs, or bound / estimate with
    ``efficiency``; ``bound_us`` and ``in_network_us``, the bounds of :func:`_two_level_bound`,
    ``eq:cc-bound-combined``), the y limits, the marked point and its label, the title and the
    ``readout`` HTML. The explorer's ``refresh`` draws exactly this, and the static page exports
    it (:mod:`ccb_helpers.live.nccl`).

    Examples
    --------
    >>> s = nccl_state("ib_h100", 20, 20, False)
    >>> s["n"], s["n_nodes"], s["result"].pick
    (16, 2, 'NVLSTree/Simple')
    """
    preset = check_choice("preset", preset, NCCL_TOPOLOGIES)
    n = check_int("n", n, minimum=2, maximum=2048)
    log2_m = check_int("log2_m", log2_m, minimum=3, maximum=34)
    if not isinstance(efficiency, (bool, np.bool_)):
        raise TypeError(f"efficiency must be True or False, got {efficiency!r}")
    state = dict(_nccl_point(preset, n, log2_m))
    version, sizes, times, refs, bound, in_network = _explorer_curves(preset, state["n"], state["n_nodes"])
    r = state["result"]
    lines = {
        label: refs[label] / times[label] if efficiency else times[label] * 1e6
        for label in NCCL_PICK_COLORS
        if label in times
    }
    if efficiency:
        ylim = (0, 1.05)
        y = 1.0 if r.efficiency is None else r.efficiency  # NCCL's estimate beats the bound: flagged, drawn at 1
    else:
        ys = np.concatenate(list(lines.values()) + [bound * 1e6, in_network * 1e6])
        ys = ys[np.isfinite(ys) & (ys > 0)]
        ylim = (ys.min() / 1.6, ys.max() * 1.6)
        y = r.nccl_time * 1e6
    state.update(
        sizes=sizes,
        lines=lines,
        bound_us=bound * 1e6,
        in_network_us=in_network * 1e6,
        ylim=ylim,
        mark=(2**log2_m, y),
        title=f"NCCL {version} 的估计：all_reduce，N = {state['n']}，{state['n_nodes']} 个节点",
    )
    return state


@functools.lru_cache(maxsize=4096)
def _nccl_point(preset: str, n: int, log2_m: int) -> dict:
    """The part of :func:`nccl_state` that does not depend on ``efficiency`` (pick, readout, labels)."""
    from .units import format_bytes, format_time

    note = ""
    if preset != "dgx_h100" and n % 8:
        note = f"（N = {n} 不是 8 的倍数：按每节点 8 块 GPU 取 {max(8, n - n % 8)}）"
        n = max(8, n - n % 8)
    n_nodes = 1 if preset == "dgx_h100" else n // 8
    m = 2**log2_m
    topo = _resolve_topology(preset, {}, n_nodes, n // n_nodes)
    r = _vs_bound("all_reduce", n, n_nodes, m, topo)
    alpha, beta, node_beta = _bound_parameters(topo)
    bound_kind = "网内归约的下界" if r.in_network else "下界"
    reference = r.in_network_bound_time if r.in_network else r.bound_time
    shown_eff = "—（估计快于下界）" if r.efficiency is None else f"{r.efficiency:.2f}"
    line = "" if r.line_efficiency is None else f"（对照物理线速 {r.line_efficiency:.2f}）"  # β is NCCL's own
    book = ""
    if r.book_algorithm is not None:
        from .algorithms import ALGORITHM_LABELS

        book = f"；本书选型：{ALGORITHM_LABELS[r.book_algorithm]}，{format_time(r.book_time)}"
    readout = (
        f"<b>AllReduce，N = {n}（{n_nodes} 个节点），M = {format_bytes(m)}</b>{note}：NCCL {NCCL_MODEL_VERSION} 的模型选 <b>{r.pick}</b>，"
        f"估计 {format_time(r.nccl_time)}；{bound_kind} {format_time(reference)}"
        f"（α = {format_time(alpha)}，β = {beta / 1e9:.3g} GB/s）；效率 <b>{shown_eff}</b>{line}{book}。"
    )
    return {
        "n": n,
        "n_nodes": n_nodes,
        "result": r,
        "readout": readout,
        "note": f"{r.pick}，{format_bytes(m)}",
        "note_side": "left" if log2_m > 24 else "right",
    }
