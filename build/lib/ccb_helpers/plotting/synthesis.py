"""Chapter 7's figures: one step of a synthesized schedule, all its steps, and the (S, R/C) plane.

* :func:`draw_synthesized_step` — one step of a synthesized schedule on the topology: an arrow per
  used link, its width the chunks it carries, grey where the link is full (``b * r_s`` chunks),
  orange and labelled where it has room left;
* :func:`plot_schedule_steps` — the link matrix and the chunks of every step as small multiples;
* :func:`plot_synthesis_plane` — the (steps, rounds per chunk) plane: the two lower bounds, the
  Pareto frontier, other instances, proved-infeasible ones.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .style import COLORS, use_book_style

__all__ = ["draw_synthesized_step", "plot_schedule_steps", "plot_synthesis_plane"]


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
    from ..schedule import Schedule
    from ..topology import Topology

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

    from .._validation import check_int
    from ._checks import _check_ax

    _check_drawable(schedule, topology)
    step = check_int("step", step, minimum=1, maximum=len(schedule.rounds), scalar=True)
    _check_ax(ax)  # before drawing: any other object fails inside matplotlib, naming nothing
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
    from ..user_topology import _link_matrix
    from .topology import _layout

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

    from ..user_topology import _link_matrix
    from .style import BOOK_WIDTH

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

    from .._validation import check_int, check_real

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
    from ._checks import _check_ax

    _check_ax(ax)  # before drawing (#28: an int reached ax.axhspan)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string or None, got {type(title).__name__}")
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
