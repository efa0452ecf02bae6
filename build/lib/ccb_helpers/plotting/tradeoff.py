"""Chapter 9 figure: the AllToAll trade-off curve and Bruck's radix family on it (:func:`plot_tradeoff`)."""

from __future__ import annotations

from .._validation import check_int
from ._checks import _check_ax
from .style import BOOK_WIDTH, COLORS, SMALL, use_book_style


def plot_tradeoff(n=64, ports=1, ax=None):
    """Least bandwidth bytes (in blocks ``M/N``) against rounds, and every radix of Bruck's index.

    The black steps are :func:`ccb_helpers.all_to_all_tradeoff_bound` for every round count; the
    dots are :func:`ccb_helpers.bruck_index_cost` for radix 2 (fewest rounds) to ``N`` (least
    data); the dashed line is the volume floor ``(N-1)/k``.

    Parameters
    ----------
    n : int
        Nodes, ``2 <= n <= 4096``.
    ports : int
        ``k``, ``1 <= ports <= 8``.
    ax : matplotlib Axes, optional

    >>> ax = plot_tradeoff(16)
    >>> ax.get_xlabel()
    '轮数 C₁'
    """
    from ..tradeoff import all_to_all_tradeoff_curve, bruck_index_cost

    n = check_int("n", n, minimum=2, maximum=4096, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=8, scalar=True)
    _check_ax(ax)
    use_book_style()
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(BOOK_WIDTH, 3.6), layout="constrained")
    curve = all_to_all_tradeoff_curve(n, float(n), ports)  # M = N bytes: one byte a block
    rounds = [r for r, _ in curve]
    blocks = [v for _, v in curve]
    ax.step(rounds, blocks, where="post", color=COLORS["bound"], linewidth=1.6, label="下界：r 轮内的最少 C₂")
    ax.axhline((n - 1) / ports, color="#999999", linestyle="--", linewidth=1.0, label="体积下界 (N−1)/k")
    points = sorted({bruck_index_cost(n, float(n), r, ports) for r in range(2, n + 1)})
    ax.scatter(
        [p[0] for p in points], [p[1] for p in points], color=COLORS["bruck"], s=22, zorder=3, label="Bruck 的 radix 族"
    )
    two, full = bruck_index_cost(n, float(n), 2, ports), bruck_index_cost(n, float(n), n, ports)
    ax.annotate("radix 2（Bruck）", two, xytext=(8, 4), textcoords="offset points", fontsize=SMALL)
    ax.annotate("radix N（成对交换）", full, xytext=(-8, 10), textcoords="offset points", fontsize=SMALL, ha="right")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("轮数 C₁")
    ax.set_ylabel("带宽字节 C₂（块数 M/N）")
    ax.set_title(f"AllToAll，N = {n}，k = {ports}：少轮数与少数据不可兼得", fontsize=10.5)
    ax.legend(fontsize=SMALL, loc="upper right")
    ax.set_ylim(0, max(blocks) * 1.15)
    ax.xaxis.set_major_formatter(lambda v, _pos: f"{v:g}")
    return ax
