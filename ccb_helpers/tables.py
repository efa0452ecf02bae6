"""Tables the chapters show, computed from the helpers (never typed).

A :class:`Table` renders as Markdown in Jupyter and on the book's pages (so ``$...$`` math in
headers works) and as aligned text elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ._validation import check_bandwidth, check_cap, check_choice, check_int, check_real, check_sequence, check_size
from .algorithms import ALGORITHM_LABELS, algorithm_terms
from .broadcast import _search_broadcast_steps, search_broadcast_steps
from .hardware import PRESETS
from .primitives import PRIMITIVES
from .propagation import _info_steps as info_steps
from .topology import Topology, check_topology, fully_connected

__all__ = [
    "Table",
    "info_propagation_table",
    "preset_steps_table",
    "broadcast_attainment_table",
    "exhaustive_broadcast_table",
]

#: Most rows (items of each sequence argument) of a table.
MAX_ROWS = 64


def _ints(name: str, values, minimum: int, maximum: int | None = None) -> list[int]:
    """A sequence argument of integers (``ns``, ``ks``): at most ``MAX_ROWS`` items, each in range."""
    items = check_sequence(name, values, max_length=MAX_ROWS)
    return [check_int(f"{name}[{i}]", v, minimum=minimum, maximum=maximum, scalar=True) for i, v in enumerate(items)]


def _choices(name: str, values, allowed) -> list[str]:
    items = check_sequence(name, values, max_length=MAX_ROWS)
    return [check_choice(f"{name}[{i}]", v, allowed) for i, v in enumerate(items)]


def _topologies(name: str, values) -> list:
    items = check_sequence(name, values, max_length=MAX_ROWS)
    return [check_topology(t, f"{name}[{i}]") for i, t in enumerate(items)]


def _preset(key):
    return PRESETS[check_choice("preset_key", key, PRESETS)]


def _simulations(cases) -> list:
    """Validate simulator runs ``(algorithm, primitive, n, m, ports, options)``; their rounds and
    transfers together must stay within one run's caps (so a table costs at most one big run)."""
    from .generators import MAX_ROUNDS, MAX_TRANSFERS, _check_generate
    from .simulator import DEFAULT_MAX_BYTES, _check_budget, _memory_estimate
    from .schedule import buffers_for

    checked, rounds, transfers = [], 0, 0
    for algorithm, primitive, n, m, ports, options in cases:
        try:
            args = _check_generate(algorithm, primitive, n, m, ports, options.get("root", 0), options.get("chunks"), True)
            n, m, ports, root, chunks, r, t = args
            _check_budget(f"simulating {algorithm} {primitive} on n={n}, m={m}",
                          _memory_estimate(n, m, len(buffers_for(primitive)) + 1, 0, r) + 256 * t, DEFAULT_MAX_BYTES)
        except (TypeError, ValueError) as err:
            raise type(err)(f"the table's run of {algorithm} {primitive} with n={n}, m={m}, ports={ports}: {err}") from None
        rounds, transfers = rounds + r, transfers + t
        checked.append((algorithm, primitive, n, m, ports, root, chunks))
    check_cap("the table's simulations together: rounds", rounds, MAX_ROUNDS)
    check_cap("the table's simulations together: transfers", transfers, MAX_TRANSFERS)
    return checked


def _simulate(algorithm, primitive, n, m, ports, root, chunks, topology=None):
    from .generators import _generate
    from .simulator import _run_schedule

    return _run_schedule(_generate(algorithm, primitive, n, m, ports, root, chunks), ports, topology, 0)


@dataclass
class Table:
    """Headers, rows of cells (already formatted strings) and an optional caption."""

    headers: Sequence[str]
    rows: list[Sequence[str]]
    caption: str = ""
    values: list = field(default_factory=list, repr=False)  # the raw numbers, for tests

    def __post_init__(self):
        if not isinstance(self.headers, (list, tuple)) or not all(isinstance(h, str) for h in self.headers):
            raise TypeError("headers must be a list of strings")
        if not isinstance(self.rows, list) or not all(isinstance(r, (list, tuple)) for r in self.rows):
            raise TypeError("rows must be a list of rows (lists of cells)")
        bad = [i for i, r in enumerate(self.rows) if len(r) != len(self.headers)]
        if bad:
            raise ValueError(f"rows must have one cell per header ({len(self.headers)}); row {bad[0]} has {len(self.rows[bad[0]])}")
        if not isinstance(self.caption, str):
            raise TypeError(f"caption must be a string, got {type(self.caption).__name__}")
        if not isinstance(self.values, list):
            raise TypeError(f"values must be a list, got {type(self.values).__name__}")

    def to_markdown(self) -> str:
        lines = ["| " + " | ".join(self.headers) + " |", "|" + "---|" * len(self.headers)]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in self.rows]
        if self.caption:
            lines.append("")
            lines.append(f"*{self.caption}*")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:
        cells = [list(map(str, self.headers))] + [list(map(str, r)) for r in self.rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.headers))]
        out = ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in cells]
        return "\n".join(([self.caption] if self.caption else []) + out)


def _percent(saved: int, total: int) -> str:
    # Integer rounding of 100 * saved / total, half up.
    return f"{(200 * saved + total) // (2 * total)}%" if total else "—"


def info_propagation_table(ns: Sequence[int] = (4, 8, 16, 32, 64), k: int = 2) -> Table:
    """``tbl-cc-bound-info-prop``: 1-port vs k-port information steps and the reduction.

    >>> t = info_propagation_table()
    >>> t.values
    [(4, 2, 2), (8, 3, 2), (16, 4, 3), (32, 5, 4), (64, 6, 4)]
    >>> t.rows[1]
    ['8', '3', '2', '33%']
    """
    ns = _ints("ns", ns, minimum=1)
    k = check_int("k", k, minimum=2, scalar=True)
    rows, values = [], []
    for n in ns:
        one, many = info_steps(n, 1), info_steps(n, k)
        values.append((n, one, many))
        rows.append([str(n), str(one), str(many), _percent(one - many, one)])
    headers = ["$N$", r"1-port $\lceil \log_2 N \rceil$", rf"{k}-port $\lceil \log_{{{k + 1}}} N \rceil$", "步数减少"]
    return Table(headers, rows, f"1-port 与 {k}-port 的信息传播步数（由 ccb.info_steps 计算）", values)


def preset_steps_table(ns: Sequence[int] = (8, 64, 1024), keys: Sequence[str] = ("sg2260", "a100_nvlink", "ib_ndr")) -> Table:
    """Information-bound steps and latency bound for hardware presets: ``p = min(k, d)``.

    ``k`` is what the hardware can keep in flight, ``d`` the links it has into the fabric
    (``HardwarePreset.links``; ``—`` when the topology decides). A host with one NIC has ``d = 1``
    however many queue pairs it opens. ``values``: ``(key, n, k, p, steps)``.

    >>> preset_steps_table(ns=(64,), keys=("sg2260", "ib_ndr")).values
    [('sg2260', 64, 2, 2, 4), ('ib_ndr', 64, 63, 1, 6)]
    """
    ns = _ints("ns", ns, minimum=1)
    keys = _choices("keys", keys, PRESETS)
    rows, values = [], []
    for key in keys:
        p = PRESETS[key]
        for n in ns:
            k, used = p.ports_for(n), p.effective_ports(n)
            steps = info_steps(n, used)
            values.append((key, n, k, used, steps))
            rows.append([p.label, str(n), "all-port" if p.ports is None else str(k), "—" if p.links is None else str(p.links),
                         str(used), str(steps), f"{steps * p.alpha * 1e6:.1f} µs"])
    return Table(["硬件", "$N$", "$k$", "$d$", r"$p = \min(k, d)$", r"$\lceil \log_{p+1} N \rceil$", r"下界 $\cdot\,\alpha$"], rows,
                 "典型硬件的端口数给出的信息传播步数：端口再多，也只能用上接入网络的链路数（α 取各预设的近似值）", values)


def broadcast_attainment_table(ns: Sequence[int] = (5, 8, 16, 27, 100, 1000), ks: Sequence[int] = (1, 2, 6), m: int = 4096) -> Table:
    """Run k-nomial broadcasts in the simulator: rounds against the information bound.

    One row per ``n``; each ``k`` column shows the simulated rounds and the bound.

    >>> t = broadcast_attainment_table(ns=(9,), ks=(2,), m=64)
    >>> t.values, t.rows
    ([(9, 2, 2, 2, True)], [['9', '2 / 2', '达到下界，结果正确']])
    """
    ns = _ints("ns", ns, minimum=1)
    ks = _ints("ks", ks, minimum=1)
    m = check_int("m", m, minimum=0, scalar=True)
    _simulations([("binomial_tree", "broadcast", n, m, k, {}) for n in ns for k in ks])
    rows, values = [], []
    for n in ns:
        cells, ok = [str(n)], True
        for k in ks:
            result = _simulate("binomial_tree", "broadcast", n, m, k, 0, None, topology=fully_connected(n) if n <= 64 else None)
            bound = info_steps(n, k)
            values.append((n, k, result.rounds, bound, result.correct))
            ok = ok and result.correct and result.rounds == bound
            cells.append(f"{result.rounds} / {bound}")
        cells.append("达到下界，结果正确" if ok else "未达到或结果错误")
        rows.append(cells)
    headers = ["$N$"] + [rf"$k = {k}$：模拟 / 下界" for k in ks] + ["结论"]
    return Table(headers, rows, f"{ALGORITHM_LABELS['binomial_tree']}（k-nomial）broadcast 在模拟器中运行的轮数 / "
                 r"$\lceil \log_{k+1} N \rceil$", values)


def exhaustive_broadcast_table(ns: Sequence[int] = range(2, 10), ks: Sequence[int] = (1, 2)) -> Table:
    """Exhaustive search on complete graphs: no schedule beats ``ceil(log_{k+1} N)``.

    >>> exhaustive_broadcast_table(ns=(7,), ks=(1,)).values
    [(7, 1, 3, 3)]
    """
    ns = _ints("ns", ns, minimum=2, maximum=12)
    ks = _ints("ks", ks, minimum=1, maximum=11)
    rows, values = [], []
    for n in ns:
        cells = [str(n)]
        for k in ks:
            best = _search_broadcast_steps(fully_connected(n), k, 0)
            bound = info_steps(n, k)
            values.append((n, k, best, bound))
            cells += [str(best), str(bound)]
        rows.append(cells)
    headers = ["$N$"] + [h for k in ks for h in (f"{k}-port 穷举最优", rf"$\lceil \log_{{{k + 1}}} N \rceil$")]
    return Table(headers, rows, "全连接图上穷举所有调度得到的最少 broadcast 轮数", values)


def diameter_table(topologies, k: int = 1, measure_up_to: int = 2000) -> Table:
    """Diameters from closed forms next to BFS measurements, and which latency bound binds.

    ``measure_up_to``: graphs with more vertices show the closed form only.

    >>> from ccb_helpers.topology import ring, torus
    >>> diameter_table([ring(16), torus(8, 8)]).values
    [('ring 16', 16, 2, 8, 8, 4, 'diameter'), ('torus 8x8', 64, 4, 8, 8, 6, 'diameter')]
    """
    from .diameter import binding_latency_term
    from .topology import MAX_MEASURE_WORK, _graph_elements, _measured_diameter as measured_diameter

    topologies = _topologies("topologies", topologies)
    k = check_int("k", k, minimum=1, scalar=True)
    measure_up_to = check_int("measure_up_to", measure_up_to, minimum=0, scalar=True)
    measured = [t for t in topologies if t.n + (t.n if t.switched else 0) <= measure_up_to]
    check_cap("diameter_table: BFS work of the measured topologies", sum(t.n * _graph_elements(t) for t in measured),
              MAX_MEASURE_WORK, hint="lower measure_up_to")
    labels = {"diameter": "直径", "information": "信息传播", "tie": "两者相等"}
    rows, values = [], []
    for topo in topologies:
        p = max(1, min(k, topo.degree))
        info = info_steps(topo.n, p)
        measured = measured_diameter(topo) if topo.n + (topo.n if topo.switched else 0) <= measure_up_to else None
        binding = binding_latency_term(topo, k)
        values.append((topo.name, topo.n, topo.degree, topo.diameter, measured, info, binding))
        rows.append([topo.name.split(" (")[0], str(topo.n), str(topo.degree), str(topo.diameter),
                     "—" if measured is None else str(measured), str(topo.step_diameter), str(info), labels[binding]])
    headers = ["拓扑", "$N$", "度 $d$", "直径 $D$（闭式）", "BFS 实测", "延迟用的 $D$（轮）",
               rf"$\lceil \log_{{p+1}} N \rceil$（$p=\min({k},d)$）", "更紧的是"]
    return Table(headers, rows, "各拓扑的直径：闭式与在图上 BFS 实测一致；交换机网络中一轮即可跨越全网", values)


def ring_diameter_table(ns: Sequence[int] = (4, 8, 16, 32), search_up_to: int = 14) -> Table:
    """``tbl-cc-bound-ring-diam`` plus the true minimum broadcast rounds on the ring (1- and 2-port).

    >>> ring_diameter_table(ns=(7,)).values
    [(7, 3, 3, 4, 3, True)]
    """
    from .broadcast import SEARCH_MAX_ENDPOINTS, _formula
    from .topology import ring

    ns = _ints("ns", ns, minimum=2, maximum=2**62)
    search_up_to = check_int("search_up_to", search_up_to, minimum=0, maximum=SEARCH_MAX_ENDPOINTS, scalar=True)
    rows, values = [], []
    for n in ns:
        topo = ring(n)
        diam, eff = n // 2, -(-(n - 1) // 2)
        one, two = _formula(topo, 1, 0), _formula(topo, 2, 0)
        checked = n <= search_up_to and one == _search_broadcast_steps(topo, 1, 0) and two == _search_broadcast_steps(topo, 2, 0)
        values.append((n, diam, eff, one, two, checked if n <= search_up_to else None))
        rows.append([str(n), str(diam), str(eff), str(one), str(two), "一致" if checked else ("—" if n > search_up_to else "不一致")])
    headers = ["$N$", r"Ring 直径 $\lfloor N/2 \rfloor$", r"2-port 有效直径 $\lceil (N-1)/2 \rceil$",
               "1-port 最少 broadcast 轮数", "2-port 最少 broadcast 轮数", "穷举搜索核对"]
    return Table(headers, rows, "Ring 的直径与真实的最少 broadcast 轮数（公式与小规模穷举）", values)


def first_diameter_bound_table(families=("ring", "torus2d", "torus3d", "mesh2d", "hypercube", "fat_tree", "fully_connected"),
                               ks: Sequence[int] = (1, 2), max_n: int = 10**4) -> Table:
    """From which N on each family is diameter-bound (``None``: never, up to ``max_n``).

    >>> first_diameter_bound_table(families=("ring",), ks=(1,)).values
    [('ring', 1, 10)]
    """
    from .diameter import FAMILIES, MAX_INSTANCES, _family_sizes, first_diameter_bound

    families = _choices("families", families, FAMILIES)
    ks = _ints("ks", ks, minimum=1)
    max_n = check_int("max_n", max_n, minimum=2, maximum=2**62, scalar=True)
    check_cap("first_diameter_bound_table: topologies to build", len(ks) * sum(len(_family_sizes(f, max_n)) for f in families),
              MAX_INSTANCES)
    rows, values = [], []
    for family in families:
        cells = [FAMILIES[family][0]]
        for k in ks:
            first = first_diameter_bound(family, max_n=max_n, k=k)
            values.append((family, k, first))
            cells.append("从不" if first is None else f"N ≥ {first}")
        rows.append(cells)
    headers = ["拓扑族"] + [f"{k}-port：直径更紧" for k in ks]
    return Table(headers, rows, f"从哪个 N 起（直到 N = {max_n}）直径始终比信息传播下界更紧", values)


def kport_ring_table(n: int = 16, ks: Sequence[int] = (1, 2, 3, 4, 6)) -> Table:
    """``ceil((N-1)/k)`` against the true minimum broadcast rounds on a k-port ring.

    >>> kport_ring_table(16, ks=(1, 2, 3)).values
    [(1, 15, 8, 8), (2, 8, 8, 8), (3, 5, 8, 8)]
    """
    from .broadcast import _formula
    from .topology import ring

    n = check_int("n", n, minimum=2, maximum=2**62, scalar=True)
    ks = _ints("ks", ks, minimum=1)
    rows, values = [], []
    topo = ring(n)
    for k in ks:
        formula = -(-(n - 1) // k)
        true = _formula(topo, k, 0)
        values.append((k, formula, true, topo.diameter))
        verdict = "相等" if formula == true else ("公式偏大" if formula > true else "公式偏小（低于真实最少轮数）")
        rows.append([str(k), str(formula), str(true), str(topo.diameter), verdict])
    return Table(["$k$", r"$\lceil (N-1)/k \rceil$", "Ring 上最少 broadcast 轮数", r"直径 $\lfloor N/2 \rfloor$", "比较"],
                 rows, f"N = {n} 的 Ring：k ≥ 2 时真实轮数恒为 ⌊N/2⌋，与 k 无关", values)


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
    from .bandwidth import _bandwidth_lower_bound, _forced_volume
    from .primitives import PRIMITIVE_LABELS, PRIMITIVES
    from .source import OUR_BW_FORMULAS, SOURCE_BW_1PORT

    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    n = check_int("n", n, minimum=1, maximum=2**62, scalar=True)
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: ratios divide by it
    beta = check_bandwidth("beta", beta, scalar=True)

    def forced_volume(primitive, n, m):
        return _forced_volume(primitive, n, m)

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
        rows.append([
            PRIMITIVE_LABELS[primitive], OUR_BW_FORMULAS[primitive]["S"][0], OUR_BW_FORMULAS[primitive]["R"][0],
            _bound_latex(primitive, ports), src["bound"][0] + ("" if ports == 1 else f" ÷ {ports}"),
            verdict + ("" if consistent else "；原文 S、R 与其下界矛盾"),
        ])
    headers = ["原语", "瓶颈节点必发 $S$", "瓶颈节点必收 $R$", "带宽下界（本书）", "原讲义的下界", f"核对（N = {n}）"]
    return Table(headers, rows, f"{ports}-port 各原语的带宽下界：推导值与原讲义逐格比较", values)


def bandwidth_table_2port(ns: Sequence[int] = (8, 9), m: float = 2**30, beta: float = 100e9) -> Table:
    """``tbl-cc-bound-bw-2port`` regenerated: the 2-port bound and the bidirectional ring's steps.

    >>> t = bandwidth_table_2port(ns=(9,))
    >>> [(v[0], v[1], v[4], v[5]) for v in t.values]
    [('reduce_scatter', 9, 4, 5), ('all_gather', 9, 4, 5), ('all_reduce', 9, 8, 9), ('all_to_all', 9, None, None)]
    """
    from .algorithms import _terms
    from .bandwidth import _bandwidth_lower_bound
    from .primitives import PRIMITIVE_LABELS
    from .source import SOURCE_BW_2PORT, SOURCE_RING_STEPS_2PORT

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
                step_cells = [str(steps), f"{SOURCE_RING_STEPS_2PORT[primitive][0]} = {src_steps}",
                              "一致" if steps == src_steps else "原文多算一轮"]
            else:
                steps = src_steps = None
                step_cells = ["—", "—", "—"]
            values.append((primitive, n, bound, src_bound, steps, src_steps))
            ratios.add(ratio)
            rows.append([PRIMITIVE_LABELS[primitive], str(n), _bound_latex(primitive, 2), _verdict(bound, src_bound),
                         _ratio(ratio)] + step_cells)
    headers = ["原语", "$N$", "带宽下界 (2-port)", "与原讲义比", "÷ 1-port 下界", "双向 Ring 实际轮数", "原讲义的轮数", "核对"]
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
    from .bandwidth import forced_volume
    from .primitives import PRIMITIVE_LABELS

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
            rows.append([f"{ALGORITHM_LABELS[algorithm]} {PRIMITIVE_LABELS[primitive]}", str(n), str(m), str(busiest),
                         f"{forced:g}", "是" if busiest == forced else "否", "正确" if result.correct else "错误"])
    headers = ["算法", "$N$", "$M$ (B)", "模拟：最忙节点收发字节", r"下界 $\max(S, R)$", "恰好达到？", "结果"]
    return Table(headers, rows, "模拟器中最忙节点实际收发的字节数与推导出的必传量", values)


def busbw_table(n: int = 8, sizes: Sequence[float] = (2**12, 2**16, 2**20, 2**24, 2**28), preset_key: str = "h100_nvswitch") -> Table:
    """nccl-tests style algbw / busbw of the modelled ring AllReduce, against the endpoint ceiling ``p beta``.

    The ring runs over all ``p = min(k, d)`` links of a GPU at once (NCCL stripes its rings over
    every NVLink), i.e. a ring whose links carry ``p * beta``.

    >>> t = busbw_table(n=8, sizes=(2**30,))
    >>> round(t.values[0][3], 3)   # busbw / (p beta) of a 1 GiB ring AllReduce
    1.0
    """
    from .algorithms import _cost
    from .bandwidth import _volume_coefficient
    from .units import format_bandwidth, format_bytes, format_time

    n = check_int("n", n, minimum=2, maximum=2**62, scalar=True)
    sizes = [check_size(f"sizes[{i}]", m, scalar=True) for i, m in enumerate(check_sequence("sizes", sizes, max_length=MAX_ROWS))]
    p = _preset(preset_key)
    node_beta = p.beta * p.effective_ports(n)
    rows, values = [], []
    for m in sizes:
        t = _cost("ring", "all_reduce", n, m, p.alpha, node_beta, 1)
        algbw, busbw = m / t, _volume_coefficient("all_reduce", n) * m / t
        values.append((m, algbw, busbw, busbw / node_beta))
        rows.append([format_bytes(m), format_time(t), format_bandwidth(algbw), format_bandwidth(busbw), f"{busbw / node_beta:.1%}"])
    headers = ["$M$", "时间（α-β 模型）", "algbw = M / t", r"busbw = algbw $\times \frac{2(N-1)}{N}$", r"busbw / $p\beta$"]
    return Table(headers, rows, f"{p.label}、N = {n} 的 Ring AllReduce（端点归约）：busbw 不超过 pβ = {format_bandwidth(node_beta)}", values)


def in_network_table(n: int = 8, preset_key: str = "h100_nvswitch") -> Table:
    """Endpoint against in-network reduction: busiest node's bytes and the busbw ceiling, per primitive.

    ``values``: ``(primitive, endpoint max(S, R) / M, in-network max(S, R) / M, endpoint ceiling,
    in-network ceiling)`` with ceilings in bytes/s.

    >>> t = in_network_table(n=8)
    >>> [(v[0], v[1], v[2], v[4] / 1e9) for v in t.values if v[0] == "all_reduce"]
    [('all_reduce', 1.75, 1.0, 787.5)]
    """
    from .bandwidth import forced_volume
    from .in_network import busbw_limit, in_network_volume
    from .primitives import PRIMITIVE_LABELS, PRIMITIVES
    from .units import format_bandwidth

    n = check_int("n", n, minimum=2, maximum=2**62, scalar=True)
    p = _preset(preset_key)
    k = p.effective_ports(n)
    rows, values = [], []
    for primitive in PRIMITIVES:
        endpoint, inside = max(forced_volume(primitive, n, 1.0)), max(in_network_volume(primitive, n, 1.0))
        low, high = busbw_limit(primitive, n, p.beta, ports=k), busbw_limit(primitive, n, p.beta, ports=k, in_network=True)
        values.append((primitive, endpoint, inside, low, high))
        rows.append([PRIMITIVE_LABELS[primitive], f"{endpoint:.4g}", f"{inside:.4g}", format_bandwidth(low), format_bandwidth(high)])
    headers = ["原语", r"端点归约 $\max(S,R)/M$", r"网内归约 $\max(S,R)/M$", "busbw 上限（端点）", "busbw 上限（网内）"]
    return Table(headers, rows, f"N = {n}、每卡 pβ = {format_bandwidth(k * p.beta)}：交换机能相加、能复制时，只有 AllReduce 的必传量变小", values)


_VERDICTS = {"exact": "是（恰好）", "constant": "只差常数倍", "grows": "否"}


def algorithm_comparison_table(ports: int = 1, ns: Sequence[int] = (8, 12), m: float = 2**20, chunks: int = 64) -> Table:
    """``tbl-cc-bound-1port-algo-cmp`` / ``tbl-cc-bound-2port-algo-cmp`` from the cost models.

    For each algorithm and ``N``: rounds and bandwidth coefficient, their ratios to the two lower
    bounds with ``ports`` ports, and the verdict (:func:`ccb_helpers.selection.optimality`). Every
    row is one configuration: the double binary tree appears unpipelined (the source's row, one
    chunk per tree) and pipelined with ``chunks`` chunks, both at ``ports`` ports (1 port: the
    two-colour form of Sanders, Speck & Träff). With 2 ports the table adds the bidirectional
    ring and the two-halves RHD.

    >>> t = algorithm_comparison_table(ports=1, ns=(8,))
    >>> [(v[0], v[2], v[5], v[6]) for v in t.values]   # doctest: +NORMALIZE_WHITESPACE
    [('ring', 14, 'grows', 'exact'), ('double_binary_tree_unpipelined', 10, 'constant', 'grows'),
     ('double_binary_tree', 262, 'constant', 'grows'), ('recursive_halving_doubling', 6, 'constant', 'exact')]
    """
    from .selection import optimality

    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    ns = _ints("ns", ns, minimum=2, maximum=2**62)
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: ratios divide by it
    # (algorithm, pipelined): the double binary tree appears unpipelined (the source's row) and pipelined.
    rows_spec = [("ring", True)] if ports == 1 else [("bidirectional_ring", True)]
    rows_spec += [("double_binary_tree", False), ("double_binary_tree", True), ("recursive_halving_doubling", True)]
    if ports >= 2:
        rows_spec.append(("recursive_halving_doubling_2port", True))
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
            rows.append([name, str(n), f"{steps}α（下界 {bound_steps}α）",
                         _VERDICTS[o["latency"]] + (f"，{o['steps_ratio']:.3g}×" if o["latency"] != "exact" else ""),
                         f"{coeff:.4g}", _VERDICTS[o["bandwidth"]] + (f"，{o['bandwidth_ratio']:.3g}×" if o["bandwidth"] != "exact" else "")])
    headers = ["算法", "$N$", "延迟项", "达到延迟下界？", r"带宽系数（$\times M/\beta$）", "达到带宽下界？"]
    return Table(headers, rows, f"{ports}-port AllReduce 算法与下界（倍数 = 算法 / 下界；每行一种配置）", values)


def simulated_vs_bound_table(cases=(("ring", 16, 2**20), ("recursive_halving_doubling", 16, 2**20), ("double_binary_tree", 16, 2**20),
                                    ("ring", 16, 2**12), ("recursive_halving_doubling", 16, 2**12), ("double_binary_tree", 16, 2**12)),
                             preset_key: str = "a100_nvlink") -> Table:
    """Run AllReduce schedules in the simulator and compare their α-β time with both lower bounds.

    A case is ``(algorithm, n, m)`` (the algorithm's fewest ports) or ``(algorithm, n, m, ports)``.
    Efficiency = bound / simulated time, against the max form (:func:`combined_lower_bound`) and
    the sum form (:func:`round_lower_bound`, the one the simulator's round model obeys).
    ``values``: ``(algorithm, n, m, ports, t_sim, t_model, max bound, sum bound, correct)``.

    >>> t = simulated_vs_bound_table(cases=(("ring", 4, 4096),))
    >>> t.values[0][:4]
    ('ring', 4, 4096, 1)
    """
    from .algorithms import ALGORITHMS, _cost, _model, _optimal_chunks
    from .bounds import _combined_lower_bound, _round_lower_bound
    from .units import format_bytes, format_time

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
        rows.append([ALGORITHM_LABELS[algorithm] + (f"（{options['chunks']} 块）" if options else ""), str(n), format_bytes(m),
                     str(ports), str(result.rounds), format_time(t_sim), f"{top / t_sim:.0%}", f"{total / t_sim:.0%}",
                     "正确" if result.correct else "错误"])
    headers = ["算法", "$N$", "$M$", "端口", "模拟轮数", "模拟时间", "效率（max 下界）", "效率（和式下界）", "结果"]
    return Table(headers, rows, f"模拟器中运行的 AllReduce（{p.label} 的 α、β）；效率 = 同端口数的下界 / 模拟时间", values)


def tree_ring_crossover_table(ns: Sequence[int] = (4, 8, 16, 32, 64, 128, 256, 512), preset_key: str = "a100_nvlink", ports: int = 2) -> Table:
    """Size where NCCL's two AllReduce algorithms (Ring, pipelined double binary tree) cost the same.

    Both use 2 ports: the ring runs in both directions (``bidirectional_ring``), as NCCL's rings
    use every link; the tree uses each rank's two trees at once.

    >>> t = tree_ring_crossover_table(ns=(8, 64))
    >>> t.values[0][1] < t.values[1][1]
    True
    """
    from .selection import _crossover_between
    from .units import format_bytes

    ns = _ints("ns", ns, minimum=2, maximum=2**62)
    p = _preset(preset_key)
    ports = check_int("ports", ports, minimum=2, maximum=2**62, scalar=True)
    rows, values = [], []
    for n in ns:
        m = _crossover_between("double_binary_tree", "bidirectional_ring", "all_reduce", n, p.alpha, p.beta, ports, 1.0, 2.0**44)
        values.append((n, m))
        rows.append([str(n), "—" if m is None else format_bytes(m)])
    return Table(["$N$", "Tree 与 Ring（双向）等时的消息大小"], rows,
                 f"{p.label}：小于该大小时双二叉树更快，大于时 Ring 更快（{ports} 端口）", values)


_TIGHTER = {"node": "节点级", "bisection": "bisection", "tie": "相等"}


def _ratio(value: float) -> str:
    """A ratio as a plain number with three significant digits: 8/7 -> ``"1.14"``, 2 -> ``"2"``.

    >>> _ratio(8 / 7), _ratio(2.0), _ratio(8 / 3)
    ('1.14', '2', '2.67')
    """
    return f"{value:.3g}"


def _short_name(topo) -> str:
    """``"fat-tree 64 hosts，o = 4"``-style labels: the name without the construction details."""
    name = topo.name.split(" (")[0]
    return name + (f"，o = {_ratio(topo.oversubscription)}" if topo.oversubscription != 1 else "")


def bisection_width_table(topologies, search_up_to: int = 16) -> Table:
    """Bisection widths: closed form, exhaustive balanced min-cut (small graphs) and the constructed cut.

    >>> from ccb_helpers.topology import ring, torus
    >>> bisection_width_table([ring(9), torus(3, 3)]).values
    [('ring 9', 9, 2, 2, 2), ('torus 3x3', 9, 8, 8, 8)]
    """
    from .bisection import MAX_FLOW_ELEMENTS, bisection_partition, cut_links
    from .topology import MAX_MEASURE_WORK, _bisection_plan, _graph_elements, _measured_bisection

    topologies = _topologies("topologies", topologies)
    search_up_to = check_int("search_up_to", search_up_to, minimum=0, scalar=True)
    plans = [_bisection_plan(t, search_up_to) if t.n <= search_up_to else None for t in topologies]
    check_cap("bisection_width_table: exhaustive search work", sum(plan[1] for plan in plans if plan), MAX_MEASURE_WORK,
              hint="lower search_up_to")
    check_cap("bisection_width_table: max-flow graph elements", sum(_graph_elements(t) for t in topologies if t.switched),
              MAX_FLOW_ELEMENTS)

    def measured_bisection(topo):
        return _measured_bisection(topo, plans[topologies.index(topo)][0])

    rows, values = [], []
    for topo in topologies:
        exhaustive = measured_bisection(topo) if topo.n <= search_up_to else None
        constructed = cut_links(topo, bisection_partition(topo))
        values.append((topo.name, topo.n, topo.bisection_links, exhaustive, constructed))
        rows.append([_short_name(topo), str(topo.n), str(topo.bisection_links), "—" if exhaustive is None else str(exhaustive),
                     str(constructed)])
    return Table(["拓扑", "$N$", "bisection 链路数（闭式）", "穷举最小平衡割", "书中画出的割"], rows,
                 "Bisection 宽度：闭式、穷举（N ≤ 16）与构造出的割三者一致", values)


def bisection_comparison_table(topologies, m: float = 2**30, beta: float = 50e9, primitives=("all_reduce", "all_to_all")) -> Table:
    """``tbl-cc-bound-bisection-cmp`` extended: bisection vs node-level bound, per topology and primitive.

    The node-level bound uses every link of a node (``p = degree``), as the bisection bound uses
    every link of the cut. ``values``: ``(topology, primitive, bisection s, node s, tighter)``.

    >>> from ccb_helpers.topology import ring
    >>> [v[-1] for v in bisection_comparison_table([ring(64)]).values]
    ['node', 'bisection']
    """
    from .bisection import _bisection_lower_bound, _node_lower_bound
    from .primitives import PRIMITIVE_LABELS
    from .units import format_time

    from .bisection import _compare

    topologies = _topologies("topologies", topologies)
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: ratios divide by it
    beta = check_bandwidth("beta", beta, scalar=True)
    primitives = _choices("primitives", primitives, PRIMITIVES)

    def bisection_lower_bound(primitive, topo, m, beta):
        return _bisection_lower_bound(primitive, topo, m, beta)

    def node_lower_bound(primitive, topo, m, beta, ports):
        return _node_lower_bound(primitive, topo, m, beta, ports)

    labels = {"node": "节点级", "bisection": "bisection", "tie": "相等"}
    rows, values = [], []
    for topo in topologies:
        cells = [_short_name(topo), str(topo.n), f"{topo.bisection_links} β"]
        for primitive in primitives:
            bis = bisection_lower_bound(primitive, topo, m, beta)
            node = node_lower_bound(primitive, topo, m, beta, ports=max(topo.degree, 1))
            tighter = _compare(bis, node)
            values.append((topo.name, primitive, bis, node, tighter))
            cells += [format_time(bis), format_time(node), labels[tighter]]
        rows.append(cells)
    headers = ["拓扑", "$N$", r"$B_{\text{bisection}}$"]
    for primitive in primitives:
        headers += ["bisection 下界", "节点级下界", "更紧的是"] if len(primitives) == 1 else \
            [f"{PRIMITIVE_LABELS[primitive]}：bisection", f"{PRIMITIVE_LABELS[primitive]}：节点级", "更紧的是"]
    from .units import format_bytes

    which = "、".join(PRIMITIVE_LABELS[p] for p in primitives)
    return Table(headers, rows, f"{which}：bisection 下界与节点级下界（M = {format_bytes(m)}，每条链路 β = {beta / 1e9:g} GB/s）", values)


def source_bisection_table(ns: Sequence[int] = (16, 64, 256, 1024, 4096), m: float = 2**30, beta: float = 50e9) -> Table:
    """The source's three rows of ``tbl-cc-bound-bisection-cmp`` checked at several N, for AllReduce.

    >>> t = source_bisection_table(ns=(64,))
    >>> [(v[0], v[2], v[5]) for v in t.values]
    [('ring', 0.5, 'node'), ('fat_tree', 0.5, 'node'), ('torus2d', 0.5, 'node')]
    """
    from .bisection import _bisection_lower_bound as bisection_lower_bound, _compare, _node_lower_bound
    from .source import SOURCE_BISECTION
    from .topology import MAX_FAT_TREE_HOSTS, fat_tree, ring, torus

    import math

    ns = _ints("ns", ns, minimum=4, maximum=MAX_FAT_TREE_HOSTS)
    squares = [n for n in ns if math.isqrt(n) ** 2 != n]
    if squares:
        raise ValueError(f"ns must be perfect squares (the 2D torus is sqrt(N) x sqrt(N)), got {squares[0]}")
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: ratios divide by it
    beta = check_bandwidth("beta", beta, scalar=True)

    def node_lower_bound(primitive, topo, m, beta, ports):
        return _node_lower_bound(primitive, topo, m, beta, ports)

    rows, values = [], []
    for key, builder in (("ring", ring), ("fat_tree", fat_tree), ("torus2d", lambda n: torus(int(round(n**0.5)), int(round(n**0.5))))):
        b_text, src_text, src_fn, _node_text, src_verdict = SOURCE_BISECTION[key]
        for n in ns:
            topo = builder(n)
            bis = bisection_lower_bound("all_reduce", topo, m, beta)
            node = node_lower_bound("all_reduce", topo, m, beta, ports=max(topo.degree, 1))
            tighter = _compare(bis, node)
            ratio = src_fn(n, m, beta) / bis
            values.append((key, n, ratio, bis, node, tighter))
            rows.append([_short_name(topo), f"{topo.bisection_links} 条（原文 {b_text}）", src_text, f"{ratio:g}",
                         f"{bis / node:.3g}", _TIGHTER[tighter], src_verdict])
    headers = ["拓扑", r"$B_{\text{bisection}}$", "原文的 bisection 下界", "原文 / 正确值", "bisection / 节点级（正确值）", "更紧的是", "原文的结论"]
    return Table(headers, rows, "原讲义 tbl-cc-bound-bisection-cmp 的三行（AllReduce），逐个 N 核对", values)


def oversubscription_table(n: int = 64, hosts_per_leaf: int = 8, m: float = 2**30, beta: float = 50e9,
                           primitives=("all_reduce", "all_to_all")) -> Table:
    """Bisection vs node bound on a two-level fat-tree for every oversubscription factor it admits.

    16 hosts, 4 per leaf, 2:1: 4 cut links carry 8 * 8 * M / 16 = 4M, i.e. M / beta, just above the
    node bound 15/16 M / beta:

    >>> t = oversubscription_table(n=16, hosts_per_leaf=4)
    >>> [(v[0], v[-1]) for v in t.values if v[1] == "all_to_all"]
    [(1.0, 'node'), (1.3333333333333333, 'node'), (2.0, 'bisection'), (4.0, 'bisection')]
    """
    from .bisection import _bisection_lower_bound as bisection_lower_bound, _compare, _node_lower_bound
    from .primitives import PRIMITIVE_LABELS
    from .topology import MAX_FAT_TREE_HOSTS, fat_tree
    from .units import format_time

    # One row per (o, primitive): six narrow columns fit the page column, where one row per o with
    # three columns per primitive (eight in all) pushed the verdicts off the page.
    n = check_int("n", n, minimum=4, maximum=MAX_FAT_TREE_HOSTS, scalar=True)
    hosts_per_leaf = check_int("hosts_per_leaf", hosts_per_leaf, minimum=1, maximum=min(MAX_ROWS, n // 2), scalar=True)
    if n % hosts_per_leaf:
        raise ValueError(f"hosts_per_leaf must divide n={n}, got {hosts_per_leaf}")
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: ratios divide by it
    beta = check_bandwidth("beta", beta, scalar=True)
    primitives = _choices("primitives", primitives, PRIMITIVES)

    def node_lower_bound(primitive, topo, m, beta, ports=1):
        return _node_lower_bound(primitive, topo, m, beta, ports)

    rows, values = [], []
    for spines in range(hosts_per_leaf, 0, -1):
        o = hosts_per_leaf / spines
        topo = fat_tree(n, oversubscription=o, hosts_per_leaf=hosts_per_leaf)
        for primitive in primitives:
            bis = bisection_lower_bound(primitive, topo, m, beta)
            node = node_lower_bound(primitive, topo, m, beta)
            tighter = _compare(bis, node)
            values.append((o, primitive, bis, node, tighter))
            rows.append([_ratio(o), str(topo.bisection_links), PRIMITIVE_LABELS[primitive], format_time(bis), format_time(node),
                         _TIGHTER[tighter]])
    headers = ["$o$", "割上的链路", "原语", "bisection 下界", "节点级下界", "更紧的是"]
    return Table(headers, rows, f"两级 fat-tree（{n} 台主机，每个 leaf {hosts_per_leaf} 台）随 oversubscription $o$ 的变化", values)


#: Most exhaustive gossip searches one :func:`ring_gossip_table` runs.
RING_GOSSIP_MAX_SEARCHES = 16


def ring_gossip_table(ns: Sequence[int] = range(3, 11), ports: int = 1) -> Table:
    """True minimum AllReduce / AllGather rounds on a ring against its two latency bounds.

    ``values``: ``(n, diameter, ceil(log_{p+1} N), max of the two, gossip rounds)``; the rounds
    come from :func:`ccb_helpers.gossip_rounds` (exhaustive search with 1 port, the diameter
    with 2). Caps, checked before any search: with ``ports=1`` each ``n <= 16`` (the search's
    limit) and at most :data:`RING_GOSSIP_MAX_SEARCHES` = 16 searches (each within the search's
    own budgets, a ring of at most 16 nodes takes under 2 s here).

    >>> ring_gossip_table(ns=(5, 6)).values
    [(5, 2, 3, 3, 4), (6, 3, 3, 3, 3)]
    """
    from .gossip import gossip_rounds
    from .topology import ring

    from .gossip import SEARCH_MAX_NODES, _closed_form

    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    ns = _ints("ns", ns, minimum=2, maximum=SEARCH_MAX_NODES if ports == 1 else 2**62)
    searches = sum(_closed_form(ring(n), ports) is None for n in ns)
    check_cap("ring_gossip_table: exhaustive gossip searches", searches, RING_GOSSIP_MAX_SEARCHES,
              hint="give fewer ns")
    rows, values = [], []
    for n in ns:
        topo = ring(n)
        info = info_steps(n, min(ports, max(topo.degree, 1)))
        bound = max(topo.diameter, info)
        rounds = gossip_rounds(topo, ports=ports)
        values.append((n, topo.diameter, info, bound, rounds))
        verdict = "达到" if rounds == bound else f"达不到（多 {rounds - bound} 轮）"
        rows.append([str(n), str(topo.diameter), str(info), str(bound), str(rounds), verdict])
    headers = ["$N$", r"直径 $\lfloor N/2 \rfloor$", rf"$\lceil \log_{{{ports + 1}}} N \rceil$", "两个下界的较大者",
               "穷举：最少轮数", "下界能否达到"]
    return Table(headers, rows, f"{ports}-port Ring 上 AllReduce / AllGather 的真实最少轮数（ccb.gossip_rounds 穷举）", values)


def source_node_bound_table(ns: Sequence[int] = (16, 256), m: float = 2**30, beta: float = 50e9) -> Table:
    """The node-level column of the source's ``tbl-cc-bound-bisection-cmp``, checked for AllReduce.

    The source prints ``(N-1)M/(N beta)`` for all three rows. The AllReduce node bound is
    ``2(N-1)M/(N p beta)``: the source's value is that bound only with ``p = 2``, i.e. for the
    ring used with both its links. ``values``: ``(family, n, degree, source s, p=1 s, p=d s, matches)``.

    >>> [(v[0], v[6]) for v in source_node_bound_table(ns=(16,)).values]
    [('ring', 'p = d'), ('fat_tree', '都不是'), ('torus2d', '都不是')]
    """
    import math

    from .bandwidth import _bandwidth_lower_bound as bandwidth_lower_bound
    from .topology import MAX_FAT_TREE_HOSTS, fat_tree, ring, torus
    from .units import format_time

    ns = _ints("ns", ns, minimum=4, maximum=MAX_FAT_TREE_HOSTS)
    squares = [n for n in ns if math.isqrt(n) ** 2 != n]
    if squares:
        raise ValueError(f"ns must be perfect squares (the 2D torus is sqrt(N) x sqrt(N)), got {squares[0]}")
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: the match is relative
    beta = check_bandwidth("beta", beta, scalar=True)
    rows, values = [], []
    for key, builder in (("ring", ring), ("fat_tree", fat_tree), ("torus2d", lambda n: torus(math.isqrt(n), math.isqrt(n)))):
        for n in ns:
            topo = builder(n)
            source = (n - 1) * m / (n * beta)
            one = bandwidth_lower_bound("all_reduce", n, m, beta, 1, None)
            every = bandwidth_lower_bound("all_reduce", n, m, beta, topo.degree, None)
            close = lambda a, b: abs(a - b) <= 1e-12 * b  # noqa: E731
            match = "p = d" if close(source, every) else ("p = 1" if close(source, one) else "都不是")
            values.append((key, n, topo.degree, source, one, every, match))
            rows.append([_short_name(topo), str(topo.degree), format_time(source), format_time(one), format_time(every), match])
    headers = ["拓扑", "度 $d$", r"原文 $\frac{(N-1)M}{N\beta}$", "$p = 1$", "$p = d$", "原文等于"]
    return Table(headers, rows, "原讲义节点级下界一列（AllReduce）与 p = 1、p = d 的正确值", values)


def efficiency_table(n: int = 64, alpha: float = 2e-6, beta: float = 50e9, ports: int = 1, span: float = 2.0**10) -> Table:
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

    from .algorithms import applicable_algorithms, efficiency
    from .bounds import crossover_size

    n = check_int("n", n, minimum=2, maximum=2**62, scalar=True)
    alpha = check_real("alpha", alpha, minimum=0.0, strict=True, maximum=1e9, scalar=True)  # M* = 0 otherwise
    beta = check_bandwidth("beta", beta, scalar=True)
    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    span = check_real("span", span, minimum=1.0, maximum=2.0**96, scalar=True)
    m_star = crossover_size("all_reduce", n, alpha, beta, ports=ports)
    if m_star * span > 2.0**96:
        raise ValueError(f"span (or alpha x beta): the largest size M* x span = {m_star:.3g} x {span:.3g} bytes "
                         "exceeds 2**96 bytes")
    sizes = np.geomspace(m_star / span, m_star * span, 801)
    rows, values = [], []
    for algorithm in applicable_algorithms("all_reduce", n=n, ports=ports):
        at = [efficiency(algorithm, "all_reduce", n, m_star, alpha, beta, ports, bound=b) for b in ("combined", "round")]
        low = [float(np.min(efficiency(algorithm, "all_reduce", n, sizes, alpha, beta, ports, bound=b))) for b in ("combined", "round")]
        values.append((algorithm, at[0], at[1], low[0], low[1]))
        rows.append([ALGORITHM_LABELS[algorithm], f"{at[0]:.2f}", f"{at[1]:.2f}", f"{low[0]:.2f}", f"{low[1]:.2f}"])
    headers = ["算法", "$M^*$ 处：max 下界", "$M^*$ 处：和式下界", "最低：max 下界", "最低：和式下界"]
    return Table(headers, rows, f"AllReduce 的效率（下界 / 代价），N = {n}、{ports}-port；最低值取 M*/{span:g} 到 {span:g}·M*", values)
