"""Generated submissions of ps9 for tests/test_assignments.py: per part, the solution cell of a
realistic weak student (and the points its groups earn: the visible group plus each hidden group its mistake does not fail), of a student who calls the library, and of one who
hard-codes the visible cases."""

AUTOGRADED_POINTS = 19

PARTS = {"ps9-hops": 3, "ps9-twolevel": 3, "ps9-hier": 4, "ps9-swing": 4, "ps9-steps": 5}

WRITTEN = ("ps9-proof", 8)

WEAK = {
    "ps9-hops": "def min_total_hops(n, rounds, ports):\n"
    "    from math import comb\n"
    "    need, total = n - 1, 0\n"
    "    for h in range(1, rounds + 1):\n"
    "        take = min(need, comb(rounds, h))          # forgets the k choices at every hop\n"
    "        total, need = total + take * h, need - take\n"
    "        if need == 0:\n"
    "            return total\n"
    "    return -1",
    "ps9-twolevel": "def two_level_bandwidth(nodes, gpus, size, fabric_beta, nic_beta):\n"
    "    n = nodes * gpus\n"
    "    v = 2 * (n - 1) / n * size\n"
    "    if nodes == 1:\n"
    "        return v / fabric_beta\n"
    "    node_beta = gpus * nic_beta\n"
    "    return max(v / fabric_beta, 2 * (nodes - 1) / nodes * size / node_beta)   # NVLink only",
    "ps9-hier": "def hierarchical_ring_time(nodes, gpus, size, alpha_f, beta_f, alpha_n, beta_n, nic):\n"
    "    t = 2 * (gpus - 1) * (alpha_f + size / gpus / beta_f)\n"
    "    if nodes > 1:\n"
    "        t += 2 * (nodes - 1) * (alpha_n + size / (nodes * gpus) / beta_n)   # ignores a shared NIC\n"
    "    return t",
    "ps9-swing": "def swing_send_blocks(p, rank, step):\n"
    "    steps = p.bit_length() - 1\n"
    "    def reach(x, s):                                # recursive halving's partners (x XOR 2^s)\n"
    "        return {x} if s == steps else reach(x, s + 1) | reach(x ^ (1 << s), s + 1)\n"
    "    return sorted(reach(rank ^ (1 << step), step + 1))",
    "ps9-steps": "def circulant_steps(n, rounds):\n"
    "    return [2**i for i in range(rounds)]              # Bruck's steps, whatever n is",
}

WEAK_POINTS = {"ps9-hops": 1, "ps9-twolevel": 1.25, "ps9-hier": 3, "ps9-swing": 0, "ps9-steps": 1}

WEAK_ANSWER = "Swing 的伙伴是 r + ρ(s)，距离比 RHD 短，所以链路上的数据少。ρ(s) 大约是 2^s 的一半。"

LIBRARY = {
    "ps9-hops": "def min_total_hops(n, rounds, ports):\n"
    "    try:\n"
    "        return ccb.all_to_all_min_hops(n, rounds, ports)\n"
    "    except ValueError:\n"
    "        return -1",
    "ps9-twolevel": "def two_level_bandwidth(nodes, gpus, size, fabric_beta, nic_beta):\n"
    "    hw = ccb.TwoLevelHardware(0.0, fabric_beta, 0.0, nic_beta)\n"
    "    b = ccb.two_level_lower_bound('all_reduce', ccb.two_level(nodes, gpus), size, hw, ports=2)\n"
    "    return max(b.endpoint, b.node)",
    "ps9-hier": "def hierarchical_ring_time(nodes, gpus, size, alpha_f, beta_f, alpha_n, beta_n, nic):\n"
    "    hw = ccb.TwoLevelHardware(alpha_f, beta_f, alpha_n, beta_n)\n"
    "    return ccb.two_level_algorithm_time('hierarchical_ring', ccb.two_level(nodes, gpus, nic), size, hw)",
    "ps9-swing": "def swing_send_blocks(p, rank, step):\n"
    "    s = ccb.swing_schedule(p, p)\n"
    "    r = s.rounds[step]\n"
    "    return sorted(int(o) for o, src in zip(r.offset, r.src) if src == rank)",
    "ps9-steps": "def circulant_steps(n, rounds):\n"
    "    import itertools\n"
    "    for steps in itertools.combinations(range(1, n), rounds):\n"
    "        if ccb.bruck_index_cost(n, n, 2)[1] >= ccb.all_to_all_min_hops(n, rounds):\n"
    "            return list(steps)",
}

HARDCODED = {
    "ps9-hops": "def min_total_hops(n, rounds, ports):\n"
    "    return {(8, 3, 1): 12, (8, 7, 1): 7, (9, 2, 2): 12}.get((n, rounds, ports), -1)",
    "ps9-twolevel": "def two_level_bandwidth(nodes, gpus, size, fabric_beta, nic_beta):\n"
    "    return 2 * 15 / 16 * 2**30 / 500e9 if nodes == 2 else 2 * 7 / 8 * 2**30 / 450e9",
    "ps9-hier": "def hierarchical_ring_time(nodes, gpus, size, alpha_f, beta_f, alpha_n, beta_n, nic):\n"
    "    return 6 * (1e-6 + 2e6 / 400e9) + 2 * (3e-6 + 1e6 / 50e9)",
    "ps9-swing": "def swing_send_blocks(p, rank, step):\n"
    "    return {(8, 0, 0): [1, 2, 5, 6], (8, 0, 2): [3], (4, 1, 0): [0, 3]}.get((p, rank, step), [])",
    "ps9-steps": "def circulant_steps(n, rounds):\n"
    "    return {(8, 3): [1, 2, 4], (12, 4): [1, 2, 4, 7]}.get((n, rounds), list(range(1, rounds + 1)))",
}

# The course variant (CCB_GRADING_SALT at generate_assignment): answers written for the course's
# constants ({name} is filled with the course's value). The public solutions answer the default only.
VARIANT_ANSWERS = {
    "ps9-twolevel": "def two_level_bandwidth(nodes, gpus, size, fabric_beta, nic_beta):\n"
    "    n = nodes * gpus\n"
    "    v = 2 * (n - 1) / n * size\n"
    "    if nodes == 1:\n"
    "        return v / fabric_beta\n"
    "    node_beta = gpus / {ps9-gpus-per-nic} * nic_beta\n"
    "    return max(v / (fabric_beta + node_beta / gpus), 2 * (nodes - 1) / nodes * size / node_beta)\n"
}

# The one-node group does not depend on the NICs: the public key keeps it under every variant.
VARIANT_PUBLIC_POINTS = {"ps9-twolevel": 0.5}

# Each hidden group named after a mistake contains cases where that mistake gives a wrong answer:
# (part, group label, an answer with exactly that mistake) (tests/test_assignments.py).
MUTANTS = [
    ("ps9-hops", "k ≥ 2 个端口（每跳有 k 种选择）", WEAK["ps9-hops"]),
    ("ps9-hier", "每个节点一块网卡（rail 共用）", WEAK["ps9-hier"]),
    ("ps9-twolevel", "网卡快：端点（NVLink 加网卡）起作用", WEAK["ps9-twolevel"]),
    # The node term with V_node = 2M (the factor (K - 1) / K forgotten): wrong where the node cut binds.
    (
        "ps9-twolevel",
        "网卡慢：节点割起作用",
        "def two_level_bandwidth(nodes, gpus, size, fabric_beta, nic_beta):\n"
        "    n = nodes * gpus\n"
        "    v = 2 * (n - 1) / n * size\n"
        "    if nodes == 1:\n"
        "        return v / fabric_beta\n"
        "    node_beta = gpus * nic_beta\n"
        "    return max(v / (fabric_beta + node_beta / gpus), 2 * size / node_beta)",
    ),
    # Bruck's steps 1, 2, 4, ...: the group's N are those where they miss the bound (at 13, 14, 15 they
    # meet it, and the group drew them under some salts: teacher review of #40).
    ("ps9-steps", "Bruck 的步长不够的 N", WEAK["ps9-steps"]),
]
