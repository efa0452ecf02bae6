"""Generated submissions of ps2 for tests/test_assignments.py: per part, the solution cell of a
realistic weak student (and the points its groups earn: the visible group plus each hidden group its mistake does not fail), of a student who calls the library, and of one who
hard-codes the visible cases."""

AUTOGRADED_POINTS = 19

PARTS = {"ps2-diameter": 3, "ps2-path": 3, "ps2-tworoots": 4, "ps2-bfs": 4, "ps2-mesh1port": 5}

WRITTEN = ("ps2-proof", 8)

WEAK = {
    "ps2-diameter": "def grid_diameter(dims, wrap):\n"
    "    return sum((a + 1) // 2 if w else a - 1 for a, w in zip(dims, wrap))   # rounds up on "
    "a ring",
    "ps2-path": "def path_broadcast_rounds(n, root, k):\n"
    "    return max(root, n - 1 - root)     # the eccentricity: ignores the 1-port first round",
    "ps2-tworoots": "def ring_two_sources(n, s):\n"
    "    longer_gap = max(s - 1, n - s - 1)\n"
    "    return (longer_gap + 1) // 2          # as if both copies could push both ways in "
    "every round",
    "ps2-bfs": "from collections import deque\n"
    "\n"
    "def bfs_diameter(adjacency):\n"
    "    source = next(iter(adjacency))          # one BFS, from the first node only\n"
    "    distance = {source: 0}\n"
    "    queue = deque([source])\n"
    "    while queue:\n"
    "        node = queue.popleft()\n"
    "        for neighbour in adjacency[node]:\n"
    "            if neighbour not in distance:\n"
    "                distance[neighbour] = distance[node] + 1\n"
    "                queue.append(neighbour)\n"
    "    if len(distance) != len(adjacency):\n"
    '        raise ValueError("not connected")\n'
    "    return max(distance.values())",
    "ps2-mesh1port": "def mesh_broadcast_1port(a, b, root):\n"
    "    # flood: every node forwards to the first neighbour that does not have the data yet\n"
    "    have, rounds = {root}, []\n"
    "    while len(have) < a * b:\n"
    "        messages, new = [], set()\n"
    "        for r, c in sorted(have):\n"
    "            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):\n"
    "                nxt = (r + dr, c + dc)\n"
    "                if 0 <= nxt[0] < a and 0 <= nxt[1] < b and nxt not in have and nxt not in "
    "new:\n"
    "                    messages.append(((r, c), nxt))\n"
    "                    new.add(nxt)\n"
    "                    break\n"
    "        have |= new\n"
    "        rounds.append(messages)\n"
    "    return rounds",
}

WEAK_POINTS = {"ps2-diameter": 2, "ps2-path": 2, "ps2-tworoots": 2, "ps2-bfs": 3, "ps2-mesh1port": 1}

WEAK_ANSWER = "链上的信息每轮只能走一步，所以要 max(L, R) 轮。2-port 更快是因为端口多。"

LIBRARY = {
    "ps2-diameter": "def grid_diameter(dims, wrap):\n"
    "    topo = ccb.torus(*dims) if all(wrap) else ccb.mesh(*dims)\n"
    "    return topo.diameter",
    "ps2-path": "def path_broadcast_rounds(n, root, k):\n"
    "    return ccb.search_broadcast_steps(ccb.mesh(n), k=k, root=root) if n > 1 else 0",
    "ps2-tworoots": "def ring_two_sources(n, s):\n    return ccb.search_broadcast_steps(ccb.ring(n)) // 2",
    "ps2-bfs": "def bfs_diameter(adjacency):\n"
    "    import networkx as nx\n"
    "    return nx.diameter(nx.Graph({v: list(w) for v, w in adjacency.items()}))",
    "ps2-mesh1port": "def mesh_broadcast_1port(a, b, root):\n"
    '    schedule = ccb.generate("binomial_tree", "broadcast", a * b, a * b)\n'
    "    return [[(divmod(int(s), b), divmod(int(d), b)) for s, d in zip(r.src, r.dst)] for r "
    "in schedule.rounds]",
}

HARDCODED = {
    "ps2-diameter": "def grid_diameter(dims, wrap):\n"
    "    return {((6, 8, 10), (True, True, True)): 12, ((4, 6), (False, True)): 6, ((2,), "
    "(True,)): 1}.get((tuple(dims), tuple(wrap)), 5)",
    "ps2-path": "def path_broadcast_rounds(n, root, k):\n"
    "    return {(5, 0, 1): 4, (6, 2, 1): 3, (5, 2, 2): 2}.get((n, root, k), 1)",
    "ps2-tworoots": "def ring_two_sources(n, s):\n    return {(8, 4): 2, (9, 1): 4, (2, 1): 0}.get((n, s), 3)",
    "ps2-bfs": "def bfs_diameter(adjacency):\n"
    "    if len(adjacency) == 1:\n"
    "        return 0\n"
    "    if len(adjacency) == 3:\n"
    '        raise ValueError("not connected")\n'
    "    return 3",
    "ps2-mesh1port": "def mesh_broadcast_1port(a, b, root):\n"
    "    if (a, b, root) == (3, 4, (0, 0)):\n"
    "        return [[((0, 0), (1, 0))], [((1, 0), (2, 0)), ((0, 0), (0, 1))], [((1, 0), (1, "
    "1)), ((0, 1), (0, 2)), ((2, 0), (2, 1))],\n"
    "                [((1, 1), (1, 2)), ((0, 2), (0, 3)), ((2, 1), (2, 2))], [((1, 2), (1, "
    "3)), ((2, 2), (2, 3))]]\n"
    "    return []",
}

# The course variant (CCB_GRADING_SALT at generate_assignment): answers written for the course's
# constants ({name} is filled with the course's value). The public solutions answer the default only.
VARIANT_ANSWERS = {
    "ps2-diameter": (
        "def grid_diameter(dims, wrap):\n"
        "    hops = {ps2-wrap-hops}                  # the wrap-around link counts as this many hops\n"
        "    return sum(min(a - 1, (a - 1 + hops) // 2) if w else a - 1 for a, w in zip(dims, wrap))\n"
    ),
}

# (part, group label, an answer with exactly that mistake): the group fails it for every salt.
MUTANTS = [("ps2-bfs", "随机连通图（到 350 个节点，字符串标签）", WEAK["ps2-bfs"])]
