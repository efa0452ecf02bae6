"""Figures and tables of MPI results: ping-pong fit, measured time vs cost model vs bound vs library."""

from __future__ import annotations

import copy

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_bandwidth, check_int, check_real
from ..algorithms import algorithm_terms
from ..bounds import combined_lower_bound
from ..plotting import BOOK_WIDTH, COLORS, use_book_style
from ..plotting._checks import _check_axes_list
from ..primitives import PRIMITIVE_LABELS
from ..tables import Table
from ..units import format_bytes, format_time

__all__ = [
    "plot_pingpong",
    "plot_mpi_runs",
    "plot_mpi_ratios",
    "mpi_runs_table",
    "pair_label",
    "runs_by_pair",
    "model_and_bound",
]

LIBRARY_COLOR = "#111111"
BOUND_COLOR = "#888888"


#: Short algorithm names for narrow tables and panel titles.
SHORT_LABELS = {
    "ring": "Ring",
    "bidirectional_ring": "Bi-ring",
    "binomial_tree": "Binomial",
    "double_binary_tree": "DBT",
    "recursive_halving_doubling": "RHD",
    "recursive_doubling": "RD",
    "bruck": "Bruck",
    "pairwise": "Pairwise",
    "scatter_allgather": "Scatter+AG",
}


def pair_label(algorithm: str, primitive: str) -> str:
    """``"Ring AllReduce"``: short display name of an algorithm x primitive pair.

    >>> pair_label("bruck", "all_gather"), pair_label("recursive_halving_doubling", "all_reduce")
    ('Bruck AllGather', 'RHD AllReduce')
    """
    return f"{SHORT_LABELS[algorithm]} {PRIMITIVE_LABELS[primitive]}"


def _pairs(pairs, by_pair) -> list:
    """The ``pairs`` argument: None (all) or a list of (algorithm, primitive) pairs of the result."""
    if pairs is None:
        return list(by_pair)
    if not isinstance(pairs, (list, tuple)) or len(pairs) > 1000:
        raise TypeError(f"pairs must be a list of (algorithm, primitive) pairs, got {type(pairs).__name__}")
    out = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError(f"pairs[{i}] must be an (algorithm, primitive) pair, got {pair!r}"[:200])
        out.append(tuple(pair))
    return out


def _loaded(result):
    from .results import load_mpi_result

    try:
        return load_mpi_result(result)
    except (TypeError, ValueError) as err:  # the argument here is called result
        message = str(err).removeprefix("source: ")
        raise type(err)(f"result: {message}".replace("result: source must be", "result must be")) from None


def runs_by_pair(result) -> dict:
    """``{(algorithm, primitive): [runs sorted by m]}`` of a ``run`` / ``sweep`` result (sizes > 0 only)."""
    result = _loaded(result)
    if "runs" not in result:
        raise ValueError(f"a {result['command']!r} result has no runs; give a run or sweep result")
    pairs: dict = {}
    for run in result["runs"]:
        if run["m"] > 0:
            pairs.setdefault((run["algorithm"], run["primitive"]), []).append(run)
    for runs in pairs.values():
        runs.sort(key=lambda r: r["m"])
    return pairs


def model_and_bound(run: dict, alpha, beta) -> tuple[float, float]:
    """The cost model and the combined lower bound (s) of one run's case for these α (s), β (bytes/s).

    >>> run = {"algorithm": "ring", "primitive": "all_reduce", "n": 4, "m": 4 * 10**6, "ports": 1}
    >>> model_and_bound(run, 1e-6, 1e9)   # 6 α + 1.5 M/β; bound max(2 α, 1.5 M/β)
    (0.006006, 0.006)
    """
    alpha = check_real("alpha", alpha)
    beta = check_bandwidth("beta", beta)
    cost = algorithm_terms(
        run["algorithm"], run["primitive"], run["n"], run["m"], run.get("ports", 1), chunks=run.get("chunks")
    )
    return cost.time(alpha, beta), combined_lower_bound(
        run["primitive"], run["n"], run["m"], alpha, beta, run.get("ports", 1)
    )


def _alpha_beta(result, alpha, beta):
    alpha = result.get("alpha_s") if alpha is None else alpha
    beta = result.get("beta_Bps") if beta is None else beta
    if alpha is None or beta is None:
        raise ValueError("the result carries no alpha/beta; pass alpha= and beta=")
    return check_real("alpha", alpha, maximum=1e9, scalar=True), check_bandwidth("beta", beta, scalar=True)


def plot_pingpong(result, axes=None, fit=None):
    """Ping-pong: one-way time vs size with the α-β fit (left) and measured / fitted (right).

    Parameters
    ----------
    result : dict or path
        A ``pingpong`` result (:func:`~ccb_helpers.mpi.load_mpi_result`), or a ``run`` / ``sweep``
        result that measured α and β itself (its ``pingpong`` part is drawn).
    axes : pair of Axes, optional
    fit : AlphaBetaFit, optional
        Default: the result's own ``alpha_s`` / ``beta_Bps``.

    Returns
    -------
    ndarray of two Axes
    """
    result = _loaded(result)
    if result["command"] != "pingpong":
        if not isinstance(result.get("pingpong"), dict):
            raise ValueError(
                f"plot_pingpong needs a pingpong result or one that measured alpha and beta; got a {result['command']!r} "
                "result without a ping-pong"
            )
        result = result["pingpong"]
    # Checked before drawing (#28: an int or a 0-d array reached matplotlib or the unpacking).
    axes = _check_axes_list(axes, 2)
    if fit is not None:
        from .fit import AlphaBetaFit

        if not isinstance(fit, AlphaBetaFit):
            raise TypeError(
                f"fit must be an AlphaBetaFit (ccb_helpers.mpi.fit_alpha_beta) or None, got {type(fit).__name__}"
            )
        check_real("fit.alpha_s", fit.alpha_s, maximum=1e9, scalar=True)
        check_bandwidth("fit.beta_Bps", fit.beta_Bps, scalar=True)
    use_book_style()
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(BOOK_WIDTH, 3.6))
    alpha, beta = (result["alpha_s"], result["beta_Bps"]) if fit is None else (fit.alpha_s, fit.beta_Bps)
    sizes = np.array(result["sizes"], dtype=float)
    times = np.array(result["times_s"])
    shown = sizes > 0
    left, right = axes
    if "median_times_s" in result:
        medians = np.array(result["median_times_s"])
        left.plot(
            sizes[shown],
            medians[shown],
            "o",
            markerfacecolor="none",
            color=COLORS["latency"],
            markersize=5,
            label="中位数",
        )
    left.plot(sizes[shown], times[shown], "o", color=COLORS["latency"], markersize=4, label="平均（拟合用，同 OSU）")
    grid = np.geomspace(sizes[shown].min(), sizes[shown].max(), 200)
    left.plot(grid, alpha + grid / beta, color=COLORS["bandwidth"], label="拟合 α + M/β")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("消息大小 M（字节）")
    left.set_ylabel("单程时间（s）")
    left.set_title(f"α = {format_time(alpha)}，β = {beta / 1e9:.3g} GB/s")
    left.legend(loc="upper left", fontsize=9)
    ratio = times[shown] / (alpha + sizes[shown] / beta)
    right.plot(sizes[shown], ratio, "o-", color=COLORS["latency"], markersize=4, label="平均 / 拟合")
    if "median_times_s" in result:
        right.plot(
            sizes[shown],
            medians[shown] / (alpha + sizes[shown] / beta),
            "o:",
            markerfacecolor="none",
            color=COLORS["latency"],
            markersize=5,
            label="中位数 / 拟合",
        )
        right.set_yscale("log")
        right.legend(loc="upper left", fontsize=9)
    right.axhline(1, color=BOUND_COLOR, linewidth=1)
    right.set_xscale("log", base=2)
    right.set_xlabel("消息大小 M（字节）")
    right.set_ylabel("实测 / 拟合")
    right.set_title(f"拟合的相对残差（RMS）{result.get('residual', float('nan')):.0%}")
    left.figure.tight_layout()
    return np.asarray(axes)


def plot_mpi_runs(result, pairs=None, alpha=None, beta=None, ncols=2, axes=None):
    """Measured time, cost model, lower bound and the MPI library's collective, one panel per pair.

    The model and the bound are evaluated with ``alpha``, ``beta`` (default: the result's own);
    the band around the measured median spans the fastest and the slowest timed run.

    Parameters
    ----------
    result : dict or path
        A ``run`` or ``sweep`` result.
    pairs : list of (algorithm, primitive), optional
        Which pairs, in order (default: all, in the file's order).
    alpha, beta : float, optional
        Latency (s) and bandwidth (bytes/s) for the model and the bound.
    ncols : int, default 2
        Panels per row (at most two side by side).

    Returns
    -------
    ndarray of Axes
    """
    result = _loaded(result)
    alpha, beta = _alpha_beta(result, alpha, beta)
    ncols = check_int("ncols", ncols, minimum=1, maximum=2, scalar=True)
    by_pair = runs_by_pair(result)
    pairs = _pairs(pairs, by_pair)
    missing = [p for p in pairs if p not in by_pair]
    if missing:
        raise ValueError(f"pairs {missing} are not in the result; it has {list(by_pair)}")
    # Given axes were never checked: a str or a number met matplotlib's fill_between (#28).
    axes = _check_axes_list(axes, len(pairs))
    use_book_style()
    rows = -(-len(pairs) // ncols)
    spare = None
    if axes is None:
        figure, axes = plt.subplots(rows, ncols, figsize=(BOOK_WIDTH, 3.1 * rows), squeeze=False, sharex=True)
        for ax in axes.ravel()[len(pairs) :]:
            ax.set_visible(False)
        spare = axes.ravel()[len(pairs)] if axes.size > len(pairs) else None
    axes = np.ravel(np.asarray(axes, dtype=object))
    for ax, pair in zip(axes, pairs):
        runs = by_pair[pair]
        sizes = np.array([r["m"] for r in runs], dtype=float)
        measured = np.array([r["median_s"] for r in runs])
        low = np.array([min(r["times_s"]) for r in runs])
        high = np.array([max(r["times_s"]) for r in runs])
        model, bound = np.array([model_and_bound(r, alpha, beta) for r in runs]).T
        color = COLORS.get(pair[0], COLORS["latency"])
        ax.fill_between(sizes, low, high, color=color, alpha=0.15, linewidth=0)
        ax.plot(sizes, measured, "o-", color=color, markersize=4, label="实测（中位数）")
        ax.plot(sizes, model, "--", color=color, label="α-β 代价模型")
        ax.plot(sizes, bound, "-.", color=BOUND_COLOR, label="综合下界")
        library_call = ""
        if all("library_median_s" in r for r in runs):
            library_call = runs[0].get("library_call", "")
            ax.plot(
                sizes,
                [r["library_median_s"] for r in runs],
                "s:",
                color=LIBRARY_COLOR,
                markersize=3,
                label="MPI 库自带的集合操作",
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(
            f"{pair_label(*pair)}，N = {runs[0]['n']}" + (f"（库：{library_call}）" if library_call else ""),
            fontsize=10,
        )
        ax.set_ylabel("时间（s）")
    for ax in axes[max(0, len(pairs) - ncols) : len(pairs)]:
        ax.set_xlabel("消息大小 M（字节）")
        ax.xaxis.set_tick_params(labelbottom=True)
    # One legend for all panels (same four kinds of line; colours follow the algorithm), in the
    # empty slot if there is one, else above the panels.
    handles, labels = axes[0].get_legend_handles_labels()
    handles = [copy.copy(h) for h in handles]
    for h in handles:
        if h.get_color() not in (BOUND_COLOR, LIBRARY_COLOR):
            h.set_color("#555555")
    labels = [label + ("（色带：最快–最慢）" if label.startswith("实测") else "") for label in labels]
    figure = axes[0].figure
    if spare is not None:
        spare.set_visible(True)
        spare.axis("off")
        spare.legend(handles, labels, loc="center", fontsize=9.5, title="每格中的线（颜色 = 算法）", title_fontsize=9.5)
        figure.tight_layout()
    else:
        figure.tight_layout(rect=(0, 0, 1, 1 - 0.35 / figure.get_size_inches()[1]))
        figure.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=9, frameon=False)
    return axes[: len(pairs)]


def plot_mpi_ratios(result, pairs=None, alpha=None, beta=None, axes=None):
    """How far each pair stood from its bound (left) and from the MPI library (right), against M.

    Left: measured median / combined lower bound (1 = the bound is met); right: measured median /
    the library collective's median (below 1: the book's schedule beat the library).

    Returns
    -------
    ndarray of two Axes
    """
    result = _loaded(result)
    alpha, beta = _alpha_beta(result, alpha, beta)
    by_pair = runs_by_pair(result)
    pairs = _pairs(pairs, by_pair)
    axes = _check_axes_list(axes, 2)
    use_book_style()
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(BOOK_WIDTH, 3.6))
    left, right = axes
    for pair in pairs:
        runs = by_pair[pair]
        sizes = np.array([r["m"] for r in runs], dtype=float)
        bound = np.array([model_and_bound(r, alpha, beta)[1] for r in runs])
        measured = np.array([r["median_s"] for r in runs])
        color = COLORS.get(pair[0], COLORS["latency"])
        left.plot(sizes, measured / bound, "o-", color=color, markersize=3.5, label=pair_label(*pair))
        if all("library_median_s" in r for r in runs):
            right.plot(
                sizes,
                measured / np.array([r["library_median_s"] for r in runs]),
                "o-",
                color=color,
                markersize=3.5,
                label=pair_label(*pair),
            )
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.axhline(1, color=BOUND_COLOR, linewidth=1)
        ax.set_xlabel("消息大小 M（字节）")
    left.set_ylabel("实测 / 下界")
    left.set_title(f"离下界多远（N = {result['n']}）", fontsize=10.5)
    right.set_ylabel("实测 / MPI 库")
    right.set_title("与 MPI 库自带的集合操作相比", fontsize=10.5)
    left.legend(loc="upper right", fontsize=8)
    left.figure.tight_layout()
    return np.asarray(axes)


def _format_ratio(ratio: float) -> str:
    """Three significant digits at most, no trailing noise: 2.00, 13.5, 7372.

    >>> _format_ratio(2.0), _format_ratio(13.54), _format_ratio(7372.26)
    ('2.00', '13.5', '7372')
    """
    if not np.isfinite(ratio):
        return "—"
    return f"{ratio:.2f}" if ratio < 10 else (f"{ratio:.1f}" if ratio < 100 else f"{ratio:.0f}")


def mpi_runs_table(result, m=None, alpha=None, beta=None) -> Table:
    """One row per run, or per pair at size ``m``: measured, model, bound, library, measured / bound.

    With ``m`` the size moves into the caption; the verdict (measured / bound) is the second
    column, so it stays visible on a phone.

    >>> run = {"command": "run", "algorithm": "ring", "primitive": "all_reduce", "n": 4, "m": 4 * 10**6,
    ...        "ports": 1, "correct": True, "times_s": [0.012], "median_s": 0.012, "library_median_s": 0.01,
    ...        "alpha_s": 1e-6, "beta_Bps": 1e9}

    >>> mpi_runs_table(run).rows[0]   # model 6 α + 1.5 M/β = 6.006 ms; bound max(2 α, 1.5 M/β) = 6 ms
    ['Ring AllReduce', '3.8 MiB', '2.00', '12 ms', '6.01 ms', '6 ms', '10 ms']
    >>> mpi_runs_table(run, m=4 * 10**6).rows[0]
    ['Ring AllReduce', '2.00', '12 ms', '6.01 ms', '6 ms', '10 ms']
    """
    result = _loaded(result)
    alpha, beta = _alpha_beta(result, alpha, beta)
    if m is not None:
        m = check_int("m", m, minimum=0, scalar=True)
    rows, values = [], []
    for pair, runs in runs_by_pair(result).items():
        for run in runs:
            if m is not None and run["m"] != m:
                continue
            model, bound = model_and_bound(run, alpha, beta)
            library = run.get("library_median_s")
            ratio = run["median_s"] / bound if bound > 0 else float("inf")
            values.append((pair, run["m"], run["median_s"], model, bound, library, ratio, run["correct"]))
            row = [pair_label(*pair) + ("" if run["correct"] else "（结果错误）")] + (
                [] if m is not None else [format_bytes(run["m"])]
            )
            rows.append(
                row
                + [
                    _format_ratio(ratio),
                    format_time(run["median_s"]),
                    format_time(model),
                    format_time(bound),
                    "—" if library is None else format_time(library),
                ]
            )
    if m is not None and not rows:
        raise ValueError(f"no run has m = {m}")
    where = f"M = {format_bytes(m)}，" if m is not None else ""
    caption = f"N = {result['n']}，{where}模型与下界取 α = {format_time(alpha)}、β = {beta / 1e9:.3g} GB/s"
    headers = ["算法"] + ([] if m is not None else ["$M$"]) + ["实测 / 下界", "实测", "模型", "下界", "MPI 库"]
    return Table(headers, rows, caption, values)
