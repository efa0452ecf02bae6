"""Chapter 1 tables: information propagation, preset steps, broadcast attainment, exhaustive search."""

from __future__ import annotations

from typing import Sequence

from .._validation import check_int
from ..algorithms import ALGORITHM_LABELS
from ..broadcast import _search_broadcast_steps
from ..hardware import PRESETS
from ..propagation import _info_steps as info_steps
from ..topology import fully_connected
from ._common import _choices, _ints, _percent, _simulate, _simulations
from .table import Table


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


def preset_steps_table(
    ns: Sequence[int] = (8, 64, 1024), keys: Sequence[str] = ("sg2260", "a100_nvlink", "ib_ndr")
) -> Table:
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
            rows.append(
                [
                    p.label,
                    str(n),
                    "all-port" if p.ports is None else str(k),
                    "—" if p.links is None else str(p.links),
                    str(used),
                    str(steps),
                    f"{steps * p.alpha * 1e6:.1f} µs",
                ]
            )
    return Table(
        ["硬件", "$N$", "$k$", "$d$", r"$p = \min(k, d)$", r"$\lceil \log_{p+1} N \rceil$", r"下界 $\cdot\,\alpha$"],
        rows,
        "典型硬件的端口数给出的信息传播步数：端口再多，也只能用上接入网络的链路数（α 取各预设的近似值）",
        values,
    )


def broadcast_attainment_table(
    ns: Sequence[int] = (5, 8, 16, 27, 100, 1000), ks: Sequence[int] = (1, 2, 6), m: int = 4096
) -> Table:
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
            result = _simulate(
                "binomial_tree", "broadcast", n, m, k, 0, None, topology=fully_connected(n) if n <= 64 else None
            )
            bound = info_steps(n, k)
            values.append((n, k, result.rounds, bound, result.correct))
            ok = ok and result.correct and result.rounds == bound
            cells.append(f"{result.rounds} / {bound}")
        cells.append("达到下界，结果正确" if ok else "未达到或结果错误")
        rows.append(cells)
    headers = ["$N$"] + [rf"$k = {k}$：模拟 / 下界" for k in ks] + ["结论"]
    return Table(
        headers,
        rows,
        f"{ALGORITHM_LABELS['binomial_tree']}（k-nomial）broadcast 在模拟器中运行的轮数 / "
        r"$\lceil \log_{k+1} N \rceil$",
        values,
    )


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
