"""Human-readable sizes and times: binary prefixes for bytes, SI for seconds.

One rule for all three formatters: the value is rounded first and the unit chosen after, so a
rounding that reaches the next unit carries into it (``0.99995 s`` is ``1 s``, not ``1000 ms``;
``1023.96 B`` is ``1 KiB``, not ``1024.0 B``); the number is always written out in positional
notation (never ``1e+03``); the largest unit takes whole numbers of any length (``12345 s``), and
a value below the smallest unit keeps three significant digits (``0.04 B``, ``0.000001 ns``), so a
value that is not zero never prints as zero.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, localcontext

from ._validation import check_real

__all__ = ["KiB", "MiB", "GiB", "format_bytes", "format_time", "format_bandwidth"]

KiB = 1024
MiB = 1024**2
GiB = 1024**3

_BINARY_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB")
#: (unit, scale, scale as a power of ten)
_TIME_UNITS = (("ns", 1e-9, -9), ("µs", 1e-6, -6), ("ms", 1e-3, -3), ("s", 1.0, 0))
#: Significant digits kept of a whole number in the largest unit (beyond a float64's precision
#: the digits would be noise of the binary value; they are written as zeros).
_MAX_DIGITS = 15
_MIN_NORMAL = 2.2250738585072014e-308

# The live site's runtime (_static/live/ccb-live.js: formatBytes, formatTime, formatBandwidth)
# follows these steps digit for digit; tests/test_live_core.py holds the two against each other.


def _in_unit(value: float, scale: float, power_of_ten: int) -> tuple[float, Decimal]:
    """``value / scale`` as a float and as the exact decimal value of that float (what
    ``f"{q:.3g}"`` rounds); where the quotient underflows (a subnormal value), the exact quotient,
    the decimal digits of ``value`` shifted by the power of ten ``scale`` is."""
    quotient = value / scale
    if quotient >= _MIN_NORMAL or value == 0:
        return quotient, Decimal(quotient)
    sign, digits, exponent = Decimal(value).as_tuple()
    return quotient, Decimal((sign, digits, exponent - power_of_ten))


def _positional(x: Decimal, digits: int) -> str:
    """``x`` rounded to ``digits`` significant digits (half to even), written without an exponent,
    trailing zeros after the point dropped."""
    with localcontext() as context:
        context.prec, context.rounding = digits, ROUND_HALF_EVEN
        rounded = +x
    text = format(rounded, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _whole(x: Decimal) -> str:
    """``x`` >= 1 rounded to a whole number (at most :data:`_MAX_DIGITS` significant digits)."""
    return _positional(x, max(1, min(_MAX_DIGITS, x.adjusted() + 1)))


def format_bytes(value) -> str:
    """Bytes with a binary prefix (B, KiB, MiB, …, YiB).

    One decimal below 1000 of a unit (``.0`` dropped), whole numbers from 1000 to 1023 of a unit,
    a fractional byte count with one decimal (three significant digits below 0.05 B). A value
    that rounds to 1024 of a unit is one of the next.

    >>> format_bytes(0), format_bytes(1536), format_bytes(3 * 2**30), format_bytes(1e6)
    ('0 B', '1.5 KiB', '3 GiB', '976.6 KiB')
    >>> format_bytes(1023.96), format_bytes(1048575.9), format_bytes(0.04), format_bytes(1.5288e13)
    ('1 KiB', '1 MiB', '0.04 B', '13.9 TiB')
    """
    value = check_real("value", value, scalar=True)
    index = 0
    while index + 1 < len(_BINARY_UNITS) and value >= 1024 ** (index + 1):
        index += 1
    carried = False
    while True:
        q, x = _in_unit(value, 1024**index, 0)  # index > 0: q >= 1, never the underflow
        if carried and q < 1:  # the smaller unit rounded up to 1024 of it: 1 of this one
            q, x = 1.0, Decimal(1)
        if index == 0:
            if q == int(q):
                text = str(int(q))
            else:
                text = f"{q:.1f}" if q >= 0.05 else _positional(x, 3)
        elif q < 999.95:
            text = f"{q:.1f}"
            text = text[:-2] if text.endswith(".0") else text
        else:
            text = _whole(x)
        if index == len(_BINARY_UNITS) - 1 or Decimal(text) < 1024:
            return f"{text} {_BINARY_UNITS[index]}"
        index, carried = index + 1, True


def format_time(seconds) -> str:
    """Seconds with an SI prefix (ns, µs, ms, s), three significant digits.

    Whole seconds from 1000 s on; below 1 ns, fractions of a nanosecond.

    >>> format_time(0), format_time(2.5e-6), format_time(0.0183), format_time(12)
    ('0 s', '2.5 µs', '18.3 ms', '12 s')
    >>> format_time(0.99995), format_time(999.9999), format_time(4321.2)
    ('1 s', '1000 s', '4321 s')
    """
    seconds = check_real("seconds", seconds, scalar=True)
    if seconds == 0:
        return "0 s"
    index = max((i for i, (_, scale, _) in enumerate(_TIME_UNITS) if seconds >= scale), default=0)
    carried = False
    while True:
        unit, scale, power = _TIME_UNITS[index]
        q, x = _in_unit(seconds, scale, power)
        if carried and q < 1:  # the smaller unit rounded up to 1000 of it: 1 of this one
            q, x = 1.0, Decimal(1)
        if index == len(_TIME_UNITS) - 1:
            return f"{_positional(x, 3) if q < 999.5 else _whole(x)} {unit}"
        text = _positional(x, 3)
        if Decimal(text) < 1000:
            return f"{text} {unit}"
        index, carried = index + 1, True


def format_bandwidth(bytes_per_second) -> str:
    """Bandwidth in decimal GB/s (the unit vendors and nccl-tests use), three significant digits.

    Whole GB/s from 1000 GB/s on, never an exponent.

    >>> format_bandwidth(450e9), format_bandwidth(2.5e7), format_bandwidth(1234.6e9), format_bandwidth(0)
    ('450 GB/s', '0.025 GB/s', '1235 GB/s', '0 GB/s')
    """
    value = check_real("bytes_per_second", bytes_per_second, scalar=True)
    if value == 0:
        return "0 GB/s"
    q, x = _in_unit(value, 1e9, 9)
    return f"{_positional(x, 3) if q < 999.5 else _whole(x)} GB/s"
