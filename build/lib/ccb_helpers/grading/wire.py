"""Plain data across the pipe between the grader and the student process.

The grader sends a test's arguments with :func:`encode` and reads a returned value back with
:func:`decode`: builtin values, genuine numpy scalars and arrays, ``Fraction`` rebuilt from two
ints, ``ccb.Transfer`` / ``ccb.Schedule`` rebuilt (and validated) by the real library. Any other
object the student made arrives as an :class:`Opaque` "object of another type"; the student
process (``child.py``'s ``_Codec``) writes the same format.
"""

from __future__ import annotations

import fractions

import numpy as np

from . import values
from .values import Wrong

__all__ = ["MAX_INT_BITS", "Opaque", "decode", "encode"]

#: Bits of an ``int`` (or of a ``Fraction``'s numerator and denominator) a returned value may
#: have. The parts are checked as text, before anything computes with them: ``Fraction(n, d)``
#: reduces by ``math.gcd``, which runs in C where no time budget (``SIGALRM``) interrupts it —
#: 28 s for two 2**22-bit parts, two hours at the reply cap (#40); at this cap it takes ~20 ms,
#: and the plain ints JSON can carry (4,300 digits, Python's own limit) are below it.
MAX_INT_BITS = values.MAX_INT_BITS


class Opaque:
    """A returned object of a type that does not cross (only a well-known type name does)."""

    _ccb_opaque = True

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name or '自定义类型的对象'}>"


def encode(value, depth: int = 0):
    """Test arguments as plain data (builtin values, Fraction, numpy arrays and scalars).

    >>> encode((1, [2.5, "x"], {3: frozenset({4})}))
    ['T', [1, ['L', [2.5, 'x']], ['D', [[3, ['Z', [4]]]]]]]
    """
    if depth > 64:
        raise ValueError("argument nested too deeply")
    kind = type(value)
    if value is None or kind in (bool, str, float):
        return value
    if kind is int:
        return value if -(2**53) < value < 2**53 else ["I", hex(value)]
    if isinstance(value, np.integer):
        return encode(int(value))
    if isinstance(value, np.floating):
        return float(value)
    if kind in (list, tuple, set, frozenset):
        return [{list: "L", tuple: "T", set: "S", frozenset: "Z"}[kind], [encode(v, depth + 1) for v in value]]
    if kind is dict:
        return ["D", [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]]
    if kind is fractions.Fraction:
        return ["F", hex(value.numerator), hex(value.denominator)]
    if kind is np.ndarray and value.dtype.kind in "biuf":
        return ["A", value.dtype.kind, list(value.shape), value.ravel().tolist()]
    raise TypeError(f"cannot send a {kind.__name__} to the student process")


def decode(data, depth: int = 0):
    """A returned value from plain data: builtin values, numpy arrays, Fraction, ccb records.

    >>> decode(['T', [1, ['F', '0x1', '0x3'], ['I', '0x20000000000000']]])
    (1, Fraction(1, 3), 9007199254740992)
    """
    if depth > 70:
        raise ValueError("nested too deeply")
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is not list or not data or type(data[0]) is not str:
        raise ValueError("not a value")
    tag = data[0]
    if tag == "I":
        return _int(data[1])
    if tag == "F":
        numerator, denominator = _int(data[1]), _int(data[2])
        if denominator <= 0:
            raise ValueError("bad fraction")
        return fractions.Fraction(numerator, denominator)
    if tag == "?":
        return Opaque(data[1] if type(data[1]) is str and data[1] in values._SHOWN_TYPES else "")
    if tag == "A":
        dtype = {"b": bool, "i": np.int64, "u": np.uint64, "f": np.float64}[data[1]]
        shape = [int(s) for s in data[2]]
        flat = [item if type(item) in (bool, int, float) else decode(item, depth + 1) for item in data[3]]
        return np.array(flat, dtype=dtype).reshape(shape)
    if tag == "D":
        return {decode(k, depth + 1): decode(v, depth + 1) for k, v in data[1]}
    if tag in ("X", "Y"):
        return _record(tag, [decode(item, depth + 1) for item in data[1]])
    kinds = {"L": list, "T": tuple, "S": set, "Z": frozenset}
    if depth + 1 > 70:
        return kinds[tag](decode(item, depth + 1) for item in data[1])
    # A plain item decodes to itself: no call for each of a schedule's million integers.
    return kinds[tag]([item if type(item) in _PLAIN else decode(item, depth + 1) for item in data[1]])


_PLAIN = frozenset({bool, int, float, str, type(None)})
# "-0x" and one hex digit per 4 bits.
_MAX_HEX_CHARS = 3 + MAX_INT_BITS // 4


def _int(text) -> int:
    """An int written in hex, refused unread beyond :data:`MAX_INT_BITS`."""
    if type(text) is not str:
        raise ValueError("not an int")
    if len(text) > _MAX_HEX_CHARS:
        raise Wrong(f"返回值里有超过 {MAX_INT_BITS} 位的整数（或分数的分子、分母）：不评分")
    value = int(text, 16)
    if value.bit_length() > MAX_INT_BITS:
        raise Wrong(f"返回值里有超过 {MAX_INT_BITS} 位的整数（或分数的分子、分母）：不评分")
    return value


def _record(tag: str, fields: list):
    """A real ``ccb.Transfer`` / ``ccb.Schedule`` rebuilt (and validated) from the record's fields."""
    from ..schedule import Schedule, Transfer

    try:
        if tag == "X":
            return Transfer(*fields)
        primitive, n, m, rounds, root, prologue, epilogue = fields
        return Schedule.from_transfers(primitive, n, m, rounds, root=root, prologue=prologue, epilogue=epilogue)
    except Wrong:
        raise
    except Exception:  # noqa: BLE001 - the library's validation names the student's values: not shown
        what = "ccb.Transfer" if tag == "X" else "ccb.Schedule"
        raise Wrong(f"返回的 {what} 不合法（库的检查拒绝了它：参数类型或取值不对）") from None
