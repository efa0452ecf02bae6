"""Drawing a schedule: who sends to whom in every round (:func:`draw_schedule`)."""

from __future__ import annotations

import numpy as np

from .._validation import check_int
from ._checks import _check_ax, _new_axes
from .style import COLORS, use_book_style


def draw_schedule(schedule, ax=None, max_messages: int = 4000, title: str | None = None):
    """Draw a schedule as a time x node diagram: one lane per node, one column per round.

    Each message (all pieces between one ordered pair of nodes in one round) is an arrow from
    its sender's lane at the start of the round to its receiver's lane at the end; blue arrows
    copy, red arrows reduce (add); the line width grows with the message's bytes.

    Parameters
    ----------
    schedule : Schedule or SimulationResult
        What to draw.
    ax : matplotlib Axes, optional
        Where to draw (a new figure otherwise).
    max_messages : int, default 4000
        Refuse to draw more arrows than this (the picture would be unreadable); checked before
        any arrow is made. At most 20,000.
    title : str, optional
        Axes title (default: algorithm, primitive, N, rounds).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import ccb_helpers as ccb
    >>> ax = draw_schedule(ccb.generate("binomial_tree", "broadcast", 8, 64))
    >>> len(ax.patches)   # 1 + 2 + 4 messages
    7
    """
    from matplotlib.patches import FancyArrowPatch

    from ..schedule import Schedule

    schedule = getattr(schedule, "schedule", schedule)
    if not isinstance(schedule, Schedule):
        raise TypeError(f"schedule must be a Schedule or SimulationResult, got {type(schedule).__name__}")
    max_messages = check_int("max_messages", max_messages, minimum=1, maximum=20_000, scalar=True)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string or None, got {type(title).__name__}")
    _check_ax(ax)
    messages = []
    for index, r in enumerate(schedule.rounds):
        remote = r.src != r.dst
        if not np.any(remote):
            continue
        pair = r.src[remote] * schedule.n + r.dst[remote]
        keys, inverse = np.unique(pair, return_inverse=True)
        if len(messages) + len(keys) > max_messages:
            raise ValueError(f"schedule has more than max_messages={max_messages} messages; draw a smaller n")
        size = np.bincount(inverse, weights=r.length[remote])
        reduce = np.bincount(inverse, weights=r.reduce[remote]) > 0
        messages += [
            (index, int(k) // schedule.n, int(k) % schedule.n, s, red) for k, s, red in zip(keys, size, reduce)
        ]
    use_book_style()
    if ax is None:
        ax = _new_axes(max(5.0, 1.0 + 0.6 * len(schedule.rounds)), min(max(3.0, 1.0 + 0.35 * schedule.n), 8))
    biggest = max((mm[3] for mm in messages), default=1) or 1
    for index, src, dst, size, red in messages:
        ax.add_patch(
            FancyArrowPatch(
                (index + 0.08, src),
                (index + 0.92, dst),
                arrowstyle="-|>",
                mutation_scale=9,
                color=COLORS["bandwidth"] if red else COLORS["latency"],
                linewidth=0.6 + 2.0 * size / biggest,
                alpha=0.85,
            )
        )
    rounds = len(schedule.rounds)
    ax.set_xlim(0, max(rounds, 1))
    ax.set_ylim(schedule.n - 0.5, -0.5)
    ax.set_xticks(np.arange(rounds) + 0.5, [str(i + 1) for i in range(rounds)] if rounds <= 40 else [""] * rounds)
    ax.set_yticks(range(schedule.n) if schedule.n <= 32 else [])
    ax.set_xlabel("轮次 (round)")
    ax.set_ylabel("节点 (node)")
    ax.grid(False)
    for x in range(rounds + 1):
        ax.axvline(x, color="#dddddd", linewidth=0.6, zorder=0)
    ax.set_title(title or f"{schedule.algorithm} · {schedule.primitive} · N = {schedule.n} · {rounds} 轮")
    kinds = {red for *_, red in messages}
    if False in kinds:
        ax.plot([], [], color=COLORS["latency"], label="copy 复制")
    if True in kinds:
        ax.plot([], [], color=COLORS["bandwidth"], label="reduce 归约（相加）")
    if kinds:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    return ax
