"""The explorer of chapter 7 (schedule synthesis), and the chapter's figures and tables by their old path.

:class:`SynthesisExplorer` — topology, steps and chunks → the stored schedule with the fewest
rounds, drawn step by step. It only loads stored schedules (``tools/synthesize_schedules.py``),
each checked in the simulator, so moving a slider never waits on a solver. Its state
(:func:`synthesis_state`) is shared with the static page's live explorer.

The drawings live in :mod:`ccb_helpers.plotting.synthesis` (:func:`draw_synthesized_step`,
:func:`plot_schedule_steps`, :func:`plot_synthesis_plane`), the tables in
:mod:`ccb_helpers.tables.synthesis` (:func:`synthesis_bounds_table`, :func:`attainment_table`);
both are re-exported here, so ``ccb_helpers.synthesis_figures.X`` works as before.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import ipywidgets as widgets
from matplotlib.figure import Figure

from .explorers import Explorer

# Re-exported by their old path (``name as name``): the static page's explorer and the tests read them here.
from .plotting.synthesis import _FULL_COLOR as _FULL_COLOR
from .plotting.synthesis import _SPARE_COLOR as _SPARE_COLOR
from .plotting.synthesis import ARC_RAD as ARC_RAD
from .plotting.synthesis import _arc_control as _arc_control
from .plotting.synthesis import _plane_limits as _plane_limits
from .plotting.synthesis import _step_drawing, draw_synthesized_step, plot_schedule_steps, plot_synthesis_plane
from .tables.synthesis import _TABLE_BYTES_PER_ROW as _TABLE_BYTES_PER_ROW
from .tables.synthesis import _TABLE_FIXED_BYTES as _TABLE_FIXED_BYTES
from .tables.synthesis import MAX_TABLE_CUT_SETS as MAX_TABLE_CUT_SETS
from .tables.synthesis import attainment_table, synthesis_bounds_table

__all__ = [
    "draw_synthesized_step",
    "plot_schedule_steps",
    "plot_synthesis_plane",
    "SynthesisExplorer",
    "synthesis_state",
    "synthesis_bounds_table",
    "attainment_table",
]


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
