"""Exact, compact encodings of precomputed explorer states for the static site.

A live explorer whose controls are discrete is *precomputed*: the real Python code runs over every
state and the page looks the state up (``CCBLive.lookup`` in ``ccb-live.js``). Three encodings keep
that small, each exact by construction (decoding gives back the very strings and numbers Python
produced; :func:`tabulate` checks it for every state before it returns):

- :func:`compress_texts`: readouts as templates (the text between numbers) plus, per state, the
  template's number and the numbers as written (``"1.5"`` stays ``"1.5"``);
- :func:`pack`: JSON values (figure specs) with every repeated array, object or long string stored
  once in a pool and referred to as ``"~<id>"``; objects written as ``["~o<shape>", values...]``
  with their keys stored once per shape; a string that starts with ``~`` is escaped as ``~~``;
- :func:`tabulate`: the states of the discrete controls in mixed-radix order (last axis fastest),
  each mapped to a frame ``(readout, figure)``; equal frames are stored once.
"""

from __future__ import annotations

import itertools
import json
import math
import re

from .._validation import check_memory

__all__ = ["compress_texts", "expand_text", "pack", "unpack", "tabulate", "lookup", "MAX_STATES"]

#: Most states :func:`tabulate` enumerates (each runs the real Python code once).
MAX_STATES = 200_000
#: Peak bytes per state of :func:`tabulate`'s own bookkeeping (the index, the keys of the
#: distinct frames, the packed and decoded copies): tracemalloc measured 657-695 per state with
#: one-number frames (20,000 and 200,000 states). What ``frame`` itself returns is the caller's
#: (an explorer's figures: ``live.build`` exports them per state).
_BYTES_PER_STATE = 1024


def _tabulate_memory(states: int) -> int:
    return _BYTES_PER_STATE * states + 2**20


#: A number inside a readout: digits with an optional fraction and exponent.
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")


def _number(text: str):
    """A number as the page receives it: an int when that writes back identically, else the string."""
    return int(text) if text.isdigit() and str(int(text)) == text and len(text) < 16 else text


def compress_texts(texts: list[str]) -> dict:
    """Templates and per-text numbers: ``{"templates": [[piece, ...], ...], "rows": [[t, n1, n2, ...], ...]}``.

    >>> packed = compress_texts(["N = 64, 6 steps", "N = 8, 3 steps", "none"])
    >>> packed["templates"], packed["rows"]
    ([['N = ', ', ', ' steps'], ['none']], [[0, 64, 6], [0, 8, 3], [1]])
    >>> [expand_text(packed, i) for i in range(3)]
    ['N = 64, 6 steps', 'N = 8, 3 steps', 'none']
    """
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise TypeError("texts must be a list of str")
    templates: dict[tuple, int] = {}
    rows = []
    for text in texts:
        pieces = tuple(_NUMBER.split(text))
        numbers = [_number(m) for m in _NUMBER.findall(text)]
        rows.append([templates.setdefault(pieces, len(templates)), *numbers])
    return {"templates": [list(p) for p in templates], "rows": rows}


def expand_text(packed: dict, i: int) -> str:
    """Text ``i`` of :func:`compress_texts`' output (what ``CCBLive.expandText`` does in the page)."""
    template_id, *numbers = packed["rows"][i]
    pieces = packed["templates"][template_id]
    return pieces[0] + "".join(str(n) + piece for n, piece in zip(numbers, pieces[1:]))


def _key(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class _Keys:
    """JSON texts of values, each container serialised once (by identity) from its children's texts.

    A precomputed table repeats the same objects (a cached panel) in thousands of frames; writing
    each out once keeps :func:`tabulate` linear in the distinct objects, not in the frames' size.
    The text equals :func:`_key`'s (compact separators, no ASCII escaping).
    """

    def __init__(self):
        self._memo: dict[int, tuple[object, str]] = {}
        self._strings: dict[str, str] = {}

    def __call__(self, value) -> str:
        kind = type(value)
        if kind is str:
            text = self._strings.get(value)
            if text is None:
                text = self._strings[value] = _key(value)
            return text
        if kind is int:
            return int.__repr__(value)
        if kind is float:
            if not math.isfinite(value):
                raise ValueError(f"a figure value must be finite, got {value!r}")
            return float.__repr__(value)  # what json writes
        if not isinstance(value, dict | list | tuple):
            return _key(value)
        hit = self._memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        if isinstance(value, dict):
            for k in value:
                if not isinstance(k, str):
                    raise TypeError(f"object keys must be str, got {k!r}")
            text = "{" + ",".join(self(k) + ":" + self(v) for k, v in value.items()) + "}"
        else:
            text = "[" + ",".join(self(v) for v in value) + "]"
        self._memo[id(value)] = (value, text)  # the value is held, so its id is not reused
        return text


def pack(items: list, min_length: int = 8) -> dict:
    """``{"shapes", "pool", "items"}``: the JSON values ``items`` with repeated parts stored once.

    ``min_length``: shortest JSON text (characters) of a part worth a pool entry.

    >>> packed = pack([{"x": [1, 2, 3, 4], "c": "~red"}, {"x": [1, 2, 3, 4], "c": "blue"}])
    >>> packed["items"]
    [['~o0', '~0', '~~red'], ['~o0', '~0', 'blue']]
    >>> unpack(packed) == [{"x": [1, 2, 3, 4], "c": "~red"}, {"x": [1, 2, 3, 4], "c": "blue"}]
    True
    """
    if not isinstance(items, list):
        raise TypeError(f"items must be a list, got {type(items).__name__}")
    keys = _Keys()
    counts: dict[str, int] = {}

    def count(value) -> None:
        if isinstance(value, str):
            if len(value) >= min_length:
                key = _key(value)
                counts[key] = counts.get(key, 0) + 1
            return
        if not isinstance(value, dict | list | tuple):
            keys(value)  # checks that a number is finite
            return
        key = keys(value)
        counts[key] = counts.get(key, 0) + 1
        if counts[key] == 1:  # the parts of a repeated part are stored once, inside it
            for child in value.values() if isinstance(value, dict) else value:
                count(child)

    for item in items:
        count(item)
    shapes: dict[tuple, int] = {}
    pool_ids: dict[str, int] = {}
    pool: list = []

    def encode(value):
        if isinstance(value, str):
            key = _key(value) if len(value) >= min_length else None
            encoded = "~" + value if value.startswith("~") else value
        elif isinstance(value, dict | list | tuple):
            key = keys(value)
            if key in pool_ids:
                return f"~{pool_ids[key]}"
            if isinstance(value, dict):
                shape = shapes.setdefault(tuple(value), len(shapes))
                encoded = [f"~o{shape}", *(encode(v) for v in value.values())]
            else:
                encoded = [encode(v) for v in value]
        else:
            return value
        if key is not None and counts.get(key, 0) >= 2 and len(key) >= min_length:
            if key not in pool_ids:
                pool_ids[key] = len(pool)
                pool.append(encoded)
            return f"~{pool_ids[key]}"
        return encoded

    encoded_items = [encode(item) for item in items]
    return {"shapes": [list(s) for s in shapes], "pool": pool, "items": encoded_items}


def unpack(packed: dict) -> list:
    """The values :func:`pack` was given (lists for tuples); the page's ``CCBLive.unpack`` does the same."""
    decoded: dict[int, object] = {}

    def decode(value):
        if isinstance(value, str):
            if not value.startswith("~"):
                return value
            if value.startswith("~~"):
                return value[1:]
            index = int(value[1:])
            if index not in decoded:
                decoded[index] = decode(packed["pool"][index])
            return decoded[index]
        if isinstance(value, list):
            if value and isinstance(value[0], str) and value[0].startswith("~o"):
                keys = packed["shapes"][int(value[0][2:])]
                return {k: decode(v) for k, v in zip(keys, value[1:])}
            return [decode(v) for v in value]
        return value

    return [decode(item) for item in packed["items"]]


def tabulate(axes: list, frame) -> dict:
    """Run ``frame(state) -> (readout_html, figure) | None`` over every state of the discrete ``axes``.

    ``axes`` is a list of ``(control name, [values ...])``; states are enumerated in mixed-radix
    order (last axis fastest) and ``None`` marks a state the controls cannot reach (e.g. a size
    outside the family's range). Returns ``{"axes", "index", "readouts", "figures"}``: ``index[i]``
    is the frame of state ``i`` (or -1), ``readouts`` is :func:`compress_texts` of the frames'
    readouts and ``figures`` is :func:`pack` of their figures. Every frame is decoded again and
    compared with what ``frame`` returned (``AssertionError`` if an encoding were lossy).

    >>> table = tabulate([("x", [1, 2, 3])], lambda s: (f"x² = {s['x'] ** 2}", {"y": [s["x"] ** 2]}))
    >>> lookup(table, {"x": 3})
    ('x² = 9', {'y': [9]})
    """
    if not isinstance(axes, list) or not all(isinstance(a, tuple | list) and len(a) == 2 for a in axes):
        raise TypeError("axes must be a list of (name, values) pairs")
    if not callable(frame):
        raise TypeError("frame must be callable")
    sizes = [len(values) for _, values in axes]
    if math.prod(sizes) > MAX_STATES:
        raise ValueError(f"axes span {math.prod(sizes)} states, more than MAX_STATES = {MAX_STATES}")
    check_memory(f"axes: a table of {math.prod(sizes):,} states", _tabulate_memory(math.prod(sizes)))
    names = [name for name, _ in axes]
    keys = _Keys()
    frames: dict[str, int] = {}
    readouts, figures, index = [], [], []
    for combo in itertools.product(*(values for _, values in axes)):
        result = frame(dict(zip(names, combo)))
        if result is None:
            index.append(-1)
            continue
        readout, figure = result
        key = _key(readout) + keys(figure)
        if key not in frames:
            frames[key] = len(readouts)
            readouts.append(readout)
            figures.append(figure)
        index.append(frames[key])
    table = {
        "axes": [[name, list(values)] for name, values in axes],
        "index": index,
        "readouts": compress_texts(readouts),
        "figures": pack(figures),
    }
    unpacked, decoded_keys = unpack(table["figures"]), _Keys()
    for i, (readout, figure) in enumerate(zip(readouts, figures)):
        assert expand_text(table["readouts"], i) == readout, f"readout {i} does not decode exactly"
        assert decoded_keys(unpacked[i]) == keys(figure), f"figure {i} does not decode exactly"
    return table


def lookup(table: dict, state: dict):
    """``(readout, figure)`` of ``state`` in a :func:`tabulate` table (Python twin of ``CCBLive.lookup``)."""
    position = 0
    for name, values in table["axes"]:
        value = state[name]
        matches = [i for i, v in enumerate(values) if v == value and type(v) is type(value)]
        if not matches:
            raise ValueError(f"{name} = {value!r} is not one of the tabulated values")
        position = position * len(values) + matches[0]
    frame_id = table["index"][position]
    if frame_id < 0:
        raise ValueError(f"state {state} is not reachable")
    return expand_text(table["readouts"], frame_id), unpack(table["figures"])[frame_id]
