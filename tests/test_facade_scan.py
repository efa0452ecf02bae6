"""Every public function of the facade, each argument replaced in turn by a hostile value (#42).

The outside fuzzer of issue #42 called the public API with one argument replaced at a time and
found errors that did not name the parameter (``draw_knomial_tree(8, k=np.array(5))`` said
"unhashable type"). This test closes the class: for every function registered in
``ccb_helpers/__init__.py`` (its lazy name table; a new function must join :func:`_baselines` or
the coverage test fails), every parameter (positional or keyword, those left at their default
too) is replaced by each of :data:`HOSTILE` — numpy 0-d and 2-d arrays, numpy integers beyond
int64, a list, a bool, NaN, ±inf, huge ints, strings — and the call must either return (with no
NaN in what it returns) or raise ``ValueError`` / ``TypeError`` whose message names the
parameter. Anything else — another exception type, a message that names something else, a call
that runs longer than :data:`CALL_SECONDS` — is a finding.

The baseline calls are small on purpose (a value that is accepted runs the whole function), so
the scan costs a few CPU-seconds (202 functions and 26 records, 15,105 calls: 4.9 CPU-s, the
whole file 10.5 CPU-s, measured with ``python tests/test_facade_scan.py`` and ``/usr/bin/time``
after chapter 9 and the catalogue joined). A record (a dataclass or NamedTuple of the facade) is built
with one field replaced at a time and must refuse the value, naming the field, or hold it as a
value of the kind its real instance holds, never NaN or ±inf (:func:`_record_problem`). A finding
left open needs a reason a user would accept, in :data:`KNOWN`; the test fails on any other.
"""

from __future__ import annotations

import inspect
import itertools
import math
import re
import signal
import time
import warnings
from pathlib import Path

import numpy as np

import ccb_helpers as ccb

ROOT = Path(__file__).resolve().parent.parent

#: One hostile value of each kind the issue names, by a short label (the label is what a finding shows).
HOSTILE = {
    "0-d int array": np.array(5),
    "0-d float array": np.array(2.5),
    "2-d array": np.ones((2, 2)),
    "2-d int array": np.ones((2, 2), dtype=np.int64),
    "uint64 2**63": np.uint64(2**63),
    "uint64 max": np.uint64(2**64 - 1),
    "list": [1, 2],
    "bool": True,
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "int 10**30": 10**30,
    "int -2**64": -(2**64),
    "string": "8",
    "empty string": "",
}
#: A call that runs longer than this (wall clock, generous for a loaded CI machine: the slowest
#: baseline call takes 0.8 CPU-s) is a finding: some cap let a hostile value through.
CALL_SECONDS = 20.0


def _baselines() -> dict:
    """A small valid call of every public function: ``name -> (args, kwargs)``."""
    ring8, ring4 = ccb.ring(8), ccb.ring(4)
    sweep = str(ROOT / "ccb_helpers" / "data" / "mpi" / "mpi_sweep_example.json")
    sweep_result = ccb.load_mpi_result(sweep)
    log_key = "dgx2_v100_all_reduce"
    log = ccb.read_published_log(log_key)
    log_text = ccb.published_log_text(log_key)
    smi = (ROOT / "tests" / "data" / "nvidia_smi" / "a100_p4d_24xlarge.txt").read_text(encoding="utf-8")
    rocm = "\n".join(
        [
            "=========================== Weight between two GPUs ============================",
            "       GPU0         GPU1",
            "GPU0   0            52",
            "GPU1   52           0",
            "============================ Hops between two GPUs =============================",
            "       GPU0         GPU1",
            "GPU0   0            3",
            "GPU1   3            0",
            "========================== Link Type between two GPUs ==========================",
            "       GPU0         GPU1",
            "GPU0   0            PCIE",
            "GPU1   PCIE         0",
            "",
        ]
    )
    schedule = ccb.generate("ring", "all_reduce", 4, 8)
    dgx1 = ccb.dgx1()
    synthesized = ccb.stored_schedule(dgx1, "all_gather", 2, 1, verify=False)
    matrix = (np.ones((4, 4)) - np.eye(4)) * 1024
    links = [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]
    import networkx as nx

    prim, ar = "all_reduce", dict(alpha=1e-6, beta=1e9)
    bound_options = dict(ports=1, diameter=0, degree=None, eccentricity=None)
    # Chapter 9 and the catalogue (#38): two-level hardware, routed tori, fat trees.
    two, hardware = ccb.two_level(2, 4), ccb.two_level_hardware()
    two_run = ccb.simulate("hierarchical_ring", prim, 8, 64, topology=two)
    two_map = ccb.two_level_map([1, 2], 4, [1024.0, 2.0**20], hardware, algorithms=("ring", "hierarchical_ring"))
    fat8 = ccb.fat_tree(8)
    ring_schedule8 = ccb.generate("ring", prim, 8, 64)
    return {
        "algorithm_bandwidth": ((1024, 1e-3), {}),
        "algorithm_comparison_table": ((), dict(ports=1, ns=(8,), m=1024, chunks=4)),
        "algorithm_cost": (("ring", prim, 8, 1024, 1e-6, 1e9), dict(ports=1, chunks=None, pipelined=True)),
        "algorithm_terms": (("ring", prim, 8, 1024), dict(ports=1, chunks=None, pipelined=True)),
        "applicable_algorithms": ((prim,), dict(n=8, ports=1)),
        "attainment_table": (([dgx1],), dict(primitive="all_gather", time_limit=5.0)),
        "bandwidth_attainment_table": ((), dict(ns=(4,), block=8)),
        "bandwidth_lower_bound": ((prim, 8, 1024, 1e9), dict(ports=1, degree=None)),
        "bandwidth_table": ((), dict(ports=1, n=8, m=1024, beta=1e9)),
        "bandwidth_table_2port": ((), dict(ns=(8,), m=1024, beta=1e9)),
        "best_algorithm": ((prim, 8, 1024, 1e-6, 1e9), dict(ports=1)),
        "best_algorithm_bands": ((prim, 8, 1e-6, 1e9), dict(ports=1, m_min=1.0, m_max=1e6, points=8)),
        "binding_latency_term": ((ring8,), dict(k=1)),
        "bisection_bytes": ((prim, 8, 1024), dict(root_side="larger")),
        "bisection_comparison_table": (([ring8],), dict(m=1024, beta=1e9, primitives=(prim,))),
        "bisection_lower_bound": ((prim, ring8, 1024, 1e9), {}),
        "bisection_partition": ((ring8,), {}),
        "bisection_width_table": (([ring8],), dict(search_up_to=8)),
        "block_bounds": ((100, 7), dict(parts=None)),
        "broadcast_attainment_table": ((), dict(ns=(5,), ks=(1,), m=64)),
        "broadcast_steps": ((ring8,), dict(k=1, root=0, method="auto")),
        "bus_bandwidth": ((prim, 8, 1024, 1e-3), {}),
        "busbw_ceiling": ((prim, 8, 1024, 1e-6, 1e9), dict(ports=1, latency_ports=None)),
        "busbw_limit": ((prim, 8, 1e9), dict(ports=1, in_network=False, degree=None)),
        "busbw_table": ((), dict(n=8, sizes=(4096,), preset_key="h100_nvswitch")),
        "combined_lower_bound": ((prim, 8, 1024, 1e-6, 1e9), bound_options),
        "coverage": ((3,), dict(k=1, n=None)),
        "crossover_between": (
            ("ring", "double_binary_tree", prim, 8, 1e-6, 1e9),
            dict(ports=1, m_min=1.0, m_max=2.0**30),
        ),
        "crossover_size": ((prim, 8, 1e-6, 1e9), bound_options),
        "cut_links": ((ring8, {0, 1, 2, 3}), {}),
        "cut_through_latency_bound": ((prim, 8, 1e-6, 1e-7), bound_options),
        "dgx1": ((), {}),
        "diameter_binding_sizes": ((), dict(n_max=16, k=1)),
        "diameter_table": (([ring8],), dict(k=1, measure_up_to=20)),
        "draw_knomial_tree": ((8,), dict(k=1, ax=None)),
        "draw_schedule": ((schedule,), dict(ax=None, max_messages=4000, title=None)),
        "draw_synthesized_step": ((synthesized, dgx1, 1), dict(ax=None)),
        "draw_topology": ((ring8,), dict(root=0, ax=None, max_nodes=600, side=None)),
        "draw_topology_grid": (([ring4],), dict(cuts=False, max_nodes=600)),
        "eccentricity": ((ring8,), dict(root=0)),
        "effective_ports": ((), dict(ports=1, degree=None)),
        "efficiency": (("ring", prim, 8, 1024, 1e-6, 1e9), dict(ports=1, diameter=0, bound="combined")),
        "efficiency_table": ((), dict(n=8, alpha=1e-6, beta=1e9, ports=1, span=4.0)),
        "exhaustive_broadcast_table": ((), dict(ns=range(2, 4), ks=(1,))),
        "family_instance": (("ring", 8), {}),
        "family_instances": (("ring", 8), {}),
        "fat_tree": ((8,), dict(oversubscription=1, hosts_per_leaf=None)),
        "first_diameter_bound": (("ring",), dict(max_n=100, k=1)),
        "first_diameter_bound_table": ((), dict(families=("ring",), ks=(1,), max_n=100)),
        "fit_alpha_beta": ((log,), dict(n_ranks=None, collective=None, min_size=1, max_size=None, inplace=False)),
        "flat_send_time": ((8, 1e-6, 1e-7, 1e-7), {}),
        "forced_volume": ((prim, 8, 1024), {}),
        "format_bandwidth": ((1e9,), {}),
        "format_bytes": ((1024,), {}),
        "format_time": ((1e-6,), {}),
        "fully_connected": ((8,), {}),
        "generate": (("ring", prim, 4, 8), dict(ports=1, root=0, chunks=None, pipelined=True)),
        "gossip_rounds": ((ring4,), dict(ports=1, method="auto")),
        "gossip_transmissions": ((4,), {}),
        "hot_expert_routing": ((8, 1024), dict(hot=0, factor=3.0)),
        "hypercube": ((3,), {}),
        "in_network_lower_bound": ((prim, 8, 1024, 1e9), dict(ports=1, degree=None)),
        "in_network_table": ((), dict(n=8, preset_key="h100_nvswitch")),
        "in_network_volume": ((prim, 8, 1024), {}),
        "in_switch_busbw_ceiling": ((prim, 8, 1, 1e9), dict(node_beta=None)),
        "info_latency_bound": ((8, 1e-6), dict(k=1)),
        "info_propagation_table": ((), dict(ns=(4,), k=2)),
        "info_steps": ((8,), dict(k=1)),
        "knomial_tree": ((8,), dict(k=1)),
        "kport_ring_table": ((), dict(n=8, ks=(1, 2))),
        "latency_lower_bound": ((prim, 8, 1e-6), bound_options),
        "latency_steps_lower_bound": ((prim, 8), bound_options),
        "link_matrix": ((ring4,), {}),
        "load_mpi_result": ((sweep,), {}),
        "measured_bisection": ((ring8,), dict(max_endpoints=64)),
        "measured_diameter": ((ring8,), {}),
        "mesh": ((2, 3), {}),
        "mpi_runs_table": ((sweep_result,), dict(m=None, alpha=None, beta=None)),
        "nccl_bound_parameters": ((), dict(topology="dgx_h100", n_nodes=None)),
        "nccl_double_binary_tree": ((8,), {}),
        "nccl_nvls_table": ((), dict(gpu_counts=range(3, 5), topology="dgx_h100")),
        "nccl_predict": ((prim, 8, 1, 1024), dict(topology="dgx_h100")),
        "nccl_tests_report": (
            (log, 1e-6, 1e9),
            dict(ports=1, latency_ports=None, n_ranks=None, collective=None, n_nodes=None, node_beta=None),
        ),
        "nccl_tuning_table": ((prim, 8, 1), dict(topology="dgx_h100")),
        "nccl_vs_bound": ((prim, 8, 1, 1024), dict(topology="dgx_h100")),
        "nccl_vs_bound_table": (([(8, 1, 1024)],), dict(topology="dgx_h100", primitive=prim)),
        "node_lower_bound": ((prim, ring8, 1024, 1e9), dict(ports=1)),
        "nvls_all_reduce_volume": ((8, 1024), {}),
        "nvls_graph": ((8, 370.8e9), dict(nic_bw=0.0)),
        "optimal_chunks": ((8, 1024, 1e-6, 1e9), {}),
        "optimality": (("ring", prim, 8), dict(m=1024, ports=1, large_n=64, huge_n=2**20, pipelined=True, chunks=4)),
        "oversubscription_table": ((), dict(n=16, hosts_per_leaf=4, m=1024, beta=1e9, primitives=(prim,))),
        "pareto_frontier": ((ring4, "all_gather", 2), dict(max_chunks=1, time_limit=5.0, root=0, workers=1, log=None)),
        "parse_nvidia_smi_topo": ((smi,), dict(name=None, nvswitch="auto", pcie_links=1, level_links=None)),
        "parse_rocm_smi_topo": ((rocm,), dict(name=None, pcie_links=1, level_links=None)),
        "plot_algorithm_times": (
            (),
            dict(primitive=prim, n=8, ports=1, m_range=(64.0, 2.0**20), efficiency=False, ax=None, **ar),
        ),
        "plot_best_algorithm_map": (
            (),
            dict(primitive=prim, ports=1, n_max=16, m_range=(64.0, 2.0**20), ax=None, **ar),
        ),
        "plot_bisection_ratio": ((), dict(primitives=(prim,), families=("ring",), max_n=64)),
        "plot_busbw_against_bound": (
            (log, 1e-6, 1e9),
            dict(ports=1, label=None, ax=None, n_ranks=None, collective=None),
        ),
        "plot_diameters": ((), dict(families=("ring",), max_n=100, ax=None)),
        "plot_info_steps": ((), dict(ks=(1,), n_max=100, all_port=True, ax=None)),
        "plot_mpi_ratios": ((sweep_result,), dict(pairs=None, alpha=None, beta=None, axes=None)),
        "plot_mpi_runs": ((sweep_result,), dict(pairs=None, alpha=None, beta=None, ncols=2, axes=None)),
        "plot_nccl_pick_map": ((), dict(topology="dgx_h100", primitive=prim, threshold=0.8, ax=None)),
        "plot_nccl_times": (
            (),
            dict(primitive=prim, n_ranks=8, n_nodes=1, topology="dgx_h100", m_range=(8.0, 2.0**20), efficiency=False),
        ),
        "plot_pingpong": ((sweep_result,), dict(axes=None, fit=None)),
        "plot_regime_map": ((), dict(primitive=prim, preset_keys=("ib_ndr",), n_max=64, m_range=(64.0, 2.0**20))),
        "plot_schedule_steps": ((synthesized, dgx1), {}),
        "plot_synthesis_plane": ((2, 1.5), dict(frontier=[(2, 3, 2)], others=(), infeasible=(), current=None, ax=None)),
        "plot_volume_coefficients": ((), dict(n_max=64, ax=None)),
        "preset": (("sg2260",), {}),
        "preset_steps_table": ((), dict(ns=(8,), keys=("sg2260",))),
        "published_log_text": ((log_key,), {}),
        "published_summary_table": ((), dict(keys=[log_key])),
        "read_nccl_tests": ((log_text,), dict(collective=None, n_ranks=None, force=False)),
        "read_nccl_tests_runs": ((log_text,), dict(collective=None, n_ranks=None, force=False)),
        "read_published_log": ((log_key,), {}),
        "regime": ((prim, 8, 1024, 1e-6, 1e9), bound_options),
        "ring": ((8,), {}),
        "ring_diameter_table": ((), dict(ns=(4,), search_up_to=6)),
        "ring_gossip_table": ((), dict(ns=range(3, 5), ports=1)),
        "role_volumes": ((prim, 8, 1024), {}),
        "round_lower_bound": ((prim, 8, 1024, 1e-6, 1e9), bound_options),
        "rounds_per_chunk_bound": ((ring4, "all_gather"), dict(root=0)),
        "routing_lower_bound": ((matrix, 1e9), dict(ports=1)),
        "routing_volumes": ((matrix,), {}),
        "run_schedule": ((schedule,), dict(ports=None, topology=None, seed=0, max_bytes=2**20)),
        "search_broadcast_steps": ((ccb.ring(6),), dict(k=1, root=0)),
        "simulate": (("ring", prim, 4, 8), dict(ports=1, topology=None, seed=0, max_bytes=2**20)),
        "simulated_vs_bound_table": ((), dict(cases=(("ring", 4, 64),), preset_key="a100_nvlink")),
        "single_switch": ((8,), dict(links=1)),
        "source_bisection_table": ((), dict(ns=(16,), m=1024, beta=1e9)),
        "source_node_bound_table": ((), dict(ns=(16,), m=1024, beta=1e9)),
        "steps_lower_bound": ((ring4, "all_gather"), dict(root=0)),
        "stored_frontier": ((dgx1, "all_gather"), {}),
        "stored_schedule": ((dgx1, "all_gather", 2, 1), dict(rounds=None, m=None, verify=False)),
        "stored_schedules": ((), {}),
        "synthesis_bounds_table": (([ring4],), dict(primitives=("all_gather",))),
        "synthesize": ((ring4, "all_gather", 2, 2, 1), dict(time_limit=5.0, root=0, m=None, workers=1)),
        "synthesized_time": ((synthesized, 1e-6, 1e9), {}),
        "tighter_bound": ((prim, ring8, 1024, 1e9), dict(ports=1)),
        "topology_from_graph": ((nx.cycle_graph(4),), dict(name=None, bisection_links=None)),
        "topology_from_links": ((links,), dict(name=None, bisection_links=None)),
        "torus": ((4, 4), {}),
        "tree_height": ((8,), {}),
        "tree_ring_crossover_table": ((), dict(ns=(4, 8), preset_key="a100_nvlink", ports=2)),
        "two_level_busbw_ceiling": ((prim, 16, 2, 1e9), dict(node_beta=1e9, ports=1, rail_beta=None)),
        "two_level_ceiling_terms": (
            (prim, 16, 2, 1e9),
            dict(node_beta=1e9, ports=1, rail_beta=None, nic_shares_link=False),
        ),
        "logp_broadcast": ((9, 1e-6, 2e-6, 3e-6), dict(tree="binomial", ports=1)),
        "logp_tree_broadcast": ((((1, 2), (), ()), 1e-6, 2e-6, 3e-6), {}),
        "mpi_example": (("mpi_sweep_example",), {}),
        "two_step_rounds_per_chunk": ((ring4,), dict(primitive="all_gather", root=0)),
        "uniform_routing": ((8, 1024), {}),
        "use_book_style": ((), {}),
        "verify_synthesized": ((synthesized, dgx1), dict(seed=0)),
        "volume_coefficient": ((prim, 8), {}),
        # chapter 9: trade-off bounds, two-level hardware, Swing, PAT, hierarchical algorithms, routing
        "all_gather_tradeoff_bound": ((8, 1024, 3), dict(ports=1)),
        "all_to_all_min_hops": ((8, 3), dict(ports=1)),
        "all_to_all_tradeoff_bound": ((8, 1024, 3), dict(ports=1)),
        "all_to_all_tradeoff_curve": ((8, 1024), dict(ports=1)),
        "all_to_all_tradeoff_rounds": ((8, 1024, 2048), dict(ports=1)),
        "all_to_all_tradeoff_time": ((8, 1024, 1e-6, 1e9), dict(ports=1)),
        "bruck_index_cost": ((8, 1024), dict(radix=2, ports=1)),
        "bruck_index_schedule": ((8, 64), dict(radix=2, ports=1)),
        "circulant_index_schedule": ((12, 144, (1, 2, 4, 7)), {}),
        "halving_doubling_schedule": ((8, 64), dict(order="near")),
        "hierarchical_schedule": (("hierarchical_ring", two, 64), dict(chunks=None)),
        "hierarchical_terms": (("hierarchical_ring", 2, 4, 1024.0), dict(chunks=None)),
        "in_network_bound": (
            (prim, 8, 1024, 1e-6, 1e9),
            dict(ports=1, degree=None, cut_links=None, switch_throughput=None),
        ),
        "pat_aggregation": ((8,), {}),
        "pat_messages": (("all_gather", 8), dict(aggregation=None)),
        "pat_operations": (("all_gather", 8), dict(aggregation=None)),
        "pat_schedule": (("all_gather", 8, 64), dict(aggregation=None)),
        "pat_terms": (("all_gather", 8, 1024), dict(aggregation=None)),
        "plot_tradeoff": ((), dict(n=16, ports=1, ax=None)),
        "plot_two_level_map": ((two_map,), dict(annotate=True, axes=None)),
        "round_profile": (("ring", two), dict(chunks=None)),
        "routed_loads": ((ring_schedule8, ccb.torus(2, 4)), {}),
        "routed_lower_bound": ((prim, ccb.torus(2, 4), 1024, 1e-6, 1e9), {}),
        "routed_time": ((ring_schedule8, ccb.torus(2, 4), 1e-6, 1e9), {}),
        "swing_peer": ((1, 2, 8), {}),
        "swing_rho": ((3,), {}),
        "swing_schedule": ((8, 64), dict(dims=None, variant="bandwidth")),
        "swing_terms": ((8, 1024), dict(variant="bandwidth")),
        "two_level": ((2, 4), dict(nic="gpu", nvlink_links=1, nic_links=1)),
        "two_level_algorithm_time": (("hierarchical_ring", two, 1024.0, hardware), dict(chunks=None)),
        "two_level_hardware": ((), dict(gpu="h100_nvswitch", network="ib_ndr_8x400", network_alpha=None)),
        "two_level_lower_bound": ((prim, two, 1024.0, hardware), dict(ports=1)),
        "two_level_map": (
            ([1, 2], 4, [1024.0, 2.0**20], hardware),
            dict(nic="gpu", algorithms=("ring", "hierarchical_ring"), ports=1),
        ),
        "two_level_round_costs": ((two_run, two, hardware), {}),
        "two_level_time": ((two_run, two, hardware), {}),
        "two_level_times": ((two, 1024.0, hardware), dict(algorithms=("ring", "hierarchical_ring"), ports=1)),
        # the catalogue (#38): every N, pipelined rooted collectives, gamma, fat-tree AllReduce
        "computation_lower_bound": ((prim, 8, 1024, 1e-12), {}),
        "computation_table": ((), dict(preset_keys=("h100_nvswitch",), n=8, m=2.0**20)),
        "fat_tree_allreduce_table": ((), dict(n=8, oversubscriptions=(2,), m=1024, preset_key="ib_ndr")),
        "non_power_of_two_table": ((), dict(ns=(6,), sizes=(65536.0,), preset_key="a100_nvlink")),
        "one_port_tree_depth": ((8,), {}),
        "optimal_segments": (("pipelined_chain", "broadcast", 8, 2.0**20, 1e-6, 1e9), dict(ports=1, gamma=0.0)),
        "patarasuk_yuan": ((fat8, 64), {}),
        "pipeline_constants": (("pipelined_chain", 8), dict(ports=1)),
        "pipelined_algorithms": ((), dict(primitive=None)),
        "pipelined_rooted_table": (
            (),
            dict(n=8, m=2.0**20, preset_key="a100_nvlink", primitive="broadcast", gamma=0.0),
        ),
        "place": ((ring_schedule8, [7, 6, 5, 4, 3, 2, 1, 0]), {}),
        "tree_ring_order": ((fat8,), {}),
    }


def _public_functions() -> list[str]:
    return sorted(
        name
        for name in ccb._LAZY
        if callable(getattr(ccb, name)) and not inspect.isclass(getattr(ccb, name)) and not name.startswith("_")
    )


def _public_records() -> list[str]:
    """The facade's record classes: its dataclasses and NamedTuples (explorers and exceptions aside)."""
    import dataclasses

    return sorted(
        name
        for name in ccb._LAZY
        if inspect.isclass(getattr(ccb, name))
        and (dataclasses.is_dataclass(getattr(ccb, name)) or hasattr(getattr(ccb, name), "_fields"))
    )


def _record_baselines() -> dict:
    """``name -> ((), kwargs)``: a record's constructor called with the fields of a real instance."""
    import dataclasses

    log = ccb.read_published_log("dgx2_v100_all_reduce")
    schedule = ccb.generate("ring", "all_reduce", 4, 8)
    instances = {
        "AlphaBeta": ccb.fit_alpha_beta(log),
        "Cost": ccb.algorithm_terms("ring", "all_reduce", 8, 1024),
        "FrontierPoint": ccb.stored_frontier(ccb.dgx1(), "all_gather")[0],
        "HardwarePreset": ccb.preset("ib_ndr"),
        "LogPBroadcast": ccb.logp_broadcast(9, 1e-6, 2e-6, 3e-6),
        "TwoLevelCeiling": ccb.two_level_ceiling_terms("all_reduce", 16, 2, 1e9, node_beta=1e9),
        "NcclPrediction": ccb.nccl_predict("all_reduce", 8, 1, 1024),
        "NcclTestsLog": log,
        "NcclTestsRow": log.rows[0],
        "NcclTopology": ccb.NCCL_TOPOLOGIES["dgx_h100"],
        "NcclVsBound": ccb.nccl_vs_bound("all_reduce", 8, 1, 1024),
        "NvlsGraph": ccb.nvls_graph(8, 370.8e9),
        "PublishedLog": ccb.PUBLISHED_LOGS["dgx2_v100_all_reduce"],
        "Schedule": schedule,
        "SimulationResult": ccb.run_schedule(schedule),
        "Table": ccb.info_propagation_table(ns=(4,)),
        "Topology": ccb.ring(4),
        "Transfer": ccb.Transfer(0, 1, 0, 4, op="reduce", buffer="data", dst_offset=4, dst_buffer="data"),
        "Volume": ccb.forced_volume("all_reduce", 8, 1024),
        "InNetworkBound": ccb.in_network_bound("all_reduce", 8, 1024, 1e-6, 1e9),
        "RoundProfile": ccb.round_profile("ring", ccb.two_level(2, 2)),
        "RoutedLoads": ccb.routed_loads(schedule, ccb.ring(4)),
        "TwoLevelBound": ccb.two_level_lower_bound("all_reduce", ccb.two_level(2, 4), 1024.0, ccb.two_level_hardware()),
        "TwoLevelHardware": ccb.two_level_hardware(),
        "TwoLevelMap": ccb.two_level_map([1], 2, [1024.0], ccb.two_level_hardware(), algorithms=("ring",)),
        "TwoLevelTopology": ccb.two_level(2, 4),
    }
    baselines = {}
    for name, instance in instances.items():
        if dataclasses.is_dataclass(instance):
            fields = {f.name: getattr(instance, f.name) for f in dataclasses.fields(instance) if f.init}
        else:
            fields = instance._asdict()
        baselines[name] = ((), fields)
    return baselines


#: Findings left open on purpose: ``(function, parameter) -> the reason a user would accept``
#: (none at present). The test fails on any finding not listed here, and on an entry that no
#: longer fails (it is fixed: remove it).
KNOWN: dict[tuple[str, str], str] = {}


class _Timeout(BaseException):
    """Raised by SIGALRM in a call that runs too long (a BaseException: no ``except Exception`` in
    the library swallows it)."""


def _on_alarm(signum, frame):
    raise _Timeout


def _has_nan(value, depth=0) -> bool:
    """NaN anywhere in a returned number, array, tuple, list, dict or dataclass record (a wrong
    result, not an error)."""
    import dataclasses

    if depth > 4:
        return False
    if isinstance(value, float):
        return math.isnan(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_has_nan(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc" and bool(np.isnan(value).any())
    if isinstance(value, (list, tuple)):
        return any(_has_nan(v, depth + 1) for v in value[:1000])
    if isinstance(value, dict):
        return any(_has_nan(v, depth + 1) for v in list(value.values())[:1000])
    return False


def _variants(function, args, kwargs):
    """``(parameter, args, kwargs)`` for every parameter replaced by every hostile value."""
    signature = inspect.signature(function)
    bound = signature.bind(*args, **kwargs)
    parameters = list(signature.parameters.values())
    for position, parameter in enumerate(parameters):
        if parameter.kind == parameter.VAR_KEYWORD:
            continue
        if parameter.kind == parameter.VAR_POSITIONAL:
            for index in range(len(bound.arguments.get(parameter.name, ()))):
                for label, bad in HOSTILE.items():
                    new = list(args)
                    new[position + index] = bad
                    yield parameter.name, label, tuple(new), kwargs
            continue
        for label, bad in HOSTILE.items():
            if position < len(args) and parameter.kind != parameter.KEYWORD_ONLY:
                new = list(args)
                new[position] = bad
                yield parameter.name, label, tuple(new), kwargs
            else:
                yield parameter.name, label, args, {**kwargs, parameter.name: bad}


def _kind(value) -> str:
    """What a record's field holds, coarsely: a number, a bool, a string, an array of some
    dimension and dtype kind, a sequence, a mapping, or an instance of one class."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, np.ndarray):
        return f"{value.ndim}-d {'i' if value.dtype.kind in 'iu' else value.dtype.kind} array"
    if isinstance(value, (list, tuple)):
        return "sequence"
    if isinstance(value, dict):
        return "dict"
    return type(value).__name__


def _non_finite(value, depth=0) -> bool:
    """NaN or ±inf anywhere in a field's value."""
    if depth > 3:
        return False
    if isinstance(value, (float, np.floating)):
        return not math.isfinite(value)
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc" and not bool(np.isfinite(value).all())
    if isinstance(value, (list, tuple)):
        return any(_non_finite(v, depth + 1) for v in value[:1000])
    if isinstance(value, dict):
        return any(_non_finite(v, depth + 1) for v in list(value.values())[:1000])
    return False


#: Record fields where ``+inf`` is a documented value (NaN and ``-inf`` are still refused).
UNBOUNDED = {
    ("AlphaBeta", "beta"): "fit_alpha_beta: inf when the times do not grow with the size",
    ("NcclPrediction", "time"): "NCCL's model: inf for an algorithm / protocol with no bandwidth there",
}


def _record_problem(record, field, baseline) -> str | None:
    """What is wrong with a record that accepted a hostile value for ``field``: it holds NaN or
    ±inf where its real instance holds finite values, or a value of another kind than the real
    instance's (an array where a number belongs, a string for a count, a 2-d array for a 1-d one).
    ``None`` in the real instance (an optional field) takes any kind; a field a NamedTuple record
    declares as ``"real[]"`` / ``"int[]"`` (a record of a broadcast formula, e.g. ``Cost``:
    ``_validation.check_record``) takes numeric arrays of any shape too."""
    stored = getattr(record, field)
    unbounded = (type(record).__name__, field) in UNBOUNDED and isinstance(stored, float) and stored == math.inf
    if _non_finite(stored) and not _non_finite(baseline) and not unbounded:
        return "accepted a non-finite value"
    broadcast = getattr(type(record), "_field_kinds", {}).get(field, "").endswith("[]")
    if broadcast and isinstance(stored, np.ndarray) and stored.dtype.kind in "iuf":
        return None
    if baseline is not None and _kind(stored) != _kind(baseline):
        return f"accepted {_kind(stored)} where {_kind(baseline)} belongs"
    return None


def _call(function, args, kwargs):
    """The call's outcome: ``("ok", None)``, ``("error", exception)``."""
    result = function(*args, **kwargs)
    if inspect.isgenerator(result) or isinstance(result, itertools.islice):
        result = list(itertools.islice(result, 3))
    if _has_nan(result):
        return "nan", None
    return "ok", None


def scan(names) -> tuple[list[tuple], float]:
    """Findings ``(function, parameter, hostile label, what happened)`` and the CPU seconds spent."""
    import matplotlib.pyplot as plt

    baselines = _baselines() | _record_baselines()
    findings = []
    started = time.process_time()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        for name in names:
            function = getattr(ccb, name)
            args, kwargs = baselines[name]
            record = inspect.isclass(function)
            for parameter, label, new_args, new_kwargs in _variants(function, args, kwargs):
                outcome = None
                signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        if record:  # the instance is what the record holds: look at the field
                            outcome = _record_problem(function(**new_kwargs), parameter, kwargs[parameter])
                        else:
                            state, _ = _call(function, new_args, new_kwargs)
                            outcome = "returned NaN" if state == "nan" else None
                except _Timeout:
                    outcome = f"ran longer than {CALL_SECONDS:g} s"
                except (ValueError, TypeError) as error:
                    message = str(error)
                    if not re.search(rf"(?<!\w){re.escape(parameter)}(?!\w)", message):
                        outcome = f"{type(error).__name__} not naming {parameter!r}: {message[:160]}"
                except Exception as error:  # noqa: BLE001 - what the scan looks for
                    outcome = f"{type(error).__name__}: {str(error)[:160]}"
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                if outcome is not None:
                    findings.append((name, parameter, label, outcome))
                if plt.get_fignums():
                    plt.close("all")
    finally:
        signal.signal(signal.SIGALRM, previous)
    return findings, time.process_time() - started


def test_every_public_function_has_a_baseline_call():
    assert sorted(_baselines()) == _public_functions()
    assert sorted(_record_baselines()) == _public_records()


def test_baseline_calls_succeed():
    """The scan's reference calls are valid (so a refusal in the scan is the hostile value's doing)."""
    import matplotlib.pyplot as plt

    failed = {}
    for name, (args, kwargs) in (_baselines() | _record_baselines()).items():
        try:
            _call(getattr(ccb, name), args, kwargs)
        except Exception as error:  # noqa: BLE001 - listed below, all at once
            failed[name] = f"{type(error).__name__}: {error}"
        plt.close("all")
    assert not failed, failed


def test_hostile_arguments_are_refused_naming_the_parameter():
    findings, cpu = scan(_public_functions() + _public_records())
    open_ = [f for f in findings if (f[0], f[1]) not in KNOWN]
    report = "\n".join(f"{name}({parameter}={label}): {what}" for name, parameter, label, what in open_)
    assert not open_, f"{len(open_)} finding(s) ({cpu:.1f} CPU-s):\n{report}"
    stale = sorted(set(KNOWN) - {(f[0], f[1]) for f in findings})
    assert not stale, f"KNOWN entries that no longer fail (fixed: remove them): {stale}"


if __name__ == "__main__":  # python tests/test_facade_scan.py: every finding, KNOWN ones too, and the time
    all_findings, cpu_seconds = scan(_public_functions() + _public_records())
    for finding in all_findings:
        print(*finding, sep=" | ")
    print(f"{len(all_findings)} findings, {cpu_seconds:.1f} CPU-s")
