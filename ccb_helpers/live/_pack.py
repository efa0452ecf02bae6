"""Many readout strings packed as templates + the numbers that vary (exact by construction).

The live explorers of chapters 5, 7 and 8 precompute their readout for every state of their
discrete controls; the strings differ mostly in their numbers. :func:`pack` replaces each number
by a placeholder, merges strings with the same text around their numbers into one template,
and keeps in the template the numbers that are equal in all of them. What remains per string is
the template's index and the varying numbers, as one ``"|"``-separated string, which the page's
``CCBLivePack.unpack`` (``_static/live/ccb-live-pack.js``) turns back into the same string.
"""

from __future__ import annotations

import re

__all__ = ["pack", "unpack"]

#: A number as the readouts print it ("1.5", "4096", "0.74"); a separator never inside one.
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SLOT = "\x01"
_SEP = "|"


def pack(strings) -> dict:
    """``{"templates": [...], "items": ["index|n1|n2...", ...]}`` for a list of strings.

    Examples
    --------
    >>> p = pack(["N = 8, T = 1.5 ms", "N = 8, T = 2 ms", "no number"])
    >>> p["templates"], p["items"]
    (['N = 8, T = \\x01 ms', 'no number'], ['0|1.5', '0|2', '1'])
    >>> [unpack(p, i) for i in range(3)]
    ['N = 8, T = 1.5 ms', 'N = 8, T = 2 ms', 'no number']
    """
    strings = list(strings)
    for s in strings:
        if not isinstance(s, str):
            raise TypeError(f"strings must be str, got {type(s).__name__}")
        if _SLOT in s:
            raise ValueError("a packed string must not contain the control character \\x01")
    split = [(_NUMBER.sub(_SLOT, s), _NUMBER.findall(s)) for s in strings]
    groups: dict[str, list[list[str]]] = {}
    for skeleton, numbers in split:
        groups.setdefault(skeleton, []).append(numbers)
    templates, index, varying = [], {}, {}
    for skeleton, rows in groups.items():
        columns = list(zip(*rows)) if rows[0] else []
        keep = [len(set(column)) > 1 for column in columns]
        parts = skeleton.split(_SLOT)
        text = parts[0]
        for i, part in enumerate(parts[1:]):
            text += (_SLOT if keep[i] else rows[0][i]) + part
        index[skeleton] = len(templates)
        varying[skeleton] = keep
        templates.append(text)
    items = []
    for skeleton, numbers in split:
        kept = [n for n, k in zip(numbers, varying[skeleton]) if k]
        items.append(_SEP.join([str(index[skeleton])] + kept))
    return {"templates": templates, "items": items}


def unpack(packed: dict, i: int) -> str:
    """String ``i`` of a :func:`pack` result (what the page's JavaScript does)."""
    fields = packed["items"][i].split(_SEP)
    parts = packed["templates"][int(fields[0])].split(_SLOT)
    return parts[0] + "".join(number + part for number, part in zip(fields[1:], parts[1:]))
