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

# Every name is loaded on first use (module __getattr__, PEP 562): figures, explorers and their
# modules pull in matplotlib and ipywidgets (about 1 s of CPU), topologies networkx (0.1 s), and
# `python -m ccb_helpers.mpi` on every MPI rank imports only the modules a rank runs (the package
# is imported first). `ccb.x`, `from ccb_helpers import x`, `ccb.submodule` and `dir(ccb)` work as
# when everything was imported here; a registration below is a name's submodule.
_LAZY: dict[str, str] = {}


def _lazy_from(module: str, names: str) -> None:
    """Register ``names`` (comma-separated) of submodule ``module`` to be imported on first use."""
    for name in names.replace("\n", " ").split(","):
        if name.strip():
            _LAZY[name.strip()] = module


_lazy_from(
    ".algorithms",
    """
    ALGORITHM_LABELS,
    ALGORITHMS,
    Cost,
    algorithm_cost,
    algorithm_terms,
    applicable_algorithms,
    best_algorithm,
    efficiency,
    optimal_chunks,
    optimal_segments,
    one_port_tree_depth,
    pipeline_constants,
    pipelined_algorithms,
    tree_height,
    hierarchical_terms,
    pat_aggregation,
    swing_terms,
    two_level_algorithm_time,
""",
)
_lazy_from(
    ".bandwidth",
    """
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
""",
)
_lazy_from(
    ".bisection",
    """
    bisection_bytes,
    bisection_lower_bound,
    bisection_partition,
    cut_links,
    node_lower_bound,
    tighter_bound,
""",
)
_lazy_from(
    ".bounds",
    """
    combined_lower_bound,
    computation_lower_bound,
    crossover_size,
    cut_through_latency_bound,
    latency_lower_bound,
    latency_steps_lower_bound,
    regime,
    round_lower_bound,
""",
)
_lazy_from(".broadcast", "broadcast_steps, eccentricity, search_broadcast_steps")
_lazy_from(".gossip", "gossip_rounds")
_lazy_from(".in_network", "busbw_limit, in_network_lower_bound, in_network_volume, nvls_all_reduce_volume")
_lazy_from(".hardware", "NETWORK_PRESETS, PRESETS, HardwarePreset, preset")

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
_lazy_from(".primitives", "PRIMITIVE_LABELS, PRIMITIVES, ROOTED_PRIMITIVES")
_lazy_from(".propagation", "coverage, flat_send_time, info_latency_bound, info_steps")
_lazy_from(
    ".tables",
    """
    Table,
    algorithm_comparison_table,
    bandwidth_attainment_table,
    bandwidth_table,
    bandwidth_table_2port,
    bisection_comparison_table,
    bisection_width_table,
    broadcast_attainment_table,
    busbw_table,
    computation_table,
    diameter_table,
    efficiency_table,
    fat_tree_allreduce_table,
    exhaustive_broadcast_table,
    first_diameter_bound_table,
    in_network_table,
    info_propagation_table,
    kport_ring_table,
    non_power_of_two_table,
    oversubscription_table,
    pipelined_rooted_table,
    preset_steps_table,
    ring_diameter_table,
    ring_gossip_table,
    simulated_vs_bound_table,
    source_bisection_table,
    source_node_bound_table,
    tree_ring_crossover_table,
""",
)
_lazy_from(
    ".topology",
    """
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
""",
)
_lazy_from(
    ".diameter",
    """
    FAMILIES,
    binding_latency_term,
    diameter_binding_sizes,
    family_instance,
    family_instances,
    first_diameter_bound,
""",
)

_lazy_from(
    ".explorers",
    "AlgorithmExplorer, BandwidthExplorer, BisectionExplorer, Explorer, PropagationExplorer, TopologyExplorer",
)
_lazy_from(".generators", "generate, knomial_tree, nccl_double_binary_tree")
# Chapter 9: trade-off bounds, two-level hardware, Swing, PAT, hierarchical algorithms, routed tori.
_lazy_from(
    ".generators",
    "hierarchical_schedule, pat_messages, pat_operations, pat_schedule, pat_terms, swing_peer, swing_rho, swing_schedule",
)
_lazy_from(".generators", "halving_doubling_schedule")
_lazy_from(
    ".tradeoff",
    """
    all_gather_tradeoff_bound,
    all_to_all_min_hops,
    all_to_all_tradeoff_bound,
    all_to_all_tradeoff_curve,
    all_to_all_tradeoff_rounds,
    all_to_all_tradeoff_time,
    bruck_index_cost,
    bruck_index_schedule,
    circulant_index_schedule,
""",
)
_lazy_from(
    ".two_level_network",
    "TwoLevelBound, TwoLevelHardware, TwoLevelTopology, two_level, two_level_hardware, two_level_lower_bound",
)
_lazy_from(".two_level_model", "two_level_round_costs, two_level_time")
_lazy_from(".routed_bound", "routed_lower_bound")
_lazy_from(".explorers", "TwoLevelExplorer")
_lazy_from(".plotting", "plot_tradeoff, plot_two_level_map")
_lazy_from(".in_network_model", "InNetworkBound, in_network_bound")
_lazy_from(
    ".two_level_selection",
    "RoundProfile, TwoLevelMap, TWO_LEVEL_CANDIDATES, round_profile, two_level_map, two_level_times",
)
_lazy_from(".schedule", "Round, Schedule, Transfer, block_bounds")
_lazy_from(".tree_allreduce", "patarasuk_yuan, place, tree_ring_order")
_lazy_from(".routed", "RoutedLoads, routed_loads, routed_time")
_lazy_from(".selection", "best_algorithm_bands, crossover_between, optimality")
_lazy_from(".simulator", "ScheduleError, SimulationResult, run_schedule, simulate")
_lazy_from(".smi", "parse_nvidia_smi_topo, parse_rocm_smi_topo")
_lazy_from(
    ".user_topology",
    """
    dgx1,
    link_matrix,
    topology_from_graph,
    topology_from_links,
""",
)
_lazy_from(
    ".synthesis",
    """
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
""",
)
_lazy_from(".synthesis_lp", "two_step_rounds_per_chunk")

_lazy_from(
    ".synthesis_figures",
    "SynthesisExplorer, attainment_table, draw_synthesized_step, plot_schedule_steps, plot_synthesis_plane, "
    "synthesis_bounds_table",
)
_lazy_from(".units", "GiB, KiB, MiB, format_bandwidth, format_bytes, format_time")
_lazy_from(
    ".nccl_tests",
    """
    AlphaBeta,
    NcclTestsLog,
    NcclTestsRow,
    busbw_ceiling,
    fit_alpha_beta,
    nccl_tests_report,
    read_nccl_tests,
    read_nccl_tests_runs,
    two_level_busbw_ceiling,
    two_level_ceiling_terms,
    TwoLevelCeiling,
""",
)
_lazy_from(
    ".nccl_model",
    """
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
""",
)
_lazy_from(".nccl_bound", "NcclVsBound, nccl_bound_parameters, nccl_vs_bound, nccl_vs_bound_table")
_lazy_from(".nccl_search", "NvlsGraph, nvls_graph")
_lazy_from(".logp", "LOGP_TREES, LogPBroadcast, logp_broadcast, logp_tree_broadcast")
_lazy_from(
    ".nccl_published",
    """
    PUBLISHED_LOGS,
    PublishedLog,
    in_switch_busbw_ceiling,
    published_log_text,
    published_summary_table,
    read_published_log,
""",
)

_lazy_from(
    ".nccl_figures", "NCCL_PICK_COLORS, NcclExplorer, plot_busbw_against_bound, plot_nccl_pick_map, plot_nccl_times"
)
_lazy_from(".mpi", "load_mpi_result, MPIResultExplorer, mpi_runs_table, plot_mpi_ratios, plot_mpi_runs, plot_pingpong")
_lazy_from(".mpi", "MPI_EXAMPLES, mpi_example")

__version__ = "0.1.0"

# ccb.plotting etc. also load on first use; double_binary_tree was a public attribute (imported
# by the generators) when the names were imported here.
_LAZY_MODULES = {module.lstrip(".") for module in _LAZY.values()} | {"double_binary_tree"}
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
