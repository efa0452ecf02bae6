"""Chapter 4 tables: the algorithm comparisons, simulated runs against the bound, Tree/Ring crossover, efficiency."""

from __future__ import annotations

from typing import Sequence

from .._validation import check_bandwidth, check_int, check_real, check_sequence
from ..algorithms import ALGORITHM_LABELS, algorithm_terms
from ..propagation import _info_steps as info_steps
from ._common import MAX_ROWS, _ints, _preset, _simulate, _simulations
from .table import Table

_VERDICTS = {"exact": "是（恰好）", "constant": "只差常数倍", "grows": "否"}


def algorithm_comparison_table(
    ports: int = 1, ns: Sequence[int] = (8, 12), m: float = 2**20, chunks: int = 64
) -> Table:
    """``tbl-cc-bound-1port-algo-cmp`` / ``tbl-cc-bound-2port-algo-cmp`` from the cost models.

    For each algorithm and ``N``: rounds and bandwidth coefficient, their ratios to the two lower
    bounds with ``ports`` ports, and the verdict (:func:`ccb_helpers.selection.optimality`). Every
    row is one configuration: the double binary tree appears unpipelined (the source's row, one
    chunk per tree) and pipelined with ``chunks`` chunks, both at ``ports`` ports (1 port: the
    two-colour form of Sanders, Speck & Träff). With 2 ports the table adds the bidirectional
    ring and the two-halves RHD; Bruck's AllReduce (reversed Bruck + Bruck, radix ``ports + 1``)
    closes both.

    >>> t = algorithm_comparison_table(ports=1, ns=(8,))
    >>> [(v[0], v[2], v[5], v[6]) for v in t.values]   # doctest: +NORMALIZE_WHITESPACE
    [('ring', 14, 'grows', 'exact'), ('double_binary_tree_unpipelined', 10, 'constant', 'grows'),
     ('double_binary_tree', 262, 'constant', 'grows'), ('recursive_halving_doubling', 6, 'constant', 'exact'),
     ('bruck', 6, 'constant', 'exact')]
    """
    from ..selection import optimality

    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    ns = _ints("ns", ns, minimum=2, maximum=2**62)
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: ratios divide by it
    # (algorithm, pipelined): the double binary tree appears unpipelined (the source's row) and pipelined.
    rows_spec = [("ring", True)] if ports == 1 else [("bidirectional_ring", True)]
    rows_spec += [("double_binary_tree", False), ("double_binary_tree", True), ("recursive_halving_doubling", True)]
    if ports >= 2:
        rows_spec.append(("recursive_halving_doubling_2port", True))
    rows_spec.append(("bruck", True))
    rows, values = [], []
    for algorithm, pipelined in rows_spec:
        for n in ns:
            options = {}
            if algorithm == "double_binary_tree":
                options = {"chunks": chunks} if pipelined else {"pipelined": False}
            cost = algorithm_terms(algorithm, "all_reduce", n, m, ports=ports, **options)
            steps, coeff = cost.steps, cost.bandwidth_bytes / m
            o = optimality(algorithm, "all_reduce", n, m, ports=ports, pipelined=pipelined, chunks=chunks)
            key = algorithm if pipelined or algorithm != "double_binary_tree" else "double_binary_tree_unpipelined"
            values.append((key, n, steps, coeff, ports, o["latency"], o["bandwidth"]))
            name = ALGORITHM_LABELS[algorithm]
            if algorithm == "double_binary_tree":
                name += f"（{chunks} 块流水线）" if pipelined else "（未流水线）"
            bound_steps = info_steps(n, ports)
            rows.append(
                [
                    name,
                    str(n),
                    f"{steps}α（下界 {bound_steps}α）",
                    _VERDICTS[o["latency"]] + (f"，{o['steps_ratio']:.3g}×" if o["latency"] != "exact" else ""),
                    f"{coeff:.4g}",
                    _VERDICTS[o["bandwidth"]] + (f"，{o['bandwidth_ratio']:.3g}×" if o["bandwidth"] != "exact" else ""),
                ]
            )
    headers = ["算法", "$N$", "延迟项", "达到延迟下界？", r"带宽系数（$\times M/\beta$）", "达到带宽下界？"]
    return Table(headers, rows, f"{ports}-port AllReduce 算法与下界（倍数 = 算法 / 下界；每行一种配置）", values)


def simulated_vs_bound_table(
    cases=(
        ("ring", 16, 2**20),
        ("recursive_halving_doubling", 16, 2**20),
        ("double_binary_tree", 16, 2**20),
        ("ring", 16, 2**12),
        ("recursive_halving_doubling", 16, 2**12),
        ("double_binary_tree", 16, 2**12),
    ),
    preset_key: str = "a100_nvlink",
) -> Table:
    """Run AllReduce schedules in the simulator and compare their α-β time with both lower bounds.

    A case is ``(algorithm, n, m)`` (the algorithm's fewest ports) or ``(algorithm, n, m, ports)``.
    Efficiency = bound / simulated time, against the max form (:func:`combined_lower_bound`) and
    the sum form (:func:`round_lower_bound`, the one the simulator's round model obeys).
    ``values``: ``(algorithm, n, m, ports, t_sim, t_model, max bound, sum bound, correct)``.

    >>> t = simulated_vs_bound_table(cases=(("ring", 4, 4096),))
    >>> t.values[0][:4]
    ('ring', 4, 4096, 1)
    """
    from ..algorithms import _cost, _model, _optimal_chunks
    from ..bounds import _combined_lower_bound, _round_lower_bound
    from ..units import format_bytes, format_time

    p = _preset(preset_key)
    cases = check_sequence("cases", cases, max_length=MAX_ROWS)
    runs = []
    for i, case in enumerate(cases):
        if not isinstance(case, (list, tuple)) or len(case) not in (3, 4):
            raise TypeError(f"cases[{i}] must be (algorithm, n, m) or (algorithm, n, m, ports), got {case!r}"[:200])
        algorithm, n, m = case[:3]
        try:
            model = _model(algorithm, "all_reduce")
        except (TypeError, ValueError) as err:
            raise type(err)(f"cases[{i}] algorithm: {err}") from None
        n = check_int(f"cases[{i}] n", n, minimum=2, maximum=2**62, scalar=True)  # the efficiency divides by the time
        m = check_int(f"cases[{i}] m", m, minimum=0, maximum=2**62, scalar=True)
        if len(case) == 4:
            ports = check_int(f"cases[{i}] ports", case[3], minimum=model.min_ports, maximum=2**20, scalar=True)
        else:
            ports = model.min_ports
        options = {"chunks": _optimal_chunks(n, m, p.alpha, p.beta)} if algorithm == "double_binary_tree" else {}
        runs.append((algorithm, "all_reduce", n, m, ports, options))
    _simulations(runs)
    rows, values = [], []
    for algorithm, _, n, m, ports, options in runs:
        result = _simulate(algorithm, "all_reduce", n, m, ports, 0, options.get("chunks"))
        t_sim = result.time(p.alpha, p.beta)
        t_model = _cost(algorithm, "all_reduce", n, m, p.alpha, p.beta, ports, options.get("chunks"))
        top = _combined_lower_bound("all_reduce", n, m, p.alpha, p.beta, ports, 0, None)
        total = _round_lower_bound("all_reduce", n, m, p.alpha, p.beta, ports, 0, None)
        values.append((algorithm, n, m, ports, t_sim, t_model, top, total, result.correct))
        rows.append(
            [
                ALGORITHM_LABELS[algorithm] + (f"（{options['chunks']} 块）" if options else ""),
                str(n),
                format_bytes(m),
                str(ports),
                str(result.rounds),
                format_time(t_sim),
                f"{top / t_sim:.0%}",
                f"{total / t_sim:.0%}",
                "正确" if result.correct else "错误",
            ]
        )
    headers = ["算法", "$N$", "$M$", "端口", "模拟轮数", "模拟时间", "效率（max 下界）", "效率（和式下界）", "结果"]
    return Table(
        headers, rows, f"模拟器中运行的 AllReduce（{p.label} 的 α、β）；效率 = 同端口数的下界 / 模拟时间", values
    )


def tree_ring_crossover_table(
    ns: Sequence[int] = (4, 8, 16, 32, 64, 128, 256, 512), preset_key: str = "a100_nvlink", ports: int = 2
) -> Table:
    """Size where NCCL's two AllReduce algorithms (Ring, pipelined double binary tree) cost the same.

    Both use 2 ports: the ring runs in both directions (``bidirectional_ring``), as NCCL's rings
    use every link; the tree uses each rank's two trees at once.

    >>> t = tree_ring_crossover_table(ns=(8, 64))
    >>> t.values[0][1] < t.values[1][1]
    True
    """
    from ..selection import _crossover_between
    from ..units import format_bytes

    ns = _ints("ns", ns, minimum=2, maximum=2**62)
    p = _preset(preset_key)
    ports = check_int("ports", ports, minimum=2, maximum=2**62, scalar=True)
    rows, values = [], []
    for n in ns:
        m = _crossover_between(
            "double_binary_tree", "bidirectional_ring", "all_reduce", n, p.alpha, p.beta, ports, 1.0, 2.0**44
        )
        values.append((n, m))
        rows.append([str(n), "—" if m is None else format_bytes(m)])
    return Table(
        ["$N$", "Tree 与 Ring（双向）等时的消息大小"],
        rows,
        f"{p.label}：小于该大小时双二叉树更快，大于时 Ring 更快（{ports} 端口）",
        values,
    )


def efficiency_table(
    n: int = 64, alpha: float = 2e-6, beta: float = 50e9, ports: int = 1, span: float = 2.0**10
) -> Table:
    """Efficiency (bound / cost) of every AllReduce algorithm against the max and the sum bound.

    At ``M*`` (the crossover of the two terms) and the smallest value over sizes from
    ``M*/span`` to ``M* span``. Against the max, every algorithm is at most 1/2 at ``M*`` (the sum
    is twice the max there, and no algorithm beats the sum in the round model). ``values``:
    ``(algorithm, max-eff at M*, sum-eff at M*, min max-eff, min sum-eff)``. ``alpha > 0`` (so that
    ``M* > 0``), ``1 <= span`` and ``M* span <= 2**96`` bytes.

    >>> v = efficiency_table(n=64).values
    >>> [(a, round(e1, 3), round(e2, 3)) for a, e1, e2, *_ in v if a == "recursive_halving_doubling"]
    [('recursive_halving_doubling', 0.333, 0.667)]
    """
    import numpy as np

    from ..algorithms import applicable_algorithms, efficiency
    from ..bounds import crossover_size

    n = check_int("n", n, minimum=2, maximum=2**62, scalar=True)
    alpha = check_real("alpha", alpha, minimum=0.0, strict=True, maximum=1e9, scalar=True)  # M* = 0 otherwise
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    span = check_real("span", span, minimum=1.0, maximum=2.0**96, scalar=True)
    m_star = crossover_size("all_reduce", n, alpha, beta, ports=ports)
    if m_star * span > 2.0**96:
        raise ValueError(
            f"span (or alpha x beta): the largest size M* x span = {m_star:.3g} x {span:.3g} bytes exceeds 2**96 bytes"
        )
    sizes = np.geomspace(m_star / span, m_star * span, 801)
    rows, values = [], []
    for algorithm in applicable_algorithms("all_reduce", n=n, ports=ports):
        at = [
            efficiency(algorithm, "all_reduce", n, m_star, alpha, beta, ports, bound=b) for b in ("combined", "round")
        ]
        low = [
            float(np.min(efficiency(algorithm, "all_reduce", n, sizes, alpha, beta, ports, bound=b)))
            for b in ("combined", "round")
        ]
        values.append((algorithm, at[0], at[1], low[0], low[1]))
        rows.append([ALGORITHM_LABELS[algorithm], f"{at[0]:.2f}", f"{at[1]:.2f}", f"{low[0]:.2f}", f"{low[1]:.2f}"])
    headers = ["算法", "$M^*$ 处：max 下界", "$M^*$ 处：和式下界", "最低：max 下界", "最低：和式下界"]
    return Table(
        headers,
        rows,
        f"AllReduce 的效率（下界 / 代价），N = {n}、{ports}-port；最低值取 M*/{span:g} 到 {span:g}·M*",
        values,
    )
