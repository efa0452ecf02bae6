"""Chapter 2 tables: diameters measured and bound, the ring claims, k ports on a ring, ring gossip."""

from __future__ import annotations

from typing import Sequence

from .._validation import check_cap, check_int
from ..broadcast import _search_broadcast_steps
from ..propagation import _info_steps as info_steps
from ._common import _choices, _ints, _topologies
from .table import Table


def diameter_table(topologies, k: int = 1, measure_up_to: int = 2000) -> Table:
    """Diameters from closed forms next to BFS measurements, and which latency bound binds.

    ``measure_up_to``: graphs with more vertices show the closed form only.

    >>> from ccb_helpers.topology import ring, torus
    >>> diameter_table([ring(16), torus(8, 8)]).values
    [('ring 16', 16, 2, 8, 8, 4, 'diameter'), ('torus 8x8', 64, 4, 8, 8, 6, 'diameter')]
    """
    from ..diameter import binding_latency_term
    from ..topology import MAX_MEASURE_WORK, _graph_elements
    from ..topology import _measured_diameter as measured_diameter

    topologies = _topologies("topologies", topologies)
    k = check_int("k", k, minimum=1, scalar=True)
    measure_up_to = check_int("measure_up_to", measure_up_to, minimum=0, scalar=True)
    measured = [t for t in topologies if t.n + (t.n if t.switched else 0) <= measure_up_to]
    check_cap(
        "diameter_table: BFS work of the measured topologies",
        sum(t.n * _graph_elements(t) for t in measured),
        MAX_MEASURE_WORK,
        hint="lower measure_up_to",
    )
    labels = {"diameter": "直径", "information": "信息传播", "tie": "两者相等"}
    rows, values = [], []
    for topo in topologies:
        p = max(1, min(k, topo.degree))
        info = info_steps(topo.n, p)
        measured = measured_diameter(topo) if topo.n + (topo.n if topo.switched else 0) <= measure_up_to else None
        binding = binding_latency_term(topo, k)
        values.append((topo.name, topo.n, topo.degree, topo.diameter, measured, info, binding))
        rows.append(
            [
                topo.name.split(" (")[0],
                str(topo.n),
                str(topo.degree),
                str(topo.diameter),
                "—" if measured is None else str(measured),
                str(topo.step_diameter),
                str(info),
                labels[binding],
            ]
        )
    headers = [
        "拓扑",
        "$N$",
        "度 $d$",
        "直径 $D$（闭式）",
        "BFS 实测",
        "延迟用的 $D$（轮）",
        rf"$\lceil \log_{{p+1}} N \rceil$（$p=\min({k},d)$）",
        "更紧的是",
    ]
    return Table(headers, rows, "各拓扑的直径：闭式与在图上 BFS 实测一致；交换机网络中一轮即可跨越全网", values)


def ring_diameter_table(ns: Sequence[int] = (4, 8, 16, 32), search_up_to: int = 14) -> Table:
    """``tbl-cc-bound-ring-diam`` plus the true minimum broadcast rounds on the ring (1- and 2-port).

    >>> ring_diameter_table(ns=(7,)).values
    [(7, 3, 3, 4, 3, True)]
    """
    from ..broadcast import SEARCH_MAX_ENDPOINTS, _formula
    from ..topology import ring

    ns = _ints("ns", ns, minimum=2, maximum=2**62)
    search_up_to = check_int("search_up_to", search_up_to, minimum=0, maximum=SEARCH_MAX_ENDPOINTS, scalar=True)
    rows, values = [], []
    for n in ns:
        topo = ring(n)
        diam, eff = n // 2, -(-(n - 1) // 2)
        one, two = _formula(topo, 1, 0), _formula(topo, 2, 0)
        checked = (
            n <= search_up_to
            and one == _search_broadcast_steps(topo, 1, 0)
            and two == _search_broadcast_steps(topo, 2, 0)
        )
        values.append((n, diam, eff, one, two, checked if n <= search_up_to else None))
        rows.append(
            [
                str(n),
                str(diam),
                str(eff),
                str(one),
                str(two),
                "一致" if checked else ("—" if n > search_up_to else "不一致"),
            ]
        )
    headers = [
        "$N$",
        r"Ring 直径 $\lfloor N/2 \rfloor$",
        r"2-port 有效直径 $\lceil (N-1)/2 \rceil$",
        "1-port 最少 broadcast 轮数",
        "2-port 最少 broadcast 轮数",
        "穷举搜索核对",
    ]
    return Table(headers, rows, "Ring 的直径与真实的最少 broadcast 轮数（公式与小规模穷举）", values)


def first_diameter_bound_table(
    families=("ring", "torus2d", "torus3d", "mesh2d", "hypercube", "fat_tree", "fully_connected"),
    ks: Sequence[int] = (1, 2),
    max_n: int = 10**4,
) -> Table:
    """From which N on each family is diameter-bound (``None``: never, up to ``max_n``).

    >>> first_diameter_bound_table(families=("ring",), ks=(1,)).values
    [('ring', 1, 10)]
    """
    from ..diameter import FAMILIES, MAX_INSTANCES, _family_sizes, first_diameter_bound

    families = _choices("families", families, FAMILIES)
    ks = _ints("ks", ks, minimum=1)
    max_n = check_int("max_n", max_n, minimum=2, maximum=2**62, scalar=True)
    check_cap(
        "first_diameter_bound_table: topologies to build",
        len(ks) * sum(len(_family_sizes(f, max_n)) for f in families),
        MAX_INSTANCES,
    )
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
    from ..broadcast import _formula
    from ..topology import ring

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
    return Table(
        ["$k$", r"$\lceil (N-1)/k \rceil$", "Ring 上最少 broadcast 轮数", r"直径 $\lfloor N/2 \rfloor$", "比较"],
        rows,
        f"N = {n} 的 Ring：k ≥ 2 时真实轮数恒为 ⌊N/2⌋，与 k 无关",
        values,
    )


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
    from ..gossip import SEARCH_MAX_NODES, _closed_form, gossip_rounds
    from ..topology import ring

    ports = check_int("ports", ports, minimum=1, maximum=2**62, scalar=True)
    ns = _ints("ns", ns, minimum=2, maximum=SEARCH_MAX_NODES if ports == 1 else 2**62)
    searches = sum(_closed_form(ring(n), ports) is None for n in ns)
    check_cap("ring_gossip_table: exhaustive gossip searches", searches, RING_GOSSIP_MAX_SEARCHES, hint="give fewer ns")
    rows, values = [], []
    for n in ns:
        topo = ring(n)
        info = info_steps(n, min(ports, max(topo.degree, 1)))
        bound = max(topo.diameter, info)
        rounds = gossip_rounds(topo, ports=ports)
        values.append((n, topo.diameter, info, bound, rounds))
        verdict = "达到" if rounds == bound else f"达不到（多 {rounds - bound} 轮）"
        rows.append([str(n), str(topo.diameter), str(info), str(bound), str(rounds), verdict])
    headers = [
        "$N$",
        r"直径 $\lfloor N/2 \rfloor$",
        rf"$\lceil \log_{{{ports + 1}}} N \rceil$",
        "两个下界的较大者",
        "穷举：最少轮数",
        "下界能否达到",
    ]
    return Table(
        headers, rows, f"{ports}-port Ring 上 AllReduce / AllGather 的真实最少轮数（ccb.gossip_rounds 穷举）", values
    )
