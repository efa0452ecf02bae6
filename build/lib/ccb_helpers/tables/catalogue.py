"""Chapter 4 tables of the full catalogue (#38): non-powers of two, pipelined rooted primitives, γ."""

from __future__ import annotations

import math
from typing import Sequence

from .._validation import check_choice, check_int, check_real, check_sequence
from ..algorithms import ALGORITHM_LABELS
from ..hardware import PRESETS
from ._common import MAX_ROWS, _ints, _preset
from .table import Table

__all__ = ["non_power_of_two_table", "pipelined_rooted_table", "computation_table", "fat_tree_allreduce_table"]


def _reals(name: str, values, minimum: float, maximum: float) -> list[float]:
    items = check_sequence(name, values, max_length=MAX_ROWS)
    return [check_real(f"{name}[{i}]", v, minimum=minimum, maximum=maximum, scalar=True) for i, v in enumerate(items)]


def non_power_of_two_table(
    ns: Sequence[int] = (3, 5, 6, 7, 12, 24, 48, 96, 100),
    sizes: Sequence[float] = (2.0**16, 2.0**20, 2.0**26),
    preset_key: str = "a100_nvlink",
) -> Table:
    """1-port AllReduce at N not a power of two: the catalogue without and with Bruck's AllReduce.

    For each ``(N, M)``: the fastest algorithm of the catalogue *without* ``bruck`` (ring, trees,
    MPICH's folded halving-doubling and doubling), the fastest of the full catalogue, and the
    bandwidth-optimal log-round target ``2 ceil(log2 N) alpha + 2 (N - 1) M / (N beta)``; the
    ratios are time / target. ``values``: ``(n, m, old name, old time, new name, new time, target)``.

    >>> t = non_power_of_two_table(ns=(12,), sizes=(2**20,))
    >>> t.values[0][2], t.values[0][4], round(t.values[0][3] / t.values[0][6], 2)   # the audit's case
    ('ring', 'bruck', 1.24)
    """
    from ..algorithms import _applicable, _best_algorithm, _cost
    from ..units import format_bytes, format_time

    ns = _ints("ns", ns, minimum=2, maximum=2**20)
    sizes = _reals("sizes", sizes, minimum=0.0, maximum=2.0**60)
    p = _preset(preset_key)
    rows, values = [], []
    for n in ns:
        for m in sizes:
            old = [a for a in _applicable("all_reduce", n, 1) if a != "bruck"]
            old_times = {a: _cost(a, "all_reduce", n, m, p.alpha, p.beta, 1) for a in old}
            old_name = min(old, key=lambda a: (old_times[a], old.index(a)))
            new_name, new_time = _best_algorithm("all_reduce", n, m, p.alpha, p.beta, 1)
            target = 2 * math.ceil(math.log2(n)) * p.alpha + 2 * (n - 1) * m / (n * p.beta)
            values.append((n, m, old_name, old_times[old_name], new_name, new_time, target))
            rows.append(
                [
                    str(n),
                    format_bytes(m),
                    ALGORITHM_LABELS[old_name],
                    f"{format_time(old_times[old_name])}（{old_times[old_name] / target:.2f}×）",
                    ALGORITHM_LABELS[new_name],
                    f"{format_time(new_time)}（{new_time / target:.2f}×）",
                ]
            )
    headers = ["$N$", "$M$", "原目录最快", "时间（目标的倍数）", "完整目录最快", "时间（目标的倍数）"]
    return Table(
        headers,
        rows,
        f"N 不是 2 的幂时的 1-port AllReduce（{p.label}）；目标 = 2⌈log₂N⌉α + 2(N−1)M/(Nβ)",
        values,
    )


_ROOTED = (
    ("binomial_tree", 1),
    ("scatter_allgather", 1),
    ("bruck", 1),
    ("pipelined_chain", 1),
    ("pipelined_binary_tree", 1),
    ("pipelined_binary_tree", 2),
)


#: What Bruck's rooted models are (binomial scatter + Bruck all-gather, and its reverse).
_ROOTED_LABELS = {("bruck", "broadcast"): "Scatter + Bruck", ("bruck", "reduce"): "Bruck RS + Gather"}


def pipelined_rooted_table(
    n: int = 64, m: float = 2.0**26, preset_key: str = "a100_nvlink", primitive: str = "broadcast", gamma: float = 0.0
) -> Table:
    """Broadcast (or Reduce) by the rooted algorithms, the pipelined ones at their best segment count.

    Columns: segments ``s`` (:func:`ccb_helpers.optimal_segments`), rounds, bandwidth coefficient,
    time, the closed form ``(sqrt(A alpha) + sqrt(B M / beta))^2`` at the real optimum (pipelined
    rows, shown for ``gamma = 0``), and the time over the round bound with the same ports (with
    ``gamma`` both sides include the computation). ``values``: ``(algorithm, ports, s, rounds,
    coefficient, time, closed form or None, round bound)``.

    >>> v = pipelined_rooted_table(n=10, m=2**20).values
    >>> [(a, k, s) for a, k, s, *_ in v if a == "pipelined_chain"]   # s* = sqrt(8 M / (alpha beta)) = 14.96
    [('pipelined_chain', 1, 15)]
    """
    from ..algorithms import _cost, _terms
    from ..algorithms.pipelined import _optimal, _pipeline
    from ..bounds import _round_lower_bound
    from ..units import format_time

    n = check_int("n", n, minimum=2, maximum=2**20, scalar=True)
    m = check_real("m", m, minimum=1.0, maximum=2.0**60, scalar=True)
    p = _preset(preset_key)
    primitive = check_choice("primitive", primitive, ("broadcast", "reduce"))
    gamma = check_real("gamma", gamma, minimum=0.0, maximum=1e9, scalar=True)
    rows, values = [], []
    for algorithm, ports in _ROOTED:
        if algorithm == "scatter_allgather" and primitive != "broadcast":
            continue
        pipelined = algorithm.startswith("pipelined")
        s = _optimal(algorithm, primitive == "reduce")(n, m, p.alpha, p.beta, gamma, ports) if pipelined else None
        cost = _terms(algorithm, primitive, n, m, ports, s, True)
        time = _cost(algorithm, primitive, n, m, p.alpha, p.beta, ports, s, True, gamma)
        closed = None
        if pipelined and gamma == 0:
            fill, per = (int(x) for x in _pipeline(algorithm, n, ports))
            closed = (math.sqrt(fill * p.alpha) + math.sqrt(per * m / p.beta)) ** 2
        bound = _round_lower_bound(primitive, n, m, p.alpha, p.beta, ports, 0, None, gamma)
        values.append((algorithm, ports, s, int(cost.steps), cost.bandwidth_bytes / m, time, closed, bound))
        rows.append(
            [
                _ROOTED_LABELS.get((algorithm, primitive), ALGORITHM_LABELS[algorithm]),
                str(ports),
                "—" if s is None else str(s),
                str(int(cost.steps)),
                f"{cost.bandwidth_bytes / m:.3g}",
                format_time(time),
                "—" if closed is None else format_time(closed),
                f"{time / bound:.2f}",
            ]
        )
    headers = ["算法", "端口", "段数 $s$", "轮数", r"带宽系数（$\times M/\beta$）", "时间", "闭式 $T^*$", "/ 和式下界"]
    name = "Broadcast" if primitive == "broadcast" else "Reduce"
    return Table(headers, rows, f"{name}，N = {n}，{p.label}；流水线算法取最优段数", values)


def computation_table(
    preset_keys: Sequence[str] = ("v100_nvlink2", "a100_nvlink", "h100_nvswitch", "b200_nvlink5", "mi300x_xgmi"),
    n: int = 8,
    m: float = 2.0**28,
) -> Table:
    """γ of the GPU presets next to ``1 / beta``, and what it adds to AllReduce's bounds and best time.

    ``values``: ``(key, gamma, 1/beta, bandwidth term, computation term, best without γ, best with γ)``
    (terms of the 1-port sum bound, times of :func:`ccb_helpers.best_algorithm`).

    >>> v = computation_table(preset_keys=("h100_nvswitch",)).values[0]
    >>> round(v[1] * 1e12, 3), round(v[2] * 1e12)   # 0.896 ps a byte added, 40 ps a byte sent
    (0.896, 40)
    """
    from ..algorithms import _best_algorithm
    from ..bandwidth import _bandwidth_lower_bound
    from ..bounds import _computation_lower_bound
    from ..units import format_time

    keys = check_sequence("preset_keys", preset_keys, max_length=MAX_ROWS)
    n = check_int("n", n, minimum=2, maximum=2**20, scalar=True)
    m = check_real("m", m, minimum=0.0, maximum=2.0**60, scalar=True)
    rows, values = [], []
    for i, key in enumerate(keys):
        p = PRESETS[check_choice(f"preset_keys[{i}]", key, PRESETS)]
        if p.gamma is None:
            raise ValueError(f"preset_keys[{i}]: preset {key!r} gives no gamma (no processor named)")
        bandwidth = float(_bandwidth_lower_bound("all_reduce", n, m, p.beta, 1, None))
        compute = float(_computation_lower_bound("all_reduce", n, m, p.gamma))
        plain = _best_algorithm("all_reduce", n, m, p.alpha, p.beta, 1)
        with_gamma = _best_algorithm("all_reduce", n, m, p.alpha, p.beta, 1, p.gamma)
        values.append((key, p.gamma, 1 / p.beta, bandwidth, compute, plain, with_gamma))
        rows.append(
            [
                p.label,
                f"{p.gamma * 1e12:.3g}",
                f"{1e12 / p.beta:.3g}",
                f"{compute / bandwidth:.1%}" if bandwidth > 0 else "—",  # M = 0: neither term
                f"{ALGORITHM_LABELS[plain[0]]} {format_time(plain[1])}",
                f"{ALGORITHM_LABELS[with_gamma[0]]} {format_time(with_gamma[1])}",
            ]
        )
    headers = ["预设", "γ（ps/B）", "1/β（ps/B）", "计算项 / 带宽项", "最快（γ = 0）", "最快（计入 γ）"]
    return Table(headers, rows, f"归约的计算代价 γ：AllReduce，N = {n}，1-port", values)


def fat_tree_allreduce_table(
    n: int = 32, oversubscriptions: Sequence[float] = (1, 2, 4), m: int = 2**20, preset_key: str = "ib_ndr"
) -> Table:
    """AllReduce on the book's fat trees with link contention, against the node and bisection bounds.

    Per fat tree (``ccb.fat_tree(n, oversubscription=o)``) and algorithm: Patarasuk & Yuan's ring
    (:func:`ccb_helpers.patarasuk_yuan`), the same ring with the ranks placed round-robin over the
    leaves, Bruck's AllReduce and (``n`` a power of two) recursive halving-doubling, each byte-checked
    on the topology (:func:`ccb_helpers.run_schedule`) and timed with its messages routed
    (:func:`ccb_helpers.routed_loads`). ``values``: ``(o, algorithm, messages per link, time,
    node bound, bisection bound, correct, bandwidth term, spread bandwidth term)``; the bounds are
    bandwidth terms (chapter 3's node bound with one link per endpoint, chapter 5's bisection
    bound, below it on every fat tree here) and the table gives the routed bandwidth term over the
    node bound. The last value is the simulator's bandwidth term, each leaf's uplink bytes spread
    evenly over its spines (:func:`ccb_helpers.run_schedule`): no routing of the same rounds does
    better, so it tells the contention the schedule cannot avoid from the contention of the hash
    (on a 1:1 fat tree every round of these schedules routes without a shared link).

    >>> v = fat_tree_allreduce_table(n=16, oversubscriptions=(2,), m=2**14).values
    >>> [(a, k) for _, a, k, *_ in v]
    [('patarasuk_yuan', 1), ('ring_round_robin', 4), ('bruck', 4), ('recursive_halving_doubling', 4)]
    """
    from ..bisection import _bisection_lower_bound, _node_lower_bound
    from ..generators import _generate
    from ..routed import routed_loads
    from ..simulator import run_schedule
    from ..topology import fat_tree
    from ..tree_allreduce import patarasuk_yuan, place
    from ..units import format_bytes, format_time

    n = check_int("n", n, minimum=4, maximum=64, scalar=True)  # every schedule is run and routed: seconds
    m = check_int("m", m, minimum=0, maximum=2**30, scalar=True)
    if n * m > 2**26:  # every run holds n buffers of m bytes, the expected result and its masks
        raise ValueError(f"n * m must stay within 2**26 bytes (the byte-checked runs), got n={n}, m={m}")
    os = _reals("oversubscriptions", oversubscriptions, minimum=1.0, maximum=float(n))
    p = _preset(preset_key)
    rows, values = [], []
    labels = {
        "patarasuk_yuan": "Patarasuk–Yuan",
        "ring_round_robin": "Ring（轮流放置）",
        "bruck": ALGORITHM_LABELS["bruck"],
        "recursive_halving_doubling": "RHD",
    }
    for o in os:
        topology = fat_tree(n, oversubscription=o)
        leaves = topology.n // _hosts_per_leaf(topology)
        round_robin = [(r % leaves) * (n // leaves) + r // leaves for r in range(n)]
        schedules = {
            "patarasuk_yuan": patarasuk_yuan(topology, m),
            "ring_round_robin": place(_generate("ring", "all_reduce", n, m, 1, 0, None), round_robin),
            "bruck": _generate("bruck", "all_reduce", n, m, 1, 0, None),
        }
        if n & (n - 1) == 0:
            schedules["recursive_halving_doubling"] = _generate(
                "recursive_halving_doubling", "all_reduce", n, m, 1, 0, None
            )
        node = float(_node_lower_bound("all_reduce", topology, m, p.beta, 1))
        bisection = float(_bisection_lower_bound("all_reduce", topology, m, p.beta))
        for name, schedule in schedules.items():
            run = run_schedule(schedule, topology=topology)
            loads = routed_loads(schedule, topology)
            term = loads.bandwidth_bytes / p.beta
            time = len(schedule.rounds) * p.alpha + term
            spread = run.bandwidth_bytes / p.beta
            values.append((o, name, int(loads.link_messages.max()), time, node, bisection, run.correct, term, spread))
            rows.append(
                [
                    f"{o:g}:1",
                    labels[name],
                    str(int(loads.link_messages.max())),
                    format_time(term),
                    f"{term / node:.2f}",
                    f"{bisection / node:.3f}",
                    "正确" if run.correct else "错误",
                ]
            )
    headers = [
        "超额订阅",
        "算法",
        "链路上最多消息",
        "带宽项（含争用）",
        "/ 节点下界",
        "Bisection / 节点",
        "结果",
    ]
    return Table(
        headers, rows, f"{n} 个端点的 fat-tree 上的 AllReduce，M = {format_bytes(m)}，{p.label} 的 α、β", values
    )


def _hosts_per_leaf(topology) -> int:
    """Endpoints under the first leaf switch of a fat tree."""
    return sum(1 for v in topology.graph.neighbors(("leaf", 0)) if not isinstance(v, tuple))
