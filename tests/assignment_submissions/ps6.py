"""Generated submissions of ps6 for tests/test_assignments.py: per part, the solution cell of a
realistic weak student (and the points its groups earn: the visible group plus each hidden group its mistake does not fail), of a student who calls the library, and of one who
hard-codes the visible cases."""

AUTOGRADED_POINTS = 20

PARTS = {"ps6-shared": 3, "ps6-gamma": 4, "ps6-relfit": 4, "ps6-eager": 4, "ps6-logp": 5}

WRITTEN = ("ps6-proof", 8)

WEAK = {
    "ps6-shared": "def round_model_times(rounds, alpha, beta):\n"
    "    independent = sum(alpha + sum(sizes) / len(sizes) / beta for sizes in rounds)   # the "
    "mean, not the largest\n"
    "    shared = sum(alpha + sum(sizes) / beta for sizes in rounds)\n"
    "    return independent, shared",
    "ps6-gamma": "def abg_allreduce_time(algorithm, n, m, alpha, beta, gamma):\n"
    "    log2n = (n - 1).bit_length()\n"
    '    rounds, sent = {"ring": (2 * (n - 1), 2 * (n - 1) / n * m),\n'
    '                    "recursive_halving_doubling": (2 * log2n, 2 * (n - 1) / n * m),\n'
    '                    "recursive_doubling": (log2n, log2n * m)}[algorithm]\n'
    "    return rounds * alpha + sent / beta + (n - 1) / n * m * gamma     # the ring's gamma term "
    "for every algorithm",
    "ps6-relfit": "def fit_relative(sizes, times):\n"
    "    w = [1 / t**2 for t in times]\n"
    "    s_1 = sum(w)\n"
    "    s_m = sum(wi * m for wi, m in zip(w, sizes))\n"
    "    s_mm = sum(wi * m * m for wi, m in zip(w, sizes))\n"
    "    s_t = sum(wi * t for wi, t in zip(w, times))\n"
    "    s_mt = sum(wi * m * t for wi, m, t in zip(w, sizes, times))\n"
    "    det = s_1 * s_mm - s_m * s_m\n"
    "    alpha = (s_t * s_mm - s_m * s_mt) / det\n"
    "    x = (s_1 * s_mt - s_m * s_t) / det\n"
    "    return max(alpha, 0.0), 1 / x           # clips alpha but keeps the unconstrained slope",
    "ps6-eager": "def eager_threshold(sizes, times):\n"
    "    # the biggest relative jump between neighbours\n"
    "    jumps = [(times[i + 1] / times[i], i) for i in range(len(times) - 1)]\n"
    "    return sizes[max(jumps)[1]]",
    "ps6-logp": "def logp_broadcast(n, L, o, g):\n"
    "    # a binomial tree: in every round each holder sends once; a round lasts max(g, o + L + o)\n"
    "    plan, holders, round_start, nxt = [], [0], 0, 1\n"
    "    while nxt < n:\n"
    "        for src in list(holders):\n"
    "            if nxt < n:\n"
    "                plan.append((round_start, src, nxt))\n"
    "                holders.append(nxt)\n"
    "                nxt += 1\n"
    "        round_start += max(g, o + L + o)\n"
    "    return plan",
}

WEAK_POINTS = {"ps6-shared": 2, "ps6-gamma": 3, "ps6-relfit": 3, "ps6-eager": 2, "ps6-logp": 2}

WEAK_ANSWER = "大消息的时间大，所以最小二乘主要看大消息。最快的样本噪声最小。LogP 的树和二项树差不多。"

LIBRARY = {
    "ps6-shared": "def round_model_times(rounds, alpha, beta):\n"
    '    return ccb.mpi.plots.model_and_bound({"rounds": len(rounds), "m": sum(map(max, '
    "rounds))}, alpha, beta)",
    "ps6-gamma": "def abg_allreduce_time(algorithm, n, m, alpha, beta, gamma):\n"
    '    terms = ccb.algorithm_terms(algorithm, "all_reduce", n, m)\n'
    "    return terms.steps * alpha + terms.bandwidth_bytes / beta + (n - 1) / n * m * gamma",
    "ps6-relfit": "def fit_relative(sizes, times):\n"
    "    fit = ccb.mpi.fit_alpha_beta(sizes, times)\n"
    "    return fit.alpha_s, fit.beta_Bps",
    "ps6-eager": "def eager_threshold(sizes, times):\n"
    "    fits = [(ccb.mpi.fit_alpha_beta(sizes[:k], times[:k]).residual + "
    "ccb.mpi.fit_alpha_beta(sizes[k:], times[k:]).residual, k) for k in range(2, len(sizes) - 1)]\n"
    "    return sizes[min(fits)[1] - 1]",
    "ps6-logp": "def logp_broadcast(n, L, o, g):\n"
    '    schedule = ccb.generate("binomial_tree", "broadcast", n, n)\n'
    "    plan, t = [], 0\n"
    "    for r in schedule.rounds:\n"
    "        plan += [(t, int(s), int(d)) for s, d in zip(r.src, r.dst)]\n"
    "        t += 2 * o + L\n"
    "    return plan",
}

HARDCODED = {
    "ps6-shared": "def round_model_times(rounds, alpha, beta):\n    return (5.0, 5.0)",
    "ps6-gamma": "def abg_allreduce_time(algorithm, n, m, alpha, beta, gamma):\n"
    '    return {"ring": 12.0, "recursive_doubling": 10.0}.get(algorithm, 1.0)',
    "ps6-relfit": "def fit_relative(sizes, times):\n    return (2e-6, 5e9)",
    "ps6-eager": "def eager_threshold(sizes, times):\n    return 8192",
    "ps6-logp": "def logp_broadcast(n, L, o, g):\n    return [(0, 0, 1), (3, 0, 2), (5, 1, 3)]",
}

# The course variant (CCB_GRADING_SALT at generate_assignment): answers written for the course's
# constants ({name} is filled with the course's value). The public solutions answer the default only.
VARIANT_ANSWERS = {
    "ps6-shared": (
        "def round_model_times(rounds, alpha, beta):\n"
        "    channels = {ps6-channels}\n"
        "    independent = sum(alpha + max(sizes) / beta for sizes in rounds)\n"
        "    shared = sum(alpha + max(max(sizes), sum(sizes) / channels) / beta for sizes in rounds)\n"
        "    return independent, shared\n"
    ),
}

# The public solution still earns the group of one-message rounds, which no channel count changes.
VARIANT_PUBLIC_POINTS = {"ps6-shared": 1}

# (part, group label, an answer with exactly that mistake): the group fails it for every salt.
MUTANTS = [
    ("ps6-eager", "±3% 噪声", WEAK["ps6-eager"]),  # the biggest jump between neighbours
    (
        "ps6-eager",
        "±3% 噪声",
        "def eager_threshold(sizes, times):\n"
        "    def error(ms, ts):   # squared errors in seconds, not relative ones\n"
        "        n = len(ms)\n"
        "        mean_m, mean_t = sum(ms) / n, sum(ts) / n\n"
        "        slope = sum((m - mean_m) * (t - mean_t) for m, t in zip(ms, ts)) / sum((m - mean_m) ** 2 for m in ms)\n"
        "        return sum((mean_t + slope * (m - mean_m) - t) ** 2 for m, t in zip(ms, ts))\n"
        "    k = min(range(2, len(sizes) - 1), key=lambda k: error(sizes[:k], times[:k]) + error(sizes[k:], times[k:]))\n"
        "    return sizes[k - 1]\n",
    ),
]
