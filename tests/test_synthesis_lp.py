"""The LP bound on two-step schedules (ccb_helpers.synthesis_lp), checked against the solver.

Expected values: the cut bound worked out by hand where the LP meets it (a ring of 4: a node needs
3 pieces through 2 links, 3/2), the SCCL paper's DGX-1 two-step point (Cai et al., PPoPP 2021:
AllGather (2, 3, 2), R/C = 3/2) and, for validity, the CP-SAT solver's smallest R for every small C:
no schedule the solver finds may beat the LP ("nothing beats the bound").
"""

from fractions import Fraction

import networkx as nx
import pytest

import ccb_helpers as ccb


def test_dgx1_two_steps_need_three_halves_for_every_chunk_count():
    dgx1 = ccb.dgx1()
    bound = ccb.two_step_rounds_per_chunk(dgx1)
    assert bound == Fraction(3, 2)  # the paper's two-step frontier point
    # attained: the stored (2, 3, 2) schedule runs correctly in the simulator
    schedule = ccb.stored_schedule(dgx1, "all_gather", steps=2, chunks=2)
    assert ccb.verify_synthesized(schedule, dgx1).correct and Fraction(sum(schedule.step_rounds), 2) == bound
    # above the cut bound 7/6, which only a third step reaches
    assert ccb.rounds_per_chunk_bound(dgx1, "all_gather") == Fraction(7, 6) < bound


def test_ring_of_four_meets_the_cut_bound():
    # A node of a 4-ring needs 3 foreign pieces through its 2 links: 3/2, reached in two steps.
    assert ccb.two_step_rounds_per_chunk(ccb.ring(4)) == Fraction(3, 2)


SMALL = {
    "ring 4": ccb.ring(4),
    "ring 5": ccb.ring(5),
    "star of 4 leaves": ccb.topology_from_graph(nx.star_graph(4), name="star of 4 leaves"),
    "K4 minus an edge": ccb.topology_from_graph(
        nx.Graph([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)]), name="K4 minus an edge"
    ),
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_no_two_step_schedule_beats_the_lp(name):
    topology = SMALL[name]
    bound = ccb.two_step_rounds_per_chunk(topology)
    best = None
    for chunks in (1, 2, 3):
        for rounds in range(2, 4 * chunks * topology.n + 1):  # the fewest rounds the solver can schedule
            if ccb.synthesize(topology, "all_gather", 2, rounds, chunks, time_limit=60) is not None:
                ratio = Fraction(rounds, chunks)
                assert ratio >= bound, (name, rounds, chunks)
                best = ratio if best is None else min(best, ratio)
                break
    # and the LP is not vacuous: it is at least the cut bound, at most what the solver achieves
    assert ccb.rounds_per_chunk_bound(topology, "all_gather") <= bound <= best


def test_broadcast_and_bad_input():
    dgx1 = ccb.dgx1()
    # Broadcast from GPU 0 in two steps: the LP gives R/C >= 1 for every C; the solver agrees where it
    # can look: it schedules (2, 2, 2) and proves (2, 5, 6) impossible.
    assert ccb.two_step_rounds_per_chunk(dgx1, "broadcast") == 1
    assert ccb.synthesize(dgx1, "broadcast", 2, 2, 2, time_limit=60) is not None
    assert ccb.synthesize(dgx1, "broadcast", 2, 5, 6, time_limit=60) is None
    with pytest.raises(ValueError, match="more than two hops"):
        ccb.two_step_rounds_per_chunk(ccb.ring(6))
    with pytest.raises(ValueError, match="unknown primitive 'all_to_all'"):
        ccb.two_step_rounds_per_chunk(dgx1, "all_to_all")
    with pytest.raises(ValueError, match="has switches"):
        ccb.two_step_rounds_per_chunk(ccb.single_switch(4))
    with pytest.raises(ValueError, match="root must be <= 7"):
        ccb.two_step_rounds_per_chunk(dgx1, "broadcast", root=8)
    with pytest.raises(TypeError, match="topology must be a Topology"):
        ccb.two_step_rounds_per_chunk("dgx1")
