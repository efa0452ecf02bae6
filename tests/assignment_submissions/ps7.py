"""Generated submissions of ps7 for tests/test_assignments.py: per part, the solution cell of a
realistic weak student (and the points its groups earn: the visible group plus each hidden group its mistake does not fail), of a student who calls the library, and of one who
hard-codes the visible cases."""

AUTOGRADED_POINTS = 20

PARTS = {"ps7-fastest": 3, "ps7-node": 3, "ps7-cut": 4, "ps7-ruled": 5, "ps7-hypercube": 5}

WRITTEN = ("ps7-proof", 8)

WEAK = {
    "ps7-fastest": "def fastest_point(points, n, m, alpha, beta):\n"
    "    def cost(point):\n"
    "        steps, rounds, chunks = point\n"
    "        return steps * alpha + rounds / chunks * (m / 8) / beta      # DGX-1's N = 8 left "
    "in\n"
    "    return min(range(len(points)), key=lambda i: (cost(points[i]), points[i][0], i))",
    "ps7-node": "from fractions import Fraction\n"
    "\n"
    "def node_rounds_bound(links, primitive):\n"
    "    n = len(links)\n"
    "    # counts neighbours, not links\n"
    "    return max(Fraction(n - 1, sum(1 for u in range(n) if links[u][v])) for v in range(n))",
    "ps7-cut": "from fractions import Fraction\n"
    "from itertools import combinations\n"
    "\n"
    "def rounds_per_chunk_bound(links, primitive):\n"
    "    n = len(links)\n"
    "    best = Fraction(0)\n"
    "    for size in (1, n // 2):                    # single nodes and balanced cuts only\n"
    "        for inside in combinations(range(n), size):\n"
    "            k = len(inside)\n"
    "            cap = sum(links[u][v] for v in inside for u in range(n) if u not in inside)\n"
    '            need = {"all_gather": n - k, "all_to_all": k * (n - k), "broadcast": 0 if 0 in '
    "inside else 1}[primitive]\n"
    "            if need:\n"
    "                best = max(best, Fraction(need, cap))\n"
    "    return best",
    "ps7-ruled": "from collections import deque\n"
    "from fractions import Fraction\n"
    "\n"
    "def ruled_out(links, primitive, steps, rounds, chunks):\n"
    "    n = len(links)\n"
    "\n"
    "    def distances(source):\n"
    "        seen = {source: 0}\n"
    "        queue = deque([source])\n"
    "        while queue:\n"
    "            u = queue.popleft()\n"
    "            for v in range(n):\n"
    "                if links[u][v] and v not in seen:\n"
    "                    seen[v] = seen[u] + 1\n"
    "                    queue.append(v)\n"
    "        return seen\n"
    "\n"
    '    if primitive == "broadcast":\n'
    "        step_bound = max(distances(0).values())\n"
    "    else:\n"
    "        step_bound = max(max(distances(v).values()) for v in range(n))\n"
    "    # forgets that every step takes at least one round\n"
    "    return steps < step_bound or Fraction(rounds, chunks) < rounds_per_chunk_bound(links, "
    "primitive)",
    "ps7-hypercube": "def hypercube_allgather(d):\n"
    "    n = 2 ** d\n"
    "    holding = {(v, c): {v} for v in range(n) for c in range(d)}\n"
    "    steps = []\n"
    "    for s in range(d):\n"
    "        moves = []\n"
    "        for c in range(d):\n"
    "            bit = 1 << ((c + s) % 3 if d == 3 else s)   # rotates only in the 3-cube of "
    "the book\n"
    "            for v in range(n):\n"
    "                moves += [(origin, c, v, v ^ bit) for origin in sorted(holding[(v, c)])]\n"
    "        for origin, c, src, dst in moves:\n"
    "            holding[(dst, c)] = holding[(dst, c)] | {origin}\n"
    "        steps.append(moves)\n"
    "    return steps",
}

# ps7-cut: its answer looks at single nodes and balanced cuts only, and every group has cases whose
# tightest set is neither (#40: the groups earned 3/2/2 points under three salts); ps7-ruled reuses
# that bound, so it also fails the group of R/C just below the cut bound.
WEAK_POINTS = {"ps7-fastest": 2, "ps7-node": 2, "ps7-cut": 0, "ps7-ruled": 3, "ps7-hypercube": 1}

WEAK_ANSWER = "一行的比值更大，因为一行的链路更少。Hypercube 的构造每步用所有维度，所以更快。"

LIBRARY = {
    "ps7-fastest": "def fastest_point(points, n, m, alpha, beta):\n"
    "    times = [ccb.synthesis_cost(s, r, c, m / n, alpha, beta) for s, r, c in points]\n"
    "    return times.index(min(times))",
    "ps7-node": "def node_rounds_bound(links, primitive):\n"
    "    return ccb.rounds_per_chunk_bound(ccb.topology_from_links(links), primitive)",
    "ps7-cut": "def rounds_per_chunk_bound(links, primitive):\n"
    "    return ccb.rounds_per_chunk_bound(ccb.topology_from_links(links), primitive)",
    "ps7-ruled": "def ruled_out(links, primitive, steps, rounds, chunks):\n"
    "    topology = ccb.topology_from_links(links)\n"
    "    return steps < ccb.steps_lower_bound(topology, primitive) or rounds / chunks < "
    "ccb.rounds_per_chunk_bound(topology, primitive)",
    "ps7-hypercube": "def hypercube_allgather(d):\n"
    '    schedule = ccb.synthesize(ccb.hypercube(d), "all_gather", steps=d, rounds=2**d - 1, '
    "chunks=d, time_limit=60)\n"
    "    return schedule.rounds",
}

HARDCODED = {
    "ps7-fastest": "def fastest_point(points, n, m, alpha, beta):\n    return {2**10: 0, 2**30: 1}.get(m, 0)",
    "ps7-node": "from fractions import Fraction\n\ndef node_rounds_bound(links, primitive):\n    return Fraction(3, 2)",
    "ps7-cut": "from fractions import Fraction\n"
    "\n"
    "def rounds_per_chunk_bound(links, primitive):\n"
    '    return {"all_to_all": Fraction(2), "broadcast": Fraction(1, 2)}.get(primitive, Fraction(1))',
    "ps7-ruled": "def ruled_out(links, primitive, steps, rounds, chunks):\n    return steps == 1",
    "ps7-hypercube": "def hypercube_allgather(d):\n"
    "    if d == 1:\n"
    "        return [[(0, 0, 0, 1), (1, 0, 1, 0)]]\n"
    "    if d == 2:\n"
    "        return [[(v, c, v, v ^ (1 << c)) for v in range(4) for c in range(2)],\n"
    "                [(o, c, v, v ^ (1 << (1 - c))) for v in range(4) for c in range(2) for o "
    "in (v, v ^ (1 << c))]]\n"
    "    return []",
}

# The course variant (CCB_GRADING_SALT at generate_assignment): answers written for the course's
# constants ({name} is filled with the course's value). The public solutions answer the default only.
VARIANT_ANSWERS = {
    "ps7-fastest": (
        "def fastest_point(points, n, m, alpha, beta):\n"
        "    header = {ps7-chunk-header}\n"
        "    def cost(point):\n"
        "        steps, rounds, chunks = point\n"
        "        return steps * alpha + rounds * (m / n / chunks + header) / beta\n"
        "    return min(range(len(points)), key=lambda i: (cost(points[i]), points[i][0], i))\n"
    ),
}

# Each hidden group named after a mistake contains cases where that mistake gives a wrong answer:
# (part, group label, an answer with exactly that mistake) (tests/test_assignments.py).
_RULED = """from collections import deque
from fractions import Fraction

def ruled_out(links, primitive, steps, rounds, chunks):
    n = len(links)
    def far(source):
        seen, queue = {source: 0}, deque([source])
        while queue:
            u = queue.popleft()
            for v in range(n):
                if links[u][v] and v not in seen:
                    seen[v] = seen[u] + 1
                    queue.append(v)
        return max(seen.values())
    def bound():
        best = Fraction(0)
        for mask in range(1, 2**n - 1):
            k = bin(mask).count("1")
            cap = sum(links[u][v] for v in range(n) if mask >> v & 1 for u in range(n) if not mask >> u & 1)
            need = {"all_gather": n - k, "all_to_all": k * (n - k), "broadcast": 0 if mask & 1 else 1}[primitive]
            if need:
                best = max(best, Fraction(need, cap))
        return best
    step_bound = STEP_BOUND
    return steps < step_bound or rounds < steps or Fraction(rounds, chunks) < bound()
"""
MUTANTS = [
    ("ps7-cut", "AllGather", WEAK["ps7-cut"]),
    ("ps7-cut", "AllToAll", WEAK["ps7-cut"]),
    ("ps7-cut", "Broadcast（root 0）", WEAK["ps7-cut"]),
    (
        "ps7-ruled",
        "root 不在图的中心（直径与 root 的离心率不同）",
        _RULED.replace("STEP_BOUND", "max(far(v) for v in range(n))   # the diameter for Broadcast too"),
    ),
    (
        "ps7-ruled",
        "root 不在图的中心（直径与 root 的离心率不同）",
        _RULED.replace("STEP_BOUND", "far(0)   # node 0's eccentricity for every primitive"),
    ),
]
