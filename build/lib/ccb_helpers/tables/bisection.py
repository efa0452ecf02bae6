"""Chapter 5 tables: bisection widths, bisection against node-level bounds, the source's claims, oversubscription."""

from __future__ import annotations

from typing import Sequence

from .._validation import check_bandwidth, check_cap, check_int, check_real
from ..primitives import PRIMITIVES
from ._common import MAX_ROWS, _choices, _ints, _ratio, _topologies
from .table import Table

_TIGHTER = {"node": "节点级", "bisection": "bisection", "tie": "相等"}


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
    from ..bisection import MAX_FLOW_ELEMENTS, bisection_partition, cut_links
    from ..topology import (
        MAX_MEASURE_WORK,
        _bisection_plan,
        _graph_elements,
        _measured_bisection,
    )

    topologies = _topologies("topologies", topologies)
    search_up_to = check_int("search_up_to", search_up_to, minimum=0, scalar=True)
    plans = [_bisection_plan(t, search_up_to) if t.n <= search_up_to else None for t in topologies]
    check_cap(
        "bisection_width_table: exhaustive search work",
        sum(plan[1] for plan in plans if plan),
        MAX_MEASURE_WORK,
        hint="lower search_up_to",
    )
    check_cap(
        "bisection_width_table: max-flow graph elements",
        sum(_graph_elements(t) for t in topologies if t.switched),
        MAX_FLOW_ELEMENTS,
    )

    def measured_bisection(topo):
        return _measured_bisection(topo, plans[topologies.index(topo)][0])

    rows, values = [], []
    for topo in topologies:
        exhaustive = measured_bisection(topo) if topo.n <= search_up_to else None
        constructed = cut_links(topo, bisection_partition(topo))
        values.append((topo.name, topo.n, topo.bisection_links, exhaustive, constructed))
        rows.append(
            [
                _short_name(topo),
                str(topo.n),
                str(topo.bisection_links),
                "—" if exhaustive is None else str(exhaustive),
                str(constructed),
            ]
        )
    return Table(
        ["拓扑", "$N$", "bisection 链路数（闭式）", "穷举最小平衡割", "书中画出的割"],
        rows,
        "Bisection 宽度：闭式、穷举（N ≤ 16）与构造出的割三者一致",
        values,
    )


def bisection_comparison_table(
    topologies, m: float = 2**30, beta: float = 50e9, primitives=("all_reduce", "all_to_all")
) -> Table:
    """``tbl-cc-bound-bisection-cmp`` extended: bisection vs node-level bound, per topology and primitive.

    The node-level bound uses every link of a node (``p = degree``), as the bisection bound uses
    every link of the cut. ``values``: ``(topology, primitive, bisection s, node s, tighter)``.

    >>> from ccb_helpers.topology import ring
    >>> [v[-1] for v in bisection_comparison_table([ring(64)]).values]
    ['node', 'bisection']
    """
    from ..bisection import _bisection_lower_bound, _compare, _node_lower_bound
    from ..primitives import PRIMITIVE_LABELS
    from ..units import format_time

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
        headers += (
            ["bisection 下界", "节点级下界", "更紧的是"]
            if len(primitives) == 1
            else [f"{PRIMITIVE_LABELS[primitive]}：bisection", f"{PRIMITIVE_LABELS[primitive]}：节点级", "更紧的是"]
        )
    from ..units import format_bytes

    which = "、".join(PRIMITIVE_LABELS[p] for p in primitives)
    return Table(
        headers,
        rows,
        f"{which}：bisection 下界与节点级下界（M = {format_bytes(m)}，每条链路 β = {beta / 1e9:g} GB/s）",
        values,
    )


def source_bisection_table(
    ns: Sequence[int] = (16, 64, 256, 1024, 4096), m: float = 2**30, beta: float = 50e9
) -> Table:
    """The source's three rows of ``tbl-cc-bound-bisection-cmp`` checked at several N, for AllReduce.

    >>> t = source_bisection_table(ns=(64,))
    >>> [(v[0], v[2], v[5]) for v in t.values]
    [('ring', 0.5, 'node'), ('fat_tree', 0.5, 'node'), ('torus2d', 0.5, 'node')]
    """
    import math

    from ..bisection import _bisection_lower_bound as bisection_lower_bound
    from ..bisection import _compare, _node_lower_bound
    from ..source import SOURCE_BISECTION
    from ..topology import MAX_FAT_TREE_HOSTS, fat_tree, ring, torus

    ns = _ints("ns", ns, minimum=4, maximum=MAX_FAT_TREE_HOSTS)
    squares = [n for n in ns if math.isqrt(n) ** 2 != n]
    if squares:
        raise ValueError(f"ns must be perfect squares (the 2D torus is sqrt(N) x sqrt(N)), got {squares[0]}")
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: ratios divide by it
    beta = check_bandwidth("beta", beta, scalar=True)

    def node_lower_bound(primitive, topo, m, beta, ports):
        return _node_lower_bound(primitive, topo, m, beta, ports)

    rows, values = [], []
    for key, builder in (
        ("ring", ring),
        ("fat_tree", fat_tree),
        ("torus2d", lambda n: torus(int(round(n**0.5)), int(round(n**0.5)))),
    ):
        b_text, src_text, src_fn, _node_text, src_verdict = SOURCE_BISECTION[key]
        for n in ns:
            topo = builder(n)
            bis = bisection_lower_bound("all_reduce", topo, m, beta)
            node = node_lower_bound("all_reduce", topo, m, beta, ports=max(topo.degree, 1))
            tighter = _compare(bis, node)
            ratio = src_fn(n, m, beta) / bis
            values.append((key, n, ratio, bis, node, tighter))
            rows.append(
                [
                    _short_name(topo),
                    f"{topo.bisection_links} 条（原文 {b_text}）",
                    src_text,
                    f"{ratio:g}",
                    f"{bis / node:.3g}",
                    _TIGHTER[tighter],
                    src_verdict,
                ]
            )
    headers = [
        "拓扑",
        r"$B_{\text{bisection}}$",
        "原文的 bisection 下界",
        "原文 / 正确值",
        "bisection / 节点级（正确值）",
        "更紧的是",
        "原文的结论",
    ]
    return Table(headers, rows, "原讲义 tbl-cc-bound-bisection-cmp 的三行（AllReduce），逐个 N 核对", values)


def oversubscription_table(
    n: int = 64, hosts_per_leaf: int = 8, m: float = 2**30, beta: float = 50e9, primitives=("all_reduce", "all_to_all")
) -> Table:
    """Bisection vs node bound on a two-level fat-tree for every oversubscription factor it admits.

    16 hosts, 4 per leaf, 2:1: 4 cut links carry 8 * 8 * M / 16 = 4M, i.e. M / beta, just above the
    node bound 15/16 M / beta:

    >>> t = oversubscription_table(n=16, hosts_per_leaf=4)
    >>> [(v[0], v[-1]) for v in t.values if v[1] == "all_to_all"]
    [(1.0, 'node'), (1.3333333333333333, 'node'), (2.0, 'bisection'), (4.0, 'bisection')]
    """
    from ..bisection import _bisection_lower_bound as bisection_lower_bound
    from ..bisection import _compare, _node_lower_bound
    from ..primitives import PRIMITIVE_LABELS
    from ..topology import MAX_FAT_TREE_HOSTS, fat_tree
    from ..units import format_time

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
            rows.append(
                [
                    _ratio(o),
                    str(topo.bisection_links),
                    PRIMITIVE_LABELS[primitive],
                    format_time(bis),
                    format_time(node),
                    _TIGHTER[tighter],
                ]
            )
    headers = ["$o$", "割上的链路", "原语", "bisection 下界", "节点级下界", "更紧的是"]
    return Table(
        headers,
        rows,
        f"两级 fat-tree（{n} 台主机，每个 leaf {hosts_per_leaf} 台）随 oversubscription $o$ 的变化",
        values,
    )


def source_node_bound_table(ns: Sequence[int] = (16, 256), m: float = 2**30, beta: float = 50e9) -> Table:
    """The node-level column of the source's ``tbl-cc-bound-bisection-cmp``, checked for AllReduce.

    The source prints ``(N-1)M/(N beta)`` for all three rows. The AllReduce node bound is
    ``2(N-1)M/(N p beta)``: the source's value is that bound only with ``p = 2``, i.e. for the
    ring used with both its links. ``values``: ``(family, n, degree, source s, p=1 s, p=d s, matches)``.

    >>> [(v[0], v[6]) for v in source_node_bound_table(ns=(16,)).values]
    [('ring', 'p = d'), ('fat_tree', '都不是'), ('torus2d', '都不是')]
    """
    import math

    from ..bandwidth import _bandwidth_lower_bound as bandwidth_lower_bound
    from ..topology import MAX_FAT_TREE_HOSTS, fat_tree, ring, torus
    from ..units import format_time

    ns = _ints("ns", ns, minimum=4, maximum=MAX_FAT_TREE_HOSTS)
    squares = [n for n in ns if math.isqrt(n) ** 2 != n]
    if squares:
        raise ValueError(f"ns must be perfect squares (the 2D torus is sqrt(N) x sqrt(N)), got {squares[0]}")
    m = check_real("m", m, minimum=1.0, maximum=2.0**96, scalar=True)  # at least a byte: the match is relative
    beta = check_bandwidth("beta", beta, scalar=True)
    rows, values = [], []
    for key, builder in (
        ("ring", ring),
        ("fat_tree", fat_tree),
        ("torus2d", lambda n: torus(math.isqrt(n), math.isqrt(n))),
    ):
        for n in ns:
            topo = builder(n)
            source = (n - 1) * m / (n * beta)
            one = bandwidth_lower_bound("all_reduce", n, m, beta, 1, None)
            every = bandwidth_lower_bound("all_reduce", n, m, beta, topo.degree, None)
            close = lambda a, b: abs(a - b) <= 1e-12 * b  # noqa: E731
            match = "p = d" if close(source, every) else ("p = 1" if close(source, one) else "都不是")
            values.append((key, n, topo.degree, source, one, every, match))
            rows.append(
                [_short_name(topo), str(topo.degree), format_time(source), format_time(one), format_time(every), match]
            )
    headers = ["拓扑", "度 $d$", r"原文 $\frac{(N-1)M}{N\beta}$", "$p = 1$", "$p = d$", "原文等于"]
    return Table(headers, rows, "原讲义节点级下界一列（AllReduce）与 p = 1、p = d 的正确值", values)
