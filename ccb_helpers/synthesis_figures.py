"""Figures and the explorer of chapter 7 (schedule synthesis).

* :func:`draw_synthesized_step` — one step of a synthesized schedule on the topology: an arrow per
  used link, its width the chunks it carries, red where the link is full (``b * r_s`` chunks);
* :func:`plot_synthesis_plane` — the (steps, rounds per chunk) plane: the two lower bounds, the
  Pareto frontier, other instances, proved-infeasible ones;
* :class:`SynthesisExplorer` — topology, steps and chunks → the stored schedule with the fewest
  rounds, drawn step by step. It only loads stored schedules (``tools/synthesize_schedules.py``),
  each checked in the simulator, so moving a slider never waits on a solver.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ._validation import check_cap, check_choice, check_memory
from .explorers import Explorer
from .plotting import COLORS, use_book_style

__all__ = [
    "draw_synthesized_step",
    "plot_schedule_steps",
    "plot_synthesis_plane",
    "SynthesisExplorer",
    "synthesis_state",
    "synthesis_bounds_table",
    "attainment_table",
]


def _step_messages(schedule, step: int):
    """{(src, dst): chunks} of step ``step`` (0-based): pieces between the pair in that round."""
    r = schedule.rounds[step]
    out: dict[tuple[int, int], int] = {}
    for s, d in zip(r.src.tolist(), r.dst.tolist()):
        if s != d:
            out[(s, d)] = out.get((s, d), 0) + 1
    return out


#: Arrow colours of a drawn step: a full link is the normal case (neutral); one with room left is
#: what a reader should notice (coloured and labelled with chunks / capacity).
_FULL_COLOR = "#7a8794"
_SPARE_COLOR = COLORS["ring_b"]


def _check_drawable(schedule, topology):
    from .schedule import Schedule
    from .topology import Topology

    if not isinstance(schedule, Schedule):
        raise TypeError(
            f"schedule must be a Schedule (from synthesize or stored_schedule), got {type(schedule).__name__}"
        )
    if not isinstance(topology, Topology):
        raise TypeError(f"topology must be a Topology, got {type(topology).__name__}")
    if topology.n != schedule.n:
        raise ValueError(f"topology has n={topology.n} endpoints but the schedule has n={schedule.n}")
    if topology.switched:
        raise ValueError("synthesized schedules are drawn on direct networks (a switch has no per-pair links to draw)")


def draw_synthesized_step(schedule, topology, step: int, ax=None):
    """Draw step ``step`` (1-based) of a synthesized schedule on ``topology``.

    Grey lines are the links (thicker for parallel links); each arrow ``u -> v`` carries the chunks
    sent that step, its width growing with their number. A **full** arrow (``b * r_s`` chunks, the
    link's capacity in that step) is drawn in a neutral grey and not labelled — its count is the
    capacity the title states; an arrow with **room left** is orange and labelled ``chunks/capacity``.
    So colour and labels appear only where a link is not saturated (when every link is, the title
    says so and the drawing has no overlapping numbers). :func:`plot_schedule_steps` lists every
    count of every step.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> s = ccb.stored_schedule(ccb.dgx1(), "all_gather", 3, 6)
    >>> ax = draw_synthesized_step(s, ccb.dgx1(), 1)
    >>> ax.get_title().split("\\n")[0]
    'DGX-1 (V100)：第 1/3 步，r = 2 轮，96 个块'

    At R/C = 7/6 the 8 x 7 x 6 = 336 chunks received equal the 48 directed NVLinks x 7 rounds, so
    every link is full in every round: a step of r rounds moves 48 r chunks.

    >>> [sum(_step_messages(s, i).values()) == 48 * r for i, r in enumerate(s.step_rounds)]
    [True, True, True]
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    from ._validation import check_int

    _check_drawable(schedule, topology)
    step = check_int("step", step, minimum=1, maximum=len(schedule.rounds), scalar=True)
    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(4.6, 4.6))
    data = _step_drawing(schedule, topology, step)
    pos = data["pos"]
    for u, v, links in data["links"]:
        a, b = pos[u], pos[v]
        ax.plot([a[0], b[0]], [a[1], b[1]], color="#dddddd", linewidth=1.2 * links, zorder=1)
    biggest = data["biggest"]
    labels = []
    for u, v, count, capacity in data["arrows"]:
        a, b = pos[u], pos[v]
        full = count >= capacity
        arrow = FancyArrowPatch(
            tuple(a),
            tuple(b),
            arrowstyle="-|>",
            mutation_scale=11,
            shrinkA=9,
            shrinkB=9,
            connectionstyle=f"arc3,rad={ARC_RAD}",
            linewidth=0.8 + 2.2 * count / biggest,
            color=_FULL_COLOR if full else _SPARE_COLOR,
            alpha=0.9,
            zorder=2,
        )
        # The arc's hull (ends and control point) as data limits: add_patch would compute the
        # shrunk arrow path just for the limits (half the explorer's redraw).
        control = _arc_control(a, b)
        ax.add_artist(arrow)
        ax.update_datalim([a, b, control])
        if not full:
            labels.append((f"{count}/{capacity}", a, control, b))
    _place_arc_labels(ax, labels, [pos[v] for v in range(topology.n)])
    ends = list(range(topology.n))
    ax.scatter(
        [pos[v][0] for v in ends],
        [pos[v][1] for v in ends],
        s=300,
        color="#f2f2f2",
        edgecolors="#444444",
        linewidths=1.0,
        zorder=3,
    )
    for v in ends:
        ax.annotate(str(v), pos[v], ha="center", va="center", fontsize=10, zorder=5)
    ax.set_aspect("equal", adjustable="datalim")
    ax.axis("off")
    ax.set_title(f"{data['title']}\n{data['note']}", fontsize=10)
    return ax


#: Bend of a drawn step's arrows (matplotlib's ``arc3`` rad): u -> v and v -> u curve apart.
ARC_RAD = 0.18


def _arc_control(a, b):
    """Control point of the quadratic Bezier ``arc3,rad=ARC_RAD`` draws from a to b (data units)."""
    return (a + b) / 2 + ARC_RAD * np.array([(b - a)[1], -(b - a)[0]])


def _step_drawing(schedule, topology, step: int) -> dict:
    """What :func:`draw_synthesized_step` draws for step ``step`` (1-based), without drawing it.

    ``pos`` (node -> xy), ``links`` ``[(u, v, parallel links)]``, ``arrows`` ``[(u, v, chunks,
    capacity)]`` sorted, ``rounds``, ``chunks`` (sent this step), ``biggest`` arrow, the ``title``
    and the ``note`` line under it. Shared with the static page's live explorer
    (:mod:`ccb_helpers.live.synthesis`), so the two drawings cannot disagree.
    """
    from .plotting import _layout
    from .user_topology import _link_matrix

    pos = _layout(topology)
    links_matrix = _link_matrix(topology)
    rounds = schedule.step_rounds[step - 1] if schedule.step_rounds else 1
    messages = _step_messages(schedule, step - 1)
    arrows = [(u, v, count, int(max(links_matrix[u, v], 1) * rounds)) for (u, v), count in sorted(messages.items())]
    spare = sum(count < capacity for _, _, count, capacity in arrows)
    used = len(arrows)
    if spare:
        note = f"灰：满载 {used - spare}/{used}；橙：有余量，块数/容量"
    else:
        note = (
            f"全部 {used} 个方向满载：单链路 {rounds}、双链路 {2 * rounds} 块"
            if links_matrix.max() > 1
            else f"全部 {used} 个方向满载：每方向 {rounds} 块"
        )
    chunks = sum(messages.values())
    return {
        "pos": pos,
        "links": [(u, v, data.get("links", 1)) for u, v, data in topology.graph.edges(data=True)],
        "arrows": arrows,
        "rounds": rounds,
        "chunks": chunks,
        "biggest": max(messages.values(), default=1),
        "title": f"{topology.name}：第 {step}/{len(schedule.rounds)} 步，r = {rounds} 轮，{chunks} 个块",
        "note": note,
    }


def _place_arc_labels(ax, labels, nodes, fontsize=9.5):
    """Write ``(text, start, control, end)`` labels on their arcs where they overlap nothing placed.

    Each label tries spots along its arc (quadratic Bezier, from a third of the way from the
    sender outwards) and takes the first whose box, at the axes' current scale, clears the
    nodes and the labels already placed; a label with no free spot goes to the first one.
    """
    if not labels:
        return
    ax.autoscale_view()
    ax.set_aspect("equal", adjustable="datalim")
    ax.apply_aspect()
    box = ax.get_position()
    width_in, height_in = ax.figure.get_size_inches()
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    per_point = max((x1 - x0) / (box.width * width_in * 72), (y1 - y0) / (box.height * height_in * 72))  # data units
    half_h = 0.75 * fontsize * per_point
    node_r = 11 * per_point  # the node discs (s = 300 points^2) and a margin
    placed = []
    for text, a, control, b in labels:
        half_w = (0.32 * fontsize * len(text) + 3) * per_point
        spots = []
        for t in (1 / 3, 0.25, 0.42, 0.18, 0.5, 0.58, 0.12):
            spot = (1 - t) ** 2 * a + 2 * t * (1 - t) * control + t**2 * b
            spots.append(spot)
            clear = all(abs(spot[0] - p[0]) > half_w + w or abs(spot[1] - p[1]) > 2 * half_h for p, w in placed)
            clear = clear and all(
                abs(spot[0] - n[0]) > half_w + node_r or abs(spot[1] - n[1]) > half_h + node_r for n in nodes
            )
            if clear:
                break
        else:
            spot = spots[0]
        placed.append((spot, half_w))
        ax.annotate(
            text,
            spot,
            ha="center",
            va="center",
            fontsize=fontsize,
            zorder=4,
            color="#7a3b00",
            bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.9},
        )


def plot_schedule_steps(schedule, topology):
    """The whole schedule as small multiples: the link matrix, then the chunks of every step.

    Panel 1 is the link multiplicity ``b`` (chunks a link carries per round and direction); panel
    ``s + 1`` holds, for step ``s``, the chunks each sender (row) sends each receiver (column).
    Cells without a link are blank; a cell whose link has room left in that step (fewer chunks
    than ``b * r_s``) is orange and shows ``chunks/capacity``; full cells are plain. Two panels per
    row, at the book's column width.

    Parameters
    ----------
    schedule : Schedule
        A synthesized schedule (:func:`ccb_helpers.synthesize`, :func:`ccb_helpers.stored_schedule`),
        at most 8 steps.
    topology : Topology
        Its direct network, at most 16 endpoints (the matrices' cells hold two-digit counts).

    Returns
    -------
    list of matplotlib Axes, one per panel

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> axes = plot_schedule_steps(ccb.stored_schedule(ccb.dgx1(), "all_gather", 3, 6), ccb.dgx1())
    >>> len(axes), axes[1].get_title()
    (4, '第 1 步：r = 2 轮，96 块，全部满载')
    """
    import matplotlib.pyplot as plt

    from .plotting import BOOK_WIDTH
    from .user_topology import _link_matrix

    _check_drawable(schedule, topology)
    n, steps = topology.n, len(schedule.rounds)
    if n > 16:
        raise ValueError(
            f"topology has n={n} endpoints; plot_schedule_steps draws at most 16 (an n x n matrix per step)"
        )
    if steps > 8:
        raise ValueError(f"schedule has {steps} steps; plot_schedule_steps draws at most 8")
    use_book_style()
    links = _link_matrix(topology)
    panels = steps + 1
    rows = (panels + 1) // 2
    fig, grid = plt.subplots(rows, 2, figsize=(BOOK_WIDTH, 3.35 * rows), squeeze=False)
    axes = list(grid.ravel())
    size = 9.5 if n <= 8 else 9.0  # never under 9 pt (the book's smallest figure text)

    def matrix(ax, values, title, capacity=None):
        shade = np.where(links > 0, 0.9, 1.0)
        colours = np.dstack([shade, shade, shade])
        ax.imshow(colours, interpolation="nearest")
        for u in range(n):
            for v in range(n):
                if not links[u, v]:
                    continue
                value = int(values[u, v])
                room = capacity is not None and value < capacity[u, v]
                if room:
                    ax.add_patch(plt.Rectangle((v - 0.5, u - 0.5), 1, 1, color=_SPARE_COLOR, alpha=0.35, linewidth=0))
                text = f"{value}/{int(capacity[u, v])}" if room else str(value)
                ax.text(v, u, text, ha="center", va="center", fontsize=size if len(text) <= 2 else 9.0)
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
        ax.tick_params(length=0, labelsize=size)
        ax.set_xlabel("接收方 GPU", fontsize=10)
        ax.set_ylabel("发送方 GPU", fontsize=10)
        ax.set_xticks(np.arange(-0.5, n), minor=True)
        ax.set_yticks(np.arange(-0.5, n), minor=True)
        ax.grid(which="minor", color="white", linewidth=1.0)
        ax.tick_params(which="minor", length=0)
        ax.grid(which="major", visible=False)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title(title, fontsize=10)

    matrix(axes[0], links, "链路根数 b（每轮每方向可传的块数）")
    spare = 0
    for s in range(steps):
        rounds = schedule.step_rounds[s] if schedule.step_rounds else 1
        counts = np.zeros((n, n), dtype=np.int64)
        for (u, v), c in _step_messages(schedule, s).items():
            counts[u, v] = c
        capacity = links * rounds
        room = int(((counts < capacity) & (links > 0)).sum())
        spare += room
        state = "全部满载" if room == 0 else f"{room} 处有余量"
        matrix(axes[s + 1], counts, f"第 {s + 1} 步：r = {rounds} 轮，{int(counts.sum())} 块，{state}", capacity)
    for ax in axes[panels:]:
        ax.axis("off")
    note = "灰色格子：两块 GPU 之间有链路；数字：这一步经过它的块数（满载时等于 b × r）"
    if spare:
        note += "\n橙色格子：这一步还有余量的连接，写作 块数/容量"
    fig.tight_layout(rect=(0, 0.09 if spare else 0.05, 1, 1))
    fig.text(0.5, 0.01, note, ha="center", va="bottom", fontsize=9.5)
    return axes[:panels]


def plot_synthesis_plane(
    steps_bound, ratio_bound, frontier=(), others=(), infeasible=(), current=None, ax=None, title=None
):
    """The (steps S, rounds per chunk R/C) plane: bounds, frontier, other and infeasible instances.

    Parameters
    ----------
    steps_bound : int
        :func:`ccb_helpers.steps_lower_bound` (vertical line).
    ratio_bound : Fraction
        :func:`ccb_helpers.rounds_per_chunk_bound` (horizontal line).
    frontier, others, infeasible : iterable of (S, R, C)
        Pareto-optimal instances (joined by a staircase), other solved ones, proved-unsatisfiable ones.
    current : (S, R, C), optional
        Highlighted instance.

    >>> from fractions import Fraction
    >>> ax = plot_synthesis_plane(2, Fraction(7, 6), frontier=[(2, 3, 2), (3, 7, 6)], infeasible=[(2, 7, 6)])
    >>> ax.get_xlabel()
    '步数 S（延迟：S·α）'
    """
    import matplotlib.pyplot as plt

    from ._validation import check_int, check_real

    steps_bound = check_int("steps_bound", steps_bound, minimum=1, maximum=64, scalar=True)
    if not isinstance(ratio_bound, Fraction):
        ratio_bound = Fraction(
            check_real("ratio_bound", ratio_bound, minimum=0.0, maximum=1e6, scalar=True)
        ).limit_denominator(10_000)
    else:
        # A Fraction skipped the range check and overflowed a float later (#28); a plain one, rebuilt
        # from plain ints (a subclass may compare or convert as it likes).
        ratio_bound = Fraction(int(ratio_bound.numerator), int(ratio_bound.denominator))
        if not 0 <= ratio_bound <= 10**6:
            side = "above 1e6" if ratio_bound > 0 else "below 0"
            raise ValueError(f"ratio_bound must lie in [0, 1e6], got a Fraction {side}")

    def instances(name, group):
        if not isinstance(group, (list, tuple)):
            raise TypeError(f"{name} must be a list of (steps, rounds, chunks) instances, got {type(group).__name__}")
        if len(group) > 10_000:
            raise ValueError(f"{name}: at most 10000 instances, got {len(group)}")
        out = []
        for i, p in enumerate(group):
            if not isinstance(p, (tuple, list)) or len(p) != 3:
                raise ValueError(f"{name}[{i}]: each instance is (steps, rounds, chunks), got {p!r}"[:200])
            out.append(tuple(check_int(f"{name}[{i}]", v, minimum=1, maximum=1 << 20, scalar=True) for v in p))
        return out

    frontier, others, infeasible = (
        instances(k, g) for k, g in (("frontier", frontier), ("others", others), ("infeasible", infeasible))
    )
    current = instances("current", [current])[0] if current is not None else None
    from .plotting._checks import _check_ax

    _check_ax(ax)  # before drawing (#28: an int reached ax.axhspan)
    use_book_style()
    if ax is None:
        _, ax = plt.subplots(figsize=(5.2, 4.0))
    points = [p for group in (frontier, others, infeasible) for p in group] + ([current] if current else [])
    smax, ymax = _plane_limits(steps_bound, ratio_bound, points)
    ax.axhspan(0, float(ratio_bound), color=COLORS["bandwidth"], alpha=0.07, zorder=0)
    ax.axvspan(0, steps_bound, color=COLORS["latency"], alpha=0.07, zorder=0)
    ax.axhline(
        float(ratio_bound), color=COLORS["bandwidth"], linestyle="--", linewidth=1.2, label=f"R/C 下界 = {ratio_bound}"
    )
    ax.axvline(steps_bound, color=COLORS["latency"], linestyle="--", linewidth=1.2, label=f"S 下界 = {steps_bound}")
    if others:
        ax.scatter(
            [p[0] for p in others],
            [p[1] / p[2] for p in others],
            s=28,
            color="#999999",
            zorder=2,
            label="其他已解实例（最少 R）",
        )
    if infeasible:
        ax.scatter(
            [p[0] for p in infeasible],
            [p[1] / p[2] for p in infeasible],
            marker="x",
            s=55,
            color=COLORS["bandwidth"],
            zorder=3,
            label="求解器证明不可行",
        )
    if frontier:
        xs = [p[0] for p in frontier]
        ys = [p[1] / p[2] for p in frontier]
        ax.step(xs + [smax], ys + [ys[-1]], where="post", color=COLORS["bound"], linewidth=1.4, zorder=2)
        ax.scatter(xs, ys, s=70, color=COLORS["bound"], zorder=4, label="Pareto 前沿")
        for s, r, c in frontier:
            ax.annotate(f"({s}, {r}, {c})", (s, r / c), textcoords="offset points", xytext=(7, 6), fontsize=10)
    if current:
        s, r, c = current
        ax.scatter(
            [s],
            [r / c],
            s=190,
            facecolors="none",
            edgecolors=COLORS["ring_b"],
            linewidths=2.2,
            zorder=5,
            label=f"当前 (S, R, C) = ({s}, {r}, {c})",
        )
    ax.set_xlim(max(0, steps_bound - 1.5), smax)
    ax.set_ylim(0, ymax)
    ax.set_xticks(range(max(1, steps_bound - 1), int(smax) + 1))
    ax.set_xlabel("步数 S（延迟：S·α）")
    ax.set_ylabel("每块轮数 R/C（带宽：×(M/N)/β）")
    ax.legend(fontsize=9, loc="upper left")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def _plane_limits(steps_bound, ratio_bound, points):
    """Right ends ``(S max, R/C max)`` of the plane's axes: room past the bounds and every point."""
    smax = max([steps_bound + 1] + [p[0] for p in points]) + 0.5
    ymax = max([float(ratio_bound) * 1.6] + [p[1] / p[2] for p in points]) * 1.12
    return smax, ymax


class SynthesisExplorer(Explorer):
    """Synthesized AllGather schedules: topology, steps and chunks → the fewest rounds, step by step.

    Controls: ``topology`` (DGX-1, ring 6, hypercube 3-d, torus 3x3), ``steps`` (S, from the steps
    bound up to two more), ``chunks`` (C = 1..6) and ``step`` (which step to draw). Every instance is
    a stored schedule (``tools/synthesize_schedules.py``) rebuilt and checked in the simulator the
    first time it is shown (then cached), so nothing waits on a solver. The two panels keep a
    fixed layout; each change redraws their contents (the drawing changes with every control). The default is the DGX-1's bandwidth-optimal point
    of the frontier, ``(S, R, C) = (3, 7, 6)``.

    Examples
    --------
    >>> e = SynthesisExplorer()
    >>> e.instance, e.correct
    ((3, 7, 6), True)
    >>> e.update(topology="ring 6", steps=3, chunks=2); e.instance, e.ratio_bound
    ((3, 5, 2), Fraction(5, 2))
    >>> e.update(step=3); e.step_chunks == 12 * e.schedule.step_rounds[2]   # at the bound: 12 arcs, all full
    True
    """

    figsize = (6.88, 3.9)
    readout_lines = 3
    TOPOLOGIES = ("DGX-1 (V100)", "ring 6", "hypercube 3-d", "torus 3x3")

    @staticmethod
    def _topology(name):
        return _explorer_topology(name)

    def _controls(self) -> dict:
        from .explorers.base import STYLE, slider_args

        return {
            "topology": widgets.Dropdown(
                options=list(self.TOPOLOGIES), value="DGX-1 (V100)", description="拓扑", style=STYLE
            ),
            "steps": widgets.IntSlider(value=3, min=2, max=4, **slider_args("步数 S")),
            "chunks": widgets.IntSlider(value=6, min=1, max=6, **slider_args("每块切分 C")),
            "step": widgets.IntSlider(value=1, min=1, max=3, **slider_args("画第几步")),
        }

    def __init__(self, **values):
        unknown = set(values) - {"topology", "steps", "chunks", "step"}
        if unknown:
            raise TypeError(
                f"unknown control(s) {sorted(unknown)}; controls are ['chunks', 'step', 'steps', 'topology']"
            )
        super().__init__()
        if values:  # through update(), so the ranges follow the topology before the values land
            self.update(**values)

    def _adjust(self, name: str) -> None:
        from .synthesis import steps_lower_bound

        if name == "topology":
            low = steps_lower_bound(self._topology(self.controls["topology"].value), "all_gather")
            steps = self.controls["steps"]
            steps.min, steps.max = 0, max(steps.max, low + 2)
            steps.value = low
            steps.min, steps.max = low, low + 2
        if name in ("topology", "steps"):
            step = self.controls["step"]
            s = self.controls["steps"].value
            step.max = max(step.max, s)
            step.value = min(step.value, s)
            step.max = s

    def setup(self, figure: Figure) -> None:
        # Fixed layout, two panels in the page column; each refresh redraws the panels' contents
        # (the topology's drawing changes with every control) but never re-lays the figure out.
        figure.subplots_adjust(left=0.01, right=0.985, bottom=0.13, top=0.87, wspace=0.16)  # two-line step title
        self._left, self._right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.1]})

    def refresh(self, topology, steps, chunks, step) -> str:
        state = synthesis_state(topology, steps, chunks, step)
        self.schedule = state["schedule"]
        self.instance, self.correct = state["instance"], state["correct"]
        self.steps_bound, self.ratio_bound = state["steps_bound"], state["ratio_bound"]
        self.step_chunks = state["drawing"]["chunks"]
        left, right = self._left, self._right
        left.cla()
        draw_synthesized_step(state["schedule"], self._topology(topology), state["step"], ax=left)
        plane = (topology, self.instance)
        if getattr(self, "_plane", None) != plane:  # the plane depends on these only: kept when just the step moves
            right.cla()
            plot_synthesis_plane(
                self.steps_bound,
                self.ratio_bound,
                frontier=state["frontier"],
                others=state["others"],
                current=self.instance,
                ax=right,
            )
            self._plane = plane
        # The plane depends on the topology, S and C only: a change of the drawn step redraws
        # the left panel over the kept pixels of the right one (Explorer._keep_background).
        self._keep_background((topology, steps, chunks), [left])
        return state["readout"]

    @staticmethod
    def _verify(schedule, topology):
        from .synthesis import verify_synthesized

        return verify_synthesized(schedule, topology)

    @staticmethod
    def _name(entry):
        from .synthesis import _topology_from_spec

        return _topology_from_spec(entry["topology"]).name


def synthesis_state(topology: str, steps: int, chunks: int, step: int) -> dict:
    """What :class:`SynthesisExplorer` shows for these control values (no drawing; cached).

    ``schedule`` (the stored one with the fewest rounds R, checked in the simulator: ``correct``),
    ``instance`` ``(S, R, C)``, the ``steps_bound`` and ``ratio_bound`` (R/C), the stored
    ``frontier`` and ``others``, the drawn ``step`` (clamped to S), its ``drawing``
    (:func:`_step_drawing`) and the ``readout`` HTML. The explorer's ``refresh`` draws exactly
    this, and the static page exports it (:mod:`ccb_helpers.live.synthesis`). The values are
    trusted (the explorer's controls have checked them); treat the dict as read-only.

    Examples
    --------
    >>> s = synthesis_state("ring 6", 3, 2, 3)
    >>> s["instance"], s["ratio_bound"], s["drawing"]["chunks"] == 12 * s["drawing"]["rounds"]
    ((3, 5, 2), Fraction(5, 2), True)
    """
    return _synthesis_state(topology, steps, chunks, min(step, steps))


@functools.lru_cache(maxsize=512)
def _synthesis_state(topology: str, steps: int, chunks: int, step: int) -> dict:
    schedule, correct, steps_bound, ratio_bound, frontier, others = _explorer_instance(topology, steps, chunks)
    rounds = int(schedule.algorithm.split("R=")[1].split()[0])
    ratio = Fraction(rounds, chunks)
    verdict = "达到带宽下界" if ratio == ratio_bound else f"比带宽下界多 {float(ratio / ratio_bound - 1):.0%}"
    readout = (
        f"<b>{topology}，AllGather，S = {steps}，C = {chunks}</b>：最少 R = <b>{rounds}</b> 轮，"
        f"R/C = {ratio}（下界 {ratio_bound}，{verdict}）；T = {steps}·α + {ratio}·(M/N)/β。"
        f"模拟器校验（链路容量 + 结果逐字节）：{'通过 ✓' if correct else '失败 ✗'}。"
    )
    return {
        "schedule": schedule,
        "instance": (steps, rounds, chunks),
        "correct": correct,
        "steps_bound": steps_bound,
        "ratio_bound": ratio_bound,
        "frontier": frontier,
        "others": others,
        "step": step,
        "drawing": _step_drawing(schedule, _explorer_topology(topology), step),
        "readout": readout,
    }


@functools.lru_cache(maxsize=8)
def _explorer_topology(name: str):
    from .topology import hypercube, ring, torus
    from .user_topology import dgx1

    return {
        "DGX-1 (V100)": dgx1,
        "ring 6": lambda: ring(6),
        "hypercube 3-d": lambda: hypercube(3),
        "torus 3x3": lambda: torus(3, 3),
    }[name]()


@functools.lru_cache(maxsize=128)
def _explorer_instance(topology: str, steps: int, chunks: int):
    """The explorer's stored schedule for one instance, checked in the simulator once (cached).

    Returns ``(schedule, correct, steps bound, R/C bound, frontier, others)``.
    """
    from .synthesis import _load_store, rounds_per_chunk_bound, steps_lower_bound, stored_schedule

    topo = _explorer_topology(topology)
    schedule = stored_schedule(topo, "all_gather", steps, chunks)
    correct = SynthesisExplorer._verify(schedule, topo).correct
    entries = [e for e in _load_store() if e["primitive"] == "all_gather" and SynthesisExplorer._name(e) == topology]
    frontier = sorted({(e["steps"], e["rounds"], e["chunks"]) for e in entries if e.get("frontier")})
    others = sorted({(e["steps"], e["rounds"], e["chunks"]) for e in entries} - set(frontier))
    return (
        schedule,
        correct,
        steps_lower_bound(topo, "all_gather"),
        rounds_per_chunk_bound(topo, "all_gather"),
        frontier,
        others,
    )


# --------------------------------------------------------------------------- tables


def _as_fraction(value: float) -> Fraction:
    return Fraction(value).limit_denominator(10_000)


def _check_topologies(topologies) -> list:
    from .topology import check_topology

    if not isinstance(topologies, (list, tuple)) or not 1 <= len(topologies) <= 16:
        raise TypeError(f"topologies must be a list of 1 to 16 Topology objects, got {type(topologies).__name__}")
    return [check_topology(t, f"topologies[{i}]") for i, t in enumerate(topologies)]


#: Most node sets the cut bounds of one table enumerate (sum over topologies and primitives of
#: 2**n): about 1.3 s per 2**20 on this machine under load, so a table stays under ~3 s.
MAX_TABLE_CUT_SETS = 2**21
#: Peak bytes of one table: the cut bounds enumerate the 2**n node sets in blocks of 2**15 (so
#: memory does not grow with the sets), the rows are small. tracemalloc measured 14-18 MB for a
#: topology of up to 20 nodes and 44 MB for the first table of a process (its caches filled).
_TABLE_FIXED_BYTES = 64 * 2**20
_TABLE_BYTES_PER_ROW = 2**20


def _check_bound_topologies(topologies) -> list:
    """Every topology fit for the synthesis bounds, checked before any bound is computed; an
    error names the entry (``topologies[i]``)."""
    from .synthesis import MAX_BOUND_ENDPOINTS, _check_topology, _network

    topologies = _check_topologies(topologies)
    for i, t in enumerate(topologies):
        try:
            if t.n > MAX_BOUND_ENDPOINTS:  # before the graph is built
                raise ValueError(
                    f"the cut bound enumerates all 2**n node sets; n <= {MAX_BOUND_ENDPOINTS}, got n={t.n}"
                )
            _check_topology(t)
            _network(t, hops=False)  # refuses several switch levels
        except (ValueError, TypeError) as err:
            raise type(err)(f"topologies[{i}] ({t.name}): {err}") from None
    return topologies


def _check_primitives(primitives) -> list:
    from ._validation import check_choice
    from .primitives import PRIMITIVES

    if not isinstance(primitives, (list, tuple)) or not 1 <= len(primitives) <= len(PRIMITIVES):
        raise TypeError(f"primitives must be a list of primitive names, got {type(primitives).__name__}")
    return [check_choice(f"primitives[{i}]", p, PRIMITIVES) for i, p in enumerate(primitives)]


def synthesis_bounds_table(topologies, primitives=("all_gather", "all_to_all")):
    """Both synthesis bounds next to the chapters' bounds, all in rounds per chunk (units of ``u / β``).

    The chapter-3 node bound and the chapter-5 balanced-cut bound are converted from seconds by
    ``× β / u`` (``u = M/N``, or ``M`` for Broadcast / Reduce). ``values``: ``(topology name,
    primitive, steps bound, R/C bound, node bound, bisection bound)`` with Fractions.

    >>> import ccb_helpers as ccb
    >>> t = synthesis_bounds_table([ccb.torus(3, 3)], ["all_to_all"])
    >>> t.values[0][3:]    # a row cut (3 x 6 blocks over 6 links) beats the balanced cut's 2.5
    (Fraction(3, 1), Fraction(2, 1), Fraction(5, 2))
    """
    from .bisection import bisection_lower_bound, node_lower_bound
    from .primitives import PRIMITIVE_LABELS
    from .synthesis import rounds_per_chunk_bound, steps_lower_bound
    from .tables import Table

    topologies, primitives = _check_bound_topologies(topologies), _check_primitives(primitives)
    check_cap(
        "synthesis_bounds_table: node sets the cut bounds enumerate (len(primitives) x 2**n per topology)",
        len(primitives) * sum(2**t.n for t in topologies),
        MAX_TABLE_CUT_SETS,
        hint="fewer or smaller topologies or primitives",
    )
    check_memory(
        f"topologies: synthesis_bounds_table of {len(topologies) * len(primitives)} rows",
        _TABLE_FIXED_BYTES + _TABLE_BYTES_PER_ROW * len(topologies) * len(primitives),
    )
    rows, values = [], []
    for topology in topologies:
        for primitive in primitives:
            unit = 1.0 if primitive in ("broadcast", "reduce") else 1.0 / topology.n
            s = steps_lower_bound(topology, primitive)
            ours = rounds_per_chunk_bound(topology, primitive)
            node = _as_fraction(node_lower_bound(primitive, topology, 1.0, 1.0, ports=topology.degree) / unit)
            bis = _as_fraction(bisection_lower_bound(primitive, topology, 1.0, 1.0) / unit)
            if ours == node:
                which = "= 节点界" + ("、平衡割界" if ours == bis else "")
            elif ours == bis:
                which = f"= 平衡割界（节点界 {node}）"
            else:
                which = f"更紧（节点 {node}，平衡割 {bis}）"
            rows.append([topology.name, PRIMITIVE_LABELS[primitive], str(s), f"**{ours}**", which])
            values.append((topology.name, primitive, s, ours, node, bis))
    headers = ["拓扑", "原语", "S ≥", "R/C ≥", "与第 3、5 章的下界比"]
    return Table(headers, rows, "两个下界（R/C 以 u/β 为单位，u = M/N；Broadcast 为 M）", values)


def attainment_table(topologies, primitive="all_gather", time_limit=60.0):
    """Is the pair (steps bound, rounds bound) attained together? From the stored frontiers, with proofs.

    For each topology: the bounds, the stored Pareto frontier (each point verified in the
    simulator), and a verdict. When the frontier's fewest-steps point misses the rounds bound, the
    instance ``(S_min, q * C, C)`` with ``q`` the rounds bound and the largest ``C <= 6`` is solved
    **live**: the solver's "infeasible" proves the gap (for every ``C`` dividing that one).

    ``values``: ``(name, S bound, R/C bound, frontier [(S, R, C)], proved gap instance or None)``.

    Every topology is checked as in :func:`synthesis_bounds_table` and must have a stored
    frontier for ``primitive`` before any bound is computed; each live proof runs at most
    ``time_limit`` seconds (``<= 3600``).
    """
    from .synthesis import (
        SYNTHESIS_PRIMITIVES,
        _check_time_limit,
        rounds_per_chunk_bound,
        steps_lower_bound,
        stored_frontier,
        synthesize,
    )
    from .tables import Table

    topologies = _check_bound_topologies(topologies)
    primitive = check_choice("primitive", primitive, SYNTHESIS_PRIMITIVES)
    frontiers = []
    for i, topology in enumerate(topologies):  # the stored frontiers exist (cheap) before any bound is computed
        try:
            frontiers.append(stored_frontier(topology, primitive))
        except ValueError as err:
            raise ValueError(f"topologies[{i}] ({topology.name}): {err}") from None
    time_limit = _check_time_limit(time_limit)
    rows, values = [], []
    for topology, frontier in zip(topologies, frontiers):
        s_min = steps_lower_bound(topology, primitive)
        bound = rounds_per_chunk_bound(topology, primitive)
        first = frontier[0]
        proof = None
        if first.steps == s_min and first.rounds_per_chunk == bound:
            verdict = "能"
        else:
            chunks = bound.denominator * (6 // bound.denominator) or bound.denominator
            proof = (s_min, int(bound * chunks), chunks)
            if synthesize(topology, primitive, *proof, time_limit=time_limit) is not None:
                raise AssertionError(f"{proof} is feasible on {topology.name}: the stored frontier is not optimal")
            verdict = f"不能：{proof} 不可行（已证明）"
        points = "，".join(f"({p.steps}, {p.rounds}, {p.chunks})" for p in frontier)
        rows.append([topology.name, str(s_min), str(bound), points, verdict])
        values.append((topology.name, s_min, bound, [(p.steps, p.rounds, p.chunks) for p in frontier], proof))
    headers = ["拓扑", "S ≥", "R/C ≥", "Pareto 前沿 (S, R, C)", "同时达到？"]
    return Table(headers, rows, "AllGather：每个前沿调度都在模拟器中按链路容量运行并逐字节校验", values)
