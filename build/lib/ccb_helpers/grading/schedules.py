"""Schedule checks: what is wrong with a construction a student returned.

Each checker works on values already coerced to plain Python data
(:func:`~ccb_helpers.grading.values.as_rounds` …). With ``detail=True`` (the visible tests, whose
instances are public) a message names rounds and nodes; with ``detail=False`` (hidden cases) it
names only the kind of mistake, so a report never carries a hidden instance back to a student.
"""

from __future__ import annotations

__all__ = ["broadcast_problems", "gossip_problems"]


def broadcast_problems(
    rounds, nodes, root, send_limit, receive_limit=None, links=None, limit: int = 3, detail: bool = True
) -> list[str]:
    """What is wrong with a broadcast written as rounds of ``(src, dst)`` pairs (``[]`` if valid).

    Parameters
    ----------
    rounds : list of list of (src, dst)
        Already coerced (see :func:`~ccb_helpers.grading.values.as_rounds`).
    nodes : collection
        Every node label; all of them must hold the data at the end.
    root : node
        Holds the data before round 1.
    send_limit, receive_limit : int or callable
        Messages a node may send (receive) per round: a number, or ``f(node)``. A message may
        only leave a node that held the data at the start of the round.
    links : set of frozenset, optional
        The allowed ``{src, dst}`` pairs (all pairs if omitted).
    limit : int
        At most this many problems are reported.
    detail : bool
        Name rounds and nodes (visible cases) or only the kind of mistake (hidden cases).

    Examples
    --------
    >>> broadcast_problems([[(0, 1)], [(0, 2), (1, 3)]], range(4), 0, 1)
    []
    >>> broadcast_problems([[(0, 1), (0, 2)]], range(4), 0, 1)
    ['第 1 轮：节点 0 发了 2 条消息，上限 1', '结束时节点 [3] 还没有数据']
    >>> broadcast_problems([[(0, 1), (0, 2)]], range(4), 0, 1, detail=False)
    ['有节点在一轮中发出的消息超过上限', '结束时有节点还没有数据']
    """
    nodes = set(nodes)
    informed = {root}
    problems: list[str] = []

    def add(detailed: str, kind: str) -> None:
        text = detailed if detail else kind
        if text not in problems:
            problems.append(text)

    def per_node(limit_value, node):
        return limit_value(node) if callable(limit_value) else limit_value

    for number, pairs in enumerate(rounds, 1):
        sent: dict = {}
        received: dict = {}
        arrived = set()
        for src, dst in pairs:
            if src not in nodes or dst not in nodes:
                add(f"第 {number} 轮：({src}, {dst}) 中有不存在的节点", "消息中有不存在的节点")
                continue
            if src == dst:
                add(f"第 {number} 轮：节点 {src} 发给了自己", "有节点把消息发给了自己")
                continue
            if src not in informed:
                add(f"第 {number} 轮：节点 {src} 这一轮开始时还没有数据，不能转发", "有节点在持有数据之前就转发")
            if links is not None and frozenset((src, dst)) not in links:
                add(f"第 {number} 轮：{src} 与 {dst} 之间没有链路", "有消息走了不存在的链路")
            sent[src] = sent.get(src, 0) + 1
            received[dst] = received.get(dst, 0) + 1
            arrived.add(dst)
        for node, count in sent.items():
            if count > per_node(send_limit, node):
                add(
                    f"第 {number} 轮：节点 {node} 发了 {count} 条消息，上限 {per_node(send_limit, node)}",
                    "有节点在一轮中发出的消息超过上限",
                )
        if receive_limit is not None:
            for node, count in received.items():
                if count > per_node(receive_limit, node):
                    add(
                        f"第 {number} 轮：节点 {node} 收了 {count} 条消息，上限 {per_node(receive_limit, node)}",
                        "有节点在一轮中收到的消息超过上限",
                    )
        informed |= arrived
        if len(problems) >= limit:
            return problems[:limit]
    missing = sorted(nodes - informed, key=repr)
    if missing:
        shown = missing[:5]
        add(f"结束时节点 {shown}{'…' if len(missing) > 5 else ''} 还没有数据", "结束时有节点还没有数据")
    return problems[:limit]


def gossip_problems(rounds, n: int, detail: bool = True) -> list[str]:
    """What is wrong with a 1-port gossip (every node learns every input), rounds of ``(src, dst)``.

    A message carries everything ``src`` knew at the start of its round.

    >>> gossip_problems([[(1, 0)], [(0, 1)]], 2)
    []
    >>> gossip_problems([[(1, 0)]], 2, detail=False)
    ['结束时有节点不知道全部输入']
    """
    known = [1 << i for i in range(n)]
    for number, messages in enumerate(rounds, 1):
        start = list(known)
        sent, received = {}, {}
        for src, dst in messages:
            if not (0 <= src < n and 0 <= dst < n) or src == dst:
                return [
                    f"第 {number} 轮的消息 ({src}, {dst}) 不合法" if detail else "有消息的节点不合法（越界或发给自己）"
                ]
            sent[src] = sent.get(src, 0) + 1
            received[dst] = received.get(dst, 0) + 1
            known[dst] |= start[src]
        if max(sent.values(), default=0) > 1 or max(received.values(), default=0) > 1:
            return [
                f"第 {number} 轮有节点发或收了不止 1 条消息（1-port）"
                if detail
                else "有节点在一轮中发或收了不止 1 条消息（1-port）"
            ]
    if not all(k == (1 << n) - 1 for k in known):
        return ["结束时有节点不知道全部输入"]
    return []
