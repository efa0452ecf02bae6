"""Generated submissions of ps5 for tests/test_assignments.py: per part, the solution cell of a
realistic weak student (and the points its groups earn: the visible group plus each hidden group its mistake does not fail), of a student who calls the library, and of one who
hard-codes the visible cases."""

AUTOGRADED_POINTS = 18

PARTS = {"ps5-cutbytes": 3, "ps5-fattree": 3, "ps5-uplinks": 3, "ps5-hier": 4, "ps5-mincut": 5}

WRITTEN = ("ps5-proof", 8)

WEAK = {
    "ps5-cutbytes": "def cut_bytes(primitive, n, a, m):\n"
    "    small, large = n // 2, n - n // 2          # copies the balanced-cut table, whatever a "
    "is\n"
    '    if primitive == "all_to_all":\n'
    "        return small * large * m / n\n"
    '    if primitive in ("all_gather", "reduce_scatter"):\n'
    "        return large * m / n\n"
    "    return float(m)",
    "ps5-fattree": "def fat_tree_alltoall_bound(leaves, hosts, uplinks, m, beta):\n"
    "    n = leaves * hosts\n"
    "    node = (n - 1) * m / (n * beta)\n"
    "    a = leaves // 2                             # only the balanced cut, as in chapter 5\n"
    "    cut = a * hosts * (n - a * hosts) * m / n / (a * uplinks * beta)\n"
    "    return max(node, cut)",
    "ps5-uplinks": "def uplinks_needed(leaves, hosts):\n"
    "    n = leaves * hosts\n"
    "    a = leaves // 2                             # the balanced cut only\n"
    "    return -(-hosts * (n - a * hosts) // (n - 1))",
    "ps5-hier": "def hierarchical_allreduce_bound(groups, per_group, m, beta_in, beta_out):\n"
    "    # only the inter-group traffic: forgets the node-level bound\n"
    "    return 2 * (groups - 1) * m / (groups * per_group * beta_out)",
    "ps5-mincut": "def min_bisection(adjacency):\n"
    "    nodes = list(adjacency)\n"
    "    return set(nodes[: len(nodes) // 2])      # the first half: optimal on a ring numbered "
    "in order",
}

WEAK_POINTS = {"ps5-cutbytes": 2, "ps5-fattree": 2, "ps5-uplinks": 2, "ps5-hier": 2, "ps5-mincut": 2}

WEAK_ANSWER = "单个 leaf 的割更紧，因为它的上行链路更少。AllReduce 不受限制，因为它只需要 M 字节过切口。"

LIBRARY = {
    "ps5-cutbytes": "def cut_bytes(primitive, n, a, m):\n    return ccb.bisection_bytes(primitive, n, m)",
    "ps5-fattree": "def fat_tree_alltoall_bound(leaves, hosts, uplinks, m, beta):\n"
    "    topo = ccb.fat_tree(leaves * hosts, hosts_per_leaf=hosts, oversubscription=hosts / "
    "uplinks)\n"
    '    return max(ccb.bisection_lower_bound("all_to_all", topo, m, beta), '
    'ccb.node_lower_bound("all_to_all", topo, m, beta, ports=1))',
    "ps5-uplinks": "def uplinks_needed(leaves, hosts):\n"
    "    n = leaves * hosts\n"
    '    return next(u for u in range(1, hosts + 1) if ccb.tighter_bound("all_to_all", '
    'ccb.fat_tree(n, hosts_per_leaf=hosts, oversubscription=hosts / u), 1.0, 1.0) == "node")',
    "ps5-hier": "def hierarchical_allreduce_bound(groups, per_group, m, beta_in, beta_out):\n"
    "    n = groups * per_group\n"
    '    return max(ccb.bandwidth_lower_bound("all_reduce", n, m, beta_in + beta_out),\n'
    '               ccb.bandwidth_lower_bound("all_reduce", groups, m, per_group * beta_out) if '
    "groups > 1 else 0.0)",
    "ps5-mincut": "def min_bisection(adjacency):\n"
    "    topo = ccb.ring(len(adjacency))\n"
    "    side = ccb.bisection_partition(topo)\n"
    "    return {v for v, s in zip(adjacency, side) if s == 0}",
}

HARDCODED = {
    "ps5-cutbytes": "def cut_bytes(primitive, n, a, m):\n"
    '    return {("all_to_all", 4): 8.0, ("all_reduce", 6): 5.0}.get((primitive, n), 1.0)',
    "ps5-fattree": "def fat_tree_alltoall_bound(leaves, hosts, uplinks, m, beta):\n"
    "    return {(2, 2, 2): 3.0, (2, 8, 2): 32.0}.get((leaves, hosts, uplinks), 1.0)",
    "ps5-uplinks": "def uplinks_needed(leaves, hosts):\n    return {(2, 8): 5, (2, 1): 1}.get((leaves, hosts), 2)",
    "ps5-hier": "def hierarchical_allreduce_bound(groups, per_group, m, beta_in, beta_out):\n"
    "    return {(2, 2): 2.0, (4, 8): 0.48}.get((groups, per_group), 1.0)",
    "ps5-mincut": "def min_bisection(adjacency):\n"
    "    if len(adjacency) == 6:\n"
    "        return {0, 1, 2}\n"
    "    return set(list(adjacency)[:1])",
}

# The course variant (CCB_GRADING_SALT at generate_assignment): answers written for the course's
# constants ({name} is filled with the course's value). The public solutions answer the default only.
VARIANT_ANSWERS = {
    "ps5-hier": (
        "def hierarchical_allreduce_bound(groups, per_group, m, beta_in, beta_out):\n"
        "    nics = {ps5-nics} * beta_out              # all of a node's NICs\n"
        "    n = groups * per_group\n"
        "    node = 2 * (n - 1) * m / (n * (beta_in + nics))\n"
        "    group = 2 * (groups - 1) * m / (groups * per_group * nics)\n"
        "    return max(node, group)\n"
    ),
}

# Each hidden group named after a mistake contains cases where that mistake gives a wrong answer:
# (part, group label, an answer with exactly that mistake) (tests/test_assignments.py).
MUTANTS = [
    (
        "ps5-uplinks",
        "三个以上的 leaf（含恰好整除的情形）",
        "def uplinks_needed(leaves, hosts):\n"
        "    n = leaves * hosts\n"
        "    return hosts * (n - hosts) // (n - 1) + 1   # rounds up by adding 1\n",
    )
]
