"""Generated submissions of ps4 for tests/test_assignments.py: per part, the solution cell of a
realistic weak student (and the points its groups earn: the visible group plus each hidden group its mistake does not fail), of a student who calls the library, and of one who
hard-codes the visible cases."""

AUTOGRADED_POINTS = 24

PARTS = {"ps4-agbound": 3, "ps4-agcross": 3, "ps4-chunks": 4, "ps4-worst": 4, "ps4-dissemination": 5, "ps4-bruckrs": 5}

WRITTEN = ("ps4-proof", 8)

WEAK = {
    "ps4-agbound": "def allgather_combined_bound(n, m, alpha, beta, k):\n"
    "    steps, reach = 0, 1\n"
    "    while reach < n:\n"
    "        reach *= k + 1\n"
    "        steps += 1\n"
    "    return max(steps * alpha, (n - 1) * m / (n * k * beta))   # k where p = min(k, n-1) "
    "belongs",
    "ps4-agcross": "import math\n"
    "\n"
    "def allgather_crossover(n, alpha, beta, k):\n"
    "    p = min(k, n - 1)\n"
    "    steps = math.ceil(math.log(n, p + 1))          # floating log\n"
    "    return n * p * beta * steps * alpha / (n - 1)",
    "ps4-chunks": "import math\n"
    "\n"
    "def chain_best_chunks(n, m, alpha, beta):\n"
    "    return max(1, round(math.sqrt((n - 2) * m / (alpha * beta))))   # rounds the real "
    "optimum",
    "ps4-worst": "import math\n"
    "\n"
    "def worst_efficiency(n, steps, bw_coeff):\n"
    "    rounds = math.log2(n)                 # forgets the ceiling\n"
    "    return rounds / (steps + bw_coeff * rounds / (2 * (n - 1) / n))",
    "ps4-dissemination": "def dissemination_allgather(n, block):\n"
    "    T = ccb.Transfer\n"
    "    rounds, held = [], 1                   # recursive doubling: partners i XOR held\n"
    "    while held < n:\n"
    "        rounds.append([T(i, i ^ held, (i // held) * held * block, held * block) for i "
    "in range(n) if i ^ held < n])\n"
    "        held *= 2\n"
    '    return ccb.Schedule.from_transfers("all_gather", n, n * block, rounds)',
    "ps4-bruckrs": "def bruck_reduce_scatter(n, block):\n"
    "    T = ccb.Transfer\n"
    "    gather, held = [], 1\n"
    "    while held < n:\n"
    "        gather.append(held)             # every round as if n were a power of two\n"
    "        held *= 2\n"
    "    rounds = []\n"
    "    for held in reversed(gather):\n"
    "        messages = []\n"
    "        for u in range(n):\n"
    "            dst = (u + held) % n\n"
    "            for j in range(held):\n"
    "                b = (dst + j) % n\n"
    "                messages.append(T(u, dst, b * block, block, 'reduce'))\n"
    "        rounds.append(messages)\n"
    '    return ccb.Schedule.from_transfers("reduce_scatter", n, n * block, rounds)',
}

# ps4-bruckrs: the visible group, N = 1, 2 and the powers of two; not the other N (the last round adds a
# block twice) nor the random ones.
WEAK_POINTS = {
    "ps4-agbound": 2,
    "ps4-agcross": 2,
    "ps4-chunks": 2,
    "ps4-worst": 3,
    "ps4-dissemination": 2,
    "ps4-bruckrs": 3,
}

WEAK_ANSWER = "效率最低在交叉点，因为那里两项一样大。Ring 的效率很低。AllGather 不需要归约，所以更简单。"

LIBRARY = {
    "ps4-agbound": "def allgather_combined_bound(n, m, alpha, beta, k):\n"
    '    return ccb.combined_lower_bound("all_gather", n, m, alpha, beta, ports=k)',
    "ps4-agcross": "def allgather_crossover(n, alpha, beta, k):\n"
    '    return ccb.crossover_size("all_gather", n, alpha, beta, ports=k)',
    "ps4-chunks": "def chain_best_chunks(n, m, alpha, beta):\n    return ccb.optimal_chunks(n, m, alpha, beta)",
    "ps4-worst": "import numpy as np\n"
    "\n"
    "def worst_efficiency(n, steps, bw_coeff):\n"
    '    m_star = ccb.crossover_size("all_reduce", n, 1.0, 1.0)\n'
    '    return ccb.combined_lower_bound("all_reduce", n, m_star, 1.0, 1.0) / (steps + bw_coeff * '
    "m_star)",
    "ps4-dissemination": "def dissemination_allgather(n, block):\n"
    '    return ccb.generate("bruck", "all_gather", n, n * block)',
    "ps4-bruckrs": "def bruck_reduce_scatter(n, block):\n"
    '    return ccb.generate("bruck", "reduce_scatter", n, n * block)',
}

HARDCODED = {
    "ps4-agbound": "def allgather_combined_bound(n, m, alpha, beta, k):\n"
    "    return {(8, 1): 0.007, (4, 2): 2.0}.get((n, k), 1.0)",
    "ps4-agcross": "def allgather_crossover(n, alpha, beta, k):\n"
    "    return {(8, 1): 24000 / 7, (4, 3): 4.0}.get((n, k), 1.0)",
    "ps4-chunks": "def chain_best_chunks(n, m, alpha, beta):\n    return {2: 1, 10: 179}.get(n, 64)",
    "ps4-worst": "def worst_efficiency(n, steps, bw_coeff):\n    return {8: 1 / 3, 4: 0.25}.get(n, 0.5)",
    "ps4-dissemination": "def dissemination_allgather(n, block):\n"
    "    T = ccb.Transfer\n"
    "    if n == 4:\n"
    "        rounds = [[T(i, i ^ 1, i * block, block) for i in range(4)], [T(i, i ^ 2, (i "
    "// 2) * 2 * block, 2 * block) for i in range(4)]]\n"
    "    else:\n"
    "        rounds = [[T(i, (i - 1) % n, i * block, block) for i in range(n)],\n"
    "                  [T(i, (i - 2) % n, i * block, block) for i in range(n)] + [T(i, (i "
    "- 2) % n, ((i + 1) % n) * block, block) for i in range(n)],\n"
    "                  [T(i, (i - 4) % n, i * block, block) for i in range(n)]]\n"
    '    return ccb.Schedule.from_transfers("all_gather", n, n * block, rounds)',
    "ps4-bruckrs": "def bruck_reduce_scatter(n, block):\n"
    "    T = ccb.Transfer\n"
    "    rounds = []\n"
    "    for held in ((2, 1) if n == 4 else (4, 2, 1)):   # the visible cases only\n"
    "        rounds.append([T(u, (u + held) % n, ((u + held + j) % n) * block, block, 'reduce')\n"
    "                       for u in range(n) for j in range(held)])\n"
    '    return ccb.Schedule.from_transfers("reduce_scatter", n, n * block, rounds)',
}

# The course variant (CCB_GRADING_SALT at generate_assignment): answers written for the course's
# constants ({name} is filled with the course's value). The public solutions answer the default only.
VARIANT_ANSWERS = {
    "ps4-chunks": (
        "import math\n"
        "\n"
        "def chain_best_chunks(n, m, alpha, beta):\n"
        "    chains = {ps4-chunk-chains}\n"
        "    depth = -(-(n - 1) // chains) - 1        # hops to the end of the longest chain, minus one\n"
        "    def time(c):\n"
        "        return (depth + c) * (alpha + m / (c * beta))\n"
        "    best = math.sqrt(depth * m / (alpha * beta))\n"
        "    candidates = {min(m, max(1, c)) for c in (math.floor(best), math.floor(best) + 1)}\n"
        "    return min(sorted(candidates), key=time)\n"
    ),
}

# The public solution still earns the group of C = 1 or C = M cases, which no number of chains changes.
VARIANT_PUBLIC_POINTS = {"ps4-chunks": 1}

# (part, group label, an answer with exactly that mistake): the group fails it for every salt.
MUTANTS = [
    (
        "ps4-agcross",
        "N 恰好是 (p+1) 的幂",
        "import math\n\ndef allgather_crossover(n, alpha, beta, k):\n"
        "    p = min(k, n - 1)\n"
        "    steps = math.ceil(math.log(n) / math.log(p + 1))   # a float logarithm\n"
        "    return n * p * beta * steps * alpha / (n - 1)\n",
    ),
    # The weak student's reduce-scatter runs every round as if N were a power of two, and adds
    # blocks twice otherwise.
    ("ps4-bruckrs", "N 不是 2 的幂（最后一轮只补缺的块）", WEAK["ps4-bruckrs"]),
]
