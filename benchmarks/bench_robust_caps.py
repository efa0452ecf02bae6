"""Issue #28: the time caps that replaced hangs, each as a ratio to a baseline of the same run.

1. The 1-port double binary tree on a grid with many distinct ``n``: ``algorithm_cost`` (grouped
   by n with one sort) against the former loop (a boolean mask over the whole grid per distinct n),
   re-implemented here as the baseline; both on the same cached trees.
2. ``synthesize(time_limit=T)``: the wall time of the whole call over ``T`` (1 = the limit holds;
   before #28 the limit started with the solver, after seconds of building the model).
3. A switched graph's bisection at ``MAX_SWITCHED_BISECTION_WORK`` (one max-flow per split):
   CPU time of the accepted graphs nearest the cap, five shapes of switches under 12 and 9
   endpoints, as a ratio to the cheapest shape of the same run (a clique of switches).
4. The smi parsers' refusal of a PCIe tree of 440 GPUs that is not one switch (the most of that
   shape within the 10**6-character cap), as a ratio to reading the same-size text of one PCIe
   switch (accepted: the text read, the star built and measured).

Run: ``python benchmarks/bench_robust_caps.py [dbt synthesis bisection smi]``. Nothing is asserted.
"""

from __future__ import annotations

import time

import numpy as np

import ccb_helpers as ccb
from _timing import best_of
from ccb_helpers.algorithms import _dbt_one_port_rounds


def _masked_rounds(n, chunks):
    """The loop before #28: one mask over the grid per distinct n."""
    out = np.empty(n.shape, dtype=np.int64)
    unique, inverse = np.unique(n, return_inverse=True)
    inverse = inverse.reshape(n.shape)
    for i, value in enumerate(unique.tolist()):
        where = inverse == i
        out[where] = _dbt_one_port_rounds(value, chunks[where])
    return out


def dbt_grid() -> None:
    rng = np.random.default_rng(0)
    for distinct, size in ((64, 10**5), (256, 10**5), (512, 4 * 10**5)):
        n = rng.choice(np.arange(2, 2 + distinct), size)
        chunks = rng.integers(1, 64, size)
        _dbt_one_port_rounds(n, chunks)  # fill the tree cache for both
        grouped = best_of(lambda n=n, chunks=chunks: _dbt_one_port_rounds(n, chunks), 3)
        masked = best_of(lambda n=n, chunks=chunks: _masked_rounds(n, chunks), 1)
        assert np.array_equal(_dbt_one_port_rounds(n, chunks), _masked_rounds(n, chunks))
        print(
            f"1-port DBT rounds, {distinct} distinct n x {size} elements: grouped {grouped * 1e3:.0f} ms, "
            f"masked (before) {masked * 1e3:.0f} ms, ratio {grouped / masked:.3f}"
        )


def synthesis_deadline() -> None:
    ccb.synthesize(ccb.ring(4), "all_gather", 2, 2, 1, time_limit=10)  # load OR-Tools once (not counted)
    cases = [
        (ccb.fully_connected(36), "all_gather", 1, 1, 1),
        (ccb.ring(100), "all_gather", 2, 2, 1),
        (ccb.torus(6, 6), "all_gather", 6, 6, 1),
        (ccb.torus(5, 5), "all_gather", 4, 8, 2),
    ]
    for limit in (0.05, 0.2, 1.0):
        for topology, primitive, s, r, c in cases:
            start = time.monotonic()
            try:
                ccb.synthesize(topology, primitive, s, r, c, time_limit=limit)
                outcome = "decided"
            except ccb.SynthesisTimeout:
                outcome = "timeout"
            took = time.monotonic() - start
            print(
                f"synthesize {topology.name} {primitive} S={s} R={r} C={c} time_limit={limit:g} s: {took:.2f} s "
                f"= {took / limit:.2f} x the limit ({outcome})"
            )


def switched_bisection() -> None:
    import math

    import networkx as nx

    from ccb_helpers import user_topology as ut

    def graph(shape: str, n: int, units: int) -> nx.Graph:
        elements = units // ut._switched_splits(n)  # vertices + adjacent pairs within the cap
        g = nx.Graph()
        if shape in ("ring", "chain"):
            s = (elements - 2 * n) // 2
            g.add_nodes_from((("s", i) for i in range(s)), kind="switch")
            g.add_edges_from((("s", i), ("s", i + 1)) for i in range(s - 1))
            if shape == "ring":
                g.add_edge(("s", s - 1), ("s", 0))
            g.add_edges_from((v, ("s", v * s // n)) for v in range(n))
        elif shape == "complete bipartite":  # every endpoint on every switch
            s = (elements - n) // (n + 1)
            g.add_nodes_from((("s", i) for i in range(s)), kind="switch")
            g.add_edges_from((v, ("s", i)) for v in range(n) for i in range(s))
        elif shape == "grid":
            a = math.isqrt((elements - 2 * n) // 3)
            g = nx.relabel_nodes(nx.grid_2d_graph(a, a), lambda x: ("s", x))
            nx.set_node_attributes(g, "switch", "kind")
            cells = list(g)
            g.add_edges_from((v, cells[v * len(cells) // n]) for v in range(n))
        else:  # clique of switches
            s = int((2 * (elements - 2 * n)) ** 0.5)
            g = nx.relabel_nodes(nx.complete_graph(s), lambda x: ("s", x))
            nx.set_node_attributes(g, "switch", "kind")
            g.add_edges_from((v, ("s", v % s)) for v in range(n))
        g.add_nodes_from(range(n), kind="endpoint")
        return g

    for n in (12, 9):  # 462 and 126 splits (fewer endpoints: graphs past the memory cap)
        times = {}
        for shape in ("clique", "complete bipartite", "grid", "chain", "ring"):
            target = ut.MAX_SWITCHED_BISECTION_WORK
            while True:  # the largest of this shape within the cap (the shapes round their sizes)
                g = graph(shape, n, target)
                units = ut._switched_splits(n) * (g.number_of_nodes() + g.number_of_edges())
                if units <= ut.MAX_SWITCHED_BISECTION_WORK:
                    break
                target = int(target * 0.98)
            start = time.process_time()
            ccb.topology_from_graph(g)
            times[shape] = (time.process_time() - start, units)
        base = times["clique"][0]
        for shape, (took, units) in times.items():
            print(
                f"switched bisection, {n} endpoints, {shape} of switches, {units:,} units: {took:.2f} CPU-s = "
                f"{took / base:.2f} x the clique, {took / units * 1e6:.1f} us a unit"
            )


def smi_refusal() -> None:
    def text(n, cell):
        head = "      " + " ".join(f"GPU{j}" for j in range(n))
        rows = [f"GPU{i} " + " ".join("X" if i == j else cell(i, j) for j in range(n)) for i in range(n)]
        return "\n".join([head, *rows])

    star = text(440, lambda i, j: "PIX")
    pairs = text(440, lambda i, j: "PIX" if i // 2 == j // 2 else "NODE")
    start = time.process_time()
    ccb.parse_nvidia_smi_topo(star)
    accepted = time.process_time() - start
    start = time.process_time()
    try:
        ccb.parse_nvidia_smi_topo(pairs)
    except ValueError:
        pass
    refused = time.process_time() - start
    print(
        f"nvidia-smi, 440 GPUs: one PCIe switch read in {accepted:.2f} CPU-s; pairs of GPUs under PCIe "
        f"switches refused in {refused:.2f} CPU-s = {refused / accepted:.2f} x"
    )


if __name__ == "__main__":
    import sys

    parts = {"dbt": dbt_grid, "synthesis": synthesis_deadline, "bisection": switched_bisection, "smi": smi_refusal}
    for name in sys.argv[1:] or parts:
        parts[name]()
