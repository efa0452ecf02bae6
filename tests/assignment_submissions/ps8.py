"""Generated submissions of ps8 for tests/test_assignments.py: per part, the solution cell of a
realistic weak student (and the points its groups earn: the visible group plus each hidden group its mistake does not fail), of a student who calls the library, and of one who
hard-codes the visible cases."""

AUTOGRADED_POINTS = 19

PARTS = {"ps8-efficiency": 3, "ps8-parse": 3, "ps8-fit": 4, "ps8-intervals": 4, "ps8-rings": 5}

WRITTEN = ("ps8-proof", 8)

WEAK = {
    "ps8-efficiency": "def nccl_efficiency(primitive, n, size, time_s, alpha, beta):\n"
    '    factor = {"all_reduce": 2 * (n - 1) / n, "broadcast": 1.0, "reduce": '
    "1.0}.get(primitive, (n - 1) / n)\n"
    "    return factor * size / beta / time_s            # busbw / beta: forgets the latency "
    "bound",
    "ps8-parse": "def parse_out_of_place(text):\n"
    "    rows = []\n"
    "    for line in text.splitlines():\n"
    "        fields = line.split()\n"
    "        if fields and fields[0].isdigit():          # no prefix handling\n"
    "            rows.append((int(fields[0]), float(fields[4]) * 1e-6))\n"
    "    return rows",
    "ps8-fit": "def fit_alpha_beta(sizes, times, steps, factor):\n"
    "    # the line through the smallest and the largest message only\n"
    "    slope = (times[-1] - times[0]) / (sizes[-1] - sizes[0])\n"
    "    intercept = times[0] - slope * sizes[0]\n"
    "    return intercept / steps, factor / slope",
    "ps8-intervals": "def selection_intervals(candidates):\n"
    "    ordered = sorted(candidates, key=lambda c: c[1])          # by latency, and assume "
    "each wins in turn\n"
    "    result = [(ordered[0][0], 0.0)]\n"
    "    for (_, l0, b0), (label, l1, b1) in zip(ordered, ordered[1:]):\n"
    "        result.append((label, (l1 - l0) / (1 / b0 - 1 / b1)))\n"
    "    return result",
    "ps8-rings": "def ring_channels(links, count):\n"
    "    n = len(links)\n"
    "    free = [list(row) for row in links]\n"
    "    channels = []\n"
    "    for _ in range(count):                          # greedy: never revisits an earlier "
    "channel\n"
    "        path = [0]\n"
    "        while len(path) < n:\n"
    "            u = path[-1]\n"
    "            nxt = next((v for v in range(n) if v not in path and free[u][v] > 0), None)\n"
    "            if nxt is None:\n"
    "                break\n"
    "            path.append(nxt)\n"
    "        if len(path) == n and free[path[-1]][0] > 0:\n"
    "            for a, b in zip(path, path[1:] + path[:1]):\n"
    "                free[a][b] -= 1\n"
    "            channels.append(path)\n"
    "    return channels",
}

WEAK_POINTS = {"ps8-efficiency": 2, "ps8-parse": 2, "ps8-fit": 2, "ps8-intervals": 2, "ps8-rings": 2}

WEAK_ANSWER = "网内归约让交换机做加法，所以 busbw 更高。ReduceScatter 也会变快，上限是 2(N−1)/N pβ。"

LIBRARY = {
    "ps8-efficiency": "def nccl_efficiency(primitive, n, size, time_s, alpha, beta):\n"
    "    return ccb.combined_lower_bound(primitive, n, size, alpha, beta) / time_s",
    "ps8-parse": "def parse_out_of_place(text):\n"
    "    return [(row.size, row.time_s) for row in ccb.read_nccl_tests(text).rows]",
    "ps8-fit": "def fit_alpha_beta(sizes, times, steps, factor):\n"
    "    import numpy as np\n"
    "    log = ccb.NcclTestsLog(rows=[ccb.NcclTestsRow(size=m, time_s=t) for m, t in zip(sizes, "
    "times)])\n"
    "    fit = ccb.fit_alpha_beta(log)\n"
    "    return fit.alpha, fit.beta",
    "ps8-intervals": "def selection_intervals(candidates):\n"
    "    sizes = [2**k for k in range(0, 41)]\n"
    "    picks = [min(candidates, key=lambda c: ccb.nccl_predict_time(c, m)) for m in sizes]\n"
    "    return [(p[0], float(m)) for m, p in zip(sizes, picks)]",
    "ps8-rings": "def ring_channels(links, count):\n"
    "    topology = ccb.topology_from_links(links)\n"
    "    return ccb.nccl_rings(topology, count)",
}

HARDCODED = {
    "ps8-efficiency": "def nccl_efficiency(primitive, n, size, time_s, alpha, beta):\n"
    '    return {("all_reduce", 8): 7 / 4 * 2**30 / 150e9 / 0.02, ("all_gather", 4): 3 / 4 * '
    "2**30 / 100e9 / 0.01}.get((primitive, n), 0.5)",
    "ps8-parse": "def parse_out_of_place(text):\n    return [(8, 61.03e-6), (4194304, 183.7e-6)]",
    "ps8-fit": "def fit_alpha_beta(sizes, times, steps, factor):\n    return (1e-6, 100e9)",
    "ps8-intervals": "def selection_intervals(candidates):\n"
    '    return [("Ring/LL", 0.0), ("Ring/Simple", 41e-6 / (1 / 50e9 - 1 / 205.7e9))]',
    "ps8-rings": "def ring_channels(links, count):\n    return [[0, 1, 2, 3], [0, 3, 2, 1]]",
}

# The course variant (CCB_GRADING_SALT at generate_assignment): answers written for the course's
# constants ({name} is filled with the course's value). The public solutions answer the default only.
VARIANT_ANSWERS = {
    "ps8-efficiency": "def nccl_efficiency(primitive, n, size, time_s, alpha, beta):\n"
    "    ports = {ps8-ports}\n"
    '    factor = {{"all_reduce": 2 * (n - 1) / n, "broadcast": 1.0, "reduce": 1.0}}.get(primitive, (n - 1) / n)\n'
    "    steps, reach = 0, 1\n"
    "    while reach < n:\n"
    "        reach *= ports + 1\n"
    "        steps += 1\n"
    "    return max(steps * alpha, factor * size / (ports * beta)) / time_s\n"
}
