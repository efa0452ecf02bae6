"""Generated submissions of ps1 for tests/test_assignments.py: per part, the solution cell of a
realistic weak student (and the points its groups earn: the visible group plus each hidden group its mistake does not fail), of a student who calls the library, and of one who
hard-codes the visible cases."""

AUTOGRADED_POINTS = 19

PARTS = {"ps1-replicas": 3, "ps1-budget": 3, "ps1-hetero": 4, "ps1-postal": 4, "ps1-plan": 5}

WRITTEN = ("ps1-proof", 8)

WEAK = {
    "ps1-replicas": "import math\n"
    "\n"
    "def replica_rounds(n, s, k):\n"
    "    return max(0, math.ceil(math.log(n / s, k + 1)))  # floating log",
    "ps1-budget": "def largest_cluster(budget_ns, alpha_ns, k):\n"
    "    n = 1                       # try N = 2, 3, ... until the bound exceeds the budget: "
    "right, but slow\n"
    "    while True:\n"
    "        t, reach = 0, 1\n"
    "        while reach < n + 1:\n"
    "            reach *= k + 1\n"
    "            t += 1\n"
    "        if t * alpha_ns > budget_ns:\n"
    "            return n\n"
    "        n += 1",
    "ps1-hetero": "import math\n"
    "\n"
    "def hetero_rounds(n, k_root, k):\n"
    "    # closed form of the recurrence, evaluated in floating point\n"
    "    return max(0, math.ceil(math.log(1 + (n - 1) * k / k_root, k + 1)))",
    "ps1-postal": "def postal_time(n, lam):\n"
    "    def reach(t):                      # right recurrence, no memoization: exponential time\n"
    "        return 1 if t < lam else reach(t - 1) + reach(t - lam)\n"
    "    t = 0\n"
    "    while reach(t) < n:\n"
    "        t += 1\n"
    "    return t",
    "ps1-plan": "def hetero_plan(n, k_root, k):\n"
    "    holders, rounds = [0], []\n"
    "    while True:\n"
    "        messages, nxt = [], len(holders)\n"
    "        for src in list(holders):\n"
    "            for _ in range(k_root if src == 0 else k):\n"
    "                if nxt < n:\n"
    "                    messages.append((src, nxt))\n"
    "                    holders.append(nxt)\n"
    "                    nxt += 1\n"
    "        rounds.append(messages)\n"
    "        if len(holders) >= n:          # checked after the round: n = 1 gets one empty round\n"
    "            return rounds",
}

WEAK_POINTS = {"ps1-replicas": 2, "ps1-budget": 2, "ps1-hetero": 3, "ps1-postal": 2, "ps1-plan": 4}

WEAK_ANSWER = "root 端口多，每轮能发更多消息，所以轮数更少。每轮已知节点数翻倍，所以大约是 log 轮。"

LIBRARY = {
    "ps1-replicas": "def replica_rounds(n, s, k):\n    return ccb.info_steps(-(-n // s), k)",
    "ps1-budget": "def largest_cluster(budget_ns, alpha_ns, k):\n"
    "    t = budget_ns // alpha_ns\n"
    "    return max(n for n in range(1, (k + 1) ** t + 1) if ccb.info_steps(n, k) <= t)",
    "ps1-hetero": "def hetero_rounds(n, k_root, k):\n"
    "    return min(t for t in range(64) if ccb.coverage(t, k) * 1 + (k_root - k) * t >= n)",
    "ps1-postal": "def postal_time(n, lam):\n    return ccb.info_steps(n) * lam",
    "ps1-plan": "def hetero_plan(n, k_root, k):\n"
    '    schedule = ccb.generate("binomial_tree", "broadcast", n, n, ports=k_root)\n'
    "    return [[(int(s), int(d)) for s, d in zip(r.src, r.dst)] for r in schedule.rounds]",
}

HARDCODED = {
    "ps1-replicas": "def replica_rounds(n, s, k):\n"
    "    return {(8, 1, 1): 3, (8, 2, 1): 2, (10, 10, 3): 0}.get((n, s, k), 1)",
    "ps1-budget": "def largest_cluster(budget_ns, alpha_ns, k):\n"
    "    return {(10_000, 1_500, 6): 7**6, (1_000, 1_500, 1): 1}.get((budget_ns, alpha_ns, k), 2)",
    "ps1-hetero": "def hetero_rounds(n, k_root, k):\n"
    "    return {(9, 2, 2): 2, (10, 4, 1): 2, (1, 3, 1): 0}.get((n, k_root, k), 3)",
    "ps1-postal": "def postal_time(n, lam):\n    return {(8, 1): 3, (8, 2): 5, (1, 3): 0}.get((n, lam), 4)",
    "ps1-plan": "def hetero_plan(n, k_root, k):\n"
    "    if (n, k_root, k) == (10, 4, 1):\n"
    "        return [[(0, 1), (0, 2), (0, 3), (0, 4)], [(0, 5), (0, 6), (0, 7), (0, 8), (1, 9)]]\n"
    "    if (n, k_root, k) == (9, 2, 2):\n"
    "        return [[(0, 1), (0, 2)], [(0, 3), (0, 4), (1, 5), (1, 6), (2, 7), (2, 8)]]\n"
    "    return []",
}

# The course variant (CCB_GRADING_SALT at generate_assignment): answers written for the course's
# constants ({name} is filled with the course's value). The public solutions answer the default only.
VARIANT_ANSWERS = {
    "ps1-postal": "def postal_time(n, lam):\n"
    "    ports = {ps1-postal-ports}\n"
    "    reach = [1]\n"
    "    while reach[-1] < n:\n"
    "        t = len(reach)\n"
    "        reach.append(reach[t - 1] + ports * (reach[t - lam] if t >= lam else 0))\n"
    "    return len(reach) - 1\n"
}

# Each hidden group named after a mistake contains, for every salt, cases where that mistake gives
# a wrong answer: (part, group label, an answer with exactly that mistake) (tests/test_assignments.py).
MUTANTS = [
    (
        "ps1-replicas",
        "n 恰在边界上（到 2^62）",
        "import math\n\ndef replica_rounds(n, s, k):\n"
        "    return 0 if n <= s else math.ceil(math.log(n / s, k + 1))   # a float logarithm\n",
    ),
    (
        "ps1-replicas",
        "n 恰在边界上（到 2^62）",
        "import math\n\ndef replica_rounds(n, s, k):\n"
        "    return 0 if n <= s else math.ceil(math.log2(n / s) / math.log2(k + 1))\n",
    ),
]
