"""ccb_helpers: the formulas, topologies, cost models and tools of the collective-communication
lower-bounds textbook (集合通信理论下界).

Every number the book shows is computed here. Units are SI: seconds, bytes, bytes/s; β is the
bandwidth of one link in one direction. ``M`` follows the book's buffer conventions (see
:mod:`ccb_helpers.primitives`).

>>> import ccb_helpers as ccb
>>> ccb.info_steps(125, k=4)
3
>>> ccb.ring(8).diameter
4
"""

# Figures, explorers and their modules pull in matplotlib and ipywidgets (about 1 s of CPU):
# their names are loaded on first use (module __getattr__, PEP 562), so `python -m
# ccb_helpers.mpi` on every MPI rank, and any script that only computes, starts fast.
# `ccb.plot_x`, `from ccb_helpers import plot_x` and `dir(ccb)` work as before.
_LAZY: dict[str, str] = {}


def _lazy_from(module: str, names: str) -> None:
    """Register ``names`` (comma-separated) of submodule ``module`` to be imported on first use."""
    for name in names.replace("\n", " ").split(","):
        if name.strip():
            _LAZY[name.strip()] = module


from .algorithms import (
    ALGORITHM_LABELS,
    ALGORITHMS,
    Cost,
    algorithm_cost,
    algorithm_terms,
    applicable_algorithms,
    best_algorithm,
    efficiency,
    optimal_chunks,
    tree_height,
)
from .bandwidth import (
    algorithm_bandwidth,
    bus_bandwidth,
    hot_expert_routing,
    Volume,
    bandwidth_lower_bound,
    effective_ports,
    forced_volume,
    gossip_transmissions,
    role_volumes,
    routing_lower_bound,
    routing_volumes,
    uniform_routing,
    volume_coefficient,
)
from .bisection import (
    bisection_bytes,
    bisection_lower_bound,
    bisection_partition,
    cut_links,
    node_lower_bound,
    tighter_bound,
)
from .bounds import (
    combined_lower_bound,
    crossover_size,
    cut_through_latency_bound,
    latency_lower_bound,
    latency_steps_lower_bound,
    regime,
    round_lower_bound,
)
from .broadcast import broadcast_steps, eccentricity, search_broadcast_steps
from .gossip import gossip_rounds
from .in_network import busbw_limit, in_network_lower_bound, in_network_volume, nvls_all_reduce_volume
from .hardware import NETWORK_PRESETS, PRESETS, HardwarePreset, preset

_lazy_from(
    ".plotting",
    """
    draw_knomial_tree,
    draw_schedule,
    draw_topology,
    draw_topology_grid,
    plot_algorithm_times,
    plot_best_algorithm_map,
    plot_bisection_ratio,
    plot_diameters,
    plot_info_steps,
    plot_regime_map,
    plot_volume_coefficients,
    use_book_style,
""",
)
from .primitives import PRIMITIVE_LABELS, PRIMITIVES, ROOTED_PRIMITIVES
from .propagation import coverage, flat_send_time, info_latency_bound, info_steps
from .tables import (
    Table,
    algorithm_comparison_table,
    bandwidth_attainment_table,
    bandwidth_table,
    bandwidth_table_2port,
    bisection_comparison_table,
    bisection_width_table,
    broadcast_attainment_table,
    busbw_table,
    diameter_table,
    efficiency_table,
    exhaustive_broadcast_table,
    first_diameter_bound_table,
    in_network_table,
    info_propagation_table,
    kport_ring_table,
    oversubscription_table,
    preset_steps_table,
    ring_diameter_table,
    ring_gossip_table,
    simulated_vs_bound_table,
    source_bisection_table,
    source_node_bound_table,
    tree_ring_crossover_table,
)
from .topology import (
    TOPOLOGY_FAMILIES,
    Topology,
    fat_tree,
    fully_connected,
    hypercube,
    measured_bisection,
    measured_diameter,
    mesh,
    ring,
    single_switch,
    torus,
)
from .diameter import (
    FAMILIES,
    binding_latency_term,
    diameter_binding_sizes,
    family_instance,
    family_instances,
    first_diameter_bound,
)

_lazy_from(
    ".explorers",
    "AlgorithmExplorer, BandwidthExplorer, BisectionExplorer, Explorer, PropagationExplorer, TopologyExplorer",
)
from .generators import generate, knomial_tree, nccl_double_binary_tree
from .schedule import Round, Schedule, Transfer, block_bounds
from .selection import best_algorithm_bands, crossover_between, optimality
from .simulator import ScheduleError, SimulationResult, run_schedule, simulate
from .user_topology import (
    dgx1,
    link_matrix,
    parse_nvidia_smi_topo,
    parse_rocm_smi_topo,
    topology_from_graph,
    topology_from_links,
)
from .synthesis import (
    FrontierPoint,
    SolverError,
    SynthesisTimeout,
    pareto_frontier,
    rounds_per_chunk_bound,
    steps_lower_bound,
    stored_frontier,
    stored_schedule,
    stored_schedules,
    synthesize,
    synthesized_time,
    verify_synthesized,
)
from .synthesis_lp import two_step_rounds_per_chunk

_lazy_from(
    ".synthesis_figures",
    "SynthesisExplorer, attainment_table, draw_synthesized_step, plot_schedule_steps, plot_synthesis_plane, "
    "synthesis_bounds_table",
)
from .units import GiB, KiB, MiB, format_bandwidth, format_bytes, format_time
from .nccl_tests import (
    AlphaBeta,
    NcclTestsLog,
    NcclTestsRow,
    busbw_ceiling,
    fit_alpha_beta,
    nccl_tests_report,
    read_nccl_tests,
    read_nccl_tests_runs,
    two_level_busbw_ceiling,
)
from .nccl_model import (
    NCCL_ALGORITHMS,
    NCCL_COLLECTIVES,
    NCCL_MODEL_VERSION,
    NCCL_PROTOCOLS,
    NCCL_TOPOLOGIES,
    NcclPrediction,
    NcclTopology,
    nccl_predict,
    nccl_tuning_table,
    nccl_nvls_table,
)
from .nccl_bound import NcclVsBound, nccl_bound_parameters, nccl_vs_bound, nccl_vs_bound_table
from .nccl_search import NvlsGraph, nvls_graph
from .nccl_published import (
    PUBLISHED_LOGS,
    PublishedLog,
    in_switch_busbw_ceiling,
    published_log_text,
    published_summary_table,
    read_published_log,
)

_lazy_from(
    ".nccl_figures", "NCCL_PICK_COLORS, NcclExplorer, plot_busbw_against_bound, plot_nccl_pick_map, plot_nccl_times"
)
from . import mpi  # real MPI runs (mpi4py is imported only when a command runs under mpiexec)
from .mpi import load_mpi_result

_lazy_from(".mpi", "MPIResultExplorer, mpi_runs_table, plot_mpi_ratios, plot_mpi_runs, plot_pingpong")

__version__ = "0.1.0"

_LAZY_MODULES = {module.lstrip(".") for module in _LAZY.values()}  # ccb.plotting etc. also load on first use
__all__ = sorted({name for name in dir() if not name.startswith("_")} | set(_LAZY) | _LAZY_MODULES)


def __getattr__(name: str):
    """Import a lazily registered name (see ``_LAZY``) or submodule on first use and keep it."""
    import importlib

    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)  # the import sets the attribute
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | _LAZY_MODULES)
