"""Chapter 9's live explorer: :class:`~ccb_helpers.explorers.TwoLevelExplorer` on the static site.

Fully precomputed: every state of nodes x M x NIC placement x ports (8 x 23 x 2 x 2) runs the
real :func:`~ccb_helpers.explorers.two_level.two_level_frame` once (the algorithms timed from
their generated rounds, the two-level bound) and the page looks the state up.
"""

from __future__ import annotations

from ..explorers.two_level import TwoLevelExplorer, two_level_frame
from .cache import cached
from .compress import tabulate
from .controls import controls_spec

__all__ = ["export", "frame"]


def frame(state: dict) -> tuple[str, dict]:
    """``(readout_html, figure_spec)`` of one state ``{"nodes", "m", "nic", "ports"}``.

    >>> readout, figure = frame({"nodes": 2, "m": 2.0**30, "nic": "gpu", "ports": 1})
    >>> [s["label"] for s in figure["panels"][0]["series"][2:4]]
    ['Ring', 'RD']
    """
    if not isinstance(state, dict) or set(state) != {"nodes", "m", "nic", "ports"}:
        raise TypeError(f"state must be a dict with keys nodes, m, nic, ports, got {state!r}")
    f = two_level_frame(**state)
    return f.readout, f.figure


def export() -> dict:
    """The live explorer's data: its controls and every state's readout and figure."""
    explorer = TwoLevelExplorer()
    try:
        controls = controls_spec(explorer)
    finally:
        explorer.close()
    spec = {c["name"]: c for c in controls}
    axes = [(name, [value for _, value in spec[name]["options"]]) for name in ("nodes", "m", "nic", "ports")]
    data = cached("two_level_explorer", lambda: tabulate(axes, frame))
    return {"explorer": "TwoLevelExplorer", "args": [], "controls": controls, "data": data}
