"""Chapter 1's explorer: how many rounds information needs to reach N nodes with k ports."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.ticker import NullFormatter

from .._validation import check_int
from ..plotting import BOOK_WIDTH, COLORS, SMALL, _KnomialTreeArtists
from ..propagation import coverage, info_steps
from .base import STYLE, Explorer, slider_args

#: The tree is drawn up to this N (the explorer and the page's figure alike).
TREE_MAX = 64


def readout_html(n: int, k: int, all_port: bool) -> str:
    """The readout of :class:`PropagationExplorer` for these control values (eq. ``eq:cc-bound-info-kport``).

    A pure function of the controls: the explorer's refresh and the static site's live element
    (precomputed from it, :mod:`ccb_helpers.live.propagation_explorer`) show exactly this text.

    Parameters
    ----------
    n : int
        Nodes, ``n >= 2``.
    k : int
        Ports per node, ``k >= 1`` (the slider's value; ignored when ``all_port``).
    all_port : bool
        ``k = n - 1``.

    Examples
    --------
    >>> readout_html(64, 2, False)
    '<b>N = 64，k = 2</b>：下界 ⌈log<sub>3</sub> N⌉ = <b>4</b> 轮（延迟 ≥ 4·α）；1-port 需 6 轮，少 2 轮。'
    >>> readout_html(8, 1, True).count("all-port")
    2
    """
    n = check_int("n", n, minimum=2)
    k = check_int("k", k, minimum=1)
    if not isinstance(all_port, bool | np.bool_):
        raise TypeError(f"all_port must be True or False, got {type(all_port).__name__}")
    k = n - 1 if all_port else k
    steps, one_port = info_steps(n, k), info_steps(n, 1)
    saved = one_port - steps
    notes = []
    if all_port:
        notes.append(f"all-port：k = N − 1 = {k}，k 滑块此时不起作用")
    elif k >= n - 1:
        notes.append(f"k = {k} ≥ N − 1 = {n - 1}：一轮已通知所有节点，k 再大也不会更快")
    if n > TREE_MAX:
        notes.append(f"N > {TREE_MAX} 时右图不画树")
    return (
        f"<b>N = {n}，k = {k}{'（all-port）' if all_port else ''}</b>：下界 ⌈log<sub>{k + 1}</sub> N⌉ = "
        f"<b>{steps}</b> 轮（延迟 ≥ {steps}·α）；1-port 需 {one_port} 轮，"
        f"{'少 ' + str(saved) + ' 轮' if saved else '没有减少'}。" + (f"<br>{'；'.join(notes)}。" if notes else "")
    )


__all__ = ["PropagationExplorer", "readout_html"]


class PropagationExplorer(Explorer):
    """Information propagation: informed nodes per round against ``(k+1)**t`` and ``N``, and the tree.

    Controls: ``n`` (nodes, 2-1024), ``k`` (ports, 1-8), ``all_port`` (``k = N - 1``; the k
    slider is then disabled and the readout says so).

    Examples
    --------
    >>> e = PropagationExplorer(n=64, k=1)
    >>> e.steps
    6
    >>> e.update(k=2); e.steps
    4
    >>> e.update(all_port=True); e.steps, e.controls["k"].disabled
    (1, True)
    >>> e.close()
    """

    figsize = (BOOK_WIDTH, 3.4)
    TREE_MAX = TREE_MAX
    _BARS = 11  # ceil(log2 1024) + 1: rounds 0 .. steps at the slider's extremes

    def _controls(self) -> dict:
        return {
            "n": widgets.IntSlider(value=64, min=2, max=1024, **slider_args("节点数 N")),
            "k": widgets.IntSlider(value=1, min=1, max=8, **slider_args("端口数 k")),
            "all_port": widgets.Checkbox(value=False, description="all-port（k = N−1）", style=STYLE, indent=False),
        }

    def _adjust(self, name: str) -> None:
        if name == "all_port":  # k has no effect then: say so by disabling it
            self.controls["k"].disabled = self.controls["all_port"].value

    def setup(self, figure) -> None:
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.1]})
        figure.subplots_adjust(left=0.1, right=0.985, bottom=0.15, top=0.9, wspace=0.3)
        self.bars = left.bar(np.arange(self._BARS), np.ones(self._BARS), color=COLORS["latency"], alpha=0.75)
        (self.ideal,) = left.plot([], [], "o--", color=COLORS["bandwidth"])
        self.n_line = left.axhline(1, color=COLORS["bound"], linewidth=1)
        left.set_yscale("log")
        left.yaxis.set_major_formatter(lambda v, _pos: f"{v:g}")  # 1, 10, 100: narrow, whatever N is
        left.yaxis.set_minor_formatter(NullFormatter())
        left.set_xlabel("轮次 t")
        left.set_ylabel("持有数据的节点数")
        self.legend = left.legend(
            [self.bars, self.ideal, self.n_line], ["已通知节点数", "(k+1)^t", "N"], loc="upper left", fontsize=SMALL
        )
        self.left, self.right = left, right
        self.tree = _KnomialTreeArtists(right)
        self.too_big = right.text(0.5, 0.5, "", ha="center", va="center", fontsize=10, transform=right.transAxes)

    def refresh(self, n, k, all_port) -> str:
        k_slider, k = k, n - 1 if all_port else k
        self.n, self.k = n, k
        self.steps = steps = info_steps(n, k)
        rounds = np.arange(steps + 1)
        self.informed = [coverage(int(t), k, n) for t in rounds]
        ideal = [float(k + 1) ** t for t in rounds]
        for t, bar in enumerate(self.bars):
            bar.set_visible(t <= steps)
            bar.set_height(self.informed[t] if t <= steps else 1)
        self.ideal.set_data(rounds, ideal)
        self.n_line.set_ydata([n, n])
        for text, label in zip(self.legend.get_texts(), ["已通知节点数", f"$(k+1)^t$，k = {k}", f"N = {n}"]):
            text.set_text(label)
        left = self.left
        left.set_xlim(-0.6, steps + 0.6)
        left.set_ylim(0.7, max(n, ideal[-1]) * 12)  # a decade of head room: the legend sits above the N line
        left.set_xticks(rounds)
        left.set_title(rf"$\lceil \log_{{{k + 1}}} {n} \rceil = {steps}$ 轮覆盖全部节点")
        small = n <= self.TREE_MAX
        if small:
            self.right.set_axis_on()
        else:
            self.right.set_axis_off()
        for artist in [self.tree.edges, self.tree.nodes]:
            artist.set_visible(small)
        self.too_big.set_visible(not small)
        if small:
            self.tree.update(n, k)
        else:
            for label in self.tree.labels:
                label.set_visible(False)
            self.right.set_title("")
            self.too_big.set_text(
                f"N = {n} > {self.TREE_MAX}：树太大，不画\n（把 N 调到 {self.TREE_MAX} 以下\n可看到 {k + 1}-nomial 树）"
            )
        return readout_html(n, k_slider, all_port)
