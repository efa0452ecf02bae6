"""Interactive explorers (ipywidgets) used by the chapters; a notebook cell is one line.

Each explorer owns its controls, one matplotlib :class:`~matplotlib.figure.Figure` (never shown
through pyplot, so redraws never stack figures) rendered to PNG into an ``Image`` widget, and an
HTML readout. In Jupyter / Colab the live widget is displayed; the static site (which has no
kernel) shows the PNG of the default state instead: ``_repr_mimebundle_`` returns both, and the
book's ``nb_mime_priority_overrides`` drops the widget view for HTML.
"""

from __future__ import annotations

import base64
import io
from abc import ABC, abstractmethod

import ipywidgets as widgets
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ._validation import check_int
from .plotting import COLORS, draw_knomial_tree, use_book_style
from .propagation import coverage, info_steps

__all__ = ["Explorer", "PropagationExplorer", "TopologyExplorer", "BandwidthExplorer", "AlgorithmExplorer", "BisectionExplorer"]


class Explorer(ABC):
    """Base class: subclasses define ``_controls()`` and ``draw(figure, **values) -> readout html``."""

    figsize = (8.6, 3.8)

    def __init__(self, **values):
        use_book_style()
        self.controls: dict[str, widgets.ValueWidget] = self._controls()
        unknown = set(values) - set(self.controls)
        if unknown:
            raise TypeError(f"unknown control(s) {sorted(unknown)}; controls are {sorted(self.controls)}")
        self.figure = Figure(figsize=self.figsize, dpi=100)
        FigureCanvasAgg(self.figure)
        self.image = widgets.Image(format="png", layout=widgets.Layout(width="100%", max_width=f"{int(self.figsize[0] * 100)}px"))
        self.readout = widgets.HTML()
        self._holding = False
        self.redraws = 0
        for name, value in values.items():
            self.controls[name].value = value
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.widget = widgets.VBox(
            [widgets.HBox(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap")), self.readout, self.image]
        )
        self.update()

    # -- subclass API ---------------------------------------------------------------------
    @abstractmethod
    def _controls(self) -> dict:
        """The controls, by name (their names are the keyword arguments of ``draw``)."""

    @abstractmethod
    def draw(self, figure: Figure, **values) -> str:
        """Draw ``figure`` (already cleared) for these control values; return the readout HTML."""

    # -- machinery ------------------------------------------------------------------------
    @property
    def values(self) -> dict:
        """Current control values."""
        return {name: control.value for name, control in self.controls.items()}

    def _adjust(self, name: str) -> None:
        """Hook: after control ``name`` changed, adapt other controls (e.g. a slider's range)."""

    def _on_change(self, change) -> None:
        if self._holding:
            return
        name = next(n for n, c in self.controls.items() if c is change["owner"])
        self._holding = True
        try:
            self._adjust(name)
        finally:
            self._holding = False
        self.update()

    def update(self, **values) -> None:
        """Set any controls (one redraw for all of them) and redraw figure and readout."""
        self._holding = True
        try:
            for name, value in values.items():
                if name not in self.controls:
                    raise TypeError(f"unknown control {name!r}; controls are {sorted(self.controls)}")
                self.controls[name].value = value
                self._adjust(name)
            for name, value in values.items():  # an explicit value wins over an adjustment
                self.controls[name].value = value
        finally:
            self._holding = False
        self.figure.clear()
        self.readout.value = self.draw(self.figure, **self.values)
        self.image.value = self.png()
        self.redraws += 1

    def png(self) -> bytes:
        """The current figure as PNG bytes."""
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", dpi=100)
        return buffer.getvalue()

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude, **kwargs) or {}
        bundle = dict(bundle)
        bundle["image/png"] = base64.b64encode(bytes(self.image.value)).decode("ascii")
        bundle["text/plain"] = f"<{type(self).__name__}: {self.values}>"
        return bundle


class PropagationExplorer(Explorer):
    """Information propagation: informed nodes per round against ``(k+1)**t`` and ``N``, and the tree.

    Controls: ``n`` (nodes), ``k`` (ports), ``all_port`` (``k = N - 1``).

    Examples
    --------
    >>> e = PropagationExplorer(n=64, k=1)
    >>> e.steps
    6
    >>> e.update(k=2); e.steps
    4
    >>> e.update(all_port=True); e.steps
    1
    """

    def _controls(self) -> dict:
        style = {"description_width": "initial"}
        return {
            "n": widgets.IntSlider(value=64, min=2, max=1024, description="节点数 N", style=style, continuous_update=False),
            "k": widgets.IntSlider(value=1, min=1, max=8, description="端口数 k", style=style, continuous_update=False),
            "all_port": widgets.Checkbox(value=False, description="all-port（k = N−1）", style=style),
        }

    def draw(self, figure: Figure, n, k, all_port) -> str:
        n = check_int("n", n, minimum=2)
        k = n - 1 if all_port else check_int("k", k, minimum=1)
        self.n, self.k = n, k
        self.steps = info_steps(n, k)
        one_port = info_steps(n, 1)
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.25]})
        rounds = list(range(self.steps + 1))
        informed = [coverage(t, k, n) for t in rounds]
        self.informed = informed
        left.bar(rounds, informed, color=COLORS["latency"], alpha=0.75, label="已通知节点数")
        ideal = [(k + 1) ** t for t in rounds]
        left.plot(rounds, ideal, "o--", color=COLORS["bandwidth"], label=f"$(k+1)^t$, k = {k}")
        left.axhline(n, color=COLORS["bound"], linewidth=1, label=f"N = {n}")
        left.set_yscale("log")
        left.set_xticks(rounds)
        left.set_xlabel("轮次 t")
        left.set_ylabel("持有数据的节点数")
        left.set_title(rf"$\lceil \log_{{{k + 1}}} N \rceil = {self.steps}$ 轮覆盖全部 N 个节点")
        left.legend(loc="lower right", fontsize=8)
        if n <= 64:
            draw_knomial_tree(n, k, ax=right)
        else:
            right.axis("off")
            right.text(0.5, 0.5, f"N = {n} > 64：树太大，不画\n（把 N 调到 64 以下可看到 {k + 1}-nomial 树）",
                       ha="center", va="center", fontsize=11, transform=right.transAxes)
        figure.tight_layout()
        saved = one_port - self.steps
        return (
            f"<b>N = {n}, k = {'N−1 (all-port)' if all_port else k}</b>：下界 ⌈log<sub>{k + 1}</sub> N⌉ = "
            f"<b>{self.steps}</b> 轮（延迟 ≥ {self.steps}·α）；1-port 需 {one_port} 轮，"
            f"{'少 ' + str(saved) + ' 轮' if saved else '没有减少'}。"
        )


class TopologyExplorer(Explorer):
    """Topology diameter against the information bound: the graph with BFS layers from node 0.

    Controls: ``family`` (ring, 2D/3D torus, 2D mesh, hypercube, fat-tree, fully connected), ``size``
    (its meaning follows the family: N, a side length or a dimension) and ``k`` (ports).

    Examples
    --------
    >>> e = TopologyExplorer(family="ring", size=12)
    >>> e.diameter, e.info, e.binding
    (6, 4, 'diameter')
    >>> e.update(family="hypercube"); e.topology.n, e.binding
    (16, 'tie')
    """

    # family -> (min size, max size, default size)
    SIZES = {
        "ring": (3, 48, 12),
        "torus2d": (2, 10, 4),
        "torus3d": (2, 5, 3),
        "mesh2d": (2, 10, 4),
        "hypercube": (1, 7, 4),
        "fat_tree": (4, 64, 16),
        "fully_connected": (2, 16, 8),
    }
    figsize = (9.0, 4.2)

    def _controls(self) -> dict:
        from .diameter import FAMILIES

        style = {"description_width": "initial"}
        lo, hi, default = self.SIZES["ring"]
        return {
            "family": widgets.Dropdown(options=[(f"{label}（{meaning}）", key) for key, (label, meaning) in FAMILIES.items()],
                                       value="ring", description="拓扑", style=style),
            "size": widgets.IntSlider(value=default, min=lo, max=hi, description="规模", style=style, continuous_update=False),
            "k": widgets.IntSlider(value=1, min=1, max=6, description="端口数 k", style=style, continuous_update=False),
        }

    def _adjust(self, name: str) -> None:
        if name != "family":
            return
        lo, hi, default = self.SIZES[self.controls["family"].value]
        size = self.controls["size"]
        size.min, size.max = 0, max(hi, size.max)  # widen first so the new range is always valid
        size.value = default
        size.min, size.max = lo, hi

    def draw(self, figure: Figure, family, size, k) -> str:
        from .broadcast import broadcast_steps
        from .diameter import FAMILIES, binding_latency_term, family_instance
        from .plotting import draw_topology

        topo = family_instance(family, size)
        self.topology = topo
        p = max(1, min(k, topo.degree))
        self.diameter = topo.step_diameter
        self.info = info_steps(topo.n, p)
        self.binding = binding_latency_term(topo, k)
        try:
            self.broadcast = broadcast_steps(topo, k=k)
        except ValueError:  # no closed form and too large for the exhaustive search
            self.broadcast = None
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.35, 1]})
        draw_topology(topo, ax=left)
        labels = ["直径 D", rf"$\lceil \log_{{{p + 1}}} N \rceil$", "最少 broadcast"]
        heights = [self.diameter, self.info, self.broadcast or 0]
        colors = [COLORS["bisection"], COLORS["latency"], COLORS["bound"]]
        bars = right.bar(labels, heights, color=colors, alpha=0.8)
        for bar, value in zip(bars, [self.diameter, self.info, self.broadcast]):
            right.annotate("未知" if value is None else str(value), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                           ha="center", va="bottom", fontsize=10)
        right.set_ylabel("轮数")
        right.yaxis.set_major_locator(MaxNLocator(integer=True))
        right.set_title(f"N = {topo.n}，p = min(k, d) = {p}", fontsize=10)
        figure.tight_layout()
        verdict = {"diameter": "直径更紧：这个拓扑的延迟受直径限制",
                   "information": "信息传播下界更紧",
                   "tie": "两个下界相等"}[self.binding]
        rounds = "—（规模超出穷举范围）" if self.broadcast is None else f"{self.broadcast} 轮"
        return (
            f"<b>{FAMILIES[family][0]}，N = {topo.n}，度 d = {topo.degree}</b>：直径 D = <b>{self.diameter}</b> 轮，"
            f"⌈log<sub>{p + 1}</sub> N⌉ = <b>{self.info}</b>；{verdict}。最少 broadcast：{rounds}。"
        )


class BandwidthExplorer(Explorer):
    """Bandwidth lower bound: per-node forced bytes by role, the bound, and ``(N-1)/N -> 1``.

    Controls: ``primitive``, ``n``, ``k`` (ports, ``p = k`` links used in parallel), ``m`` (bytes)
    and ``beta_gbps`` (link bandwidth per direction, GB/s).

    Examples
    --------
    >>> e = BandwidthExplorer(primitive="all_gather", n=8, k=2, m=2**30, beta_gbps=100)
    >>> round(e.bound * 1e3, 3)   # 7/8 GiB over 2 x 100 GB/s
    4.698
    """

    figsize = (9.0, 3.8)

    def _controls(self) -> dict:
        from .primitives import PRIMITIVE_LABELS

        style = {"description_width": "initial"}
        return {
            "primitive": widgets.Dropdown(options=[(label, key) for key, label in PRIMITIVE_LABELS.items()], value="all_reduce",
                                          description="原语", style=style),
            "n": widgets.IntSlider(value=8, min=2, max=256, description="节点数 N", style=style, continuous_update=False),
            "k": widgets.IntSlider(value=1, min=1, max=8, description="端口数 k", style=style, continuous_update=False),
            "m": widgets.FloatLogSlider(value=2**30, base=2, min=10, max=34, step=1, description="M (B)", style=style,
                                        continuous_update=False, readout_format=".3g"),
            "beta_gbps": widgets.FloatLogSlider(value=100, base=10, min=0, max=3, step=0.1, description="β (GB/s)",
                                                style=style, continuous_update=False, readout_format=".3g"),
        }

    def draw(self, figure: Figure, primitive, n, k, m, beta_gbps) -> str:
        import numpy as np

        from .bandwidth import bandwidth_lower_bound, forced_volume, role_volumes, volume_coefficient
        from .primitives import PRIMITIVE_LABELS
        from .units import format_bytes, format_time

        beta = beta_gbps * 1e9
        self.bound = bandwidth_lower_bound(primitive, n, m, beta, ports=k)
        self.volume = forced_volume(primitive, n, m)
        roles = role_volumes(primitive, n, m)
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1]})
        names = {"root": "root", "non_root": "非 root", "every_node": "每个节点"}
        x = np.arange(len(roles) + 1)
        sends = [v.send for v in roles.values()] + [self.volume.send]
        recvs = [v.recv for v in roles.values()] + [self.volume.recv]
        top = max(max(sends), max(recvs), 1.0)
        unit, scale = next((u, s) for u, s in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("B", 1)) if top >= s)
        left.bar(x - 0.2, np.array(sends) / scale, width=0.4, color=COLORS["latency"], label="发送 S")
        left.bar(x + 0.2, np.array(recvs) / scale, width=0.4, color=COLORS["bandwidth"], label="接收 R")
        left.set_xticks(x, [names[r] + "\n（单节点必传）" for r in roles] + ["最忙节点\n（守恒 / 计数）"], fontsize=8)
        left.set_ylabel(f"字节（{unit}）")
        left.set_title(f"{PRIMITIVE_LABELS[primitive]}，N = {n}，M = {format_bytes(m)}", fontsize=10)
        left.legend(fontsize=8, loc="upper left")
        ns = np.unique(np.geomspace(2, 1024, 200).astype(np.int64))
        coeff = np.array([volume_coefficient(primitive, int(v)) for v in ns])
        right.plot(ns, coeff, color=COLORS["bound"])
        right.scatter([n], [volume_coefficient(primitive, n)], color=COLORS["bandwidth"], zorder=3)
        right.axhline(coeff[-1], color="#999999", linestyle="--", linewidth=0.8)
        right.set_xscale("log")
        right.set_ylim(0, max(coeff.max(), 1) * 1.15)
        right.set_xlabel("N")
        right.set_ylabel("max(S, R) / M")
        right.set_title("系数随 N 趋于常数（(N−1)/N → 1）", fontsize=10)
        figure.tight_layout()
        return (
            f"<b>{PRIMITIVE_LABELS[primitive]}</b>：最忙节点发送 {format_bytes(self.volume.send)}、接收 {format_bytes(self.volume.recv)}；"
            f"p = {k} 条链路 × β = {beta_gbps:.3g} GB/s ⇒ 带宽下界 T<sub>β</sub> ≥ <b>{format_time(self.bound)}</b>。"
        )


class AlgorithmExplorer(Explorer):
    """AllReduce time against M for the lower bound and every algorithm, with the best one per size band.

    Controls: ``preset`` (sets α and β; ``"custom"`` leaves them free), ``alpha_us``, ``beta_gbps``,
    ``n``, ``k`` (ports: 2 brings the bidirectional ring and the double binary tree in) and
    ``efficiency`` (plot bound / time instead of time).

    Examples
    --------
    >>> e = AlgorithmExplorer(preset="a100_nvlink", n=64, k=1)
    >>> [name for *_, name in e.bands]
    ['recursive_doubling', 'recursive_halving_doubling']
    >>> e.update(n=48); [name for *_, name in e.bands]   # no power of two: RHD pays for folding
    ['recursive_doubling', 'recursive_halving_doubling', 'ring']
    """

    figsize = (9.0, 4.4)

    def _controls(self) -> dict:
        from .hardware import PRESETS

        style = {"description_width": "initial"}
        first = PRESETS["a100_nvlink"]
        return {
            "preset": widgets.Dropdown(options=[(p.label, key) for key, p in PRESETS.items()] + [("自定义 α、β", "custom")],
                                       value="a100_nvlink", description="硬件", style=style),
            "alpha_us": widgets.FloatLogSlider(value=first.alpha * 1e6, base=10, min=-1, max=2, step=0.05, description="α (µs)",
                                               style=style, continuous_update=False, readout_format=".3g"),
            "beta_gbps": widgets.FloatLogSlider(value=first.beta / 1e9, base=10, min=0, max=3, step=0.05, description="β (GB/s)",
                                                style=style, continuous_update=False, readout_format=".3g"),
            "n": widgets.IntSlider(value=16, min=2, max=1024, description="节点数 N", style=style, continuous_update=False),
            "k": widgets.IntSlider(value=1, min=1, max=2, description="端口数 k", style=style, continuous_update=False),
            "efficiency": widgets.Checkbox(value=False, description="画效率（下界 / 时间）", style=style),
        }

    def _adjust(self, name: str) -> None:
        from .hardware import PRESETS

        if name == "preset" and self.controls["preset"].value != "custom":
            p = PRESETS[self.controls["preset"].value]
            self.controls["alpha_us"].value = p.alpha * 1e6
            self.controls["beta_gbps"].value = p.beta / 1e9
        elif name in ("alpha_us", "beta_gbps"):
            self.controls["preset"].value = "custom"

    def draw(self, figure: Figure, preset, alpha_us, beta_gbps, n, k, efficiency) -> str:
        from .algorithms import ALGORITHM_LABELS
        from .bounds import crossover_size
        from .plotting import plot_algorithm_times
        from .selection import best_algorithm_bands
        from .units import format_bytes

        alpha, beta = alpha_us * 1e-6, beta_gbps * 1e9
        ax = figure.subplots()
        plot_algorithm_times("all_reduce", n, alpha, beta, ports=k, efficiency=efficiency, ax=ax)
        self.m_star = crossover_size("all_reduce", n, alpha, beta, ports=k)
        self.bands = best_algorithm_bands("all_reduce", n, alpha, beta, ports=k, m_min=2.0**6, m_max=2.0**32, points=240)
        transform = ax.get_xaxis_transform()
        for start, end, name in self.bands:
            ax.axvspan(start, end, ymin=0, ymax=0.035, color=COLORS.get(name), alpha=0.9, transform=transform)
        figure.tight_layout()
        bands = "；".join(f"{format_bytes(a)}–{format_bytes(b)}：{ALGORITHM_LABELS[name]}" for a, b, name in self.bands)
        return (f"<b>N = {n}，{k}-port</b>：下界的交叉点 M* = <b>{format_bytes(self.m_star)}</b>。"
                f"最快的算法（图底色带）：{bands}。")


class BisectionExplorer(Explorer):
    """Bisection vs node-level bound: the cut drawn on the graph, and both bounds against N.

    Controls: ``family``, ``size`` (as in :class:`TopologyExplorer`), ``primitive`` and
    ``oversubscription`` (fat-tree only: leaf downlinks / uplinks). The node-level bound uses every
    link of a node (``p = degree``), as the bisection bound uses every link of the cut.

    Examples
    --------
    >>> e = BisectionExplorer(family="torus2d", size=4, primitive="all_to_all")
    >>> e.tighter, e.topology.bisection_links
    ('bisection', 8)
    >>> e.update(primitive="all_reduce"); e.tighter
    'node'
    """

    SIZES = TopologyExplorer.SIZES
    figsize = (9.0, 4.2)

    def _controls(self) -> dict:
        from .diameter import FAMILIES
        from .primitives import PRIMITIVE_LABELS

        style = {"description_width": "initial"}
        lo, hi, default = self.SIZES["torus2d"]
        return {
            "family": widgets.Dropdown(options=[(f"{label}（{meaning}）", key) for key, (label, meaning) in FAMILIES.items()],
                                       value="torus2d", description="拓扑", style=style),
            "size": widgets.IntSlider(value=default, min=lo, max=hi, description="规模", style=style, continuous_update=False),
            "primitive": widgets.Dropdown(options=[(label, key) for key, label in PRIMITIVE_LABELS.items()], value="all_to_all",
                                          description="原语", style=style),
            "oversubscription": widgets.Dropdown(options=[("1:1", 1.0), ("2:1", 2.0), ("4:1", 4.0)], value=1.0,
                                                 description="oversubscription（fat-tree）", style=style),
        }

    def _adjust(self, name: str) -> None:
        TopologyExplorer._adjust(self, name)
        # The factor only means something for a fat-tree: grey it out elsewhere (no silent control).
        self.controls["oversubscription"].disabled = self.controls["family"].value != "fat_tree"

    def _topology(self, family, size, oversubscription):
        from .diameter import family_instance
        from .topology import fat_tree

        if family == "fat_tree":
            return fat_tree(size, oversubscription=oversubscription) if self._fat_tree_ok(size, oversubscription) else fat_tree(size)
        return family_instance(family, size)

    @staticmethod
    def _fat_tree_ok(n, o) -> bool:
        from .topology import fat_tree

        try:
            fat_tree(n, oversubscription=o)
            return True
        except ValueError:
            return False

    def draw(self, figure: Figure, family, size, primitive, oversubscription) -> str:
        import numpy as np

        from .bisection import bisection_lower_bound, bisection_partition, node_lower_bound
        from .diameter import FAMILIES, family_instances
        from .plotting import draw_topology
        from .primitives import PRIMITIVE_LABELS
        from .topology import fat_tree
        from .units import format_time

        m, beta = 2.0**30, 50e9
        self.controls["oversubscription"].disabled = family != "fat_tree"
        topo = self._topology(family, size, oversubscription)
        self.topology = topo
        applied = topo.oversubscription if family == "fat_tree" else None
        self.bisection = bisection_lower_bound(primitive, topo, m, beta)
        self.node = node_lower_bound(primitive, topo, m, beta, ports=max(topo.degree, 1))
        self.tighter = "bisection" if self.bisection > self.node else "node"
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
        draw_topology(topo, ax=left, side=bisection_partition(topo))
        if family == "fat_tree":
            topos = [fat_tree(n, oversubscription=applied) for n in (2**e for e in range(2, 13)) if self._fat_tree_ok(n, applied)]
        else:
            topos = [t for t in family_instances(family, 4096) if t.n >= 2]
        ns = np.array([t.n for t in topos])
        bis = np.array([bisection_lower_bound(primitive, t, m, beta) for t in topos])
        node = np.array([node_lower_bound(primitive, t, m, beta, ports=max(t.degree, 1)) for t in topos])
        right.plot(ns, bis, color=COLORS["bisection"], label="bisection 下界")
        right.plot(ns, node, color=COLORS["latency"], label="节点级下界（p = d）")
        right.scatter([topo.n, topo.n], [self.bisection, self.node], color=[COLORS["bisection"], COLORS["latency"]], zorder=3)
        right.set_xscale("log", base=2)
        right.set_yscale("log")
        right.set_xlabel("N")
        right.set_ylabel("时间下界 (s)，M = 1 GiB，β = 50 GB/s")
        right.set_title(f"{FAMILIES[family][0]} · {PRIMITIVE_LABELS[primitive]}", fontsize=10)
        right.legend(fontsize=8)
        figure.tight_layout()
        note = f"（oversubscription {applied:g}:1）" if family == "fat_tree" else ""
        verdict = "bisection 下界更紧" if self.tighter == "bisection" else "节点级下界更紧"
        return (f"<b>{topo.name.split(' (')[0]}{note}</b>：割上 {topo.bisection_links} 条链路；{PRIMITIVE_LABELS[primitive]} 的 "
                f"bisection 下界 {format_time(self.bisection)}，节点级下界 {format_time(self.node)}：<b>{verdict}</b>。")
