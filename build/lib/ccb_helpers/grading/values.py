"""Value checks: every returned value is coerced to a plain Python value before it is compared.

A grade compares plain values built from primitive data, never an object the student made:

* :func:`as_int` returns a fresh ``int`` (an ``int`` subclass, ``bool``, ``float`` or a class that
  only *claims* to be numpy is rejected; a genuine numpy integer is converted with ``int``);
* :func:`as_str` returns ``str.__str__(value)`` of a ``str`` or a genuine ``numpy.str_``;
* :func:`as_fraction` rebuilds ``Fraction(int(n), int(d))`` from a genuine ``Fraction``'s
  integer numerator and denominator (a ``Fraction`` whose parts compare equal to anything
  does not pass);
* :func:`as_float`, :func:`as_bool`, :func:`as_list`, :func:`as_set`, :func:`as_pair`,
  :func:`as_rounds`, :func:`as_node` likewise.

"Genuine numpy" means the type object is one of numpy's own scalar types (compared by identity),
not a class whose ``__module__`` says ``"numpy"``.

Messages name the expected type and the type received, never the value received: under isolated
grading (:mod:`ccb_helpers.grading.isolation`) a returned value is the student's output on a
hidden input, and printing it would carry that input into the feedback.

>>> as_int(__import__("numpy").int64(12), "answer")
12
>>> as_int(12.0, "answer")
Traceback (most recent call last):
...
ccb_helpers.grading.values.GradingError: answer 应为 int，得到 float
"""

from __future__ import annotations

import contextvars
import fractions
import math
from typing import Callable

import numpy as np

from .._validation import check_memory

__all__ = [
    "GradingError",
    "Wrong",
    "MAX_ITEMS",
    "as_int",
    "as_float",
    "as_str",
    "as_bool",
    "as_fraction",
    "as_list",
    "as_set",
    "as_pair",
    "as_tuple",
    "as_rounds",
    "as_node",
    "check_equal",
    "check_close",
    "close",
    "describe",
    "items_of",
    "type_name",
]

#: Items a returned list may have before it is rejected unread.
MAX_ITEMS = 1_000_000
#: Bits of an int, a numerator or a denominator (as ``wire.MAX_INT_BITS``: the grader's arithmetic
#: on a value, ``math.gcd`` above all, runs in C and must stay short).
MAX_INT_BITS = 2**16

# numpy's own scalar types, by identity (a class that sets ``__module__ = "numpy"`` is not one).
_NUMPY_INTS = frozenset(
    {
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.intc,
        np.uintc,
        np.intp,
        np.uintp,
        np.longlong,
        np.ulonglong,
        np.byte,
        np.ubyte,
        np.short,
        np.ushort,
        np.long,
        np.ulong,
    }
)
_NUMPY_FLOATS = frozenset({np.float16, np.float32, np.float64, np.longdouble})
_NUMPY_BOOL = np.bool_
_NUMPY_STR = np.str_

# Type names a message may show (a class the student defines could carry any text in its name).
_SHOWN_TYPES = frozenset(
    {
        "int",
        "float",
        "str",
        "bool",
        "list",
        "tuple",
        "set",
        "frozenset",
        "dict",
        "Fraction",
        "NoneType",
        "complex",
        "bytes",
        "bytearray",
        "range",
        "map",
        "filter",
        "zip",
        "generator",
        "function",
        "method",
        "builtin_function_or_method",
        "dict_keys",
        "dict_values",
        "dict_items",
        "ndarray",
        "Decimal",
        "type",
        "module",
        "Schedule",
        "Transfer",
        "list_iterator",
        "enumerate",
        "reversed",
        *(t.__name__ for t in _NUMPY_INTS | _NUMPY_FLOATS),
        "bool_",
        "str_",
    }
)

#: Whether messages may show returned values (the student's own kernel) or only their types
#: (isolated grading). Set by :mod:`ccb_helpers.grading.isolation`.
SHOW_VALUES: contextvars.ContextVar[bool] = contextvars.ContextVar("SHOW_VALUES", default=True)
#: Whether the running group may show call arguments and values (visible cases only; set by
#: :meth:`~ccb_helpers.grading.parts.Part.check`).
DETAIL: contextvars.ContextVar[bool] = contextvars.ContextVar("DETAIL", default=True)


def _detailed() -> bool:
    """Whether a message may say *where* in a returned value, and *what* it was: in the student's own
    kernel, for the visible cases. Under isolated grading a message names neither the position of a
    wrong item nor the type received: the student's function picks both, so either could spell out
    a hidden input ("``hetero_plan(…)[4417]`` 应为 list" carried the first hidden case, #40)."""
    return SHOW_VALUES.get() and DETAIL.get()


def _item(what: str, *index: int) -> str:
    return f"{what}{''.join(f'[{i}]' for i in index)}" if _detailed() else f"{what} 的某一项"


def _items(what: str):
    """``_item(what, i)`` for a whole list, deciding once (a schedule has a million items)."""
    if _detailed():
        return lambda i: f"{what}[{i}]"
    hidden = f"{what} 的某一项"
    return lambda i: hidden


def _got(value) -> str:
    return f"，得到 {type_name(value)}" if _detailed() else ""


class GradingError(AssertionError):
    """A check failed; the message says what was expected (never a hidden value)."""


class Wrong(GradingError):
    """A case of a group failed (raised by the checks a :class:`~ccb_helpers.grading.Part` runs).

    ``raised`` is the name of the exception the student's function raised (None if it did not):
    what a test that expects an exception checks, since a hidden group's message does not name it.
    """

    raised: str | None = None


def type_name(value) -> str:
    """The name of ``value``'s type if it is a well-known type, else a neutral description.

    >>> type_name(3), type_name(type("Anything", (), {})())
    ('int', '自定义类型的对象')
    """
    if getattr(type(value), "_ccb_opaque", False):  # a value that did not cross from the student process
        return value.name if value.name in _SHOWN_TYPES else "自定义类型的对象"
    name = type(value).__name__
    if name in _SHOWN_TYPES and type(value).__module__ in (
        "builtins",
        "numpy",
        "fractions",
        "decimal",
        "ccb_helpers.schedule",
    ):
        return name
    return "自定义类型的对象"


def describe(value) -> str:
    """``type`` (and, in the student's own kernel, the value of a plain builtin or numpy value).

    Never runs a ``__repr__`` the student wrote.

    >>> describe(2.5), describe(object())
    ('float 2.5', '自定义类型的对象')
    """
    name = type_name(value)
    if not SHOW_VALUES.get() or name == "自定义类型的对象":
        return name
    if type(value) in (int, float, bool, str, fractions.Fraction) or type(value) in _NUMPY_INTS | _NUMPY_FLOATS:
        text = repr(value) if not (type(value) is int and value.bit_length() > 200) else "<很大的 int>"
        return f"{name} {text if len(text) <= 60 else text[:57] + '...'}"
    return name


def _fresh_int(value) -> int:
    """A new plain ``int`` with the value stored in an ``int`` (subclasses included)."""
    return int.__index__(value) if type(value) is not int else value


def as_int(value, what: str = "返回值") -> int:
    """``value`` as a Python ``int``: an ``int`` or a genuine numpy integer, nothing else.

    Floats are rejected even when integral (the question asks for an exact integer), and so is
    ``bool`` and any subclass of ``int`` (it could override ``__eq__``).

    >>> as_int(7), as_int(__import__("numpy").uint8(7))
    (7, 7)
    """
    if type(value) is int:
        if value.bit_length() > MAX_INT_BITS:
            raise GradingError(f"{what} 超过 {MAX_INT_BITS} 位")
        return value
    if type(value) in _NUMPY_INTS:
        return int(value)
    raise GradingError(f"{what} 应为 int{_got(value)}")


def as_float(value, what: str = "返回值") -> float:
    """``value`` as a Python ``float``: an int, float, Fraction or genuine numpy number.

    >>> as_float(3), as_float(fractions.Fraction(1, 4))
    (3.0, 0.25)
    """
    if type(value) in (int, float):
        return float(value)
    if type(value) is fractions.Fraction:
        return float(as_fraction(value, what))
    if type(value) in _NUMPY_INTS or type(value) in _NUMPY_FLOATS:
        return float(value)
    if type(value) is np.ndarray and value.shape == () and value.dtype.kind in "iuf":
        return float(value)
    raise GradingError(f"{what} 应为 float（秒、字节等实数）{_got(value)}")


def as_fraction(value, what: str = "返回值") -> fractions.Fraction:
    """``value`` as an exact ``Fraction`` rebuilt from plain ints (an ``int`` is accepted too).

    >>> as_fraction(fractions.Fraction(6, 4)), as_fraction(3)
    (Fraction(3, 2), Fraction(3, 1))
    """
    if type(value) is fractions.Fraction:
        numerator, denominator = value.numerator, value.denominator
        if isinstance(numerator, int) and isinstance(denominator, int) and type(numerator) is not bool:
            numerator, denominator = _fresh_int(numerator), _fresh_int(denominator)
            if max(numerator.bit_length(), denominator.bit_length()) > MAX_INT_BITS:
                # Before Fraction() reduces them: math.gcd runs in C, beyond any time budget.
                raise GradingError(f"{what} 的分子或分母超过 {MAX_INT_BITS} 位")
            if denominator != 0:
                return fractions.Fraction(numerator, denominator)
        raise GradingError(f"{what} 应为 fractions.Fraction，它的分子、分母不是 int")
    if type(value) is int or type(value) in _NUMPY_INTS:
        return fractions.Fraction(as_int(value, what))
    raise GradingError(f"{what} 应为 fractions.Fraction{_got(value)}")


def as_str(value, what: str = "返回值") -> str:
    """``value`` as a Python ``str`` (a genuine ``numpy.str_`` accepted), copied by ``str.__str__``.

    >>> as_str("ring"), type(as_str(__import__("numpy").str_("ring"))).__name__
    ('ring', 'str')
    """
    if type(value) is str or type(value) is _NUMPY_STR:
        return str.__str__(value)
    raise GradingError(f"{what} 应为 str{_got(value)}")


def as_bool(value, what: str = "返回值") -> bool:
    """``value`` as a Python ``bool`` (genuine numpy booleans accepted).

    >>> as_bool(__import__("numpy").bool_(True))
    True
    """
    if type(value) is bool:
        return value
    if type(value) is _NUMPY_BOOL:
        return bool(value)
    raise GradingError(f"{what} 应为 bool{_got(value)}")


def items_of(value, what: str, kinds: tuple) -> list:
    """The items of ``value`` (of one of the exact types ``kinds``, or a 1-D numpy array) as a list.

    >>> items_of((1, 2), "x", (list, tuple))
    [1, 2]
    """
    if type(value) not in kinds and not (type(value) is np.ndarray and value.ndim == 1):
        names = " / ".join(k.__name__ for k in kinds)
        raise GradingError(f"{what} 应为 {names}{_got(value)}")
    if len(value) > MAX_ITEMS:
        raise GradingError(f"{what} 的项数超过上限 {MAX_ITEMS}")
    check_memory(f"value: {what} of {len(value):,} items", _items_memory(len(value)))
    return list(value)


def _items_memory(items: int) -> int:
    """The list and the coerced items (``as_list``): tracemalloc measured 16.4 bytes an item at
    :data:`MAX_ITEMS` (Python ints), so 32 and 1 MiB (33 MB at the cap)."""
    return 32 * items + 2**20


def as_list(value, item: Callable = as_int, what: str = "返回值") -> list:
    """``value`` (a list, tuple or 1-D numpy array) as a list of coerced items.

    >>> as_list((3, __import__("numpy").int64(5)))
    [3, 5]
    """
    label = _items(what)
    return [item(v, label(i)) for i, v in enumerate(items_of(value, what, (list, tuple)))]


def as_set(value, item: Callable = as_int, what: str = "返回值") -> frozenset:
    """``value`` (a set, frozenset, list or tuple) as a frozenset of coerced items.

    >>> sorted(as_set({2, 1}))
    [1, 2]
    """
    return frozenset(item(v, f"{what} 的元素") for v in items_of(value, what, (set, frozenset, list, tuple)))


def as_pair(value, item: Callable = as_int, what: str = "返回值") -> tuple:
    """``value`` as a 2-tuple of coerced items (a list or tuple of length 2).

    >>> as_pair([0, 3])
    (0, 3)
    """
    items = items_of(value, what, (list, tuple))
    if len(items) != 2:
        raise GradingError(f"{what} 应是两个元素的元组")
    return (item(items[0], _item(what, 0)), item(items[1], _item(what, 1)))


def as_tuple(value, length: int, item: Callable = as_int, what: str = "返回值") -> tuple:
    """``value`` as a ``length``-tuple of coerced items.

    >>> as_tuple([1, 2, 3], 3)
    (1, 2, 3)
    """
    items = items_of(value, what, (list, tuple))
    if len(items) != length:
        raise GradingError(f"{what} 应是 {length} 个元素的元组")
    label = _items(what)
    return tuple(item(v, label(i)) for i, v in enumerate(items))


def as_rounds(value, item: Callable = as_int, what: str = "返回值") -> list[list[tuple]]:
    """A schedule written as rounds of ``(src, dst)`` pairs: a list of lists of 2-tuples.

    >>> as_rounds([[(0, 1)], [(0, 2), (1, 3)]])
    [[(0, 1)], [(0, 2), (1, 3)]]
    """
    detailed, hidden = _detailed(), f"{what} 的某一项"
    return [
        [
            as_pair(pair, item, f"{what}[{r}][{j}]" if detailed else hidden)
            for j, pair in enumerate(
                items_of(rnd, f"{what}[{r}]" if detailed else hidden, (list, tuple, set, frozenset))
            )
        ]
        for r, rnd in enumerate(items_of(value, what, (list, tuple)))
    ]


def as_node(value, what: str = "节点") -> tuple | int:
    """A node label: an int, or a tuple of ints (grid coordinates).

    >>> as_node((1, 2)), as_node(3)
    ((1, 2), 3)
    """
    if type(value) in (tuple, list):
        return tuple(as_int(v, what) for v in value)
    return as_int(value, what)


# --------------------------------------------------------------------------------------------
# Visible checks: the expected value may be shown (visible cases are public)
# --------------------------------------------------------------------------------------------


def check_equal(got, want, what: str, coerce: Callable = as_int) -> None:
    """Visible check: ``coerce(got) == want`` or a :class:`GradingError` naming the expected value.

    >>> check_equal(__import__("numpy").int64(3), 3, "steps(8)")
    >>> check_equal(4, 3, "steps(8)")
    Traceback (most recent call last):
    ...
    ccb_helpers.grading.values.GradingError: steps(8) 应为 3，得到 4
    """
    value = coerce(got, what)
    if value != want:
        shown = f"，得到 {value!r}" if SHOW_VALUES.get() else "，返回值不对"
        raise GradingError(f"{what} 应为 {want!r}{shown}")


def check_close(got, want: float, what: str, rel: float = 1e-9, abs_tol: float = 0.0) -> None:
    """Visible check: ``as_float(got)`` within ``rel`` (relative) of ``want``.

    >>> check_close(0.1 + 0.2, 0.3, "x")
    >>> check_close(0.25, 0.3, "x")
    Traceback (most recent call last):
    ...
    ccb_helpers.grading.values.GradingError: x 应约为 0.3（相对误差 ≤ 1e-09），得到 0.25
    """
    value = as_float(got, what)
    if not _close(value, want, rel, abs_tol):
        shown = f"，得到 {value!r}" if SHOW_VALUES.get() else "，返回值不对"
        raise GradingError(f"{what} 应约为 {want!r}（相对误差 ≤ {rel:g}）{shown}")


def close(value, want, rel: float = 1e-9, abs_tol: float = 0.0) -> bool:
    """Whether ``value`` is within ``rel`` (relative) or ``abs_tol`` of ``want``; False for NaN, and
    for an infinity unless both are the same infinity. The one float comparison of every hidden test.

    ``abs(x - y) > tol * abs(y)`` is False when ``x`` is NaN, so a check written that way passed a
    NaN answer (#40); a check written with this function fails it. ``value`` and ``want`` are
    numbers (``int``, ``float``, ``Fraction``, genuine numpy numbers); anything else is not close.

    >>> close(0.1 + 0.2, 0.3), close(float("nan"), 1.0), close(float("nan"), float("nan"))
    (True, False, False)
    >>> close(0.0, 1e-18, rel=1e-6, abs_tol=1e-15), close(float("inf"), float("inf"))
    (True, True)
    """
    numbers = (int, float, fractions.Fraction)
    if not (type(value) in numbers or type(value) in _NUMPY_INTS | _NUMPY_FLOATS):
        return False
    if not (type(want) in numbers or type(want) in _NUMPY_INTS | _NUMPY_FLOATS):
        raise TypeError(f"want must be a number, got {type(want).__name__}")
    if not (isinstance(rel, (int, float)) and rel >= 0 and isinstance(abs_tol, (int, float)) and abs_tol >= 0):
        raise ValueError(f"rel and abs_tol must be numbers >= 0, got {rel!r}, {abs_tol!r}")
    try:
        value, want = float(value), float(want)
    except OverflowError:  # an int or Fraction beyond float: only an exact match is close
        return value == want
    # Written out rather than math.isclose: a notebook may replace math.isclose in its own kernel.
    if value == want:
        return True
    if not (math.isfinite(value) and math.isfinite(want)):
        return False
    difference = value - want if value >= want else want - value
    scale = max(value if value >= 0 else -value, want if want >= 0 else -want)
    return difference <= max(rel * scale, abs_tol)


_close = close  # the name Part.compare and check_close used
