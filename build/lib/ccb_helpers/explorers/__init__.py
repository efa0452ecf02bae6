"""Interactive explorers (ipywidgets) used by the chapters; a notebook cell is one line.

Each explorer owns its controls, one matplotlib figure rendered to PNG into an ``Image`` widget,
and an HTML readout; :class:`Explorer` (in :mod:`ccb_helpers.explorers.base`) documents the
two subclass APIs (simple: ``draw``; fast: ``setup`` + ``refresh``) and the thread-safe,
coalescing redraws. One module per chapter's explorer.
"""

from .algorithm import AlgorithmExplorer
from .bandwidth import BandwidthExplorer
from .base import Explorer
from .bisection import BisectionExplorer
from .propagation import PropagationExplorer
from .topology import TopologyExplorer
from .two_level import TwoLevelExplorer

__all__ = [
    "Explorer",
    "PropagationExplorer",
    "TopologyExplorer",
    "BandwidthExplorer",
    "AlgorithmExplorer",
    "BisectionExplorer",
    "TwoLevelExplorer",
]
