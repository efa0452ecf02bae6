"""Topologies with parallel links: constructors, the DGX-1, the nvidia-smi parser, and every function taking a Topology."""

import itertools
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import networkx as nx
import numpy as np
import pytest

import ccb_helpers as ccb
from ccb_helpers.user_topology import DGX1_LINKS, link_matrix

DATA = Path(__file__).parent / "data" / "nvidia_smi"


def brute_bisection(matrix):
    """Independent check: every split into floor(n/2) / ceil(n/2), links counted with multiplicity."""
    m = np.asarray(matrix)
    n = len(m)
    best = None
    for side in itertools.combinations(range(n), n // 2):
        inside = np.zeros(n, dtype=bool)
        inside[list(side)] = True
        cut = int(m[inside][:, ~inside].sum())
        best = cut if best is None else min(best, cut)
    return best


# --------------------------------------------------------------------------- DGX-1


def test_dgx1_matches_its_public_description():
    t = ccb.dgx1()
    m = link_matrix(t)
    # NVIDIA's whitepaper: every V100 has 6 NVLinks; SCCL: 16 adjacent pairs, 8 of them doubled.
    assert m.sum(axis=1).tolist() == [6] * 8
    pairs = [(i, j) for i in range(8) for j in range(i + 1, 8) if m[i, j]]
    assert len(pairs) == 16
    assert sum(1 for i, j in pairs if m[i, j] == 2) == 8
    # each quad is a complete graph; each GPU has exactly one link to the other quad, to its mirror
    for i in range(8):
        for j in range(8):
            if i != j and i // 4 == j // 4:
                assert m[i, j] >= 1
            elif i // 4 != j // 4:
                assert (m[i, j] > 0) == (j == (i + 4) % 8)
    assert (t.n, t.degree, t.diameter) == (8, 6, 2)
    # quad cut: 0-4 (2) + 1-5 (1) + 2-6 (2) + 3-7 (1) = 6, and no split cuts fewer (brute force)
    assert t.bisection_links == 6 == brute_bisection(DGX1_LINKS)


def test_dgx1_graph_and_functions_that_take_a_topology():
    t = ccb.dgx1()
    assert ccb.measured_diameter(t) == 2
    assert ccb.measured_bisection(t) == 6
    assert ccb.eccentricity(t, 0) == 2
    assert ccb.broadcast_steps(t, k=6) == 2  # all-port: flooding, the eccentricity
    assert ccb.broadcast_steps(t, k=1) == 3  # 1-port: ceil(log2 8) = 3, attained
    side = ccb.bisection_partition(t)
    assert len(side) == 4 and ccb.cut_links(t, side) == 6
    # per-node bound with p = min(k, d) = 6 NVLinks: (N-1) M / (N p beta)
    assert ccb.node_lower_bound("all_gather", t, 8 * 6, 1.0, ports=6) == pytest.approx(7.0)
    # bisection: ceil(8/2) M / 8 over 6 links
    assert ccb.bisection_lower_bound("all_gather", t, 48, 1.0) == pytest.approx(4 * 6 / 6)
    assert ccb.tighter_bound("all_to_all", t, 2**20, 1e9, ports=6) == "bisection"
    from ccb_helpers.diameter import binding_latency_term

    assert binding_latency_term(t, k=1) == "information"
    ax = ccb.draw_topology(t)
    assert "DGX-1" in ax.get_title()
    ax = ccb.draw_topology(t, side=side)
    assert "6 条链路" in ax.get_title()
    r = ccb.simulate(
        "ring",
        "all_gather",
        8,
        64,
        ports=1,
        topology=ccb.topology_from_links(np.roll(np.eye(8, dtype=int), 1, 1) + np.roll(np.eye(8, dtype=int), -1, 1)),
    )
    assert r.correct


def test_generated_ring_runs_on_the_dgx1_hamiltonian_cycle_only_where_links_exist():
    # ring order 0 1 2 ... 7 uses 3->4, not a DGX-1 link: the simulator refuses it
    with pytest.raises(ccb.ScheduleError, match="uses no link"):
        ccb.simulate("ring", "all_gather", 8, 64, topology=ccb.dgx1())


# --------------------------------------------------------------------------- constructors


def test_topology_from_links_by_hand():
    # ring of 4 with link 0-1 doubled: degree 3 at nodes 0 and 1; cuts {0,1}|{2,3}: 1 + 1 = 2,
    # {0,3}|{1,2}: 2 + 1 = 3, {0,2}|{1,3}: 2+1+1+1 = 5 -> bisection 2; diameter 2
    t = ccb.topology_from_links([[0, 2, 0, 1], [2, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]], name="r4")
    assert (t.family, t.name, t.n, t.degree, t.diameter, t.bisection_links) == ("custom", "r4", 4, 3, 2, 2)
    assert t.graph.edges[0, 1]["links"] == 2 and str(t) == "r4"


@pytest.mark.parametrize(
    "family", [ccb.ring(7), ccb.torus(3, 4), ccb.hypercube(3), ccb.fully_connected(5), ccb.mesh(2, 3)]
)
def test_from_graph_reproduces_the_closed_forms(family):
    t = ccb.topology_from_graph(family.graph)
    assert (t.n, t.degree, t.diameter, t.bisection_links) == (
        family.n,
        family.degree,
        family.diameter,
        family.bisection_links,
    )
    u = ccb.topology_from_links(nx.to_numpy_array(family.graph, nodelist=range(family.n), dtype=int))
    assert (u.degree, u.diameter, u.bisection_links) == (family.degree, family.diameter, family.bisection_links)


def test_multigraph_and_links_attribute_agree():
    mg = nx.MultiGraph([("a", "b"), ("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")])
    g = nx.Graph()
    g.add_edge("a", "b", links=2)
    g.add_edges_from([("b", "c"), ("c", "d"), ("d", "a")])
    a, b = ccb.topology_from_graph(mg), ccb.topology_from_graph(g)
    assert (
        link_matrix(a).tolist() == link_matrix(b).tolist() == [[0, 2, 0, 1], [2, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]
    )
    assert a.graph.nodes[0]["label"] == "a"


def test_from_graph_with_a_switch():
    g = nx.Graph()
    g.add_node("sw", kind="switch")
    for v in range(6):
        g.add_edge(v, "sw", links=2)
    t = ccb.topology_from_graph(g)
    assert t.switched and t.step_diameter == 1 and t.diameter == 2
    assert t.degree == 2 and t.bisection_links == 6  # three endpoints' 2 links each
    assert ccb.measured_bisection(t) == 6


def test_bisection_of_an_irregular_graph_does_not_assume_symmetry():
    # K4 plus a leaf on node 0 (issue #14 item 13): best split {0, leaf} | {1,2,3} cuts 3 links
    g = nx.complete_graph(4)
    g.add_edge(0, 4)
    t = ccb.topology_from_graph(g)
    assert t.bisection_links == brute_bisection(nx.to_numpy_array(g, dtype=int)) == 3


@pytest.mark.parametrize(
    "matrix, message",
    [
        ([[0, 1], [2, 0]], "symmetric"),
        ([[0, -1], [-1, 0]], ">= 0"),
        ([[1, 1], [1, 0]], "diagonal"),
        ([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]], "disconnected"),
        ([[0, 1, 1], [1, 0, 1]], "square"),
        ([[0, 0.5], [0.5, 0]], "integers"),
        ([[0]], "2 <= n"),
    ],
)
def test_bad_link_matrices(matrix, message):
    with pytest.raises(ValueError, match=message):
        ccb.topology_from_links(matrix)


def test_bad_graphs():
    with pytest.raises(TypeError):
        ccb.topology_from_graph([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="undirected"):
        ccb.topology_from_graph(nx.DiGraph([(0, 1), (1, 0)]))
    with pytest.raises(ValueError, match="self-loop"):
        ccb.topology_from_graph(nx.Graph([(0, 0), (0, 1)]))
    with pytest.raises(ValueError, match="disconnected"):
        ccb.topology_from_graph(nx.Graph([(0, 1), (2, 3)]))
    g = nx.Graph()
    g.add_edge(0, 1, links=0)
    with pytest.raises(ValueError, match="positive integer"):
        ccb.topology_from_graph(g)


def test_bisection_cap_is_checked_before_searching():
    with pytest.raises(ValueError, match="bisection_links"):
        ccb.topology_from_graph(nx.cycle_graph(24))
    t = ccb.topology_from_graph(nx.cycle_graph(24), bisection_links=2)
    assert t.bisection_links == 2 and t.diameter == 12


# --------------------------------------------------------------------------- nvidia-smi topo -m


def test_parse_real_dgx1_output_is_the_dgx1_up_to_renumbering():
    t = ccb.parse_nvidia_smi_topo((DATA / "dgx1_v100_oneflow.txt").read_text())
    m = link_matrix(t)
    # read off the published matrix by hand: GPU0 row is X NV1 NV1 NV2 NV2 SYS SYS SYS
    assert m[0].tolist() == [0, 1, 1, 2, 2, 0, 0, 0]
    assert m.sum(axis=1).tolist() == [6] * 8
    assert not t.switched and (t.degree, t.diameter, t.bisection_links) == (6, 2, 6)
    assert nx.is_isomorphic(t.graph, ccb.dgx1().graph, edge_match=lambda a, b: a["links"] == b["links"])


@pytest.mark.parametrize("file, links", [("a100_p4d_24xlarge.txt", 12), ("h100_p5_48xlarge.txt", 18)])
def test_parse_real_nvswitch_outputs(file, links):
    t = ccb.parse_nvidia_smi_topo((DATA / file).read_text())
    # NV12 / NV18 to all 7 peers would be 84 / 126 links per GPU: it is the switch fabric
    assert t.switched and t.n == 8 and t.degree == links
    assert t.step_diameter == 1 and t.bisection_links == 4 * links
    direct = ccb.parse_nvidia_smi_topo((DATA / file).read_text(), nvswitch=False)
    assert not direct.switched and direct.degree == 7 * links


def test_parse_small_direct_mesh_and_errors():
    text = "\tGPU0\tGPU1\tGPU2\tGPU3\nGPU0\t X \tNV4\tNV4\tNV4\nGPU1\tNV4\t X \tNV4\tNV4\nGPU2\tNV4\tNV4\t X \tNV4\nGPU3\tNV4\tNV4\tNV4\t X \n"
    t = ccb.parse_nvidia_smi_topo(text)  # 3 x 4 = 12 links per GPU: a real direct mesh (HGX A100 4-GPU)
    assert not t.switched and t.degree == 12
    with pytest.raises(ValueError, match="header"):
        ccb.parse_nvidia_smi_topo("nothing here")
    with pytest.raises(ValueError, match="unknown cell"):
        ccb.parse_nvidia_smi_topo(text.replace("NV4", "FOO", 1))
    # Two GPUs on two sockets, no NVLink (before #26: refused): each GPU's PCIe link to the SYS vertex.
    two = ccb.parse_nvidia_smi_topo("\tGPU0\tGPU1\nGPU0\t X \tSYS\nGPU1\tSYS\t X \n")
    assert (two.switched, two.degree, two.diameter, two.bisection_links) == (True, 1, 2, 1)
    with pytest.raises(ValueError, match="missing"):
        ccb.parse_nvidia_smi_topo("\tGPU0\tGPU1\nGPU0\t X \tNV1\n")
    with pytest.raises(TypeError):
        ccb.parse_nvidia_smi_topo(b"bytes")


# --------------------------------------------------------------------------- review: real-world text and caps


def test_parse_header_underlined_with_terminal_escapes():
    # Recent drivers print the header as "\t ESC[4m GPU0\tGPU1 ... ESC[0m" (underlined), also when
    # piped; the published DGX-1 sample with that header must read exactly as without it.
    plain = (DATA / "dgx1_v100_oneflow.txt").read_text()
    lines = plain.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split() and line.split()[0] == "GPU0")
    lines[header] = "\t\x1b[4m" + "\t".join(lines[header].split()) + "\x1b[0m"
    underlined = ccb.parse_nvidia_smi_topo("\n".join(lines))
    assert link_matrix(underlined).tolist() == link_matrix(ccb.parse_nvidia_smi_topo(plain)).tolist()


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda t: t.replace(
                "GPU3    NV2     NV1     NV2      X      SYS     SYS     SYS     NV1     PIX     0-11,24-35",
                "GPU3    NV2     NV1",
            ),
            r"line 5 \('GPU3 .*has 2 cells for 8 GPU columns \(truncated",
        ),
        (
            lambda t: t.replace(
                "\nGPU3 ", "\nGPU2    NV1     NV2      X      NV2     SYS     SYS     NV1     SYS\nGPU3 ", 1
            ),
            r"line \d+ .*GPU2 appears twice \(first on line 4\)",
        ),
        (
            lambda t: t.replace("GPU5    SYS     NV2", "GPU9    SYS     NV2"),
            r"line 7 .*GPU9 but the header has only GPU0 .. GPU7",
        ),
        (lambda t: t.replace("GPU1    NV1      X", "GPU1    NV1     NV1"), r"line 3 .*should be 'X' on the diagonal"),
        (lambda t: t.replace("GPU4    NV2     SYS", "GPU4    NV2     SY5"), r"line 6 .*unknown cell 'SY5'"),
        (lambda t: "\n".join(t.splitlines()[:4]), r"row GPU3 is missing"),
        (lambda t: "\tGPU0\tCPU Affinity\nGPU0\t X \t0-11\n", r"at least 2 GPUs"),
    ],
)
def test_parse_errors_name_the_line(edit, message):
    text = (DATA / "dgx1_v100_oneflow.txt").read_text()
    with pytest.raises(ValueError, match=message):
        ccb.parse_nvidia_smi_topo(edit(text))


@pytest.mark.parametrize(
    "matrix, message",
    [
        ([[0, np.nan], [np.nan, 0]], "integers"),
        ([[0, np.inf], [np.inf, 0]], "integers"),
        ([[0, 1e300], [1e300, 0]], "integers"),
        ([[False, True], [True, False]], "integers"),
        ([[0, 10**30], [10**30, 0]], "integers"),
        ([[0, 2**62], [2**62, 0]], "<= 1024"),
        ([[0, 1025], [1025, 0]], r"matrix\[0\]\[1\] = 1025"),
        ([["0", "1"], ["1", "0"]], "integers"),
    ],
)
def test_malformed_and_huge_link_counts(matrix, message):
    with pytest.raises(ValueError, match=message):
        ccb.topology_from_links(matrix)


def test_work_caps_refuse_before_building():
    import time

    dense = np.ones((1024, 1024), dtype=np.int64) - np.eye(1024, dtype=np.int64)
    start = time.process_time()  # the work done, on this process's CPU clock: a busy machine does not add to it
    with pytest.raises(ValueError, match=r"BFS steps, cap"):
        ccb.topology_from_links(dense, bisection_links=1)
    assert time.process_time() - start < 5  # refused from the estimate, not after minutes of BFS
    g = nx.MultiGraph([(0, 1)] * 1025)
    with pytest.raises(ValueError, match="at most 1024 per pair"):
        ccb.topology_from_graph(g)


# --------------------------------------------------------------------------- #26: PCIe boxes, NVLink bridges, rocm-smi

# NVIDIA/nccl-tests#307 (revoer, 2025-05-09): 8 x RTX 4090, no NVLink, four GPUs behind one PCIe switch per
# CPU socket, SYS between the sockets; a NIC column, as printed (tabs).
RTX4090_TOPO = """\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tPIX\tPIX\tPIX\tSYS\tSYS\tSYS\tSYS\tPIX\t0-35,72-107\t0\t\tN/A
GPU1\tPIX\t X \tPIX\tPIX\tSYS\tSYS\tSYS\tSYS\tPIX\t0-35,72-107\t0\t\tN/A
GPU2\tPIX\tPIX\t X \tPIX\tSYS\tSYS\tSYS\tSYS\tPIX\t0-35,72-107\t0\t\tN/A
GPU3\tPIX\tPIX\tPIX\t X \tSYS\tSYS\tSYS\tSYS\tPIX\t0-35,72-107\t0\t\tN/A
GPU4\tSYS\tSYS\tSYS\tSYS\t X \tPIX\tPIX\tPIX\tSYS\t36-71,108-143\t1\t\tN/A
GPU5\tSYS\tSYS\tSYS\tSYS\tPIX\t X \tPIX\tPIX\tSYS\t36-71,108-143\t1\t\tN/A
GPU6\tSYS\tSYS\tSYS\tSYS\tPIX\tPIX\t X \tPIX\tSYS\t36-71,108-143\t1\t\tN/A
GPU7\tSYS\tSYS\tSYS\tSYS\tPIX\tPIX\tPIX\t X \tSYS\t36-71,108-143\t1\t\tN/A
NIC0\tPIX\tPIX\tPIX\tPIX\tSYS\tSYS\tSYS\tSYS\t X

Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
"""


def test_pcie_only_box_is_a_switch_tree():
    t = ccb.parse_nvidia_smi_topo(RTX4090_TOPO)
    g = t.graph
    # GPUs 0-3 under one PCIe switch, 4-7 under another, the two switches joined at SYS by their x16 uplinks.
    switches = sorted((v for v, kind in g.nodes(data="kind") if kind == "switch"), key=str)
    assert switches == [("PIX", 0), ("PIX", 1), ("SYS", 0)]
    assert set(g.neighbors(("PIX", 0))) == {0, 1, 2, 3, ("SYS", 0)}
    # Hand-derived: every GPU has 1 link (its x16); GPU0 -> PIX -> SYS -> PIX -> GPU4 is 4 hops; a 4|4 split
    # cuts one switch uplink (1 link): the whole box shares 31.5 GB/s (Gen4) across the sockets.
    assert (t.switched, t.degree, t.diameter, t.bisection_links) == (True, 1, 4, 1)
    assert t.name == "nvidia-smi: 8 GPUs (PCIe)"
    wider = ccb.parse_nvidia_smi_topo(RTX4090_TOPO, level_links={"PIX": 2})
    assert wider.bisection_links == 2
    with pytest.raises(ValueError, match="level_links: unknown level 'SYS'"):
        ccb.parse_nvidia_smi_topo(RTX4090_TOPO, level_links={"SYS": 2})
    with pytest.raises(ValueError, match="pcie_links must be >= 1"):
        ccb.parse_nvidia_smi_topo(RTX4090_TOPO, pcie_links=0)


def test_nvlink_bridge_pairs_join_through_pcie():
    # Constructed from the same print format: four GPUs, NVLink bridges (NV4) on 0-1 and 2-3, PHB otherwise
    # (one host bridge). The bridges alone leave two islands; the PCIe tree joins them.
    text = (
        "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\n"
        "GPU0\t X \tNV4\tPHB\tPHB\t0-15\nGPU1\tNV4\t X \tPHB\tPHB\t0-15\n"
        "GPU2\tPHB\tPHB\t X \tNV4\t0-15\nGPU3\tPHB\tPHB\tNV4\t X \t0-15\n"
    )
    t = ccb.parse_nvidia_smi_topo(text, pcie_links=2)  # a PCIe x16 link ~ 2 NVLink bridge links of the unit
    g = t.graph
    assert g[0][1]["links"] == 4 and g[0][("PHB", 0)]["links"] == 2
    # Degree: 4 NVLinks + 2 PCIe links = 6; GPU0 -> PHB -> GPU2 is 2 hops; the 2|2 split {0,1}|{2,3}
    # cuts 2 + 2 PCIe links (the host bridge sits on one side) = 4; splitting a bridged pair costs more.
    assert (t.degree, t.diameter, t.bisection_links) == (6, 2, 4)
    assert t.name == "nvidia-smi: 4 GPUs (NVLink bridges + PCIe)"


# ROCm/rocm_smi_lib#108 (vitduck, 2022-05-20): 4 AMD GPUs on PCIe only, every pair 3 hops (through both sockets);
# the original's trailing spaces dropped (the reader splits on whitespace).
ROCM_PCIE = """======================= ROCm System Management Interface =======================
=========================== Weight between two GPUs ============================
       GPU0         GPU1         GPU2         GPU3
GPU0   0            52           52           52
GPU1   52           0            52           52
GPU2   52           52           0            52
GPU3   52           52           52           0

============================ Hops between two GPUs =============================
       GPU0         GPU1         GPU2         GPU3
GPU0   0            3            3            3
GPU1   3            0            3            3
GPU2   3            3            0            3
GPU3   3            3            3            0

========================== Link Type between two GPUs ==========================
       GPU0         GPU1         GPU2         GPU3
GPU0   0            PCIE         PCIE         PCIE
GPU1   PCIE         0            PCIE         PCIE
GPU2   PCIE         PCIE         0            PCIE
GPU3   PCIE         PCIE         PCIE         0

================================== Numa Nodes ==================================
"""


def test_rocm_smi_showtopo_is_read_or_refused_by_name():
    t = ccb.parse_rocm_smi_topo(ROCM_PCIE)
    # All pairs 3 hops (SYS): four GPUs on one SYS vertex, 1 link each; a 2|2 split cuts 2 links.
    assert (t.switched, t.degree, t.diameter, t.bisection_links, t.n) == (True, 1, 2, 2, 4)
    # An MI300X hive: XGMI with weight 15 between every pair: 8 GPUs fully connected, one link per pair.
    hive = ROCM_PCIE.replace("52", "15").replace(" 3 ", " 1 ").replace("PCIE", "XGMI")
    mesh = ccb.parse_rocm_smi_topo(hive)
    assert (mesh.switched, mesh.degree, mesh.diameter) == (False, 3, 1)
    assert ccb.link_matrix(mesh).tolist()[1] == [1, 0, 1, 1]
    # XGMI reached through another GPU (weight 30) is not a link of its own.
    routed = hive.replace("GPU0   0            15", "GPU0   0            30").replace(
        "GPU1   15           0", "GPU1   30           0"
    )
    assert ccb.link_matrix(ccb.parse_rocm_smi_topo(routed)).tolist()[0] == [0, 0, 1, 1]
    # Each reader names the other when handed the wrong tool's output.
    with pytest.raises(
        ValueError, match=r"rocm-smi output \(AMD GPUs\), not nvidia-smi's: read it with ccb.parse_rocm_smi_topo"
    ):
        ccb.parse_nvidia_smi_topo(ROCM_PCIE)
    with pytest.raises(ValueError, match="this is nvidia-smi output"):
        ccb.parse_rocm_smi_topo(RTX4090_TOPO)
    with pytest.raises(ValueError, match="expected XGMI or PCIE"):
        ccb.parse_rocm_smi_topo(ROCM_PCIE.replace("GPU1   PCIE", "GPU1   QPI"))


def test_synthesized_schedule_run_without_ports_says_which_call():
    # Before #26: "node 0 sends to 4 nodes but ports=1" and nothing about the call that works.
    # Now the schedule carries its topology and runs as it is; one stripped of it still says
    # which call to use.
    import dataclasses

    t = ccb.dgx1()
    schedule = ccb.stored_schedule(t, "all_gather", 2, 2)
    assert ccb.run_schedule(schedule).correct
    bare = dataclasses.replace(schedule, topology=None)
    with pytest.raises(ccb.ScheduleError, match=r"ports=1.*run it with ccb.verify_synthesized\(schedule, topology\)"):
        ccb.run_schedule(bare)
    assert ccb.verify_synthesized(bare, t).correct


# --------------------------------------------------------------------------- #28: the bisection's work, refused first


def _no_work(monkeypatch):
    """Make building the graph, its diameter's BFS and the max-flow search fail the test if reached."""
    import ccb_helpers.smi.nvidia
    import ccb_helpers.smi.pcie
    import ccb_helpers.smi.rocm
    import ccb_helpers.user_topology as ut

    def reached(*args, **kwargs):
        raise AssertionError("the work started before the refusal")

    # Every module that holds the name (the smi parsers import the constructors' helpers).
    for module in (ut, ccb_helpers.smi.nvidia, ccb_helpers.smi.rocm, ccb_helpers.smi.pcie):
        for name in ("_build", "_pcie_tree", "_switched_bisection"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, reached)


def test_switched_bisection_work_is_refused_before_anything_is_built(monkeypatch):
    import ccb_helpers.user_topology as ut

    # Before #28: 12 endpoints under a ring of 1268 switches (the most vertices accepted) ran
    # 462 max-flows over 1280 vertices + 1280 pairs, 23 s, with no cap.
    g = nx.cycle_graph([("s", s) for s in range(ut.MAX_ENDPOINTS + 256 - 12)])
    nx.set_node_attributes(g, "switch", "kind")
    for v in range(12):
        g.add_edge(v, ("s", 100 * v))
    _no_work(monkeypatch)
    with pytest.raises(
        ValueError, match=r"^graph: .* 462 splits x 2560 vertices .* at most 131,072: pass bisection_links"
    ):
        ccb.topology_from_graph(g)
    # The cap is on splits x (vertices + adjacent pairs): 12 endpoints each linked to 20 switches
    # (12 + 20 vertices, 240 pairs: 462 x 272 = 125,664 units) pass; one switch more does not.
    assert math.comb(11, 5) == 462 and ut._switched_splits(12) == 462 and ut._switched_splits(11) == 210 + 252
    ut._check_bisection(12, True, False, 32, 240, "graph")
    with pytest.raises(ValueError, match=r"462 splits x 285 vertices \+ adjacent pairs = 131,670 units"):
        ut._check_bisection(12, True, False, 33, 252, "graph")
    ut._check_bisection(13, True, True, 14, 13, "graph")  # a single-switch star is counted in closed form


def test_switched_bisection_near_the_work_cap_is_measured():
    # Four switches each linked to 12 endpoints by 2 links (462 x 64 units): every switch cuts
    # 2 links to each of the 6 endpoints on the other side, wherever it sits: 4 x 6 x 2 = 48.
    g = nx.Graph()
    for s in range(4):
        g.add_node(("s", s), kind="switch")
        g.add_edges_from(((v, ("s", s)) for v in range(12)), links=2)
    assert ccb.topology_from_graph(g).bisection_links == 48


def _smi_pairs_text(n):
    """nvidia-smi text of ``n`` GPUs: PIX within pairs (2i, 2i+1), NODE otherwise."""
    head = "      " + " ".join(f"GPU{j}" for j in range(n))
    rows = [
        f"GPU{i} " + " ".join("X" if i == j else "PIX" if i // 2 == j // 2 else "NODE" for j in range(n))
        for i in range(n)
    ]
    return "\n".join([head, *rows])


def test_smi_parsers_refuse_a_large_pcie_tree_before_building_it(monkeypatch):
    # Before #28 the refusal came after the PCIe tree and its diameter's BFS (1.1 s at the text cap).
    text = _smi_pairs_text(440)  # the most GPUs of this shape within the 10**6-character cap
    assert 950_000 < len(text) <= 10**6
    # Hand-derived below the limit: 12 GPUs, 6 PIX switches under one NODE vertex (1-link uplinks);
    # a 6 | 6 split with three pairs a side cuts 3 uplinks, splitting a pair costs more.
    small = ccb.parse_nvidia_smi_topo(_smi_pairs_text(12))
    assert (small.switched, small.n, small.diameter, small.bisection_links) == (True, 12, 4, 3)
    n = 240  # three characters a cell more than nvidia-smi's: fewer GPUs within the cap
    rocm_rows = "\n".join(f"GPU{i} " + " ".join("0" if i == j else "PCIE" for j in range(n)) for i in range(n))
    hops_rows = "\n".join(
        f"GPU{i} " + " ".join("0" if i == j else "2" if i // 2 == j // 2 else "3" for j in range(n)) for i in range(n)
    )
    head = "       " + " ".join(f"GPU{j}" for j in range(n))
    rocm = (
        f"=== Hops between two GPUs ===\n{head}\n{hops_rows}\n=== Link Type between two GPUs ===\n{head}\n{rocm_rows}"
    )
    assert len(rocm) <= 10**6
    _no_work(monkeypatch)
    with pytest.raises(ValueError, match=r"^text: .* n <= 12 endpoints unless one switch joins them all; got n=440"):
        ccb.parse_nvidia_smi_topo(text)
    with pytest.raises(ValueError, match=r"^text: .* got n=240: build the topology with ccb.topology_from_graph"):
        ccb.parse_rocm_smi_topo(rocm)


def test_pcie_star_is_read_from_the_levels_as_the_tree_would_build_it():
    import random

    import ccb_helpers.smi.pcie as ut

    rng = random.Random(5)
    stars = 0
    for _ in range(300):
        n = rng.randint(2, 7)
        choices = rng.sample(ut._LEVEL_ORDER, rng.randint(1, 3))
        levels = {}
        for i, j in itertools.combinations(range(n), 2):
            levels[(i, j)] = levels[(j, i)] = rng.choice(choices)
        tree = ut._pcie_tree(n, levels, 1, dict(ut.PCIE_LEVEL_LINKS))
        star = sum(1 for _, kind in tree.nodes(data="kind") if kind == "switch") == 1
        stars += star
        assert ut._pcie_is_star(n, levels) == star, levels
    assert 30 < stars < 270  # both kinds were tried
