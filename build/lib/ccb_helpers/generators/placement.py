"""Where the chapter-9 algorithms run: the topologies each accepts, and the two-level dispatch.

``ccb.simulate(name, primitive, n, m, topology=T)`` asks here first:

* ``hierarchical_ring`` / ``two_level_tree`` on a :func:`ccb_helpers.two_level` topology take its
  node shape (:func:`ccb_helpers.generators.hierarchical.hierarchical_schedule`); elsewhere they
  run their one-GPU-per-node case (the registry's flat generators);
* ``pat`` runs one GPU per node, as NCCL enables it (``nNodes == nRanks`` in
  ``src/graph/tuning.cc``): a two-level topology with several GPUs per node is refused;
* ``swing``, ``pat`` and ``two_level_tree`` talk to ranks that are not neighbours on a ring,
  torus, mesh or hypercube; the simulator runs direct networks store-and-forward (a message goes
  to a neighbour), so it refuses them there and points to :func:`ccb_helpers.routed_time`,
  the routed model Swing is designed for.
"""

from __future__ import annotations

from .hierarchical import HIERARCHICAL_ALGORITHMS, hierarchical_schedule

#: Algorithms whose partners are not neighbours on a ring / torus / mesh / hypercube.
_FAR_PARTNERS = ("swing", "pat", "two_level_tree")


def check_placement(algorithm: str, topology) -> None:
    """Raise ValueError when ``algorithm`` cannot run on ``topology`` (see the module docstring)."""
    if topology is None:
        return
    from ..two_level_network import TwoLevelTopology  # a topology is loaded already (networkx with it)

    if algorithm == "pat" and isinstance(topology, TwoLevelTopology) and topology.gpus_per_node > 1:
        raise ValueError(
            f"pat runs one GPU per node (by default NCCL enables PAT only when nNodes == nRanks); {topology.name} has "
            f"{topology.gpus_per_node} GPUs per node: use ccb.two_level(nodes, 1) or a switch"
        )
    if algorithm in _FAR_PARTNERS and not topology.switched and topology.family != "fully_connected":
        raise ValueError(
            f"{algorithm} sends to ranks that are not neighbours on {topology.name}; the simulator runs direct "
            "networks store-and-forward (one hop per round). Run it without a topology and time it with "
            "ccb.routed_time(result.schedule, topology, alpha, beta), the routed model of tori (chapter 9)"
        )


def placed_schedule(algorithm: str, primitive: str, m: int, topology, chunks):
    """The schedule of a hierarchical algorithm on a two-level topology, else ``None`` (flat path)."""
    check_placement(algorithm, topology)
    if topology is None:
        return None
    from ..two_level_network import TwoLevelTopology

    if algorithm in HIERARCHICAL_ALGORITHMS and isinstance(topology, TwoLevelTopology):
        if primitive != "all_reduce":
            raise ValueError(f"{algorithm} implements all_reduce only, got {primitive!r}")
        return hierarchical_schedule(algorithm, topology, m, chunks=chunks)
    return None
