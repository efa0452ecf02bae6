"""Generated submissions of ps3 for tests/test_assignments.py: per part, the solution cell of a
realistic weak student (and the points its groups earn: the visible group plus each hidden group its mistake does not fail), of a student who calls the library, and of one who
hard-codes the visible cases."""

AUTOGRADED_POINTS = 19

PARTS = {"ps3-agv": 3, "ps3-rsv": 3, "ps3-hetero": 4, "ps3-moe": 4, "ps3-gossip": 5}

WRITTEN = ("ps3-proof", 8)

WEAK = {
    "ps3-agv": "def allgatherv_bound(sizes, beta):\n"
    "    n, total = len(sizes), sum(sizes)\n"
    "    return (n - 1) / n * total / beta      # the uniform formula with M = total",
    "ps3-rsv": "def reduce_scatterv_bound(out_sizes, beta, ports):\n"
    "    m = sum(out_sizes)\n"
    '    return (m - max(out_sizes)) / (ports * beta)   # "the node with the biggest block is the '
    'busiest"',
    "ps3-hetero": "def hetero_allreduce_bound(m, betas):\n"
    "    n = len(betas)\n"
    "    return max(2 * (n - 1) * m / (n * b) for b in betas)   # the uniform formula, node by "
    "node",
    "ps3-moe": "import numpy as np\n"
    "\n"
    "def moe_layer_bound(tokens, expert_node, token_bytes, beta):\n"
    "    tokens = np.asarray(tokens, dtype=float)\n"
    "    n = tokens.shape[0]\n"
    "    traffic = np.zeros((n, n))\n"
    "    for e, node in enumerate(expert_node):\n"
    "        traffic[:, node] += tokens[:, e] * token_bytes\n"
    "    # forgets that tokens already on their expert's node stay local\n"
    "    return float(2 * max(traffic.sum(axis=1).max(), traffic.sum(axis=0).max()) / beta)",
    "ps3-gossip": "import math\n"
    "\n"
    "def gossip_schedule(n):\n"
    "    levels = int(math.log2(n)) if n > 1 else 0          # floor: right for powers of two "
    "only\n"
    "    reduce_rounds = [[(i, i - 2**j) for i in range(2**j, n, 2**(j + 1))] for j in "
    "range(levels)]\n"
    "    return reduce_rounds + [[(dst, src) for src, dst in r] for r in reversed(reduce_rounds)]",
}

WEAK_POINTS = {"ps3-agv": 2, "ps3-rsv": 2, "ps3-hetero": 2, "ps3-moe": 2, "ps3-gossip": 2}

WEAK_ANSWER = "每个节点要收发 M 字节，所以 T ≥ M / min β。所有节点合计要发 2(N−1)M 字节。相等时就是 2(N−1)M/(Nβ)。"

LIBRARY = {
    "ps3-agv": "import numpy as np\n"
    "\n"
    "def allgatherv_bound(sizes, beta):\n"
    "    n = len(sizes)\n"
    "    routing = np.array([[0 if i == j else sizes[i] for j in range(n)] for i in range(n)], "
    "dtype=float)\n"
    "    return ccb.routing_lower_bound(routing, beta)",
    "ps3-rsv": "def reduce_scatterv_bound(out_sizes, beta, ports):\n"
    "    n, m = len(out_sizes), sum(out_sizes)\n"
    '    return ccb.bandwidth_lower_bound("reduce_scatter", n, m, beta, ports=ports) * (m - '
    "min(out_sizes)) / ((n - 1) * m / n)",
    "ps3-hetero": "def hetero_allreduce_bound(m, betas):\n"
    '    return max(ccb.bandwidth_lower_bound("all_reduce", len(betas), m, b) for b in betas)',
    "ps3-moe": "import numpy as np\n"
    "\n"
    "def moe_layer_bound(tokens, expert_node, token_bytes, beta):\n"
    "    t = np.asarray(tokens, dtype=float)\n"
    "    traffic = np.zeros((t.shape[0], t.shape[0]))\n"
    "    for e, node in enumerate(expert_node):\n"
    "        traffic[:, node] += t[:, e] * token_bytes\n"
    "    return ccb.routing_lower_bound(traffic, beta) + ccb.routing_lower_bound(traffic.T, beta)",
    "ps3-gossip": "def gossip_schedule(n):\n"
    '    schedule = ccb.generate("binomial_tree", "all_reduce", n, n)\n'
    "    return [[(int(s), int(d)) for s, d in zip(r.src, r.dst)] for r in schedule.rounds]",
}

HARDCODED = {
    "ps3-agv": "def allgatherv_bound(sizes, beta):\n"
    "    return {(4, 2.0): 6.0, (8, 1.0): 70.0}.get((len(sizes), beta), 1.0)",
    "ps3-rsv": "def reduce_scatterv_bound(out_sizes, beta, ports):\n"
    "    return {(3, 1.0, 1): 6.0, (4, 2.0, 2): 6.0}.get((len(out_sizes), beta, ports), 1.0)",
    "ps3-hetero": "def hetero_allreduce_bound(m, betas):\n"
    "    return {(1.0, 2): 1.0, (8.0, 4): 6.0}.get((m, len(betas)), 1.0)",
    "ps3-moe": "def moe_layer_bound(tokens, expert_node, token_bytes, beta):\n"
    "    return {(2, 10, 1.0): 100.0, (3, 1, 2.0): 4.0}.get((len(tokens), token_bytes, beta), 1.0)",
    "ps3-gossip": "def gossip_schedule(n):\n"
    "    return {2: [[(1, 0)], [(0, 1)]], 4: [[(1, 0), (3, 2)], [(2, 0)], [(0, 2)], [(0, 1), (2, "
    "3)]]}.get(n, [])",
}

# The course variant (CCB_GRADING_SALT at generate_assignment): answers written for the course's
# constants ({name} is filled with the course's value). The public solutions answer the default only.
VARIANT_ANSWERS = {
    "ps3-agv": "def allgatherv_bound(sizes, beta):\n    return (sum(sizes) - min(sizes)) / ({ps3-ports} * beta)\n",
    "ps3-moe": "import numpy as np\n"
    "\n"
    "def moe_layer_bound(tokens, expert_node, token_bytes, beta):\n"
    "    tokens = np.asarray(tokens, dtype=float)\n"
    "    n = tokens.shape[0]\n"
    "    traffic = np.zeros((n, n))\n"
    "    for e, node in enumerate(expert_node):\n"
    "        traffic[:, node] += tokens[:, e] * token_bytes\n"
    "    np.fill_diagonal(traffic, 0.0)\n"
    "    one_way = max(traffic.sum(axis=1).max(), traffic.sum(axis=0).max())\n"
    "    return float(2 * one_way / ({ps3-ports} * beta))\n",
}
