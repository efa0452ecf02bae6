"""Chapter 4 figures: latency- vs bandwidth-bound regimes, the best algorithm map, algorithm times against the bound."""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_bandwidth, check_int, check_real
from ._checks import (
    _check_ax,
    _check_axes_list,
    _check_bool,
    _check_m_range,
    _check_names,
    _format_rate,
    _new_axes,
)
from .style import BOOK_WIDTH, COLORS, use_book_style


def plot_regime_map(
    primitive="all_reduce",
    preset_keys=("a100_nvlink", "h100_nvswitch", "ib_ndr"),
    n_max=4096,
    m_range=(2.0**6, 2.0**34),
    axes=None,
):
    """Latency- vs bandwidth-bound regions of the lower bound over (N, M), with the M* curve, per preset.

    Uses each preset's α, β and ``k = ports_for(N)`` capped at 1 for bandwidth when the preset
    shares one NIC (InfiniBand); the M* curve is :func:`ccb_helpers.crossover_size`. One panel
    per preset, two per row.

    Parameters
    ----------
    primitive : str
    preset_keys : sequence of str
        Keys of :data:`ccb_helpers.PRESETS`, one to four.
    n_max : int, default 4096
        Largest N, ``4 <= n_max <= 2**20``.
    m_range : (float, float)
        Smallest and largest M in bytes.
    axes : sequence of matplotlib Axes, optional
        One per preset.

    >>> axes = plot_regime_map(preset_keys=("a100_nvlink",), n_max=256)
    >>> len(axes)
    1
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    from ..bounds import crossover_size, regime
    from ..hardware import PRESETS
    from ..primitives import check_primitive
    from ..units import format_bytes, format_time

    primitive = check_primitive(primitive)
    preset_keys = _check_names("preset_keys", preset_keys, PRESETS, max_count=4)
    n_max = check_int("n_max", n_max, minimum=4, maximum=2**20, scalar=True)
    m_range = _check_m_range(m_range)
    axes = _check_axes_list(axes, len(preset_keys))
    use_book_style()
    if axes is None:
        cols = min(2, len(preset_keys))
        rows = math.ceil(len(preset_keys) / cols)
        fig, grid = plt.subplots(rows, cols, figsize=(BOOK_WIDTH if cols == 2 else 4.2, 3.4 * rows), squeeze=False)
        axes = list(grid.ravel())
        for spare in axes[len(preset_keys) :]:
            spare.axis("off")
        axes = axes[: len(preset_keys)]
    ns = np.unique(np.geomspace(2, n_max, 120).astype(np.int64))
    ms = np.geomspace(*m_range, 160)
    for ax, key in zip(axes, preset_keys):
        p = PRESETS[key]
        ports = 1 if p.ports is None else p.ports
        grid = regime(primitive, ns[:, None], ms[None, :], p.alpha, p.beta, ports=ports)
        ax.pcolormesh(
            ns,
            ms,
            (grid == "bandwidth").T.astype(float),
            cmap=ListedColormap(["#dbe9f6", "#f8dcdc"]),
            shading="auto",
            vmin=0,
            vmax=1,
        )
        m_star = np.array([crossover_size(primitive, int(n), p.alpha, p.beta, ports=ports) for n in ns])
        ax.plot(ns, m_star, color=COLORS["bound"], linewidth=2, label="$M^*$")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("节点数 N")
        ax.set_ylabel("消息大小 M")
        ax.yaxis.set_major_formatter(lambda v, _pos: format_bytes(v))
        ax.set_title(
            f"{p.label.split(' (')[0]}\nα = {format_time(p.alpha)}，β = {_format_rate(p.beta)}，k = {ports}",
            fontsize=9.5,
        )
        ax.text(0.04, 0.92, "带宽主导", transform=ax.transAxes, fontsize=9.5, color=COLORS["bandwidth"])
        ax.text(0.60, 0.05, "延迟主导", transform=ax.transAxes, fontsize=9.5, color=COLORS["latency"])
        ax.grid(False)
    return axes


def _map_node_counts(n_max: int) -> np.ndarray:
    """The node counts :func:`plot_best_algorithm_map` evaluates: 140 log-spaced, and every power of two.

    The powers of two are where the algorithms that need one compete (the map's stripes); the
    log grid alone skipped 64 ... 512 below ``n_max = 1024`` (#38 review).

    >>> [int(n) for n in _map_node_counts(1024) if n & (n - 1) == 0]
    [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    """
    n_max = check_int("n_max", n_max, minimum=4, maximum=2**20, scalar=True)
    powers = 2 ** np.arange(1, n_max.bit_length(), dtype=np.int64)
    return np.union1d(np.unique(np.geomspace(2, n_max, 140).astype(np.int64)), powers[powers <= n_max])


def plot_best_algorithm_map(
    primitive="all_reduce", alpha=1.5e-6, beta=50e9, ports=1, n_max=1024, m_range=(2.0**6, 2.0**32), ax=None
):
    """The fastest modelled algorithm over (N, M), with the lower bound's crossover size M*.

    Algorithms that need a power of two compete only at those N (the vertical stripes).

    Parameters
    ----------
    primitive : str
    alpha : float
        Latency per step in seconds (``>= 0``).
    beta : float
        Bandwidth of one link in one direction, bytes/s (``> 0``).
    ports : int, default 1
    n_max : int, default 1024
        Largest N, ``4 <= n_max <= 2**20``.
    m_range : (float, float)
    ax : matplotlib Axes, optional

    >>> ax = plot_best_algorithm_map(n_max=64)
    >>> ax.get_xlabel()
    '节点数 N'
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from ..algorithms import ALGORITHM_LABELS, applicable_algorithms, best_algorithm
    from ..bounds import crossover_size
    from ..primitives import check_primitive
    from ..units import format_bytes, format_time

    primitive = check_primitive(primitive)
    # Scalars, named as the caller named them (the title's format_time called a list "seconds", #28).
    alpha = check_real("alpha", alpha, maximum=1e9, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    n_max = check_int("n_max", n_max, minimum=4, maximum=2**20, scalar=True)
    m_range = _check_m_range(m_range)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        ax = _new_axes(BOOK_WIDTH, 4.4)
    ns = _map_node_counts(n_max)
    ms = np.geomspace(*m_range, 160)
    names, times = best_algorithm(primitive, ns[:, None], ms[None, :], alpha, beta, ports)
    candidates = applicable_algorithms(primitive, ports=ports)
    present = [a for a in candidates if np.any(names == a)]
    index = np.vectorize(present.index)(names)
    cmap = ListedColormap([COLORS.get(a, "#cccccc") for a in present])
    ax.pcolormesh(ns, ms, index.T, cmap=cmap, shading="auto", vmin=-0.5, vmax=len(present) - 0.5, alpha=0.55)
    m_star = np.array([crossover_size(primitive, int(n), alpha, beta, ports=ports) for n in ns])
    ax.plot(ns, m_star, color=COLORS["bound"], linewidth=1.5, linestyle="--", label="$M^*$（下界的交叉点）")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_formatter(lambda v, _pos: format_bytes(v))
    ax.set_xlabel("节点数 N")
    ax.set_ylabel("消息大小 M")
    ax.set_title(
        f"每个 (N, M) 上最快的算法；α = {format_time(alpha)}，β = {_format_rate(beta)}，{ports}-port", fontsize=10
    )
    handles = [Patch(color=COLORS.get(a, "#cccccc"), alpha=0.55, label=ALGORITHM_LABELS[a]) for a in present]
    ax.legend(handles=handles + ax.get_legend_handles_labels()[0], loc="upper left")
    ax.grid(False)
    return ax


def plot_algorithm_times(
    primitive="all_reduce", n=16, alpha=1.5e-6, beta=50e9, ports=1, m_range=(2.0**6, 2.0**32), efficiency=False, ax=None
):
    """Time (or efficiency = bound / time) against M for the lower bound and every applicable algorithm.

    Parameters
    ----------
    primitive : str
    n : int
        Nodes, ``2 <= n <= 2**20``.
    alpha : float
        Latency per step in seconds (``>= 0``).
    beta : float
        Bandwidth of one link in one direction, bytes/s (``> 0``).
    ports : int, default 1
    m_range : (float, float)
    efficiency : bool, default False
        Plot bound / time instead of time.
    ax : matplotlib Axes, optional

    >>> ax = plot_algorithm_times(n=8)
    >>> ax.get_lines()[0].get_label()
    '下界 max(Tα, Tβ)'
    """
    from ..algorithms import ALGORITHM_LABELS, algorithm_cost, applicable_algorithms
    from ..bounds import combined_lower_bound, crossover_size
    from ..primitives import check_primitive
    from ..units import format_bytes, format_time

    primitive = check_primitive(primitive)
    n = check_int("n", n, minimum=2, maximum=2**20, scalar=True)
    alpha = check_real("alpha", alpha, maximum=1e9, scalar=True)
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    m_range = _check_m_range(m_range)
    efficiency = _check_bool("efficiency", efficiency)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        ax = _new_axes(BOOK_WIDTH, 4.3)
    ms = np.geomspace(*m_range, 200)
    bound = combined_lower_bound(primitive, n, ms, alpha, beta, ports=ports)
    if not efficiency:
        ax.plot(ms, bound, color=COLORS["bound"], linewidth=2.5, label="下界 max(Tα, Tβ)")
    for name in applicable_algorithms(primitive, n=n, ports=ports):
        t = algorithm_cost(name, primitive, n, ms, alpha, beta, ports=ports)
        ax.plot(ms, bound / t if efficiency else t, color=COLORS.get(name), label=ALGORITHM_LABELS[name])
    ax.axvline(
        crossover_size(primitive, n, alpha, beta, ports=ports),
        color="#999999",
        linestyle="--",
        linewidth=1,
        label="$M^*$",
    )
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(lambda v, _pos: format_bytes(v))
    if efficiency:
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("效率 = 下界 / 时间")
    else:
        ax.set_yscale("log")
        ax.set_ylabel("时间 (s)")
    ax.set_xlabel("消息大小 M")
    ax.set_title(f"N = {n}，α = {format_time(alpha)}，β = {_format_rate(beta)}，{ports}-port", fontsize=10.5)
    ax.legend()
    return ax
