"""Chapter 3 tables: both bandwidth-bound tables regenerated, attainment, busbw, in-network reduction."""

from __future__ import annotations

from typing import Sequence

from .._validation import (
    check_bandwidth,
    check_int,
    check_real,
    check_sequence,
    check_size,
)
from ..algorithms import ALGORITHM_LABELS
from ._common import MAX_ROWS, _ints, _preset, _ratio, _simulate, _simulations
from .table import Table


def _bound_latex(primitive: str, ports: int) -> str:
    p = "" if ports == 1 else f"{ports} "
    if primitive in ("broadcast", "reduce"):
        return rf"$\frac{{M}}{{{p}\beta}}$"
    factor = "2 " if primitive == "all_reduce" else ""
    return rf"$\frac{{{factor}(N-1) M}}{{{p}N \beta}}$"


def _verdict(ours: float, theirs: float) -> str:
    if abs(ours - theirs) <= 1e-12 * max(abs(ours), 1e-300):
        return "一致"
    if theirs > ours:
        return "原文偏大：不是下界"
    return "原文偏小：成立但不紧"


def bandwidth_table(ports: int = 1, n: int = 8, m: float = 2**30, beta: float = 100e9) -> Table:
    """``tbl-cc-bound-bw-1port`` (``ports=1``) regenerated: our S, R and bound next to the source's.

    Every cell is evaluated at ``(n, m, beta)`` and compared. ``values`` holds
    ``(primitive, S, R, bound seconds, source bound seconds, verdict, source S/R consistent?)``.

    >>> t = bandwidth_table(n=4, m=400.0, beta=1.0)
    >>> [(v[0], v[5]) for v in t.values if v[5] != "一致"]
    [('scatter', '原文偏大：不是下界'), ('gather', '原文偏大：不是下界')]
    >>> [v[0] for v in t.values if not v[6]]
    ['all_reduce']
    """
    from ..bandwidth import _bandwidth_lower_bound, _forced_volume
    from ..primitives import PRIMITIVE_LABELS, PRIMITIVES
    from ..source import OUR_BW_FORMULAS, SOURCE_BW_1PORT

    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    n = check_int("n", n, minimum=1, maximum=2**62, scalar=True)
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: ratios divide by it
    beta = check_bandwidth("beta", beta, scalar=True)

    def forced_volume(primitive, n, m):
        return _forced_volume(primitive, n, m, granular=False)  # the source's equal blocks of M/N

    def bandwidth_lower_bound(primitive, n, m, beta, ports=1):
        return _bandwidth_lower_bound(primitive, n, m, beta, ports, None)

    rows, values = [], []
    for primitive in PRIMITIVES:
        send, recv = forced_volume(primitive, n, m)
        bound = bandwidth_lower_bound(primitive, n, m, beta, ports=ports)
        src = SOURCE_BW_1PORT[primitive]
        src_bound = src["bound"][1](n, m, beta) / ports
        # Is the source's bound max(S, R) / beta of its own S and R?
        consistent = abs(max(src["S"][1](n, m), src["R"][1](n, m)) / beta / ports - src_bound) <= 1e-12 * src_bound
        verdict = _verdict(bound, src_bound)
        values.append((primitive, send, recv, bound, src_bound, verdict, consistent))
        rows.append(
            [
                PRIMITIVE_LABELS[primitive],
                OUR_BW_FORMULAS[primitive]["S"][0],
                OUR_BW_FORMULAS[primitive]["R"][0],
                _bound_latex(primitive, ports),
                src["bound"][0] + ("" if ports == 1 else f" ÷ {ports}"),
                verdict + ("" if consistent else "；原文 S、R 与其下界矛盾"),
            ]
        )
    headers = ["原语", "瓶颈节点必发 $S$", "瓶颈节点必收 $R$", "带宽下界（本书）", "原讲义的下界", f"核对（N = {n}）"]
    return Table(headers, rows, f"{ports}-port 各原语的带宽下界：推导值与原讲义逐格比较", values)


def bandwidth_table_2port(ns: Sequence[int] = (8, 9), m: float = 2**30, beta: float = 100e9) -> Table:
    """``tbl-cc-bound-bw-2port`` regenerated: the 2-port bound and the bidirectional ring's steps.

    >>> t = bandwidth_table_2port(ns=(9,))
    >>> [(v[0], v[1], v[4], v[5]) for v in t.values]
    [('reduce_scatter', 9, 4, 5), ('all_gather', 9, 4, 5), ('all_reduce', 9, 8, 9), ('all_to_all', 9, None, None)]
    """
    from ..algorithms import _terms
    from ..bandwidth import _bandwidth_lower_bound
    from ..primitives import PRIMITIVE_LABELS
    from ..source import SOURCE_BW_2PORT, SOURCE_RING_STEPS_2PORT

    ns = _ints("ns", ns, minimum=2, maximum=2**62)
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: ratios divide by it
    beta = check_bandwidth("beta", beta, scalar=True)

    def bandwidth_lower_bound(primitive, n, m, beta, ports):
        return _bandwidth_lower_bound(primitive, n, m, beta, ports, None)

    def algorithm_terms(algorithm, primitive, n, m, ports):
        return _terms(algorithm, primitive, n, m, ports, None, True)

    rows, values, ratios = [], [], set()
    for primitive in ("reduce_scatter", "all_gather", "all_reduce", "all_to_all"):
        for n in ns:
            bound = bandwidth_lower_bound(primitive, n, m, beta, ports=2)
            src_bound = SOURCE_BW_2PORT[primitive][1](n, m, beta)
            ratio = bound / bandwidth_lower_bound(primitive, n, m, beta, ports=1)
            if primitive in SOURCE_RING_STEPS_2PORT:
                steps = algorithm_terms("bidirectional_ring", primitive, n, m, ports=2).steps
                src_steps = SOURCE_RING_STEPS_2PORT[primitive][1](n)
                step_cells = [
                    str(steps),
                    f"{SOURCE_RING_STEPS_2PORT[primitive][0]} = {src_steps}",
                    "一致" if steps == src_steps else "原文多算一轮",
                ]
            else:
                steps = src_steps = None
                step_cells = ["—", "—", "—"]
            values.append((primitive, n, bound, src_bound, steps, src_steps))
            ratios.add(ratio)
            rows.append(
                [
                    PRIMITIVE_LABELS[primitive],
                    str(n),
                    _bound_latex(primitive, 2),
                    _verdict(bound, src_bound),
                    _ratio(ratio),
                ]
                + step_cells
            )
    headers = [
        "原语",
        "$N$",
        "带宽下界 (2-port)",
        "与原讲义比",
        "÷ 1-port 下界",
        "双向 Ring 实际轮数",
        "原讲义的轮数",
        "核对",
    ]
    caption = "2-port 带宽下界与双向 Ring 的轮数（奇偶 N 各一行）"
    if len(ratios) == 1:  # the same ratio in every row: say it once, keep the table narrow enough for the page
        headers.pop(4)
        for row in rows:
            row.pop(4)
        caption += f"；每一行的 2-port 下界都是 1-port 的 {_ratio(ratios.pop())} 倍"
    return Table(headers, rows, caption, values)


def bandwidth_attainment_table(ns: Sequence[int] = (4, 7, 8, 16), block: int = 1024) -> Table:
    """Simulated per-node bytes of ring RS / AG / AR and pairwise AllToAll against the forced volume.

    >>> bandwidth_attainment_table(ns=(4,), block=8).values[0]
    ('reduce_scatter', 4, 24, 24.0, True)
    """
    from ..bandwidth import forced_volume
    from ..primitives import PRIMITIVE_LABELS

    cases = [("ring", "reduce_scatter"), ("ring", "all_gather"), ("ring", "all_reduce"), ("pairwise", "all_to_all")]
    ns = _ints("ns", ns, minimum=1, maximum=2**62)  # the simulator's largest n
    block = check_int("block", block, minimum=0, maximum=2**62 // max(ns), scalar=True)  # m = block * n <= 2**62
    _simulations([(algorithm, primitive, n, block * n, 1, {}) for algorithm, primitive in cases for n in ns])
    rows, values = [], []
    for algorithm, primitive in cases:
        for n in ns:
            m = block * n
            result = _simulate(algorithm, primitive, n, m, 1, 0, None)
            busiest = int(max(result.bytes_sent.max(), result.bytes_received.max()))
            forced = max(forced_volume(primitive, n, m))
            values.append((primitive, n, busiest, forced, result.correct))
            rows.append(
                [
                    f"{ALGORITHM_LABELS[algorithm]} {PRIMITIVE_LABELS[primitive]}",
                    str(n),
                    str(m),
                    str(busiest),
                    f"{forced:g}",
                    "是" if busiest == forced else "否",
                    "正确" if result.correct else "错误",
                ]
            )
    headers = ["算法", "$N$", "$M$ (B)", "模拟：最忙节点收发字节", r"下界 $\max(S, R)$", "恰好达到？", "结果"]
    return Table(headers, rows, "模拟器中最忙节点实际收发的字节数与推导出的必传量", values)


def busbw_table(
    n: int = 8, sizes: Sequence[float] = (2**12, 2**16, 2**20, 2**24, 2**28), preset_key: str = "h100_nvswitch"
) -> Table:
    """nccl-tests style algbw / busbw of the modelled ring AllReduce, against the endpoint ceiling ``p beta``.

    The ring runs over all ``p = min(k, d)`` links of a GPU at once (NCCL stripes its rings over
    every NVLink), i.e. a ring whose links carry ``p * beta``.

    >>> t = busbw_table(n=8, sizes=(2**30,))
    >>> round(t.values[0][3], 3)   # busbw / (p beta) of a 1 GiB ring AllReduce
    1.0
    """
    from ..algorithms import _cost
    from ..bandwidth import _volume_coefficient
    from ..units import format_bandwidth, format_bytes, format_time

    n = check_int("n", n, minimum=2, maximum=2**62, scalar=True)
    sizes = [
        check_size(f"sizes[{i}]", m, scalar=True)
        for i, m in enumerate(check_sequence("sizes", sizes, max_length=MAX_ROWS))
    ]
    p = _preset(preset_key)
    node_beta = p.beta * p.effective_ports(n)
    rows, values = [], []
    for m in sizes:
        t = _cost("ring", "all_reduce", n, m, p.alpha, node_beta, 1)
        algbw, busbw = m / t, _volume_coefficient("all_reduce", n) * m / t
        values.append((m, algbw, busbw, busbw / node_beta))
        rows.append(
            [
                format_bytes(m),
                format_time(t),
                format_bandwidth(algbw),
                format_bandwidth(busbw),
                f"{busbw / node_beta:.1%}",
            ]
        )
    headers = [
        "$M$",
        "时间（α-β 模型）",
        "algbw = M / t",
        r"busbw = algbw $\times \frac{2(N-1)}{N}$",
        r"busbw / $p\beta$",
    ]
    return Table(
        headers,
        rows,
        f"{p.label}、N = {n} 的 Ring AllReduce（端点归约）：busbw 不超过 pβ = {format_bandwidth(node_beta)}",
        values,
    )


def in_network_table(n: int = 8, preset_key: str = "h100_nvswitch") -> Table:
    """Endpoint against in-network reduction: busiest node's bytes and the busbw ceiling, per primitive.

    ``values``: ``(primitive, endpoint max(S, R) / M, in-network max(S, R) / M, endpoint ceiling,
    in-network ceiling)`` with ceilings in bytes/s.

    >>> t = in_network_table(n=8)
    >>> [(v[0], v[1], v[2], v[4] / 1e9) for v in t.values if v[0] == "all_reduce"]
    [('all_reduce', 1.75, 1.0, 787.5)]
    """
    from ..bandwidth import _volume_coefficient
    from ..in_network import _in_network_volume, busbw_limit
    from ..primitives import PRIMITIVE_LABELS, PRIMITIVES
    from ..units import format_bandwidth

    n = check_int("n", n, minimum=2, maximum=2**62, scalar=True)
    p = _preset(preset_key)
    k = p.effective_ports(n)
    rows, values = [], []
    for primitive in PRIMITIVES:
        endpoint, inside = _volume_coefficient(primitive, n), max(_in_network_volume(primitive, n, 1.0, granular=False))
        low, high = (
            busbw_limit(primitive, n, p.beta, ports=k),
            busbw_limit(primitive, n, p.beta, ports=k, in_network=True),
        )
        values.append((primitive, endpoint, inside, low, high))
        rows.append(
            [
                PRIMITIVE_LABELS[primitive],
                f"{endpoint:.4g}",
                f"{inside:.4g}",
                format_bandwidth(low),
                format_bandwidth(high),
            ]
        )
    headers = ["原语", r"端点归约 $\max(S,R)/M$", r"网内归约 $\max(S,R)/M$", "busbw 上限（端点）", "busbw 上限（网内）"]
    return Table(
        headers,
        rows,
        f"N = {n}、每卡 pβ = {format_bandwidth(k * p.beta)}：交换机能相加、能复制时，只有 AllReduce 的必传量变小",
        values,
    )
